/*
 * Threads: a raw clone onto the stack the guest provides, laid out as
 * FreeBSD does, and an exit that releases the join lock only once the
 * thread no longer uses its stack.
 *
 * The clone flags are THREAD_CLONE_FLAGS (clone_flags.h): the filter allows
 * clone with that one flag word and kills anything else.
 */
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
  *sb = (struct start_block){attr->entry_point, attr->argument, rsp, 0, 0};

  long r = clone_thread(sb, (void *)fsword);
  if (r < 0)
    return vdso_errno(r);
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
  vdso_syscall1(SYS_set_tid_address, lock);
  for (;;)
    vdso_syscall1(SYS_exit, 0);
}
