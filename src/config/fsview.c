/* A file-system view beneath a root and mounts; see fsview.h. */
#include "fsview.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

void fsview_init(struct fsview *v) {
  memset(v, 0, sizeof(*v));
}

void fsview_free(struct fsview *v) {
  for (size_t i = 0; i < v->nmounts; i++) {
    free(v->mounts[i].dest);
    close(v->mounts[i].fd);
  }
  free(v->mounts);
  free(v->cwd);
  fsview_init(v);
}

char *fsview_normalise(const char *cwd, const char *path) {
  size_t lc = path[0] == '/' || cwd == NULL ? 0 : strlen(cwd);
  size_t lp = strlen(path);
  /* "/" + cwd + "/" + path fits; the result only gets shorter. */
  char *in = malloc(lc + lp + 3), *out = malloc(lc + lp + 3);
  if (in == NULL || out == NULL) {
    free(in);
    free(out);
    return NULL;
  }
  snprintf(in, lc + lp + 3, "%s/%s", lc > 0 ? cwd : "", path);
  size_t n = 0;
  for (char *p = in; *p != '\0';) {
    while (*p == '/')
      p++;
    char *end = p + strcspn(p, "/");
    size_t len = (size_t)(end - p);
    if (len == 0 || (len == 1 && p[0] == '.')) {
      /* nothing */
    } else if (len == 2 && p[0] == '.' && p[1] == '.') {
      /* Back one component; at the root, ".." is the root (as the
       * kernel does at "/"). */
      while (n > 0 && out[n - 1] != '/')
        n--;
      if (n > 0)
        n--;
    } else {
      out[n++] = '/';
      memcpy(out + n, p, len);
      n += len;
    }
    p = end;
  }
  if (n == 0)
    out[n++] = '/';
  out[n] = '\0';
  free(in);
  return out;
}

int fsview_set_cwd(struct fsview *v, const char *cwd) {
  char *c = fsview_normalise(NULL, cwd);
  if (c == NULL)
    return -1;
  free(v->cwd);
  v->cwd = c;
  return 0;
}

int fsview_add(struct fsview *v, const char *dest, const char *src, bool ro,
               char *why, size_t why_size) {
  char *d = fsview_normalise(NULL, dest);
  struct fsview_mount *m =
      realloc(v->mounts, (v->nmounts + 1) * sizeof(*v->mounts));
  if (d == NULL || m == NULL) {
    free(d);
    if (m != NULL)
      v->mounts = m;
    snprintf(why, why_size, "out of memory");
    errno = ENOMEM;
    return -1;
  }
  v->mounts = m;
  /* O_PATH: the source is only a place to resolve beneath (or, for a
   * file, to reopen). */
  int fd = open(src, O_PATH | O_CLOEXEC);
  struct stat st;
  if (fd >= 0 && fstat(fd, &st) != 0) {
    close(fd);
    fd = -1;
  }
  if (fd >= 0 && strcmp(d, "/") == 0 && !S_ISDIR(st.st_mode)) {
    close(fd);
    fd = -1;
    errno = ENOTDIR;
  }
  if (fd < 0) {
    int err = errno;
    snprintf(why, why_size, "%s: %s", src, strerror(err));
    free(d);
    errno = err;
    return -1;
  }
  m[v->nmounts++] = (struct fsview_mount){d, fd, !S_ISDIR(st.st_mode), ro};
  return 0;
}

/* The mount whose destination is the longest prefix of path (normalised);
 * *rest is what follows it, "." for the destination itself. */
static const struct fsview_mount *serving(const struct fsview *v,
                                          const char *path,
                                          const char **rest) {
  const struct fsview_mount *best = NULL;
  size_t best_len = 0;
  for (size_t i = 0; i < v->nmounts; i++) {
    const char *d = v->mounts[i].dest;
    size_t len = strcmp(d, "/") == 0 ? 0 : strlen(d);
    if (strncmp(path, d, len) != 0 || (path[len] != '/' && path[len] != '\0'))
      continue;
    /* Later mounts hide earlier ones at the same place, as mount(8). */
    if (best == NULL || len >= best_len) {
      best = &v->mounts[i];
      best_len = len;
    }
  }
  if (best != NULL) {
    const char *r = path + best_len;
    while (*r == '/')
      r++;
    *rest = *r == '\0' ? "." : r;
  }
  return best;
}

int fsview_open(const struct fsview *v, const char *path, int flags,
                bool follow, bool *ro) {
  char *norm = fsview_normalise(v->cwd != NULL ? v->cwd : "/", path);
  if (norm == NULL) {
    errno = ENOMEM;
    return -1;
  }
  const char *rest = ".";
  const struct fsview_mount *m = serving(v, norm, &rest);
  if (m == NULL) {
    free(norm);
    errno = ENOENT;
    return -1;
  }
  *ro = m->ro;
  if (m->ro && ((flags & O_ACCMODE) != O_RDONLY || (flags & O_CREAT) != 0)) {
    free(norm);
    errno = EROFS;
    return -1;
  }
  /*
   * RESOLVE_IN_ROOT: ".." and absolute symlinks stop at the mount's
   * source, as at "/" (the lexical normalisation above already kept ".."
   * inside the view; this is for symlinks met on the way, with follow).
   */
  struct open_how how = {
      .flags = (uint64_t)(flags | O_CLOEXEC),
      .mode = (flags & O_CREAT) != 0 ? 0666 : 0,
      .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS |
                 (follow ? 0 : RESOLVE_NO_SYMLINKS),
  };
  long fd = -1;
  char self[64];
  if (m->file) {
    /* A file mounted at dest: dest itself is the file, nothing is
     * beneath it.  Reopened through our own descriptor, which is the
     * file the runtime named, whatever its host path holds now. */
    if (strcmp(rest, ".") != 0) {
      free(norm);
      errno = ENOTDIR;
      return -1;
    }
    snprintf(self, sizeof(self), "/proc/self/fd/%d", m->fd);
    how.resolve = 0;
  }
  for (int tries = 0; tries < 16; tries++) {
    fd = m->file ? syscall(SYS_openat2, AT_FDCWD, self, &how, sizeof(how))
                 : syscall(SYS_openat2, m->fd, rest, &how, sizeof(how));
    if (fd >= 0 || (errno != EAGAIN && errno != EINTR))
      break;
  }
  int err = errno;
  free(norm);
  errno = err;
  return (int)fd;
}
