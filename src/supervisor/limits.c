/* Limits of a run; see limits.h. */
#include "limits.h"

#include <string.h>

#include "host/captab.h"

void run_limits_default(struct run_limits *l) {
  memset(l, 0, sizeof(*l));
  l->processes = SUP_MAX_PROCS;
  l->threads = SUP_MAX_THREADS;
  l->fds = CAPTAB_MAX;
}
