/*
 * Userspace locks and condition variables, done with Linux futexes on the
 * guest's own words: the supervisor cannot update guest memory atomically,
 * and a wait must not cost a round trip.
 *
 * Lock word (cloudabi.txt): WRLOCKED plus the owner's tid, or a count of
 * read locks; KERNEL_MANAGED while threads may be waiting, which makes the
 * last owner call lock_unlock instead of unlocking in userspace.
 *   - A waiter sets KERNEL_MANAGED, then sleeps on the word itself.  Writers
 *     and readers sleep with different futex bitsets, so lock_unlock wakes
 *     one writer, or all readers if no writer waits.
 *   - Whoever clears KERNEL_MANAGED with waiters asleep wakes some of them
 *     right after: lock_unlock does, and so does the kernel when a thread
 *     exits (set_tid_address), waking one waiter of any kind.  A woken
 *     waiter either acquires the lock or sets the bit again before it
 *     sleeps, so nobody sleeps on a word whose bit is gone.
 *   - A writer that acquires after being woken keeps the bit set: it cannot
 *     know whether others still sleep.  A reader that takes a free lock
 *     after being woken wakes everyone instead (they may be readers that
 *     can share it, or writers that must set the bit again), so readers
 *     woken together still read in parallel.
 *   - Lock words use shared futex keys whatever the scope: the kernel's
 *     wake at thread exit uses one, and keys of the two kinds never match.
 *
 * Condition variable word: 0 when nobody waits (cloudabi.txt), else
 *   bits 0..12  waiters that registered and have not left yet,
 *   bits 13..30 a sequence number, advanced by every signal,
 *   bit 31      DRAIN: a signal for all waiters is waiting for those still
 *               on their way to sleep to leave; nobody may register.
 * Everything is in the word, so SCOPE_SHARED works across processes.
 *   - A waiter registers while it holds the lock, notes the sequence, then
 *     unlocks and sleeps until the sequence differs.
 *   - A signal advances the sequence and wakes up to n sleepers.  It counts
 *     those its wake took off the futex queue out of the word; every other
 *     waiter that leaves (it saw the new sequence before sleeping, or timed
 *     out) counts itself out.  So each waiter leaves the count exactly once,
 *     and the word returns to 0 only when no registered waiter is left:
 *     a waiter still on its way to sleep can never see an old value come
 *     back (no ABA), short of 2^18 signals while it is between two
 *     instructions.
 *   - A signal that asks for all waiters sets DRAIN and returns only when
 *     the word is 0, as the spec requires ("set to has_no_waiters").
 */
#include <linux/futex.h>

#include "futex.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"

#define LK_KM CLOUDABI_LOCK_KERNEL_MANAGED
#define LK_WR CLOUDABI_LOCK_WRLOCKED
#define LK_VALUE 0x3fffffffu /* owner tid or read lock count */

/* Futex bitsets on lock words. */
#define WAIT_WRITER 1u
#define WAIT_READER 2u

#define CV_COUNT 0x00001fffu
#define CV_SEQ_ONE 0x00002000u
#define CV_SEQ 0x7fffe000u
#define CV_DRAIN 0x80000000u

/* Futex bitsets on condition variable words. */
#define WAIT_SIGNAL 1u
#define WAIT_DRAIN 2u

#define EVERYONE 0x7fffffff

static uint32_t load(uint32_t *p) {
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/* On failure *expected becomes the current value. */
static bool cas(uint32_t *p, uint32_t *expected, uint32_t desired) {
  return __atomic_compare_exchange_n(p, expected, desired, false,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/*
 * --deterministic, a timed wait: the deadline is virtual, so the real wait
 * is at most TRAP_DET_REAL_WAIT_NS (trap.h); if nobody ends it by then,
 * virtual time moves to the deadline and the wait has timed out.
 */
static long det_futex_wait(uint32_t *addr, uint32_t expect,
                           const struct vdso_deadline *d, uint32_t bitset,
                           long op) {
  uint64_t now = vdso_now(d->clock);
  if (now >= d->ns)
    return -ETIMEDOUT;
  uint64_t wait = d->ns - now;
  if (wait > TRAP_DET_REAL_WAIT_NS)
    wait = TRAP_DET_REAL_WAIT_NS;
  struct vdso_timespec real = {0, 0};
  vdso_clock_gettime(CLOCK_MONOTONIC, &real);
  struct vdso_timespec ts = vdso_timespec_of(vdso_add_sat(
      (uint64_t)real.sec * 1000000000u + (uint64_t)real.nsec, wait));
  long r = vdso_syscall6(SYS_futex, (long)addr, op, (long)expect, (long)&ts,
                         0, (long)bitset);
  if (r == -ETIMEDOUT) {
    uint64_t mono = vdso_now(CLOCK_MONOTONIC);
    vdso_det_advance_to(d->clock == CLOCK_MONOTONIC
                            ? d->ns
                            : vdso_add_sat(mono, d->ns - now));
  }
  return r;
}

long vdso_futex_wait(uint32_t *addr, uint32_t expect,
                     const struct vdso_deadline *d, uint32_t bitset,
                     bool private) {
  long op = FUTEX_WAIT_BITSET | (private ? FUTEX_PRIVATE_FLAG : 0);
  struct vdso_timespec ts, *tp = NULL;
  if (d != NULL && d->clock != VDSO_NO_DEADLINE && vdso_det_on())
    return det_futex_wait(addr, expect, d, bitset, op);
  if (d != NULL && d->clock != VDSO_NO_DEADLINE) {
    ts = vdso_timespec_of(d->ns);
    tp = &ts;
    if (d->clock == CLOCK_REALTIME)
      op |= FUTEX_CLOCK_REALTIME;
  }
  return vdso_syscall6(SYS_futex, (long)addr, op, (long)expect, (long)tp, 0,
                       (long)bitset);
}

long vdso_futex_wake(uint32_t *addr, int n, uint32_t bitset, bool private) {
  long op = FUTEX_WAKE_BITSET | (private ? FUTEX_PRIVATE_FLAG : 0);
  long r = vdso_syscall6(SYS_futex, (long)addr, op, n, 0, 0, (long)bitset);
  return r < 0 ? 0 : r;
}

static cloudabi_errno_t wait_error(long r) {
  return r == -ETIMEDOUT ? CLOUDABI_ETIMEDOUT : vdso_errno(r);
}

/* ---- locks ---- */

cloudabi_errno_t vdso_lock_wrlock(uint32_t *lock, cloudabi_tid_t tid,
                                  const struct vdso_deadline *d) {
  bool woken = false;
  uint32_t cur = load(lock);
  for (;;) {
    if ((cur & ~LK_KM) == 0) {
      uint32_t want = tid | LK_WR | (woken ? LK_KM : (cur & LK_KM));
      if (cas(lock, &cur, want))
        return 0;
      continue;
    }
    if ((cur & ~LK_KM) == (tid | LK_WR))
      return CLOUDABI_EDEADLK;
    if ((cur & LK_KM) == 0) {
      if (!cas(lock, &cur, cur | LK_KM))
        continue;
      cur |= LK_KM;
    }
    long r = vdso_futex_wait(lock, cur, d, WAIT_WRITER, false);
    if (r == 0)
      woken = true;
    else if (r != -EAGAIN && r != -EINTR)
      return wait_error(r);
    cur = load(lock);
  }
}

cloudabi_errno_t vdso_lock_rdlock(uint32_t *lock,
                                  const struct vdso_deadline *d) {
  bool woken = false;
  uint32_t cur = load(lock);
  for (;;) {
    /* Free, or read-locked with no writer waiting (KERNEL_MANAGED on a
     * read-locked word means a writer waits: let it go first). */
    if ((cur & LK_WR) == 0 && ((cur & LK_KM) == 0 || (cur & LK_VALUE) == 0)) {
      if ((cur & LK_VALUE) == LK_VALUE)
        return CLOUDABI_EAGAIN; /* 2^30 - 1 read locks */
      uint32_t was = cur;
      if (cas(lock, &cur, cur + 1)) {
        if (woken && (was & ~LK_KM) == 0)
          vdso_futex_wake(lock, EVERYONE, FUTEX_BITSET_MATCH_ANY, false);
        return 0;
      }
      continue;
    }
    if ((cur & LK_WR) != 0 && (cur & LK_VALUE) == vdso_gettid())
      return CLOUDABI_EDEADLK;
    if ((cur & LK_KM) == 0) {
      if (!cas(lock, &cur, cur | LK_KM))
        continue;
      cur |= LK_KM;
    }
    long r = vdso_futex_wait(lock, cur, d, WAIT_READER, false);
    if (r == 0)
      woken = true;
    else if (r != -EAGAIN && r != -EINTR)
      return wait_error(r);
    cur = load(lock);
  }
}

/* Unlocks a write-locked word and wakes one writer, else all readers. */
static void lock_release(uint32_t *lock) {
  __atomic_store_n(lock, 0, __ATOMIC_RELEASE);
  if (vdso_futex_wake(lock, 1, WAIT_WRITER, false) == 0)
    vdso_futex_wake(lock, EVERYONE, WAIT_READER, false);
}

/* Unlocks a lock the caller holds for writing, in userspace if nobody
 * waits. */
static void lock_unlock_write(uint32_t *lock, cloudabi_tid_t tid) {
  uint32_t cur = tid | LK_WR;
  if (!cas(lock, &cur, 0))
    lock_release(lock);
}

static bool aligned(const void *p) {
  return ((uintptr_t)p & 3) == 0;
}

VDSO_EXPORT cloudabi_errno_t cloudabi_sys_lock_unlock(
    _Atomic(cloudabi_lock_t) *lock, cloudabi_scope_t scope) {
  uint32_t *word = (uint32_t *)lock;
  if (!vdso_scope_valid(scope) || !aligned(word))
    return CLOUDABI_EINVAL;
  if ((load(word) & ~LK_KM) != (vdso_gettid() | LK_WR))
    return CLOUDABI_EPERM;
  lock_release(word);
  return 0;
}

/* ---- condition variables ---- */

/* A waiter that no signal counted out leaves by itself. */
static void condvar_leave(uint32_t *cv, bool private) {
  uint32_t cur = load(cv);
  for (;;) {
    uint32_t next = (cur & CV_COUNT) <= 1 ? 0 : cur - 1;
    if (cas(cv, &cur, next)) {
      if (next == 0 && (cur & CV_DRAIN) != 0)
        vdso_futex_wake(cv, EVERYONE, WAIT_DRAIN, private);
      return;
    }
  }
}

/* Waits until no signal for all waiters is in progress. */
static void condvar_wait_drained(uint32_t *cv, bool private) {
  uint32_t cur;
  while (((cur = load(cv)) & CV_DRAIN) != 0)
    vdso_futex_wait(cv, cur, NULL, WAIT_DRAIN, private);
}

cloudabi_errno_t vdso_condvar_wait(uint32_t *cv, cloudabi_scope_t cv_scope,
                                   uint32_t *lock, cloudabi_tid_t tid,
                                   const struct vdso_deadline *d) {
  bool private = cv_scope == CLOUDABI_SCOPE_PRIVATE;
  if (!aligned(cv) || !aligned(lock))
    return CLOUDABI_EINVAL;
  if ((load(lock) & ~LK_KM) != (tid | LK_WR))
    return CLOUDABI_EPERM;

  /* Register, still holding the lock, so no signal after our caller's
   * check of its predicate can be missed. */
  uint32_t cur = load(cv);
  for (;;) {
    if ((cur & CV_DRAIN) != 0) {
      condvar_wait_drained(cv, private);
      cur = load(cv);
      continue;
    }
    if ((cur & CV_COUNT) == CV_COUNT)
      return CLOUDABI_ENOMEM; /* 8191 waiters on one condition variable */
    if (cas(cv, &cur, cur + 1))
      break;
  }
  uint32_t seq = cur & CV_SEQ;
  lock_unlock_write(lock, tid);

  bool counted = false, signalled = false;
  for (;;) {
    cur = load(cv);
    if ((cur & CV_SEQ) != seq) {
      signalled = true;
      break;
    }
    long r = vdso_futex_wait(cv, cur, d, WAIT_SIGNAL, private);
    if (r == 0) {
      /* Taken off the queue by a signal, which counted us out. */
      counted = signalled = true;
      break;
    }
    if (r != -EAGAIN && r != -EINTR) {
      /* A timeout that raced with a signal still reports the signal. */
      signalled = (load(cv) & CV_SEQ) != seq;
      break;
    }
  }
  if (!counted)
    condvar_leave(cv, private);

  /* The event means "signalled and the lock acquired": acquire it again
   * whatever happened, as the caller expects to hold it. */
  vdso_lock_wrlock(lock, tid, NULL);
  return signalled ? 0 : CLOUDABI_ETIMEDOUT;
}

VDSO_EXPORT cloudabi_errno_t cloudabi_sys_condvar_signal(
    _Atomic(cloudabi_condvar_t) *condvar, cloudabi_scope_t scope,
    cloudabi_nthreads_t nwaiters) {
  uint32_t *cv = (uint32_t *)condvar;
  if (!vdso_scope_valid(scope) || !aligned(cv))
    return CLOUDABI_EINVAL;
  bool private = scope == CLOUDABI_SCOPE_PRIVATE;
  if (nwaiters == 0)
    return 0;

  uint32_t cur = load(cv);
  bool all;
  for (;;) {
    uint32_t count = cur & CV_COUNT;
    if (count == 0)
      return 0;
    if ((cur & CV_DRAIN) != 0) {
      /* Every waiter was signalled already; they are leaving. */
      condvar_wait_drained(cv, private);
      return 0;
    }
    all = nwaiters >= count;
    uint32_t next = (cur & ~CV_SEQ) | ((cur + CV_SEQ_ONE) & CV_SEQ);
    if (all)
      next |= CV_DRAIN;
    if (cas(cv, &cur, next))
      break;
  }
  int n = all || nwaiters > EVERYONE ? EVERYONE : (int)nwaiters;
  uint32_t woken = (uint32_t)vdso_futex_wake(cv, n, WAIT_SIGNAL, private);

  /* Count out those the wake took; the rest count themselves out. */
  cur = load(cv);
  for (;;) {
    uint32_t next = (cur & CV_COUNT) <= woken ? 0 : cur - woken;
    if (cas(cv, &cur, next)) {
      if (next == 0) {
        if ((cur & CV_DRAIN) != 0)
          vdso_futex_wake(cv, EVERYONE, WAIT_DRAIN, private);
        return 0;
      }
      break;
    }
  }
  if (all)
    condvar_wait_drained(cv, private);
  return 0;
}
