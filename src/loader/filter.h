/* The seccomp filter every guest process runs under. */
#ifndef FILTER_H
#define FILTER_H

#include <linux/filter.h>
#include <stddef.h>

struct filter_prog {
  struct sock_filter *insns; /* malloc'ed */
  size_t len;
};

/*
 * The filter: the private numbers of trapped calls go to the
 * supervisor by user notification; a short list of Linux calls the vDSO
 * needs is allowed with every argument that matters compared in full;
 * anything else raises SIGSYS, which the supervisor reports and turns into
 * the death of the process.  That includes clone3, whose flags live in
 * memory the filter cannot see: no CloudABI code issues it, so nothing
 * needs the ENOSYS answer glibc would fall back on.
 *
 * The rules are in filter.c; libseccomp compiles them at build time
 * (src/bpf_gen.c) into guest_bpf, which filter_build copies: compiling at
 * every start took ~1 ms.  Returns 0, or -1 with a message in why.
 */
int filter_build(struct filter_prog *out, char *why, size_t why_size);

/* Generated (guest_bpf.c in the build tree). */
extern const struct sock_filter guest_bpf[];
extern const unsigned short guest_bpf_len;
void filter_free(struct filter_prog *p);

#endif
