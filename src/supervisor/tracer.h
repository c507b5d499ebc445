/*
 * What the supervisor tells a tracer: the narrow interface through which
 * it reaches the trace (src/trace/), which it never includes.  cloudabi-run's
 * main() hands it an open tracer and the trace layer's hooks; with no
 * tracer the supervisor tests one pointer per call.
 */
#ifndef TRACER_H
#define TRACER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "cloudabi_types.h"

struct call;
struct tracer; /* the trace layer's */

/* A signal about to be delivered to a thread of process number `proc`
 * (1 for the first process). */
struct trace_signal_info {
  int sig;          /* Linux signal number */
  const char *code; /* si_code's name ("SEGV_MAPERR", "SI_TKILL") or NULL */
  const char *why;  /* what the code means, or NULL */
  bool fault;       /* addr is the faulting address */
  uint64_t addr;
  const struct user_regs_struct *regs; /* for crashes; else NULL */
  const char *where; /* regs->rip as "program+0x1234", or NULL */
};
struct sup_trace_hooks {
  /* A call was received. */
  void (*call_enter)(struct tracer *t, struct call *c);
  /* A handler answered e, or CALL_PARKED. */
  void (*call_done)(struct tracer *t, struct call *c, cloudabi_errno_t e);
  /* A parked call ended without an answer (its thread is gone). */
  void (*call_abandoned)(struct tracer *t, struct call *c);
  /* The tracing vDSO's report (TRAP_NR_TRACE); the answer for it. */
  cloudabi_errno_t (*local_call)(struct tracer *t, struct call *c);
  void (*signal)(struct tracer *t, unsigned proc, pid_t tid,
                 const struct trace_signal_info *si);
  void (*forbidden)(struct tracer *t, unsigned proc, pid_t tid,
                    const char *name, int nr, uint64_t ip, const char *where,
                    const uint64_t args[6]);
  void (*proc_exit)(struct tracer *t, unsigned proc, int status,
                    bool forbidden);
};

#endif
