/*
 * proc_fork: the guest forks itself (the filter allows clone with exactly
 * SIGCHLD); the supervisor, its tracer, gives the child a copy of the
 * descriptor table before it runs, and the parent then asks it for a
 * descriptor of the child.
 */
#include <signal.h>
#include <sys/syscall.h>

#include "cloudabi_syscalls.h"
#include "vdso.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"

VDSO_EXPORT cloudabi_errno_t cloudabi_sys_proc_fork(cloudabi_fd_t *fd,
                                                    cloudabi_tid_t *tid) {
  long pid = vdso_syscall6(SYS_clone, SIGCHLD, 0, 0, 0, 0, 0);
  if (pid < 0)
    return vdso_errno(pid);
  if (pid == 0) {
    vdso_threads_forked();
    *fd = CLOUDABI_PROCESS_CHILD;
    *tid = (cloudabi_tid_t)vdso_syscall0(SYS_gettid);
    return 0;
  }
  long r = vdso_trap(CLOUDABI_SYS_proc_fork, (long)fd, (long)tid, pid, 0, 0, 0);
  if (r < 0)
    return vdso_trap_errno(r);
  *fd = (cloudabi_fd_t)r;
  *tid = (cloudabi_tid_t)((uint64_t)r >> 32);
  return 0;
}
