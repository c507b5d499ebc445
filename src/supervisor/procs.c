/*
 * Guest processes: starting them (the first one, and proc_exec), forking
 * (proc_fork), process descriptors, and their records.  The handlers of
 * proc_fork and proc_exec (src/calls/proc.c) act through procs.h.
 *
 * A record's life, by its fields (info, parent, exited):
 *   started    info set, parent NULL: the first process, or one that
 *              proc_exec started (it has taken over a record's info).
 *   forked     info set, parent P: P's fork (through the vDSO, or a raw
 *              clone) seen by its ptrace event; P has no descriptor yet.
 *   claimed    P's proc_fork trap named it (by forked_as): P holds a
 *              descriptor sharing info; parent NULL.
 *   replaced   info NULL: proc_exec moved info, forked_as and an
 *              unclaimed parent link to the new record and killed this
 *              one.  A claim never finds it (procs_child_of), and its
 *              other threads' calls, a second proc_exec included, are
 *              dropped: they die with it.
 *   exited     its last thread was reaped; kept only while still forked
 *              (unclaimed), freed when claimed or when the parent goes,
 *              or, beyond SUP_MAX_UNCLAIMED such records, the oldest is
 *              freed (its claim then fails as for no child, EAGAIN).
 *              Exited records do not count against the process limit.
 * Every transition checks the state it leaves, so that a raw clone
 * claimed late, an exec before the claim, or two execs at once cannot
 * reach a record in the wrong state.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "procs.h"
#include "determinism.h"
#include "loader/spawn.h"
#include "lends.h"
#include "mirrors.h"
#include "listener.h"
#include "reply.h"
#include "tasks.h"
#include "trap.h"

static int pidfd_of(pid_t pid) {
  return (int)syscall(SYS_pidfd_open, pid, 0);
}

static struct gproc *proc_new(struct sup *s, pid_t pid, struct listener *l,
                              struct procinfo *info) {
  struct gproc *p = calloc(1, sizeof(*p));
  if (p == NULL)
    return NULL;
  p->pid = pid;
  p->forked_as = pid;
  p->number = ++s->next_number;
  p->listener = l;
  p->info = info;
  p->threads_bound = 1;
  captab_init(&p->fds);
  p->fds.limit = s->opts->limits.fds;
  p->next = s->procs;
  s->procs = p;
  s->nprocs++;
  return p;
}

/* What a process holds while it runs. */
static void release(struct sup *s, struct gproc *p) {
  lends_clear(p);
  mirrors_clear(p);
  captab_free(&p->fds);
  if (p->ioslots != NULL)
    munmap(p->ioslots, IOSLOT_REGION_SIZE);
  p->ioslots = NULL;
  sup_listener_unref(s, p->listener);
  p->listener = NULL;
}

void procs_free(struct sup *s, struct gproc *p) {
  for (struct gproc **pp = &s->procs; *pp != NULL; pp = &(*pp)->next) {
    if (*pp == p) {
      *pp = p->next;
      break;
    }
  }
  /* Its unclaimed children stay unclaimed; those already gone go (which
   * can free others: look again from the start each time). */
  for (bool again = true; again;) {
    again = false;
    for (struct gproc *q = s->procs; q != NULL; q = q->next) {
      if (q->parent != p)
        continue;
      q->parent = NULL;
      if (q->exited) {
        s->nunclaimed--;
        procs_free(s, q);
        again = true;
        break;
      }
    }
  }
  release(s, p);
  procinfo_unref(p->info);
  s->nprocs--;
  free(p);
}

void procs_exited(struct sup *s, struct gproc *p) {
  if (p->parent == NULL) {
    procs_free(s, p);
    return;
  }
  /* Its parent has not asked for its descriptor yet (the child can end
   * before the parent's half of proc_fork arrives): keep the record, with
   * the exit status, until it does. */
  release(s, p);
  p->exited = true;
  if (++s->nunclaimed <= SUP_MAX_UNCLAIMED)
    return;
  /* The list is newest first: the last such record is the oldest. */
  struct gproc *oldest = NULL;
  for (struct gproc *q = s->procs; q != NULL; q = q->next)
    if (q->exited && q->parent != NULL)
      oldest = q;
  oldest->parent = NULL;
  s->nunclaimed--;
  procs_free(s, oldest);
}

/* Processes that count against the process limit: all but the exited. */
static unsigned live_procs(const struct sup *s) {
  return s->nprocs - s->nunclaimed;
}

static unsigned max_procs(const struct sup *s) {
  return s->opts->limits.processes;
}

struct gproc *procs_spawn(struct sup *s, const struct gproc *replaces,
                          int prog_fd, const uint8_t *argdata,
                          size_t argdata_len, struct captab *fds, char *why,
                          size_t why_size) {
  struct launch_config lc = {.argdata = (uint8_t *)argdata,
                             .argdata_len = argdata_len,
                             .trace_local = s->opts->local_vdso,
                             .limit_as = s->opts->limits.memory,
                             .limit_cpu = s->opts->limits.cpu_seconds,
                             .deterministic = s->opts->deterministic,
                             .sched_other = s->batch,
                             .det_seed = det_proc_seed(s->opts->seed,
                                                       ~s->next_number)};
  struct spawned sp;
  if (live_procs(s) - (replaces != NULL ? 1u : 0u) >= max_procs(s)) {
    s->stats.limits_hit |= LIMIT_HIT_PROCESSES;
    snprintf(why, why_size, "too many processes");
    captab_free(fds);
    return NULL;
  }
  if (spawn_guest(s->sigfd, prog_fd, &lc, &s->filter, &sp, why, why_size) !=
      0) {
    captab_free(fds);
    return NULL;
  }
  /* Waiting for the loader consumed SIGCHLD notifications that other
   * tasks' events may also have raised. */
  s->reap_pending = true;
  struct listener *l = sup_listener_add(s, sp.listener);
  struct procinfo *info = procinfo_new(sp.pid, sp.pidfd);
  struct gproc *p =
      l != NULL && info != NULL ? proc_new(s, sp.pid, l, info) : NULL;
  if (p == NULL || tasks_add_thread(&s->threads, sp.pid, p) == NULL) {
    snprintf(why, why_size, "out of memory");
    kill(sp.pid, SIGKILL);
    if (p != NULL) {
      procs_free(s, p);
    } else {
      if (l != NULL)
        sup_listener_unref(s, l);
      else
        close(sp.listener);
      procinfo_unref(info);
    }
    munmap(sp.ioslots, IOSLOT_REGION_SIZE);
    captab_free(fds);
    return NULL;
  }
  p->fds = *fds;
  p->fds.limit = s->opts->limits.fds;
  captab_init(fds);
  p->ioslots = sp.ioslots;
  /* --trace must see every close, so no hints there. */
  if (s->opts->tracer == NULL)
    captab_share_hints(&p->fds, (uint8_t *)p->ioslots + IOSLOT_CLOSE_HINTS,
                       CLOSE_HINT_FDS,
                       (uint32_t *)(p->ioslots + IOSLOT_CLOSES_PENDING));
  s->stats.processes++;
  s->stats.threads++;
  return p;
}

void procs_forked(struct sup *s, struct gproc *parent, pid_t child) {
  struct gproc *p = NULL;
  if (parent != NULL && live_procs(s) >= max_procs(s))
    s->stats.limits_hit |= LIMIT_HIT_PROCESSES;
  else if (parent != NULL) {
    struct procinfo *info = procinfo_new(child, pidfd_of(child));
    if (info != NULL) {
      parent->listener->refcount++;
      p = proc_new(s, child, parent->listener, info);
      if (p == NULL) {
        sup_listener_unref(s, parent->listener);
        procinfo_unref(info);
      }
    }
  }
  /* It holds what its parent held when it forked, lends included, which
   * the parent's records may no longer name (lends.h); not what the
   * parent closed without a trap before it forked (trap.h). */
  if (p != NULL)
    captab_take_closed(&parent->fds);
  if (p == NULL || captab_clone(&parent->fds, &p->fds) != 0 ||
      !lends_inherit(s, p)) {
    /* A fork bomb, no memory, or too many descriptors: the child never
     * runs.  Its creator's proc_fork then finds no child to claim and
     * fails with EAGAIN. */
    kill(child, SIGKILL);
    if (p != NULL)
      procs_free(s, p);
    return;
  }
  p->parent = parent;
  p->vdso_base = parent->vdso_base;
  /* The I/O slots are not inherited (the loader marked them so): the
   * child's vDSO must not use them, so its pointer to them is cleared. */
  uint64_t zero = 0;
  struct iovec l = {&zero, sizeof(zero)};
  struct iovec r = {(void *)(uintptr_t)(p->vdso_base + s->vdso.ioslots),
                    sizeof(zero)};
  if (process_vm_writev(child, &l, 1, &r, 1, 0) != sizeof(zero) ||
      (s->opts->deterministic && !det_forked(s, p)) ||
      !mirrors_inherit(s, parent, p)) {
    kill(child, SIGKILL);
    return;
  }
  struct gthread *t = tidmap_get(&s->threads, child);
  bool was_stopped = t != NULL && t->stopped_unknown;
  t = tasks_add_thread(&s->threads, child, p);
  if (t == NULL) {
    kill(child, SIGKILL);
    return;
  }
  s->stats.processes++;
  s->stats.threads++;
  if (was_stopped) {
    t->stopped_unknown = false;
    ptrace(PTRACE_CONT, child, 0, 0);
  }
}

struct gproc *procs_child_of(struct sup *s, struct gproc *parent, pid_t child) {
  struct gproc *p = s->procs;
  while (p != NULL &&
         !(p->forked_as == child && p->parent == parent && p->info != NULL))
    p = p->next;
  return p;
}

void procs_claimed(struct sup *s, struct gproc *child) {
  child->parent = NULL;
  if (child->exited) {
    s->nunclaimed--;
    procs_free(s, child); /* its record was kept only for this */
  }
}

void procs_take_over(struct sup *s, struct gproc *old, struct gproc *np) {
  struct procinfo *moved = old->info, *fresh = np->info;
  if (moved == NULL) { /* replaced already: the handler drops such calls */
    kill(np->pid, SIGKILL);
    return;
  }
  int pidfd = fresh->pidfd;
  fresh->pidfd = -1;
  procinfo_unref(fresh);
  close(moved->pidfd);
  moved->pid = np->pid;
  moved->pidfd = pidfd;
  np->info = moved;
  old->info = NULL;
  /* An unclaimed child that exec'd is claimed as what it was forked as. */
  np->forked_as = old->forked_as;
  np->parent = old->parent;
  old->parent = NULL;
  np->number = old->number;
  if (old->pid == s->main_pid)
    s->main_pid = np->pid;
  kill(old->pid, SIGKILL);
}
