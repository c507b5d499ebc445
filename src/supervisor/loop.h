/* The supervisor's entry (loop.c). */
#ifndef LOOP_H
#define LOOP_H

#include "config/launch.h"
#include "sup.h"

/* Starts the program (fd prog_fd) with the launch configuration and runs
 * the event loop until it ends; returns cloudabi-run's exit status.  lc's
 * descriptors move into the guest's table. */
int sup_run(const struct sup_options *opts, int prog_fd,
            struct launch_config *lc);

#endif
