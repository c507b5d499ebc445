/*
 * Where Linux and FreeBSD differ and CloudABI programs expect FreeBSD:
 * unknown protection bits, the order of value, descriptor and rights
 * checks, unlinking through "symlink/", exec of a write-only file, DSYNC
 * under FD_SYNC, and plain YAML scalars as upstream's last release reads
 * them.  Config: out (stdout), dir (an empty directory), syncdir (the
 * same directory, whose inheriting rights have FD_SYNC but not
 * FD_DATASYNC), nodsync (the same, with neither), and the plain
 * scalars n: 1, yes: on, date: 2001-01-01.
 */
#include "check.h"
#include "trap.h"

/* Neither open nor ever opened: a descriptor number out of range. */
#define NO_FD ((cloudabi_fd_t)9999)

static cloudabi_fd_t dir;

static cloudabi_errno_t same(bool ok) {
  return ok ? 0 : WRONG_RESULT;
}

/* A trapped call made directly, as a program that skips the vDSO would. */
static cloudabi_errno_t trap(unsigned sysno, long a0, long a1, long a2,
                             long a3, long a4, long a5) {
  long r = rt_raw_syscall(TRAP_NR_BASE + sysno, a0, a1, a2, a3, a4, a5);
  if (r <= -TRAP_ERRNO_BIAS && r > -(TRAP_ERRNO_BIAS + 0x100))
    return (cloudabi_errno_t)(-r - TRAP_ERRNO_BIAS);
  return r < 0 ? WRONG_RESULT : 0;
}

static void test_prot(void) {
  const char *T = "prot";
  void *p;
  RT_CHECK(cloudabi_sys_mem_map(NULL, 4096,
                                CLOUDABI_PROT_READ | CLOUDABI_PROT_WRITE,
                                CLOUDABI_MAP_ANON | CLOUDABI_MAP_PRIVATE,
                                CLOUDABI_MAP_ANON_FD, 0, &p) == 0);
  check(T, "mem_protect unknown bits",
        cloudabi_sys_mem_protect(p, 4096, (cloudabi_mprot_t)0xdeadc0de),
        CLOUDABI_ENOTSUP);
  void *q;
  check(T, "mem_map anon unknown bits",
        cloudabi_sys_mem_map(NULL, 4096, (cloudabi_mprot_t)0xdeadc0de,
                             CLOUDABI_MAP_ANON | CLOUDABI_MAP_PRIVATE,
                             CLOUDABI_MAP_ANON_FD, 0, &q),
        CLOUDABI_ENOTSUP);
  cloudabi_fd_t f;
  put_file(dir, "m.txt", "mapped");
  RT_CHECK(open_file(dir, "m.txt", 0, R(FD_READ) | R(MEM_MAP), 0, 0, &f) ==
           0);
  check(T, "mem_map file unknown bits",
        cloudabi_sys_mem_map(NULL, 4096, (cloudabi_mprot_t)0xdeadc0de,
                             CLOUDABI_MAP_SHARED, f, 0, &q),
        CLOUDABI_ENOTSUP);
  /* The trapped call itself, without the vDSO's own check. */
  check(T, "mem_map trap unknown bits",
        trap(CLOUDABI_SYS_mem_map, 0, 4096, 0xde, CLOUDABI_MAP_SHARED, f, 0),
        CLOUDABI_ENOTSUP);
  RT_CHECK(cloudabi_sys_fd_close(f) == 0);
  RT_CHECK(cloudabi_sys_mem_unmap(p, 4096) == 0);
}

/* Values first, then the descriptor, then its rights. */
static void test_order(void) {
  const char *T = "order";
  cloudabi_fd_t f, weak;
  put_file(dir, "o.txt", "x");
  RT_CHECK(open_file(dir, "o.txt", 0, R(FD_READ), 0, 0, &f) == 0);
  weak = f; /* holds no FILE_ADVISE, FD_SEEK, FILE_CREATE_*, ... */
  check(T, "advise bad value, bad fd",
        cloudabi_sys_file_advise(NO_FD, 0, 0, (cloudabi_advice_t)0x77),
        CLOUDABI_EINVAL);
  check(T, "advise bad value, no right",
        cloudabi_sys_file_advise(weak, 0, 0, (cloudabi_advice_t)0x77),
        CLOUDABI_EINVAL);
  check(T, "advise good value, bad fd",
        cloudabi_sys_file_advise(NO_FD, 0, 0, CLOUDABI_ADVICE_NORMAL),
        CLOUDABI_EBADF);
  check(T, "advise good value, no right",
        cloudabi_sys_file_advise(weak, 0, 0, CLOUDABI_ADVICE_NORMAL),
        CLOUDABI_ENOTCAPABLE);
  cloudabi_filesize_t off;
  check(T, "seek bad whence, bad fd",
        cloudabi_sys_fd_seek(NO_FD, 0, (cloudabi_whence_t)99, &off),
        CLOUDABI_EINVAL);
  check(T, "unlink bad flags, bad fd",
        cloudabi_sys_file_unlink(NO_FD, "x", 1, (cloudabi_ulflags_t)0x80),
        CLOUDABI_EINVAL);
  check(T, "unlink bad flags, no right",
        cloudabi_sys_file_unlink(weak, "x", 1, (cloudabi_ulflags_t)0x80),
        CLOUDABI_EINVAL);
  check(T, "create regular file, bad fd",
        cloudabi_sys_file_create(NO_FD, "x", 1, CLOUDABI_FILETYPE_REGULAR_FILE),
        CLOUDABI_EINVAL);
  check(T, "shutdown none, bad fd", cloudabi_sys_sock_shutdown(NO_FD, 0),
        CLOUDABI_EINVAL);
  cloudabi_fdstat_t fds = {.fs_rights_base = R(FD_READ)};
  cloudabi_lookup_t l = {NO_FD, 0x80};
  check(T, "open bad lookup flags, bad fd",
        cloudabi_sys_file_open(l, "x", 1, 0, &fds, &f), CLOUDABI_EINVAL);
  check(T, "open bad oflags, bad fd",
        cloudabi_sys_file_open(at(NO_FD, false), "x", 1,
                               (cloudabi_oflags_t)0x8000, &fds, &f),
        CLOUDABI_EINVAL);
  check(T, "fd_stat_put bad flags, bad fd",
        cloudabi_sys_fd_stat_put(NO_FD, &fds, (cloudabi_fdsflags_t)0x40),
        CLOUDABI_EINVAL);
  cloudabi_filestat_t st = {0};
  check(T, "stat_fput size and times, bad fd",
        cloudabi_sys_file_stat_fput(NO_FD, &st,
                                    CLOUDABI_FILESTAT_SIZE |
                                        CLOUDABI_FILESTAT_MTIM_NOW),
        CLOUDABI_EINVAL);
  RT_CHECK(cloudabi_sys_fd_close(weak) == 0);
}

static cloudabi_errno_t symlink_to(const char *target, const char *name) {
  return cloudabi_sys_file_symlink(target, strlen(target), dir, name,
                                   strlen(name));
}

static cloudabi_errno_t mkdir_at(const char *name) {
  return cloudabi_sys_file_create(dir, name, strlen(name),
                                  CLOUDABI_FILETYPE_DIRECTORY);
}

/* "link/" names what the link points to, as on FreeBSD. */
static void test_unlink_slash(void) {
  const char *T = "unlink symlink/";
  cloudabi_filestat_t st;
  RT_CHECK(mkdir_at("target") == 0);
  RT_CHECK(symlink_to("target", "link") == 0);
  RT_CHECK(symlink_to("link", "link2") == 0);
  check(T, "unlink of a directory", unlink_path(dir, "link/", 0),
        CLOUDABI_EPERM);
  check(T, "target still there", stat_path(dir, "target", false, &st), 0);
  check(T, "removedir through two links",
        unlink_path(dir, "link2/", CLOUDABI_UNLINK_REMOVEDIR), 0);
  check(T, "target gone", stat_path(dir, "target", false, &st),
        CLOUDABI_ENOENT);
  check(T, "link stays", stat_path(dir, "link", false, &st), 0);
  check(T, "dangling link/", unlink_path(dir, "link/", 0), CLOUDABI_ENOENT);
  /* In a subdirectory: the link's target is relative to the link. */
  RT_CHECK(mkdir_at("sub") == 0);
  RT_CHECK(mkdir_at("sub/t") == 0);
  RT_CHECK(cloudabi_sys_file_symlink("t", 1, dir, "sub/l", 5) == 0);
  check(T, "removedir in a subdirectory",
        unlink_path(dir, "sub/l/", CLOUDABI_UNLINK_REMOVEDIR), 0);
  check(T, "sub/t gone", stat_path(dir, "sub/t", false, &st),
        CLOUDABI_ENOENT);
  /* A link to a file is no directory; one out of the directory stays out. */
  put_file(dir, "file", "f");
  RT_CHECK(symlink_to("file", "flink") == 0);
  check(T, "link to a file", unlink_path(dir, "flink/", 0), CLOUDABI_ENOTDIR);
  check(T, "link to a file, removedir",
        unlink_path(dir, "flink/", CLOUDABI_UNLINK_REMOVEDIR),
        CLOUDABI_ENOTDIR);
  RT_CHECK(symlink_to("../..", "up") == 0);
  check(T, "link out of the directory",
        unlink_path(dir, "up/", CLOUDABI_UNLINK_REMOVEDIR),
        CLOUDABI_ENOTCAPABLE);
  RT_CHECK(symlink_to("/tmp", "abs") == 0);
  check(T, "absolute link", unlink_path(dir, "abs/", CLOUDABI_UNLINK_REMOVEDIR),
        CLOUDABI_ENOTCAPABLE);
  RT_CHECK(symlink_to("loop", "loop") == 0);
  check(T, "link to itself", unlink_path(dir, "loop/", 0), CLOUDABI_ELOOP);
  /* A plain directory behaves as before. */
  RT_CHECK(mkdir_at("plain") == 0);
  check(T, "plain dir/", unlink_path(dir, "plain/", 0), CLOUDABI_EPERM);
  check(T, "plain dir/, removedir",
        unlink_path(dir, "plain/", CLOUDABI_UNLINK_REMOVEDIR), 0);
}

static void test_exec_write_only(void) {
  const char *T = "proc_exec";
  cloudabi_fd_t f;
  put_file(dir, "prog", "not a program");
  RT_CHECK(open_file(dir, "prog", 0, R(FD_WRITE) | R(PROC_EXEC), 0, 0, &f) ==
           0);
  check(T, "write-only descriptor",
        cloudabi_sys_proc_exec(f, NULL, 0, NULL, 0), CLOUDABI_EBADF);
  RT_CHECK(cloudabi_sys_fd_close(f) == 0);
  RT_CHECK(open_file(dir, "prog", 0, R(FD_READ) | R(PROC_EXEC), 0, 0, &f) ==
           0);
  check(T, "readable, not a program",
        cloudabi_sys_proc_exec(f, NULL, 0, NULL, 0), CLOUDABI_ENOEXEC);
  RT_CHECK(cloudabi_sys_fd_close(f) == 0);
}

static void test_dsync(cloudabi_fd_t syncdir, cloudabi_fd_t nodsync) {
  const char *T = "dsync";
  cloudabi_fd_t f;
  put_file(dir, "s.txt", "s");
  check(T, "FD_SYNC allows DSYNC",
        open_file(syncdir, "s.txt", 0, R(FD_WRITE), 0, CLOUDABI_FDFLAG_DSYNC,
                  &f),
        0);
  check(T, "flag kept", same(fdstat(f).fs_flags == CLOUDABI_FDFLAG_DSYNC), 0);
  RT_CHECK(cloudabi_sys_fd_close(f) == 0);
  check(T, "FD_SYNC allows RSYNC",
        open_file(syncdir, "s.txt", 0, R(FD_READ), 0, CLOUDABI_FDFLAG_RSYNC,
                  &f),
        0);
  RT_CHECK(cloudabi_sys_fd_close(f) == 0);
  check(T, "neither right",
        open_file(nodsync, "s.txt", 0, R(FD_WRITE), 0, CLOUDABI_FDFLAG_DSYNC,
                  &f),
        CLOUDABI_ENOTCAPABLE);
}

static void test_scalars(const argdata_t *ad) {
  const char *T = "scalars";
  argdata_t v;
  check(T, "key n is a string", same(rt_map_get(ad, "n", &v)), 0);
  check(T, "n: 1", same(rt_map_int(ad, "n", -1) == 1), 0);
  const char *on = rt_map_str(ad, "yes", NULL);
  check(T, "yes: on is the string on",
        same(on != NULL && strcmp(on, "on") == 0), 0);
  const char *date = rt_map_str(ad, "date", NULL);
  check(T, "a date is a string",
        same(date != NULL && strcmp(date, "2001-01-01") == 0), 0);
}

/* 13.7: a stream read ends where a message with descriptors begins, and
 * after it, whether the reader takes descriptors or not. */
static void stream_reads(const char *T, bool by_recv, size_t room) {
  cloudabi_fd_t a, b;
  RT_EXPECT(cloudabi_sys_fd_create2(CLOUDABI_FILETYPE_SOCKET_STREAM, &a, &b),
            0);
  size_t n;
  cloudabi_ciovec_t one = {"A", 1}, three = {"DE", 2}, two = {"BC", 2};
  RT_EXPECT(cloudabi_sys_fd_write(a, &one, 1, &n), 0);
  cloudabi_fd_t pass[2] = {dir, dir};
  cloudabi_send_in_t sin = {&two, 1, pass, 2, 0};
  cloudabi_send_out_t sout;
  RT_EXPECT(cloudabi_sys_sock_send(a, &sin, &sout), 0);
  RT_EXPECT(cloudabi_sys_fd_write(a, &three, 1, &n), 0);
  static const char *const want[3] = {"A", "BC", "DE"};
  for (int i = 0; i < 3; i++) {
    char buf[1024];
    cloudabi_iovec_t iov = {buf, sizeof(buf)};
    size_t got = 0;
    if (by_recv) {
      cloudabi_fd_t fds[2] = {99, 99};
      cloudabi_recv_in_t rin = {&iov, 1, fds, room, 0};
      cloudabi_recv_out_t rout;
      RT_EXPECT(cloudabi_sys_sock_recv(b, &rin, &rout), 0);
      got = rout.ro_datalen;
      for (size_t k = 0; k < rout.ro_fdslen; k++)
        RT_EXPECT(cloudabi_sys_fd_close(fds[k]), 0);
    } else {
      RT_EXPECT(cloudabi_sys_fd_read(b, &iov, 1, &got), 0);
    }
    bool same = got == strlen(want[i]) && memcmp(buf, want[i], got) == 0;
    check(T, want[i], same ? 0 : WRONG_RESULT, 0);
  }
  RT_EXPECT(cloudabi_sys_fd_close(a), 0);
  RT_EXPECT(cloudabi_sys_fd_close(b), 0);
}

void program_main(const argdata_t *ad) {
  rt_log_fd = rt_map_fd(ad, "out");
  dir = rt_map_fd(ad, "dir");
  test_prot();
  test_order();
  test_unlink_slash();
  test_exec_write_only();
  test_dsync(rt_map_fd(ad, "syncdir"), rt_map_fd(ad, "nodsync"));
  test_scalars(ad);
  stream_reads("stream fd_read", false, 0);
  stream_reads("stream sock_recv, no room", true, 0);
  stream_reads("stream sock_recv, room", true, 2);
  check_done("freebsd_sem");
}
