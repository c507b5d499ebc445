/* Threads and synchronisation for test programs; see rt_thread.h. */
#include "rt_thread.h"

#include "rt.h"
#include "syscalls.h"

#define LOCK_KM CLOUDABI_LOCK_KERNEL_MANAGED
#define LOCK_WR CLOUDABI_LOCK_WRLOCKED

static _Thread_local cloudabi_tid_t self_tid;
static _Thread_local struct rt_thread *self_thread; /* NULL in the first */

void rt_thread_init_main(cloudabi_tid_t tid) {
  self_tid = tid;
}

cloudabi_errno_t rt_proc_fork(cloudabi_fd_t *fd) {
  cloudabi_tid_t tid;
  cloudabi_errno_t e = cloudabi_sys_proc_fork(fd, &tid);
  /* The child's only thread has a tid of its own, which lock words must
   * carry from now on, as cloudlibc's fork() records it. */
  if (e == 0 && *fd == CLOUDABI_PROCESS_CHILD)
    self_tid = tid;
  return e;
}

cloudabi_tid_t rt_thread_self(void) {
  return self_tid;
}

/* The handle lives at the top of the thread's own mapping, as upstream. */
struct rt_thread {
  _Atomic(cloudabi_lock_t) join; /* write-locked by the thread until it ends */
  cloudabi_tid_t tid;
  rt_thread_fn *fn;
  void *arg;
  void *result;
  void *mapping;
  size_t mapping_len;
};

static uint32_t load(_Atomic(uint32_t) *p) {
  return __atomic_load_n((uint32_t *)p, __ATOMIC_ACQUIRE);
}

static bool cas(_Atomic(uint32_t) *p, uint32_t *expected, uint32_t desired) {
  return __atomic_compare_exchange_n((uint32_t *)p, expected, desired, false,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/* One event is expected from each of our polls; anything else fails. */
static cloudabi_event_t poll_one(const cloudabi_subscription_t *subs,
                                 size_t n) {
  cloudabi_event_t ev[2];
  size_t nevents;
  cloudabi_errno_t e = cloudabi_sys_poll(subs, ev, n, &nevents);
  if (e != 0 || nevents != 1 || ev[0].error != 0)
    rt_fail(__FILE__, __LINE__, "poll on a lock or condition variable failed");
  return ev[0];
}

_Noreturn static void thread_entry(cloudabi_tid_t tid, void *arg) {
  rt_tls_install(__builtin_alloca(rt_tls_area_size()));
  self_tid = tid;
  struct rt_thread *t = arg;
  self_thread = t;
  /* Whichever of us and our creator comes first marks the join lock. */
  uint32_t bogus = CLOUDABI_LOCK_BOGUS;
  cas(&t->join, &bogus, tid | LOCK_WR);
  t->result = t->fn(t->arg);
  cloudabi_sys_thread_exit(&t->join, CLOUDABI_SCOPE_PRIVATE);
}

cloudabi_errno_t rt_thread_create(rt_thread_t **thread, rt_thread_fn *fn,
                                  void *arg) {
  size_t page = rt_startup.pagesz > 1 ? rt_startup.pagesz : 4096;
  size_t len = RT_THREAD_STACK + rt_tls_area_size() + sizeof(struct rt_thread);
  len = (len + 2 * page - 1) & ~(page - 1); /* plus a guard page */
  void *mem;
  cloudabi_errno_t e = cloudabi_sys_mem_map(
      NULL, len, CLOUDABI_PROT_READ | CLOUDABI_PROT_WRITE,
      CLOUDABI_MAP_ANON | CLOUDABI_MAP_PRIVATE, CLOUDABI_MAP_ANON_FD, 0, &mem);
  if (e != 0)
    return e;
  cloudabi_sys_mem_protect(mem, page, 0);
  struct rt_thread *t =
      (struct rt_thread *)(((uintptr_t)mem + len - sizeof(*t)) & ~15ul);
  *t = (struct rt_thread){CLOUDABI_LOCK_BOGUS, 0, fn, arg, NULL, mem, len};
  cloudabi_threadattr_t attr = {thread_entry, (char *)mem + page,
                                (size_t)((char *)t - (char *)mem - page), t};
  cloudabi_tid_t tid;
  e = cloudabi_sys_thread_create(&attr, &tid);
  if (e != 0) {
    cloudabi_sys_mem_unmap(mem, len);
    return e;
  }
  t->tid = tid;
  uint32_t bogus = CLOUDABI_LOCK_BOGUS;
  cas(&t->join, &bogus, tid | LOCK_WR);
  *thread = t;
  return 0;
}

void *rt_thread_join(rt_thread_t *t) {
  if ((load(&t->join) & LOCK_WR) != 0) {
    cloudabi_subscription_t sub = {
        .type = CLOUDABI_EVENTTYPE_LOCK_RDLOCK,
        .lock = {&t->join, CLOUDABI_SCOPE_PRIVATE},
    };
    poll_one(&sub, 1);
  }
  void *result = t->result;
  /* The stack is free for reuse the moment the lock is released. */
  cloudabi_sys_mem_unmap(t->mapping, t->mapping_len);
  return result;
}

_Noreturn void rt_thread_exit_gone(void) {
  /* What the vDSO's thread_exit does when it does not park the thread:
   * the kernel clears the join lock once the thread is gone. */
  rt_raw_syscall(218 /* set_tid_address */, (long)&self_thread->join, 0, 0, 0,
                 0, 0);
  for (;;)
    rt_raw_syscall(60 /* exit */, 0, 0, 0, 0, 0, 0);
}

cloudabi_tid_t rt_thread_tid(const rt_thread_t *t) {
  return t->tid;
}

/* ---- locks ---- */

void rt_lock_init(rt_lock_t *lock, cloudabi_scope_t scope) {
  __atomic_store_n((uint32_t *)&lock->word, 0, __ATOMIC_RELEASE);
  lock->scope = scope;
}

bool rt_lock_trywrlock(rt_lock_t *lock) {
  uint32_t unlocked = CLOUDABI_LOCK_UNLOCKED;
  return cas(&lock->word, &unlocked, self_tid | LOCK_WR);
}

void rt_lock_wrlock(rt_lock_t *lock) {
  if (rt_lock_trywrlock(lock))
    return;
  cloudabi_subscription_t sub = {
      .type = CLOUDABI_EVENTTYPE_LOCK_WRLOCK,
      .lock = {&lock->word, lock->scope},
  };
  poll_one(&sub, 1);
}

cloudabi_errno_t rt_lock_timedwrlock(rt_lock_t *lock, cloudabi_clockid_t clock,
                                     cloudabi_timestamp_t timeout,
                                     bool absolute) {
  if (rt_lock_trywrlock(lock))
    return 0;
  cloudabi_subscription_t subs[2] = {
      {.type = CLOUDABI_EVENTTYPE_LOCK_WRLOCK,
       .lock = {&lock->word, lock->scope}},
      {.type = CLOUDABI_EVENTTYPE_CLOCK,
       .clock = {.clock_id = clock,
                 .timeout = timeout,
                 .flags = absolute ? CLOUDABI_SUBSCRIPTION_CLOCK_ABSTIME : 0}},
  };
  cloudabi_event_t ev = poll_one(subs, 2);
  return ev.type == CLOUDABI_EVENTTYPE_CLOCK ? CLOUDABI_ETIMEDOUT : 0;
}

void rt_lock_rdlock(rt_lock_t *lock) {
  uint32_t old = load(&lock->word);
  /* In userspace while nobody holds it for writing or waits to. */
  while ((old & (LOCK_WR | LOCK_KM)) == 0)
    if (cas(&lock->word, &old, old + 1))
      return;
  cloudabi_subscription_t sub = {
      .type = CLOUDABI_EVENTTYPE_LOCK_RDLOCK,
      .lock = {&lock->word, lock->scope},
  };
  poll_one(&sub, 1);
}

static void unlock_failed(void) {
  rt_fail(__FILE__, __LINE__, "lock_unlock failed");
}

void rt_lock_unlock(rt_lock_t *lock) {
  uint32_t old = load(&lock->word);
  if ((old & LOCK_WR) != 0) {
    if ((old & ~LOCK_KM) != (self_tid | LOCK_WR))
      rt_fail(__FILE__, __LINE__, "unlock of a lock another thread holds");
    uint32_t mine = self_tid | LOCK_WR;
    if (!cas(&lock->word, &mine, CLOUDABI_LOCK_UNLOCKED) &&
        cloudabi_sys_lock_unlock(&lock->word, lock->scope) != 0)
      unlock_failed();
    return;
  }
  /* A read unlock.  The last reader with waiters upgrades to a write lock
   * first, so that the count cannot change during lock_unlock. */
  for (;;) {
    if (old == (1 | LOCK_KM)) {
      if (cas(&lock->word, &old, self_tid | LOCK_WR | LOCK_KM)) {
        if (cloudabi_sys_lock_unlock(&lock->word, lock->scope) != 0)
          unlock_failed();
        return;
      }
    } else if ((old & 0x3fffffff) == 0) {
      rt_fail(__FILE__, __LINE__, "read unlock of an unlocked lock");
    } else if (cas(&lock->word, &old, old - 1)) {
      return;
    }
  }
}

/* ---- condition variables ---- */

void rt_cond_init(rt_cond_t *cond, cloudabi_scope_t scope) {
  __atomic_store_n((uint32_t *)&cond->waiters, 0, __ATOMIC_RELEASE);
  cond->scope = scope;
}

void rt_cond_wait(rt_cond_t *cond, rt_lock_t *lock) {
  cloudabi_subscription_t sub = {
      .type = CLOUDABI_EVENTTYPE_CONDVAR,
      .condvar = {&cond->waiters, &lock->word, cond->scope, lock->scope},
  };
  poll_one(&sub, 1);
}

cloudabi_errno_t rt_cond_timedwait(rt_cond_t *cond, rt_lock_t *lock,
                                   cloudabi_clockid_t clock,
                                   cloudabi_timestamp_t timeout,
                                   bool absolute) {
  cloudabi_subscription_t subs[2] = {
      {.type = CLOUDABI_EVENTTYPE_CONDVAR,
       .condvar = {&cond->waiters, &lock->word, cond->scope, lock->scope}},
      {.type = CLOUDABI_EVENTTYPE_CLOCK,
       .clock = {.clock_id = clock,
                 .timeout = timeout,
                 .flags = absolute ? CLOUDABI_SUBSCRIPTION_CLOCK_ABSTIME : 0}},
  };
  cloudabi_event_t ev = poll_one(subs, 2);
  return ev.type == CLOUDABI_EVENTTYPE_CLOCK ? CLOUDABI_ETIMEDOUT : 0;
}

static void cond_signal(rt_cond_t *cond, cloudabi_nthreads_t n) {
  if (load(&cond->waiters) != CLOUDABI_CONDVAR_HAS_NO_WAITERS &&
      cloudabi_sys_condvar_signal(&cond->waiters, cond->scope, n) != 0)
    rt_fail(__FILE__, __LINE__, "condvar_signal failed");
}

void rt_cond_signal(rt_cond_t *cond) {
  cond_signal(cond, 1);
}

void rt_cond_broadcast(rt_cond_t *cond) {
  cond_signal(cond, UINT32_MAX);
}

/* ---- time ---- */

cloudabi_timestamp_t rt_now(cloudabi_clockid_t clock) {
  cloudabi_timestamp_t t = 0;
  if (cloudabi_sys_clock_time_get(clock, 0, &t) != 0)
    rt_fail(__FILE__, __LINE__, "clock_time_get failed");
  return t;
}

void rt_sleep_ns(cloudabi_timestamp_t ns) {
  cloudabi_subscription_t sub = {
      .type = CLOUDABI_EVENTTYPE_CLOCK,
      .clock = {.clock_id = CLOUDABI_CLOCK_MONOTONIC, .timeout = ns},
  };
  cloudabi_event_t ev;
  size_t n;
  if (cloudabi_sys_poll(&sub, &ev, 1, &n) != 0 || n != 1 || ev.error != 0)
    rt_fail(__FILE__, __LINE__, "sleeping with poll failed");
}
