/* --*-limit options; see limit_options.h. */
#include "limit_options.h"

#include <errno.h>
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

bool limit_option(const char *name, const char *arg, struct run_limits *l,
                  char *why, size_t why_size) {
  uint64_t v;
  const char *want = NULL;
  if (strcmp(name, "memory") == 0) {
    if (parse_size(arg, &v))
      l->memory = v;
    else
      want = "a size such as 512M or 2G";
  } else if (strcmp(name, "file-size") == 0) {
    if (parse_size(arg, &v))
      l->file_size = v;
    else
      want = "a size such as 512M or 2G";
  } else if (strcmp(name, "disk") == 0) {
    if (parse_size(arg, &v))
      l->disk = v;
    else
      want = "a size such as 512M or 2G";
  } else if (strcmp(name, "cpu") == 0) {
    if (parse_count(arg, UINT32_MAX, &v))
      l->cpu_seconds = v;
    else
      want = "a whole number of seconds";
  } else if (strcmp(name, "time") == 0) {
    if (parse_seconds_ms(arg, &v))
      l->time_ms = v;
    else
      want = "seconds, such as 10 or 0.5";
  } else if (strcmp(name, "process") == 0) {
    if (parse_count(arg, SUP_MAX_PROCS, &v))
      l->processes = (unsigned)v;
    else
      want = "a number from 1 to 128";
  } else if (strcmp(name, "thread") == 0) {
    if (parse_count(arg, SUP_MAX_THREADS, &v))
      l->threads = (unsigned)v;
    else
      want = "a number from 1 to 1024";
  } else if (strcmp(name, "fd") == 0) {
    if (parse_count(arg, CAPTAB_MAX, &v))
      l->fds = (unsigned)v;
    else
      want = "a number from 1 to 65536";
  } else {
    snprintf(why, why_size, "unknown limit --%s-limit", name);
    return false;
  }
  if (want != NULL) {
    snprintf(why, why_size, "--%s-limit: \"%s\" is not %s", name, arg, want);
    return false;
  }
  return true;
}
