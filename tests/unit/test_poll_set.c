/*
 * The supervisor's poll pieces without a guest (src/calls/poll.c): parsing with
 * the error each bad subscription gets, readiness and nbytes on host
 * pipes, hangup, clock deadlines, the PROC_TERMINATE event of a process
 * descriptor, and what a parked poll waits for.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "calls/poll_set.h"
#include "supervisor/park.h"
#include "supervisor/sup.h"

#define R(x) CLOUDABI_RIGHT_##x
#define E(x) CLOUDABI_EVENTTYPE_##x
#define MS 1000000ull

static const cloudabi_rights_t pipe_rights =
    R(FD_READ) | R(FD_WRITE) | R(POLL_FD_READWRITE);

struct fixture {
  struct captab fds;
  int rd, wr; /* host pipe ends, owned by the table */
};

/* Guest descriptors: 0 the pipe's read end, 1 its write end, 2 the read
 * end without POLL_FD_READWRITE, 3 a process descriptor (with an eventfd
 * standing in for the process's pidfd). */
static int setup(void **state) {
  struct fixture *f = calloc(1, sizeof(*f));
  int p[2];
  assert_int_equal(pipe2(p, O_NONBLOCK | O_CLOEXEC), 0);
  f->rd = p[0];
  f->wr = p[1];
  captab_init(&f->fds);
  struct hostobj *r = hostobj_new(p[0], CLOUDABI_FILETYPE_SOCKET_STREAM);
  struct hostobj *w = hostobj_new(p[1], CLOUDABI_FILETYPE_SOCKET_STREAM);
  struct hostobj *proc = hostobj_new(-1, CLOUDABI_FILETYPE_PROCESS);
  proc->proc = procinfo_new(0, eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  assert_int_equal(captab_insert_at(&f->fds, 0, r, pipe_rights, 0), 0);
  assert_int_equal(captab_insert_at(&f->fds, 1, w, pipe_rights, 0), 0);
  assert_int_equal(captab_insert_at(&f->fds, 2, r, R(FD_READ), 0), 0);
  assert_int_equal(
      captab_insert_at(&f->fds, 3, proc, R(POLL_PROC_TERMINATE), 0), 0);
  hostobj_unref(r);
  hostobj_unref(w);
  hostobj_unref(proc);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  struct fixture *f = *state;
  captab_free(&f->fds);
  free(f);
  return 0;
}

static cloudabi_subscription_t fd_sub(uint64_t ud, uint8_t type, uint32_t fd) {
  return (cloudabi_subscription_t){
      .userdata = ud, .type = type, .fd_readwrite = {fd, 1}};
}

static cloudabi_subscription_t clock_sub(uint64_t ud, uint32_t id,
                                         uint64_t timeout, uint16_t flags) {
  return (cloudabi_subscription_t){
      .userdata = ud,
      .type = E(CLOCK),
      .clock = {.clock_id = id, .timeout = timeout, .flags = flags}};
}

static struct poll_set *parse(struct fixture *f,
                              const cloudabi_subscription_t *s, size_t n) {
  struct poll_set *set = poll_set_new(&f->fds, s, n, getpid(), gettid());
  assert_non_null(set);
  return set;
}

static void test_errors(void **state) {
  struct fixture *f = *state;
  static const struct {
    cloudabi_subscription_t sub;
    cloudabi_errno_t want;
  } cases[] = {
      {{.type = E(FD_READ), .fd_readwrite = {9}}, CLOUDABI_EBADF},
      {{.type = E(FD_WRITE), .fd_readwrite = {0xffffffff}}, CLOUDABI_EBADF},
      {{.type = E(PROC_TERMINATE), .proc_terminate = {77}}, CLOUDABI_EBADF},
      {{.type = E(FD_READ), .fd_readwrite = {2}}, CLOUDABI_ENOTCAPABLE},
      {{.type = E(FD_WRITE), .fd_readwrite = {2}}, CLOUDABI_ENOTCAPABLE},
      {{.type = E(PROC_TERMINATE), .proc_terminate = {0}},
       CLOUDABI_ENOTCAPABLE},
      {{.type = E(FD_READ), .fd_readwrite = {3}}, CLOUDABI_ENOTCAPABLE},
      {{.type = E(CLOCK), .clock = {.clock_id = 0}}, CLOUDABI_EINVAL},
      {{.type = E(CLOCK), .clock = {.clock_id = 5, .flags = 1}},
       CLOUDABI_EINVAL},
      {{.type = E(CONDVAR)}, CLOUDABI_EINVAL},
      {{.type = E(LOCK_RDLOCK)}, CLOUDABI_EINVAL},
      {{.type = E(LOCK_WRLOCK)}, CLOUDABI_EINVAL},
      {{.type = 0}, CLOUDABI_EINVAL},
      {{.type = 8}, CLOUDABI_EINVAL},
      {{.type = 255}, CLOUDABI_EINVAL},
  };
  size_t n = sizeof(cases) / sizeof(cases[0]);
  /* Each alone, after a subscription that is ready: only the error. */
  for (size_t i = 0; i < n; i++) {
    cloudabi_subscription_t s[2] = {fd_sub(1, E(FD_WRITE), 1), cases[i].sub};
    s[1].userdata = 100 + i;
    struct poll_set *set = parse(f, s, 2);
    cloudabi_event_t ev[2];
    assert_int_equal(poll_set_check(set, 0, ev), 1);
    assert_int_equal(ev[0].userdata, 100 + i);
    assert_int_equal(ev[0].type, cases[i].sub.type);
    assert_int_equal(ev[0].error, cases[i].want);
    poll_set_free(set);
  }
  /* All at once: all, in order. */
  cloudabi_subscription_t all[16];
  cloudabi_event_t ev[16];
  for (size_t i = 0; i < n; i++)
    all[i] = cases[i].sub;
  struct poll_set *set = parse(f, all, n);
  assert_int_equal(set->nerrors, n);
  assert_int_equal(poll_set_check(set, 0, ev), n);
  for (size_t i = 0; i < n; i++)
    assert_int_equal(ev[i].error, cases[i].want);
  poll_set_free(set);
}

static void test_pipe(void **state) {
  struct fixture *f = *state;
  cloudabi_subscription_t s[2] = {fd_sub(1, E(FD_READ), 0),
                                  fd_sub(2, E(FD_WRITE), 1)};
  struct poll_set *set = parse(f, s, 2);
  cloudabi_event_t ev[2];
  /* Empty: only writable, with the whole pipe free. */
  assert_int_equal(poll_set_check(set, 0, ev), 1);
  assert_int_equal(ev[0].userdata, 2);
  int size = fcntl(f->wr, F_GETPIPE_SZ);
  assert_int_equal(ev[0].fd_readwrite.nbytes, size);
  assert_int_equal(ev[0].fd_readwrite.flags, 0);
  assert_int_equal(write(f->wr, "abc", 3), 3);
  assert_int_equal(poll_set_check(set, 0, ev), 2);
  assert_int_equal(ev[0].type, E(FD_READ));
  assert_int_equal(ev[0].fd_readwrite.nbytes, 3);
  assert_int_equal(ev[1].fd_readwrite.nbytes, size - 3);
  poll_set_free(set);
  /* The writer gone (its last reference): hangup, data still there. */
  s[1] = clock_sub(5, CLOUDABI_CLOCK_MONOTONIC, 60000 * MS, 0);
  set = parse(f, s, 2);
  assert_int_equal(captab_close(&f->fds, 1), 0);
  assert_int_equal(poll_set_check(set, poll_now(), ev), 1);
  assert_int_equal(ev[0].fd_readwrite.nbytes, 3);
  assert_int_equal(ev[0].fd_readwrite.flags,
                   CLOUDABI_EVENT_FD_READWRITE_HANGUP);
  poll_set_free(set);
}

static void test_clocks(void **state) {
  struct fixture *f = *state;
  uint64_t before = poll_now();
  cloudabi_subscription_t s[4] = {
      clock_sub(1, CLOUDABI_CLOCK_MONOTONIC, 50 * MS, 0),
      clock_sub(2, CLOUDABI_CLOCK_MONOTONIC, before + 20 * MS, 1),
      clock_sub(3, CLOUDABI_CLOCK_THREAD_CPUTIME_ID, 30 * MS, 0),
      clock_sub(4, CLOUDABI_CLOCK_REALTIME, 0, 1),
  };
  struct poll_set *set = parse(f, s, 4);
  uint64_t after = poll_now();
  assert_int_equal(set->nerrors, 0);
  assert_true(set->sub[0].deadline >= before + 50 * MS &&
              set->sub[0].deadline <= after + 50 * MS);
  assert_int_equal(set->sub[1].deadline, before + 20 * MS);
  assert_true(set->sub[2].deadline >= before + 30 * MS);
  assert_true(set->sub[3].deadline <= after); /* in the past */
  cloudabi_event_t ev[4];
  assert_int_equal(poll_set_check(set, after, ev), 1);
  assert_int_equal(ev[0].userdata, 4);
  assert_int_equal(poll_set_check(set, before + 20 * MS, ev), 2);
  assert_int_equal(ev[0].userdata, 2);
  assert_int_equal(poll_set_check(set, UINT64_MAX, ev), 4);
  /* Nothing to wait on but the earliest deadline. */
  struct park_fd fds[4];
  uint64_t deadline;
  assert_int_equal(poll_set_waits(set, fds, &deadline), 0);
  assert_int_equal(deadline, set->sub[3].deadline);
  poll_set_free(set);
}

static void test_waits(void **state) {
  struct fixture *f = *state;
  /* The same descriptor three times: once, with the events merged. */
  cloudabi_subscription_t s[4] = {
      fd_sub(1, E(FD_READ), 0), fd_sub(2, E(FD_WRITE), 1),
      fd_sub(3, E(FD_READ), 0),
      clock_sub(4, CLOUDABI_CLOCK_MONOTONIC, 1000 * MS, 0)};
  struct poll_set *set = parse(f, s, 4);
  struct park_fd fds[4];
  uint64_t deadline;
  size_t n = poll_set_waits(set, fds, &deadline);
  assert_int_equal(n, 2);
  assert_true(deadline == set->sub[3].deadline);
  for (size_t i = 0; i < n; i++) {
    if (fds[i].fd == f->rd)
      assert_int_equal(fds[i].events, EPOLLIN | EPOLLRDHUP);
    else
      assert_int_equal(fds[i].events, EPOLLOUT);
  }
  poll_set_free(set);
}

static void test_proc_terminate(void **state) {
  struct fixture *f = *state;
  cloudabi_subscription_t s = {
      .userdata = 9, .type = E(PROC_TERMINATE), .proc_terminate = {3}};
  struct poll_set *set = parse(f, &s, 1);
  assert_int_equal(set->nerrors, 0);
  cloudabi_event_t ev;
  assert_int_equal(poll_set_check(set, 0, &ev), 0);
  struct park_fd fds[1];
  uint64_t deadline;
  assert_int_equal(poll_set_waits(set, fds, &deadline), 1);
  assert_int_equal(fds[0].events, EPOLLIN);
  /* The reaper's part: the status, and the pidfd readable. */
  struct hostobj *obj = set->sub[0].obj;
  obj->proc->exited = true;
  obj->proc->status = SIGSEGV; /* a wait status: killed by SIGSEGV */
  uint64_t one = 1;
  assert_int_equal(write(obj->proc->pidfd, &one, sizeof(one)), sizeof(one));
  assert_int_equal(poll_set_check(set, 0, &ev), 1);
  assert_int_equal(ev.userdata, 9);
  assert_int_equal(ev.type, E(PROC_TERMINATE));
  assert_int_equal(ev.error, 0);
  assert_int_equal(ev.proc_terminate.signal, CLOUDABI_SIGSEGV);
  obj->proc->status = 42 << 8; /* exited with 42 */
  assert_int_equal(poll_set_check(set, 0, &ev), 1);
  assert_int_equal(ev.proc_terminate.signal, 0);
  assert_int_equal(ev.proc_terminate.exitcode, 42);
  poll_set_free(set);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_pipe, setup, teardown),
      cmocka_unit_test_setup_teardown(test_clocks, setup, teardown),
      cmocka_unit_test_setup_teardown(test_waits, setup, teardown),
      cmocka_unit_test_setup_teardown(test_proc_terminate, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
