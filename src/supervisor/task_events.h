/* The guest's tasks as ptrace reports them (task_events.c). */
#ifndef TASK_EVENTS_H
#define TASK_EVENTS_H

#include "sup.h"

/* Handles every pending ptrace event and exit. */
void sup_reap(struct sup *s);
/* At tear-down, with every guest killed: waits for all their exits and
 * counts what they used (for the report). */
void sup_reap_all(struct sup *s);

#endif
