/* A clock read: performed in the guest by the vDSO, never trapped (only
 * the tracing vDSO of --trace=local reports it to the supervisor). */
#include "bench.h"

static void clock1(const struct bench_env *env, uint64_t n) {
  (void)env;
  uint64_t last = 0;
  for (uint64_t i = 0; i < n; i++) {
    uint64_t t = bench_now_ns();
    if (t < last)
      bench_fail("clock went backwards");
    last = t;
  }
}
BENCH("clock", clock1, 500000);
