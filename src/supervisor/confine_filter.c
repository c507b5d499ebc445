/*
 * The supervisor's own seccomp filter: the one list of the Linux calls
 * cloudabi-run makes once it runs, see confine.h.
 *
 * The filter is inherited: every guest process runs under it as well as
 * under its own (loader/filter.c), and the stricter answer wins.  So the
 * list also holds what the loader stub and the guests' vDSO call, and the
 * default is SIGSYS (not a kill) because SIGSYS is what the guest's
 * filter answers and the supervisor reports.  For the supervisor itself
 * SIGSYS is fatal: its handler prints the call's number and exits, and
 * the filter refuses any later change to that handler.
 *
 * The list was made from the code (every call site in src/ and
 * abi/loader/stub.c, and the C library calls beneath them) and is checked
 * by running the whole test suite with the filter on: a missing call
 * ends that test with "the supervisor's filter refused system call N".
 *
 * libseccomp compiles it at build time (src/bpf_gen.c), not at
 * every start: that took ~0.9 ms of each run.  confine_install.c loads
 * the result.
 */
#include "confine_rules.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <termios.h>
#include <unistd.h>
#include <asm/prctl.h>
#include <linux/sockios.h>

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif

#include "clone_flags.h"
#include "cloudabi_syscalls.h"
#include "trap.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif

/* Not in every libseccomp's table: by number. */
#ifndef __NR_mseal
#define __NR_mseal 462
#endif
#ifndef __NR_epoll_pwait2
#define __NR_epoll_pwait2 441
#endif

/* Allowed whatever their arguments: descriptors the supervisor holds,
 * memory, time, its children, waiting. */
static const int any_args[] = {
    /* Descriptors: I/O on what the capability table holds. */
    SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(readv), SCMP_SYS(writev),
    SCMP_SYS(pread64), SCMP_SYS(pwrite64), SCMP_SYS(preadv),
    SCMP_SYS(pwritev), SCMP_SYS(preadv2), SCMP_SYS(pwritev2),
    SCMP_SYS(lseek), SCMP_SYS(sendfile), SCMP_SYS(close),
    SCMP_SYS(close_range), SCMP_SYS(dup), SCMP_SYS(dup2), SCMP_SYS(dup3),
    SCMP_SYS(fcntl), SCMP_SYS(fstat), SCMP_SYS(newfstatat), SCMP_SYS(statx),
    SCMP_SYS(fstatfs), SCMP_SYS(fsync), SCMP_SYS(fdatasync),
    SCMP_SYS(ftruncate), SCMP_SYS(fallocate), SCMP_SYS(fadvise64),
    SCMP_SYS(getdents64), SCMP_SYS(pipe2), SCMP_SYS(eventfd2),
    SCMP_SYS(memfd_create),
    /* Paths beneath directory descriptors (Landlock bounds where). */
    SCMP_SYS(openat), SCMP_SYS(openat2), SCMP_SYS(mkdirat),
    SCMP_SYS(linkat), SCMP_SYS(symlinkat), SCMP_SYS(renameat),
    SCMP_SYS(renameat2), SCMP_SYS(unlinkat), SCMP_SYS(readlinkat),
    SCMP_SYS(readlink), SCMP_SYS(faccessat), SCMP_SYS(faccessat2),
    SCMP_SYS(utimensat),
    /* Sockets the config or a socket pair gave. */
    SCMP_SYS(sendmsg), SCMP_SYS(recvmsg), SCMP_SYS(sendto),
    SCMP_SYS(recvfrom), SCMP_SYS(shutdown), SCMP_SYS(getsockopt),
    SCMP_SYS(getsockname), SCMP_SYS(getpeername),
    /* Waiting. */
    SCMP_SYS(epoll_create1), SCMP_SYS(epoll_ctl), SCMP_SYS(epoll_wait),
    SCMP_SYS(epoll_pwait), __NR_epoll_pwait2, SCMP_SYS(poll),
    SCMP_SYS(ppoll), SCMP_SYS(futex), SCMP_SYS(sched_yield),
    SCMP_SYS(nanosleep), SCMP_SYS(clock_nanosleep), SCMP_SYS(restart_syscall),
    /* Memory: the C library's and the guests' (whose own filter checks
     * protections and flags). */
    SCMP_SYS(mmap), SCMP_SYS(munmap), SCMP_SYS(mprotect), SCMP_SYS(mremap),
    SCMP_SYS(madvise), SCMP_SYS(msync), SCMP_SYS(brk), __NR_mseal,
    /* Time and randomness. */
    SCMP_SYS(clock_gettime), SCMP_SYS(clock_getres), SCMP_SYS(gettimeofday),
    SCMP_SYS(getrandom), SCMP_SYS(setitimer), SCMP_SYS(getitimer),
    SCMP_SYS(getrusage),
    SCMP_SYS(sysinfo), /* qsort asks how much memory there is */
    /* Guest processes: waiting for them, signalling them (Landlock's
     * scope keeps signals within the guests), their memory and
     * descriptors (ptrace access checks, also scoped by Landlock). */
    SCMP_SYS(wait4), SCMP_SYS(waitid), SCMP_SYS(kill), SCMP_SYS(tgkill),
    SCMP_SYS(pidfd_open), SCMP_SYS(pidfd_getfd), SCMP_SYS(pidfd_send_signal),
    SCMP_SYS(process_vm_readv), SCMP_SYS(process_vm_writev),
    SCMP_SYS(kcmp), SCMP_SYS(prlimit64),
    /* A guest starts on our CPU, then is let go (loader/spawn.c). */
    SCMP_SYS(sched_getaffinity), SCMP_SYS(sched_setaffinity),
    SCMP_SYS(getcpu),
    /* Signals. */
    SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigreturn), SCMP_SYS(sigaltstack),
    /* Identity and ends. */
    SCMP_SYS(getpid), SCMP_SYS(gettid), SCMP_SYS(getppid),
    SCMP_SYS(set_tid_address), SCMP_SYS(exit), SCMP_SYS(exit_group),
    /* The C library in a forked child. */
    SCMP_SYS(set_robust_list), SCMP_SYS(rseq),
};

struct arg_rule {
  int nr;
  unsigned arg;
  uint64_t mask; /* compared: (argument & mask) == value */
  uint64_t value;
};

#define LOW32 0xffffffffull
#define ALL64 ~0ull
/* loader/spawn.c starts each guest as posix_spawn would. */
#define VFORK_FLAGS (CLONE_VM | CLONE_VFORK | SIGCHLD)

/* Allowed for these argument values only; one row per value. */
static const struct arg_rule arg_rules[] = {
    /* The notification protocol, and what poll and sock_recv ask. */
    {SCMP_SYS(ioctl), 1, LOW32, SECCOMP_IOCTL_NOTIF_RECV},
    {SCMP_SYS(ioctl), 1, LOW32, SECCOMP_IOCTL_NOTIF_SEND},
    {SCMP_SYS(ioctl), 1, LOW32, SECCOMP_IOCTL_NOTIF_ID_VALID},
    {SCMP_SYS(ioctl), 1, LOW32, SECCOMP_IOCTL_NOTIF_ADDFD},
    {SCMP_SYS(ioctl), 1, LOW32, SECCOMP_IOCTL_NOTIF_SET_FLAGS},
    {SCMP_SYS(ioctl), 1, LOW32, FIONREAD},
    {SCMP_SYS(ioctl), 1, LOW32, SIOCOUTQ},
    {SCMP_SYS(ioctl), 1, LOW32, TCGETS}, /* isatty */
    /* fd_create2: a pair, never a socket that could reach anything. */
    {SCMP_SYS(socketpair), 0, ALL64, AF_UNIX},
    /* Built-in acceptors (acceptor.c), on the config's listeners only. */
    {SCMP_SYS(accept4), 3, ALL64, SOCK_CLOEXEC},
    /* The guest's start (procs_spawn), the guests' threads and
     * proc_fork. */
    {SCMP_SYS(clone), 0, ALL64, VFORK_FLAGS},
    {SCMP_SYS(clone), 0, ALL64, THREAD_CLONE_FLAGS},
    {SCMP_SYS(clone), 0, ALL64, SIGCHLD},
    /* A new guest gets SCHED_OTHER back from our SCHED_BATCH (loop.c). */
    {SCMP_SYS(sched_setscheduler), 1, ALL64, SCHED_OTHER},
    /* Only the loader stub, from a memfd (Landlock allows no other
     * file to be executed): never execve of a path. */
    {SCMP_SYS(execveat), 4, ALL64, AT_EMPTY_PATH},
    /* The requests the supervisor makes of its tracees; Landlock keeps
     * even these to the guests. */
    {SCMP_SYS(ptrace), 0, ALL64, PTRACE_SEIZE},
    {SCMP_SYS(ptrace), 0, ALL64, PTRACE_CONT},
    {SCMP_SYS(ptrace), 0, ALL64, PTRACE_LISTEN},
    {SCMP_SYS(ptrace), 0, ALL64, PTRACE_GETEVENTMSG},
    {SCMP_SYS(ptrace), 0, ALL64, PTRACE_GETSIGINFO},
    {SCMP_SYS(ptrace), 0, ALL64, PTRACE_GETREGS},
    {SCMP_SYS(ptrace), 0, ALL64, PTRACE_SETREGS},
    {SCMP_SYS(ptrace), 0, ALL64, PTRACE_DETACH},
    /* The forked child before exec, and the stub. */
    {SCMP_SYS(prctl), 0, ALL64, PR_SET_PDEATHSIG},
    {SCMP_SYS(prctl), 0, ALL64, PR_SET_DUMPABLE},
    {SCMP_SYS(prctl), 0, ALL64, PR_SET_NO_NEW_PRIVS},
    {SCMP_SYS(arch_prctl), 0, ALL64, ARCH_SET_FS},
    /* The stub installs the guest's filter (only ever stricter). */
    {SCMP_SYS(seccomp), 0, ALL64, SECCOMP_SET_MODE_FILTER},
    {SCMP_SYS(seccomp), 0, ALL64, SECCOMP_GET_NOTIF_SIZES},
};

/* Under a sanitizer: what its runtime does on a report and at exit (the
 * leak checker stops the world with ptrace from a cloned task). */
#ifdef UNDER_SANITIZER
static const int sanitizer_any_args[] = {
    SCMP_SYS(clone), SCMP_SYS(ptrace), SCMP_SYS(prctl),
    SCMP_SYS(rt_sigtimedwait),
    SCMP_SYS(uname), SCMP_SYS(getuid),
    SCMP_SYS(geteuid), SCMP_SYS(getrlimit), SCMP_SYS(setrlimit),
    SCMP_SYS(open), SCMP_SYS(stat), SCMP_SYS(lstat), SCMP_SYS(access),
    SCMP_SYS(pipe), SCMP_SYS(arch_prctl), SCMP_SYS(rt_sigaction),
    SCMP_SYS(getdents), /* the leak checker lists threads with it */
};
#endif

#define N(a) (sizeof(a) / sizeof((a)[0]))

static int add_rules(scmp_filter_ctx ctx) {
  int e = 0;
  for (size_t i = 0; e == 0 && i < N(any_args); i++)
    e = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, any_args[i], 0);
  for (size_t i = 0; e == 0 && i < N(arg_rules); i++) {
    const struct arg_rule *r = &arg_rules[i];
    struct scmp_arg_cmp cmp =
        SCMP_CMP64(r->arg, SCMP_CMP_MASKED_EQ, r->mask, r->value);
    e = seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, r->nr, 1, &cmp);
  }
#ifndef UNDER_SANITIZER
  /* Handlers for everything but SIGSYS, whose handler is ours.  (The
   * sanitizers' runtime installs its own for SIGSYS too.) */
  struct scmp_arg_cmp not_sys = SCMP_CMP64(0, SCMP_CMP_NE, SIGSYS);
  if (e == 0)
    e = seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, SCMP_SYS(rt_sigaction), 1,
                               &not_sys);
#endif
  /* The guests' trapped calls go on to their own filter's notification. */
  for (int nr = TRAP_NR_BASE; e == 0 && nr < TRAP_NR_BASE + CLOUDABI_SYSCALL_COUNT;
       nr++)
    e = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
  if (e == 0)
    e = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, TRAP_NR_BOOT, 0);
  if (e == 0)
    e = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, TRAP_NR_TRACE, 0);
  if (e == 0)
    e = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, TRAP_NR_NOTE, 0);
  if (e == 0)
    e = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, TRAP_NR_LIMIT, 0);
  if (e == 0)
    e = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, TRAP_NR_CRASH, 0);
  /* glibc falls back to clone when clone3 fails so. */
  if (e == 0)
    e = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
#ifdef UNDER_SANITIZER
  for (size_t i = 0; e == 0 && i < N(sanitizer_any_args); i++) {
    e = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, sanitizer_any_args[i], 0);
    if (e == -EEXIST)
      e = 0;
  }
#endif
  return e;
}

scmp_filter_ctx confine_filter_ctx(void) {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_TRAP);
  if (ctx == NULL)
    return NULL;
  /* confine_self sets no_new_privs itself. */
  seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
  seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
  if (add_rules(ctx) != 0) {
    seccomp_release(ctx);
    return NULL;
  }
  return ctx;
}
