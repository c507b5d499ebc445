/*
 * Internal to the vDSO: the lock and condition variable waits that poll
 * performs on a thread's behalf (locks.c).  All state lives in the guest's
 * own lock and condition variable words, so the same code serves
 * SCOPE_PRIVATE and SCOPE_SHARED (memory shared between processes).
 *
 * Each returns 0 when the lock was acquired (for a condition variable:
 * signalled and the lock acquired again), CLOUDABI_ETIMEDOUT when the
 * deadline passed first, or another errno for the subscription's event.
 */
#ifndef VDSO_FUTEX_H
#define VDSO_FUTEX_H

#include "deadline.h"

VDSO_HIDDEN cloudabi_errno_t vdso_lock_wrlock(uint32_t *lock,
                                              cloudabi_tid_t tid,
                                              const struct vdso_deadline *d);
VDSO_HIDDEN cloudabi_errno_t vdso_lock_rdlock(uint32_t *lock,
                                              const struct vdso_deadline *d);
VDSO_HIDDEN cloudabi_errno_t vdso_condvar_wait(uint32_t *condvar,
                                               cloudabi_scope_t condvar_scope,
                                               uint32_t *lock,
                                               cloudabi_tid_t tid,
                                               const struct vdso_deadline *d);

/* Futex calls on guest words with the operations the filter allows.  The
 * wait: 0 when woken, -EAGAIN if *addr != expect, -ETIMEDOUT, -EINTR, ...
 * (d NULL: no deadline); the wake: how many threads it woke. */
VDSO_HIDDEN long vdso_futex_wait(uint32_t *addr, uint32_t expect,
                                 const struct vdso_deadline *d,
                                 uint32_t bitset, bool private);
VDSO_HIDDEN long vdso_futex_wake(uint32_t *addr, int n, uint32_t bitset,
                                 bool private);

/* The calling thread's tid, which is its CloudABI tid. */
static inline cloudabi_tid_t vdso_gettid(void) {
  return (cloudabi_tid_t)vdso_syscall0(SYS_gettid);
}

static inline bool vdso_scope_valid(cloudabi_scope_t scope) {
  return scope == CLOUDABI_SCOPE_PRIVATE || scope == CLOUDABI_SCOPE_SHARED;
}

#endif
