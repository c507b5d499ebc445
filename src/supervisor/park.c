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
#include <sys/syscall.h>
#include <linux/kcmp.h>
#include <unistd.h>
#include <time.h>

#include "park.h"

#include "mirrors.h"
#include "lends.h"
#include "listener.h"
#include "host/clock.h"
#include "reply.h"

/*
 * One host object that parked calls wait on: a single registration of the
 * object's own descriptor in the loop's set, fanned out to its waiters.
 * So a thousand calls reading one socket hold no descriptor at all.
 */
struct park_obj {
  struct hostobj *obj; /* a reference: obj->fd stays open while waited on */
  uint64_t handle;
  struct call *waiters; /* by next_waiter */
  bool busy;            /* fanning out an event: not freed meanwhile */
  struct park_obj *next;
};

static uint64_t new_handle(struct sup *s) {
  return EV_PARKED + ++s->park_serial;
}

/* The first time, moves the call off the handler's stack onto the parked
 * list (within the budget of parked state); later it is the parked call
 * already.  NULL when out of memory or over budget. */
static struct call *park_copy(struct call *c) {
  struct sup *s = c->sup;
  if (c->parked)
    return c;
  size_t cost = sizeof(*c) + c->cost;
  if (cost > PARK_MAX_BYTES - s->parked_bytes)
    return NULL;
  struct call *p = malloc(sizeof(*p));
  if (p == NULL)
    return NULL;
  *p = *c;
  p->parked = true;
  p->cost = cost;
  p->handle = new_handle(s);
  p->next = s->parked;
  s->parked = p;
  s->nparked++;
  s->parked_bytes += cost;
  return p;
}

static void unlink_parked(struct sup *s, struct call *p) {
  for (struct call **pp = &s->parked; *pp != NULL; pp = &(*pp)->next) {
    if (*pp == p) {
      *pp = p->next;
      s->nparked--;
      s->parked_bytes -= p->cost;
      break;
    }
  }
}

/* A first park that failed leaves no trace: the handler still owns the
 * call and its state and answers it itself. */
static void unpark_first(struct sup *s, struct call *p) {
  unlink_parked(s, p);
  free(p);
}

static bool same_file(int a, int b) {
  pid_t self = getpid();
  return syscall(SYS_kcmp, self, self, KCMP_FILE, a, b) == 0;
}

/* The descriptor of its own that a call waited on, if any. */
static void drop_wait_fd(struct sup *s, struct call *p) {
  if (p->wait_fd < 0)
    return;
  /* Closing is not enough: epoll keeps a registration while any
   * descriptor of the same file stays open (the guest's own, or another
   * process's copy), and it would fire for a freed call. */
  epoll_ctl(s->epfd, EPOLL_CTL_DEL, p->wait_fd, NULL);
  close(p->wait_fd);
  p->wait_fd = -1;
  s->park_fds--;
}

static void obj_free(struct sup *s, struct park_obj *e) {
  for (struct park_obj **pp = &s->park_objs; *pp != NULL; pp = &(*pp)->next)
    if (*pp == e) {
      *pp = e->next;
      break;
    }
  epoll_ctl(s->epfd, EPOLL_CTL_DEL, e->obj->fd, NULL);
  hostobj_unref(e->obj);
  free(e);
}

/* Registers (or re-arms) e for what its waiters wait for, one-shot. */
static bool obj_arm(struct sup *s, struct park_obj *e, bool added) {
  uint32_t events = 0;
  for (struct call *w = e->waiters; w != NULL; w = w->next_waiter)
    events |= w->wait_events;
  struct epoll_event ev = {.events = events | EPOLLONESHOT,
                           .data.u64 = e->handle};
  return epoll_ctl(s->epfd, added ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, e->obj->fd,
                   &ev) == 0;
}

/* Takes p off its object's list; the object goes with its last waiter. */
static void obj_leave(struct sup *s, struct call *p) {
  struct park_obj *e = p->wait_obj;
  if (e == NULL)
    return;
  /* Not on the list while its object's event is fanned out: then the
   * fan-out holds it, and its link. */
  for (struct call **pp = &e->waiters; *pp != NULL; pp = &(*pp)->next_waiter)
    if (*pp == p) {
      *pp = p->next_waiter;
      p->next_waiter = NULL;
      break;
    }
  p->wait_obj = NULL;
  if (e->waiters == NULL && !e->busy)
    obj_free(s, e);
}

static struct park_obj *obj_find(struct sup *s, struct hostobj *obj) {
  for (struct park_obj *e = s->park_objs; e != NULL; e = e->next)
    if (e->obj == obj)
      return e;
  return NULL;
}

/* What a parked call waits with: its own descriptor, or its place on an
 * object's list. */
static void release_waits(struct sup *s, struct call *p) {
  if (p->wait_fd >= 0)
    s->park_regs -= p->wait_regs;
  p->wait_regs = 0;
  drop_wait_fd(s, p);
  obj_leave(s, p);
}

/* Edge-triggered waits keep a registration of their own (a dup of the
 * object's descriptor), which stays armed across re-parks: parking again
 * for the same events waits for the next edge. */
static cloudabi_errno_t park_edge(struct sup *s, struct call *p,
                                  struct hostobj *obj, uint32_t events) {
  obj_leave(s, p); /* a level-triggered wait before */
  if (p->wait_fd >= 0 && !same_file(p->wait_fd, obj->fd))
    drop_wait_fd(s, p);
  if (p->wait_fd >= 0 && p->wait_events == events)
    return 0;
  bool registered = p->wait_fd >= 0;
  if (!registered) {
    if (s->park_fds >= PARK_MAX_FDS)
      return CLOUDABI_EMFILE;
    p->wait_fd = fcntl(obj->fd, F_DUPFD_CLOEXEC, 3);
    if (p->wait_fd < 0)
      return CLOUDABI_EMFILE;
    s->park_fds++;
  }
  struct epoll_event ev = {.events = events, .data.u64 = p->handle};
  if (epoll_ctl(s->epfd, registered ? EPOLL_CTL_MOD : EPOLL_CTL_ADD,
                p->wait_fd, &ev) != 0) {
    drop_wait_fd(s, p);
    return CLOUDABI_ENOMEM;
  }
  p->wait_events = events;
  return 0;
}

static cloudabi_errno_t park_on_obj(struct sup *s, struct call *p,
                                    struct hostobj *obj, uint32_t events) {
  drop_wait_fd(s, p); /* an edge wait before */
  /* The call waits on another object than last time (fd_replace, or a
   * close and a reuse of the number, while it was parked): the old one,
   * perhaps ready, would wake it for nothing, again and again. */
  if (p->wait_obj != NULL && p->wait_obj->obj != obj)
    obj_leave(s, p);
  struct park_obj *e = p->wait_obj;
  bool added = true;
  if (e == NULL && (e = obj_find(s, obj)) == NULL) {
    e = calloc(1, sizeof(*e));
    if (e == NULL)
      return CLOUDABI_ENOMEM;
    hostobj_ref(obj);
    e->obj = obj;
    e->handle = new_handle(s);
    e->next = s->park_objs;
    s->park_objs = e;
    added = false;
  }
  if (p->wait_obj == NULL) {
    p->next_waiter = e->waiters;
    e->waiters = p;
    p->wait_obj = e;
  }
  p->wait_events = events;
  /* While its event is fanned out, it is re-armed once at the end. */
  if (!e->busy && !obj_arm(s, e, added)) {
    obj_leave(s, p);
    return CLOUDABI_ENOMEM;
  }
  return 0;
}

cloudabi_errno_t sup_park_obj(struct call *c, struct hostobj *obj,
                              uint32_t events) {
  struct sup *s = c->sup;
  bool first = !c->parked;
  struct call *p = park_copy(c);
  if (p == NULL)
    return CLOUDABI_ENOMEM;
  cloudabi_errno_t e = (events & EPOLLET) != 0
                           ? park_edge(s, p, obj, events)
                           : park_on_obj(s, p, obj, events);
  if (e != 0 && first)
    unpark_first(s, p);
  return e;
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

cloudabi_errno_t sup_park_fds(struct call *c, const struct park_fd *fds,
                              size_t n, uint64_t deadline_ns) {
  struct sup *s = c->sup;
  bool first = !c->parked;
  struct call *p = park_copy(c);
  if (p == NULL)
    return CLOUDABI_ENOMEM;
  cloudabi_errno_t e = 0;
  if (n > 0) {
    struct epoll_event ev = {.events = EPOLLIN | EPOLLONESHOT,
                             .data.u64 = p->handle};
    if (p->wait_fd < 0) {
      if (s->park_fds >= PARK_MAX_FDS)
        e = CLOUDABI_EMFILE;
      else if (n > PARK_MAX_REGS - s->park_regs)
        e = CLOUDABI_ENOMEM;
      else if ((p->wait_fd = wait_set(fds, n)) < 0)
        e = errno == ENOMEM ? CLOUDABI_ENOMEM : CLOUDABI_EMFILE;
      else {
        s->park_fds++;
        s->park_regs += n;
        p->wait_regs = n;
        if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, p->wait_fd, &ev) != 0)
          e = CLOUDABI_ENOMEM;
      }
    } else if (epoll_ctl(s->epfd, EPOLL_CTL_MOD, p->wait_fd, &ev) != 0) {
      e = CLOUDABI_ENOMEM;
    }
    p->wait_events = EPOLLIN;
  }
  p->deadline_ns = deadline_ns;
  if (e != 0 && first) {
    release_waits(s, p);
    unpark_first(s, p);
  }
  return e;
}

cloudabi_errno_t sup_wait_for(struct call *c, struct hostobj *obj,
                              uint32_t events) {
  if ((obj->flags & CLOUDABI_FDFLAG_NONBLOCK) != 0)
    return CLOUDABI_EAGAIN;
  cloudabi_errno_t e = sup_park_obj(c, obj, events);
  return e == 0 ? CALL_PARKED : e;
}

/* Takes p off the parked list.  It is freed after the current round of
 * events, which may still name it. */
void park_drop(struct sup *s, struct call *p) {
  if (s->trace != NULL)
    s->trace_hooks->call_abandoned(s->trace, p); /* unless it was answered */
  unlink_parked(s, p);
  release_waits(s, p);
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
  /* As for a new call: what the process closed without a trap first. */
  if (p->proc != NULL)
    mirrors_take_closed(p);
  cloudabi_errno_t e = s->opts->dispatch(p);
  if (s->trace != NULL)
    s->trace_hooks->call_done(s->trace, p, e);
  if (e == CALL_PARKED)
    return;
  if (e != CALL_ABANDONED) {
    lends_settle(p); /* what the handler closed or narrowed */
    if (!mirrors_answer(p, e))
      sup_reply(p->listener, p->id, e, p->result);
  }
  park_drop(s, p);
}

/*
 * An object's event: resumes the waiters it concerns, then re-arms the
 * registration for those still waiting, or drops it.  Once a resumed
 * waiter parks here again, the object is not ready for what it waits for
 * (the host said EAGAIN: calls that wait for news use edge waits of their
 * own), so the others waiting for the same events wait on unresumed: one
 * connection for N parked workers costs two tries, not N.  An error or a
 * hang-up concerns everyone.
 */
static void obj_event(struct sup *s, struct park_obj *e, uint32_t revents) {
  e->busy = true;
  struct call *list = e->waiters;
  e->waiters = NULL;
  bool all = (revents & (EPOLLERR | EPOLLHUP)) != 0;
  uint32_t not_ready = 0; /* events a resumed waiter parked again for */
  while (list != NULL) {
    struct call *p = list;
    list = p->next_waiter;
    p->next_waiter = NULL;
    if (p->dead)
      continue;
    if (!all && ((p->wait_events & revents) == 0 ||
                 (not_ready != 0 && p->wait_events == not_ready))) {
      p->next_waiter = e->waiters; /* not for it: it waits on */
      e->waiters = p;
      continue;
    }
    /* Off the list while it runs: parking again puts it back. */
    p->wait_obj = NULL;
    park_resume(s, p);
    if (!p->dead && p->wait_obj == e)
      not_ready = p->wait_events;
  }
  e->busy = false;
  if (e->waiters == NULL || !obj_arm(s, e, true)) {
    /* Nobody waits, or it cannot be re-armed: those left try again. */
    struct call *left = e->waiters;
    e->waiters = NULL;
    obj_free(s, e);
    for (struct call *p = left, *next; p != NULL; p = next) {
      next = p->next_waiter;
      p->next_waiter = NULL;
      p->wait_obj = NULL;
      if (!p->dead)
        park_resume(s, p);
    }
  }
}

void park_event(struct sup *s, uint64_t handle, uint32_t revents) {
  for (struct call *p = s->parked; p != NULL; p = p->next)
    if (p->handle == handle) {
      park_resume(s, p);
      return;
    }
  for (struct park_obj *e = s->park_objs; e != NULL; e = e->next)
    if (e->handle == handle) {
      obj_event(s, e, revents);
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
