/*
 * A file-system view: a root directory and mounts (destination inside the
 * view, source on the host), as an OCI bundle describes one.  Under a view
 * every config path is a path inside it: relative paths start at the
 * view's working directory, "/" is the root, and nothing outside the root
 * and the mounts' sources can be named (openat2 RESOLVE_IN_ROOT beneath
 * the directory that serves the path).  cloudabi-oci runs cloudabi-run
 * with one (--root, --cwd, --mount), so that a container's config can
 * name only its rootfs and its bundle's mounts, without privileges.
 */
#ifndef CONFIG_FSVIEW_H
#define CONFIG_FSVIEW_H

#include <stdbool.h>
#include <stddef.h>

struct fsview_mount {
  char *dest; /* normalised, absolute; "/" is the root itself */
  int fd;     /* the source (O_PATH), owned by the view */
  bool file;  /* the source is no directory: only dest itself names it */
  bool ro;    /* read-only: no write opens, read-only directory rights */
};

struct fsview {
  char *cwd; /* normalised, absolute */
  struct fsview_mount *mounts;
  size_t nmounts;
};

/* An empty view: no root yet (fsview_open fails with ENOENT). */
void fsview_init(struct fsview *v);
void fsview_free(struct fsview *v);

/*
 * Adds a directory: at "/" (the root) or at dest inside the view.  src is
 * a host path.  Returns 0, or -1 with why filled in (errno kept).
 */
int fsview_add(struct fsview *v, const char *dest, const char *src, bool ro,
               char *why, size_t why_size);
/* Sets the working directory (a path inside the view). */
int fsview_set_cwd(struct fsview *v, const char *cwd);

/*
 * Opens path (inside the view) with open flags, as openat2 would beneath
 * the mount that serves it: symlinks are followed only with follow, and
 * then resolved as if that mount's source were "/" (never magic links).
 * *ro says whether the mount is read-only (a write open is refused with
 * EROFS before anything is opened).  Returns the descriptor or -1 with
 * errno.
 */
int fsview_open(const struct fsview *v, const char *path, int flags,
                bool follow, bool *ro);

/* path made absolute (from cwd) with ".", ".." and repeated slashes
 * removed; ".." at the root stays at the root.  malloc'ed, or NULL. */
char *fsview_normalise(const char *cwd, const char *path);

#endif
