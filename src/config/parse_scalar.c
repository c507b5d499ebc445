/*
 * The config parser's leaves: tags (core, CloudABI, or refused), new
 * nodes and the limits they count against, and scalars, tagged (!fd,
 * !!int, ...) or plain (resolved by config_scalar.c).
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

#include "config_scalar.h"
#include "parser.h"
#include "host/rights_names.h"

/* --- Tags ------------------------------------------------------------ */

enum tag_class cfgp_classify_tag(const char *tag, const char **suffix) {
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
  switch (cfgp_classify_tag(tag, &suffix)) {
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
  enum tag_class c = cfgp_classify_tag(tag, &suffix);
  if (c == TAG_CLOUDABI && strcmp(suffix, "flower_switchboard_handle") == 0)
    cfgp_error(p, pos,
               "%s is not supported: there is no Flower switchboard here",
               shown);
  else if (c == TAG_OTHER && tag[0] == '!' && is_cloudabi_tag_name(tag + 1))
    /* The most common slip: the tag directive is missing. */
    cfgp_error(p, pos,
               "unknown tag %s (start the file with "
               "\"%%TAG ! " CLOUDABI_PREFIX "\" and \"---\")",
               shown);
  else
    cfgp_error(p, pos, "unknown tag %s", shown);
}

/* What kind of node a tag needs, for "expected a mapping" errors; NULL
 * when the tag is unknown. */
static const char *tag_wants(const char *tag) {
  const char *suffix;
  switch (cfgp_classify_tag(tag, &suffix)) {
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
void cfgp_wrong_node_kind(struct parser *p, struct cfg_pos pos, const char *tag,
                          const char *got) {
  const char *wants = tag_wants(tag);
  char shown[256];
  if (wants == NULL)
    unknown_tag(p, pos, tag);
  else
    cfgp_error(p, pos, "%s: expected %s, not %s",
               tag_display(tag, shown, sizeof(shown)), wants, got);
}

/* --- Nodes ----------------------------------------------------------- */

/* Finishes a new node and checks the limits that keep every later walk
 * bounded.  Returns the node, or NULL (freed) when a limit is exceeded or
 * when n is NULL already (out of memory). */
struct cfg_node *cfgp_complete(struct parser *p, struct cfg_node *n) {
  if (n == NULL)
    return NULL;
  cfg_node_finish(n);
  if (n->size > CONFIG_MAX_ARGDATA) {
    cfgp_fatal(p, n->pos,
               "the argument data would exceed its limit of %u bytes",
               CONFIG_MAX_ARGDATA);
  } else if (n->fd_refs > CONFIG_MAX_FD_REFS) {
    cfgp_fatal(p, n->pos, "more than %u descriptor references",
               CONFIG_MAX_FD_REFS);
  } else if (n->height > CONFIG_MAX_DEPTH) {
    cfgp_fatal(p, n->pos, "nested more than %u levels deep", CONFIG_MAX_DEPTH);
  } else {
    return n;
  }
  cfg_node_unref(n);
  return NULL;
}

/* A null that stands in for a node with an error, so parsing goes on. */
struct cfg_node *cfgp_placeholder(struct parser *p, struct cfg_pos pos) {
  struct cfg_node *n = cfg_node_new(CFG_NULL, pos);
  if (n == NULL) {
    cfgp_out_of_memory(p);
    return NULL;
  }
  return cfgp_complete(p, n);
}

static struct cfg_node *new_scalar(struct parser *p, enum cfg_kind kind,
                                   struct cfg_pos pos, const char *text,
                                   size_t len) {
  struct cfg_node *n = cfg_node_new(kind, pos);
  if (n == NULL || cfg_node_set_text(n, text, len) != 0) {
    cfg_node_unref(n);
    cfgp_out_of_memory(p);
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
    cfgp_out_of_memory(p);
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
struct cfg_node *cfgp_parse_fd(struct parser *p, struct cfg_pos pos,
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
      cfgp_error(p, pos,
                 "!fd: expected stdin, stdout, stderr or a descriptor number, "
                 "not %s",
                 cfg_quote(q, sizeof(q), s, len));
      return cfgp_placeholder(p, pos);
    }
    if (s[0] == '-' || v > INT_MAX) {
      cfgp_error(p, pos, "!fd: descriptor number %s out of range (0 to %d)",
                 cfg_quote(q, sizeof(q), s, len), INT_MAX);
      return cfgp_placeholder(p, pos);
    }
    fd = (int)v;
  }
  struct cfg_resource *r;
  struct cfg_node *n = new_resource(p, CFG_RES_FD, pos, &r);
  if (n == NULL)
    return NULL;
  r->host_fd = fd;
  r->fd_name = name;
  return cfgp_complete(p, n);
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
    cfgp_error(p, pos, "integer %s out of range (-2^63 to 2^64-1)", q);
    break;
  case SCALAR_FLOAT:
    cfgp_error(p, pos, "float %s out of range", q);
    break;
  default:
    cfgp_error(p, pos, "bad timestamp %s: %s", q, why);
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
    return cfgp_complete(p, new_scalar(p, CFG_STR, pos, s, len));
  if (strcmp(suffix, "null") == 0) {
    if (!scalar_is_null(s, len)) {
      cfgp_error(p, pos, "!!null: %s is not null",
                 cfg_quote(q, sizeof(q), s, len));
      return cfgp_placeholder(p, pos);
    }
    n = new_scalar(p, CFG_NULL, pos, s, len);
  } else if (strcmp(suffix, "bool") == 0) {
    bool b;
    if (scalar_parse_bool(s, len, &b) != SCALAR_OK) {
      cfgp_error(p, pos, "!!bool: %s is not a boolean",
                 cfg_quote(q, sizeof(q), s, len));
      return cfgp_placeholder(p, pos);
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
        cfgp_error(p, pos, "!!int: %s is not an integer",
                   cfg_quote(q, sizeof(q), s, len));
      return cfgp_placeholder(p, pos);
    }
    if ((n = new_scalar(p, CFG_INT, pos, s, len)) != NULL)
      n->u.i = v;
  } else if (strcmp(suffix, "float") == 0) {
    double f;
    r = scalar_parse_float(s, len, &f, why, sizeof(why));
    if (r == SCALAR_NOMEM) {
      cfgp_out_of_memory(p);
      return NULL;
    }
    if (r != SCALAR_OK) {
      if (r == SCALAR_BAD)
        bad_scalar(p, pos, SCALAR_FLOAT, s, len, why);
      else
        cfgp_error(p, pos, "!!float: %s is not a float",
                   cfg_quote(q, sizeof(q), s, len));
      return cfgp_placeholder(p, pos);
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
        cfgp_error(p, pos, "!!timestamp: %s is not a timestamp",
                   cfg_quote(q, sizeof(q), s, len));
      return cfgp_placeholder(p, pos);
    }
    if ((n = new_scalar(p, CFG_TIMESTAMP, pos, s, len)) != NULL)
      n->u.i = ns;
  } else if (strcmp(suffix, "binary") == 0) {
    uint8_t *data;
    size_t data_len;
    r = scalar_decode_base64(s, len, &data, &data_len, why, sizeof(why));
    if (r == SCALAR_NOMEM) {
      cfgp_out_of_memory(p);
      return NULL;
    }
    if (r != SCALAR_OK) {
      cfgp_error(p, pos, "!!binary: bad base64: %s", why);
      return cfgp_placeholder(p, pos);
    }
    if ((n = new_scalar(p, CFG_BINARY, pos, s, len)) == NULL) {
      free(data);
      return NULL;
    }
    n->u.bin.data = data;
    n->u.bin.len = data_len;
  } else {
    cfgp_wrong_node_kind(p, pos, tag, "a scalar");
    return cfgp_placeholder(p, pos);
  }
  return n != NULL ? cfgp_complete(p, n) : NULL;
}

/* An untagged plain scalar: resolved by its text. */
struct cfg_node *cfgp_parse_plain(struct parser *p, struct cfg_pos pos,
                                  const char *s, size_t len) {
  struct scalar_value v;
  char why[128];
  int r = scalar_resolve_plain(s, len, &v, why, sizeof(why));
  if (r == SCALAR_NOMEM) {
    cfgp_out_of_memory(p);
    return NULL;
  }
  if (r == SCALAR_BAD) {
    bad_scalar(p, pos, v.type, s, len, why);
    return cfgp_placeholder(p, pos);
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
  return cfgp_complete(p, n);
}

struct cfg_node *cfgp_parse_scalar(struct parser *p, const yaml_event_t *ev) {
  struct cfg_pos pos = cfgp_mark_pos(ev->start_mark);
  const char *tag = (const char *)ev->data.scalar.tag;
  const char *s = (const char *)ev->data.scalar.value;
  size_t len = ev->data.scalar.length;
  const char *suffix;
  switch (cfgp_classify_tag(tag, &suffix)) {
  case TAG_NONE:
    /* Only plain scalars are resolved; quoted ones are strings. */
    if (ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
      return cfgp_parse_plain(p, pos, s, len);
    return cfgp_complete(p, new_scalar(p, CFG_STR, pos, s, len));
  case TAG_NONSPECIFIC:
    return cfgp_complete(p, new_scalar(p, CFG_STR, pos, s, len));
  case TAG_CORE:
    return parse_core_scalar(p, pos, suffix, tag, s, len);
  case TAG_CLOUDABI:
    if (strcmp(suffix, "fd") == 0)
      return cfgp_parse_fd(p, pos, s, len);
    if (strcmp(suffix, "executable") == 0) {
      /* Upstream ignores the value; so do we. */
      struct cfg_resource *r;
      struct cfg_node *n = new_resource(p, CFG_RES_EXECUTABLE, pos, &r);
      return n != NULL ? cfgp_complete(p, n) : NULL;
    }
    cfgp_wrong_node_kind(p, pos, tag, "a scalar");
    return cfgp_placeholder(p, pos);
  case TAG_OTHER:
    break;
  }
  unknown_tag(p, pos, tag);
  return cfgp_placeholder(p, pos);
}