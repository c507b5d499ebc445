/*
 * file_readdir's buffer, decoded entry by entry for the trace
 * (decode_dirents.c).  Nothing outside src/trace/ includes this.
 */
#ifndef DECODE_DIRENTS_H
#define DECODE_DIRENTS_H

#include "trace_emit.h"
#include "trace_view.h"

/*
 * The `filled` bytes at addr as directory entries: back-to-back
 * cloudabi_dirent_t headers, each followed by d_namlen name bytes.  The
 * last entry may be cut short by the end of the bytes: a cut name shows
 * as truncated, a cut header as {truncated_header=N} (N bytes of it).
 * Nothing beyond `filled` is read, whatever d_namlen claims; at most
 * TRACE_MAX_ITEMS entries are shown and names up to the string size.
 */
void td_dirents_at(struct temit *e, const struct trace_view *v,
                   const char *key, uint64_t addr, uint64_t filled);

#endif
