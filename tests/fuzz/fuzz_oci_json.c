/*
 * libFuzzer target for cloudabi-oci's JSON reader (src/oci/json.c), which
 * reads a bundle's config.json and the runtime's own state files.  What
 * must hold, besides no crash, leak or read outside the buffer: a parsed
 * tree is consistent (objects have a key per item, strings are
 * NUL-terminated without an embedded NUL), and a text that parses parses
 * again the same way with spaces around it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oci/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "fuzz_oci_json: check failed: %s\n", #cond);             \
      abort();                                                                 \
    }                                                                          \
  } while (0)

/* Counts the nodes, checking each. */
static size_t walk(const struct json *j, int depth) {
  CHECK(depth <= JSON_MAX_DEPTH + 1);
  size_t n = 1;
  switch (j->type) {
  case JSON_STRING:
    CHECK(j->string != NULL);
    break;
  case JSON_OBJECT:
    for (size_t i = 0; i < j->n; i++) {
      CHECK(j->keys != NULL && j->keys[i] != NULL);
      CHECK(json_get(j, j->keys[i]) != NULL);
    }
    /* fall through */
  case JSON_ARRAY:
    for (size_t i = 0; i < j->n; i++)
      n += walk(&j->items[i], depth + 1);
    break;
  default:
    CHECK(j->n == 0);
    break;
  }
  return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char why[128];
  struct json *j = json_parse((const char *)data, size, why, sizeof(why));
  if (j == NULL) {
    CHECK(why[0] != '\0');
    return 0;
  }
  size_t nodes = walk(j, 0);
  char *padded = malloc(size + 2);
  CHECK(padded != NULL);
  padded[0] = ' ';
  memcpy(padded + 1, data, size);
  padded[size + 1] = '\n';
  struct json *again = json_parse(padded, size + 2, why, sizeof(why));
  CHECK(again != NULL && walk(again, 0) == nodes);
  json_free(again);
  free(padded);
  json_free(j);
  return 0;
}
