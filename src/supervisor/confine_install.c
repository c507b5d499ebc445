/* Loads the supervisor's own filter, compiled at build time; see
 * confine_filter.h. */
#include <errno.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "confine.h"
#include "confine_filter.h"

/* A call the list lacks is a bug of ours: say which, and end the run (the
 * guests die with us: PTRACE_O_EXITKILL). */
static void on_sigsys(int sig, siginfo_t *si, void *uc) {
  (void)sig;
  (void)uc;
  char buf[120];
  int nr = si->si_syscall;
  int n = snprintf(buf, sizeof(buf),
                   "cloudabi-run: internal error: the supervisor's own "
                   "seccomp filter refused system call %d\n",
                   nr);
  if (n > 0)
    (void)!write(STDERR_FILENO, buf, (size_t)n);
  _exit(70);
}

int confine_filter_install(char *why, size_t why_size) {
  struct sigaction sa = {.sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO};
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGSYS, &sa, NULL) != 0) {
    snprintf(why, why_size, "SIGSYS handler: %s", strerror(errno));
    return -1;
  }
  struct sock_fprog prog = {.len = confine_bpf_len,
                            .filter = (struct sock_filter *)confine_bpf};
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) {
    snprintf(why, why_size, "installing the supervisor's filter: %s",
             strerror(errno));
    return -1;
  }
  return 0;
}
