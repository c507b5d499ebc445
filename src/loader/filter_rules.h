/*
 * The guest filter's rules (filter.c), for the build-time compiler
 * (src/bpf_gen.c) only; the running supervisor loads the compiled program
 * (filter.h, guest_bpf).
 */
#ifndef FILTER_RULES_H
#define FILTER_RULES_H

#include <seccomp.h>
#include <stddef.h>

/* The rules; NULL with a message in why if libseccomp refuses one. */
scmp_filter_ctx filter_ctx(char *why, size_t why_size);

#endif
