/* Threads adopted at their first notification; see adopt.h. */
#include "adopt.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <unistd.h>

#include "clone_flags.h"
#include "host/procstat.h"
#include "loader/spawn.h"
#include "tasks.h"

/* Tgid from /proc/TID/status, or -1. */
static pid_t tgid_of(pid_t tid) {
  char path[48], buf[1024];
  snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  ssize_t n = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  if (n <= 0)
    return -1;
  buf[n] = '\0';
  char *p = strstr(buf, "\nTgid:");
  return p != NULL ? (pid_t)strtol(p + 6, NULL, 10) : -1;
}

static bool id_valid(int listener, uint64_t id) {
  return ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

struct gproc *adopt_thread(struct sup *s, int listener,
                           const struct seccomp_notif *n) {
  pid_t tid = (pid_t)n->pid;
  /* A task we trace already but whose process we do not know: a forked
   * child being refused, an exec'd-from image. */
  if (tidmap_get(&s->threads, tid) != NULL)
    return NULL;
  /* Only tasks descended from a process that installed this listener's
   * filter can send on it: with one such process, it is that one.  Its
   * forked children, which share the filter, are known before they run. */
  struct gproc *proc = NULL;
  unsigned sharing = 0;
  for (struct gproc *p = s->procs; p != NULL; p = p->next)
    if (!p->exited && p->listener != NULL && p->listener->fd == listener) {
      proc = p;
      sharing++;
    }
  if (sharing > 1) {
    pid_t tgid = tgid_of(tid);
    proc = NULL;
    for (struct gproc *p = s->procs; p != NULL && tgid > 0; p = p->next)
      if (!p->exited && p->pid == tgid && p->listener != NULL &&
          p->listener->fd == listener)
        proc = p;
  }
  if (proc == NULL)
    return NULL;
  if (ptrace(PTRACE_SEIZE, tid, 0, SPAWN_PTRACE_OPTIONS) != 0)
    return NULL;
  /* The sender still waits, so tid was its own throughout: not a task
   * that reused the number of one that died since it sent. */
  if (!id_valid(listener, n->id) ||
      tasks_add_thread(&s->threads, tid, proc) == NULL) {
    ptrace(PTRACE_DETACH, tid, 0, 0);
    return NULL;
  }
  return proc;
}

/* PF_EXITING (include/linux/sched.h): the task is in do_exit. */
#define TASK_PF_EXITING 0x4u

/* True if tid is a zombie or past the point of no return in do_exit. */
static bool task_exiting(pid_t tid) {
  char buf[512];
  char *p = procstat_fields(tid, buf, sizeof(buf));
  if (p == NULL)
    return true; /* gone */
  /* State, then ppid, pgrp, session, tty_nr, tpgid, flags. */
  char state;
  unsigned flags;
  if (sscanf(p, " %c %*d %*d %*d %*d %*d %u", &state, &flags) != 2)
    return false;
  return state == 'Z' || state == 'X' || (flags & TASK_PF_EXITING) != 0;
}

/* How many of pid's threads still run guest code: num_threads, less
 * those already exiting.  A joined thread wakes its joiner from inside
 * its exit (the kernel clears the join lock first), so a program that
 * starts and joins threads one at a time would otherwise look like two.
 * Listing the threads costs a read each, so only at the limit. */
static unsigned live_threads(pid_t pid, unsigned limit) {
  char buf[1024];
  char *p = procstat_fields(pid, buf, sizeof(buf));
  unsigned n = 0;
  /* num_threads is the 18th field from the state on. */
  if (p == NULL || sscanf(p, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
                             "%*u %*u %*d %*d %*d %*d %u", &n) != 1)
    return limit; /* unreadable: as if full */
  if (n < limit)
    return n;
  char path[48];
  snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
  DIR *d = opendir(path);
  if (d == NULL)
    return n;
  /* Enough exiting ones found: the rest need not be read. */
  unsigned exiting = 0, enough = n - limit + 1;
  struct dirent *e;
  while (exiting < enough && (e = readdir(d)) != NULL)
    if (e->d_name[0] != '.' && task_exiting((pid_t)atoi(e->d_name)))
      exiting++;
  closedir(d);
  return n - exiting;
}

/* May proc have one more thread?  threads_bound only grows between
 * counts, so most clones cost nothing here. */
static bool thread_allowed(struct sup *s, struct gproc *proc) {
  unsigned limit = s->opts->limits.threads;
  if (proc->threads_bound >= limit) {
    proc->threads_bound = live_threads(proc->pid, limit);
    if (proc->threads_bound >= limit)
      return false;
  }
  proc->threads_bound++;
  return true;
}

void adopt_clone(struct sup *s, int listener, const struct seccomp_notif *n,
                 struct gproc *proc) {
  /* Answered as Linux would, not biased as a trapped call's (trap.h):
   * the vDSO made a plain clone. */
  struct seccomp_notif_resp resp = {.id = n->id, .error = -EAGAIN};
  if (proc == NULL) {
    ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
    return;
  }
  if (n->data.args[0] == THREAD_CLONE_FLAGS) {
    if (proc->killed_for_threads)
      return;
    if (!thread_allowed(s, proc)) {
      /* A thread bomb: the process goes, as it did when threads were
       * refused only after the fact. */
      proc->killed_for_threads = true;
      s->stats.limits_hit |= LIMIT_HIT_THREADS;
      kill(proc->pid, SIGKILL);
      return;
    }
    s->stats.threads++;
  }
  resp.error = 0;
  resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
  ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}
