/*
 * Seccomp listeners: one per process the loader started, shared by the
 * processes forked from it; each is in the loop's epoll set at a small
 * number of its own.  The loop's fast path needs to know when exactly one
 * exists.
 */
#include "listener.h"

#include <errno.h>

#include <linux/seccomp.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

/* After a listener came or went: which one is alone, if one is. */
static void note_listeners(struct sup *s) {
  s->single = NULL;
  if (s->nlisteners != 1)
    return;
  for (unsigned i = 0; i < SUP_MAX_LISTENERS; i++)
    if (s->listeners[i] != NULL && !s->listeners[i]->hung)
      s->single = s->listeners[i];
}

struct listener *sup_listener_add(struct sup *s, int fd) {
  /* Round robin: an epoll event fetched for a listener just closed must
   * not reach a new one at its index, where a RECV would block. */
  for (unsigned k = 0; k < SUP_MAX_LISTENERS; k++) {
    unsigned i = (s->next_listener + k) % SUP_MAX_LISTENERS;
    if (s->listeners[i] != NULL)
      continue;
    s->next_listener = i + 1;
    struct listener *l = calloc(1, sizeof(*l));
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = EV_LISTENER + i};
    if (l == NULL || epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
      free(l);
      return NULL;
    }
    /* Wake the supervisor on the guest's CPU, and the guest on ours: a
     * cross-CPU wake-up costs tens of microseconds on these machines. */
    ioctl(fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
    l->fd = fd;
    l->refcount = 1;
    l->index = i;
    s->listeners[i] = l;
    s->nlisteners++;
    note_listeners(s);
    return l;
  }
  return NULL;
}

/*
 * Once the last task under a filter is past its seccomp release (early in
 * its exit), the listener polls EPOLLHUP and RECV returns ENOENT without
 * blocking.  A loop that kept asking would spin, on the exiting task's
 * own CPU since our wake-ups are synchronous, and hold off the exit (and
 * the SIGCHLD it waits for) until the scheduler preempted it: milliseconds
 * at the end of a run whose teardown is slow (a large address space).
 */
bool sup_listener_check_hung(struct sup *s, struct listener *l,
                             uint32_t events) {
  if ((events & EPOLLIN) != 0 || (events & EPOLLHUP) == 0)
    return false;
  l->hung = true;
  epoll_ctl(s->epfd, EPOLL_CTL_DEL, l->fd, NULL);
  note_listeners(s);
  return true;
}

void sup_listener_unref(struct sup *s, struct listener *l) {
  if (l == NULL || --l->refcount > 0)
    return;
  s->listeners[l->index] = NULL;
  s->nlisteners--;
  note_listeners(s);
  close(l->fd); /* also leaves the epoll set */
  free(l);
}
