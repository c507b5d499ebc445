/*
 * The container program of the OCI runtime's tests, by the config's `do`:
 * "hello" prints a line to `out`; "exit" exits with `code`; "cat" copies
 * `in` to `out` until end of file; "sleep" prints "sleeping" and waits
 * forever (until a signal ends it); "read" prints the file `file` and
 * then tries to create `name` in the directory `dir`, printing the result.
 */
#include "rt.h"

static void copy(cloudabi_fd_t from, cloudabi_fd_t to) {
  char buf[4096];
  for (;;) {
    cloudabi_iovec_t iov = {buf, sizeof(buf)};
    size_t n;
    cloudabi_errno_t e = cloudabi_sys_fd_read(from, &iov, 1, &n);
    if (e != 0)
      rt_fail(__FILE__, __LINE__, rt_strerror(e));
    if (n == 0)
      return;
    RT_CHECK(rt_write_all(to, buf, n) == 0);
  }
}

static _Noreturn void sleep_forever(void) {
  for (;;) {
    cloudabi_subscription_t s = {
        .type = CLOUDABI_EVENTTYPE_CLOCK,
        .clock = {.clock_id = CLOUDABI_CLOCK_MONOTONIC,
                  .timeout = 3600ull * 1000000000ull,
                  .precision = 1000000}};
    cloudabi_event_t ev;
    size_t n;
    cloudabi_sys_poll(&s, &ev, 1, &n);
  }
}

void program_main(const argdata_t *ad) {
  cloudabi_fd_t out = rt_map_fd(ad, "out");
  rt_log_fd = out;
  const char *what = rt_map_str(ad, "do", "");
  if (strcmp(what, "hello") == 0) {
    rt_printf(out, "hello from a CloudABI container\n");
  } else if (strcmp(what, "exit") == 0) {
    cloudabi_sys_proc_exit((cloudabi_exitcode_t)rt_map_int(ad, "code", 0));
  } else if (strcmp(what, "cat") == 0) {
    copy(rt_map_fd(ad, "in"), out);
  } else if (strcmp(what, "sleep") == 0) {
    rt_printf(out, "sleeping\n");
    sleep_forever();
  } else if (strcmp(what, "read") == 0) {
    copy(rt_map_fd(ad, "file"), out);
    const char *name = rt_map_str(ad, "name", "new.txt");
    cloudabi_fdstat_t fds = {.fs_rights_base = CLOUDABI_RIGHT_FD_WRITE};
    cloudabi_fd_t nfd;
    cloudabi_errno_t e = cloudabi_sys_file_open(
        (cloudabi_lookup_t){.fd = rt_map_fd(ad, "dir")}, name, strlen(name),
        CLOUDABI_O_CREAT, &fds, &nfd);
    rt_printf(out, "create %s: %s\n", name, e == 0 ? "ok" : rt_strerror(e));
  } else {
    rt_fail(__FILE__, __LINE__, "unknown action");
  }
}
