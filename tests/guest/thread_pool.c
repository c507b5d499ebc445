/*
 * Threads the vDSO parks at their exit and hands the next thread_create
 * (abi/vdso/threads.c).  By the config's `do`:
 *   checks  threads started one after another get their own entry,
 *           argument, fresh TLS and the creator's floating-point control
 *           words, not the previous thread's; an exited thread is reused;
 *           threads alive together have distinct tids; a forked child,
 *           whose parent had parked threads, starts threads of its own.
 *   last    the main thread exits last while threads are parked: the
 *           process ends with status 0 instead of waiting for them.
 * Config: out, do.
 */
#include "check.h"
#include "rt_thread.h"

static _Thread_local uint64_t tls_word = 0x5eed;
static _Thread_local char tls_zeroed[64];

static uint32_t get_mxcsr(void) {
  uint32_t m;
  __asm__ volatile("stmxcsr %0" : "=m"(m));
  return m;
}
static void set_mxcsr(uint32_t m) {
  __asm__ volatile("ldmxcsr %0" : : "m"(m));
}
static uint16_t get_fpucw(void) {
  uint16_t c;
  __asm__ volatile("fnstcw %0" : "=m"(c));
  return c;
}
static void set_fpucw(uint16_t c) {
  __asm__ volatile("fldcw %0" : : "m"(c));
}

#define MXCSR_ROUND 0x6000u /* rounding control */
#define FPUCW_ROUND 0x0c00u

struct seen {
  uint64_t arg;
  cloudabi_tid_t tid;
  uint32_t mxcsr;
  uint16_t fpucw;
  bool tls_fresh;
};

/* Reports what it started with, then leaves its TLS and floating-point
 * control words changed for whoever runs on this task next. */
static void *observe(void *arg) {
  struct seen *s = arg;
  s->tid = rt_thread_self();
  s->mxcsr = get_mxcsr();
  s->fpucw = get_fpucw();
  s->tls_fresh = tls_word == 0x5eed;
  for (size_t i = 0; i < sizeof(tls_zeroed); i++)
    s->tls_fresh = s->tls_fresh && tls_zeroed[i] == 0;
  tls_word = s->arg;
  tls_zeroed[0] = 1;
  set_mxcsr(s->mxcsr ^ MXCSR_ROUND);
  set_fpucw((uint16_t)(s->fpucw ^ FPUCW_ROUND));
  return (void *)(uintptr_t)(s->arg * 7 + 1);
}

static void one_after_another(void) {
  enum { N = 200 };
  static struct seen seen[N];
  uint32_t mx = get_mxcsr();
  uint16_t cw = get_fpucw();
  unsigned reused = 0, wrong_result = 0, stale = 0, wrong_fp = 0;
  for (unsigned i = 0; i < N; i++) {
    /* Every tenth thread is made under other rounding: it must get it. */
    bool other = i % 10 == 9;
    if (other) {
      set_mxcsr(mx ^ MXCSR_ROUND);
      set_fpucw((uint16_t)(cw ^ FPUCW_ROUND));
    }
    seen[i] = (struct seen){.arg = 1000 + i};
    rt_thread_t *t;
    RT_CHECK(rt_thread_create(&t, observe, &seen[i]) == 0);
    RT_CHECK(rt_thread_tid(t) != 0);
    void *r = rt_thread_join(t);
    if (other) {
      set_mxcsr(mx);
      set_fpucw(cw);
    }
    wrong_result += r != (void *)(uintptr_t)(seen[i].arg * 7 + 1);
    stale += !seen[i].tls_fresh;
    wrong_fp += seen[i].mxcsr != (other ? mx ^ MXCSR_ROUND : mx) ||
                seen[i].fpucw != (other ? cw ^ FPUCW_ROUND : cw);
    for (unsigned j = 0; j < i && reused == 0; j++)
      reused += seen[j].tid == seen[i].tid;
  }
  check("one after another", "results", wrong_result, 0);
  check("one after another", "TLS as at a thread's start", stale, 0);
  check("one after another", "the creator's floating-point control", wrong_fp,
        0);
  /* The pool's point: an ended thread runs the next one. */
  check("one after another", "an exited thread reused", reused != 0, 1);
  check("one after another", "our own rounding untouched",
        get_mxcsr() == mx && get_fpucw() == cw, 1);
}

/* Threads alive at once: distinct tids, each its own argument. */
#define TOGETHER 12
static _Atomic unsigned arrived;

static void *wait_for_all(void *arg) {
  struct seen *s = arg;
  s->tid = rt_thread_self();
  arrived++;
  while (arrived < TOGETHER)
    cloudabi_sys_thread_yield();
  return (void *)(uintptr_t)s->arg;
}

static void together(void) {
  for (unsigned round = 0; round < 3; round++) {
    struct seen seen[TOGETHER];
    rt_thread_t *t[TOGETHER];
    arrived = 0;
    for (unsigned i = 0; i < TOGETHER; i++) {
      seen[i] = (struct seen){.arg = round * 100 + i};
      RT_CHECK(rt_thread_create(&t[i], wait_for_all, &seen[i]) == 0);
    }
    unsigned wrong = 0, same = 0;
    for (unsigned i = 0; i < TOGETHER; i++) {
      cloudabi_tid_t tid = rt_thread_tid(t[i]); /* join frees t[i] */
      wrong += rt_thread_join(t[i]) != (void *)(uintptr_t)seen[i].arg ||
               seen[i].tid != tid;
    }
    for (unsigned i = 0; i < TOGETHER; i++)
      for (unsigned j = 0; j < i; j++)
        same += seen[i].tid == seen[j].tid;
    check("together", "results and tids", wrong, 0);
    check("together", "distinct tids", same, 0);
  }
}

/* The parent's parked threads are not the child's: a child that handed
 * them its threads would wait forever. */
static void forked(void) {
  struct seen s = {.arg = 5};
  rt_thread_t *t;
  RT_CHECK(rt_thread_create(&t, observe, &s) == 0);
  rt_thread_join(t); /* parked now */
  cloudabi_fd_t pd;
  RT_CHECK(rt_proc_fork(&pd) == 0);
  if (pd == CLOUDABI_PROCESS_CHILD) {
    for (unsigned i = 0; i < 5; i++) {
      struct seen c = {.arg = 50 + i};
      if (rt_thread_create(&t, observe, &c) != 0 ||
          rt_thread_join(t) != (void *)(uintptr_t)(c.arg * 7 + 1))
        cloudabi_sys_proc_exit(3);
    }
    cloudabi_sys_proc_exit(0);
  }
  check("forked", "child started and joined threads", (cloudabi_errno_t)wait_child(pd), 0);
}

static void *nothing(void *arg) {
  return arg;
}

void program_main(const argdata_t *ad) {
  rt_log_fd = rt_map_fd(ad, "out");
  const char *what = rt_map_str(ad, "do", "");
  if (strcmp(what, "checks") == 0) {
    one_after_another();
    together();
    forked();
    check_done("thread_pool");
    return;
  } else if (strcmp(what, "last") == 0) {
    for (unsigned i = 0; i < 3; i++) {
      rt_thread_t *t;
      RT_CHECK(rt_thread_create(&t, nothing, NULL) == 0);
      rt_thread_join(t);
    }
    rt_printf(rt_log_fd, "thread_pool: the main thread exits\n");
    _Atomic(cloudabi_lock_t) lock = rt_thread_self() | CLOUDABI_LOCK_WRLOCKED;
    cloudabi_sys_thread_exit(&lock, CLOUDABI_SCOPE_PRIVATE);
  }
  rt_fail(__FILE__, __LINE__, "unknown do");
}
