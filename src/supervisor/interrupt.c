/*
 * The supervisor's own signals.  SIGCHLD (ptrace events and exits) and
 * SIGINT, SIGTERM, SIGHUP (to forward to the program) and SIGALRM (the
 * time limit) are caught by a
 * handler that records them and writes a byte to a pipe in the epoll set
 * (so a wait never misses one), and that, while the supervisor blocks in
 * RECV on the fast path, jumps out of the RECV (so an exit or a ptrace
 * stop is never left waiting behind a notification that will not come).
 * A handler can only reach globals, hence these few; they are the
 * supervisor's only ones.
 */
#include "sup.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "park.h"
#include "interrupt.h"
#include "reply.h"
#include "task_events.h"

static volatile sig_atomic_t sig_child, sig_other;
static volatile sig_atomic_t in_recv;
static volatile sig_atomic_t pipe_dirty; /* a byte may be in the pipe */
static int wake_fd = -1; /* the pipe's write end */
static sigjmp_buf recv_jump;

static void on_signal(int sig) {
  if (sig == SIGCHLD)
    sig_child = 1;
  else
    sig_other = sig;
  if (in_recv) {
    /* The loop looks at the flags before it waits again: no byte needed,
     * which saves a write here and two reads in interrupt_handle for each
     * ptrace stop (a thread's start costs three). */
    in_recv = 0;
    siglongjmp(recv_jump, 1);
  }
  int saved = errno;
  char c = 0;
  pipe_dirty = 1;
  if (write(wake_fd, &c, 1) < 0) {
    /* full: a wake-up is pending anyway */
  }
  errno = saved;
}

int interrupt_setup(struct sup *s) {
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGCHLD);
  sigaddset(&mask, SIGINT);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGHUP);
  sigaddset(&mask, SIGALRM);
  /* SA_NODEFER: on_signal may jump out of itself, leaving the mask as it
   * was; SA_RESTART: other calls it interrupts carry on. */
  struct sigaction sa = {.sa_handler = on_signal,
                         .sa_flags = SA_RESTART | SA_NODEFER};
  sigemptyset(&sa.sa_mask);
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC | O_NONBLOCK) != 0)
    return -1;
  s->sigfd = pipefd[0];
  wake_fd = pipefd[1];
  sigaction(SIGCHLD, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  sigaction(SIGALRM, &sa, NULL); /* --time-limit */
  sigprocmask(SIG_UNBLOCK, &mask, NULL);
  /* Writes to closed pipes fail with EPIPE for the guest to see. */
  signal(SIGPIPE, SIG_IGN);
  return 0;
}

void interrupt_teardown(void) {
  /* Back to defaults before the pipe goes: nothing may write to it. */
  signal(SIGCHLD, SIG_DFL);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGHUP, SIG_DFL);
  signal(SIGALRM, SIG_DFL);
  if (wake_fd >= 0)
    close(wake_fd);
  wake_fd = -1;
}

bool interrupt_pending(void) {
  return sig_child || sig_other;
}

void interrupt_handle(struct sup *s) {
  char buf[64];
  if (pipe_dirty) {
    pipe_dirty = 0; /* before the read: a later byte raises it again */
    while (read(s->sigfd, buf, sizeof(buf)) > 0) {
    }
  }
  bool child = sig_child;
  sig_child = 0;
  int other = sig_other;
  sig_other = 0;
  if (other == SIGALRM && !s->main_done) {
    /* The time limit: every guest process goes, and the report of the
     * main one's end says why (task_events.c). */
    s->time_up = true;
    s->ending = true;
    for (struct gproc *p = s->procs; p != NULL; p = p->next)
      kill(p->pid, SIGKILL);
  } else if (other != 0 && !s->main_done) {
    /* SIGINT, SIGTERM, SIGHUP for us: the program gets it too.  A traced
     * thread waiting in a call we parked only takes the signal when the
     * call returns, so those calls end now, with EINTR that no thread
     * lives to see.  A process that stopped itself holds the signal until
     * it is continued, so SIGCONT follows (the signal is pending first, and
     * taken before any guest code runs); from now on, a stop is not kept
     * (task_events.c), so a thread cannot stop its process again. */
    s->ending = true;
    for (struct gproc *p = s->procs; p != NULL; p = p->next)
      kill(p->pid, other);
    for (struct gproc *p = s->procs; p != NULL; p = p->next)
      kill(p->pid, SIGCONT);
    while (s->parked != NULL) {
      sup_reply(s->parked->listener, s->parked->id, CLOUDABI_EINTR, 0);
      park_drop(s, s->parked);
    }
  }
  if (child)
    sup_reap(s);
}

bool interrupt_recv(int fd, struct seccomp_notif *n, size_t size) {
  memset(n, 0, size);
  if (sigsetjmp(recv_jump, 0) == 0) {
    in_recv = 1;
    /* After raising in_recv: a signal from now on jumps out. */
    if (sig_child || sig_other) {
      in_recv = 0;
      return false;
    }
    int r = ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, n);
    in_recv = 0;
    /* ENOENT: the caller died before we looked, or nobody is left */
    return r == 0;
  }
  /* A notification may have been received just before a signal jumped
   * here: the kernel fills n before any handler runs. */
  errno = EINTR;
  return n->id != 0;
}
