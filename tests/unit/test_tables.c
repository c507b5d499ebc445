/*
 * The supervisor's tables: the descriptor table (lowest free slot, rights
 * checks, shared host objects, limits) and the tid map (growth, removal
 * with probe chains intact).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>
#include <fcntl.h>
#include <unistd.h>

#include "host/captab.h"
#include "supervisor/tasks.h"

static struct hostobj *devnull(void) {
  int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  assert_true(fd >= 0);
  return hostobj_new(fd, CLOUDABI_FILETYPE_CHARACTER_DEVICE);
}

static void test_captab(void **state) {
  (void)state;
  struct captab t;
  captab_init(&t);
  struct hostobj *a = devnull(), *b = devnull();
  cloudabi_fd_t fd;
  assert_int_equal(captab_insert(&t, a, CLOUDABI_RIGHT_FD_READ, 0, &fd), 0);
  assert_int_equal(fd, 0);
  assert_int_equal(captab_insert(&t, b, CLOUDABI_RIGHT_FD_WRITE, 0, &fd), 0);
  assert_int_equal(fd, 1);
  assert_int_equal(captab_insert(&t, a, 0, 0, &fd), 0);
  assert_int_equal(fd, 2);
  assert_int_equal(a->refcount, 3); /* ours and two slots */

  struct capability *cap;
  assert_int_equal(captab_get(&t, 0, CLOUDABI_RIGHT_FD_READ, &cap), 0);
  assert_ptr_equal(cap->obj, a);
  assert_int_equal(captab_get(&t, 0, CLOUDABI_RIGHT_FD_WRITE, &cap),
                   CLOUDABI_ENOTCAPABLE);
  assert_int_equal(captab_get(&t, 0, CLOUDABI_RIGHT_FD_READ |
                                         CLOUDABI_RIGHT_FD_WRITE, &cap),
                   CLOUDABI_ENOTCAPABLE);
  assert_int_equal(captab_get(&t, 3, 0, &cap), CLOUDABI_EBADF);
  assert_int_equal(captab_get(&t, 0xffffffff, 0, &cap), CLOUDABI_EBADF);

  /* The lowest free number is reused. */
  assert_int_equal(captab_close(&t, 1), 0);
  assert_int_equal(captab_close(&t, 1), CLOUDABI_EBADF);
  assert_int_equal(captab_insert(&t, a, 0, 0, &fd), 0);
  assert_int_equal(fd, 1);

  /* insert_at replaces, and a far number grows the table. */
  assert_int_equal(captab_insert_at(&t, 1, b, CLOUDABI_RIGHT_FD_SEEK, 0), 0);
  assert_int_equal(captab_get(&t, 1, CLOUDABI_RIGHT_FD_SEEK, &cap), 0);
  assert_ptr_equal(cap->obj, b);
  assert_int_equal(captab_insert_at(&t, 1000, b, 0, 0), 0);
  assert_int_equal(captab_insert_at(&t, CAPTAB_MAX, b, 0, 0), CLOUDABI_EBADF);

  struct captab copy;
  assert_int_equal(captab_clone(&t, &copy), 0);
  assert_int_equal(copy.count, t.count);
  assert_int_equal(captab_get(&copy, 1000, 0, &cap), 0);
  captab_free(&copy);
  captab_free(&t);
  assert_int_equal(a->refcount, 1);
  assert_int_equal(b->refcount, 1);
  hostobj_unref(a);
  hostobj_unref(b);
}

static void test_captab_full(void **state) {
  (void)state;
  struct captab t;
  captab_init(&t);
  struct hostobj *a = devnull();
  cloudabi_fd_t fd;
  for (uint32_t i = 0; i < CAPTAB_MAX; i++)
    assert_int_equal(captab_insert(&t, a, 0, 0, &fd), 0);
  assert_int_equal(captab_insert(&t, a, 0, 0, &fd), CLOUDABI_EMFILE);
  captab_free(&t);
  hostobj_unref(a);
}

static void test_tidmap(void **state) {
  (void)state;
  struct tidmap m = {0};
  struct gproc p = {0};
  /* Sequential tids collide in runs; random removals must keep the rest. */
  for (pid_t tid = 1; tid <= 5000; tid++)
    assert_non_null(tasks_add_thread(&m, tid, &p));
  assert_int_equal(p.nthreads, 5000);
  for (pid_t tid = 1; tid <= 5000; tid += 3)
    tasks_remove_thread(&m, tid);
  for (pid_t tid = 1; tid <= 5000; tid++) {
    struct gthread *t = tidmap_get(&m, tid);
    if ((tid - 1) % 3 == 0)
      assert_null(t);
    else
      assert_true(t != NULL && t->tid == tid && t->proc == &p);
  }
  assert_null(tidmap_get(&m, 99999));
  tasks_free(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_captab),
      cmocka_unit_test(test_captab_full),
      cmocka_unit_test(test_tidmap),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
