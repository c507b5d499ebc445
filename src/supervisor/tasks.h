/* The map from host tids to guest threads and their processes. */
#ifndef TASKS_H
#define TASKS_H

#include "sup.h"

struct gthread *tidmap_get(const struct tidmap *m, pid_t tid);
/* Adds (or re-homes) tid in proc; NULL on allocation failure. */
struct gthread *tasks_add_thread(struct tidmap *m, pid_t tid,
                                 struct gproc *proc);
void tasks_remove_thread(struct tidmap *m, pid_t tid);
void tasks_free(struct tidmap *m);
/* The process of a guest thread, or NULL. */
struct gproc *sup_proc_of(struct sup *s, pid_t tid);

#endif
