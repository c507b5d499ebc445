/*
 * Stops itself with proc_raise(SIGSTOP), by the config's `do`:
 *   self:  the program prints its thread id and stops.
 *   child: it forks; the child prints a line and stops, the parent prints
 *          one and blocks reading `in`.
 *   both:  as child, but the parent stops too instead of blocking.
 * Each line is "stopping" or "blocking"; the test finds the processes.
 */
#include "rt.h"

static void block_on(cloudabi_fd_t in) {
  char c;
  cloudabi_iovec_t iov = {&c, 1};
  size_t n;
  cloudabi_sys_fd_read(in, &iov, 1, &n);
}

void program_main(const argdata_t *ad) {
  cloudabi_fd_t out = rt_map_fd(ad, "out"), in = rt_map_fd(ad, "in");
  const char *what = rt_map_str(ad, "do", "self");
  bool fork = strcmp(what, "self") != 0;
  bool parent_stops = strcmp(what, "child") != 0;
  if (fork) {
    cloudabi_fd_t pd;
    cloudabi_tid_t tid;
    RT_EXPECT(cloudabi_sys_proc_fork(&pd, &tid), 0);
    if (pd == CLOUDABI_PROCESS_CHILD) {
      rt_printf(out, "stopping\n");
      cloudabi_sys_proc_raise(CLOUDABI_SIGSTOP);
      rt_printf(out, "child resumed\n");
      block_on(in);
      return;
    }
  }
  if (parent_stops) {
    rt_printf(out, "stopping\n");
    cloudabi_sys_proc_raise(CLOUDABI_SIGSTOP);
    rt_printf(out, "resumed\n");
  } else {
    rt_printf(out, "blocking\n");
  }
  block_on(in);
}
