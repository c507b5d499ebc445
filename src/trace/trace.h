/*
 * --trace: the CloudABI system calls a program makes, one line per call,
 * decoded from the ABI description (names, argument kinds, flag and errno
 * names), as text like strace's or as JSON lines.  See the README's
 * Tracing section and doc/cloudabi-run.1 for the format.
 *
 * The supervisor holds a struct tracer only while tracing (NULL otherwise)
 * and calls the hooks below; the per-call cost with tracing off is one
 * test of that pointer.
 */
#ifndef TRACE_H
#define TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "cloudabi_types.h"
#include "supervisor/tracer.h"

struct call;

enum trace_format { TRACE_TEXT, TRACE_JSON };

#define TRACE_STRSIZE_DEFAULT 32
#define TRACE_STRSIZE_MAX (1u << 20)

struct trace_options {
  bool enabled;
  const char *output; /* a file, truncated; NULL: standard error */
  size_t output_len;  /* its length: it may be one item of a list */
  enum trace_format format;
  uint64_t select;    /* bit n: trace syscall n (all when none was named) */
  bool selected_some; /* a --trace list named calls or families */
  bool local;         /* the tracing vDSO reports the calls it performs */
  bool failed_only;   /* only calls that fail (and signals, exits) */
  bool durations;     /* -T: how long each call took */
  bool timestamps;    /* seconds since tracing started, before each line */
  size_t strsize;     /* bytes of each string or buffer shown */
};

void trace_options_init(struct trace_options *o);

/*
 * Adds the items of SPEC (--trace=SPEC) to o: a comma-separated list of
 * syscall names, families (a name's prefix before `_`: fd, file, mem,
 * ...), `all`, `local`, or one output file, which must contain a `/`
 * (./trace.txt, /dev/null).  Returns false with a message in why.
 */
bool trace_spec_parse(const char *spec, struct trace_options *o, char *why,
                      size_t why_size);

/* Fills in what was left to defaults once every option is read. */
void trace_options_finish(struct trace_options *o);

/* Opens the output; NULL with a message in why. */
struct tracer *trace_open(const struct trace_options *o, char *why,
                          size_t why_size);
void trace_close(struct tracer *t);

/* ---- hooks for the supervisor ---- */

/* The functions below, for the supervisor's struct sup_options. */
extern const struct sup_trace_hooks trace_hooks;

/* A call was received: remember when, if it is traced. */
void trace_call_enter(struct tracer *t, struct call *c);
/* A handler answered e, or CALL_PARKED: print the call (a parked call
 * prints an "unfinished" line once, and the whole call when it ends). */
void trace_call_done(struct tracer *t, struct call *c, cloudabi_errno_t e);
/* A parked call ended without an answer (its thread is gone). */
void trace_call_abandoned(struct tracer *t, struct call *c);
/* The tracing vDSO's report (TRAP_NR_TRACE): c->args[0] points at a
 * struct trap_trace_record.  Returns the answer for the vDSO. */
cloudabi_errno_t trace_local_call(struct tracer *t, struct call *c);

void trace_signal(struct tracer *t, unsigned proc, pid_t tid,
                  const struct trace_signal_info *si);
/* The filter refused a Linux system call: its name, arguments, address
 * (where: that address as "program+0x1234", or NULL). */
void trace_forbidden(struct tracer *t, unsigned proc, pid_t tid,
                     const char *name, int nr, uint64_t ip, const char *where,
                     const uint64_t args[6]);
/* A process ended with wait status `status`; forbidden: it was killed for a
 * forbidden system call (reported as SIGSYS, the exit status says so). */
void trace_proc_exit(struct tracer *t, unsigned proc, int status,
                     bool forbidden);

#endif
