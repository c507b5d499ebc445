/* Host file metadata as CloudABI's; see filestat.h. */
#include "filestat.h"

#include <dirent.h>
#include <stdbool.h>
#include <string.h>

cloudabi_filetype_t filetype_from_mode(mode_t mode) {
  switch (mode & S_IFMT) {
  case S_IFREG:
    return CLOUDABI_FILETYPE_REGULAR_FILE;
  case S_IFDIR:
    return CLOUDABI_FILETYPE_DIRECTORY;
  case S_IFLNK:
    return CLOUDABI_FILETYPE_SYMBOLIC_LINK;
  case S_IFCHR:
    return CLOUDABI_FILETYPE_CHARACTER_DEVICE;
  case S_IFBLK:
    return CLOUDABI_FILETYPE_BLOCK_DEVICE;
  case S_IFIFO:
  case S_IFSOCK:
    return CLOUDABI_FILETYPE_SOCKET_STREAM;
  default:
    return CLOUDABI_FILETYPE_UNKNOWN;
  }
}

cloudabi_filetype_t filetype_from_dtype(unsigned char d_type) {
  switch (d_type) {
  case DT_REG:
    return CLOUDABI_FILETYPE_REGULAR_FILE;
  case DT_DIR:
    return CLOUDABI_FILETYPE_DIRECTORY;
  case DT_LNK:
    return CLOUDABI_FILETYPE_SYMBOLIC_LINK;
  case DT_CHR:
    return CLOUDABI_FILETYPE_CHARACTER_DEVICE;
  case DT_BLK:
    return CLOUDABI_FILETYPE_BLOCK_DEVICE;
  case DT_FIFO:
  case DT_SOCK:
    return CLOUDABI_FILETYPE_SOCKET_STREAM;
  default:
    return CLOUDABI_FILETYPE_UNKNOWN;
  }
}

static cloudabi_timestamp_t ns(const struct timespec *ts) {
  /* Times before 1970 do not fit the unsigned timestamp: clamp to 0. */
  if (ts->tv_sec < 0)
    return 0;
  return (cloudabi_timestamp_t)ts->tv_sec * 1000000000u +
         (cloudabi_timestamp_t)ts->tv_nsec;
}

void filestat_from_host(const struct stat *st, cloudabi_filetype_t type,
                        cloudabi_filestat_t *out) {
  memset(out, 0, sizeof(*out));
  out->st_dev = (cloudabi_device_t)st->st_dev;
  out->st_ino = (cloudabi_inode_t)st->st_ino;
  out->st_filetype = type != CLOUDABI_FILETYPE_UNKNOWN
                         ? type
                         : filetype_from_mode(st->st_mode);
  out->st_nlink = st->st_nlink > UINT32_MAX
                      ? UINT32_MAX
                      : (cloudabi_linkcount_t)st->st_nlink;
  out->st_size = (cloudabi_filesize_t)st->st_size;
  out->st_atim = ns(&st->st_atim);
  out->st_mtim = ns(&st->st_mtim);
  out->st_ctim = ns(&st->st_ctim);
}

static struct timespec one_time(cloudabi_timestamp_t t, bool set, bool now) {
  if (now)
    return (struct timespec){0, UTIME_NOW};
  if (set)
    return (struct timespec){(time_t)(t / 1000000000u),
                             (long)(t % 1000000000u)};
  return (struct timespec){0, UTIME_OMIT};
}

cloudabi_errno_t filestat_times(const cloudabi_filestat_t *fs,
                                cloudabi_fsflags_t flags,
                                struct timespec ts[2]) {
  if ((flags & ~FILESTAT_TIME_FLAGS) != 0)
    return CLOUDABI_EINVAL;
  ts[0] = one_time(fs->st_atim, (flags & CLOUDABI_FILESTAT_ATIM) != 0,
                   (flags & CLOUDABI_FILESTAT_ATIM_NOW) != 0);
  ts[1] = one_time(fs->st_mtim, (flags & CLOUDABI_FILESTAT_MTIM) != 0,
                   (flags & CLOUDABI_FILESTAT_MTIM_NOW) != 0);
  return 0;
}
