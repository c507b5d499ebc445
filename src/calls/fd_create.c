/*
 * Handlers that make new objects from nothing: fd_create1 (anonymous
 * shared memory) and fd_create2 (a pair of connected Unix sockets).  Each
 * new descriptor gets its type's maximum rights.
 */
#include <errno.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "host/errno_map.h"
#include "host/rights.h"
#include "supervisor/sup.h"
#include "syscall_table.h"

/* Puts a new host descriptor of `type` in the guest's table, with the
 * type's maximum rights.  Consumes hostfd. */
static cloudabi_errno_t insert_new(struct call *c, int hostfd,
                                   cloudabi_filetype_t type, bool is_socket,
                                   cloudabi_fd_t *gfd, struct hostobj **made) {
  struct hostobj *obj = hostobj_new(hostfd, type);
  if (obj == NULL)
    return CLOUDABI_ENOMEM;
  obj->is_socket = is_socket;
  obj->host_nonblocking = is_socket;
  cloudabi_rights_t base, inheriting;
  rights_max_for_type(type, false, &base, &inheriting);
  cloudabi_errno_t e = captab_insert(&c->proc->fds, obj, base, inheriting, gfd);
  if (made != NULL)
    *made = obj; /* the table's reference keeps it */
  hostobj_unref(obj);
  return e;
}

cloudabi_errno_t handle_fd_create1(struct call *c) {
  if ((cloudabi_filetype_t)c->args[0] != CLOUDABI_FILETYPE_SHARED_MEMORY)
    return CLOUDABI_EINVAL;
  int fd = memfd_create("cloudabi-shm", MFD_CLOEXEC);
  if (fd < 0)
    return errno_from_host(errno);
  cloudabi_fd_t gfd;
  cloudabi_errno_t e =
      insert_new(c, fd, CLOUDABI_FILETYPE_SHARED_MEMORY, false, &gfd, NULL);
  if (e == 0)
    c->result = gfd;
  return e;
}

cloudabi_errno_t handle_fd_create2(struct call *c) {
  cloudabi_filetype_t type = (cloudabi_filetype_t)c->args[0];
  int sotype;
  if (type == CLOUDABI_FILETYPE_SOCKET_STREAM)
    sotype = SOCK_STREAM;
  else if (type == CLOUDABI_FILETYPE_SOCKET_DGRAM)
    sotype = SOCK_DGRAM;
  else
    return CLOUDABI_EINVAL;
  int sv[2];
  /* Non-blocking on the host: the supervisor never waits on a socket. */
  if (socketpair(AF_UNIX, sotype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) != 0)
    return errno_from_host(errno);
  cloudabi_fd_t fd1, fd2;
  struct hostobj *end1, *end2;
  cloudabi_errno_t e = insert_new(c, sv[0], type, true, &fd1, &end1);
  if (e != 0) {
    close(sv[1]);
    return e;
  }
  if ((e = insert_new(c, sv[1], type, true, &fd2, &end2)) != 0) {
    captab_close(&c->proc->fds, fd1);
    return e;
  }
  /* Each end knows the other, for the message boundaries of sock.c. */
  if (type == CLOUDABI_FILETYPE_SOCKET_STREAM) {
    end1->peer = end2;
    end2->peer = end1;
  }
  /* The vDSO stores the low half in *fd1 and the high half in *fd2. */
  c->result = (uint64_t)fd1 | (uint64_t)fd2 << 32;
  return 0;
}
