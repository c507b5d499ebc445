/*
 * The argdata encoder (format: ../shared/reference/argdata/README.md).
 * Every node already knows its encoded size (config_node.c), so the
 * output is written in one pass into a buffer of exactly that size, with
 * each subfield's length known before its bytes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config_plan.h"

enum {
  TAG_BINARY = 1,
  TAG_BOOL = 2,
  TAG_FD = 3,
  TAG_FLOAT = 4,
  TAG_INT = 5,
  TAG_MAP = 6,
  TAG_SEQ = 7,
  TAG_STR = 8,
  TAG_TIMESTAMP = 9,
};

/* Subfield lengths: base 128, big-endian, the last byte marked by its top
 * bit. */
size_t argdata_varint_len(size_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    n++;
  }
  return n;
}

static uint8_t *put_varint(uint8_t *p, size_t v) {
  size_t n = argdata_varint_len(v);
  for (size_t i = 0; i < n; i++) {
    size_t shift = 7 * (n - 1 - i);
    p[i] = (uint8_t)((v >> shift) & 0x7f);
  }
  p[n - 1] |= 0x80;
  return p + n;
}

/*
 * Integers: the fewest big-endian two's complement bytes that keep the
 * sign, none for 0 (so 127 = 7f, 128 = 00 80, -128 = 80, -129 = ff 7f).
 */
size_t argdata_int_len(cfg_wide v) {
  if (v == 0)
    return 0;
  /* n bytes hold -2^(8n-1) .. 2^(8n-1)-1. */
  for (size_t n = 1; n < 16; n++) {
    cfg_wide half = (cfg_wide)1 << (8 * n - 1);
    if (v >= -half && v < half)
      return n;
  }
  return 16;
}

static uint8_t *put_int(uint8_t *p, cfg_wide v) {
  size_t n = argdata_int_len(v);
  unsigned __int128 u = (unsigned __int128)v;
  for (size_t i = 0; i < n; i++)
    p[i] = (uint8_t)(u >> (8 * (n - 1 - i)));
  return p + n;
}

static uint8_t *write_node(uint8_t *p, const struct cfg_node *n) {
  switch (n->kind) {
  case CFG_NULL:
    break;
  case CFG_BOOL:
    *p++ = TAG_BOOL;
    if (n->u.b)
      *p++ = 1;
    break;
  case CFG_INT:
    *p++ = TAG_INT;
    p = put_int(p, n->u.i);
    break;
  case CFG_TIMESTAMP:
    *p++ = TAG_TIMESTAMP;
    p = put_int(p, n->u.i);
    break;
  case CFG_FLOAT: {
    uint64_t bits;
    memcpy(&bits, &n->u.f, sizeof(bits));
    *p++ = TAG_FLOAT;
    for (int i = 7; i >= 0; i--)
      *p++ = (uint8_t)(bits >> (8 * i));
    break;
  }
  case CFG_STR:
    *p++ = TAG_STR;
    memcpy(p, n->text, n->text_len);
    p += n->text_len;
    *p++ = '\0';
    break;
  case CFG_BINARY:
    *p++ = TAG_BINARY;
    if (n->u.bin.len > 0)
      memcpy(p, n->u.bin.data, n->u.bin.len);
    p += n->u.bin.len;
    break;
  case CFG_FD: {
    /* Fixed width, so a descriptor could be renumbered in place. */
    uint32_t fd = (uint32_t)n->u.res->guest_fd;
    *p++ = TAG_FD;
    for (int i = 3; i >= 0; i--)
      *p++ = (uint8_t)(fd >> (8 * i));
    break;
  }
  case CFG_ALIAS:
    p = write_node(p, n->u.target);
    break;
  case CFG_SEQ:
  case CFG_MAP:
    *p++ = n->kind == CFG_MAP ? TAG_MAP : TAG_SEQ;
    for (size_t i = 0; i < n->u.list.n; i++) {
      const struct cfg_node *c = n->u.list.items[i];
      p = put_varint(p, c->size);
      p = write_node(p, c);
    }
    break;
  }
  return p;
}

int argdata_write(const struct cfg_node *root, uint8_t **out, size_t *len) {
  if (root->size > CONFIG_MAX_ARGDATA) {
    errno = E2BIG;
    return -1;
  }
  uint8_t *buf = malloc(root->size + 1);
  if (buf == NULL)
    return -1;
  uint8_t *end = write_node(buf, root);
  /* The sizes and the writer describe the same encoding. */
  if ((size_t)(end - buf) != root->size)
    abort();
  *end = '\0';
  *out = buf;
  *len = root->size;
  return 0;
}
