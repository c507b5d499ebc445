/*
 * libFuzzer target for the config parser: any bytes as YAML, parse phase
 * only (nothing is opened, so the fuzzer cannot touch the file system).
 * Besides crashes, leaks and hangs (the sanitizers' part), it checks what
 * must hold for every input:
 *   - a failed parse has diagnostics, each one line naming the config;
 *   - a plan has none, its argdata reads back without error through the
 *     guest runtime's reader, and every descriptor number in it is below
 *     the plan's descriptor count;
 *   - the plan prints in both formats.
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
      fprintf(stderr, "fuzz_config: check failed: %s\n", #cond);               \
      abort();                                                                 \
    }                                                                          \
  } while (0)

/* Walks a value; every part must read without error. */
static void check_value(const argdata_t *ad, size_t nfds, int depth) {
  CHECK(depth <= CONFIG_MAX_DEPTH + 1);
  argdata_type_t type;
  CHECK(argdata_type(ad, &type) == 0);
  argdata_iter_t it;
  argdata_t k, v;
  switch (type) {
  case ARGDATA_NULL:
    break;
  case ARGDATA_BINARY: {
    const void *p;
    size_t len;
    CHECK(argdata_get_binary(ad, &p, &len) == 0);
    break;
  }
  case ARGDATA_BOOL: {
    bool b;
    CHECK(argdata_get_bool(ad, &b) == 0);
    break;
  }
  case ARGDATA_FD: {
    cloudabi_fd_t fd;
    CHECK(argdata_get_fd(ad, &fd) == 0);
    CHECK(fd < nfds);
    break;
  }
  case ARGDATA_FLOAT: {
    double f;
    CHECK(argdata_get_float(ad, &f) == 0);
    break;
  }
  case ARGDATA_INT: {
    int64_t s;
    uint64_t u;
    /* Config integers are within -2^63 .. 2^64-1: one of these reads. */
    CHECK(argdata_get_int_s(ad, &s) == 0 || argdata_get_int_u(ad, &u) == 0);
    break;
  }
  case ARGDATA_STR: {
    const char *s;
    size_t len;
    CHECK(argdata_get_str(ad, &s, &len) == 0);
    break;
  }
  case ARGDATA_TIMESTAMP: {
    argdata_timestamp_t ts;
    CHECK(argdata_get_timestamp(ad, &ts) == 0);
    break;
  }
  case ARGDATA_SEQ:
    CHECK(argdata_seq_iterate(ad, &it) == 0);
    while (argdata_seq_next(&it, &v))
      check_value(&v, nfds, depth + 1);
    CHECK(it.error == 0);
    break;
  case ARGDATA_MAP:
    CHECK(argdata_map_iterate(ad, &it) == 0);
    while (argdata_map_next(&it, &k, &v)) {
      check_value(&k, nfds, depth + 1);
      check_value(&v, nfds, depth + 1);
    }
    CHECK(it.error == 0);
    break;
  }
}

static void check_plan(const struct config_plan *plan) {
  size_t len;
  const uint8_t *bytes = config_plan_argdata(plan, &len);
  CHECK(len <= CONFIG_MAX_ARGDATA);
  argdata_t ad = argdata_from_buffer(bytes, len);
  check_value(&ad, config_plan_nfds(plan), 0);

  /* The printer, with made-up rights: nothing was opened. */
  struct launch_config lc = {0};
  lc.nfds = config_plan_nfds(plan);
  lc.fds = calloc(lc.nfds > 0 ? lc.nfds : 1, sizeof(*lc.fds));
  CHECK(lc.fds != NULL);
  for (size_t i = 0; i < lc.nfds; i++)
    lc.fds[i].host_fd = -1;
  char *out = NULL;
  size_t out_len = 0;
  FILE *f = open_memstream(&out, &out_len);
  CHECK(f != NULL);
  CHECK(plan_print(plan, &lc, PLAN_TEXT, NULL, f) == 0);
  CHECK(plan_print(plan, &lc, PLAN_JSON, NULL, f) == 0);
  fclose(f);
  free(out);
  launch_config_free(&lc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct config_diags d = {0};
  struct config_plan *plan = config_parse_buffer(data, size, "fuzz.yaml", &d);
  if (plan == NULL) {
    CHECK(d.count > 0 || d.out_of_memory);
  } else {
    CHECK(d.count == 0);
    check_plan(plan);
  }
  for (size_t i = 0; i < d.count; i++) {
    CHECK(strncmp(d.lines[i], "fuzz.yaml:", 10) == 0);
    CHECK(strchr(d.lines[i], '\n') == NULL);
  }
  config_plan_free(plan);
  config_diags_free(&d);
  return 0;
}
