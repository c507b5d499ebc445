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

#include <stdint.h>

#define TRAP_NR_BASE 0x10000
#define TRAP_ERRNO_BIAS 0x800
/* The loader's start-up rendezvous, answered once the supervisor holds the
 * listener (see abi/loader/stub.c). */
#define TRAP_NR_BOOT (TRAP_NR_BASE + 0x100)

/*
 * I/O slots: a region of memory shared by a guest process and the
 * supervisor (a sealed memfd mapped in both), so that the data of the
 * hottest calls crosses without process_vm_readv/writev, which cost several
 * times a system call on the machines we measured.  The first page holds a
 * bitmap of free slots; slot i starts at IOSLOT_OFFSET(i).  The vDSO claims
 * a slot, copies the call's input into it (or lets the supervisor fill it),
 * and passes a tag in an argument register the call does not otherwise use:
 * TRAP_SLOT_TAG | index << 32 | length.  Guest addresses never have those
 * high bits set, so a tag cannot be mistaken for a pointer.  The region is
 * the guest's own memory: the supervisor bounds index and length, copies
 * structured input out before checking it, and treats bytes as untrusted.
 */
#define IOSLOT_COUNT 64
#define IOSLOT_SIZE (64u << 10)
#define IOSLOT_HEADER 4096u
#define IOSLOT_OFFSET(i) (IOSLOT_HEADER + (uint64_t)(i) * IOSLOT_SIZE)
#define IOSLOT_REGION_SIZE IOSLOT_OFFSET(IOSLOT_COUNT)
#define TRAP_SLOT_TAG (0x5107ull << 48)
#define TRAP_SLOT_MASK (0xffffull << 48)
#define TRAP_SLOT(index, len)                                                  \
  (TRAP_SLOT_TAG | (uint64_t)(index) << 32 | (uint64_t)(uint32_t)(len))

/*
 * A slot address: TRAP_SLOTADDR_TAG | index << 32 | offset stands, in an
 * argument that is a pointer, for that offset in slot `index`.  The vDSO's
 * generic stubs copy small inputs (paths, fdstat, filestat) into a slot and
 * let small outputs land there; the supervisor's guest-memory functions
 * read and write such addresses in the slot (guestmem.c), so handlers need
 * not know.
 */
#define TRAP_SLOTADDR_TAG (0x5108ull << 48)
#define TRAP_SLOTADDR(index, offset)                                           \
  (TRAP_SLOTADDR_TAG | (uint64_t)(index) << 32 | (uint64_t)(uint32_t)(offset))

/* The vDSO's exported data word that the loader points at the region. */
#define VDSO_IOSLOTS_SYMBOL "cloudabi_vdso_ioslots"

/*
 * Deferred closes, in the I/O slots' first page: a byte per descriptor
 * below CLOSE_HINT_FDS at IOSLOT_CLOSE_HINTS, which the supervisor sets to
 * CLOSE_HINT_OPEN while the descriptor is a file or directory with no
 * lend (closing one is seen by no one else) and to 0 otherwise.  The
 * vDSO's fd_close turns OPEN into CLOSED with a compare-and-swap, closes
 * the descriptor's mirror if it has one, adds one to the word at
 * IOSLOT_CLOSES_PENDING and returns without a trap; the supervisor closes
 * every CLOSED descriptor, and makes sure its mirror is gone, before it
 * looks at the process's next trapped call, so no call can
 * tell the difference.  The
 * bytes are the guest's: a lie only closes, or fails to close quietly,
 * the guest's own descriptors.
 */
#define IOSLOT_CLOSES_PENDING 64u
#define IOSLOT_CLOSE_HINTS 1024u
#define CLOSE_HINT_FDS 1024u
#define CLOSE_HINT_OPEN 1
#define CLOSE_HINT_CLOSED 2
_Static_assert(IOSLOT_CLOSE_HINTS + CLOSE_HINT_FDS <= IOSLOT_HEADER &&
                   IOSLOT_CLOSES_PENDING + 4 <= IOSLOT_CLOSE_HINTS,
               "the close hints fit in the slots' first page");

/*
 * Mirror use, in the same page: a byte per descriptor below CLOSE_HINT_FDS
 * at IOSLOT_MIRROR_USED, which the supervisor clears when it mirrors what
 * a file_open opened and the vDSO sets when a call through the mirror
 * succeeds.  When the mirror is taken back, the supervisor learns from it
 * whether the opened file was used, without a system call (its open-miss
 * count, supervisor/mirrors.c).  A lie only changes when mirrors are made.
 */
#define IOSLOT_MIRROR_USED 2048u
_Static_assert(IOSLOT_MIRROR_USED >= IOSLOT_CLOSE_HINTS + CLOSE_HINT_FDS &&
                   IOSLOT_MIRROR_USED + CLOSE_HINT_FDS <= IOSLOT_HEADER,
               "the use bytes fit in the slots' first page");

/*
 * Mirrored descriptors: the supervisor may install a capability's host
 * descriptor in the guest (SECCOMP_IOCTL_NOTIF_ADDFD with SETFD) at a
 * number whose bits say what the filter lets the guest do with it: the
 * number is 0x100 * rights + index (index below 0x100), rights a set of
 * MIRROR_READ (read, readv), MIRROR_WRITE (write, writev), MIRROR_SEEK
 * (with MIRROR_READ: pread64; with MIRROR_WRITE: pwrite64) and MIRROR_STAT
 * (fstat: a regular file's FILE_STAT_FGET).  Besides those, only close is
 * allowed on them (no mmap).  Lends (lends.h)
 * and the loader's own descriptors stay below MIRROR_LOW.  The vDSO's
 * table VDSO_MIRRORS_SYMBOL (uint16_t per CloudABI descriptor below
 * MIRROR_FDS) names each descriptor's mirror, or 0; it is a hint the
 * supervisor writes, and a lying table reaches only mirrors of rights
 * the process holds.
 */
#define MIRROR_READ 0x100
#define MIRROR_WRITE 0x200
#define MIRROR_SEEK 0x400
#define MIRROR_STAT 0x800
#define MIRROR_SPAN 0x100 /* numbers per set of rights */
#define MIRROR_LOW 0x100
#define MIRROR_HIGH 0x1000
#define MIRROR_RANGES (MIRROR_HIGH / MIRROR_SPAN)
#define MIRROR_FDS 1024
#define VDSO_MIRRORS_SYMBOL "cloudabi_vdso_mirrors"

/*
 * A call answered with a mirror: the supervisor installs the mirror and
 * answers in one step (SECCOMP_ADDFD_FLAG_SEND), so the call returns the
 * mirror's number; its own result is then in the last 16 bytes of the
 * call's I/O slot, TRAP_ANSWER_TAG | the mirror's number, then the result.
 * file_open does this (the result is the descriptor, whose vDSO table
 * entry the vDSO sets): a file is opened to be read or written.  So do
 * trapped fd_read, fd_write, fd_pread and fd_pwrite that make a mirror of
 * their descriptor (the call's first argument; the result is the bytes
 * moved), when their data leaves those bytes free: a write's input at
 * most IOSLOT_ANSWER bytes, a read's result at most that.  The vDSO clears
 * the tag before each such call; inputs never reach those bytes then.
 * A call that returns 0 while the tag names a mirror was answered by an
 * install a signal cut short (Linux answers it with 0 and installs
 * nothing): its result is the second word, and it has no mirror.
 */
#define IOSLOT_ANSWER (IOSLOT_SIZE - 16)
#define TRAP_ANSWER_TAG (0x5109ull << 48)

/*
 * cloudabi-run --deterministic: the vDSO's exported struct trap_det, zero
 * (off) unless the supervisor fills it in, at a process's start-up call
 * (on, ticks 0, its seed) and in a forked child before it runs (its own
 * seed, draws 0; the clock goes on from the parent's).  Clocks then read
 * virtual time: every clock is ticks (nanoseconds) past its start value,
 * each clock_time_get advances ticks by TRAP_DET_TICK, and a sleep or a
 * timeout advances it to its deadline.  random_get yields SplitMix64 of
 * seed and a draw counter.  The guest may rewrite it: it governs only
 * what the guest sees of its own time and randomness.
 */
#define VDSO_DET_SYMBOL "cloudabi_vdso_det"
#define TRAP_DET_TICK 1000ull                     /* 1 us */
#define TRAP_DET_MONOTONIC_START 1000000000ull    /* 1 s */
#define TRAP_DET_REALTIME_START 946684800000000000ull /* 2000-01-01 UTC */
/* A timed lock or condition variable wait that nobody ends within this
 * much real time is taken to have timed out (the virtual clock jumps to
 * its deadline): in a single-threaded program nobody could end it. */
#define TRAP_DET_REAL_WAIT_NS 10000000ull /* 10 ms */

/* vDSO code whose faults on guest pointers the supervisor turns into an
 * EFAULT return (see abi/vdso/io.c). */
#define VDSO_COPY_BEGIN_SYMBOL "cloudabi_vdso_copy_begin"
#define VDSO_COPY_END_SYMBOL "cloudabi_vdso_copy_end"
#define VDSO_COPY_FAULT_SYMBOL "cloudabi_vdso_copy_fault"

/*
 * The tracing vDSO's report (cloudabi-run --trace=...,local): after a call
 * the vDSO performed in the guest returns, or before one that never
 * returns, the vDSO issues TRAP_NR_TRACE with a pointer to this record on
 * its stack.  The supervisor only reads it to print the call; the answer
 * is 0, or an error the vDSO ignores.  Out values are read from the call's
 * own out_* pointers.  Times are CLOCK_MONOTONIC nanoseconds.
 */
#define TRAP_NR_TRACE (TRAP_NR_BASE + 0x101)

/*
 * A note for the user, from a program that may hold no descriptor to
 * write it to (the runtime's report of a missing config key, crt0's
 * fatal errors): args[0] points at args[1] bytes of text.  The supervisor
 * prints at most TRAP_NOTE_MAX of them, control bytes escaped, as
 * "cloudabi-run: program: TEXT" on its standard error, and at most
 * TRAP_NOTE_COUNT notes a run; answers 0, EFAULT, or ENOSPC once the
 * count is spent.  It grants nothing: stderr is the user's, not the
 * program's, and what reaches it is bounded.
 */
#define TRAP_NR_NOTE (TRAP_NR_BASE + 0x102)
/*
 * The vDSO's mem_map was refused ENOMEM by the kernel (the address-space
 * rlimit of --memory-limit, or the machine): no arguments, answers 0.  It
 * only marks the run's report (cloudabi-run --report), which is the
 * program's own to spoil, and costs nothing on the path that succeeds.
 */
#define TRAP_NR_LIMIT (TRAP_NR_BASE + 0x103)
/*
 * A fault in a thread the supervisor does not trace (threads are traced
 * from their first notified call on): the vDSO's signal handler
 * (VDSO_FAULT_HANDLER_SYMBOL, installed by the loader for SIGSEGV,
 * SIGBUS, SIGILL, SIGFPE and SIGTRAP) turns a fault in its copy routine into
 * EFAULT itself, and reports anything else with args[0] the signal,
 * args[1] the siginfo and args[2] the ucontext the kernel gave it.  The
 * supervisor prints the report a traced thread would get and kills the
 * process, which then counts as killed by that signal.  A program that
 * makes the call by hand only ends itself with a report it wrote.
 */
#define TRAP_NR_CRASH (TRAP_NR_BASE + 0x104)
#define VDSO_FAULT_HANDLER_SYMBOL "cloudabi_vdso_fault_handler"
/* Offsets in Linux's x86-64 ucontext and siginfo the handler reads
 * (checked against <sys/ucontext.h> in src/supervisor/crash.c). */
#define TRAP_UC_R12 72
#define TRAP_UC_R13 80
#define TRAP_UC_R14 88
#define TRAP_UC_R15 96
#define TRAP_UC_RBP 120
#define TRAP_UC_RBX 128
#define TRAP_UC_RSP 160
#define TRAP_UC_RIP 168
#define TRAP_UC_FPREGS 224
#define TRAP_SI_CODE 8
#define TRAP_NOTE_MAX 256
#define TRAP_NOTE_COUNT 16
#define TRAP_TRACE_NORETURN 0x1 /* sent before a call that does not return */

#ifndef __ASSEMBLER__
#include <stdint.h>
struct trap_det {
  uint64_t on;
  uint64_t ticks; /* updated atomically: threads share it */
  uint64_t seed;  /* the supervisor writes seed and draws together */
  uint64_t draws;
};
struct trap_trace_record {
  uint32_t sysno;
  uint16_t error; /* the CloudABI errno the call returned */
  uint16_t flags; /* TRAP_TRACE_* */
  uint64_t args[7];
  uint64_t start_ns, end_ns;
};
_Static_assert(sizeof(struct trap_trace_record) == 80, "trace record");
#endif

#endif
