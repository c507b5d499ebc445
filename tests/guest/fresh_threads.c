/*
 * Threads the supervisor does not trace until their first notified call
 * (src/supervisor/adopt.h).  By the config's `do`:
 *   checks  a new thread's first calls with bad pointers fail with EFAULT
 *           (the vDSO's fault handler), keeping the thread's registers and
 *           floating-point control words; a new thread forks; a forked
 *           child's new thread is served from the child's own table.
 *   segv    a new thread that never made a call crashes: the report a
 *           traced thread gets, and the process dies of SIGSEGV.
 *   trap    the main thread issues the handler's crash call by hand.
 * Config: out, do.
 */
#include "check.h"
#include "rt_thread.h"
#include "trap.h"

static cloudabi_fd_t out;

static void *bad_iovec(void *arg) {
  (void)arg;
  size_t n = 99;
  return (void *)(uintptr_t)cloudabi_sys_fd_write(out, BAD_PTR, 1, &n);
}

static void *bad_buffer(void *arg) {
  (void)arg;
  cloudabi_ciovec_t iov = {BAD_PTR, 8};
  size_t n = 99;
  return (void *)(uintptr_t)cloudabi_sys_fd_write(out, &iov, 1, &n);
}

static void *bad_read(void *arg) {
  cloudabi_fd_t fd = (cloudabi_fd_t)(uintptr_t)arg;
  cloudabi_iovec_t iov = {BAD_PTR, 8};
  size_t n = 99;
  return (void *)(uintptr_t)cloudabi_sys_fd_read(fd, &iov, 1, &n);
}

/* After a fault the handler resumed: MXCSR (round toward zero, masks
 * changed) and the x87 control word are what this thread set, and values
 * the compiler keeps in callee-saved registers across the call survive. */
static void *control_words(void *arg) {
  (void)arg;
  uint32_t mxcsr = 0x7f80 | (3u << 13), got_mxcsr = 0;
  uint16_t cw = 0x0c7f, got_cw = 0;
  __asm__ volatile("ldmxcsr %0" ::"m"(mxcsr));
  __asm__ volatile("fldcw %0" ::"m"(cw));
  volatile uint64_t keep[4] = {1, 2, 3, 4};
  uint64_t a = keep[0] * 11, b = keep[1] * 13, c = keep[2] * 17,
           d = keep[3] * 19;
  size_t n;
  cloudabi_errno_t e = cloudabi_sys_fd_write(out, BAD_PTR, 1, &n);
  __asm__ volatile("stmxcsr %0" : "=m"(got_mxcsr));
  __asm__ volatile("fnstcw %0" : "=m"(got_cw));
  bool same = got_mxcsr == mxcsr && got_cw == cw && a == 11 && b == 26 &&
              c == 51 && d == 76;
  return (void *)(uintptr_t)(e == CLOUDABI_EFAULT && same ? 0 : WRONG_RESULT);
}

static cloudabi_errno_t in_thread(rt_thread_fn *fn, void *arg) {
  rt_thread_t *t;
  RT_CHECK(rt_thread_create(&t, fn, arg) == 0);
  return (cloudabi_errno_t)(uintptr_t)rt_thread_join(t);
}

/* Forks as its first call; the child checks it can still write. */
static void *forker(void *arg) {
  (void)arg;
  cloudabi_fd_t pd;
  if (rt_proc_fork(&pd) != 0)
    return (void *)(uintptr_t)WRONG_RESULT;
  if (pd == CLOUDABI_PROCESS_CHILD) {
    cloudabi_fdstat_t st;
    cloudabi_sys_proc_exit(cloudabi_sys_fd_stat_get(out, &st) == 0 ? 5 : 6);
  }
  return (void *)(uintptr_t)(wait_child(pd) == 5 ? 0 : WRONG_RESULT);
}

static void *stat_fd(void *arg) {
  cloudabi_fdstat_t st;
  return (void *)(uintptr_t)cloudabi_sys_fd_stat_get(
      (cloudabi_fd_t)(uintptr_t)arg, &st);
}

/* Parent and child share one listener: the child's new thread must be
 * taken for the child's, whose table lacks what the child closed. */
static void child_table(void) {
  cloudabi_fd_t d;
  RT_CHECK(cloudabi_sys_fd_dup(out, &d) == 0);
  cloudabi_fd_t pd;
  RT_CHECK(rt_proc_fork(&pd) == 0);
  if (pd == CLOUDABI_PROCESS_CHILD) {
    RT_CHECK(cloudabi_sys_fd_close(d) == 0);
    cloudabi_errno_t gone = in_thread(stat_fd, (void *)(uintptr_t)d);
    cloudabi_errno_t kept = in_thread(stat_fd, (void *)(uintptr_t)out);
    cloudabi_sys_proc_exit(gone == CLOUDABI_EBADF && kept == 0 ? 9 : 10);
  }
  check("fork", "a forked child's thread uses the child's table",
        wait_child(pd) == 9 ? 0 : WRONG_RESULT, 0);
  check("fork", "the parent keeps its own", in_thread(stat_fd, (void *)(uintptr_t)d), 0);
  RT_CHECK(cloudabi_sys_fd_close(d) == 0);
}

static void checks(void) {
  for (int i = 0; i < 20; i++) {
    check("fault", "bad iovec array", in_thread(bad_iovec, NULL),
          CLOUDABI_EFAULT);
    check("fault", "bad buffer", in_thread(bad_buffer, NULL), CLOUDABI_EFAULT);
  }
  cloudabi_fd_t fds[2];
  RT_CHECK(cloudabi_sys_fd_create2(CLOUDABI_FILETYPE_SOCKET_STREAM, &fds[0],
                                   &fds[1]) == 0);
  RT_CHECK(rt_write_all(fds[1], "12345678", 8) == 0);
  check("fault", "bad read buffer", in_thread(bad_read, (void *)(uintptr_t)fds[0]),
        CLOUDABI_EFAULT);
  check("fault", "control words and registers kept",
        in_thread(control_words, NULL), 0);
  check("fork", "from a thread that never trapped", in_thread(forker, NULL), 0);
  child_table();
  check_done("fresh_threads");
}

static void *segv(void *arg) {
  (void)arg;
  *(volatile int *)BAD_PTR = 1;
  return NULL;
}

void program_main(const argdata_t *ad) {
  out = rt_map_fd(ad, "out");
  rt_log_fd = out;
  const char *what = rt_map_str(ad, "do", "");
  if (strcmp(what, "checks") == 0) {
    checks();
  } else if (strcmp(what, "segv") == 0) {
    in_thread(segv, NULL);
    rt_printf(out, "the crashed thread was joined\n");
  } else if (strcmp(what, "trap") == 0) {
    /* Bogus pointers: the supervisor reads nothing it can use. */
    register long sig __asm__("rdi") = 11;
    register long si __asm__("rsi") = 0x10;
    register long uc __asm__("rdx") = 0x20;
    long r = TRAP_NR_CRASH;
    __asm__ volatile("syscall"
                     : "+a"(r)
                     : "r"(sig), "r"(si), "r"(uc)
                     : "rcx", "r11", "memory");
    rt_printf(out, "the crash call returned\n");
  } else {
    rt_fail(__FILE__, __LINE__, "unknown action");
  }
}
