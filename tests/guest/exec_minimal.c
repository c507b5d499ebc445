/*
 * proc_exec of the smallest program FreeBSD runs (issue 13.5: 300 bytes,
 * one PT_LOAD, no PT_DYNAMIC, PT_TLS or PT_PHDR, body `jmp .`), as
 * upstream's test does it: a forked child execs it, the parent sees it
 * keep running, then kills it by closing its process descriptor.
 * Config: out (stdout), prog (the file, with PROC_EXEC).
 */
#include "rt.h"
#include "rt_thread.h"

#define E(x) CLOUDABI_EVENTTYPE_##x

/* Polls pd's end for timeout_ns: whether it ended. */
static bool ended(cloudabi_fd_t pd, uint64_t timeout_ns) {
  cloudabi_subscription_t s[2] = {
      {.userdata = 1, .type = E(PROC_TERMINATE), .proc_terminate = {pd}},
      {.userdata = 2,
       .type = E(CLOCK),
       .clock = {.clock_id = CLOUDABI_CLOCK_MONOTONIC,
                 .timeout = timeout_ns}},
  };
  cloudabi_event_t ev[2];
  size_t n = 0;
  RT_EXPECT(cloudabi_sys_poll(s, ev, 2, &n), 0);
  for (size_t i = 0; i < n; i++)
    if (ev[i].userdata == 1)
      return true;
  return false;
}

void program_main(const argdata_t *ad) {
  cloudabi_fd_t out = rt_map_fd(ad, "out");
  rt_log_fd = out;
  cloudabi_fd_t prog = rt_map_fd(ad, "prog");
  cloudabi_fd_t pd;
  RT_EXPECT(rt_proc_fork(&pd), 0);
  if (pd == CLOUDABI_PROCESS_CHILD) {
    cloudabi_errno_t e = cloudabi_sys_proc_exec(prog, NULL, 0, NULL, 0);
    cloudabi_sys_proc_exit(100 + e);
  }
  rt_printf(out, "minimal: %s\n",
            ended(pd, 500000000) ? "ended" : "keeps running");
  RT_EXPECT(cloudabi_sys_fd_close(pd), 0);
}
