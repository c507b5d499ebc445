/*
 * The descriptor table's close hints (captab.h, abi/trap.h): which
 * descriptors are marked closable without a trap, that what the guest
 * marks closed is closed (and only that), that hints follow every change
 * of the table, and that lying bytes cost nothing but the guest's own
 * descriptors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "host/captab.h"
#include "trap.h"

struct world {
  struct captab t;
  uint8_t hints[CLOSE_HINT_FDS];
  uint32_t pending;
};

static struct hostobj *obj(cloudabi_filetype_t type) {
  int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  assert_true(fd >= 0);
  return hostobj_new(fd, type);
}

/* Inserts a new object of type; its number. */
static cloudabi_fd_t add(struct world *w, cloudabi_filetype_t type) {
  struct hostobj *o = obj(type);
  cloudabi_fd_t fd;
  assert_int_equal(captab_insert(&w->t, o, ~0ull, ~0ull, &fd), 0);
  hostobj_unref(o);
  return fd;
}

static int setup(void **state) {
  static struct world w;
  memset(w.hints, 0xee, sizeof(w.hints));
  w.pending = 0;
  captab_init(&w.t);
  *state = &w;
  return 0;
}

static int teardown(void **state) {
  struct world *w = *state;
  captab_free(&w->t);
  return 0;
}

static void test_which_are_quiet(void **state) {
  struct world *w = *state;
  cloudabi_fd_t f = add(w, CLOUDABI_FILETYPE_REGULAR_FILE);
  cloudabi_fd_t d = add(w, CLOUDABI_FILETYPE_DIRECTORY);
  cloudabi_fd_t s = add(w, CLOUDABI_FILETYPE_SOCKET_STREAM);
  cloudabi_fd_t m = add(w, CLOUDABI_FILETYPE_SHARED_MEMORY);
  /* Shared from now on: what is there already gets its hint. */
  captab_share_hints(&w->t, w->hints, CLOSE_HINT_FDS, &w->pending);
  assert_int_equal(w->hints[f], CLOSE_HINT_OPEN);
  assert_int_equal(w->hints[d], CLOSE_HINT_OPEN);
  assert_int_equal(w->hints[s], 0);
  assert_int_equal(w->hints[m], 0);
  assert_int_equal(w->hints[100], 0); /* free numbers: 0, not 0xee */
  assert_int_equal(w->pending, 0);
  cloudabi_fd_t f2 = add(w, CLOUDABI_FILETYPE_REGULAR_FILE);
  assert_int_equal(w->hints[f2], CLOSE_HINT_OPEN);
}

static void test_closed_by_hint(void **state) {
  struct world *w = *state;
  captab_share_hints(&w->t, w->hints, CLOSE_HINT_FDS, &w->pending);
  cloudabi_fd_t f = add(w, CLOUDABI_FILETYPE_REGULAR_FILE);
  cloudabi_fd_t g = add(w, CLOUDABI_FILETYPE_REGULAR_FILE);
  /* Marked without counting: nothing happens until the count says so. */
  w->hints[f] = CLOSE_HINT_CLOSED;
  assert_int_equal(captab_take_closed(&w->t), 0);
  w->pending = 1;
  assert_int_equal(captab_take_closed(&w->t), 1);
  struct capability *cap;
  assert_int_equal(captab_get(&w->t, f, 0, &cap), CLOUDABI_EBADF);
  assert_int_equal(captab_get(&w->t, g, 0, &cap), 0);
  assert_int_equal(w->hints[f], 0);
  assert_int_equal(w->pending, 0);
  /* The lowest free number is f again. */
  assert_int_equal(add(w, CLOUDABI_FILETYPE_SOCKET_STREAM), f);
  assert_int_equal(w->hints[f], 0);
}

static void test_lies(void **state) {
  struct world *w = *state;
  captab_share_hints(&w->t, w->hints, CLOSE_HINT_FDS, &w->pending);
  cloudabi_fd_t s = add(w, CLOUDABI_FILETYPE_SOCKET_STREAM);
  cloudabi_fd_t f = add(w, CLOUDABI_FILETYPE_REGULAR_FILE);
  /* A socket marked by hand is closed (the guest asked); a free number
   * and garbage are not descriptors; a huge count only makes us look. */
  w->hints[s] = CLOSE_HINT_CLOSED;
  w->hints[f] = 0x7f;
  w->hints[500] = CLOSE_HINT_CLOSED;
  w->pending = 0xffffffffu;
  assert_int_equal(captab_take_closed(&w->t), 1);
  struct capability *cap;
  assert_int_equal(captab_get(&w->t, s, 0, &cap), CLOUDABI_EBADF);
  assert_int_equal(captab_get(&w->t, f, 0, &cap), 0);
  assert_int_equal(w->t.count, 1);
}

static void test_replace_and_unhint(void **state) {
  struct world *w = *state;
  captab_share_hints(&w->t, w->hints, CLOSE_HINT_FDS, &w->pending);
  cloudabi_fd_t f = add(w, CLOUDABI_FILETYPE_REGULAR_FILE);
  cloudabi_fd_t s = add(w, CLOUDABI_FILETYPE_SOCKET_STREAM);
  /* fd_replace of a file by a socket: the hint follows the new object. */
  struct capability *cap;
  assert_int_equal(captab_get(&w->t, s, 0, &cap), 0);
  assert_int_equal(captab_insert_at(&w->t, f, cap->obj, ~0ull, ~0ull), 0);
  assert_int_equal(w->hints[f], 0);
  /* A lend is coming: the hint goes; if the guest had closed it by then,
   * it is closed now instead. */
  cloudabi_fd_t g = add(w, CLOUDABI_FILETYPE_REGULAR_FILE);
  assert_true(captab_unhint(&w->t, g));
  assert_int_equal(w->hints[g], 0);
  cloudabi_fd_t h = add(w, CLOUDABI_FILETYPE_REGULAR_FILE);
  w->hints[h] = CLOSE_HINT_CLOSED;
  assert_false(captab_unhint(&w->t, h));
  assert_int_equal(captab_get(&w->t, h, 0, &cap), CLOUDABI_EBADF);
  /* A trapped close clears the hint. */
  cloudabi_fd_t k = add(w, CLOUDABI_FILETYPE_DIRECTORY);
  assert_int_equal(captab_close(&w->t, k), 0);
  assert_int_equal(w->hints[k], 0);
}

static void test_clone_has_none(void **state) {
  struct world *w = *state;
  captab_share_hints(&w->t, w->hints, CLOSE_HINT_FDS, &w->pending);
  add(w, CLOUDABI_FILETYPE_REGULAR_FILE);
  struct captab child;
  assert_int_equal(captab_clone(&w->t, &child), 0);
  assert_null(child.hints);
  assert_int_equal(captab_take_closed(&child), 0);
  captab_free(&child);
  /* Past the hinted numbers: no hint, no crash. */
  struct hostobj *o = obj(CLOUDABI_FILETYPE_REGULAR_FILE);
  assert_int_equal(captab_insert_at(&w->t, CLOSE_HINT_FDS + 5, o, 0, 0), 0);
  hostobj_unref(o);
  assert_int_equal(captab_close(&w->t, CLOSE_HINT_FDS + 5), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_which_are_quiet, setup, teardown),
      cmocka_unit_test_setup_teardown(test_closed_by_hint, setup, teardown),
      cmocka_unit_test_setup_teardown(test_lies, setup, teardown),
      cmocka_unit_test_setup_teardown(test_replace_and_unhint, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_clone_has_none, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
