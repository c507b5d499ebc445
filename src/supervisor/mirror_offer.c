/* Making mirrors: which number, and answering the call with one (trap.h,
 * "A call answered with a mirror"); see mirrors.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>

#include "mirror_records.h"
#include "mirrors.h"

/* The first number of the range for rights (trap.h: 0x100 * their set). */
static unsigned range_base(cloudabi_rights_t rights) {
  return ((rights & R(FD_READ)) ? MIRROR_READ : 0u) |
         ((rights & R(FD_WRITE)) ? MIRROR_WRITE : 0u) |
         ((rights & R(FD_SEEK)) ? MIRROR_SEEK : 0u) |
         ((rights & R(FILE_STAT_FGET)) ? MIRROR_STAT : 0u);
}

/* The record of a mirror closed before this call (mirrors_closed) whose
 * number is in rights' range, or -1. */
static int closed_in_range(const struct mirrors *ms, cloudabi_rights_t rights) {
  unsigned base = range_base(rights);
  for (unsigned i = 0; ms->closed != 0 && i < ms->n; i++)
    if (ms->at[i].closed &&
        ((unsigned)ms->at[i].gfd & ~(MIRROR_SPAN - 1u)) == base)
      return (int)i;
  return -1;
}

/* The record at number gfd, or -1. */
static int record_at(const struct mirrors *ms, int gfd) {
  for (unsigned i = 0; i < ms->n; i++)
    if (ms->at[i].gfd == gfd)
      return (int)i;
  return -1;
}

/* A free number for rights (trap.h: range_base + an index), or -1. */
static int pick(struct mirrors *ms, cloudabi_rights_t rights) {
  unsigned base = range_base(rights);
  unsigned range = base / MIRROR_SPAN;
  /* Next fit: a number just given back is the last to be used again,
   * so that a racing read through a stale table hint finds the inert
   * descriptor rather than another file.  (offer's reuse of a closed
   * one's number is the exception: a read racing that close may reach
   * the file opened next, of the same rights and held by the process, as
   * a native read racing close and open may.) */
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
static bool offer(struct call *c, cloudabi_fd_t capfd, const struct answer *ans,
                  unsigned flags) {
  bool at_open = (flags & OFFER_AT_OPEN) != 0;
  struct sup *s = c->sup;
  struct gproc *p = c->proc;
  struct mirrors *ms = &p->mirrors;
  struct capability *cap;
  if (capfd >= MIRROR_FDS || captab_get(&p->fds, capfd, 0, &cap) != 0)
    return false;
  cloudabi_rights_t rights = mirror_rights(s, cap, true);
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
    if (ms->at[i].capfd != capfd || ms->at[i].closed)
      continue;
    if (mirror_valid(s, p, &ms->at[i]) && ms->at[i].rights == rights &&
        ms->at[i].blocking == mirror_blocking(cap->obj))
      return false; /* the vDSO lost its hint: a legitimate failure */
    if (!mirror_take_back(c, i, false))
      return false;
    break;
  }
  /* A number a close before this call left is taken again at once: the
   * SETFD replaces whatever the guest still holds there.  (Otherwise a
   * number given back is the last one reused, see pick.) */
  int reuse = closed_in_range(ms, rights);
  int gfd = reuse >= 0 ? ms->at[reuse].gfd : pick(ms, rights);
  if (gfd < 0 || !mirror_settle_closed(c, gfd))
    return false;
  if (ms->n == ms->size) {
    unsigned size = ms->size != 0 ? ms->size * 2 : 8;
    struct mirror *at = realloc(ms->at, size * sizeof(*at));
    if (at == NULL)
      return false;
    ms->at = at;
    ms->size = size;
  }
  bool blocking = mirror_blocking(cap->obj);
  bool answers = ans->kind != ANSWER_NONE;
  /* Before the guest can see the mirror: its first use sets the byte. */
  uint8_t *used = at_open ? mirror_use_byte(p, capfd) : NULL;
  if (used != NULL)
    __atomic_store_n(used, 0, __ATOMIC_RELAXED);
  int done = mirror_install(c, blocking ? cap->obj->blocking_fd : cap->obj->fd,
                            gfd, ans);
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
  if (reuse >= 0 && (reuse = record_at(ms, gfd)) >= 0) {
    mirror_count_use(p, &ms->at[reuse]);
    mirror_forget(p, (unsigned)reuse);
  }
  hostobj_ref(cap->obj);
  ms->at[ms->n++] = (struct mirror){
      .capfd = capfd,
      .gfd = gfd,
      .obj = cap->obj,
      .rights = rights,
      .blocking = blocking,
      .nonblock = (cap->obj->flags & CLOUDABI_FDFLAG_NONBLOCK) != 0,
      .at_open = at_open};
  ms->used[gfd / 64] |= 1ull << (gfd % 64);
  /* Answered: the vDSO writes its own table entry (trap.h). */
  if (!answers)
    mirror_tell_vdso(s, p, capfd, (uint16_t)gfd);
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
  unsigned arg =
      c->sysno == CLOUDABI_SYS_fd_read || c->sysno == CLOUDABI_SYS_fd_write ? 3
                                                                            : 4;
  bool reads =
      c->sysno == CLOUDABI_SYS_fd_read || c->sysno == CLOUDABI_SYS_fd_pread;
  struct answer ans = {ANSWER_NONE, NULL};
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

static bool answer_with_mirror(struct call *c, cloudabi_errno_t e) {
  struct sup *s = c->sup;
  if (e != 0 || s->mirror_inert_fd < 0 || s->mirrors_off)
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

bool mirrors_answer(struct call *c, cloudabi_errno_t e) {
  if (c->proc == NULL)
    return false;
  if (answer_with_mirror(c, e))
    return true;
  /* No mirror took a closed one's number: kcmp decides (take_back). */
  if (c->proc->mirrors.closed != 0)
    mirror_settle_closed(c, -1);
  return false;
}
