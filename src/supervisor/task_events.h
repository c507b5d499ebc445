/* The guest's tasks as ptrace reports them (task_events.c). */
#ifndef TASK_EVENTS_H
#define TASK_EVENTS_H

#include "sup.h"

/* Handles every pending ptrace event and exit. */
void sup_reap(struct sup *s);

#endif
