/*
 * proc_exec against the process records (src/supervisor/procs.c): a
 * child made by a raw clone(SIGCHLD) execs before its parent claims it,
 * and the parent then claims it (the supervisor crashed on this); and
 * many threads of one process call proc_exec at once (it crashed on the
 * second).  Config: out (stdout), self (!executable), do (claim or
 * many).  The exec'd program gets argdata {do: done} and exits 7.
 */
#include "rt.h"
#include "rt_thread.h"
#include "trap.h"

#define THREADS 17

static cloudabi_fd_t self;
/* {do: done}, encoded by hand. */
static const unsigned char done_argdata[] = {0x06, 0x84, 0x08, 'd', 'o',
                                             0x00, 0x86, 0x08, 'd', 'o',
                                             'n',  'e',  0x00};

static cloudabi_errno_t exec_done(void) {
  return cloudabi_sys_proc_exec(self, done_argdata, sizeof(done_argdata), NULL,
                                0);
}

static void claim(cloudabi_fd_t out) {
  long pid = rt_raw_syscall(56 /* clone */, 17 /* SIGCHLD */, 0, 0, 0, 0, 0);
  if (pid == 0) {
    exec_done();
    cloudabi_sys_proc_exit(1);
  }
  RT_CHECK(pid > 0);
  rt_sleep_ns(300000000); /* the exec is done by now */
  cloudabi_fd_t fd;
  cloudabi_tid_t tid;
  long r = rt_raw_syscall(TRAP_NR_BASE + CLOUDABI_SYS_proc_fork, (long)&fd,
                          (long)&tid, pid, 0, 0, 0);
  /* A descriptor of the exec'd child, or EAGAIN; the supervisor lives. */
  rt_printf(out, "claim after exec: %s\n",
            r >= 0 || r == -(TRAP_ERRNO_BIAS + CLOUDABI_EAGAIN) ? "answered"
                                                                : "wrong");
}

static void *exec_thread(void *arg) {
  (void)arg;
  exec_done();
  return NULL;
}

void program_main(const argdata_t *ad) {
  const char *what = rt_map_str(ad, "do", "");
  if (strcmp(what, "done") == 0)
    cloudabi_sys_proc_exit(7);
  cloudabi_fd_t out = rt_map_fd(ad, "out");
  self = rt_map_fd(ad, "self");
  if (strcmp(what, "claim") == 0) {
    claim(out);
    return;
  }
  /* many: the first exec wins; cloudabi-run's status is the new
   * program's. */
  rt_thread_t *t[THREADS];
  for (int i = 0; i < THREADS; i++)
    RT_CHECK(rt_thread_create(&t[i], exec_thread, NULL) == 0);
  exec_done();
  rt_sleep_ns(2000000000);
  rt_printf(out, "no exec took over\n");
}
