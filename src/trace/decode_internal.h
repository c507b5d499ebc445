/*
 * Inside the trace decoder (trace_decode.c, decode_structs.c): the
 * helpers both halves use.  Nothing outside src/trace/ includes this.
 */
#ifndef DECODE_INTERNAL_H
#define DECODE_INTERNAL_H

#include "trace_decode.h"

static inline uint64_t td_min64(uint64_t a, uint64_t b) {
  return a < b ? a : b;
}

enum iov_show { IOV_DATA_IN, IOV_DATA_OUT, IOV_POINTERS };

/* trace_decode.c: guest memory through the view, and values. */
bool td_read(const struct trace_view *v, uint64_t addr, void *buf, size_t len);
/* A value of the description's enumeration or flag set `type`. */
void td_sym(struct temit *e, const char *key, const char *type, uint64_t x);
/* A descriptor number; the all-ones value reads better as -1. */
void td_fd(struct temit *e, const char *key, uint64_t x);
/* Where a value would have been read from, when it was not. */
void td_unread(struct temit *e, const char *key, uint64_t addr);
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

/* decode_structs.c: the structures calls pass by pointer. */
void td_fdstat_at(struct temit *e, const struct trace_view *v, const char *key,
                  uint64_t addr);
void td_filestat_at(struct temit *e, const struct trace_view *v,
                    const char *key, uint64_t addr);
void td_subscriptions_at(struct temit *e, const struct trace_view *v,
                         const char *key, uint64_t addr);
void td_events_at(struct temit *e, const struct trace_view *v, const char *key,
                  uint64_t addr);
void td_recv_in_at(struct temit *e, const struct trace_view *v, const char *key,
                   uint64_t addr);
void td_send_in_at(struct temit *e, const struct trace_view *v, const char *key,
                   uint64_t addr);
void td_recv_out_at(struct temit *e, const struct trace_view *v,
                    const char *key, uint64_t addr);
void td_send_out_at(struct temit *e, const struct trace_view *v,
                    const char *key, uint64_t addr);
void td_threadattr_at(struct temit *e, const struct trace_view *v,
                      const char *key, uint64_t addr);

#endif
