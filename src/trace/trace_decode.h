/*
 * Decoding one call's arguments and results for the trace, driven by its
 * row of the syscall table: each argument's kind says how to show it
 * (a path with its length, iovecs with their data, flags by name, structs
 * field by field).  Guest memory is read through a callback (gmem_read in
 * the supervisor, a buffer in the unit tests), bounded by the string size
 * and by TRACE_MAX_ITEMS array entries; what cannot be read is shown as
 * its address.
 */
#ifndef TRACE_DECODE_H
#define TRACE_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "calls/syscall_table.h"
#include "trace_emit.h"

/* Array entries shown (iovecs, descriptors, subscriptions, events). */
#define TRACE_MAX_ITEMS 16

struct trace_mem {
  /* Copies len bytes at guest address addr; false unless all were. */
  bool (*read)(void *ctx, uint64_t addr, void *buf, size_t len);
  void *ctx;
};

enum trace_phase {
  TP_UNFINISHED, /* parked: inputs only; outputs are shown as pointers */
  TP_OK,         /* succeeded: outputs are decoded */
  TP_FAILED,     /* failed: outputs are shown as pointers */
  TP_NORETURN,   /* reported before a call that does not return */
};

struct trace_view {
  const struct syscall_desc *d;
  uint64_t args[7];
  enum trace_phase phase;
  /* Where the out_* values are: behind their pointers (a call the vDSO
   * performed), or packed in `result` (a trapped call's answer). */
  bool outs_in_memory;
  uint64_t result;
  const struct trace_mem *mem;
  size_t strsize;
  unsigned char *scratch; /* at least strsize bytes */
  /* The call's I/O slot (trap.h), if the vDSO passed one: its data, not
   * the guest's buffers, is what the call read or wrote. */
  const char *slot;
  size_t slot_len;
};

/* The argument list: "(1, [{\"hi\\n\", 3}], 1)" or a JSON object. */
void trace_decode_args(struct temit *e, const char *key,
                       const struct trace_view *v);
/* The results of a call that succeeded: its out_* values, as one value
 * (text, one out), "{a=1, b=2}" (text, two) or "0" (text, none); in
 * JSON always an object keyed by the out arguments' names. */
void trace_decode_result(struct temit *e, const char *key,
                         const struct trace_view *v);

#endif
