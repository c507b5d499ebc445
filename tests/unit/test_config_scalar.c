/*
 * Scalar resolution (config_scalar.c), table-driven: each row is a
 * scalar's text and what it resolves to, printed in one form so that one
 * table covers every type: "null", "bool:1", "int:-5", "float:0x1p+0"
 * (exact, %a), "str", or "bad:<reason>"; timestamps (!!timestamp only)
 * have a table of their own.
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

#include "config/config_scalar.h"

/* A signed 128-bit number in decimal. */
static void wide_str(__int128 v, char *out) {
  char buf[48];
  size_t n = 0;
  unsigned __int128 u = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
  do {
    buf[n++] = (char)('0' + (int)(u % 10));
    u /= 10;
  } while (u != 0);
  size_t o = 0;
  if (v < 0)
    out[o++] = '-';
  while (n > 0)
    out[o++] = buf[--n];
  out[o] = '\0';
}

static void show_plain(const char *s, size_t len, char *out, size_t size) {
  struct scalar_value v;
  char why[128] = "", num[48];
  int r = scalar_resolve_plain(s, len, &v, why, sizeof(why));
  if (r == SCALAR_BAD) {
    snprintf(out, size, "bad:%s", why);
    return;
  }
  switch (v.type) {
  case SCALAR_NULL:
    snprintf(out, size, "null");
    break;
  case SCALAR_BOOL:
    snprintf(out, size, "bool:%d", v.u.b);
    break;
  case SCALAR_INT:
    wide_str(v.u.i, num);
    snprintf(out, size, "int:%s", num);
    break;
  case SCALAR_FLOAT:
    if (isnan(v.u.f))
      snprintf(out, size, "float:nan");
    else
      snprintf(out, size, "float:%a", v.u.f);
    break;
  case SCALAR_TIMESTAMP:
    wide_str(v.u.i, num);
    snprintf(out, size, "ts:%s", num);
    break;
  case SCALAR_STR:
    snprintf(out, size, "str");
    break;
  }
}

static const struct {
  const char *text;
  const char *want;
} plain[] = {
    /* null */
    {"", "null"},
    {"~", "null"},
    {"null", "null"},
    {"Null", "null"},
    {"NULL", "null"},
    {"nULL", "str"},
    /* bool: the YAML 1.2 core schema's spellings only (upstream's last
     * release); YAML 1.1's are strings */
    {"true", "bool:1"},
    {"True", "bool:1"},
    {"TRUE", "bool:1"},
    {"false", "bool:0"},
    {"False", "bool:0"},
    {"FALSE", "bool:0"},
    {"yES", "str"},
    {"tRUE", "str"},
    {"y", "str"},
    {"Y", "str"},
    {"yes", "str"},
    {"Yes", "str"},
    {"YES", "str"},
    {"on", "str"},
    {"On", "str"},
    {"ON", "str"},
    {"n", "str"},
    {"N", "str"},
    {"no", "str"},
    {"No", "str"},
    {"NO", "str"},
    {"off", "str"},
    {"Off", "str"},
    {"OFF", "str"},
    /* int */
    {"0", "int:0"},
    {"-0", "int:0"},
    {"+12", "int:12"},
    {"0012", "int:12"},
    {"0x0", "int:0"},
    {"0xfF", "int:255"},
    {"0o777", "int:511"},
    {"0o8", "str"},
    {"0xg", "str"},
    {"0x", "str"},
    {"-0x1", "str"},
    {"+", "str"},
    {"-", "str"},
    {"1_000", "str"},
    {"9223372036854775807", "int:9223372036854775807"},
    {"-9223372036854775808", "int:-9223372036854775808"},
    {"18446744073709551615", "int:18446744073709551615"},
    {"0xffffffffffffffff", "int:18446744073709551615"},
    {"0o1777777777777777777777", "int:18446744073709551615"},
    {"18446744073709551616", "bad:out of range"},
    {"-9223372036854775809", "bad:out of range"},
    {"0x10000000000000000", "bad:out of range"},
    {"0o2000000000000000000000", "bad:out of range"},
    {"1000000000000000000000000000000000000000000000000000000000000000000000",
     "bad:out of range"},
    /* float */
    {"1.5", "float:0x1.8p+0"},
    {"-1.5", "float:-0x1.8p+0"},
    {"1.", "float:0x1p+0"},
    {".5", "float:0x1p-1"},
    {"+.5", "float:0x1p-1"},
    {"1e3", "float:0x1.f4p+9"},
    {"1E-3", "float:0x1.0624dd2f1a9fcp-10"},
    {"1.5e+2", "float:0x1.2cp+7"},
    {"-0.0", "float:-0x0p+0"},
    {"1e-400", "float:0x0p+0"},
    {"1e999", "bad:out of range"},
    {"-1e999", "bad:out of range"},
    {".inf", "float:inf"},
    {".Inf", "float:inf"},
    {".INF", "float:inf"},
    {"+.inf", "float:inf"},
    {"-.inf", "float:-inf"},
    {".nan", "float:nan"},
    {".NaN", "float:nan"},
    {".NAN", "float:nan"},
    {"-.nan", "str"},
    {".iNf", "str"},
    {"inf", "str"},
    {"nan", "str"},
    {".", "str"},
    {"1e", "str"},
    {"1.5.5", "str"},
    {"0x1p3", "str"},
    {"1,5", "str"},
    /* no timestamps without the tag, valid or not */
    {"1970-01-01", "str"},
    {"2001-12-14t21:59:43.10-05:00", "str"},
    {"1900-02-29", "str"},
    /* strings */
    {"hello", "str"},
    {"stdout", "str"},
    {"12:30", "str"},
};

/* What !!timestamp accepts: "ts:<ns>", "nomatch" or "bad:<reason>". */
static const struct {
  const char *text;
  const char *want;
} stamps[] = {
    {"1970-01-01", "ts:0"},
    {"2002-12-14", "ts:1039824000000000000"},
    {"2001-12-14t21:59:43.10-05:00", "ts:1008385183100000000"},
    {"2001-12-14 21:59:43.10 -5", "ts:1008385183100000000"},
    {"2001-12-15 2:59:43.10", "ts:1008385183100000000"},
    {"2001-12-15T02:59:43.1Z", "ts:1008385183100000000"},
    {"2001-12-15T02:59:43.1 Z", "ts:1008385183100000000"},
    {"2001-12-15 \t 02:59:43.1", "ts:1008385183100000000"},
    {"2001-12-15T02:59:43.", "ts:1008385183000000000"},
    {"1970-01-01T00:00:00.123456789123Z", "ts:123456789"},
    {"1970-1-1T00:00:00", "ts:0"},
    {"1969-12-31T23:59:59Z", "ts:-1000000000"},
    {"1970-01-01T00:00:00+01:00", "ts:-3600000000000"},
    {"1970-01-01T00:00:00-00:30", "ts:1800000000000"},
    {"2000-02-29", "ts:951782400000000000"},
    {"2016-12-31T23:59:60Z", "ts:1483228800000000000"},
    {"9999-12-31T23:59:59.999999999Z", "ts:253402300799999999999"},
    {"0000-01-01", "ts:-62167219200000000000"},
    {"1970-1-1", "nomatch"},
    {"70-01-01", "nomatch"},
    {"1970-01-01T", "nomatch"},
    {"1970-01-01T00:00", "nomatch"},
    {"1970-01-01T00:00:00 ", "nomatch"},
    {"1970-01-01T00:00:00ZZ", "nomatch"},
    {"1970-01-01T00:00:00+", "nomatch"},
    {"1970-01-01T00:00:00+1:3", "nomatch"},
    {"1970-01-01x00:00:00", "nomatch"},
    {"1970-00-01", "bad:month 0 out of range"},
    {"1970-13-01", "bad:month 13 out of range"},
    {"1970-01-00", "bad:day 0 out of range for 1970-01"},
    {"1900-02-29", "bad:day 29 out of range for 1900-02"},
    {"1970-04-31", "bad:day 31 out of range for 1970-04"},
    {"1970-01-01T24:00:00", "bad:time of day out of range"},
    {"1970-01-01T00:60:00", "bad:time of day out of range"},
    {"1970-01-01T00:00:61", "bad:time of day out of range"},
    {"1970-01-01T00:00:00+24:00", "bad:time zone offset out of range"},
    {"1970-01-01T00:00:00+01:60", "bad:time zone offset out of range"},
};

static void test_plain(void **state) {
  (void)state;
  size_t failures = 0;
  for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
    char got[160];
    /* An exact-size heap copy lets ASan catch reads past the end. */
    size_t len = strlen(plain[i].text);
    char *copy = malloc(len + 1);
    memcpy(copy, plain[i].text, len);
    show_plain(copy, len, got, sizeof(got));
    free(copy);
    if (strcmp(got, plain[i].want) != 0) {
      print_error("\"%s\": got %s, want %s\n", plain[i].text, got,
                  plain[i].want);
      failures++;
    }
  }
  assert_int_equal(failures, 0);
}

static void test_timestamps(void **state) {
  (void)state;
  size_t failures = 0;
  for (size_t i = 0; i < sizeof(stamps) / sizeof(stamps[0]); i++) {
    char got[160], why[128] = "", num[48];
    size_t len = strlen(stamps[i].text);
    char *copy = malloc(len + 1);
    memcpy(copy, stamps[i].text, len);
    __int128 ns;
    int r = scalar_parse_timestamp(copy, len, &ns, why, sizeof(why));
    free(copy);
    if (r == SCALAR_OK) {
      wide_str(ns, num);
      snprintf(got, sizeof(got), "ts:%s", num);
    } else if (r == SCALAR_BAD) {
      snprintf(got, sizeof(got), "bad:%s", why);
    } else {
      snprintf(got, sizeof(got), "nomatch");
    }
    if (strcmp(got, stamps[i].want) != 0) {
      print_error("\"%s\": got %s, want %s\n", stamps[i].text, got,
                  stamps[i].want);
      failures++;
    }
  }
  assert_int_equal(failures, 0);
}

/* Text is (pointer, length): a NUL inside makes no number. */
static void test_embedded_nul(void **state) {
  (void)state;
  char got[64];
  show_plain("12\0"
             "3",
             4, got, sizeof(got));
  assert_string_equal(got, "str");
  show_plain("1.5\0", 4, got, sizeof(got));
  assert_string_equal(got, "str");
  show_plain("true\0", 5, got, sizeof(got));
  assert_string_equal(got, "str");
  /* Only the given length counts: "12" of "123". */
  show_plain("123", 2, got, sizeof(got));
  assert_string_equal(got, "int:12");
}

static const struct {
  const char *text;
  const char *want; /* hex of the bytes, or "bad:<reason>" */
} base64[] = {
    {"", ""},
    {"AQI=", "0102"},
    {"AQ==", "01"},
    {"AQID", "010203"},
    {"AQ\nID\n", "010203"},
    {" A Q I D ", "010203"},
    {"/+/+", "ffeffe"},
    {"SGVsbG8sIHdvcmxkIQ==", "48656c6c6f2c20776f726c6421"},
    {"AQI", "bad:3 characters, not a multiple of 4"},
    {"A===", "bad:too much padding"},
    {"====", "bad:too much padding"},
    {"AQ=A", "bad:data after padding at offset 3"},
    {"AQ==AQ==", "bad:data after padding at offset 4"},
    {"A*==", "bad:invalid character '*' at offset 1"},
    {"AQ\x01=", "bad:invalid byte 0x01 at offset 2"},
    {"AQ-_", "bad:invalid character '-' at offset 2"},
};

static void test_base64(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof(base64) / sizeof(base64[0]); i++) {
    uint8_t *out = NULL;
    size_t len = 0;
    char why[128] = "", got[128] = "";
    int r = scalar_decode_base64(base64[i].text, strlen(base64[i].text), &out,
                                 &len, why, sizeof(why));
    if (r == SCALAR_OK) {
      for (size_t k = 0; k < len; k++)
        sprintf(got + strlen(got), "%02x", out[k]);
      free(out);
    } else {
      assert_int_equal(r, SCALAR_BAD);
      snprintf(got, sizeof(got), "bad:%s", why);
    }
    if (strcmp(got, base64[i].want) != 0)
      fail_msg("\"%s\": got %s, want %s", base64[i].text, got, base64[i].want);
  }
}

/* The explicit-tag conversions give the same values, and say when the
 * text is not of their type. */
static void test_explicit(void **state) {
  (void)state;
  bool b;
  __int128 i;
  double f;
  char why[64];
  assert_int_equal(scalar_parse_bool("True", 4, &b), SCALAR_OK);
  assert_true(b);
  assert_int_equal(scalar_parse_bool("on", 2, &b), SCALAR_NO_MATCH);
  assert_int_equal(scalar_parse_bool("1", 1, &b), SCALAR_NO_MATCH);
  assert_int_equal(scalar_parse_int("0x10", 4, &i, why, sizeof(why)),
                   SCALAR_OK);
  assert_true(i == 16);
  assert_int_equal(scalar_parse_int("1.0", 3, &i, why, sizeof(why)),
                   SCALAR_NO_MATCH);
  assert_int_equal(scalar_parse_float("7", 1, &f, why, sizeof(why)), SCALAR_OK);
  assert_true(f == 7.0);
  assert_int_equal(scalar_parse_timestamp("2001", 4, &i, why, sizeof(why)),
                   SCALAR_NO_MATCH);
  assert_true(scalar_is_null("", 0));
  assert_false(scalar_is_null("0", 1));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_plain),
      cmocka_unit_test(test_timestamps),
      cmocka_unit_test(test_embedded_nul),
      cmocka_unit_test(test_base64),
      cmocka_unit_test(test_explicit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
