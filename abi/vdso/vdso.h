/* Internal to the vDSO: raw Linux system calls and the trap to the
 * supervisor.  Nothing here may need a relocation: the vDSO is mapped as
 * is, and nothing relocates it. */
#ifndef VDSO_H
#define VDSO_H

#include <stdint.h>

#include "cloudabi_types.h"
#include "linux_errno.h"
#include "linux_syscall.h"
#include "trap.h"

#define VDSO_HIDDEN __attribute__((visibility("hidden")))
#define VDSO_EXPORT __attribute__((visibility("default")))

#define vdso_syscall6 linux_syscall6
#define vdso_syscall0 linux_syscall0
#define vdso_syscall1 linux_syscall1
#define vdso_syscall2 linux_syscall2
#define vdso_syscall3 linux_syscall3

/* Copies between guest memory and the vDSO's own: 0, or CLOUDABI_EFAULT if
 * a pointer was bad (the supervisor resumes the faulting copy at its EFAULT
 * exit; io.c). */
int vdso_copy(void *dst, const void *src, size_t n) VDSO_HIDDEN;
/* In a forked child: forgets the parent's parked threads (threads.c). */
void vdso_threads_forked(void) VDSO_HIDDEN;
/* The same for exactly 16 bytes. */
int vdso_copy16(void *dst, const void *src) VDSO_HIDDEN;

/* One input or output the generic stubs pass through an I/O slot: argument
 * `arg`, of `size` bytes or of the length in argument `len_arg`. */
struct vdso_marshal {
  signed char arg, len_arg; /* len_arg < 0: fixed size */
  unsigned char in;         /* 1: copied in before; 0: copied out after */
  unsigned short size;
};
long vdso_trap_marshalled(unsigned sysno, long a[6],
                          const struct vdso_marshal *ops,
                          size_t nops) VDSO_HIDDEN;

/* A Linux syscall's result as a CloudABI errno (0 on success). */
static inline cloudabi_errno_t vdso_errno(long ret) {
  return ret < 0 && ret > -4096 ? linux_errno_to_cloudabi((int)-ret) : 0;
}

/* The supervisor's answer to a trapped call (see trap.h) as an errno. */
static inline cloudabi_errno_t vdso_trap_errno(long ret) {
  if (ret <= -TRAP_ERRNO_BIAS && ret > -(TRAP_ERRNO_BIAS + 0x100))
    return (cloudabi_errno_t)(-ret - TRAP_ERRNO_BIAS);
  return CLOUDABI_ENOSYS; /* the kernel's own: nobody is listening */
}

/* For the vDSO's own hybrid calls (mem_map of a file, poll). */
static inline long vdso_trap(unsigned nr, long a0, long a1, long a2, long a3,
                             long a4, long a5) {
  return vdso_syscall6(TRAP_NR_BASE + nr, a0, a1, a2, a3, a4, a5);
}

#endif
