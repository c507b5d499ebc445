/*
 * Where messages with descriptors begin in what one end of a stream socket
 * pair receives, as byte positions counted from the start of the stream.
 * FreeBSD ends a stream read at such a message (even when the reader takes
 * no descriptors); Linux ends it only after one.  The supervisor performs
 * every guest send, so between guests it knows the positions, and a read
 * is cut short to stop there (src/calls/sock.c).
 */
#ifndef HOST_SOCKMARKS_H
#define HOST_SOCKMARKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sockmarks {
  uint64_t *at; /* ascending; at[head..n) pending */
  size_t head, n, cap;
};

/* Records a message beginning at pos: false when out of memory or over
 * SOCKMARKS_MAX (the read is then as Linux does it). */
#define SOCKMARKS_MAX 4096
bool sockmarks_push(struct sockmarks *m, uint64_t pos);
/* Takes back the newest (its send failed). */
void sockmarks_pop_newest(struct sockmarks *m);
/* How much of `want` bytes a read at position rx may take, forgetting the
 * marks it has passed. */
size_t sockmarks_limit(struct sockmarks *m, uint64_t rx, size_t want);
void sockmarks_free(struct sockmarks *m);

#endif
