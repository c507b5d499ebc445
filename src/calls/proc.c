/* Handlers for the proc_* system calls the supervisor performs. */
#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "errno_map.h"
#include "signals.h"
#include "sup.h"
#include "syscall_table.h"

/*
 * CloudABI has no signal handlers: raising a signal takes its default
 * action.  A signal that terminates or stops is sent to the calling
 * thread; since the guest is traced, it is delivered when the thread
 * leaves this call, so the answer below is never seen by a thread that
 * dies.  Ignored signals do nothing.
 */
cloudabi_errno_t handle_proc_raise(struct call *c) {
  cloudabi_signal_t sig = (cloudabi_signal_t)c->args[0];
  if (sig == 0)
    return 0;
  int lsig = signal_to_linux(sig);
  if (lsig == 0)
    return CLOUDABI_EINVAL;
  if (signal_default_action(sig) == SIGACT_IGNORE)
    return 0;
  if (syscall(SYS_tgkill, c->proc->pid, (pid_t)c->tid, lsig) != 0)
    return errno_from_host(errno);
  return 0;
}
