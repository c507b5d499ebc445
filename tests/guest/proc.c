/*
 * proc_exit and proc_raise, by the config's `do`: "exit" exits with
 * `code`; "raise" raises CloudABI signal `sig` and reports if it returned;
 * "checks" runs the calls that must return.
 */
#include "rt.h"

void program_main(const argdata_t *ad) {
  cloudabi_fd_t out = rt_map_fd(ad, "out");
  rt_log_fd = out;
  const char *what = rt_map_str(ad, "do", "");
  if (strcmp(what, "exit") == 0) {
    cloudabi_sys_proc_exit((cloudabi_exitcode_t)rt_map_int(ad, "code", 0));
  } else if (strcmp(what, "raise") == 0) {
    cloudabi_signal_t sig = (cloudabi_signal_t)rt_map_int(ad, "sig", 0);
    cloudabi_errno_t e = cloudabi_sys_proc_raise(sig);
    rt_printf(out, "raise %u returned %u\n", sig, e);
  } else if (strcmp(what, "checks") == 0) {
    /* Signal 0 and ignored signals return; unknown ones are EINVAL. */
    RT_EXPECT(cloudabi_sys_proc_raise(0), 0);
    RT_EXPECT(cloudabi_sys_proc_raise(CLOUDABI_SIGPIPE), 0);
    RT_EXPECT(cloudabi_sys_proc_raise(CLOUDABI_SIGCHLD), 0);
    RT_EXPECT(cloudabi_sys_proc_raise(CLOUDABI_SIGURG), 0);
    RT_EXPECT(cloudabi_sys_proc_raise(27), CLOUDABI_EINVAL);
    RT_EXPECT(cloudabi_sys_proc_raise(255), CLOUDABI_EINVAL);
    rt_printf(out, "proc: %u checks passed\n", rt_checks_passed);
  } else if (strcmp(what, "segv") == 0) {
    *(volatile int *)16 = 1;
  } else {
    rt_fail(__FILE__, __LINE__, "unknown action");
  }
}
