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
  /* Two pipes, each as {read end, write end}; a guest gets FIFOs opened
   * read-write, so both ends are the same descriptor. */
  int ping[2], pong[2];
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

/*
 * Threads and synchronisation: POSIX threads natively; as a guest, the test
 * runtime's (abi/rt/thread.c), which follows cloudlibc's protocol over our
 * vDSO, so the comparison is what a cloudlibc program pays.
 */
typedef void *bench_thread_fn(void *arg);

#ifdef __CloudABI__
#include "cloudabi_syscalls.h"
#include "rt_thread.h"
static inline long bench_write(int fd, const void *buf, size_t len) {
  cloudabi_ciovec_t iov = {buf, len};
  size_t n;
  return cloudabi_sys_fd_write((cloudabi_fd_t)fd, &iov, 1, &n) == 0
             ? (long)n
             : -1;
}
static inline long bench_read(int fd, void *buf, size_t len) {
  cloudabi_iovec_t iov = {buf, len};
  size_t n;
  return cloudabi_sys_fd_read((cloudabi_fd_t)fd, &iov, 1, &n) == 0 ? (long)n
                                                                    : -1;
}
typedef rt_lock_t bench_mutex_t;
typedef rt_cond_t bench_cond_t;
typedef rt_thread_t *bench_thread_t;
static inline void bench_mutex_init(bench_mutex_t *m) {
  rt_lock_init(m, CLOUDABI_SCOPE_PRIVATE);
}
static inline void bench_mutex_lock(bench_mutex_t *m) { rt_lock_wrlock(m); }
static inline void bench_mutex_unlock(bench_mutex_t *m) { rt_lock_unlock(m); }
static inline void bench_cond_init(bench_cond_t *c) {
  rt_cond_init(c, CLOUDABI_SCOPE_PRIVATE);
}
static inline void bench_cond_wait(bench_cond_t *c, bench_mutex_t *m) {
  rt_cond_wait(c, m);
}
static inline void bench_cond_signal(bench_cond_t *c) { rt_cond_signal(c); }
static inline int bench_thread_create(bench_thread_t *t, bench_thread_fn *fn,
                                      void *arg) {
  return rt_thread_create(t, fn, arg) == 0 ? 0 : -1;
}
static inline void *bench_thread_join(bench_thread_t t) {
  return rt_thread_join(t);
}
static inline uint64_t bench_clock_read(void) {
  cloudabi_timestamp_t t = 0;
  cloudabi_sys_clock_time_get(CLOUDABI_CLOCK_MONOTONIC, 0, &t);
  return t;
}
#else
#include <pthread.h>
#include <time.h>
#include <unistd.h>
static inline long bench_write(int fd, const void *buf, size_t len) {
  return write(fd, buf, len);
}
static inline long bench_read(int fd, void *buf, size_t len) {
  return read(fd, buf, len);
}
typedef pthread_mutex_t bench_mutex_t;
typedef pthread_cond_t bench_cond_t;
typedef pthread_t bench_thread_t;
static inline void bench_mutex_init(bench_mutex_t *m) {
  pthread_mutex_init(m, NULL);
}
static inline void bench_mutex_lock(bench_mutex_t *m) {
  pthread_mutex_lock(m);
}
static inline void bench_mutex_unlock(bench_mutex_t *m) {
  pthread_mutex_unlock(m);
}
static inline void bench_cond_init(bench_cond_t *c) {
  pthread_cond_init(c, NULL);
}
static inline void bench_cond_wait(bench_cond_t *c, bench_mutex_t *m) {
  pthread_cond_wait(c, m);
}
static inline void bench_cond_signal(bench_cond_t *c) {
  pthread_cond_signal(c);
}
static inline int bench_thread_create(bench_thread_t *t, bench_thread_fn *fn,
                                      void *arg) {
  return pthread_create(t, NULL, fn, arg) == 0 ? 0 : -1;
}
static inline void *bench_thread_join(bench_thread_t t) {
  void *r;
  pthread_join(t, &r);
  return r;
}
static inline uint64_t bench_clock_read(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#endif

#endif
