/* --*-limit options; see limit_options.h. */
#include "limit_options.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/captab.h"

/* A size: digits, then nothing (bytes) or K, M, G, T (powers of 1024),
 * with an optional B or iB. */
static bool parse_size(const char *s, uint64_t *out) {
  char *end;
  errno = 0;
  if (s[0] < '0' || s[0] > '9')
    return false;
  unsigned long long n = strtoull(s, &end, 10);
  if (errno != 0)
    return false;
  unsigned shift = 0;
  switch (*end) {
  case 'k': case 'K': shift = 10; end++; break;
  case 'm': case 'M': shift = 20; end++; break;
  case 'g': case 'G': shift = 30; end++; break;
  case 't': case 'T': shift = 40; end++; break;
  default: break;
  }
  if (shift != 0 && *end == 'i')
    end++;
  if (*end == 'B' || *end == 'b')
    end++;
  if (*end != '\0' || n == 0 || n > (UINT64_MAX >> shift))
    return false;
  *out = (uint64_t)n << shift;
  return true;
}

/* A whole number from 1 to max. */
static bool parse_count(const char *s, uint64_t max, uint64_t *out) {
  char *end;
  errno = 0;
  if (s[0] < '0' || s[0] > '9')
    return false;
  unsigned long long n = strtoull(s, &end, 10);
  if (errno != 0 || *end != '\0' || n == 0 || n > max)
    return false;
  *out = n;
  return true;
}

/* Seconds, with up to three decimals, as milliseconds. */
static bool parse_seconds_ms(const char *s, uint64_t *ms) {
  char *end;
  errno = 0;
  if (s[0] < '0' || s[0] > '9')
    return false;
  unsigned long long whole = strtoull(s, &end, 10);
  if (errno != 0 || whole > UINT64_MAX / 1000 - 1)
    return false;
  uint64_t frac = 0, scale = 100;
  if (*end == '.') {
    end++;
    for (; *end >= '0' && *end <= '9'; end++) {
      if (scale == 0)
        return false;
      frac += (uint64_t)(*end - '0') * scale;
      scale /= 10;
    }
  }
  if (*end != '\0' || whole * 1000 + frac == 0)
    return false;
  *ms = whole * 1000 + frac;
  return true;
}

enum limit_kind { SIZE, SECONDS, MILLISECONDS, COUNT };

/* Every --NAME-limit: what its argument is and where it goes. */
static const struct {
  const char *name;
  enum limit_kind kind;
  size_t offset;  /* of the field in struct run_limits */
  bool is_uint64; /* else unsigned */
  uint64_t max;   /* COUNT and SECONDS */
} limits[] = {
#define U64(f) offsetof(struct run_limits, f), true
#define UNS(f) offsetof(struct run_limits, f), false
    {"memory", SIZE, U64(memory), 0},
    {"file-size", SIZE, U64(file_size), 0},
    {"disk", SIZE, U64(disk), 0},
    {"cpu", SECONDS, U64(cpu_seconds), UINT32_MAX},
    {"time", MILLISECONDS, U64(time_ms), 0},
    {"process", COUNT, UNS(processes), SUP_MAX_PROCS},
    {"thread", COUNT, UNS(threads), SUP_MAX_THREADS},
    {"fd", COUNT, UNS(fds), CAPTAB_MAX},
#undef U64
#undef UNS
};

bool limit_option(const char *name, const char *arg, struct run_limits *l,
                  char *why, size_t why_size) {
  for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
    if (strcmp(name, limits[i].name) != 0)
      continue;
    uint64_t v;
    bool ok;
    char want[48];
    switch (limits[i].kind) {
    case SIZE:
      ok = parse_size(arg, &v);
      snprintf(want, sizeof(want), "a size such as 512M or 2G");
      break;
    case SECONDS:
      ok = parse_count(arg, limits[i].max, &v);
      snprintf(want, sizeof(want), "a whole number of seconds");
      break;
    case MILLISECONDS:
      ok = parse_seconds_ms(arg, &v);
      snprintf(want, sizeof(want), "seconds, such as 10 or 0.5");
      break;
    default:
      ok = parse_count(arg, limits[i].max, &v);
      snprintf(want, sizeof(want), "a number from 1 to %llu",
               (unsigned long long)limits[i].max);
      break;
    }
    if (!ok) {
      snprintf(why, why_size, "--%s-limit: \"%s\" is not %s", name, arg,
               want);
      return false;
    }
    char *field = (char *)l + limits[i].offset;
    if (limits[i].is_uint64)
      *(uint64_t *)(void *)field = v;
    else
      *(unsigned *)(void *)field = (unsigned)v;
    return true;
  }
  snprintf(why, why_size, "unknown limit --%s-limit", name);
  return false;
}
