/*
 * Guest tasks: which process each traced host tid belongs to, learned
 * from ptrace events before a forked child runs and at a thread's first
 * notification (adopt.h), until its exit is collected.
 */
#include "tasks.h"

#include <stdlib.h>


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
