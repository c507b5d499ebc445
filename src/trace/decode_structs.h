/*
 * The structures calls pass by pointer, decoded field by field for the
 * trace (decode_structs.c).  Nothing outside src/trace/ includes this.
 */
#ifndef DECODE_STRUCTS_H
#define DECODE_STRUCTS_H

#include "trace_emit.h"
#include "trace_view.h"

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
