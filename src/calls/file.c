/*
 * Handlers for the file_* calls that act on names in a directory:
 * file_create, file_link, file_readlink, file_rename, file_symlink,
 * file_unlink.  Each resolves its paths beneath the directory capability
 * (path.h) and acts on the last component without following it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/errno_map.h"
#include "supervisor/guestmem.h"
#include "path.h"
#include "supervisor/sup.h"
#include "syscall_table.h"

cloudabi_errno_t handle_file_create(struct call *c) {
  /* Only directories can be created by name; files come from file_open. */
  if ((cloudabi_filetype_t)c->args[3] != CLOUDABI_FILETYPE_DIRECTORY)
    return CLOUDABI_EINVAL;
  if ((c->cap[0]->base & CLOUDABI_RIGHT_FILE_CREATE_DIRECTORY) == 0)
    return CLOUDABI_ENOTCAPABLE;
  struct gpath p;
  struct path_at at;
  cloudabi_errno_t e = path_copy(c, c->args[1], c->args[2], &p);
  if (e != 0 || (e = path_at(c->cap[0]->obj->fd, &p, &at)) != 0)
    return e;
  int r = mkdirat(at.dirfd, at.name, 0777);
  int err = errno;
  path_at_done(&at);
  return r == 0 ? 0 : errno_from_host(err);
}

/* linkat following the source's last symlink, which must stay beneath:
 * open what it names, then link that. */
static cloudabi_errno_t link_followed(int dirfd1, const struct gpath *p1,
                                      const struct path_at *to) {
  int fd;
  cloudabi_errno_t e = path_open(dirfd1, p1, O_PATH, 0, true, &fd);
  if (e != 0)
    return e;
  int r = linkat(fd, "", to->dirfd, to->name, AT_EMPTY_PATH);
  if (r != 0 && errno == ENOENT) {
    /* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH on older kernels; linking
     * our own descriptor's /proc link is the unprivileged way. */
    char link[64];
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    r = linkat(AT_FDCWD, link, to->dirfd, to->name, AT_SYMLINK_FOLLOW);
  }
  int err = errno;
  close(fd);
  return r == 0 ? 0 : errno_from_host(err);
}

cloudabi_errno_t handle_file_link(struct call *c) {
  bool follow;
  cloudabi_errno_t e = path_lookup_follow(c->args[0], &follow);
  if (e != 0)
    return e;
  struct gpath p1, p2;
  struct path_arg paths[2] = {{c->args[1], c->args[2], &p1, false},
                              {c->args[4], c->args[5], &p2, false}};
  if ((e = path_copy_all(c, paths, 2, NULL, 0)) != 0)
    return e;
  int dirfd1 = c->cap[0]->obj->fd;
  struct path_at from, to;
  if ((e = path_at(c->cap[3]->obj->fd, &p2, &to)) != 0)
    return e;
  if (follow) {
    e = link_followed(dirfd1, &p1, &to);
    path_at_done(&to);
    return e;
  }
  if ((e = path_at(dirfd1, &p1, &from)) != 0) {
    path_at_done(&to);
    return e;
  }
  int r = linkat(from.dirfd, from.name, to.dirfd, to.name, 0);
  int err = errno;
  path_at_done(&from);
  path_at_done(&to);
  return r == 0 ? 0 : errno_from_host(err);
}

cloudabi_errno_t handle_file_rename(struct call *c) {
  struct gpath p1, p2;
  struct path_arg paths[2] = {{c->args[1], c->args[2], &p1, false},
                              {c->args[4], c->args[5], &p2, false}};
  cloudabi_errno_t e = path_copy_all(c, paths, 2, NULL, 0);
  if (e != 0)
    return e;
  struct path_at from, to;
  if ((e = path_at(c->cap[0]->obj->fd, &p1, &from)) != 0)
    return e;
  if ((e = path_at(c->cap[3]->obj->fd, &p2, &to)) != 0) {
    path_at_done(&from);
    return e;
  }
  int r = renameat(from.dirfd, from.name, to.dirfd, to.name);
  int err = errno;
  path_at_done(&from);
  path_at_done(&to);
  if (r == 0)
    return 0;
  /* Linux says EBUSY for "." and ".."; FreeBSD, and so CloudABI programs,
   * EINVAL. */
  return err == EBUSY ? CLOUDABI_EINVAL : errno_from_host(err);
}

cloudabi_errno_t handle_file_symlink(struct call *c) {
  struct gpath target, p;
  /* The contents may be anything, even absolute: a symlink is only ever
   * followed beneath a directory capability. */
  struct path_arg paths[2] = {{c->args[0], c->args[1], &target, true},
                              {c->args[3], c->args[4], &p, false}};
  cloudabi_errno_t e = path_copy_all(c, paths, 2, NULL, 0);
  if (e != 0)
    return e;
  struct path_at at;
  if ((e = path_at(c->cap[2]->obj->fd, &p, &at)) != 0)
    return e;
  int r = symlinkat(target.str, at.dirfd, at.name);
  int err = errno;
  path_at_done(&at);
  return r == 0 ? 0 : errno_from_host(err);
}

/*
 * "name/" where name is a symlink: FreeBSD follows the link, so unlink
 * names the directory it points to (EPERM, as for any directory) and
 * UNLINK_REMOVEDIR removes that directory.  Linux says ENOTDIR for both.
 * The link is expanded here, one hop at a time and beneath dirfd (path_at
 * checks every path with a trailing slash), until the name is not a link.
 */
static cloudabi_errno_t unlink_slashed(int dirfd, struct gpath *p,
                                       bool rmdir) {
  for (int hops = 0; hops < 32; hops++) {
    struct path_at at;
    cloudabi_errno_t e = path_at(dirfd, p, &at);
    if (e != 0)
      return e;
    char name[NAME_MAX + 1];
    size_t n = strcspn(at.name, "/");
    if (n > NAME_MAX) {
      path_at_done(&at);
      return CLOUDABI_ENAMETOOLONG;
    }
    memcpy(name, at.name, n);
    name[n] = '\0';
    struct stat st;
    if (fstatat(at.dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
      e = errno_from_host(errno);
    } else if (!S_ISLNK(st.st_mode)) {
      if (!S_ISDIR(st.st_mode))
        e = CLOUDABI_ENOTDIR;
      else if (!rmdir)
        e = CLOUDABI_EPERM;
      else if (unlinkat(at.dirfd, name, AT_REMOVEDIR) != 0)
        e = errno_from_host(errno);
    } else {
      char target[PATH_MAX];
      ssize_t len = readlinkat(at.dirfd, name, target, sizeof(target));
      size_t prefix = (size_t)(at.name - p->str);
      path_at_done(&at);
      if (len < 0)
        return errno_from_host(errno);
      if (len == 0)
        return CLOUDABI_ENOENT;
      if (target[0] == '/')
        return CLOUDABI_ENOTCAPABLE;
      if (prefix + (size_t)len + 1 >= sizeof(p->str))
        return CLOUDABI_ENAMETOOLONG;
      /* The link's directory, its target, and the slash that follows. */
      memcpy(p->str + prefix, target, (size_t)len);
      p->len = prefix + (size_t)len + 1;
      p->str[p->len - 1] = '/';
      p->str[p->len] = '\0';
      continue;
    }
    path_at_done(&at);
    return e;
  }
  return CLOUDABI_ELOOP;
}

cloudabi_errno_t handle_file_unlink(struct call *c) {
  cloudabi_ulflags_t flags = (cloudabi_ulflags_t)c->args[3];
  if ((flags & ~CLOUDABI_UNLINK_REMOVEDIR) != 0)
    return CLOUDABI_EINVAL;
  bool rmdir = (flags & CLOUDABI_UNLINK_REMOVEDIR) != 0;
  struct gpath p;
  struct path_at at;
  cloudabi_errno_t e = path_copy(c, c->args[1], c->args[2], &p);
  if (e != 0)
    return e;
  if (p.str[p.len - 1] == '/')
    return unlink_slashed(c->cap[0]->obj->fd, &p, rmdir);
  if ((e = path_at(c->cap[0]->obj->fd, &p, &at)) != 0)
    return e;
  int r = unlinkat(at.dirfd, at.name, rmdir ? AT_REMOVEDIR : 0);
  int err = errno;
  path_at_done(&at);
  if (r == 0)
    return 0;
  /* Unlinking a directory: Linux says EISDIR, POSIX and FreeBSD EPERM. */
  if (!rmdir && err == EISDIR)
    return CLOUDABI_EPERM;
  return errno_from_host(err);
}

cloudabi_errno_t handle_file_readlink(struct call *c) {
  int dirfd = c->cap[0]->obj->fd;
  struct gpath p;
  cloudabi_errno_t e = path_copy(c, c->args[1], c->args[2], &p);
  if (e != 0)
    return e;
  /* A symlink's contents are shorter than PATH_MAX on Linux; the guest
   * gets at most buf_len bytes of them, as readlink() truncates. */
  char buf[PATH_MAX];
  ssize_t n;
  if (path_is_entry(&p)) {
    n = readlinkat(dirfd, p.str, buf, sizeof(buf));
    if (n < 0)
      return errno_from_host(errno);
  } else {
    int fd;
    if ((e = path_open(dirfd, &p, O_PATH, 0, false, &fd)) != 0)
      return e;
    n = readlinkat(fd, "", buf, sizeof(buf));
    int err = errno;
    close(fd);
    /* With an empty path Linux says ENOENT for what is not a symlink. */
    if (n < 0)
      return err == ENOENT ? CLOUDABI_EINVAL : errno_from_host(err);
  }
  if ((uint64_t)n > c->args[4])
    n = (ssize_t)c->args[4];
  if ((e = gmem_write(c, c->args[3], buf, (size_t)n)) != 0)
    return e;
  c->result = (uint64_t)n;
  return 0;
}
