/*
 * Scalar resolution; see config_scalar.h for the rules.  Every pattern is
 * matched by hand over exactly `len` bytes before any conversion, so
 * library converters (strtod) only ever see text of the expected form.
 */
#include "config_scalar.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void why_set(char *why, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void why_set(char *why, size_t size, const char *fmt, ...) {
  if (size == 0)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, size, fmt, ap);
  va_end(ap);
}

static bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

/* Whether s[0..len) is one of the NULL-terminated words. */
static bool one_of(const char *s, size_t len, const char *const *words) {
  for (; *words != NULL; words++)
    if (strlen(*words) == len && memcmp(*words, s, len) == 0)
      return true;
  return false;
}

bool scalar_is_null(const char *s, size_t len) {
  static const char *const nulls[] = {"", "~", "null", "Null", "NULL", NULL};
  return one_of(s, len, nulls);
}

int scalar_parse_bool(const char *s, size_t len, bool *out) {
  /* The YAML 1.2 core schema's spellings, as upstream's last cloudabi-run
   * (yaml2argdata): y, yes, on and the like are strings. */
  static const char *const trues[] = {"true", "True", "TRUE", NULL};
  static const char *const falses[] = {"false", "False", "FALSE", NULL};
  if (one_of(s, len, trues)) {
    *out = true;
    return SCALAR_OK;
  }
  if (one_of(s, len, falses)) {
    *out = false;
    return SCALAR_OK;
  }
  return SCALAR_NO_MATCH;
}

static int digit_value(char c, int base) {
  int v;
  if (c >= '0' && c <= '9')
    v = c - '0';
  else if (c >= 'a' && c <= 'f')
    v = c - 'a' + 10;
  else if (c >= 'A' && c <= 'F')
    v = c - 'A' + 10;
  else
    return -1;
  return v < base ? v : -1;
}

int scalar_parse_int(const char *s, size_t len, __int128 *out, char *why,
                     size_t why_size) {
  size_t i = 0;
  bool negative = false;
  int base = 10;
  if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o')) {
    /* The core schema's prefixed forms carry no sign. */
    base = s[1] == 'x' ? 16 : 8;
    i = 2;
  } else if (len >= 1 && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    i = 1;
  }
  if (i == len)
    return SCALAR_NO_MATCH;
  /* Accumulate the magnitude, stopping once it is beyond any valid value,
   * so that a thousand digits cannot overflow the accumulator. */
  const unsigned __int128 limit = (unsigned __int128)UINT64_MAX + 1;
  unsigned __int128 mag = 0;
  for (; i < len; i++) {
    int v = digit_value(s[i], base);
    if (v < 0)
      return SCALAR_NO_MATCH;
    if (mag <= limit)
      mag = mag * (unsigned)base + (unsigned)v;
  }
  if (negative ? mag > ((unsigned __int128)1 << 63) : mag > UINT64_MAX) {
    why_set(why, why_size, "out of range");
    return SCALAR_BAD;
  }
  *out = negative ? -(__int128)mag : (__int128)mag;
  return SCALAR_OK;
}

/* Length of the run of decimal digits at s[i..len). */
static size_t digits_at(const char *s, size_t len, size_t i) {
  size_t n = 0;
  while (i + n < len && is_digit(s[i + n]))
    n++;
  return n;
}

/* [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? */
static bool float_form(const char *s, size_t len) {
  size_t i = 0, n;
  if (i < len && (s[i] == '-' || s[i] == '+'))
    i++;
  if (i < len && s[i] == '.') {
    i++;
    if ((n = digits_at(s, len, i)) == 0)
      return false;
    i += n;
  } else {
    if ((n = digits_at(s, len, i)) == 0)
      return false;
    i += n;
    if (i < len && s[i] == '.') {
      i++;
      i += digits_at(s, len, i);
    }
  }
  if (i < len && (s[i] == 'e' || s[i] == 'E')) {
    i++;
    if (i < len && (s[i] == '-' || s[i] == '+'))
      i++;
    if ((n = digits_at(s, len, i)) == 0)
      return false;
    i += n;
  }
  return i == len;
}

int scalar_parse_float(const char *s, size_t len, double *out, char *why,
                       size_t why_size) {
  static const char *const infs[] = {".inf", ".Inf", ".INF", NULL};
  static const char *const nans[] = {".nan", ".NaN", ".NAN", NULL};
  if (one_of(s, len, nans)) {
    *out = NAN;
    return SCALAR_OK;
  }
  size_t sign = len > 0 && (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (one_of(s + sign, len - sign, infs)) {
    *out = sign == 1 && s[0] == '-' ? -INFINITY : INFINITY;
    return SCALAR_OK;
  }
  if (!float_form(s, len))
    return SCALAR_NO_MATCH;
  /* The form is strtod's too; it needs a NUL-terminated copy. */
  char *copy = malloc(len + 1);
  if (copy == NULL)
    return SCALAR_NOMEM;
  memcpy(copy, s, len);
  copy[len] = '\0';
  errno = 0;
  double v = strtod(copy, NULL);
  int err = errno;
  free(copy);
  /* Underflow rounds towards zero, which is the closest double there is;
   * only overflow loses the value. */
  if (err == ERANGE && isinf(v)) {
    why_set(why, why_size, "out of range");
    return SCALAR_BAD;
  }
  *out = v;
  return SCALAR_OK;
}

/* Reads between min and max decimal digits at *i. */
static bool read_number(const char *s, size_t len, size_t *i, size_t min,
                        size_t max, int *out, size_t *ndigits) {
  size_t n = 0;
  int v = 0;
  while (*i + n < len && n < max && is_digit(s[*i + n])) {
    v = v * 10 + (s[*i + n] - '0');
    n++;
  }
  if (n < min)
    return false;
  *i += n;
  *out = v;
  if (ndigits != NULL)
    *ndigits = n;
  return true;
}

static bool is_leap(int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int days_in_month(int64_t y, int m) {
  static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && is_leap(y) ? 29 : days[m - 1];
}

/*
 * Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar.  The
 * year is counted from March, so that the leap day is the last day of a
 * year, and split into 400-year cycles of 146097 days.
 */
static int64_t days_since_epoch(int64_t y, int m, int d) {
  if (m <= 2)
    y -= 1;
  int64_t cycle = (y >= 0 ? y : y - 399) / 400;
  int64_t year_of_cycle = y - cycle * 400;          /* 0..399 */
  int64_t month_from_march = m > 2 ? m - 3 : m + 9; /* 0..11 */
  int64_t day_of_year = (153 * month_from_march + 2) / 5 + d - 1;
  int64_t day_of_cycle = year_of_cycle * 365 + year_of_cycle / 4 -
                         year_of_cycle / 100 + day_of_year;
  /* 719468 days lie between 0000-03-01 and 1970-01-01. */
  return cycle * 146097 + day_of_cycle - 719468;
}

int scalar_parse_timestamp(const char *s, size_t len, __int128 *ns, char *why,
                           size_t why_size) {
  size_t i = 0, nm, nd;
  int year, month, day, hour = 0, minute = 0, second = 0;
  int64_t frac_ns = 0, offset_s = 0;
  if (!read_number(s, len, &i, 4, 4, &year, NULL) || i == len ||
      s[i++] != '-' || !read_number(s, len, &i, 1, 2, &month, &nm) ||
      i == len || s[i++] != '-' || !read_number(s, len, &i, 1, 2, &day, &nd))
    return SCALAR_NO_MATCH;
  if (i == len) {
    /* A date alone must be written in full: YYYY-MM-DD. */
    if (nm != 2 || nd != 2)
      return SCALAR_NO_MATCH;
  } else {
    if (s[i] == 'T' || s[i] == 't') {
      i++;
    } else if (s[i] == ' ' || s[i] == '\t') {
      while (i < len && (s[i] == ' ' || s[i] == '\t'))
        i++;
    } else {
      return SCALAR_NO_MATCH;
    }
    if (!read_number(s, len, &i, 1, 2, &hour, NULL) || i == len ||
        s[i++] != ':' || !read_number(s, len, &i, 2, 2, &minute, NULL) ||
        i == len || s[i++] != ':' ||
        !read_number(s, len, &i, 2, 2, &second, NULL))
      return SCALAR_NO_MATCH;
    if (i < len && s[i] == '.') {
      i++;
      /* Nanoseconds are all argdata keeps; further digits are dropped. */
      size_t n = 0;
      while (i < len && is_digit(s[i])) {
        if (n < 9) {
          frac_ns = frac_ns * 10 + (s[i] - '0');
          n++;
        }
        i++;
      }
      for (; n < 9; n++)
        frac_ns *= 10;
    }
    size_t before_zone = i;
    while (i < len && (s[i] == ' ' || s[i] == '\t'))
      i++;
    if (i < len && s[i] == 'Z') {
      i++;
    } else if (i < len && (s[i] == '+' || s[i] == '-')) {
      int sign = s[i++] == '-' ? -1 : 1, oh, om = 0;
      if (!read_number(s, len, &i, 1, 2, &oh, NULL))
        return SCALAR_NO_MATCH;
      if (i < len && s[i] == ':') {
        i++;
        if (!read_number(s, len, &i, 2, 2, &om, NULL))
          return SCALAR_NO_MATCH;
      }
      if (oh > 23 || om > 59) {
        why_set(why, why_size, "time zone offset out of range");
        return SCALAR_BAD;
      }
      offset_s = sign * (oh * 3600 + om * 60);
    } else {
      /* Blanks are allowed only before a time zone. */
      i = before_zone;
    }
    if (i != len)
      return SCALAR_NO_MATCH;
  }
  if (month < 1 || month > 12) {
    why_set(why, why_size, "month %d out of range", month);
    return SCALAR_BAD;
  }
  if (day < 1 || day > days_in_month(year, month)) {
    why_set(why, why_size, "day %d out of range for %04d-%02d", day, year,
            month);
    return SCALAR_BAD;
  }
  if (hour > 23 || minute > 59 || second > 60) {
    /* Second 60 is a leap second; it counts as the next minute's 0. */
    why_set(why, why_size, "time of day out of range");
    return SCALAR_BAD;
  }
  __int128 secs = (__int128)days_since_epoch(year, month, day) * 86400 +
                  hour * 3600 + minute * 60 + second - offset_s;
  *ns = secs * 1000000000 + frac_ns;
  return SCALAR_OK;
}

int scalar_resolve_plain(const char *s, size_t len, struct scalar_value *out,
                         char *why, size_t why_size) {
  int r;
  if (scalar_is_null(s, len)) {
    out->type = SCALAR_NULL;
    return SCALAR_OK;
  }
  if (scalar_parse_bool(s, len, &out->u.b) == SCALAR_OK) {
    out->type = SCALAR_BOOL;
    return SCALAR_OK;
  }
  if ((r = scalar_parse_int(s, len, &out->u.i, why, why_size)) !=
      SCALAR_NO_MATCH) {
    out->type = SCALAR_INT;
    return r;
  }
  if ((r = scalar_parse_float(s, len, &out->u.f, why, why_size)) !=
      SCALAR_NO_MATCH) {
    out->type = SCALAR_FLOAT;
    return r;
  }
  /* Timestamps are not in the core schema: only !!timestamp makes one. */
  out->type = SCALAR_STR;
  return SCALAR_OK;
}

/* The value of a base64 digit, or -1. */
static int base64_value(unsigned char c) {
  if (c >= 'A' && c <= 'Z')
    return c - 'A';
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 26;
  if (c >= '0' && c <= '9')
    return c - '0' + 52;
  if (c == '+')
    return 62;
  if (c == '/')
    return 63;
  return -1;
}

static bool is_blank(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int scalar_decode_base64(const char *s, size_t len, uint8_t **out,
                         size_t *out_len, char *why, size_t why_size) {
  /* First pass: check every character and find the length. */
  size_t ndigits = 0, npad = 0;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (is_blank(c))
      continue;
    if (c == '=') {
      npad++;
      continue;
    }
    if (base64_value(c) < 0) {
      if (c > ' ' && c < 0x7f)
        why_set(why, why_size, "invalid character '%c' at offset %zu", c, i);
      else
        why_set(why, why_size, "invalid byte 0x%02x at offset %zu", c, i);
      return SCALAR_BAD;
    }
    if (npad > 0) {
      why_set(why, why_size, "data after padding at offset %zu", i);
      return SCALAR_BAD;
    }
    ndigits++;
  }
  if ((ndigits + npad) % 4 != 0) {
    why_set(why, why_size, "%zu characters, not a multiple of 4",
            ndigits + npad);
    return SCALAR_BAD;
  }
  if (npad > 2 || (npad > 0 && ndigits % 4 + npad != 4)) {
    why_set(why, why_size, "too much padding");
    return SCALAR_BAD;
  }
  size_t n = ndigits / 4 * 3 + (ndigits % 4 == 0 ? 0 : ndigits % 4 - 1);
  uint8_t *buf = malloc(n > 0 ? n : 1);
  if (buf == NULL)
    return SCALAR_NOMEM;
  /* Second pass: decode, 6 bits at a time. */
  uint32_t acc = 0;
  unsigned bits = 0;
  size_t o = 0;
  for (size_t i = 0; i < len; i++) {
    int v = base64_value((unsigned char)s[i]);
    if (v < 0)
      continue;
    acc = (acc << 6 | (uint32_t)v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      buf[o++] = (uint8_t)(acc >> bits);
    }
  }
  *out = buf;
  *out_len = o;
  return SCALAR_OK;
}
