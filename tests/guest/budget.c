/*
 * What a guest can make the supervisor hold is bounded (issue 12.4).
 * Config: out (stdout), in (a pipe the test closes when it has looked at
 * the supervisor), do:
 *   polls     200 threads each park a poll of 65,536 subscriptions; those
 *             over the parked-state budget get ENOMEM;
 *   reads     1,020 threads park an fd_read of one socket: they share one
 *             registration and hold no descriptor, so a new socket pair
 *             can still be made; then each gets its byte;
 *   children  500 raw clone(SIGCHLD) children end unclaimed; proc_fork
 *             still works afterwards.
 * Prints "ready" when the test may look, and waits for `in` to close.
 */
#include "rt.h"
#include "rt_thread.h"
#include "trap.h"

#define E(x) CLOUDABI_EVENTTYPE_##x
#define POLLERS 200
#define SUBS 65536
#define READERS 1020
#define CHILDREN 500

static cloudabi_fd_t out, in, a, b;
static cloudabi_subscription_t subs[SUBS];
static _Atomic unsigned refused, other, done;

static void wait_for_test(void) {
  rt_printf(out, "ready\n");
  char c;
  cloudabi_iovec_t iov = {&c, 1};
  size_t n;
  while (cloudabi_sys_fd_read(in, &iov, 1, &n) == 0 && n > 0) {
  }
}

static void *poller(void *arg) {
  (void)arg;
  static cloudabi_event_t ev[SUBS];
  size_t n;
  cloudabi_errno_t e = cloudabi_sys_poll(subs, ev, SUBS, &n);
  if (e == CLOUDABI_ENOMEM)
    refused++;
  else
    other++;
  return NULL;
}

static void polls(void) {
  for (size_t i = 0; i < SUBS; i++)
    subs[i] = (cloudabi_subscription_t){
        .userdata = i,
        .type = E(FD_READ),
        .fd_readwrite = {b, CLOUDABI_SUBSCRIPTION_FD_READWRITE_POLL}};
  rt_thread_t *t;
  for (int i = 0; i < POLLERS; i++)
    RT_CHECK(rt_thread_create(&t, poller, NULL) == 0);
  for (int i = 0; i < 100 && refused + other < POLLERS - 1; i++)
    rt_sleep_ns(100000000);
  rt_sleep_ns(500000000);
  rt_printf(out, "polls: %s, none answered otherwise\n",
            refused > 0 && refused < POLLERS ? "some parked, the rest refused"
                                             : "WRONG");
  RT_CHECK(other == 0);
  wait_for_test();
}

static void *reader(void *arg) {
  (void)arg;
  char c;
  cloudabi_iovec_t iov = {&c, 1};
  size_t n;
  if (cloudabi_sys_fd_read(b, &iov, 1, &n) == 0 && n == 1)
    done++;
  else
    other++;
  return NULL;
}

static void reads(void) {
  static rt_thread_t *t[READERS];
  for (int i = 0; i < READERS; i++)
    RT_CHECK(rt_thread_create(&t[i], reader, NULL) == 0);
  rt_sleep_ns(1000000000);
  cloudabi_fd_t c, d;
  RT_EXPECT(cloudabi_sys_fd_create2(CLOUDABI_FILETYPE_SOCKET_STREAM, &c, &d),
            0);
  rt_printf(out, "reads: a new pair while %u wait\n", READERS);
  wait_for_test();
  static char bytes[READERS];
  cloudabi_ciovec_t iov = {bytes, sizeof(bytes)};
  size_t n;
  RT_EXPECT(cloudabi_sys_fd_write(a, &iov, 1, &n), 0);
  RT_CHECK(n == READERS);
  for (int i = 0; i < READERS; i++)
    rt_thread_join(t[i]);
  rt_printf(out, "reads: %u got a byte, %u did not\n", done, other);
}

static void children(void) {
  for (int i = 0; i < CHILDREN; i++) {
    long pid = rt_raw_syscall(56 /* clone */, 17 /* SIGCHLD */, 0, 0, 0, 0, 0);
    if (pid == 0)
      rt_raw_syscall(60 /* exit */, 0, 0, 0, 0, 0, 0);
    RT_CHECK(pid > 0);
    rt_sleep_ns(2000000);
  }
  rt_sleep_ns(300000000);
  cloudabi_fd_t pd;
  cloudabi_errno_t e = rt_proc_fork(&pd);
  if (e == 0 && pd == CLOUDABI_PROCESS_CHILD)
    cloudabi_sys_proc_exit(0);
  rt_printf(out, "children: proc_fork after %u unclaimed: %s\n", CHILDREN,
            e == 0 ? "ok" : "refused");
  wait_for_test();
}

void program_main(const argdata_t *ad) {
  out = rt_map_fd(ad, "out");
  rt_log_fd = out;
  in = rt_map_fd(ad, "in");
  RT_EXPECT(cloudabi_sys_fd_create2(CLOUDABI_FILETYPE_SOCKET_STREAM, &a, &b),
            0);
  const char *what = rt_map_str(ad, "do", "");
  if (strcmp(what, "polls") == 0)
    polls();
  else if (strcmp(what, "reads") == 0)
    reads();
  else if (strcmp(what, "children") == 0)
    children();
  rt_printf(out, "done\n");
  cloudabi_sys_proc_exit(0);
}
