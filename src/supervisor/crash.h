/*
 * Crashes (crash.c).  A traced thread's arrives as a ptrace signal stop
 * (task_events.c), an untraced thread's through the vDSO's handler as
 * TRAP_NR_CRASH (trap.h).  Each gets its report, and the process is
 * ended.  (A forbidden Linux system call is SIGSYS, whose handler the
 * supervisor's own filter keeps for itself: in a thread not traced yet it
 * takes the default action, and the process dies of it unreported.)
 */
#ifndef CRASH_H
#define CRASH_H

#include <linux/seccomp.h>
#include <stdbool.h>

#include "sup.h"

/* The signals the loader gives the vDSO's handler (abi/loader/stub.c). */
bool crash_vdso_handles(int sig);
/* Kills proc, which then counts as killed by sig. */
void crash_end(struct gproc *proc, int sig);
/* TRAP_NR_CRASH from proc's thread. */
void crash_trap(struct sup *s, int listener, const struct seccomp_notif *n,
                struct gproc *proc);

#endif
