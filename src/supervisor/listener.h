/* The seccomp listeners (listener.c). */
#ifndef LISTENER_H
#define LISTENER_H

#include "sup.h"

/* epoll data of the loop's own sources: listener i is EV_LISTENER + i;
 * a parked call's is its handle, EV_PARKED and up (park.c). */
#define EV_SIGNAL ((uint64_t)2)
#define EV_LISTENER ((uint64_t)16)
#define EV_PARKED ((uint64_t)1 << 32)

/* A new listener in the epoll set (taking fd), or NULL. */
struct listener *sup_listener_add(struct sup *s, int fd);
void sup_listener_unref(struct sup *s, struct listener *l);

/* The loop saw l ready with events (EPOLLIN, EPOLLHUP) and RECV found
 * nothing: true if l is hung, now out of the epoll set and off the fast
 * path. */
bool sup_listener_check_hung(struct sup *s, struct listener *l,
                             uint32_t events);

#endif
