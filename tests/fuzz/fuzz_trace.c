/*
 * libFuzzer target for the trace decoder on hostile guest memory: the
 * input chooses a call, its registers, how far it got and its result,
 * and the rest of the input is the guest's memory, which every pointer
 * argument may point into (or just past, or anywhere).  Both formats are
 * decoded, with and without an I/O slot.  What must hold, besides no
 * crash, leak or read outside the buffers: each line is complete (the
 * emitter's groups are all closed) and a JSON line is one object.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calls/syscall_table.h"
#include "trace/trace_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "fuzz_trace: check failed: %s\n", #cond);                \
      abort();                                                                 \
    }                                                                          \
  } while (0)

#define GUEST_BASE UINT64_C(0x7f0000000000)

struct guest {
  const uint8_t *bytes;
  size_t len;
};

static bool guest_read(void *ctx, uint64_t addr, void *buf, size_t len) {
  const struct guest *g = ctx;
  if (addr < GUEST_BASE || addr - GUEST_BASE > g->len ||
      len > g->len - (addr - GUEST_BASE))
    return false;
  memcpy(buf, g->bytes + (addr - GUEST_BASE), len);
  return true;
}

/* The header the input starts with. */
struct header {
  uint8_t sysno, phase, flags, strsize;
  uint8_t aim[7]; /* top bit: the argument points into guest memory */
  uint64_t args[7];
  uint64_t result;
  uint16_t slot_len;
};

static unsigned char scratch[4096];

static void decode(const struct trace_view *v, bool json) {
  struct temit e;
  te_init(&e);
  te_reset(&e, json);
  if (json)
    te_open(&e, NULL, TE_OBJECT);
  else
    te_raw(&e, v->d->name);
  trace_decode_args(&e, "args", v);
  if (v->phase == TP_OK) {
    if (!json)
      te_raw(&e, " = ");
    trace_decode_result(&e, "result", v);
  }
  if (json)
    te_close(&e);
  if (!e.oom) {
    CHECK(e.depth == 0);
    CHECK(e.buf != NULL && strlen(e.buf) == e.len);
    if (json)
      CHECK(e.len >= 2 && e.buf[0] == '{' && e.buf[e.len - 1] == '}');
  }
  te_free(&e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct header h;
  if (size < sizeof(h))
    return 0;
  memcpy(&h, data, sizeof(h));
  struct guest g = {data + sizeof(h), size - sizeof(h)};
  if (h.sysno >= CLOUDABI_SYSCALL_COUNT)
    return 0;
  struct trace_mem mem = {guest_read, &g};
  struct trace_view v = {
      .d = &syscall_table[h.sysno],
      .phase = (enum trace_phase)(h.phase % 4),
      .outs_in_memory = (h.flags & 1) != 0,
      .result = h.result,
      .mem = &mem,
      .strsize = 1 + h.strsize % sizeof(scratch),
      .scratch = scratch,
  };
  for (int i = 0; i < 7; i++) {
    v.args[i] = h.args[i];
    if ((h.aim[i] & 0x80) != 0)
      v.args[i] = GUEST_BASE + h.args[i] % (g.len + 8);
  }
  /* The I/O slot: the start of guest memory, as the vDSO would pass it. */
  if ((h.flags & 2) != 0) {
    v.slot = (const char *)g.bytes;
    v.slot_len = h.slot_len <= g.len ? h.slot_len : g.len;
  }
  decode(&v, false);
  decode(&v, true);
  return 0;
}
