/*
 * A hostile guest: calls every supervisor-handled syscall number directly
 * (bypassing the vDSO's stubs) with wild arguments: null, small, huge and
 * kernel pointers, pointers at the edge of a mapping, absurd lengths and
 * counts, random descriptor numbers.  The supervisor must answer each one
 * with an errno and live on; the test checks this program's last line.
 */
#include "rt.h"
#include "trap.h"

static uint64_t state;

static uint64_t next(void) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

static char *area; /* 64 KiB, followed by an unmapped page */

static uint64_t wild_value(void) {
  switch (next() % 12) {
  case 0:
    return 0;
  case 1:
    return next() % 16;
  case 2:
    return next();
  case 3:
    return (uint64_t)area + next() % 65536;
  case 4:
    return (uint64_t)area + 65536 - next() % 64; /* runs off the end */
  case 5:
    return 0xffff800000000000ull + next() % 4096; /* the kernel's half */
  case 6:
    return ~0ull;
  case 7:
    return 1ull << (next() % 64);
  case 8:
    return (uint64_t)1 << 40;
  case 9:
    return 0x7ffffffff000ull;
  case 10:
    return 4096;
  default:
    return 1 + next() % 2048;
  }
}

void program_main(const argdata_t *ad) {
  cloudabi_fd_t out = rt_map_fd(ad, "out");
  rt_log_fd = out;
  int64_t rounds = rt_map_int(ad, "rounds", 20000);
  RT_EXPECT(cloudabi_sys_random_get(&state, sizeof(state)), 0);
  state |= 1;
  void *p;
  RT_EXPECT(cloudabi_sys_mem_map(NULL, 65536 + 4096,
                                 CLOUDABI_PROT_READ | CLOUDABI_PROT_WRITE,
                                 CLOUDABI_MAP_ANON | CLOUDABI_MAP_PRIVATE,
                                 CLOUDABI_MAP_ANON_FD, 0, &p),
            0);
  area = p;
  RT_EXPECT(cloudabi_sys_mem_unmap(area + 65536, 4096), 0);

  unsigned long calls = 0, errors = 0;
  for (int64_t i = 0; i < rounds; i++) {
    unsigned nr = (unsigned)(next() % CLOUDABI_SYSCALL_COUNT);
    /* Never handled by the supervisor, or would end the test (fd_create2
     * makes blocking sockets: a random fd_read on one rightly waits
     * forever), or harm the machine (file_allocate of a random length
     * really allocates it: tens of gigabytes). */
    if (nr == CLOUDABI_SYS_proc_raise || nr == CLOUDABI_SYS_clock_res_get ||
        nr == CLOUDABI_SYS_clock_time_get || nr == CLOUDABI_SYS_condvar_signal ||
        nr == CLOUDABI_SYS_lock_unlock || nr == CLOUDABI_SYS_mem_advise ||
        nr == CLOUDABI_SYS_mem_protect || nr == CLOUDABI_SYS_mem_sync ||
        nr == CLOUDABI_SYS_mem_unmap || nr == CLOUDABI_SYS_proc_exit ||
        nr == CLOUDABI_SYS_random_get || nr == CLOUDABI_SYS_thread_create ||
        nr == CLOUDABI_SYS_thread_exit || nr == CLOUDABI_SYS_thread_yield ||
        /* Real resources: file_allocate fills the disk as asked, and a
         * blocking read on a new socket pair waits forever. */
        nr == CLOUDABI_SYS_fd_create2 || nr == CLOUDABI_SYS_file_allocate)
      continue;
    uint64_t a[6];
    for (int k = 0; k < 6; k++)
      a[k] = wild_value();
    /* Keep descriptor 0, where we report, out of harm's way. */
    if ((uint32_t)a[0] == 0 || (uint32_t)a[1] == 0)
      continue;
    long r = rt_raw_syscall(TRAP_NR_BASE + nr, (long)a[0], (long)a[1],
                            (long)a[2], (long)a[3], (long)a[4], (long)a[5]);
    calls++;
    errors += r < 0;
  }
  rt_printf(out, "wild: survived %lu calls, %lu errors\n", calls, errors);
}
