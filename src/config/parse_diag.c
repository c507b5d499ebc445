/*
 * The config parser's diagnostics: positions from libyaml marks and from
 * reader offsets, errors collected out of order and sorted into document
 * order, fatal ones that stop the parse, and syntax errors.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <yaml.h>

#include "parser.h"

struct cfg_pos cfgp_mark_pos(yaml_mark_t m) {
  struct cfg_pos pos = {(uint32_t)m.line + 1, (uint32_t)m.column + 1};
  return pos;
}

static const struct cfg_pos no_pos = {UINT32_MAX, UINT32_MAX};

/* Records one diagnostic with the position it sorts by. */
static void record(struct parser *p, struct cfg_pos pos, const char *msg) {
  size_t before = p->found.count;
  if (pos.line == UINT32_MAX)
    cfg_diag_nopos(&p->found, p->name, "%s", msg);
  else
    cfg_diag(&p->found, p->name, pos, "%s", msg);
  if (p->found.count == before || p->sort_failed)
    return;
  struct cfg_pos *more =
      realloc(p->found_pos, p->found.count * sizeof(*p->found_pos));
  if (more == NULL) {
    /* Without positions the lines keep the order they were found in. */
    free(p->found_pos);
    p->found_pos = NULL;
    p->sort_failed = true;
    return;
  }
  p->found_pos = more;
  p->found_pos[p->found.count - 1] = pos;
}

static bool pos_before(struct cfg_pos a, struct cfg_pos b) {
  return a.line < b.line || (a.line == b.line && a.column < b.column);
}

/* Hands the diagnostics to the caller in document order; at one position
 * in the order they were found, and those without a position last. */
void cfgp_flush_diagnostics(struct parser *p) {
  size_t n = p->found.count;
  /* Insertion sort, which is stable; there are at most a few dozen. */
  for (size_t i = 1; i < n && p->found_pos != NULL; i++) {
    struct cfg_pos pos = p->found_pos[i];
    char *line = p->found.lines[i];
    size_t j = i;
    for (; j > 0 && pos_before(pos, p->found_pos[j - 1]); j--) {
      p->found_pos[j] = p->found_pos[j - 1];
      p->found.lines[j] = p->found.lines[j - 1];
    }
    p->found_pos[j] = pos;
    p->found.lines[j] = line;
  }
  for (size_t i = 0; i < n; i++)
    cfg_diag_take(p->diags, p->found.lines[i]);
  p->diags->out_of_memory |= p->found.out_of_memory;
  free(p->found.lines);
  free(p->found_pos);
}

/* The cfg_report callbacks. */
void cfgp_report_error(struct cfg_report *rep, struct cfg_pos pos,
                       const char *msg) {
  struct parser *p = (struct parser *)rep;
  if (p->fatal)
    return;
  record(p, pos, msg);
  if (rep->errors == CONFIG_MAX_ERRORS) {
    record(p, no_pos, "too many errors; stopping");
    p->fatal = true;
  }
}

void cfgp_report_nomem(struct cfg_report *rep) {
  struct parser *p = (struct parser *)rep;
  if (p->fatal)
    return;
  record(p, no_pos, "out of memory");
  p->fatal = true;
}

void cfgp_error(struct parser *p, struct cfg_pos pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void cfgp_error(struct parser *p, struct cfg_pos pos, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  cfg_report_error(&p->report, pos, "%s", msg);
}

/* An error after which nothing more is parsed. */
void cfgp_fatal(struct parser *p, struct cfg_pos pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void cfgp_fatal(struct parser *p, struct cfg_pos pos, const char *fmt, ...) {
  if (p->fatal)
    return;
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  record(p, pos, msg);
  p->report.errors++;
  p->fatal = true;
}

void cfgp_out_of_memory(struct parser *p) {
  cfg_report_nomem(&p->report);
}

/* Where byte `offset` of the input is: libyaml gives no mark for bytes
 * it could not decode. */
static struct cfg_pos offset_pos(const struct parser *p, size_t offset) {
  struct cfg_pos pos = {1, 1};
  for (size_t i = 0; i < offset && i < p->text_len; i++) {
    if (p->text[i] == '\n') {
      pos.line++;
      pos.column = 1;
    } else if ((p->text[i] & 0xc0) != 0x80) {
      pos.column++; /* count characters, not UTF-8 continuation bytes */
    }
  }
  return pos;
}

static void syntax_error(struct parser *p) {
  const yaml_parser_t *y = &p->yaml;
  switch (y->error) {
  case YAML_MEMORY_ERROR:
    cfgp_out_of_memory(p);
    break;
  case YAML_READER_ERROR:
    if (y->problem_value != -1)
      cfgp_fatal(p, offset_pos(p, y->problem_offset), "cannot read: %s (0x%X)",
                 y->problem, (unsigned)y->problem_value);
    else
      cfgp_fatal(p, offset_pos(p, y->problem_offset), "cannot read: %s",
                 y->problem);
    break;
  default: {
    const char *problem = y->problem != NULL ? y->problem : "unknown";
    if (y->context != NULL)
      cfgp_fatal(p, cfgp_mark_pos(y->problem_mark),
                 "syntax error: %s (%s at %zu:%zu)", problem, y->context,
                 y->context_mark.line + 1, y->context_mark.column + 1);
    else
      cfgp_fatal(p, cfgp_mark_pos(y->problem_mark), "syntax error: %s",
                 problem);
    break;
  }
  }
}

bool cfgp_next_event(struct parser *p, yaml_event_t *ev) {
  if (p->fatal)
    return false;
  if (!yaml_parser_parse(&p->yaml, ev)) {
    syntax_error(p);
    return false;
  }
  return true;
}