/*
 * A fixed sequence of calls for the trace's golden tests (tests/trace/):
 * successes and failures of the calls the supervisor performs, with data
 * that needs escaping and cutting short.  The config's `do` adds to it:
 *   "calls"     nothing more;
 *   "local"     calls the vDSO performs itself (seen with --trace=local);
 *   "read"      a read of standard input, which the test feeds late, so
 *               that the call parks;
 *   "crash"     ends in a SIGSEGV;
 *   "ill"       ends in a SIGILL (an undefined instruction);
 *   "forbidden" ends in a raw Linux system call the filter refuses;
 *   "readdir"   lists `dir` (holding one file): whole, then into buffers
 *               that cut a header and a name short, then into a bad
 *               pointer.
 * The program exits with status 3 through proc_exit.
 * Config: out (stdout), file (data.txt holding 0123456789, read-only),
 * in (stdin), do, and for "readdir" dir.
 */
#include "rt.h"

#define R(x) CLOUDABI_RIGHT_##x
#define BAD_PTR ((void *)0x10)

static cloudabi_fd_t out, file, in;

static void write_str(cloudabi_fd_t fd, const char *s, size_t len) {
  cloudabi_ciovec_t iov = {s, len};
  size_t n;
  (void)cloudabi_sys_fd_write(fd, &iov, 1, &n);
}

static void descriptor_calls(void) {
  size_t n;
  write_str(out, "hello, trace\n", 13);
  cloudabi_ciovec_t two[2] = {{"two ", 4}, {"iovecs\n", 7}};
  RT_EXPECT(cloudabi_sys_fd_write(out, two, 2, &n), 0);
  write_str(42, "x", 1);   /* EBADF */
  write_str(file, "x", 1); /* ENOTCAPABLE: read-only */
  RT_EXPECT(cloudabi_sys_fd_write(out, BAD_PTR, 1, &n), CLOUDABI_EFAULT);
  cloudabi_ciovec_t bad = {BAD_PTR, 5};
  RT_EXPECT(cloudabi_sys_fd_write(out, &bad, 1, &n), CLOUDABI_EFAULT);
  /* Longer than the default string size: cut short in the trace. */
  write_str(out, "abcdefghijklmnopqrstuvwxyz0123456789ABCD\n", 41);
  /* Bytes that need escaping. */
  static const char odd[] = {'\0', 1,   0x7f, (char)0xff, '\t', '"',
                             '\\', ' ', 'e',  '\r',       '\n'};
  write_str(out, odd, sizeof(odd));

  char a[4], b[20];
  cloudabi_iovec_t iov[2] = {{a, sizeof(a)}, {b, sizeof(b)}};
  RT_EXPECT(cloudabi_sys_fd_read(file, iov, 2, &n), 0);
  RT_EXPECT(cloudabi_sys_fd_read(file, iov, 2, &n), 0); /* at the end */
  RT_EXPECT(cloudabi_sys_fd_read(out, iov, 1, &n), CLOUDABI_ENOTCAPABLE);

  cloudabi_fdstat_t st;
  RT_EXPECT(cloudabi_sys_fd_stat_get(file, &st), 0);
  st.fs_rights_base = R(FD_READ) | R(FILE_STAT_FGET);
  RT_EXPECT(cloudabi_sys_fd_stat_put(file, &st, CLOUDABI_FDSTAT_RIGHTS), 0);
  RT_EXPECT(cloudabi_sys_fd_stat_put(file, &st, 3), CLOUDABI_EINVAL);
  RT_EXPECT(cloudabi_sys_fd_stat_get(77, &st), CLOUDABI_EBADF);

  cloudabi_fd_t d;
  RT_EXPECT(cloudabi_sys_fd_dup(file, &d), 0);
  RT_EXPECT(cloudabi_sys_fd_replace(out, d), 0);
  RT_EXPECT(cloudabi_sys_fd_close(d), 0);
  RT_EXPECT(cloudabi_sys_fd_close(d), CLOUDABI_EBADF);

  RT_EXPECT(cloudabi_sys_proc_raise(0), 0);
  RT_EXPECT(cloudabi_sys_proc_raise(CLOUDABI_SIGPIPE), 0); /* ignored */
  RT_EXPECT(cloudabi_sys_proc_raise(99), CLOUDABI_EINVAL);
}

static void local_calls(void) {
  cloudabi_timestamp_t t;
  RT_EXPECT(cloudabi_sys_clock_time_get(99, 0, &t), CLOUDABI_EINVAL);
  RT_EXPECT(cloudabi_sys_thread_yield(), 0);
  void *p;
  RT_EXPECT(cloudabi_sys_mem_map(NULL, 4096,
                                 CLOUDABI_PROT_READ | CLOUDABI_PROT_WRITE,
                                 CLOUDABI_MAP_ANON | CLOUDABI_MAP_PRIVATE,
                                 CLOUDABI_MAP_ANON_FD, 0, &p),
            0);
  RT_EXPECT(cloudabi_sys_mem_protect(p, 4096, CLOUDABI_PROT_READ), 0);
  RT_EXPECT(cloudabi_sys_mem_unmap(p, 4096), 0);
  char buf[4];
  RT_EXPECT(cloudabi_sys_random_get(buf, 0), 0);
}

static void parked_read(void) {
  char line[16];
  cloudabi_iovec_t iov = {line, sizeof(line)};
  size_t n;
  RT_EXPECT(cloudabi_sys_fd_read(in, &iov, 1, &n), 0);
}

/* Linux lists "." and ".." first on every file system, and the one file
 * after them, so the golden trace does not depend on directory order. */
static void list_dir(cloudabi_fd_t dir) {
  char buf[256];
  size_t n;
  RT_EXPECT(cloudabi_sys_file_readdir(dir, buf, sizeof(buf), 0, &n), 0);
  /* "." is 25 bytes: 30 cuts the header of ".." after 5 bytes, 50 its
   * name after 1. */
  RT_EXPECT(cloudabi_sys_file_readdir(dir, buf, 30, 0, &n), 0);
  RT_EXPECT(cloudabi_sys_file_readdir(dir, buf, 50, 0, &n), 0);
  RT_EXPECT(cloudabi_sys_file_readdir(dir, BAD_PTR, 64, 0, &n),
            CLOUDABI_EFAULT);
}

void program_main(const argdata_t *ad) {
  out = rt_map_fd(ad, "out");
  rt_log_fd = out;
  file = rt_map_fd(ad, "file");
  in = rt_map_fd(ad, "in");
  const char *what = rt_map_str(ad, "do", "calls");
  descriptor_calls();
  if (strcmp(what, "local") == 0) {
    local_calls();
  } else if (strcmp(what, "read") == 0) {
    parked_read();
  } else if (strcmp(what, "crash") == 0) {
    *(volatile int *)BAD_PTR = 1;
  } else if (strcmp(what, "ill") == 0) {
    __builtin_trap();
  } else if (strcmp(what, "readdir") == 0) {
    list_dir(rt_map_fd(ad, "dir"));
  } else if (strcmp(what, "forbidden") == 0) {
    rt_raw_syscall(2 /* Linux open */, (long)"/etc/passwd", 0, 0, 0, 0, 0);
  }
  cloudabi_sys_proc_exit(3);
}
