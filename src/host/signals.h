/* CloudABI signals: their Linux numbers, names and default actions. */
#ifndef SIGNALS_H
#define SIGNALS_H

#include "cloudabi_types.h"

enum sig_action { SIGACT_TERMINATE, SIGACT_IGNORE, SIGACT_STOP, SIGACT_CONTINUE };

/* 0 for signal numbers CloudABI does not define. */
int signal_to_linux(cloudabi_signal_t sig);
/* 0 for Linux signals CloudABI has no number for. */
cloudabi_signal_t signal_from_linux(int sig);
enum sig_action signal_default_action(cloudabi_signal_t sig);
/* "SIGSEGV", or "signal 42". */
const char *signal_name_linux(int sig, char *buf, size_t size);

#endif
