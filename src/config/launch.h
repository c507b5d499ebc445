/*
 * What the configuration gives a program: its argument data and its
 * initial descriptors.  The config front end (config*.c) produces it; the
 * supervisor consumes it.
 */
#ifndef LAUNCH_H
#define LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host/rights.h"

/* Guest descriptor i of the initial table is fds[i]. */
struct launch_fd {
  int host_fd; /* owned by the launch_config, close-on-exec */
  struct fd_rights rights;
  /* !file: where the path resolved (malloc'ed, owned), for --plan; NULL
   * when unknown or not a file. */
  char *resolved;
  /* !socket {accept: true}: host_fd is the listening socket, non-blocking;
   * the program gets one end of a pair instead (supervisor/acceptor.h),
   * with rights of a stream socket. */
  bool accept;
};

struct launch_config {
  uint8_t *argdata; /* malloc'ed; argdata_len bytes, then one NUL */
  size_t argdata_len;
  struct launch_fd *fds; /* malloc'ed */
  size_t nfds;
  /* Map the tracing vDSO, which reports the calls it performs itself
   * (cloudabi-run --trace=...,local); set by the supervisor. */
  bool trace_local;
  /* rlimits of the new process (0: none), before the loader runs:
   * RLIMIT_AS bytes and RLIMIT_CPU seconds (--memory-limit, --cpu-limit). */
  uint64_t limit_as, limit_cpu;
  /* --deterministic: the stack's canary and process UUID come from this
   * seed instead of getrandom. */
  bool deterministic;
  uint64_t det_seed;
  /* Give the new process SCHED_OTHER: the supervisor runs SCHED_BATCH
   * (supervisor/loop.c), which a fork inherits. */
  bool sched_other;
};

/* Closes every descriptor and frees the buffers; safe on a zeroed struct. */
void launch_config_free(struct launch_config *lc);

#endif
