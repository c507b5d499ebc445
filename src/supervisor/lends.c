/*
 * Lending a host descriptor to a guest for mem_map, and taking it back;
 * when, and why then, is in lends.h.
 *
 * Taking back: Linux cannot close a descriptor in another process, but
 * SECCOMP_IOCTL_NOTIF_ADDFD with SECCOMP_ADDFD_FLAG_SETFD, on a call of a
 * thread that shares the descriptor table, replaces what is at a number,
 * as dup2 would.  The replacement is inert: the read end of a pipe nobody
 * can write, which mmap refuses (ENODEV) and close removes.
 *
 * Whether a number still holds a lend: the guest holds nothing but lends
 * and inert descriptors (it cannot dup, open or receive one: the filter),
 * and a new lend at a number replaces the record of an older one there
 * (ADDFD picked a free number, so the older one was closed).  So a number
 * that holds anything but the inert descriptor (kcmp KCMP_FILE, one
 * system call) holds that record's lend, and a closed one (EBADF) holds
 * nothing.  That is the whole cost of the normal path: one kcmp at the
 * lending thread's next call.
 */
#include "lends.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "addfd.h"
#include "host/errno_map.h"
#include "reply.h"

static long kcmp_file(pid_t a, pid_t b, int fa, int fb) {
  return syscall(SYS_kcmp, a, b, KCMP_FILE, fa, fb);
}

void lends_setup(struct sup *s) {
  s->inert_fd = -1;
  s->self_pid = getpid();
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0)
    return;
  close(p[1]);
  /* kcmp needs CONFIG_KCMP and may be filtered (container profiles). */
  if (kcmp_file(s->self_pid, s->self_pid, p[0], p[0]) != 0) {
    close(p[0]);
    return;
  }
  s->inert_fd = p[0];
}

void lends_teardown(struct sup *s) {
  if (s->inert_fd >= 0)
    close(s->inert_fd);
  s->inert_fd = -1;
}

static void drop(struct lends *l, unsigned i) {
  if (l->at[i].obj != NULL)
    hostobj_unref(l->at[i].obj);
  l->at[i] = l->at[--l->n];
}

cloudabi_errno_t lends_add(struct call *c, int fd, cloudabi_fd_t capfd,
                           cloudabi_rights_t rights, int *gfd) {
  struct sup *s = c->sup;
  struct lends *l = &c->proc->lends;
  if (s->inert_fd < 0)
    return CLOUDABI_ENOSYS; /* it could not be taken back */
  if (l->n >= SUP_MAX_LENDS)
    return CLOUDABI_EMFILE;
  struct capability *cap;
  cloudabi_errno_t e = captab_get(&c->proc->fds, capfd, rights, &cap);
  if (e != 0)
    return e;
  /* At a number of our choosing, the lowest no record holds: never where
   * the filter lets a mirror be read or written (trap.h), however many
   * inert descriptors the guest keeps. */
  int at = 0;
  for (unsigned i = 0; i < l->n;)
    if (l->at[i].gfd == at) {
      at++;
      i = 0;
    } else {
      i++;
    }
  if (at >= MIRROR_LOW)
    return CLOUDABI_EMFILE;
  /* Closing it must now trap, to take the lend back (trap.h). */
  if (!captab_unhint(&c->proc->fds, capfd))
    return CLOUDABI_EBADF; /* another thread closed it meanwhile */
  struct seccomp_notif_addfd add = {
      .id = c->id,
      .flags = SECCOMP_ADDFD_FLAG_SETFD,
      .srcfd = (uint32_t)fd,
      .newfd = (uint32_t)at,
      .newfd_flags = O_CLOEXEC,
  };
  int n = ioctl(c->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add);
  if (n < 0) {
    /* Before Linux 5.9 there is no way to lend a descriptor. */
    if (errno == ENOTTY || errno == EINVAL)
      return CLOUDABI_ENOSYS;
    /* ENOENT: the calling thread is gone; nobody reads the answer. */
    return errno_from_host(errno);
  }
  hostobj_ref(cap->obj);
  l->at[l->n++] = (struct lend){.id = c->id,
                                .tid = (pid_t)c->tid,
                                .gfd = n,
                                .capfd = capfd,
                                .obj = cap->obj,
                                .rights = rights};
  *gfd = n;
  return 0;
}

/* Whether r must be taken back now, at a call of thread tid. */
static bool due(struct gproc *p, const struct lend *r, pid_t tid) {
  if (r->tid == 0 || r->tid == tid)
    return true;
  struct capability *cap;
  return captab_get(&p->fds, r->capfd, r->rights, &cap) != 0 ||
         cap->obj != r->obj;
}

enum outcome { GONE, LATER, FAILED };

/* Puts the inert descriptor at r's number, unless that holds nothing or
 * the inert one already. */
static enum outcome take_back(struct call *c, const struct lend *r) {
  struct sup *s = c->sup;
  long k = kcmp_file((pid_t)c->tid, s->self_pid, r->gfd, s->inert_fd);
  if (k == 0 || (k < 0 && errno == EBADF))
    return GONE;
  if (k < 0)
    return errno == ESRCH ? LATER : FAILED; /* ESRCH: the caller died */
  struct seccomp_notif_addfd add = {
      .id = c->id,
      .flags = SECCOMP_ADDFD_FLAG_SETFD,
      .srcfd = (uint32_t)s->inert_fd,
      .newfd = (uint32_t)r->gfd,
      .newfd_flags = O_CLOEXEC,
  };
  if (ioctl(c->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add) >= 0)
    return GONE;
  /* ENOENT: the call is no longer pending (its thread died, or a signal
   * interrupted it and it will be made again): try at the next. */
  return errno == ENOENT ? LATER : FAILED;
}

void lends_settle_slow(struct call *c) {
  struct gproc *p = c->proc;
  struct lends *l = &p->lends;
  for (unsigned i = 0; i < l->n;) {
    struct lend *r = &l->at[i];
    bool own = r->tid == (pid_t)c->tid && r->id == c->id; /* lent by c */
    if (own || !due(p, r, (pid_t)c->tid)) {
      i++;
      continue;
    }
    switch (take_back(c, r)) {
    case GONE:
      drop(l, i); /* moves the last record to i */
      continue;
    case LATER:
      return;
    case FAILED:
      /* A lend that cannot be taken back must not outlive its right. */
      sup_msg(c->sup, "process %u: cannot revoke a lent descriptor: %s",
              p->number, strerror(errno));
      kill(p->pid, SIGKILL);
      return;
    }
  }
}

void lends_thread_gone(struct gproc *p, pid_t tid) {
  for (unsigned i = 0; i < p->lends.n; i++)
    if (p->lends.at[i].tid == tid)
      p->lends.at[i].tid = 0;
}

bool lends_inherit(struct sup *s, struct gproc *child) {
  if (s->inert_fd < 0)
    return true; /* nothing was ever lent */
  char path[32];
  snprintf(path, sizeof(path), "/proc/%d/fd", (int)child->pid);
  DIR *d = opendir(path);
  if (d == NULL)
    return false;
  bool ok = true;
  struct dirent *e;
  while (ok && (e = readdir(d)) != NULL) {
    char *end;
    long n = strtol(e->d_name, &end, 10);
    /* Mirrors and their inert stand-ins are mirrors.c's. */
    if (e->d_name[0] < '0' || e->d_name[0] > '9' || *end != '\0' ||
        n >= MIRROR_LOW)
      continue;
    /* Inert ones are left as they are. */
    if (kcmp_file(child->pid, s->self_pid, (int)n, s->inert_fd) == 0)
      continue;
    if (child->lends.n >= SUP_MAX_LENDS) {
      ok = false;
      break;
    }
    child->lends.at[child->lends.n++] =
        (struct lend){.tid = 0, .gfd = (int)n, .obj = NULL};
  }
  closedir(d);
  return ok;
}

void lends_clear(struct gproc *p) {
  while (p->lends.n != 0)
    drop(&p->lends, p->lends.n - 1);
}
