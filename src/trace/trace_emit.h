/*
 * One trace line under construction, as text or as JSON: the decoder says
 * what a value is (a number, a name, bytes, a group of values) and this
 * spells it in the chosen format, so both formats carry the same content.
 *
 * Groups: TE_ARGS is a call's argument list ("(a, b)" in text, an object
 * keyed by the ABI's argument names in JSON); TE_STRUCT a struct whose
 * field names show in text too ("{rights=FD_READ, ...}"); TE_TUPLE a small
 * struct shown positionally in text ("{\"data\", 5}", an iovec); TE_LIST
 * a list ("[a, b]").  Keys are ignored inside lists.
 */
#ifndef TRACE_EMIT_H
#define TRACE_EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum te_group { TE_ARGS, TE_STRUCT, TE_TUPLE, TE_LIST, TE_OBJECT };

#define TE_DEPTH 8

struct temit {
  char *buf; /* NUL-terminated; owned */
  size_t len, cap;
  bool json;
  bool oom; /* an allocation failed: the line is incomplete */
  unsigned depth;
  struct {
    enum te_group group;
    bool first;
  } stack[TE_DEPTH];
};

void te_init(struct temit *e);
void te_free(struct temit *e);
/* Empties the line and chooses its format. */
void te_reset(struct temit *e, bool json);

/* Raw text, as is. */
void te_raw(struct temit *e, const char *s);
void te_printf(struct temit *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Values: each starts a new item of the current group (a separator, and
 * the key where the format shows it). */
void te_open(struct temit *e, const char *key, enum te_group g);
void te_close(struct temit *e);
/* Closes a list (opened with key) of which only the first items were
 * shown when `more`: "..." as a last item in text, a sibling
 * KEY_truncated: true in JSON. */
void te_close_list(struct temit *e, const char *key, bool more);
void te_uint(struct temit *e, const char *key, uint64_t v);
void te_int(struct temit *e, const char *key, int64_t v);
void te_hex(struct temit *e, const char *key, uint64_t v); /* 0x1f, 0x0 */
/* A name or a flag set ("O_CREAT|O_EXCL"): bare in text, a JSON string. */
void te_sym(struct temit *e, const char *key, const char *name);
void te_bool(struct temit *e, const char *key, bool v);
/* JSON's null; "?" in text. */
void te_null(struct temit *e, const char *key);
/* Seconds with microseconds, from nanoseconds. */
void te_seconds(struct temit *e, const char *key, uint64_t ns);
/*
 * Bytes from the guest: a quoted, escaped string; text escapes like C
 * (\n, \", \x7f), JSON maps each byte to the code point of the same value
 * (\u00ff).  A string cut short shows "..." after it in text, and a
 * sibling KEY_truncated: true in JSON.
 */
void te_bytes(struct temit *e, const char *key, const void *data, size_t n,
              bool truncated);

#endif
