/*
 * Internal to the vDSO: virtual time and randomness for cloudabi-run
 * --deterministic (the rules are in trap.h, struct trap_det).  When the
 * supervisor has not switched it on, each function here costs one load
 * and a branch.
 */
#ifndef VDSO_DET_H
#define VDSO_DET_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "vdso.h"

VDSO_HIDDEN extern struct trap_det cloudabi_vdso_det_state;

static inline bool vdso_det_on(void) {
  return __atomic_load_n(&cloudabi_vdso_det_state.on, __ATOMIC_RELAXED) != 0;
}

static inline uint64_t vdso_det_sat_add(uint64_t a, uint64_t b) {
  return a + b < a ? UINT64_MAX : a + b;
}

/* The start value of a Linux clock in virtual time. */
static inline uint64_t vdso_det_start(long clock) {
  switch (clock) {
  case CLOCK_REALTIME:
    return TRAP_DET_REALTIME_START;
  case CLOCK_MONOTONIC:
    return TRAP_DET_MONOTONIC_START;
  default:
    return 0; /* the CPU-time clocks */
  }
}

/* clock's virtual reading; advance: by one tick afterwards. */
static inline uint64_t vdso_det_now(long clock, bool advance) {
  uint64_t t =
      advance ? __atomic_fetch_add(&cloudabi_vdso_det_state.ticks,
                                   TRAP_DET_TICK, __ATOMIC_RELAXED)
              : __atomic_load_n(&cloudabi_vdso_det_state.ticks,
                                __ATOMIC_RELAXED);
  return vdso_det_sat_add(vdso_det_start(clock), t);
}

/* Moves virtual time forward to the monotonic reading mono (never back). */
static inline void vdso_det_advance_to(uint64_t mono) {
  uint64_t want = mono > TRAP_DET_MONOTONIC_START
                      ? mono - TRAP_DET_MONOTONIC_START
                      : 0;
  uint64_t cur =
      __atomic_load_n(&cloudabi_vdso_det_state.ticks, __ATOMIC_RELAXED);
  while (cur < want &&
         !__atomic_compare_exchange_n(&cloudabi_vdso_det_state.ticks, &cur,
                                      want, true, __ATOMIC_RELAXED,
                                      __ATOMIC_RELAXED)) {
  }
}

/* The next n random words' first index. */
static inline uint64_t vdso_det_draw(uint64_t n) {
  return __atomic_fetch_add(&cloudabi_vdso_det_state.draws, n,
                            __ATOMIC_RELAXED);
}

/* SplitMix64: word i of the stream keyed by seed. */
static inline uint64_t vdso_det_word(uint64_t seed, uint64_t i) {
  uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

#endif
