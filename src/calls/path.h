/*
 * Guest paths: copied exactly once into supervisor memory, then resolved
 * beneath a directory capability, never above it.
 *
 * A CloudABI path is a pointer and a length, not a C string.  The guest can
 * rewrite its buffer while the supervisor works (another thread), so the
 * bytes are read once into a struct gpath and only that copy is used.
 *
 * Resolution is the kernel's: openat2() with RESOLVE_BENEATH (".." above
 * the directory and absolute symlinks fail) and RESOLVE_NO_MAGICLINKS
 * (/proc/<pid>/fd/N and friends never resolve).  Intermediate symlinks are
 * followed while they stay beneath; the last component is followed only
 * when asked (LOOKUP_SYMLINK_FOLLOW).  Escapes answer ENOTCAPABLE, as
 * upstream does.
 */
#ifndef PATH_H
#define PATH_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cloudabi_types.h"

struct call;

struct gpath {
  size_t len;         /* bytes, without the NUL we add */
  char str[PATH_MAX]; /* NUL-terminated copy */
};

/*
 * Copies a path argument: ENAMETOOLONG beyond PATH_MAX - 1 bytes, ENOENT
 * when empty, EINVAL for an embedded NUL (never a silent truncation),
 * ENOTCAPABLE for an absolute path, EFAULT for a bad buffer.
 */
cloudabi_errno_t path_copy(struct call *c, uint64_t addr, uint64_t len,
                           struct gpath *p);

/*
 * The general form, for calls with several guest inputs: each path (a
 * `contents` one is a symlink's contents, which may be absolute) and each
 * other range is read in one go, so that a call costs one read of guest
 * memory and one check of the notification, not one per argument.
 */
struct path_arg {
  uint64_t addr, len;
  struct gpath *p;
  bool contents;
};
struct guest_range {
  uint64_t addr;
  void *buf;
  size_t len;
};
cloudabi_errno_t path_copy_all(struct call *c, const struct path_arg *paths,
                               size_t npaths, const struct guest_range *also,
                               size_t nalso);

/*
 * Opens p beneath dirfd with open(2) flags (O_CLOEXEC is added, and
 * O_NOFOLLOW unless follow).  On success *fd is a new descriptor.  Escapes
 * (EXDEV from the kernel, magic links) become ENOTCAPABLE.
 */
cloudabi_errno_t path_open(int dirfd, const struct gpath *p, int flags,
                           mode_t mode, bool follow, int *fd);

/* ENOTCAPABLE if p, followed to the end (a trailing slash follows a
 * symlink), leads out of dirfd; 0 otherwise, whether or not it exists. */
cloudabi_errno_t path_check_beneath(int dirfd, const struct gpath *p);

/* True for a path that names an entry of the directory itself: one
 * component, not "..", no trailing slash.  Such a path can be given to an
 * *at() call with AT_SYMLINK_NOFOLLOW semantics as it is. */
bool path_is_entry(const struct gpath *p);

/*
 * For calls that act on a name in a directory (create, link, rename,
 * symlink, unlink): the directory that holds the last component, opened
 * beneath dirfd (or dirfd itself for a one-component path), and that
 * component.  The component keeps any trailing slashes, which the kernel
 * interprets ("dir/" must be a directory).  A last component of "." or
 * "..", or one with trailing slashes (which would follow a symlink), is
 * accepted only if the whole path stays beneath dirfd.
 */
struct path_at {
  int dirfd;        /* where to act */
  int owned;        /* a descriptor to close afterwards, or -1 */
  const char *name; /* points into the gpath */
};
cloudabi_errno_t path_at(int dirfd, struct gpath *p, struct path_at *out);
void path_at_done(struct path_at *a);

/* The flags half of a lookup argument (fd in bits 0..31, flags above):
 * whether to follow a final symlink; EINVAL for unknown flags. */
cloudabi_errno_t path_lookup_follow(uint64_t lookup, bool *follow);

/*
 * The resolver for paths that cross a mount point (path_walk.c): one
 * component at a time beneath dirfd, refusing (ENOTCAPABLE) every file
 * system host/pseudofs.h names, as it is entered.  path_open calls it.
 */
cloudabi_errno_t path_walk(int dirfd, const char *path, int flags, mode_t mode,
                           bool follow, int *fd);

/* Is openat2() there?  0, or -1 with a message in why (Linux < 5.6). */
int path_check_kernel(char *why, size_t why_size);

#endif
