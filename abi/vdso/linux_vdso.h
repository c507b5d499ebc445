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

#include "vdso.h"

/* clock_gettime(2) into a {seconds, nanoseconds} pair: 0 or -errno.  Falls
 * back to the system call when Linux's vDSO is missing or cannot do it. */
VDSO_HIDDEN long vdso_clock_gettime(long clock, void *ts);

#endif
