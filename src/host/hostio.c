/* Non-blocking host I/O; see hostio.h. */
#include "hostio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

void hostio_prepare(struct hostobj *obj) {
  struct host_probe p = {.so_type = 0};
  if (fstat(obj->fd, &p.st) != 0 ||
      (p.status_flags = fcntl(obj->fd, F_GETFL)) < 0)
    return;
  socklen_t len = sizeof(p.so_type);
  if (S_ISSOCK(p.st.st_mode) &&
      getsockopt(obj->fd, SOL_SOCKET, SO_TYPE, &p.so_type, &len) != 0)
    p.so_type = 0;
  hostio_prepare_probed(obj, &p);
}

void hostio_prepare_probed(struct hostobj *obj, const struct host_probe *p) {
  const struct stat *st = &p->st;
  mode_t mode = st->st_mode;
  int fl = p->status_flags;
  obj->accmode = fl & O_ACCMODE;
  if ((fl & O_APPEND) != 0)
    obj->flags |= CLOUDABI_FDFLAG_APPEND;
  if ((fl & O_NONBLOCK) != 0)
    obj->flags |= CLOUDABI_FDFLAG_NONBLOCK;
  if (S_ISSOCK(mode)) {
    obj->is_socket = true;
    int domain = p->domain;
    socklen_t len = sizeof(domain);
    if (domain != 0 ||
        getsockopt(obj->fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) == 0)
      obj->inet_stream = (domain == AF_INET || domain == AF_INET6) &&
                         p->so_type == SOCK_STREAM;
    return;
  }
  if (!S_ISFIFO(mode) && !S_ISCHR(mode))
    return;
  if ((fl & O_NONBLOCK) != 0) {
    obj->host_nonblocking = true;
    return;
  }
  /* A new open file description of the same pipe or device, ours alone. */
  char path[64];
  snprintf(path, sizeof(path), "/proc/self/fd/%d", obj->fd);
  int fd = open(path, (fl & (O_ACCMODE | O_APPEND)) | O_NONBLOCK | O_CLOEXEC |
                          O_NOCTTY);
  if (fd < 0)
    return; /* keep the blocking one; I/O is then checked with poll */
  struct stat st2;
  if (fstat(fd, &st2) != 0 || st2.st_ino != st->st_ino ||
      st2.st_dev != st->st_dev) {
    close(fd);
    return;
  }
  obj->blocking_fd = obj->fd;
  obj->fd = fd;
  obj->host_nonblocking = true;
}

#define MSG_FLAGS (MSG_DONTWAIT | MSG_NOSIGNAL)
#define IOV_MAX_BOUNDED 16

/* For a pipe or device we could not reopen: would the I/O block? */
static bool polled(const struct hostobj *obj) {
  return !obj->is_socket && !obj->host_nonblocking &&
         obj->type != CLOUDABI_FILETYPE_REGULAR_FILE &&
         obj->type != CLOUDABI_FILETYPE_DIRECTORY;
}

static bool would_block(const struct hostobj *obj, short events) {
  if (!polled(obj))
    return false;
  struct pollfd p = {obj->fd, events, 0};
  return poll(&p, 1, 0) == 0;
}

/*
 * A blocking pipe that polled writable has room for at least PIPE_BUF
 * bytes; more could block the supervisor.  Write no more than that and
 * let the guest see a short write.
 */
static ssize_t write_bounded(int fd, const struct iovec *iov, int n) {
  struct iovec cut[IOV_MAX_BOUNDED];
  size_t left = PIPE_BUF;
  int k = 0;
  for (int i = 0; i < n && k < IOV_MAX_BOUNDED && left > 0; i++) {
    size_t len = iov[i].iov_len < left ? iov[i].iov_len : left;
    if (len == 0)
      continue;
    cut[k].iov_base = iov[i].iov_base;
    cut[k].iov_len = len;
    left -= len;
    k++;
  }
  return k == 0 ? 0 : writev(fd, cut, k);
}

ssize_t hostio_readv(struct hostobj *obj, const struct iovec *iov, int n) {
  ssize_t r;
  if (obj->is_socket) {
    struct msghdr m = {.msg_iov = (struct iovec *)iov, .msg_iovlen = (size_t)n};
    r = recvmsg(obj->fd, &m, MSG_FLAGS);
  } else if (would_block(obj, POLLIN)) {
    return -EAGAIN;
  } else {
    r = readv(obj->fd, iov, n);
  }
  return r < 0 ? -errno : r;
}

ssize_t hostio_writev(struct hostobj *obj, const struct iovec *iov, int n) {
  ssize_t r;
  if (obj->is_socket) {
    struct msghdr m = {.msg_iov = (struct iovec *)iov, .msg_iovlen = (size_t)n};
    r = sendmsg(obj->fd, &m, MSG_FLAGS);
  } else if (would_block(obj, POLLOUT)) {
    return -EAGAIN;
  } else if (polled(obj)) {
    r = write_bounded(obj->fd, iov, n);
  } else {
    r = writev(obj->fd, iov, n);
  }
  if (r < 0)
    return -errno;
  /* Linux cannot set O_DSYNC/O_SYNC on an open description; honour the
   * guest's flags by syncing after the write. */
  if ((obj->flags & CLOUDABI_FDFLAG_SYNC) != 0)
    fsync(obj->fd);
  else if ((obj->flags & CLOUDABI_FDFLAG_DSYNC) != 0)
    fdatasync(obj->fd);
  return r;
}
