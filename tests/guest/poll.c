/*
 * poll: timeouts of every clock, relative and absolute, measured (lower
 * bounds strictly, upper bounds loosely: this runs on small shared
 * machines); readiness and nbytes on pipes, files and sockets; hangup on
 * either end of a pipe; mixed subscriptions; lock and condition variable
 * waits with timeouts; every invalid subscription and combination, with
 * the error the rules give (abi/vdso/poll.c, src/calls/poll_set.h); blocking
 * and non-blocking reads.
 *
 * Config: out; fifo (a FIFO opened rw); hup_w, hup_r (a FIFO's writer,
 * opened rw first, and reader); wpipe_r, wpipe_w (another FIFO's reader,
 * opened rw first, and writer); file (data.txt, "hello world"); null
 * (devnull); dgram_a (a bound datagram socket) and dgram_b (connected
 * to it); sbind (a listening stream socket) and sconn (connected to it).
 */
#include "rt.h"
#include "rt_thread.h"
#include "trap.h"

#define MS 1000000ull
#define SLACK (1500 * MS) /* the loose upper bound on any delay */
#define R(x) CLOUDABI_RIGHT_##x
#define E(x) CLOUDABI_EVENTTYPE_##x

static cloudabi_fd_t fifo, hup_w, hup_r, wpipe_r, wpipe_w, file, null_fd,
    dgram_a, dgram_b, sbind, sconn;

/* ---- building subscriptions ---- */

static cloudabi_subscription_t clock_sub(uint64_t ud, cloudabi_clockid_t id,
                                         uint64_t timeout, bool abs) {
  return (cloudabi_subscription_t){
      .userdata = ud,
      .type = E(CLOCK),
      .clock = {.identifier = ud,
                .clock_id = id,
                .timeout = timeout,
                .precision = 1000,
                .flags = abs ? CLOUDABI_SUBSCRIPTION_CLOCK_ABSTIME : 0}};
}

static cloudabi_subscription_t fd_sub(uint64_t ud, cloudabi_eventtype_t type,
                                      cloudabi_fd_t fd) {
  return (cloudabi_subscription_t){
      .userdata = ud,
      .type = type,
      .fd_readwrite = {fd, CLOUDABI_SUBSCRIPTION_FD_READWRITE_POLL}};
}

static cloudabi_subscription_t lock_sub(uint64_t ud, cloudabi_eventtype_t type,
                                        _Atomic(cloudabi_lock_t) *lock,
                                        cloudabi_scope_t scope) {
  return (cloudabi_subscription_t){
      .userdata = ud, .type = type, .lock = {lock, scope}};
}

static size_t do_poll(const cloudabi_subscription_t *s, size_t n,
                      cloudabi_event_t *ev) {
  size_t nev = 99;
  memset(ev, 0xee, n * sizeof(*ev));
  RT_EXPECT(cloudabi_sys_poll(s, ev, n, &nev), 0);
  RT_CHECK(nev <= n);
  return nev;
}

static void expect_event(const cloudabi_event_t *ev, uint64_t ud,
                         cloudabi_eventtype_t type, cloudabi_errno_t error) {
  RT_CHECK(ev->userdata == ud);
  RT_CHECK(ev->type == type);
  RT_EXPECT(ev->error, error);
}

static cloudabi_timestamp_t mono(void) {
  return rt_now(CLOUDABI_CLOCK_MONOTONIC);
}

static void write_bytes(cloudabi_fd_t fd, const char *s, size_t len) {
  cloudabi_ciovec_t iov = {s, len};
  size_t n;
  RT_EXPECT(cloudabi_sys_fd_write(fd, &iov, 1, &n), 0);
  RT_CHECK(n == len);
}

static size_t read_bytes(cloudabi_fd_t fd, char *buf, size_t len) {
  cloudabi_iovec_t iov = {buf, len};
  size_t n;
  RT_EXPECT(cloudabi_sys_fd_read(fd, &iov, 1, &n), 0);
  return n;
}

/* Waits for one subscription set and checks how long it took. */
static size_t timed_poll(const cloudabi_subscription_t *s, size_t n,
                         cloudabi_event_t *ev, uint64_t at_least) {
  uint64_t t0 = mono();
  size_t k = do_poll(s, n, ev);
  uint64_t took = mono() - t0;
  RT_CHECK(took >= at_least);
  RT_CHECK(took < at_least + SLACK);
  return k;
}

/* ---- clocks ---- */

static void test_clocks(void) {
  cloudabi_event_t ev[4];
  cloudabi_subscription_t s[4];
  static const cloudabi_clockid_t clocks[] = {
      CLOUDABI_CLOCK_MONOTONIC, CLOUDABI_CLOCK_REALTIME,
      CLOUDABI_CLOCK_PROCESS_CPUTIME_ID, CLOUDABI_CLOCK_THREAD_CPUTIME_ID};
  for (size_t i = 0; i < 4; i++) {
    /* Relative: that much time, whatever the clock (a sleeping thread's
     * CPU clock would never get there; FreeBSD measures elapsed time). */
    s[0] = clock_sub(10 + i, clocks[i], 40 * MS, false);
    RT_CHECK(timed_poll(s, 1, ev, 40 * MS) == 1);
    expect_event(&ev[0], 10 + i, E(CLOCK), 0);
    /* Absolute: the clock's own time plus 40 ms. */
    s[0] = clock_sub(20 + i, clocks[i], rt_now(clocks[i]) + 40 * MS, true);
    RT_CHECK(timed_poll(s, 1, ev, 30 * MS) == 1);
    expect_event(&ev[0], 20 + i, E(CLOCK), 0);
    /* Now or in the past: at once. */
    s[0] = clock_sub(30 + i, clocks[i], 0, false);
    RT_CHECK(timed_poll(s, 1, ev, 0) == 1);
    s[0] = clock_sub(40 + i, clocks[i], 1, true);
    RT_CHECK(timed_poll(s, 1, ev, 0) == 1);
    expect_event(&ev[0], 40 + i, E(CLOCK), 0);
  }
  /* An absolute MONOTONIC deadline: the wake-up comes after it. */
  uint64_t at = mono() + 30 * MS;
  s[0] = clock_sub(1, CLOUDABI_CLOCK_MONOTONIC, at, true);
  do_poll(s, 1, ev);
  RT_CHECK(mono() >= at);
  /* Several clocks: only those due are reported, in order. */
  s[0] = clock_sub(1, CLOUDABI_CLOCK_MONOTONIC, 400 * MS, false);
  s[1] = clock_sub(2, CLOUDABI_CLOCK_MONOTONIC, 30 * MS, false);
  s[2] = clock_sub(3, CLOUDABI_CLOCK_REALTIME, 300 * MS, false);
  RT_CHECK(timed_poll(s, 3, ev, 30 * MS) == 1);
  expect_event(&ev[0], 2, E(CLOCK), 0);
  s[0] = clock_sub(1, CLOUDABI_CLOCK_MONOTONIC, 0, false);
  s[1] = clock_sub(2, CLOUDABI_CLOCK_MONOTONIC, 400 * MS, false);
  s[2] = clock_sub(3, CLOUDABI_CLOCK_REALTIME, 0, false);
  RT_CHECK(do_poll(s, 3, ev) == 2);
  expect_event(&ev[0], 1, E(CLOCK), 0);
  expect_event(&ev[1], 3, E(CLOCK), 0);
  /* Unknown clocks: an error event, at once. */
  s[0] = clock_sub(5, 0, 10 * MS, false);
  s[1] = clock_sub(6, CLOUDABI_CLOCK_MONOTONIC, 0, false);
  s[2] = clock_sub(7, 5, 10 * MS, true);
  RT_CHECK(do_poll(s, 3, ev) == 2);
  expect_event(&ev[0], 5, E(CLOCK), CLOUDABI_EINVAL);
  expect_event(&ev[1], 7, E(CLOCK), CLOUDABI_EINVAL);
  /* More clocks than the vDSO sleeps on itself: the supervisor's. */
  static cloudabi_subscription_t many[40];
  static cloudabi_event_t many_ev[40];
  for (size_t i = 0; i < 40; i++)
    many[i] = clock_sub(i, CLOUDABI_CLOCK_MONOTONIC,
                        i == 17 ? 30 * MS : 5000 * MS, false);
  RT_CHECK(timed_poll(many, 40, many_ev, 30 * MS) == 1);
  expect_event(&many_ev[0], 17, E(CLOCK), 0);
  /* Nothing to wait for. */
  size_t n = 5;
  RT_EXPECT(cloudabi_sys_poll(s, ev, 0, &n), 0);
  RT_CHECK(n == 0);
}

/* ---- descriptors ---- */

static void test_pipe_readiness(void) {
  cloudabi_event_t ev[4];
  cloudabi_subscription_t s[4];
  /* Empty: not readable, but writable with the whole buffer free. */
  s[0] = fd_sub(1, E(FD_READ), fifo);
  s[1] = clock_sub(2, CLOUDABI_CLOCK_MONOTONIC, 30 * MS, false);
  RT_CHECK(timed_poll(s, 2, ev, 30 * MS) == 1);
  expect_event(&ev[0], 2, E(CLOCK), 0);
  s[1] = fd_sub(3, E(FD_WRITE), fifo);
  RT_CHECK(do_poll(s, 2, ev) == 1);
  expect_event(&ev[0], 3, E(FD_WRITE), 0);
  uint64_t room = ev[0].fd_readwrite.nbytes;
  RT_CHECK(room >= 4096);
  RT_CHECK(ev[0].fd_readwrite.flags == 0);
  /* Five bytes in: readable with nbytes 5, and five bytes less room. */
  write_bytes(fifo, "12345", 5);
  RT_CHECK(do_poll(s, 2, ev) == 2);
  expect_event(&ev[0], 1, E(FD_READ), 0);
  RT_CHECK(ev[0].fd_readwrite.nbytes == 5 && ev[0].fd_readwrite.flags == 0);
  expect_event(&ev[1], 3, E(FD_WRITE), 0);
  RT_CHECK(ev[1].fd_readwrite.nbytes == room - 5);
  /* cloudlibc's FIONREAD: FD_READ plus a zero timeout. */
  s[1] = clock_sub(9, CLOUDABI_CLOCK_MONOTONIC, 0, false);
  RT_CHECK(do_poll(s, 2, ev) == 2);
  RT_CHECK(ev[0].fd_readwrite.nbytes == 5);
  char buf[16];
  RT_CHECK(read_bytes(fifo, buf, sizeof(buf)) == 5);
}

static void test_files_and_sockets(void) {
  cloudabi_event_t ev[4];
  cloudabi_subscription_t s[4];
  /* Regular files are always ready; nbytes is what is left to read. */
  s[0] = fd_sub(1, E(FD_READ), file);
  RT_CHECK(do_poll(s, 1, ev) == 1);
  expect_event(&ev[0], 1, E(FD_READ), 0);
  RT_CHECK(ev[0].fd_readwrite.nbytes == 11);
  char buf[64];
  RT_CHECK(read_bytes(file, buf, 6) == 6);
  RT_CHECK(do_poll(s, 1, ev) == 1);
  RT_CHECK(ev[0].fd_readwrite.nbytes == 5);
  /* /dev/null: always both. */
  s[0] = fd_sub(1, E(FD_READ), null_fd);
  s[1] = fd_sub(2, E(FD_WRITE), null_fd);
  RT_CHECK(do_poll(s, 2, ev) == 2);
  /* Datagram sockets: b sends to a. */
  s[0] = fd_sub(1, E(FD_READ), dgram_a);
  s[1] = clock_sub(2, CLOUDABI_CLOCK_MONOTONIC, 20 * MS, false);
  RT_CHECK(timed_poll(s, 2, ev, 20 * MS) == 1);
  expect_event(&ev[0], 2, E(CLOCK), 0);
  s[1] = fd_sub(3, E(FD_WRITE), dgram_b);
  RT_CHECK(do_poll(s, 2, ev) == 1);
  expect_event(&ev[0], 3, E(FD_WRITE), 0);
  RT_CHECK(ev[0].fd_readwrite.nbytes > 0);
  write_bytes(dgram_b, "datagram", 8);
  RT_CHECK(do_poll(s, 2, ev) == 2);
  expect_event(&ev[0], 1, E(FD_READ), 0);
  RT_CHECK(ev[0].fd_readwrite.nbytes == 8);
  RT_CHECK(read_bytes(dgram_a, buf, sizeof(buf)) == 8);
  /* A stream connected to a listening socket: a connection waits to be
   * accepted (readable listener), the connected end can write. */
  s[0] = fd_sub(1, E(FD_READ), sbind);
  s[1] = fd_sub(2, E(FD_WRITE), sconn);
  RT_CHECK(do_poll(s, 2, ev) == 2);
  expect_event(&ev[0], 1, E(FD_READ), 0);
  expect_event(&ev[1], 2, E(FD_WRITE), 0);
}

static void test_hangup(void) {
  cloudabi_event_t ev[2];
  cloudabi_subscription_t s[2];
  /* Data, then the last writer goes: readable with data, then hangup. */
  write_bytes(hup_w, "bye", 3);
  s[0] = fd_sub(7, E(FD_READ), hup_r);
  RT_CHECK(do_poll(s, 1, ev) == 1);
  RT_CHECK(ev[0].fd_readwrite.nbytes == 3 && ev[0].fd_readwrite.flags == 0);
  RT_EXPECT(cloudabi_sys_fd_close(hup_w), 0);
  RT_CHECK(do_poll(s, 1, ev) == 1);
  expect_event(&ev[0], 7, E(FD_READ), 0);
  RT_CHECK(ev[0].fd_readwrite.flags == CLOUDABI_EVENT_FD_READWRITE_HANGUP);
  RT_CHECK(ev[0].fd_readwrite.nbytes == 3);
  char buf[8];
  RT_CHECK(read_bytes(hup_r, buf, sizeof(buf)) == 3);
  RT_CHECK(read_bytes(hup_r, buf, sizeof(buf)) == 0); /* end of file */
  RT_CHECK(do_poll(s, 1, ev) == 1);
  RT_CHECK(ev[0].fd_readwrite.flags == CLOUDABI_EVENT_FD_READWRITE_HANGUP);
  /* The last reader goes: the writer hangs up too. */
  s[0] = fd_sub(8, E(FD_WRITE), wpipe_w);
  RT_CHECK(do_poll(s, 1, ev) == 1);
  RT_CHECK(ev[0].fd_readwrite.flags == 0);
  RT_EXPECT(cloudabi_sys_fd_close(wpipe_r), 0);
  RT_CHECK(do_poll(s, 1, ev) == 1);
  expect_event(&ev[0], 8, E(FD_WRITE), 0);
  RT_CHECK(ev[0].fd_readwrite.flags == CLOUDABI_EVENT_FD_READWRITE_HANGUP);
  cloudabi_ciovec_t iov = {"x", 1};
  size_t n;
  RT_EXPECT(cloudabi_sys_fd_write(wpipe_w, &iov, 1, &n), CLOUDABI_EPIPE);
}

/* ---- blocking: parked in the supervisor, woken by another thread ---- */

struct delayed_write {
  cloudabi_fd_t fd;
  uint64_t delay;
};

static void *write_later(void *arg) {
  struct delayed_write *d = arg;
  rt_sleep_ns(d->delay);
  write_bytes(d->fd, "late", 4);
  return NULL;
}

static void test_blocking(void) {
  cloudabi_event_t ev[3];
  cloudabi_subscription_t s[3];
  /* poll on a pipe with a long timeout, written after 50 ms. */
  struct delayed_write d = {fifo, 50 * MS};
  rt_thread_t *t;
  RT_CHECK(rt_thread_create(&t, write_later, &d) == 0);
  s[0] = clock_sub(1, CLOUDABI_CLOCK_MONOTONIC, 5000 * MS, false);
  s[1] = fd_sub(2, E(FD_READ), fifo);
  RT_CHECK(timed_poll(s, 2, ev, 40 * MS) == 1);
  expect_event(&ev[0], 2, E(FD_READ), 0);
  RT_CHECK(ev[0].fd_readwrite.nbytes == 4);
  rt_thread_join(t);
  char buf[8];
  RT_CHECK(read_bytes(fifo, buf, sizeof(buf)) == 4);

  /* A blocking read waits; with FDFLAG_NONBLOCK it says EAGAIN. */
  cloudabi_fdstat_t st;
  RT_EXPECT(cloudabi_sys_fd_stat_get(fifo, &st), 0);
  RT_CHECK((st.fs_flags & CLOUDABI_FDFLAG_NONBLOCK) == 0);
  RT_CHECK(rt_thread_create(&t, write_later, &d) == 0);
  uint64_t t0 = mono();
  RT_CHECK(read_bytes(fifo, buf, sizeof(buf)) == 4);
  RT_CHECK(mono() - t0 >= 40 * MS);
  rt_thread_join(t);
  st.fs_flags = CLOUDABI_FDFLAG_NONBLOCK;
  RT_EXPECT(cloudabi_sys_fd_stat_put(fifo, &st, CLOUDABI_FDSTAT_FLAGS), 0);
  cloudabi_iovec_t iov = {buf, sizeof(buf)};
  size_t n;
  RT_EXPECT(cloudabi_sys_fd_read(fifo, &iov, 1, &n), CLOUDABI_EAGAIN);
  st.fs_flags = 0;
  RT_EXPECT(cloudabi_sys_fd_stat_put(fifo, &st, CLOUDABI_FDSTAT_FLAGS), 0);

  /* Mixed: a ready descriptor among waiting ones returns at once. */
  write_bytes(fifo, "z", 1);
  s[0] = fd_sub(1, E(FD_READ), dgram_a);
  s[1] = clock_sub(2, CLOUDABI_CLOCK_MONOTONIC, 5000 * MS, false);
  s[2] = fd_sub(3, E(FD_READ), fifo);
  RT_CHECK(timed_poll(s, 3, ev, 0) == 1);
  expect_event(&ev[0], 3, E(FD_READ), 0);
  RT_CHECK(read_bytes(fifo, buf, sizeof(buf)) == 1);
  /* Absolute deadlines with descriptors (the supervisor's path). */
  s[0] = fd_sub(1, E(FD_READ), fifo);
  s[1] = clock_sub(2, CLOUDABI_CLOCK_MONOTONIC, mono() + 40 * MS, true);
  RT_CHECK(timed_poll(s, 2, ev, 30 * MS) == 1);
  expect_event(&ev[0], 2, E(CLOCK), 0);
  s[1] = clock_sub(4, CLOUDABI_CLOCK_REALTIME,
                   rt_now(CLOUDABI_CLOCK_REALTIME) + 40 * MS, true);
  RT_CHECK(timed_poll(s, 2, ev, 30 * MS) == 1);
  expect_event(&ev[0], 4, E(CLOCK), 0);
  s[1] = clock_sub(5, CLOUDABI_CLOCK_THREAD_CPUTIME_ID, 40 * MS, false);
  RT_CHECK(timed_poll(s, 2, ev, 40 * MS) == 1);
  expect_event(&ev[0], 5, E(CLOCK), 0);
}

/* ---- locks and condition variables with timeouts ---- */

static _Atomic(cloudabi_lock_t) lockword;
static _Atomic(cloudabi_condvar_t) condword;

static void test_lock_waits(void) {
  cloudabi_event_t ev[2];
  cloudabi_subscription_t s[3];
  cloudabi_tid_t me = rt_thread_self();
  cloudabi_lock_t other = (me + 1) | CLOUDABI_LOCK_WRLOCKED;
  /* Held by someone else: the clock fires, the waiter leaves KERNEL_MANAGED
   * behind for the owner (who must call lock_unlock). */
  lockword = other;
  s[0] = lock_sub(1, E(LOCK_WRLOCK), &lockword, CLOUDABI_SCOPE_PRIVATE);
  s[1] = clock_sub(2, CLOUDABI_CLOCK_MONOTONIC, 30 * MS, false);
  RT_CHECK(timed_poll(s, 2, ev, 30 * MS) == 1);
  expect_event(&ev[0], 2, E(CLOCK), 0);
  RT_CHECK(lockword == (other | CLOUDABI_LOCK_KERNEL_MANAGED));
  s[0].type = E(LOCK_RDLOCK);
  s[1] = clock_sub(3, CLOUDABI_CLOCK_REALTIME,
                   rt_now(CLOUDABI_CLOCK_REALTIME) + 30 * MS, true);
  RT_CHECK(timed_poll(s, 2, ev, 20 * MS) == 1);
  expect_event(&ev[0], 3, E(CLOCK), 0);
  /* Free: acquired at once, for reading or for writing. */
  lockword = CLOUDABI_LOCK_UNLOCKED;
  RT_CHECK(do_poll(s, 2, ev) == 1);
  expect_event(&ev[0], 1, E(LOCK_RDLOCK), 0);
  RT_CHECK(lockword == 1);
  RT_CHECK(do_poll(s, 1, ev) == 1);
  RT_CHECK(lockword == 2);
  lockword = CLOUDABI_LOCK_BOGUS; /* cloudlibc's not-yet-started join */
  s[0].type = E(LOCK_WRLOCK);
  RT_CHECK(do_poll(s, 1, ev) == 1);
  expect_event(&ev[0], 1, E(LOCK_WRLOCK), 0);
  RT_CHECK((lockword & ~CLOUDABI_LOCK_KERNEL_MANAGED) ==
           (me | CLOUDABI_LOCK_WRLOCKED));
  /* Our own write lock: a deadlock, for writing and for reading. */
  lockword = me | CLOUDABI_LOCK_WRLOCKED;
  RT_CHECK(do_poll(s, 1, ev) == 1);
  expect_event(&ev[0], 1, E(LOCK_WRLOCK), CLOUDABI_EDEADLK);
  s[0].type = E(LOCK_RDLOCK);
  RT_CHECK(do_poll(s, 1, ev) == 1);
  expect_event(&ev[0], 1, E(LOCK_RDLOCK), CLOUDABI_EDEADLK);
  /* lock_unlock: only by the owner. */
  RT_EXPECT(cloudabi_sys_lock_unlock(&lockword, CLOUDABI_SCOPE_PRIVATE), 0);
  RT_CHECK(lockword == CLOUDABI_LOCK_UNLOCKED);
  lockword = other | CLOUDABI_LOCK_KERNEL_MANAGED;
  RT_EXPECT(cloudabi_sys_lock_unlock(&lockword, CLOUDABI_SCOPE_PRIVATE),
            CLOUDABI_EPERM);
  RT_EXPECT(cloudabi_sys_lock_unlock(&lockword, 3), CLOUDABI_EINVAL);
  RT_EXPECT(cloudabi_sys_lock_unlock(
                (_Atomic(cloudabi_lock_t) *)((char *)&lockword + 1),
                CLOUDABI_SCOPE_PRIVATE),
            CLOUDABI_EINVAL);
  /* A bad scope or a misaligned word: EINVAL in the event. */
  s[0] = lock_sub(1, E(LOCK_WRLOCK), &lockword, 0);
  RT_CHECK(do_poll(s, 1, ev) == 1);
  expect_event(&ev[0], 1, E(LOCK_WRLOCK), CLOUDABI_EINVAL);
  s[0] = lock_sub(1, E(LOCK_RDLOCK),
                  (_Atomic(cloudabi_lock_t) *)((char *)&lockword + 2),
                  CLOUDABI_SCOPE_SHARED);
  RT_CHECK(do_poll(s, 1, ev) == 1);
  expect_event(&ev[0], 1, E(LOCK_RDLOCK), CLOUDABI_EINVAL);
  /* An unknown clock with a lock: the lock's event says EINVAL. */
  lockword = other;
  s[0] = lock_sub(1, E(LOCK_WRLOCK), &lockword, CLOUDABI_SCOPE_PRIVATE);
  s[1] = clock_sub(2, 77, 10 * MS, false);
  RT_CHECK(do_poll(s, 2, ev) == 1);
  expect_event(&ev[0], 1, E(LOCK_WRLOCK), CLOUDABI_EINVAL);

  /* Condition variables: the lock must be ours; a timeout gives the
   * clock's event and the lock back, and leaves no waiter behind. */
  lockword = me | CLOUDABI_LOCK_WRLOCKED;
  condword = 0;
  s[0] = (cloudabi_subscription_t){.userdata = 1,
                                   .type = E(CONDVAR),
                                   .condvar = {&condword, &lockword,
                                               CLOUDABI_SCOPE_PRIVATE,
                                               CLOUDABI_SCOPE_PRIVATE}};
  s[1] = clock_sub(2, CLOUDABI_CLOCK_MONOTONIC, 30 * MS, false);
  RT_CHECK(timed_poll(s, 2, ev, 30 * MS) == 1);
  expect_event(&ev[0], 2, E(CLOCK), 0);
  RT_CHECK((lockword & ~CLOUDABI_LOCK_KERNEL_MANAGED) ==
           (me | CLOUDABI_LOCK_WRLOCKED));
  RT_CHECK(condword == CLOUDABI_CONDVAR_HAS_NO_WAITERS);
  s[1] = clock_sub(3, CLOUDABI_CLOCK_MONOTONIC, mono() + 30 * MS, true);
  RT_CHECK(timed_poll(s, 2, ev, 20 * MS) == 1);
  expect_event(&ev[0], 3, E(CLOCK), 0);
  lockword = other;
  RT_CHECK(do_poll(s, 2, ev) == 1);
  expect_event(&ev[0], 1, E(CONDVAR), CLOUDABI_EPERM);
  lockword = me | CLOUDABI_LOCK_WRLOCKED;
  s[0].condvar.condvar_scope = 9;
  RT_CHECK(do_poll(s, 2, ev) == 1);
  expect_event(&ev[0], 1, E(CONDVAR), CLOUDABI_EINVAL);
  RT_EXPECT(cloudabi_sys_condvar_signal(&condword, 0, 1), CLOUDABI_EINVAL);
  RT_EXPECT(cloudabi_sys_condvar_signal(&condword, CLOUDABI_SCOPE_PRIVATE, 1),
            0);
  lockword = CLOUDABI_LOCK_UNLOCKED;
}

/* ---- invalid subscriptions and combinations ---- */

static void test_invalid(void) {
  cloudabi_event_t ev[4];
  cloudabi_subscription_t s[4];
  lockword = CLOUDABI_LOCK_UNLOCKED;
  /* A lock anywhere but first, or followed by anything but one clock. */
  s[0] = clock_sub(1, CLOUDABI_CLOCK_MONOTONIC, 10 * MS, false);
  s[1] = lock_sub(2, E(LOCK_WRLOCK), &lockword, CLOUDABI_SCOPE_PRIVATE);
  RT_CHECK(do_poll(s, 2, ev) == 1);
  expect_event(&ev[0], 2, E(LOCK_WRLOCK), CLOUDABI_EINVAL);
  s[0] = lock_sub(1, E(LOCK_RDLOCK), &lockword, CLOUDABI_SCOPE_PRIVATE);
  s[1] = clock_sub(2, CLOUDABI_CLOCK_MONOTONIC, 10 * MS, false);
  s[2] = clock_sub(3, CLOUDABI_CLOCK_MONOTONIC, 10 * MS, false);
  RT_CHECK(do_poll(s, 3, ev) == 1);
  expect_event(&ev[0], 1, E(LOCK_RDLOCK), CLOUDABI_EINVAL);
  s[1] = fd_sub(2, E(FD_READ), file); /* this one goes to the supervisor */
  RT_CHECK(do_poll(s, 2, ev) == 1);
  expect_event(&ev[0], 1, E(LOCK_RDLOCK), CLOUDABI_EINVAL);
  s[0] = lock_sub(1, E(CONDVAR), &lockword, CLOUDABI_SCOPE_PRIVATE);
  s[1] = lock_sub(2, E(LOCK_WRLOCK), &lockword, CLOUDABI_SCOPE_PRIVATE);
  RT_CHECK(do_poll(s, 2, ev) == 2);
  expect_event(&ev[0], 1, E(CONDVAR), CLOUDABI_EINVAL);
  expect_event(&ev[1], 2, E(LOCK_WRLOCK), CLOUDABI_EINVAL);
  RT_CHECK(lockword == CLOUDABI_LOCK_UNLOCKED); /* nothing was acquired */
  /* Unknown types, locally and in the supervisor. */
  s[0] = clock_sub(1, CLOUDABI_CLOCK_MONOTONIC, 0, false);
  s[0].type = 0;
  s[1] = clock_sub(2, CLOUDABI_CLOCK_MONOTONIC, 0, false);
  s[1].type = 8;
  s[2] = fd_sub(3, 99, file);
  RT_CHECK(do_poll(s, 3, ev) == 3);
  expect_event(&ev[0], 1, 0, CLOUDABI_EINVAL);
  expect_event(&ev[1], 2, 8, CLOUDABI_EINVAL);
  expect_event(&ev[2], 3, 99, CLOUDABI_EINVAL);
  s[3] = fd_sub(4, E(FD_READ), file);
  RT_CHECK(do_poll(s, 4, ev) == 3); /* a ready file, but errors first */

  /* Descriptors: missing, without the right, of the wrong kind. */
  static const struct {
    cloudabi_eventtype_t type;
    cloudabi_fd_t fd;
    cloudabi_errno_t want;
  } cases[] = {
      {E(FD_READ), 999, CLOUDABI_EBADF},
      {E(FD_WRITE), 0xffffffff, CLOUDABI_EBADF},
      {E(PROC_TERMINATE), 4000, CLOUDABI_EBADF},
      {E(FD_WRITE), 0 /* file, read-only */, CLOUDABI_ENOTCAPABLE},
      {E(FD_READ), 1 /* wpipe_w, write-only */, CLOUDABI_ENOTCAPABLE},
      {E(PROC_TERMINATE), 2 /* a pipe */, CLOUDABI_ENOTCAPABLE},
      {E(PROC_TERMINATE), 3 /* /dev/null: every right, no process */,
       CLOUDABI_EINVAL},
  };
  cloudabi_fd_t fds[] = {file, wpipe_w, fifo, null_fd};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    cloudabi_fd_t fd = cases[i].fd < 4 ? fds[cases[i].fd] : cases[i].fd;
    s[0] = fd_sub(100 + i, cases[i].type, fd);
    s[1] = fd_sub(200, E(FD_READ), file); /* ready, but not reported */
    RT_CHECK(do_poll(s, 2, ev) == 1);
    expect_event(&ev[0], 100 + i, cases[i].type, cases[i].want);
  }
  /* Without POLL_FD_READWRITE, reading rights are not enough. */
  cloudabi_fd_t copy;
  RT_EXPECT(cloudabi_sys_fd_dup(file, &copy), 0);
  cloudabi_fdstat_t st = {.fs_rights_base = R(FD_READ)};
  RT_EXPECT(cloudabi_sys_fd_stat_put(copy, &st, CLOUDABI_FDSTAT_RIGHTS), 0);
  s[0] = fd_sub(5, E(FD_READ), copy);
  RT_CHECK(do_poll(s, 1, ev) == 1);
  expect_event(&ev[0], 5, E(FD_READ), CLOUDABI_ENOTCAPABLE);
  RT_EXPECT(cloudabi_sys_fd_close(copy), 0);

  /* Too many subscriptions; and the supervisor's own checks of the
   * arrays, through its private trap (the vDSO would fault first). */
  size_t n;
  RT_EXPECT(cloudabi_sys_poll(s, ev, 65537, &n), CLOUDABI_EINVAL);
  long nr = TRAP_NR_BASE + CLOUDABI_SYS_poll;
  long r = rt_raw_syscall(nr, 16, (long)ev, 1, 0, 0, 0);
  RT_CHECK(r == -(TRAP_ERRNO_BIAS + CLOUDABI_EFAULT));
  s[0] = fd_sub(1, E(FD_READ), file);
  r = rt_raw_syscall(nr, (long)s, 16, 1, 0, 0, 0);
  RT_CHECK(r == -(TRAP_ERRNO_BIAS + CLOUDABI_EFAULT));
  r = rt_raw_syscall(nr, (long)s, (long)ev, 1 << 20, 0, 0, 0);
  RT_CHECK(r == -(TRAP_ERRNO_BIAS + CLOUDABI_EINVAL));
  r = rt_raw_syscall(nr, (long)s, (long)ev, 1, 0, 0, 0);
  RT_CHECK(r == 1 && ev[0].userdata == 1);
  /* A lock wait is the vDSO's: trapped, it is just invalid. */
  s[0] = lock_sub(1, E(LOCK_WRLOCK), &lockword, CLOUDABI_SCOPE_PRIVATE);
  r = rt_raw_syscall(nr, (long)s, (long)ev, 1, 0, 0, 0);
  RT_CHECK(r == 1 && ev[0].error == CLOUDABI_EINVAL);
  RT_CHECK(lockword == CLOUDABI_LOCK_UNLOCKED);
}

/* Many descriptors in one poll, one of them ready. */
static void test_many(void) {
  enum { N = 200 };
  static cloudabi_subscription_t s[N];
  static cloudabi_event_t ev[N];
  for (size_t i = 0; i < N - 1; i++)
    s[i] = fd_sub(i, E(FD_READ), i % 3 ? dgram_a : fifo);
  s[N - 1] = fd_sub(N - 1, E(FD_READ), hup_r); /* at end of file: ready */
  RT_CHECK(do_poll(s, N, ev) == 1);
  expect_event(&ev[0], N - 1, E(FD_READ), 0);
  /* And none ready: only the clock, after its time. */
  s[N - 1] = clock_sub(N - 1, CLOUDABI_CLOCK_MONOTONIC, 30 * MS, false);
  RT_CHECK(timed_poll(s, N, ev, 30 * MS) == 1);
  expect_event(&ev[0], N - 1, E(CLOCK), 0);
}

void program_main(const argdata_t *ad) {
  cloudabi_fd_t out = rt_map_fd(ad, "out");
  rt_log_fd = out;
  fifo = rt_map_fd(ad, "fifo");
  hup_w = rt_map_fd(ad, "hup_w");
  hup_r = rt_map_fd(ad, "hup_r");
  wpipe_r = rt_map_fd(ad, "wpipe_r");
  wpipe_w = rt_map_fd(ad, "wpipe_w");
  file = rt_map_fd(ad, "file");
  null_fd = rt_map_fd(ad, "devnull");
  dgram_a = rt_map_fd(ad, "dgram_a");
  dgram_b = rt_map_fd(ad, "dgram_b");
  sbind = rt_map_fd(ad, "sbind");
  sconn = rt_map_fd(ad, "sconn");
  test_clocks();
  test_pipe_readiness();
  test_files_and_sockets();
  test_blocking();
  test_lock_waits();
  test_invalid();
  test_hangup();
  test_many();
  rt_printf(out, "poll: %u checks passed\n", rt_checks_passed);
}
