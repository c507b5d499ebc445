/*
 * Only in the tracing vDSO (cloudabi-run --trace=...,local): a wrapper
 * around every call the vDSO performs in the guest (the LOCAL and MIXED
 * rows of abi/cloudabi_abi.h), expanded from the description.
 *
 * The build compiles the other vDSO sources with vdso_untraced.h, a
 * generated header that renames their cloudabi_sys_<name> of those rows to
 * vdso_untraced_<name>; the wrappers here take the exported names, run the
 * real call, and report it to the supervisor with one private trap
 * (TRAP_NR_TRACE, see trap.h).  The renamed functions are declared hidden
 * here, so the tracing vDSO exports exactly the plain one's names; a row
 * without an implementation fails to link.
 *
 * Cost: two clock reads and one supervisor round trip per call (see the
 * README's Tracing section), which is why this is a separate, opt-in vDSO.
 */
#include <sys/syscall.h>

#include "cloudabi_syscalls.h"
#include "vdso.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"

struct linux_timespec {
  long sec, nsec;
};

static uint64_t now_ns(void) {
  struct linux_timespec ts = {0, 0};
  vdso_syscall2(SYS_clock_gettime, 1 /* CLOCK_MONOTONIC */, &ts);
  return (uint64_t)ts.sec * 1000000000u + (uint64_t)ts.nsec;
}

static void report(struct trap_trace_record *r) {
  /* The answer does not matter: the call's result stands either way. */
  vdso_syscall1(TRAP_NR_TRACE, r);
}

#define ARG_NAME(i, kind, name, rights) name
#define ARG_VALUE(i, kind, name, rights) [i] = (uint64_t)(uintptr_t)(name),
#define ARGS_VALUES(n, args)                                                   \
  { CLOUDABI_ARGS_FOREACH(ARG_VALUE, CLOUDABI_SEP_NONE, n, args) }
#define ARGS_NAMES(n, args)                                                    \
  CLOUDABI_ARGS_FOREACH(ARG_NAME, CLOUDABI_SEP_COMMA, n, args)

/* A call that returns: run it, then report it with its errno. */
#define WRAP_0(name, n, a)                                                     \
  __attribute__((visibility("hidden")))                                        \
  cloudabi_errno_t vdso_untraced_##name(CLOUDABI_PARAMS(n, a));                \
  VDSO_EXPORT cloudabi_errno_t cloudabi_sys_##name(CLOUDABI_PARAMS(n, a)) {    \
    struct trap_trace_record r = {.sysno = CLOUDABI_SYS_##name,                \
                                  .args = ARGS_VALUES(n, a)};                  \
    r.start_ns = now_ns();                                                     \
    cloudabi_errno_t e = vdso_untraced_##name(ARGS_NAMES(n, a));               \
    r.end_ns = now_ns();                                                       \
    r.error = e;                                                               \
    report(&r);                                                                \
    return e;                                                                  \
  }

/* A call that never returns (proc_exit, thread_exit): report it first. */
#define WRAP_1(name, n, a)                                                     \
  __attribute__((visibility("hidden"))) _Noreturn void                         \
      vdso_untraced_##name(CLOUDABI_PARAMS(n, a));                             \
  VDSO_EXPORT _Noreturn void cloudabi_sys_##name(CLOUDABI_PARAMS(n, a)) {      \
    struct trap_trace_record r = {.sysno = CLOUDABI_SYS_##name,                \
                                  .flags = TRAP_TRACE_NORETURN,                \
                                  .args = ARGS_VALUES(n, a)};                  \
    r.start_ns = r.end_ns = now_ns();                                          \
    report(&r);                                                                \
    vdso_untraced_##name(ARGS_NAMES(n, a));                                    \
  }

#define WRAP_X(b, name, n, args) WRAP_##b(name, n, args)
#define WRAP_SEL(b, name, n, args) WRAP_X(b, name, n, args)
#define WRAP_TRAP(name, n, args)
#define WRAP_LOCAL(name, n, args)                                              \
  WRAP_SEL(CLOUDABI_IS_NORETURN(name), name, n, args)
#define WRAP_MIXED WRAP_LOCAL
#define WRAP(name, where, n, args) WRAP_##where(name, n, args)
CLOUDABI_SYSCALLS(WRAP)
