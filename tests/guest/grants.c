/*
 * What a grant reaches (issue 11, items 3 and 4).
 *
 * root: a grant of "/".  Beneath it, nothing on a file system of the
 * running system may be reached (procfs: "self" would be the supervisor;
 * sysfs, cgroup, ...): every lookup into one is ENOTCAPABLE, also through
 * a symlink the program plants.  Normal files under / still work, also
 * across mount points (the test's own temporary directory).
 * ro: a directory granted with mode: ro: reading works, nothing changes.
 * tmp: the test's temporary directory, as an absolute path (a string).
 */
#include "check.h"

static char buf[4096];

/* Opens path beneath dir for reading, following, and reads it. */
static cloudabi_errno_t read_path(cloudabi_fd_t dir, const char *path,
                                  size_t *n) {
  cloudabi_fdstat_t fds = {.fs_rights_base = R(FD_READ)};
  cloudabi_fd_t fd;
  cloudabi_errno_t e =
      cloudabi_sys_file_open(at(dir, true), path, strlen(path), 0, &fds, &fd);
  if (e != 0)
    return e;
  cloudabi_iovec_t iov = {buf, sizeof(buf) - 1};
  e = cloudabi_sys_fd_read(fd, &iov, 1, n);
  RT_CHECK(cloudabi_sys_fd_close(fd) == 0);
  return e;
}

static cloudabi_errno_t open_with(cloudabi_fd_t dir, const char *path,
                                  cloudabi_oflags_t o, cloudabi_rights_t r,
                                  cloudabi_fdflags_t f) {
  cloudabi_fd_t fd;
  cloudabi_errno_t e = open_file(dir, path, o, r, 0, f, &fd);
  if (e == 0)
    RT_CHECK(cloudabi_sys_fd_close(fd) == 0);
  return e;
}

static void beneath_root(cloudabi_fd_t root, const char *tmp) {
  static const char *const refused[] = {
      "proc/self/maps",
      "proc/self/mem",
      "proc/self/",
      "proc/1/status",
      "proc",
      "proc/",
      "proc/.",
      "proc/1/../../etc/hostname",
      "sys/kernel/mm",
      "sys",
      "sys/fs/cgroup",
      "sys/kernel/../../etc/hostname",
      "etc/../proc/self/maps",
  };
  size_t n;
  for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
    check(refused[i], "file_open", read_path(root, refused[i], &n),
          CLOUDABI_ENOTCAPABLE);
    /* A bare entry of / ("proc") is a name in a directory on a normal
     * file system: its stat is the mount point's, and opening it for
     * writing is EISDIR before anything is entered. */
    bool entry = true;
    for (const char *c = refused[i]; *c != '\0'; c++)
      entry = entry && *c != '/';
    if (entry)
      continue;
    check(refused[i], "file_open(write)",
          open_with(root, refused[i], 0, R(FD_WRITE), 0), CLOUDABI_ENOTCAPABLE);
    cloudabi_filestat_t st;
    check(refused[i], "file_stat_get following",
          stat_path(root, refused[i], true, &st), CLOUDABI_ENOTCAPABLE);
  }
  size_t used;
  check(
      "proc/self", "file_readlink",
      cloudabi_sys_file_readlink(root, "proc/self", 9, buf, sizeof(buf), &used),
      CLOUDABI_ENOTCAPABLE);
  /* Normal files still work, on / and across mount points. */
  check("etc/hostname", "read", read_path(root, "etc/hostname", &n), 0);
  check("etc/../etc/hostname", "read",
        read_path(root, "etc/../etc/hostname", &n), 0);
  char path[512];
  rt_snprintf(path, sizeof(path), "%s/hello.txt", tmp);
  n = 0;
  check(path, "read", read_path(root, path, &n), 0);
  check(path, "contents", n == 3 && memcmp(buf, "hi\n", 3) == 0 ? 0 : 1, 0);
  /* A symlink planted in the temporary directory, relative, pointing up
   * and into /proc: still refused. */
  char target[512] = "";
  size_t len = 0;
  for (const char *c = tmp; *c != '\0'; c++)
    if (*c == '/' || c == tmp)
      len += rt_snprintf(target + len, sizeof(target) - len, "../");
  rt_snprintf(target + len, sizeof(target) - len, "proc/self/maps");
  rt_snprintf(path, sizeof(path), "%s/planted", tmp);
  check(path, "file_symlink",
        cloudabi_sys_file_symlink(target, strlen(target), root, path,
                                  strlen(path)),
        0);
  check(path, "file_open through it", read_path(root, path, &n),
        CLOUDABI_ENOTCAPABLE);
  rt_snprintf(target + len, sizeof(target) - len, "etc/hostname");
  rt_snprintf(path, sizeof(path), "%s/fine", tmp);
  check(path, "file_symlink",
        cloudabi_sys_file_symlink(target, strlen(target), root, path,
                                  strlen(path)),
        0);
  check(path, "file_open through it", read_path(root, path, &n), 0);
}

static void read_only(cloudabi_fd_t ro) {
  size_t n = 0;
  check("ro/file.txt", "read", read_path(ro, "file.txt", &n), 0);
  check("ro/file.txt", "contents",
        n == 5 && memcmp(buf, "data\n", 5) == 0 ? 0 : 1, 0);
  check("ro/sub/deep.txt", "read", read_path(ro, "sub/deep.txt", &n), 0);
  check("ro", "create",
        open_with(ro, "new.txt", CLOUDABI_O_CREAT, R(FD_WRITE), 0),
        CLOUDABI_ENOTCAPABLE);
  check("ro", "create in sub",
        open_with(ro, "sub/new.txt", CLOUDABI_O_CREAT, R(FD_READ), 0),
        CLOUDABI_ENOTCAPABLE);
  check("ro", "append",
        open_with(ro, "file.txt", 0, R(FD_WRITE), CLOUDABI_FDFLAG_APPEND),
        CLOUDABI_ENOTCAPABLE);
  check("ro", "truncate",
        open_with(ro, "file.txt", CLOUDABI_O_TRUNC, R(FD_READ), 0),
        CLOUDABI_ENOTCAPABLE);
  check("ro", "unlink", unlink_path(ro, "file.txt", 0), CLOUDABI_ENOTCAPABLE);
  check("ro", "mkdir",
        cloudabi_sys_file_create(ro, "made", 4, CLOUDABI_FILETYPE_DIRECTORY),
        CLOUDABI_ENOTCAPABLE);
  check("ro", "rename",
        cloudabi_sys_file_rename(ro, "file.txt", 8, ro, "moved.txt", 9),
        CLOUDABI_ENOTCAPABLE);
  check("ro", "symlink",
        cloudabi_sys_file_symlink("file.txt", 8, ro, "made.lnk", 8),
        CLOUDABI_ENOTCAPABLE);
  /* A subdirectory opened beneath gets no more than the tree allows. */
  cloudabi_fd_t sub;
  cloudabi_errno_t e =
      open_file(ro, "sub", CLOUDABI_O_DIRECTORY,
                R(FILE_OPEN) | R(FILE_CREATE_FILE), 0, 0, &sub);
  check("ro/sub", "open with FILE_CREATE_FILE", e, CLOUDABI_ENOTCAPABLE);
}

void program_main(const argdata_t *ad) {
  rt_log_fd = rt_map_fd(ad, "out");
  const char *tmp = rt_map_str(ad, "tmp", "");
  while (*tmp == '/')
    tmp++;
  beneath_root(rt_map_fd(ad, "root"), tmp);
  read_only(rt_map_fd(ad, "ro"));
  check_done("grants");
}
