/*
 * The argdata encoder (src/config/argdata_writer.c) against the guest runtime's
 * reader (abi/rt/argdata.c): what one writes, the other must read back
 * identically, for every type and its edge values; and the format's test
 * vectors (ABI-NOTES.md section 5) come out byte for byte from trees
 * built directly, without the YAML front end.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "argdata.h"
#include "config/config.h"
#include "config/config_plan.h"

/* --- building trees ----------------------------------------------------- */

static const struct cfg_pos nowhere = {1, 1};

static struct cfg_node *leaf(enum cfg_kind kind) {
  struct cfg_node *n = cfg_node_new(kind, nowhere);
  assert_non_null(n);
  return n;
}

static struct cfg_node *done(struct cfg_node *n) {
  cfg_node_finish(n);
  return n;
}

static struct cfg_node *mk_int(cfg_wide v) {
  struct cfg_node *n = leaf(CFG_INT);
  n->u.i = v;
  return done(n);
}

static struct cfg_node *mk_str(const char *s, size_t len) {
  struct cfg_node *n = leaf(CFG_STR);
  assert_int_equal(cfg_node_set_text(n, s, len), 0);
  return done(n);
}

static struct cfg_node *mk_bool(bool b) {
  struct cfg_node *n = leaf(CFG_BOOL);
  n->u.b = b;
  return done(n);
}

static struct cfg_node *mk_fd(size_t guest_fd) {
  struct cfg_node *n = leaf(CFG_FD);
  n->u.res = calloc(1, sizeof(*n->u.res));
  assert_non_null(n->u.res);
  n->u.res->kind = CFG_RES_FILE; /* each its own descriptor */
  n->u.res->guest_fd = guest_fd;
  return done(n);
}

static struct cfg_node *mk_float(double f) {
  struct cfg_node *n = leaf(CFG_FLOAT);
  n->u.f = f;
  return done(n);
}

static struct cfg_node *mk_ts(cfg_wide ns) {
  struct cfg_node *n = leaf(CFG_TIMESTAMP);
  n->u.i = ns;
  return done(n);
}

static struct cfg_node *mk_bin(const void *p, size_t len) {
  struct cfg_node *n = leaf(CFG_BINARY);
  n->u.bin.data = malloc(len > 0 ? len : 1);
  assert_non_null(n->u.bin.data);
  if (len > 0)
    memcpy(n->u.bin.data, p, len);
  n->u.bin.len = len;
  return done(n);
}

/* A sequence or map of the given children (NULL-terminated). */
static struct cfg_node *mk_list(enum cfg_kind kind, ...) {
  struct cfg_node *n = leaf(kind);
  va_list ap;
  va_start(ap, kind);
  struct cfg_node *c;
  while ((c = va_arg(ap, struct cfg_node *)) != NULL)
    assert_int_equal(cfg_node_append(n, c), 0);
  va_end(ap);
  return done(n);
}

static char *encode_hex(const struct cfg_node *root) {
  uint8_t *buf;
  size_t len;
  assert_int_equal(argdata_write(root, &buf, &len), 0);
  assert_int_equal(len, root->size);
  assert_int_equal(buf[len], 0); /* the trailing NUL, not counted */
  char *s = malloc(len * 3 + 1);
  s[0] = '\0';
  for (size_t i = 0; i < len; i++)
    sprintf(s + strlen(s), i == 0 ? "%02x" : " %02x", buf[i]);
  free(buf);
  return s;
}

static void expect_hex(struct cfg_node *root, const char *want) {
  char *got = encode_hex(root);
  assert_string_equal(got, want);
  free(got);
  cfg_node_unref(root);
}

/* ABI-NOTES.md section 5, from trees built by hand. */
static void test_vectors(void **state) {
  (void)state;
  expect_hex(mk_list(CFG_MAP, mk_str("tmpdir", 6), mk_fd(0),
                     mk_str("logfile", 7), mk_fd(1), NULL),
             "06 88 08 74 6d 70 64 69 72 00 85 03 00 00 00 00 89 08 6c 6f 67 "
             "66 69 6c 65 00 85 03 00 00 00 01");
  expect_hex(mk_list(CFG_SEQ, mk_int(0), mk_bool(true), mk_str("A", 1), NULL),
             "07 81 05 82 02 01 83 08 41 00");
  expect_hex(done(leaf(CFG_NULL)), "");
  expect_hex(mk_bool(false), "02");
  expect_hex(mk_int(-1), "05 ff");
  expect_hex(mk_int(255), "05 00 ff");
  expect_hex(mk_float(1.5), "04 3f f8 00 00 00 00 00 00");
  expect_hex(mk_ts(1500000000), "09 59 68 2f 00");
  expect_hex(mk_bin("\x01\x02", 2), "01 01 02");
  /* The format's own integer table. */
  expect_hex(mk_int(0), "05");
  expect_hex(mk_int(1), "05 01");
  expect_hex(mk_int(127), "05 7f");
  expect_hex(mk_int(-128), "05 80");
  expect_hex(mk_int(1000), "05 03 e8");
  expect_hex(mk_int(-1000), "05 fc 18");
  expect_hex(mk_int(4294967295), "05 00 ff ff ff ff");
  expect_hex(mk_str("123", 3), "08 31 32 33 00");
  /* Subfield lengths: 0 = 80, 128 = 01 80. */
  expect_hex(mk_list(CFG_SEQ, done(leaf(CFG_NULL)), NULL), "07 80");
  uint8_t blob[127] = {0};
  struct cfg_node *seq = mk_list(CFG_SEQ, mk_bin(blob, sizeof(blob)), NULL);
  char *got = encode_hex(seq); /* a subfield of 128 bytes */
  assert_memory_equal(got, "07 01 80 01 00", 14);
  free(got);
  cfg_node_unref(seq);
}

/* --- reading back ----------------------------------------------------- */

/* Compares what the reader sees at ad with the tree node n. */
static void compare(const struct cfg_node *n, const argdata_t *ad) {
  n = cfg_deref(n);
  argdata_type_t type;
  assert_int_equal(argdata_type(ad, &type), 0);
  switch (n->kind) {
  case CFG_NULL:
    assert_int_equal(type, ARGDATA_NULL);
    break;
  case CFG_BOOL: {
    bool b;
    assert_int_equal(argdata_get_bool(ad, &b), 0);
    assert_int_equal(b, n->u.b);
    break;
  }
  case CFG_INT: {
    int64_t s;
    uint64_t u;
    if (n->u.i >= INT64_MIN && n->u.i <= INT64_MAX) {
      assert_int_equal(argdata_get_int_s(ad, &s), 0);
      assert_true(s == (int64_t)n->u.i);
    } else {
      assert_int_equal(argdata_get_int_s(ad, &s), CLOUDABI_ERANGE);
    }
    if (n->u.i >= 0) {
      assert_int_equal(argdata_get_int_u(ad, &u), 0);
      assert_true(u == (uint64_t)n->u.i);
    } else {
      assert_int_equal(argdata_get_int_u(ad, &u), CLOUDABI_ERANGE);
    }
    break;
  }
  case CFG_FLOAT: {
    double f;
    assert_int_equal(argdata_get_float(ad, &f), 0);
    assert_memory_equal(&f, &n->u.f, sizeof(f));
    break;
  }
  case CFG_STR: {
    const char *s;
    size_t len;
    assert_int_equal(argdata_get_str(ad, &s, &len), 0);
    assert_int_equal(len, n->text_len);
    assert_memory_equal(s, n->text, len);
    break;
  }
  case CFG_BINARY: {
    const void *p;
    size_t len;
    assert_int_equal(argdata_get_binary(ad, &p, &len), 0);
    assert_int_equal(len, n->u.bin.len);
    if (len > 0)
      assert_memory_equal(p, n->u.bin.data, len);
    break;
  }
  case CFG_TIMESTAMP: {
    argdata_timestamp_t ts;
    assert_int_equal(argdata_get_timestamp(ad, &ts), 0);
    cfg_wide sec = n->u.i / 1000000000, nsec = n->u.i % 1000000000;
    if (nsec < 0)
      sec -= 1, nsec += 1000000000; /* floor, as the reader does */
    assert_true(ts.sec == (int64_t)sec);
    assert_true(ts.nsec == (uint32_t)nsec);
    break;
  }
  case CFG_FD: {
    cloudabi_fd_t fd;
    assert_int_equal(argdata_get_fd(ad, &fd), 0);
    assert_int_equal(fd, n->u.res->guest_fd);
    break;
  }
  case CFG_SEQ:
  case CFG_MAP: {
    argdata_iter_t it;
    argdata_t k, v;
    size_t i = 0;
    if (n->kind == CFG_SEQ) {
      assert_int_equal(argdata_seq_iterate(ad, &it), 0);
      while (argdata_seq_next(&it, &v)) {
        assert_true(i < n->u.list.n);
        compare(n->u.list.items[i++], &v);
      }
    } else {
      assert_int_equal(argdata_map_iterate(ad, &it), 0);
      while (argdata_map_next(&it, &k, &v)) {
        assert_true(i + 1 < n->u.list.n);
        compare(n->u.list.items[i++], &k);
        compare(n->u.list.items[i++], &v);
      }
    }
    assert_int_equal(it.error, 0);
    assert_int_equal(i, n->u.list.n);
    break;
  }
  case CFG_ALIAS:
    fail();
  }
}

static void roundtrip(const struct cfg_node *root) {
  uint8_t *buf;
  size_t len;
  assert_int_equal(argdata_write(root, &buf, &len), 0);
  /* An exact-size copy, so that ASan sees any read past the end. */
  uint8_t *copy = malloc(len > 0 ? len : 1);
  memcpy(copy, buf, len);
  free(buf);
  argdata_t ad = argdata_from_buffer(copy, len);
  compare(root, &ad);
  free(copy);
}

/* Every type and its edges, through the YAML front end as users write
 * them. */
static void test_yaml_every_type(void **state) {
  (void)state;
  static const char yaml[] =
      "%TAG ! tag:nuxi.nl,2015:cloudabi/\n---\n"
      "null: [~, null, ]\n"
      "bool: [true, false, yes, off]\n"
      "int: [0, 1, -1, 127, 128, -128, -129, 255, 256, 65535, 0x7fffffff,\n"
      "      -9223372036854775808, 9223372036854775807,\n"
      "      9223372036854775808, 18446744073709551615, 0o777]\n"
      "float: [0.0, -0.0, 1.5, -2.25e-300, 4.9e-324, 1.7976931348623157e308,\n"
      "        .inf, -.inf, .nan]\n"
      "str: [\"\", a, \"\\u00e9\\u20ac\\U0001F600\", \"nul\\0inside\",\n"
      "      \"a string long enough to need two bytes of subfield length, "
      "which happens at one hundred and twenty-eight bytes and beyond\"]\n"
      "binary: [!!binary '', !!binary AA==, !!binary /wD/AP8A/w==]\n"
      "timestamp: [1970-01-01, 1969-12-31T23:59:59.999999999Z,\n"
      "            2001-12-14t21:59:43.10-05:00, 9999-12-31T23:59:59Z,\n"
      "            0000-01-01, 1677-09-21T00:12:43.145224191Z]\n"
      "fd: [!fd 1, !fd 2, !fd 1, !executable \"\"]\n"
      "map: {{a: b}: [c], [1, {}]: {}, !fd 0: ~}\n"
      "seq: [[], [[]], [[], [~]]]\n"
      "alias: [&x {k: [1, 2]}, *x, *x]\n";
  struct config_diags d = {0};
  struct config_plan *plan =
      config_parse_buffer(yaml, strlen(yaml), "rt.yaml", &d);
  for (size_t i = 0; i < d.count; i++)
    print_error("%s\n", d.lines[i]);
  assert_non_null(plan);
  roundtrip(plan->root);
  /* The descriptors: 1, 2, the program, 0, by first appearance. */
  assert_int_equal(plan->ndescs, 4);
  config_plan_free(plan);
  config_diags_free(&d);
}

/* --- random trees ----------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

/* splitmix64: deterministic, so a failure is reproducible. */
static uint64_t rnd(void) {
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Integers around the boundaries where the encoding changes length. */
static cfg_wide random_int(void) {
  switch (rnd() % 4) {
  case 0:
    return (cfg_wide)(int64_t)rnd();
  case 1:
    return (cfg_wide)rnd(); /* 0 .. 2^64-1 */
  case 2: {
    int bits = (int)(rnd() % 64);
    cfg_wide edge = (cfg_wide)1 << bits;
    return (rnd() & 1 ? -edge : edge) + (cfg_wide)(rnd() % 3) - 1;
  }
  default:
    return (cfg_wide)(int64_t)(rnd() % 512) - 256;
  }
}

static struct cfg_node *random_tree(int depth) {
  static const char *const pieces[] = {
      "a", "xyz", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", " ", "\n"};
  unsigned kind = (unsigned)(rnd() % (depth > 0 ? 10 : 8));
  switch (kind) {
  case 0:
    return done(leaf(CFG_NULL));
  case 1:
    return mk_bool(rnd() & 1);
  case 2:
    return mk_int(random_int());
  case 3: {
    uint64_t bits = rnd();
    double f;
    memcpy(&f, &bits, sizeof(f)); /* any bit pattern, NaNs included */
    return mk_float(f);
  }
  case 4: {
    char s[400] = "";
    size_t n = rnd() % 60;
    for (size_t i = 0; i < n; i++)
      strcat(s, pieces[rnd() % 7]);
    return mk_str(s, strlen(s));
  }
  case 5: {
    uint8_t b[300];
    size_t n = rnd() % sizeof(b);
    for (size_t i = 0; i < n; i++)
      b[i] = (uint8_t)rnd();
    return mk_bin(b, n);
  }
  case 6: {
    /* Anything a year 0000..9999 timestamp can be, and more. */
    cfg_wide ns = (cfg_wide)(int64_t)rnd() * (cfg_wide)(rnd() % 40);
    return mk_ts(ns);
  }
  case 7:
    return mk_fd(rnd() % 100);
  default: {
    bool map = kind == 9;
    struct cfg_node *n = leaf(map ? CFG_MAP : CFG_SEQ);
    size_t count = rnd() % 6 * (map ? 2 : 1);
    for (size_t i = 0; i < count; i++)
      assert_int_equal(cfg_node_append(n, random_tree(depth - 1)), 0);
    return done(n);
  }
  }
}

static void test_random_trees(void **state) {
  (void)state;
  for (int i = 0; i < 2000; i++) {
    struct cfg_node *root = random_tree(4);
    roundtrip(root);
    cfg_node_unref(root);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_vectors),
      cmocka_unit_test(test_yaml_every_type),
      cmocka_unit_test(test_random_trees),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
