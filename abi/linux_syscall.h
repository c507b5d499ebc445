/* Raw Linux system calls for freestanding code (the vDSO, the loader). */
#ifndef LINUX_SYSCALL_H
#define LINUX_SYSCALL_H

static inline long linux_syscall6(long nr, long a0, long a1, long a2, long a3,
                                  long a4, long a5) {
  register long r10 __asm__("r10") = a3;
  register long r8 __asm__("r8") = a4;
  register long r9 __asm__("r9") = a5;
  long ret;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"(nr), "D"(a0), "S"(a1), "d"(a2), "r"(r10), "r"(r8),
                     "r"(r9)
                   : "rcx", "r11", "memory");
  return ret;
}

#define linux_syscall0(nr) linux_syscall6(nr, 0, 0, 0, 0, 0, 0)
#define linux_syscall1(nr, a) linux_syscall6(nr, (long)(a), 0, 0, 0, 0, 0)
#define linux_syscall2(nr, a, b)                                               \
  linux_syscall6(nr, (long)(a), (long)(b), 0, 0, 0, 0)
#define linux_syscall3(nr, a, b, c)                                            \
  linux_syscall6(nr, (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define linux_syscall4(nr, a, b, c, d)                                         \
  linux_syscall6(nr, (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)

#endif
