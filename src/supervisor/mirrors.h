/*
 * Mirrored descriptors (trap.h): a capability's host descriptor installed
 * in the guest, so that the kernel performs its reads and writes without
 * a trap, with the filter allowing on each number only what its range
 * says.  The supervisor keeps every mirror in step with the capability it
 * came from:
 *   - installed when file_open makes a capability, answering the call in
 *     the same step (trap.h), or after the second trapped fd_read or
 *     fd_write of one (ADDFD is carried out by the guest's task, a round
 *     trip of its own), whose
 *     rights the kernel can enforce alone (FD_READ and/or FD_WRITE on a
 *     host descriptor open for them; a regular file, or a pipe or device
 *     the supervisor holds non-blocking; not a socket, whose descriptors
 *     and accounting are the supervisor's; no write mirror where the sync
 *     flags or the file limits need the supervisor after each write);
 *   - taken back (the inert descriptor put at its number with SETFD, on
 *     the very call, before it is answered) once fd_close, fd_replace or
 *     fd_stat_put leaves it naming something its capability no longer
 *     grants; a file's close without a trap (trap.h) closes the mirror in
 *     the guest at once, and before it answers the process's next call
 *     the supervisor checks that it is gone (kcmp), or puts the inert
 *     descriptor there, or, for a file_open, puts the new mirror there
 *     when its rights are the same (mirror_offer.c);
 *   - in a forked child, every inherited one taken back at its first call
 *     (its table is a copy of a moment the records may not match); its
 *     vDSO table is cleared before it runs;
 *   - after proc_exec there are none (a new process).
 * A thread in a mirrored read or write when its mirror is taken back
 * finishes it, as with close(2) on Linux.
 */
#ifndef MIRRORS_H
#define MIRRORS_H

#include <stdbool.h>

#include "sup.h"

/* Opens the inert descriptor mirrors are replaced with; without one (or
 * with --trace, which must see every call) none are made. */
void mirrors_setup(struct sup *s);
void mirrors_teardown(struct sup *s);

/* After c was dispatched, before it is answered: mirrors its call
 * closed, replaced or narrowed go. */
void mirrors_after(struct call *c);
/* Answers c with a mirror, if it can (trap.h, "A call answered with a
 * mirror"), of what its file_open opened or of what its trapped read or
 * write used (the second such: a plain ADDFD when the slot has no room):
 * true if c was answered. */
bool mirrors_answer(struct call *c, cloudabi_errno_t e);
void mirrors_settle_inherited(struct call *c);
/* Before c is dispatched, after descriptors closed without a trap were
 * closed: their mirrors become the inert descriptor. */
void mirrors_closed(struct call *c);
/* Before c is dispatched: what its process closed through its close
 * hints (trap.h) is closed, and the mirrors of every close taken from the
 * hints since the last call (here, at a fork or at a lend) are looked at. */
static inline void mirrors_take_closed(struct call *c) {
  captab_take_closed(&c->proc->fds);
  if (c->proc->fds.quiet_closes != 0)
    mirrors_closed(c);
}
/* Before c is dispatched: a forked child's inherited mirrors go. */
static inline void mirrors_before(struct call *c) {
  if (c->proc != NULL && c->proc->mirrors.inherited)
    mirrors_settle_inherited(c);
}

/* child, stopped after its fork: which mirrors it holds, to take back at
 * its first call, and its vDSO table cleared.  False on failure (the
 * caller kills it). */
bool mirrors_inherit(struct sup *s, struct gproc *parent, struct gproc *child);
/* Drops p's records (it is gone). */
void mirrors_clear(struct gproc *p);

#endif
