/*
 * Benchmarks that compile twice from the same source: as a CloudABI
 * program (run under cloudabi-run) and natively for Linux.  A benchmark
 * is a function that repeats one operation; the harness (bench_main.c)
 * times it and prints "name ns_per_op".  The few operations benchmarks
 * need are spelled once here for both worlds.
 */
#ifndef BENCH_H
#define BENCH_H

#include <stddef.h>
#include <stdint.h>

/* What a benchmark may use; descriptors are -1 when not configured. */
struct bench_env {
  int devnull; /* writable, discards */
  int dir;     /* a scratch directory */
  /* Two pipes, each as {read end, write end}; a guest gets FIFOs opened
   * read-write, so both ends are the same descriptor. */
  int ping[2], pong[2];
  int zero; /* readable, endless zeros */
};

typedef void bench_fn(const struct bench_env *env, uint64_t iterations);

struct bench {
  const char *name;
  bench_fn *fn;
  uint64_t iterations;
};

/* Each benchmark file adds entries with BENCH(name, fn, iterations). */
#define BENCH(n, f, iters)                                                     \
  static const struct bench bench_##f                                          \
      __attribute__((used, section("bench_table"), aligned(8))) = {n, f,       \
                                                                   iters}

uint64_t bench_now_ns(void);
_Noreturn void bench_fail(const char *what);

/*
 * File helpers, the same calls in both worlds: descriptors are ints, paths
 * are relative to a directory descriptor, failures are negative.
 */
enum bench_open_mode {
  BENCH_READ,      /* an existing file, to read at offsets */
  BENCH_CREATE,    /* created or truncated, to write */
  BENCH_DIRECTORY, /* a directory, to list and to open beneath */
  BENCH_MAP,       /* an existing file, to map for reading */
};

#ifdef __CloudABI__
#include "cloudabi_syscalls.h"
#include "rt.h"

static inline long bench_write(int fd, const void *buf, size_t len) {
  cloudabi_ciovec_t iov = {buf, len};
  size_t n;
  return cloudabi_sys_fd_write((cloudabi_fd_t)fd, &iov, 1, &n) == 0 ? (long)n
                                                                    : -1;
}

static inline int bench_open(int dir, const char *path,
                             enum bench_open_mode mode) {
  static const struct {
    cloudabi_oflags_t oflags;
    cloudabi_rights_t base, inheriting;
  } modes[] = {
      [BENCH_READ] = {0, CLOUDABI_RIGHT_FD_READ | CLOUDABI_RIGHT_FD_SEEK, 0},
      [BENCH_CREATE] = {CLOUDABI_O_CREAT | CLOUDABI_O_TRUNC,
                        CLOUDABI_RIGHT_FD_WRITE, 0},
      [BENCH_DIRECTORY] = {CLOUDABI_O_DIRECTORY,
                           CLOUDABI_RIGHT_FILE_READDIR |
                               CLOUDABI_RIGHT_FILE_OPEN |
                               CLOUDABI_RIGHT_FILE_STAT_GET,
                           CLOUDABI_RIGHT_FD_READ | CLOUDABI_RIGHT_FD_WRITE |
                               CLOUDABI_RIGHT_FD_SEEK},
      [BENCH_MAP] = {0, CLOUDABI_RIGHT_FD_READ | CLOUDABI_RIGHT_MEM_MAP, 0},
  };
  cloudabi_fdstat_t fds = {.fs_rights_base = modes[mode].base,
                           .fs_rights_inheriting = modes[mode].inheriting};
  cloudabi_lookup_t at = {(cloudabi_fd_t)dir, 0};
  cloudabi_fd_t fd;
  if (cloudabi_sys_file_open(at, path, strlen(path), modes[mode].oflags, &fds,
                             &fd) != 0)
    return -1;
  return (int)fd;
}

static inline int bench_close(int fd) {
  return cloudabi_sys_fd_close((cloudabi_fd_t)fd) == 0 ? 0 : -1;
}

/* The size of a file by path (fstatat); -1 if it is missing. */
static inline long bench_stat_size(int dir, const char *path) {
  cloudabi_lookup_t at = {(cloudabi_fd_t)dir, 0};
  cloudabi_filestat_t st;
  if (cloudabi_sys_file_stat_get(at, path, strlen(path), &st) != 0)
    return -1;
  return (long)st.st_size;
}

static inline long bench_pread(int fd, void *buf, size_t len, uint64_t off) {
  cloudabi_iovec_t iov = {buf, len};
  size_t n;
  return cloudabi_sys_fd_pread((cloudabi_fd_t)fd, &iov, 1, off, &n) == 0
             ? (long)n
             : -1;
}

/* A private read-only mapping of len bytes of fd, unmapped again. */
static inline int bench_mmap_munmap(int fd, size_t len) {
  void *p;
  if (cloudabi_sys_mem_map(NULL, len, CLOUDABI_PROT_READ, CLOUDABI_MAP_PRIVATE,
                           (cloudabi_fd_t)fd, 0, &p) != 0)
    return -1;
  return cloudabi_sys_mem_unmap(p, len) == 0 ? 0 : -1;
}

static inline int bench_mkdir(int dir, const char *path) {
  return cloudabi_sys_file_create((cloudabi_fd_t)dir, path, strlen(path),
                                  CLOUDABI_FILETYPE_DIRECTORY) == 0
             ? 0
             : -1;
}

/* Lists a whole directory from its start; the number of entries. */
static inline long bench_readdir_count(int dir, void *buf, size_t len) {
  long count = 0;
  cloudabi_dircookie_t cookie = CLOUDABI_DIRCOOKIE_START;
  for (;;) {
    size_t used;
    if (cloudabi_sys_file_readdir((cloudabi_fd_t)dir, buf, len, cookie,
                                  &used) != 0)
      return -1;
    size_t off = 0;
    while (off + sizeof(cloudabi_dirent_t) <= used) {
      cloudabi_dirent_t d; /* entries are not aligned */
      memcpy(&d, (char *)buf + off, sizeof(d));
      if (off + sizeof(d) + d.d_namlen > used)
        break; /* cut short: read it again */
      off += sizeof(d) + d.d_namlen;
      cookie = d.d_next;
      count++;
    }
    if (used < len)
      return count;
  }
}
#else
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline long bench_write(int fd, const void *buf, size_t len) {
  return write(fd, buf, len);
}

static inline int bench_open(int dir, const char *path,
                             enum bench_open_mode mode) {
  static const int flags[] = {
      [BENCH_READ] = O_RDONLY,
      [BENCH_CREATE] = O_WRONLY | O_CREAT | O_TRUNC,
      [BENCH_DIRECTORY] = O_RDONLY | O_DIRECTORY,
      [BENCH_MAP] = O_RDONLY,
  };
  return openat(dir, path, flags[mode] | O_CLOEXEC | O_NOFOLLOW, 0666);
}

static inline int bench_close(int fd) {
  return close(fd);
}

static inline long bench_stat_size(int dir, const char *path) {
  struct stat st;
  if (fstatat(dir, path, &st, AT_SYMLINK_NOFOLLOW) != 0)
    return -1;
  return (long)st.st_size;
}

static inline long bench_pread(int fd, void *buf, size_t len, uint64_t off) {
  return pread(fd, buf, len, (off_t)off);
}

static inline int bench_mmap_munmap(int fd, size_t len) {
  void *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED)
    return -1;
  return munmap(p, len);
}

static inline int bench_mkdir(int dir, const char *path) {
  return mkdirat(dir, path, 0777);
}

static inline long bench_readdir_count(int dir, void *buf, size_t len) {
  struct rec {
    uint64_t ino;
    int64_t off;
    unsigned short reclen;
  };
  long count = 0;
  if (lseek(dir, 0, SEEK_SET) != 0)
    return -1;
  for (;;) {
    long n = syscall(SYS_getdents64, dir, buf, len);
    if (n <= 0)
      return n == 0 ? count : -1;
    for (long off = 0; off < n; count++)
      off += ((const struct rec *)((char *)buf + off))->reclen;
  }
}
#endif


/*
 * Threads and synchronisation: POSIX threads natively; as a guest, the test
 * runtime's (abi/rt/thread.c), which follows cloudlibc's protocol over our
 * vDSO, so the comparison is what a cloudlibc program pays.
 */
typedef void *bench_thread_fn(void *arg);

#ifdef __CloudABI__
#include "rt_thread.h"
static inline long bench_read(int fd, void *buf, size_t len) {
  cloudabi_iovec_t iov = {buf, len};
  size_t n;
  return cloudabi_sys_fd_read((cloudabi_fd_t)fd, &iov, 1, &n) == 0 ? (long)n
                                                                    : -1;
}
typedef rt_lock_t bench_mutex_t;
typedef rt_cond_t bench_cond_t;
typedef rt_thread_t *bench_thread_t;
static inline void bench_mutex_init(bench_mutex_t *m) {
  rt_lock_init(m, CLOUDABI_SCOPE_PRIVATE);
}
static inline void bench_mutex_lock(bench_mutex_t *m) { rt_lock_wrlock(m); }
static inline void bench_mutex_unlock(bench_mutex_t *m) { rt_lock_unlock(m); }
static inline void bench_cond_init(bench_cond_t *c) {
  rt_cond_init(c, CLOUDABI_SCOPE_PRIVATE);
}
static inline void bench_cond_wait(bench_cond_t *c, bench_mutex_t *m) {
  rt_cond_wait(c, m);
}
static inline void bench_cond_signal(bench_cond_t *c) { rt_cond_signal(c); }
static inline int bench_thread_create(bench_thread_t *t, bench_thread_fn *fn,
                                      void *arg) {
  return rt_thread_create(t, fn, arg) == 0 ? 0 : -1;
}
static inline void *bench_thread_join(bench_thread_t t) {
  return rt_thread_join(t);
}
static inline uint64_t bench_clock_read(void) {
  cloudabi_timestamp_t t = 0;
  cloudabi_sys_clock_time_get(CLOUDABI_CLOCK_MONOTONIC, 0, &t);
  return t;
}
#else
#include <pthread.h>
#include <time.h>
#include <unistd.h>
static inline long bench_read(int fd, void *buf, size_t len) {
  return read(fd, buf, len);
}
typedef pthread_mutex_t bench_mutex_t;
typedef pthread_cond_t bench_cond_t;
typedef pthread_t bench_thread_t;
static inline void bench_mutex_init(bench_mutex_t *m) {
  pthread_mutex_init(m, NULL);
}
static inline void bench_mutex_lock(bench_mutex_t *m) {
  pthread_mutex_lock(m);
}
static inline void bench_mutex_unlock(bench_mutex_t *m) {
  pthread_mutex_unlock(m);
}
static inline void bench_cond_init(bench_cond_t *c) {
  pthread_cond_init(c, NULL);
}
static inline void bench_cond_wait(bench_cond_t *c, bench_mutex_t *m) {
  pthread_cond_wait(c, m);
}
static inline void bench_cond_signal(bench_cond_t *c) {
  pthread_cond_signal(c);
}
static inline int bench_thread_create(bench_thread_t *t, bench_thread_fn *fn,
                                      void *arg) {
  return pthread_create(t, NULL, fn, arg) == 0 ? 0 : -1;
}
static inline void *bench_thread_join(bench_thread_t t) {
  void *r;
  pthread_join(t, &r);
  return r;
}
static inline uint64_t bench_clock_read(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#endif

#endif
