/* poll in the supervisor; see poll_set.h. */
#include "poll_set.h"
#include "host/signals.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "supervisor/acceptor.h"
#include "supervisor/guestmem.h"
#include "supervisor/park.h"
#include "supervisor/sup.h"
#include "syscall_table.h"

#define R(name) CLOUDABI_RIGHT_##name

_Static_assert(POLL_MAX_SUBSCRIPTIONS * sizeof(cloudabi_subscription_t) <=
                   GUESTMEM_MAX_IO,
               "a poll's subscriptions fit in the scratch buffer");

static uint64_t now_on(clockid_t clock) {
  struct timespec ts;
  if (clock_gettime(clock, &ts) != 0)
    return 0;
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t poll_now(void) {
  return now_on(CLOCK_MONOTONIC);
}

static uint64_t add_sat(uint64_t a, uint64_t b) {
  return a + b < a ? UINT64_MAX : a + b;
}

/* Linux's CPU-time clocks of another process or thread (see
 * clock_getcpuclockid(3); the encoding is the kernel's ABI). */
static clockid_t process_cpu_clock(pid_t pid) {
  return (clockid_t)((~(unsigned)pid << 3) | 2);
}
static clockid_t thread_cpu_clock(pid_t tid) {
  return (clockid_t)((~(unsigned)tid << 3) | 6);
}

/*
 * A CLOCK subscription's deadline on CLOCK_MONOTONIC.  As in FreeBSD (and
 * the vDSO for CPU-time clocks), an absolute time is turned into a
 * duration when the poll starts, so a REALTIME deadline here does not
 * follow later changes of that clock.
 */
static cloudabi_errno_t clock_deadline(const cloudabi_subscription_t *s,
                                       pid_t pid, pid_t tid, uint64_t *out) {
  clockid_t clock;
  switch (s->clock.clock_id) {
  case CLOUDABI_CLOCK_MONOTONIC:
    clock = CLOCK_MONOTONIC;
    break;
  case CLOUDABI_CLOCK_REALTIME:
    clock = CLOCK_REALTIME;
    break;
  case CLOUDABI_CLOCK_PROCESS_CPUTIME_ID:
    clock = process_cpu_clock(pid);
    break;
  case CLOUDABI_CLOCK_THREAD_CPUTIME_ID:
    clock = thread_cpu_clock(tid);
    break;
  default:
    return CLOUDABI_EINVAL;
  }
  uint64_t mono = poll_now(), t = s->clock.timeout;
  if ((s->clock.flags & CLOUDABI_SUBSCRIPTION_CLOCK_ABSTIME) != 0) {
    if (clock == CLOCK_MONOTONIC) {
      *out = t;
      return 0;
    }
    uint64_t now = now_on(clock);
    t = t > now ? t - now : 0;
  }
  *out = add_sat(mono, t);
  return 0;
}

/* The descriptor of an FD_READ, FD_WRITE or PROC_TERMINATE subscription,
 * with the rights its type needs. */
static cloudabi_errno_t resolve(struct captab *fds,
                                const cloudabi_subscription_t *s,
                                struct hostobj **obj) {
  cloudabi_fd_t fd;
  cloudabi_rights_t need;
  switch (s->type) {
  case CLOUDABI_EVENTTYPE_FD_READ:
    fd = s->fd_readwrite.fd;
    need = R(FD_READ) | R(POLL_FD_READWRITE);
    break;
  case CLOUDABI_EVENTTYPE_FD_WRITE:
    fd = s->fd_readwrite.fd;
    need = R(FD_WRITE) | R(POLL_FD_READWRITE);
    break;
  default:
    fd = s->proc_terminate.fd;
    need = R(POLL_PROC_TERMINATE);
    break;
  }
  struct capability *cap;
  cloudabi_errno_t e = captab_get(fds, fd, need, &cap);
  if (e != 0)
    return e;
  if (s->type == CLOUDABI_EVENTTYPE_PROC_TERMINATE &&
      cap->obj->type != CLOUDABI_FILETYPE_PROCESS)
    return CLOUDABI_EINVAL;
  hostobj_ref(cap->obj);
  *obj = cap->obj;
  return 0;
}

struct poll_set *poll_set_new(struct captab *fds,
                              const cloudabi_subscription_t *subs, size_t n,
                              pid_t pid, pid_t tid) {
  struct poll_set *set = calloc(1, sizeof(*set) + n * sizeof(set->sub[0]));
  if (set == NULL)
    return NULL;
  set->n = n;
  for (size_t i = 0; i < n; i++) {
    const cloudabi_subscription_t *s = &subs[i];
    struct poll_sub *p = &set->sub[i];
    p->userdata = s->userdata;
    p->type = s->type;
    switch (s->type) {
    case CLOUDABI_EVENTTYPE_CLOCK:
      p->error = clock_deadline(s, pid, tid, &p->deadline);
      break;
    case CLOUDABI_EVENTTYPE_FD_READ:
    case CLOUDABI_EVENTTYPE_FD_WRITE:
    case CLOUDABI_EVENTTYPE_PROC_TERMINATE:
      p->error = resolve(fds, s, &p->obj);
      break;
    default:
      p->error = CLOUDABI_EINVAL;
      break;
    }
    if (p->error != 0)
      set->nerrors++;
  }
  return set;
}

void poll_set_free(struct poll_set *set) {
  if (set == NULL)
    return;
  for (size_t i = 0; i < set->n; i++)
    hostobj_unref(set->sub[i].obj);
  free(set);
}

/* Bytes that can be read without blocking (the spec's nbytes). */
static cloudabi_filesize_t readable_bytes(const struct hostobj *obj) {
  if (obj->type == CLOUDABI_FILETYPE_REGULAR_FILE) {
    struct stat st;
    off_t pos = lseek(obj->fd, 0, SEEK_CUR);
    if (fstat(obj->fd, &st) != 0 || pos < 0 || st.st_size <= pos)
      return 0;
    return (cloudabi_filesize_t)(st.st_size - pos);
  }
  int n;
  return ioctl(obj->fd, FIONREAD, &n) == 0 && n > 0 ? (cloudabi_filesize_t)n
                                                    : 0;
}

/* Room for writing without blocking, where the host can tell. */
static cloudabi_filesize_t writable_bytes(const struct hostobj *obj) {
  int queued = 0, size = 0;
  if (obj->is_socket) {
    socklen_t len = sizeof(size);
    if (getsockopt(obj->fd, SOL_SOCKET, SO_SNDBUF, &size, &len) != 0 ||
        ioctl(obj->fd, SIOCOUTQ, &queued) != 0)
      return 0;
  } else {
    size = fcntl(obj->fd, F_GETPIPE_SZ);
    if (size < 0 || ioctl(obj->fd, FIONREAD, &queued) != 0)
      return 0; /* not a pipe */
  }
  return size > queued ? (cloudabi_filesize_t)(size - queued) : 0;
}

static short poll_events_of(cloudabi_eventtype_t type) {
  switch (type) {
  case CLOUDABI_EVENTTYPE_FD_READ:
    return POLLIN | POLLRDHUP;
  case CLOUDABI_EVENTTYPE_FD_WRITE:
    return POLLOUT;
  default:
    return POLLIN; /* a process descriptor: readable once it ended */
  }
}

/* What to wait on for a subscription's object: a process descriptor has
 * no descriptor of its own, but its record's end eventfd, which stays
 * the same through proc_exec (the pidfd does not). */
static int wait_fd_of(const struct hostobj *obj) {
  return obj->proc != NULL ? obj->proc->endfd : obj->fd;
}

/*
 * Whether a process has ended, and how: only what the supervisor collected
 * counts.  (Peeking with waitid(WNOWAIT) also reported the tracer's ptrace
 * stops, CLD_TRAPPED, as an end "by signal 17".)
 */
static bool process_ended(const struct procinfo *info, cloudabi_signal_t *sig,
                          cloudabi_exitcode_t *code) {
  if (!info->exited)
    return false;
  int status = info->status;
  if (WIFSIGNALED(status)) {
    *sig = signal_from_linux(WTERMSIG(status));
    *code = 0;
  } else {
    *sig = 0;
    *code = (cloudabi_exitcode_t)WEXITSTATUS(status);
  }
  return true;
}

/* One descriptor's event, if it is ready (revents from poll). */
static bool fd_event(const struct poll_sub *p, short revents,
                     cloudabi_event_t *ev) {
  if ((revents & POLLNVAL) != 0) {
    ev->error = CLOUDABI_EBADF;
    return true;
  }
  bool hangup = (revents & (POLLHUP | POLLRDHUP | POLLERR)) != 0;
  switch (p->type) {
  case CLOUDABI_EVENTTYPE_FD_READ:
    if ((revents & POLLIN) == 0 && !hangup)
      return false;
    ev->fd_readwrite.nbytes = readable_bytes(p->obj);
    break;
  case CLOUDABI_EVENTTYPE_FD_WRITE:
    if ((revents & POLLOUT) == 0 && !hangup)
      return false;
    ev->fd_readwrite.nbytes = hangup ? 0 : writable_bytes(p->obj);
    break;
  default:
    if (p->obj->proc == NULL)
      return false;
    return process_ended(p->obj->proc, &ev->proc_terminate.signal,
                         &ev->proc_terminate.exitcode);
  }
  if (hangup)
    ev->fd_readwrite.flags |= CLOUDABI_EVENT_FD_READWRITE_HANGUP;
  return true;
}

size_t poll_set_check(const struct poll_set *set, uint64_t now,
                      cloudabi_event_t *events) {
  size_t k = 0;
  if (set->nerrors > 0) {
    for (size_t i = 0; i < set->n; i++) {
      const struct poll_sub *p = &set->sub[i];
      if (p->error != 0)
        events[k++] = (cloudabi_event_t){
            .userdata = p->userdata, .error = p->error, .type = p->type};
    }
    return k;
  }
  /* Every descriptor at once, without waiting. */
  size_t nfds = 0;
  for (size_t i = 0; i < set->n; i++)
    nfds += set->sub[i].obj != NULL;
  struct pollfd one, *pfds = nfds <= 1 ? &one : calloc(nfds, sizeof(*pfds));
  if (pfds == NULL)
    nfds = 0; /* out of memory: report the clocks only, try again later */
  for (size_t i = 0, j = 0; i < set->n && j < nfds; i++)
    if (set->sub[i].obj != NULL) {
      /* An acceptor's end is readable once a connection is pulled in. */
      if (set->sub[i].type == CLOUDABI_EVENTTYPE_FD_READ)
        acceptor_feed(set->sub[i].obj);
      pfds[j++] = (struct pollfd){wait_fd_of(set->sub[i].obj),
                                  poll_events_of(set->sub[i].type), 0};
    }
  if (nfds > 0 && poll(pfds, nfds, 0) < 0)
    nfds = 0;
  for (size_t i = 0, j = 0; i < set->n; i++) {
    const struct poll_sub *p = &set->sub[i];
    cloudabi_event_t ev = {.userdata = p->userdata, .type = p->type};
    bool ready;
    if (p->type == CLOUDABI_EVENTTYPE_CLOCK)
      ready = now >= p->deadline;
    else
      ready = j < nfds && fd_event(p, pfds[j++].revents, &ev);
    if (ready)
      events[k++] = ev;
  }
  if (pfds != &one)
    free(pfds);
  return k;
}

static uint32_t epoll_events_of(cloudabi_eventtype_t type) {
  switch (type) {
  case CLOUDABI_EVENTTYPE_FD_READ:
    return EPOLLIN | EPOLLRDHUP;
  case CLOUDABI_EVENTTYPE_FD_WRITE:
    return EPOLLOUT;
  default:
    return EPOLLIN;
  }
}

static int by_fd(const void *a, const void *b) {
  const struct park_fd *x = a, *y = b;
  return (x->fd > y->fd) - (x->fd < y->fd);
}

size_t poll_set_waits(const struct poll_set *set, struct park_fd *fds,
                      uint64_t *deadline) {
  size_t n = 0;
  *deadline = 0;
  for (size_t i = 0; i < set->n; i++) {
    const struct poll_sub *p = &set->sub[i];
    if (p->obj != NULL)
      fds[n++] = (struct park_fd){wait_fd_of(p->obj), epoll_events_of(p->type)};
    else if (p->type == CLOUDABI_EVENTTYPE_CLOCK &&
             (*deadline == 0 || p->deadline < *deadline))
      *deadline = p->deadline == 0 ? 1 : p->deadline;
  }
  /* One entry per descriptor (epoll takes each once), events merged. */
  qsort(fds, n, sizeof(*fds), by_fd);
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    if (m > 0 && fds[m - 1].fd == fds[i].fd)
      fds[m - 1].events |= fds[i].events;
    else
      fds[m++] = fds[i];
  }
  return m;
}

/* ---- the handler ---- */

static void free_set(void *set) {
  poll_set_free(set);
}

/* Answers with what is ready, or parks until something is. */
static cloudabi_errno_t poll_answer(struct call *c, struct poll_set *set) {
  cloudabi_event_t *events = sup_scratch(c->sup);
  size_t k = poll_set_check(set, poll_now(), events);
  if (k == 0) {
    struct park_fd *fds = malloc(set->n * sizeof(*fds));
    if (fds == NULL)
      return CLOUDABI_ENOMEM;
    uint64_t deadline;
    size_t nfds = poll_set_waits(set, fds, &deadline);
    /* The set is what a parked poll holds (against the budget). */
    c->cost = sizeof(*set) + set->n * sizeof(set->sub[0]);
    cloudabi_errno_t e = sup_park_fds(c, fds, nfds, deadline);
    free(fds);
    return e == 0 ? CALL_PARKED : e;
  }
  cloudabi_errno_t e = gmem_write(c, c->args[1], events, k * sizeof(*events));
  if (e == 0)
    c->result = k;
  return e;
}

cloudabi_errno_t handle_poll(struct call *c) {
  struct poll_set *set = c->state;
  if (set == NULL) {
    /* First time: copy and parse the subscriptions once. */
    size_t n = c->args[2];
    if (n == 0) {
      c->result = 0;
      return 0;
    }
    if (n > POLL_MAX_SUBSCRIPTIONS)
      return CLOUDABI_EINVAL;
    cloudabi_subscription_t *subs = sup_scratch(c->sup);
    cloudabi_errno_t e = gmem_read(c, c->args[0], subs, n * sizeof(*subs));
    if (e != 0)
      return e;
    set = poll_set_new(&c->proc->fds, subs, n, c->proc->pid, (pid_t)c->tid);
    if (set == NULL)
      return CLOUDABI_ENOMEM;
    c->state = set;
    c->state_free = free_set;
  }
  cloudabi_errno_t e = poll_answer(c, set);
  if (e != CALL_PARKED) {
    /* Answered: the set goes now, whether or not the call was parked. */
    poll_set_free(set);
    c->state = NULL;
  }
  return e;
}
