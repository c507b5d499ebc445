/*
 * Numbering a plan's descriptors, and recording where the config names
 * each of them.
 *
 * Descriptors are numbered in depth-first order of first appearance, the
 * order in which the argdata encoder meets them (a map's key before its
 * value), so numbering and encoding agree as upstream's argdata_serialize
 * does.  The walk also records each place that names a descriptor, as a
 * path like .tmpdir or [2].log, for the plan.  It only descends into
 * subtrees that hold descriptors, and those are bounded in number
 * (CONFIG_MAX_FD_REFS) and depth, aliases included.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_plan.h"

struct numbering {
  struct config_plan *plan;
  size_t descs_cap;
  char *path;
  size_t len, cap;
};

static bool path_add(struct numbering *w, const char *s, size_t len) {
  if (w->len + len + 1 > w->cap) {
    size_t cap = w->cap == 0 ? 64 : w->cap;
    while (cap < w->len + len + 1)
      cap *= 2;
    char *path = realloc(w->path, cap);
    if (path == NULL)
      return false;
    w->path = path;
    w->cap = cap;
  }
  memcpy(w->path + w->len, s, len);
  w->len += len;
  w->path[w->len] = '\0';
  return true;
}

static bool is_identifier(const char *s, size_t len) {
  if (len == 0)
    return false;
  for (size_t i = 0; i < len; i++) {
    char c = s[i];
    bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    bool more = (c >= '0' && c <= '9') || c == '-';
    if (!alpha && !(i > 0 && more))
      return false;
  }
  return true;
}

/* A map key as a path step: .name, or ["any string"] with JSON escapes,
 * or {N} (entry N) for keys that are not strings. */
static bool path_add_key(struct numbering *w, const struct cfg_node *key,
                         size_t entry) {
  key = cfg_deref(key);
  char buf[32];
  if (key->kind != CFG_STR) {
    snprintf(buf, sizeof(buf), "{%zu}", entry);
    return path_add(w, buf, strlen(buf));
  }
  if (is_identifier(key->text, key->text_len))
    return path_add(w, ".", 1) && path_add(w, key->text, key->text_len);
  if (!path_add(w, "[\"", 2))
    return false;
  for (size_t i = 0; i < key->text_len; i++) {
    unsigned char c = (unsigned char)key->text[i];
    if (c == '"' || c == '\\') {
      buf[0] = '\\', buf[1] = (char)c, buf[2] = '\0';
    } else if (c < 0x20 || c == 0x7f) {
      snprintf(buf, sizeof(buf), "\\u%04x", c);
    } else {
      buf[0] = (char)c, buf[1] = '\0';
    }
    if (!path_add(w, buf, strlen(buf)))
      return false;
  }
  return path_add(w, "\"]", 2);
}

static bool add_ref(struct numbering *w, struct cfg_resource *r,
                    struct cfg_pos pos) {
  struct config_plan *plan = w->plan;
  if (!r->numbered) {
    size_t i;
    for (i = 0; i < plan->ndescs; i++) {
      const struct cfg_resource *o = plan->descs[i].res;
      if (o->kind == r->kind &&
          (r->kind == CFG_RES_EXECUTABLE ||
           (r->kind == CFG_RES_FD && o->host_fd == r->host_fd)))
        break;
    }
    if (i == plan->ndescs) {
      if (plan->ndescs == w->descs_cap) {
        size_t cap = w->descs_cap == 0 ? 8 : w->descs_cap * 2;
        struct cfg_desc *descs = realloc(plan->descs, cap * sizeof(*descs));
        if (descs == NULL)
          return false;
        plan->descs = descs;
        w->descs_cap = cap;
      }
      struct cfg_desc fresh = {r, NULL, 0};
      plan->descs[plan->ndescs++] = fresh;
    }
    r->numbered = true;
    r->guest_fd = i;
  }
  struct cfg_desc *desc = &plan->descs[r->guest_fd];
  struct cfg_ref *refs = realloc(desc->refs, (desc->nrefs + 1) * sizeof(*refs));
  if (refs == NULL)
    return false;
  desc->refs = refs;
  char *path = w->len > 0 ? strndup(w->path, w->len) : strdup(".");
  if (path == NULL)
    return false;
  refs[desc->nrefs].path = path;
  refs[desc->nrefs++].pos = pos;
  return true;
}

/* alias_pos: where the outermost alias on the way down was written; a
 * descriptor reached through it is named there. */
static bool number(struct numbering *w, struct cfg_node *n,
                   const struct cfg_pos *alias_pos) {
  if (n->fd_refs == 0)
    return true;
  size_t mark = w->len;
  char buf[48];
  switch (n->kind) {
  case CFG_ALIAS:
    return number(w, n->u.target, alias_pos != NULL ? alias_pos : &n->pos);
  case CFG_FD:
    return add_ref(w, n->u.res, alias_pos != NULL ? *alias_pos : n->pos);
  case CFG_SEQ:
    for (size_t i = 0; i < n->u.list.n; i++) {
      snprintf(buf, sizeof(buf), "[%zu]", i);
      if (!path_add(w, buf, strlen(buf)) ||
          !number(w, n->u.list.items[i], alias_pos))
        return false;
      w->len = mark;
    }
    break;
  case CFG_MAP:
    for (size_t i = 0; i + 1 < n->u.list.n; i += 2) {
      struct cfg_node *key = n->u.list.items[i];
      if (key->fd_refs > 0) {
        /* A descriptor inside a key: rare, but argdata allows it. */
        snprintf(buf, sizeof(buf), "{key %zu}", i / 2);
        if (!path_add(w, buf, strlen(buf)) || !number(w, key, alias_pos))
          return false;
        w->len = mark;
      }
      if (!path_add_key(w, key, i / 2) ||
          !number(w, n->u.list.items[i + 1], alias_pos))
        return false;
      w->len = mark;
    }
    break;
  default:
    break;
  }
  return true;
}

int cfg_plan_number(struct config_plan *plan) {
  struct numbering w = {plan, 0, NULL, 0, 0};
  bool ok = number(&w, plan->root, NULL);
  free(w.path);
  return ok ? 0 : -1;
}
