/*
 * The private convention between our vDSO and the supervisor; not part of
 * the CloudABI ABI, which only fixes the cloudabi_sys_* C prototypes.
 *
 * A trapped call issues `syscall` with number TRAP_NR_BASE + the CloudABI
 * syscall number and the C arguments in the six argument registers.  The
 * seccomp filter routes these numbers to the supervisor by user
 * notification.  The supervisor answers:
 *   - success: a value >= 0, which the stub stores through the call's
 *     out_* pointer arguments (out_*2 from bits 32..63), so the supervisor
 *     writes guest memory only for results larger than a register;
 *   - failure: -(TRAP_ERRNO_BIAS + CloudABI errno).  The bias tells our
 *     answers apart from the kernel's own -ENOSYS, which a trapped call
 *     returns when no supervisor listens any more; it also keeps clear of
 *     the kernel's -ERESTART* range (512..516).
 */
#ifndef CLOUDABI_TRAP_H
#define CLOUDABI_TRAP_H

#define TRAP_NR_BASE 0x10000
#define TRAP_ERRNO_BIAS 0x800
/* The loader's start-up rendezvous, answered once the supervisor holds the
 * listener (see abi/loader/stub.c). */
#define TRAP_NR_BOOT (TRAP_NR_BASE + 0x100)

#endif
