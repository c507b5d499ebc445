/*
 * Reports what crt0 found at start-up, for the loader tests: the aux
 * vector, the vDSO binding, TLS, and the argument data.
 */
#include "rt.h"

static _Thread_local int tls_initialised = 42;
static _Thread_local int tls_zero;

void program_main(const argdata_t *ad) {
  cloudabi_fd_t out = rt_map_fd(ad, "out");
  RT_CHECK(tls_initialised == 42 && tls_zero == 0);
  tls_zero = 7;
  RT_CHECK(tls_zero == 7);
  const uint8_t *pid = rt_startup.pid;
  rt_printf(out, "bound=%zu ncpus=%zu pagesz=%zu tid=%u canarylen=%zu\n",
            rt_startup.nsyscalls_bound, rt_startup.ncpus, rt_startup.pagesz,
            rt_startup.tid, rt_startup.canarylen);
  rt_printf(out, "uuid-version=%u variant=%u\n", pid[6] >> 4, pid[8] >> 6);
}
