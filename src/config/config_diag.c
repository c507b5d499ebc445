/*
 * Diagnostics of the config front end: a growing list of one-line
 * messages.  Running out of memory while reporting must not lose the fact
 * that there was an error, so a failed append sets a flag that is printed
 * instead.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_plan.h"

void cfg_diag_take(struct config_diags *d, char *line) {
  if (line == NULL) {
    d->out_of_memory = true;
    return;
  }
  if (d->count == d->cap) {
    size_t cap = d->cap == 0 ? 8 : d->cap * 2;
    char **lines = realloc(d->lines, cap * sizeof(*lines));
    if (lines == NULL) {
      free(line);
      d->out_of_memory = true;
      return;
    }
    d->lines = lines;
    d->cap = cap;
  }
  d->lines[d->count++] = line;
}

static void vdiag(struct config_diags *d, const char *prefix_fmt,
                  const char *name, const struct cfg_pos *pos, const char *fmt,
                  va_list ap) {
  char msg[1024];
  vsnprintf(msg, sizeof(msg), fmt, ap);
  char *line = NULL;
  int r;
  if (pos != NULL && pos->flag != NULL)
    r = asprintf(&line, "cloudabi-run: %s: %s", pos->flag, msg);
  else if (pos != NULL)
    r = asprintf(&line, prefix_fmt, name, pos->line, pos->column, msg);
  else
    r = asprintf(&line, prefix_fmt, name, msg);
  cfg_diag_take(d, r < 0 ? NULL : line);
}

void cfg_diag(struct config_diags *d, const char *name, struct cfg_pos pos,
              const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vdiag(d, "%s:%u:%u: %s", name, &pos, fmt, ap);
  va_end(ap);
}

void cfg_diag_nopos(struct config_diags *d, const char *name, const char *fmt,
                    ...) {
  va_list ap;
  va_start(ap, fmt);
  vdiag(d, "%s: %s", name, NULL, fmt, ap);
  va_end(ap);
}

void cfg_report_error(struct cfg_report *rep, struct cfg_pos pos,
                      const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  rep->errors++;
  rep->error(rep, pos, msg);
}

void cfg_report_nomem(struct cfg_report *rep) {
  rep->errors++;
  rep->out_of_memory(rep);
}

void config_diags_print(const struct config_diags *d, FILE *out) {
  for (size_t i = 0; i < d->count; i++)
    fprintf(out, "%s\n", d->lines[i]);
  if (d->out_of_memory)
    fprintf(out, "cloudabi-run: out of memory while reporting errors\n");
}

void config_diags_free(struct config_diags *d) {
  for (size_t i = 0; i < d->count; i++)
    free(d->lines[i]);
  free(d->lines);
  memset(d, 0, sizeof(*d));
}

const char *cfg_quote(char *buf, size_t size, const char *s, size_t len) {
  /* Room for the closing quote, "..." and the NUL. */
  if (size < 8) {
    if (size > 0)
      buf[0] = '\0';
    return buf;
  }
  size_t o = 0, end = size - 5;
  buf[o++] = '"';
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    char esc[5];
    if (c == '"' || c == '\\')
      snprintf(esc, sizeof(esc), "\\%c", c);
    else if (c == '\n')
      snprintf(esc, sizeof(esc), "\\n");
    else if (c == '\t')
      snprintf(esc, sizeof(esc), "\\t");
    else if (c < 0x20 || c == 0x7f)
      snprintf(esc, sizeof(esc), "\\x%02x", c);
    else
      esc[0] = (char)c, esc[1] = '\0';
    size_t n = strlen(esc);
    if (o + n > end) {
      memcpy(buf + o, "...", 3);
      o += 3;
      break;
    }
    memcpy(buf + o, esc, n);
    o += n;
  }
  buf[o++] = '"';
  buf[o] = '\0';
  return buf;
}
