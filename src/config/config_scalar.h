/*
 * Scalar resolution: what a YAML scalar's text means.  Pure functions over
 * (text, length); the text need not be NUL-terminated and may hold NULs
 * (which then match nothing but a string).
 *
 * Untagged plain scalars resolve as upstream cloudabi-run's last release
 * does (yaml2argdata: the YAML 1.2 core schema), tried in this order:
 *   null       ~ null Null NULL and the empty scalar
 *   bool       true True TRUE false False FALSE
 *   int        [-+]?[0-9]+ | 0o[0-7]+ | 0x[0-9a-fA-F]+, in -2^63 .. 2^64-1
 *   float      [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?,
 *              [-+]?\.(inf|Inf|INF), \.(nan|NaN|NAN)
 *   string     anything else (yes, on, y, 2001-01-01 included)
 * !!timestamp takes YYYY-MM-DD, or YYYY-M-D(T|t|[ \t]+)h:mm:ss[.frac]
 * [[ \t]*(Z|[-+]h[:mm])], as YAML 1.1's timestamp type.
 * A scalar that matches the pattern of a type but cannot be converted
 * (an integer beyond 64 bits, 1e999, February 30) is an error, not a string.
 */
#ifndef CONFIG_SCALAR_H
#define CONFIG_SCALAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the conversions return. */
enum scalar_result {
  SCALAR_NOMEM = -2,
  SCALAR_BAD = -1,     /* the text has the type's form but no valid value */
  SCALAR_NO_MATCH = 0, /* the text is not of this type */
  SCALAR_OK = 1,
};

enum scalar_type {
  SCALAR_NULL,
  SCALAR_BOOL,
  SCALAR_INT,
  SCALAR_FLOAT,
  SCALAR_TIMESTAMP,
  SCALAR_STR,
};

struct scalar_value {
  enum scalar_type type;
  union {
    bool b;
    __int128 i; /* SCALAR_INT, and SCALAR_TIMESTAMP in ns since 1970 UTC */
    double f;
  } u;
};

bool scalar_is_null(const char *s, size_t len);
int scalar_parse_bool(const char *s, size_t len, bool *out);
/* On SCALAR_BAD these write a reason ("out of range") into why;
 * scalar_parse_float can also give SCALAR_NOMEM. */
int scalar_parse_int(const char *s, size_t len, __int128 *out, char *why,
                     size_t why_size);
int scalar_parse_float(const char *s, size_t len, double *out, char *why,
                       size_t why_size);
/* Fractions beyond nanoseconds are truncated. */
int scalar_parse_timestamp(const char *s, size_t len, __int128 *ns, char *why,
                           size_t why_size);

/* Resolves an untagged plain scalar, per the table above. */
int scalar_resolve_plain(const char *s, size_t len, struct scalar_value *out,
                         char *why, size_t why_size);

/*
 * Decodes base64 (RFC 4648 alphabet, padding required, whitespace
 * ignored) into a malloc'ed buffer.  Returns SCALAR_OK, SCALAR_BAD with a
 * reason, or SCALAR_NOMEM.
 */
int scalar_decode_base64(const char *s, size_t len, uint8_t **out,
                         size_t *out_len, char *why, size_t why_size);

#endif
