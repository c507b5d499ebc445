/* cloudabi-run --report=FILE: what a run did, as one JSON object. */
#ifndef REPORT_H
#define REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "supervisor/limits.h"
#include "supervisor/stats.h"

struct run_report {
  const char *program;
  int exit_status;  /* cloudabi-run's own */
  uint64_t wall_us; /* from just before the program was started */
  const struct run_limits *limits;
  const struct run_stats *stats;
  uint64_t seed; /* --deterministic's, when deterministic */
  int deterministic;
};

/* Writes r to out and closes out; -1 (errno set) when writing failed. */
int report_write(const struct run_report *r, FILE *out);

#endif
