/*
 * Parked calls: a handler that must wait moves its call onto the
 * supervisor's parked list, registered in the loop's epoll set for what it
 * waits on and with an optional deadline; the loop runs the handler again
 * when either comes.  Who frees what is said at each function.
 */
#include "sup.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <time.h>

#include "park.h"
#include "lends.h"
#include "listener.h"
#include "host/clock.h"
#include "reply.h"

/* The first time, moves the call off the handler's stack onto the parked
 * list; later it is the parked call already.  NULL when out of memory. */
static struct call *park_copy(struct call *c) {
  struct sup *s = c->sup;
  if (c->parked)
    return c;
  struct call *p = malloc(sizeof(*p));
  if (p == NULL)
    return NULL;
  *p = *c;
  p->parked = true;
  p->handle = EV_PARKED + ++s->park_serial;
  p->next = s->parked;
  s->parked = p;
  s->nparked++;
  return p;
}

static void unlink_parked(struct sup *s, struct call *p) {
  for (struct call **pp = &s->parked; *pp != NULL; pp = &(*pp)->next) {
    if (*pp == p) {
      *pp = p->next;
      s->nparked--;
      break;
    }
  }
}

bool sup_park_fd(struct call *c, int fd, uint32_t events) {
  struct sup *s = c->sup;
  bool first = !c->parked;
  struct call *p = park_copy(c);
  if (p == NULL)
    return false;
  /* A descriptor of our own, so that any number of calls can wait on the
   * same host object in one epoll set. */
  if (p->wait_fd < 0)
    p->wait_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  struct epoll_event ev = {.events = events | EPOLLONESHOT, .data.u64 = p->handle};
  if (p->wait_fd < 0 ||
      (epoll_ctl(s->epfd, EPOLL_CTL_MOD, p->wait_fd, &ev) != 0 &&
       epoll_ctl(s->epfd, EPOLL_CTL_ADD, p->wait_fd, &ev) != 0)) {
    if (first) {
      /* Leave no trace: the handler answers the call itself. */
      unlink_parked(s, p);
      if (p->wait_fd >= 0)
        close(p->wait_fd);
      free(p);
    }
    return false;
  }
  p->wait_events = events;
  return true;
}

/* A private epoll set of the descriptors, itself waited for (one-shot) in
 * the loop's set: one registration per parked call however many
 * descriptors it waits on, and no trouble with descriptors that other
 * calls wait on too. */
static int wait_set(const struct park_fd *fds, size_t n) {
  int ep = epoll_create1(EPOLL_CLOEXEC);
  for (size_t i = 0; ep >= 0 && i < n; i++) {
    struct epoll_event ev = {.events = fds[i].events, .data.u64 = i};
    /* EPERM: a regular file or the like, always ready, never waited on. */
    if (epoll_ctl(ep, EPOLL_CTL_ADD, fds[i].fd, &ev) != 0 && errno != EPERM) {
      close(ep);
      ep = -1;
    }
  }
  return ep;
}

bool sup_park_fds(struct call *c, const struct park_fd *fds, size_t n,
                  uint64_t deadline_ns) {
  struct sup *s = c->sup;
  bool first = !c->parked;
  struct call *p = park_copy(c);
  if (p == NULL)
    return false;
  bool ok = true;
  if (n > 0) {
    struct epoll_event ev = {.events = EPOLLIN | EPOLLONESHOT, .data.u64 = p->handle};
    if (p->wait_fd < 0) {
      p->wait_fd = wait_set(fds, n);
      ok = p->wait_fd >= 0 &&
           epoll_ctl(s->epfd, EPOLL_CTL_ADD, p->wait_fd, &ev) == 0;
    } else {
      ok = epoll_ctl(s->epfd, EPOLL_CTL_MOD, p->wait_fd, &ev) == 0;
    }
    p->wait_events = EPOLLIN;
  }
  p->deadline_ns = deadline_ns;
  if (!ok && first) {
    /* Leave no trace: the handler still owns the call and its state. */
    unlink_parked(s, p);
    if (p->wait_fd >= 0)
      close(p->wait_fd);
    free(p);
  }
  return ok;
}

cloudabi_errno_t sup_wait_for(struct call *c, struct hostobj *obj,
                              uint32_t events) {
  if ((obj->flags & CLOUDABI_FDFLAG_NONBLOCK) != 0)
    return CLOUDABI_EAGAIN;
  return sup_park_fd(c, obj->fd, events) ? CALL_PARKED : CLOUDABI_ENOMEM;
}

/* Takes p off the parked list.  It is freed after the current round of
 * events, which may still name it. */
void park_drop(struct sup *s, struct call *p) {
  if (s->trace != NULL)
    s->trace_hooks->call_abandoned(s->trace, p); /* unless it was answered */
  unlink_parked(s, p);
  /* Closing our dup is not enough: epoll keeps a registration while any
   * descriptor of the same file stays open (the guest's own, or another
   * process's copy), and it would fire for a freed call. */
  if (p->wait_fd >= 0) {
    epoll_ctl(s->epfd, EPOLL_CTL_DEL, p->wait_fd, NULL);
    close(p->wait_fd);
  }
  p->wait_fd = -1;
  p->dead = true;
  p->next = s->dead;
  s->dead = p;
}

void park_free_dead(struct sup *s) {
  while (s->dead != NULL) {
    struct call *p = s->dead;
    s->dead = p->next;
    if (p->state_free != NULL)
      p->state_free(p->state);
    else
      free(p->state);
    free(p);
  }
}

/* Runs a parked call's handler again, through the dispatcher: the
 * descriptor table may have changed (closed, or moved by growth) since. */
void park_resume(struct sup *s, struct call *p) {
  if (p->dead)
    return;
  if (!call_is_valid(p)) {
    park_drop(s, p);
    return;
  }
  cloudabi_errno_t e = s->opts->dispatch(p);
  if (s->trace != NULL)
    s->trace_hooks->call_done(s->trace, p, e);
  if (e == CALL_PARKED)
    return;
  if (e != CALL_ABANDONED) {
    lends_settle(p); /* what the handler closed or narrowed */
    sup_reply(p->listener, p->id, e, p->result);
  }
  park_drop(s, p);
}

void park_event(struct sup *s, uint64_t handle) {
  for (struct call *p = s->parked; p != NULL; p = p->next)
    if (p->handle == handle) {
      park_resume(s, p);
      return;
    }
  /* A call dropped earlier in this round: its event is stale. */
}

/* A thread is gone: so are the calls it was waiting in. */
void park_cancel_thread(struct sup *s, pid_t tid) {
  struct call *p = s->parked;
  while (p != NULL) {
    struct call *next = p->next;
    if ((pid_t)p->tid == tid)
      park_drop(s, p);
    p = next;
  }
}

/* How long the loop may sleep: until the earliest deadline of a parked
 * call; NULL for no limit. */
static struct timespec *next_timeout(struct sup *s, struct timespec *ts) {
  uint64_t first = 0;
  for (struct call *p = s->parked; p != NULL; p = p->next)
    if (p->deadline_ns != 0 && (first == 0 || p->deadline_ns < first))
      first = p->deadline_ns;
  if (first == 0)
    return NULL;
  uint64_t now = host_monotonic_ns(), left = first > now ? first - now : 0;
  ts->tv_sec = (time_t)(left / 1000000000u);
  ts->tv_nsec = (long)(left % 1000000000u);
  return ts;
}

/* epoll_wait with a timeout in nanoseconds (Linux 5.11); before that,
 * milliseconds, rounded up so that a deadline is never early. */
int park_wait(struct sup *s, struct epoll_event *evs, int n) {
  struct timespec ts, *t = next_timeout(s, &ts);
  int r = epoll_pwait2(s->epfd, evs, n, t, NULL);
  if (r >= 0 || errno != ENOSYS)
    return r;
  long ms = -1;
  if (t != NULL)
    ms = (long)t->tv_sec * 1000 + (t->tv_nsec + 999999) / 1000000;
  return epoll_wait(s->epfd, evs, n, ms > 1 << 30 ? 1 << 30 : (int)ms);
}

/* Resumes the parked calls whose deadline has passed. */
void park_expire(struct sup *s) {
  uint64_t now = host_monotonic_ns();
  struct call *p = s->parked;
  while (p != NULL) {
    struct call *next = p->next; /* resume may unpark p, never another */
    if (p->deadline_ns != 0 && p->deadline_ns <= now)
      park_resume(s, p);
    p = next;
  }
}
