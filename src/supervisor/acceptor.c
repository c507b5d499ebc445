/*
 * Built-in acceptors (acceptor.h): accept4 on the config's listening
 * socket, one connection at a time into a SOCK_SEQPACKET pair whose other
 * end is the program's.  Everything here is non-blocking.
 */
#include "acceptor.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* Clients found gone before their hand-over, dropped in one feed before
 * the loop gets a turn again. */
#define ACCEPTOR_MAX_DROPS 64

struct acceptor {
  struct sup *sup;
  unsigned index; /* in sup->acceptors */
  int listen_fd;  /* -1 once the program's end refused a hand-over */
  int sup_fd;     /* our end of the pair: we only send */
  bool armed;     /* listen_fd is watched by the loop */
  int domain;     /* the listener's address family */
  struct hostobj *obj; /* the program's end; not a reference */
  /* The listening socket's path, for peers without an address. */
  char unix_path[sizeof(((struct sockaddr_un *)0)->sun_path) + 1];
};

_Static_assert(ACCEPTOR_TEXT_MAX >= sizeof(((struct acceptor *)0)->unix_path) + 8,
               "a peer's text fits");

static void set_armed(struct acceptor *a, bool on) {
  if (a->armed == on || a->listen_fd < 0)
    return;
  struct epoll_event ev = {.events = on ? EPOLLIN : 0,
                           .data.u64 = EV_ACCEPTOR + a->index};
  if (epoll_ctl(a->sup->epfd, EPOLL_CTL_MOD, a->listen_fd, &ev) == 0)
    a->armed = on;
}

/* The peer as text, not NUL-terminated; its length. */
static size_t peer_text(const struct acceptor *a,
                        const struct sockaddr_storage *ss, socklen_t len,
                        char *buf, size_t size) {
  char host[INET6_ADDRSTRLEN] = "?";
  int n = 0;
  if (ss->ss_family == AF_INET) {
    const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;
    inet_ntop(AF_INET, &sin->sin_addr, host, sizeof(host));
    n = snprintf(buf, size, "%s:%u", host, ntohs(sin->sin_port));
  } else if (ss->ss_family == AF_INET6) {
    const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;
    inet_ntop(AF_INET6, &sin6->sin6_addr, host, sizeof(host));
    n = snprintf(buf, size, "[%s]:%u", host, ntohs(sin6->sin6_port));
  } else {
    const struct sockaddr_un *sun = (const struct sockaddr_un *)ss;
    size_t off = offsetof(struct sockaddr_un, sun_path);
    size_t plen = len > off ? len - off : 0;
    if (plen > sizeof(sun->sun_path))
      plen = sizeof(sun->sun_path);
    if (plen > 1 && sun->sun_path[0] == '\0') {
      /* Abstract: '@' for the NUL, as ss(8) shows it. */
      n = snprintf(buf, size, "@%.*s", (int)(plen - 1), sun->sun_path + 1);
    } else if (plen > 0 && sun->sun_path[0] != '\0') {
      n = snprintf(buf, size, "%.*s", (int)strnlen(sun->sun_path, plen),
                   sun->sun_path);
    } else {
      n = snprintf(buf, size, "%s", a->unix_path[0] ? a->unix_path : "unix");
    }
  }
  if (n <= 0)
    return (size_t)snprintf(buf, size, "?");
  return (size_t)n < size ? (size_t)n : size - 1;
}

/* Whether a just-accepted client is already gone with nothing to read:
 * handing it over would only give the program an empty connection. */
static bool vanished(int conn) {
  struct pollfd p = {.fd = conn, .events = POLLIN | POLLRDHUP};
  if (poll(&p, 1, 0) != 1)
    return false;
  if ((p.revents & POLLERR) != 0)
    return true;
  if ((p.revents & (POLLHUP | POLLRDHUP)) == 0)
    return false;
  char c;
  return recv(conn, &c, 1, MSG_PEEK | MSG_DONTWAIT) <= 0;
}

/* One connection and its peer's text into the pair; 0 or an errno. */
static int hand_over(struct acceptor *a, int conn, const char *text,
                     size_t len) {
  union {
    struct cmsghdr h;
    char buf[CMSG_SPACE(sizeof(int))];
  } ctl;
  memset(&ctl, 0, sizeof(ctl));
  struct iovec iov = {.iov_base = (void *)text, .iov_len = len};
  struct msghdr m = {.msg_iov = &iov,
                     .msg_iovlen = 1,
                     .msg_control = ctl.buf,
                     .msg_controllen = sizeof(ctl.buf)};
  struct cmsghdr *h = CMSG_FIRSTHDR(&m);
  h->cmsg_level = SOL_SOCKET;
  h->cmsg_type = SCM_RIGHTS;
  h->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(h), &conn, sizeof(int));
  return sendmsg(a->sup_fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 ? errno : 0;
}

/* A connection from the listener, not gone already, with its peer's text
 * in text (*len bytes); -1 if none (the listener is then watched, or, out
 * of descriptors or memory, left for the program's next receive). */
static int accept_one(struct acceptor *a, char *text, size_t size,
                      size_t *len) {
  for (int drops = 0; drops < ACCEPTOR_MAX_DROPS;) {
    struct sockaddr_storage peer;
    socklen_t plen = sizeof(peer);
    memset(&peer, 0, sizeof(peer));
    int conn = accept4(a->listen_fd, (struct sockaddr *)&peer, &plen,
                       SOCK_CLOEXEC);
    if (conn < 0) {
      if (errno == EINTR)
        continue;
      if (errno == ECONNABORTED || errno == EPROTO || errno == ENETDOWN ||
          errno == EHOSTUNREACH || errno == ENETUNREACH ||
          errno == EHOSTDOWN || errno == ENONET || errno == EOPNOTSUPP) {
        /* That client's error, not the listener's (accept(2)). */
        drops++;
        continue;
      }
      /* Empty: wait for the next while calls are parked.  Out of
       * descriptors or memory: not in a loop that would spin on it; the
       * program's next receive tries again. */
      set_armed(a, errno == EAGAIN);
      return -1;
    }
    if (vanished(conn)) {
      close(conn);
      drops++;
      continue;
    }
    *len = peer_text(a, &peer, plen, text, size);
    return conn;
  }
  /* Dropped many: let the loop come back for more. */
  set_armed(a, true);
  return -1;
}

static void feed(struct acceptor *a) {
  if (a->listen_fd < 0)
    return;
  int queued = 0;
  if (ioctl(a->sup_fd, SIOCOUTQ, &queued) != 0 || queued > 0) {
    /* One waits already: the backlog keeps the rest. */
    set_armed(a, false);
    return;
  }
  char text[ACCEPTOR_TEXT_MAX];
  size_t n;
  int conn = accept_one(a, text, sizeof(text), &n);
  if (conn < 0)
    return;
  int e = hand_over(a, conn, text, n);
  close(conn); /* the pair holds it now, or it is dropped */
  if (e == EPIPE || e == ECONNRESET) {
    /* The program shut its end for reading: nobody will take
     * connections, so clients are refused instead of queued. */
    epoll_ctl(a->sup->epfd, EPOLL_CTL_DEL, a->listen_fd, NULL);
    close(a->listen_fd);
    a->listen_fd = -1;
    return;
  }
  set_armed(a, false);
}

void acceptor_watch(struct hostobj *end) {
  if (end != NULL && end->acceptor != NULL)
    set_armed(end->acceptor, true);
}

int acceptor_take(struct hostobj *end, char *text, size_t size, size_t *len) {
  struct acceptor *a = end != NULL ? end->acceptor : NULL;
  if (a == NULL || a->listen_fd < 0)
    return -1;
  return accept_one(a, text, size, len);
}

void acceptor_feed(struct hostobj *obj) {
  if (obj != NULL && obj->acceptor != NULL)
    feed(obj->acceptor);
}

bool acceptor_connection(const struct hostobj *end, struct fd_rights *rights,
                         struct host_probe *probe) {
  const struct acceptor *a = end != NULL ? end->acceptor : NULL;
  if (a == NULL || a->domain == AF_UNSPEC)
    return false;
  rights->type = CLOUDABI_FILETYPE_SOCKET_STREAM;
  rights_max_for_type(rights->type, false, &rights->base, &rights->inheriting);
  memset(probe, 0, sizeof(*probe));
  probe->st.st_mode = S_IFSOCK;
  probe->status_flags = O_RDWR; /* accept4 with SOCK_CLOEXEC alone */
  probe->so_type = SOCK_STREAM;
  probe->domain = a->domain;
  return true;
}

void acceptor_event(struct sup *s, uint64_t i) {
  if (i < SUP_MAX_ACCEPTORS && s->acceptors[i] != NULL)
    feed(s->acceptors[i]);
}

static void acceptor_close(struct acceptor *a) {
  if (a->listen_fd >= 0) {
    epoll_ctl(a->sup->epfd, EPOLL_CTL_DEL, a->listen_fd, NULL);
    close(a->listen_fd);
  }
  if (a->sup_fd >= 0)
    close(a->sup_fd);
  a->sup->acceptors[a->index] = NULL;
  free(a);
}

/* The program's end went: so does the acceptor (hostobj.on_free). */
static void on_free(void *p) { acceptor_close(p); }

struct hostobj *acceptor_open(struct sup *s, int listen_fd) {
  unsigned i = 0;
  while (i < SUP_MAX_ACCEPTORS && s->acceptors[i] != NULL)
    i++;
  int pair[2] = {-1, -1};
  struct acceptor *a = NULL;
  if (i == SUP_MAX_ACCEPTORS) {
    errno = EMFILE;
    goto fail;
  }
  a = calloc(1, sizeof(*a));
  if (a == NULL ||
      socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0)
    goto fail;
  /* The program only receives: what it sends would pile up unread, so
   * its sends fail with EPIPE instead. */
  shutdown(pair[1], SHUT_RD);
  struct sockaddr_un sun;
  socklen_t len = sizeof(sun);
  memset(&sun, 0, sizeof(sun));
  if (getsockname(listen_fd, (struct sockaddr *)&sun, &len) != 0)
    sun.sun_family = AF_UNSPEC;
  struct epoll_event ev = {.events = 0, .data.u64 = EV_ACCEPTOR + i};
  if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, listen_fd, &ev) != 0)
    goto fail;
  struct hostobj *obj = hostobj_new(pair[0], CLOUDABI_FILETYPE_SOCKET_STREAM);
  pair[0] = -1; /* obj's now, even on failure */
  if (obj == NULL) {
    epoll_ctl(s->epfd, EPOLL_CTL_DEL, listen_fd, NULL);
    goto fail;
  }
  *a = (struct acceptor){.sup = s, .index = i, .listen_fd = listen_fd,
                         .sup_fd = pair[1], .obj = obj,
                         .domain = sun.sun_family, .unix_path = {0}};
  memcpy(a->unix_path, sun.sun_path,
         sun.sun_family == AF_UNIX ? strnlen(sun.sun_path, sizeof(sun.sun_path))
                                   : 0);
  s->acceptors[i] = a;
  obj->acceptor = a;
  obj->on_free = on_free;
  /* Empty: a connection may wait in the pair before anyone asks. */
  set_armed(a, true);
  return obj;
fail:;
  int saved = errno;
  free(a);
  close(listen_fd);
  if (pair[0] >= 0)
    close(pair[0]);
  if (pair[1] >= 0)
    close(pair[1]);
  errno = saved;
  return NULL;
}

void acceptors_teardown(struct sup *s) {
  for (unsigned i = 0; i < SUP_MAX_ACCEPTORS; i++) {
    struct acceptor *a = s->acceptors[i];
    if (a == NULL)
      continue;
    /* Its object outlived the processes (a leak elsewhere): unhook it. */
    a->obj->acceptor = NULL;
    a->obj->on_free = NULL;
    acceptor_close(a);
  }
}
