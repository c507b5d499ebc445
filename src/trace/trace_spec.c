/* What --trace=SPEC selects; see trace.h. */
#include <stdio.h>
#include <string.h>

#include "calls/syscall_table.h"
#include "trace.h"

void trace_options_init(struct trace_options *o) {
  memset(o, 0, sizeof(*o));
  o->format = TRACE_TEXT;
  o->strsize = TRACE_STRSIZE_DEFAULT;
}

/* A call's family: its name up to the first `_` (all of "poll"). */
static size_t family_len(const char *name) {
  const char *u = strchr(name, '_');
  return u != NULL ? (size_t)(u - name) : strlen(name);
}

/* The calls an item names: one call, or a family; 0 for none. */
static uint64_t calls_named(const char *item, size_t len) {
  uint64_t mask = 0;
  for (unsigned i = 0; i < CLOUDABI_SYSCALL_COUNT; i++) {
    const char *name = syscall_table[i].name;
    bool exact = strlen(name) == len && memcmp(name, item, len) == 0;
    bool family = family_len(name) == len && memcmp(name, item, len) == 0;
    if (exact || family)
      mask |= UINT64_C(1) << i;
  }
  return mask;
}

_Static_assert(CLOUDABI_SYSCALL_COUNT <= 64, "the selection is a 64-bit mask");
#define ALL_CALLS ((UINT64_C(1) << (CLOUDABI_SYSCALL_COUNT - 1) << 1) - 1)

static bool is(const char *item, size_t len, const char *word) {
  return strlen(word) == len && memcmp(item, word, len) == 0;
}

bool trace_spec_parse(const char *spec, struct trace_options *o, char *why,
                      size_t why_size) {
  o->enabled = true;
  if (spec == NULL)
    return true;
  if (*spec == '\0') {
    snprintf(why, why_size,
             "--trace=: nothing named (write --trace for "
             "every call)");
    return false;
  }
  for (const char *p = spec;;) {
    const char *end = strchr(p, ',');
    size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
    if (len == 0) {
      snprintf(why, why_size, "--trace=%s: empty item in the list", spec);
      return false;
    }
    uint64_t calls;
    if (memchr(p, '/', len) != NULL) {
      if (o->output != NULL) {
        snprintf(why, why_size, "--trace: more than one output file");
        return false;
      }
      o->output = p;
      o->output_len = len;
    } else if (is(p, len, "all")) {
      o->select = ALL_CALLS;
      o->selected_some = true;
    } else if (is(p, len, "local")) {
      o->local = true;
    } else if ((calls = calls_named(p, len)) != 0) {
      o->select |= calls;
      o->selected_some = true;
    } else {
      snprintf(why, why_size,
               "--trace: unknown system call or family \"%.*s\" (a file "
               "name needs a \"/\", as in ./%.*s)",
               (int)len, p, (int)len, p);
      return false;
    }
    if (end == NULL)
      return true;
    p = end + 1;
  }
}

void trace_options_finish(struct trace_options *o) {
  if (!o->selected_some)
    o->select = ALL_CALLS;
}
