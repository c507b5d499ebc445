/*
 * Holds descriptors of every kind a guest can make (an opened file and
 * directory, shared memory, a socket pair, a file mapping, whose lent
 * descriptor the vDSO closes), says "ready", and waits for a line on
 * standard input, so that a test can look at the processes meanwhile
 * (tests/e2e/fd_leak.sh).  Config: out, dir, in.
 */
#include "check.h"

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
  rt_printf(rt_log_fd, "ready\n");
  char buf[16];
  cloudabi_iovec_t iov = {buf, sizeof(buf)};
  size_t n;
  RT_CHECK(cloudabi_sys_fd_read(in, &iov, 1, &n) == 0);
  rt_printf(rt_log_fd, "done\n");
}
