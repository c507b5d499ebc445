/*
 * Handlers for I/O on an open file at a given place, and its housekeeping:
 * fd_pread, fd_pwrite, fd_seek, fd_sync, fd_datasync, file_advise,
 * file_allocate.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/uio.h>
#include <unistd.h>

#include "host/errno_map.h"
#include "supervisor/guestmem.h"
#include "supervisor/park.h"
#include "supervisor/sup.h"
#include "file_limits.h"
#include "syscall_table.h"

#define R(name) CLOUDABI_RIGHT_##name

static cloudabi_errno_t file_offset(uint64_t offset, off_t *out) {
  if (offset > (uint64_t)INT64_MAX)
    return CLOUDABI_EINVAL;
  *out = (off_t)offset;
  return 0;
}

cloudabi_errno_t handle_fd_pread(struct call *c) {
  struct hostobj *obj = c->cap[0]->obj;
  off_t offset;
  cloudabi_errno_t e = file_offset(c->args[3], &offset);
  if (e != 0)
    return e;
  /* The I/O slot, when the vDSO gave one, is in argument 4 (nread's). */
  struct gmem_sink sink;
  if ((e = gmem_sink_open(c, 1, 4, &sink)) != 0)
    return e;
  ssize_t n = pread(obj->fd, sink.buf.iov_base, sink.buf.iov_len, offset);
  if (n < 0 && errno == EAGAIN)
    return sup_wait_for(c, obj, EPOLLIN);
  if (n < 0)
    return errno_from_host(errno);
  if ((e = gmem_sink_fill(c, &sink, (size_t)n)) != 0)
    return e;
  c->result = (uint64_t)n;
  return 0;
}

cloudabi_errno_t handle_fd_pwrite(struct call *c) {
  struct hostobj *obj = c->cap[0]->obj;
  off_t offset;
  cloudabi_errno_t e = file_offset(c->args[3], &offset);
  if (e != 0)
    return e;
  struct iovec data;
  if ((e = gmem_source(c, 1, 4, &data)) != 0)
    return e;
  struct file_growth g;
  if ((e = file_may_write(c, obj, offset, &data.iov_len, &g)) != 0)
    return e;
  ssize_t n = pwrite(obj->fd, data.iov_base, data.iov_len, offset);
  file_grown(c, obj, &g);
  if (n < 0 && errno == EAGAIN)
    return sup_wait_for(c, obj, EPOLLOUT);
  if (n < 0)
    return errno_from_host(errno);
  /* The sync flags, as hostio does for fd_write. */
  if ((obj->flags & CLOUDABI_FDFLAG_SYNC) != 0)
    fsync(obj->fd);
  else if ((obj->flags & CLOUDABI_FDFLAG_DSYNC) != 0)
    fdatasync(obj->fd);
  c->result = (uint64_t)n;
  return 0;
}

cloudabi_errno_t handle_fd_seek(struct call *c) {
  struct capability *cap = c->cap[0];
  int64_t offset = (int64_t)c->args[1];
  int whence;
  switch ((cloudabi_whence_t)c->args[2]) {
  case CLOUDABI_WHENCE_CUR:
    whence = SEEK_CUR;
    break;
  case CLOUDABI_WHENCE_END:
    whence = SEEK_END;
    break;
  case CLOUDABI_WHENCE_SET:
    whence = SEEK_SET;
    break;
  default:
    return CLOUDABI_EINVAL;
  }
  /* Asking where we are needs only FD_TELL; moving needs FD_SEEK. */
  cloudabi_rights_t need =
      offset == 0 && whence == SEEK_CUR ? R(FD_TELL) | R(FD_SEEK) : R(FD_SEEK);
  if ((cap->base & need) == 0)
    return CLOUDABI_ENOTCAPABLE;
  off_t r = lseek(cap->obj->fd, (off_t)offset, whence);
  if (r < 0)
    return errno_from_host(errno);
  c->result = (uint64_t)r;
  return 0;
}

cloudabi_errno_t handle_fd_sync(struct call *c) {
  return fsync(c->cap[0]->obj->fd) == 0 ? 0 : errno_from_host(errno);
}

cloudabi_errno_t handle_fd_datasync(struct call *c) {
  return fdatasync(c->cap[0]->obj->fd) == 0 ? 0 : errno_from_host(errno);
}

cloudabi_errno_t handle_file_advise(struct call *c) {
  int advice;
  switch ((cloudabi_advice_t)c->args[3]) {
  case CLOUDABI_ADVICE_DONTNEED:
    advice = POSIX_FADV_DONTNEED;
    break;
  case CLOUDABI_ADVICE_NOREUSE:
    advice = POSIX_FADV_NOREUSE;
    break;
  case CLOUDABI_ADVICE_NORMAL:
    advice = POSIX_FADV_NORMAL;
    break;
  case CLOUDABI_ADVICE_RANDOM:
    advice = POSIX_FADV_RANDOM;
    break;
  case CLOUDABI_ADVICE_SEQUENTIAL:
    advice = POSIX_FADV_SEQUENTIAL;
    break;
  case CLOUDABI_ADVICE_WILLNEED:
    advice = POSIX_FADV_WILLNEED;
    break;
  default:
    return CLOUDABI_EINVAL;
  }
  off_t offset, len;
  cloudabi_errno_t e;
  if ((e = file_offset(c->args[1], &offset)) != 0 ||
      (e = file_offset(c->args[2], &len)) != 0)
    return e;
  /* posix_fadvise returns the error instead of setting errno. */
  int err = posix_fadvise(c->cap[0]->obj->fd, offset, len, advice);
  return err == 0 ? 0 : errno_from_host(err);
}

cloudabi_errno_t handle_file_allocate(struct call *c) {
  off_t offset, len;
  cloudabi_errno_t e;
  if ((e = file_offset(c->args[1], &offset)) != 0 ||
      (e = file_offset(c->args[2], &len)) != 0)
    return e;
  if (len == 0)
    return CLOUDABI_EINVAL; /* as posix_fallocate */
  /*
   * fallocate itself, not glibc's posix_fallocate, which writes every
   * block when the file system cannot allocate: a guest could keep the
   * supervisor busy for as long as it likes.  Such file systems answer
   * ENOTSUP.
   */
  struct hostobj *obj = c->cap[0]->obj;
  struct file_growth g;
  if ((uint64_t)offset + (uint64_t)len > (uint64_t)INT64_MAX)
    return CLOUDABI_EFBIG;
  if ((e = file_may_grow_to(c, obj, (uint64_t)(offset + len), &g)) != 0)
    return e;
  int r = fallocate(obj->fd, 0, offset, len);
  int err = errno;
  file_grown(c, obj, &g);
  return r == 0 ? 0 : errno_from_host(err);
}
