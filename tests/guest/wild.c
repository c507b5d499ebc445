/*
 * A hostile guest, as a seeded fuzzer of the supervisor.  Several threads
 * call every supervisor-handled syscall number directly (bypassing the
 * vDSO's stubs, so the slot registers are whatever is left over), each
 * argument chosen by its kind in the ABI description: mostly plausible
 * (descriptors that exist, paths that resolve or almost, valid flag
 * combinations, iovecs and structs in a shared area that other threads
 * rewrite meanwhile), sometimes at a boundary (zero, all ones, the end of
 * a mapping, the kernel's half).  It forks through the vDSO and with a raw
 * clone(SIGCHLD) that it claims later or never; children call on, exec
 * this program again with junk argdata and descriptors, and exit.
 *
 * Calls that would block forever simply do: after `seconds` the main
 * thread exits the process, cancelling whatever is parked.  The supervisor
 * must answer everything with an errno and live on; the test checks the
 * last line.  Config: out, file, dir, in, self (!executable), seed (0:
 * random; printed, so a run can be repeated: exactly with threads: 1),
 * threads, forks, seconds.
 */
#include "rt.h"
#include "rt_thread.h"
#include "trap.h"

#define MAX_THREADS 8
/* Workers started in all: a blocked worker is replaced by a new one. */
#define MAX_WORKERS 64
#define POOL 32
#define AREA (64 * 1024)

/* The arguments of each call, by kind, from the ABI description. */
#define KIND_ENUM(kind, ctype) K_##kind,
enum kind { CLOUDABI_ARG_KINDS(KIND_ENUM) K_COUNT };
#define ARG_KIND(i, kind, name, rights) K_##kind,
#define ROW(name, where, n, args)                                              \
  [CLOUDABI_SYS_##name] = {n, WHERE_##where,                                  \
                           {CLOUDABI_ARGS_FOREACH(ARG_KIND, CLOUDABI_SEP_NONE, \
                                                  n, args)}},
enum { WHERE_TRAP, WHERE_LOCAL, WHERE_MIXED };
static const struct {
  unsigned char nargs, where;
  unsigned char kinds[7];
} calls[CLOUDABI_SYSCALL_COUNT] = {CLOUDABI_SYSCALLS(ROW)};

struct rng {
  uint64_t s;
};

static uint64_t next(struct rng *r) {
  r->s ^= r->s << 13;
  r->s ^= r->s >> 7;
  r->s ^= r->s << 17;
  return r->s;
}

static unsigned pick(struct rng *r, unsigned n) {
  return (unsigned)(next(r) % n);
}

/* Shared by every thread: the area, its unmapped guard page, and the
 * descriptors known to exist (racy on purpose: a stale number is fine). */
static char *area;
static _Atomic(uint32_t) pool[POOL];
static cloudabi_fd_t out = ~0u, self_fd = ~0u;
static _Atomic(unsigned long) n_calls, n_errors, n_forks;
static unsigned max_forks;
static bool is_child;

static void pool_add(struct rng *r, uint32_t fd) {
  if (fd != out && fd < 1024)
    pool[pick(r, POOL)] = fd;
}

static uint64_t boundary(struct rng *r) {
  static const uint64_t v[] = {0,
                               1,
                               4096,
                               0x7fffffff,
                               0xffffffff,
                               UINT64_MAX,
                               (uint64_t)1 << 63,
                               (uint64_t)1 << 40,
                               0xffff800000000000ull,
                               0x800000000000ull /* not canonical */};
  switch (pick(r, 4)) {
  case 0:
    return (uint64_t)area + AREA - pick(r, 64); /* runs off the end */
  case 1:
    return next(r);
  default:
    return v[pick(r, sizeof(v) / sizeof(v[0]))];
  }
}

static uint64_t fd_value(struct rng *r) {
  uint64_t v = pick(r, 8) != 0 ? pool[pick(r, POOL)]
               : pick(r, 8) == 0 ? boundary(r)
                                 : pick(r, 64);
  /* Nor in a list (touches_out sees only arguments): the first process's
   * report descriptor, sent over a socket and received back at another
   * number, was once written with random bytes. */
  return !is_child && (uint32_t)v == out ? ~0u : v;
}

/* A place in the area for len bytes, filled with random bytes. */
static char *scratch(struct rng *r, size_t len) {
  char *p = area + pick(r, (unsigned)(AREA - len));
  for (size_t i = 0; i < len; i++)
    p[i] = (char)next(r);
  return p;
}

static const char *const paths[] = {
    "scratch.txt", "a",   "a/b",     "a/",     "..",   ".",   "../x",
    "d",           "d/e", "link",    "link/",  "self", "x/..", "//",
    "scratch.txt/", "a/../a", "d/../../etc/passwd", "/etc/passwd"};

/* A path and its length into a[i], a[i + 1]. */
static void path_args(struct rng *r, uint64_t *a, unsigned i) {
  const char *p = paths[pick(r, sizeof(paths) / sizeof(paths[0]))];
  size_t len = strlen(p);
  char *q = scratch(r, len + 1);
  memcpy(q, p, len + 1);
  a[i] = (uint64_t)q;
  a[i + 1] = pick(r, 8) == 0 ? boundary(r) : len;
}

/* count iovecs over the area into a[i], a[i + 1]. */
static void iov_args(struct rng *r, uint64_t *a, unsigned i) {
  unsigned n = 1 + pick(r, 4);
  cloudabi_iovec_t *v = (cloudabi_iovec_t *)scratch(r, n * sizeof(*v));
  for (unsigned k = 0; k < n; k++) {
    v[k].buf = area + pick(r, AREA / 2);
    v[k].buf_len = pick(r, 8) == 0 ? boundary(r) : pick(r, 8192);
  }
  a[i] = (uint64_t)v;
  a[i + 1] = pick(r, 8) == 0 ? boundary(r) : n;
}

static void fds_args(struct rng *r, uint64_t *a, unsigned i) {
  unsigned n = pick(r, 6);
  uint32_t *v = (uint32_t *)scratch(r, (n + 1) * sizeof(*v));
  for (unsigned k = 0; k < n; k++)
    v[k] = (uint32_t)fd_value(r);
  a[i] = (uint64_t)v;
  a[i + 1] = pick(r, 8) == 0 ? boundary(r) : n;
}

/* Subscriptions that mostly end: clocks of at most a millisecond, reads
 * and writes of known descriptors; then the events and their count. */
static void poll_args(struct rng *r, uint64_t *a) {
  unsigned n = 1 + pick(r, 4);
  cloudabi_subscription_t *s =
      (cloudabi_subscription_t *)scratch(r, n * sizeof(*s));
  for (unsigned k = 0; k < n; k++) {
    if (pick(r, 8) == 0)
      continue; /* all random */
    memset(&s[k], 0, sizeof(s[k]));
    s[k].userdata = next(r);
    switch (pick(r, 3)) {
    case 0:
      s[k].type = CLOUDABI_EVENTTYPE_CLOCK;
      s[k].clock.clock_id = CLOUDABI_CLOCK_MONOTONIC;
      s[k].clock.timeout = pick(r, 1000000);
      break;
    default:
      s[k].type = pick(r, 2) ? CLOUDABI_EVENTTYPE_FD_READ
                             : CLOUDABI_EVENTTYPE_FD_WRITE;
      s[k].fd_readwrite.fd = (cloudabi_fd_t)fd_value(r);
      s[k].fd_readwrite.flags = pick(r, 2);
      break;
    }
  }
  /* Mostly a clock last, so that most polls end. */
  if (pick(r, 8) != 0) {
    memset(&s[n - 1], 0, sizeof(s[n - 1]));
    s[n - 1].type = CLOUDABI_EVENTTYPE_CLOCK;
    s[n - 1].clock.clock_id = CLOUDABI_CLOCK_MONOTONIC;
    s[n - 1].clock.timeout = pick(r, 1000000);
  }
  a[0] = (uint64_t)s;
  a[1] = (uint64_t)scratch(r, n * sizeof(cloudabi_event_t));
  a[2] = pick(r, 8) == 0 ? boundary(r) : n;
  a[3] = (uint64_t)scratch(r, 8);
}

static void struct_arg(struct rng *r, uint64_t *a, unsigned i, size_t size) {
  a[i] = pick(r, 8) == 0 ? boundary(r) : (uint64_t)scratch(r, size);
}

/* Messages with room for descriptors, or carrying known ones. */
static void sock_args(struct rng *r, uint64_t *a, bool send) {
  uint64_t iov[2], fds[2];
  iov_args(r, iov, 0);
  fds_args(r, fds, 0);
  if (send) {
    cloudabi_send_in_t *in = (cloudabi_send_in_t *)scratch(r, sizeof(*in));
    in->si_data = (const cloudabi_ciovec_t *)iov[0];
    in->si_data_len = iov[1];
    in->si_fds = (const cloudabi_fd_t *)fds[0];
    in->si_fds_len = fds[1];
    in->si_flags = pick(r, 8) == 0 ? (uint16_t)next(r) : 0;
    a[1] = (uint64_t)in;
    struct_arg(r, a, 2, sizeof(cloudabi_send_out_t));
  } else {
    cloudabi_recv_in_t *in = (cloudabi_recv_in_t *)scratch(r, sizeof(*in));
    in->ri_data = (const cloudabi_iovec_t *)iov[0];
    in->ri_data_len = iov[1];
    in->ri_fds = (cloudabi_fd_t *)fds[0];
    in->ri_fds_len = fds[1];
    in->ri_flags = (uint16_t)pick(r, pick(r, 8) == 0 ? 65536 : 4);
    a[1] = (uint64_t)in;
    struct_arg(r, a, 2, sizeof(cloudabi_recv_out_t));
  }
}

/* Mostly valid values of an enumeration or flag set below `span`. */
static uint64_t small(struct rng *r, unsigned span) {
  return pick(r, 8) == 0 ? boundary(r) : pick(r, span);
}

static void make_args(struct rng *r, unsigned nr, uint64_t *a) {
  for (unsigned i = 0; i < 6; i++)
    a[i] = boundary(r);
  if (pick(r, 16) == 0)
    return; /* wholly wild */
  if (nr == CLOUDABI_SYS_poll) {
    poll_args(r, a);
    return;
  }
  if (nr == CLOUDABI_SYS_sock_send || nr == CLOUDABI_SYS_sock_recv) {
    a[0] = fd_value(r);
    sock_args(r, a, nr == CLOUDABI_SYS_sock_send);
    return;
  }
  for (unsigned i = 0; i < calls[nr].nargs && i < 6; i++) {
    switch (calls[nr].kinds[i]) {
    case K_fd:
      a[i] = fd_value(r);
      break;
    case K_lookup:
      a[i] = fd_value(r) | ((uint64_t)pick(r, pick(r, 8) == 0 ? 256 : 2) << 32);
      break;
    case K_path:
      path_args(r, a, i++);
      break;
    case K_ciovs:
    case K_iovs:
      iov_args(r, a, i++);
      break;
    case K_fds_in:
      fds_args(r, a, i++);
      break;
    case K_buf_in:
    case K_buf_out:
    case K_char_out:
    case K_mem:
      a[i] = (uint64_t)scratch(r, 4096);
      a[i + 1] = small(r, 4096);
      i++;
      break;
    case K_filesize:
    case K_filedelta:
      a[i] = small(r, 8192);
      break;
    case K_dircookie:
      a[i] = pick(r, 2) ? 0 : next(r);
      break;
    case K_advice:
    case K_whence:
    case K_filetype:
      a[i] = small(r, 0x90);
      break;
    case K_fdsflags:
    case K_fsflags:
    case K_oflags:
    case K_ulflags:
    case K_sdflags:
      a[i] = small(r, 32);
      break;
    case K_mprot:
      a[i] = small(r, 8);
      break;
    case K_mflags:
      /* Never MAP_FIXED: it would replace the area under other threads. */
      a[i] = small(r, 16) & ~(uint64_t)CLOUDABI_MAP_FIXED;
      break;
    case K_fdstat_in:
    case K_fdstat_out:
      struct_arg(r, a, i, sizeof(cloudabi_fdstat_t));
      break;
    case K_filestat_in:
    case K_filestat_out:
      struct_arg(r, a, i, sizeof(cloudabi_filestat_t));
      break;
    default:
      if (calls[nr].kinds[i] >= K_out_fd)
        a[i] = pick(r, 8) == 0 ? boundary(r) : (uint64_t)scratch(r, 8);
      break;
    }
  }
}

/* Calls that would end the test or harm the machine, not the supervisor:
 * raising a signal, exiting, and file_allocate (which really allocates
 * the tens of gigabytes asked for).  LOCAL calls never reach it. */
static bool skipped(unsigned nr) {
  return calls[nr].where == WHERE_LOCAL || nr == CLOUDABI_SYS_proc_raise ||
         nr == CLOUDABI_SYS_file_allocate || nr == CLOUDABI_SYS_proc_fork;
}

/* Whether a call could take away the descriptor we report on. */
static bool touches_out(unsigned nr, const uint64_t *a) {
  for (unsigned i = 0; i < calls[nr].nargs && i < 6; i++) {
    unsigned k = calls[nr].kinds[i];
    if ((k == K_fd || k == K_lookup) && (uint32_t)a[i] == out)
      return true;
  }
  return false;
}

static void one_call(struct rng *r) {
  unsigned nr = pick(r, CLOUDABI_SYSCALL_COUNT);
  if (skipped(nr))
    return;
  uint64_t a[6];
  make_args(r, nr, a);
  if (!is_child && touches_out(nr, a))
    return;
  /* Only children exec: the first process reports. */
  if (nr == CLOUDABI_SYS_proc_exec && !is_child)
    return;
  if (nr == CLOUDABI_SYS_proc_exec && pick(r, 2) == 0)
    a[0] = self_fd;
  long ret = rt_raw_syscall(TRAP_NR_BASE + nr, (long)a[0], (long)a[1],
                            (long)a[2], (long)a[3], (long)a[4], (long)a[5]);
  n_calls++;
  if (ret < 0) {
    n_errors++;
    return;
  }
  /* New descriptors come back in the register: one, or two packed. */
  for (unsigned i = 0; i < calls[nr].nargs; i++) {
    if (calls[nr].kinds[i] == K_out_fd)
      pool_add(r, (uint32_t)ret);
    if (calls[nr].kinds[i] == K_out_fd2)
      pool_add(r, (uint32_t)((uint64_t)ret >> 32));
  }
}

static _Noreturn void child(struct rng *r, unsigned rounds) {
  /* The report is the first process's: a child's copy goes first. */
  if (!is_child && out != ~0u)
    cloudabi_sys_fd_close(out);
  is_child = true;
  out = ~0u;
  for (unsigned i = 0; i < rounds; i++)
    one_call(r);
  cloudabi_sys_proc_exit(0);
}

/* A fork through the vDSO, or a raw clone that the supervisor learns of
 * only by its ptrace event; its process descriptor is claimed by a raw
 * proc_fork trap, maybe much later, maybe never. */
static void fork_one(struct rng *r) {
  if (is_child || n_forks >= max_forks)
    return;
  n_forks++;
  if (pick(r, 2) == 0) {
    cloudabi_fd_t fd;
    if (rt_proc_fork(&fd) != 0)
      return;
    if (fd == CLOUDABI_PROCESS_CHILD)
      child(r, 200);
    pool_add(r, fd);
    return;
  }
  long pid = rt_raw_syscall(56 /* clone */, 17 /* SIGCHLD */, 0, 0, 0, 0, 0);
  if (pid == 0)
    child(r, 200);
}

struct worker {
  struct rng r;
  unsigned long rounds;
};

static void *work(void *arg) {
  struct worker *w = arg;
  for (unsigned long i = 0; i < w->rounds; i++) {
    if (pick(&w->r, 500) == 0)
      fork_one(&w->r);
    else if (pick(&w->r, 400) == 0)
      rt_raw_syscall(TRAP_NR_BASE + CLOUDABI_SYS_proc_fork, (long)scratch(&w->r, 8),
                     (long)scratch(&w->r, 8), 0, 0, 0, 0);
    else
      one_call(&w->r);
  }
  return NULL;
}

/* The area, and the unmapped page after it. */
static void map_area(void) {
  void *p;
  if (cloudabi_sys_mem_map(NULL, AREA + 4096,
                           CLOUDABI_PROT_READ | CLOUDABI_PROT_WRITE,
                           CLOUDABI_MAP_ANON | CLOUDABI_MAP_PRIVATE,
                           CLOUDABI_MAP_ANON_FD, 0, &p) != 0)
    cloudabi_sys_proc_exit(1);
  area = p;
  cloudabi_sys_mem_unmap(area + AREA, 4096);
}

/* A fresh program started by proc_exec gets junk argdata: it runs a few
 * calls quietly, with whatever descriptors it was given, and exits. */
static void exec_child(const argdata_t *ad) {
  struct rng r = {(uint64_t)ad->len * 0x9e3779b97f4a7c15ull | 1};
  for (unsigned i = 0; i < POOL; i++)
    pool[i] = i % 8;
  map_area();
  child(&r, 100);
}

void program_main(const argdata_t *ad) {
  argdata_t v;
  if (!rt_map_get(ad, "out", &v) || argdata_get_fd(&v, &out) != 0)
    exec_child(ad);
  rt_log_fd = out;
  uint64_t seed = (uint64_t)rt_map_int(ad, "seed", 0);
  unsigned threads = (unsigned)rt_map_int(ad, "threads", 4);
  unsigned long rounds = (unsigned long)rt_map_int(ad, "rounds", 1000000);
  max_forks = (unsigned)rt_map_int(ad, "forks", 8);
  int64_t seconds = rt_map_int(ad, "seconds", 5);
  if (threads < 1 || threads > MAX_THREADS)
    threads = 4;
  if (seed == 0)
    RT_EXPECT(cloudabi_sys_random_get(&seed, sizeof(seed)), 0);
  seed |= 1;
  rt_printf(out, "wild: seed %llu\n", (unsigned long long)seed);
  self_fd = rt_map_fd(ad, "self");
  const char *const keys[] = {"file", "dir", "in", "self"};
  for (unsigned i = 0; i < POOL; i++)
    pool[i] = rt_map_fd(ad, keys[i % 4]);
  map_area();

  /* threads workers at a time, as far as the calls tell: one that has
   * made no call for a while is taken to be blocked and another starts.
   * At the end, what is still parked is cancelled by the exit, which is
   * part of the test. */
  static struct worker w[MAX_WORKERS];
  rt_thread_t *t;
  unsigned started = 0;
  cloudabi_timestamp_t now = rt_now(CLOUDABI_CLOCK_MONOTONIC);
  cloudabi_timestamp_t end = now + (cloudabi_timestamp_t)seconds * 1000000000u;
  unsigned long seen = 0;
  for (; now < end; now = rt_now(CLOUDABI_CLOCK_MONOTONIC)) {
    unsigned long calls_now = n_calls;
    unsigned want = started < threads ? threads - started
                    : calls_now == seen ? 1
                                        : 0;
    for (; want > 0 && started < MAX_WORKERS; want--, started++) {
      w[started].r.s = seed + 0x9e3779b97f4a7c15ull * (started + 1);
      w[started].rounds = rounds;
      RT_CHECK(rt_thread_create(&t, work, &w[started]) == 0);
    }
    seen = calls_now;
    rt_sleep_ns(20000000);
  }
  rt_printf(out, "wild: survived %lu calls, %lu errors, %lu forks, %u threads\n",
            (unsigned long)n_calls, (unsigned long)n_errors,
            (unsigned long)n_forks, started);
  cloudabi_sys_proc_exit(0);
}
