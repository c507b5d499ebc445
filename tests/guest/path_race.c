/*
 * A path buffer rewritten by another thread while the supervisor works on
 * it.  A writer thread keeps flipping a 10-byte buffer between
 * "inside.txt" (a file in the directory) and "../out.txt" (one outside);
 * the main thread opens and stats whatever the buffer says, many times.
 * The supervisor copies the path once, so each call sees one consistent
 * string (or a torn one, which names nothing): it may succeed on the file
 * inside, or fail, but it must never reach the file outside.
 *
 * The writer is a thread made with thread_create; until the vDSO has
 * thread_create (it answers ENOSYS), with a raw clone() of exactly the
 * flags the seccomp filter allows for threads, which is all thread_create
 * will do.  The summary line says which.
 * Config: out, dir (box/in holding inside.txt; box/out.txt is outside),
 * rounds.
 */
#include "check.h"

static char pathbuf[16] = "inside.txt";
static volatile int stop, stopped;

static void writer(void) {
  static const char *const paths[2] = {"inside.txt", "../out.txt"};
  volatile char *p = pathbuf;
  for (unsigned i = 0; !stop; i++) {
    const char *src = paths[i & 1];
    /* Byte by byte: a reader may see any mix of the two. */
    for (int k = 0; k < 10; k++)
      p[k] = src[k];
  }
  stopped = 1;
}

/* ---- thread_create, when the vDSO has it ---- */

static _Atomic(cloudabi_lock_t) join_lock;

static void thread_entry(cloudabi_tid_t tid, void *arg) {
  (void)arg;
  writer();
  join_lock = tid | CLOUDABI_LOCK_WRLOCKED;
  cloudabi_sys_thread_exit(&join_lock, CLOUDABI_SCOPE_PRIVATE);
}

/* ---- a raw thread otherwise ---- */

/* long raw_clone(flags, stack, parent_tid, child_tid, tls): the child pops
 * a function from its new stack, calls it, and exits. */
long raw_clone(long flags, void *stack, int *ptid, int *ctid, void *tls);
__asm__(".text\n"
        ".globl raw_clone\n"
        ".hidden raw_clone\n"
        ".type raw_clone,@function\n"
        "raw_clone:\n"
        "  mov %rcx, %r10\n"
        "  mov $56, %eax\n" /* clone */
        "  syscall\n"
        "  test %rax, %rax\n"
        "  jnz 1f\n"
        "  pop %rax\n"
        "  call *%rax\n"
        "  mov $60, %eax\n" /* exit: this thread only */
        "  xor %edi, %edi\n"
        "  syscall\n"
        "  ud2\n"
        "1: ret\n");

/* The flags the filter allows for a new thread (src/loader/filter.c). */
#define THREAD_CLONE_FLAGS 0x1d0f00L

static char stack[65536] __attribute__((aligned(16)));

static bool start_writer(void) {
  cloudabi_threadattr_t attr = {
      .entry_point = thread_entry,
      .stack = stack,
      .stack_len = sizeof(stack),
      .argument = NULL,
  };
  cloudabi_tid_t tid;
  cloudabi_errno_t e = cloudabi_sys_thread_create(&attr, &tid);
  if (e == 0)
    return true;
  RT_CHECK(e == CLOUDABI_ENOSYS);
  /* The child starts with rsp at the function pointer; after popping it
   * rsp is 16-byte aligned, as a call expects. */
  static void *tls_slot[2];
  tls_slot[0] = &tls_slot[1];
  void **top = (void **)(stack + sizeof(stack)) - 1;
  *top = (void *)writer;
  static int ptid;
  RT_CHECK(raw_clone(THREAD_CLONE_FLAGS, top, &ptid, NULL, tls_slot) > 0);
  return false;
}

void program_main(const argdata_t *ad) {
  rt_log_fd = rt_map_fd(ad, "out");
  cloudabi_fd_t dir = rt_map_fd(ad, "dir");
  int64_t rounds = rt_map_int(ad, "rounds", 3000);
  cloudabi_filestat_t inside;
  RT_CHECK(stat_path(dir, "inside.txt", false, &inside) == 0);

  bool threads = start_writer();
  unsigned long calls = 0, ok = 0, refused = 0, missing = 0, escaped = 0;
  for (int64_t i = 0; i < rounds; i++) {
    cloudabi_fdstat_t fds = {.fs_rights_base = R(FD_READ) | R(FD_SEEK)};
    cloudabi_fd_t fd;
    cloudabi_errno_t e =
        cloudabi_sys_file_open(at(dir, false), pathbuf, 10, 0, &fds, &fd);
    calls++;
    if (e == 0) {
      char buf[8];
      cloudabi_iovec_t iov = {buf, sizeof(buf)};
      size_t n = 0;
      RT_CHECK(cloudabi_sys_fd_pread(fd, &iov, 1, 0, &n) == 0);
      RT_CHECK(cloudabi_sys_fd_close(fd) == 0);
      if (n == 7 && memcmp(buf, "inside\n", 7) == 0)
        ok++;
      else
        escaped++;
    } else if (e == CLOUDABI_ENOTCAPABLE) {
      refused++;
    } else if (e == CLOUDABI_ENOENT) {
      missing++;
    } else {
      check("file_open", "racing", e, 0);
    }
    cloudabi_filestat_t st;
    e = cloudabi_sys_file_stat_get(at(dir, false), pathbuf, 10, &st);
    calls++;
    if (e == 0) {
      if (st.st_ino == inside.st_ino && st.st_dev == inside.st_dev)
        ok++;
      else
        escaped++;
    } else if (e == CLOUDABI_ENOTCAPABLE) {
      refused++;
    } else if (e == CLOUDABI_ENOENT) {
      missing++;
    } else {
      check("file_stat_get", "racing", e, 0);
    }
  }
  stop = 1;
  while (!stopped)
    cloudabi_sys_thread_yield();
  /* Both strings must have been seen for the race to have been run. */
  check("race", "escapes", escaped == 0 ? 0 : WRONG_RESULT, 0);
  check("race", "the inside path was seen", ok > 0 ? 0 : WRONG_RESULT, 0);
  check("race", "the outside path was seen", refused > 0 ? 0 : WRONG_RESULT, 0);
  if (check_failed != 0)
    check_done("path_race");
  rt_printf(rt_log_fd,
            "path_race: %lu calls, inside %lu, refused %lu, torn %lu, "
            "escaped %lu (writer: %s)\n",
            calls, ok, refused, missing, escaped,
            threads ? "thread_create"
                    : "raw clone; thread_create answered ENOSYS");
}
