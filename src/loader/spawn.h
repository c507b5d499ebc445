/* Starting a guest process: the supervisor's half of the loader. */
#ifndef SPAWN_H
#define SPAWN_H

#include <stddef.h>
#include <sys/types.h>

#include "filter.h"
#include "config/launch.h"

/* How the supervisor traces guest tasks: they die with it, and forks and
 * execs stop.  Not clones: a new thread runs untraced until its first
 * notification (supervisor/adopt.h). */
#define SPAWN_PTRACE_OPTIONS                                                   \
  (PTRACE_O_EXITKILL | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |              \
   PTRACE_O_TRACEEXEC)

struct spawned {
  pid_t pid;
  int pidfd;
  int listener; /* the seccomp user-notification descriptor */
  void *ioslots; /* our mapping of the guest's I/O slots */
};

/*
 * Forks, has the child exec the loader stub (embedded in this binary) with
 * a launch block for the program open at prog_fd, seizes it with ptrace,
 * and takes its seccomp listener once the filter is installed.  The guest
 * then waits in its start-up rendezvous call (TRAP_NR_BOOT) for the
 * supervisor to answer.  sigfd is a signalfd for SIGCHLD, which must be
 * blocked.  On failure, returns -1 with one line in why.
 */
int spawn_guest(int sigfd, int prog_fd, const struct launch_config *lc,
                const struct filter_prog *filter, struct spawned *out,
                char *why, size_t why_size);

#endif
