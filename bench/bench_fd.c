/*
 * Descriptor I/O: a 1-byte write, reads of 4 KiB and 64 KiB, and a Unix
 * filter (read 4 KiB of text from a file, change it, write it on) over a
 * 128 MiB file, per 4 KiB.  Under cloudabi-run all of these run on
 * mirrored descriptors once the first call has trapped (issue 14).
 */
#include "bench.h"

static void write1(const struct bench_env *env, uint64_t n) {
  char c = 'x';
  for (uint64_t i = 0; i < n; i++)
    if (bench_write(env->devnull, &c, 1) != 1)
      bench_fail("write1");
}
BENCH("write1", write1, 200000);

static void read_n(const struct bench_env *env, uint64_t n, size_t len) {
  static char buf[65536];
  if (env->zero < 0)
    bench_fail("no /dev/zero (zero)");
  for (uint64_t i = 0; i < n; i++)
    if (bench_read(env->zero, buf, len) != (long)len)
      bench_fail("read");
}

static void read4k(const struct bench_env *env, uint64_t n) {
  read_n(env, n, 4096);
}
BENCH("read4k", read4k, 100000);

static void read64k(const struct bench_env *env, uint64_t n) {
  read_n(env, n, 65536);
}
BENCH("read64k", read64k, 20000);

#define TEXT "bench-text" /* 128 MiB of lines */
#define TEXT_SIZE (128l << 20)

static void make_text(const struct bench_env *env) {
  if (env->dir < 0)
    bench_fail("no scratch directory (dir)");
  if (bench_stat_size(env->dir, TEXT) == TEXT_SIZE)
    return;
  static char block[65536];
  for (size_t i = 0; i < sizeof(block); i++)
    block[i] = i % 64 == 63 ? '\n' : (char)('a' + i % 26);
  int fd = bench_open(env->dir, TEXT, BENCH_CREATE);
  if (fd < 0)
    bench_fail("creating " TEXT);
  for (long left = TEXT_SIZE; left > 0; left -= (long)sizeof(block))
    if (bench_write(fd, block, sizeof(block)) != sizeof(block))
      bench_fail("writing " TEXT);
  bench_close(fd);
}

/* n chunks of 4 KiB, upper-cased on their way to /dev/null; the file is
 * opened again at its end. */
static void filter(const struct bench_env *env, uint64_t n) {
  static char buf[4096];
  make_text(env);
  int fd = -1;
  for (uint64_t i = 0; i < n;) {
    if (fd < 0 && (fd = bench_open(env->dir, TEXT, BENCH_READ)) < 0)
      bench_fail("open " TEXT);
    long got = bench_read(fd, buf, sizeof(buf));
    if (got < 0)
      bench_fail("read " TEXT);
    if (got == 0) {
      bench_close(fd);
      fd = -1;
      continue;
    }
    for (long k = 0; k < got; k++)
      if (buf[k] >= 'a' && buf[k] <= 'z')
        buf[k] = (char)(buf[k] - 'a' + 'A');
    if (bench_write(env->devnull, buf, (size_t)got) != got)
      bench_fail("write");
    i++;
  }
  if (fd >= 0)
    bench_close(fd);
}
BENCH("filter4k", filter, 65536);
