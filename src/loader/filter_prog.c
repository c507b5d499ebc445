/* The guest's filter as the supervisor holds it; see filter.h. */
#include "filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int filter_build(struct filter_prog *out, char *why, size_t why_size) {
  out->len = guest_bpf_len;
  out->insns = malloc(out->len * sizeof(*out->insns));
  if (out->insns == NULL) {
    out->len = 0;
    snprintf(why, why_size, "no memory for the seccomp filter");
    return -1;
  }
  memcpy(out->insns, guest_bpf, out->len * sizeof(*out->insns));
  return 0;
}

void filter_free(struct filter_prog *p) {
  free(p->insns);
  p->insns = NULL;
  p->len = 0;
}
