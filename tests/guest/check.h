/*
 * Helpers for table-driven guest tests: a check that names the table row
 * and goes on (so one run shows every failure), and shorthands for the
 * calls that set tests up.
 */
#ifndef GUEST_CHECK_H
#define GUEST_CHECK_H

#include "rt.h"

#define R(x) CLOUDABI_RIGHT_##x
/* Never mapped: the first page. */
#define BAD_PTR ((void *)0x10)
/* A handler's answer that is no errno: "succeeded, but wrongly". */
#define WRONG_RESULT ((cloudabi_errno_t)0x7fff)

static unsigned check_failed;

/* Records one expectation about row/what. */
static inline void check(const char *row, const char *what,
                         cloudabi_errno_t got, cloudabi_errno_t want) {
  if (got == want) {
    rt_checks_passed++;
    return;
  }
  check_failed++;
  rt_printf(rt_log_fd, "FAIL %s: %s: got errno %u, want %u\n", row, what, got,
            want);
}

/* Prints "NAME: N checks passed" and returns, or exits 1 after failures. */
static inline void check_done(const char *name) {
  if (check_failed != 0) {
    rt_printf(rt_log_fd, "%s: %u checks failed\n", name, check_failed);
    rt_exit(1);
  }
  rt_printf(rt_log_fd, "%s: %u checks passed\n", name, rt_checks_passed);
}

/* Waits for the child process pd to end and closes pd: its exit code, or
 * -1 if a signal ended it. */
static inline int wait_child(cloudabi_fd_t pd) {
  cloudabi_subscription_t s = {.userdata = 1,
                               .type = CLOUDABI_EVENTTYPE_PROC_TERMINATE,
                               .proc_terminate = {pd}};
  cloudabi_event_t ev;
  size_t n;
  RT_CHECK(cloudabi_sys_poll(&s, &ev, 1, &n) == 0 && n == 1);
  RT_CHECK(cloudabi_sys_fd_close(pd) == 0);
  return ev.proc_terminate.signal != 0 ? -1 : (int)ev.proc_terminate.exitcode;
}

static inline cloudabi_lookup_t at(cloudabi_fd_t fd, bool follow) {
  cloudabi_lookup_t l = {fd, follow ? CLOUDABI_LOOKUP_SYMLINK_FOLLOW : 0};
  return l;
}

/* file_open with the given oflags, rights and fdflags. */
static inline cloudabi_errno_t
open_file(cloudabi_fd_t dir, const char *path, cloudabi_oflags_t oflags,
          cloudabi_rights_t base, cloudabi_rights_t inheriting,
          cloudabi_fdflags_t fdflags, cloudabi_fd_t *fd) {
  cloudabi_fdstat_t fds = {.fs_flags = fdflags,
                           .fs_rights_base = base,
                           .fs_rights_inheriting = inheriting};
  return cloudabi_sys_file_open(at(dir, false), path, strlen(path), oflags,
                                &fds, fd);
}

/* A duplicate of fd with exactly these rights (which must be fewer). */
static inline cloudabi_fd_t narrowed(cloudabi_fd_t fd, cloudabi_rights_t base,
                                     cloudabi_rights_t inheriting) {
  cloudabi_fd_t d;
  RT_CHECK(cloudabi_sys_fd_dup(fd, &d) == 0);
  cloudabi_fdstat_t st = {.fs_rights_base = base,
                          .fs_rights_inheriting = inheriting};
  RT_CHECK(cloudabi_sys_fd_stat_put(d, &st, CLOUDABI_FDSTAT_RIGHTS) == 0);
  return d;
}

static inline cloudabi_fdstat_t fdstat(cloudabi_fd_t fd) {
  cloudabi_fdstat_t st;
  RT_CHECK(cloudabi_sys_fd_stat_get(fd, &st) == 0);
  return st;
}

/* Writes all of s to a new (or truncated) file path beneath dir. */
static inline void put_file(cloudabi_fd_t dir, const char *path,
                            const char *s) {
  cloudabi_fd_t fd;
  RT_CHECK(open_file(dir, path, CLOUDABI_O_CREAT | CLOUDABI_O_TRUNC,
                     R(FD_WRITE), 0, 0, &fd) == 0);
  RT_CHECK(rt_write_all(fd, s, strlen(s)) == 0);
  RT_CHECK(cloudabi_sys_fd_close(fd) == 0);
}

static inline cloudabi_errno_t unlink_path(cloudabi_fd_t dir, const char *path,
                                           cloudabi_ulflags_t flags) {
  return cloudabi_sys_file_unlink(dir, path, strlen(path), flags);
}

static inline cloudabi_errno_t stat_path(cloudabi_fd_t dir, const char *path,
                                         bool follow, cloudabi_filestat_t *st) {
  return cloudabi_sys_file_stat_get(at(dir, follow), path, strlen(path), st);
}

#endif
