/*
 * One call as the trace decoder sees it: its row of the syscall table,
 * its argument registers, how far it got, and how to read guest memory.
 * Types only, so that the decoder's parts can share them without
 * including each other.
 */
#ifndef TRACE_VIEW_H
#define TRACE_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "calls/syscall_table.h"

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

#endif
