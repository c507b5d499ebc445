/*
 * The calls the vDSO performs without the supervisor: clocks,
 * random_get, mem_map/protect/unmap/advise/sync, thread_yield; with their
 * error paths (EINVAL for bad flags and clocks, ENOTSUP for W^X).
 */
#include "rt.h"

#define P(x) CLOUDABI_PROT_##x
#define M(x) CLOUDABI_MAP_##x

static void test_clocks(void) {
  cloudabi_timestamp_t res, t1, t2, rt;
  RT_EXPECT(cloudabi_sys_clock_res_get(CLOUDABI_CLOCK_MONOTONIC, &res), 0);
  RT_CHECK(res > 0 && res <= 1000000);
  RT_EXPECT(cloudabi_sys_clock_time_get(CLOUDABI_CLOCK_MONOTONIC, 0, &t1), 0);
  RT_EXPECT(cloudabi_sys_clock_time_get(CLOUDABI_CLOCK_MONOTONIC, 0, &t2), 0);
  RT_CHECK(t2 >= t1);
  RT_EXPECT(cloudabi_sys_clock_time_get(CLOUDABI_CLOCK_REALTIME, 1000, &rt),
            0);
  /* After 2020-01-01 and before 2100. */
  RT_CHECK(rt > 1577836800ull * 1000000000ull &&
           rt < 4102444800ull * 1000000000ull);
  RT_EXPECT(cloudabi_sys_clock_time_get(CLOUDABI_CLOCK_PROCESS_CPUTIME_ID, 0,
                                        &t1),
            0);
  RT_EXPECT(
      cloudabi_sys_clock_time_get(CLOUDABI_CLOCK_THREAD_CPUTIME_ID, 0, &t1), 0);
  RT_EXPECT(cloudabi_sys_clock_time_get(0, 0, &t1), CLOUDABI_EINVAL);
  RT_EXPECT(cloudabi_sys_clock_time_get(5, 0, &t1), CLOUDABI_EINVAL);
  RT_EXPECT(cloudabi_sys_clock_res_get(99, &res), CLOUDABI_EINVAL);
}

static void test_random(void) {
  uint8_t a[64], b[64];
  memset(a, 0, sizeof(a));
  memset(b, 0, sizeof(b));
  RT_EXPECT(cloudabi_sys_random_get(a, sizeof(a)), 0);
  RT_EXPECT(cloudabi_sys_random_get(b, sizeof(b)), 0);
  RT_CHECK(memcmp(a, b, sizeof(a)) != 0);
  RT_EXPECT(cloudabi_sys_random_get(a, 0), 0);
  RT_EXPECT(cloudabi_sys_random_get((void *)16, 8), CLOUDABI_EFAULT);
}

static void test_memory(void) {
  void *p;
  RT_EXPECT(cloudabi_sys_mem_map(NULL, 65536, P(READ) | P(WRITE),
                                 M(ANON) | M(PRIVATE), CLOUDABI_MAP_ANON_FD, 0,
                                 &p),
            0);
  volatile char *c = p;
  c[0] = 1;
  c[65535] = 2;
  RT_CHECK(c[0] == 1 && c[65535] == 2 && c[100] == 0);
  /* W^X: never writable and executable at once. */
  void *q;
  RT_EXPECT(cloudabi_sys_mem_map(NULL, 4096, P(WRITE) | P(EXEC),
                                 M(ANON) | M(PRIVATE), CLOUDABI_MAP_ANON_FD, 0,
                                 &q),
            CLOUDABI_ENOTSUP);
  RT_EXPECT(cloudabi_sys_mem_protect(p, 4096, P(READ) | P(WRITE) | P(EXEC)),
            CLOUDABI_ENOTSUP);
  RT_EXPECT(cloudabi_sys_mem_protect(p, 4096, 0x10), CLOUDABI_ENOTSUP);
  RT_EXPECT(cloudabi_sys_mem_protect(p, 4096, P(READ) | P(EXEC)), 0);
  RT_EXPECT(cloudabi_sys_mem_protect(p, 4096, P(READ)), 0);
  RT_CHECK(c[0] == 1);
  /* Exactly one of PRIVATE and SHARED; ANON needs MAP_ANON_FD and 0. */
  RT_EXPECT(cloudabi_sys_mem_map(NULL, 4096, P(READ), M(ANON),
                                 CLOUDABI_MAP_ANON_FD, 0, &q),
            CLOUDABI_EINVAL);
  RT_EXPECT(cloudabi_sys_mem_map(NULL, 4096, P(READ),
                                 M(ANON) | M(PRIVATE) | M(SHARED),
                                 CLOUDABI_MAP_ANON_FD, 0, &q),
            CLOUDABI_EINVAL);
  RT_EXPECT(cloudabi_sys_mem_map(NULL, 4096, P(READ), M(ANON) | M(PRIVATE), 3,
                                 0, &q),
            CLOUDABI_EINVAL);
  RT_EXPECT(cloudabi_sys_mem_map(NULL, 4096, P(READ), M(ANON) | M(PRIVATE),
                                 CLOUDABI_MAP_ANON_FD, 4096, &q),
            CLOUDABI_EINVAL);
  RT_EXPECT(cloudabi_sys_mem_map(NULL, 4096, P(READ), 0x40 | M(PRIVATE),
                                 CLOUDABI_MAP_ANON_FD, 0, &q),
            CLOUDABI_EINVAL);
  /* Shared anonymous memory, and MAP_FIXED over it. */
  RT_EXPECT(cloudabi_sys_mem_map(NULL, 8192, P(READ) | P(WRITE),
                                 M(ANON) | M(SHARED), CLOUDABI_MAP_ANON_FD, 0,
                                 &q),
            0);
  void *r;
  RT_EXPECT(cloudabi_sys_mem_map(q, 4096, P(READ), M(ANON) | M(PRIVATE) | M(FIXED),
                                 CLOUDABI_MAP_ANON_FD, 0, &r),
            0);
  RT_CHECK(r == q);
  RT_EXPECT(cloudabi_sys_mem_advise(p, 4096, CLOUDABI_ADVICE_WILLNEED), 0);
  RT_EXPECT(cloudabi_sys_mem_advise(p, 4096, CLOUDABI_ADVICE_NOREUSE), 0);
  RT_EXPECT(cloudabi_sys_mem_advise(p, 4096, 0), CLOUDABI_EINVAL);
  RT_EXPECT(cloudabi_sys_mem_advise(p, 4096, 7), CLOUDABI_EINVAL);
  RT_EXPECT(cloudabi_sys_mem_sync(q, 8192, CLOUDABI_MS_SYNC), 0);
  RT_EXPECT(cloudabi_sys_mem_sync(q, 8192,
                                  CLOUDABI_MS_ASYNC | CLOUDABI_MS_INVALIDATE),
            0);
  RT_EXPECT(cloudabi_sys_mem_sync(q, 8192, CLOUDABI_MS_ASYNC | CLOUDABI_MS_SYNC),
            CLOUDABI_EINVAL);
  RT_EXPECT(cloudabi_sys_mem_sync(q, 8192, CLOUDABI_MS_INVALIDATE),
            CLOUDABI_EINVAL);
  RT_EXPECT(cloudabi_sys_mem_sync((char *)q + 1, 4096, CLOUDABI_MS_SYNC),
            CLOUDABI_EINVAL);
  RT_EXPECT(cloudabi_sys_mem_unmap(q, 8192), 0);
  RT_EXPECT(cloudabi_sys_mem_unmap(p, 65536), 0);
  RT_EXPECT(cloudabi_sys_mem_unmap((char *)p + 1, 4096), CLOUDABI_EINVAL);
}

void program_main(const argdata_t *ad) {
  cloudabi_fd_t out = rt_map_fd(ad, "out");
  rt_log_fd = out;
  test_clocks();
  test_random();
  test_memory();
  RT_EXPECT(cloudabi_sys_thread_yield(), 0);
  /* poll done in the vDSO: bad pointers give EFAULT, not a crash. */
  cloudabi_subscription_t sub = {.type = CLOUDABI_EVENTTYPE_CLOCK,
                                 .clock = {.clock_id = CLOUDABI_CLOCK_MONOTONIC}};
  cloudabi_event_t ev;
  size_t n;
  RT_EXPECT(cloudabi_sys_poll((void *)16, &ev, 1, &n), CLOUDABI_EFAULT);
  RT_EXPECT(cloudabi_sys_poll(&sub, (void *)16, 1, &n), CLOUDABI_EFAULT);
  RT_EXPECT(cloudabi_sys_poll(&sub, &ev, 1, &n), 0);
  RT_CHECK(n == 1 && ev.type == CLOUDABI_EVENTTYPE_CLOCK && ev.error == 0);
  rt_printf(out, "local_calls: %u checks passed\n", rt_checks_passed);
}
