/* Rights of host descriptors; see rights.h. */
#include "rights.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define R(name) CLOUDABI_RIGHT_##name

static const cloudabi_rights_t regular_file_base =
    R(FD_DATASYNC) | R(FD_READ) | R(FD_SEEK) | R(FD_STAT_PUT_FLAGS) |
    R(FD_SYNC) | R(FD_TELL) | R(FD_WRITE) | R(FILE_ADVISE) |
    R(FILE_ALLOCATE) | R(FILE_STAT_FGET) | R(FILE_STAT_FPUT_SIZE) |
    R(FILE_STAT_FPUT_TIMES) | R(MEM_MAP) | R(MEM_MAP_EXEC) |
    R(POLL_FD_READWRITE) | R(PROC_EXEC);

static const cloudabi_rights_t directory_base =
    R(FD_STAT_PUT_FLAGS) | R(FD_SYNC) | R(FILE_ADVISE) |
    R(FILE_CREATE_DIRECTORY) | R(FILE_CREATE_FILE) | R(FILE_LINK_SOURCE) |
    R(FILE_LINK_TARGET) | R(FILE_OPEN) | R(FILE_READDIR) | R(FILE_READLINK) |
    R(FILE_RENAME_SOURCE) | R(FILE_RENAME_TARGET) | R(FILE_STAT_FGET) |
    R(FILE_STAT_FPUT_TIMES) | R(FILE_STAT_GET) | R(FILE_STAT_PUT_TIMES) |
    R(FILE_SYMLINK) | R(FILE_UNLINK) | R(POLL_FD_READWRITE);

static const cloudabi_rights_t socket_base =
    R(FD_READ) | R(FD_STAT_PUT_FLAGS) | R(FD_WRITE) | R(FILE_STAT_FGET) |
    R(POLL_FD_READWRITE) | R(SOCK_SHUTDOWN);

static const cloudabi_rights_t tty_base = R(FD_READ) | R(FD_STAT_PUT_FLAGS) |
                                          R(FD_WRITE) | R(FILE_STAT_FGET) |
                                          R(POLL_FD_READWRITE);

static const cloudabi_rights_t shm_base = R(FD_READ) | R(FD_WRITE) |
                                          R(FILE_STAT_FGET) |
                                          R(FILE_STAT_FPUT_SIZE) | R(MEM_MAP) |
                                          R(MEM_MAP_EXEC);

static const cloudabi_rights_t process_base =
    R(FILE_STAT_FGET) | R(POLL_PROC_TERMINATE);

void rights_max_for_type(cloudabi_filetype_t type, bool is_tty,
                         cloudabi_rights_t *base,
                         cloudabi_rights_t *inheriting) {
  switch (type) {
  case CLOUDABI_FILETYPE_DIRECTORY:
    *base = directory_base;
    *inheriting = directory_base | regular_file_base;
    break;
  case CLOUDABI_FILETYPE_REGULAR_FILE:
    *base = regular_file_base;
    *inheriting = 0;
    break;
  case CLOUDABI_FILETYPE_SHARED_MEMORY:
    *base = shm_base;
    *inheriting = 0;
    break;
  case CLOUDABI_FILETYPE_SOCKET_DGRAM:
  case CLOUDABI_FILETYPE_SOCKET_STREAM:
    /* Descriptors received over a socket get the inheriting rights. */
    *base = socket_base;
    *inheriting = RIGHTS_ALL;
    break;
  case CLOUDABI_FILETYPE_CHARACTER_DEVICE:
  case CLOUDABI_FILETYPE_BLOCK_DEVICE:
    if (is_tty) {
      *base = tty_base;
      *inheriting = 0;
    } else {
      *base = RIGHTS_ALL;
      *inheriting = RIGHTS_ALL;
    }
    break;
  case CLOUDABI_FILETYPE_PROCESS:
    *base = process_base;
    *inheriting = 0;
    break;
  default:
    *base = 0;
    *inheriting = 0;
    break;
  }
}

int rights_for_host_fd(int fd, struct fd_rights *out) {
  struct host_probe probe;
  return rights_for_host_fd_probe(fd, out, &probe);
}

int rights_for_host_fd_probe(int fd, struct fd_rights *out,
                             struct host_probe *probe) {
  if (fstat(fd, &probe->st) != 0)
    return -1;
  probe->so_type = 0;
  probe->domain = 0;
  bool is_tty = false;
  switch (probe->st.st_mode & S_IFMT) {
  case S_IFREG:
    out->type = CLOUDABI_FILETYPE_REGULAR_FILE;
    break;
  case S_IFDIR:
    out->type = CLOUDABI_FILETYPE_DIRECTORY;
    break;
  case S_IFBLK:
    out->type = CLOUDABI_FILETYPE_BLOCK_DEVICE;
    break;
  case S_IFCHR:
    out->type = CLOUDABI_FILETYPE_CHARACTER_DEVICE;
    is_tty = isatty(fd) == 1;
    break;
  case S_IFIFO:
    /* CloudABI has no pipe type; upstream reports FIFOs as streams. */
    out->type = CLOUDABI_FILETYPE_SOCKET_STREAM;
    break;
  case S_IFSOCK: {
    int so_type;
    socklen_t len = sizeof(so_type);
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &so_type, &len) != 0)
      return -1;
    probe->so_type = so_type;
    if (so_type == SOCK_STREAM) {
      out->type = CLOUDABI_FILETYPE_SOCKET_STREAM;
    } else if (so_type == SOCK_DGRAM) {
      out->type = CLOUDABI_FILETYPE_SOCKET_DGRAM;
    } else {
      errno = ENOTSUP;
      return -1;
    }
    break;
  }
  default:
    errno = ENOTSUP;
    return -1;
  }
  rights_max_for_type(out->type, is_tty, &out->base, &out->inheriting);
  int fl = fcntl(fd, F_GETFL);
  if (fl < 0)
    return -1;
  probe->status_flags = fl;
  /* O_PATH descriptors can do no I/O at all. */
  if ((fl & O_PATH) != 0)
    out->base &= ~(R(FD_READ) | R(FD_WRITE));
  else if ((fl & O_ACCMODE) == O_RDONLY)
    out->base &= ~R(FD_WRITE);
  else if ((fl & O_ACCMODE) == O_WRONLY)
    out->base &= ~R(FD_READ);
  return 0;
}
