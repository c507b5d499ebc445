/*
 * Benchmarks that compile twice from the same source: as a CloudABI
 * program (run under cloudabi-run) and natively for Linux.  A benchmark
 * is a function that repeats one operation; the harness (bench_main.c)
 * times it and prints "name ns_per_op".  The few operations benchmarks
 * need are spelled once here for both worlds.
 */
#ifndef BENCH_H
#define BENCH_H

#include <stddef.h>
#include <stdint.h>

/* What a benchmark may use; descriptors are -1 when not configured. */
struct bench_env {
  int devnull; /* writable, discards */
  int dir;     /* a scratch directory */
};

typedef void bench_fn(const struct bench_env *env, uint64_t iterations);

struct bench {
  const char *name;
  bench_fn *fn;
  uint64_t iterations;
};

/* Each benchmark file adds entries with BENCH(name, fn, iterations). */
#define BENCH(n, f, iters)                                                     \
  static const struct bench bench_##f                                          \
      __attribute__((used, section("bench_table"), aligned(8))) = {n, f, iters}

uint64_t bench_now_ns(void);
_Noreturn void bench_fail(const char *what);

#ifdef __CloudABI__
#include "cloudabi_syscalls.h"
static inline long bench_write(int fd, const void *buf, size_t len) {
  cloudabi_ciovec_t iov = {buf, len};
  size_t n;
  return cloudabi_sys_fd_write((cloudabi_fd_t)fd, &iov, 1, &n) == 0
             ? (long)n
             : -1;
}
#else
#include <unistd.h>
static inline long bench_write(int fd, const void *buf, size_t len) {
  return write(fd, buf, len);
}
#endif

#endif
