/*
 * fd_write, fd_read, fd_close, fd_dup, fd_replace, fd_stat_get and
 * fd_stat_put: success and every error path (EBADF, ENOTCAPABLE, EFAULT,
 * EINVAL), with results checked here and, through what is printed, by the
 * test.  Config: out (stdout), file (data.txt, read-only), ro (the same
 * file narrowed to FD_READ), in (stdin, a pipe).
 */
#include "rt.h"

#define R(x) CLOUDABI_RIGHT_##x
#define BAD_PTR ((void *)0x10)

static cloudabi_fd_t out, file, ro, in;

static void test_write(void) {
  const char msg[] = "write ok\n";
  cloudabi_ciovec_t iov = {msg, sizeof(msg) - 1};
  size_t n = 0;
  RT_EXPECT(cloudabi_sys_fd_write(out, &iov, 1, &n), 0);
  RT_CHECK(n == sizeof(msg) - 1);
  /* Several iovecs are written in order. */
  cloudabi_ciovec_t two[2] = {{"two ", 4}, {"iovecs\n", 7}};
  RT_EXPECT(cloudabi_sys_fd_write(out, two, 2, &n), 0);
  RT_CHECK(n == 11);
  RT_EXPECT(cloudabi_sys_fd_write(out, NULL, 0, &n), 0);
  RT_CHECK(n == 0);
  RT_EXPECT(cloudabi_sys_fd_write(1000, &iov, 1, &n), CLOUDABI_EBADF);
  RT_EXPECT(cloudabi_sys_fd_write(0xffffffff, &iov, 1, &n), CLOUDABI_EBADF);
  RT_EXPECT(cloudabi_sys_fd_write(file, &iov, 1, &n), CLOUDABI_ENOTCAPABLE);
  RT_EXPECT(cloudabi_sys_fd_write(out, BAD_PTR, 1, &n), CLOUDABI_EFAULT);
  cloudabi_ciovec_t bad = {BAD_PTR, 5};
  RT_EXPECT(cloudabi_sys_fd_write(out, &bad, 1, &n), CLOUDABI_EFAULT);
  RT_EXPECT(cloudabi_sys_fd_write(out, &iov, 1025, &n), CLOUDABI_EINVAL);
  RT_EXPECT(cloudabi_sys_fd_write(out, &iov, (size_t)1 << 40, &n),
            CLOUDABI_EINVAL);
  /* A length far beyond the buffer runs into unmapped memory: EFAULT. */
  void *page;
  RT_EXPECT(cloudabi_sys_mem_map(NULL, 8192, CLOUDABI_PROT_READ,
                                 CLOUDABI_MAP_ANON | CLOUDABI_MAP_PRIVATE,
                                 CLOUDABI_MAP_ANON_FD, 0, &page),
            0);
  RT_EXPECT(cloudabi_sys_mem_unmap((char *)page + 4096, 4096), 0);
  cloudabi_ciovec_t huge = {(char *)page + 4000, (size_t)1 << 62};
  RT_EXPECT(cloudabi_sys_fd_write(out, &huge, 1, &n), CLOUDABI_EFAULT);
  cloudabi_ciovec_t over = {(char *)page + 4000, 200};
  RT_EXPECT(cloudabi_sys_fd_write(out, &over, 1, &n), CLOUDABI_EFAULT);
}

static void test_read(void) {
  char a[4], b[20];
  cloudabi_iovec_t iov[2] = {{a, sizeof(a)}, {b, sizeof(b)}};
  size_t n = 0;
  RT_EXPECT(cloudabi_sys_fd_read(file, iov, 2, &n), 0);
  RT_CHECK(n == 10);
  RT_CHECK(memcmp(a, "0123", 4) == 0 && memcmp(b, "456789", 6) == 0);
  /* At the end of the file: 0 bytes. */
  RT_EXPECT(cloudabi_sys_fd_read(file, iov, 2, &n), 0);
  RT_CHECK(n == 0);
  RT_EXPECT(cloudabi_sys_fd_read(out, iov, 1, &n),
            CLOUDABI_ENOTCAPABLE); /* stdout is write-only here */
  RT_EXPECT(cloudabi_sys_fd_read(77, iov, 1, &n), CLOUDABI_EBADF);
  cloudabi_iovec_t bad = {BAD_PTR, 4};
  RT_EXPECT(cloudabi_sys_fd_read(ro, &bad, 1, &n), CLOUDABI_EFAULT);
  RT_EXPECT(cloudabi_sys_fd_read(ro, BAD_PTR, 1, &n), CLOUDABI_EFAULT);
  RT_EXPECT(cloudabi_sys_fd_read(ro, iov, 4096, &n), CLOUDABI_EINVAL);
  /* The pipe on standard input, written by the test. */
  char line[64];
  cloudabi_iovec_t l = {line, sizeof(line)};
  RT_EXPECT(cloudabi_sys_fd_read(in, &l, 1, &n), 0);
  RT_CHECK(n == 11 && memcmp(line, "from stdin\n", 11) == 0);
}

static void test_stat(void) {
  cloudabi_fdstat_t st;
  RT_EXPECT(cloudabi_sys_fd_stat_get(file, &st), 0);
  RT_CHECK(st.fs_filetype == CLOUDABI_FILETYPE_REGULAR_FILE);
  RT_CHECK((st.fs_rights_base & R(FD_READ)) != 0);
  RT_CHECK((st.fs_rights_base & R(FD_WRITE)) == 0);
  RT_EXPECT(cloudabi_sys_fd_stat_get(ro, &st), 0);
  RT_CHECK(st.fs_rights_base == R(FD_READ));
  RT_EXPECT(cloudabi_sys_fd_stat_get(in, &st), 0);
  RT_CHECK(st.fs_filetype == CLOUDABI_FILETYPE_SOCKET_STREAM); /* a pipe */
  RT_EXPECT(cloudabi_sys_fd_stat_get(500, &st), CLOUDABI_EBADF);
  RT_EXPECT(cloudabi_sys_fd_stat_get(file, BAD_PTR), CLOUDABI_EFAULT);

  /* Rights can be dropped, never added back. */
  RT_EXPECT(cloudabi_sys_fd_stat_get(file, &st), 0);
  cloudabi_rights_t before = st.fs_rights_base;
  st.fs_rights_base &= ~R(FD_SEEK);
  RT_EXPECT(cloudabi_sys_fd_stat_put(file, &st, CLOUDABI_FDSTAT_RIGHTS), 0);
  RT_EXPECT(cloudabi_sys_fd_stat_get(file, &st), 0);
  RT_CHECK(st.fs_rights_base == (before & ~R(FD_SEEK)));
  st.fs_rights_base |= R(FD_SEEK);
  RT_EXPECT(cloudabi_sys_fd_stat_put(file, &st, CLOUDABI_FDSTAT_RIGHTS),
            CLOUDABI_ENOTCAPABLE);
  RT_EXPECT(cloudabi_sys_fd_stat_put(file, &st, 0), CLOUDABI_EINVAL);
  RT_EXPECT(cloudabi_sys_fd_stat_put(file, &st, 3), CLOUDABI_EINVAL);
  RT_EXPECT(cloudabi_sys_fd_stat_put(file, BAD_PTR, CLOUDABI_FDSTAT_RIGHTS),
            CLOUDABI_EFAULT);
  RT_EXPECT(cloudabi_sys_fd_stat_put(999, &st, CLOUDABI_FDSTAT_RIGHTS),
            CLOUDABI_EBADF);

  /* Flags: NONBLOCK is remembered; ro lacks FD_STAT_PUT_FLAGS. */
  RT_EXPECT(cloudabi_sys_fd_stat_get(in, &st), 0);
  st.fs_flags = CLOUDABI_FDFLAG_NONBLOCK;
  RT_EXPECT(cloudabi_sys_fd_stat_put(in, &st, CLOUDABI_FDSTAT_FLAGS), 0);
  RT_EXPECT(cloudabi_sys_fd_stat_get(in, &st), 0);
  RT_CHECK(st.fs_flags == CLOUDABI_FDFLAG_NONBLOCK);
  /* Standard input is drained: a non-blocking read says so. */
  char c;
  cloudabi_iovec_t l = {&c, 1};
  size_t n;
  RT_EXPECT(cloudabi_sys_fd_read(in, &l, 1, &n), 0); /* EOF: writer closed */
  RT_CHECK(n == 0);
  st.fs_flags = 0x80;
  RT_EXPECT(cloudabi_sys_fd_stat_put(in, &st, CLOUDABI_FDSTAT_FLAGS),
            CLOUDABI_EINVAL);
  RT_EXPECT(cloudabi_sys_fd_stat_put(ro, &st, CLOUDABI_FDSTAT_FLAGS),
            CLOUDABI_ENOTCAPABLE);
}

static void test_dup_replace_close(void) {
  cloudabi_fd_t d;
  RT_EXPECT(cloudabi_sys_fd_dup(ro, &d), 0);
  RT_CHECK(d != ro && d != out && d != file && d != in);
  cloudabi_fdstat_t st;
  RT_EXPECT(cloudabi_sys_fd_stat_get(d, &st), 0);
  RT_CHECK(st.fs_rights_base == R(FD_READ));
  RT_EXPECT(cloudabi_sys_fd_dup(4242, &d), CLOUDABI_EBADF);

  /* d now names `file`, with file's rights. */
  RT_EXPECT(cloudabi_sys_fd_replace(file, d), 0);
  RT_EXPECT(cloudabi_sys_fd_stat_get(d, &st), 0);
  RT_CHECK((st.fs_rights_base & R(FILE_STAT_FGET)) != 0);
  RT_EXPECT(cloudabi_sys_fd_replace(file, 4242), CLOUDABI_EBADF);
  RT_EXPECT(cloudabi_sys_fd_replace(4242, d), CLOUDABI_EBADF);
  RT_EXPECT(cloudabi_sys_fd_replace(d, d), 0);

  RT_EXPECT(cloudabi_sys_fd_close(d), 0);
  RT_EXPECT(cloudabi_sys_fd_close(d), CLOUDABI_EBADF);
  RT_EXPECT(cloudabi_sys_fd_stat_get(d, &st), CLOUDABI_EBADF);
  /* The lowest free number is reused. */
  cloudabi_fd_t d2;
  RT_EXPECT(cloudabi_sys_fd_dup(ro, &d2), 0);
  RT_CHECK(d2 == d);
  RT_EXPECT(cloudabi_sys_fd_close(d2), 0);
}

void program_main(const argdata_t *ad) {
  out = rt_map_fd(ad, "out");
  rt_log_fd = out;
  file = rt_map_fd(ad, "file");
  ro = rt_map_fd(ad, "ro");
  in = rt_map_fd(ad, "in");
  test_write();
  test_read();
  test_stat();
  test_dup_replace_close();
  rt_printf(out, "fd_basic: %u checks passed\n", rt_checks_passed);
}
