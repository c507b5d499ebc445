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
#include "reply.h"

#define R(x) CLOUDABI_RIGHT_##x

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
static cloudabi_rights_t mirrorable(const struct sup *s,
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
static bool use_blocking(const struct hostobj *o) {
  return o->blocking_fd >= 0 && (o->flags & CLOUDABI_FDFLAG_NONBLOCK) == 0;
}

/* Whether m still names what its capability grants. */
static bool valid(const struct sup *s, struct gproc *p,
                  const struct mirror *m) {
  struct capability *cap;
  return captab_get(&p->fds, m->capfd, m->rights, &cap) == 0 &&
         cap->obj == m->obj &&
         (mirrorable(s, cap, false) & m->rights) == m->rights &&
         m->blocking == use_blocking(cap->obj) &&
         m->nonblock == ((cap->obj->flags & CLOUDABI_FDFLAG_NONBLOCK) != 0);
}

/*
 * How an offer answers its call: not at all (the caller replies), through
 * the answer bytes of the call's I/O slot (trap.h), or bare, for a call
 * whose own result is 0 on success, so that the vDSO takes any mirror
 * number for an answer (sock_recv: the mirror is of the first descriptor
 * received).
 */
enum answer_kind { ANSWER_NONE, ANSWER_SLOT, ANSWER_BARE };
struct answer {
  enum answer_kind kind;
  uint64_t *bytes; /* ANSWER_SLOT's */
};
static const struct answer no_answer = {ANSWER_NONE, NULL};

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
#define INSTALL_NO_MIRROR 1
static int install(struct call *c, int src, int gfd,
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
  return install(c, src, gfd, &no_answer);
}

/* Writes p's vDSO table entry for capfd; a failure only costs speed. */
static void tell_vdso(struct sup *s, struct gproc *p, cloudabi_fd_t capfd,
                      uint16_t gfd) {
  if (p->vdso_base == 0)
    return;
  struct iovec l = {&gfd, sizeof(gfd)};
  struct iovec r = {(void *)(uintptr_t)(p->vdso_base + s->vdso.mirrors +
                                        capfd * sizeof(gfd)),
                    sizeof(gfd)};
  process_vm_writev(p->pid, &l, 1, &r, 1, 0);
}

static void forget(struct gproc *p, unsigned i) {
  struct mirrors *ms = &p->mirrors;
  int gfd = ms->at[i].gfd;
  ms->used[gfd / 64] &= ~(1ull << (gfd % 64));
  hostobj_unref(ms->at[i].obj);
  ms->at[i] = ms->at[--ms->n];
}

static long kcmp_file(pid_t a, pid_t b, int fa, int fb) {
  return syscall(SYS_kcmp, a, b, KCMP_FILE, fa, fb);
}

/* The byte through which the vDSO says capfd's mirror was used (trap.h,
 * "Mirror use"), or NULL. */
static uint8_t *use_byte(const struct gproc *p, cloudabi_fd_t capfd) {
  if (p->ioslots == NULL || capfd >= CLOSE_HINT_FDS)
    return NULL;
  return (uint8_t *)p->ioslots + IOSLOT_MIRROR_USED + capfd;
}

/* Takes record i back on c's call; false if the process had to go.
 * closed: the vDSO closed the number itself (an fd_close without a
 * trap), so only if the guest still holds our descriptor there does it
 * need the inert one: ADDFD costs a round trip to the guest's task (it
 * installs the descriptor itself), kcmp a system call. */
static bool take_back(struct call *c, unsigned i, bool closed) {
  struct sup *s = c->sup;
  struct gproc *p = c->proc;
  struct mirror m = p->mirrors.at[i];
  int src = m.blocking ? m.obj->blocking_fd : m.obj->fd;
  if (m.at_open) {
    uint8_t *used = use_byte(p, m.capfd);
    bool untouched = used != NULL ? __atomic_load_n(used, __ATOMIC_RELAXED) == 0
                                  : lseek(m.obj->fd, 0, SEEK_CUR) == 0;
    p->mirrors.open_misses = untouched ? p->mirrors.open_misses + 1 : 0;
  }
  if (closed && kcmp_file(p->pid, s->self_pid, m.gfd, src) != 0) {
    forget(p, i);
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
    tell_vdso(s, p, m.capfd, 0);
  forget(p, i);
  return true;
}

/* A free number for rights (trap.h: 0x100 * their set + an index), or
 * -1. */
static int pick(struct mirrors *ms, cloudabi_rights_t rights) {
  unsigned bits = ((rights & R(FD_READ)) ? MIRROR_READ : 0u) |
                  ((rights & R(FD_WRITE)) ? MIRROR_WRITE : 0u) |
                  ((rights & R(FD_SEEK)) ? MIRROR_SEEK : 0u) |
                  ((rights & R(FILE_STAT_FGET)) ? MIRROR_STAT : 0u);
  unsigned range = bits / MIRROR_SPAN;
  unsigned base = bits;
  /* Next fit: a number just given back is the last to be used again,
   * so that a racing read through a stale table hint finds the inert
   * descriptor rather than another file. */
  for (unsigned k = 0; k < MIRROR_SPAN; k++) {
    unsigned gfd = base + (ms->cursor[range] + k) % MIRROR_SPAN;
    if ((ms->used[gfd / 64] & (1ull << (gfd % 64))) == 0) {
      ms->cursor[range] = (gfd - base + 1) % MIRROR_SPAN;
      return (int)gfd;
    }
  }
  return -1;
}

/* offer's flags: mirror at once, not at the second trapped read or write
 * (trapped_io); made by file_open (the mirror's at_open). */
#define OFFER_NOW 1u
#define OFFER_AT_OPEN 2u

/* Mirrors capfd if it can be and is not, answering the call as ans says.
 * True if the call was answered. */
static bool offer(struct call *c, cloudabi_fd_t capfd,
                  const struct answer *ans, unsigned flags) {
  bool at_open = (flags & OFFER_AT_OPEN) != 0;
  struct sup *s = c->sup;
  struct gproc *p = c->proc;
  struct mirrors *ms = &p->mirrors;
  struct capability *cap;
  if (capfd >= MIRROR_FDS || captab_get(&p->fds, capfd, 0, &cap) != 0)
    return false;
  cloudabi_rights_t rights = mirrorable(s, cap, true);
  if (rights == 0)
    return false;
  struct hostobj *o = cap->obj;
  if (o->accmode < 0) {
    int fl = fcntl(o->fd, F_GETFL);
    if (fl < 0)
      return false;
    o->accmode = fl & O_ACCMODE;
  }
  if (o->accmode == O_WRONLY)
    rights &= ~R(FD_READ);
  if (o->accmode == O_RDONLY)
    rights &= ~R(FD_WRITE);
  if ((rights & (R(FD_READ) | R(FD_WRITE))) == 0)
    return false;
  if ((flags & OFFER_NOW) == 0 && cap->trapped_io < 1) {
    cap->trapped_io++;
    return false;
  }
  for (unsigned i = 0; i < ms->n; i++) {
    if (ms->at[i].capfd != capfd)
      continue;
    if (valid(s, p, &ms->at[i]) && ms->at[i].rights == rights &&
        ms->at[i].blocking == use_blocking(cap->obj))
      return false; /* the vDSO lost its hint: a legitimate failure */
    if (!take_back(c, i, false))
      return false;
    break;
  }
  int gfd = pick(ms, rights);
  if (gfd < 0)
    return false;
  if (ms->n == ms->size) {
    unsigned size = ms->size != 0 ? ms->size * 2 : 8;
    struct mirror *at = realloc(ms->at, size * sizeof(*at));
    if (at == NULL)
      return false;
    ms->at = at;
    ms->size = size;
  }
  bool blocking = use_blocking(cap->obj);
  bool answers = ans->kind != ANSWER_NONE;
  /* Before the guest can see the mirror: its first use sets the byte. */
  uint8_t *used = at_open ? use_byte(p, capfd) : NULL;
  if (used != NULL)
    __atomic_store_n(used, 0, __ATOMIC_RELAXED);
  int done = install(c, blocking ? cap->obj->blocking_fd : cap->obj->fd, gfd,
                     ans);
  if (done == INSTALL_NO_MIRROR)
    return true;
  if (done != 0) {
    /* ENOENT: the caller is gone, nothing to answer. */
    if (errno == ENOENT)
      return answers;
    /* No ADDFD_FLAG_SEND (Linux before 5.14): mirrors at the second
     * read or write only. */
    if (answers && errno == EINVAL) {
      s->mirrors_no_send = true;
      return false;
    }
    /* Too few descriptors allowed (RLIMIT_NOFILE), or no SETFD: stop
     * making them (those made can still be taken back). */
    if (errno == ENOTTY || errno == EINVAL || errno == EMFILE)
      s->mirrors_off = true;
    return false; /* EBADF: this object cannot be */
  }
  hostobj_ref(cap->obj);
  ms->at[ms->n++] = (struct mirror){.capfd = capfd,
                                    .gfd = gfd,
                                    .obj = cap->obj,
                                    .rights = rights,
                                    .blocking = blocking,
                                    .nonblock = (cap->obj->flags &
                                                 CLOUDABI_FDFLAG_NONBLOCK) != 0,
                                    .at_open = at_open};
  ms->used[gfd / 64] |= 1ull << (gfd % 64);
  /* Answered: the vDSO writes its own table entry (trap.h). */
  if (!answers)
    tell_vdso(s, p, capfd, (uint16_t)gfd);
  /* A second read of something: the program reads what it opens. */
  if (!at_open)
    ms->open_misses = 0;
  return answers;
}

/* The answer bytes of the I/O slot whose tag is in argument arg, if the
 * call's data leaves them free: a write's input was consumed, a read's
 * output is c->result bytes from the slot's start (trap.h). */
static uint64_t *io_answer(struct call *c, unsigned arg, bool reads) {
  uint64_t tag = c->args[arg];
  uint64_t index = (tag >> 32) & 0xffff;
  if ((tag & TRAP_SLOT_MASK) != TRAP_SLOT_TAG || index >= IOSLOT_COUNT)
    return NULL;
  uint64_t len = reads ? c->result : (uint32_t)tag;
  if (len > IOSLOT_ANSWER)
    return NULL;
  return (uint64_t *)(c->proc->ioslots + IOSLOT_OFFSET(index) + IOSLOT_ANSWER);
}

/* A trapped read or write: its capability mirrored (at the second), in the
 * call's answer when it can be. */
static bool offer_io(struct call *c) {
  struct sup *s = c->sup;
  unsigned arg = c->sysno == CLOUDABI_SYS_fd_read ||
                         c->sysno == CLOUDABI_SYS_fd_write
                     ? 3
                     : 4;
  bool reads = c->sysno == CLOUDABI_SYS_fd_read ||
               c->sysno == CLOUDABI_SYS_fd_pread;
  struct answer ans = no_answer;
  if (!s->mirrors_no_send && c->proc->ioslots != NULL &&
      (ans.bytes = io_answer(c, arg, reads)) != NULL)
    ans.kind = ANSWER_SLOT;
  return offer(c, (cloudabi_fd_t)c->args[0], &ans, 0);
}

/* A connection received (sock_recv's first descriptor): mirrored at once,
 * since it is received to be read and written, the call answered bare. */
static bool offer_received(struct call *c) {
  if (!c->received || c->sup->mirrors_no_send || c->result != 0)
    return false;
  static const struct answer bare = {ANSWER_BARE, NULL};
  return offer(c, c->received_fd, &bare, OFFER_NOW);
}

/* A file_open: what it opened mirrored, through its path's slot, unless
 * this process's opened files go unread (open_misses). */
static bool offer_opened(struct call *c) {
  struct gproc *p = c->proc;
  struct mirrors *ms = &p->mirrors;
  if (c->sup->mirrors_no_send || p->ioslots == NULL ||
      (ms->open_misses >= 4 && ++ms->opens_skipped % 16 != 0))
    return false;
  /* The path came in a slot: its answer bytes are the call's. */
  uint64_t path = c->args[1];
  uint64_t index = (path >> 32) & 0xffff;
  if ((path & TRAP_SLOT_MASK) != TRAP_SLOTADDR_TAG || index >= IOSLOT_COUNT)
    return false;
  struct answer ans = {
      ANSWER_SLOT,
      (uint64_t *)(p->ioslots + IOSLOT_OFFSET(index) + IOSLOT_ANSWER)};
  return offer(c, (cloudabi_fd_t)c->result, &ans, OFFER_NOW | OFFER_AT_OPEN);
}

bool mirrors_answer(struct call *c, cloudabi_errno_t e) {
  struct sup *s = c->sup;
  if (e != 0 || c->proc == NULL || s->mirror_inert_fd < 0 || s->mirrors_off)
    return false;
  switch (c->sysno) {
  case CLOUDABI_SYS_fd_read:
  case CLOUDABI_SYS_fd_write:
  case CLOUDABI_SYS_fd_pread:
  case CLOUDABI_SYS_fd_pwrite:
    return offer_io(c);
  case CLOUDABI_SYS_sock_recv:
    return offer_received(c);
  case CLOUDABI_SYS_file_open:
    return offer_opened(c);
  default:
    return false;
  }
}

/* After a call that may have closed, replaced or narrowed a capability:
 * every mirror that no longer matches goes, before the call is answered. */
static void validate(struct call *c, bool closed) {
  struct gproc *p = c->proc;
  for (unsigned i = 0; i < p->mirrors.n;) {
    if (valid(c->sup, p, &p->mirrors.at[i])) {
      i++;
      continue;
    }
    if (!take_back(c, i, closed)) /* moves the last record to i */
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
  if (c->proc->mirrors.n != 0)
    validate(c, true);
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
    forget(p, p->mirrors.n - 1);
  free(p->mirrors.at);
  p->mirrors.at = NULL;
  p->mirrors.size = 0;
}
