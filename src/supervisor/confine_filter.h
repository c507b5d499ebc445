/*
 * The supervisor's own seccomp filter, in two halves: the rules
 * (confine_filter.c, compiled with libseccomp by confine_filter_gen at
 * build time) and the program they compile to (confine_bpf, generated),
 * which confine_install.c loads at run time.
 */
#ifndef CLOUDABI_SUPERVISOR_CONFINE_FILTER_H
#define CLOUDABI_SUPERVISOR_CONFINE_FILTER_H

#include <linux/filter.h>
#include <seccomp.h>

/* The rules; NULL if libseccomp refuses one.  Build time only. */
scmp_filter_ctx confine_filter_ctx(void);

/* Generated from confine_filter_ctx() (confine_bpf.c in the build tree). */
extern const struct sock_filter confine_bpf[];
extern const unsigned short confine_bpf_len;

#endif
