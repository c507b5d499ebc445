/*
 * The supervisor's event loop: seccomp notifications in, answers out;
 * ptrace events for the guest's tasks (task_events.c); parked calls
 * (park.c) resumed when what they wait for is ready; the supervisor's own
 * signals (interrupt.c).  It never blocks on a guest's behalf.  This file
 * holds the loop, its set-up and tear-down, and the listeners.
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
#include <sys/time.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "adopt.h"
#include "clone_flags.h"
#include "crash.h"
#include "loader/filter.h"
#include "park.h"
#include "guestmem.h"
#include "host/hostio.h"
#include "signal_report.h"
#include "host/signals.h"
#include "loader/spawn.h"
#include "tasks.h"
#include "procs.h"
#include "interrupt.h"
#include "lends.h"
#include "acceptor.h"
#include "mirrors.h"
#include "listener.h"
#include "loop.h"
#include "confine.h"
#include "determinism.h"
#include "reply.h"
#include "task_events.h"
#include "cloudabi_syscalls.h"
#include "trap.h"

#define msg sup_msg

/* ---- notifications ---- */

/* TRAP_NR_NOTE (trap.h): a program's note to the user, bounded and
 * escaped. */
static cloudabi_errno_t program_note(struct call *c, uint64_t addr,
                                     uint64_t len) {
  struct sup *s = c->sup;
  if (s->notes > TRAP_NOTE_COUNT)
    return CLOUDABI_ENOSPC;
  if (s->notes++ == TRAP_NOTE_COUNT) {
    msg(s, "program: (further notes dropped)");
    return CLOUDABI_ENOSPC;
  }
  char text[TRAP_NOTE_MAX];
  size_t n = len < sizeof(text) ? (size_t)len : sizeof(text);
  cloudabi_errno_t e = gmem_read(c, addr, text, n);
  if (e != 0)
    return e;
  /* The memory read was the caller's, not a recycled pid's. */
  if (!call_is_valid(c))
    return CLOUDABI_ESRCH;
  while (n > 0 && text[n - 1] == '\n')
    n--;
  /* Each byte as at most 4: \xHH. */
  char out[TRAP_NOTE_MAX * 4 + 1];
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)text[i];
    if (ch >= 0x20 && ch < 0x7f && ch != '\\')
      out[k++] = (char)ch;
    else
      k += (size_t)snprintf(out + k, sizeof(out) - k, "\\x%02x", ch);
  }
  out[k] = '\0';
  msg(s, "program: %s%s", out, len > TRAP_NOTE_MAX ? "..." : "");
  return 0;
}

/* A notification received from listener: answer it, or park the call. */
static void process_notification(struct sup *s, int listener,
                                 struct seccomp_notif *n) {
  uint32_t sysno = (uint32_t)(n->data.nr - TRAP_NR_BASE);
  struct gproc *proc = sup_proc_of(s, (pid_t)n->pid);
  /* A thread's first notification (adopt.h); the loader is known. */
  if (proc == NULL && n->data.nr != TRAP_NR_BOOT)
    proc = adopt_thread(s, listener, n);
  if (n->data.nr == SYS_clone && (n->data.args[0] == THREAD_CLONE_FLAGS ||
                                  n->data.args[0] == SIGCHLD)) {
    adopt_clone(s, listener, n, proc);
    return;
  }
  if (n->data.nr == TRAP_NR_CRASH) {
    crash_trap(s, listener, n, proc);
    return;
  }
  if (n->data.nr == TRAP_NR_BOOT) {
    /* Only the loader makes this call, once, before the program runs. */
    if (proc != NULL && proc->vdso_base == 0) {
      proc->vdso_base = n->data.args[0];
      if (s->opts->deterministic && !det_start(s, proc)) {
        msg(s, "cannot make process %u deterministic", proc->number);
        kill(proc->pid, SIGKILL);
        return;
      }
    }
    sup_reply(listener, n->id, 0, 0);
    /* Started on our CPU (loader/spawn.c); from now on the program's
     * threads go wherever the scheduler puts them. */
    if (proc != NULL)
      sched_setaffinity(proc->pid, sizeof(s->cpus), &s->cpus);
    return;
  }
  if (n->data.nr == TRAP_NR_NOTE && proc != NULL) {
    struct call c = {.sup = s, .proc = proc, .id = n->id,
                     .listener = listener, .tid = n->pid, .wait_fd = -1};
    sup_reply(listener, n->id,
              program_note(&c, n->data.args[0], n->data.args[1]), 0);
    return;
  }
  if (n->data.nr == TRAP_NR_LIMIT) {
    if (s->opts->limits.memory != 0)
      s->stats.limits_hit |= LIMIT_HIT_MEMORY;
    sup_reply(listener, n->id, 0, 0);
    return;
  }
  bool traced_local = n->data.nr == TRAP_NR_TRACE && proc != NULL;
  /* Numbers the filter routes here but no handler takes (a local call
   * trapped by hand) are the dispatcher's to refuse. */
  if (!traced_local && (sysno >= CLOUDABI_SYSCALL_COUNT || proc == NULL)) {
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
              s->trace != NULL ? s->trace_hooks->local_call(s->trace, &c)
                               : CLOUDABI_ENOSYS,
              0);
    return;
  }
  s->stats.calls[sysno]++;
  if (s->trace != NULL)
    s->trace_hooks->call_enter(s->trace, &c);
  /* What the process closed through its close hints is closed before
   * any call of its can look. */
  mirrors_take_closed(&c);
  /* A lend is taken back at its thread's next call, and a call that
   * closes or narrows its capability is answered only after (lends.h). */
  lends_settle(&c);
  mirrors_before(&c);
  cloudabi_errno_t e = s->opts->dispatch(&c);
  if (e == CLOUDABI_EMFILE && proc->fds.limit != 0 &&
      proc->fds.count >= proc->fds.limit)
    s->stats.limits_hit |= LIMIT_HIT_FDS;
  if (s->trace != NULL)
    s->trace_hooks->call_done(s->trace, &c, e);
  if (e != CALL_PARKED && e != CALL_ABANDONED) {
    mirrors_after(&c);
    lends_settle(&c);
    if (!mirrors_answer(&c, e))
      sup_reply(listener, c.id, e, c.result);
  }
}

static void handle_notification(struct sup *s, struct listener *l,
                                uint32_t events) {
  struct seccomp_notif *n = s->notif;
  memset(n, 0, s->notif_size);
  /* ENOENT: the caller died before we looked, or nobody is left */
  if (ioctl(l->fd, SECCOMP_IOCTL_NOTIF_RECV, n) != 0) {
    sup_listener_check_hung(s, l, events);
    return;
  }
  l->recv_failed = false;
  process_notification(s, l->fd, n);
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
  if (vdso_info_get(s->opts->local_vdso, &s->vdso) != 0) {
    msg(s, "the embedded vDSO lacks its copy routine symbols");
    return -1;
  }
  inflight_init(&s->inflight);
  s->notif = calloc(1, s->notif_size);
  s->scratch = malloc(GUESTMEM_MAX_IO);
  if (s->notif == NULL || s->scratch == NULL) {
    msg(s, "out of memory");
    return -1;
  }

  if (interrupt_setup(s) != 0) {
    msg(s, "cannot set up the event loop: %s", strerror(errno));
    return -1;
  }
  if (sched_getaffinity(0, sizeof(s->cpus), &s->cpus) != 0)
    CPU_ZERO(&s->cpus); /* then setaffinity fails: the pin stays */
  s->epfd = epoll_create1(EPOLL_CLOEXEC);
  lends_setup(s);
  mirrors_setup(s);
  if (s->sigfd < 0 || s->epfd < 0) {
    msg(s, "cannot set up the event loop: %s", strerror(errno));
    return -1;
  }

  /* Opened by the caller; NULL unless --trace. */
  s->trace = s->opts->tracer;
  s->trace_hooks = s->opts->trace_hooks;
  char why[256];
  if (filter_build(&s->filter, why, sizeof(why)) != 0) {
    msg(s, "%s", why);
    return -1;
  }
  /* SCHED_BATCH: a wake-up of ours does not preempt the task running on
   * our CPU.  The one that matters is the end of SECCOMP_IOCTL_NOTIF_ADDFD,
   * which the guest's own task completes: preempting it there to return
   * from the ioctl cost a switch pair per file_open with a mirror (pinned
   * httpd +7-14%).  Traps are unaffected (the caller blocks), and so is
   * our share of the CPU.  Only from SCHED_OTHER, which the guests get
   * back (procs_spawn); a policy chosen for us is left to them too. */
  struct sched_param sp = {0};
  s->batch = sched_getscheduler(0) == SCHED_OTHER &&
             sched_setscheduler(0, SCHED_BATCH, &sp) == 0;
  /* Before the first guest, so that all of them share the Landlock domain
   * (which lets us reach them) and run under both filters. */
  struct confine_layers layers;
  if (confine_self(lc, s->opts->landlock_abi_cap, &layers, why, sizeof(why)) != 0) {
    msg(s, "cannot confine the supervisor: %s", why);
    return -1;
  }
  if (s->opts->verbose && layers.missing[0] != '\0')
    msg(s, "running with fewer confinement layers: %s", layers.missing);
  if (s->opts->after_confine != NULL)
    s->opts->after_confine();
  /* The initial descriptor table: guest descriptor i is lc->fds[i]. */
  struct captab fds;
  captab_init(&fds);
  for (size_t i = 0; i < lc->nfds; i++) {
    struct hostobj *obj =
        lc->fds[i].accept
            ? acceptor_open(s, lc->fds[i].host_fd)
            : hostobj_new(lc->fds[i].host_fd, lc->fds[i].rights.type);
    lc->fds[i].host_fd = -1; /* owned by obj now, even on failure */
    if (obj == NULL) {
      msg(s, "cannot set up descriptor %zu: %s", i, strerror(errno));
      captab_free(&fds);
      return -1;
    }
    obj->by_path = lc->fds[i].resolved != NULL;
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
      procs_spawn(s, NULL, prog_fd, lc->argdata, lc->argdata_len, &fds, why,
                  sizeof(why));
  if (proc == NULL) {
    msg(s, "%s: %s", s->opts->program_name, why);
    return -1;
  }
  s->main_pid = proc->pid;
  uint64_t ms = s->opts->limits.time_ms;
  if (ms != 0) {
    struct itimerval t = {.it_value = {(time_t)(ms / 1000),
                                       (suseconds_t)(ms % 1000) * 1000}};
    setitimer(ITIMER_REAL, &t, NULL);
  }
  struct epoll_event ev = {.events = EPOLLIN, .data.u64 = EV_SIGNAL};
  epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->sigfd, &ev);
  return 0;
}

static void teardown(struct sup *s) {
  for (struct gproc *p = s->procs; p != NULL; p = p->next)
    if (p->pid > 0)
      kill(p->pid, SIGKILL);
  /* The report counts the CPU time of every process, so the ones just
   * killed are waited for; without a report they are left to die. */
  if (s->opts->stats_out != NULL && s->procs != NULL)
    sup_reap_all(s);
  while (s->parked != NULL)
    park_drop(s, s->parked);
  park_free_dead(s);
  while (s->procs != NULL)
    procs_free(s, s->procs);
  tasks_free(&s->threads);
  inflight_free(&s->inflight);
  acceptors_teardown(s);
  filter_free(&s->filter);
  if (s->epfd >= 0)
    close(s->epfd);
  if (s->sigfd >= 0)
    close(s->sigfd);
  lends_teardown(s);
  mirrors_teardown(s);
  interrupt_teardown();
  free(s->notif);
  free(s->scratch);
}

/*
 * The fast path: with one listener and nothing parked, there is nothing to
 * wait for but the next notification and signals, so block in RECV itself
 * and save an epoll_wait per call.
 */
static struct listener *fast_path_listener(struct sup *s) {
  if (s->parked != NULL || s->nlisteners != 1 || s->single == NULL)
    return NULL;
  /* A RECV that found nothing goes round epoll once, which tells a
   * caller that died from a listener nobody can send on (listener.c). */
  return s->single->recv_failed ? NULL : s->single;
}

static void fast_recv(struct sup *s, struct listener *l) {
  struct seccomp_notif *n = s->notif;
  if (interrupt_recv(l->fd, n, s->notif_size))
    process_notification(s, l->fd, n);
  else if (errno == ENOENT)
    l->recv_failed = true;
}

int sup_run(const struct sup_options *opts, int prog_fd,
            struct launch_config *lc) {
  struct sup s = {
      .opts = opts, .epfd = -1, .sigfd = -1, .inert_fd = -1,
      .mirror_inert_fd = -1,
      .exit_status = 127};
  if (setup(&s, prog_fd, lc) != 0) {
    teardown(&s);
    if (opts->stats_out != NULL)
      *opts->stats_out = s.stats;
    return 127;
  }
  while (!s.main_done) {
    if (interrupt_pending())
      interrupt_handle(&s);
    if (s.main_done)
      break;
    struct listener *only = fast_path_listener(&s);
    if (only != NULL) {
      fast_recv(&s, only);
      park_free_dead(&s);
      if (s.reap_pending) {
        s.reap_pending = false;
        sup_reap(&s);
      }
      continue;
    }
    struct epoll_event evs[64];
    int n = park_wait(&s, evs, 64);
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
          handle_notification(&s, s.listeners[ev - EV_LISTENER],
                              evs[i].events);
      } else if (ev == EV_SIGNAL)
        interrupt_handle(&s);
      else if (ev >= EV_ACCEPTOR && ev < EV_ACCEPTOR + SUP_MAX_ACCEPTORS)
        acceptor_event(&s, ev - EV_ACCEPTOR);
      else if (ev >= EV_PARKED)
        park_event(&s, ev, evs[i].events);
    }
    if (!s.main_done)
      park_expire(&s);
    park_free_dead(&s);
    if (s.reap_pending) {
      s.reap_pending = false;
      sup_reap(&s);
    }
  }
  int status = s.exit_status;
  teardown(&s);
  if (opts->stats_out != NULL)
    *opts->stats_out = s.stats;
  return status;
}

