/*
 * Parked calls (park.c): the handlers' side first, then the loop's.
 */
#ifndef PARK_H
#define PARK_H

#include <sys/epoll.h>

#include "sup.h"

/*
 * Budgets of what parked calls hold, per run: bytes of parked state (the
 * calls and what their handlers keep, c->cost), descriptors of the
 * supervisor's own (a poll's private epoll set, an edge wait's dup) and
 * registrations in private sets (kernel memory).  Parking beyond one
 * fails with ENOMEM (bytes, registrations) or EMFILE (descriptors).
 * Waits on one host object share one registration of the object's own
 * descriptor, so plain blocking reads and writes hold no descriptor.
 */
#define PARK_MAX_BYTES ((size_t)24 << 20)
#define PARK_MAX_FDS 256
#define PARK_MAX_REGS 65536u

/* Parking: the handler returns CALL_PARKED after one of these.  The call is
 * copied; the handler runs again when obj is ready (events as for epoll) or
 * the deadline passes.  Each park waits on the object the handler names
 * now (not the one of an earlier park).  With EPOLLET in events the call
 * waits for news (an edge), and parking again for the same events keeps
 * waiting for the next one.  0, or the errno to fail the call with (a
 * first park that fails leaves nothing behind). */
cloudabi_errno_t sup_park_obj(struct call *c, struct hostobj *obj,
                              uint32_t events);

/* A descriptor to wait on and its epoll events (EPOLLIN, EPOLLOUT, ...). */
struct park_fd {
  int fd;
  uint32_t events;
};

/* Parks c until one of fds[0..n) is ready (level-triggered; each
 * descriptor at most once) or until deadline_ns (CLOCK_MONOTONIC; 0 for
 * none) passes; then the handler runs again (n may be 0: a deadline only).
 * A call parks on the same descriptors every time: they are registered
 * the first time and kept, as a handler's state holds references to them.
 * 0, or the errno to fail the call with; the call is then as before (a
 * first park leaves nothing behind, and c->state stays the handler's). */
cloudabi_errno_t sup_park_fds(struct call *c, const struct park_fd *fds,
                              size_t n, uint64_t deadline_ns);

/* For a host call that found obj not ready: a descriptor the guest made
 * non-blocking fails with EAGAIN, a blocking one parks the call until obj
 * is ready for `events` (CALL_PARKED, or an errno of sup_park_obj). */
cloudabi_errno_t sup_wait_for(struct call *c, struct hostobj *obj,
                              uint32_t events);

/* ---- for the loop; nothing outside src/supervisor/ needs these ---- */

/* Takes p off the parked list (unanswered, unless the caller answered
 * it).  It is freed by park_free_dead, after the current round of events,
 * which may still name it. */
void park_drop(struct sup *s, struct call *p);
/* Frees the calls dropped during this round. */
void park_free_dead(struct sup *s);
/* Runs a parked call's handler again; answers and drops it unless it
 * parks again. */
void park_resume(struct sup *s, struct call *p);
/* An event of the loop's set at or above EV_PARKED: resumes the parked
 * call with that handle, if it is still parked (a handle is never reused,
 * so a stale event finds nothing). */
void park_event(struct sup *s, uint64_t handle, uint32_t revents);
/* A thread is gone: so are the calls it was waiting in. */
void park_cancel_thread(struct sup *s, pid_t tid);
/* epoll_wait on the loop's set until the earliest deadline. */
int park_wait(struct sup *s, struct epoll_event *evs, int n);
/* Resumes the parked calls whose deadline has passed. */
void park_expire(struct sup *s);

#endif
