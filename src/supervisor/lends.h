/*
 * Descriptors lent to a guest for mem_map, and their revocation (lends.c).
 * The guest holds no host descriptor but these; the vDSO maps and closes
 * one at once, but a program that traps mem_map itself can keep it, so
 * the supervisor takes it back (overwrites its number with an inert
 * descriptor) as soon as keeping it could matter:
 *   - at the next trapped call of the thread it was lent to (the vDSO
 *     has closed it by then; kcmp says so, and the record is dropped);
 *   - before any call of its process is answered once the capability it
 *     came from is closed, replaced or has lost a right the lend used;
 *   - at any call of its process once that thread is gone, and, in a
 *     forked child, at the child's first call (it inherits what its
 *     parent held, whatever the records say).
 * Another thread's unrelated call leaves a lend alone: that thread may be
 * between its trap and its mmap.
 */
#ifndef LENDS_H
#define LENDS_H

#include <stdbool.h>
#include <sys/types.h>

#include "sup.h"

/* Creates the inert descriptor and checks that lends can be revoked
 * (kcmp); without that, mem_map of a descriptor is ENOSYS. */
void lends_setup(struct sup *s);
void lends_teardown(struct sup *s);

/*
 * Lends host descriptor fd (not taken over) to the calling thread, for
 * mem_map of capability capfd, which must keep `rights` (all that the
 * lent descriptor can be used for) for the lend to stand.  Sets *gfd to
 * its number in the guest.  ENOSYS when lends cannot be made or taken
 * back, EMFILE with SUP_MAX_LENDS outstanding.
 */
cloudabi_errno_t lends_add(struct call *c, int fd, cloudabi_fd_t capfd,
                           cloudabi_rights_t rights, int *gfd);

void lends_settle_slow(struct call *c);
/* Revokes what is due before c is dispatched and again before it is
 * answered (c's own lend stands); nothing to do, the normal case, when
 * the process has no lend outstanding. */
static inline void lends_settle(struct call *c) {
  if (c->proc != NULL && c->proc->lends.n != 0)
    lends_settle_slow(c);
}

/* Thread tid of p is gone: what it was lent is due at p's next call. */
void lends_thread_gone(struct gproc *p, pid_t tid);
/* child, stopped after its fork, has its parent's descriptors: records
 * for them, due at its first call.  False if it holds more than can be
 * recorded (the caller kills it). */
bool lends_inherit(struct sup *s, struct gproc *child);
/* Drops p's records (it is gone). */
void lends_clear(struct gproc *p);

#endif
