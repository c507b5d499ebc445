/* Descriptors in flight between guests; see inflight.h. */
#include "inflight.h"

#include <errno.h>
#include <linux/kcmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

void inflight_init(struct inflight *f) {
  memset(f, 0, sizeof(*f));
  f->self = getpid();
}

void inflight_free(struct inflight *f) {
  for (size_t i = 0; i < f->n; i++)
    hostobj_unref(f->recs[i].obj);
  free(f->recs);
  memset(f, 0, sizeof(*f));
}

bool inflight_peer_is_self(const struct inflight *f, int sockfd) {
  struct ucred cred;
  socklen_t len = sizeof(cred);
  if (getsockopt(sockfd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
    return false;
  /* A datagram socket connected by path has no peer credentials: its
   * peer may be ours (a config can connect two of them), so record. */
  return cred.pid == f->self || cred.pid == 0;
}

cloudabi_errno_t inflight_push(struct inflight *f,
                               struct capability *const *caps, size_t n) {
  if (n > INFLIGHT_MAX - f->n)
    return CLOUDABI_EMFILE;
  if (f->n + n > f->cap) {
    size_t cap = f->cap == 0 ? 16 : f->cap;
    while (cap < f->n + n)
      cap *= 2;
    struct inflight_rec *r = realloc(f->recs, cap * sizeof(*r));
    if (r == NULL)
      return CLOUDABI_ENOMEM;
    f->recs = r;
    f->cap = cap;
  }
  for (size_t i = 0; i < n; i++) {
    struct stat st;
    if (fstat(caps[i]->obj->fd, &st) != 0) {
      inflight_drop_newest(f, i);
      return CLOUDABI_EBADF;
    }
    struct inflight_rec *r = &f->recs[f->n++];
    hostobj_ref(caps[i]->obj);
    r->obj = caps[i]->obj;
    r->base = caps[i]->base;
    r->inheriting = caps[i]->inheriting;
    r->dev = st.st_dev;
    r->ino = st.st_ino;
  }
  return 0;
}

void inflight_drop_newest(struct inflight *f, size_t n) {
  for (; n > 0 && f->n > 0; n--)
    hostobj_unref(f->recs[--f->n].obj);
}

static bool same_file(const struct inflight *f, int a, int b) {
  return syscall(SYS_kcmp, f->self, f->self, KCMP_FILE, a, b) == 0;
}

struct hostobj *inflight_take(struct inflight *f, int fd, bool consume,
                              cloudabi_rights_t *base,
                              cloudabi_rights_t *inheriting) {
  if (f->n == 0)
    return NULL;
  struct stat st;
  if (fstat(fd, &st) != 0)
    return NULL;
  size_t first = f->n;
  cloudabi_rights_t b = ~(cloudabi_rights_t)0, inh = b;
  for (size_t i = 0; i < f->n; i++) {
    struct inflight_rec *r = &f->recs[i];
    if (r->dev != st.st_dev || r->ino != st.st_ino ||
        !same_file(f, r->obj->fd, fd))
      continue;
    if (first == f->n)
      first = i;
    b &= r->base;
    inh &= r->inheriting;
  }
  if (first == f->n)
    return NULL;
  struct hostobj *obj = f->recs[first].obj; /* the record's reference */
  if (consume) {
    memmove(&f->recs[first], &f->recs[first + 1],
            (f->n - first - 1) * sizeof(f->recs[0]));
    f->n--;
  } else {
    hostobj_ref(obj);
  }
  *base = b;
  *inheriting = inh;
  return obj;
}
