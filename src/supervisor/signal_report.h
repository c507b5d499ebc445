/*
 * What the supervisor says when a guest thread gets a signal: a crash (a
 * fault the kernel raised: SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP,
 * SIGABRT) gets one line on standard error with the signal, the faulting
 * address and the instruction, located in the program ("prog+0x1234", for
 * addr2line); with --trace, every signal goes into the trace, crashes with
 * all the registers, and so does a forbidden Linux system call, with its
 * arguments.
 */
#ifndef SIGNAL_REPORT_H
#define SIGNAL_REPORT_H

#include <signal.h>
#include <sys/types.h>

struct sup;
struct gproc;

/* sig is about to be delivered to tid (a signal-delivery-stop); si is
 * NULL when PTRACE_GETSIGINFO failed. */
void report_signal(struct sup *s, struct gproc *proc, pid_t tid, int sig,
                   const siginfo_t *si);

/* The filter refused a Linux system call (SIGSYS from seccomp). */
void report_forbidden(struct sup *s, struct gproc *proc, pid_t tid,
                      const siginfo_t *si);

#endif
