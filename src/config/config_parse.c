/*
 * Phase one of the config: libyaml events -> a typed plan, with no side
 * effects.  A recursive descent over the event stream builds the value
 * tree (config_plan.h); tags become typed values or resource
 * descriptions; every mistake becomes a diagnostic at the position of the
 * node it is about, and parsing goes on where it can, so one run reports
 * every mistake in a config, up to CONFIG_MAX_ERRORS.  Syntax errors stop
 * the parse: libyaml cannot continue past them.
 *
 * This file holds the descent over collections, aliases and anchors, the
 * document and the API; tags and scalars are in parse_scalar.c, the
 * diagnostics in parse_diag.c, the state they share in parser.h.
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
#include "parser.h"
#include "host/rights_names.h"

/* --- Collections, aliases and anchors --------------------------------- */

static struct cfg_node *parse_node(struct parser *p, yaml_event_t *ev,
                                   size_t depth);

/* Parses children into n until the end event.  False when parsing must
 * stop. */
static bool parse_children(struct parser *p, struct cfg_node *n,
                           yaml_event_type_t end, size_t depth) {
  for (;;) {
    yaml_event_t ev;
    if (!cfgp_next_event(p, &ev))
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
      cfgp_out_of_memory(p);
      return false;
    }
  }
}

static struct cfg_node *parse_sequence(struct parser *p, const yaml_event_t *ev,
                                       size_t depth) {
  struct cfg_pos pos = cfgp_mark_pos(ev->start_mark);
  const char *tag = (const char *)ev->data.sequence_start.tag;
  const char *suffix;
  enum tag_class c = cfgp_classify_tag(tag, &suffix);
  bool tag_ok = c == TAG_NONE || c == TAG_NONSPECIFIC ||
                (c == TAG_CORE && strcmp(suffix, "seq") == 0);
  /* Report a bad tag before what is inside, in document order. */
  if (!tag_ok)
    cfgp_wrong_node_kind(p, pos, tag, "a sequence");
  struct cfg_node *n = cfg_node_new(CFG_SEQ, pos);
  if (n == NULL) {
    cfgp_out_of_memory(p);
    return NULL;
  }
  if (!parse_children(p, n, YAML_SEQUENCE_END_EVENT, depth)) {
    cfg_node_unref(n);
    return NULL;
  }
  if (!tag_ok) {
    cfg_node_unref(n);
    return cfgp_placeholder(p, pos);
  }
  return cfgp_complete(p, n);
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
    cfgp_out_of_memory(p);
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
        cfgp_error(p, again->pos, "duplicate key %s (first at %u:%u)",
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
  struct cfg_pos pos = cfgp_mark_pos(ev->start_mark);
  const char *tag = (const char *)ev->data.mapping_start.tag;
  const char *suffix;
  enum { PLAIN_MAP, FILE_MAP, SOCKET_MAP, BAD_MAP } what = BAD_MAP;
  switch (cfgp_classify_tag(tag, &suffix)) {
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
    cfgp_wrong_node_kind(p, pos, tag, "a mapping");
  struct cfg_node *n = cfg_node_new(CFG_MAP, pos);
  if (n == NULL) {
    cfgp_out_of_memory(p);
    return NULL;
  }
  if (!parse_children(p, n, YAML_MAPPING_END_EVENT, depth)) {
    cfg_node_unref(n);
    return NULL;
  }
  check_duplicates(p, n);
  if (what == PLAIN_MAP)
    return cfgp_complete(p, n);
  struct cfg_resource *r = NULL;
  if (what != BAD_MAP)
    r = cfg_resource_from_map(what == FILE_MAP ? CFG_RES_FILE : CFG_RES_SOCKET,
                              pos, n, &p->report);
  /* The attributes are now in r; the mapping itself is no argdata. */
  cfg_node_unref(n);
  if (r == NULL)
    return p->fatal ? NULL : cfgp_placeholder(p, pos);
  struct cfg_node *res = cfg_node_new(CFG_FD, pos);
  if (res == NULL) {
    cfg_resource_free(r);
    cfgp_out_of_memory(p);
    return NULL;
  }
  res->u.res = r;
  return cfgp_complete(p, res);
}

static struct cfg_node *parse_alias(struct parser *p, const yaml_event_t *ev,
                                    size_t depth) {
  struct cfg_pos pos = cfgp_mark_pos(ev->start_mark);
  const char *name = (const char *)ev->data.alias.anchor;
  struct cfg_node *target = anchors_find(&p->anchors, name);
  if (target == NULL) {
    cfgp_error(p, pos, "alias *%s: no anchor &%s before it", name, name);
    return cfgp_placeholder(p, pos);
  }
  if (depth - 1 + target->height > CONFIG_MAX_DEPTH) {
    cfgp_fatal(p, pos, "alias *%s: nested more than %u levels deep", name,
               CONFIG_MAX_DEPTH);
    return NULL;
  }
  struct cfg_node *n = cfg_node_new(CFG_ALIAS, pos);
  if (n == NULL) {
    cfgp_out_of_memory(p);
    return NULL;
  }
  n->u.target = cfg_node_ref(target);
  return cfgp_complete(p, n);
}

/* Parses the node that starts with *ev (which it deletes).  Returns NULL
 * only when parsing must stop. */
static struct cfg_node *parse_node(struct parser *p, yaml_event_t *ev,
                                   size_t depth) {
  struct cfg_node *n = NULL;
  const yaml_char_t *anchor = NULL;
  if (depth > CONFIG_MAX_DEPTH) {
    cfgp_fatal(p, cfgp_mark_pos(ev->start_mark),
               "nested more than %u levels deep", CONFIG_MAX_DEPTH);
    yaml_event_delete(ev);
    return NULL;
  }
  switch (ev->type) {
  case YAML_ALIAS_EVENT:
    n = parse_alias(p, ev, depth);
    break;
  case YAML_SCALAR_EVENT:
    anchor = ev->data.scalar.anchor;
    n = cfgp_parse_scalar(p, ev);
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
    cfgp_fatal(p, cfgp_mark_pos(ev->start_mark), "unexpected YAML event %d",
               ev->type);
    break;
  }
  if (n != NULL && anchor != NULL && !anchors_set(&p->anchors, (const char *)anchor, n)) {
    cfg_node_unref(n);
    n = NULL;
    cfgp_out_of_memory(p);
  }
  yaml_event_delete(ev);
  return n;
}

/* The root of the first document; null for an empty stream. */
static struct cfg_node *parse_document(struct parser *p) {
  yaml_event_t ev;
  if (!cfgp_next_event(p, &ev)) /* stream start */
    return NULL;
  yaml_event_delete(&ev);
  if (!cfgp_next_event(p, &ev))
    return NULL;
  if (ev.type == YAML_STREAM_END_EVENT) {
    yaml_event_delete(&ev);
    struct cfg_pos pos = {1, 1};
    return cfgp_placeholder(p, pos);
  }
  yaml_event_delete(&ev); /* document start */
  if (!cfgp_next_event(p, &ev))
    return NULL;
  struct cfg_node *root = parse_node(p, &ev, 1);
  /* Read the document's end, so that its syntax is checked to the last
   * line; later documents are never read. */
  if (root != NULL && !cfgp_next_event(p, &ev)) {
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
  for (size_t i = 0; i < plan->nflags; i++)
    free(plan->flags[i]);
  free(plan->flags);
  free(plan);
}

/* Numbers the descriptors and encodes the argument data: the plan. */
static struct config_plan *make_plan(struct parser *p, struct cfg_node *root) {
  struct config_plan *plan = calloc(1, sizeof(*plan));
  if (plan == NULL) {
    cfg_node_unref(root);
    cfgp_out_of_memory(p);
    return NULL;
  }
  plan->root = root;
  plan->name = strdup(p->name);
  bool ok = plan->name != NULL && cfg_plan_number(plan) == 0 &&
            argdata_write(root, &plan->argdata, &plan->argdata_len) == 0;
  if (!ok) {
    config_plan_free(plan);
    cfgp_out_of_memory(p);
    return NULL;
  }
  return plan;
}

struct config_plan *config_parse_buffer(const void *text, size_t len,
                                        const char *name,
                                        struct config_diags *d) {
  struct parser p = {
      .report = {cfgp_report_error, cfgp_report_nomem, 0},
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
  anchors_free(&p.anchors);
  struct config_plan *plan = NULL;
  if (root != NULL && p.report.errors == 0)
    plan = make_plan(&p, root); /* takes root */
  else
    cfg_node_unref(root);
  cfgp_flush_diagnostics(&p);
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
    /* A short read is the end: on a terminal another fread would wait
     * for a second Ctrl-D. */
    if (n == 0 || feof(in) || ferror(in))
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
