/*
 * sock_recv, sock_send, sock_shutdown: data and descriptors over sockets.
 * Descriptors travel as SCM_RIGHTS: those sent are the supervisor's host
 * descriptors behind the guest's capabilities.  One sent by a guest of
 * this run arrives as the very object it was sent as, with exactly the
 * sender's rights (host/inflight.h carries them); one from a host peer
 * gets what its host object allows.  Either way the receiving socket's
 * inheriting rights narrow them further.
 */
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "host/errno_map.h"
#include "supervisor/acceptor.h"
#include "supervisor/guestmem.h"
#include "host/hostio.h"
#include "host/inflight.h"
#include "host/pseudofs.h"
#include "host/rights.h"
#include "supervisor/park.h"
#include "supervisor/sup.h"
#include "sock.h"
#include "syscall_table.h"

/* Linux's limit on descriptors in one SCM_RIGHTS message. */
#define MAX_PASSED_FDS 253

/* Files the guest received on `from`: into its table, their numbers to
 * out. */
static size_t adopt_fds(struct call *c, const struct hostobj *from,
                        const int *host, size_t n, bool peek,
                        cloudabi_rights_t inheriting, cloudabi_fd_t *out) {
  size_t kept = 0;
  for (size_t i = 0; i < n; i++) {
    struct fd_rights r;
    struct host_probe known;
    cloudabi_fd_t fd;
    struct hostobj *obj = NULL;
    if (acceptor_connection(from, &r, &known)) {
      /* One of the acceptor's connections: never a guest's, never in
       * flight, and what it is is known. */
      if ((obj = hostobj_new(host[i], r.type)) == NULL)
        continue; /* closed by hostobj_new */
      hostio_prepare_probed(obj, &known);
    } else if ((obj = inflight_take(&c->sup->inflight, host[i], !peek,
                                    &r.base, &r.inheriting)) != NULL) {
      close(host[i]); /* a duplicate of obj->fd */
    } else {
      /* From outside the sandbox.  A directory on a file system of the
       * running system is dropped, as a config may not grant one: every
       * directory capability is then on an ordinary file system, which
       * lets path.c skip checking what the kernel resolved beneath it. */
      const char *fs;
      struct host_probe probe;
      if (rights_for_host_fd_probe(host[i], &r, &probe) != 0 ||
          (r.type == CLOUDABI_FILETYPE_DIRECTORY &&
           pseudofs_fd(host[i], false, &fs))) {
        close(host[i]);
        continue; /* a type CloudABI cannot name: dropped */
      }
      if ((obj = hostobj_new(host[i], r.type)) == NULL)
        continue; /* closed by hostobj_new */
      hostio_prepare_probed(obj, &probe);
    }
    if (captab_insert(&c->proc->fds, obj, r.base & inheriting,
                      r.inheriting & inheriting, &fd) == 0)
      out[kept++] = fd;
    hostobj_unref(obj);
  }
  return kept;
}

/* Room for the most descriptors one message carries. */
union fds_ctl {
  struct cmsghdr h;
  char buf[CMSG_SPACE(MAX_PASSED_FDS * sizeof(int))];
};

/*
 * The descriptors a received message carried: the first `room` into
 * host[], the rest closed here (with their in-flight records, unless only
 * peeking), so that none is left to the kernel to drop unseen.  The
 * number kept; *dropped says whether any went.
 */
static size_t take_fds(struct call *c, struct msghdr *m, bool peek,
                       size_t room, int *host, bool *dropped) {
  size_t kept = 0;
  *dropped = false;
  for (struct cmsghdr *h = CMSG_FIRSTHDR(m); h != NULL;
       h = CMSG_NXTHDR(m, h)) {
    if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS)
      continue;
    size_t k = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < k; i++) {
      int fd;
      memcpy(&fd, CMSG_DATA(h) + i * sizeof(int), sizeof(int));
      if (kept < room) {
        host[kept++] = fd;
        continue;
      }
      cloudabi_rights_t b, inh;
      struct hostobj *o =
          inflight_take(&c->sup->inflight, fd, !peek, &b, &inh);
      if (o != NULL)
        hostobj_unref(o);
      close(fd);
      *dropped = true;
    }
  }
  return kept;
}

/* recvmsg for a guest: a stream read ends where a message with
 * descriptors begins (FreeBSD), which sockmarks.h knows between guests. */
static ssize_t recv_guest(struct hostobj *obj, struct msghdr *m, int flags) {
  struct iovec *iov = m->msg_iov, whole = iov[0];
  iov[0].iov_len = sockmarks_limit(&obj->marks, obj->received, whole.iov_len);
  ssize_t n = recvmsg(obj->fd, m, flags);
  iov[0] = whole;
  if (n > 0 && (flags & MSG_PEEK) == 0)
    obj->received += (uint64_t)n;
  return n;
}

ssize_t sock_read(struct call *c, struct hostobj *obj, struct iovec *buf) {
  union fds_ctl ctl;
  struct msghdr m = {.msg_iov = buf,
                     .msg_iovlen = 1,
                     .msg_control = ctl.buf,
                     .msg_controllen = sizeof(ctl.buf)};
  acceptor_feed(obj);
  ssize_t n = recv_guest(obj, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
  if (n < 0)
    return -errno;
  acceptor_feed(obj); /* the next, for another thread waiting */
  bool dropped;
  take_fds(c, &m, false, 0, NULL, &dropped);
  return n;
}

void sock_sent(struct hostobj *obj, size_t n) {
  obj->sent += n;
}

cloudabi_errno_t handle_sock_recv(struct call *c) {
  struct capability *cap = c->cap[0];
  if (!cap->obj->is_socket)
    return CLOUDABI_ENOTSOCK;
  cloudabi_recv_in_t in;
  cloudabi_errno_t e = gmem_read(c, c->args[1], &in, sizeof(in));
  if (e != 0)
    return e;
  if ((in.ri_flags & ~(CLOUDABI_SOCK_RECV_PEEK | CLOUDABI_SOCK_RECV_WAITALL)) !=
      0)
    return CLOUDABI_EINVAL;
  if (in.ri_fds_len > MAX_PASSED_FDS)
    in.ri_fds_len = MAX_PASSED_FDS;

  /* The iovecs of recv_in, read as a call's own arguments would be. */
  struct call sub = *c;
  sub.args[0] = (uint64_t)(uintptr_t)in.ri_data;
  sub.args[1] = in.ri_data_len;
  /* The data's I/O slot, if the vDSO gave one: the tag in the fourth
   * register, which sock_recv does not otherwise use (abi/vdso/io.c). */
  sub.args[2] = c->args[3];
  struct gmem_sink sink;
  e = gmem_sink_open(&sub, 0, 2, &sink);
  if (e != 0)
    return e;

  if ((in.ri_flags & CLOUDABI_SOCK_RECV_WAITALL) != 0 &&
      (cap->obj->flags & CLOUDABI_FDFLAG_NONBLOCK) == 0) {
    /* Wait until all of it is there (or the peer is gone): the host call
     * itself must never block. */
    int avail = 0;
    if (ioctl(cap->obj->fd, FIONREAD, &avail) == 0 &&
        (size_t)avail < sink.buf.iov_len) {
      char probe;
      ssize_t r = recv(cap->obj->fd, &probe, 1, MSG_PEEK | MSG_DONTWAIT);
      if (r != 0 && !(r < 0 && errno != EAGAIN))
        /* Part of it is there already, so the socket is readable: only
         * more data (or the peer's end) is progress, an edge. */
        return sup_wait_for(c, cap->obj,
                            avail > 0 ? EPOLLIN | EPOLLRDHUP | EPOLLET
                                      : EPOLLIN);
    }
  }

  union fds_ctl ctl;
  struct msghdr m = {
      .msg_iov = &sink.buf,
      .msg_iovlen = 1,
      /* Room for all: descriptors beyond ri_fds_len are closed here,
       * not by the kernel, so that their in-flight records go too. */
      .msg_control = ctl.buf,
      .msg_controllen = sizeof(ctl.buf),
  };
  int flags = MSG_DONTWAIT | MSG_CMSG_CLOEXEC;
  bool peek = (in.ri_flags & CLOUDABI_SOCK_RECV_PEEK) != 0;
  if (peek)
    flags |= MSG_PEEK;
  /* An acceptor's end: what waits in the pair first; with it empty, a
   * plain receive with room for the connection takes one straight from
   * the listener, as the pair would have carried it.  Anything else has
   * the pair fed first. */
  bool direct = in.ri_flags == 0 && in.ri_fds_len > 0 &&
                cap->obj->acceptor != NULL;
  if (!direct)
    acceptor_feed(cap->obj);
  ssize_t n = recv_guest(cap->obj, &m, flags);
  int host[MAX_PASSED_FDS];
  size_t nhost = 0;
  bool dropped = false, taken = false;
  if (n < 0 && errno == EAGAIN && direct) {
    char text[ACCEPTOR_TEXT_MAX];
    size_t len;
    host[0] = acceptor_take(cap->obj, text, sizeof(text), &len);
    if (host[0] >= 0) {
      taken = true;
      nhost = 1;
      n = (ssize_t)(len < sink.buf.iov_len ? len : sink.buf.iov_len);
      memcpy(sink.buf.iov_base, text, (size_t)n);
      m.msg_flags = (size_t)n < len ? MSG_TRUNC : 0;
      cap->obj->received += (uint64_t)n;
    } else {
      errno = EAGAIN;
    }
  }
  if (n >= 0 && direct)
    acceptor_watch(cap->obj); /* the next: straight, or for a parked call */
  else if (n >= 0 && !peek)
    acceptor_feed(cap->obj); /* the next, for another thread waiting */
  if (n < 0 && errno == EAGAIN)
    return sup_wait_for(c, cap->obj, EPOLLIN);
  if (n < 0)
    return errno_from_host(errno);

  if (!taken)
    nhost = take_fds(c, &m, peek, in.ri_fds_len, host, &dropped);
  /* FreeBSD reports truncation only to a receiver that gave room (and
   * too little); with none they are just discarded. */
  if (dropped && in.ri_fds_len > 0)
    m.msg_flags |= MSG_CTRUNC;
  cloudabi_fd_t guest[MAX_PASSED_FDS];
  size_t kept =
      adopt_fds(c, cap->obj, host, nhost, peek, cap->inheriting, guest);

  cloudabi_recv_out_t out;
  memset(&out, 0, sizeof(out));
  out.ro_datalen = (size_t)n;
  out.ro_fdslen = kept;
  if ((m.msg_flags & MSG_TRUNC) != 0)
    out.ro_flags |= CLOUDABI_SOCK_RECV_DATA_TRUNCATED;
  if ((m.msg_flags & MSG_CTRUNC) != 0 || kept < nhost)
    out.ro_flags |= CLOUDABI_SOCK_RECV_FDS_TRUNCATED;
  e = gmem_sink_fill(&sub, &sink, (size_t)n);
  if (e == 0 && kept > 0)
    e = gmem_write(c, (uint64_t)(uintptr_t)in.ri_fds, guest,
                   kept * sizeof(cloudabi_fd_t));
  if (e == 0)
    e = gmem_write(c, c->args[2], &out, sizeof(out));
  if (e != 0) {
    /* The guest cannot learn their numbers: do not leave them behind. */
    for (size_t i = 0; i < kept; i++)
      captab_close(&c->proc->fds, guest[i]);
  } else if (kept > 0) {
    c->received = true;
    c->received_fd = guest[0];
  }
  return e;
}

cloudabi_errno_t handle_sock_send(struct call *c) {
  struct capability *cap = c->cap[0];
  if (!cap->obj->is_socket)
    return CLOUDABI_ENOTSOCK;
  cloudabi_send_in_t in;
  cloudabi_errno_t e = gmem_read(c, c->args[1], &in, sizeof(in));
  if (e != 0)
    return e;
  if (in.si_flags != 0)
    return CLOUDABI_EINVAL;
  if (in.si_fds_len > MAX_PASSED_FDS)
    return CLOUDABI_EINVAL;
  cloudabi_fd_t guest[MAX_PASSED_FDS];
  if (in.si_fds_len > 0) {
    e = gmem_read(c, (uint64_t)(uintptr_t)in.si_fds, guest,
                  in.si_fds_len * sizeof(cloudabi_fd_t));
    if (e != 0)
      return e;
  }
  int host[MAX_PASSED_FDS];
  struct capability *caps[MAX_PASSED_FDS];
  for (size_t i = 0; i < in.si_fds_len; i++) {
    e = captab_get(&c->proc->fds, guest[i], 0, &caps[i]);
    if (e != 0)
      return e;
    if (caps[i]->obj->fd < 0)
      return CLOUDABI_EBADF; /* a process descriptor has no host file */
    host[i] = caps[i]->obj->fd;
  }

  struct call sub = *c;
  sub.args[0] = (uint64_t)(uintptr_t)in.si_data;
  sub.args[1] = in.si_data_len;
  sub.args[2] = c->args[3]; /* the data's I/O slot, as sock_recv's */
  struct iovec data;
  e = gmem_source(&sub, 0, 2, &data);
  if (e != 0)
    return e;

  union fds_ctl ctl;
  struct msghdr m = {.msg_iov = &data, .msg_iovlen = 1};
  if (in.si_fds_len > 0) {
    m.msg_control = ctl.buf;
    m.msg_controllen = CMSG_SPACE(in.si_fds_len * sizeof(int));
    struct cmsghdr *h = CMSG_FIRSTHDR(&m);
    h->cmsg_level = SOL_SOCKET;
    h->cmsg_type = SCM_RIGHTS;
    h->cmsg_len = CMSG_LEN(in.si_fds_len * sizeof(int));
    memcpy(CMSG_DATA(h), host, in.si_fds_len * sizeof(int));
  }
  /* The receiving end is ours: carry the rights along (inflight.h). */
  size_t recorded = 0;
  if (in.si_fds_len > 0 &&
      inflight_peer_is_self(&c->sup->inflight, cap->obj->fd)) {
    e = inflight_push(&c->sup->inflight, caps, in.si_fds_len);
    if (e != 0)
      return e;
    recorded = in.si_fds_len;
  }
  /* Where this message begins in what the other end receives. */
  struct hostobj *peer = cap->obj->peer;
  bool marked = in.si_fds_len > 0 && peer != NULL &&
                sockmarks_push(&peer->marks, cap->obj->sent);
  ssize_t n = sendmsg(cap->obj->fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
  int err = errno;
  /* A stream carries no descriptors without a byte of data. */
  if (n <= 0) {
    inflight_drop_newest(&c->sup->inflight, recorded);
    if (marked)
      sockmarks_pop_newest(&peer->marks);
  } else {
    sock_sent(cap->obj, (size_t)n);
  }
  if (n < 0 && err == EAGAIN)
    return sup_wait_for(c, cap->obj, EPOLLOUT);
  if (n < 0)
    return errno_from_host(err);
  cloudabi_send_out_t out = {(size_t)n};
  return gmem_write(c, c->args[2], &out, sizeof(out));
}

cloudabi_errno_t handle_sock_shutdown(struct call *c) {
  struct capability *cap = c->cap[0];
  int how;
  switch (c->args[1]) {
  case CLOUDABI_SHUT_RD:
    how = SHUT_RD;
    break;
  case CLOUDABI_SHUT_WR:
    how = SHUT_WR;
    break;
  case CLOUDABI_SHUT_RD | CLOUDABI_SHUT_WR:
    how = SHUT_RDWR;
    break;
  default:
    return CLOUDABI_EINVAL;
  }
  if (!cap->obj->is_socket)
    return CLOUDABI_ENOTSOCK;
  if (shutdown(cap->obj->fd, how) != 0)
    return errno_from_host(errno);
  return 0;
}
