/*
 * Threads and synchronisation: what stays in the guest (uncontended
 * locks, clock reads) should cost what it costs natively; what blocks
 * (condition variable and pipe ping-pong) pays for futex or supervisor
 * round trips; thread creation pays for the supervisor's look at each
 * clone (the thread limit).
 */
#include "bench.h"

static void mutex_uncontended(const struct bench_env *env, uint64_t n) {
  (void)env;
  static bench_mutex_t m;
  bench_mutex_init(&m);
  for (uint64_t i = 0; i < n; i++) {
    bench_mutex_lock(&m);
    bench_mutex_unlock(&m);
  }
}
BENCH("mutex_uncontended", mutex_uncontended, 20000000);

static void clock_reads(const struct bench_env *env, uint64_t n) {
  (void)env;
  uint64_t sum = 0;
  for (uint64_t i = 0; i < n; i++)
    sum += bench_clock_read();
  if (sum == 0)
    bench_fail("clock_read");
}
BENCH("clock_read", clock_reads, 2000000);

/* Two threads hand a turn back and forth under one mutex. */
struct pingpong {
  bench_mutex_t m;
  bench_cond_t cond;
  uint64_t rounds;
  unsigned turn;
};

static void take_turns(struct pingpong *p, unsigned me) {
  for (uint64_t i = 0; i < p->rounds; i++) {
    bench_mutex_lock(&p->m);
    while (p->turn != me)
      bench_cond_wait(&p->cond, &p->m);
    p->turn = !me;
    bench_cond_signal(&p->cond);
    bench_mutex_unlock(&p->m);
  }
}

static void *pong_turns(void *arg) {
  take_turns(arg, 1);
  return NULL;
}

static void condvar_pingpong(const struct bench_env *env, uint64_t n) {
  (void)env;
  static struct pingpong p;
  bench_mutex_init(&p.m);
  bench_cond_init(&p.cond);
  p.rounds = n;
  p.turn = 0;
  bench_thread_t t;
  if (bench_thread_create(&t, pong_turns, &p) != 0)
    bench_fail("thread create");
  take_turns(&p, 0);
  bench_thread_join(t);
}
BENCH("condvar_pingpong", condvar_pingpong, 20000);

/* A byte over one pipe and back over the other. */
struct pipes {
  const struct bench_env *env;
  uint64_t rounds;
};

static void *pipe_echo(void *arg) {
  struct pipes *p = arg;
  char c;
  for (uint64_t i = 0; i < p->rounds; i++)
    if (bench_read(p->env->ping[0], &c, 1) != 1 ||
        bench_write(p->env->pong[1], &c, 1) != 1)
      bench_fail("pipe echo");
  return NULL;
}

static void pipe_pingpong(const struct bench_env *env, uint64_t n) {
  if (env->ping[0] < 0 || env->pong[0] < 0)
    return; /* no pipes configured */
  struct pipes p = {env, n};
  bench_thread_t t;
  if (bench_thread_create(&t, pipe_echo, &p) != 0)
    bench_fail("thread create");
  char c = 'p';
  for (uint64_t i = 0; i < n; i++)
    if (bench_write(env->ping[1], &c, 1) != 1 ||
        bench_read(env->pong[0], &c, 1) != 1)
      bench_fail("pipe ping");
  bench_thread_join(t);
}
BENCH("pipe_pingpong", pipe_pingpong, 10000);

static void *nothing(void *arg) {
  return arg;
}

static void thread_create_join(const struct bench_env *env, uint64_t n) {
  (void)env;
  for (uint64_t i = 0; i < n; i++) {
    bench_thread_t t;
    if (bench_thread_create(&t, nothing, NULL) != 0)
      bench_fail("thread create");
    bench_thread_join(t);
  }
}
BENCH("thread_create_join", thread_create_join, 2000);
