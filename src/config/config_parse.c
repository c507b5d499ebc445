/*
 * Phase one of the config: libyaml events -> a typed plan, with no side
 * effects.  A recursive descent over the event stream builds the value
 * tree (config_plan.h); tags become typed values or resource
 * descriptions; every mistake becomes a diagnostic at the position of the
 * node it is about, and parsing goes on where it can, so one run reports
 * every mistake in a config, up to CONFIG_MAX_ERRORS.  Syntax errors stop
 * the parse: libyaml cannot continue past them.
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

#include "config_plan.h"
#include "config_scalar.h"
#include "rights_names.h"

#define CORE_PREFIX "tag:yaml.org,2002:"
#define CLOUDABI_PREFIX "tag:nuxi.nl,2015:cloudabi/"

struct anchor {
  char *name;
  struct cfg_node *node;
};

struct parser {
  struct cfg_report report; /* first: its callbacks find the parser by it */
  yaml_parser_t yaml;
  const char *name;    /* for diagnostics */
  const uint8_t *text; /* the whole input, for reader error positions */
  size_t text_len;
  struct config_diags *diags;
  /* Diagnostics are found out of order (a duplicate key when its map
   * ends, after what is inside it), so they wait here to be sorted. */
  struct config_diags found;
  struct cfg_pos *found_pos;
  bool sort_failed;
  bool fatal; /* stop: syntax error, limit reached, out of memory */
  struct anchor *anchors;
  size_t nanchors, anchors_cap;
};

static struct cfg_pos mark_pos(yaml_mark_t m) {
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
static void flush_diagnostics(struct parser *p) {
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
static void report_error(struct cfg_report *rep, struct cfg_pos pos,
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

static void report_nomem(struct cfg_report *rep) {
  struct parser *p = (struct parser *)rep;
  if (p->fatal)
    return;
  record(p, no_pos, "out of memory");
  p->fatal = true;
}

static void error(struct parser *p, struct cfg_pos pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void error(struct parser *p, struct cfg_pos pos, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  cfg_report_error(&p->report, pos, "%s", msg);
}

/* An error after which nothing more is parsed. */
static void fatal(struct parser *p, struct cfg_pos pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fatal(struct parser *p, struct cfg_pos pos, const char *fmt, ...) {
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

static void out_of_memory(struct parser *p) {
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
    out_of_memory(p);
    break;
  case YAML_READER_ERROR:
    if (y->problem_value != -1)
      fatal(p, offset_pos(p, y->problem_offset), "cannot read: %s (0x%X)",
            y->problem, (unsigned)y->problem_value);
    else
      fatal(p, offset_pos(p, y->problem_offset), "cannot read: %s", y->problem);
    break;
  default: {
    const char *problem = y->problem != NULL ? y->problem : "unknown";
    if (y->context != NULL)
      fatal(p, mark_pos(y->problem_mark), "syntax error: %s (%s at %zu:%zu)",
            problem, y->context, y->context_mark.line + 1,
            y->context_mark.column + 1);
    else
      fatal(p, mark_pos(y->problem_mark), "syntax error: %s", problem);
    break;
  }
  }
}

static bool next_event(struct parser *p, yaml_event_t *ev) {
  if (p->fatal)
    return false;
  if (!yaml_parser_parse(&p->yaml, ev)) {
    syntax_error(p);
    return false;
  }
  return true;
}

/* --- Tags ------------------------------------------------------------ */

enum tag_class {
  TAG_NONE,        /* no tag: resolved by node kind and style */
  TAG_NONSPECIFIC, /* "!": a string, sequence or mapping as written */
  TAG_CORE,        /* !!str, !!int, ...: the name after the prefix */
  TAG_CLOUDABI,    /* !fd, !file, ...: the name after the prefix */
  TAG_OTHER,       /* unknown, or local (!fd without the %TAG directive) */
};

static enum tag_class classify_tag(const char *tag, const char **suffix) {
  *suffix = NULL;
  if (tag == NULL)
    return TAG_NONE;
  if (strcmp(tag, "!") == 0)
    return TAG_NONSPECIFIC;
  if (strncmp(tag, CORE_PREFIX, strlen(CORE_PREFIX)) == 0) {
    *suffix = tag + strlen(CORE_PREFIX);
    return TAG_CORE;
  }
  if (strncmp(tag, CLOUDABI_PREFIX, strlen(CLOUDABI_PREFIX)) == 0) {
    *suffix = tag + strlen(CLOUDABI_PREFIX);
    return TAG_CLOUDABI;
  }
  return TAG_OTHER;
}

/* A tag as a user would write it: !!int, !fd, !local or !<uri>, with
 * control characters (from %-escapes) made harmless. */
static const char *tag_display(const char *tag, char *buf, size_t size) {
  const char *suffix;
  switch (classify_tag(tag, &suffix)) {
  case TAG_CORE:
    snprintf(buf, size, "!!%s", suffix);
    break;
  case TAG_CLOUDABI:
    snprintf(buf, size, "!%s", suffix);
    break;
  default:
    if (tag[0] == '!')
      snprintf(buf, size, "%s", tag);
    else
      snprintf(buf, size, "!<%s>", tag);
    break;
  }
  for (char *c = buf; *c != '\0'; c++)
    if ((unsigned char)*c < 0x20 || *c == 0x7f)
      *c = '?';
  return buf;
}

static bool is_cloudabi_tag_name(const char *s) {
  return strcmp(s, "fd") == 0 || strcmp(s, "file") == 0 ||
         strcmp(s, "executable") == 0 || strcmp(s, "socket") == 0;
}

static void unknown_tag(struct parser *p, struct cfg_pos pos, const char *tag) {
  char shown[256];
  tag_display(tag, shown, sizeof(shown));
  const char *suffix;
  enum tag_class c = classify_tag(tag, &suffix);
  if (c == TAG_CLOUDABI && strcmp(suffix, "flower_switchboard_handle") == 0)
    error(p, pos, "%s is not supported: there is no Flower switchboard here",
          shown);
  else if (c == TAG_OTHER && tag[0] == '!' && is_cloudabi_tag_name(tag + 1))
    /* The most common slip: the tag directive is missing. */
    error(p, pos,
          "unknown tag %s (start the file with "
          "\"%%TAG ! " CLOUDABI_PREFIX "\" and \"---\")",
          shown);
  else
    error(p, pos, "unknown tag %s", shown);
}

/* What kind of node a tag needs, for "expected a mapping" errors; NULL
 * when the tag is unknown. */
static const char *tag_wants(const char *tag) {
  const char *suffix;
  switch (classify_tag(tag, &suffix)) {
  case TAG_CORE:
    if (strcmp(suffix, "map") == 0)
      return "a mapping";
    if (strcmp(suffix, "seq") == 0)
      return "a sequence";
    if (strcmp(suffix, "str") == 0 || strcmp(suffix, "int") == 0 ||
        strcmp(suffix, "float") == 0 || strcmp(suffix, "bool") == 0 ||
        strcmp(suffix, "null") == 0 || strcmp(suffix, "binary") == 0 ||
        strcmp(suffix, "timestamp") == 0)
      return "a scalar";
    return NULL;
  case TAG_CLOUDABI:
    if (strcmp(suffix, "file") == 0 || strcmp(suffix, "socket") == 0)
      return "a mapping";
    if (strcmp(suffix, "fd") == 0 || strcmp(suffix, "executable") == 0)
      return "a scalar";
    return NULL;
  default:
    return NULL;
  }
}

/* A tag on the wrong kind of node: a clear message if the tag is known. */
static void wrong_node_kind(struct parser *p, struct cfg_pos pos,
                            const char *tag, const char *got) {
  const char *wants = tag_wants(tag);
  char shown[256];
  if (wants == NULL)
    unknown_tag(p, pos, tag);
  else
    error(p, pos, "%s: expected %s, not %s",
          tag_display(tag, shown, sizeof(shown)), wants, got);
}

/* --- Nodes ----------------------------------------------------------- */

/* Finishes a new node and checks the limits that keep every later walk
 * bounded.  Returns the node, or NULL (freed) when a limit is exceeded or
 * when n is NULL already (out of memory). */
static struct cfg_node *complete(struct parser *p, struct cfg_node *n) {
  if (n == NULL)
    return NULL;
  cfg_node_finish(n);
  if (n->size > CONFIG_MAX_ARGDATA) {
    fatal(p, n->pos, "the argument data would exceed its limit of %u bytes",
          CONFIG_MAX_ARGDATA);
  } else if (n->fd_refs > CONFIG_MAX_FD_REFS) {
    fatal(p, n->pos, "more than %u descriptor references", CONFIG_MAX_FD_REFS);
  } else if (n->height > CONFIG_MAX_DEPTH) {
    fatal(p, n->pos, "nested more than %u levels deep", CONFIG_MAX_DEPTH);
  } else {
    return n;
  }
  cfg_node_unref(n);
  return NULL;
}

/* A null that stands in for a node with an error, so parsing goes on. */
static struct cfg_node *placeholder(struct parser *p, struct cfg_pos pos) {
  struct cfg_node *n = cfg_node_new(CFG_NULL, pos);
  if (n == NULL) {
    out_of_memory(p);
    return NULL;
  }
  return complete(p, n);
}

static struct cfg_node *new_scalar(struct parser *p, enum cfg_kind kind,
                                   struct cfg_pos pos, const char *text,
                                   size_t len) {
  struct cfg_node *n = cfg_node_new(kind, pos);
  if (n == NULL || cfg_node_set_text(n, text, len) != 0) {
    cfg_node_unref(n);
    out_of_memory(p);
    return NULL;
  }
  return n;
}

static struct cfg_node *new_resource(struct parser *p, enum cfg_res_kind kind,
                                     struct cfg_pos pos,
                                     struct cfg_resource **res) {
  struct cfg_node *n = cfg_node_new(CFG_FD, pos);
  struct cfg_resource *r = calloc(1, sizeof(*r));
  if (n == NULL || r == NULL) {
    cfg_node_unref(n);
    free(r);
    out_of_memory(p);
    return NULL;
  }
  r->kind = kind;
  r->pos = pos;
  r->host_fd = -1;
  n->u.res = r;
  *res = r;
  return n;
}

/* --- Scalars --------------------------------------------------------- */

/* !fd: stdin, stdout, stderr or a descriptor number. */
static struct cfg_node *parse_fd(struct parser *p, struct cfg_pos pos,
                                 const char *s, size_t len) {
  static const char *const names[] = {"stdin", "stdout", "stderr"};
  char q[128];
  int fd = -1;
  const char *name = NULL;
  for (int i = 0; i < 3; i++)
    if (strlen(names[i]) == len && memcmp(names[i], s, len) == 0)
      fd = i, name = names[i];
  if (fd < 0) {
    size_t i = len > 0 && s[0] == '-' ? 1 : 0;
    bool digits = i < len;
    unsigned long long v = 0;
    for (; i < len && digits; i++) {
      if (s[i] < '0' || s[i] > '9')
        digits = false;
      else if (v <= INT_MAX)
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    if (!digits) {
      error(p, pos,
            "!fd: expected stdin, stdout, stderr or a descriptor number, "
            "not %s",
            cfg_quote(q, sizeof(q), s, len));
      return placeholder(p, pos);
    }
    if (s[0] == '-' || v > INT_MAX) {
      error(p, pos, "!fd: descriptor number %s out of range (0 to %d)",
            cfg_quote(q, sizeof(q), s, len), INT_MAX);
      return placeholder(p, pos);
    }
    fd = (int)v;
  }
  struct cfg_resource *r;
  struct cfg_node *n = new_resource(p, CFG_RES_FD, pos, &r);
  if (n == NULL)
    return NULL;
  r->host_fd = fd;
  r->fd_name = name;
  return complete(p, n);
}

/* The error for a scalar whose text has a type's form but no valid value
 * of it. */
static void bad_scalar(struct parser *p, struct cfg_pos pos,
                       enum scalar_type type, const char *s, size_t len,
                       const char *why) {
  char q[128];
  cfg_quote(q, sizeof(q), s, len);
  switch (type) {
  case SCALAR_INT:
    error(p, pos, "integer %s out of range (-2^63 to 2^64-1)", q);
    break;
  case SCALAR_FLOAT:
    error(p, pos, "float %s out of range", q);
    break;
  default:
    error(p, pos, "bad timestamp %s: %s", q, why);
    break;
  }
}

/* A scalar of a type chosen by an explicit core tag (!!int "5"). */
static struct cfg_node *parse_core_scalar(struct parser *p, struct cfg_pos pos,
                                          const char *suffix, const char *tag,
                                          const char *s, size_t len) {
  char why[128], q[128];
  struct cfg_node *n;
  int r;
  if (strcmp(suffix, "str") == 0)
    return complete(p, new_scalar(p, CFG_STR, pos, s, len));
  if (strcmp(suffix, "null") == 0) {
    if (!scalar_is_null(s, len)) {
      error(p, pos, "!!null: %s is not null", cfg_quote(q, sizeof(q), s, len));
      return placeholder(p, pos);
    }
    n = new_scalar(p, CFG_NULL, pos, s, len);
  } else if (strcmp(suffix, "bool") == 0) {
    bool b;
    if (scalar_parse_bool(s, len, &b) != SCALAR_OK) {
      error(p, pos, "!!bool: %s is not a boolean",
            cfg_quote(q, sizeof(q), s, len));
      return placeholder(p, pos);
    }
    if ((n = new_scalar(p, CFG_BOOL, pos, s, len)) != NULL)
      n->u.b = b;
  } else if (strcmp(suffix, "int") == 0) {
    cfg_wide v;
    r = scalar_parse_int(s, len, &v, why, sizeof(why));
    if (r != SCALAR_OK) {
      if (r == SCALAR_BAD)
        bad_scalar(p, pos, SCALAR_INT, s, len, why);
      else
        error(p, pos, "!!int: %s is not an integer",
              cfg_quote(q, sizeof(q), s, len));
      return placeholder(p, pos);
    }
    if ((n = new_scalar(p, CFG_INT, pos, s, len)) != NULL)
      n->u.i = v;
  } else if (strcmp(suffix, "float") == 0) {
    double f;
    r = scalar_parse_float(s, len, &f, why, sizeof(why));
    if (r == SCALAR_NOMEM) {
      out_of_memory(p);
      return NULL;
    }
    if (r != SCALAR_OK) {
      if (r == SCALAR_BAD)
        bad_scalar(p, pos, SCALAR_FLOAT, s, len, why);
      else
        error(p, pos, "!!float: %s is not a float",
              cfg_quote(q, sizeof(q), s, len));
      return placeholder(p, pos);
    }
    if ((n = new_scalar(p, CFG_FLOAT, pos, s, len)) != NULL)
      n->u.f = f;
  } else if (strcmp(suffix, "timestamp") == 0) {
    cfg_wide ns;
    r = scalar_parse_timestamp(s, len, &ns, why, sizeof(why));
    if (r != SCALAR_OK) {
      if (r == SCALAR_BAD)
        bad_scalar(p, pos, SCALAR_TIMESTAMP, s, len, why);
      else
        error(p, pos, "!!timestamp: %s is not a timestamp",
              cfg_quote(q, sizeof(q), s, len));
      return placeholder(p, pos);
    }
    if ((n = new_scalar(p, CFG_TIMESTAMP, pos, s, len)) != NULL)
      n->u.i = ns;
  } else if (strcmp(suffix, "binary") == 0) {
    uint8_t *data;
    size_t data_len;
    r = scalar_decode_base64(s, len, &data, &data_len, why, sizeof(why));
    if (r == SCALAR_NOMEM) {
      out_of_memory(p);
      return NULL;
    }
    if (r != SCALAR_OK) {
      error(p, pos, "!!binary: bad base64: %s", why);
      return placeholder(p, pos);
    }
    if ((n = new_scalar(p, CFG_BINARY, pos, s, len)) == NULL) {
      free(data);
      return NULL;
    }
    n->u.bin.data = data;
    n->u.bin.len = data_len;
  } else {
    wrong_node_kind(p, pos, tag, "a scalar");
    return placeholder(p, pos);
  }
  return n != NULL ? complete(p, n) : NULL;
}

/* An untagged plain scalar: resolved by its text. */
static struct cfg_node *parse_plain_scalar(struct parser *p, struct cfg_pos pos,
                                           const char *s, size_t len) {
  struct scalar_value v;
  char why[128];
  int r = scalar_resolve_plain(s, len, &v, why, sizeof(why));
  if (r == SCALAR_NOMEM) {
    out_of_memory(p);
    return NULL;
  }
  if (r == SCALAR_BAD) {
    bad_scalar(p, pos, v.type, s, len, why);
    return placeholder(p, pos);
  }
  static const enum cfg_kind kinds[] = {
      [SCALAR_NULL] = CFG_NULL,
      [SCALAR_BOOL] = CFG_BOOL,
      [SCALAR_INT] = CFG_INT,
      [SCALAR_FLOAT] = CFG_FLOAT,
      [SCALAR_TIMESTAMP] = CFG_TIMESTAMP,
      [SCALAR_STR] = CFG_STR,
  };
  struct cfg_node *n = new_scalar(p, kinds[v.type], pos, s, len);
  if (n == NULL)
    return NULL;
  switch (v.type) {
  case SCALAR_BOOL:
    n->u.b = v.u.b;
    break;
  case SCALAR_INT:
  case SCALAR_TIMESTAMP:
    n->u.i = v.u.i;
    break;
  case SCALAR_FLOAT:
    n->u.f = v.u.f;
    break;
  default:
    break;
  }
  return complete(p, n);
}

static struct cfg_node *parse_scalar(struct parser *p, const yaml_event_t *ev) {
  struct cfg_pos pos = mark_pos(ev->start_mark);
  const char *tag = (const char *)ev->data.scalar.tag;
  const char *s = (const char *)ev->data.scalar.value;
  size_t len = ev->data.scalar.length;
  const char *suffix;
  switch (classify_tag(tag, &suffix)) {
  case TAG_NONE:
    /* Only plain scalars are resolved; quoted ones are strings. */
    if (ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
      return parse_plain_scalar(p, pos, s, len);
    return complete(p, new_scalar(p, CFG_STR, pos, s, len));
  case TAG_NONSPECIFIC:
    return complete(p, new_scalar(p, CFG_STR, pos, s, len));
  case TAG_CORE:
    return parse_core_scalar(p, pos, suffix, tag, s, len);
  case TAG_CLOUDABI:
    if (strcmp(suffix, "fd") == 0)
      return parse_fd(p, pos, s, len);
    if (strcmp(suffix, "executable") == 0) {
      /* Upstream ignores the value; so do we. */
      struct cfg_resource *r;
      struct cfg_node *n = new_resource(p, CFG_RES_EXECUTABLE, pos, &r);
      return n != NULL ? complete(p, n) : NULL;
    }
    wrong_node_kind(p, pos, tag, "a scalar");
    return placeholder(p, pos);
  case TAG_OTHER:
    break;
  }
  unknown_tag(p, pos, tag);
  return placeholder(p, pos);
}

/* --- Collections, aliases and anchors --------------------------------- */

static struct cfg_node *parse_node(struct parser *p, yaml_event_t *ev,
                                   size_t depth);

/* Parses children into n until the end event.  False when parsing must
 * stop. */
static bool parse_children(struct parser *p, struct cfg_node *n,
                           yaml_event_type_t end, size_t depth) {
  for (;;) {
    yaml_event_t ev;
    if (!next_event(p, &ev))
      return false;
    if (ev.type == end) {
      yaml_event_delete(&ev);
      return true;
    }
    struct cfg_node *child = parse_node(p, &ev, depth + 1);
    if (child == NULL)
      return false;
    if (cfg_node_append(n, child) != 0) {
      cfg_node_unref(child);
      out_of_memory(p);
      return false;
    }
  }
}

static struct cfg_node *parse_sequence(struct parser *p, const yaml_event_t *ev,
                                       size_t depth) {
  struct cfg_pos pos = mark_pos(ev->start_mark);
  const char *tag = (const char *)ev->data.sequence_start.tag;
  const char *suffix;
  enum tag_class c = classify_tag(tag, &suffix);
  bool tag_ok = c == TAG_NONE || c == TAG_NONSPECIFIC ||
                (c == TAG_CORE && strcmp(suffix, "seq") == 0);
  /* Report a bad tag before what is inside, in document order. */
  if (!tag_ok)
    wrong_node_kind(p, pos, tag, "a sequence");
  struct cfg_node *n = cfg_node_new(CFG_SEQ, pos);
  if (n == NULL) {
    out_of_memory(p);
    return NULL;
  }
  if (!parse_children(p, n, YAML_SEQUENCE_END_EVENT, depth)) {
    cfg_node_unref(n);
    return NULL;
  }
  if (!tag_ok) {
    cfg_node_unref(n);
    return placeholder(p, pos);
  }
  return complete(p, n);
}

static int compare_keys(const void *a, const void *b) {
  const uint64_t *x = a, *y = b;
  /* [0] is the hash, [1] the entry index: equal hashes stay in order. */
  if (x[0] != y[0])
    return x[0] < y[0] ? -1 : 1;
  return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* Duplicate keys: sorted by hash, then compared within equal hashes. */
static void check_duplicates(struct parser *p, const struct cfg_node *map) {
  size_t count = map->u.list.n / 2;
  if (count < 2)
    return;
  uint64_t(*keys)[2] = malloc(count * sizeof(*keys));
  if (keys == NULL) {
    out_of_memory(p);
    return;
  }
  for (size_t i = 0; i < count; i++) {
    keys[i][0] = map->u.list.items[2 * i]->hash;
    keys[i][1] = i;
  }
  qsort(keys, count, sizeof(*keys), compare_keys);
  for (size_t j = 1; j < count && !p->fatal; j++) {
    for (size_t k = j; k-- > 0 && keys[k][0] == keys[j][0];) {
      const struct cfg_node *first = map->u.list.items[2 * keys[k][1]];
      const struct cfg_node *again = map->u.list.items[2 * keys[j][1]];
      if (cfg_node_equal(first, again)) {
        char d[128];
        error(p, again->pos, "duplicate key %s (first at %u:%u)",
              cfg_describe(again, d, sizeof(d)), first->pos.line,
              first->pos.column);
        break;
      }
    }
  }
  free(keys);
}

static struct cfg_node *parse_mapping(struct parser *p, const yaml_event_t *ev,
                                      size_t depth) {
  struct cfg_pos pos = mark_pos(ev->start_mark);
  const char *tag = (const char *)ev->data.mapping_start.tag;
  const char *suffix;
  enum { PLAIN_MAP, FILE_MAP, SOCKET_MAP, BAD_MAP } what = BAD_MAP;
  switch (classify_tag(tag, &suffix)) {
  case TAG_NONE:
  case TAG_NONSPECIFIC:
    what = PLAIN_MAP;
    break;
  case TAG_CORE:
    if (strcmp(suffix, "map") == 0)
      what = PLAIN_MAP;
    break;
  case TAG_CLOUDABI:
    if (strcmp(suffix, "file") == 0)
      what = FILE_MAP;
    else if (strcmp(suffix, "socket") == 0)
      what = SOCKET_MAP;
    break;
  case TAG_OTHER:
    break;
  }
  if (what == BAD_MAP)
    wrong_node_kind(p, pos, tag, "a mapping");
  struct cfg_node *n = cfg_node_new(CFG_MAP, pos);
  if (n == NULL) {
    out_of_memory(p);
    return NULL;
  }
  if (!parse_children(p, n, YAML_MAPPING_END_EVENT, depth)) {
    cfg_node_unref(n);
    return NULL;
  }
  check_duplicates(p, n);
  if (what == PLAIN_MAP)
    return complete(p, n);
  struct cfg_resource *r = NULL;
  if (what != BAD_MAP)
    r = cfg_resource_from_map(what == FILE_MAP ? CFG_RES_FILE : CFG_RES_SOCKET,
                              pos, n, &p->report);
  /* The attributes are now in r; the mapping itself is no argdata. */
  cfg_node_unref(n);
  if (r == NULL)
    return p->fatal ? NULL : placeholder(p, pos);
  struct cfg_node *res = cfg_node_new(CFG_FD, pos);
  if (res == NULL) {
    cfg_resource_free(r);
    out_of_memory(p);
    return NULL;
  }
  res->u.res = r;
  return complete(p, res);
}

static struct cfg_node *parse_alias(struct parser *p, const yaml_event_t *ev,
                                    size_t depth) {
  struct cfg_pos pos = mark_pos(ev->start_mark);
  const char *name = (const char *)ev->data.alias.anchor;
  struct cfg_node *target = NULL;
  /* The latest anchor of a name wins, as YAML says. */
  for (size_t i = p->nanchors; i-- > 0;) {
    if (strcmp(p->anchors[i].name, name) == 0) {
      target = p->anchors[i].node;
      break;
    }
  }
  if (target == NULL) {
    error(p, pos, "alias *%s: no anchor &%s before it", name, name);
    return placeholder(p, pos);
  }
  if (depth - 1 + target->height > CONFIG_MAX_DEPTH) {
    fatal(p, pos, "alias *%s: nested more than %u levels deep", name,
          CONFIG_MAX_DEPTH);
    return NULL;
  }
  struct cfg_node *n = cfg_node_new(CFG_ALIAS, pos);
  if (n == NULL) {
    out_of_memory(p);
    return NULL;
  }
  n->u.target = cfg_node_ref(target);
  return complete(p, n);
}

static bool add_anchor(struct parser *p, const char *name, struct cfg_node *n) {
  for (size_t i = 0; i < p->nanchors; i++) {
    if (strcmp(p->anchors[i].name, name) == 0) {
      cfg_node_unref(p->anchors[i].node);
      p->anchors[i].node = cfg_node_ref(n);
      return true;
    }
  }
  if (p->nanchors == p->anchors_cap) {
    size_t cap = p->anchors_cap == 0 ? 8 : p->anchors_cap * 2;
    struct anchor *a = realloc(p->anchors, cap * sizeof(*a));
    if (a == NULL)
      return false;
    p->anchors = a;
    p->anchors_cap = cap;
  }
  char *copy = strdup(name);
  if (copy == NULL)
    return false;
  p->anchors[p->nanchors].name = copy;
  p->anchors[p->nanchors++].node = cfg_node_ref(n);
  return true;
}

/* Parses the node that starts with *ev (which it deletes).  Returns NULL
 * only when parsing must stop. */
static struct cfg_node *parse_node(struct parser *p, yaml_event_t *ev,
                                   size_t depth) {
  struct cfg_node *n = NULL;
  const yaml_char_t *anchor = NULL;
  if (depth > CONFIG_MAX_DEPTH) {
    fatal(p, mark_pos(ev->start_mark), "nested more than %u levels deep",
          CONFIG_MAX_DEPTH);
    yaml_event_delete(ev);
    return NULL;
  }
  switch (ev->type) {
  case YAML_ALIAS_EVENT:
    n = parse_alias(p, ev, depth);
    break;
  case YAML_SCALAR_EVENT:
    anchor = ev->data.scalar.anchor;
    n = parse_scalar(p, ev);
    break;
  case YAML_SEQUENCE_START_EVENT:
    anchor = ev->data.sequence_start.anchor;
    n = parse_sequence(p, ev, depth);
    break;
  case YAML_MAPPING_START_EVENT:
    anchor = ev->data.mapping_start.anchor;
    n = parse_mapping(p, ev, depth);
    break;
  default:
    /* libyaml sends nothing else inside a document. */
    fatal(p, mark_pos(ev->start_mark), "unexpected YAML event %d", ev->type);
    break;
  }
  if (n != NULL && anchor != NULL && !add_anchor(p, (const char *)anchor, n)) {
    cfg_node_unref(n);
    n = NULL;
    out_of_memory(p);
  }
  yaml_event_delete(ev);
  return n;
}

/* The root of the first document; null for an empty stream. */
static struct cfg_node *parse_document(struct parser *p) {
  yaml_event_t ev;
  if (!next_event(p, &ev)) /* stream start */
    return NULL;
  yaml_event_delete(&ev);
  if (!next_event(p, &ev))
    return NULL;
  if (ev.type == YAML_STREAM_END_EVENT) {
    yaml_event_delete(&ev);
    struct cfg_pos pos = {1, 1};
    return placeholder(p, pos);
  }
  yaml_event_delete(&ev); /* document start */
  if (!next_event(p, &ev))
    return NULL;
  struct cfg_node *root = parse_node(p, &ev, 1);
  /* Read the document's end, so that its syntax is checked to the last
   * line; later documents are never read. */
  if (root != NULL && !next_event(p, &ev)) {
    cfg_node_unref(root);
    return NULL;
  }
  if (root != NULL)
    yaml_event_delete(&ev);
  return root;
}

/* --- The API ----------------------------------------------------------- */

void config_plan_free(struct config_plan *plan) {
  if (plan == NULL)
    return;
  for (size_t i = 0; i < plan->ndescs; i++) {
    for (size_t j = 0; j < plan->descs[i].nrefs; j++)
      free(plan->descs[i].refs[j].path);
    free(plan->descs[i].refs);
  }
  free(plan->descs);
  cfg_node_unref(plan->root);
  free(plan->argdata);
  free(plan->name);
  free(plan);
}

/* Numbers the descriptors and encodes the argument data: the plan. */
static struct config_plan *make_plan(struct parser *p, struct cfg_node *root) {
  struct config_plan *plan = calloc(1, sizeof(*plan));
  if (plan == NULL) {
    cfg_node_unref(root);
    out_of_memory(p);
    return NULL;
  }
  plan->root = root;
  plan->name = strdup(p->name);
  bool ok = plan->name != NULL && cfg_plan_number(plan) == 0 &&
            argdata_write(root, &plan->argdata, &plan->argdata_len) == 0;
  if (!ok) {
    config_plan_free(plan);
    out_of_memory(p);
    return NULL;
  }
  return plan;
}

struct config_plan *config_parse_buffer(const void *text, size_t len,
                                        const char *name,
                                        struct config_diags *d) {
  struct parser p = {
      .report = {report_error, report_nomem, 0},
      .name = name,
      .text = text,
      .text_len = len,
      .diags = d,
  };
  if (!yaml_parser_initialize(&p.yaml)) {
    cfg_diag_nopos(d, name, "out of memory");
    return NULL;
  }
  yaml_parser_set_input_string(&p.yaml, text, len);
  struct cfg_node *root = parse_document(&p);
  yaml_parser_delete(&p.yaml);
  for (size_t i = 0; i < p.nanchors; i++) {
    free(p.anchors[i].name);
    cfg_node_unref(p.anchors[i].node);
  }
  free(p.anchors);
  struct config_plan *plan = NULL;
  if (root != NULL && p.report.errors == 0)
    plan = make_plan(&p, root); /* takes root */
  else
    cfg_node_unref(root);
  flush_diagnostics(&p);
  return plan;
}

struct config_plan *config_parse_file(FILE *in, const char *name,
                                      struct config_diags *d) {
  size_t len = 0, cap = 0;
  char *buf = NULL;
  for (;;) {
    if (len == cap) {
      cap = cap == 0 ? 4096 : cap * 2;
      char *more = realloc(buf, cap);
      if (more == NULL) {
        free(buf);
        cfg_diag_nopos(d, name, "out of memory");
        return NULL;
      }
      buf = more;
    }
    size_t n = fread(buf + len, 1, cap - len, in);
    len += n;
    if (len > CONFIG_MAX_INPUT) {
      free(buf);
      cfg_diag_nopos(d, name, "larger than %u bytes", CONFIG_MAX_INPUT);
      return NULL;
    }
    if (n == 0)
      break;
  }
  if (ferror(in)) {
    free(buf);
    cfg_diag_nopos(d, name, "cannot read: %s", strerror(errno));
    return NULL;
  }
  struct config_plan *plan = config_parse_buffer(buf, len, name, d);
  free(buf);
  return plan;
}

size_t config_plan_nfds(const struct config_plan *plan) {
  return plan->ndescs;
}

const uint8_t *config_plan_argdata(const struct config_plan *plan,
                                   size_t *len) {
  *len = plan->argdata_len;
  return plan->argdata;
}
