/* Guest paths, copied once and resolved beneath a directory; see path.h. */
#include "path.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "host/errno_map.h"
#include "supervisor/guestmem.h"

#define RESOLVE_CAPABILITY (RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)

/* At most two paths and two other ranges per call (file_open: a path
 * and an fdstat; file_link: two paths). */
#define MAX_PATHS 2
#define MAX_ALSO 2

cloudabi_errno_t path_copy_all(struct call *c, const struct path_arg *paths,
                               size_t npaths, const struct guest_range *also,
                               size_t nalso) {
  struct iovec local[MAX_PATHS + MAX_ALSO], remote[MAX_PATHS + MAX_ALSO];
  size_t n = 0, total = 0;
  if (npaths > MAX_PATHS || nalso > MAX_ALSO)
    return CLOUDABI_EINVAL;
  for (size_t i = 0; i < npaths; i++) {
    if (paths[i].len >= sizeof(paths[i].p->str))
      return CLOUDABI_ENAMETOOLONG;
    if (paths[i].len == 0)
      return CLOUDABI_ENOENT;
    local[n] = (struct iovec){paths[i].p->str, (size_t)paths[i].len};
    remote[n++] =
        (struct iovec){(void *)(uintptr_t)paths[i].addr, (size_t)paths[i].len};
    total += (size_t)paths[i].len;
  }
  for (size_t i = 0; i < nalso; i++) {
    local[n] = (struct iovec){also[i].buf, also[i].len};
    remote[n++] = (struct iovec){(void *)(uintptr_t)also[i].addr, also[i].len};
    total += also[i].len;
  }
  cloudabi_errno_t e = gmem_readv(c, local, n, remote, n, total);
  if (e != 0)
    return e;
  /* From here on only these copies are used, whatever the guest does to
   * its buffers. */
  for (size_t i = 0; i < npaths; i++) {
    struct gpath *p = paths[i].p;
    size_t len = (size_t)paths[i].len;
    /* A NUL would end the path early for the kernel: refuse it. */
    if (memchr(p->str, '\0', len) != NULL)
      return CLOUDABI_EINVAL;
    p->str[len] = '\0';
    p->len = len;
    /* There is no root to be relative to: only the directory capability.
     * A symlink's contents may be absolute: they are only ever followed
     * beneath a directory, where an absolute target fails. */
    if (!paths[i].contents && p->str[0] == '/')
      return CLOUDABI_ENOTCAPABLE;
  }
  return 0;
}

cloudabi_errno_t path_copy(struct call *c, uint64_t addr, uint64_t len,
                           struct gpath *p) {
  struct path_arg a = {addr, len, p, false};
  return path_copy_all(c, &a, 1, NULL, 0);
}

static long sys_openat2(int dirfd, const char *path, struct open_how *how) {
  return syscall(SYS_openat2, dirfd, path, how, sizeof(*how));
}

/*
 * openat2 answers ELOOP both for a symlink loop and for a magic link that
 * RESOLVE_NO_MAGICLINKS refused.  The second is an escape attempt.  Ask
 * again with RESOLVE_BENEATH alone and O_PATH (which opens nothing, so it
 * has no side effects): a magic link then fails with EXDEV instead.  (Were
 * a later kernel to let RESOLVE_BENEATH through magic links, the probe
 * would succeed and the answer stay ELOOP: still a refusal.)
 */
static bool through_magic_link(int dirfd, const char *path, int flags) {
  struct open_how how = {
      .flags = O_PATH | O_CLOEXEC | (flags & (O_NOFOLLOW | O_DIRECTORY)),
      .resolve = RESOLVE_BENEATH,
  };
  long fd = sys_openat2(dirfd, path, &how);
  if (fd >= 0) {
    close((int)fd);
    return false;
  }
  return errno == EXDEV;
}

cloudabi_errno_t path_open(int dirfd, const struct gpath *p, int flags,
                           mode_t mode, bool follow, int *fd) {
  struct open_how how = {
      .flags = (uint64_t)(flags | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW)),
      /* The kernel refuses a mode without O_CREAT or O_TMPFILE. */
      .mode =
          (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE ? mode : 0,
      .resolve = RESOLVE_CAPABILITY,
  };
  /* The kernel resolves every path that stays on the directory's own
   * mount; one that crosses a mount point (or tries to leave: EXDEV
   * either way) goes to the walk, which checks each file system it
   * enters (path_walk.c). */
  how.resolve |= RESOLVE_NO_XDEV;
  for (int tries = 0;; tries++) {
    long r = sys_openat2(dirfd, p->str, &how);
    if (r >= 0) {
      /* On the directory's own mount, so on its file system, which is
       * never one of the running system's: the config refuses such grants,
       * the walk such results, sock.c such directories from outside. */
      *fd = (int)r;
      return 0;
    }
    int err = errno;
    /* A rename elsewhere while ".." was resolved: the kernel asks us to
     * retry rather than risk a wrong answer. */
    if ((err == EAGAIN || err == EINTR) && tries < 16)
      continue;
    if (err == EXDEV)
      return path_walk(dirfd, p->str, (int)how.flags, mode, follow, fd);
    if (err == ELOOP && through_magic_link(dirfd, p->str, (int)how.flags))
      return CLOUDABI_ENOTCAPABLE;
    return errno_from_host(err);
  }
}

cloudabi_errno_t path_check_beneath(int dirfd, const struct gpath *p) {
  int fd;
  cloudabi_errno_t e = path_open(dirfd, p, O_PATH, 0, true, &fd);
  if (e == 0)
    close(fd);
  /* Other failures (ENOENT for a name to be created) are the caller's. */
  return e == CLOUDABI_ENOTCAPABLE ? e : 0;
}

bool path_is_entry(const struct gpath *p) {
  if (memchr(p->str, '/', p->len) != NULL)
    return false;
  return !(p->len == 2 && p->str[0] == '.' && p->str[1] == '.');
}

cloudabi_errno_t path_at(int dirfd, struct gpath *p, struct path_at *out) {
  out->dirfd = dirfd;
  out->owned = -1;
  out->name = p->str;
  /* The last component: [start, end), then maybe trailing slashes.  The
   * path is not empty and does not start with '/' (path_copy), so there is
   * at least one byte before them. */
  size_t end = p->len;
  while (end > 0 && p->str[end - 1] == '/')
    end--;
  size_t start = end;
  while (start > 0 && p->str[start - 1] != '/')
    start--;
  size_t n = end - start;
  const char *last = p->str + start;
  bool dots = (n == 1 && last[0] == '.') ||
              (n == 2 && last[0] == '.' && last[1] == '.');
  if (end == 0)
    return CLOUDABI_ENOTCAPABLE; /* only slashes: the root */
  if (dots || end < p->len) {
    /*
     * The kernel would look beyond the parent: ".." is the parent's
     * parent, and a trailing slash follows a symlink.  Whatever the
     * call does with it, the whole path must stay beneath dirfd.
     */
    cloudabi_errno_t e = path_check_beneath(dirfd, p);
    if (e != 0)
      return e;
  }
  if (start == 0)
    return 0;
  /* Open the parent, "a/b/" for "a/b/c": a temporary NUL after its last
   * slash, so the kernel sees "a/b/" and the name stays in place. */
  char saved = p->str[start];
  size_t full = p->len;
  p->str[start] = '\0';
  p->len = start;
  int fd;
  cloudabi_errno_t e = path_open(dirfd, p, O_PATH | O_DIRECTORY, 0, true, &fd);
  p->str[start] = saved;
  p->len = full;
  if (e != 0)
    return e;
  out->dirfd = out->owned = fd;
  out->name = p->str + start;
  return 0;
}

void path_at_done(struct path_at *a) {
  if (a->owned >= 0)
    close(a->owned);
  a->owned = -1;
}

cloudabi_errno_t path_lookup_follow(uint64_t lookup, bool *follow) {
  uint32_t flags = (uint32_t)(lookup >> 32);
  if ((flags & ~(uint32_t)CLOUDABI_LOOKUP_SYMLINK_FOLLOW) != 0)
    return CLOUDABI_EINVAL;
  *follow = (flags & CLOUDABI_LOOKUP_SYMLINK_FOLLOW) != 0;
  return 0;
}

int path_check_kernel(char *why, size_t why_size) {
  struct open_how how = {.flags = O_PATH | O_CLOEXEC,
                         .resolve = RESOLVE_CAPABILITY};
  long fd = sys_openat2(AT_FDCWD, ".", &how);
  if (fd >= 0) {
    close((int)fd);
    return 0;
  }
  if (errno != ENOSYS)
    return 0; /* it exists; "." may just be unreadable */
  snprintf(why, why_size,
           "this kernel has no openat2() (Linux 5.6 or later is needed to "
           "keep guest paths beneath their directories)");
  return -1;
}
