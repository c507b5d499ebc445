/*
 * Inside the trace decoder (trace_decode.c, decode_structs.c): the
 * helpers both halves use.  Nothing outside src/trace/ includes this.
 */
#ifndef DECODE_UTIL_H
#define DECODE_UTIL_H

#include "trace_emit.h"
#include "trace_view.h"

static inline uint64_t td_min64(uint64_t a, uint64_t b) {
  return a < b ? a : b;
}

enum iov_show { IOV_DATA_IN, IOV_DATA_OUT, IOV_POINTERS };

/* Guest memory through the view, and values. */
bool td_read(const struct trace_view *v, uint64_t addr, void *buf, size_t len);
/* A value of the description's enumeration or flag set `type`. */
void td_sym(struct temit *e, const char *key, const char *type, uint64_t x);
/* A descriptor number; the all-ones value reads better as -1. */
void td_fd(struct temit *e, const char *key, uint64_t x);
/* Where a value would have been read from, when it was not. */
void td_unread(struct temit *e, const char *key, uint64_t addr);
/* len bytes at addr, up to the string size; the address if unreadable. */
void td_bytes_at(struct temit *e, const struct trace_view *v, const char *key,
                 uint64_t addr, uint64_t len);
/* Whether an argument of kind k is written by the call. */
bool td_is_out(enum arg_kind k);
/* The value of out argument i; false if it cannot be read. */
bool td_out_of(const struct trace_view *v, unsigned i, uint64_t *val);
/* The index of the row's first argument of kind k, or -1. */
int td_arg_of_kind(const struct trace_view *v, enum arg_kind k);
/* The out_size value of a call that succeeded, or false. */
bool td_out_size(const struct trace_view *v, uint64_t *n);
/* An iovec array: each buffer's data or just where it is. */
void td_iovecs(struct temit *e, const struct trace_view *v, const char *key,
               uint64_t addr, uint64_t count, enum iov_show how,
               uint64_t avail);
void td_fd_list(struct temit *e, const struct trace_view *v, const char *key,
                uint64_t addr, uint64_t count);

#endif
