/* Mirrored descriptors; see mirrors.h and trap.h. */
#include "mirrors.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "addfd.h"
#include "mirror_records.h"
#include "reply.h"

void mirrors_setup(struct sup *s) {
  s->mirror_inert_fd = -1;
  /* Guests inherit our hard limit (loader/spawn.c raises the soft one). */
  struct rlimit nofile;
  s->mirrors_no_stat =
      getrlimit(RLIMIT_NOFILE, &nofile) != 0 || nofile.rlim_max < MIRROR_HIGH;
  if (s->opts->tracer != NULL)
    return; /* --trace shows every call: none may bypass the supervisor */
  s->mirror_inert_fd = epoll_create1(EPOLL_CLOEXEC);
}

void mirrors_teardown(struct sup *s) {
  if (s->mirror_inert_fd >= 0)
    close(s->mirror_inert_fd);
  s->mirror_inert_fd = -1;
}

/*
 * What the kernel can enforce alone on cap: FD_READ and/or FD_WRITE, and
 * more for files.  probe: ask the host whether a socket's description
 * blocks, which only an offer needs; a mirror already made keeps its
 * answer while the capability's NONBLOCK stays as it was (valid), since
 * no call of ours changes the host's.  That spares every trapped call
 * that validates the mirrors a system call per mirrored socket.
 */
cloudabi_rights_t mirror_rights(const struct sup *s,
                                    const struct capability *cap, bool probe) {
  const struct hostobj *o = cap->obj;
  if (o->fd < 0 || o->proc != NULL)
    return 0;
  if (o->is_socket) {
    /* TCP only: Unix sockets carry descriptors, whose passing the
     * supervisor must see (host/inflight.h).  A blocking socket only for
     * a capability that would block too: EAGAIN from a non-blocking one
     * just falls back to the trapped path. */
    if (!o->inet_stream || o->type != CLOUDABI_FILETYPE_SOCKET_STREAM)
      return 0;
    if (probe && (o->flags & CLOUDABI_FDFLAG_NONBLOCK) != 0) {
      int fl = fcntl(o->fd, F_GETFL);
      if (fl < 0 || (fl & O_NONBLOCK) == 0)
        return 0;
    }
    return cap->base & (R(FD_READ) | R(FD_WRITE));
  }
  /* Pipes and devices only as our own non-blocking description: a read
   * that would block fails, and the trapped path parks it. */
  bool stream = o->host_nonblocking &&
                (o->type == CLOUDABI_FILETYPE_CHARACTER_DEVICE ||
                 o->type == CLOUDABI_FILETYPE_SOCKET_STREAM);
  if (o->type != CLOUDABI_FILETYPE_REGULAR_FILE && !stream)
    return 0;
  cloudabi_rights_t r = cap->base & (R(FD_READ) | R(FD_WRITE));
  /* pread, pwrite and fstat: files only (a pipe has no offsets, and its
   * blocking description's stat would not be the object's). */
  if (o->type == CLOUDABI_FILETYPE_REGULAR_FILE && r != 0)
    r |= cap->base & R(FD_SEEK);
  if (o->type == CLOUDABI_FILETYPE_REGULAR_FILE && r != 0 &&
      !s->mirrors_no_stat)
    r |= cap->base & R(FILE_STAT_FGET);
  /* Writes the supervisor must follow: sync flags, file limits. */
  const struct run_limits *l = &s->opts->limits;
  if ((o->flags & (CLOUDABI_FDFLAG_SYNC | CLOUDABI_FDFLAG_DSYNC)) != 0 ||
      (o->by_path && (l->file_size != 0 || l->disk != 0)))
    r &= ~R(FD_WRITE);
  return r;
}

/* Whether a mirror of o is its blocking description: when the guest
 * would wait (no NONBLOCK) and we have one. */
bool mirror_blocking(const struct hostobj *o) {
  return o->blocking_fd >= 0 && (o->flags & CLOUDABI_FDFLAG_NONBLOCK) == 0;
}

/* Whether m still names what its capability grants. */
bool mirror_valid(const struct sup *s, struct gproc *p,
                  const struct mirror *m) {
  struct capability *cap;
  return captab_get(&p->fds, m->capfd, m->rights, &cap) == 0 &&
         cap->obj == m->obj &&
         (mirror_rights(s, cap, false) & m->rights) == m->rights &&
         m->blocking == mirror_blocking(cap->obj) &&
         m->nonblock == ((cap->obj->flags & CLOUDABI_FDFLAG_NONBLOCK) != 0);
}

/*
 * Installs src at gfd for c, answering the call in the same step unless
 * ans says not to: 0, -1 with errno, or INSTALL_NO_MIRROR (answered, but
 * nothing installed).  An
 * ADDFD_FLAG_SEND that a signal interrupts before the guest's task took
 * the descriptor has answered the call all the same, with 0 and no
 * descriptor (Linux marks the notification replied first), and its restart
 * fails with EINPROGRESS, or with ENOENT once the guest has returned: the
 * answer bytes then stay, so that the vDSO takes the result from them
 * (trap.h), and no mirror was made.  (ENOENT from a caller that died
 * leaves them to nobody.)
 */
int mirror_install(struct call *c, int src, int gfd,
                   const struct answer *ans) {
  struct seccomp_notif_addfd add = {
      .id = c->id,
      .flags = SECCOMP_ADDFD_FLAG_SETFD,
      .srcfd = (uint32_t)src,
      .newfd = (uint32_t)gfd,
      .newfd_flags = 0,
  };
  if (ans->kind == ANSWER_SLOT) {
    __atomic_store_n(&ans->bytes[1], c->result, __ATOMIC_RELAXED);
    __atomic_store_n(&ans->bytes[0], TRAP_ANSWER_TAG | (uint64_t)gfd,
                     __ATOMIC_RELEASE);
  }
  if (ans->kind != ANSWER_NONE)
    add.flags |= SECCOMP_ADDFD_FLAG_SEND;
  if (ioctl(c->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add) >= 0)
    return 0;
  if (ans->kind != ANSWER_NONE &&
      (errno == EINPROGRESS || errno == EINTR || errno == ENOENT))
    return INSTALL_NO_MIRROR;
  if (ans->kind == ANSWER_SLOT)
    __atomic_store_n(&ans->bytes[0], 0, __ATOMIC_RELAXED);
  return -1;
}

static int addfd(struct call *c, int src, int gfd) {
  static const struct answer no_answer = {ANSWER_NONE, NULL};
  return mirror_install(c, src, gfd, &no_answer);
}

/* Writes p's vDSO table entry for capfd; a failure only costs speed. */
void mirror_tell_vdso(struct sup *s, struct gproc *p, cloudabi_fd_t capfd,
                      uint16_t gfd) {
  if (p->vdso_base == 0)
    return;
  struct iovec l = {&gfd, sizeof(gfd)};
  struct iovec r = {(void *)(uintptr_t)(p->vdso_base + s->vdso.mirrors +
                                        capfd * sizeof(gfd)),
                    sizeof(gfd)};
  process_vm_writev(p->pid, &l, 1, &r, 1, 0);
}

void mirror_forget(struct gproc *p, unsigned i) {
  struct mirrors *ms = &p->mirrors;
  int gfd = ms->at[i].gfd;
  if (ms->at[i].closed)
    ms->closed--;
  ms->used[gfd / 64] &= ~(1ull << (gfd % 64));
  hostobj_unref(ms->at[i].obj);
  ms->at[i] = ms->at[--ms->n];
}

static long kcmp_file(pid_t a, pid_t b, int fa, int fb) {
  return syscall(SYS_kcmp, a, b, KCMP_FILE, fa, fb);
}

/* The byte through which the vDSO says capfd's mirror was used (trap.h,
 * "Mirror use"), or NULL. */
uint8_t *mirror_use_byte(const struct gproc *p, cloudabi_fd_t capfd) {
  if (p->ioslots == NULL || capfd >= CLOSE_HINT_FDS)
    return NULL;
  return (uint8_t *)p->ioslots + IOSLOT_MIRROR_USED + capfd;
}

/* Takes record i back on c's call; false if the process had to go.
 * closed: the vDSO closed the number itself (an fd_close without a
 * trap), so only if the guest still holds our descriptor there does it
 * need the inert one: ADDFD costs a round trip to the guest's task (it
 * installs the descriptor itself), kcmp a system call. */
/* Counts a mirror made at file_open going back unused (open_misses). */
void mirror_count_use(struct gproc *p, const struct mirror *m) {
  if (!m->at_open)
    return;
  uint8_t *used = mirror_use_byte(p, m->capfd);
  bool untouched = used != NULL ? __atomic_load_n(used, __ATOMIC_RELAXED) == 0
                                : lseek(m->obj->fd, 0, SEEK_CUR) == 0;
  p->mirrors.open_misses = untouched ? p->mirrors.open_misses + 1 : 0;
}

bool mirror_take_back(struct call *c, unsigned i, bool closed) {
  struct sup *s = c->sup;
  struct gproc *p = c->proc;
  struct mirror m = p->mirrors.at[i];
  int src = m.blocking ? m.obj->blocking_fd : m.obj->fd;
  mirror_count_use(p, &m);
  if (closed && kcmp_file(p->pid, s->self_pid, m.gfd, src) != 0) {
    mirror_forget(p, i);
    return true;
  }
  if (addfd(c, s->mirror_inert_fd, m.gfd) != 0) {
    /* ENOENT: the caller was killed, and with it the process. */
    if (errno != ENOENT) {
      sup_msg(s, "process %u: cannot revoke a mirrored descriptor: %s",
              p->number, strerror(errno));
      kill(p->pid, SIGKILL);
    }
    return false;
  }
  if (!closed)
    mirror_tell_vdso(s, p, m.capfd, 0);
  mirror_forget(p, i);
  return true;
}

/*
 * Takes back every mirror closed before this call but the one at keep
 * (-1: none), before the call is answered.  A guest that kept a mirror
 * it said it closed thus keeps it no longer than until the answer of its
 * next trapped call; the one at keep is overwritten by that answer's
 * SETFD, which needs no kcmp to tell whether anything is still there.
 * False if the process had to go.
 */
bool mirror_settle_closed(struct call *c, int keep) {
  struct mirrors *ms = &c->proc->mirrors;
  for (unsigned i = 0; ms->closed != 0 && i < ms->n;) {
    if (!ms->at[i].closed || ms->at[i].gfd == keep) {
      i++;
      continue;
    }
    if (!mirror_take_back(c, i, true)) /* moves the last record to i */
      return false;
  }
  return true;
}

/* After a call that may have closed, replaced or narrowed a capability:
 * every mirror that no longer matches goes, before the call is answered. */
static void validate(struct call *c, bool closed) {
  struct gproc *p = c->proc;
  for (unsigned i = 0; i < p->mirrors.n;) {
    if (mirror_valid(c->sup, p, &p->mirrors.at[i])) {
      i++;
      continue;
    }
    if (!mirror_take_back(c, i, closed)) /* moves the last record to i */
      return;
  }
}

void mirrors_after(struct call *c) {
  if (c->proc == NULL)
    return;
  switch (c->sysno) {
  case CLOUDABI_SYS_fd_close:
    /* The vDSO closed the mirror first (a lie there leaves it to ADDFD). */
    if (c->proc->mirrors.n != 0)
      validate(c, true);
    break;
  case CLOUDABI_SYS_fd_replace:
  case CLOUDABI_SYS_fd_stat_put:
    if (c->proc->mirrors.n != 0)
      validate(c, false);
    break;
  default:
    break;
  }
}

void mirrors_closed(struct call *c) {
  /* The vDSO cleared its entries when it closed them (a lie there only
   * leaves a hint to the inert descriptor). */
  struct gproc *p = c->proc;
  struct mirrors *ms = &p->mirrors;
  p->fds.quiet_closes = 0;
  /* A file closed, another opened, as a server does per request: the
   * answer's mirror may take the number of a mirror whose capability the
   * close removed (offer), and what it does not take goes before the
   * answer (mirrors_answer).  Only those: a mirror that went stale for
   * another reason may still be in the vDSO's table. */
  bool defer = c->sysno == CLOUDABI_SYS_file_open;
  for (unsigned i = 0; i < ms->n;) {
    struct mirror *m = &ms->at[i];
    struct capability *cap;
    if (m->closed || mirror_valid(c->sup, p, m)) {
      i++;
      continue;
    }
    if (defer && captab_get(&p->fds, m->capfd, 0, &cap) != 0) {
      m->closed = true;
      ms->closed++;
      i++;
      continue;
    }
    if (!mirror_take_back(c, i, true)) /* moves the last record to i */
      return;
  }
}

void mirrors_settle_inherited(struct call *c) {
  struct sup *s = c->sup;
  struct mirrors *ms = &c->proc->mirrors;
  for (int gfd = MIRROR_LOW; gfd < MIRROR_HIGH; gfd++) {
    if ((ms->stale[gfd / 64] & (1ull << (gfd % 64))) == 0)
      continue;
    if (s->mirror_inert_fd < 0 || addfd(c, s->mirror_inert_fd, gfd) != 0) {
      if (s->mirror_inert_fd >= 0 && errno == ENOENT)
        return; /* the caller is gone: at the next call */
      sup_msg(s, "process %u: cannot revoke an inherited mirror: %s",
              c->proc->number, strerror(errno));
      kill(c->proc->pid, SIGKILL);
      return;
    }
    ms->stale[gfd / 64] &= ~(1ull << (gfd % 64));
  }
  ms->inherited = false;
}

bool mirrors_inherit(struct sup *s, struct gproc *parent, struct gproc *child) {
  struct mirrors *pm = &parent->mirrors;
  if (pm->n == 0 && !pm->inherited)
    return true; /* the parent holds no mirror, so the child neither */
  /* Its vDSO's hints are its parent's: none of them stands. */
  static const uint16_t zero[MIRROR_FDS];
  struct iovec l = {(void *)zero, sizeof(zero)};
  struct iovec r = {
      (void *)(uintptr_t)(child->vdso_base + s->vdso.mirrors), sizeof(zero)};
  if (process_vm_writev(child->pid, &l, 1, &r, 1, 0) != sizeof(zero))
    return false;
  char path[32];
  snprintf(path, sizeof(path), "/proc/%d/fd", (int)child->pid);
  DIR *d = opendir(path);
  if (d == NULL)
    return false;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    char *end;
    long n = strtol(e->d_name, &end, 10);
    if (e->d_name[0] < '0' || e->d_name[0] > '9' || *end != '\0' ||
        n < MIRROR_LOW || n >= MIRROR_HIGH)
      continue;
    /* Already inert: nothing to take back. */
    if (s->mirror_inert_fd >= 0 &&
        kcmp_file(child->pid, s->self_pid, (int)n, s->mirror_inert_fd) == 0)
      continue;
    child->mirrors.stale[n / 64] |= 1ull << (n % 64);
    child->mirrors.inherited = true;
  }
  closedir(d);
  return true;
}

void mirrors_clear(struct gproc *p) {
  while (p->mirrors.n != 0)
    mirror_forget(p, p->mirrors.n - 1);
  free(p->mirrors.at);
  p->mirrors.at = NULL;
  p->mirrors.size = 0;
}
