/*
 * file_open: a new descriptor for a path beneath a directory capability,
 * with the rights the guest asked for, as far as the directory lets it
 * hand them down and the opened object's type can carry them.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/errno_map.h"
#include "host/filestat.h"
#include "path.h"
#include "host/rights.h"
#include "supervisor/sup.h"
#include "syscall_table.h"

#define R(name) CLOUDABI_RIGHT_##name

#define OFLAGS_ALL                                                             \
  (CLOUDABI_O_CREAT | CLOUDABI_O_DIRECTORY | CLOUDABI_O_EXCL | CLOUDABI_O_TRUNC)
#define FDFLAGS_ALL                                                            \
  (CLOUDABI_FDFLAG_APPEND | CLOUDABI_FDFLAG_DSYNC | CLOUDABI_FDFLAG_NONBLOCK | \
   CLOUDABI_FDFLAG_RSYNC | CLOUDABI_FDFLAG_SYNC)

/* Rights that need the host descriptor open for reading or writing, as
 * upstream's emulator decided the open mode. */
#define RIGHTS_READING (R(FD_READ) | R(FILE_READDIR) | R(MEM_MAP_EXEC))
#define RIGHTS_WRITING                                                         \
  (R(FD_DATASYNC) | R(FD_WRITE) | R(FILE_ALLOCATE) | R(FILE_STAT_FPUT_SIZE))

/* The rights the directory must hold (base) and be able to hand down
 * (inheriting) for this open. */
static cloudabi_errno_t check_rights(const struct capability *dir,
                                     cloudabi_oflags_t oflags,
                                     const cloudabi_fdstat_t *fds) {
  cloudabi_rights_t base = R(FILE_OPEN);
  cloudabi_rights_t inheriting =
      fds->fs_rights_base | fds->fs_rights_inheriting;
  if ((oflags & CLOUDABI_O_CREAT) != 0)
    base |= R(FILE_CREATE_FILE);
  if ((oflags & CLOUDABI_O_TRUNC) != 0)
    inheriting |= R(FILE_STAT_FPUT_SIZE);
  if ((fds->fs_flags & (CLOUDABI_FDFLAG_RSYNC | CLOUDABI_FDFLAG_SYNC)) != 0)
    inheriting |= R(FD_SYNC);
  if ((dir->base & base) != base ||
      (dir->inheriting & inheriting) != inheriting)
    return CLOUDABI_ENOTCAPABLE;
  /* DSYNC: FD_DATASYNC, or FD_SYNC, which the spec says includes it. */
  if ((fds->fs_flags & CLOUDABI_FDFLAG_DSYNC) != 0 &&
      (dir->inheriting & (R(FD_DATASYNC) | R(FD_SYNC))) == 0)
    return CLOUDABI_ENOTCAPABLE;
  return 0;
}

static int host_flags(cloudabi_oflags_t oflags, const cloudabi_fdstat_t *fds) {
  bool rd = (fds->fs_rights_base & RIGHTS_READING) != 0;
  bool wr = (fds->fs_rights_base & RIGHTS_WRITING) != 0;
  int flags = wr ? (rd ? O_RDWR : O_WRONLY) : O_RDONLY;
  /*
   * Never blocks the supervisor: opening a FIFO waits for the other end
   * otherwise.  The guest's NONBLOCK is its own view (hostobj flags); the
   * sync flags are honoured after each write (hostio), as for descriptors
   * whose flags fd_stat_put changes.
   */
  flags |= O_NONBLOCK | O_NOCTTY;
  if ((oflags & CLOUDABI_O_CREAT) != 0)
    flags |= O_CREAT;
  if ((oflags & CLOUDABI_O_DIRECTORY) != 0)
    flags |= O_DIRECTORY;
  if ((oflags & CLOUDABI_O_EXCL) != 0)
    flags |= O_EXCL;
  if ((oflags & CLOUDABI_O_TRUNC) != 0)
    flags |= O_TRUNC;
  if ((fds->fs_flags & CLOUDABI_FDFLAG_APPEND) != 0)
    flags |= O_APPEND;
  return flags;
}

/* Linux refuses to open a Unix socket with ENXIO; FreeBSD, whose answer
 * CloudABI programs expect, with EOPNOTSUPP.  Only asked on failure. */
static cloudabi_errno_t open_failed(int dirfd, const struct gpath *p,
                                    bool follow, cloudabi_errno_t e) {
  if (e != CLOUDABI_ENXIO)
    return e;
  int fd;
  struct stat st;
  if (path_open(dirfd, p, O_PATH, 0, follow, &fd) != 0)
    return e;
  bool sock = fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode);
  close(fd);
  return sock ? CLOUDABI_ENOTSUP : e;
}

cloudabi_errno_t handle_file_open(struct call *c) {
  struct capability *dir = c->cap[0];
  bool follow;
  cloudabi_errno_t e = path_lookup_follow(c->args[0], &follow);
  if (e != 0)
    return e;
  cloudabi_oflags_t oflags = (cloudabi_oflags_t)c->args[3];
  if ((oflags & ~OFLAGS_ALL) != 0)
    return CLOUDABI_EINVAL;
  /* The fdstat and the path in one read of guest memory. */
  cloudabi_fdstat_t fds;
  struct gpath p;
  struct path_arg path = {c->args[1], c->args[2], &p, false};
  struct guest_range also = {c->args[4], &fds, sizeof(fds)};
  if ((e = path_copy_all(c, &path, 1, &also, 1)) != 0)
    return e;
  if ((fds.fs_flags & ~FDFLAGS_ALL) != 0)
    return CLOUDABI_EINVAL;
  if ((e = check_rights(dir, oflags, &fds)) != 0)
    return e;

  /* "link/" with O_CREAT: Linux answers EISDIR without looking at the
   * link; a link that leads out is an escape all the same. */
  if (p.str[p.len - 1] == '/' &&
      (e = path_check_beneath(dir->obj->fd, &p)) != 0)
    return e;
  int fd, flags = host_flags(oflags, &fds);
  e = path_open(dir->obj->fd, &p, flags, 0666, follow, &fd);
  if (e != 0)
    return open_failed(dir->obj->fd, &p, follow, e);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    e = errno_from_host(errno);
    close(fd);
    return e;
  }
  cloudabi_filetype_t type = filetype_from_mode(st.st_mode);
  bool tty = S_ISCHR(st.st_mode) && isatty(fd) == 1;
  cloudabi_rights_t max_base, max_inheriting;
  rights_max_for_type(type, tty, &max_base, &max_inheriting);

  struct hostobj *obj = hostobj_new(fd, type); /* owns fd from here */
  if (obj == NULL)
    return CLOUDABI_ENOMEM;
  obj->flags = fds.fs_flags;
  obj->by_path = true;
  obj->accmode = flags & O_ACCMODE;
  /* Opened O_NONBLOCK: pipes and devices never block the supervisor. */
  obj->host_nonblocking = true;
  cloudabi_fd_t gfd;
  e = captab_insert(&c->proc->fds, obj, fds.fs_rights_base & max_base,
                    fds.fs_rights_inheriting & max_inheriting, &gfd);
  hostobj_unref(obj);
  if (e != 0)
    return e;
  c->result = gfd;
  return 0;
}
