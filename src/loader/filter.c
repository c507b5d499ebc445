/*
 * The guest's seccomp filter's rules, compiled with libseccomp at build
 * time (src/bpf_gen.c); see filter.h.
 */
#include "filter_rules.h"

#include <asm/prctl.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <seccomp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clone_flags.h"
#include "cloudabi_syscalls.h"
#include "trap.h"

struct rules {
  scmp_filter_ctx ctx;
  int error;
  const char *what;
};

static void add(struct rules *r, uint32_t action, int nr, unsigned n,
                const struct scmp_arg_cmp *cmp) {
  if (r->error != 0)
    return;
  int e = seccomp_rule_add_array(r->ctx, action, nr, n, cmp);
  if (e != 0) {
    r->error = -e;
    r->what = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
  }
}

/* Allows nr when argument `arg` equals one of values[0..n). */
static void allow_arg_in(struct rules *r, int nr, unsigned arg,
                         const uint64_t *values, size_t n) {
  for (size_t i = 0; i < n; i++) {
    struct scmp_arg_cmp cmp = SCMP_CMP64(arg, SCMP_CMP_EQ, values[i]);
    add(r, SCMP_ACT_ALLOW, nr, 1, &cmp);
  }
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

#define TRAPPED_TRAP true
#define TRAPPED_MIXED true
#define TRAPPED_LOCAL false
#define TRAPPED(name, where, n, args) [CLOUDABI_SYS_##name] = TRAPPED_##where,
static const bool trapped[CLOUDABI_SYSCALL_COUNT] = {
    CLOUDABI_SYSCALLS(TRAPPED)};
#undef TRAPPED

static void add_rules(struct rules *r) {
  /* Calls the supervisor performs: every row the ABI description does not
   * mark as local to the vDSO. */
  for (unsigned i = 0; i < CLOUDABI_SYSCALL_COUNT; i++)
    if (trapped[i])
      add(r, SCMP_ACT_NOTIFY, TRAP_NR_BASE + (int)i, 0, NULL);
  add(r, SCMP_ACT_NOTIFY, TRAP_NR_BOOT, 0, NULL);
  /* The tracing vDSO's reports; answered ENOSYS unless --trace=local. */
  add(r, SCMP_ACT_NOTIFY, TRAP_NR_TRACE, 0, NULL);
  add(r, SCMP_ACT_NOTIFY, TRAP_NR_NOTE, 0, NULL);
  add(r, SCMP_ACT_NOTIFY, TRAP_NR_LIMIT, 0, NULL);
  add(r, SCMP_ACT_NOTIFY, TRAP_NR_CRASH, 0, NULL);

  /* Memory, never writable and executable at once (W^X). */
  static const uint64_t prots[] = {PROT_NONE,  PROT_READ,
                                   PROT_WRITE, PROT_READ | PROT_WRITE,
                                   PROT_EXEC,  PROT_READ | PROT_EXEC};
  static const uint64_t mmap_flags[] = {MAP_PRIVATE | MAP_ANONYMOUS,
                                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
                                        MAP_SHARED | MAP_ANONYMOUS,
                                        MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED,
                                        MAP_PRIVATE,
                                        MAP_PRIVATE | MAP_FIXED,
                                        MAP_SHARED,
                                        MAP_SHARED | MAP_FIXED};
  /* A file mapping only of a lent descriptor, never of a mirror. */
  for (size_t p = 0; p < N(prots); p++) {
    for (size_t f = 0; f < N(mmap_flags); f++) {
      struct scmp_arg_cmp cmp[3] = {
          SCMP_CMP64(2, SCMP_CMP_EQ, prots[p]),
          SCMP_CMP64(3, SCMP_CMP_EQ, mmap_flags[f]),
          SCMP_CMP64(4, SCMP_CMP_LT, MIRROR_LOW),
      };
      bool anon = (mmap_flags[f] & MAP_ANONYMOUS) != 0;
      add(r, SCMP_ACT_ALLOW, SCMP_SYS(mmap), anon ? 2 : 3, cmp);
    }
  }
  allow_arg_in(r, SCMP_SYS(mprotect), 2, prots, N(prots));
  add(r, SCMP_ACT_ALLOW, SCMP_SYS(munmap), 0, NULL);
  static const uint64_t advice[] = {MADV_NORMAL, MADV_RANDOM, MADV_SEQUENTIAL,
                                    MADV_WILLNEED, MADV_DONTNEED};
  allow_arg_in(r, SCMP_SYS(madvise), 2, advice, N(advice));
  static const uint64_t msync_flags[] = {
      MS_ASYNC, MS_SYNC, MS_ASYNC | MS_INVALIDATE, MS_SYNC | MS_INVALIDATE};
  allow_arg_in(r, SCMP_SYS(msync), 2, msync_flags, N(msync_flags));

  /* Clocks: only the four CloudABI has, never another process's. */
  static const uint64_t clocks[] = {CLOCK_REALTIME, CLOCK_MONOTONIC,
                                    CLOCK_PROCESS_CPUTIME_ID,
                                    CLOCK_THREAD_CPUTIME_ID};
  allow_arg_in(r, SCMP_SYS(clock_gettime), 0, clocks, N(clocks));
  allow_arg_in(r, SCMP_SYS(clock_getres), 0, clocks, N(clocks));
  for (size_t i = 0; i < N(clocks); i++) {
    for (uint64_t abs = 0; abs <= TIMER_ABSTIME; abs += TIMER_ABSTIME) {
      struct scmp_arg_cmp cmp[2] = {SCMP_CMP64(0, SCMP_CMP_EQ, clocks[i]),
                                    SCMP_CMP64(1, SCMP_CMP_EQ, abs)};
      add(r, SCMP_ACT_ALLOW, SCMP_SYS(clock_nanosleep), 2, cmp);
    }
  }
  static const uint64_t no_flags[] = {0};
  allow_arg_in(r, SCMP_SYS(getrandom), 2, no_flags, 1);

  /* Threads, locks and condition variables (futexes on guest words). */
  /* Threads, and proc_fork: a plain fork, its child traced like all.
   * Both go past the supervisor, which counts threads against the limit
   * and makes sure a forking thread is traced, then lets the kernel carry
   * the call out: flags and all are in registers, which nobody can change
   * meanwhile. */
  static const uint64_t clone_flags[] = {THREAD_CLONE_FLAGS, SIGCHLD};
  for (size_t i = 0; i < N(clone_flags); i++) {
    struct scmp_arg_cmp cmp = SCMP_CMP64(0, SCMP_CMP_EQ, clone_flags[i]);
    add(r, SCMP_ACT_NOTIFY, SCMP_SYS(clone), 1, &cmp);
  }
  /* Exactly what abi/vdso/locks.c uses: waits with an absolute deadline
   * (FUTEX_CLOCK_REALTIME for absolute REALTIME timeouts) and wakes, both
   * with bitsets so that writers, readers and condition variable waiters
   * can be woken apart.  Shared keys for lock words (the kernel's wake at
   * thread exit uses one) and shared condition variables, private ones
   * for private condition variables.  Never requeue, wake_op or PI. */
  static const uint64_t futex_ops[] = {FUTEX_WAIT_BITSET,
                                       FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME,
                                       FUTEX_WAKE_BITSET,
                                       FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG,
                                       FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG |
                                           FUTEX_CLOCK_REALTIME,
                                       FUTEX_WAKE_BITSET | FUTEX_PRIVATE_FLAG};
  allow_arg_in(r, SCMP_SYS(futex), 1, futex_ops, N(futex_ops));
  add(r, SCMP_ACT_ALLOW, SCMP_SYS(set_tid_address), 0, NULL);
  /* A parked thread taking on a new one's TLS (abi/vdso/threads.c), as
   * clone's CLONE_SETTLS does: the thread's own register, nothing more. */
  static const uint64_t set_fs[] = {ARCH_SET_FS};
  allow_arg_in(r, SCMP_SYS(arch_prctl), 0, set_fs, N(set_fs));
  add(r, SCMP_ACT_ALLOW, SCMP_SYS(gettid), 0, NULL);
  add(r, SCMP_ACT_ALLOW, SCMP_SYS(sched_yield), 0, NULL);
  add(r, SCMP_ACT_ALLOW, SCMP_SYS(exit), 0, NULL);
  add(r, SCMP_ACT_ALLOW, SCMP_SYS(exit_group), 0, NULL);
  /* The guest holds no descriptors but those lent for one mem_map, which
   * it closes, and mirrors (trap.h), which it may only read or write as
   * their number says, and close (the vDSO's fd_close of a mirrored file:
   * a right dropped, and nothing but the supervisor ever puts a
   * descriptor at a free number); compared on all 64 bits. */
  struct scmp_arg_cmp low = SCMP_CMP64(0, SCMP_CMP_LT, MIRROR_HIGH);
  add(r, SCMP_ACT_ALLOW, SCMP_SYS(close), 1, &low);
  /* One masked compare each (trap.h): the bits the call needs set, the
   * index and the bits it does not care about masked off, all else 0. */
  const uint64_t index = MIRROR_SPAN - 1;
  struct scmp_arg_cmp rd = SCMP_CMP64(
      0, SCMP_CMP_MASKED_EQ, ~(index | MIRROR_WRITE | MIRROR_SEEK | MIRROR_STAT),
      MIRROR_READ);
  struct scmp_arg_cmp wr = SCMP_CMP64(
      0, SCMP_CMP_MASKED_EQ, ~(index | MIRROR_READ | MIRROR_SEEK | MIRROR_STAT),
      MIRROR_WRITE);
  struct scmp_arg_cmp prd =
      SCMP_CMP64(0, SCMP_CMP_MASKED_EQ, ~(index | MIRROR_WRITE | MIRROR_STAT),
                 MIRROR_READ | MIRROR_SEEK);
  struct scmp_arg_cmp pwr =
      SCMP_CMP64(0, SCMP_CMP_MASKED_EQ, ~(index | MIRROR_READ | MIRROR_STAT),
                 MIRROR_WRITE | MIRROR_SEEK);
  struct scmp_arg_cmp st = SCMP_CMP64(
      0, SCMP_CMP_MASKED_EQ, ~(index | MIRROR_READ | MIRROR_WRITE | MIRROR_SEEK),
      MIRROR_STAT);
  add(r, SCMP_ACT_ALLOW, SCMP_SYS(read), 1, &rd);
  add(r, SCMP_ACT_ALLOW, SCMP_SYS(readv), 1, &rd);
  add(r, SCMP_ACT_ALLOW, SCMP_SYS(write), 1, &wr);
  add(r, SCMP_ACT_ALLOW, SCMP_SYS(writev), 1, &wr);
  add(r, SCMP_ACT_ALLOW, SCMP_SYS(pread64), 1, &prd);
  add(r, SCMP_ACT_ALLOW, SCMP_SYS(pwrite64), 1, &pwr);
  add(r, SCMP_ACT_ALLOW, SCMP_SYS(fstat), 1, &st);
}

scmp_filter_ctx filter_ctx(char *why, size_t why_size) {
  struct rules r = {seccomp_init(SCMP_ACT_TRAP), 0, NULL};
  if (r.ctx == NULL) {
    snprintf(why, why_size, "libseccomp: cannot initialise");
    return NULL;
  }
  /* The loader sets no_new_privs itself, just before installing. */
  seccomp_attr_set(r.ctx, SCMP_FLTATR_CTL_NNP, 0);
  seccomp_attr_set(r.ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
  add_rules(&r);
  if (r.error != 0) {
    snprintf(why, why_size, "libseccomp: rule for %s: %s",
             r.what != NULL ? r.what : "a private call", strerror(r.error));
    seccomp_release(r.ctx);
    return NULL;
  }
  return r.ctx;
}
