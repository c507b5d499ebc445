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
#include <stdint.h>
#include <sys/user.h>
#include <sys/types.h>

struct sup;
struct gproc;

/* sig is about to be delivered to tid (a signal-delivery-stop), or the
 * vDSO's handler got it (TRAP_NR_CRASH); si is NULL when it cannot be
 * read; regs NULL to read them with ptrace (a stopped tracee). */
void report_signal(struct sup *s, struct gproc *proc, pid_t tid, int sig,
                   const siginfo_t *si, const struct user_regs_struct *regs);

/* The filter refused Linux system call nr, issued at ip (the address
 * after the instruction), with these arguments. */
void report_forbidden(struct sup *s, struct gproc *proc, pid_t tid, int nr,
                      uint64_t ip, const uint64_t args[6]);

#endif
