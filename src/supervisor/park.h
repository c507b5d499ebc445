/*
 * Between the event loop and the parked calls (park.c); handlers park
 * through sup.h.  Nothing outside src/supervisor/ should need these.
 */
#ifndef PARK_H
#define PARK_H

#include <sys/epoll.h>

#include "sup.h"

/* Takes p off the parked list (unanswered, unless the caller answered
 * it).  It is freed by park_free_dead, after the current round of events,
 * which may still name it. */
void park_drop(struct sup *s, struct call *p);
/* Frees the calls dropped during this round. */
void park_free_dead(struct sup *s);
/* Runs a parked call's handler again; answers and drops it unless it
 * parks again. */
void park_resume(struct sup *s, struct call *p);
/* A thread is gone: so are the calls it was waiting in. */
void park_cancel_thread(struct sup *s, pid_t tid);
/* epoll_wait on the loop's set until the earliest deadline. */
int park_wait(struct sup *s, struct epoll_event *evs, int n);
/* Resumes the parked calls whose deadline has passed. */
void park_expire(struct sup *s);

#endif
