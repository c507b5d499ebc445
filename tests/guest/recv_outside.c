/*
 * Descriptors passed in by a process outside the sandbox: a directory on
 * a file system of the running system (/proc) is dropped on receipt, as a
 * config may not grant one; an ordinary directory arrives and works.
 * Prints how many arrived and, for each, what opening a file in the plain
 * directory ("ok.txt") and one beneath /proc ("self/status") gave.
 * Config: out (stdout), sock (connected to the sender).
 */
#include "check.h"

static cloudabi_errno_t try_open(cloudabi_fd_t dir, const char *path) {
  cloudabi_fdstat_t fds = {.fs_rights_base = R(FD_READ)};
  cloudabi_fd_t fd;
  cloudabi_errno_t e =
      cloudabi_sys_file_open(at(dir, true), path, strlen(path), 0,
                             &fds, &fd);
  if (e == 0)
    cloudabi_sys_fd_close(fd);
  return e;
}

void program_main(const argdata_t *ad) {
  cloudabi_fd_t out = rt_map_fd(ad, "out");
  rt_log_fd = out;
  cloudabi_fd_t sock = rt_map_fd(ad, "sock");
  char byte;
  cloudabi_fd_t fds[4];
  cloudabi_iovec_t iov = {&byte, 1};
  cloudabi_recv_in_t in = {&iov, 1, fds, 4, 0};
  cloudabi_recv_out_t o;
  RT_EXPECT(cloudabi_sys_sock_recv(sock, &in, &o), 0);
  rt_printf(out, "received %u\n", (unsigned)o.ro_fdslen);
  for (size_t i = 0; i < o.ro_fdslen; i++)
    rt_printf(out, "ok.txt %u, self/status %u\n", try_open(fds[i], "ok.txt"),
              try_open(fds[i], "self/status"));
  cloudabi_sys_proc_exit(0);
}
