/*
 * Limits of a run (cloudabi-run --memory-limit and friends), and how each
 * is enforced: the kernel's rlimits on every guest process where one
 * exists (set before the loader runs, inherited by forks), the
 * supervisor's own accounting where not.
 */
#ifndef SUPERVISOR_LIMITS_H
#define SUPERVISOR_LIMITS_H

#include <stdint.h>

struct run_limits {
  uint64_t memory;      /* address space per process (RLIMIT_AS); 0: none */
  uint64_t cpu_seconds; /* CPU time per process (RLIMIT_CPU); 0: none */
  uint64_t time_ms;     /* wall-clock time of the run; 0: none */
  unsigned processes;   /* live guest processes at once */
  unsigned threads;     /* threads per process, the first included */
  unsigned fds;         /* open descriptors per process */
  uint64_t file_size;   /* the size a write may make a file; 0: none */
  uint64_t disk;        /* bytes writes may add to files in all; 0: none */
};

/* The defaults, which are also the most a limit may be: live guest
 * processes, and threads per process (counting the first), beyond which
 * the process is killed. */
#define SUP_MAX_PROCS 128
#define SUP_MAX_THREADS 1024

/* Exit statuses of a run that a limit ended (besides 128 + signal). */
#define EXIT_TIME_LIMIT 124 /* as timeout(1) */

void run_limits_default(struct run_limits *l);

#endif
