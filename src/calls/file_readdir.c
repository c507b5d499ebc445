/*
 * file_readdir: directory entries as CloudABI lays them out, back to back
 * in the guest's buffer: a 24-byte cloudabi_dirent_t, then d_namlen bytes
 * of name without a NUL.  The buffer is filled completely when there is
 * enough to fill it, the last entry cut short; less than buf_len bytes
 * means the end of the directory.
 *
 * Cookies are the kernel's d_off values: where the next entry starts, and
 * what lseek() on the directory accepts.  Cookie 0 is the start.  Every
 * call seeks its own descriptor, so descriptors sharing the directory
 * (fd_dup) do not disturb each other.
 */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "host/errno_map.h"
#include "host/filestat.h"
#include "supervisor/guestmem.h"
#include "supervisor/sup.h"
#include "syscall_table.h"

/* The kernel's record (linux_dirent64, getdents64(2)). */
struct host_dirent {
  uint64_t d_ino;
  int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

/* Where the output goes: the supervisor's scratch buffer, flushed to the
 * guest whenever it is full. */
struct out {
  struct call *c;
  uint64_t guest; /* next guest address */
  uint64_t left;  /* guest bytes still to fill */
  uint64_t used;  /* bytes given to the guest so far (and pending) */
  char *buf;
  size_t len, size; /* pending bytes in buf, its capacity */
};

static cloudabi_errno_t flush(struct out *o) {
  cloudabi_errno_t e = gmem_write(o->c, o->guest, o->buf, o->len);
  o->guest += o->len;
  o->len = 0;
  return e;
}

/* Appends up to n bytes, as many as the guest buffer has room for. */
static cloudabi_errno_t put(struct out *o, const void *p, size_t n) {
  const char *s = p;
  if (n > o->left)
    n = (size_t)o->left;
  while (n > 0) {
    if (o->len == o->size) {
      cloudabi_errno_t e = flush(o);
      if (e != 0)
        return e;
    }
    size_t k = o->size - o->len < n ? o->size - o->len : n;
    memcpy(o->buf + o->len, s, k);
    o->len += k;
    o->left -= k;
    o->used += k;
    s += k;
    n -= k;
  }
  return 0;
}

cloudabi_errno_t handle_file_readdir(struct call *c) {
  int fd = c->cap[0]->obj->fd;
  cloudabi_dircookie_t cookie = c->args[3];
  if (cookie > (cloudabi_dircookie_t)INT64_MAX)
    return CLOUDABI_EINVAL;
  if (lseek(fd, (off_t)cookie, SEEK_SET) < 0)
    return errno_from_host(errno);
  struct out o = {c, c->args[1],     c->args[2], 0, sup_scratch(c->sup),
                  0, GUESTMEM_MAX_IO};
  /* Host records are read in blocks; most directories fit in one. */
  char block[32768] __attribute__((aligned(8)));
  cloudabi_errno_t e = 0;
  while (o.left > 0 && e == 0) {
    /* About as many host bytes as the guest has room for (records are
     * the same size give or take a few bytes), so that small buffers do
     * not make the kernel produce entries we throw away; at least room
     * for one record of the longest name. */
    size_t want =
        o.left < sizeof(block) - 512 ? (size_t)o.left + 512 : sizeof(block);
    long n = syscall(SYS_getdents64, fd, block, want);
    if (n < 0)
      return errno_from_host(errno);
    if (n == 0)
      break; /* the end: the guest sees bufused < buf_len */
    for (long off = 0; off < n && o.left > 0 && e == 0;) {
      const struct host_dirent *d = (const void *)(block + off);
      size_t namlen = strlen(d->d_name);
      cloudabi_dirent_t de;
      memset(&de, 0, sizeof(de));
      de.d_next = (cloudabi_dircookie_t)d->d_off;
      de.d_ino = d->d_ino;
      de.d_namlen = (uint32_t)namlen;
      de.d_type = filetype_from_dtype(d->d_type);
      e = put(&o, &de, sizeof(de));
      if (e == 0)
        e = put(&o, d->d_name, namlen);
      off += d->d_reclen;
    }
  }
  if (e == 0)
    e = flush(&o);
  if (e != 0)
    return e;
  c->result = o.used;
  return 0;
}
