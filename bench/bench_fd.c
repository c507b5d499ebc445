/* Descriptor I/O through the supervisor. */
#include "bench.h"

static void write1(const struct bench_env *env, uint64_t n) {
  char c = 'x';
  for (uint64_t i = 0; i < n; i++)
    if (bench_write(env->devnull, &c, 1) != 1)
      bench_fail("write1");
}
BENCH("write1", write1, 200000);
