/*
 * The guest's tasks as ptrace reports them: forked processes (stopped
 * until the supervisor knows them), signals about to be delivered (faults
 * in the vDSO's copy routine, crashes), group stops, and exits, which
 * decide cloudabi-run's exit status when the first process ends.  Threads
 * are traced once they make their first trapped call (adopt.h).
 */
#include "sup.h"

#include <errno.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>

#include "crash.h"
#include "lends.h"
#include "park.h"
#include "signal_report.h"
#include "host/signals.h"
#include "procs.h"
#include "reply.h"
#include "task_events.h"
#include "tasks.h"

#define msg sup_msg

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
    struct user_regs_struct regs;
    uint64_t args[6] = {0};
    if (ptrace(PTRACE_GETREGS, tid, 0, &regs) == 0) {
      args[0] = regs.rdi;
      args[1] = regs.rsi;
      args[2] = regs.rdx;
      args[3] = regs.r10;
      args[4] = regs.r8;
      args[5] = regs.r9;
    }
    uint64_t ip = (uint64_t)(uintptr_t)si.si_call_addr;
    report_forbidden(s, proc, tid, si.si_syscall, ip, args);
    if (proc != NULL) {
      proc->killed_for_syscall = si.si_syscall + 1;
      proc->killed_at_ip = ip;
      kill(proc->pid, SIGKILL);
    }
    ptrace(PTRACE_CONT, tid, 0, SIGKILL);
    return;
  }
  /* No handlers exist in CloudABI: the default action applies. */
  report_signal(s, proc, tid, sig,
                ptrace(PTRACE_GETSIGINFO, tid, 0, &si) == 0 ? &si : NULL, NULL);
  /* But the vDSO's own handler takes these for threads not traced (and
   * would report them again): the process is ended here instead. */
  if (crash_vdso_handles(sig) && proc != NULL) {
    crash_end(proc, sig);
    sig = SIGKILL;
  }
  ptrace(PTRACE_CONT, tid, 0, sig);
}

/*
 * What a process used, for the report.  Only a thread group leader's exit
 * is counted: a thread's resource usage is its whole group's so far.  The
 * group's children are not in it, since a guest never waits for its own
 * (the supervisor collects them as their tracer), so nothing is counted
 * twice.
 */
static void count_usage(struct sup *s, const struct rusage *ru) {
  uint64_t us = (uint64_t)ru->ru_utime.tv_sec * 1000000u +
                (uint64_t)ru->ru_utime.tv_usec +
                (uint64_t)ru->ru_stime.tv_sec * 1000000u +
                (uint64_t)ru->ru_stime.tv_usec;
  s->stats.cpu_us += us;
  if (ru->ru_maxrss > 0 && (uint64_t)ru->ru_maxrss > s->stats.peak_rss_kib)
    s->stats.peak_rss_kib = (uint64_t)ru->ru_maxrss;
}

static void on_task_exit(struct sup *s, pid_t tid, int status,
                         const struct rusage *ru) {
  struct gthread *t = tidmap_get(&s->threads, tid);
  struct gproc *proc = t != NULL ? t->proc : NULL;
  /* A leader we no longer know (an exec'd-from image, a refused fork)
   * still ran. */
  if (proc == NULL || tid == proc->pid)
    count_usage(s, ru);
  /* Ended by the supervisor for a crash: that crash's signal, as the
   * default action would have given. */
  if (proc != NULL && proc->killed_by_signal != 0 && WIFSIGNALED(status) &&
      WTERMSIG(status) == SIGKILL)
    status = proc->killed_by_signal;
  park_cancel_thread(s, tid);
  tasks_remove_thread(&s->threads, tid);
  if (proc != NULL && tid != proc->pid)
    lends_thread_gone(proc, tid);
  if (proc == NULL || tid != proc->pid)
    return;
  /* The thread group leader is reported last: the process is gone. */
  if (proc->info != NULL)
    procinfo_ended(proc->info, status);
  if (s->trace != NULL)
    s->trace_hooks->proc_exit(s->trace, proc->number, status,
                              proc->killed_for_syscall != 0);
  if (proc->pid == s->main_pid) {
    char name[32];
    s->stats.main_status = status;
    s->stats.main_ended = true;
    if (s->time_up) {
      s->stats.limits_hit |= LIMIT_HIT_TIME;
      msg(s, "program exceeded its time limit (%llu ms)",
          (unsigned long long)s->opts->limits.time_ms);
      s->exit_status = EXIT_TIME_LIMIT;
    } else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU &&
               s->opts->limits.cpu_seconds != 0) {
      s->stats.limits_hit |= LIMIT_HIT_CPU;
      msg(s, "program exceeded its CPU time limit (%llu s)",
          (unsigned long long)s->opts->limits.cpu_seconds);
      s->exit_status = 128 + SIGXCPU;
    } else if (proc->killed_for_threads) {
      msg(s, "program created more than %u threads and was killed",
          s->opts->limits.threads);
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
  } else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU &&
             s->opts->limits.cpu_seconds != 0) {
    s->stats.limits_hit |= LIMIT_HIT_CPU;
  }
  procs_exited(s, proc);
}

static void on_ptrace_stop(struct sup *s, pid_t tid, int status) {
  int sig = WSTOPSIG(status);
  int event = (status >> 16) & 0xff;
  unsigned long msgval = 0;
  switch (event) {
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
      /* A forked child stopped before its parent's event arrived. */
      t = tasks_add_thread(&s->threads, tid, NULL);
      if (t != NULL)
        t->stopped_unknown = true;
      return;
    }
    /* A group stop: stay stopped, unless the program is being ended by a
     * forwarded signal, which a stopped task would hold. */
    if ((sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
         sig == SIGTTOU) && !s->ending)
      ptrace(PTRACE_LISTEN, tid, 0, 0);
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
  struct rusage ru;
  while ((tid = wait4(-1, &status, __WALL | WNOHANG, &ru)) > 0) {
    if (WIFEXITED(status) || WIFSIGNALED(status))
      on_task_exit(s, tid, status, &ru);
    else if (WIFSTOPPED(status))
      on_ptrace_stop(s, tid, status);
  }
}

void sup_reap(struct sup *s) {
  reap(s);
}

/* At the end, once everything was killed: collect every exit (bounded, in
 * case a task cannot die). */
void sup_reap_all(struct sup *s) {
  struct timespec pause = {0, 1000000};
  for (int i = 0; i < 2000; i++) {
    int status;
    struct rusage ru;
    pid_t tid = wait4(-1, &status, __WALL | WNOHANG, &ru);
    if (tid < 0 && errno != EINTR)
      return; /* ECHILD: all gone */
    if (tid == 0) {
      nanosleep(&pause, NULL);
      continue;
    }
    if (tid > 0 && (WIFEXITED(status) || WIFSIGNALED(status))) {
      struct gthread *t = tidmap_get(&s->threads, tid);
      if (t == NULL || t->proc == NULL || t->proc->pid == tid)
        count_usage(s, &ru);
      tasks_remove_thread(&s->threads, tid);
    }
  }
}
