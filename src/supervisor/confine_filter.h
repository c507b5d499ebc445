/*
 * The supervisor's own seccomp filter as compiled at build time: the
 * rules are in confine_filter.c (confine_rules.h), libseccomp compiles
 * them in src/bpf_gen.c, and confine_install.c loads the result.
 */
#ifndef CLOUDABI_SUPERVISOR_CONFINE_FILTER_H
#define CLOUDABI_SUPERVISOR_CONFINE_FILTER_H

#include <linux/filter.h>

/* Generated (confine_bpf.c in the build tree). */
extern const struct sock_filter confine_bpf[];
extern const unsigned short confine_bpf_len;

#endif
