/* Prints its thread id (a host pid), then blocks reading `in`. */
#include "rt.h"

void program_main(const argdata_t *ad) {
  cloudabi_fd_t out = rt_map_fd(ad, "out"), in = rt_map_fd(ad, "in");
  rt_printf(out, "%u\n", rt_startup.tid);
  char c;
  cloudabi_iovec_t iov = {&c, 1};
  size_t n;
  cloudabi_errno_t e = cloudabi_sys_fd_read(in, &iov, 1, &n);
  rt_printf(out, "read returned %u, %zu bytes\n", e, n);
}
