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

#include "trace_emit.h"
#include "trace_view.h"

/* The argument list: "(1, [{\"hi\\n\", 3}], 1)" or a JSON object. */
void trace_decode_args(struct temit *e, const char *key,
                       const struct trace_view *v);
/* The results of a call that succeeded: its out_* values, as one value
 * (text, one out), "{a=1, b=2}" (text, two) or "0" (text, none); in
 * JSON always an object keyed by the out arguments' names. */
void trace_decode_result(struct temit *e, const char *key,
                         const struct trace_view *v);

#endif
