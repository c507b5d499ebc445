/* The parser's anchors by name; see anchors.h. */
#include "anchors.h"

#include <stdlib.h>
#include <string.h>

/* FNV-1a: anchor names are short and the table only needs spread, not
 * resistance to chosen collisions (probing stays linear in the worst
 * case, which the config's own size bounds). */
static uint64_t name_hash(const char *s) {
  uint64_t h = 0xcbf29ce484222325u;
  for (; *s != '\0'; s++) {
    h ^= (unsigned char)*s;
    h *= 0x100000001b3u;
  }
  return h;
}

/* The slot holding name, or the empty slot where it would go. */
static struct anchor *slot_for(const struct anchors *t, const char *name,
                               uint64_t h) {
  size_t mask = t->cap - 1;
  for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
    struct anchor *a = &t->slots[i];
    if (a->name == NULL || (a->hash == h && strcmp(a->name, name) == 0))
      return a;
  }
}

struct cfg_node *anchors_find(const struct anchors *t, const char *name) {
  if (t->cap == 0)
    return NULL;
  struct anchor *a = slot_for(t, name, name_hash(name));
  return a->name != NULL ? a->node : NULL;
}

/* Keeps the load at most one half, so probes stay short and an empty
 * slot always exists. */
static bool grow(struct anchors *t) {
  size_t cap = t->cap == 0 ? 16 : t->cap * 2;
  struct anchor *slots = calloc(cap, sizeof(*slots));
  if (slots == NULL)
    return false;
  struct anchors bigger = {slots, t->n, cap};
  for (size_t i = 0; i < t->cap; i++)
    if (t->slots[i].name != NULL)
      *slot_for(&bigger, t->slots[i].name, t->slots[i].hash) = t->slots[i];
  free(t->slots);
  *t = bigger;
  return true;
}

bool anchors_set(struct anchors *t, const char *name, struct cfg_node *n) {
  if ((t->n + 1) * 2 > t->cap && !grow(t))
    return false;
  uint64_t h = name_hash(name);
  struct anchor *a = slot_for(t, name, h);
  if (a->name != NULL) {
    cfg_node_unref(a->node);
    a->node = cfg_node_ref(n);
    return true;
  }
  char *copy = strdup(name);
  if (copy == NULL)
    return false;
  *a = (struct anchor){copy, h, cfg_node_ref(n)};
  t->n++;
  return true;
}

void anchors_free(struct anchors *t) {
  for (size_t i = 0; i < t->cap; i++) {
    if (t->slots[i].name != NULL) {
      free(t->slots[i].name);
      cfg_node_unref(t->slots[i].node);
    }
  }
  free(t->slots);
  *t = (struct anchors){NULL, 0, 0};
}
