/*
 * The benchmark harness: runs every benchmark linked in (or those named
 * by `only`) and prints "name ns_per_op" lines.  Under cloudabi-run the
 * environment comes from the config (devnull, dir, only); natively from
 * the command line: bench-native [DIR [ONLY]].
 */
#include "bench.h"

extern const struct bench __start_bench_table[], __stop_bench_table[];

static int selected(const char *only, const char *name) {
  if (only == NULL || only[0] == '\0')
    return 1;
  /* A comma-separated list of names. */
  size_t n = 0;
  while (name[n] != '\0')
    n++;
  for (const char *p = only; *p != '\0';) {
    size_t k = 0;
    while (p[k] != '\0' && p[k] != ',')
      k++;
    if (k == n) {
      size_t i = 0;
      while (i < n && p[i] == name[i])
        i++;
      if (i == n)
        return 1;
    }
    p += k;
    if (*p == ',')
      p++;
  }
  return 0;
}

static void print_result(const char *name, uint64_t ns, uint64_t iters);

static void run_all(const struct bench_env *env, const char *only) {
  for (const struct bench *b = __start_bench_table; b < __stop_bench_table;
       b++) {
    if (!selected(only, b->name))
      continue;
    b->fn(env, b->iterations / 10); /* warm up */
    uint64_t t0 = bench_now_ns();
    b->fn(env, b->iterations);
    uint64_t t1 = bench_now_ns();
    print_result(b->name, t1 - t0, b->iterations);
  }
}

#ifdef __CloudABI__
#include "rt.h"

uint64_t bench_now_ns(void) {
  cloudabi_timestamp_t t;
  cloudabi_sys_clock_time_get(CLOUDABI_CLOCK_MONOTONIC, 0, &t);
  return t;
}

static cloudabi_fd_t out;

_Noreturn void bench_fail(const char *what) { rt_fail("bench", 0, what); }

static void print_result(const char *name, uint64_t ns, uint64_t iters) {
  uint64_t centi = ns * 100 / iters;
  rt_printf(out, "%s %lu.%02lu\n", name, (unsigned long)(centi / 100),
            (unsigned long)(centi % 100));
}

static int optional_fd(const argdata_t *ad, const char *key) {
  argdata_t v;
  cloudabi_fd_t fd;
  if (!rt_map_get(ad, key, &v) || argdata_get_fd(&v, &fd) != 0)
    return -1;
  return (int)fd;
}

void program_main(const argdata_t *ad) {
  out = rt_map_fd(ad, "out");
  rt_log_fd = out;
  int ping = optional_fd(ad, "ping"), pong = optional_fd(ad, "pong");
  struct bench_env env = {optional_fd(ad, "devnull"),
                          optional_fd(ad, "dir"),
                          {ping, ping},
                          {pong, pong},
                          optional_fd(ad, "zero")};
  run_all(&env, rt_map_str(ad, "only", NULL));
}
#else
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <time.h>

uint64_t bench_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

_Noreturn void bench_fail(const char *what) {
  perror(what);
  exit(1);
}

static void print_result(const char *name, uint64_t ns, uint64_t iters) {
  printf("%s %.2f\n", name, (double)ns / (double)iters);
}

int main(int argc, char **argv) {
  struct bench_env env = {open("/dev/null", O_WRONLY | O_CLOEXEC),
                          argc > 1 ? open(argv[1], O_RDONLY | O_DIRECTORY |
                                                       O_CLOEXEC)
                                   : -1,
                          {-1, -1},
                          {-1, -1},
                          open("/dev/zero", O_RDONLY | O_CLOEXEC)};
  if (pipe(env.ping) != 0 || pipe(env.pong) != 0)
    bench_fail("pipe");
  run_all(&env, argc > 2 ? argv[2] : NULL);
  return 0;
}
#endif
