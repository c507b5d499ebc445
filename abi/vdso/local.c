/*
 * vDSO calls performed in the guest with the Linux system calls the
 * seccomp filter allows: clocks, memory, randomness, process exit, yield.
 * They never reach the supervisor.  CloudABI's flag values differ from
 * Linux's (PROT_* bits are reversed), so everything is translated; the
 * filter checks the translated values again, so a guest that skips the
 * vDSO gains nothing.
 */
#include <sys/mman.h>
#include <sys/syscall.h>

#include "cloudabi_syscalls.h"
#include "deadline.h"
#include "linux_vdso.h"
#include "vdso.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"

struct linux_timespec {
  long sec, nsec;
};

/* CloudABI clock -> Linux clock, or -1. */
static long linux_clock(cloudabi_clockid_t id) {
  switch (id) {
  case CLOUDABI_CLOCK_MONOTONIC:
    return 1; /* CLOCK_MONOTONIC */
  case CLOUDABI_CLOCK_PROCESS_CPUTIME_ID:
    return 2; /* CLOCK_PROCESS_CPUTIME_ID */
  case CLOUDABI_CLOCK_REALTIME:
    return 0; /* CLOCK_REALTIME */
  case CLOUDABI_CLOCK_THREAD_CPUTIME_ID:
    return 3; /* CLOCK_THREAD_CPUTIME_ID */
  default:
    return -1;
  }
}

static cloudabi_timestamp_t to_ns(const struct linux_timespec *ts) {
  return (cloudabi_timestamp_t)ts->sec * 1000000000u +
         (cloudabi_timestamp_t)ts->nsec;
}

VDSO_EXPORT cloudabi_errno_t
cloudabi_sys_clock_res_get(cloudabi_clockid_t clock_id,
                           cloudabi_timestamp_t *resolution) {
  long id = linux_clock(clock_id);
  if (id < 0)
    return CLOUDABI_EINVAL;
  if (vdso_det_on()) {
    *resolution = TRAP_DET_TICK;
    return 0;
  }
  struct linux_timespec ts;
  cloudabi_errno_t e = vdso_errno(vdso_syscall2(SYS_clock_getres, id, &ts));
  if (e == 0)
    *resolution = to_ns(&ts);
  return e;
}

/* Precision only allows lag; reading the clock exactly honours any. */
VDSO_EXPORT cloudabi_errno_t
cloudabi_sys_clock_time_get(cloudabi_clockid_t clock_id,
                            cloudabi_timestamp_t precision,
                            cloudabi_timestamp_t *time) {
  (void)precision;
  long id = linux_clock(clock_id);
  if (id < 0)
    return CLOUDABI_EINVAL;
  if (vdso_det_on()) {
    *time = vdso_det_now(id, true);
    return 0;
  }
  struct linux_timespec ts;
  cloudabi_errno_t e = vdso_errno(vdso_clock_gettime(id, &ts));
  if (e == 0)
    *time = to_ns(&ts);
  return e;
}

/* CloudABI PROT_* -> Linux PROT_*; W^X and unknown bits are refused with
 * ENOTSUP, as FreeBSD refuses protections it cannot give. */
static cloudabi_errno_t linux_prot(cloudabi_mprot_t prot, long *out) {
  if ((prot & ~(CLOUDABI_PROT_EXEC | CLOUDABI_PROT_WRITE |
                CLOUDABI_PROT_READ)) != 0)
    return CLOUDABI_ENOTSUP;
  if ((prot & CLOUDABI_PROT_WRITE) != 0 && (prot & CLOUDABI_PROT_EXEC) != 0)
    return CLOUDABI_ENOTSUP;
  *out = ((prot & CLOUDABI_PROT_READ) != 0 ? PROT_READ : 0) |
         ((prot & CLOUDABI_PROT_WRITE) != 0 ? PROT_WRITE : 0) |
         ((prot & CLOUDABI_PROT_EXEC) != 0 ? PROT_EXEC : 0);
  return 0;
}

/*
 * Anonymous mappings are made here.  A file mapping needs the host file,
 * which the guest does not hold: the supervisor checks the rights and
 * lends the descriptor (see the mem_map handler), the mapping is made here
 * and the descriptor closed at once.
 */
VDSO_EXPORT cloudabi_errno_t cloudabi_sys_mem_map(
    void *addr, size_t len, cloudabi_mprot_t prot, cloudabi_mflags_t flags,
    cloudabi_fd_t fd, cloudabi_filesize_t off, void **mem) {
  long lprot, lflags;
  cloudabi_errno_t e = linux_prot(prot, &lprot);
  if (e != 0)
    return e;
  if ((flags & ~(CLOUDABI_MAP_ANON | CLOUDABI_MAP_FIXED |
                 CLOUDABI_MAP_PRIVATE | CLOUDABI_MAP_SHARED)) != 0)
    return CLOUDABI_EINVAL;
  switch (flags & (CLOUDABI_MAP_PRIVATE | CLOUDABI_MAP_SHARED)) {
  case CLOUDABI_MAP_PRIVATE:
    lflags = MAP_PRIVATE;
    break;
  case CLOUDABI_MAP_SHARED:
    lflags = MAP_SHARED;
    break;
  default:
    return CLOUDABI_EINVAL;
  }
  if ((flags & CLOUDABI_MAP_FIXED) != 0)
    lflags |= MAP_FIXED;
  long ret;
  if ((flags & CLOUDABI_MAP_ANON) != 0) {
    if (fd != CLOUDABI_MAP_ANON_FD || off != 0)
      return CLOUDABI_EINVAL;
    ret = vdso_syscall6(SYS_mmap, (long)addr, (long)len, lprot,
                        lflags | MAP_ANONYMOUS, -1, 0);
  } else {
    /* The supervisor answers with a descriptor valid in this process. */
    long hostfd = vdso_trap(CLOUDABI_SYS_mem_map, (long)addr, (long)len, prot,
                            flags, fd, (long)off);
    if (hostfd < 0)
      return vdso_trap_errno(hostfd);
    ret = vdso_syscall6(SYS_mmap, (long)addr, (long)len, lprot, lflags,
                        hostfd, (long)off);
    vdso_syscall1(SYS_close, hostfd);
  }
  e = vdso_errno(ret);
  if (e == 0)
    *mem = (void *)ret;
  else if (e == CLOUDABI_ENOMEM)
    vdso_syscall0(TRAP_NR_LIMIT); /* for the run's report */
  return e;
}

VDSO_EXPORT cloudabi_errno_t cloudabi_sys_mem_protect(void *mapping,
                                                      size_t len,
                                                      cloudabi_mprot_t prot) {
  long lprot;
  cloudabi_errno_t e = linux_prot(prot, &lprot);
  if (e != 0)
    return e;
  return vdso_errno(vdso_syscall3(SYS_mprotect, mapping, len, lprot));
}

VDSO_EXPORT cloudabi_errno_t cloudabi_sys_mem_unmap(void *mapping,
                                                    size_t len) {
  return vdso_errno(vdso_syscall2(SYS_munmap, mapping, len));
}

VDSO_EXPORT cloudabi_errno_t cloudabi_sys_mem_advise(void *mapping,
                                                     size_t len,
                                                     cloudabi_advice_t advice) {
  long a;
  switch (advice) {
  case CLOUDABI_ADVICE_DONTNEED:
    a = MADV_DONTNEED;
    break;
  case CLOUDABI_ADVICE_NORMAL:
    a = MADV_NORMAL;
    break;
  case CLOUDABI_ADVICE_RANDOM:
    a = MADV_RANDOM;
    break;
  case CLOUDABI_ADVICE_SEQUENTIAL:
    a = MADV_SEQUENTIAL;
    break;
  case CLOUDABI_ADVICE_WILLNEED:
    a = MADV_WILLNEED;
    break;
  case CLOUDABI_ADVICE_NOREUSE:
    /* Linux has no such advice for memory; advice may be ignored. */
    return 0;
  default:
    return CLOUDABI_EINVAL;
  }
  return vdso_errno(vdso_syscall3(SYS_madvise, mapping, len, a));
}

VDSO_EXPORT cloudabi_errno_t cloudabi_sys_mem_sync(void *mapping, size_t len,
                                                   cloudabi_msflags_t flags) {
  if ((flags & ~(CLOUDABI_MS_ASYNC | CLOUDABI_MS_INVALIDATE |
                 CLOUDABI_MS_SYNC)) != 0)
    return CLOUDABI_EINVAL;
  long lflags;
  switch (flags & (CLOUDABI_MS_ASYNC | CLOUDABI_MS_SYNC)) {
  case CLOUDABI_MS_ASYNC:
    lflags = MS_ASYNC;
    break;
  case CLOUDABI_MS_SYNC:
    lflags = MS_SYNC;
    break;
  default:
    return CLOUDABI_EINVAL;
  }
  if ((flags & CLOUDABI_MS_INVALIDATE) != 0)
    lflags |= MS_INVALIDATE;
  return vdso_errno(vdso_syscall3(SYS_msync, mapping, len, lflags));
}

VDSO_EXPORT _Noreturn void cloudabi_sys_proc_exit(cloudabi_exitcode_t rval) {
  for (;;)
    vdso_syscall1(SYS_exit_group, rval);
}

/* The deterministic stream, copied out through vdso_copy so that a bad
 * pointer is EFAULT, as getrandom's would be. */
static cloudabi_errno_t det_random(char *p, size_t len) {
  uint64_t seed = cloudabi_vdso_det_state.seed;
  uint64_t i = vdso_det_draw((len + 7) / 8);
  while (len > 0) {
    uint64_t words[32];
    size_t n = len < sizeof(words) ? len : sizeof(words);
    for (size_t k = 0; k < (n + 7) / 8; k++)
      words[k] = vdso_det_word(seed, i++);
    if (vdso_copy(p, words, n) != 0)
      return CLOUDABI_EFAULT;
    p += n;
    len -= n;
  }
  return 0;
}

VDSO_EXPORT cloudabi_errno_t cloudabi_sys_random_get(void *buf, size_t len) {
  if (vdso_det_on())
    return det_random(buf, len);
  char *p = buf;
  while (len > 0) {
    long n = vdso_syscall3(SYS_getrandom, p, len, 0);
    if (n == -4 /* EINTR */)
      continue;
    if (n < 0)
      return vdso_errno(n);
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

VDSO_EXPORT cloudabi_errno_t cloudabi_sys_thread_yield(void) {
  return vdso_errno(vdso_syscall0(SYS_sched_yield));
}
