/*
 * File system calls through the supervisor: open+close, fstatat, pread of
 * 4 KiB and 64 KiB, a file mapped and unmapped, and listing a directory of
 * 1000 entries.  Each makes what it needs in the scratch directory first
 * (once; the native and the CloudABI runs share it).
 */
#include "bench.h"

#define DATA "bench-data" /* 64 KiB */
#define MANY "bench-1000" /* a directory of 1000 empty files */

static void need_dir(const struct bench_env *env) {
  if (env->dir < 0)
    bench_fail("no scratch directory (dir)");
}

static void make_data(const struct bench_env *env) {
  need_dir(env);
  if (bench_stat_size(env->dir, DATA) == 65536)
    return;
  static char block[65536];
  for (size_t i = 0; i < sizeof(block); i++)
    block[i] = (char)i;
  int fd = bench_open(env->dir, DATA, BENCH_CREATE);
  if (fd < 0 || bench_write(fd, block, sizeof(block)) != sizeof(block) ||
      bench_close(fd) != 0)
    bench_fail("creating " DATA);
}

static void open_close(const struct bench_env *env, uint64_t n) {
  make_data(env);
  for (uint64_t i = 0; i < n; i++) {
    int fd = bench_open(env->dir, DATA, BENCH_READ);
    if (fd < 0 || bench_close(fd) != 0)
      bench_fail("open+close");
  }
}
BENCH("open+close", open_close, 50000);

static void fstatat_(const struct bench_env *env, uint64_t n) {
  make_data(env);
  for (uint64_t i = 0; i < n; i++)
    if (bench_stat_size(env->dir, DATA) != 65536)
      bench_fail("fstatat");
}
BENCH("fstatat", fstatat_, 50000);

static void pread_n(const struct bench_env *env, uint64_t n, size_t len) {
  static char buf[65536];
  make_data(env);
  int fd = bench_open(env->dir, DATA, BENCH_READ);
  if (fd < 0)
    bench_fail("open " DATA);
  for (uint64_t i = 0; i < n; i++)
    if (bench_pread(fd, buf, len, 0) != (long)len)
      bench_fail("pread");
  bench_close(fd);
}

static void pread4k(const struct bench_env *env, uint64_t n) {
  pread_n(env, n, 4096);
}
BENCH("pread4k", pread4k, 50000);

static void pread64k(const struct bench_env *env, uint64_t n) {
  pread_n(env, n, 65536);
}
BENCH("pread64k", pread64k, 20000);

/* mem_map of a file and mem_unmap: a trap for the lent descriptor, the
 * vDSO's mmap and close, and the revocation check at the next trap. */
static void map_unmap(const struct bench_env *env, uint64_t n) {
  make_data(env);
  int fd = bench_open(env->dir, DATA, BENCH_MAP);
  if (fd < 0)
    bench_fail("open " DATA);
  for (uint64_t i = 0; i < n; i++)
    if (bench_mmap_munmap(fd, 4096) != 0)
      bench_fail("map+unmap");
  bench_close(fd);
}
BENCH("map+unmap", map_unmap, 10000);

static void readdir1000(const struct bench_env *env, uint64_t n) {
  static char buf[32768];
  need_dir(env);
  int dir = bench_open(env->dir, MANY, BENCH_DIRECTORY);
  if (dir < 0) {
    if (bench_mkdir(env->dir, MANY) != 0 ||
        (dir = bench_open(env->dir, MANY, BENCH_DIRECTORY)) < 0)
      bench_fail("creating " MANY);
    for (int i = 0; i < 1000; i++) {
      char name[8] = "f0000";
      name[1] = (char)('0' + i / 1000);
      name[2] = (char)('0' + i / 100 % 10);
      name[3] = (char)('0' + i / 10 % 10);
      name[4] = (char)('0' + i % 10);
      int fd = bench_open(dir, name, BENCH_CREATE);
      if (fd < 0 || bench_close(fd) != 0)
        bench_fail("creating " MANY "/f....");
    }
  }
  for (uint64_t i = 0; i < n; i++)
    if (bench_readdir_count(dir, buf, sizeof(buf)) != 1002) /* . and .. */
      bench_fail("readdir1000");
  bench_close(dir);
}
BENCH("readdir1000", readdir1000, 2000);
