/* CloudABI <-> Linux signals; see signals.h. */
#include "signals.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

static const struct {
  int linux_sig;
  enum sig_action action;
} table[] = {
    [CLOUDABI_SIGABRT] = {SIGABRT, SIGACT_TERMINATE},
    [CLOUDABI_SIGALRM] = {SIGALRM, SIGACT_TERMINATE},
    [CLOUDABI_SIGBUS] = {SIGBUS, SIGACT_TERMINATE},
    [CLOUDABI_SIGCHLD] = {SIGCHLD, SIGACT_IGNORE},
    [CLOUDABI_SIGCONT] = {SIGCONT, SIGACT_CONTINUE},
    [CLOUDABI_SIGFPE] = {SIGFPE, SIGACT_TERMINATE},
    [CLOUDABI_SIGHUP] = {SIGHUP, SIGACT_TERMINATE},
    [CLOUDABI_SIGILL] = {SIGILL, SIGACT_TERMINATE},
    [CLOUDABI_SIGINT] = {SIGINT, SIGACT_TERMINATE},
    [CLOUDABI_SIGKILL] = {SIGKILL, SIGACT_TERMINATE},
    /* CloudABI ignores SIGPIPE by default: writes fail with EPIPE. */
    [CLOUDABI_SIGPIPE] = {SIGPIPE, SIGACT_IGNORE},
    [CLOUDABI_SIGQUIT] = {SIGQUIT, SIGACT_TERMINATE},
    [CLOUDABI_SIGSEGV] = {SIGSEGV, SIGACT_TERMINATE},
    [CLOUDABI_SIGSTOP] = {SIGSTOP, SIGACT_STOP},
    [CLOUDABI_SIGSYS] = {SIGSYS, SIGACT_TERMINATE},
    [CLOUDABI_SIGTERM] = {SIGTERM, SIGACT_TERMINATE},
    [CLOUDABI_SIGTRAP] = {SIGTRAP, SIGACT_TERMINATE},
    [CLOUDABI_SIGTSTP] = {SIGTSTP, SIGACT_STOP},
    [CLOUDABI_SIGTTIN] = {SIGTTIN, SIGACT_STOP},
    [CLOUDABI_SIGTTOU] = {SIGTTOU, SIGACT_STOP},
    [CLOUDABI_SIGURG] = {SIGURG, SIGACT_IGNORE},
    [CLOUDABI_SIGUSR1] = {SIGUSR1, SIGACT_TERMINATE},
    [CLOUDABI_SIGUSR2] = {SIGUSR2, SIGACT_TERMINATE},
    [CLOUDABI_SIGVTALRM] = {SIGVTALRM, SIGACT_TERMINATE},
    [CLOUDABI_SIGXCPU] = {SIGXCPU, SIGACT_TERMINATE},
    [CLOUDABI_SIGXFSZ] = {SIGXFSZ, SIGACT_TERMINATE},
};
#define NSIG_TABLE (sizeof(table) / sizeof(table[0]))

int signal_to_linux(cloudabi_signal_t sig) {
  return sig < NSIG_TABLE ? table[sig].linux_sig : 0;
}

cloudabi_signal_t signal_from_linux(int sig) {
  for (size_t i = 1; i < NSIG_TABLE; i++)
    if (table[i].linux_sig == sig)
      return (cloudabi_signal_t)i;
  return 0;
}

enum sig_action signal_default_action(cloudabi_signal_t sig) {
  return sig < NSIG_TABLE ? table[sig].action : SIGACT_IGNORE;
}

const char *signal_name_linux(int sig, char *buf, size_t size) {
  const char *abbrev = sigabbrev_np(sig);
  if (abbrev != NULL)
    snprintf(buf, size, "SIG%s", abbrev);
  else
    snprintf(buf, size, "signal %d", sig);
  return buf;
}
