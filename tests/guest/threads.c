/*
 * Threads and synchronisation under load, for 1..16 threads, several
 * rounds each: a counter under a mutex (exact total), producers and
 * consumers on condition variables (every item once), readers and writers
 * (no torn reads), a barrier built on a condition variable, timed waits
 * racing signals and broadcasts (no waiter left behind), joins that
 * free the stack at once, thread-local storage distinct per thread.  The
 * objects live in private memory (SCOPE_PRIVATE) and again in shared
 * memory (MAP_SHARED, SCOPE_SHARED).
 *
 * Config: out (fd), rounds (int, default 3), max_threads (default 16).
 */
#include "rt.h"
#include "rt_thread.h"

#define MAX_THREADS 16

static cloudabi_scope_t scope; /* of every object in the current pass */

static void lock_init(rt_lock_t *l) {
  rt_lock_init(l, scope);
}
static void cond_init(rt_cond_t *c) {
  rt_cond_init(c, scope);
}

static void start_all(rt_thread_t **t, unsigned n, rt_thread_fn *fn,
                      void *const *args) {
  for (unsigned i = 0; i < n; i++)
    RT_CHECK(rt_thread_create(&t[i], fn, args[i]) == 0);
}

/* ---- a counter under a mutex ---- */

struct counter {
  rt_lock_t lock;
  uint64_t value;
  unsigned iterations;
};

static void *count(void *arg) {
  struct counter *c = arg;
  for (unsigned i = 0; i < c->iterations; i++) {
    rt_lock_wrlock(&c->lock);
    uint64_t v = c->value;
    if ((i & 63) == 0)
      cloudabi_sys_thread_yield(); /* widen the window for a lost update */
    c->value = v + 1;
    rt_lock_unlock(&c->lock);
  }
  return NULL;
}

static void test_counter(struct counter *c, unsigned n) {
  lock_init(&c->lock);
  c->value = 0;
  c->iterations = 2000;
  rt_thread_t *t[MAX_THREADS];
  void *args[MAX_THREADS];
  for (unsigned i = 0; i < n; i++)
    args[i] = c;
  start_all(t, n, count, args);
  for (unsigned i = 0; i < n; i++)
    rt_thread_join(t[i]);
  RT_CHECK(c->value == (uint64_t)n * c->iterations);
  RT_CHECK(c->lock.word == CLOUDABI_LOCK_UNLOCKED);
}

/* ---- producers and consumers ---- */

#define QUEUE 8
#define ITEMS_PER_PRODUCER 500

struct queue {
  rt_lock_t lock;
  rt_cond_t not_empty, not_full;
  uint32_t items[QUEUE];
  unsigned head, len;
  unsigned producers_left;
  uint64_t sum, taken;
  uint8_t seen[MAX_THREADS * ITEMS_PER_PRODUCER];
};

struct producer {
  struct queue *q;
  unsigned id;
};

static void *produce(void *arg) {
  struct producer *p = arg;
  struct queue *q = p->q;
  for (unsigned i = 0; i < ITEMS_PER_PRODUCER; i++) {
    rt_lock_wrlock(&q->lock);
    while (q->len == QUEUE)
      rt_cond_wait(&q->not_full, &q->lock);
    q->items[(q->head + q->len++) % QUEUE] = p->id * ITEMS_PER_PRODUCER + i;
    rt_cond_signal(&q->not_empty);
    rt_lock_unlock(&q->lock);
  }
  rt_lock_wrlock(&q->lock);
  if (--q->producers_left == 0)
    rt_cond_broadcast(&q->not_empty);
  rt_lock_unlock(&q->lock);
  return NULL;
}

static void *consume(void *arg) {
  struct queue *q = arg;
  rt_lock_wrlock(&q->lock);
  for (;;) {
    while (q->len == 0 && q->producers_left > 0)
      rt_cond_wait(&q->not_empty, &q->lock);
    if (q->len == 0)
      break;
    uint32_t item = q->items[q->head];
    q->head = (q->head + 1) % QUEUE;
    q->len--;
    RT_CHECK(q->seen[item]++ == 0);
    q->sum += item;
    q->taken++;
    rt_cond_signal(&q->not_full);
  }
  rt_lock_unlock(&q->lock);
  return NULL;
}

static void test_queue(struct queue *q, unsigned n) {
  /* n threads in all: half producers (at least one), the rest consumers. */
  unsigned np = n > 1 ? n / 2 : 1, nc = n > 1 ? n - np : 1;
  memset(q, 0, sizeof(*q));
  lock_init(&q->lock);
  cond_init(&q->not_empty);
  cond_init(&q->not_full);
  q->producers_left = np;
  struct producer ps[MAX_THREADS];
  rt_thread_t *t[2 * MAX_THREADS];
  void *args[2 * MAX_THREADS];
  for (unsigned i = 0; i < np; i++) {
    ps[i] = (struct producer){q, i};
    args[i] = &ps[i];
  }
  start_all(t, np, produce, args);
  for (unsigned i = 0; i < nc; i++)
    args[i] = q;
  start_all(t + np, nc, consume, args);
  for (unsigned i = 0; i < np + nc; i++)
    rt_thread_join(t[i]);
  uint64_t total = (uint64_t)np * ITEMS_PER_PRODUCER;
  RT_CHECK(q->taken == total);
  RT_CHECK(q->sum == total * (total - 1) / 2);
  RT_CHECK(q->not_empty.waiters == CLOUDABI_CONDVAR_HAS_NO_WAITERS);
  RT_CHECK(q->not_full.waiters == CLOUDABI_CONDVAR_HAS_NO_WAITERS);
}

/* ---- readers and writers ---- */

struct shared_pair {
  rt_lock_t lock;
  uint64_t a, b; /* always equal outside a write lock */
  unsigned writes_each, reads_each;
  uint64_t reads; /* under the write lock of `count_lock` */
  rt_lock_t count_lock;
};

static void *rw_worker(void *arg) {
  struct shared_pair *p = arg;
  uint64_t reads = 0;
  for (unsigned i = 0; i < p->reads_each; i++) {
    if (i % 8 == 0 && i / 8 < p->writes_each) {
      rt_lock_wrlock(&p->lock);
      p->a++;
      cloudabi_sys_thread_yield();
      p->b++;
      rt_lock_unlock(&p->lock);
    } else {
      rt_lock_rdlock(&p->lock);
      RT_CHECK(p->a == p->b);
      rt_lock_unlock(&p->lock);
      reads++;
    }
  }
  rt_lock_wrlock(&p->count_lock);
  p->reads += reads;
  rt_lock_unlock(&p->count_lock);
  return NULL;
}

static void test_rwlock(struct shared_pair *p, unsigned n) {
  memset(p, 0, sizeof(*p));
  lock_init(&p->lock);
  lock_init(&p->count_lock);
  p->writes_each = 50;
  p->reads_each = 800;
  rt_thread_t *t[MAX_THREADS];
  void *args[MAX_THREADS];
  for (unsigned i = 0; i < n; i++)
    args[i] = p;
  start_all(t, n, rw_worker, args);
  for (unsigned i = 0; i < n; i++)
    rt_thread_join(t[i]);
  RT_CHECK(p->a == (uint64_t)n * p->writes_each && p->a == p->b);
  RT_CHECK(p->reads == (uint64_t)n * (p->reads_each - p->writes_each));
  RT_CHECK(p->lock.word == CLOUDABI_LOCK_UNLOCKED);
}

/* ---- a barrier on a condition variable ---- */

#define PHASES 20

struct barrier {
  rt_lock_t lock;
  rt_cond_t cond;
  unsigned n, waiting, generation;
  unsigned arrived[PHASES];
};

static void barrier_wait(struct barrier *b) {
  rt_lock_wrlock(&b->lock);
  if (++b->waiting == b->n) {
    b->waiting = 0;
    b->generation++;
    rt_cond_broadcast(&b->cond);
    /* Everyone was woken: the word says so at once (cloudabi.txt). */
    RT_CHECK(b->cond.waiters == CLOUDABI_CONDVAR_HAS_NO_WAITERS);
  } else {
    unsigned gen = b->generation;
    while (gen == b->generation)
      rt_cond_wait(&b->cond, &b->lock);
  }
  rt_lock_unlock(&b->lock);
}

static void *barrier_worker(void *arg) {
  struct barrier *b = arg;
  for (unsigned ph = 0; ph < PHASES; ph++) {
    __atomic_fetch_add(&b->arrived[ph], 1, __ATOMIC_RELAXED);
    barrier_wait(b);
    /* Nobody passes phase ph before everyone has arrived at it. */
    RT_CHECK(__atomic_load_n(&b->arrived[ph], __ATOMIC_RELAXED) == b->n);
  }
  return NULL;
}

static void test_barrier(struct barrier *b, unsigned n) {
  memset(b, 0, sizeof(*b));
  lock_init(&b->lock);
  cond_init(&b->cond);
  b->n = n;
  rt_thread_t *t[MAX_THREADS];
  void *args[MAX_THREADS];
  for (unsigned i = 0; i < n; i++)
    args[i] = b;
  start_all(t, n, barrier_worker, args);
  for (unsigned i = 0; i < n; i++)
    rt_thread_join(t[i]);
  RT_CHECK(b->cond.waiters == CLOUDABI_CONDVAR_HAS_NO_WAITERS);
}

/* ---- timed waits racing signals and broadcasts ---- */

struct racing {
  rt_lock_t lock;
  rt_cond_t cond;
  unsigned running;
  uint64_t signalled, timed_out;
};

static void *racing_waiter(void *arg) {
  struct racing *r = arg;
  rt_lock_wrlock(&r->lock);
  for (unsigned i = 0; i < 150; i++) {
    /* 0 to 255 microseconds: many time out as a signal comes. */
    if (rt_cond_timedwait(&r->cond, &r->lock, CLOUDABI_CLOCK_MONOTONIC,
                          (i * 7919u % 256) * 1000, false) == 0)
      r->signalled++;
    else
      r->timed_out++;
  }
  r->running--;
  rt_lock_unlock(&r->lock);
  return NULL;
}

static void test_racing(struct racing *r, unsigned n) {
  memset(r, 0, sizeof(*r));
  lock_init(&r->lock);
  cond_init(&r->cond);
  r->running = n;
  rt_thread_t *t[MAX_THREADS];
  void *args[MAX_THREADS];
  for (unsigned i = 0; i < n; i++)
    args[i] = r;
  start_all(t, n, racing_waiter, args);
  for (unsigned i = 0;; i++) {
    rt_lock_wrlock(&r->lock);
    unsigned running = r->running;
    rt_lock_unlock(&r->lock);
    if (running == 0)
      break;
    /* Signals with and without the lock, one or all. */
    if (i % 3 == 0)
      rt_cond_broadcast(&r->cond);
    else
      rt_cond_signal(&r->cond);
    if (i % 5 == 0)
      cloudabi_sys_thread_yield();
  }
  for (unsigned i = 0; i < n; i++)
    rt_thread_join(t[i]);
  RT_CHECK(r->signalled + r->timed_out == 150ull * n);
  RT_CHECK(r->cond.waiters == CLOUDABI_CONDVAR_HAS_NO_WAITERS);
  RT_CHECK(r->lock.word == CLOUDABI_LOCK_UNLOCKED);
}

/* ---- join results, thread ids, thread-local storage ---- */

static _Thread_local uint64_t tls_value = 0x5eed;
static _Thread_local char tls_zeroed[200];

struct tls_report {
  uint64_t *value_at;
  cloudabi_tid_t tid;
  unsigned index;
};

/* Workers stay until all have started, so that their tids must differ:
 * one that ended may be parked and reused (abi/vdso/threads.c). */
static _Atomic unsigned tls_arrived, tls_workers;

static void *tls_worker(void *arg) {
  struct tls_report *r = arg;
  RT_CHECK(tls_value == 0x5eed);
  for (size_t i = 0; i < sizeof(tls_zeroed); i++)
    RT_CHECK(tls_zeroed[i] == 0);
  tls_value = r->index;
  memset(tls_zeroed, (int)r->index + 1, sizeof(tls_zeroed));
  for (int i = 0; i < 20; i++) {
    cloudabi_sys_thread_yield();
    RT_CHECK(tls_value == r->index);
    RT_CHECK(tls_zeroed[i] == (char)(r->index + 1));
  }
  r->value_at = &tls_value;
  r->tid = rt_thread_self();
  tls_arrived++;
  while (tls_arrived < tls_workers)
    cloudabi_sys_thread_yield();
  return (void *)(uintptr_t)(r->index * 3 + 1);
}

static void test_join_tls(unsigned n) {
  rt_thread_t *t[MAX_THREADS];
  struct tls_report r[MAX_THREADS];
  void *args[MAX_THREADS];
  for (unsigned i = 0; i < n; i++) {
    r[i] = (struct tls_report){NULL, 0, i};
    args[i] = &r[i];
  }
  tls_arrived = 0;
  tls_workers = n;
  start_all(t, n, tls_worker, args);
  cloudabi_tid_t tids[MAX_THREADS];
  for (unsigned i = 0; i < n; i++) {
    tids[i] = rt_thread_tid(t[i]);
    RT_CHECK(rt_thread_join(t[i]) == (void *)(uintptr_t)(i * 3 + 1));
  }
  RT_CHECK(tls_value == 0x5eed); /* the main thread's own */
  for (unsigned i = 0; i < n; i++) {
    RT_CHECK(r[i].tid == tids[i]);
    RT_CHECK(tids[i] != 0 && tids[i] < (1u << 30));
    RT_CHECK(tids[i] != rt_thread_self());
    for (unsigned j = 0; j < i; j++) {
      RT_CHECK(r[i].value_at != r[j].value_at);
      RT_CHECK(tids[i] != tids[j]);
    }
  }
}

/* ---- the passes ---- */

struct objects {
  struct counter counter;
  struct queue queue;
  struct shared_pair pair;
  struct barrier barrier;
  struct racing racing;
};

static void run_all(struct objects *o, unsigned max_threads, unsigned rounds) {
  for (unsigned n = 1; n <= max_threads; n++) {
    for (unsigned r = 0; r < rounds; r++) {
      test_counter(&o->counter, n);
      test_queue(&o->queue, n);
      test_rwlock(&o->pair, n);
      test_barrier(&o->barrier, n);
      test_racing(&o->racing, n);
      test_join_tls(n);
    }
  }
}

static struct objects private_objects;

void program_main(const argdata_t *ad) {
  cloudabi_fd_t out = rt_map_fd(ad, "out");
  rt_log_fd = out;
  unsigned rounds = (unsigned)rt_map_int(ad, "rounds", 3);
  unsigned max_threads = (unsigned)rt_map_int(ad, "max_threads", MAX_THREADS);
  RT_CHECK(max_threads >= 1 && max_threads <= MAX_THREADS);

  scope = CLOUDABI_SCOPE_PRIVATE;
  run_all(&private_objects, max_threads, rounds);

  /* The same in MAP_SHARED memory, with shared-scope objects. */
  void *mem;
  size_t len = (sizeof(struct objects) + 4095) & ~(size_t)4095;
  RT_EXPECT(cloudabi_sys_mem_map(NULL, len,
                                 CLOUDABI_PROT_READ | CLOUDABI_PROT_WRITE,
                                 CLOUDABI_MAP_ANON | CLOUDABI_MAP_SHARED,
                                 CLOUDABI_MAP_ANON_FD, 0, &mem),
            0);
  scope = CLOUDABI_SCOPE_SHARED;
  run_all(mem, max_threads, rounds);

  rt_printf(out, "threads: 1..%u threads, %u rounds, both scopes: ok\n",
            max_threads, rounds);
}
