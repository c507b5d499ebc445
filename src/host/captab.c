/* Guest descriptor tables; see captab.h. */
#include "captab.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "trap.h"

struct hostobj *hostobj_new(int fd, cloudabi_filetype_t type) {
  struct hostobj *obj = calloc(1, sizeof(*obj));
  if (obj == NULL) {
    close(fd);
    return NULL;
  }
  obj->refcount = 1;
  obj->fd = fd;
  obj->blocking_fd = -1;
  obj->accmode = -1;
  obj->type = type;
  return obj;
}

void hostobj_ref(struct hostobj *obj) { obj->refcount++; }

void hostobj_unref(struct hostobj *obj) {
  if (obj != NULL && --obj->refcount == 0) {
    if (obj->proc != NULL) {
      if (!obj->proc->exited)
        syscall(SYS_pidfd_send_signal, obj->proc->pidfd, SIGKILL, NULL, 0);
      procinfo_unref(obj->proc);
    }
    if (obj->on_free != NULL)
      obj->on_free(obj->acceptor);
    if (obj->peer != NULL)
      obj->peer->peer = NULL;
    sockmarks_free(&obj->marks);
    if (obj->fd >= 0)
      close(obj->fd);
    if (obj->blocking_fd >= 0)
      close(obj->blocking_fd);
    free(obj);
  }
}

struct procinfo *procinfo_new(pid_t pid, int pidfd) {
  struct procinfo *info = calloc(1, sizeof(*info));
  if (info == NULL) {
    if (pidfd >= 0)
      close(pidfd);
    return NULL;
  }
  info->endfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (info->endfd < 0) {
    if (pidfd >= 0)
      close(pidfd);
    free(info);
    return NULL;
  }
  info->refcount = 1;
  info->pid = pid;
  info->pidfd = pidfd;
  return info;
}

void procinfo_unref(struct procinfo *info) {
  if (info != NULL && --info->refcount == 0) {
    if (info->pidfd >= 0)
      close(info->pidfd);
    close(info->endfd);
    free(info);
  }
}

void procinfo_ended(struct procinfo *info, int status) {
  if (info->exited)
    return;
  info->exited = true;
  info->status = status;
  uint64_t one = 1;
  /* Cannot fail: the counter is written once. */
  (void)!write(info->endfd, &one, sizeof(one));
}

void captab_init(struct captab *t) {
  t->slots = NULL;
  t->size = t->count = 0;
  t->limit = 0;
  t->hints = NULL;
  t->nhints = 0;
  t->closes_pending = NULL;
  t->quiet_closes = 0;
}

/* Whether closing obj is seen by no one but its holder: files and
 * directories (not pipes or sockets, whose peers see the end, nor process
 * descriptors, whose close kills). */
static bool quiet_close(const struct hostobj *obj) {
  return obj != NULL && obj->proc == NULL &&
         (obj->type == CLOUDABI_FILETYPE_REGULAR_FILE ||
          obj->type == CLOUDABI_FILETYPE_DIRECTORY);
}

static void hint(struct captab *t, cloudabi_fd_t fd,
                 const struct hostobj *obj) {
  if (t->hints != NULL && fd < t->nhints)
    __atomic_store_n(&t->hints[fd], quiet_close(obj) ? CLOSE_HINT_OPEN : 0,
                     __ATOMIC_SEQ_CST);
}

void captab_free(struct captab *t) {
  for (uint32_t i = 0; i < t->size; i++)
    hostobj_unref(t->slots[i].obj);
  free(t->slots);
  captab_init(t);
}

static cloudabi_errno_t grow(struct captab *t, uint32_t need) {
  if (need <= t->size)
    return 0;
  if (need > CAPTAB_MAX)
    return CLOUDABI_EMFILE;
  uint32_t size = t->size < 8 ? 8 : t->size;
  while (size < need)
    size *= 2;
  if (size > CAPTAB_MAX)
    size = CAPTAB_MAX;
  struct capability *slots = realloc(t->slots, size * sizeof(*slots));
  if (slots == NULL)
    return CLOUDABI_ENOMEM;
  for (uint32_t i = t->size; i < size; i++)
    slots[i] = (struct capability){NULL, 0, 0, 0};
  t->slots = slots;
  t->size = size;
  return 0;
}

cloudabi_errno_t captab_insert_at(struct captab *t, cloudabi_fd_t fd,
                                  struct hostobj *obj, cloudabi_rights_t base,
                                  cloudabi_rights_t inheriting) {
  if (fd >= CAPTAB_MAX)
    return CLOUDABI_EBADF;
  cloudabi_errno_t e = grow(t, fd + 1);
  if (e != 0)
    return e;
  struct capability *slot = &t->slots[fd];
  hostobj_ref(obj);
  if (slot->obj != NULL)
    hostobj_unref(slot->obj);
  else
    t->count++;
  *slot = (struct capability){obj, base, inheriting, 0};
  hint(t, fd, obj);
  return 0;
}

cloudabi_errno_t captab_insert(struct captab *t, struct hostobj *obj,
                               cloudabi_rights_t base,
                               cloudabi_rights_t inheriting,
                               cloudabi_fd_t *fd) {
  if (t->limit != 0 && t->count >= t->limit)
    return CLOUDABI_EMFILE;
  uint32_t i = 0;
  if (t->count < t->size) {
    while (t->slots[i].obj != NULL)
      i++;
  } else {
    i = t->size;
  }
  if (i >= CAPTAB_MAX)
    return CLOUDABI_EMFILE;
  cloudabi_errno_t e = captab_insert_at(t, i, obj, base, inheriting);
  if (e == 0)
    *fd = i;
  return e;
}

cloudabi_errno_t captab_get(struct captab *t, cloudabi_fd_t fd,
                            cloudabi_rights_t need, struct capability **cap) {
  if (fd >= t->size || t->slots[fd].obj == NULL)
    return CLOUDABI_EBADF;
  struct capability *c = &t->slots[fd];
  if ((c->base & need) != need)
    return CLOUDABI_ENOTCAPABLE;
  *cap = c;
  return 0;
}

cloudabi_errno_t captab_close(struct captab *t, cloudabi_fd_t fd) {
  if (fd >= t->size || t->slots[fd].obj == NULL)
    return CLOUDABI_EBADF;
  hostobj_unref(t->slots[fd].obj);
  t->slots[fd] = (struct capability){NULL, 0, 0, 0};
  t->count--;
  hint(t, fd, NULL);
  return 0;
}

cloudabi_errno_t captab_clone(const struct captab *from, struct captab *to) {
  captab_init(to);
  cloudabi_errno_t e = grow(to, from->size);
  if (e != 0)
    return e;
  for (uint32_t i = 0; i < from->size; i++) {
    to->slots[i] = from->slots[i];
    if (to->slots[i].obj != NULL)
      hostobj_ref(to->slots[i].obj);
  }
  to->count = from->count;
  to->limit = from->limit;
  return 0;
}

void captab_share_hints(struct captab *t, uint8_t *hints, uint32_t n,
                        uint32_t *pending) {
  t->hints = hints;
  t->nhints = hints != NULL ? n : 0;
  t->closes_pending = hints != NULL ? pending : NULL;
  if (hints == NULL)
    return;
  __atomic_store_n(pending, 0, __ATOMIC_SEQ_CST);
  for (uint32_t fd = 0; fd < n; fd++)
    hint(t, fd, fd < t->size ? t->slots[fd].obj : NULL);
}

unsigned captab_take_closed(struct captab *t) {
  if (t->closes_pending == NULL ||
      __atomic_load_n(t->closes_pending, __ATOMIC_RELAXED) == 0)
    return 0;
  /* Zeroed before the scan: a close counted after it is found by this
   * scan or the next. */
  __atomic_store_n(t->closes_pending, 0, __ATOMIC_SEQ_CST);
  unsigned n = 0;
  uint32_t end = t->size < t->nhints ? t->size : t->nhints;
  for (uint32_t fd = 0; fd < end; fd++) {
    if (__atomic_load_n(&t->hints[fd], __ATOMIC_RELAXED) != CLOSE_HINT_CLOSED)
      continue;
    /* Whatever the byte said, the guest asked for this close. */
    if (captab_close(t, fd) == 0)
      n++;
    else
      hint(t, fd, NULL);
  }
  t->quiet_closes += n;
  return n;
}

bool captab_unhint(struct captab *t, cloudabi_fd_t fd) {
  if (t->hints == NULL || fd >= t->nhints)
    return true;
  if (__atomic_exchange_n(&t->hints[fd], 0, __ATOMIC_SEQ_CST) !=
      CLOSE_HINT_CLOSED)
    return true;
  if (captab_close(t, fd) == 0)
    t->quiet_closes++;
  return false;
}
