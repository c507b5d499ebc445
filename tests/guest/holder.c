/*
 * Holds descriptors of every kind a guest can make (an opened file and
 * directory, shared memory, a socket pair, a file mapping, whose lent
 * descriptor the vDSO closes), says "ready", and waits for a line on
 * standard input, so that a test can look at the processes meanwhile
 * (tests/e2e/fd_leak.sh).  With `keep: true` it also refuses to close a
 * lent descriptor: it traps mem_map itself, keeps the number and closes
 * the capability, after which only an inert descriptor may be left there.
 * Config: out, dir, in, keep.
 */
#include "check.h"

/* Traps mem_map by hand for f and keeps what it lends; the number. */
static long keep_lent(cloudabi_fd_t f) {
  long g = rt_raw_syscall(0x10000 + CLOUDABI_SYS_mem_map, 0, 4096,
                          CLOUDABI_PROT_READ, CLOUDABI_MAP_PRIVATE, f, 0);
  RT_CHECK(g >= 0);
  RT_EXPECT(cloudabi_sys_fd_close(f), 0);
  /* A raw mmap (9) of what is left: ENODEV (19), the inert descriptor. */
  long r = rt_raw_syscall(9, 0, 4096, 1 /* PROT_READ */, 2 /* MAP_PRIVATE */,
                          g, 0);
  if (r != -19) {
    rt_printf(rt_log_fd, "FAIL: the kept descriptor %ld still maps: %ld\n", g,
              r);
    rt_exit(1);
  }
  return g;
}

void program_main(const argdata_t *ad) {
  rt_log_fd = rt_map_fd(ad, "out");
  cloudabi_fd_t dir = rt_map_fd(ad, "dir");
  cloudabi_fd_t in = rt_map_fd(ad, "in");
  cloudabi_fd_t f, d, shm, s1, s2;
  put_file(dir, "held.txt", "held");
  RT_CHECK(open_file(dir, "held.txt", 0, R(FD_READ) | R(MEM_MAP), 0, 0, &f) ==
           0);
  RT_CHECK(open_file(dir, ".", CLOUDABI_O_DIRECTORY, R(FILE_READDIR), 0, 0,
                     &d) == 0);
  RT_CHECK(cloudabi_sys_fd_create1(CLOUDABI_FILETYPE_SHARED_MEMORY, &shm) == 0);
  RT_CHECK(cloudabi_sys_fd_create2(CLOUDABI_FILETYPE_SOCKET_STREAM, &s1, &s2) ==
           0);
  void *p;
  RT_CHECK(cloudabi_sys_mem_map(NULL, 4096, CLOUDABI_PROT_READ,
                                CLOUDABI_MAP_PRIVATE, f, 0, &p) == 0);
  RT_CHECK(memcmp(p, "held", 4) == 0);
  argdata_t keep;
  bool b = false;
  if (rt_map_get(ad, "keep", &keep) && argdata_get_bool(&keep, &b) == 0 &&
      b) {
    cloudabi_fd_t k;
    RT_CHECK(open_file(dir, "held.txt", 0, R(FD_READ) | R(MEM_MAP), 0, 0,
                       &k) == 0);
    rt_printf(rt_log_fd, "kept %ld\n", keep_lent(k));
  }
  /* Two writes: out is mirrored at the second (mirrors.h). */
  rt_printf(rt_log_fd, "holding\n");
  rt_printf(rt_log_fd, "ready\n");
  char buf[16];
  cloudabi_iovec_t iov = {buf, sizeof(buf)};
  size_t n;
  RT_CHECK(cloudabi_sys_fd_read(in, &iov, 1, &n) == 0);
  rt_printf(rt_log_fd, "done\n");
}
