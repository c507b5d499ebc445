/*
 * libFuzzer target for argdata, both ways.  Any bytes go to the guest
 * runtime's reader (abi/rt/argdata.c), which every getter must survive
 * on every value whatever its type.  When the whole value reads without
 * error, it is rebuilt as a config tree and written by the supervisor's
 * encoder (src/config/argdata_writer.c); what must hold:
 *   - the encoder's output reads back as the same tree;
 *   - encoding that tree again gives the same bytes (the encoding is
 *     canonical: minimal integers, fixed-width descriptors).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argdata.h"
#include "config/config.h"
#include "config/config_plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "fuzz_argdata: check failed: %s\n", #cond);              \
      abort();                                                                 \
    }                                                                          \
  } while (0)

/* Deeper values are only walked, not rebuilt (the writer recurses). */
#define MAX_DEPTH 64

static const struct cfg_pos nowhere = {1, 1};

/* Every getter on one value: each answers or refuses, never more. */
static void poke(const argdata_t *ad) {
  const void *p;
  size_t len;
  bool b;
  cloudabi_fd_t fd;
  double f;
  int64_t s;
  uint64_t u;
  const char *str;
  argdata_timestamp_t ts;
  argdata_iter_t it;
  if (argdata_get_binary(ad, &p, &len) == 0)
    CHECK(len <= ad->len);
  (void)argdata_get_bool(ad, &b);
  (void)argdata_get_fd(ad, &fd);
  (void)argdata_get_float(ad, &f);
  (void)argdata_get_int_s(ad, &s);
  (void)argdata_get_int_u(ad, &u);
  if (argdata_get_str(ad, &str, &len) == 0)
    CHECK(len < ad->len && str[len] == '\0');
  if (argdata_get_timestamp(ad, &ts) == 0)
    CHECK(ts.nsec < 1000000000u);
  (void)argdata_map_iterate(ad, &it);
  (void)argdata_seq_iterate(ad, &it);
}

static struct cfg_node *leaf(enum cfg_kind kind) {
  struct cfg_node *n = cfg_node_new(kind, nowhere);
  CHECK(n != NULL);
  return n;
}

/* The value as a config tree, or NULL if any part of it fails to read. */
static struct cfg_node *rebuild(const argdata_t *ad, int depth) {
  poke(ad);
  argdata_type_t type;
  if (argdata_type(ad, &type) != 0 || depth > MAX_DEPTH)
    return NULL;
  struct cfg_node *n = NULL;
  argdata_iter_t it;
  argdata_t k, v;
  switch (type) {
  case ARGDATA_NULL:
    n = leaf(CFG_NULL);
    break;
  case ARGDATA_BINARY: {
    const void *p;
    size_t len;
    if (argdata_get_binary(ad, &p, &len) != 0)
      return NULL;
    n = leaf(CFG_BINARY);
    n->u.bin.data = malloc(len + 1);
    CHECK(n->u.bin.data != NULL);
    memcpy(n->u.bin.data, p, len);
    n->u.bin.len = len;
    break;
  }
  case ARGDATA_BOOL: {
    bool b;
    if (argdata_get_bool(ad, &b) != 0)
      return NULL;
    n = leaf(CFG_BOOL);
    n->u.b = b;
    break;
  }
  case ARGDATA_FD: {
    cloudabi_fd_t fd;
    if (argdata_get_fd(ad, &fd) != 0)
      return NULL;
    n = leaf(CFG_FD);
    n->u.res = calloc(1, sizeof(*n->u.res));
    CHECK(n->u.res != NULL);
    n->u.res->kind = CFG_RES_FD; /* same number, same descriptor */
    n->u.res->host_fd = (int)fd;
    n->u.res->guest_fd = fd;
    break;
  }
  case ARGDATA_FLOAT: {
    double f;
    if (argdata_get_float(ad, &f) != 0)
      return NULL;
    n = leaf(CFG_FLOAT);
    n->u.f = f;
    break;
  }
  case ARGDATA_INT: {
    int64_t s;
    uint64_t u;
    n = leaf(CFG_INT);
    if (argdata_get_int_s(ad, &s) == 0) {
      n->u.i = s;
    } else if (argdata_get_int_u(ad, &u) == 0) {
      n->u.i = (cfg_wide)u;
    } else {
      cfg_node_unref(n);
      return NULL;
    }
    break;
  }
  case ARGDATA_STR: {
    const char *s;
    size_t len;
    if (argdata_get_str(ad, &s, &len) != 0)
      return NULL;
    n = leaf(CFG_STR);
    CHECK(cfg_node_set_text(n, s, len) == 0);
    break;
  }
  case ARGDATA_TIMESTAMP: {
    argdata_timestamp_t ts;
    if (argdata_get_timestamp(ad, &ts) != 0)
      return NULL;
    n = leaf(CFG_TIMESTAMP);
    n->u.i = (cfg_wide)ts.sec * 1000000000 + ts.nsec;
    break;
  }
  case ARGDATA_SEQ:
  case ARGDATA_MAP: {
    bool map = type == ARGDATA_MAP;
    if ((map ? argdata_map_iterate(ad, &it) : argdata_seq_iterate(ad, &it)) !=
        0)
      return NULL;
    n = leaf(map ? CFG_MAP : CFG_SEQ);
    bool ok = true;
    while (ok && (map ? argdata_map_next(&it, &k, &v)
                      : argdata_seq_next(&it, &v))) {
      for (int i = map ? 0 : 1; ok && i < 2; i++) {
        struct cfg_node *c = rebuild(i == 0 ? &k : &v, depth + 1);
        ok = c != NULL;
        if (ok)
          CHECK(cfg_node_append(n, c) == 0);
      }
    }
    if (!ok || it.error != 0) {
      cfg_node_unref(n);
      return NULL;
    }
    break;
  }
  default:
    return NULL;
  }
  cfg_node_finish(n);
  return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  argdata_t ad = argdata_from_buffer(data, size);
  struct cfg_node *a = rebuild(&ad, 0);
  if (a == NULL)
    return 0;
  uint8_t *once, *twice;
  size_t once_len, twice_len;
  CHECK(argdata_write(a, &once, &once_len) == 0);
  argdata_t back = argdata_from_buffer(once, once_len);
  struct cfg_node *b = rebuild(&back, 0);
  CHECK(b != NULL);
  CHECK(cfg_node_equal(a, b));
  CHECK(argdata_write(b, &twice, &twice_len) == 0);
  CHECK(once_len == twice_len && memcmp(once, twice, once_len) == 0);
  free(once);
  free(twice);
  cfg_node_unref(a);
  cfg_node_unref(b);
  return 0;
}
