/*
 * A small JSON reader for the OCI bundle's config.json and our own state
 * files: the whole text becomes a tree (RFC 8259; nesting at most
 * JSON_MAX_DEPTH).  Writing uses config's json_string.
 */
#ifndef OCI_JSON_H
#define OCI_JSON_H

#include <stdbool.h>
#include <stddef.h>

#define JSON_MAX_DEPTH 64

enum json_type {
  JSON_NULL,
  JSON_BOOL,
  JSON_NUMBER,
  JSON_STRING,
  JSON_ARRAY,
  JSON_OBJECT,
};

struct json {
  enum json_type type;
  bool boolean;
  double number;
  char *string; /* JSON_STRING: UTF-8, NUL-terminated (an embedded NUL is
                   refused: nothing here wants one) */
  /* JSON_ARRAY and JSON_OBJECT: n items; objects also have keys. */
  struct json *items;
  char **keys;
  size_t n;
};

/* Parses text; NULL with why filled in on a syntax error. */
struct json *json_parse(const char *text, size_t len, char *why,
                        size_t why_size);
void json_free(struct json *j);

/* obj's member key, or NULL (also when obj is not an object or NULL). */
const struct json *json_get(const struct json *obj, const char *key);
/* The string at key, or NULL if absent or not a string. */
const char *json_get_str(const struct json *obj, const char *key);

#endif
