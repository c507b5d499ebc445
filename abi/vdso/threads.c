/*
 * Threads: a raw clone onto the stack the guest provides, laid out as
 * FreeBSD does, and an exit that releases the join lock only once the
 * thread no longer uses its stack.
 *
 * The clone flags are THREAD_CLONE_FLAGS (clone_flags.h): the filter allows
 * clone with that one flag word and kills anything else.
 *
 * Exited threads are kept for reuse (the pool below): a thread that exits
 * while others live moves onto a stack of the vDSO's own, releases its
 * join lock as the kernel would, and parks; the next thread_create hands
 * it the new entry point instead of cloning.  That saves the clone, which
 * goes past the supervisor (it counts threads), and a task's teardown and
 * set-up: about two round trips per thread.  The pool is the process's own
 * memory and grants nothing: a parked thread is a thread the process has,
 * counted against its limit like any other.
 */
#include <asm/prctl.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "clone_flags.h"
#include "futex.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"

/*
 * What the new thread finds at its initial stack pointer: the parent
 * writes everything but tid, which the kernel stores there before the
 * thread can run (CLONE_PARENT_SETTID): clone returns 0 in the child, so
 * this is how it learns its tid.
 */
struct start_block {
  cloudabi_threadentry_t *entry;
  void *argument;
  uint64_t rsp; /* the entry's stack pointer, with the 0 return address */
  uint32_t tid;
  uint32_t pad;
};

/* ---- the pool of parked threads ---- */

#define POOL_THREADS 8
#define POOL_STACK 8192 /* runs only pool_park and pool_run */

enum {
  SLOT_FREE,    /* no thread; its stack, if mapped, is unused */
  SLOT_TAKEN,   /* an exiting thread is moving onto its stack */
  SLOT_IDLE,    /* parked, waiting for work */
  SLOT_CLAIMED, /* a creator is filling in the start */
  SLOT_GO,      /* filled in: run it */
};

struct pool_slot {
  uint32_t state; /* SLOT_*; the parked thread's futex word */
  uint32_t tid;
  uintptr_t stack_top; /* 0 until mapped, then kept for the slot */
  /* The start, written by the creator before SLOT_GO. */
  cloudabi_threadentry_t *entry;
  void *argument;
  uint64_t rsp;
  uint64_t fsword;
  uint32_t mxcsr; /* the creator's floating-point environment, which a */
  uint16_t fpucw; /* clone would have copied */
};

static struct pool_slot pool[POOL_THREADS];
/* Threads that run (not parked), less one: 0 in a new image. */
static uint32_t others;

/* A slot moved from state `from` to `to`, or NULL if none was in `from`. */
static struct pool_slot *pool_take(uint32_t from, uint32_t to) {
  for (unsigned i = 0; i < POOL_THREADS; i++) {
    uint32_t expect = from;
    if (__atomic_load_n(&pool[i].state, __ATOMIC_RELAXED) == from &&
        __atomic_compare_exchange_n(&pool[i].state, &expect, to, false,
                                    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
      return &pool[i];
  }
  return NULL;
}

/* Hands the start to a parked thread: its tid, or 0 if none is parked. */
static long pool_start(cloudabi_threadentry_t *entry, void *argument,
                       uint64_t rsp, uint64_t fsword) {
  struct pool_slot *p = pool_take(SLOT_IDLE, SLOT_CLAIMED);
  if (p == NULL)
    return 0;
  p->entry = entry;
  p->argument = argument;
  p->rsp = rsp;
  p->fsword = fsword;
  __asm__ volatile("stmxcsr %0\n\tfnstcw %1" : "=m"(p->mxcsr), "=m"(p->fpucw));
  long tid = p->tid;
  __atomic_store_n(&p->state, SLOT_GO, __ATOMIC_RELEASE);
  vdso_futex_wake(&p->state, 1, FUTEX_BITSET_MATCH_ANY, true);
  return tid;
}

/* On the slot's stack: runs the start it was given, as a new thread. */
static _Noreturn void pool_run(struct pool_slot *p) {
  vdso_syscall2(SYS_arch_prctl, ARCH_SET_FS, (long)p->fsword);
  __asm__ volatile("ldmxcsr %0\n\tfldcw %1" : : "m"(p->mxcsr), "m"(p->fpucw));
  /* Off the slot's stack before it is freed: from then on, another
   * exiting thread may move onto it. */
  __asm__ volatile("mov %[rsp], %%rsp\n\t"
                   "movl %[free], (%[state])\n\t"
                   "xor %%ebp, %%ebp\n\t"
                   "jmp *%[entry]"
                   :
                   : [rsp] "r"(p->rsp), [free] "i"(SLOT_FREE),
                     [state] "r"(&p->state), [entry] "r"(p->entry),
                     "D"((long)p->tid), "S"(p->argument)
                   : "memory");
  __builtin_unreachable();
}

/* On the slot's stack: offers itself, releases the join lock as the
 * kernel's clear of the tid address does (0, one waiter woken with a
 * shared key), parks until a creator hands over a start, and runs it.
 * Offered first, so that a joiner's next thread_create finds it: a clone
 * instead would count one thread more against the limit. */
static _Noreturn void pool_park(struct pool_slot *p, uint32_t *lock) {
  __atomic_store_n(&p->state, SLOT_IDLE, __ATOMIC_RELEASE);
  __atomic_store_n(lock, 0, __ATOMIC_RELEASE);
  vdso_futex_wake(lock, 1, FUTEX_BITSET_MATCH_ANY, false);
  uint32_t s;
  while ((s = __atomic_load_n(&p->state, __ATOMIC_ACQUIRE)) != SLOT_GO)
    vdso_futex_wait(&p->state, s, NULL, FUTEX_BITSET_MATCH_ANY, true);
  pool_run(p);
}

/* Parks the calling thread if a slot is free (never returns then). */
static void pool_enter(_Atomic(cloudabi_lock_t) *lock) {
  struct pool_slot *p = pool_take(SLOT_FREE, SLOT_TAKEN);
  if (p == NULL)
    return;
  if (p->stack_top == 0) {
    long m = vdso_syscall6(SYS_mmap, 0, POOL_STACK, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m < 0) {
      __atomic_store_n(&p->state, SLOT_FREE, __ATOMIC_RELEASE);
      return;
    }
    p->stack_top = (uintptr_t)m + POOL_STACK;
  }
  p->tid = (uint32_t)vdso_gettid();
  /* 16-byte aligned at the call, as the ABI wants. */
  __asm__ volatile("mov %[top], %%rsp\n\t"
                   "call *%[park]"
                   :
                   : [top] "r"(p->stack_top), [park] "r"(pool_park), "D"(p),
                     "S"(lock)
                   : "memory");
  __builtin_unreachable();
}

/*
 * Returns the tid, or -errno, in the parent.  The child never returns: on
 * its new stack it loads the start block and jumps to the entry point with
 * rdi = tid, rsi = argument, touching nothing of the parent's stack.
 */
static long clone_thread(struct start_block *sb, void *tls) {
  register long r10 __asm__("r10") = 0; /* no child tid address */
  register long r8 __asm__("r8") = (long)tls;
  long ret;
  __asm__ volatile("syscall\n\t"
                   "test %%rax, %%rax\n\t"
                   "jnz 1f\n\t"
                   "mov 0(%%rsp), %%rax\n\t"  /* entry */
                   "mov 8(%%rsp), %%rsi\n\t"  /* argument */
                   "mov 24(%%rsp), %%edi\n\t" /* tid */
                   "mov 16(%%rsp), %%rsp\n\t"
                   "xor %%ebp, %%ebp\n\t"
                   "jmp *%%rax\n"
                   "1:"
                   : "=a"(ret)
                   : "a"(SYS_clone), "D"(THREAD_CLONE_FLAGS), "S"(sb),
                     "d"(&sb->tid), "r"(r10), "r"(r8)
                   : "rcx", "r11", "memory");
  return ret;
}

_Static_assert(__builtin_offsetof(struct start_block, entry) == 0, "asm");
_Static_assert(__builtin_offsetof(struct start_block, argument) == 8, "asm");
_Static_assert(__builtin_offsetof(struct start_block, rsp) == 16, "asm");
_Static_assert(__builtin_offsetof(struct start_block, tid) == 24, "asm");

/*
 * FreeBSD's layout, which programs may rely on: the 8-byte TCB at the top
 * of the stack, the word %fs points at just below it (holding the TCB's
 * address), then the entry's stack pointer, 16-byte aligned minus 8, with
 * a zero return address.  Our start block goes below that; the entry's
 * frames overwrite it once it has been read.
 */
VDSO_EXPORT cloudabi_errno_t
cloudabi_sys_thread_create(cloudabi_threadattr_t *attr, cloudabi_tid_t *tid) {
  uintptr_t stack = (uintptr_t)attr->stack;
  size_t len = attr->stack_len;
  if (stack + len < stack || len < 256)
    return CLOUDABI_EINVAL;
  uintptr_t tcb = (stack + len - sizeof(cloudabi_tcb_t)) & ~(uintptr_t)7;
  uintptr_t fsword = tcb - 8;
  uintptr_t rsp = (fsword & ~(uintptr_t)15) - 8;
  struct start_block *sb =
      (struct start_block *)((rsp - sizeof(*sb)) & ~(uintptr_t)15);

  ((cloudabi_tcb_t *)tcb)->parent = NULL;
  *(uintptr_t *)fsword = tcb;
  *(uint64_t *)rsp = 0;

  __atomic_fetch_add(&others, 1, __ATOMIC_RELAXED);
  long r = pool_start(attr->entry_point, attr->argument, rsp, fsword);
  if (r == 0) {
    *sb = (struct start_block){attr->entry_point, attr->argument, rsp, 0, 0};
    r = clone_thread(sb, (void *)fsword);
  }
  if (r < 0) {
    __atomic_fetch_sub(&others, 1, __ATOMIC_RELAXED);
    return vdso_errno(r);
  }
  *tid = (cloudabi_tid_t)r;
  return 0;
}

/*
 * The kernel stores 0 in the join lock and wakes one waiter (shared futex
 * key) when the thread releases its memory, after its last use of the
 * stack: the joiner may free it at once.  Lock waiters pass that single
 * wake on as needed (locks.c).
 */
VDSO_EXPORT _Noreturn void
cloudabi_sys_thread_exit(_Atomic(cloudabi_lock_t) *lock,
                         cloudabi_scope_t scope) {
  (void)scope; /* the kernel's wake reaches both scopes' waiters */
  /* The last thread: parked ones must not keep the process alive. */
  if (__atomic_fetch_sub(&others, 1, __ATOMIC_RELAXED) == 0)
    for (;;)
      vdso_syscall1(SYS_exit_group, 0);
  pool_enter(lock);
  vdso_syscall1(SYS_set_tid_address, lock);
  for (;;)
    vdso_syscall1(SYS_exit, 0);
}

VDSO_HIDDEN void vdso_threads_forked(void) {
  /* Only the forking thread came along: nothing is parked here. */
  for (unsigned i = 0; i < POOL_THREADS; i++)
    __atomic_store_n(&pool[i].state, SLOT_FREE, __ATOMIC_RELAXED);
  __atomic_store_n(&others, 0, __ATOMIC_RELAXED);
}
