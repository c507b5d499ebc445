/*
 * Internal to the vDSO: when a wait ends.  A CLOCK subscription becomes an
 * absolute time on one of the two Linux clocks a thread can sleep on:
 * CLOCK_REALTIME for absolute REALTIME timeouts (so that the wait follows
 * changes of the clock), CLOCK_MONOTONIC for everything else.  Relative
 * timeouts of any clock, and absolute ones of the CPU-time clocks, are
 * measured as elapsed time from now, as FreeBSD (the reference
 * implementation) does for every clock it sleeps on: a thread's CPU clock
 * does not advance while it sleeps.
 */
#ifndef VDSO_DEADLINE_H
#define VDSO_DEADLINE_H

#include <stdbool.h>
#include <sys/syscall.h>
#include <time.h>

#include "det.h"
#include "linux_vdso.h"
#include "vdso.h"

struct vdso_timespec {
  long sec, nsec;
};

struct vdso_deadline {
  long clock;  /* VDSO_NO_DEADLINE, CLOCK_MONOTONIC or CLOCK_REALTIME */
  uint64_t ns; /* absolute, on that clock */
};

#define VDSO_NO_DEADLINE (-1L)

/* CloudABI clock -> Linux clock, or -1. */
static inline long vdso_linux_clock(cloudabi_clockid_t id) {
  switch (id) {
  case CLOUDABI_CLOCK_MONOTONIC:
    return CLOCK_MONOTONIC;
  case CLOUDABI_CLOCK_PROCESS_CPUTIME_ID:
    return CLOCK_PROCESS_CPUTIME_ID;
  case CLOUDABI_CLOCK_REALTIME:
    return CLOCK_REALTIME;
  case CLOUDABI_CLOCK_THREAD_CPUTIME_ID:
    return CLOCK_THREAD_CPUTIME_ID;
  default:
    return -1;
  }
}

/* What clock reads now (virtual with --deterministic, not advancing it). */
static inline uint64_t vdso_now(long clock) {
  if (vdso_det_on())
    return vdso_det_now(clock, false);
  struct vdso_timespec ts = {0, 0};
  vdso_clock_gettime(clock, &ts);
  return (uint64_t)ts.sec * 1000000000u + (uint64_t)ts.nsec;
}

static inline struct vdso_timespec vdso_timespec_of(uint64_t ns) {
  return (struct vdso_timespec){(long)(ns / 1000000000u),
                                (long)(ns % 1000000000u)};
}

static inline uint64_t vdso_add_sat(uint64_t a, uint64_t b) {
  return a + b < a ? UINT64_MAX : a + b;
}

/* The deadline of a CLOCK subscription: 0, or EINVAL for an unknown clock.
 * Unknown flag bits are ignored, as the reference implementation does. */
static inline cloudabi_errno_t
vdso_deadline_of(const cloudabi_subscription_t *sub, struct vdso_deadline *d) {
  long clock = vdso_linux_clock(sub->clock.clock_id);
  if (clock < 0)
    return CLOUDABI_EINVAL;
  uint64_t t = sub->clock.timeout;
  bool abs = (sub->clock.flags & CLOUDABI_SUBSCRIPTION_CLOCK_ABSTIME) != 0;
  if (abs && (clock == CLOCK_MONOTONIC || clock == CLOCK_REALTIME)) {
    *d = (struct vdso_deadline){clock, t};
    return 0;
  }
  if (abs) {
    uint64_t now = vdso_now(clock);
    t = t > now ? t - now : 0;
  }
  *d = (struct vdso_deadline){CLOCK_MONOTONIC,
                              vdso_add_sat(vdso_now(CLOCK_MONOTONIC), t)};
  return 0;
}

static inline bool vdso_deadline_passed(const struct vdso_deadline *d) {
  return d->clock != VDSO_NO_DEADLINE && vdso_now(d->clock) >= d->ns;
}

#endif
