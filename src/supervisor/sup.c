/*
 * The supervisor's event loop: seccomp notifications in, answers out;
 * ptrace events for the guest's tasks; parked calls resumed when what
 * they wait for is ready.  It never blocks on a guest's behalf.
 */
#include "sup.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdarg.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "filter.h"
#include "guestmem.h"
#include "hostio.h"
#include "poll_set.h"
#include "signal_report.h"
#include "signals.h"
#include "spawn.h"
#include "syscall_table.h"
#include "tasks.h"
#include "sup_internal.h"
#include "trace.h"
#include "trap.h"

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

/* epoll data: small numbers for our own sources (listener i is
 * EV_LISTENER + i); parked calls use their pointer, which is never small. */
#define EV_SIGNAL ((uint64_t)2)
#define EV_LISTENER ((uint64_t)16)

#define msg sup_msg
void sup_msg(const struct sup *s, const char *fmt, ...) {
  (void)s;
  va_list ap;
  va_start(ap, fmt);
  fputs("cloudabi-run: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

bool call_is_valid(struct call *c) {
  uint64_t id = c->id;
  return ioctl(c->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

struct gproc *sup_proc_of(struct sup *s, pid_t tid) {
  struct gthread *t = tidmap_get(&s->threads, tid);
  return t != NULL ? t->proc : NULL;
}

void sup_reply(int listener, uint64_t id, cloudabi_errno_t e, uint64_t value) {
  struct seccomp_notif_resp resp;
  memset(&resp, 0, sizeof(resp));
  resp.id = id;
  if (e == 0)
    resp.val = (int64_t)value;
  else
    resp.error = -(int32_t)(TRAP_ERRNO_BIAS + e);
  /* ENOENT: the thread died meanwhile; nobody is waiting. */
  ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

/* ---- parked calls ---- */

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
  struct epoll_event ev = {.events = events | EPOLLONESHOT, .data.ptr = p};
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
    struct epoll_event ev = {.events = EPOLLIN | EPOLLONESHOT, .data.ptr = p};
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
static void unpark(struct sup *s, struct call *p) {
  if (s->trace != NULL)
    trace_call_abandoned(s->trace, p); /* unless it was answered */
  unlink_parked(s, p);
  if (p->wait_fd >= 0)
    close(p->wait_fd); /* also leaves the epoll set */
  p->wait_fd = -1;
  p->dead = true;
  p->next = s->dead;
  s->dead = p;
}

static void free_dead(struct sup *s) {
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
static void resume(struct sup *s, struct call *p) {
  if (p->dead)
    return;
  if (!call_is_valid(p)) {
    unpark(s, p);
    return;
  }
  cloudabi_errno_t e = dispatch(p);
  if (s->trace != NULL)
    trace_call_done(s->trace, p, e);
  if (e == CALL_PARKED)
    return;
  if (e != CALL_ABANDONED)
    sup_reply(p->listener, p->id, e, p->result);
  unpark(s, p);
}

/* A thread is gone: so are the calls it was waiting in. */
static void cancel_parked(struct sup *s, pid_t tid) {
  struct call *p = s->parked;
  while (p != NULL) {
    struct call *next = p->next;
    if ((pid_t)p->tid == tid)
      unpark(s, p);
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
  uint64_t now = poll_now(), left = first > now ? first - now : 0;
  ts->tv_sec = (time_t)(left / 1000000000u);
  ts->tv_nsec = (long)(left % 1000000000u);
  return ts;
}

/* epoll_wait with a timeout in nanoseconds (Linux 5.11); before that,
 * milliseconds, rounded up so that a deadline is never early. */
static int wait_events(struct sup *s, struct epoll_event *evs, int n) {
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
static void expire_deadlines(struct sup *s) {
  uint64_t now = poll_now();
  struct call *p = s->parked;
  while (p != NULL) {
    struct call *next = p->next; /* resume may unpark p, never another */
    if (p->deadline_ns != 0 && p->deadline_ns <= now)
      resume(s, p);
    p = next;
  }
}

/* ---- notifications ---- */

/* A notification received from listener: answer it, or park the call. */
static void process_notification(struct sup *s, int listener,
                                 struct seccomp_notif *n) {
  uint32_t sysno = (uint32_t)(n->data.nr - TRAP_NR_BASE);
  struct gproc *proc = sup_proc_of(s, (pid_t)n->pid);
  if (n->data.nr == TRAP_NR_BOOT) {
    /* Only the loader makes this call, once, before the program runs. */
    if (proc != NULL && proc->vdso_base == 0)
      proc->vdso_base = n->data.args[0];
    sup_reply(listener, n->id, 0, 0);
    return;
  }
  bool traced_local = n->data.nr == TRAP_NR_TRACE && proc != NULL;
  if (!traced_local && (sysno >= CLOUDABI_SYSCALL_COUNT || proc == NULL ||
                        syscall_table[sysno].handler == NULL)) {
    sup_reply(listener, n->id, CLOUDABI_ENOSYS, 0);
    return;
  }
  struct call c = {
      .sup = s,
      .proc = proc,
      .id = n->id,
      .listener = listener,
      .tid = n->pid,
      .sysno = sysno,
      .wait_fd = -1,
  };
  memcpy(c.args, n->data.args, sizeof(c.args));
  if (traced_local) {
    /* The tracing vDSO reports a call it performed (trace.c). */
    sup_reply(listener, c.id,
              s->trace != NULL ? trace_local_call(s->trace, &c)
                               : CLOUDABI_ENOSYS,
              0);
    return;
  }
  if (s->trace != NULL)
    trace_call_enter(s->trace, &c);
  cloudabi_errno_t e = dispatch(&c);
  if (s->trace != NULL)
    trace_call_done(s->trace, &c, e);
  if (e != CALL_PARKED && e != CALL_ABANDONED)
    sup_reply(listener, c.id, e, c.result);
}

static void handle_notification(struct sup *s, int listener) {
  struct seccomp_notif *n = s->notif;
  memset(n, 0, s->notif_size);
  if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, n) != 0)
    return; /* ENOENT: the caller died before we looked; EINTR */
  process_notification(s, listener, n);
}

/* ---- tasks and their ptrace events ---- */

/* The Linux name of a system call number, for reports. */
static const char *linux_syscall_name(int nr, char *buf, size_t size) {
  char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
  if (name == NULL) {
    snprintf(buf, size, "%d", nr);
    return buf;
  }
  snprintf(buf, size, "%s", name);
  free(name);
  return buf;
}

/*
 * A fault in the vDSO's copy routine is a bad guest pointer given to a
 * call: resume the thread at the routine's fault exit, which returns
 * EFAULT, as a kernel's exception table would.
 */
static bool recover_copy_fault(struct sup *s, struct gproc *proc, pid_t tid) {
  struct user_regs_struct regs;
  if (proc == NULL || proc->vdso_base == 0 ||
      ptrace(PTRACE_GETREGS, tid, 0, &regs) != 0)
    return false;
  uint64_t begin = proc->vdso_base + s->vdso.copy_begin;
  uint64_t end = proc->vdso_base + s->vdso.copy_end;
  if (regs.rip < begin || regs.rip >= end)
    return false;
  regs.rip = proc->vdso_base + s->vdso.copy_fault;
  return ptrace(PTRACE_SETREGS, tid, 0, &regs) == 0;
}

/* A signal is about to be delivered to tid. */
static void on_signal_stop(struct sup *s, pid_t tid, int sig) {
  siginfo_t si;
  struct gproc *proc = sup_proc_of(s, tid);
  if ((sig == SIGSEGV || sig == SIGBUS) && recover_copy_fault(s, proc, tid)) {
    ptrace(PTRACE_CONT, tid, 0, 0);
    return;
  }
  if (sig == SIGSYS && ptrace(PTRACE_GETSIGINFO, tid, 0, &si) == 0 &&
      si.si_code == 1 /* SYS_SECCOMP */) {
    /* A forbidden Linux system call: the process dies at once. */
    report_forbidden(s, proc, tid, &si);
    if (proc != NULL) {
      proc->killed_for_syscall = si.si_syscall + 1;
      proc->killed_at_ip = (uint64_t)(uintptr_t)si.si_call_addr;
      kill(proc->pid, SIGKILL);
    }
    ptrace(PTRACE_CONT, tid, 0, SIGKILL);
    return;
  }
  /* No handlers exist in CloudABI: the default action applies. */
  report_signal(s, proc, tid, sig,
                ptrace(PTRACE_GETSIGINFO, tid, 0, &si) == 0 ? &si : NULL);
  ptrace(PTRACE_CONT, tid, 0, sig);
}

static void on_task_exit(struct sup *s, pid_t tid, int status) {
  struct gthread *t = tidmap_get(&s->threads, tid);
  struct gproc *proc = t != NULL ? t->proc : NULL;
  cancel_parked(s, tid);
  tasks_remove_thread(&s->threads, tid);
  if (proc == NULL || tid != proc->pid)
    return;
  /* The thread group leader is reported last: the process is gone. */
  if (proc->info != NULL) {
    proc->info->exited = true;
    proc->info->status = status;
  }
  if (s->trace != NULL)
    trace_proc_exit(s->trace, proc->number, status,
                    proc->killed_for_syscall != 0);
  if (proc->pid == s->main_pid) {
    char name[32];
    if (proc->killed_for_threads) {
      msg(s, "program created more than %d threads and was killed",
          SUP_MAX_THREADS);
      s->exit_status = 128 + SIGKILL;
    } else if (proc->killed_for_syscall != 0) {
      char sc[32];
      msg(s, "program made a forbidden Linux system call %s at %#llx",
          linux_syscall_name(proc->killed_for_syscall - 1, sc, sizeof(sc)),
          (unsigned long long)proc->killed_at_ip);
      s->exit_status = 128 + SIGSYS;
    } else if (WIFEXITED(status)) {
      s->exit_status = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      int sig = WTERMSIG(status);
      msg(s, "program terminated by signal %s",
          signal_name_linux(sig, name, sizeof(name)));
      s->exit_status = 128 + sig;
    }
    s->main_done = true;
  }
  procs_exited(s, proc);
}

static void on_ptrace_stop(struct sup *s, pid_t tid, int status) {
  int sig = WSTOPSIG(status);
  int event = (status >> 16) & 0xff;
  unsigned long msgval = 0;
  switch (event) {
  case PTRACE_EVENT_CLONE:
    /* A new thread of the same process; it is stopped until we know. */
    if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &msgval) == 0) {
      struct gproc *creator = sup_proc_of(s, tid);
      if (creator != NULL && creator->nthreads >= SUP_MAX_THREADS &&
          !creator->killed_for_threads) {
        /* A thread bomb: a thread cannot be refused after the fact, and
         * killing one kills its process, so the process goes. */
        creator->killed_for_threads = true;
        kill(creator->pid, SIGKILL);
      }
      struct gthread *nt = tasks_add_thread(&s->threads, (pid_t)msgval,
                                            creator);
      if (nt != NULL) {
        nt->seen_clone_event = true;
        if (nt->stopped_unknown) {
          nt->stopped_unknown = false;
          ptrace(PTRACE_CONT, (pid_t)msgval, 0, 0);
        }
      }
    }
    ptrace(PTRACE_CONT, tid, 0, 0);
    return;
  case PTRACE_EVENT_FORK:
  case PTRACE_EVENT_VFORK:
    /* proc_fork: the child is stopped until it has its own table. */
    if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &msgval) == 0)
      procs_forked(s, sup_proc_of(s, tid), (pid_t)msgval);
    ptrace(PTRACE_CONT, tid, 0, 0);
    return;
  case PTRACE_EVENT_EXEC:
    ptrace(PTRACE_CONT, tid, 0, 0);
    return;
  case PTRACE_EVENT_STOP: {
    struct gthread *t = tidmap_get(&s->threads, tid);
    if (t == NULL) {
      /* A new task stopped before its creator's event arrived. */
      t = tasks_add_thread(&s->threads, tid, NULL);
      if (t != NULL)
        t->stopped_unknown = true;
      return;
    }
    if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU)
      ptrace(PTRACE_LISTEN, tid, 0, 0); /* a group stop: stay stopped */
    else
      ptrace(PTRACE_CONT, tid, 0, 0);
    return;
  }
  default:
    on_signal_stop(s, tid, sig);
  }
}

static void reap(struct sup *s) {
  int status;
  pid_t tid;
  while ((tid = waitpid(-1, &status, __WALL | WNOHANG)) > 0) {
    if (WIFEXITED(status) || WIFSIGNALED(status))
      on_task_exit(s, tid, status);
    else if (WIFSTOPPED(status))
      on_ptrace_stop(s, tid, status);
  }
}

/*
 * Signals.  The supervisor's signals are caught by a handler that records
 * them and writes a byte to a pipe in the epoll set (so a wait never
 * misses one), and that, while the supervisor blocks in RECV on the fast
 * path, jumps out of the RECV (so an exit or a ptrace stop is never left
 * waiting behind a notification that will not come).  A handler can only
 * reach globals, hence these few; they are the supervisor's only ones.
 */
static volatile sig_atomic_t sig_child, sig_other;
static volatile sig_atomic_t in_recv;
static int wake_fd = -1; /* the pipe's write end */
static sigjmp_buf recv_jump;

static void on_signal(int sig) {
  int saved = errno;
  if (sig == SIGCHLD)
    sig_child = 1;
  else
    sig_other = sig;
  char c = 0;
  if (write(wake_fd, &c, 1) < 0) {
    /* full: a wake-up is pending anyway */
  }
  errno = saved;
  if (in_recv) {
    in_recv = 0;
    siglongjmp(recv_jump, 1);
  }
}

static void handle_signals(struct sup *s) {
  char buf[64];
  while (read(s->sigfd, buf, sizeof(buf)) > 0) {
  }
  bool child = sig_child;
  sig_child = 0;
  int other = sig_other;
  sig_other = 0;
  {
    if (other != 0 && !s->main_done) {
      /* SIGINT, SIGTERM, SIGHUP for us: the program gets it too.  A
       * traced thread waiting in a call we parked only takes the signal
       * when the call returns, so those calls end now, with EINTR that
       * no thread lives to see. */
      for (struct gproc *p = s->procs; p != NULL; p = p->next)
        kill(p->pid, other);
      while (s->parked != NULL) {
        sup_reply(s->parked->listener, s->parked->id, CLOUDABI_EINTR, 0);
        unpark(s, s->parked);
      }
    }
  }
  if (child)
    reap(s);
}

/* ---- set-up and the loop ---- */

static int setup(struct sup *s, int prog_fd, struct launch_config *lc) {
  struct seccomp_notif_sizes sizes;
  if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0) {
    msg(s, "seccomp user notification is not available: %s",
        strerror(errno));
    return -1;
  }
  s->notif_size = sizes.seccomp_notif > sizeof(struct seccomp_notif)
                      ? sizes.seccomp_notif
                      : sizeof(struct seccomp_notif);
  if (vdso_info_get(s->opts->trace.local, &s->vdso) != 0) {
    msg(s, "the embedded vDSO lacks its copy routine symbols");
    return -1;
  }
  s->notif = calloc(1, s->notif_size);
  s->scratch = malloc(GUESTMEM_MAX_IO);
  if (s->notif == NULL || s->scratch == NULL) {
    msg(s, "out of memory");
    return -1;
  }

  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGCHLD);
  sigaddset(&mask, SIGINT);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGHUP);
  /* SA_NODEFER: on_signal may jump out of itself, leaving the mask as it
   * was; SA_RESTART: other calls it interrupts carry on. */
  struct sigaction sa = {.sa_handler = on_signal,
                         .sa_flags = SA_RESTART | SA_NODEFER};
  sigemptyset(&sa.sa_mask);
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC | O_NONBLOCK) != 0) {
    msg(s, "cannot set up the event loop: %s", strerror(errno));
    return -1;
  }
  s->sigfd = pipefd[0];
  wake_fd = pipefd[1];
  sigaction(SIGCHLD, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  sigprocmask(SIG_UNBLOCK, &mask, NULL);
  /* Writes to closed pipes fail with EPIPE for the guest to see. */
  signal(SIGPIPE, SIG_IGN);
  s->epfd = epoll_create1(EPOLL_CLOEXEC);
  if (s->sigfd < 0 || s->epfd < 0) {
    msg(s, "cannot set up the event loop: %s", strerror(errno));
    return -1;
  }

  if (s->opts->trace.enabled) {
    char twhy[512];
    s->trace = trace_open(&s->opts->trace, twhy, sizeof(twhy));
    if (s->trace == NULL) {
      msg(s, "%s", twhy);
      return -1;
    }
  }
  char why[256];
  if (filter_build(&s->filter, why, sizeof(why)) != 0) {
    msg(s, "%s", why);
    return -1;
  }
  /* The initial descriptor table: guest descriptor i is lc->fds[i]. */
  struct captab fds;
  captab_init(&fds);
  for (size_t i = 0; i < lc->nfds; i++) {
    struct hostobj *obj =
        hostobj_new(lc->fds[i].host_fd, lc->fds[i].rights.type);
    lc->fds[i].host_fd = -1; /* owned by obj now, even on failure */
    if (obj == NULL) {
      captab_free(&fds);
      return -1;
    }
    hostio_prepare(obj);
    cloudabi_errno_t e =
        captab_insert_at(&fds, (cloudabi_fd_t)i, obj, lc->fds[i].rights.base,
                         lc->fds[i].rights.inheriting);
    hostobj_unref(obj);
    if (e != 0) {
      captab_free(&fds);
      return -1;
    }
  }
  struct gproc *proc =
      procs_spawn(s, prog_fd, lc->argdata, lc->argdata_len, &fds, why,
                  sizeof(why));
  if (proc == NULL) {
    msg(s, "%s: %s", s->opts->program_name, why);
    return -1;
  }
  s->main_pid = proc->pid;
  struct epoll_event ev = {.events = EPOLLIN, .data.u64 = EV_SIGNAL};
  epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->sigfd, &ev);
  return 0;
}

static void teardown(struct sup *s) {
  for (struct gproc *p = s->procs; p != NULL; p = p->next)
    if (p->pid > 0)
      kill(p->pid, SIGKILL);
  while (s->parked != NULL)
    unpark(s, s->parked);
  free_dead(s);
  while (s->procs != NULL)
    procs_free(s, s->procs);
  tasks_free(&s->threads);
  filter_free(&s->filter);
  if (s->epfd >= 0)
    close(s->epfd);
  if (s->sigfd >= 0)
    close(s->sigfd);
  /* Back to defaults before the pipe goes: nothing may write to it. */
  signal(SIGCHLD, SIG_DFL);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGHUP, SIG_DFL);
  if (wake_fd >= 0)
    close(wake_fd);
  wake_fd = -1;
  free(s->notif);
  free(s->scratch);
  trace_close(s->trace);
}

/*
 * The fast path: with one listener and nothing parked, there is nothing to
 * wait for but the next notification and signals, so block in RECV itself
 * and save an epoll_wait per call.
 */
static struct listener *fast_path_listener(struct sup *s) {
  return s->parked == NULL && s->nlisteners == 1 ? s->single : NULL;
}

/* After a listener came or went: which one is alone, if one is. */
static void note_listeners(struct sup *s) {
  s->single = NULL;
  if (s->nlisteners != 1)
    return;
  for (unsigned i = 0; i < SUP_MAX_LISTENERS; i++)
    if (s->listeners[i] != NULL)
      s->single = s->listeners[i];
}

static void fast_recv(struct sup *s, struct listener *l) {
  struct seccomp_notif *n = s->notif;
  int fd = l->fd;
  memset(n, 0, s->notif_size);
  if (sigsetjmp(recv_jump, 0) == 0) {
    in_recv = 1;
    /* After raising in_recv: a signal from now on jumps out. */
    if (sig_child || sig_other) {
      in_recv = 0;
      return;
    }
    int r = ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, n);
    in_recv = 0;
    if (r != 0)
      return; /* ENOENT: the caller died before we looked */
  } else if (n->id == 0) {
    return; /* a signal, and no notification */
  }
  /* A notification, possibly received just before a signal jumped here:
   * the kernel fills n before any handler runs. */
  process_notification(s, fd, n);
}

int sup_run(const struct sup_options *opts, int prog_fd,
            struct launch_config *lc) {
  struct sup s = {
      .opts = opts, .epfd = -1, .sigfd = -1,
      .exit_status = 127};
  if (setup(&s, prog_fd, lc) != 0) {
    teardown(&s);
    return 127;
  }
  while (!s.main_done) {
    if (sig_child || sig_other)
      handle_signals(&s);
    if (s.main_done)
      break;
    struct listener *only = fast_path_listener(&s);
    if (only != NULL) {
      fast_recv(&s, only);
      free_dead(&s);
      if (s.reap_pending) {
        s.reap_pending = false;
        reap(&s);
      }
      continue;
    }
    struct epoll_event evs[64];
    int n = wait_events(&s, evs, 64);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      msg(&s, "epoll_wait: %s", strerror(errno));
      break;
    }
    for (int i = 0; i < n && !s.main_done; i++) {
      uint64_t ev = evs[i].data.u64;
      if (ev >= EV_LISTENER && ev < EV_LISTENER + SUP_MAX_LISTENERS) {
        /* Gone if its last process was reaped earlier in this round. */
        if (s.listeners[ev - EV_LISTENER] != NULL)
          handle_notification(&s, s.listeners[ev - EV_LISTENER]->fd);
      } else if (ev == EV_SIGNAL)
        handle_signals(&s);
      else
        resume(&s, evs[i].data.ptr);
    }
    if (!s.main_done)
      expire_deadlines(&s);
    free_dead(&s);
    if (s.reap_pending) {
      s.reap_pending = false;
      reap(&s);
    }
  }
  int status = s.exit_status;
  teardown(&s);
  return status;
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

void sup_listener_unref(struct sup *s, struct listener *l) {
  if (l == NULL || --l->refcount > 0)
    return;
  s->listeners[l->index] = NULL;
  s->nlisteners--;
  note_listeners(s);
  close(l->fd); /* also leaves the epoll set */
  free(l);
}

void sup_reap(struct sup *s) { reap(s); }
