/*
 * proc_fork and proc_exec, by the config's `do`:
 *   fork:  the child gets PROCESS_CHILD and its own copy of the table, the
 *          parent a process descriptor; they talk over a datagram pair.
 *   exec:  replaces itself with this same program (`self`), passing only
 *          `out`, with new argument data; the new image exits with 5.
 *   execd: (the new image) checks what it was given, exits 5.
 *   exec-errors: the error paths of proc_exec.
 *   bomb:  forks blocked children until refused.
 */
#include "rt.h"

#define R(x) CLOUDABI_RIGHT_##x

static cloudabi_fd_t out, rx, tx;

static void send_text(cloudabi_fd_t fd, const char *text) {
  cloudabi_ciovec_t iov = {text, strlen(text)};
  cloudabi_send_in_t in = {&iov, 1, NULL, 0, 0};
  cloudabi_send_out_t o;
  RT_EXPECT(cloudabi_sys_sock_send(fd, &in, &o), 0);
}

static size_t recv_text(cloudabi_fd_t fd, char *buf, size_t size) {
  cloudabi_iovec_t iov = {buf, size - 1};
  cloudabi_recv_in_t in = {&iov, 1, NULL, 0, 0};
  cloudabi_recv_out_t o;
  RT_EXPECT(cloudabi_sys_sock_recv(fd, &in, &o), 0);
  buf[o.ro_datalen] = '\0';
  return o.ro_datalen;
}

static void do_fork(void) {
  cloudabi_fd_t pd;
  cloudabi_tid_t tid;
  RT_EXPECT(cloudabi_sys_proc_fork(&pd, &tid), 0);
  if (pd == CLOUDABI_PROCESS_CHILD) {
    /* The child: its own table, a copy of the parent's. */
    RT_CHECK(tid != rt_startup.tid && tid < (1u << 30));
    RT_EXPECT(cloudabi_sys_fd_close(rx), 0);
    send_text(tx, "hello from the child");
    cloudabi_sys_proc_exit(0);
  }
  cloudabi_fdstat_t st;
  RT_EXPECT(cloudabi_sys_fd_stat_get(pd, &st), 0);
  RT_CHECK(st.fs_filetype == CLOUDABI_FILETYPE_PROCESS);
  RT_CHECK(st.fs_rights_base == (R(FILE_STAT_FGET) | R(POLL_PROC_TERMINATE)));
  cloudabi_filestat_t fs;
  RT_EXPECT(cloudabi_sys_file_stat_fget(pd, &fs), 0);
  RT_CHECK(fs.st_filetype == CLOUDABI_FILETYPE_PROCESS);
  char buf[64];
  recv_text(rx, buf, sizeof(buf));
  RT_CHECK(strcmp(buf, "hello from the child") == 0);
  /* The child closed its rx, not ours. */
  RT_EXPECT(cloudabi_sys_fd_stat_get(rx, &st), 0);
  RT_EXPECT(cloudabi_sys_fd_close(pd), 0);
  rt_printf(out, "fork: %u checks passed\n", rt_checks_passed);
}

static void do_exec(const argdata_t *ad) {
  cloudabi_fd_t self = rt_map_fd(ad, "self");
  /* {out: fd 0, do: "execd"} with out renumbered to 0. */
  static const uint8_t data[] = {0x06, 0x85, 0x08, 'o',  'u',  't',  0x00,
                                 0x85, 0x03, 0,    0,    0,    0,    0x84,
                                 0x08, 'd',  'o',  0x00, 0x87, 0x08, 'e',
                                 'x',  'e',  'c',  'd',  0x00};
  cloudabi_fd_t fds[1] = {out};
  rt_printf(out, "about to exec\n");
  cloudabi_errno_t e =
      cloudabi_sys_proc_exec(self, data, sizeof(data), fds, 1);
  rt_printf(out, "proc_exec returned %u\n", e);
}

static void do_execd(void) {
  /* Only `out` came along, as descriptor 0. */
  cloudabi_fdstat_t st;
  RT_CHECK(out == 0);
  RT_EXPECT(cloudabi_sys_fd_stat_get(1, &st), CLOUDABI_EBADF);
  rt_printf(out, "execd: alone with out\n");
  cloudabi_sys_proc_exit(5);
}

static void do_exec_errors(const argdata_t *ad) {
  cloudabi_fd_t data_file = rt_map_fd(ad, "data"), self = rt_map_fd(ad, "self");
  cloudabi_fd_t fds[1] = {out};
  const char empty[1] = {0};
  RT_EXPECT(cloudabi_sys_proc_exec(data_file, empty, 0, fds, 1),
            CLOUDABI_ENOEXEC);
  cloudabi_fd_t bad[1] = {333};
  RT_EXPECT(cloudabi_sys_proc_exec(self, empty, 0, bad, 1), CLOUDABI_EBADF);
  RT_EXPECT(cloudabi_sys_proc_exec(self, (void *)16, 10, fds, 1),
            CLOUDABI_EFAULT);
  RT_EXPECT(cloudabi_sys_proc_exec(self, empty, 0, (void *)16, 1),
            CLOUDABI_EFAULT);
  RT_EXPECT(cloudabi_sys_proc_exec(rx, empty, 0, fds, 1),
            CLOUDABI_ENOTCAPABLE);
  RT_EXPECT(cloudabi_sys_proc_exec(self, empty, (size_t)1 << 40, fds, 1),
            CLOUDABI_E2BIG);
  rt_printf(out, "exec-errors: %u checks passed\n", rt_checks_passed);
}

static void do_bomb(void) {
  unsigned n = 0;
  for (;;) {
    cloudabi_fd_t pd;
    cloudabi_tid_t tid;
    cloudabi_errno_t e = cloudabi_sys_proc_fork(&pd, &tid);
    if (e != 0) {
      RT_CHECK(e == CLOUDABI_EAGAIN);
      break;
    }
    if (pd == CLOUDABI_PROCESS_CHILD) {
      char buf[8];
      recv_text(rx, buf, sizeof(buf)); /* blocks: nobody sends */
      cloudabi_sys_proc_exit(0);
    }
    n++;
    RT_CHECK(n < 100000);
  }
  rt_printf(out, "bomb: refused after %u children\n", n);
}

void program_main(const argdata_t *ad) {
  out = rt_map_fd(ad, "out");
  rt_log_fd = out;
  const char *what = rt_map_str(ad, "do", "");
  if (strcmp(what, "execd") == 0) {
    do_execd();
    return;
  }
  rx = rt_map_fd(ad, "rx");
  tx = rt_map_fd(ad, "tx");
  if (strcmp(what, "fork") == 0)
    do_fork();
  else if (strcmp(what, "exec") == 0)
    do_exec(ad);
  else if (strcmp(what, "exec-errors") == 0)
    do_exec_errors(ad);
  else if (strcmp(what, "bomb") == 0)
    do_bomb();
  else
    rt_fail(__FILE__, __LINE__, "unknown action");
}
