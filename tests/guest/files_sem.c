/*
 * What the file calls do, beyond the rights and errors of files.c:
 * file_open's flags and rights, file_readdir's layout and cookies, stat
 * and its setters, names (link, rename, symlink, readlink, unlink), file
 * mappings and shared memory, and a directory whose rights the config
 * narrowed.  Config: out (stdout), dir (an empty directory), narrow (the
 * same directory with rights [FILE_OPEN, FILE_STAT_GET, FILE_READDIR] and
 * inheriting [FD_READ, FILE_STAT_FGET]).
 */
#include "check.h"
#include "trap.h"

static cloudabi_fd_t dir;

static cloudabi_errno_t same(bool ok) {
  return ok ? 0 : WRONG_RESULT;
}

static size_t read_all(cloudabi_fd_t fd, char *buf, size_t len) {
  cloudabi_iovec_t iov = {buf, len};
  size_t n = 0;
  RT_EXPECT(cloudabi_sys_fd_pread(fd, &iov, 1, 0, &n), 0);
  return n;
}

static void test_open(void) {
  const char *T = "file_open";
  cloudabi_fdstat_t d = fdstat(dir);
  cloudabi_fd_t fd;
  /* O_CREAT|O_EXCL, then EEXIST. */
  check(T, "creat|excl",
        open_file(dir, "o.txt", CLOUDABI_O_CREAT | CLOUDABI_O_EXCL,
                  R(FD_WRITE) | R(FD_READ) | R(FD_SEEK), 0, 0, &fd),
        0);
  RT_CHECK(rt_write_all(fd, "hello", 5) == 0);
  RT_CHECK(cloudabi_sys_fd_close(fd) == 0);
  check(T, "excl on existing",
        open_file(dir, "o.txt", CLOUDABI_O_CREAT | CLOUDABI_O_EXCL, R(FD_WRITE),
                  0, 0, &fd),
        CLOUDABI_EEXIST);
  check(T, "missing", open_file(dir, "none", 0, R(FD_READ), 0, 0, &fd),
        CLOUDABI_ENOENT);
  /* APPEND: writes land at the end whatever the offset. */
  check(T, "append",
        open_file(dir, "o.txt", 0, R(FD_WRITE) | R(FD_SEEK), 0,
                  CLOUDABI_FDFLAG_APPEND, &fd),
        0);
  cloudabi_fdstat_t st = fdstat(fd);
  check(T, "append flag kept", same(st.fs_flags == CLOUDABI_FDFLAG_APPEND), 0);
  cloudabi_filesize_t off;
  RT_CHECK(cloudabi_sys_fd_seek(fd, 0, CLOUDABI_WHENCE_SET, &off) == 0);
  RT_CHECK(rt_write_all(fd, "!", 1) == 0);
  RT_CHECK(cloudabi_sys_fd_close(fd) == 0);
  char buf[64];
  check(T, "opened for reading",
        open_file(dir, "o.txt", 0, R(FD_READ) | R(FD_SEEK), 0, 0, &fd), 0);
  size_t n = read_all(fd, buf, sizeof(buf));
  check(T, "appended", same(n == 6 && memcmp(buf, "hello!", 6) == 0), 0);
  /* Read-only: the rights asked for, no more, and the host agrees. */
  st = fdstat(fd);
  check(T, "rights as asked",
        same(st.fs_rights_base == (R(FD_READ) | R(FD_SEEK)) &&
             st.fs_rights_inheriting == 0 &&
             st.fs_filetype == CLOUDABI_FILETYPE_REGULAR_FILE),
        0);
  RT_CHECK(cloudabi_sys_fd_close(fd) == 0);
  /* NONBLOCK is the guest's view, reported back. */
  check(
      T, "nonblock",
      open_file(dir, "o.txt", 0, R(FD_READ), 0, CLOUDABI_FDFLAG_NONBLOCK, &fd),
      0);
  check(T, "nonblock kept",
        same(fdstat(fd).fs_flags == CLOUDABI_FDFLAG_NONBLOCK), 0);
  RT_CHECK(cloudabi_sys_fd_close(fd) == 0);
  check(T, "unknown fdflags",
        open_file(dir, "o.txt", 0, R(FD_READ), 0, 0x80, &fd), CLOUDABI_EINVAL);
  check(T, "unknown oflags",
        open_file(dir, "o.txt", 0x10, R(FD_READ), 0, 0, &fd), CLOUDABI_EINVAL);
  cloudabi_fdstat_t fds = {.fs_rights_base = R(FD_READ)};
  cloudabi_lookup_t bad_lookup = {dir, 2};
  check(T, "unknown lookup flags",
        cloudabi_sys_file_open(bad_lookup, "o.txt", 5, 0, &fds, &fd),
        CLOUDABI_EINVAL);
  /* Requested rights beyond the directory's inheriting rights. */
  check(T, "beyond inheriting",
        open_file(dir, "o.txt", 0, R(FD_READ) | R(SOCK_SHUTDOWN), 0, 0, &fd),
        CLOUDABI_ENOTCAPABLE);
  check(T, "inheriting beyond inheriting",
        open_file(dir, "o.txt", 0, R(FD_READ), R(POLL_PROC_TERMINATE), 0, &fd),
        CLOUDABI_ENOTCAPABLE);
  /* A sync flag needs its right handed down. */
  cloudabi_fd_t nosync =
      narrowed(dir, d.fs_rights_base, d.fs_rights_inheriting & ~R(FD_SYNC));
  check(
      T, "SYNC without FD_SYNC",
      open_file(nosync, "o.txt", 0, R(FD_WRITE), 0, CLOUDABI_FDFLAG_SYNC, &fd),
      CLOUDABI_ENOTCAPABLE);
  check(
      T, "DSYNC needs FD_DATASYNC, not FD_SYNC",
      open_file(nosync, "o.txt", 0, R(FD_WRITE), 0, CLOUDABI_FDFLAG_DSYNC, &fd),
      0);
  RT_CHECK(cloudabi_sys_fd_close(fd) == 0);
  RT_CHECK(cloudabi_sys_fd_close(nosync) == 0);
  /* Result rights = asked ∩ the type's maximum: a file never gets
   * directory rights, a directory never file rights. */
  check(T, "file with all rights",
        open_file(dir, "o.txt", 0, d.fs_rights_inheriting,
                  d.fs_rights_inheriting, 0, &fd),
        0);
  st = fdstat(fd);
  check(T, "file rights trimmed",
        same((st.fs_rights_base & R(FILE_OPEN)) == 0 &&
             (st.fs_rights_base & R(FD_READ)) != 0 &&
             (st.fs_rights_base & R(MEM_MAP)) != 0 &&
             st.fs_rights_inheriting == 0),
        0);
  RT_CHECK(cloudabi_sys_fd_close(fd) == 0);
  RT_CHECK(cloudabi_sys_file_create(dir, "sub", 3,
                                    CLOUDABI_FILETYPE_DIRECTORY) == 0);
  check(T, "directory",
        open_file(dir, "sub", CLOUDABI_O_DIRECTORY,
                  d.fs_rights_inheriting &
                      ~(R(FD_WRITE) | R(FD_DATASYNC) | R(FILE_ALLOCATE) |
                        R(FILE_STAT_FPUT_SIZE)),
                  d.fs_rights_inheriting, 0, &fd),
        0);
  st = fdstat(fd);
  check(T, "directory rights trimmed",
        same(st.fs_filetype == CLOUDABI_FILETYPE_DIRECTORY &&
             (st.fs_rights_base & R(FILE_OPEN)) != 0 &&
             (st.fs_rights_base & (R(FD_READ) | R(FD_SEEK))) == 0 &&
             st.fs_rights_inheriting == d.fs_rights_inheriting),
        0);
  /* It works as a directory capability of its own. */
  cloudabi_fd_t inner;
  check(T, "beneath the new directory",
        open_file(fd, "x", CLOUDABI_O_CREAT, R(FD_WRITE), 0, 0, &inner), 0);
  RT_CHECK(cloudabi_sys_fd_close(inner) == 0);
  RT_CHECK(cloudabi_sys_fd_close(fd) == 0);
  check(T, "O_DIRECTORY on a file",
        open_file(dir, "o.txt", CLOUDABI_O_DIRECTORY, R(FD_READ), 0, 0, &fd),
        CLOUDABI_ENOTDIR);
  check(T, "writing a directory",
        open_file(dir, "sub", 0, R(FD_WRITE), 0, 0, &fd), CLOUDABI_EISDIR);
  /* Symlinks: followed only with LOOKUP_SYMLINK_FOLLOW. */
  RT_CHECK(cloudabi_sys_file_symlink("o.txt", 5, dir, "o.lnk", 5) == 0);
  check(T, "symlink not followed",
        open_file(dir, "o.lnk", 0, R(FD_READ), 0, 0, &fd), CLOUDABI_ELOOP);
  check(T, "symlink followed",
        cloudabi_sys_file_open(at(dir, true), "o.lnk", 5, 0, &fds, &fd), 0);
  RT_CHECK(cloudabi_sys_fd_close(fd) == 0);
  /* Intermediate symlinks are followed while they stay inside. */
  RT_CHECK(cloudabi_sys_file_symlink("sub", 3, dir, "sub.lnk", 7) == 0);
  check(T, "through a symlinked directory",
        open_file(dir, "sub.lnk/x", 0, R(FD_READ), 0, 0, &fd), 0);
  RT_CHECK(cloudabi_sys_fd_close(fd) == 0);
  check(T, "dot dot inside",
        open_file(dir, "sub/../o.txt", 0, R(FD_READ), 0, 0, &fd), 0);
  RT_CHECK(cloudabi_sys_fd_close(fd) == 0);
  /* O_TRUNC truncates. */
  check(T, "trunc",
        open_file(dir, "o.txt", CLOUDABI_O_TRUNC, R(FD_WRITE), 0, 0, &fd), 0);
  RT_CHECK(cloudabi_sys_fd_close(fd) == 0);
  cloudabi_filestat_t fst;
  RT_CHECK(stat_path(dir, "o.txt", false, &fst) == 0);
  check(T, "truncated", same(fst.st_size == 0), 0);
}

/* Parses a readdir buffer: the names, in order, into names[]. */
static size_t parse(const char *buf, size_t used, char names[][16],
                    cloudabi_dirent_t *ents, size_t max) {
  size_t k = 0;
  for (size_t off = 0; off + sizeof(cloudabi_dirent_t) <= used && k < max;) {
    memcpy(&ents[k], buf + off, sizeof(ents[k]));
    off += sizeof(cloudabi_dirent_t);
    size_t n = ents[k].d_namlen;
    if (n > 15 || off + n > used)
      break;
    memcpy(names[k], buf + off, n);
    names[k][n] = '\0';
    off += n;
    k++;
  }
  return k;
}

static void test_readdir(void) {
  const char *T = "file_readdir";
  RT_CHECK(
      cloudabi_sys_file_create(dir, "rd", 2, CLOUDABI_FILETYPE_DIRECTORY) == 0);
  cloudabi_fd_t rd;
  RT_CHECK(open_file(dir, "rd", CLOUDABI_O_DIRECTORY,
                     fdstat(dir).fs_rights_base,
                     fdstat(dir).fs_rights_inheriting, 0, &rd) == 0);
  put_file(rd, "file1", "");
  put_file(rd, "file22", "");
  RT_CHECK(cloudabi_sys_file_create(rd, "dir333", 6,
                                    CLOUDABI_FILETYPE_DIRECTORY) == 0);
  RT_CHECK(cloudabi_sys_file_symlink("file1", 5, rd, "link4444", 8) == 0);
  char buf[1024];
  size_t used;
  check(T, "whole directory",
        cloudabi_sys_file_readdir(rd, buf, sizeof(buf), 0, &used), 0);
  check(T, "end reached", same(used < sizeof(buf)), 0);
  /* 6 entries: ".", "..", and four of 5..8 bytes: 6*24 + 1+2+5+6+6+8. */
  check(T, "exact size", same(used == 6 * 24 + 1 + 2 + 5 + 6 + 6 + 8), 0);
  char names[8][16];
  cloudabi_dirent_t ents[8];
  size_t k = parse(buf, used, names, ents, 8);
  check(T, "six entries", same(k == 6), 0);
  unsigned seen = 0;
  for (size_t i = 0; i < k; i++) {
    static const struct {
      const char *name;
      cloudabi_filetype_t type;
    } want[] = {{".", CLOUDABI_FILETYPE_DIRECTORY},
                {"..", CLOUDABI_FILETYPE_DIRECTORY},
                {"file1", CLOUDABI_FILETYPE_REGULAR_FILE},
                {"file22", CLOUDABI_FILETYPE_REGULAR_FILE},
                {"dir333", CLOUDABI_FILETYPE_DIRECTORY},
                {"link4444", CLOUDABI_FILETYPE_SYMBOLIC_LINK}};
    for (unsigned w = 0; w < 6; w++) {
      if (strcmp(names[i], want[w].name) != 0)
        continue;
      check(T, names[i], same(ents[i].d_type == want[w].type), 0);
      seen |= 1u << w;
    }
  }
  check(T, "every name once", same(seen == 0x3f), 0);
  /* The inode is stat's. */
  cloudabi_filestat_t fst;
  RT_CHECK(stat_path(rd, "file22", false, &fst) == 0);
  for (size_t i = 0; i < k; i++)
    if (strcmp(names[i], "file22") == 0)
      check(T, "d_ino", same(ents[i].d_ino == fst.st_ino), 0);
  /* Cookies: starting from entry i's d_next gives entry i+1 first. */
  for (size_t i = 0; i + 1 < k; i++) {
    char b2[1024];
    size_t u2;
    check(T, "from a cookie",
          cloudabi_sys_file_readdir(rd, b2, sizeof(b2), ents[i].d_next, &u2),
          0);
    char n2[8][16];
    cloudabi_dirent_t e2[8];
    size_t k2 = parse(b2, u2, n2, e2, 8);
    check(T, "resumes at the next entry",
          same(k2 == k - i - 1 && strcmp(n2[0], names[i + 1]) == 0), 0);
  }
  char b3[64];
  size_t u3;
  check(T, "from the last cookie",
        cloudabi_sys_file_readdir(rd, b3, sizeof(b3), ents[k - 1].d_next, &u3),
        0);
  check(T, "nothing after the end", same(u3 == 0), 0);
  /* A short buffer is filled exactly, the last entry cut short. */
  for (size_t len = 1; len < used; len += 7) {
    char b4[1024];
    memset(b4, 0x55, sizeof(b4));
    size_t u4;
    check(T, "short buffer", cloudabi_sys_file_readdir(rd, b4, len, 0, &u4), 0);
    check(T, "filled exactly",
          same(u4 == len && memcmp(b4, buf, len) == 0 &&
               (unsigned char)b4[len] == 0x55),
          0);
  }
  check(T, "zero-length buffer", cloudabi_sys_file_readdir(rd, b3, 0, 0, &u3),
        0);
  check(T, "nothing written", same(u3 == 0), 0);
  check(T, "impossible cookie",
        cloudabi_sys_file_readdir(rd, b3, sizeof(b3), 1ull << 63, &u3),
        CLOUDABI_EINVAL);
  RT_CHECK(cloudabi_sys_fd_close(rd) == 0);
}

static void test_stat(void) {
  const char *T = "file_stat";
  put_file(dir, "s.txt", "12345");
  cloudabi_filestat_t a, b;
  check(T, "get", stat_path(dir, "s.txt", false, &a), 0);
  check(T, "fields",
        same(a.st_size == 5 && a.st_nlink == 1 &&
             a.st_filetype == CLOUDABI_FILETYPE_REGULAR_FILE && a.st_ino != 0 &&
             a.st_mtim != 0),
        0);
  cloudabi_fd_t fd;
  RT_CHECK(open_file(dir, "s.txt", 0,
                     R(FILE_STAT_FGET) | R(FILE_STAT_FPUT_SIZE) |
                         R(FILE_STAT_FPUT_TIMES) | R(FD_WRITE),
                     0, 0, &fd) == 0);
  check(T, "fget", cloudabi_sys_file_stat_fget(fd, &b), 0);
  check(T, "fget = get",
        same(a.st_dev == b.st_dev && a.st_ino == b.st_ino &&
             a.st_size == b.st_size),
        0);
  /* Size: grow, shrink. */
  cloudabi_filestat_t set = {.st_size = 100};
  check(T, "fput size",
        cloudabi_sys_file_stat_fput(fd, &set, CLOUDABI_FILESTAT_SIZE), 0);
  RT_CHECK(cloudabi_sys_file_stat_fget(fd, &b) == 0);
  check(T, "grown", same(b.st_size == 100), 0);
  check(T, "size with a time",
        cloudabi_sys_file_stat_fput(
            fd, &set, CLOUDABI_FILESTAT_SIZE | CLOUDABI_FILESTAT_MTIM),
        CLOUDABI_EINVAL);
  check(T, "no flags", cloudabi_sys_file_stat_fput(fd, &set, 0),
        CLOUDABI_EINVAL);
  check(T, "unknown flags", cloudabi_sys_file_stat_fput(fd, &set, 0x20),
        CLOUDABI_EINVAL);
  /* Times: given values, and NOW. */
  set.st_atim = 1500000000123456789ull;
  set.st_mtim = 1400000000987654321ull;
  check(T, "fput times",
        cloudabi_sys_file_stat_fput(
            fd, &set, CLOUDABI_FILESTAT_ATIM | CLOUDABI_FILESTAT_MTIM),
        0);
  RT_CHECK(cloudabi_sys_file_stat_fget(fd, &b) == 0);
  check(T, "times set",
        same(b.st_atim == set.st_atim && b.st_mtim == set.st_mtim), 0);
  check(T, "mtim now",
        cloudabi_sys_file_stat_fput(fd, &set, CLOUDABI_FILESTAT_MTIM_NOW), 0);
  RT_CHECK(cloudabi_sys_file_stat_fget(fd, &b) == 0);
  check(T, "mtim now set, atim left",
        same(b.st_mtim > set.st_mtim && b.st_atim == set.st_atim), 0);
  RT_CHECK(cloudabi_sys_fd_close(fd) == 0);
  /* By path; only times. */
  check(T, "put atim",
        cloudabi_sys_file_stat_put(at(dir, false), "s.txt", 5, &set,
                                   CLOUDABI_FILESTAT_ATIM),
        0);
  check(T, "put size",
        cloudabi_sys_file_stat_put(at(dir, false), "s.txt", 5, &set,
                                   CLOUDABI_FILESTAT_SIZE),
        CLOUDABI_EINVAL);
  /* Symlinks: lstat unless asked to follow. */
  RT_CHECK(cloudabi_sys_file_symlink("s.txt", 5, dir, "s.lnk", 5) == 0);
  check(T, "get link", stat_path(dir, "s.lnk", false, &b), 0);
  check(
      T, "is a link",
      same(b.st_filetype == CLOUDABI_FILETYPE_SYMBOLIC_LINK && b.st_size == 5),
      0);
  check(T, "get followed", stat_path(dir, "s.lnk", true, &b), 0);
  check(T, "is the file", same(b.st_ino == a.st_ino && b.st_size == 100), 0);
  check(T, "put followed",
        cloudabi_sys_file_stat_put(at(dir, true), "s.lnk", 5, &set,
                                   CLOUDABI_FILESTAT_MTIM),
        0);
  RT_CHECK(stat_path(dir, "s.txt", false, &b) == 0);
  check(T, "through the link", same(b.st_mtim == set.st_mtim), 0);
  check(T, "directory", stat_path(dir, ".", false, &b), 0);
  check(T, "is a directory", same(b.st_filetype == CLOUDABI_FILETYPE_DIRECTORY),
        0);
  check(T, "nested", stat_path(dir, "sub/x", false, &b), 0);
  check(T, "trailing slash on a file", stat_path(dir, "s.txt/", false, &b),
        CLOUDABI_ENOTDIR);
  check(T, "trailing slash on a directory", stat_path(dir, "sub/", false, &b),
        0);
  check(T, "missing", stat_path(dir, "nope", false, &b), CLOUDABI_ENOENT);
}

static void test_names(void) {
  const char *T = "names";
  put_file(dir, "n.txt", "data");
  cloudabi_filestat_t st;
  /* link, with and without following the source symlink. */
  check(T, "link",
        cloudabi_sys_file_link(at(dir, false), "n.txt", 5, dir, "n2.txt", 6),
        0);
  RT_CHECK(stat_path(dir, "n.txt", false, &st) == 0);
  check(T, "two links", same(st.st_nlink == 2), 0);
  check(T, "link onto an existing name",
        cloudabi_sys_file_link(at(dir, false), "n.txt", 5, dir, "n2.txt", 6),
        CLOUDABI_EEXIST);
  RT_CHECK(cloudabi_sys_file_symlink("n.txt", 5, dir, "n.lnk", 5) == 0);
  check(T, "link a symlink itself",
        cloudabi_sys_file_link(at(dir, false), "n.lnk", 5, dir, "n3.lnk", 6),
        0);
  RT_CHECK(stat_path(dir, "n3.lnk", false, &st) == 0);
  check(T, "is the symlink",
        same(st.st_filetype == CLOUDABI_FILETYPE_SYMBOLIC_LINK), 0);
  check(T, "link through a symlink",
        cloudabi_sys_file_link(at(dir, true), "n.lnk", 5, dir, "n4.txt", 6), 0);
  RT_CHECK(stat_path(dir, "n4.txt", false, &st) == 0);
  check(T, "is the file",
        same(st.st_filetype == CLOUDABI_FILETYPE_REGULAR_FILE &&
             st.st_nlink == 3),
        0);
  check(T, "link a directory",
        cloudabi_sys_file_link(at(dir, false), "sub", 3, dir, "sub2", 4),
        CLOUDABI_EPERM);
  /* readlink: contents, truncation, a non-link. */
  char buf[16];
  size_t used;
  check(T, "readlink",
        cloudabi_sys_file_readlink(dir, "n.lnk", 5, buf, sizeof(buf), &used),
        0);
  check(T, "contents", same(used == 5 && memcmp(buf, "n.txt", 5) == 0), 0);
  memset(buf, 'z', sizeof(buf));
  check(T, "readlink short",
        cloudabi_sys_file_readlink(dir, "n.lnk", 5, buf, 3, &used), 0);
  check(T, "truncated", same(used == 3 && memcmp(buf, "n.tzz", 5) == 0), 0);
  check(T, "readlink empty buffer",
        cloudabi_sys_file_readlink(dir, "n.lnk", 5, buf, 0, &used), 0);
  check(T, "nothing", same(used == 0), 0);
  check(T, "readlink a file",
        cloudabi_sys_file_readlink(dir, "n.txt", 5, buf, sizeof(buf), &used),
        CLOUDABI_EINVAL);
  RT_CHECK(cloudabi_sys_file_symlink("../n.txt", 8, dir, "sub/up.lnk", 10) ==
           0);
  check(T, "readlink nested",
        cloudabi_sys_file_readlink(dir, "sub/up.lnk", 10, buf, sizeof(buf),
                                   &used),
        0);
  check(T, "nested contents",
        same(used == 8 && memcmp(buf, "../n.txt", 8) == 0), 0);
  check(T, "readlink a nested file",
        cloudabi_sys_file_readlink(dir, "sub/x", 5, buf, sizeof(buf), &used),
        CLOUDABI_EINVAL);
  /* Symlink contents may be anything: they are only followed inside. */
  check(T, "absolute symlink",
        cloudabi_sys_file_symlink("/etc/passwd", 11, dir, "abs.lnk", 7), 0);
  check(T, "symlink onto a name",
        cloudabi_sys_file_symlink("x", 1, dir, "n.txt", 5), CLOUDABI_EEXIST);
  check(T, "symlink with NUL",
        cloudabi_sys_file_symlink("a\0b", 3, dir, "nul.lnk", 7),
        CLOUDABI_EINVAL);
  /* rename */
  check(T, "rename",
        cloudabi_sys_file_rename(dir, "n2.txt", 6, dir, "sub/moved.txt", 13),
        0);
  check(T, "old name gone", stat_path(dir, "n2.txt", false, &st),
        CLOUDABI_ENOENT);
  check(T, "new name", stat_path(dir, "sub/moved.txt", false, &st), 0);
  check(T, "rename dot", cloudabi_sys_file_rename(dir, ".", 1, dir, "z", 1),
        CLOUDABI_EINVAL);
  check(T, "rename a directory into itself",
        cloudabi_sys_file_rename(dir, "sub", 3, dir, "sub/in", 6),
        CLOUDABI_EINVAL);
  check(T, "rename missing",
        cloudabi_sys_file_rename(dir, "gone", 4, dir, "z", 1), CLOUDABI_ENOENT);
  /* create and unlink */
  check(T, "mkdir",
        cloudabi_sys_file_create(dir, "mk", 2, CLOUDABI_FILETYPE_DIRECTORY), 0);
  check(T, "mkdir again",
        cloudabi_sys_file_create(dir, "mk", 2, CLOUDABI_FILETYPE_DIRECTORY),
        CLOUDABI_EEXIST);
  check(T, "mkdir with a slash",
        cloudabi_sys_file_create(dir, "mk2/", 4, CLOUDABI_FILETYPE_DIRECTORY),
        0);
  check(T, "create a file",
        cloudabi_sys_file_create(dir, "f", 1, CLOUDABI_FILETYPE_REGULAR_FILE),
        CLOUDABI_EINVAL);
  put_file(dir, "mk/inner", "");
  check(T, "unlink a directory", unlink_path(dir, "mk", 0), CLOUDABI_EPERM);
  check(T, "rmdir non-empty", unlink_path(dir, "mk", CLOUDABI_UNLINK_REMOVEDIR),
        CLOUDABI_ENOTEMPTY);
  check(T, "rmdir a file",
        unlink_path(dir, "mk/inner", CLOUDABI_UNLINK_REMOVEDIR),
        CLOUDABI_ENOTDIR);
  check(T, "unlink nested", unlink_path(dir, "mk/inner", 0), 0);
  check(T, "rmdir", unlink_path(dir, "mk", CLOUDABI_UNLINK_REMOVEDIR), 0);
  check(T, "rmdir with a slash",
        unlink_path(dir, "mk2/", CLOUDABI_UNLINK_REMOVEDIR), 0);
  check(T, "rmdir dot", unlink_path(dir, ".", CLOUDABI_UNLINK_REMOVEDIR),
        CLOUDABI_EINVAL);
  check(T, "rmdir sub/..",
        unlink_path(dir, "sub/..", CLOUDABI_UNLINK_REMOVEDIR),
        CLOUDABI_ENOTEMPTY);
  check(T, "unlink flags", unlink_path(dir, "n.txt", 2), CLOUDABI_EINVAL);
  check(T, "unlink a symlink, not its target", unlink_path(dir, "n.lnk", 0), 0);
  check(T, "target stays", stat_path(dir, "n.txt", false, &st), 0);
  /* Path arguments: counted, not NUL-terminated. */
  check(T, "length, not NUL", stat_path(dir, "n.txt", false, &st), 0);
  check(T, "a prefix by length",
        cloudabi_sys_file_stat_get(at(dir, false), "n.txtXYZ", 5, &st), 0);
  check(T, "embedded NUL",
        cloudabi_sys_file_stat_get(at(dir, false), "n.txt\0x", 7, &st),
        CLOUDABI_EINVAL);
  check(T, "empty path",
        cloudabi_sys_file_stat_get(at(dir, false), "x", 0, &st),
        CLOUDABI_ENOENT);
}

static void test_map(void) {
  const char *T = "mem_map";
  put_file(dir, "m.txt", "mapped!");
  cloudabi_fd_t fd;
  RT_CHECK(open_file(dir, "m.txt", 0,
                     R(FD_READ) | R(FD_WRITE) | R(FD_SEEK) | R(MEM_MAP) |
                         R(FILE_STAT_FPUT_SIZE),
                     0, 0, &fd) == 0);
  cloudabi_filestat_t set = {.st_size = 4096};
  RT_CHECK(cloudabi_sys_file_stat_fput(fd, &set, CLOUDABI_FILESTAT_SIZE) == 0);
  void *p;
  check(T, "shared",
        cloudabi_sys_mem_map(NULL, 4096,
                             CLOUDABI_PROT_READ | CLOUDABI_PROT_WRITE,
                             CLOUDABI_MAP_SHARED, fd, 0, &p),
        0);
  check(T, "file contents", same(memcmp(p, "mapped!", 7) == 0), 0);
  memcpy(p, "MAPPED", 6);
  char buf[8];
  check(T, "written through",
        same(read_all(fd, buf, 8) == 8 && memcmp(buf, "MAPPED!", 7) == 0), 0);
  RT_CHECK(cloudabi_sys_mem_unmap(p, 4096) == 0);
  check(T, "private",
        cloudabi_sys_mem_map(NULL, 4096,
                             CLOUDABI_PROT_READ | CLOUDABI_PROT_WRITE,
                             CLOUDABI_MAP_PRIVATE, fd, 0, &p),
        0);
  memcpy(p, "private", 7);
  check(T, "not written through",
        same(read_all(fd, buf, 8) == 8 && memcmp(buf, "MAPPED!", 7) == 0), 0);
  RT_CHECK(cloudabi_sys_mem_unmap(p, 4096) == 0);
  check(T, "write and exec",
        cloudabi_sys_mem_map(NULL, 4096,
                             CLOUDABI_PROT_WRITE | CLOUDABI_PROT_EXEC,
                             CLOUDABI_MAP_PRIVATE, fd, 0, &p),
        CLOUDABI_ENOTSUP);
  check(T, "neither private nor shared",
        cloudabi_sys_mem_map(NULL, 4096, CLOUDABI_PROT_READ, 0, fd, 0, &p),
        CLOUDABI_EINVAL);
  check(T, "both private and shared",
        cloudabi_sys_mem_map(NULL, 4096, CLOUDABI_PROT_READ,
                             CLOUDABI_MAP_PRIVATE | CLOUDABI_MAP_SHARED, fd, 0,
                             &p),
        CLOUDABI_EINVAL);
  check(T, "unaligned offset",
        cloudabi_sys_mem_map(NULL, 4096, CLOUDABI_PROT_READ,
                             CLOUDABI_MAP_PRIVATE, fd, 1, &p),
        CLOUDABI_EINVAL);
  /* Without FD_WRITE: a read-only descriptor is lent, so a shared mapping
   * cannot be made writable later either. */
  cloudabi_fd_t ro = narrowed(fd, R(FD_READ) | R(MEM_MAP), 0);
  check(T, "shared read-only",
        cloudabi_sys_mem_map(NULL, 4096, CLOUDABI_PROT_READ,
                             CLOUDABI_MAP_SHARED, ro, 0, &p),
        0);
  check(T, "cannot become writable",
        cloudabi_sys_mem_protect(p, 4096,
                                 CLOUDABI_PROT_READ | CLOUDABI_PROT_WRITE),
        CLOUDABI_EACCES);
  RT_CHECK(cloudabi_sys_mem_unmap(p, 4096) == 0);
  /* What the vDSO does, by hand: the lent descriptor itself cannot map
   * the file writable and shared (Linux: PROT_READ|PROT_WRITE 3,
   * MAP_SHARED 1, EACCES 13). */
  long lent = rt_raw_syscall(TRAP_NR_BASE + CLOUDABI_SYS_mem_map, 0, 4096,
                             CLOUDABI_PROT_READ, CLOUDABI_MAP_SHARED, ro, 0);
  check(T, "lent descriptor", same(lent >= 0), 0);
  long m = rt_raw_syscall(9 /* mmap */, 0, 4096, 3, 1, lent, 0);
  check(T, "lent: no writable shared mapping", same(m == -13), 0);
  m = rt_raw_syscall(9 /* mmap */, 0, 4096, 1 /* PROT_READ */, 1, lent, 0);
  check(T, "lent: a readable one", same(m > 0), 0);
  check(T, "lent: unmap", same(rt_raw_syscall(11, m, 4096, 0, 0, 0, 0) == 0),
        0);
  check(T, "lent: close", same(rt_raw_syscall(3, lent, 0, 0, 0, 0, 0) == 0), 0);
  check(T, "shared write without FD_WRITE",
        cloudabi_sys_mem_map(NULL, 4096,
                             CLOUDABI_PROT_READ | CLOUDABI_PROT_WRITE,
                             CLOUDABI_MAP_SHARED, ro, 0, &p),
        CLOUDABI_ENOTCAPABLE);
  RT_CHECK(cloudabi_sys_fd_close(ro) == 0);
  RT_CHECK(cloudabi_sys_fd_close(fd) == 0);

  /* Shared memory: two mappings of one object see each other. */
  cloudabi_fd_t shm;
  RT_CHECK(cloudabi_sys_fd_create1(CLOUDABI_FILETYPE_SHARED_MEMORY, &shm) == 0);
  check(T, "shm size",
        cloudabi_sys_file_stat_fput(shm, &set, CLOUDABI_FILESTAT_SIZE), 0);
  void *a, *b;
  check(T, "shm map 1",
        cloudabi_sys_mem_map(NULL, 4096,
                             CLOUDABI_PROT_READ | CLOUDABI_PROT_WRITE,
                             CLOUDABI_MAP_SHARED, shm, 0, &a),
        0);
  check(T, "shm map 2",
        cloudabi_sys_mem_map(NULL, 4096, CLOUDABI_PROT_READ,
                             CLOUDABI_MAP_SHARED, shm, 0, &b),
        0);
  memcpy(a, "shared", 6);
  check(T, "shm seen", same(a != b && memcmp(b, "shared", 6) == 0), 0);
  cloudabi_filestat_t st;
  check(T, "shm fget", cloudabi_sys_file_stat_fget(shm, &st), 0);
  check(T, "shm type",
        same(st.st_filetype == CLOUDABI_FILETYPE_SHARED_MEMORY &&
             st.st_size == 4096),
        0);
  char sbuf[6];
  cloudabi_iovec_t iov = {sbuf, 6};
  size_t n;
  check(T, "shm read", cloudabi_sys_fd_read(shm, &iov, 1, &n), 0);
  check(T, "shm data", same(n == 6 && memcmp(sbuf, "shared", 6) == 0), 0);
  RT_CHECK(cloudabi_sys_mem_unmap(a, 4096) == 0);
  RT_CHECK(cloudabi_sys_mem_unmap(b, 4096) == 0);
  RT_CHECK(cloudabi_sys_fd_close(shm) == 0);
}

static void test_io(void) {
  const char *T = "pread/pwrite";
  cloudabi_fd_t fd;
  RT_CHECK(open_file(dir, "io.txt", CLOUDABI_O_CREAT | CLOUDABI_O_TRUNC,
                     R(FD_READ) | R(FD_WRITE) | R(FD_SEEK) | R(FD_TELL) |
                         R(FD_SYNC) | R(FD_DATASYNC) | R(FILE_ALLOCATE) |
                         R(FILE_ADVISE),
                     0, 0, &fd) == 0);
  cloudabi_ciovec_t w[2] = {{"abc", 3}, {"defg", 4}};
  size_t n;
  check(T, "pwrite two iovecs", cloudabi_sys_fd_pwrite(fd, w, 2, 5, &n), 0);
  check(T, "written", same(n == 7), 0);
  cloudabi_filesize_t off;
  RT_CHECK(cloudabi_sys_fd_seek(fd, 0, CLOUDABI_WHENCE_CUR, &off) == 0);
  check(T, "offset unmoved", same(off == 0), 0);
  char a[4], b[16];
  cloudabi_iovec_t r[2] = {{a, 4}, {b, 16}};
  check(T, "pread two iovecs", cloudabi_sys_fd_pread(fd, r, 2, 4, &n), 0);
  check(T, "read",
        same(n == 8 && memcmp(a, "\0abc", 4) == 0 && memcmp(b, "defg", 4) == 0),
        0);
  check(T, "pread at the end", cloudabi_sys_fd_pread(fd, r, 2, 100, &n), 0);
  check(T, "nothing", same(n == 0), 0);
  check(T, "offset beyond off_t",
        cloudabi_sys_fd_pread(fd, r, 2, 1ull << 63, &n), CLOUDABI_EINVAL);
  check(T, "sync", cloudabi_sys_fd_sync(fd), 0);
  check(T, "datasync", cloudabi_sys_fd_datasync(fd), 0);
  check(T, "allocate", cloudabi_sys_file_allocate(fd, 0, 0), CLOUDABI_EINVAL);
  check(T, "advise", cloudabi_sys_file_advise(fd, 0, 0, 99), CLOUDABI_EINVAL);
  RT_CHECK(cloudabi_sys_fd_close(fd) == 0);
}

/* The config narrowed this directory: rights: [FILE_OPEN, FILE_STAT_GET,
 * FILE_READDIR], inheriting: [FD_READ, FILE_STAT_FGET]. */
static void test_narrowed(cloudabi_fd_t narrow) {
  const char *T = "narrowed by the config";
  cloudabi_fdstat_t st = fdstat(narrow);
  check(T, "rights",
        same(st.fs_rights_base ==
                 (R(FILE_OPEN) | R(FILE_STAT_GET) | R(FILE_READDIR)) &&
             st.fs_rights_inheriting == (R(FD_READ) | R(FILE_STAT_FGET))),
        0);
  cloudabi_fd_t fd;
  check(T, "open to read", open_file(narrow, "s.txt", 0, R(FD_READ), 0, 0, &fd),
        0);
  check(T, "inherited rights", same(fdstat(fd).fs_rights_base == R(FD_READ)),
        0);
  RT_CHECK(cloudabi_sys_fd_close(fd) == 0);
  check(T, "open to write",
        open_file(narrow, "s.txt", 0, R(FD_WRITE), 0, 0, &fd),
        CLOUDABI_ENOTCAPABLE);
  check(T, "create",
        open_file(narrow, "c.txt", CLOUDABI_O_CREAT, R(FD_READ), 0, 0, &fd),
        CLOUDABI_ENOTCAPABLE);
  check(T, "unlink", unlink_path(narrow, "s.txt", 0), CLOUDABI_ENOTCAPABLE);
  cloudabi_filestat_t fs;
  check(T, "stat", stat_path(narrow, "s.txt", false, &fs), 0);
  check(T, "stat_put",
        cloudabi_sys_file_stat_put(at(narrow, false), "s.txt", 5, &fs,
                                   CLOUDABI_FILESTAT_ATIM),
        CLOUDABI_ENOTCAPABLE);
  /* A directory opened beneath it can hand down no more either. */
  check(T, "open a subdirectory",
        open_file(narrow, "sub", CLOUDABI_O_DIRECTORY, R(FD_READ), 0, 0, &fd),
        0);
  check(T, "subdirectory rights",
        same(fdstat(fd).fs_rights_base == 0 &&
             fdstat(fd).fs_rights_inheriting == 0),
        0);
  RT_CHECK(cloudabi_sys_fd_close(fd) == 0);
  /* fd_stat_put narrows further, never widens. */
  cloudabi_fd_t d = narrowed(narrow, R(FILE_STAT_GET), R(FD_READ));
  check(T, "narrowed again: open",
        open_file(d, "s.txt", 0, R(FD_READ), 0, 0, &fd), CLOUDABI_ENOTCAPABLE);
  cloudabi_fdstat_t wide = {.fs_rights_base = R(FILE_STAT_GET) | R(FILE_OPEN)};
  check(T, "widening",
        cloudabi_sys_fd_stat_put(d, &wide, CLOUDABI_FDSTAT_RIGHTS),
        CLOUDABI_ENOTCAPABLE);
  RT_CHECK(cloudabi_sys_fd_close(d) == 0);
}

void program_main(const argdata_t *ad) {
  rt_log_fd = rt_map_fd(ad, "out");
  dir = rt_map_fd(ad, "dir");
  test_open();
  test_readdir();
  test_stat();
  test_names();
  test_map();
  test_io();
  test_narrowed(rt_map_fd(ad, "narrow"));
  check_done("files_sem");
}
