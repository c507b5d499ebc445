/* A sealed copy of a program file; see prog_image.h. */
#include "prog_image.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

static int failed(int memfd, char *why, size_t size, const char *what) {
  int err = errno;
  snprintf(why, size, "%s: %s", what, strerror(err));
  if (memfd >= 0)
    close(memfd);
  errno = err;
  return -1;
}

/* The file's own name, so that crash reports name the program
 * ("proc+0x1f20"), not the copy. */
static void image_name(int fd, char *name, size_t size) {
  char link[64], path[4096];
  snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, path, sizeof(path) - 1);
  const char *base = "cloudabi-program";
  if (n > 0) {
    path[n] = '\0';
    char *slash = strrchr(path, '/');
    if (slash != NULL && slash[1] != '\0')
      base = slash + 1;
  }
  snprintf(name, size, "%s", base);
}

int prog_image_seal(int fd, char *why, size_t why_size) {
  struct stat st;
  if (fstat(fd, &st) != 0)
    return failed(-1, why, why_size, "cannot stat the file");
  if (!S_ISREG(st.st_mode)) {
    errno = S_ISDIR(st.st_mode) ? EISDIR : EACCES;
    return failed(-1, why, why_size, "not a regular file");
  }
  if ((uint64_t)st.st_size > PROG_IMAGE_MAX) {
    errno = EFBIG;
    return failed(-1, why, why_size, "too large");
  }
  char name[200]; /* memfd names are at most 249 bytes */
  image_name(fd, name, sizeof(name));
  int memfd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (memfd < 0)
    return failed(-1, why, why_size, "cannot make a copy");
  /* What the file holds now, from its start; it may shrink meanwhile,
   * which makes the copy shorter, never inconsistent with itself. */
  off_t off = 0;
  while (off < st.st_size) {
    ssize_t n = sendfile(memfd, fd, &off, (size_t)(st.st_size - off));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return failed(memfd, why, why_size, "cannot copy the file");
    if (n == 0)
      break;
  }
  if (fcntl(memfd, F_ADD_SEALS,
            F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) != 0)
    return failed(memfd, why, why_size, "cannot seal the copy");
  return memfd;
}
