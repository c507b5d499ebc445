/* Handlers for the fd_* system calls. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/uio.h>

#include "host/errno_map.h"
#include "supervisor/guestmem.h"
#include "host/hostio.h"
#include "supervisor/park.h"
#include "supervisor/sup.h"
#include "file_limits.h"
#include "sock.h"
#include "syscall_table.h"

#define R(name) CLOUDABI_RIGHT_##name

/* fd_write(fd, iovs, iovs_len, slot tag in place of nwritten) */
cloudabi_errno_t handle_fd_write(struct call *c) {
  struct hostobj *obj = c->cap[0]->obj;
  struct iovec data;
  cloudabi_errno_t e = gmem_source(c, 1, 3, &data);
  if (e != 0)
    return e;
  struct file_growth g;
  if ((e = file_may_write(c, obj, -1, &data.iov_len, &g)) != 0)
    return e;
  ssize_t n = hostio_writev(obj, &data, 1);
  file_grown(c, obj, &g);
  if (n == -EAGAIN)
    return sup_wait_for(c, obj, EPOLLOUT);
  if (n < 0)
    return errno_from_host((int)-n);
  if (obj->is_socket)
    sock_sent(obj, (size_t)n);
  c->result = (uint64_t)n;
  return 0;
}

/* fd_read(fd, iovs, iovs_len, slot tag in place of nread) */
cloudabi_errno_t handle_fd_read(struct call *c) {
  struct hostobj *obj = c->cap[0]->obj;
  struct gmem_sink sink;
  cloudabi_errno_t e = gmem_sink_open(c, 1, 3, &sink);
  if (e != 0)
    return e;
  ssize_t n = obj->is_socket ? sock_read(c, obj, &sink.buf)
                             : hostio_readv(obj, &sink.buf, 1);
  if (n == -EAGAIN)
    return sup_wait_for(c, obj, EPOLLIN);
  if (n < 0)
    return errno_from_host((int)-n);
  e = gmem_sink_fill(c, &sink, (size_t)n);
  if (e == 0)
    c->result = (uint64_t)n;
  return e;
}

cloudabi_errno_t handle_fd_close(struct call *c) {
  return captab_close(&c->proc->fds, (uint32_t)c->args[0]);
}

cloudabi_errno_t handle_fd_dup(struct call *c) {
  struct capability *from = c->cap[0];
  cloudabi_fd_t fd;
  cloudabi_errno_t e = captab_insert(&c->proc->fds, from->obj, from->base,
                                     from->inheriting, &fd);
  if (e == 0)
    c->result = fd;
  return e;
}

cloudabi_errno_t handle_fd_replace(struct call *c) {
  /* Both exist (dispatch checked): `to` now names what `from` names. */
  struct capability from = *c->cap[0];
  return captab_insert_at(&c->proc->fds, (uint32_t)c->args[1], from.obj,
                          from.base, from.inheriting);
}

cloudabi_errno_t handle_fd_stat_get(struct call *c) {
  struct capability *cap = c->cap[0];
  cloudabi_fdstat_t st;
  memset(&st, 0, sizeof(st));
  st.fs_filetype = cap->obj->type;
  st.fs_flags = cap->obj->flags;
  st.fs_rights_base = cap->base;
  st.fs_rights_inheriting = cap->inheriting;
  /* Through the slot in argument 2 when the vDSO gave one. */
  char *slot;
  size_t len;
  int r = gmem_slot(c, 2, &slot, &len);
  if (r < 0 || (r > 0 && len < sizeof(st)))
    return CLOUDABI_EFAULT;
  if (r > 0) {
    memcpy(slot, &st, sizeof(st));
    return 0;
  }
  return gmem_write(c, c->args[1], &st, sizeof(st));
}

#define FDFLAGS_ALL                                                            \
  (CLOUDABI_FDFLAG_APPEND | CLOUDABI_FDFLAG_DSYNC | CLOUDABI_FDFLAG_NONBLOCK | \
   CLOUDABI_FDFLAG_RSYNC | CLOUDABI_FDFLAG_SYNC)

cloudabi_errno_t handle_fd_stat_put(struct call *c) {
  struct capability *cap = c->cap[0];
  cloudabi_fdstat_t st;
  cloudabi_errno_t e = gmem_read(c, c->args[1], &st, sizeof(st));
  if (e != 0)
    return e;
  switch (c->args[2]) {
  case CLOUDABI_FDSTAT_FLAGS: {
    if ((cap->base & R(FD_STAT_PUT_FLAGS)) == 0)
      return CLOUDABI_ENOTCAPABLE;
    if ((st.fs_flags & ~FDFLAGS_ALL) != 0)
      return CLOUDABI_EINVAL;
    /* Only O_APPEND lives on the host description; NONBLOCK is the
     * guest's view and the sync flags are honoured by hostio. */
    int fl = fcntl(cap->obj->fd, F_GETFL);
    if (fl < 0)
      return errno_from_host(errno);
    int want = (st.fs_flags & CLOUDABI_FDFLAG_APPEND) ? fl | O_APPEND
                                                      : fl & ~O_APPEND;
    if (want != fl && fcntl(cap->obj->fd, F_SETFL, want) != 0)
      return errno_from_host(errno);
    cap->obj->flags = st.fs_flags;
    return 0;
  }
  case CLOUDABI_FDSTAT_RIGHTS:
    /* Rights can only be dropped. */
    if ((st.fs_rights_base & ~cap->base) != 0 ||
        (st.fs_rights_inheriting & ~cap->inheriting) != 0)
      return CLOUDABI_ENOTCAPABLE;
    cap->base = st.fs_rights_base;
    cap->inheriting = st.fs_rights_inheriting;
    return 0;
  default:
    return CLOUDABI_EINVAL;
  }
}
