/* The --*-limit options of cloudabi-run's command line (options.c). */
#ifndef LIMIT_OPTIONS_H
#define LIMIT_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "supervisor/limits.h"

/* Sets the limit named (memory, cpu, time, process, thread, fd,
 * file-size, disk) from its argument; false with why filled in. */
bool limit_option(const char *name, const char *arg, struct run_limits *l,
                  char *why, size_t why_size);

#endif
