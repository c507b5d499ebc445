/*
 * Path resolution beneath a directory (path.c), table-driven, on a real
 * directory tree: which paths open, which are escapes (ENOTCAPABLE), how
 * a path splits into the directory that holds its last component and
 * that component, and which paths are plain entries.
 */
#include <errno.h>
#include <fcntl.h>
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

#include "calls/path.h"

struct tree {
  char root[64]; /* holds "in" (the capability) and "secret" */
  int in;
};

static int setup(void **state) {
  struct tree *t = calloc(1, sizeof(*t));
  if (t == NULL)
    return -1;
  snprintf(t->root, sizeof(t->root), "/tmp/test_path.XXXXXX");
  if (mkdtemp(t->root) == NULL)
    return -1;
  char cmd[512];
  snprintf(cmd, sizeof(cmd),
           "cd %s && mkdir -p in/sub/deep && echo s > secret && "
           "echo f > in/file && ln -s /etc in/abs && ln -s ../secret in/rel "
           "&& ln -s sub in/insub && ln -s ../file in/sub/up && "
           "ln -s ../../secret in/sub/out && ln -s /proc/self in/self",
           t->root);
  if (system(cmd) != 0)
    return -1;
  char in[96];
  snprintf(in, sizeof(in), "%s/in", t->root);
  t->in = open(in, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  *state = t;
  return t->in < 0 ? -1 : 0;
}

static int teardown(void **state) {
  struct tree *t = *state;
  char cmd[128];
  close(t->in);
  snprintf(cmd, sizeof(cmd), "rm -rf %s", t->root);
  int r = system(cmd);
  free(t);
  return r == 0 ? 0 : -1;
}

static struct gpath gp(const char *s) {
  struct gpath p;
  p.len = strlen(s);
  memcpy(p.str, s, p.len + 1);
  return p;
}

static void test_open(void **state) {
  struct tree *t = *state;
  static const struct {
    const char *path;
    bool follow;
    cloudabi_errno_t want;
  } rows[] = {
      {"file", false, 0},
      {".", false, 0},
      {"sub/..", false, 0},
      {"sub/../file", false, 0},
      {"insub/deep", false, 0}, /* an inner symlink, followed */
      {"sub/up", true, 0},      /* a symlink to ../file, still inside */
      {"sub/up", false, 0},     /* O_PATH|O_NOFOLLOW: the link itself */
      {"missing", false, CLOUDABI_ENOENT},
      {"file/", false, CLOUDABI_ENOTDIR},
      {"..", false, CLOUDABI_ENOTCAPABLE},
      {"../secret", false, CLOUDABI_ENOTCAPABLE},
      {"../in/file", false, CLOUDABI_ENOTCAPABLE},
      {"sub/../../secret", false, CLOUDABI_ENOTCAPABLE},
      {"abs", true, CLOUDABI_ENOTCAPABLE},
      {"abs/", false, CLOUDABI_ENOTCAPABLE},
      {"abs/passwd", false, CLOUDABI_ENOTCAPABLE},
      {"rel", true, CLOUDABI_ENOTCAPABLE},
      {"sub/out", true, CLOUDABI_ENOTCAPABLE},
      {"self/fd/0", true, CLOUDABI_ENOTCAPABLE},
      {"/etc", false, CLOUDABI_ENOTCAPABLE},
  };
  for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
    struct gpath p = gp(rows[i].path);
    int fd = -1;
    cloudabi_errno_t e = path_open(t->in, &p, O_PATH, 0, rows[i].follow, &fd);
    if (e != rows[i].want)
      fail_msg("%s (follow %d): errno %u, want %u", rows[i].path,
               rows[i].follow, e, rows[i].want);
    if (e == 0)
      close(fd);
  }
  /* A real open of a file beneath a magic link, through /proc/self. */
  int proc = open("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  assert_true(proc >= 0);
  struct gpath root = gp("root/etc"), fd0 = gp("fd/0"), cwd = gp("cwd/");
  int fd;
  assert_int_equal(path_open(proc, &root, O_RDONLY, 0, true, &fd),
                   CLOUDABI_ENOTCAPABLE);
  assert_int_equal(path_open(proc, &fd0, O_RDONLY, 0, true, &fd),
                   CLOUDABI_ENOTCAPABLE);
  /* Not followed: it is a symlink, so O_NOFOLLOW refuses it. */
  assert_int_equal(path_open(proc, &fd0, O_RDONLY, 0, false, &fd),
                   CLOUDABI_ELOOP);
  assert_int_equal(path_open(proc, &cwd, O_RDONLY, 0, false, &fd),
                   CLOUDABI_ENOTCAPABLE);
  close(proc);
}

static void test_at(void **state) {
  struct tree *t = *state;
  static const struct {
    const char *path;
    cloudabi_errno_t want;
    bool own_dir;     /* the parent was opened */
    const char *name; /* the last component as given to the call */
  } rows[] = {
      {"file", 0, false, "file"},
      {"new", 0, false, "new"},
      {"sub/new", 0, true, "new"},
      {"sub/deep/", 0, true, "deep/"},
      {"sub//x", 0, true, "x"},
      {"insub/x", 0, true, "x"},
      {"new/", 0, false, "new/"}, /* to be created: the call decides */
      {".", 0, false, "."},
      {"sub/..", 0, true, ".."},
      {"..", CLOUDABI_ENOTCAPABLE, false, NULL},
      {"sub/../..", CLOUDABI_ENOTCAPABLE, false, NULL},
      {"../x", CLOUDABI_ENOTCAPABLE, false, NULL},
      {"abs/x", CLOUDABI_ENOTCAPABLE, false, NULL},
      {"abs/", CLOUDABI_ENOTCAPABLE, false, NULL},
      {"rel/", CLOUDABI_ENOTCAPABLE, false, NULL},
      {"abs/.", CLOUDABI_ENOTCAPABLE, false, NULL},
      {"missing/x", CLOUDABI_ENOENT, false, NULL},
      {"file/x", CLOUDABI_ENOTDIR, false, NULL},
  };
  for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
    struct gpath p = gp(rows[i].path);
    struct path_at at;
    cloudabi_errno_t e = path_at(t->in, &p, &at);
    if (e != rows[i].want)
      fail_msg("%s: errno %u, want %u", rows[i].path, e, rows[i].want);
    /* The copy is left as it was. */
    assert_string_equal(p.str, rows[i].path);
    assert_int_equal(p.len, strlen(rows[i].path));
    if (e != 0)
      continue;
    assert_int_equal(at.owned >= 0, rows[i].own_dir);
    assert_int_equal(at.dirfd == t->in, !rows[i].own_dir);
    assert_string_equal(at.name, rows[i].name);
    path_at_done(&at);
    assert_int_equal(at.owned, -1);
  }
}

static void test_entry_and_lookup(void **state) {
  (void)state;
  static const struct {
    const char *path;
    bool entry;
  } rows[] = {{"a", true},    {".", true},   {"..", false}, {"a/", false},
              {"a/b", false}, {"...", true}, {".a", true},  {"a..", true}};
  for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
    struct gpath p = gp(rows[i].path);
    if (path_is_entry(&p) != rows[i].entry)
      fail_msg("%s: entry %d", rows[i].path, !rows[i].entry);
  }
  bool follow;
  assert_int_equal(path_lookup_follow(5, &follow), 0);
  assert_false(follow);
  assert_int_equal(path_lookup_follow(5 | (1ull << 32), &follow), 0);
  assert_true(follow);
  assert_int_equal(path_lookup_follow(5 | (2ull << 32), &follow),
                   CLOUDABI_EINVAL);
  assert_int_equal(path_lookup_follow(1ull << 63, &follow), CLOUDABI_EINVAL);
  char why[128];
  assert_int_equal(path_check_kernel(why, sizeof(why)), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_open),
      cmocka_unit_test(test_at),
      cmocka_unit_test(test_entry_and_lookup),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
