/* SplitMix64's finaliser: a well-mixed 64-bit word from any other, for
 * --deterministic's per-process seeds and start-up bytes (not a source of
 * secrets; the vDSO's stream is the same function, abi/vdso/det.h). */
#ifndef HOST_MIX64_H
#define HOST_MIX64_H

#include <stdint.h>

static inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Word i of the stream keyed by seed, as the vDSO draws them. */
static inline uint64_t mix64_word(uint64_t seed, uint64_t i) {
  return mix64(seed + (i + 1) * 0x9e3779b97f4a7c15ull);
}

#endif
