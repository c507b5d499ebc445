/*
 * Command-line resources and values: --dir, --file, --fd, --set and
 * --set-str become top-level keys of the config's mapping (or of a
 * mapping of their own when there is no config).  Each flag becomes the
 * same kind of node a config would give: --fd and --set go through the
 * parser's own scalar rules, --dir and --file become !file resources that
 * config_open opens with exactly the checks of a config path.  A node
 * made from a flag carries the flag as its position (cfg_pos.flag), so
 * that diagnostics and --plan name the flag where a config names
 * file:line:column.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser.h"

const char *config_flag_option(enum config_flag_kind kind) {
  switch (kind) {
  case CONFIG_FLAG_DIR:
    return "--dir";
  case CONFIG_FLAG_FILE:
    return "--file";
  case CONFIG_FLAG_FD:
    return "--fd";
  case CONFIG_FLAG_SET:
    return "--set";
  case CONFIG_FLAG_SET_STR:
    break;
  }
  return "--set-str";
}

/* PATH[:ro|:rw|:wo]: the mode suffix, if there is one, comes off. */
static enum cfg_file_mode split_mode(const char *value, size_t *path_len) {
  static const struct {
    const char *suffix;
    enum cfg_file_mode mode;
  } modes[] = {{":ro", CFG_MODE_RO}, {":rw", CFG_MODE_RW}, {":wo", CFG_MODE_WO}};
  size_t len = strlen(value);
  *path_len = len;
  for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
    if (len > 3 && strcmp(value + len - 3, modes[i].suffix) == 0) {
      *path_len = len - 3;
      return modes[i].mode;
    }
  }
  return CFG_MODE_RO;
}

/* --dir and --file: a !file resource.  The mode counts as written, so a
 * directory given as ro is a read-only tree (README, !file mode). */
static struct cfg_node *flag_file(struct parser *p, struct cfg_pos pos,
                                  enum config_flag_kind kind,
                                  const char *value) {
  size_t path_len;
  enum cfg_file_mode mode = split_mode(value, &path_len);
  if (path_len == 0) {
    cfgp_error(p, pos, "the path is empty");
    return cfgp_placeholder(p, pos);
  }
  if (kind == CONFIG_FLAG_DIR && mode == CFG_MODE_WO) {
    cfgp_error(p, pos, "a directory cannot be write-only (:ro or :rw)");
    return cfgp_placeholder(p, pos);
  }
  struct cfg_node *n = cfg_node_new(CFG_FD, pos);
  struct cfg_resource *r = calloc(1, sizeof(*r));
  char *path = strndup(value, path_len);
  if (n == NULL || r == NULL || path == NULL) {
    cfg_node_unref(n);
    free(r);
    free(path);
    cfgp_out_of_memory(p);
    return NULL;
  }
  r->kind = CFG_RES_FILE;
  r->pos = r->path_pos = r->mode_pos = pos;
  r->host_fd = -1;
  r->path = path;
  r->mode = mode;
  r->mode_set = true;
  r->directory = kind == CONFIG_FLAG_DIR;
  n->u.res = r;
  return cfgp_complete(p, n);
}

static struct cfg_node *flag_value(struct parser *p, struct cfg_pos pos,
                                   enum config_flag_kind kind,
                                   const char *value) {
  size_t len = strlen(value);
  switch (kind) {
  case CONFIG_FLAG_DIR:
  case CONFIG_FLAG_FILE:
    return flag_file(p, pos, kind, value);
  case CONFIG_FLAG_FD:
    return cfgp_parse_fd(p, pos, value, len);
  case CONFIG_FLAG_SET:
    return cfgp_parse_plain(p, pos, value, len);
  case CONFIG_FLAG_SET_STR:
    break;
  }
  struct cfg_node *n = cfg_node_new(CFG_STR, pos);
  if (n == NULL || cfg_node_set_text(n, value, len) != 0) {
    cfg_node_unref(n);
    cfgp_out_of_memory(p);
    return NULL;
  }
  return cfgp_complete(p, n);
}

/* The entry of map whose key is the string key, or map's length. */
static size_t find_key(const struct cfg_node *map, const char *key,
                       size_t len) {
  for (size_t i = 0; i + 1 < map->u.list.n; i += 2) {
    const struct cfg_node *k = cfg_deref(map->u.list.items[i]);
    if (k->kind == CFG_STR && k->text_len == len &&
        memcmp(k->text, key, len) == 0)
      return i;
  }
  return map->u.list.n;
}

/* Forgets the numbering, so that the merged tree is numbered afresh. */
static void unnumber(struct cfg_node *n) {
  if (n->fd_refs == 0)
    return;
  switch (n->kind) {
  case CFG_ALIAS:
    unnumber(n->u.target);
    break;
  case CFG_FD:
    n->u.res->numbered = false;
    break;
  case CFG_SEQ:
  case CFG_MAP:
    for (size_t i = 0; i < n->u.list.n; i++)
      unnumber(n->u.list.items[i]);
    break;
  default:
    break;
  }
}

static void drop_numbering(struct config_plan *plan) {
  for (size_t i = 0; i < plan->ndescs; i++) {
    for (size_t j = 0; j < plan->descs[i].nrefs; j++)
      free(plan->descs[i].refs[j].path);
    free(plan->descs[i].refs);
  }
  free(plan->descs);
  plan->descs = NULL;
  plan->ndescs = 0;
  free(plan->argdata);
  plan->argdata = NULL;
  plan->argdata_len = 0;
  unnumber(plan->root);
}

/* The root the flags are added to: the config's mapping, or a new one
 * (for no config, or an empty one).  NULL after a diagnostic. */
static struct cfg_node *flag_root(struct config_plan *plan,
                                  struct config_diags *d) {
  struct cfg_node *root = plan->root;
  if (root != NULL && root->kind == CFG_MAP)
    return root;
  if (root != NULL && root->kind != CFG_NULL) {
    cfg_diag_nopos(d, plan->name,
                   "the top level is %s, not a mapping: --dir, --file, --fd "
                   "and --set add keys to a mapping",
                   cfg_kind_name(cfg_deref(root)->kind));
    return NULL;
  }
  struct cfg_pos pos = {1, 1, NULL};
  struct cfg_node *map = cfg_node_new(CFG_MAP, pos);
  if (map == NULL) {
    cfg_diag_nopos(d, plan->name, "out of memory");
    return NULL;
  }
  cfg_node_finish(map);
  cfg_node_unref(root);
  plan->root = map;
  return map;
}

/* Adds one flag to the map; false when parsing must stop. */
static bool add_flag(struct parser *p, struct cfg_node *map, size_t first,
                     const struct config_flag *f, struct cfg_pos pos) {
  const char *eq = strchr(f->arg, '=');
  if (eq == NULL || eq == f->arg) {
    cfgp_error(p, pos, "expected KEY=%s",
               f->kind == CONFIG_FLAG_DIR || f->kind == CONFIG_FLAG_FILE
                   ? "PATH"
                   : f->kind == CONFIG_FLAG_FD ? "FD" : "VALUE");
    return !p->fatal;
  }
  size_t key_len = (size_t)(eq - f->arg);
  size_t at = find_key(map, f->arg, key_len);
  /* Flags replace the config's keys; two flags for one key are a slip. */
  if (at < map->u.list.n && at >= first) {
    char q[128];
    cfgp_error(p, pos, "key %s given twice (first by %s)",
               cfg_quote(q, sizeof(q), f->arg, key_len),
               map->u.list.items[at + 1]->pos.flag);
    return !p->fatal;
  }
  struct cfg_node *value = flag_value(p, pos, f->kind, eq + 1);
  if (value == NULL)
    return false;
  if (at < map->u.list.n) {
    cfg_node_unref(map->u.list.items[at + 1]);
    map->u.list.items[at + 1] = value;
    return true;
  }
  struct cfg_node *key = cfg_node_new(CFG_STR, pos);
  if (key == NULL || cfg_node_set_text(key, f->arg, key_len) != 0 ||
      cfg_node_append(map, key) != 0) {
    cfg_node_unref(key);
    cfg_node_unref(value);
    cfgp_out_of_memory(p);
    return false;
  }
  cfg_node_finish(key);
  if (cfg_node_append(map, value) != 0) {
    cfg_node_unref(value);
    map->u.list.n--;
    cfg_node_unref(key);
    cfgp_out_of_memory(p);
    return false;
  }
  return true;
}

/* Keeps "--dir KEY=PATH" for the plan's positions. */
static bool keep_flags(struct config_plan *plan, const struct config_flag *flags,
                       size_t n) {
  plan->flags = calloc(n > 0 ? n : 1, sizeof(*plan->flags));
  if (plan->flags == NULL)
    return false;
  for (size_t i = 0; i < n; i++) {
    if (asprintf(&plan->flags[i], "%s %s", config_flag_option(flags[i].kind),
                 flags[i].arg) < 0) {
      plan->flags[i] = NULL;
      return false;
    }
    plan->nflags = i + 1;
  }
  return true;
}

struct config_plan *config_plan_add_flags(struct config_plan *plan,
                                          const struct config_flag *flags,
                                          size_t n, struct config_diags *d) {
  if (plan == NULL) {
    plan = calloc(1, sizeof(*plan));
    if (plan == NULL || (plan->name = strdup(CONFIG_FLAGS_NAME)) == NULL) {
      free(plan);
      cfg_diag_nopos(d, CONFIG_FLAGS_NAME, "out of memory");
      return NULL;
    }
  }
  if (plan->flags != NULL || !keep_flags(plan, flags, n)) {
    cfg_diag_nopos(d, plan->name, "out of memory");
    config_plan_free(plan);
    return NULL;
  }
  struct cfg_node *map = flag_root(plan, d);
  if (map == NULL) {
    config_plan_free(plan);
    return NULL;
  }
  drop_numbering(plan);
  struct parser p = {
      .report = {cfgp_report_error, cfgp_report_nomem, 0},
      .name = plan->name,
      .diags = d,
  };
  size_t first = map->u.list.n;
  for (size_t i = 0; i < n; i++) {
    /* Flags sort in the order given. */
    struct cfg_pos pos = {(uint32_t)i + 1, 1, plan->flags[i]};
    if (!add_flag(&p, map, first, &flags[i], pos))
      break;
  }
  if (p.report.errors == 0) {
    cfg_node_finish(map);
    if (map->size > CONFIG_MAX_ARGDATA)
      cfgp_error(&p, map->pos,
                 "the argument data would exceed its limit of %u bytes",
                 CONFIG_MAX_ARGDATA);
    else if (map->fd_refs > CONFIG_MAX_FD_REFS)
      cfgp_error(&p, map->pos, "more than %u descriptor references",
                 CONFIG_MAX_FD_REFS);
    else if (cfg_plan_number(plan) != 0 ||
             argdata_write(map, &plan->argdata, &plan->argdata_len) != 0)
      cfgp_out_of_memory(&p);
  }
  cfgp_flush_diagnostics(&p);
  if (p.report.errors != 0) {
    config_plan_free(plan);
    return NULL;
  }
  return plan;
}
