/* Trace lines as text or JSON; see trace_emit.h. */
#include "trace_emit.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void te_init(struct temit *e) {
  memset(e, 0, sizeof(*e));
}

void te_free(struct temit *e) {
  free(e->buf);
  te_init(e);
}

void te_reset(struct temit *e, bool json) {
  e->len = 0;
  if (e->buf != NULL)
    e->buf[0] = '\0';
  e->json = json;
  e->oom = false;
  e->depth = 0;
}

static bool reserve(struct temit *e, size_t more) {
  if (e->oom)
    return false;
  if (e->len + more + 1 <= e->cap)
    return true;
  size_t cap = e->cap < 256 ? 256 : e->cap;
  while (cap < e->len + more + 1)
    cap *= 2;
  char *b = realloc(e->buf, cap);
  if (b == NULL) {
    e->oom = true;
    return false;
  }
  e->buf = b;
  e->cap = cap;
  return true;
}

static void put(struct temit *e, const char *s, size_t n) {
  if (!reserve(e, n))
    return;
  memcpy(e->buf + e->len, s, n);
  e->len += n;
  e->buf[e->len] = '\0';
}

static void putc_(struct temit *e, char c) {
  put(e, &c, 1);
}

void te_raw(struct temit *e, const char *s) {
  put(e, s, strlen(s));
}

void te_printf(struct temit *e, const char *fmt, ...) {
  char small[128];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof(small), fmt, ap);
  va_end(ap);
  if (n < 0)
    return;
  if ((size_t)n < sizeof(small)) {
    put(e, small, (size_t)n);
    return;
  }
  if (!reserve(e, (size_t)n))
    return;
  va_start(ap, fmt);
  vsnprintf(e->buf + e->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  e->len += (size_t)n;
}

static void json_key(struct temit *e, const char *key) {
  putc_(e, '"');
  te_raw(e, key); /* keys are ABI names: no escaping needed */
  te_raw(e, "\":");
}

/* The separator and key before a new item of the current group. */
static void item(struct temit *e, const char *key) {
  if (e->depth == 0)
    return;
  enum te_group g = e->stack[e->depth - 1].group;
  if (!e->stack[e->depth - 1].first)
    te_raw(e, e->json ? "," : ", ");
  e->stack[e->depth - 1].first = false;
  if (key == NULL || g == TE_LIST)
    return;
  if (e->json)
    json_key(e, key);
  else if (g == TE_STRUCT) {
    te_raw(e, key);
    putc_(e, '=');
  }
}

void te_open(struct temit *e, const char *key, enum te_group g) {
  item(e, key);
  static const char text_open[] = {'(', '{', '{', '[', '{'};
  putc_(e, e->json ? (g == TE_LIST ? '[' : '{') : text_open[g]);
  if (e->depth < TE_DEPTH) {
    e->stack[e->depth].group = g;
    e->stack[e->depth].first = true;
  }
  e->depth++;
}

void te_close(struct temit *e) {
  if (e->depth == 0)
    return;
  e->depth--;
  enum te_group g = e->depth < TE_DEPTH ? e->stack[e->depth].group : TE_STRUCT;
  static const char text_close[] = {')', '}', '}', ']', '}'};
  putc_(e, e->json ? (g == TE_LIST ? ']' : '}') : text_close[g]);
}

static void truncated_flag(struct temit *e, const char *key) {
  if (key == NULL || e->depth == 0 || e->stack[e->depth - 1].group == TE_LIST)
    return;
  te_raw(e, ",\"");
  te_raw(e, key);
  te_raw(e, "_truncated\":true");
}

void te_close_list(struct temit *e, const char *key, bool more) {
  if (more && !e->json) {
    item(e, NULL);
    te_raw(e, "...");
  }
  te_close(e);
  if (more && e->json)
    truncated_flag(e, key);
}

void te_uint(struct temit *e, const char *key, uint64_t v) {
  item(e, key);
  te_printf(e, "%" PRIu64, v);
}

void te_int(struct temit *e, const char *key, int64_t v) {
  item(e, key);
  te_printf(e, "%" PRId64, v);
}

void te_hex(struct temit *e, const char *key, uint64_t v) {
  item(e, key);
  te_printf(e, e->json ? "\"0x%" PRIx64 "\"" : "0x%" PRIx64, v);
}

void te_sym(struct temit *e, const char *key, const char *name) {
  item(e, key);
  if (e->json)
    putc_(e, '"');
  te_raw(e, name);
  if (e->json)
    putc_(e, '"');
}

void te_bool(struct temit *e, const char *key, bool v) {
  item(e, key);
  te_raw(e, v ? "true" : "false");
}

void te_null(struct temit *e, const char *key) {
  item(e, key);
  te_raw(e, e->json ? "null" : "?");
}

void te_seconds(struct temit *e, const char *key, uint64_t ns) {
  item(e, key);
  te_printf(e, "%" PRIu64 ".%06" PRIu64, ns / 1000000000u,
            ns % 1000000000u / 1000u);
}

/* One byte of data in a string: the same escapes in both formats, and
 * other bytes as \xHH in text or \u00HH in JSON. */
static void escape_byte(struct temit *e, unsigned char c, bool json) {
  switch (c) {
  case '"':
    te_raw(e, "\\\"");
    return;
  case '\\':
    te_raw(e, "\\\\");
    return;
  case '\n':
    te_raw(e, "\\n");
    return;
  case '\t':
    te_raw(e, "\\t");
    return;
  case '\r':
    te_raw(e, "\\r");
    return;
  default:
    if (c >= 0x20 && c < 0x7f)
      putc_(e, (char)c);
    else
      te_printf(e, json ? "\\u%04x" : "\\x%02x", c);
  }
}

void te_bytes(struct temit *e, const char *key, const void *data, size_t n,
              bool truncated) {
  item(e, key);
  const unsigned char *p = data;
  /* Worst case 6 bytes per byte; reserve once, then append. */
  if (!reserve(e, n * 6 + 8))
    return;
  putc_(e, '"');
  for (size_t i = 0; i < n; i++) {
    if (e->json)
      escape_byte(e, p[i], true);
    else
      escape_byte(e, p[i], false);
  }
  putc_(e, '"');
  if (!truncated)
    return;
  if (e->json)
    truncated_flag(e, key);
  else
    te_raw(e, "...");
}
