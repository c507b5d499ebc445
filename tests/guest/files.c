/*
 * Every fd_* and file_* call (and mem_map of a file) against one table.
 * Each row names a call, the kind of descriptor it succeeds on and the
 * rights it needs; the runner then checks, for that row:
 *   - success on a descriptor with all rights (and the result, where the
 *     call has one: a wrong result is reported as errno WRONG_RESULT);
 *   - ENOTCAPABLE with each needed base right taken away in turn, and
 *     with each right the directory must hand down taken from its
 *     inheriting rights;
 *   - EBADF for a number never opened and for one just closed;
 *   - the errno for descriptors of the wrong types;
 *   - EFAULT for a bad pointer the supervisor has to read or write (out
 *     parameters are stored by the vDSO in the guest and so fault there,
 *     as on FreeBSD; they are not in the table);
 *   - a clean error for an oversized length or offset.
 * Config: out (stdout), dir (an empty directory), dev (/dev/null).
 */
#include "check.h"

enum role { NONE, DIR, FILE, SHM, SOCK, DEV, NROLES };
static cloudabi_fd_t role_fd[NROLES];
static const char *const role_name[NROLES] = {"-",   "directory", "file",
                                              "shm", "socket",    "device"};

/* How a row's call is made: properly, with a bad pointer, or with a
 * length or offset beyond what can work. */
enum how { OK, BADPTR, OVERSIZE };

typedef cloudabi_errno_t call_fn(cloudabi_fd_t fd, enum how how);

struct wrong {
  enum role role;
  cloudabi_errno_t want;
};

struct row {
  const char *name;
  call_fn *call;
  enum role good;
  cloudabi_rights_t base;       /* each one needed on the descriptor */
  cloudabi_rights_t inheriting; /* each one needed in its inheriting */
  struct wrong wrong[2];
  cloudabi_errno_t badptr;   /* 0: no pointer the supervisor touches */
  cloudabi_errno_t oversize; /* 0: no length to overdo */
};

#define LONG_LEN 5000 /* more than PATH_MAX */
static char long_path[LONG_LEN];
static char *edge; /* 4096 bytes followed by an unmapped page */

/* Bytes at the start of the file role: the table's calls keep them. */
#define CONTENT "0123456789"

static size_t plen(enum how how, const char *p) {
  return how == OVERSIZE ? LONG_LEN : strlen(p);
}
static const char *pptr(enum how how, const char *p) {
  if (how == BADPTR)
    return BAD_PTR;
  return how == OVERSIZE ? long_path : p;
}

/* ---- fd_* ---- */

static cloudabi_errno_t c_datasync(cloudabi_fd_t fd, enum how how) {
  (void)how;
  return cloudabi_sys_fd_datasync(fd);
}

static cloudabi_errno_t c_sync(cloudabi_fd_t fd, enum how how) {
  (void)how;
  return cloudabi_sys_fd_sync(fd);
}

static cloudabi_errno_t c_pread(cloudabi_fd_t fd, enum how how) {
  char buf[4];
  cloudabi_iovec_t iov = {buf, sizeof(buf)};
  size_t n = 0;
  cloudabi_errno_t e = cloudabi_sys_fd_pread(fd, how == BADPTR ? BAD_PTR : &iov,
                                             how == OVERSIZE ? 1025 : 1, 2, &n);
  if (e == 0 && (n != 4 || memcmp(buf, "2345", 4) != 0))
    return WRONG_RESULT;
  return e;
}

static cloudabi_errno_t c_pwrite(cloudabi_fd_t fd, enum how how) {
  cloudabi_ciovec_t iov = {how == BADPTR ? BAD_PTR : "01", 2};
  size_t n = 0;
  cloudabi_errno_t e =
      cloudabi_sys_fd_pwrite(fd, &iov, how == OVERSIZE ? 1025 : 1, 0, &n);
  return e == 0 && n != 2 ? WRONG_RESULT : e;
}

static cloudabi_errno_t c_seek(cloudabi_fd_t fd, enum how how) {
  cloudabi_filesize_t off = 0;
  /* Oversized: before the start of the file. */
  cloudabi_errno_t e = cloudabi_sys_fd_seek(fd, how == OVERSIZE ? -1 : 3,
                                            CLOUDABI_WHENCE_SET, &off);
  return e == 0 && off != 3 ? WRONG_RESULT : e;
}

static cloudabi_errno_t c_advise(cloudabi_fd_t fd, enum how how) {
  return cloudabi_sys_file_advise(fd, how == OVERSIZE ? 1ull << 63 : 0, 10,
                                  CLOUDABI_ADVICE_NORMAL);
}

static cloudabi_errno_t c_allocate(cloudabi_fd_t fd, enum how how) {
  /* Oversized: the end would be beyond the largest file offset. */
  return cloudabi_sys_file_allocate(fd, how == OVERSIZE ? (1ull << 63) - 2 : 0,
                                    10);
}

/* ---- file_* on a descriptor ---- */

static cloudabi_errno_t c_stat_fget(cloudabi_fd_t fd, enum how how) {
  cloudabi_filestat_t st;
  cloudabi_errno_t e =
      cloudabi_sys_file_stat_fget(fd, how == BADPTR ? BAD_PTR : &st);
  if (e == 0 &&
      (st.st_size != 10 || st.st_filetype != CLOUDABI_FILETYPE_REGULAR_FILE ||
       st.st_nlink != 1))
    return WRONG_RESULT;
  return e;
}

static cloudabi_errno_t c_fput_size(cloudabi_fd_t fd, enum how how) {
  cloudabi_filestat_t st = {.st_size = how == OVERSIZE ? 1ull << 63 : 10};
  return cloudabi_sys_file_stat_fput(fd, how == BADPTR ? BAD_PTR : &st,
                                     CLOUDABI_FILESTAT_SIZE);
}

static cloudabi_errno_t c_fput_times(cloudabi_fd_t fd, enum how how) {
  cloudabi_filestat_t st = {.st_atim = 1000000000ull * 1000000000ull};
  cloudabi_errno_t e = cloudabi_sys_file_stat_fput(
      fd, how == BADPTR ? BAD_PTR : &st,
      CLOUDABI_FILESTAT_ATIM | CLOUDABI_FILESTAT_MTIM_NOW);
  if (e != 0)
    return e;
  cloudabi_filestat_t got;
  RT_CHECK(cloudabi_sys_file_stat_fget(role_fd[FILE], &got) == 0);
  return got.st_atim == st.st_atim ? 0 : WRONG_RESULT;
}

static cloudabi_errno_t c_readdir(cloudabi_fd_t fd, enum how how) {
  char buf[4096];
  size_t used = 0;
  void *p = how == BADPTR ? BAD_PTR : how == OVERSIZE ? edge : buf;
  size_t len = how == OVERSIZE ? (size_t)1 << 40 : sizeof(buf);
  cloudabi_errno_t e = cloudabi_sys_file_readdir(fd, p, len, 0, &used);
  /* The directory holds more than 4096 bytes of entries. */
  return e == 0 && used != sizeof(buf) ? WRONG_RESULT : e;
}

/* ---- file_* on names ---- */

static cloudabi_errno_t c_create(cloudabi_fd_t fd, enum how how) {
  cloudabi_errno_t e = cloudabi_sys_file_create(
      fd, pptr(how, "made"), plen(how, "made"), CLOUDABI_FILETYPE_DIRECTORY);
  if (e == 0)
    RT_CHECK(unlink_path(role_fd[DIR], "made", CLOUDABI_UNLINK_REMOVEDIR) == 0);
  return e;
}

static cloudabi_errno_t c_link(cloudabi_fd_t fd, enum how how) {
  cloudabi_errno_t e =
      cloudabi_sys_file_link(at(fd, false), "src.txt", 7, fd,
                             pptr(how, "hard.txt"), plen(how, "hard.txt"));
  if (e == 0) {
    cloudabi_filestat_t st;
    RT_CHECK(stat_path(role_fd[DIR], "src.txt", false, &st) == 0);
    RT_CHECK(unlink_path(role_fd[DIR], "hard.txt", 0) == 0);
    if (st.st_nlink != 2)
      return WRONG_RESULT;
  }
  return e;
}

static cloudabi_errno_t c_open(cloudabi_fd_t fd, enum how how) {
  cloudabi_fd_t nfd;
  cloudabi_fdstat_t fds = {.fs_rights_base = R(FD_READ) | R(FILE_STAT_FGET)};
  cloudabi_errno_t e = cloudabi_sys_file_open(
      at(fd, false), pptr(how, "src.txt"), plen(how, "src.txt"), 0, &fds, &nfd);
  if (e != 0)
    return e;
  cloudabi_fdstat_t st = fdstat(nfd);
  RT_CHECK(cloudabi_sys_fd_close(nfd) == 0);
  return st.fs_rights_base == fds.fs_rights_base &&
                 st.fs_filetype == CLOUDABI_FILETYPE_REGULAR_FILE
             ? 0
             : WRONG_RESULT;
}

static cloudabi_errno_t c_open_fds_ptr(cloudabi_fd_t fd, enum how how) {
  if (how != BADPTR)
    return c_open(fd, how);
  cloudabi_fd_t nfd;
  return cloudabi_sys_file_open(at(fd, false), "src.txt", 7, 0, BAD_PTR, &nfd);
}

static cloudabi_errno_t c_open_create(cloudabi_fd_t fd, enum how how) {
  cloudabi_fd_t nfd;
  cloudabi_fdstat_t fds = {.fs_rights_base = R(FD_WRITE)};
  cloudabi_errno_t e = cloudabi_sys_file_open(
      at(fd, false), pptr(how, "new.txt"), plen(how, "new.txt"),
      CLOUDABI_O_CREAT | CLOUDABI_O_EXCL, &fds, &nfd);
  if (e != 0)
    return e;
  RT_CHECK(cloudabi_sys_fd_close(nfd) == 0);
  RT_CHECK(unlink_path(role_fd[DIR], "new.txt", 0) == 0);
  return 0;
}

static cloudabi_errno_t c_open_trunc(cloudabi_fd_t fd, enum how how) {
  put_file(role_fd[DIR], "trunc.txt", "xyz");
  cloudabi_fd_t nfd;
  cloudabi_fdstat_t fds = {.fs_rights_base = R(FD_WRITE)};
  cloudabi_errno_t e = cloudabi_sys_file_open(
      at(fd, false), pptr(how, "trunc.txt"), plen(how, "trunc.txt"),
      CLOUDABI_O_TRUNC, &fds, &nfd);
  if (e != 0)
    return e;
  RT_CHECK(cloudabi_sys_fd_close(nfd) == 0);
  cloudabi_filestat_t st;
  RT_CHECK(stat_path(role_fd[DIR], "trunc.txt", false, &st) == 0);
  return st.st_size == 0 ? 0 : WRONG_RESULT;
}

static cloudabi_errno_t c_readlink(cloudabi_fd_t fd, enum how how) {
  char buf[64];
  size_t used = 0;
  cloudabi_errno_t e = cloudabi_sys_file_readlink(
      fd, how == OVERSIZE ? long_path : "sym", how == OVERSIZE ? LONG_LEN : 3,
      how == BADPTR ? BAD_PTR : buf, sizeof(buf), &used);
  return e == 0 && (used != 7 || memcmp(buf, "src.txt", 7) != 0) ? WRONG_RESULT
                                                                 : e;
}

static cloudabi_errno_t c_rename(cloudabi_fd_t fd, enum how how) {
  cloudabi_errno_t e = cloudabi_sys_file_rename(
      fd, "ren.a", 5, fd, pptr(how, "ren.b"), plen(how, "ren.b"));
  if (e == 0)
    RT_CHECK(cloudabi_sys_file_rename(role_fd[DIR], "ren.b", 5, role_fd[DIR],
                                      "ren.a", 5) == 0);
  return e;
}

static cloudabi_errno_t c_stat_get(cloudabi_fd_t fd, enum how how) {
  cloudabi_filestat_t st;
  cloudabi_errno_t e = cloudabi_sys_file_stat_get(
      at(fd, false), how == OVERSIZE ? long_path : "src.txt",
      how == OVERSIZE ? LONG_LEN : 7, how == BADPTR ? BAD_PTR : &st);
  return e == 0 && st.st_size != 3 ? WRONG_RESULT : e;
}

static cloudabi_errno_t c_stat_put(cloudabi_fd_t fd, enum how how) {
  cloudabi_filestat_t st = {.st_mtim = 42000000000ull};
  cloudabi_errno_t e = cloudabi_sys_file_stat_put(
      at(fd, false), how == OVERSIZE ? long_path : "src.txt",
      how == OVERSIZE ? LONG_LEN : 7, how == BADPTR ? BAD_PTR : &st,
      CLOUDABI_FILESTAT_MTIM);
  if (e != 0)
    return e;
  cloudabi_filestat_t got;
  RT_CHECK(stat_path(role_fd[DIR], "src.txt", false, &got) == 0);
  return got.st_mtim == st.st_mtim ? 0 : WRONG_RESULT;
}

static cloudabi_errno_t c_symlink(cloudabi_fd_t fd, enum how how) {
  cloudabi_errno_t e = cloudabi_sys_file_symlink(
      pptr(how, "anywhere"), plen(how, "anywhere"), fd, "made.lnk", 8);
  if (e == 0)
    RT_CHECK(unlink_path(role_fd[DIR], "made.lnk", 0) == 0);
  return e;
}

static cloudabi_errno_t c_unlink(cloudabi_fd_t fd, enum how how) {
  put_file(role_fd[DIR], "victim", "");
  cloudabi_errno_t e =
      cloudabi_sys_file_unlink(fd, pptr(how, "victim"), plen(how, "victim"), 0);
  cloudabi_filestat_t st;
  if (e == 0 &&
      stat_path(role_fd[DIR], "victim", false, &st) != CLOUDABI_ENOENT)
    return WRONG_RESULT;
  return e;
}

/* ---- mem_map ---- */

static cloudabi_errno_t map_check(cloudabi_fd_t fd, enum how how,
                                  cloudabi_mprot_t prot,
                                  cloudabi_mflags_t flags) {
  void *p;
  size_t len = how == OVERSIZE ? (size_t)1 << 47 : 4096;
  cloudabi_errno_t e = cloudabi_sys_mem_map(NULL, len, prot, flags, fd, 0, &p);
  if (e != 0)
    return e;
  bool ok = (prot & CLOUDABI_PROT_READ) == 0 || memcmp(p, CONTENT, 10) == 0;
  RT_CHECK(cloudabi_sys_mem_unmap(p, len) == 0);
  return ok ? 0 : WRONG_RESULT;
}

static cloudabi_errno_t c_map_read(cloudabi_fd_t fd, enum how how) {
  return map_check(fd, how, CLOUDABI_PROT_READ, CLOUDABI_MAP_PRIVATE);
}

static cloudabi_errno_t c_map_private_write(cloudabi_fd_t fd, enum how how) {
  return map_check(fd, how, CLOUDABI_PROT_READ | CLOUDABI_PROT_WRITE,
                   CLOUDABI_MAP_PRIVATE);
}

static cloudabi_errno_t c_map_shared_write(cloudabi_fd_t fd, enum how how) {
  return map_check(fd, how, CLOUDABI_PROT_READ | CLOUDABI_PROT_WRITE,
                   CLOUDABI_MAP_SHARED);
}

static cloudabi_errno_t c_map_exec(cloudabi_fd_t fd, enum how how) {
  return map_check(fd, how, CLOUDABI_PROT_READ | CLOUDABI_PROT_EXEC,
                   CLOUDABI_MAP_PRIVATE);
}

#define NOTCAP CLOUDABI_ENOTCAPABLE
#define PATH_ERRS CLOUDABI_EFAULT, CLOUDABI_ENAMETOOLONG

/* Laid out by hand: one row per call reads as a table. */
// clang-format off
static const struct row table[] = {
    /* name, call, good, base rights, inheriting rights,
     * {wrong types}, bad pointer, oversized */
    {"fd_datasync", c_datasync, FILE, R(FD_DATASYNC), 0,
     {{SOCK, NOTCAP}, {DIR, NOTCAP}}, 0, 0},
    {"fd_sync", c_sync, FILE, R(FD_SYNC), 0, {{SOCK, NOTCAP}, {SHM, NOTCAP}},
     0, 0},
    {"fd_sync(dir)", c_sync, DIR, R(FD_SYNC), 0, {{SOCK, NOTCAP}}, 0, 0},
    {"fd_pread", c_pread, FILE, R(FD_READ) | R(FD_SEEK), 0,
     {{DIR, NOTCAP}, {SOCK, NOTCAP}}, CLOUDABI_EFAULT, CLOUDABI_EINVAL},
    {"fd_pwrite", c_pwrite, FILE, R(FD_WRITE) | R(FD_SEEK), 0,
     {{DIR, NOTCAP}, {SHM, NOTCAP}}, CLOUDABI_EFAULT, CLOUDABI_EINVAL},
    {"fd_seek", c_seek, FILE, R(FD_SEEK), 0, {{SOCK, NOTCAP}, {DIR, NOTCAP}},
     0, CLOUDABI_EINVAL},
    {"file_advise", c_advise, FILE, R(FILE_ADVISE), 0,
     {{SOCK, NOTCAP}, {SHM, NOTCAP}}, 0, CLOUDABI_EINVAL},
    {"file_allocate", c_allocate, FILE, R(FILE_ALLOCATE), 0,
     {{DIR, NOTCAP}, {SOCK, NOTCAP}}, 0, CLOUDABI_EFBIG},
    {"file_stat_fget", c_stat_fget, FILE, R(FILE_STAT_FGET), 0, {{NONE, 0}},
     CLOUDABI_EFAULT, 0},
    {"file_stat_fput(size)", c_fput_size, FILE, R(FILE_STAT_FPUT_SIZE), 0,
     {{DIR, NOTCAP}, {SOCK, NOTCAP}}, CLOUDABI_EFAULT, CLOUDABI_EFBIG},
    {"file_stat_fput(times)", c_fput_times, FILE, R(FILE_STAT_FPUT_TIMES), 0,
     {{SOCK, NOTCAP}, {SHM, NOTCAP}}, CLOUDABI_EFAULT, 0},
    {"file_readdir", c_readdir, DIR, R(FILE_READDIR), 0,
     {{FILE, NOTCAP}, {DEV, CLOUDABI_ENOTDIR}}, CLOUDABI_EFAULT,
     CLOUDABI_EFAULT},
    {"file_create", c_create, DIR, R(FILE_CREATE_DIRECTORY), 0,
     {{FILE, NOTCAP}, {DEV, CLOUDABI_ENOTDIR}}, PATH_ERRS},
    {"file_link", c_link, DIR, R(FILE_LINK_SOURCE) | R(FILE_LINK_TARGET), 0,
     {{FILE, NOTCAP}, {DEV, CLOUDABI_ENOTDIR}}, PATH_ERRS},
    {"file_open", c_open, DIR, R(FILE_OPEN), R(FD_READ) | R(FILE_STAT_FGET),
     {{FILE, NOTCAP}, {DEV, CLOUDABI_ENOTDIR}}, PATH_ERRS},
    {"file_open(fdstat)", c_open_fds_ptr, DIR, R(FILE_OPEN),
     R(FD_READ) | R(FILE_STAT_FGET), {{SOCK, NOTCAP}}, CLOUDABI_EFAULT, 0},
    {"file_open(creat)", c_open_create, DIR, R(FILE_OPEN) | R(FILE_CREATE_FILE),
     R(FD_WRITE), {{FILE, NOTCAP}}, PATH_ERRS},
    {"file_open(trunc)", c_open_trunc, DIR, R(FILE_OPEN),
     R(FD_WRITE) | R(FILE_STAT_FPUT_SIZE), {{FILE, NOTCAP}}, PATH_ERRS},
    {"file_readlink", c_readlink, DIR, R(FILE_READLINK), 0,
     {{FILE, NOTCAP}, {DEV, CLOUDABI_ENOTDIR}}, PATH_ERRS},
    {"file_rename", c_rename, DIR,
     R(FILE_RENAME_SOURCE) | R(FILE_RENAME_TARGET), 0,
     {{FILE, NOTCAP}, {DEV, CLOUDABI_ENOTDIR}}, PATH_ERRS},
    {"file_stat_get", c_stat_get, DIR, R(FILE_STAT_GET), 0,
     {{FILE, NOTCAP}, {DEV, CLOUDABI_ENOTDIR}}, PATH_ERRS},
    {"file_stat_put", c_stat_put, DIR, R(FILE_STAT_PUT_TIMES), 0,
     {{FILE, NOTCAP}, {DEV, CLOUDABI_ENOTDIR}}, PATH_ERRS},
    {"file_symlink", c_symlink, DIR, R(FILE_SYMLINK), 0,
     {{FILE, NOTCAP}, {DEV, CLOUDABI_ENOTDIR}}, PATH_ERRS},
    {"file_unlink", c_unlink, DIR, R(FILE_UNLINK), 0,
     {{FILE, NOTCAP}, {DEV, CLOUDABI_ENOTDIR}}, PATH_ERRS},
    /* Mapping a file needs FD_READ even for PROT_NONE (see src/calls/mem.c); a
     * mapping length no address space has: ENOMEM from the kernel. */
    {"mem_map(read)", c_map_read, FILE, R(MEM_MAP) | R(FD_READ), 0,
     {{DIR, NOTCAP}, {DEV, CLOUDABI_ENODEV}}, 0, CLOUDABI_ENOMEM},
    {"mem_map(private write)", c_map_private_write, FILE,
     R(MEM_MAP) | R(FD_READ), 0, {{SOCK, NOTCAP}}, 0, CLOUDABI_ENOMEM},
    {"mem_map(shared write)", c_map_shared_write, FILE,
     R(MEM_MAP) | R(FD_READ) | R(FD_WRITE), 0, {{DIR, NOTCAP}}, 0,
     CLOUDABI_ENOMEM},
    {"mem_map(exec)", c_map_exec, FILE,
     R(MEM_MAP) | R(FD_READ) | R(MEM_MAP_EXEC), 0, {{SOCK, NOTCAP}}, 0,
     CLOUDABI_ENOMEM},
};
// clang-format on

static void run(const struct row *r) {
  char what[96];
  cloudabi_fd_t fd = role_fd[r->good];
  cloudabi_fdstat_t st = fdstat(fd);
  rt_snprintf(what, sizeof(what), "success on a %s", role_name[r->good]);
  check(r->name, what, r->call(fd, OK), 0);
  for (int bit = 0; bit < 64; bit++) {
    cloudabi_rights_t b = (cloudabi_rights_t)1 << bit;
    for (int side = 0; side < 2; side++) {
      if (((side == 0 ? r->base : r->inheriting) & b) == 0)
        continue;
      RT_CHECK(
          ((side == 0 ? st.fs_rights_base : st.fs_rights_inheriting) & b) != 0);
      cloudabi_fd_t d =
          side == 0
              ? narrowed(fd, st.fs_rights_base & ~b, st.fs_rights_inheriting)
              : narrowed(fd, st.fs_rights_base, st.fs_rights_inheriting & ~b);
      rt_snprintf(what, sizeof(what), "without %s right 0x%llx",
                  side == 0 ? "base" : "inheriting", (unsigned long long)b);
      check(r->name, what, r->call(d, OK), CLOUDABI_ENOTCAPABLE);
      RT_CHECK(cloudabi_sys_fd_close(d) == 0);
    }
  }
  check(r->name, "descriptor never opened", r->call(4242, OK), CLOUDABI_EBADF);
  check(r->name, "descriptor ~0", r->call(0xffffffff, OK), CLOUDABI_EBADF);
  cloudabi_fd_t closed;
  RT_CHECK(cloudabi_sys_fd_dup(fd, &closed) == 0);
  RT_CHECK(cloudabi_sys_fd_close(closed) == 0);
  check(r->name, "descriptor just closed", r->call(closed, OK), CLOUDABI_EBADF);
  for (int i = 0; i < 2; i++) {
    if (r->wrong[i].role == NONE)
      continue;
    rt_snprintf(what, sizeof(what), "on a %s", role_name[r->wrong[i].role]);
    check(r->name, what, r->call(role_fd[r->wrong[i].role], OK),
          r->wrong[i].want);
  }
  if (r->badptr != 0)
    check(r->name, "bad pointer", r->call(fd, BADPTR), r->badptr);
  if (r->oversize != 0)
    check(r->name, "oversized", r->call(fd, OVERSIZE), r->oversize);
  /* Nothing above may have changed the descriptor itself. */
  cloudabi_fdstat_t after = fdstat(fd);
  check(r->name, "rights unchanged",
        after.fs_rights_base == st.fs_rights_base &&
                after.fs_rights_inheriting == st.fs_rights_inheriting
            ? 0
            : WRONG_RESULT,
        0);
}

/* ---- calls without a descriptor argument: their own small tables ---- */

static void creates(void) {
  static const struct {
    cloudabi_filetype_t type;
    cloudabi_errno_t want1, want2;
  } types[] = {
      {CLOUDABI_FILETYPE_SHARED_MEMORY, 0, CLOUDABI_EINVAL},
      {CLOUDABI_FILETYPE_SOCKET_STREAM, CLOUDABI_EINVAL, 0},
      {CLOUDABI_FILETYPE_SOCKET_DGRAM, CLOUDABI_EINVAL, 0},
      {CLOUDABI_FILETYPE_REGULAR_FILE, CLOUDABI_EINVAL, CLOUDABI_EINVAL},
      {CLOUDABI_FILETYPE_DIRECTORY, CLOUDABI_EINVAL, CLOUDABI_EINVAL},
      {CLOUDABI_FILETYPE_UNKNOWN, CLOUDABI_EINVAL, CLOUDABI_EINVAL},
      {0xff, CLOUDABI_EINVAL, CLOUDABI_EINVAL},
  };
  for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
    char what[32];
    rt_snprintf(what, sizeof(what), "type 0x%x", types[i].type);
    cloudabi_fd_t a = 0, b = 0;
    cloudabi_errno_t e = cloudabi_sys_fd_create1(types[i].type, &a);
    check("fd_create1", what, e, types[i].want1);
    if (e == 0) {
      cloudabi_fdstat_t st = fdstat(a);
      check("fd_create1", "type and rights",
            st.fs_filetype == types[i].type &&
                    st.fs_rights_base ==
                        (R(FD_READ) | R(FD_WRITE) | R(FILE_STAT_FGET) |
                         R(FILE_STAT_FPUT_SIZE) | R(MEM_MAP) |
                         R(MEM_MAP_EXEC)) &&
                    st.fs_rights_inheriting == 0
                ? 0
                : WRONG_RESULT,
            0);
      RT_CHECK(cloudabi_sys_fd_close(a) == 0);
    }
    e = cloudabi_sys_fd_create2(types[i].type, &a, &b);
    check("fd_create2", what, e, types[i].want2);
    if (e != 0)
      continue;
    /* A connected pair: what goes in one end comes out of the other. */
    cloudabi_fdstat_t sa = fdstat(a), sb = fdstat(b);
    check("fd_create2", "two sockets",
          a != b && sa.fs_filetype == types[i].type &&
                  sb.fs_filetype == types[i].type &&
                  (sa.fs_rights_base & R(SOCK_SHUTDOWN)) != 0 &&
                  (sa.fs_rights_base & R(FD_SEEK)) == 0
              ? 0
              : WRONG_RESULT,
          0);
    size_t n;
    cloudabi_ciovec_t out = {"ping", 4};
    char buf[8];
    cloudabi_iovec_t in = {buf, sizeof(buf)};
    check("fd_create2", "write", cloudabi_sys_fd_write(a, &out, 1, &n), 0);
    check("fd_create2", "read", cloudabi_sys_fd_read(b, &in, 1, &n), 0);
    check("fd_create2", "data",
          n == 4 && memcmp(buf, "ping", 4) == 0 ? 0 : WRONG_RESULT, 0);
    RT_CHECK(cloudabi_sys_fd_close(a) == 0);
    RT_CHECK(cloudabi_sys_fd_close(b) == 0);
  }
}

/* fd_seek's right depends on its arguments: FD_TELL is enough to ask. */
static void seek_rights(void) {
  cloudabi_fd_t file = role_fd[FILE];
  cloudabi_fdstat_t st = fdstat(file);
  cloudabi_fd_t tell = narrowed(file, st.fs_rights_base & ~R(FD_SEEK), 0);
  cloudabi_fd_t none =
      narrowed(file, st.fs_rights_base & ~(R(FD_SEEK) | R(FD_TELL)), 0);
  cloudabi_filesize_t off;
  check("fd_seek", "tell with FD_TELL",
        cloudabi_sys_fd_seek(tell, 0, CLOUDABI_WHENCE_CUR, &off), 0);
  check("fd_seek", "move with FD_TELL only",
        cloudabi_sys_fd_seek(tell, 1, CLOUDABI_WHENCE_CUR, &off), NOTCAP);
  check("fd_seek", "set 0 with FD_TELL only",
        cloudabi_sys_fd_seek(tell, 0, CLOUDABI_WHENCE_SET, &off), NOTCAP);
  check("fd_seek", "tell without either",
        cloudabi_sys_fd_seek(none, 0, CLOUDABI_WHENCE_CUR, &off), NOTCAP);
  check("fd_seek", "bad whence", cloudabi_sys_fd_seek(file, 0, 0, &off),
        CLOUDABI_EINVAL);
  check("fd_seek", "whence 4", cloudabi_sys_fd_seek(file, 0, 4, &off),
        CLOUDABI_EINVAL);
  check("fd_seek", "end",
        cloudabi_sys_fd_seek(file, -2, CLOUDABI_WHENCE_END, &off), 0);
  check("fd_seek", "end offset", off == 8 ? 0 : WRONG_RESULT, 0);
  check("fd_seek", "tell",
        cloudabi_sys_fd_seek(tell, 0, CLOUDABI_WHENCE_CUR, &off), 0);
  check("fd_seek", "tell offset (shared)", off == 8 ? 0 : WRONG_RESULT, 0);
  RT_CHECK(cloudabi_sys_fd_close(tell) == 0);
  RT_CHECK(cloudabi_sys_fd_close(none) == 0);
}

void program_main(const argdata_t *ad) {
  rt_log_fd = rt_map_fd(ad, "out");
  role_fd[DIR] = rt_map_fd(ad, "dir");
  role_fd[DEV] = rt_map_fd(ad, "dev");
  cloudabi_fd_t dir = role_fd[DIR];
  /* A file with every right a directory can hand down. */
  RT_CHECK(open_file(dir, "file.txt", CLOUDABI_O_CREAT | CLOUDABI_O_TRUNC,
                     fdstat(dir).fs_rights_inheriting, 0, 0,
                     &role_fd[FILE]) == 0);
  RT_CHECK(rt_write_all(role_fd[FILE], CONTENT, 10) == 0);
  RT_CHECK(cloudabi_sys_fd_create1(CLOUDABI_FILETYPE_SHARED_MEMORY,
                                   &role_fd[SHM]) == 0);
  cloudabi_fd_t other;
  RT_CHECK(cloudabi_sys_fd_create2(CLOUDABI_FILETYPE_SOCKET_STREAM,
                                   &role_fd[SOCK], &other) == 0);
  /* What the rows work on. */
  put_file(dir, "src.txt", "abc");
  put_file(dir, "ren.a", "");
  RT_CHECK(cloudabi_sys_file_symlink("src.txt", 7, dir, "sym", 3) == 0);
  for (int i = 0; i < 200; i++) {
    char name[32];
    rt_snprintf(name, sizeof(name), "entry-with-a-longer-name-%03d", i);
    put_file(dir, name, "");
  }
  memset(long_path, 'a', sizeof(long_path));
  void *p;
  RT_CHECK(cloudabi_sys_mem_map(NULL, 8192,
                                CLOUDABI_PROT_READ | CLOUDABI_PROT_WRITE,
                                CLOUDABI_MAP_ANON | CLOUDABI_MAP_PRIVATE,
                                CLOUDABI_MAP_ANON_FD, 0, &p) == 0);
  edge = p;
  RT_CHECK(cloudabi_sys_mem_unmap(edge + 4096, 4096) == 0);

  for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
    run(&table[i]);
  creates();
  seek_rights();
  check_done("files");
}
