/*
 * cloudabi-oci's JSON reader (src/oci/json.c) on valid and invalid texts,
 * and bundle configs (src/oci/spec.c) to what the runtime takes from them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "oci/json.h"
#include "oci/spec.h"

static struct json *parse(const char *text) {
  char why[128];
  return json_parse(text, strlen(text), why, sizeof(why));
}

static void test_valid(void **state) {
  (void)state;
  struct json *j = parse(" {\"a\": [1, -2.5e1, true, false, null, \"x\"],"
                         "\"b\": {\"c\": \"\\u00e9\\ud83d\\ude00\\n\\\"\"},"
                         "\"a2\":{}, \"e\":[] , \"b\": \"last\"} ");
  assert_non_null(j);
  const struct json *a = json_get(j, "a");
  assert_non_null(a);
  assert_int_equal(a->type, JSON_ARRAY);
  assert_int_equal(a->n, 6);
  assert_true(a->items[0].number == 1);
  assert_true(a->items[1].number == -25);
  assert_true(a->items[2].type == JSON_BOOL && a->items[2].boolean);
  assert_true(a->items[3].type == JSON_BOOL && !a->items[3].boolean);
  assert_int_equal(a->items[4].type, JSON_NULL);
  assert_string_equal(a->items[5].string, "x");
  /* The last of two equal keys wins. */
  assert_string_equal(json_get_str(j, "b"), "last");
  assert_int_equal(json_get(j, "a2")->n, 0);
  assert_null(json_get(j, "nosuch"));
  assert_null(json_get_str(j, "a"));
  json_free(j);
  j = parse("{\"c\": \"\\u00e9\\ud83d\\ude00\\n\\\"\\/\\ud800\"}");
  assert_non_null(j);
  assert_string_equal(json_get_str(j, "c"),
                      "\xc3\xa9\xf0\x9f\x98\x80\n\"/\xef\xbf\xbd");
  json_free(j);
}

static void test_invalid(void **state) {
  (void)state;
  static const char *bad[] = {
      "",          "{",          "[1,",        "{\"a\" 1}", "{\"a\":}",
      "{a:1}",     "[1 2]",      "\"abc",      "tru",       "nul",
      "[1]x",      "\"\\x\"",    "\"\\u00\"",  "\"\\u0000\"", "\"a\tb\"",
      "-",         "1.2.3",      "{\"a\":1,}",
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    struct json *j = parse(bad[i]);
    if (j != NULL)
      fail_msg("accepted \"%s\"", bad[i]);
  }
  /* Nesting is bounded. */
  char deep[200];
  memset(deep, '[', sizeof(deep) - 1);
  deep[sizeof(deep) - 1] = '\0';
  assert_null(parse(deep));
}

static char dir[64];

static int spec_of(const char *json, struct oci_spec *s, char *why,
                   size_t size) {
  char p[128];
  snprintf(p, sizeof(p), "%s/config.json", dir);
  FILE *f = fopen(p, "w");
  assert_non_null(f);
  fputs(json, f);
  fclose(f);
  return oci_spec_read(dir, s, why, size);
}

static void test_spec(void **state) {
  (void)state;
  snprintf(dir, sizeof(dir), "/tmp/test_oci_json.XXXXXX");
  assert_non_null(mkdtemp(dir));
  struct oci_spec s;
  char why[512];
  assert_int_equal(
      spec_of("{\"process\":{\"args\":[\"/bin/p\",\"/etc/p.yaml\"],"
              "\"cwd\":\"/srv\",\"rlimits\":[{\"type\":\"RLIMIT_AS\","
              "\"soft\":1000000,\"hard\":2000000},{\"type\":\"RLIMIT_NPROC\","
              "\"soft\":50,\"hard\":60}]},\"root\":{\"path\":\"rootfs\","
              "\"readonly\":true},\"mounts\":[{\"destination\":\"/proc\","
              "\"type\":\"proc\",\"source\":\"proc\"},{\"destination\":"
              "\"/d\",\"type\":\"bind\",\"source\":\"/host/d\",\"options\":"
              "[\"rbind\",\"ro\"]},{\"destination\":\"/e\",\"source\":\"rel\","
              "\"options\":[\"bind\"]}],\"linux\":{\"resources\":{\"memory\":"
              "{\"limit\":500000},\"pids\":{\"limit\":100}},\"namespaces\":"
              "[{\"type\":\"pid\"},{\"type\":\"network\",\"path\":"
              "\"/run/netns/x\"}]}}",
              &s, why, sizeof(why)),
      0);
  assert_string_equal(s.program, "/bin/p");
  assert_string_equal(s.config, "/etc/p.yaml");
  assert_string_equal(s.cwd, "/srv");
  char want[128];
  snprintf(want, sizeof(want), "%s/rootfs", dir);
  assert_string_equal(s.rootfs, want);
  assert_true(s.root_ro);
  assert_int_equal(s.nmounts, 2);
  assert_int_equal(s.nignored, 1);
  assert_string_equal(s.mounts[0].dest, "/d");
  assert_string_equal(s.mounts[0].source, "/host/d");
  assert_true(s.mounts[0].ro);
  snprintf(want, sizeof(want), "%s/rel", dir);
  assert_string_equal(s.mounts[1].source, want);
  assert_false(s.mounts[1].ro);
  /* The smaller of the rlimit and the resource limit. */
  assert_int_equal(s.memory, 500000);
  assert_int_equal(s.procs, 50);
  assert_int_equal(s.fds, 0);
  assert_string_equal(s.netns, "/run/netns/x");
  oci_spec_free(&s);

  static const struct {
    const char *json, *words;
  } bad[] = {
      {"{\"process\":{\"terminal\":true,\"args\":[\"/p\",\"/c\"]},"
       "\"root\":{\"path\":\"r\"}}",
       "terminal"},
      {"{\"process\":{\"args\":[]},\"root\":{\"path\":\"r\"}}", "args[0]"},
      {"{\"process\":{\"args\":[\"/p\"]},\"root\":{\"path\":\"r\"}}",
       "org.cloudabi.config"},
      {"{\"process\":{\"args\":[\"/p\",\"/c\",\"x\"]},\"root\":{\"path\":"
       "\"r\"}}",
       "3 elements"},
      {"{\"process\":{\"args\":[\"/p\",\"/c\"]}}", "root.path"},
      {"{\"root\":{\"path\":\"r\"}}", "no process"},
      {"[]", "not a JSON object"},
      {"{\"process\":", "unexpected end"},
      {"{\"process\":{\"args\":[\"/p\",\"/c\"]},\"root\":{\"path\":\"r\"},"
       "\"mounts\":[{\"type\":\"bind\",\"destination\":\"rel\","
       "\"source\":\"/s\"}]}",
       "absolute destination"},
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    int e = spec_of(bad[i].json, &s, why, sizeof(why));
    oci_spec_free(&s);
    if (e == 0 || strstr(why, bad[i].words) == NULL)
      fail_msg("%s: got %d, \"%s\", want \"%s\"", bad[i].json, e, why,
               bad[i].words);
  }
  /* The config may come from the annotation. */
  assert_int_equal(
      spec_of("{\"process\":{\"args\":[\"/p\"]},\"root\":{\"path\":\"r\"},"
              "\"annotations\":{\"org.cloudabi.config\":\"/c.yaml\"}}",
              &s, why, sizeof(why)),
      0);
  assert_string_equal(s.config, "/c.yaml");
  assert_string_equal(s.cwd, "/");
  oci_spec_free(&s);
  char cmd[128];
  snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_valid),
      cmocka_unit_test(test_invalid),
      cmocka_unit_test(test_spec),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
