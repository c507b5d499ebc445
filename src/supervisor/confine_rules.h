/* The supervisor filter's rules (confine_filter.c), for the build-time
 * compiler (src/bpf_gen.c) only. */
#ifndef CLOUDABI_SUPERVISOR_CONFINE_RULES_H
#define CLOUDABI_SUPERVISOR_CONFINE_RULES_H

#include <seccomp.h>

/* The rules; NULL if libseccomp refuses one. */
scmp_filter_ctx confine_filter_ctx(void);

#endif
