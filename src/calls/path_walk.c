/*
 * The slow resolver, for a path that crosses a mount point: one component
 * at a time, each checked with fstatfs, so that no lookup ever enters a
 * file system that reflects the running system (host/pseudofs.h).  The
 * kernel's resolver (path.c) handles every path that stays on one mount
 * (RESOLVE_NO_XDEV); only the others come here.
 *
 * Beneath-ness is kept as upstream's emulator kept it: a stack of the
 * directories walked into; ".." pops one, and popping the capability
 * itself is ENOTCAPABLE.  A descriptor, not a name, stands for each
 * directory, so a concurrent rename cannot move the walk outside.
 */
#include "path.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "host/errno_map.h"
#include "host/pseudofs.h"

/* As the kernel: at most 40 symlinks per lookup. */
#define WALK_MAX_LINKS 40
/* Directories held open at once; deeper paths across a mount point are
 * ENAMETOOLONG rather than a supervisor full of descriptors. */
#define WALK_MAX_DEPTH 256
/* The path with symlinks spliced in. */
#define WALK_BUF (2 * PATH_MAX)

struct walk {
  int base; /* the capability's directory, not owned */
  int stack[WALK_MAX_DEPTH];
  size_t depth;
  char buf[WALK_BUF];
  size_t links;
};

static int walk_cur(const struct walk *w) {
  return w->depth > 0 ? w->stack[w->depth - 1] : w->base;
}

/* One name in the current directory, no symlink followed, no "..". */
static int open_component(int dirfd, const char *name, uint64_t flags,
                          mode_t mode) {
  struct open_how how = {
      .flags = flags | O_CLOEXEC | O_NOFOLLOW,
      .mode =
          (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE ? mode : 0,
      .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
  };
  for (int tries = 0;; tries++) {
    long r = syscall(SYS_openat2, dirfd, name, &how, sizeof(how));
    if (r >= 0 || (errno != EAGAIN && errno != EINTR) || tries >= 16)
      return (int)r;
  }
}

/*
 * Replaces the component just read (the symlink at fd or dirfd/name) by
 * its contents: buf becomes target + "/" + rest.  ENOTCAPABLE for an
 * absolute target.
 */
static cloudabi_errno_t splice_link(struct walk *w, int fd, int dirfd,
                                    const char *name, const char *rest) {
  if (++w->links > WALK_MAX_LINKS)
    return CLOUDABI_ELOOP;
  char target[PATH_MAX];
  ssize_t n = fd >= 0 ? readlinkat(fd, "", target, sizeof(target))
                      : readlinkat(dirfd, name, target, sizeof(target));
  if (n < 0)
    return errno_from_host(errno);
  if ((size_t)n >= sizeof(target))
    return CLOUDABI_ENAMETOOLONG;
  if (n == 0)
    return CLOUDABI_ENOENT;
  if (target[0] == '/')
    return CLOUDABI_ENOTCAPABLE;
  size_t rlen = strlen(rest);
  if ((size_t)n + 1 + rlen + 1 > sizeof(w->buf))
    return CLOUDABI_ENAMETOOLONG;
  /* rest points into buf: move it first, then put the target before. */
  memmove(w->buf + n + 1, rest, rlen + 1);
  memcpy(w->buf, target, (size_t)n);
  w->buf[n] = rlen > 0 ? '/' : '\0';
  return 0;
}

/* Refuses a descriptor on a system file system, closing it. */
static cloudabi_errno_t check_fs(int fd) {
  const char *fs;
  if (pseudofs_fd(fd, false, &fs)) {
    close(fd);
    return CLOUDABI_ENOTCAPABLE;
  }
  return 0;
}

/*
 * The last component, opened as asked.  *spliced when it was a symlink to
 * follow, which is now in buf: walk on from the start of buf.
 */
static cloudabi_errno_t walk_last(struct walk *w, const char *name,
                                  const char *next, int flags, mode_t mode,
                                  bool follow, bool *spliced, int *out) {
  *spliced = false;
  /* A symlink to follow is followed by hand.  (Should it appear only
   * after this look, the open below refuses it: O_NOFOLLOW.) */
  struct stat st;
  if (follow && fstatat(walk_cur(w), name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
      S_ISLNK(st.st_mode)) {
    *spliced = true;
    return splice_link(w, -1, walk_cur(w), name, next);
  }
  int fd = open_component(walk_cur(w), name, (uint64_t)flags, mode);
  if (fd < 0)
    return errno == EXDEV ? CLOUDABI_ENOTCAPABLE : errno_from_host(errno);
  cloudabi_errno_t e = check_fs(fd);
  if (e == 0)
    *out = fd;
  return e;
}

/* A directory (or a symlink, spliced) on the way: pushed on the stack. */
static cloudabi_errno_t walk_dir(struct walk *w, const char *name,
                                 const char *next, bool *spliced) {
  *spliced = false;
  int fd = open_component(walk_cur(w), name, O_PATH, 0);
  if (fd < 0)
    return errno == EXDEV ? CLOUDABI_ENOTCAPABLE : errno_from_host(errno);
  cloudabi_errno_t e = check_fs(fd);
  if (e != 0)
    return e;
  struct stat st;
  if (fstat(fd, &st) != 0)
    e = errno_from_host(errno);
  else if (S_ISLNK(st.st_mode))
    *spliced = true, e = splice_link(w, fd, -1, NULL, next);
  else if (!S_ISDIR(st.st_mode))
    e = CLOUDABI_ENOTDIR;
  else if (w->depth == WALK_MAX_DEPTH)
    e = CLOUDABI_ENAMETOOLONG;
  else {
    w->stack[w->depth++] = fd;
    return 0;
  }
  close(fd);
  return e;
}

static cloudabi_errno_t walk(struct walk *w, int flags, mode_t mode,
                             bool follow, int *out) {
  char *rest = w->buf;
  for (;;) {
    while (*rest == '/')
      rest++;
    /* The next component, NUL-terminated in place; a path that ends in
     * a slash ends with "." (a directory, as the kernel requires). */
    size_t len = strcspn(rest, "/");
    bool last = rest[len] == '\0';
    char *next = last ? rest + len : rest + len + 1;
    rest[len] = '\0';
    const char *name = len > 0 ? rest : ".";
    if (strcmp(name, "..") == 0) {
      if (w->depth == 0)
        return CLOUDABI_ENOTCAPABLE; /* the capability cannot be popped */
      close(w->stack[--w->depth]);
      name = ".";
    }
    bool spliced;
    cloudabi_errno_t e;
    if (last)
      e = walk_last(w, name, next, flags, mode, follow, &spliced, out);
    else if (strcmp(name, ".") == 0)
      e = 0, spliced = false; /* already there */
    else
      e = walk_dir(w, name, next, &spliced);
    if (e != 0 || (last && !spliced))
      return e;
    rest = spliced ? w->buf : next;
  }
}

cloudabi_errno_t path_walk(int dirfd, const char *path, int flags, mode_t mode,
                           bool follow, int *fd) {
  struct walk *w = malloc(sizeof(*w));
  if (w == NULL)
    return CLOUDABI_ENOMEM;
  w->base = dirfd;
  w->depth = 0;
  w->links = 0;
  size_t len = strlen(path);
  if (path[0] == '/') {
    free(w);
    return CLOUDABI_ENOTCAPABLE; /* no root but the capability */
  }
  if (len >= sizeof(w->buf)) {
    free(w);
    return CLOUDABI_ENAMETOOLONG;
  }
  memcpy(w->buf, path, len + 1);
  cloudabi_errno_t e = walk(w, flags & ~O_NOFOLLOW, mode, follow, fd);
  while (w->depth > 0)
    close(w->stack[--w->depth]);
  free(w);
  return e;
}
