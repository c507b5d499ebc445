/*
 * The guest runtime's argdata reader (abi/rt/argdata.c), compiled for the
 * host, over hand-encoded byte strings: the test vectors of the format,
 * edge values, and malformed input that must give an error, not a crash.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "argdata.h"

/* Values are compared through one printed form, so one table covers every
 * type: "null", "true", "int:-1", "uint:255", "str:A", "fd:1", "float:1.5",
 * "ts:1.500000000", "bin:0102", "seq[...]", "map{k=v,...}", or "E<n>" for
 * an error. */
static void show(const argdata_t *ad, char *out, size_t size);

static void show_iter(argdata_iter_t *it, bool map, char *out, size_t size) {
  size_t len = strlen(out);
  argdata_t k, v;
  bool first = true;
  while (map ? argdata_map_next(it, &k, &v) : argdata_seq_next(it, &v)) {
    if (!first)
      strncat(out, ",", size - strlen(out) - 1);
    first = false;
    if (map) {
      show(&k, out + strlen(out), size - strlen(out));
      strncat(out, "=", size - strlen(out) - 1);
    }
    show(&v, out + strlen(out), size - strlen(out));
  }
  if (it->error != 0)
    snprintf(out + strlen(out), size - strlen(out), "!E%d", it->error);
  (void)len;
}

static void show(const argdata_t *ad, char *out, size_t size) {
  argdata_type_t type;
  out[0] = '\0';
  cloudabi_errno_t e = argdata_type(ad, &type);
  if (e != 0) {
    snprintf(out, size, "E%d", e);
    return;
  }
  switch (type) {
  case ARGDATA_NULL:
    snprintf(out, size, "null");
    return;
  case ARGDATA_BOOL: {
    bool b;
    e = argdata_get_bool(ad, &b);
    if (e == 0)
      snprintf(out, size, "%s", b ? "true" : "false");
    break;
  }
  case ARGDATA_INT: {
    int64_t s;
    uint64_t u;
    e = argdata_get_int_s(ad, &s);
    if (e == 0) {
      snprintf(out, size, "int:%lld", (long long)s);
    } else if ((e = argdata_get_int_u(ad, &u)) == 0) {
      snprintf(out, size, "uint:%llu", (unsigned long long)u);
    }
    break;
  }
  case ARGDATA_STR: {
    const char *s;
    size_t len;
    e = argdata_get_str(ad, &s, &len);
    if (e == 0)
      snprintf(out, size, "str:%.*s", (int)len, s);
    break;
  }
  case ARGDATA_FD: {
    cloudabi_fd_t fd;
    e = argdata_get_fd(ad, &fd);
    if (e == 0)
      snprintf(out, size, "fd:%u", fd);
    break;
  }
  case ARGDATA_FLOAT: {
    double d;
    e = argdata_get_float(ad, &d);
    if (e == 0)
      snprintf(out, size, "float:%g", d);
    break;
  }
  case ARGDATA_TIMESTAMP: {
    argdata_timestamp_t ts;
    e = argdata_get_timestamp(ad, &ts);
    if (e == 0)
      snprintf(out, size, "ts:%lld.%09u", (long long)ts.sec, ts.nsec);
    break;
  }
  case ARGDATA_BINARY: {
    const void *data;
    size_t len;
    e = argdata_get_binary(ad, &data, &len);
    if (e == 0) {
      snprintf(out, size, "bin:");
      for (size_t i = 0; i < len; i++)
        snprintf(out + strlen(out), size - strlen(out), "%02x",
                 ((const uint8_t *)data)[i]);
    }
    break;
  }
  case ARGDATA_MAP:
  case ARGDATA_SEQ: {
    argdata_iter_t it;
    bool map = type == ARGDATA_MAP;
    e = map ? argdata_map_iterate(ad, &it) : argdata_seq_iterate(ad, &it);
    if (e == 0) {
      snprintf(out, size, map ? "map{" : "seq[");
      show_iter(&it, map, out, size);
      strncat(out, map ? "}" : "]", size - strlen(out) - 1);
    }
    break;
  }
  }
  if (e != 0)
    snprintf(out, size, "E%d", e);
}

struct vector {
  const char *bytes; /* hex, spaces ignored */
  const char *want;
};

static const struct vector vectors[] = {
    /* The format's own examples. */
    {"", "null"},
    {"02", "false"},
    {"02 01", "true"},
    {"05", "int:0"},
    {"05 01", "int:1"},
    {"05 7f", "int:127"},
    {"05 80", "int:-128"},
    {"05 ff", "int:-1"},
    {"05 00 ff", "int:255"},
    {"05 03 e8", "int:1000"},
    {"05 fc 18", "int:-1000"},
    {"04 3f f8 00 00 00 00 00 00", "float:1.5"},
    {"09 59 68 2f 00", "ts:1.500000000"},
    {"01 01 02", "bin:0102"},
    {"01", "bin:"},
    {"08 41 00", "str:A"},
    {"08 00", "str:"},
    {"03 00 00 00 02", "fd:2"},
    {"07 81 05 82 02 01 83 08 41 00", "seq[int:0,true,str:A]"},
    {"06 88 08 74 6d 70 64 69 72 00 85 03 00 00 00 00 89 08 6c 6f 67 66 69 6c "
     "65 00 85 03 00 00 00 01",
     "map{str:tmpdir=fd:0,str:logfile=fd:1}"},
    {"07", "seq[]"},
    {"06", "map{}"},
    {"07 80", "seq[null]"},
    {"07 80 80", "seq[null,null]"},
    /* Integer range edges. */
    {"05 7f ff ff ff ff ff ff ff", "int:9223372036854775807"},
    {"05 80 00 00 00 00 00 00 00", "int:-9223372036854775808"},
    {"05 00 80 00 00 00 00 00 00 00", "uint:9223372036854775808"},
    {"05 00 ff ff ff ff ff ff ff ff", "uint:18446744073709551615"},
    {"05 ff ff ff 80", "int:-128"}, /* redundant sign bytes are accepted */
    {"05 01 00 00 00 00 00 00 00 00", "E68"}, /* 2^64: ERANGE */
    {"05 ff 7f ff ff ff ff ff ff ff", "E68"}, /* below INT64_MIN */
    /* Timestamps before 1970 and with 12 bytes. */
    {"09 ff", "ts:-1.999999999"},
    {"09 c4 65 36 00", "ts:-1.000000000"},
    {"09", "ts:0.000000000"},
    {"09 7f ff ff ff ff ff ff ff ff ff ff ff", "E68"},
    {"09 00 00 00 00 3b 9a ca 00", "ts:1.000000000"},
    {"09 01 00 00 00 00 00 00 00 00 00 00 00 00", "E68"},
    /* Malformed values. */
    {"0a", "E28"},                 /* unknown tag */
    {"00", "E28"},                 /* tag 0 is not null */
    {"02 02", "E28"},              /* bool other than 01 */
    {"02 01 01", "E28"},
    {"03 00 00 02", "E28"},        /* fd of 3 bytes */
    {"03 ff ff ff ff", "E8"},      /* the invalid descriptor */
    {"03 80 00 00 00", "E8"},      /* beyond INT_MAX */
    {"04 3f f8", "E28"},           /* short float */
    {"08 41", "E28"},              /* string without NUL */
    {"08 c0 80 00", "E28"},        /* overlong NUL */
    {"08 ed a0 80 00", "E28"},     /* surrogate */
    {"08 f4 90 80 80 00", "E28"},  /* above U+10FFFF */
    {"08 e2 82 00", "E28"},        /* truncated sequence */
    {"08 e2 82 ac 00", "str:\xe2\x82\xac"},
    /* Malformed subfields stop iteration with EINVAL. */
    {"07 85 05", "seq[!E28]"},     /* length beyond the buffer */
    {"07 05", "seq[!E28]"},        /* length without a final byte */
    {"07 00 81 05", "seq[!E28]"},  /* overlong length */
    {"07 81 05 83 08", "seq[int:0!E28]"},
    {"06 82 08 00", "map{!E28}"},  /* key without value */
    {"07 81 0a", "seq[E28]"},      /* bad tag inside */
    {"07 ff ff ff ff ff ff ff ff ff ff 7f", "seq[!E28]"}, /* huge length */
};

static size_t parse_hex(const char *hex, uint8_t *out) {
  size_t n = 0;
  while (*hex != '\0') {
    if (*hex == ' ') {
      hex++;
      continue;
    }
    unsigned v;
    sscanf(hex, "%2x", &v);
    out[n++] = (uint8_t)v;
    hex += 2;
  }
  return n;
}

static void test_vectors(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
    uint8_t buf[512];
    size_t len = parse_hex(vectors[i].bytes, buf);
    /* A heap copy of exactly `len` bytes lets ASan catch overreads. */
    uint8_t *copy = malloc(len + 1);
    memcpy(copy, buf, len);
    argdata_t ad = argdata_from_buffer(copy, len);
    char out[512];
    show(&ad, out, sizeof(out));
    if (strcmp(out, vectors[i].want) != 0)
      fail_msg("vector %zu (%s): got %s, want %s", i, vectors[i].bytes, out,
               vectors[i].want);
    free(copy);
  }
}

/* Every prefix of every valid vector is read without a crash. */
static void test_truncations(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
    uint8_t buf[512];
    size_t len = parse_hex(vectors[i].bytes, buf);
    for (size_t cut = 0; cut < len; cut++) {
      uint8_t *copy = malloc(cut + 1);
      memcpy(copy, buf, cut);
      argdata_t ad = argdata_from_buffer(copy, cut);
      char out[512];
      show(&ad, out, sizeof(out));
      free(copy);
    }
  }
}

static void test_type_mismatch(void **state) {
  (void)state;
  uint8_t str[] = {0x08, 'x', 0};
  argdata_t ad = argdata_from_buffer(str, sizeof(str));
  int64_t i;
  bool b;
  cloudabi_fd_t fd;
  argdata_iter_t it;
  assert_int_equal(argdata_get_int_s(&ad, &i), CLOUDABI_EINVAL);
  assert_int_equal(argdata_get_bool(&ad, &b), CLOUDABI_EINVAL);
  assert_int_equal(argdata_get_fd(&ad, &fd), CLOUDABI_EINVAL);
  assert_int_equal(argdata_map_iterate(&ad, &it), CLOUDABI_EINVAL);
  argdata_t null = argdata_from_buffer(NULL, 0);
  assert_int_equal(argdata_seq_iterate(&null, &it), CLOUDABI_EINVAL);
}

/* A two-byte subfield length: 128 = 01 80. */
static void test_long_length(void **state) {
  (void)state;
  uint8_t buf[3 + 128] = {0x07, 0x01, 0x80, 0x05};
  argdata_t ad = argdata_from_buffer(buf, sizeof(buf));
  char out[64];
  show(&ad, out, sizeof(out));
  assert_string_equal(out, "seq[int:0]");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_vectors),
      cmocka_unit_test(test_truncations),
      cmocka_unit_test(test_type_mismatch),
      cmocka_unit_test(test_long_length),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
