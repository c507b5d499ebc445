/*
 * Threads, mutexes, read-write locks and condition variables for our test
 * programs, following upstream cloudlibc's protocol on the lock and
 * condition variable words: compare-and-swap in userspace when nobody
 * waits; poll(LOCK_WRLOCK / LOCK_RDLOCK / CONDVAR) to wait; lock_unlock
 * when KERNEL_MANAGED is set; condvar_signal only when the word says
 * somebody waits.  No recursion, no error checking beyond what a test
 * needs: any unexpected result fails the program (rt_fail).
 */
#ifndef RT_THREAD_H
#define RT_THREAD_H

#include <stdbool.h>
#include <stdint.h>

#include "cloudabi_syscalls.h"

/* ---- threads ---- */

typedef struct rt_thread rt_thread_t;
typedef void *rt_thread_fn(void *arg);

/* The default stack of a thread, not counting TLS and the handle. */
#define RT_THREAD_STACK (256 * 1024)

/* Starts fn(arg) on a new thread with its own mem_map'ed stack and TLS. */
cloudabi_errno_t rt_thread_create(rt_thread_t **thread, rt_thread_fn *fn,
                                  void *arg);
/* Waits for the thread to end, frees its stack and returns fn's result. */
void *rt_thread_join(rt_thread_t *thread);
/* The calling thread's id, and a created thread's. */
cloudabi_tid_t rt_thread_self(void);
/* proc_fork, keeping rt_thread_self() right in the child. */
cloudabi_errno_t rt_proc_fork(cloudabi_fd_t *fd);
cloudabi_tid_t rt_thread_tid(const rt_thread_t *thread);
/* Ends the calling thread (one rt_thread_create made) with a plain Linux
 * exit, so that its task is gone: the vDSO's thread_exit may instead park
 * it for reuse (abi/vdso/threads.c).  For tests of what a thread's end
 * revokes. */
_Noreturn void rt_thread_exit_gone(void);

/* ---- mutexes and read-write locks: one word, as cloudabi_lock_t ---- */

typedef struct {
  _Atomic(cloudabi_lock_t) word;
  cloudabi_scope_t scope;
} rt_lock_t;

#define RT_LOCK_INIT                                                           \
  { CLOUDABI_LOCK_UNLOCKED, CLOUDABI_SCOPE_PRIVATE }

void rt_lock_init(rt_lock_t *lock, cloudabi_scope_t scope);
/* Write lock (a mutex). */
void rt_lock_wrlock(rt_lock_t *lock);
bool rt_lock_trywrlock(rt_lock_t *lock);
/* Read lock; a thread holding one must not ask for another while a
 * writer waits (cloudlibc counts them to allow that; we do not). */
void rt_lock_rdlock(rt_lock_t *lock);
/* Releases a write or read lock. */
void rt_lock_unlock(rt_lock_t *lock);
/* Waits at most until the CLOCK subscription's time: 0 or ETIMEDOUT. */
cloudabi_errno_t rt_lock_timedwrlock(rt_lock_t *lock, cloudabi_clockid_t clock,
                                     cloudabi_timestamp_t timeout,
                                     bool absolute);

/* ---- condition variables ---- */

typedef struct {
  _Atomic(cloudabi_condvar_t) waiters;
  cloudabi_scope_t scope;
} rt_cond_t;

#define RT_COND_INIT                                                           \
  { CLOUDABI_CONDVAR_HAS_NO_WAITERS, CLOUDABI_SCOPE_PRIVATE }

void rt_cond_init(rt_cond_t *cond, cloudabi_scope_t scope);
void rt_cond_wait(rt_cond_t *cond, rt_lock_t *lock);
/* 0 when signalled, ETIMEDOUT when the time came first; the lock is held
 * again either way. */
cloudabi_errno_t rt_cond_timedwait(rt_cond_t *cond, rt_lock_t *lock,
                                   cloudabi_clockid_t clock,
                                   cloudabi_timestamp_t timeout, bool absolute);
void rt_cond_signal(rt_cond_t *cond);
void rt_cond_broadcast(rt_cond_t *cond);

/* ---- time ---- */

cloudabi_timestamp_t rt_now(cloudabi_clockid_t clock);
/* Sleeps with poll and one relative CLOCK subscription. */
void rt_sleep_ns(cloudabi_timestamp_t ns);

#endif
