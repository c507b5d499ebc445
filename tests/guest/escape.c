/*
 * Tries one thing a confined program must not be able to do, named by the
 * config's `call`: a raw Linux system call that skips the vDSO, or one the
 * vDSO makes but with arguments the filter refuses.  If the call returns,
 * the program says so and exits 0, and the test (which expects death by
 * SIGSYS) fails.
 */
#include "rt.h"

/* Linux x86-64 numbers and values, spelled out: this is a CloudABI
 * program and has no Linux headers. */
enum {
  NR_read = 0, NR_open = 2, NR_mmap = 9, NR_mprotect = 10, NR_ioctl = 16,
  NR_socket = 41, NR_connect = 42, NR_clone = 56, NR_fork = 57,
  NR_execve = 59, NR_kill = 62, NR_ptrace = 101, NR_futex = 202,
  NR_openat = 257, NR_clone3 = 435, NR_getppid = 110, NR_clock_gettime = 228,
};

static long sys(long nr, long a, long b, long c, long d, long e, long f) {
  return rt_raw_syscall(nr, a, b, c, d, e, f);
}

void program_main(const argdata_t *ad) {
  cloudabi_fd_t out = rt_map_fd(ad, "out");
  const char *call = rt_map_str(ad, "call", "");
  static char path[] = "/etc/passwd";
  static char page[4096] __attribute__((aligned(4096)));
  long r = 0;
  if (strcmp(call, "open") == 0)
    r = sys(NR_open, (long)path, 0, 0, 0, 0, 0);
  else if (strcmp(call, "openat") == 0)
    r = sys(NR_openat, -100, (long)path, 0, 0, 0, 0);
  else if (strcmp(call, "read") == 0)
    r = sys(NR_read, 0, (long)page, 1, 0, 0, 0);
  else if (strcmp(call, "socket") == 0)
    r = sys(NR_socket, 2, 1, 0, 0, 0, 0);
  else if (strcmp(call, "connect") == 0)
    r = sys(NR_connect, 0, (long)page, 16, 0, 0, 0);
  else if (strcmp(call, "execve") == 0)
    r = sys(NR_execve, (long)path, 0, 0, 0, 0, 0);
  else if (strcmp(call, "kill") == 0)
    r = sys(NR_kill, 1, 9, 0, 0, 0, 0);
  else if (strcmp(call, "ptrace") == 0)
    r = sys(NR_ptrace, 16 /* ATTACH */, 1, 0, 0, 0, 0);
  else if (strcmp(call, "clone3") == 0)
    r = sys(NR_clone3, (long)page, 88, 0, 0, 0, 0);
  else if (strcmp(call, "fork") == 0)
    r = sys(NR_fork, 0, 0, 0, 0, 0, 0);
  else if (strcmp(call, "clone-untraced") == 0)
    r = sys(NR_clone, 0x00800000 /* CLONE_UNTRACED */ | 17, 0, 0, 0, 0, 0);
  else if (strcmp(call, "ioctl") == 0)
    r = sys(NR_ioctl, 0, 0x5412 /* TIOCSTI */, (long)page, 0, 0, 0);
  else if (strcmp(call, "getppid") == 0)
    r = sys(NR_getppid, 0, 0, 0, 0, 0, 0);
  /* Allowed calls with arguments the filter must refuse. */
  else if (strcmp(call, "mprotect-high-bits") == 0)
    /* PROT_READ with bit 32 set: the kernel would ignore that bit. */
    r = sys(NR_mprotect, (long)page, 4096, 0x100000001, 0, 0, 0);
  else if (strcmp(call, "mprotect-wx") == 0)
    r = sys(NR_mprotect, (long)page, 4096, 7, 0, 0, 0);
  else if (strcmp(call, "mmap-wx") == 0)
    r = sys(NR_mmap, 0, 4096, 7, 0x22, -1, 0);
  else if (strcmp(call, "futex-high-bits") == 0)
    r = sys(NR_futex, (long)page, 0x100000001 /* WAKE */, 1, 0, 0, 0);
  else if (strcmp(call, "futex-requeue") == 0)
    r = sys(NR_futex, (long)page, 3 /* REQUEUE */, 1, 1, (long)page, 0);
  else if (strcmp(call, "clock-other-process") == 0)
    /* A CPU-time clock of pid 1: -((1 << 3) | 2) per Linux's encoding. */
    r = sys(NR_clock_gettime, -14, (long)page, 0, 0, 0, 0);
  else if (strcmp(call, "private-unknown") == 0)
    r = sys(0x10000 + 0xfe, 0, 0, 0, 0, 0, 0);
  else if (strcmp(call, "private-local") == 0)
    /* mem_protect is a vDSO-only call: its private number is not routed. */
    r = sys(0x10000 + CLOUDABI_SYS_mem_protect, 0, 0, 0, 0, 0, 0);
  else
    rt_fail(__FILE__, __LINE__, "unknown call");
  rt_printf(out, "%s returned %ld: not stopped\n", call, r);
}
