/* --deterministic; see determinism.h. */
#include "determinism.h"

#include <stddef.h>
#include <sys/uio.h>

#include "host/mix64.h"
#include "trap.h"

/* A process's seed: the run's, mixed with its number (SplitMix64's
 * finaliser), so that processes draw different streams, and the same
 * ones in every run that starts them in the same order. */
uint64_t det_proc_seed(uint64_t seed, unsigned number) {
  return mix64(seed ^ ((uint64_t)number * 0x9e3779b97f4a7c15ull));
}

static bool put(const struct gproc *p, uint64_t addr, const void *data,
                size_t len) {
  struct iovec l = {(void *)data, len};
  struct iovec r = {(void *)(uintptr_t)addr, len};
  return process_vm_writev(p->pid, &l, 1, &r, 1, 0) == (ssize_t)len;
}

bool det_start(struct sup *s, struct gproc *p) {
  struct trap_det d = {.on = 1,
                       .ticks = 0,
                       .seed = det_proc_seed(s->opts->seed, p->number),
                       .draws = 0};
  return put(p, p->vdso_base + s->vdso.det, &d, sizeof(d));
}

bool det_forked(struct sup *s, struct gproc *p) {
  uint64_t words[2] = {det_proc_seed(s->opts->seed, p->number), 0};
  return put(p, p->vdso_base + s->vdso.det + offsetof(struct trap_det, seed),
             words, sizeof(words));
}
