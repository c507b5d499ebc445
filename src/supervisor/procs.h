/*
 * Guest processes and their records (procs.c): what the proc_fork and
 * proc_exec handlers (src/calls/proc.c) use, then the task events'.
 */
#ifndef PROCS_H
#define PROCS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sup.h"

/*
 * Starts a new guest process running the program at prog_fd with the
 * given argument data and descriptor table (moved in, freed on failure),
 * to replace the process `replaces` (proc_exec; NULL for the first), which
 * therefore does not count against the process limit.  NULL on failure,
 * with a reason in why.
 */
struct gproc *procs_spawn(struct sup *s, const struct gproc *replaces,
                          int prog_fd, const uint8_t *argdata,
                          size_t argdata_len, struct captab *fds, char *why,
                          size_t why_size);
/* The child `child` that parent forked and has not claimed yet, or NULL. */
struct gproc *procs_child_of(struct sup *s, struct gproc *parent, pid_t child);
/* Its parent now holds a descriptor of child (a reference to its info). */
void procs_claimed(struct sup *s, struct gproc *child);
/* proc_exec: np, just spawned, becomes old (its process descriptors, its
 * number, cloudabi-run's exit status), and old is killed. */
void procs_take_over(struct sup *s, struct gproc *old, struct gproc *np);

/* ---- for the task events; nothing outside src/supervisor/ needs these */

/* A guest process forked: child is stopped; give it a process record. */
void procs_forked(struct sup *s, struct gproc *parent, pid_t child);
void procs_free(struct sup *s, struct gproc *p);
/* Its last thread is gone. */
void procs_exited(struct sup *s, struct gproc *p);

#endif
