/*
 * 64 threads, each blocked in a different way at the same time: reads and
 * writes on pipes and polls (parked in the supervisor), lock, read-lock,
 * condition variable and join waits (futexes in the guest), sleeps.  Then
 * they are released one at a time in a random order, and each must come
 * back on its own, promptly, and none before its release: no thread may
 * wait on another's behalf, and the supervisor must not be held up by
 * any of them.
 *
 * Config: out; pipes: a sequence of FIFOs opened rw (36 of them).
 */
#include "rt.h"
#include "rt_thread.h"

#define NTHREADS 64
#define MS 1000000ull
#define E(x) CLOUDABI_EVENTTYPE_##x

enum kind {
  READ,          /* fd_read on its pipe */
  POLL_FD,       /* poll FD_READ on its pipe */
  POLL_FD_CLOCK, /* the same with a far timeout */
  WRITE,         /* fd_write on its pipe, which is full */
  POLL_TWO,      /* poll on its pipe and on one nobody writes */
  JOIN,          /* join a helper thread that reads its pipe */
  WRLOCK,        /* write-lock a lock main holds */
  RDLOCK,        /* read-lock it */
  WRLOCK_TIMED,  /* write-lock with a far timeout */
  CONDVAR,       /* wait on a condition variable */
  CONDVAR_TIMED, /* the same with a far timeout */
  SLEEP,         /* poll with one clock: released by time alone */
  NKINDS
};

static const char *const kind_names[NKINDS] = {
    "read",   "poll_fd", "poll_fd_clock", "write",   "poll_two",      "join",
    "wrlock", "rdlock",  "wrlock_timed",  "condvar", "condvar_timed", "sleep"};

static bool uses_pipe(enum kind k) {
  return k <= JOIN;
}

#define FAR (60000 * MS)
#define SLEEP_FOR (800 * MS)

struct blocked {
  unsigned index;
  enum kind kind;
  cloudabi_fd_t pipe;
  rt_lock_t lock;
  rt_cond_t cond;
  bool go;             /* under lock, for CONDVAR kinds */
  rt_thread_t *helper; /* JOIN */
  rt_thread_t *thread;
};

static struct blocked b[NTHREADS];
static cloudabi_fd_t never; /* a pipe nobody writes */

/* Who is done, under `state`. */
static rt_lock_t state = RT_LOCK_INIT;
static rt_cond_t done_cond = RT_COND_INIT;
static bool released[NTHREADS], done[NTHREADS];
static unsigned nblocking, ndone;
static unsigned early; /* threads that came back before their release */

static void announce_blocking(void) {
  rt_lock_wrlock(&state);
  nblocking++;
  rt_cond_broadcast(&done_cond);
  rt_lock_unlock(&state);
}

static void report_done(struct blocked *x) {
  rt_lock_wrlock(&state);
  if (!released[x->index])
    early++;
  done[x->index] = true;
  ndone++;
  rt_cond_broadcast(&done_cond);
  rt_lock_unlock(&state);
}

static void poll_events(const cloudabi_subscription_t *s, size_t n,
                        cloudabi_eventtype_t want_type) {
  cloudabi_event_t ev[2];
  size_t k;
  RT_EXPECT(cloudabi_sys_poll(s, ev, n, &k), 0);
  RT_CHECK(k == 1 && ev[0].error == 0 && ev[0].type == want_type);
}

static void read_one(cloudabi_fd_t fd) {
  char c;
  cloudabi_iovec_t iov = {&c, 1};
  size_t n;
  RT_EXPECT(cloudabi_sys_fd_read(fd, &iov, 1, &n), 0);
  RT_CHECK(n == 1 && c == '!');
}

static void *helper(void *arg) {
  read_one(((struct blocked *)arg)->pipe);
  return (void *)0x1234;
}

static void *blocker(void *arg) {
  struct blocked *x = arg;
  cloudabi_subscription_t s[2];
  s[0] = (cloudabi_subscription_t){
      .userdata = x->index,
      .type = E(FD_READ),
      .fd_readwrite = {x->pipe, CLOUDABI_SUBSCRIPTION_FD_READWRITE_POLL}};
  s[1] = (cloudabi_subscription_t){
      .type = E(CLOCK),
      .clock = {.clock_id = CLOUDABI_CLOCK_MONOTONIC, .timeout = FAR}};
  announce_blocking();
  switch (x->kind) {
  case READ:
    read_one(x->pipe);
    break;
  case POLL_FD:
    poll_events(s, 1, E(FD_READ));
    read_one(x->pipe);
    break;
  case POLL_FD_CLOCK:
    poll_events(s, 2, E(FD_READ));
    read_one(x->pipe);
    break;
  case WRITE: {
    cloudabi_ciovec_t iov = {"w", 1};
    size_t n;
    RT_EXPECT(cloudabi_sys_fd_write(x->pipe, &iov, 1, &n), 0);
    RT_CHECK(n == 1);
    break;
  }
  case POLL_TWO:
    s[1] = s[0];
    s[1].fd_readwrite.fd = never;
    poll_events(s, 2, E(FD_READ));
    read_one(x->pipe);
    break;
  case JOIN:
    RT_CHECK(rt_thread_join(x->helper) == (void *)0x1234);
    break;
  case WRLOCK:
    rt_lock_wrlock(&x->lock);
    rt_lock_unlock(&x->lock);
    break;
  case RDLOCK:
    rt_lock_rdlock(&x->lock);
    rt_lock_unlock(&x->lock);
    break;
  case WRLOCK_TIMED:
    RT_CHECK(rt_lock_timedwrlock(&x->lock, CLOUDABI_CLOCK_MONOTONIC, FAR,
                                 false) == 0);
    rt_lock_unlock(&x->lock);
    break;
  case CONDVAR:
  case CONDVAR_TIMED:
    rt_lock_wrlock(&x->lock);
    while (!x->go) {
      if (x->kind == CONDVAR)
        rt_cond_wait(&x->cond, &x->lock);
      else
        RT_CHECK(rt_cond_timedwait(&x->cond, &x->lock, CLOUDABI_CLOCK_REALTIME,
                                   rt_now(CLOUDABI_CLOCK_REALTIME) + FAR,
                                   true) == 0);
    }
    rt_lock_unlock(&x->lock);
    break;
  case SLEEP:
    s[0] = s[1];
    s[0].clock.timeout = SLEEP_FOR;
    poll_events(s, 1, E(CLOCK));
    break;
  default:
    RT_CHECK(false);
  }
  report_done(x);
  return NULL;
}

/* Fills a pipe: non-blocking writes until it says EAGAIN. */
static void fill(cloudabi_fd_t fd) {
  cloudabi_fdstat_t st = {.fs_flags = CLOUDABI_FDFLAG_NONBLOCK};
  RT_EXPECT(cloudabi_sys_fd_stat_put(fd, &st, CLOUDABI_FDSTAT_FLAGS), 0);
  static char chunk[4096];
  size_t len = sizeof(chunk), n;
  for (;;) {
    cloudabi_ciovec_t iov = {chunk, len};
    cloudabi_errno_t e = cloudabi_sys_fd_write(fd, &iov, 1, &n);
    if (e == CLOUDABI_EAGAIN && len == 1)
      break;
    if (e == CLOUDABI_EAGAIN)
      len = 1;
    else
      RT_EXPECT(e, 0);
  }
  st.fs_flags = 0;
  RT_EXPECT(cloudabi_sys_fd_stat_put(fd, &st, CLOUDABI_FDSTAT_FLAGS), 0);
}

static void release(struct blocked *x) {
  static char drain[8192];
  cloudabi_ciovec_t bang = {"!", 1};
  cloudabi_iovec_t out = {drain, sizeof(drain)};
  size_t n;
  switch (x->kind) {
  case READ:
  case POLL_FD:
  case POLL_FD_CLOCK:
  case POLL_TWO:
  case JOIN:
    RT_EXPECT(cloudabi_sys_fd_write(x->pipe, &bang, 1, &n), 0);
    break;
  case WRITE:
    RT_EXPECT(cloudabi_sys_fd_read(x->pipe, &out, 1, &n), 0);
    RT_CHECK(n > 0);
    break;
  case WRLOCK:
  case RDLOCK:
  case WRLOCK_TIMED:
    rt_lock_unlock(&x->lock);
    break;
  case CONDVAR:
  case CONDVAR_TIMED:
    rt_lock_wrlock(&x->lock);
    x->go = true;
    rt_cond_signal(&x->cond);
    rt_lock_unlock(&x->lock);
    break;
  default:
    break; /* SLEEP: time releases it */
  }
}

void program_main(const argdata_t *ad) {
  cloudabi_fd_t out = rt_map_fd(ad, "out");
  rt_log_fd = out;
  argdata_t seq, v;
  argdata_iter_t it;
  RT_CHECK(rt_map_get(ad, "pipes", &seq));
  RT_CHECK(argdata_seq_iterate(&seq, &it) == 0);
  cloudabi_fd_t pipes[64];
  size_t npipes = 0;
  while (npipes < 64 && argdata_seq_next(&it, &v))
    RT_CHECK(argdata_get_fd(&v, &pipes[npipes++]) == 0);
  never = pipes[--npipes];

  /* Set up and start them all. */
  size_t next_pipe = 0;
  for (unsigned i = 0; i < NTHREADS; i++) {
    struct blocked *x = &b[i];
    *x = (struct blocked){.index = i, .kind = (enum kind)(i % NKINDS)};
    rt_lock_init(&x->lock, CLOUDABI_SCOPE_PRIVATE);
    rt_cond_init(&x->cond, CLOUDABI_SCOPE_PRIVATE);
    if (uses_pipe(x->kind)) {
      RT_CHECK(next_pipe < npipes);
      x->pipe = pipes[next_pipe++];
    }
    if (x->kind == WRITE)
      fill(x->pipe);
    if (x->kind == WRLOCK || x->kind == RDLOCK || x->kind == WRLOCK_TIMED)
      rt_lock_wrlock(&x->lock);
    if (x->kind == JOIN)
      RT_CHECK(rt_thread_create(&x->helper, helper, x) == 0);
    if (x->kind == SLEEP)
      released[i] = true;
  }
  for (unsigned i = 0; i < NTHREADS; i++)
    RT_CHECK(rt_thread_create(&b[i].thread, blocker, &b[i]) == 0);

  /* All announced, then time to get into their waits. */
  rt_lock_wrlock(&state);
  while (nblocking < NTHREADS)
    RT_CHECK(rt_cond_timedwait(&done_cond, &state, CLOUDABI_CLOCK_MONOTONIC,
                               10000 * MS, false) == 0);
  rt_lock_unlock(&state);
  rt_sleep_ns(200 * MS);
  rt_lock_wrlock(&state);
  unsigned sleepers_done = 0;
  for (unsigned i = 0; i < NTHREADS; i++)
    sleepers_done += done[i];
  RT_CHECK(ndone == sleepers_done && early == 0);
  rt_lock_unlock(&state);

  /* Release them one by one, in a random order. */
  unsigned order[NTHREADS];
  for (unsigned i = 0; i < NTHREADS; i++)
    order[i] = i;
  for (unsigned i = NTHREADS - 1; i > 0; i--) {
    uint32_t r;
    RT_EXPECT(cloudabi_sys_random_get(&r, sizeof(r)), 0);
    unsigned j = r % (i + 1), t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  uint64_t worst = 0;
  for (unsigned k = 0; k < NTHREADS; k++) {
    struct blocked *x = &b[order[k]];
    uint64_t t0 = rt_now(CLOUDABI_CLOCK_MONOTONIC);
    rt_lock_wrlock(&state);
    released[x->index] = true;
    rt_lock_unlock(&state);
    release(x);
    rt_lock_wrlock(&state);
    while (!done[x->index]) {
      if (rt_cond_timedwait(&done_cond, &state, CLOUDABI_CLOCK_MONOTONIC,
                            10000 * MS, false) != 0) {
        rt_printf(out, "thread %u (%s) did not come back\n", x->index,
                  kind_names[x->kind]);
        rt_exit(1);
      }
    }
    RT_CHECK(early == 0);
    rt_lock_unlock(&state);
    uint64_t took = rt_now(CLOUDABI_CLOCK_MONOTONIC) - t0;
    if (x->kind != SLEEP && took > worst)
      worst = took;
  }
  for (unsigned i = 0; i < NTHREADS; i++)
    rt_thread_join(b[i].thread);
  RT_CHECK(ndone == NTHREADS);
  RT_CHECK(worst < 2000 * MS);
  rt_printf(out, "blocked: %u threads in %u ways, released one by one: ok\n",
            NTHREADS, (unsigned)NKINDS);
}
