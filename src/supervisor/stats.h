/*
 * What a run did, for cloudabi-run --report (src/report.c writes it): the
 * supervisor counts as it goes, at places it passes anyway, so counting
 * costs an increment per call and nothing when no report is asked for
 * but those increments.
 */
#ifndef SUPERVISOR_STATS_H
#define SUPERVISOR_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "cloudabi_syscalls.h"

/* The limits a run may hit (--*-limit), one bit each. */
enum run_limit_hit {
  LIMIT_HIT_MEMORY = 1u << 0, /* a mem_map refused (ENOMEM) */
  LIMIT_HIT_CPU = 1u << 1,    /* a process ended by SIGXCPU */
  LIMIT_HIT_TIME = 1u << 2,   /* --time-limit ended the run */
  LIMIT_HIT_PROCESSES = 1u << 3, /* a proc_fork or proc_exec refused */
  LIMIT_HIT_THREADS = 1u << 4,   /* a process killed for a thread bomb */
  LIMIT_HIT_FDS = 1u << 5,       /* a new descriptor refused (EMFILE) */
  LIMIT_HIT_FILE_SIZE = 1u << 6, /* a write cut short or refused (EFBIG) */
  LIMIT_HIT_DISK = 1u << 7,      /* likewise (ENOSPC) */
};
#define LIMIT_HIT_COUNT 8

struct run_stats {
  /* Calls that reached the supervisor, by CloudABI number.  Calls the
   * vDSO answers itself (clocks, memory, most locks) are not seen. */
  uint64_t calls[CLOUDABI_SYSCALL_COUNT];
  uint64_t processes; /* started: the first, forks and exec'd images */
  uint64_t threads;   /* started, each process's first included */
  uint64_t cpu_us;    /* user + system time of the processes reaped */
  uint64_t peak_rss_kib; /* the largest resident set of any of them */
  unsigned limits_hit;   /* enum run_limit_hit */
  int main_status;       /* the first process's wait status */
  bool main_ended;       /* main_status is valid */
};

#endif
