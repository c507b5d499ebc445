/*
 * The vDSO's locks and condition variables (abi/vdso/locks.c, reached
 * through its poll) compiled natively and run across processes: several
 * forked processes, each with several threads, sharing a MAP_SHARED
 * mapping with SCOPE_SHARED locks and condition variables in it.  This is
 * the case a guest can only reach once processes can share memory (file
 * mem_map, proc_fork); the futex protocol is the same code.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cloudabi_types.h"

/* The vDSO's entry points, as a guest program sees them. */
cloudabi_errno_t cloudabi_sys_poll(const cloudabi_subscription_t *in,
                                   cloudabi_event_t *out, size_t n,
                                   size_t *nevents);
cloudabi_errno_t cloudabi_sys_lock_unlock(_Atomic(cloudabi_lock_t) *lock,
                                          cloudabi_scope_t scope);
cloudabi_errno_t cloudabi_sys_condvar_signal(_Atomic(cloudabi_condvar_t) *cv,
                                             cloudabi_scope_t scope,
                                             cloudabi_nthreads_t n);

#define WR CLOUDABI_LOCK_WRLOCKED
#define SHARED CLOUDABI_SCOPE_SHARED

/* ---- cloudlibc's side of the protocol ---- */

static void lock(_Atomic(cloudabi_lock_t) *l) {
  uint32_t unlocked = 0;
  if (__atomic_compare_exchange_n((uint32_t *)l, &unlocked, gettid() | WR,
                                  false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
    return;
  cloudabi_subscription_t s = {.type = CLOUDABI_EVENTTYPE_LOCK_WRLOCK,
                               .lock = {l, SHARED}};
  cloudabi_event_t ev;
  size_t n;
  if (cloudabi_sys_poll(&s, &ev, 1, &n) != 0 || n != 1 || ev.error != 0)
    abort();
}

static void unlock(_Atomic(cloudabi_lock_t) *l) {
  uint32_t mine = gettid() | WR;
  if (!__atomic_compare_exchange_n((uint32_t *)l, &mine, 0, false,
                                   __ATOMIC_RELEASE, __ATOMIC_RELAXED) &&
      cloudabi_sys_lock_unlock(l, SHARED) != 0)
    abort();
}

/* 0 when signalled, 1 when the timeout (ns, relative; 0: none) came. */
static int cv_wait(_Atomic(cloudabi_condvar_t) *cv, _Atomic(cloudabi_lock_t) *l,
                   uint64_t timeout) {
  cloudabi_subscription_t s[2] = {
      {.type = CLOUDABI_EVENTTYPE_CONDVAR, .condvar = {cv, l, SHARED, SHARED}},
      {.type = CLOUDABI_EVENTTYPE_CLOCK,
       .clock = {.clock_id = CLOUDABI_CLOCK_MONOTONIC, .timeout = timeout}}};
  cloudabi_event_t ev;
  size_t n;
  if (cloudabi_sys_poll(s, &ev, timeout != 0 ? 2 : 1, &n) != 0 || n != 1 ||
      ev.error != 0)
    abort();
  return ev.type == CLOUDABI_EVENTTYPE_CLOCK;
}

static void signal_cv(_Atomic(cloudabi_condvar_t) *cv, uint32_t n) {
  if (*cv != 0 && cloudabi_sys_condvar_signal(cv, SHARED, n) != 0)
    abort();
}

/* ---- running it in several processes with several threads ---- */

#define PROCS 3
#define THREADS 4

static void *shared_map(size_t size) {
  void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                 -1, 0);
  assert_true(p != MAP_FAILED);
  memset(p, 0, size);
  return p;
}

/* Runs fn(arg, process, thread) in PROCS processes x THREADS threads. */
struct job {
  void (*fn)(void *arg, unsigned proc, unsigned thread);
  void *arg;
  unsigned proc, thread;
};

static void *job_thread(void *p) {
  struct job *j = p;
  j->fn(j->arg, j->proc, j->thread);
  return NULL;
}

static void run_everywhere(void (*fn)(void *, unsigned, unsigned), void *arg) {
  pid_t pids[PROCS];
  for (unsigned p = 0; p < PROCS; p++) {
    pids[p] = fork();
    assert_true(pids[p] >= 0);
    if (pids[p] == 0) {
      pthread_t t[THREADS];
      struct job jobs[THREADS];
      for (unsigned i = 0; i < THREADS; i++) {
        jobs[i] = (struct job){fn, arg, p, i};
        if (pthread_create(&t[i], NULL, job_thread, &jobs[i]) != 0)
          _exit(2);
      }
      for (unsigned i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
      _exit(0);
    }
  }
  for (unsigned p = 0; p < PROCS; p++) {
    int status;
    assert_int_equal(waitpid(pids[p], &status, 0), pids[p]);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
}

/* A counter under a mutex. */
struct counter {
  _Atomic(cloudabi_lock_t) lock;
  uint64_t value;
};
#define INCREMENTS 20000

static void count(void *arg, unsigned proc, unsigned thread) {
  (void)proc;
  (void)thread;
  struct counter *c = arg;
  for (unsigned i = 0; i < INCREMENTS; i++) {
    lock(&c->lock);
    uint64_t v = c->value;
    if (i % 128 == 0)
      sched_yield();
    c->value = v + 1;
    unlock(&c->lock);
  }
}

static void test_counter(void **state) {
  (void)state;
  struct counter *c = shared_map(sizeof(*c));
  run_everywhere(count, c);
  assert_int_equal(c->value, (uint64_t)PROCS * THREADS * INCREMENTS);
  assert_int_equal(c->lock, 0);
  munmap(c, sizeof(*c));
}

/* Producers in every process, consumers in every process. */
struct queue {
  _Atomic(cloudabi_lock_t) lock;
  _Atomic(cloudabi_condvar_t) not_empty, not_full;
  uint32_t items[4];
  unsigned head, len, producers_left;
  uint64_t sum, taken;
};
#define ITEMS 3000

static void produce_or_consume(void *arg, unsigned proc, unsigned thread) {
  struct queue *q = arg;
  if (thread % 2 == 0) {
    for (unsigned i = 0; i < ITEMS; i++) {
      lock(&q->lock);
      while (q->len == 4)
        cv_wait(&q->not_full, &q->lock, 0);
      q->items[(q->head + q->len++) % 4] =
          (proc * THREADS + thread) * ITEMS + i;
      signal_cv(&q->not_empty, 1);
      unlock(&q->lock);
    }
    lock(&q->lock);
    if (--q->producers_left == 0)
      signal_cv(&q->not_empty, UINT32_MAX);
    unlock(&q->lock);
  } else {
    lock(&q->lock);
    for (;;) {
      while (q->len == 0 && q->producers_left > 0)
        cv_wait(&q->not_empty, &q->lock, 0);
      if (q->len == 0)
        break;
      q->sum += q->items[q->head];
      q->head = (q->head + 1) % 4;
      q->len--;
      q->taken++;
      signal_cv(&q->not_full, 1);
    }
    unlock(&q->lock);
  }
}

static void test_queue(void **state) {
  (void)state;
  struct queue *q = shared_map(sizeof(*q));
  q->producers_left = PROCS * THREADS / 2;
  run_everywhere(produce_or_consume, q);
  uint64_t n = (uint64_t)PROCS * (THREADS / 2) * ITEMS, sum = 0;
  for (unsigned p = 0; p < PROCS; p++)
    for (unsigned t = 0; t < THREADS; t += 2)
      for (unsigned i = 0; i < ITEMS; i++)
        sum += (p * THREADS + t) * ITEMS + i;
  assert_int_equal(q->taken, n);
  assert_int_equal(q->sum, sum);
  assert_int_equal(q->not_empty, 0);
  assert_int_equal(q->not_full, 0);
  munmap(q, sizeof(*q));
}

/* A barrier: broadcasts, and timed waits that mostly do not time out. */
struct barrier {
  _Atomic(cloudabi_lock_t) lock;
  _Atomic(cloudabi_condvar_t) cond;
  unsigned waiting, generation, timeouts;
  unsigned arrived[50];
};

static void barrier_phases(void *arg, unsigned proc, unsigned thread) {
  struct barrier *b = arg;
  for (unsigned ph = 0; ph < 50; ph++) {
    __atomic_fetch_add(&b->arrived[ph], 1, __ATOMIC_RELAXED);
    lock(&b->lock);
    if (++b->waiting == PROCS * THREADS) {
      b->waiting = 0;
      b->generation++;
      signal_cv(&b->cond, UINT32_MAX);
      if (b->cond != 0)
        abort(); /* everyone woken: no waiters, at once */
    } else {
      unsigned gen = b->generation;
      while (gen == b->generation)
        b->timeouts +=
            cv_wait(&b->cond, &b->lock, (proc + thread) % 2 ? 1000000 : 0);
    }
    unlock(&b->lock);
    if (__atomic_load_n(&b->arrived[ph], __ATOMIC_RELAXED) != PROCS * THREADS)
      abort();
  }
}

static void test_barrier(void **state) {
  (void)state;
  struct barrier *b = shared_map(sizeof(*b));
  run_everywhere(barrier_phases, b);
  assert_int_equal(b->generation, 50);
  assert_int_equal(b->cond, 0);
  assert_int_equal(b->lock, 0);
  munmap(b, sizeof(*b));
}

/* The vDSO's guarded copy (io.c, which needs the supervisor to recover
 * faults) is a plain copy here: the test passes only good pointers. */
int vdso_copy(void *dst, const void *src, size_t n);
int vdso_copy(void *dst, const void *src, size_t n) {
  memcpy(dst, src, n);
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_counter),
      cmocka_unit_test(test_queue),
      cmocka_unit_test(test_barrier),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
