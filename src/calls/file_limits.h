/*
 * --file-size-limit and --disk-limit for calls that can make a regular
 * file larger: fd_write, fd_pwrite, file_allocate and a growing
 * file_stat_fput, on files opened by path (file_open, a config !file).
 * The supervisor performs them all, so it counts here:
 * a write is cut short where it would cross a limit, and one that could
 * write nothing fails with EFBIG (file size) or ENOSPC (disk).
 */
#ifndef CALLS_FILE_LIMITS_H
#define CALLS_FILE_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "supervisor/call.h"

struct file_growth {
  bool counted; /* a limit applies: call file_grown afterwards */
  uint64_t size_before;
};

/* A write of *len bytes at offset off (-1: the current offset, or the end
 * with APPEND): shortens *len to what the limits allow; 0, or the errno. */
cloudabi_errno_t file_may_write(struct call *c, struct hostobj *obj,
                                int64_t off, size_t *len,
                                struct file_growth *g);
/* Making the file at least `end` bytes long (allocate, truncate). */
cloudabi_errno_t file_may_grow_to(struct call *c, struct hostobj *obj,
                                  uint64_t end, struct file_growth *g);
/* After the call: what it added counts against --disk-limit. */
void file_grown(struct call *c, struct hostobj *obj,
                const struct file_growth *g);

#endif
