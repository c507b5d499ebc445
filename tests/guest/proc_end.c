/*
 * PROC_TERMINATE reports a real end and only that (issue 12.8): the exit
 * of a child that exec'd after the poll parked (the supervisor waited on
 * the pidfd the exec replaced), and never a live child that is creating
 * threads (ptrace stops looked like ends, "by signal 17").  Config: out
 * (stdout), self (!executable), do (end).  The exec'd program gets
 * argdata {do: done} and exits 7.
 */
#include "rt.h"
#include "rt_thread.h"

#define E(x) CLOUDABI_EVENTTYPE_##x
#define POLLS 2000

static cloudabi_fd_t out, self;
/* {do: done}, encoded by hand. */
static const unsigned char done_argdata[] = {0x06, 0x84, 0x08, 'd', 'o',
                                             0x00, 0x86, 0x08, 'd', 'o',
                                             'n',  'e',  0x00};

/* Polls pd's end and a relative clock: the events seen. */
static size_t poll_end(cloudabi_fd_t pd, uint64_t timeout_ns,
                       cloudabi_event_t ev[2]) {
  cloudabi_subscription_t s[2] = {
      {.userdata = 1, .type = E(PROC_TERMINATE), .proc_terminate = {pd}},
      {.userdata = 2,
       .type = E(CLOCK),
       .clock = {.clock_id = CLOUDABI_CLOCK_MONOTONIC,
                 .timeout = timeout_ns,
                 .precision = 1000}},
  };
  size_t n = 0;
  RT_EXPECT(cloudabi_sys_poll(s, ev, 2, &n), 0);
  return n;
}

static bool ended_with(const cloudabi_event_t *ev, size_t n,
                       cloudabi_exitcode_t code) {
  for (size_t i = 0; i < n; i++)
    if (ev[i].userdata == 1)
      return ev[i].type == E(PROC_TERMINATE) && ev[i].error == 0 &&
             ev[i].proc_terminate.signal == 0 &&
             ev[i].proc_terminate.exitcode == code;
  return false;
}

/* The child execs while its parent's poll is parked. */
static void exec_after_park(void) {
  cloudabi_fd_t pd;
  RT_EXPECT(rt_proc_fork(&pd), 0);
  if (pd == CLOUDABI_PROCESS_CHILD) {
    rt_sleep_ns(300000000);
    cloudabi_sys_proc_exec(self, done_argdata, sizeof(done_argdata), NULL, 0);
    cloudabi_sys_proc_exit(1);
  }
  cloudabi_event_t ev[2];
  size_t n = poll_end(pd, 20000000000ull, ev);
  if (!ended_with(ev, n, 7))
    rt_printf(out, "exec: the end of the exec'd child was missed\n");
  else
    rt_printf(out, "exec: ended with 7\n");
  RT_EXPECT(cloudabi_sys_fd_close(pd), 0);
}

static void *nothing(void *arg) { return arg; }

/* The child makes threads until told to stop; meanwhile it has not ended. */
static void threads_are_no_end(void) {
  cloudabi_fd_t a, b;
  RT_EXPECT(cloudabi_sys_fd_create2(CLOUDABI_FILETYPE_SOCKET_STREAM, &a, &b),
            0);
  cloudabi_fd_t pd;
  RT_EXPECT(rt_proc_fork(&pd), 0);
  if (pd == CLOUDABI_PROCESS_CHILD) {
    for (;;) {
      rt_thread_t *t;
      if (rt_thread_create(&t, nothing, NULL) == 0)
        rt_thread_join(t);
      cloudabi_subscription_t s[2] = {
          {.userdata = 1,
           .type = E(FD_READ),
           .fd_readwrite = {b, CLOUDABI_SUBSCRIPTION_FD_READWRITE_POLL}},
          {.userdata = 2,
           .type = E(CLOCK),
           .clock = {.clock_id = CLOUDABI_CLOCK_MONOTONIC}},
      };
      cloudabi_event_t ev[2];
      size_t n = 0;
      cloudabi_sys_poll(s, ev, 2, &n);
      for (size_t i = 0; i < n; i++)
        if (ev[i].userdata == 1)
          cloudabi_sys_proc_exit(3);
    }
  }
  unsigned early = 0;
  for (unsigned i = 0; i < POLLS; i++) {
    cloudabi_event_t ev[2];
    size_t n = poll_end(pd, 0, ev);
    for (size_t j = 0; j < n; j++)
      if (ev[j].userdata == 1)
        early++;
  }
  rt_printf(out, "threads: %u of %u polls saw an end\n", early, POLLS);
  cloudabi_ciovec_t iov = {"x", 1};
  size_t sent;
  RT_EXPECT(cloudabi_sys_fd_write(a, &iov, 1, &sent), 0);
  cloudabi_event_t ev[2];
  size_t n = poll_end(pd, 20000000000ull, ev);
  rt_printf(out, "threads: %s\n",
            ended_with(ev, n, 3) ? "ended with 3" : "no end seen");
  RT_EXPECT(cloudabi_sys_fd_close(pd), 0);
}

void program_main(const argdata_t *ad) {
  const char *what = rt_map_str(ad, "do", "");
  if (strcmp(what, "done") == 0)
    cloudabi_sys_proc_exit(7);
  out = rt_map_fd(ad, "out");
  rt_log_fd = out;
  self = rt_map_fd(ad, "self");
  exec_after_park();
  threads_are_no_end();
}
