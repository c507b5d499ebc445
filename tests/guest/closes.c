/*
 * Closes without a trap (abi/trap.h, "Deferred closes"): a file or
 * directory is closed by the vDSO alone (with its mirror), and no later
 * call can tell: the number is gone (EBADF), is the next one open gives
 * out, is gone for other threads too, a second close fails.  Anything
 * else still traps.  Then as a hostile program: hints that lie (a socket
 * marked closed, garbage everywhere, a huge pending count) only close or
 * keep the program's own descriptors.  A forked child has no hints.
 * Config: out, dir.
 */
#include "check.h"
#include "vdso_symbol.h"
#include "rt_thread.h"
#include "trap.h"

static cloudabi_fd_t dir;
static volatile uint8_t *hints;
static volatile uint32_t *pending;
static volatile uint16_t *mirrors;

static void find_hints(void) {
  char **region = vdso_symbol(VDSO_IOSLOTS_SYMBOL);
  RT_CHECK(*region != NULL);
  hints = (volatile uint8_t *)(*region + IOSLOT_CLOSE_HINTS);
  mirrors = vdso_symbol(VDSO_MIRRORS_SYMBOL);
  pending = (volatile uint32_t *)(*region + IOSLOT_CLOSES_PENDING);
}

static cloudabi_fd_t open_r(const char *path) {
  cloudabi_fd_t fd;
  RT_EXPECT(open_file(dir, path, 0, R(FD_READ) | R(FD_SEEK), 0, 0, &fd), 0);
  return fd;
}

static cloudabi_errno_t stat_of(cloudabi_fd_t fd) {
  cloudabi_fdstat_t st;
  return cloudabi_sys_fd_stat_get(fd, &st);
}

static void *close_it(void *arg) {
  RT_CHECK(cloudabi_sys_fd_close((cloudabi_fd_t)(uintptr_t)arg) == 0);
  return NULL;
}

static void honest(void) {
  put_file(dir, "f.txt", "ffff");
  cloudabi_fd_t f = open_r("f.txt");
  check("file", "hint while open", hints[f], CLOSE_HINT_OPEN);
  check("file", "close", cloudabi_sys_fd_close(f), 0);
  /* Still marked: the supervisor was not asked. */
  check("file", "hint after close", hints[f], CLOSE_HINT_CLOSED);
  check("file", "stat after close", stat_of(f), CLOUDABI_EBADF);
  check("file", "hint once the supervisor saw it", hints[f], 0);
  check("file", "second close", cloudabi_sys_fd_close(f), CLOUDABI_EBADF);

  /* The number is free for the next open, as after a trapped close. */
  cloudabi_fd_t a = open_r("f.txt");
  RT_CHECK(cloudabi_sys_fd_close(a) == 0);
  cloudabi_fd_t b = open_r("f.txt");
  check("reuse", "same number", b == a ? 0 : WRONG_RESULT, 0);

  /* Closed by another thread: gone for this one. */
  rt_thread_t *t;
  RT_CHECK(rt_thread_create(&t, close_it, (void *)(uintptr_t)b) == 0);
  rt_thread_join(t);
  check("thread", "stat after the other's close", stat_of(b), CLOUDABI_EBADF);

  /* A duplicate is closed alone. */
  cloudabi_fd_t g = open_r("f.txt"), d;
  RT_CHECK(cloudabi_sys_fd_dup(g, &d) == 0);
  check("dup", "hint", hints[d], CLOSE_HINT_OPEN);
  RT_CHECK(cloudabi_sys_fd_close(d) == 0);
  char c;
  cloudabi_iovec_t iov = {&c, 1};
  size_t n;
  check("dup", "the original still reads", cloudabi_sys_fd_read(g, &iov, 1, &n),
        0);
  check("dup", "the copy is gone", stat_of(d), CLOUDABI_EBADF);

  /* Mirrored (at the second read): the vDSO closes the mirror with it,
   * and the supervisor finds it closed. */
  check("mirror", "second read", cloudabi_sys_fd_read(g, &iov, 1, &n), 0);
  long m = mirrors[g];
  check("mirror", "has one",
        m >= MIRROR_LOW && m < MIRROR_HIGH ? 0 : WRONG_RESULT, 0);
  check("mirror", "hint", hints[g], CLOSE_HINT_OPEN);
  RT_CHECK(cloudabi_sys_fd_close(g) == 0);
  check("mirror", "hint after close", hints[g], CLOSE_HINT_CLOSED);
  check("mirror", "vDSO table entry", mirrors[g], 0);
  check("mirror", "raw read after close",
        rt_raw_syscall(0, m, (long)&c, 1, 0, 0, 0) == -9 ? 0 : WRONG_RESULT, 0);
  check("mirror", "stat after close", stat_of(g), CLOUDABI_EBADF);
  check("mirror", "raw read once the supervisor saw it",
        rt_raw_syscall(0, m, (long)&c, 1, 0, 0, 0) == -9 ? 0 : WRONG_RESULT,
        0);

  /* A directory is closed quietly too; a socket is not. */
  cloudabi_fd_t sub;
  RT_EXPECT(open_file(dir, ".", CLOUDABI_O_DIRECTORY, R(FILE_OPEN), 0, 0, &sub),
            0);
  check("directory", "hint", hints[sub], CLOSE_HINT_OPEN);
  RT_CHECK(cloudabi_sys_fd_close(sub) == 0);
  check("directory", "stat after close", stat_of(sub), CLOUDABI_EBADF);
  cloudabi_fd_t s1, s2;
  RT_CHECK(cloudabi_sys_fd_create2(CLOUDABI_FILETYPE_SOCKET_STREAM, &s1, &s2) ==
           0);
  check("socket", "no hint", hints[s1], 0);
  RT_CHECK(cloudabi_sys_fd_close(s1) == 0 && cloudabi_sys_fd_close(s2) == 0);
}

/* Mirrors at file_open only while the program reads what it opens
 * (supervisor/mirrors.h): after files opened and closed untouched, an
 * open gets none; a file read again brings them back. */
static void eager(void) {
  cloudabi_fd_t f = open_r("f.txt");
  check("eager", "a mirror at open", mirrors[f] != 0 ? 0 : WRONG_RESULT, 0);
  RT_CHECK(cloudabi_sys_fd_close(f) == 0);
  for (int i = 0; i < 4; i++)
    RT_CHECK(cloudabi_sys_fd_close(open_r("f.txt")) == 0);
  f = open_r("f.txt");
  check("eager", "none after untouched files", mirrors[f], 0);
  char c;
  cloudabi_iovec_t iov = {&c, 1};
  size_t n;
  RT_CHECK(cloudabi_sys_fd_read(f, &iov, 1, &n) == 0 &&
           cloudabi_sys_fd_read(f, &iov, 1, &n) == 0);
  check("eager", "at the second read", mirrors[f] != 0 ? 0 : WRONG_RESULT, 0);
  RT_CHECK(cloudabi_sys_fd_close(f) == 0);
  /* Read: the next open has its mirror again. */
  f = open_r("f.txt");
  check("eager", "back once a file was read",
        mirrors[f] != 0 ? 0 : WRONG_RESULT, 0);
  RT_CHECK(cloudabi_sys_fd_close(f) == 0);
}

/* Opens that read through their mirror: the next open is mirrored at
 * once, in file_open's answer (the supervisor's open_misses). */
static void opens_that_read(void) {
  char c;
  cloudabi_iovec_t iov = {&c, 1};
  size_t n;
  for (int i = 0; i < 5; i++) {
    cloudabi_fd_t r = open_r("f.txt");
    RT_CHECK(cloudabi_sys_fd_read(r, &iov, 1, &n) == 0 && n == 1);
    RT_CHECK(cloudabi_sys_fd_close(r) == 0);
  }
}

/* f.txt opened and read through its mirror, then its close byte flipped
 * by hand with the mirror kept: its number, and the mirror's. */
static long kept_mirror(cloudabi_fd_t *h) {
  char c;
  cloudabi_iovec_t iov = {&c, 1};
  size_t n;
  opens_that_read();
  *h = open_r("f.txt");
  long mh = mirrors[*h];
  RT_CHECK(mh >= MIRROR_LOW && mh < MIRROR_HIGH);
  RT_CHECK(cloudabi_sys_fd_read(*h, &iov, 1, &n) == 0 && c == 'f');
  hints[*h] = CLOSE_HINT_CLOSED;
  *pending = 1;
  return mh;
}

/* A mirror kept after its close byte was flipped by hand, then a file
 * opened with rights: the number reads the new file or is inert. */
static void kept_then_open(cloudabi_rights_t rights, const char *what) {
  char c;
  cloudabi_iovec_t iov = {&c, 1};
  size_t n;
  cloudabi_fd_t h;
  long mh = kept_mirror(&h);
  cloudabi_fd_t g;
  RT_EXPECT(open_file(dir, "g.txt", 0, rights, 0, 0, &g), 0);
  /* Before any other trapped call, which would take it back too. */
  long r = rt_raw_syscall(0, mh, (long)&c, 1, 0, 0, 0);
  check(what, "closed file gone", stat_of(h) == CLOUDABI_EBADF || g == h
        ? 0 : WRONG_RESULT, 0);
  bool same = rights == (R(FD_READ) | R(FD_SEEK));
  /* Same rights: the new mirror at the kept number (no kcmp needed);
   * other rights: the inert descriptor there. */
  if (same)
    check(what, "kept number reads the new file",
          mirrors[g] == mh && r == 1 && c == 'g' ? 0 : WRONG_RESULT, 0);
  else
    check(what, "kept number is the inert descriptor",
          r == -22 && mirrors[g] != mh ? 0 : WRONG_RESULT, 0);
  check(what, "new file reads", cloudabi_sys_fd_read(g, &iov, 1, &n), 0);
  check(what, "its own bytes", n == 1 && c == 'g' ? 0 : WRONG_RESULT, 0);
  RT_CHECK(cloudabi_sys_fd_close(g) == 0);
}

/* A mirror gone stale by another process (a forked child changed the
 * flags of the object both hold), then a close without a trap and an
 * open: the stale mirror is taken back, never given to the new file,
 * whose bytes a read of the first would then return. */
static void stale_then_open(void) {
  put_file(dir, "s.txt", "ssss");
  char c;
  cloudabi_iovec_t iov = {&c, 1};
  size_t n;
  opens_that_read();
  cloudabi_fd_t s;
  RT_EXPECT(open_file(dir, "s.txt", 0,
                      R(FD_READ) | R(FD_SEEK) | R(FD_STAT_PUT_FLAGS), 0, 0,
                      &s),
            0);
  RT_CHECK(cloudabi_sys_fd_read(s, &iov, 1, &n) == 0 && c == 's');
  RT_CHECK(mirrors[s] != 0);
  cloudabi_fd_t pd;
  RT_CHECK(rt_proc_fork(&pd) == 0);
  if (pd == CLOUDABI_PROCESS_CHILD) {
    cloudabi_fdstat_t st = {.fs_flags = CLOUDABI_FDFLAG_NONBLOCK};
    cloudabi_sys_proc_exit(
        cloudabi_sys_fd_stat_put(s, &st, CLOUDABI_FDSTAT_FLAGS) == 0 ? 7 : 8);
  }
  check("stale", "child changed the flags", wait_child(pd) == 7 ? 0 : WRONG_RESULT,
        0);
  cloudabi_fd_t h = open_r("f.txt");
  RT_CHECK(cloudabi_sys_fd_close(h) == 0); /* a close without a trap */
  cloudabi_fd_t g = open_r("g.txt");
  check("stale", "first file reads its own bytes",
        cloudabi_sys_fd_read(s, &iov, 1, &n) == 0 && n == 1 && c == 's'
            ? 0
            : WRONG_RESULT,
        0);
  check("stale", "new file reads its own",
        cloudabi_sys_fd_read(g, &iov, 1, &n) == 0 && n == 1 && c == 'g'
            ? 0
            : WRONG_RESULT,
        0);
  RT_CHECK(cloudabi_sys_fd_close(g) == 0 && cloudabi_sys_fd_close(s) == 0);
}

/* The same, but a fork takes the close (its child must not hold the
 * file): the kept mirror is still gone once the parent's next call is
 * answered. */
static void kept_then_fork(void) {
  char c;
  cloudabi_fd_t h;
  long mh = kept_mirror(&h);
  cloudabi_fd_t pd;
  RT_CHECK(rt_proc_fork(&pd) == 0);
  if (pd == CLOUDABI_PROCESS_CHILD)
    cloudabi_sys_proc_exit(stat_of(h) == CLOUDABI_EBADF ? 7 : 8);
  /* proc_fork's answer was the parent's next call (pd may be h's number,
   * whose stale vDSO entry would make wait_child's close close mh). */
  check("fork", "kept mirror is the inert descriptor",
        (unsigned)-rt_raw_syscall(0, mh, (long)&c, 1, 0, 0, 0), 22);
  check("fork", "child lacks the file closed before",
        wait_child(pd) == 7 ? 0 : WRONG_RESULT, 0);
  check("fork", "closed file gone", stat_of(h), CLOUDABI_EBADF);
}

static void hostile(void) {
  /* A socket marked closed by hand: the supervisor closes it (the
   * program asked), and its peer sees the end. */
  cloudabi_fd_t s1, s2;
  RT_CHECK(cloudabi_sys_fd_create2(CLOUDABI_FILETYPE_SOCKET_STREAM, &s1, &s2) ==
           0);
  hints[s1] = CLOSE_HINT_CLOSED;
  *pending = 1;
  check("forged", "socket closed by its hint", stat_of(s1), CLOUDABI_EBADF);
  char c;
  cloudabi_iovec_t iov = {&c, 1};
  size_t n = 1;
  check("forged", "peer reads the end", cloudabi_sys_fd_read(s2, &iov, 1, &n),
        0);
  check("forged", "zero bytes", n == 0 ? 0 : WRONG_RESULT, 0);
  RT_CHECK(cloudabi_sys_fd_close(s2) == 0);

  /* A mirrored file marked closed by hand, its mirror kept: the
   * supervisor puts the inert descriptor there at the next call. */
  cloudabi_fd_t h = open_r("f.txt");
  RT_CHECK(cloudabi_sys_fd_read(h, &iov, 1, &n) == 0 &&
           cloudabi_sys_fd_read(h, &iov, 1, &n) == 0);
  long mh = mirrors[h];
  RT_CHECK(mh >= MIRROR_LOW && mh < MIRROR_HIGH);
  hints[h] = CLOSE_HINT_CLOSED;
  *pending = 1;
  check("forged", "kept mirror's file closed", stat_of(h), CLOUDABI_EBADF);
  check("forged", "kept mirror is the inert descriptor",
        rt_raw_syscall(0, mh, (long)&c, 1, 0, 0, 0) == -22 ? 0 : WRONG_RESULT,
        0);

  /* The same, but the next call opens another file: its mirror may take
   * the kept number (SETFD replaces what is there), and whatever it does
   * the old file is gone from that number before the open returns. */
  put_file(dir, "g.txt", "gggg");
  kept_then_open(R(FD_READ) | R(FD_SEEK), "same rights");
  kept_then_open(R(FD_READ), "other rights");
  stale_then_open();
  kept_then_fork();

  /* A number never opened, marked closed: nothing happens. */
  hints[900] = CLOSE_HINT_CLOSED;
  *pending = 1;
  check("forged", "a free number", stat_of(900), CLOUDABI_EBADF);

  /* Garbage everywhere and a huge count: every call still works, and a
   * file whose hint is garbage is closed by a trap. */
  cloudabi_fd_t f = open_r("f.txt");
  for (unsigned i = 0; i < CLOSE_HINT_FDS; i++)
    hints[i] = 0xff;
  *pending = 0xffffffff;
  check("garbage", "stat", stat_of(f), 0);
  check("garbage", "close", cloudabi_sys_fd_close(f), 0);
  check("garbage", "stat after close", stat_of(f), CLOUDABI_EBADF);
}

static void child(cloudabi_fd_t closed) {
  /* What its parent closed just before the fork is not its own. */
  if (stat_of(closed) != CLOUDABI_EBADF)
    cloudabi_sys_proc_exit(9);
  /* No I/O slots in a forked child, so no hints: closes trap. */
  cloudabi_fd_t f = open_r("f.txt");
  cloudabi_errno_t a = cloudabi_sys_fd_close(f);
  cloudabi_errno_t b = stat_of(f);
  cloudabi_sys_proc_exit(a == 0 && b == CLOUDABI_EBADF ? 7 : 8);
}

static void forked(void) {
  cloudabi_fd_t pd, closed = open_r("f.txt");
  RT_CHECK(cloudabi_sys_fd_close(closed) == 0);
  RT_CHECK(hints[closed] == CLOSE_HINT_CLOSED);
  RT_CHECK(rt_proc_fork(&pd) == 0);
  if (pd == CLOUDABI_PROCESS_CHILD)
    child(closed);
  cloudabi_subscription_t s = {.userdata = 1,
                               .type = CLOUDABI_EVENTTYPE_PROC_TERMINATE,
                               .proc_terminate = {pd}};
  cloudabi_event_t ev;
  size_t n;
  RT_EXPECT(cloudabi_sys_poll(&s, &ev, 1, &n), 0);
  check("fork", "child's close and stat",
        ev.proc_terminate.signal == 0 && ev.proc_terminate.exitcode == 7
            ? 0
            : WRONG_RESULT,
        0);
  /* A process descriptor's close kills, so it traps. */
  check("fork", "no hint on a process descriptor", hints[pd], 0);
  RT_CHECK(cloudabi_sys_fd_close(pd) == 0);
}

void program_main(const argdata_t *ad) {
  rt_log_fd = rt_map_fd(ad, "out");
  dir = rt_map_fd(ad, "dir");
  find_hints();
  honest();
  eager();
  forked();
  hostile();
  check_done("closes");
}
