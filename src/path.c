/* Guest paths, copied once and resolved beneath a directory; see path.h. */
#include "path.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "errno_map.h"
#include "guestmem.h"

#define RESOLVE_CAPABILITY (RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)

static cloudabi_errno_t copy(struct call *c, uint64_t addr, uint64_t len,
                             struct gpath *p) {
  if (len >= sizeof(p->str))
    return CLOUDABI_ENAMETOOLONG;
  if (len == 0)
    return CLOUDABI_ENOENT;
  cloudabi_errno_t e = gmem_read(c, addr, p->str, (size_t)len);
  if (e != 0)
    return e;
  /* From here on only this copy is used, whatever the guest does to its
   * buffer.  A NUL would end the path early for the kernel: refuse it. */
  if (memchr(p->str, '\0', (size_t)len) != NULL)
    return CLOUDABI_EINVAL;
  p->str[len] = '\0';
  p->len = (size_t)len;
  return 0;
}

cloudabi_errno_t path_copy(struct call *c, uint64_t addr, uint64_t len,
                           struct gpath *p) {
  cloudabi_errno_t e = copy(c, addr, len, p);
  if (e != 0)
    return e;
  /* There is no root to be relative to: only the directory capability. */
  return p->str[0] == '/' ? CLOUDABI_ENOTCAPABLE : 0;
}

cloudabi_errno_t path_copy_contents(struct call *c, uint64_t addr,
                                    uint64_t len, struct gpath *p) {
  return copy(c, addr, len, p);
}

static long openat2(int dirfd, const char *path, struct open_how *how) {
  return syscall(SYS_openat2, dirfd, path, how, sizeof(*how));
}

/*
 * openat2 answers ELOOP both for a symlink loop and for a magic link that
 * RESOLVE_NO_MAGICLINKS refused.  The second is an escape attempt.  Ask
 * again with RESOLVE_BENEATH alone and O_PATH (which opens nothing, so it
 * has no side effects): a magic link then fails with EXDEV instead.
 */
static bool through_magic_link(int dirfd, const char *path, int flags) {
  struct open_how how = {
      .flags = O_PATH | O_CLOEXEC | (flags & (O_NOFOLLOW | O_DIRECTORY)),
      .resolve = RESOLVE_BENEATH,
  };
  long fd = openat2(dirfd, path, &how);
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
      .mode = (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE
                  ? mode
                  : 0,
      .resolve = RESOLVE_CAPABILITY,
  };
  for (int tries = 0;; tries++) {
    long r = openat2(dirfd, p->str, &how);
    if (r >= 0) {
      *fd = (int)r;
      return 0;
    }
    int err = errno;
    /* A rename elsewhere while ".." was resolved: the kernel asks us to
     * retry rather than risk a wrong answer. */
    if ((err == EAGAIN || err == EINTR) && tries < 16)
      continue;
    if (err == EXDEV)
      return CLOUDABI_ENOTCAPABLE;
    if (err == ELOOP && through_magic_link(dirfd, p->str, (int)how.flags))
      return CLOUDABI_ENOTCAPABLE;
    return errno_from_host(err);
  }
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
    int fd;
    cloudabi_errno_t e = path_open(dirfd, p, O_PATH, 0, true, &fd);
    if (e == 0)
      close(fd);
    else if (e == CLOUDABI_ENOTCAPABLE)
      return e;
    /* Other failures (ENOENT for a name to be created) are the call's. */
  }
  if (start == 0)
    return 0;
  /* Open the parent, "a/b/" for "a/b/c": a temporary NUL after its last
   * slash, so the kernel sees "a/b/" and the name stays in place. */
  char saved = p->str[start];
  p->str[start] = '\0';
  struct gpath *parent = p; /* same buffer, shorter string */
  size_t full = p->len;
  parent->len = start;
  int fd;
  cloudabi_errno_t e =
      path_open(dirfd, parent, O_PATH | O_DIRECTORY, 0, true, &fd);
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
  long fd = openat2(AT_FDCWD, ".", &how);
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
