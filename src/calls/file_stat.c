/* Handlers for file_stat_fget, file_stat_fput, file_stat_get, file_stat_put. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/errno_map.h"
#include "host/filestat.h"
#include "supervisor/guestmem.h"
#include "path.h"
#include "supervisor/sup.h"
#include "file_limits.h"
#include "syscall_table.h"

#define R(name) CLOUDABI_RIGHT_##name

cloudabi_errno_t handle_file_stat_fget(struct call *c) {
  struct hostobj *obj = c->cap[0]->obj;
  struct stat st;
  /* A process descriptor has no host descriptor of its own: its pidfd. */
  int fd = obj->proc != NULL ? obj->proc->pidfd : obj->fd;
  if (fstat(fd, &st) != 0)
    return errno_from_host(errno);
  /* The descriptor's type, not st_mode's: shared memory is a regular file
   * to Linux, and stat cannot tell datagram sockets from streams. */
  cloudabi_filestat_t fs;
  filestat_from_host(&st, obj->type, &fs);
  return gmem_write(c, c->args[1], &fs, sizeof(fs));
}

cloudabi_errno_t handle_file_stat_fput(struct call *c) {
  struct capability *cap = c->cap[0];
  cloudabi_fsflags_t flags = (cloudabi_fsflags_t)c->args[2];
  cloudabi_filestat_t fs;
  cloudabi_errno_t e;
  if ((flags & CLOUDABI_FILESTAT_SIZE) != 0) {
    /* Truncation and times are separate operations, as in FreeBSD. */
    if (flags != CLOUDABI_FILESTAT_SIZE)
      return CLOUDABI_EINVAL;
    if ((cap->base & R(FILE_STAT_FPUT_SIZE)) == 0)
      return CLOUDABI_ENOTCAPABLE;
    if ((e = gmem_read(c, c->args[1], &fs, sizeof(fs))) != 0)
      return e;
    if (fs.st_size > (cloudabi_filesize_t)INT64_MAX)
      return CLOUDABI_EFBIG;
    struct file_growth g;
    if ((e = file_may_grow_to(c, cap->obj, fs.st_size, &g)) != 0)
      return e;
    int r = ftruncate(cap->obj->fd, (off_t)fs.st_size);
    int err = errno;
    file_grown(c, cap->obj, &g);
    return r == 0 ? 0 : errno_from_host(err);
  }
  if ((flags & FILESTAT_TIME_FLAGS) == 0 || (flags & ~FILESTAT_TIME_FLAGS) != 0)
    return CLOUDABI_EINVAL;
  if ((cap->base & R(FILE_STAT_FPUT_TIMES)) == 0)
    return CLOUDABI_ENOTCAPABLE;
  if ((e = gmem_read(c, c->args[1], &fs, sizeof(fs))) != 0)
    return e;
  struct timespec ts[2];
  if ((e = filestat_times(&fs, flags, ts)) != 0)
    return e;
  if (futimens(cap->obj->fd, ts) != 0)
    return errno_from_host(errno);
  return 0;
}

cloudabi_errno_t handle_file_stat_get(struct call *c) {
  int dirfd = c->cap[0]->obj->fd;
  bool follow;
  cloudabi_errno_t e = path_lookup_follow(c->args[0], &follow);
  if (e != 0)
    return e;
  struct gpath p;
  if ((e = path_copy(c, c->args[1], c->args[2], &p)) != 0)
    return e;
  struct stat st;
  /* An entry of the directory itself: one fstatat, which cannot leave it
   * as long as the entry is not followed. */
  bool done = false;
  if (path_is_entry(&p)) {
    if (fstatat(dirfd, p.str, &st, AT_SYMLINK_NOFOLLOW) != 0)
      return errno_from_host(errno);
    done = !follow || !S_ISLNK(st.st_mode);
  }
  if (!done) {
    int fd;
    if ((e = path_open(dirfd, &p, O_PATH, 0, follow, &fd)) != 0)
      return e;
    int r = fstat(fd, &st);
    int err = errno;
    close(fd);
    if (r != 0)
      return errno_from_host(err);
  }
  cloudabi_filestat_t fs;
  filestat_from_host(&st, CLOUDABI_FILETYPE_UNKNOWN, &fs);
  return gmem_write(c, c->args[3], &fs, sizeof(fs));
}

/* utimensat on what an O_PATH descriptor names. */
static int utimens_path_fd(int fd, const struct timespec ts[2]) {
  if (utimensat(fd, "", ts, AT_EMPTY_PATH) == 0)
    return 0;
  if (errno != EINVAL)
    return -1;
  /* Kernels before AT_EMPTY_PATH support in utimensat (5.8): through the
   * descriptor's /proc link, which is ours and names exactly that file. */
  char link[64];
  snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
  return utimensat(AT_FDCWD, link, ts, 0);
}

cloudabi_errno_t handle_file_stat_put(struct call *c) {
  int dirfd = c->cap[0]->obj->fd;
  bool follow;
  cloudabi_errno_t e = path_lookup_follow(c->args[0], &follow);
  if (e != 0)
    return e;
  cloudabi_filestat_t fs;
  struct timespec ts[2];
  /* Only times: sizes are set through a descriptor (file_stat_fput). */
  cloudabi_fsflags_t flags = (cloudabi_fsflags_t)c->args[4];
  if ((flags & ~FILESTAT_TIME_FLAGS) != 0)
    return CLOUDABI_EINVAL;
  struct gpath p;
  struct path_arg path = {c->args[1], c->args[2], &p, false};
  struct guest_range also = {c->args[3], &fs, sizeof(fs)};
  if ((e = path_copy_all(c, &path, 1, &also, 1)) != 0 ||
      (e = filestat_times(&fs, flags, ts)) != 0)
    return e;
  if (path_is_entry(&p) && !follow) {
    if (utimensat(dirfd, p.str, ts, AT_SYMLINK_NOFOLLOW) != 0)
      return errno_from_host(errno);
    return 0;
  }
  int fd;
  if ((e = path_open(dirfd, &p, O_PATH, 0, follow, &fd)) != 0)
    return e;
  int r = utimens_path_fd(fd, ts);
  int err = errno;
  close(fd);
  return r == 0 ? 0 : errno_from_host(err);
}
