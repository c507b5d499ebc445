/*
 * Creates threads that never end until the supervisor stops it: the
 * process is killed once it has more than its limit of threads.  If it
 * ever gets to `limit` + 100 threads, it says so and exits 0, which the
 * test treats as a failure.
 */
#include "rt.h"
#include "rt_thread.h"

static void *sleeper(void *arg) {
  (void)arg;
  for (;;)
    rt_sleep_ns(1000000000ull);
  return NULL;
}

void program_main(const argdata_t *ad) {
  cloudabi_fd_t out = rt_map_fd(ad, "out");
  rt_log_fd = out;
  for (int i = 0; i < 1024 + 100; i++) {
    rt_thread_t *t;
    if (rt_thread_create(&t, sleeper, NULL) != 0)
      rt_fail(__FILE__, __LINE__, "thread_create failed before the limit");
  }
  rt_printf(out, "thread bomb not stopped\n");
}
