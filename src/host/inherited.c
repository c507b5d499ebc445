/* Descriptors inherited at start-up; see inherited.h. */
#include "inherited.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

int inherited_scan(struct inherited *out) {
  out->fds = NULL;
  out->n = 0;
  DIR *d = opendir("/proc/self/fd");
  if (d == NULL)
    return -1;
  size_t cap = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    char *end;
    long fd = strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0' || fd < 3 || fd == dirfd(d))
      continue;
    if (out->n == cap) {
      size_t ncap = cap == 0 ? 8 : cap * 2;
      int *p = realloc(out->fds, ncap * sizeof(*p));
      if (p == NULL) {
        closedir(d);
        free(out->fds);
        out->fds = NULL;
        out->n = 0;
        errno = ENOMEM;
        return -1;
      }
      out->fds = p;
      cap = ncap;
    }
    out->fds[out->n++] = (int)fd;
  }
  closedir(d);
  return 0;
}

void inherited_close(struct inherited *in) {
  for (size_t i = 0; i < in->n; i++)
    close(in->fds[i]);
  free(in->fds);
  in->fds = NULL;
  in->n = 0;
}
