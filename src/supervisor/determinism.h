/* --deterministic: the supervisor's half (the vDSO's is abi/vdso/det.h;
 * the rules are at struct trap_det in trap.h). */
#ifndef SUPERVISOR_DETERMINISM_H
#define SUPERVISOR_DETERMINISM_H

#include <stdbool.h>
#include <stdint.h>

#include "sup.h"

/* The seed of the process numbered number. */
uint64_t det_proc_seed(uint64_t seed, unsigned number);

/* At p's start-up call, its vDSO known: virtual time from its start
 * values, random bytes from the run's seed and p's number.  False if p's
 * memory could not be written (it must not run then). */
bool det_start(struct sup *s, struct gproc *p);

/* A forked child, before it runs: its own random stream; its clock goes
 * on from its parent's. */
bool det_forked(struct sup *s, struct gproc *p);

#endif
