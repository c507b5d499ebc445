/*
 * The value tree of a config plan: allocation, sharing (aliases), and the
 * summaries each node keeps (size, height, hash, fd_refs), computed once
 * from its children so that nothing has to walk an alias-expanded tree to
 * know them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_plan.h"

struct cfg_node *cfg_node_new(enum cfg_kind kind, struct cfg_pos pos) {
  struct cfg_node *n = calloc(1, sizeof(*n));
  if (n == NULL)
    return NULL;
  n->kind = kind;
  n->pos = pos;
  n->refs = 1;
  n->height = 1;
  return n;
}

struct cfg_node *cfg_node_ref(struct cfg_node *n) {
  n->refs++;
  return n;
}

void cfg_resource_free(struct cfg_resource *r) {
  if (r == NULL)
    return;
  free(r->path);
  free(r->host);
  free(r->port);
  free(r);
}

void cfg_node_unref(struct cfg_node *n) {
  if (n == NULL || --n->refs > 0)
    return;
  switch (n->kind) {
  case CFG_SEQ:
  case CFG_MAP:
    /* Recursion is bounded by the height limit the parser enforces. */
    for (size_t i = 0; i < n->u.list.n; i++)
      cfg_node_unref(n->u.list.items[i]);
    free(n->u.list.items);
    break;
  case CFG_BINARY:
    free(n->u.bin.data);
    break;
  case CFG_FD:
    cfg_resource_free(n->u.res);
    break;
  case CFG_ALIAS:
    cfg_node_unref(n->u.target);
    break;
  default:
    break;
  }
  free(n->text);
  free(n);
}

int cfg_node_set_text(struct cfg_node *n, const char *text, size_t len) {
  char *copy = malloc(len + 1);
  if (copy == NULL)
    return -1;
  memcpy(copy, text, len);
  copy[len] = '\0';
  free(n->text);
  n->text = copy;
  n->text_len = len;
  return 0;
}

int cfg_node_append(struct cfg_node *n, struct cfg_node *child) {
  if (n->u.list.n == n->u.list.cap) {
    size_t cap = n->u.list.cap == 0 ? 4 : n->u.list.cap * 2;
    struct cfg_node **items = realloc(n->u.list.items, cap * sizeof(*items));
    if (items == NULL)
      return -1;
    n->u.list.items = items;
    n->u.list.cap = cap;
  }
  n->u.list.items[n->u.list.n++] = child;
  return 0;
}

/* Sizes saturate just above the limit, so sums never overflow. */
#define SIZE_CAP ((size_t)CONFIG_MAX_ARGDATA + 1)

static size_t add_sat(size_t a, size_t b) {
  return a >= SIZE_CAP || b >= SIZE_CAP || a + b >= SIZE_CAP ? SIZE_CAP : a + b;
}

/* FNV-1a, 64 bits: cheap and good enough to sort keys into buckets. */
static uint64_t hash_bytes(uint64_t h, const void *p, size_t len) {
  const uint8_t *b = p;
  for (size_t i = 0; i < len; i++) {
    h ^= b[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

/*
 * What makes two descriptor leaves the same descriptor: the same host
 * descriptor number for !fd, the program for !executable, and for opened
 * resources the resource itself (two !file nodes are two opens).
 */
static uintptr_t resource_identity(const struct cfg_resource *r) {
  switch (r->kind) {
  case CFG_RES_FD:
    return (uintptr_t)r->host_fd;
  case CFG_RES_EXECUTABLE:
    return 0;
  default:
    return (uintptr_t)r;
  }
}

void cfg_node_finish(struct cfg_node *n) {
  uint64_t h = hash_bytes(0xcbf29ce484222325ull, &n->kind, sizeof(n->kind));
  size_t size;
  n->height = 1;
  n->fd_refs = 0;
  switch (n->kind) {
  case CFG_NULL:
    size = 0;
    break;
  case CFG_BOOL:
    size = n->u.b ? 2 : 1;
    h = hash_bytes(h, &n->u.b, sizeof(n->u.b));
    break;
  case CFG_INT:
  case CFG_TIMESTAMP:
    size = 1 + argdata_int_len(n->u.i);
    h = hash_bytes(h, &n->u.i, sizeof(n->u.i));
    break;
  case CFG_FLOAT:
    size = 9;
    h = hash_bytes(h, &n->u.f, sizeof(n->u.f));
    break;
  case CFG_STR:
    size = add_sat(n->text_len, 2);
    h = hash_bytes(h, n->text, n->text_len);
    break;
  case CFG_BINARY:
    size = add_sat(n->u.bin.len, 1);
    h = hash_bytes(h, n->u.bin.data, n->u.bin.len);
    break;
  case CFG_FD: {
    size = 5;
    n->fd_refs = 1;
    enum cfg_res_kind k = n->u.res->kind;
    uintptr_t id = resource_identity(n->u.res);
    h = hash_bytes(h, &k, sizeof(k));
    h = hash_bytes(h, &id, sizeof(id));
    break;
  }
  case CFG_SEQ:
  case CFG_MAP:
    size = 1;
    for (size_t i = 0; i < n->u.list.n; i++) {
      const struct cfg_node *c = n->u.list.items[i];
      size = add_sat(size, add_sat(argdata_varint_len(c->size), c->size));
      if (c->height + 1 > n->height)
        n->height = c->height + 1;
      n->fd_refs = add_sat(n->fd_refs, c->fd_refs);
      h = hash_bytes(h, &c->hash, sizeof(c->hash));
    }
    break;
  case CFG_ALIAS:
    /* An alias is its target wherever it counts. */
    n->size = n->u.target->size;
    n->hash = n->u.target->hash;
    n->height = n->u.target->height;
    n->fd_refs = n->u.target->fd_refs;
    return;
  default:
    size = 0;
    break;
  }
  n->size = size;
  n->hash = h;
}

bool cfg_node_equal(const struct cfg_node *a, const struct cfg_node *b) {
  a = cfg_deref(a);
  b = cfg_deref(b);
  if (a == b)
    return true;
  if (a->kind != b->kind || a->hash != b->hash || a->size != b->size)
    return false;
  switch (a->kind) {
  case CFG_NULL:
    return true;
  case CFG_BOOL:
    return a->u.b == b->u.b;
  case CFG_INT:
  case CFG_TIMESTAMP:
    return a->u.i == b->u.i;
  case CFG_FLOAT:
    /* Bit patterns, as encoded: 0.0 and -0.0 differ, NaN equals NaN. */
    return memcmp(&a->u.f, &b->u.f, sizeof(a->u.f)) == 0;
  case CFG_STR:
    return a->text_len == b->text_len &&
           memcmp(a->text, b->text, a->text_len) == 0;
  case CFG_BINARY:
    return a->u.bin.len == b->u.bin.len &&
           memcmp(a->u.bin.data, b->u.bin.data, a->u.bin.len) == 0;
  case CFG_FD:
    return a->u.res->kind == b->u.res->kind &&
           resource_identity(a->u.res) == resource_identity(b->u.res);
  case CFG_SEQ:
  case CFG_MAP:
    if (a->u.list.n != b->u.list.n)
      return false;
    for (size_t i = 0; i < a->u.list.n; i++)
      if (!cfg_node_equal(a->u.list.items[i], b->u.list.items[i]))
        return false;
    return true;
  case CFG_ALIAS:
    break;
  }
  return false;
}

const char *cfg_kind_name(enum cfg_kind k) {
  switch (k) {
  case CFG_NULL:
    return "null";
  case CFG_BOOL:
    return "a boolean";
  case CFG_INT:
    return "an integer";
  case CFG_FLOAT:
    return "a float";
  case CFG_STR:
    return "a string";
  case CFG_BINARY:
    return "binary data";
  case CFG_TIMESTAMP:
    return "a timestamp";
  case CFG_SEQ:
    return "a sequence";
  case CFG_MAP:
    return "a mapping";
  case CFG_FD:
    return "a descriptor";
  case CFG_ALIAS:
    break;
  }
  return "an alias";
}

/* Scalars that carry their source text. */
bool cfg_has_text(const struct cfg_node *n) {
  switch (n->kind) {
  case CFG_STR:
  case CFG_INT:
  case CFG_FLOAT:
  case CFG_BOOL:
  case CFG_TIMESTAMP:
  case CFG_NULL:
    return n->text != NULL;
  default:
    return false;
  }
}

/* A node for messages: a scalar's text, quoted, else its kind. */
const char *cfg_describe(const struct cfg_node *n, char *buf, size_t size) {
  n = cfg_deref(n);
  if (cfg_has_text(n) && n->kind != CFG_NULL)
    return cfg_quote(buf, size, n->text, n->text_len);
  snprintf(buf, size, "%s", cfg_kind_name(n->kind));
  return buf;
}
