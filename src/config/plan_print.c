/*
 * The plan as text or JSON: what a reviewer or a cluster manager reads to
 * know everything a program can touch.  Each descriptor: its number, its
 * CloudABI type and rights, the resource behind it, and every place in
 * the config that names it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "config_plan.h"
#include "host/rights_names.h"

static const char *mode_name(enum cfg_file_mode mode) {
  return mode == CFG_MODE_RW ? "rw" : mode == CFG_MODE_WO ? "wo" : "ro";
}

static const char *socktype_name(const struct cfg_resource *r) {
  return r->socktype == SOCK_DGRAM ? "dgram" : "stream";
}

/* Length of the valid UTF-8 sequence at s, or 0. */
static size_t utf8_len(const unsigned char *s, size_t left) {
  size_t n;
  uint32_t cp, min;
  if (s[0] < 0x80)
    return 1;
  if ((s[0] & 0xe0) == 0xc0)
    n = 2, cp = s[0] & 0x1f, min = 0x80;
  else if ((s[0] & 0xf0) == 0xe0)
    n = 3, cp = s[0] & 0x0f, min = 0x800;
  else if ((s[0] & 0xf8) == 0xf0)
    n = 4, cp = s[0] & 0x07, min = 0x10000;
  else
    return 0;
  if (n > left)
    return 0;
  for (size_t i = 1; i < n; i++) {
    if ((s[i] & 0xc0) != 0x80)
      return 0;
    cp = cp << 6 | (s[i] & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  return n;
}

/* A JSON string; bytes that are not UTF-8 (file names from the command
 * line can be anything) become U+FFFD so the output always parses. */
void json_string(FILE *out, const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  size_t left = strlen(s);
  fputc('"', out);
  while (left > 0) {
    size_t n = utf8_len(p, left);
    if (n == 0) {
      fputs("\\ufffd", out);
      n = 1;
    } else if (*p == '"' || *p == '\\') {
      fprintf(out, "\\%c", *p);
    } else if (*p == '\n') {
      fputs("\\n", out);
    } else if (*p < 0x20 || *p == 0x7f) {
      fprintf(out, "\\u%04x", *p);
    } else {
      fwrite(p, 1, n, out);
    }
    p += n;
    left -= n;
  }
  fputc('"', out);
}

/* Quoted for the text form: one line whatever the name holds. */
static const char *text_quote(const char *s, char *buf, size_t size) {
  return cfg_quote(buf, size, s, strlen(s));
}

/* The config's name as diagnostics print it, unless it holds bytes that
 * would break the line. */
static const char *text_name(const char *s, char *buf, size_t size) {
  for (const char *c = s; *c != '\0'; c++)
    if ((unsigned char)*c < 0x20 || *c == 0x7f)
      return text_quote(s, buf, size);
  return s;
}

/* A flag as given, unless it holds bytes that would break the line. */
static const char *text_quote_flag(const char *s, char *buf, size_t size) {
  return text_name(s, buf, size);
}

static void text_rights(FILE *out, const char *label, cloudabi_rights_t set) {
  fprintf(out, "  %s (0x%016" PRIx64 "):", label, (uint64_t)set);
  if (set == 0)
    fputs(" none", out);
  cloudabi_rights_t bit;
  const char *name;
  for (size_t i = 0; rights_at(i, &bit, &name); i++)
    if ((set & bit) != 0)
      fprintf(out, " %s", name);
  fputc('\n', out);
}

static void text_source(FILE *out, const struct cfg_resource *r) {
  char q[512];
  switch (r->kind) {
  case CFG_RES_FD:
    if (r->fd_name != NULL)
      fprintf(out, "!fd %s (host descriptor %d)", r->fd_name, r->host_fd);
    else
      fprintf(out, "!fd %d (host descriptor %d)", r->host_fd, r->host_fd);
    break;
  case CFG_RES_FILE:
    fprintf(out, "!file %s (mode %s%s%s%s%s)",
            text_quote(r->path, q, sizeof(q)), mode_name(r->mode),
            r->mode_set ? "" : " by default", r->create ? ", create" : "",
            r->directory ? ", directory" : "", r->follow ? ", follow" : "");
    break;
  case CFG_RES_EXECUTABLE:
    fputs("!executable (the program itself)", out);
    break;
  case CFG_RES_SOCKET:
    fprintf(out, "!socket %s, %s %s%s", socktype_name(r),
            r->connect ? "connect to" : "bind to",
            text_quote(r->path, q, sizeof(q)),
            r->accept ? ", connections accepted by cloudabi-run" : "");
    break;
  }
  if (r->narrow_base || r->narrow_inheriting)
    fputs(", rights narrowed by the config", out);
}

static void print_text(const struct config_plan *plan,
                       const struct launch_config *lc,
                       const struct plan_extra *extra, FILE *out) {
  char q[512];
  const char *name = text_name(plan->name, q, sizeof(q));
  fprintf(out, "%s: %zu descriptor%s, %zu bytes of argument data\n", name,
          plan->ndescs, plan->ndescs == 1 ? "" : "s", plan->argdata_len);
  for (size_t i = 0; i < plan->ndescs; i++) {
    const struct cfg_desc *d = &plan->descs[i];
    const struct fd_rights *rights = &lc->fds[i].rights;
    fprintf(out, "fd %zu: %s from ", i, filetype_name(rights->type));
    text_source(out, d->res);
    fputc('\n', out);
    if (lc->fds[i].resolved != NULL)
      fprintf(out, "  resolves to %s\n",
              text_quote(lc->fds[i].resolved, q, sizeof(q)));
    for (size_t j = 0; j < d->nrefs; j++) {
      if (d->refs[j].pos.flag != NULL)
        fprintf(out, "  at %s (%s)\n", d->refs[j].path,
                text_quote_flag(d->refs[j].pos.flag, q, sizeof(q)));
      else
        fprintf(out, "  at %s (%s:%u:%u)\n", d->refs[j].path, name,
                d->refs[j].pos.line, d->refs[j].pos.column);
    }
    text_rights(out, "rights", rights->base);
    text_rights(out, "inheriting", rights->inheriting);
  }
  if (extra != NULL && extra->supervisor_text != NULL)
    fprintf(out, "supervisor: %s\n", extra->supervisor_text);
}

static void json_rights(FILE *out, const char *label, cloudabi_rights_t set) {
  fprintf(out, "      \"%s_mask\": \"0x%016" PRIx64 "\",\n", label,
          (uint64_t)set);
  fprintf(out, "      \"%s\": [", label);
  cloudabi_rights_t bit;
  const char *name;
  bool first = true;
  for (size_t i = 0; rights_at(i, &bit, &name); i++) {
    if ((set & bit) != 0) {
      fprintf(out, "%s\"%s\"", first ? "" : ", ", name);
      first = false;
    }
  }
  fputs("]", out);
}

static void json_source(FILE *out, const struct cfg_resource *r,
                        const char *resolved) {
  fputs("      \"source\": {", out);
  switch (r->kind) {
  case CFG_RES_FD:
    fprintf(out, "\"tag\": \"fd\", \"host_fd\": %d", r->host_fd);
    if (r->fd_name != NULL)
      fprintf(out, ", \"name\": \"%s\"", r->fd_name);
    break;
  case CFG_RES_FILE:
    fputs("\"tag\": \"file\", \"path\": ", out);
    json_string(out, r->path);
    fprintf(out,
            ", \"mode\": \"%s\", \"mode_set\": %s, \"create\": %s, "
            "\"directory\": %s, \"follow\": %s, \"resolved\": ",
            mode_name(r->mode), r->mode_set ? "true" : "false",
            r->create ? "true" : "false", r->directory ? "true" : "false",
            r->follow ? "true" : "false");
    if (resolved != NULL)
      json_string(out, resolved);
    else
      fputs("null", out);
    break;
  case CFG_RES_EXECUTABLE:
    fputs("\"tag\": \"executable\"", out);
    break;
  case CFG_RES_SOCKET:
    fprintf(out,
            "\"tag\": \"socket\", \"type\": \"%s\", \"%s\": ", socktype_name(r),
            r->connect ? "connect" : "bind");
    json_string(out, r->path);
    fprintf(out, ", \"accept\": %s", r->accept ? "true" : "false");
    break;
  }
  fprintf(out, ", \"narrowed\": %s},\n",
          r->narrow_base || r->narrow_inheriting ? "true" : "false");
}

static void print_json(const struct config_plan *plan,
                       const struct launch_config *lc,
                       const struct plan_extra *extra, FILE *out) {
  fputs("{\n  \"config\": ", out);
  json_string(out, plan->name);
  if (extra != NULL && extra->supervisor_json != NULL)
    fprintf(out, ",\n  \"supervisor\": %s", extra->supervisor_json);
  fprintf(out, ",\n  \"argdata_length\": %zu,\n  \"descriptors\": [",
          plan->argdata_len);
  for (size_t i = 0; i < plan->ndescs; i++) {
    const struct cfg_desc *d = &plan->descs[i];
    const struct fd_rights *rights = &lc->fds[i].rights;
    fprintf(out, "%s\n    {\n      \"fd\": %zu,\n      \"type\": \"%s\",\n",
            i > 0 ? "," : "", i, filetype_name(rights->type));
    json_source(out, d->res, lc->fds[i].resolved);
    json_rights(out, "rights_base", rights->base);
    fputs(",\n", out);
    json_rights(out, "rights_inheriting", rights->inheriting);
    fputs(",\n      \"references\": [", out);
    for (size_t j = 0; j < d->nrefs; j++) {
      fprintf(out, "%s\n        {\"path\": ", j > 0 ? "," : "");
      json_string(out, d->refs[j].path);
      if (d->refs[j].pos.flag != NULL) {
        fputs(", \"flag\": ", out);
        json_string(out, d->refs[j].pos.flag);
        fputs("}", out);
      } else {
        fprintf(out, ", \"line\": %u, \"column\": %u}", d->refs[j].pos.line,
                d->refs[j].pos.column);
      }
    }
    fputs("\n      ]\n    }", out);
  }
  fputs(plan->ndescs > 0 ? "\n  ]\n}\n" : "]\n}\n", out);
}

int plan_print(const struct config_plan *plan, const struct launch_config *lc,
               enum plan_format format, const struct plan_extra *extra,
               FILE *out) {
  if (lc->nfds != plan->ndescs) {
    errno = EINVAL;
    return -1;
  }
  if (format == PLAN_JSON)
    print_json(plan, lc, extra, out);
  else
    print_text(plan, lc, extra, out);
  return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}
