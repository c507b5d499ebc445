/*
 * The parser's anchors by name: a hash table, so that a config with n
 * anchors and aliases costs O(n) look-ups rather than O(n^2) scans.
 * Each entry holds a reference to its node; anchors_free drops them.
 */
#ifndef CONFIG_ANCHORS_H
#define CONFIG_ANCHORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config_plan.h"

struct anchor {
  char *name;            /* owned; NULL for an empty slot */
  uint64_t hash;         /* of name, to skip most string compares */
  struct cfg_node *node; /* a reference, owned */
};

struct anchors {
  struct anchor *slots; /* open addressing, linear probing */
  size_t n, cap;        /* cap is 0 or a power of two */
};

/* The node anchored last under name, or NULL. */
struct cfg_node *anchors_find(const struct anchors *t, const char *name);
/* Anchors n under name, replacing an earlier one (the latest wins, as
 * YAML says); takes a new reference to n.  false when out of memory. */
bool anchors_set(struct anchors *t, const char *name, struct cfg_node *n);
void anchors_free(struct anchors *t);

#endif
