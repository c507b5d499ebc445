/* /proc/PID/stat; see procstat.h. */
#include "procstat.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

char *procstat_fields(pid_t pid, char *buf, size_t size) {
  char path[48];
  snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  ssize_t n = read(fd, buf, size - 1);
  close(fd);
  if (n <= 0)
    return NULL;
  buf[n] = '\0';
  char *p = strrchr(buf, ')');
  return p != NULL && p[1] == ' ' ? p + 1 : NULL;
}
