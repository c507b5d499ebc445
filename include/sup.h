/*
 * The supervisor: one event loop over the seccomp listener, the guest
 * tasks' ptrace events and whatever parked calls wait for.  All state is
 * in struct sup, passed explicitly; nothing is global.
 */
#ifndef SUP_H
#define SUP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "call.h"
#include "captab.h"
#include "launch.h"
#include "trace.h"

struct gproc {
  pid_t pid; /* thread group id */
  unsigned serial; /* 1 for the first process: how traces name it */
  struct captab fds;
  unsigned nthreads;
  /* Why it died, when the supervisor knows better than the wait status. */
  int killed_for_syscall; /* Linux syscall number + 1, or 0 */
  uint64_t killed_at_ip;
  struct gproc *next;
};

struct gthread {
  pid_t tid;
  struct gproc *proc;
  bool seen_clone_event; /* the creator's PTRACE_EVENT_CLONE was handled */
  bool stopped_unknown;  /* stopped before we knew its process */
};

/* Open-addressed tid -> thread map. */
struct tidmap {
  struct gthread **slots;
  size_t size, count;
};

struct sup_options {
  const char *program_name; /* for messages */
  bool quiet;
  struct trace_options trace;
};

struct sup {
  const struct sup_options *opts;
  int epfd;
  int sigfd;    /* SIGCHLD */
  int listener; /* seccomp user notification */
  size_t notif_size, resp_size;
  struct gproc *procs;
  struct tidmap threads;
  pid_t main_pid;
  bool main_done;
  int exit_status; /* what cloudabi-run exits with */
  struct call *parked; /* calls waiting, in no particular order */
  struct call *dead;   /* unparked calls, freed after the current round */
  unsigned nparked;
  void *scratch; /* GUESTMEM_MAX_IO bytes for copying guest data */
  void *notif;   /* a struct seccomp_notif of the kernel's size */
  struct tracer *trace; /* NULL unless --trace */
  unsigned nprocs_made; /* for gproc.serial */
};

/* Starts the program (fd prog_fd) with the launch configuration and runs
 * the event loop until it ends; returns cloudabi-run's exit status.  lc's
 * descriptors move into the guest's table. */
int sup_run(const struct sup_options *opts, int prog_fd,
            struct launch_config *lc);

/* Parking: the handler returns CALL_PARKED after one of these.  The call is
 * copied; the handler runs again when fd is ready (events as for epoll) or
 * the deadline passes.  Returns false if the call could not be parked (the
 * handler should then fail it with ENOMEM). */
bool sup_park_fd(struct call *c, int fd, uint32_t events);

struct gproc *sup_proc_of(struct sup *s, pid_t tid);

/* A buffer of GUESTMEM_MAX_IO bytes, valid until the handler returns. */
static inline void *sup_scratch(struct sup *s) { return s->scratch; }

#endif
