/*
 * Waits that must cost the supervisor nothing (issue 12.7): a sock_recv
 * with WAITALL after part of the data came (the socket is readable, but
 * that is no progress), and an fd_read parked on a descriptor that
 * fd_replace then points elsewhere while the old object becomes readable.
 * Each waits ~1.5 s; tests/e2e/busy_wait.sh measures the CPU time of the
 * run.  Config: out (stdout), do (waitall or replace).
 */
#include "rt.h"
#include "rt_thread.h"

#define WAIT_NS 1500000000ull

static void pair(cloudabi_fd_t *a, cloudabi_fd_t *b) {
  RT_EXPECT(cloudabi_sys_fd_create2(CLOUDABI_FILETYPE_SOCKET_STREAM, a, b), 0);
}

static void put(cloudabi_fd_t fd, const char *s, size_t n) {
  cloudabi_ciovec_t iov = {s, n};
  size_t done;
  RT_EXPECT(cloudabi_sys_fd_write(fd, &iov, 1, &done), 0);
  RT_CHECK(done == n);
}

static cloudabi_fd_t target;

static void *recv_all(void *arg) {
  (void)arg;
  static char buf[100];
  cloudabi_iovec_t iov = {buf, sizeof(buf)};
  cloudabi_recv_in_t in = {&iov, 1, NULL, 0, CLOUDABI_SOCK_RECV_WAITALL};
  cloudabi_recv_out_t o;
  RT_EXPECT(cloudabi_sys_sock_recv(target, &in, &o), 0);
  return (void *)(uintptr_t)o.ro_datalen;
}

static void *read_one(void *arg) {
  (void)arg;
  static char c;
  cloudabi_iovec_t iov = {&c, 1};
  size_t n;
  RT_EXPECT(cloudabi_sys_fd_read(target, &iov, 1, &n), 0);
  return n == 1 ? (void *)(uintptr_t)c : NULL;
}

static void waitall(cloudabi_fd_t out) {
  cloudabi_fd_t a, b;
  pair(&a, &b);
  target = b;
  rt_thread_t *t;
  RT_CHECK(rt_thread_create(&t, recv_all, NULL) == 0);
  static const char data[100] = "0123456789";
  put(a, data, 10);
  rt_sleep_ns(WAIT_NS);
  put(a, data + 10, 90);
  rt_printf(out, "waitall: got %u\n", (unsigned)(uintptr_t)rt_thread_join(t));
}

static void replace(cloudabi_fd_t out) {
  cloudabi_fd_t a, b, c, d;
  pair(&a, &b);
  pair(&c, &d);
  RT_EXPECT(cloudabi_sys_fd_dup(b, &target), 0);
  rt_thread_t *t;
  RT_CHECK(rt_thread_create(&t, read_one, NULL) == 0);
  rt_sleep_ns(200000000); /* parked on b's object */
  RT_EXPECT(cloudabi_sys_fd_replace(d, target), 0);
  put(a, "x", 1); /* the old object is readable, and stays so */
  rt_sleep_ns(WAIT_NS);
  put(c, "z", 1);
  rt_printf(out, "replace: got %c\n", (char)(uintptr_t)rt_thread_join(t));
}

void program_main(const argdata_t *ad) {
  cloudabi_fd_t out = rt_map_fd(ad, "out");
  rt_log_fd = out;
  const char *what = rt_map_str(ad, "do", "");
  if (strcmp(what, "waitall") == 0)
    waitall(out);
  else if (strcmp(what, "replace") == 0)
    replace(out);
}
