/* The host's monotonic clock, in nanoseconds, for deadlines. */
#ifndef HOST_CLOCK_H
#define HOST_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t host_monotonic_ns(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
    return 0;
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
