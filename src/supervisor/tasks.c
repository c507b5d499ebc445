/*
 * Guest tasks: which process each host tid belongs to, learned from
 * ptrace events before a new task runs, and what became of them.
 */
#include "tasks.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/procstat.h"

static size_t slot_of(const struct tidmap *m, pid_t tid) {
  return ((size_t)tid * 0x9e3779b97f4a7c15ull) & (m->size - 1);
}

struct gthread *tidmap_get(const struct tidmap *m, pid_t tid) {
  if (m->size == 0)
    return NULL;
  for (size_t i = slot_of(m, tid);; i = (i + 1) & (m->size - 1)) {
    struct gthread *t = m->slots[i];
    if (t == NULL)
      return NULL;
    if (t->tid == tid)
      return t;
  }
}

static int tidmap_put(struct tidmap *m, struct gthread *t) {
  if ((m->count + 1) * 2 > m->size) {
    size_t size = m->size == 0 ? 64 : m->size * 2;
    struct gthread **slots = calloc(size, sizeof(*slots));
    if (slots == NULL)
      return -1;
    struct tidmap bigger = {slots, size, 0};
    for (size_t i = 0; i < m->size; i++)
      if (m->slots[i] != NULL)
        tidmap_put(&bigger, m->slots[i]);
    free(m->slots);
    *m = bigger;
  }
  size_t i = slot_of(m, t->tid);
  while (m->slots[i] != NULL)
    i = (i + 1) & (m->size - 1);
  m->slots[i] = t;
  m->count++;
  return 0;
}

/* Removal with backward shifting keeps probe chains intact. */
static void tidmap_del(struct tidmap *m, pid_t tid) {
  if (m->size == 0)
    return;
  size_t i = slot_of(m, tid);
  while (m->slots[i] != NULL && m->slots[i]->tid != tid)
    i = (i + 1) & (m->size - 1);
  if (m->slots[i] == NULL)
    return;
  m->slots[i] = NULL;
  m->count--;
  for (size_t j = (i + 1) & (m->size - 1); m->slots[j] != NULL;
       j = (j + 1) & (m->size - 1)) {
    struct gthread *t = m->slots[j];
    size_t home = slot_of(m, t->tid);
    /* Move t back to the hole if its home is not between hole and j. */
    if ((j > i && (home <= i || home > j)) ||
        (j < i && (home <= i && home > j))) {
      m->slots[i] = t;
      m->slots[j] = NULL;
      i = j;
    }
  }
}

struct gthread *tasks_add_thread(struct tidmap *m, pid_t tid,
                                 struct gproc *proc) {
  struct gthread *t = tidmap_get(m, tid);
  if (t != NULL) {
    /* A thread first seen stopping before its creator's clone event is
     * counted once it is known whose it is. */
    if (t->proc != proc) {
      if (t->proc != NULL && t->proc->nthreads > 0)
        t->proc->nthreads--;
      if (proc != NULL)
        proc->nthreads++;
    }
    t->proc = proc;
    return t;
  }
  t = calloc(1, sizeof(*t));
  if (t == NULL)
    return NULL;
  t->tid = tid;
  t->proc = proc;
  if (tidmap_put(m, t) != 0) {
    free(t);
    return NULL;
  }
  if (proc != NULL)
    proc->nthreads++;
  return t;
}

void tasks_remove_thread(struct tidmap *m, pid_t tid) {
  struct gthread *t = tidmap_get(m, tid);
  if (t == NULL)
    return;
  if (t->proc != NULL && t->proc->nthreads > 0)
    t->proc->nthreads--;
  tidmap_del(m, tid);
  free(t);
}

/* PF_EXITING (include/linux/sched.h): the task is in do_exit. */
#define TASK_PF_EXITING 0x4u

/* True if tid is a zombie or past the point of no return in do_exit. */
static bool task_exiting(pid_t tid) {
  char buf[512];
  char *p = procstat_fields(tid, buf, sizeof(buf));
  if (p == NULL)
    return true; /* gone, and not yet collected */
  /* State, then ppid, pgrp, session, tty_nr, tpgid, flags. */
  char state;
  unsigned flags;
  if (sscanf(p, " %c %*d %*d %*d %*d %*d %u", &state, &flags) != 2)
    return false;
  return state == 'Z' || state == 'X' || (flags & TASK_PF_EXITING) != 0;
}

unsigned tasks_count_exiting(const struct tidmap *m, const struct gproc *proc,
                             unsigned enough) {
  unsigned n = 0;
  for (size_t i = 0; i < m->size && n < enough; i++) {
    const struct gthread *t = m->slots[i];
    if (t != NULL && t->proc == proc && task_exiting(t->tid))
      n++;
  }
  return n;
}

void tasks_free(struct tidmap *m) {
  for (size_t i = 0; i < m->size; i++)
    free(m->slots[i]);
  free(m->slots);
  m->slots = NULL;
  m->size = m->count = 0;
}

struct gproc *sup_proc_of(struct sup *s, pid_t tid) {
  struct gthread *t = tidmap_get(&s->threads, tid);
  return t != NULL ? t->proc : NULL;
}
