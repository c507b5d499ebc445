/*
 * Mirrored descriptors (trap.h, src/supervisor/mirrors.h) seen from a
 * hostile program: it finds its mirrors by raw Linux calls and checks that
 * each allows exactly what its capability does, and nothing once the
 * capability is gone: after fd_stat_put dropped the right (for another
 * thread too), after fd_close, after fd_replace, in a forked child after
 * its first call, after proc_exec; that raw calls outside the ranges, of
 * the wrong kind, with high bits, mmap and close of a mirror kill the
 * process (the filter's SIGSYS, which the supervisor makes a SIGKILL); and that a forged vDSO table reaches nothing the
 * rights do not grant.  Config: out (stdout), dir (a writable directory),
 * self (!executable), do (run, or exec for the exec'd image; or epipe:
 * writes to out until the pipe breaks, reported on err; or cat: in to
 * out).
 */
#include "check.h"
#include "vdso_symbol.h"
#include "rt_thread.h"
#include "trap.h"

#define E(x) CLOUDABI_EVENTTYPE_##x
#define NR_READ 0
#define NR_WRITE 1
#define NR_CLOSE 3
#define NR_FSTAT 5
#define NR_MMAP 9
#define NR_PREAD64 17
#define NR_PWRITE64 18
#define EBADF_ 9
#define EINVAL_ 22

static cloudabi_fd_t out, dir, self;

static long raw_read(long fd, void *buf, long len) {
  return rt_raw_syscall(NR_READ, fd, (long)buf, len, 0, 0, 0);
}
static long raw_write(long fd, const void *buf, long len) {
  return rt_raw_syscall(NR_WRITE, fd, (long)buf, len, 0, 0, 0);
}

static cloudabi_fd_t open_rights(const char *path, cloudabi_rights_t rights) {
  cloudabi_fd_t fd;
  RT_EXPECT(open_file(dir, path, 0, rights, 0, 0, &fd), 0);
  return fd;
}

static char read1(cloudabi_fd_t fd) {
  char c = 0;
  cloudabi_iovec_t iov = {&c, 1};
  size_t n;
  RT_EXPECT(cloudabi_sys_fd_read(fd, &iov, 1, &n), 0);
  return c;
}

/* The one readable mirror the raw scan finds of a file holding `want`
 * at its current offset... any readable mirror whose next byte is it. */
static long find_readable(char want) {
  long found = -1;
  static const long bases[] = {MIRROR_READ, MIRROR_READ | MIRROR_WRITE,
                               MIRROR_READ | MIRROR_SEEK,
                               MIRROR_READ | MIRROR_WRITE | MIRROR_SEEK};
  for (int b = 0; b < 4; b++)
    for (long m = bases[b]; m < bases[b] + MIRROR_SPAN; m++) {
      char c;
      /* A zero-length read says whether the number holds anything. */
      if (raw_read(m, &c, 0) != 0)
        continue;
      if (raw_read(m, &c, 1) == 1 && c == want)
        found = m;
    }
  return found;
}

/* A forked child runs fn; returns the CloudABI signal it died of, or
 * 0x100 + its exit code. */
static unsigned in_child(void (*fn)(long), long arg) {
  cloudabi_fd_t pd;
  RT_CHECK(rt_proc_fork(&pd) == 0);
  if (pd == CLOUDABI_PROCESS_CHILD) {
    fn(arg);
    cloudabi_sys_proc_exit(0);
  }
  cloudabi_subscription_t s = {
      .userdata = 1, .type = E(PROC_TERMINATE), .proc_terminate = {pd}};
  cloudabi_event_t ev;
  size_t n;
  RT_EXPECT(cloudabi_sys_poll(&s, &ev, 1, &n), 0);
  RT_CHECK(cloudabi_sys_fd_close(pd) == 0);
  return ev.proc_terminate.signal != 0 ? ev.proc_terminate.signal
                                       : 0x100u + ev.proc_terminate.exitcode;
}

static void do_write(long m) { raw_write(m, "x", 1); }
static void do_read(long m) {
  char c;
  raw_read(m, &c, 1);
}
static void do_read_high(long m) {
  char c;
  raw_read(m | (1l << 32), &c, 1);
}
static void do_pread(long m) {
  char c;
  rt_raw_syscall(NR_PREAD64, m, (long)&c, 1, 0, 0, 0);
}
static void do_pwrite(long m) {
  rt_raw_syscall(NR_PWRITE64, m, (long)"x", 1, 0, 0, 0);
}
static void do_fstat(long m) {
  char st[144];
  rt_raw_syscall(NR_FSTAT, m, (long)st, 0, 0, 0, 0);
}
static void do_close(long m) {
  cloudabi_sys_proc_exit(rt_raw_syscall(NR_CLOSE, m, 0, 0, 0, 0, 0) == 0 ? 7
                                                                        : 8);
}
static void do_mmap(long m) {
  rt_raw_syscall(NR_MMAP, 0, 4096, 1 /* PROT_READ */, 2 /* MAP_PRIVATE */, m,
                 0);
}

/* A forked child's first call takes back what it inherited. */
static void child_after_call(long m) {
  char c;
  long before = raw_read(m, &c, 0);
  (void)fdstat(out); /* its first trapped call */
  long after = raw_read(m, &c, 1);
  cloudabi_sys_proc_exit(before == 0 && after == -EINVAL_ ? 7 : 8);
}

/* The vDSO's table of mirrors (trap.h), for a program to forge. */
static uint16_t *vdso_table(void) {
  return vdso_symbol(VDSO_MIRRORS_SYMBOL);
}

/* The close hints (trap.h), a byte per descriptor, for a program to
 * forge. */
static volatile uint8_t *close_hints(void) {
  char **region = vdso_symbol(VDSO_IOSLOTS_SYMBOL);
  RT_CHECK(*region != NULL);
  return (volatile uint8_t *)(*region + IOSLOT_CLOSE_HINTS);
}

struct dropper {
  cloudabi_fd_t fd;
  long mirror;
  _Atomic int phase;
  long result;
};

static void *drop_right(void *arg) {
  struct dropper *d = arg;
  while (d->phase != 1) {
  }
  cloudabi_fdstat_t st = {.fs_rights_base = 0};
  RT_CHECK(cloudabi_sys_fd_stat_put(d->fd, &st, CLOUDABI_FDSTAT_RIGHTS) == 0);
  d->phase = 2;
  return NULL;
}

static void run(void) {
  put_file(dir, "r.txt", "RRRRRRRR");
  put_file(dir, "x.txt", "XXXXXXXX");
  put_file(dir, "y.txt", "YYYYYYYY");
  put_file(dir, "w.txt", "");

  /* A read-only capability: its mirror reads, and nothing else. */
  cloudabi_fd_t r = open_rights("r.txt", R(FD_READ));
  /* file_open is answered with the mirror (trap.h), and still gives the
   * CloudABI number. */
  RT_CHECK(r < 16 && vdso_table()[r] >= MIRROR_READ &&
           vdso_table()[r] < MIRROR_READ + MIRROR_SPAN);
  RT_CHECK(read1(r) == 'R');
  RT_CHECK(read1(r) == 'R');
  long mr = find_readable('R');
  RT_CHECK(mr >= MIRROR_READ && mr < MIRROR_READ + MIRROR_SPAN);
  rt_printf(out, "read-only capability: a mirror in the read range\n");
  /* A forbidden call: the supervisor kills the process (SIGKILL). */
  unsigned sys = CLOUDABI_SIGKILL;
  RT_CHECK(in_child(do_write, mr) == sys);
  RT_CHECK(in_child(do_read_high, mr) == sys);
  RT_CHECK(in_child(do_close, mr) == 0x107); /* a right dropped: allowed */
  RT_CHECK(in_child(do_mmap, mr) == sys);
  RT_CHECK(in_child(do_read, MIRROR_LOW - 1) == sys);
  RT_CHECK(in_child(do_read, MIRROR_HIGH) == sys);
  RT_CHECK(in_child(do_write, MIRROR_READ + 5) == sys);
  RT_CHECK(in_child(do_pread, mr) == sys); /* no FD_SEEK */
  rt_printf(out, "wrong calls, numbers and bits: SIGSYS\n");

  /* With FD_SEEK too: pread, not pwrite. */
  cloudabi_fd_t rs = open_rights("r.txt", R(FD_READ) | R(FD_SEEK));
  char b2[2] = {0, 0};
  cloudabi_iovec_t piov = {b2, 1};
  size_t pn;
  RT_EXPECT(cloudabi_sys_fd_pread(rs, &piov, 1, 3, &pn), 0);
  RT_EXPECT(cloudabi_sys_fd_pread(rs, &piov, 1, 3, &pn), 0);
  long ms = vdso_table()[rs];
  RT_CHECK(ms >= (MIRROR_READ | MIRROR_SEEK) &&
           ms < (MIRROR_READ | MIRROR_SEEK) + MIRROR_SPAN);
  RT_CHECK(rt_raw_syscall(NR_PREAD64, ms, (long)b2, 1, 5, 0, 0) == 1 &&
           b2[0] == 'R');
  RT_CHECK(in_child(do_pwrite, ms) == sys);
  RT_EXPECT(cloudabi_sys_fd_pread(rs, &piov, 1, 100, &pn), 0);
  RT_CHECK(pn == 0);
  rt_printf(out, "seekable capability: pread, not pwrite\n");

  /* FILE_STAT_FGET: a stat mirror, whose fstat answers as the trapped
   * call does, and tracks the file; none without the right. */
  RT_CHECK(in_child(do_fstat, mr) == sys);
  cloudabi_fd_t sf = open_rights("r.txt", R(FD_READ) | R(FILE_STAT_FGET));
  RT_CHECK(read1(sf) == 'R' && read1(sf) == 'R');
  long msf = vdso_table()[sf];
  RT_CHECK((msf & ~(long)(MIRROR_SPAN - 1)) == (MIRROR_READ | MIRROR_STAT));
  cloudabi_filestat_t fs1, fs2;
  RT_EXPECT(cloudabi_sys_file_stat_fget(sf, &fs1), 0);
  RT_EXPECT(stat_path(dir, "r.txt", false, &fs2), 0);
  RT_CHECK(fs1.st_ino == fs2.st_ino && fs1.st_dev == fs2.st_dev &&
           fs1.st_size == 8 && fs1.st_filetype == fs2.st_filetype &&
           fs1.st_nlink == fs2.st_nlink && fs1.st_mtim == fs2.st_mtim &&
           fs1.st_ctim == fs2.st_ctim);
  put_file(dir, "r.txt", "RRRRRRRRRR");
  RT_EXPECT(cloudabi_sys_file_stat_fget(sf, &fs1), 0);
  RT_CHECK(fs1.st_size == 10);
  RT_EXPECT(cloudabi_sys_file_stat_fget(sf, BAD_PTR), CLOUDABI_EFAULT);
  /* A forged entry naming the read-only mirror: the vDSO checks the
   * range; a taken-back number: the inert descriptor's stat is no file's. */
  vdso_table()[sf] = (uint16_t)mr;
  RT_EXPECT(cloudabi_sys_file_stat_fget(sf, &fs1), 0);
  RT_CHECK(fs1.st_size == 10);
  cloudabi_fdstat_t nost = {.fs_rights_base = R(FD_READ)};
  RT_EXPECT(cloudabi_sys_fd_stat_put(sf, &nost, CLOUDABI_FDSTAT_RIGHTS), 0);
  char raw[144];
  uint32_t mode;
  RT_CHECK(rt_raw_syscall(NR_FSTAT, msf, (long)raw, 0, 0, 0, 0) == 0);
  memcpy(&mode, raw + 24, sizeof(mode));
  RT_CHECK((mode & 0170000) != 0100000); /* the inert descriptor */
  vdso_table()[sf] = (uint16_t)msf;
  RT_EXPECT(cloudabi_sys_file_stat_fget(sf, &fs1), CLOUDABI_ENOTCAPABLE);
  rt_printf(out, "stat capability: fstat, as the trapped call\n");

  /* A forked child: inherited mirrors go at its first call. */
  RT_CHECK(in_child(child_after_call, mr) == 0x107);
  char c;
  RT_CHECK(raw_read(mr, &c, 1) == 1); /* the parent's still stands */
  rt_printf(out, "forked child: inherited mirror taken back\n");

  /* Rights dropped by another thread: gone for this one's next call. */
  struct dropper d = {.fd = r, .mirror = mr};
  rt_thread_t *t;
  RT_CHECK(rt_thread_create(&t, drop_right, &d) == 0);
  RT_CHECK(raw_read(mr, &c, 0) == 0);
  d.phase = 1;
  while (d.phase != 2)
    raw_read(mr, &c, 0);
  RT_CHECK(raw_read(mr, &c, 1) == -EINVAL_);
  rt_thread_join(t);
  cloudabi_iovec_t iov = {&c, 1};
  size_t n;
  RT_EXPECT(cloudabi_sys_fd_read(r, &iov, 1, &n), CLOUDABI_ENOTCAPABLE);
  rt_printf(out, "right dropped: mirror taken back\n");

  /* A write-only capability: a mirror in the write range; after close,
   * nothing reaches the file. */
  cloudabi_fd_t w = open_rights("w.txt", R(FD_WRITE));
  size_t wrote;
  cloudabi_ciovec_t ciov = {"1", 1};
  RT_EXPECT(cloudabi_sys_fd_write(w, &ciov, 1, &wrote), 0);
  RT_EXPECT(cloudabi_sys_fd_write(w, &ciov, 1, &wrote), 0);
  /* Found by a zero-length write; standard output has one too. */
  long mw = -1;
  for (long m = MIRROR_WRITE; m < MIRROR_WRITE + MIRROR_SPAN; m++)
    if (raw_write(m, "", 0) == 0 && m != vdso_table()[out])
      mw = m;
  RT_CHECK(raw_write(mw, "2", 1) == 1);
  RT_CHECK(mw >= 0);
  RT_CHECK(in_child(do_read, mw) == sys);
  /* Closed without a trap: the vDSO closes the mirror, and the
   * supervisor, at the next call, finds it gone. */
  RT_CHECK(cloudabi_sys_fd_close(w) == 0);
  RT_CHECK(raw_write(mw, "3", 1) == -EBADF_);
  cloudabi_filestat_t st;
  RT_CHECK(stat_path(dir, "w.txt", false, &st) == 0 && st.st_size == 3);
  RT_CHECK(raw_write(mw, "3", 1) == -EBADF_);
  rt_printf(out, "closed: mirror taken back\n");

  /* A trapped close (the hint byte forged, as for a socket, which is never
   * closed quietly): the vDSO closes the mirror before the trap.  And when
   * it is made not to (the table entry forged to 0), the supervisor finds
   * the mirror still there and makes it inert. */
  volatile uint8_t *hints = close_hints();
  for (int lie = 0; lie < 2; lie++) {
    cloudabi_fd_t t = open_rights("w.txt", R(FD_WRITE));
    RT_EXPECT(cloudabi_sys_fd_write(t, &ciov, 1, &wrote), 0);
    RT_EXPECT(cloudabi_sys_fd_write(t, &ciov, 1, &wrote), 0);
    long mt = vdso_table()[t];
    RT_CHECK(mt >= MIRROR_WRITE && mt < MIRROR_WRITE + MIRROR_SPAN);
    RT_CHECK(raw_write(mt, "", 0) == 0);
    hints[t] = 0;
    if (lie)
      vdso_table()[t] = 0;
    RT_CHECK(cloudabi_sys_fd_close(t) == 0);
    RT_CHECK(raw_write(mt, "4", 1) == (lie ? -EINVAL_ : -EBADF_));
  }
  /* Both wrote "11" over "112": no "4" after either close. */
  RT_CHECK(stat_path(dir, "w.txt", false, &st) == 0 && st.st_size == 3);
  cloudabi_fd_t check = open_rights("w.txt", R(FD_READ));
  RT_CHECK(read1(check) == '1' && read1(check) == '1' && read1(check) == '2');
  RT_CHECK(cloudabi_sys_fd_close(check) == 0);
  rt_printf(out, "closed with a trap: mirror taken back\n");

  /* fd_replace: the old mirror no longer reads the old file. */
  cloudabi_fd_t x = open_rights("x.txt", R(FD_READ));
  cloudabi_fd_t y = open_rights("y.txt", R(FD_READ));
  RT_CHECK(read1(x) == 'X' && read1(x) == 'X');
  long mx = find_readable('X');
  RT_CHECK(mx >= 0);
  RT_CHECK(cloudabi_sys_fd_replace(y, x) == 0);
  RT_CHECK(raw_read(mx, &c, 1) == -EINVAL_);
  RT_CHECK(read1(x) == 'Y');
  rt_printf(out, "replaced: mirror taken back\n");

  /* A forged vDSO table: a write mirror for a read, a number outside the
   * ranges: the vDSO checks the range, the trapped path answers. */
  uint16_t *table = vdso_table();
  cloudabi_fd_t z = open_rights("y.txt", R(FD_READ));
  cloudabi_fd_t wz = open_rights("w.txt", R(FD_WRITE));
  RT_EXPECT(cloudabi_sys_fd_write(wz, &ciov, 1, &wrote), 0);
  RT_EXPECT(cloudabi_sys_fd_write(wz, &ciov, 1, &wrote), 0);
  long mwz = table[wz];
  RT_CHECK(mwz >= MIRROR_WRITE && mwz < MIRROR_WRITE + MIRROR_SPAN);
  table[z] = (uint16_t)mwz;
  RT_CHECK(read1(z) == 'Y');
  table[z] = 200;
  RT_CHECK(read1(z) == 'Y');
  table[wz] = (uint16_t)mx; /* a taken-back number */
  RT_EXPECT(cloudabi_sys_fd_write(wz, &ciov, 1, &wrote), 0);
  RT_CHECK(wrote == 1);
  rt_printf(out, "forged table: nothing beyond the rights\n");

  /* A trapped read whose data reaches the slot's answer bytes (trap.h)
   * and holds there what an answer with a mirror would: the peer's bytes
   * stay data, and the count is the read's. */
  cloudabi_fd_t pa, pb;
  RT_EXPECT(cloudabi_sys_fd_create2(CLOUDABI_FILETYPE_SOCKET_STREAM, &pa, &pb),
            0);
  static char big[IOSLOT_SIZE], back[IOSLOT_SIZE];
  for (size_t i = 0; i < sizeof(big); i++)
    big[i] = (char)(i * 7);
  uint64_t fake[2] = {TRAP_ANSWER_TAG | IOSLOT_SIZE, 5};
  memcpy(big + IOSLOT_ANSWER, fake, sizeof(fake));
  RT_EXPECT(rt_write_all(pa, big, sizeof(big)), 0);
  size_t got = 0;
  while (got < sizeof(back)) {
    cloudabi_iovec_t bi = {back + got, sizeof(back) - got};
    size_t k;
    RT_EXPECT(cloudabi_sys_fd_read(pb, &bi, 1, &k), 0);
    RT_CHECK(k > 0 && k <= sizeof(back) - got);
    got += k;
  }
  RT_CHECK(memcmp(big, back, sizeof(big)) == 0);
  RT_CHECK(vdso_table()[pb] == 0);
  rt_printf(out, "answer bytes in the data: data\n");

  /* Mirrors made at file_open: kept for files used through them, even by
   * pread alone, which leaves the offset at 0 (the vDSO's use bytes,
   * trap.h); after four opens in a row unused, made at the second read
   * only, but for one open in 16; a mirror made at a read ends that. */
  cloudabi_fd_t u = open_rights("x.txt", R(FD_READ));
  RT_CHECK(read1(u) == 'X' && read1(u) == 'X');
  RT_CHECK(cloudabi_sys_fd_close(u) == 0);
  for (int i = 0; i < 6; i++) {
    u = open_rights("x.txt", R(FD_READ) | R(FD_SEEK));
    RT_CHECK(vdso_table()[u] != 0);
    char one;
    cloudabi_iovec_t uiov = {&one, 1};
    size_t un;
    RT_EXPECT(cloudabi_sys_fd_pread(u, &uiov, 1, 2, &un), 0);
    RT_CHECK(un == 1 && one == 'X');
    RT_CHECK(cloudabi_sys_fd_close(u) == 0);
  }
  unsigned bare = 0;
  for (int i = 0; i < 8; i++) {
    u = open_rights("x.txt", R(FD_READ));
    if (i >= 4 && vdso_table()[u] == 0)
      bare++;
    RT_CHECK(cloudabi_sys_fd_close(u) == 0);
  }
  RT_CHECK(bare >= 3);
  u = open_rights("x.txt", R(FD_READ));
  RT_CHECK(read1(u) == 'X' && read1(u) == 'X' && vdso_table()[u] != 0);
  RT_CHECK(cloudabi_sys_fd_close(u) == 0);
  u = open_rights("x.txt", R(FD_READ));
  RT_CHECK(vdso_table()[u] != 0);
  RT_CHECK(cloudabi_sys_fd_close(u) == 0);
  rt_printf(out, "mirrors at open: kept while used\n");

  /* proc_exec: the new image holds no mirror. */
  static const unsigned char exec_argdata[] = {
      0x06, 0x84, 0x08, 'd', 'o', 0x00, 0x86, 0x08, 'e', 'x', 'e', 'c', 0x00,
      0x85, 0x08, 'o', 'u', 't', 0x00, 0x85, 0x03, 0x00, 0x00, 0x00, 0x00};
  cloudabi_fd_t fds[1] = {out};
  cloudabi_sys_proc_exec(self, exec_argdata, sizeof(exec_argdata), fds, 1);
  rt_printf(out, "proc_exec failed\n");
}

/* The exec'd image: every number in the ranges is empty. */
static void exec_check(void) {
  unsigned held = 0;
  char c;
  for (long m = MIRROR_LOW; m < MIRROR_HIGH; m++) {
    if ((m & (MIRROR_READ | MIRROR_WRITE)) == 0)
      continue; /* no such numbers: the filter kills */
    long r = (m & MIRROR_READ) == 0 ? raw_write(m, &c, 0)
                                    : raw_read(m, &c, 0);
    if (r != -EBADF_)
      held++;
  }
  rt_printf(out, "after proc_exec: %u mirrors\n", held);
}

/* Writes to out (a pipe whose reader goes) until a write fails: EPIPE,
 * not death by SIGPIPE, once the writes are the kernel's own. */
static void epipe(const argdata_t *ad) {
  cloudabi_fd_t err = rt_map_fd(ad, "err");
  static char block[4096];
  memset(block, 'p', sizeof(block));
  /* Two bytes the reader waits for (it takes 100), so that out is
   * mirrored, at the second write, before the reader can go. */
  for (unsigned i = 0; i < 2; i++)
    RT_CHECK(rt_write_all(out, "p", 1) == 0);
  for (unsigned i = 0; i < 100000; i++) {
    cloudabi_ciovec_t iov = {block, sizeof(block)};
    size_t n;
    cloudabi_errno_t e = cloudabi_sys_fd_write(out, &iov, 1, &n);
    if (e != 0) {
      rt_printf(err, "epipe: errno %u, mirrored %s\n", e,
                vdso_table()[out] != 0 ? "yes" : "no");
      return;
    }
  }
  rt_printf(err, "epipe: no error\n");
}

/* Copies in to out until the end, 3 bytes at a time: reads that wait
 * (in the kernel, on a mirror) and the end of a pipe. */
static void cat(const argdata_t *ad) {
  cloudabi_fd_t in = rt_map_fd(ad, "in");
  char buf[3];
  for (;;) {
    cloudabi_iovec_t iov = {buf, sizeof(buf)};
    size_t n;
    RT_EXPECT(cloudabi_sys_fd_read(in, &iov, 1, &n), 0);
    if (n == 0)
      break;
    RT_CHECK(rt_write_all(out, buf, n) == 0);
  }
  rt_printf(out, "\nmirrored %s\n", vdso_table()[in] != 0 ? "yes" : "no");
}

void program_main(const argdata_t *ad) {
  out = rt_map_fd(ad, "out");
  rt_log_fd = out;
  if (strcmp(rt_map_str(ad, "do", ""), "epipe") == 0) {
    epipe(ad);
    return;
  }
  if (strcmp(rt_map_str(ad, "do", ""), "cat") == 0) {
    cat(ad);
    return;
  }
  if (strcmp(rt_map_str(ad, "do", ""), "exec") == 0) {
    exec_check();
    return;
  }
  dir = rt_map_fd(ad, "dir");
  self = rt_map_fd(ad, "self");
  run();
}
