/*
 * The file-system view of cloudabi-run --root/--mount (config/fsview.c):
 * lexical normalisation as a table, and on a real tree that no path, be it
 * "..", absolute or through a symlink, reaches outside the root and the
 * mounts, that read-only mounts refuse writes, and that the longest mount
 * serves a path.
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

#include "config/fsview.h"

static void test_normalise(void **state) {
  (void)state;
  static const struct {
    const char *cwd, *path, *want;
  } rows[] = {
      {"/", "a/b", "/a/b"},
      {"/x/y", "a", "/x/y/a"},
      {"/x/y", "../a", "/x/a"},
      {"/x/y", "../../../../a", "/a"},
      {"/x", "/abs//./p/", "/abs/p"},
      {"/", "..", "/"},
      {"/", ".", "/"},
      {"/", "", "/"},
      {"/x", "a/../../..", "/"},
      {"/", "/a/b/../c/./d/..", "/a/c"},
      {"/", "...", "/..."},
      {"/", "..a/b..", "/..a/b.."},
      {NULL, "x/", "/x"},
  };
  for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
    char *got = fsview_normalise(rows[i].cwd, rows[i].path);
    assert_non_null(got);
    if (strcmp(got, rows[i].want) != 0)
      fail_msg("cwd %s path \"%s\": got %s, want %s", rows[i].cwd,
               rows[i].path, got, rows[i].want);
    free(got);
  }
}

static char top[64];

static void put(const char *rel, const char *text) {
  char p[256];
  snprintf(p, sizeof(p), "%s/%s", top, rel);
  FILE *f = fopen(p, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static void dir(const char *rel) {
  char p[256];
  snprintf(p, sizeof(p), "%s/%s", top, rel);
  assert_int_equal(mkdir(p, 0700), 0);
}

static void link_to(const char *target, const char *rel) {
  char p[256];
  snprintf(p, sizeof(p), "%s/%s", top, rel);
  assert_int_equal(symlink(target, p), 0);
}

/* What path opens to under v: the file's first line, or an errno name. */
static const char *opened(const struct fsview *v, const char *path, int flags,
                          bool follow, bool *ro) {
  static char buf[64];
  int fd = fsview_open(v, path, flags, follow, ro);
  if (fd < 0)
    return errno == ENOENT   ? "ENOENT"
           : errno == ELOOP  ? "ELOOP"
           : errno == EROFS  ? "EROFS"
           : errno == ENOTDIR ? "ENOTDIR"
           : errno == EXDEV  ? "EXDEV"
                             : "other";
  ssize_t n = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  buf[n > 0 ? n : 0] = '\0';
  char *nl = strchr(buf, '\n');
  if (nl != NULL)
    *nl = '\0';
  return n >= 0 ? buf : "a directory";
}

static void test_view(void **state) {
  (void)state;
  snprintf(top, sizeof(top), "/tmp/test_fsview.XXXXXX");
  assert_non_null(mkdtemp(top));
  dir("root");
  dir("root/etc");
  dir("root/srv");
  dir("root/data");
  dir("data");
  dir("data/sub");
  put("secret", "secret\n");
  put("root/etc/f", "rootfs file\n");
  put("root/data/hidden", "under the mount\n");
  put("data/g", "mounted file\n");
  put("data/sub/h", "deeper\n");
  put("single", "a file mount\n");
  char abs_secret[128], up[128];
  snprintf(abs_secret, sizeof(abs_secret), "%s/secret", top);
  snprintf(up, sizeof(up), "../../../../../../..%s/secret", top);
  link_to(abs_secret, "root/srv/abs");
  link_to(up, "root/srv/up");
  link_to("/etc/f", "root/srv/inside");
  link_to(abs_secret, "data/out");

  struct fsview v;
  fsview_init(&v);
  char why[256], p[256];
  snprintf(p, sizeof(p), "%s/root", top);
  assert_int_equal(fsview_add(&v, "/", p, false, why, sizeof(why)), 0);
  snprintf(p, sizeof(p), "%s/data", top);
  assert_int_equal(fsview_add(&v, "/data", p, true, why, sizeof(why)), 0);
  snprintf(p, sizeof(p), "%s/single", top);
  assert_int_equal(fsview_add(&v, "/etc/single", p, false, why, sizeof(why)),
                   0);
  assert_int_equal(fsview_set_cwd(&v, "/srv"), 0);

  static const struct {
    const char *path;
    bool follow;
    int flags;
    const char *want;
    bool ro;
  } rows[] = {
      {"/etc/f", false, O_RDONLY, "rootfs file", false},
      {"../etc/f", false, O_RDONLY, "rootfs file", false},
      {"../../../../etc/f", false, O_RDONLY, "rootfs file", false},
      {"../../../../secret", false, O_RDONLY, "ENOENT", false},
      {"/../secret", false, O_RDONLY, "ENOENT", false},
      {"/secret", false, O_RDONLY, "ENOENT", false},
      /* Symlinks: refused without follow, inside the root with it. */
      {"abs", false, O_RDONLY, "ELOOP", false},
      {"abs", true, O_RDONLY, "ENOENT", false},
      {"up", true, O_RDONLY, "ENOENT", false},
      {"inside", true, O_RDONLY, "rootfs file", false},
      /* The mount hides what is beneath it in the rootfs. */
      {"/data/g", false, O_RDONLY, "mounted file", true},
      {"/data/hidden", false, O_RDONLY, "ENOENT", true},
      {"/data/sub/../g", false, O_RDONLY, "mounted file", true},
      {"/data/../etc/f", false, O_RDONLY, "rootfs file", false},
      {"/data/sub/../../../secret", false, O_RDONLY, "ENOENT", false},
      {"/data/out", true, O_RDONLY, "ENOENT", true},
      {"/datax/g", false, O_RDONLY, "ENOENT", false},
      /* Read-only: no write open, no creation. */
      {"/data/g", false, O_RDWR, "EROFS", true},
      {"/data/new", false, O_WRONLY | O_CREAT, "EROFS", true},
      {"/etc/single", false, O_RDONLY, "a file mount", false},
      {"/etc/single/x", false, O_RDONLY, "ENOTDIR", false},
  };
  for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
    bool ro = !rows[i].ro;
    const char *got =
        opened(&v, rows[i].path, rows[i].flags, rows[i].follow, &ro);
    if (strcmp(got, rows[i].want) != 0 ||
        (strcmp(got, "ENOENT") != 0 && ro != rows[i].ro))
      fail_msg("row %zu, \"%s\": got %s (ro %d), want %s (ro %d)", i,
               rows[i].path, got, ro, rows[i].want, rows[i].ro);
  }
  /* A write beneath the writable root works, and stays there. */
  bool ro;
  int fd = fsview_open(&v, "/srv/new", O_WRONLY | O_CREAT, false, &ro);
  assert_true(fd >= 0);
  close(fd);
  snprintf(p, sizeof(p), "%s/root/srv/new", top);
  assert_int_equal(access(p, F_OK), 0);
  fsview_free(&v);

  /* A view without a root names nothing; a root must be a directory. */
  fsview_init(&v);
  assert_int_equal(fsview_open(&v, "/x", O_RDONLY, false, &ro), -1);
  assert_int_equal(errno, ENOENT);
  snprintf(p, sizeof(p), "%s/secret", top);
  assert_int_equal(fsview_add(&v, "/", p, false, why, sizeof(why)), -1);
  fsview_free(&v);
  char cmd[128];
  snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
  assert_int_equal(system(cmd), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_normalise),
      cmocka_unit_test(test_view),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
