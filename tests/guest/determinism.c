/*
 * What cloudabi-run --deterministic makes repeatable, printed one line per
 * fact: each clock's readings and resolution, random bytes, a clock-only
 * sleep of an hour, an absolute realtime sleep, a timed lock wait nobody
 * ends, a poll on an empty socket with a timeout (performed by the
 * supervisor), the process UUID and stack canary, and a forked child's
 * clock and random bytes.  Two runs with
 * the same seed must print the same bytes; e2e_deterministic compares.
 * Config: out (stdout), sleeps (1; 0 leaves out the sleeps and waits, for
 * runs with real time).
 */
#include "check.h"
#include "rt_thread.h"

#define C(x) CLOUDABI_CLOCK_##x
#define E(x) CLOUDABI_EVENTTYPE_##x
#define SECOND 1000000000ull

static cloudabi_fd_t out;

static cloudabi_timestamp_t now(cloudabi_clockid_t c) {
  cloudabi_timestamp_t t = 0;
  RT_CHECK(cloudabi_sys_clock_time_get(c, 1, &t) == 0);
  return t;
}

static void print_random(const char *who) {
  uint8_t b[24];
  RT_CHECK(cloudabi_sys_random_get(b, sizeof(b)) == 0);
  char hex[2 * sizeof(b) + 1];
  for (size_t i = 0; i < sizeof(b); i++)
    rt_snprintf(hex + 2 * i, 3, "%02x", b[i]);
  rt_printf(out, "%s random %s\n", who, hex);
}

static cloudabi_subscription_t clock_sub(uint64_t ud, cloudabi_clockid_t c,
                                         uint64_t timeout, bool abs) {
  return (cloudabi_subscription_t){
      .userdata = ud,
      .type = E(CLOCK),
      .clock = {.clock_id = c,
                .timeout = timeout,
                .flags = abs ? CLOUDABI_SUBSCRIPTION_CLOCK_ABSTIME : 0}};
}

static size_t poll(const cloudabi_subscription_t *s, size_t n,
                   cloudabi_event_t *ev) {
  size_t k = 0;
  RT_CHECK(cloudabi_sys_poll(s, ev, n, &k) == 0);
  return k;
}

static _Atomic(cloudabi_lock_t) lockword;

/* Sleeps and waits that only time ends: each passes at once. */
static void sleeps(void) {
  cloudabi_event_t ev[2];
  cloudabi_subscription_t s[2];
  cloudabi_timestamp_t before = now(C(MONOTONIC));
  s[0] = clock_sub(7, C(MONOTONIC), 3600 * SECOND, false);
  RT_CHECK(poll(s, 1, ev) == 1 && ev[0].userdata == 7);
  rt_printf(out, "slept an hour: monotonic +%lu\n", now(C(MONOTONIC)) - before);
  cloudabi_timestamp_t wake = now(C(REALTIME)) + 90 * SECOND;
  s[0] = clock_sub(8, C(REALTIME), wake, true);
  RT_CHECK(poll(s, 1, ev) == 1 && ev[0].userdata == 8);
  rt_printf(out, "slept until realtime %lu: now %lu\n", wake, now(C(REALTIME)));

  /* A lock held by someone who never lets go, with a 5 s timeout. */
  lockword = (rt_thread_self() + 1) | CLOUDABI_LOCK_WRLOCKED;
  s[0] = (cloudabi_subscription_t){
      .userdata = 1, .type = E(LOCK_WRLOCK),
      .lock = {.lock = &lockword, .lock_scope = CLOUDABI_SCOPE_PRIVATE}};
  s[1] = clock_sub(2, C(MONOTONIC), 5 * SECOND, false);
  before = now(C(MONOTONIC));
  RT_CHECK(poll(s, 2, ev) == 1 && ev[0].userdata == 2);
  rt_printf(out, "lock wait timed out: monotonic +%lu\n",
            now(C(MONOTONIC)) - before);

  /* An empty socket with a 50 ms timeout: the supervisor waits. */
  cloudabi_fd_t a, b;
  RT_CHECK(cloudabi_sys_fd_create2(CLOUDABI_FILETYPE_SOCKET_STREAM, &a, &b) ==
           0);
  s[0] = (cloudabi_subscription_t){
      .userdata = 3, .type = E(FD_READ), .fd_readwrite = {.fd = a}};
  s[1] = clock_sub(4, C(MONOTONIC), 50000000, false);
  before = now(C(MONOTONIC));
  RT_CHECK(poll(s, 2, ev) == 1 && ev[0].userdata == 4);
  rt_printf(out, "socket poll timed out: monotonic +%lu\n",
            now(C(MONOTONIC)) - before);
}

void program_main(const argdata_t *ad) {
  out = rt_map_fd(ad, "out");
  rt_log_fd = out;
  static const cloudabi_clockid_t clocks[] = {C(MONOTONIC), C(REALTIME),
                                              C(PROCESS_CPUTIME_ID),
                                              C(THREAD_CPUTIME_ID)};
  for (size_t i = 0; i < 4; i++) {
    cloudabi_timestamp_t res = 0;
    RT_CHECK(cloudabi_sys_clock_res_get(clocks[i], &res) == 0);
    cloudabi_timestamp_t a = now(clocks[i]), b = now(clocks[i]);
    rt_printf(out, "clock %u res %lu reads %lu %lu\n", (unsigned)clocks[i],
              res, a, b);
  }
  print_random("parent");
  print_random("parent");
  char hex[2 * 16 + 1];
  for (size_t i = 0; i < 16; i++)
    rt_snprintf(hex + 2 * i, 3, "%02x", rt_startup.pid[i]);
  rt_printf(out, "process id %s canary %02x%02x%02x%02x\n", hex,
            rt_startup.canary[0], rt_startup.canary[1], rt_startup.canary[2],
            rt_startup.canary[63]);
  cloudabi_event_t ev[2];
  cloudabi_subscription_t s[2];
  if (rt_map_int(ad, "sleeps", 1) != 0)
    sleeps();

  cloudabi_fd_t pd;
  RT_CHECK(rt_proc_fork(&pd) == 0);
  if (pd == CLOUDABI_PROCESS_CHILD) {
    rt_printf(out, "child monotonic %lu\n", now(C(MONOTONIC)));
    print_random("child");
    cloudabi_sys_proc_exit(0);
  }
  s[0] = (cloudabi_subscription_t){
      .userdata = 5, .type = E(PROC_TERMINATE), .proc_terminate = {.fd = pd}};
  RT_CHECK(poll(s, 1, ev) == 1 && ev[0].userdata == 5);
  print_random("parent");
  rt_printf(out, "done\n");
}
