/*
 * Crosses one limit of cloudabi-run's --*-limit options, by the config's
 * `do`: memory (maps and touches 1 MiB at a time), cpu (spins), time
 * (sleeps), procs (forks), threads (creates), joins (creates and joins
 * one thread at a time, which must never count as more than two), fds
 * (duplicates), fsize (writes one file), disk (writes two files).  Prints what stopped it;
 * those that end the run are checked by cloudabi-run's exit and stderr.
 * Config: out (stdout), dir (a writable directory), do.
 */
#include "check.h"
#include "rt_thread.h"

static cloudabi_fd_t out, dir;

static void memory(void) {
  unsigned mib = 0;
  for (;;) {
    void *p;
    cloudabi_errno_t e = cloudabi_sys_mem_map(
        NULL, 1 << 20, CLOUDABI_PROT_READ | CLOUDABI_PROT_WRITE,
        CLOUDABI_MAP_ANON | CLOUDABI_MAP_PRIVATE, CLOUDABI_MAP_ANON_FD, 0, &p);
    if (e != 0) {
      rt_printf(out, "memory: errno %u after %u MiB\n", e, mib);
      return;
    }
    memset(p, 1, 1 << 20);
    if (++mib > 4096) {
      rt_printf(out, "memory: no limit\n");
      return;
    }
  }
}

static void spin(void) {
  for (volatile uint64_t i = 0;; i++) {
  }
}

static void *block(void *arg) {
  (void)arg;
  rt_sleep_ns(60000000000ull);
  return NULL;
}

static void procs(void) {
  unsigned n = 0;
  for (;;) {
    cloudabi_fd_t pd;
    cloudabi_errno_t e = rt_proc_fork(&pd);
    if (e != 0) {
      rt_printf(out, "procs: errno %u after %u children\n", e, n);
      return;
    }
    if (pd == CLOUDABI_PROCESS_CHILD) {
      block(NULL);
      cloudabi_sys_proc_exit(0);
    }
    n++;
  }
}

static void threads(void) {
  for (unsigned n = 0; n < 2000; n++) {
    rt_thread_t *t;
    if (rt_thread_create(&t, block, NULL) != 0)
      break;
  }
  rt_sleep_ns(2000000000);
  rt_printf(out, "threads: still alive\n");
}

static void *nothing(void *arg) { return arg; }

static void joins(void) {
  unsigned n = 0;
  for (; n < 500; n++) {
    rt_thread_t *t;
    if (rt_thread_create(&t, nothing, NULL) != 0)
      break;
    rt_thread_join(t);
  }
  rt_printf(out, "joins: %u threads\n", n);
}

static void fds(void) {
  for (;;) {
    cloudabi_fd_t d;
    cloudabi_errno_t e = cloudabi_sys_fd_dup(out, &d);
    if (e != 0) {
      /* Count what is open: the lowest numbers are all taken. */
      unsigned open = 0;
      cloudabi_fdstat_t st;
      for (cloudabi_fd_t i = 0; i < 70000; i++)
        open += cloudabi_sys_fd_stat_get(i, &st) == 0;
      rt_printf(out, "fds: errno %u with %u open\n", e, open);
      return;
    }
  }
}

/* Writes 1000-byte blocks to path until a write fails: bytes written. */
static uint64_t fill(const char *path, cloudabi_errno_t *why) {
  cloudabi_fd_t f;
  RT_EXPECT(open_file(dir, path, CLOUDABI_O_CREAT | CLOUDABI_O_TRUNC,
                      R(FD_WRITE) | R(FILE_STAT_FGET), 0, 0, &f),
            0);
  static char block[1000];
  uint64_t total = 0;
  for (;;) {
    cloudabi_ciovec_t iov = {block, sizeof(block)};
    size_t n;
    cloudabi_errno_t e = cloudabi_sys_fd_write(f, &iov, 1, &n);
    if (e != 0) {
      *why = e;
      break;
    }
    total += n;
    if (total > (64u << 20)) {
      *why = 0;
      break;
    }
  }
  cloudabi_filestat_t st;
  RT_EXPECT(cloudabi_sys_file_stat_fget(f, &st), 0);
  RT_CHECK(st.st_size == total);
  RT_EXPECT(cloudabi_sys_fd_close(f), 0);
  return total;
}

void program_main(const argdata_t *ad) {
  out = rt_map_fd(ad, "out");
  rt_log_fd = out;
  dir = rt_map_fd(ad, "dir");
  const char *what = rt_map_str(ad, "do", "");
  cloudabi_errno_t e1 = 0, e2 = 0;
  if (strcmp(what, "memory") == 0) {
    memory();
  } else if (strcmp(what, "cpu") == 0) {
    spin();
  } else if (strcmp(what, "time") == 0) {
    block(NULL);
  } else if (strcmp(what, "procs") == 0) {
    procs();
  } else if (strcmp(what, "threads") == 0) {
    threads();
  } else if (strcmp(what, "joins") == 0) {
    joins();
  } else if (strcmp(what, "fds") == 0) {
    fds();
  } else if (strcmp(what, "fsize") == 0) {
    uint64_t n = fill("big", &e1);
    rt_printf(out, "fsize: errno %u at %u bytes\n", e1, (unsigned)n);
  } else if (strcmp(what, "disk") == 0) {
    uint64_t a = fill("a", &e1), b = fill("b", &e2);
    rt_printf(out, "disk: errno %u, %u at %u bytes\n", e1, e2,
              (unsigned)(a + b));
  }
  cloudabi_sys_proc_exit(0);
}
