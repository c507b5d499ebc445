/*
 * A program that keeps the descriptor mem_map lends (issue 11.5): it traps
 * mem_map itself, as a hostile program would, never closes the number it
 * gets, and tries to map it again with a raw mmap after the capability is
 * closed or narrowed, after another trapped call, from another thread,
 * and in forked children.  Each such mmap must fail (the supervisor has
 * put an inert descriptor at that number).  It also checks what must keep
 * working: a lend is mappable until the process's next relevant call, and
 * another thread's unrelated call does not take it away from a thread
 * still between the trap and its mmap; and the bound on lends kept at
 * once.  Config: out, dir.
 */
#include "check.h"
#include "rt_thread.h"

/* Linux x86-64 values, spelled out: this program has no Linux headers. */
enum {
  NR_mmap = 9, NR_munmap = 11, NR_clone = 56,
  L_PROT_READ = 1, L_MAP_PRIVATE = 2, L_SIGCHLD = 17,
  L_EBADF = 9, L_ENODEV = 19,
};

static cloudabi_fd_t dir;

/* mem_map trapped by hand: the lent descriptor's number, or < 0. */
static long lend(cloudabi_fd_t fd) {
  return rt_raw_syscall(0x10000 + CLOUDABI_SYS_mem_map, 0, 4096,
                        CLOUDABI_PROT_READ, CLOUDABI_MAP_PRIVATE, fd, 0);
}

/* A raw mmap of a kept number: 0 if it mapped "kept", else the -errno. */
static long raw_map(long gfd) {
  long r = rt_raw_syscall(NR_mmap, 0, 4096, L_PROT_READ, L_MAP_PRIVATE, gfd,
                          0);
  if (r < 0 && r > -4096)
    return r;
  bool same = memcmp((void *)r, "kept", 4) == 0;
  rt_raw_syscall(NR_munmap, r, 4096, 0, 0, 0, 0);
  return same ? 0 : -1000;
}

/* What a kept number must give once revoked: the inert descriptor's
 * ENODEV (or EBADF, had the program closed it after all). */
static bool revoked(long r) { return r == -L_ENODEV || r == -L_EBADF; }

static void expect(const char *row, bool ok, long got) {
  if (ok) {
    rt_checks_passed++;
    return;
  }
  check_failed++;
  rt_printf(rt_log_fd, "FAIL %s: got %ld\n", row, got);
}

static cloudabi_fd_t open_kept(cloudabi_rights_t base) {
  cloudabi_fd_t f;
  RT_CHECK(open_file(dir, "kept.txt", 0, base, 0, 0, &f) == 0);
  return f;
}

static long lend_checked(const char *row, cloudabi_fd_t f) {
  long g = lend(f);
  if (g < 0) {
    rt_printf(rt_log_fd, "FAIL %s: mem_map trapped by hand gave %ld\n", row,
              g);
    rt_exit(1);
  }
  return g;
}

/* The capability is closed: the kept number maps nothing. */
static void after_close(void) {
  cloudabi_fd_t f = open_kept(R(FD_READ) | R(MEM_MAP));
  long g = lend_checked("close", f);
  long r = raw_map(g); /* no trapped call in between: still lent */
  expect("close: mappable before any other call", r == 0, r);
  RT_EXPECT(cloudabi_sys_fd_close(f), 0);
  r = raw_map(g);
  expect("close: kept number after fd_close", revoked(r), r);
}

/* The capability loses MEM_MAP. */
static void after_narrow(void) {
  cloudabi_fd_t f = open_kept(R(FD_READ) | R(MEM_MAP));
  long g = lend_checked("narrow", f);
  cloudabi_fdstat_t st = {.fs_rights_base = R(FD_READ)};
  RT_EXPECT(cloudabi_sys_fd_stat_put(f, &st, CLOUDABI_FDSTAT_RIGHTS), 0);
  long r = raw_map(g);
  expect("narrow: kept number after fd_stat_put", revoked(r), r);
  RT_EXPECT(cloudabi_sys_fd_close(f), 0);
}

/* The same thread's next trapped call ends the lend, though the
 * capability is unchanged; mem_map through the vDSO still works. */
static void after_next_call(void) {
  cloudabi_fd_t f = open_kept(R(FD_READ) | R(MEM_MAP));
  long g = lend_checked("next call", f);
  fdstat(f);
  long r = raw_map(g);
  expect("next call: kept number after fd_stat_get", revoked(r), r);
  void *p;
  RT_EXPECT(cloudabi_sys_mem_map(NULL, 4096, CLOUDABI_PROT_READ,
                                 CLOUDABI_MAP_PRIVATE, f, 0, &p),
            0);
  RT_CHECK(memcmp(p, "kept", 4) == 0);
  RT_EXPECT(cloudabi_sys_mem_unmap(p, 4096), 0);
  RT_EXPECT(cloudabi_sys_fd_close(f), 0);
}

/*
 * Two threads, stepping each other through a word, with no trapped call
 * on the lending thread after its lend: the main thread makes a call
 * (what `close` says) while the other holds the lent number.
 */
struct duo {
  _Atomic int step;
  cloudabi_fd_t f;
  long gfd, result;
};

static void wait_step(struct duo *d, int step) {
  while (d->step != step)
    rt_raw_syscall(24 /* sched_yield */, 0, 0, 0, 0, 0, 0);
}

static void *lender(void *arg) {
  struct duo *d = arg;
  d->gfd = lend(d->f);
  d->step = 1;
  wait_step(d, 2);
  d->result = d->gfd < 0 ? d->gfd : raw_map(d->gfd);
  d->step = 3;
  return NULL;
}

static long other_thread(bool close) {
  struct duo d = {.f = open_kept(R(FD_READ) | R(MEM_MAP))};
  cloudabi_fd_t other = open_kept(R(FD_READ));
  rt_thread_t *t;
  RT_CHECK(rt_thread_create(&t, lender, &d) == 0);
  wait_step(&d, 1);
  RT_EXPECT(cloudabi_sys_fd_close(close ? d.f : other), 0);
  d.step = 2;
  wait_step(&d, 3);
  rt_thread_join(t);
  if (!close)
    RT_EXPECT(cloudabi_sys_fd_close(d.f), 0);
  else
    RT_EXPECT(cloudabi_sys_fd_close(other), 0);
  return d.result;
}

static void threads(void) {
  long r = other_thread(true);
  expect("thread: kept number after another thread's fd_close", revoked(r),
         r);
  r = other_thread(false);
  expect("thread: a lend in flight survives another thread's unrelated call",
         r == 0, r);
}

/* A thread that lent and exited without another call: the number it
 * left is revoked on the process's next call once its exit is known.
 * Really exited: a thread the vDSO parks for reuse lives on, and keeps
 * its lend until its next call, as any live thread does. */
static void *lend_and_exit(void *arg) {
  struct duo *d = arg;
  d->gfd = lend(d->f);
  rt_thread_exit_gone();
}

static void thread_gone(void) {
  struct duo d = {.f = open_kept(R(FD_READ) | R(MEM_MAP))};
  rt_thread_t *t;
  RT_CHECK(rt_thread_create(&t, lend_and_exit, &d) == 0);
  rt_thread_join(t);
  RT_CHECK(d.gfd >= 0);
  /* The supervisor learns of the exit from ptrace, maybe after a call or
   * two of ours. */
  long r = 0;
  for (int i = 0; i < 2000 && !revoked(r); i++) {
    fdstat(d.f);
    r = raw_map(d.gfd);
  }
  expect("thread gone: its kept number", revoked(r), r);
  RT_EXPECT(cloudabi_sys_fd_close(d.f), 0);
}

/*
 * The bound: SUP_MAX_LENDS (64) threads each keep a lend; one more lend
 * is EMFILE, until those threads are gone and their lends revoked.
 */
#define MAX_LENDS 64
struct crowd {
  cloudabi_fd_t f;
  _Atomic int arrived, lent, go;
  long gfd[MAX_LENDS];
};

static void *keep_one(void *arg) {
  struct crowd *c = arg;
  int i = c->arrived++;
  c->gfd[i] = lend(c->f);
  c->lent++;
  while (c->go == 0)
    rt_raw_syscall(24 /* sched_yield */, 0, 0, 0, 0, 0, 0);
  rt_thread_exit_gone(); /* gone, not parked (lend_and_exit) */
}

static void bound(void) {
  static struct crowd c;
  c.f = open_kept(R(FD_READ) | R(MEM_MAP));
  rt_thread_t *t[MAX_LENDS];
  for (int i = 0; i < MAX_LENDS; i++)
    RT_CHECK(rt_thread_create(&t[i], keep_one, &c) == 0);
  while (c.lent != MAX_LENDS)
    rt_raw_syscall(24 /* sched_yield */, 0, 0, 0, 0, 0, 0);
  bool all = true;
  for (int i = 0; i < MAX_LENDS; i++)
    all = all && c.gfd[i] >= 0;
  expect("bound: 64 lends kept by 64 threads", all, 0);
  long g = lend(c.f);
  expect("bound: the 65th lend", g == -(0x800 + CLOUDABI_EMFILE), g);
  c.go = 1;
  for (int i = 0; i < MAX_LENDS; i++)
    rt_thread_join(t[i]);
  /* Once their exits are known, their lends are revoked at our calls. */
  void *p = NULL;
  cloudabi_errno_t e = CLOUDABI_EMFILE;
  for (int i = 0; i < 2000 && e == CLOUDABI_EMFILE; i++)
    e = cloudabi_sys_mem_map(NULL, 4096, CLOUDABI_PROT_READ,
                             CLOUDABI_MAP_PRIVATE, c.f, 0, &p);
  check("bound", "mem_map once the threads are gone", e, 0);
  if (e == 0)
    RT_EXPECT(cloudabi_sys_mem_unmap(p, 4096), 0);
  fdstat(c.f);
  all = true;
  for (int i = 0; i < MAX_LENDS; i++)
    all = all && (c.gfd[i] < 0 || revoked(raw_map(c.gfd[i])));
  expect("bound: every kept number revoked", all, 0);
  RT_EXPECT(cloudabi_sys_fd_close(c.f), 0);
}

/*
 * Forked children inherit the kept number with the descriptor table; a
 * child's first trapped call revokes it.  The child reports what its raw
 * mmap gave over a socket (its result line is a trapped call too).
 */
static void child_part(cloudabi_fd_t f, cloudabi_fd_t tx, long g) {
  fdstat(f);
  long r = raw_map(g);
  RT_EXPECT(cloudabi_sys_fd_write(tx, &(cloudabi_ciovec_t){&r, sizeof(r)}, 1,
                                  &(size_t){0}),
            0);
  cloudabi_sys_proc_exit(0);
}

static long forked(bool raw) {
  cloudabi_fd_t f = open_kept(R(FD_READ) | R(MEM_MAP)), rx, tx;
  RT_CHECK(cloudabi_sys_fd_create2(CLOUDABI_FILETYPE_SOCKET_STREAM, &rx,
                                   &tx) == 0);
  long g = lend_checked(raw ? "raw clone" : "fork", f);
  cloudabi_fd_t pd = CLOUDABI_PROCESS_CHILD;
  if (raw) {
    long pid = rt_raw_syscall(NR_clone, L_SIGCHLD, 0, 0, 0, 0, 0);
    RT_CHECK(pid >= 0);
    if (pid == 0)
      child_part(f, tx, g);
  } else {
    cloudabi_tid_t tid;
    RT_EXPECT(cloudabi_sys_proc_fork(&pd, &tid), 0);
    if (pd == CLOUDABI_PROCESS_CHILD)
      child_part(f, tx, g);
  }
  long r = 0;
  size_t n;
  RT_EXPECT(cloudabi_sys_fd_read(rx, &(cloudabi_iovec_t){&r, sizeof(r)}, 1,
                                 &n),
            0);
  RT_CHECK(n == sizeof(r));
  /* The parent's own copy went at its proc_fork (or fd_read) call. */
  long mine = raw_map(g);
  expect(raw ? "raw clone: parent's kept number" : "fork: parent's kept number",
         revoked(mine), mine);
  if (!raw)
    RT_EXPECT(cloudabi_sys_fd_close(pd), 0);
  RT_EXPECT(cloudabi_sys_fd_close(rx), 0);
  RT_EXPECT(cloudabi_sys_fd_close(tx), 0);
  RT_EXPECT(cloudabi_sys_fd_close(f), 0);
  return r;
}

static void children(void) {
  long r = forked(false);
  expect("fork: child's kept number after its first call", revoked(r), r);
  r = forked(true);
  expect("raw clone: child's kept number after its first call", revoked(r),
         r);
}

void program_main(const argdata_t *ad) {
  rt_log_fd = rt_map_fd(ad, "out");
  dir = rt_map_fd(ad, "dir");
  put_file(dir, "kept.txt", "kept");
  after_close();
  after_narrow();
  after_next_call();
  threads();
  thread_gone();
  bound();
  children();
  check_done("keeper");
}
