/*
 * Internal to the vDSO: reading clocks through Linux's own vDSO, which the
 * kernel maps into every process and which reads the common clocks
 * without a system call (without one, every clock read would pay for
 * entering the kernel and running the seccomp filter: about 15 times the
 * native cost).  The loader stub hands us its address before the program
 * starts (cloudabi_vdso_init in linux_vdso.c).
 */
#ifndef VDSO_LINUX_VDSO_H
#define VDSO_LINUX_VDSO_H

#include <sys/syscall.h>

#include "vdso.h"

typedef long vdso_clock_gettime_fn(long clock, void *ts);

/* Linux's __vdso_clock_gettime, or NULL; set once before the program runs
 * (hidden, so reaching it takes no relocation). */
VDSO_HIDDEN extern vdso_clock_gettime_fn *vdso_linux_clock_gettime;

/* clock_gettime(2) into a {seconds, nanoseconds} pair: 0 or -errno.  Falls
 * back to the system call when Linux's vDSO is missing (Linux's vDSO itself
 * makes the call for clocks it cannot read). */
static inline long vdso_clock_gettime(long clock, void *ts) {
  vdso_clock_gettime_fn *fn = vdso_linux_clock_gettime;
  if (__builtin_expect(fn != NULL, 1))
    return fn(clock, ts);
  return vdso_syscall2(SYS_clock_gettime, clock, ts);
}

#endif
