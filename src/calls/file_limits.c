/* File size and disk limits; see file_limits.h. */
#include "file_limits.h"

#include <sys/stat.h>
#include <unistd.h>

#include "supervisor/sup.h"

static bool limited(const struct call *c, const struct hostobj *obj) {
  const struct run_limits *l = &c->sup->opts->limits;
  return (l->file_size != 0 || l->disk != 0) && obj->by_path &&
         obj->type == CLOUDABI_FILETYPE_REGULAR_FILE;
}

/* The largest end the limits let this file reach, given its size now. */
static uint64_t end_allowed(const struct call *c, uint64_t size) {
  const struct run_limits *l = &c->sup->opts->limits;
  uint64_t end = UINT64_MAX;
  if (l->file_size != 0)
    end = l->file_size;
  if (l->disk != 0) {
    uint64_t left = l->disk > c->sup->disk_added
                        ? l->disk - c->sup->disk_added
                        : 0;
    /* Saturating: a limit near 2^64 must not wrap to a small end. */
    uint64_t most = left > UINT64_MAX - size ? UINT64_MAX : size + left;
    if (most < end)
      end = most;
  }
  return end;
}

/* The limit a write or growth to size crosses, noted for the report. */
static cloudabi_errno_t over(const struct call *c, uint64_t size) {
  const struct run_limits *l = &c->sup->opts->limits;
  bool fsize = l->file_size != 0 && size >= l->file_size;
  c->sup->stats.limits_hit |= fsize ? LIMIT_HIT_FILE_SIZE : LIMIT_HIT_DISK;
  return fsize ? CLOUDABI_EFBIG : CLOUDABI_ENOSPC;
}

cloudabi_errno_t file_may_write(struct call *c, struct hostobj *obj,
                                int64_t off, size_t *len,
                                struct file_growth *g) {
  g->counted = false;
  if (!limited(c, obj) || *len == 0)
    return 0;
  struct stat st;
  if (fstat(obj->fd, &st) != 0)
    return 0; /* the write itself will say */
  uint64_t at = (uint64_t)off;
  if (off < 0) {
    off_t pos = lseek(obj->fd, 0, SEEK_CUR);
    at = (obj->flags & CLOUDABI_FDFLAG_APPEND) != 0 || pos < 0
             ? (uint64_t)st.st_size
             : (uint64_t)pos;
  }
  g->counted = true;
  g->size_before = (uint64_t)st.st_size;
  uint64_t end = end_allowed(c, g->size_before);
  if (at + *len <= end)
    return 0;
  if (at >= end)
    return over(c, at > g->size_before ? at : g->size_before);
  (void)over(c, at + *len); /* cut short: a limit was reached */
  *len = (size_t)(end - at);
  return 0;
}

cloudabi_errno_t file_may_grow_to(struct call *c, struct hostobj *obj,
                                  uint64_t end, struct file_growth *g) {
  g->counted = false;
  if (!limited(c, obj))
    return 0;
  struct stat st;
  if (fstat(obj->fd, &st) != 0)
    return 0;
  g->counted = true;
  g->size_before = (uint64_t)st.st_size;
  if (end <= g->size_before || end <= end_allowed(c, g->size_before))
    return 0;
  return over(c, end);
}

void file_grown(struct call *c, struct hostobj *obj,
                const struct file_growth *g) {
  struct stat st;
  if (!g->counted || fstat(obj->fd, &st) != 0)
    return;
  if ((uint64_t)st.st_size > g->size_before)
    c->sup->disk_added += (uint64_t)st.st_size - g->size_before;
}
