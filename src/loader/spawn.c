/* Starting a guest; see spawn.h and abi/loader/stub.c for the other half. */
#include "spawn.h"
#include "host/mix64.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch_block.h"
#include "stub_status.h"
#include "trap.h"

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif
#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif

#define STUB_EEXEC 249 /* the child could not exec the stub */
#define STACK_SIZE (8u << 20)

extern const char blob_stub_start[], blob_stub_end[];
extern const char blob_vdso_start[], blob_vdso_end[];
extern const char blob_vdso_trace_start[], blob_vdso_trace_end[];

static int fail(char *why, size_t size, const char *fmt, const char *arg) {
  snprintf(why, size, fmt, arg);
  return -1;
}

/* A sealed memfd holding `len` bytes. */
static int memfd_with(const char *name, const void *data, size_t len,
                      bool exec) {
  int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING |
                                  (exec ? MFD_EXEC : 0));
  if (fd < 0 && exec && errno == EINVAL) /* kernels before 6.3 */
    fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0)
    return -1;
  const char *p = data;
  size_t left = len;
  while (left > 0) {
    ssize_t n = write(fd, p, left);
    if (n <= 0) {
      close(fd);
      return -1;
    }
    p += n;
    left -= (size_t)n;
  }
  fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE |
                             F_SEAL_SEAL);
  return fd;
}

static int launch_block(const struct launch_config *lc,
                        const struct filter_prog *filter, uint64_t flags) {
  size_t argdata_off = (sizeof(struct launch_block) + 7) & ~(size_t)7;
  size_t filter_off = (argdata_off + lc->argdata_len + 7) & ~(size_t)7;
  size_t size = filter_off + filter->len * sizeof(struct sock_filter);
  char *buf = calloc(1, size);
  if (buf == NULL)
    return -1;
  struct launch_block *lb = (struct launch_block *)buf;
  lb->magic = LAUNCH_MAGIC;
  lb->size = size;
  lb->argdata_off = argdata_off;
  lb->argdata_len = lc->argdata_len;
  lb->filter_off = filter_off;
  lb->filter_len = filter->len;
  lb->seccomp_flags = flags;
  lb->stack_size = STACK_SIZE;
  long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
  lb->ncpus = ncpus > 0 ? (uint64_t)ncpus : 1;
  lb->boot_nr = TRAP_NR_BOOT;
  if (lc->deterministic) {
    uint64_t words[(sizeof(lb->canary) + sizeof(lb->pid)) / 8];
    for (size_t i = 0; i < sizeof(words) / 8; i++)
      words[i] = mix64_word(lc->det_seed, i);
    memcpy(lb->canary, words, sizeof(lb->canary));
    memcpy(lb->pid, (char *)words + sizeof(lb->canary), sizeof(lb->pid));
  } else if (getrandom(lb->canary, sizeof(lb->canary), 0) !=
                 sizeof(lb->canary) ||
             getrandom(lb->pid, sizeof(lb->pid), 0) != sizeof(lb->pid)) {
    free(buf);
    return -1;
  }
  /* A version 4 (random) UUID. */
  lb->pid[6] = (uint8_t)((lb->pid[6] & 0x0f) | 0x40);
  lb->pid[8] = (uint8_t)((lb->pid[8] & 0x3f) | 0x80);
  if (lc->argdata_len > 0)
    memcpy(buf + argdata_off, lc->argdata, lc->argdata_len);
  memcpy(buf + filter_off, filter->insns,
         filter->len * sizeof(struct sock_filter));
  int fd = memfd_with("cloudabi-launch", buf, size, false);
  free(buf);
  return fd;
}

/*
 * The I/O slots: a sealed memfd that the guest maps and we map too; all
 * slots start free.  Sealed so that the guest cannot shrink it under our
 * mapping (which would fault in the supervisor).
 */
static int ioslots_region(void **map) {
  int fd = memfd_create("cloudabi-ioslots", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0)
    return -1;
  if (ftruncate(fd, IOSLOT_REGION_SIZE) != 0 ||
      fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0 ||
      (*map = mmap(NULL, IOSLOT_REGION_SIZE, PROT_READ | PROT_WRITE,
                   MAP_SHARED, fd, 0)) == MAP_FAILED) {
    close(fd);
    return -1;
  }
  *(uint64_t *)*map = ~0ull; /* all IOSLOT_COUNT (64) slots free */
  return fd;
}

/* The rlimits of lc on the new process; forks inherit them. */
static int set_limits(pid_t pid, const struct launch_config *lc) {
  /* Room for mirrored descriptors (trap.h), where the hard limit allows. */
  struct rlimit nofile;
  if (prlimit(pid, RLIMIT_NOFILE, NULL, &nofile) == 0 &&
      nofile.rlim_cur < MIRROR_HIGH) {
    nofile.rlim_cur = nofile.rlim_max < MIRROR_HIGH ? nofile.rlim_max
                                                    : MIRROR_HIGH;
    prlimit(pid, RLIMIT_NOFILE, &nofile, NULL);
  }
  /* A guest that dies of a signal leaves no core file: it would be
   * written where cloudabi-run runs, outside every grant. */
  struct rlimit nocore = {0, 0};
  if (prlimit(pid, RLIMIT_CORE, &nocore, NULL) != 0)
    return -1;
  if (lc->limit_as != 0) {
    struct rlimit r = {lc->limit_as, lc->limit_as};
    if (prlimit(pid, RLIMIT_AS, &r, NULL) != 0)
      return -1;
  }
  if (lc->sched_other) {
    struct sched_param sp = {0};
    if (sched_setscheduler(pid, SCHED_OTHER, &sp) != 0)
      return -1;
  }
  if (lc->limit_cpu != 0) {
    /* SIGXCPU at the limit; SIGKILL a second later, should it survive. */
    struct rlimit r = {lc->limit_cpu, lc->limit_cpu + 1};
    if (prlimit(pid, RLIMIT_CPU, &r, NULL) != 0)
      return -1;
  }
  return 0;
}

/* What the child needs, on the parent's memory (CLONE_VM). */
struct child_args {
  pid_t parent;
  int from[LAUNCH_FDS];
};

/* The kernel's struct sigaction, for SIG_DFL without the C library. */
struct kernel_sigaction {
  void *handler;
  unsigned long flags;
  void *restorer;
  uint64_t mask;
};

/*
 * The child, sharing the supervisor's memory until it execs (CLONE_VM |
 * CLONE_VFORK, as posix_spawn): so raw system calls only, no errno, no
 * sanitizer bookkeeping on a stack that is unmapped afterwards.  Every
 * signal arrives blocked (spawn_once) and every handler is reset before
 * any is unblocked, so none of the supervisor's handlers runs here.
 * Tracing and limits come after the exec: the stub waits for LAUNCH_FD_GO.
 */
__attribute__((no_sanitize("address", "undefined"))) static int
child(void *arg) {
  const struct child_args *a = arg;
  syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  if (syscall(SYS_getppid) != a->parent)
    syscall(SYS_exit, STUB_EEXEC);
  /* In the order of the LAUNCH_FD_* numbers, from 3; the stub last. */
  int tmp[LAUNCH_FDS];
  for (int i = 0; i < LAUNCH_FDS; i++)
    if ((tmp[i] = (int)syscall(SYS_fcntl, a->from[i], F_DUPFD_CLOEXEC, 16)) < 0)
      syscall(SYS_exit, STUB_EEXEC);
  for (int i = 0; i < LAUNCH_FDS - 1; i++)
    if (syscall(SYS_dup2, tmp[i], LAUNCH_FD_BLOCK + i) < 0)
      syscall(SYS_exit, STUB_EEXEC);
  int stubfd = LAUNCH_FD_BLOCK + LAUNCH_FDS - 1;
  if (syscall(SYS_dup3, tmp[LAUNCH_FDS - 1], stubfd, O_CLOEXEC) < 0)
    syscall(SYS_exit, STUB_EEXEC);
  syscall(SYS_close_range, stubfd + 1, ~0u, 0);
  syscall(SYS_close, 0);
  syscall(SYS_close, 1);
  syscall(SYS_close, 2);
  /* Exec resets caught signals but not ignored ones.  Not SIGSYS: the
   * supervisor's filter refuses touching its handler (which only ends
   * this child, were it to run before the exec). */
  struct kernel_sigaction dfl = {0};
  for (int sig = 1; sig <= 64; sig++)
    if (sig != SIGSYS && sig != SIGKILL && sig != SIGSTOP)
      syscall(SYS_rt_sigaction, sig, &dfl, NULL, sizeof(dfl.mask));
  uint64_t none = 0;
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, NULL, sizeof(none));
  char *argv[] = {"cloudabi-loader", NULL};
  char *envp[] = {NULL};
  syscall(SYS_execveat, stubfd, "", argv, envp, AT_EMPTY_PATH);
  syscall(SYS_exit, STUB_EEXEC);
  return 0;
}

static const char *stub_failure(int status) {
  switch (status) {
  case STUB_EBLOCK:
    return "the loader got a bad launch block";
  case STUB_EELF:
    return "the program's segments cannot be loaded";
  case STUB_ENOMEM:
    return "out of memory while loading the program";
  case STUB_EMAP:
    return "mapping the program's segments failed";
  case STUB_E2BIG:
    return "the argument data does not fit on the stack";
  case STUB_EFS:
    return "setting up TLS failed";
  case STUB_EFILTER:
    return "installing the seccomp filter failed";
  case STUB_EFILTERFLAGS:
    return "the kernel refused the seccomp filter flags";
  case STUB_EBOOT:
    return "the start-up rendezvous failed";
  case STUB_EGO:
    return "the loader was not started";
  case STUB_EEXEC:
    return "the loader could not be started (is exec from memfd allowed?)";
  default:
    return "the loader failed";
  }
}

/* Until the stub closes the sync pipe: continue the exec stop, notice an
 * early death.  Returns 0, or the stub's exit status, or -1. */
static int await_filter(pid_t pid, int sync, int sigfd) {
  for (;;) {
    struct pollfd p[2] = {{sync, POLLIN, 0}, {sigfd, POLLIN, 0}};
    if (poll(p, 2, -1) < 0) {
      if (errno == EINTR)
        continue;
      return -1;
    }
    if (p[1].revents != 0) {
      struct signalfd_siginfo si;
      while (read(sigfd, &si, sizeof(si)) == sizeof(si)) {
      }
      int st;
      pid_t w;
      while ((w = waitpid(pid, &st, __WALL | WNOHANG)) > 0) {
        if (WIFEXITED(st))
          return WEXITSTATUS(st) != 0 ? WEXITSTATUS(st) : -1;
        if (WIFSIGNALED(st))
          return -1;
        if (WIFSTOPPED(st)) {
          /* The exec event, or a stop signal: nothing to inject yet. */
          int sig = (st >> 16) == 0 ? WSTOPSIG(st) : 0;
          if (sig == SIGSTOP || sig == SIGTRAP)
            sig = 0;
          ptrace(PTRACE_CONT, pid, 0, sig);
        }
      }
    }
    if (p[0].revents != 0) {
      char c;
      ssize_t n = read(sync, &c, 1);
      if (n == 0)
        return 0;
      if (n < 0 && errno != EINTR && errno != EAGAIN)
        return -1;
    }
  }
}

static int spawn_once(int sigfd, int prog_fd, const struct launch_config *lc,
                      const struct filter_prog *filter, uint64_t flags,
                      struct spawned *out, int *stub_status, char *why,
                      size_t why_size) {
  int result = -1;
  int stub = -1, vdso = -1, block = -1, go[2] = {-1, -1}, sync[2] = {-1, -1};
  int ioslots = -1;
  void *io_map = MAP_FAILED;
  pid_t pid = -1;
  cpu_set_t cpus;
  bool pinned = false;
  *stub_status = 0;
  stub = memfd_with("cloudabi-loader", blob_stub_start,
                    (size_t)(blob_stub_end - blob_stub_start), true);
  if (lc->trace_local)
    vdso = memfd_with("cloudabi-vdso", blob_vdso_trace_start,
                      (size_t)(blob_vdso_trace_end - blob_vdso_trace_start),
                      false);
  else
    vdso = memfd_with("cloudabi-vdso", blob_vdso_start,
                      (size_t)(blob_vdso_end - blob_vdso_start), false);
  block = launch_block(lc, filter, flags);
  ioslots = ioslots_region(&io_map);
  if (stub < 0 || vdso < 0 || block < 0 || ioslots < 0) {
    fail(why, why_size, "cannot prepare the loader: %s", strerror(errno));
    goto out;
  }
  if (pipe2(go, O_CLOEXEC) != 0 || pipe2(sync, O_CLOEXEC) != 0) {
    fail(why, why_size, "pipe: %s", strerror(errno));
    goto out;
  }
  /* clone returns once the child has exec'd the stub or died: a vfork,
   * without the copy of our page tables a fork makes (issue 15). */
  struct child_args args = {getpid(),
                            {block, prog_fd, vdso, sync[1], ioslots, go[0],
                             stub}};
  const size_t child_stack = 64 * 1024;
  void *stack = mmap(NULL, child_stack, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED) {
    fail(why, why_size, "cannot map the loader's stack: %s", strerror(errno));
    goto out;
  }
  /* The whole hand-over on this CPU: on these VMs a wake-up of the other,
   * idle one waited for its next timer tick (up to 4 ms, half of a short
   * run).  The child inherits the pin; the guest loses it at TRAP_NR_BOOT
   * (supervisor/loop.c), we at the end of this function. */
  cpu_set_t here;
  pinned = sched_getaffinity(0, sizeof(cpus), &cpus) == 0;
  if (pinned) {
    int cpu = sched_getcpu();
    CPU_ZERO(&here);
    CPU_SET(cpu < 0 ? 0 : cpu, &here);
    pinned = sched_setaffinity(0, sizeof(here), &here) == 0;
  }
  sigset_t all, old;
  sigfillset(&all);
  sigprocmask(SIG_SETMASK, &all, &old);
  pid = clone(child, (char *)stack + child_stack,
              CLONE_VM | CLONE_VFORK | SIGCHLD, &args);
  int clone_errno = errno;
  sigprocmask(SIG_SETMASK, &old, NULL);
  munmap(stack, child_stack);
  if (pid < 0) {
    fail(why, why_size, "clone: %s", strerror(clone_errno));
    goto out;
  }
  close(go[0]);
  go[0] = -1;
  close(sync[1]);
  sync[1] = -1;
  /* A child that could not exec is a zombie by now. */
  int early;
  if (waitpid(pid, &early, __WALL | WNOHANG) == pid) {
    pid = -1;
    *stub_status = WIFEXITED(early) ? WEXITSTATUS(early) : -1;
    fail(why, why_size, "%s",
         *stub_status > 0 ? stub_failure(*stub_status) : "the loader died");
    goto out;
  }
  /* The stub waits for `go`: traced, with its limits, before it runs. */
  if (set_limits(pid, lc) != 0) {
    fail(why, why_size, "cannot set the program's limits: %s",
         strerror(errno));
    goto out;
  }
  /* The guest dies with us: PTRACE_O_EXITKILL, on every task we trace.
   * The exec made the stub dumpable, so this needs no CAP_SYS_PTRACE
   * although we are not dumpable (confine.c). */
  if (ptrace(PTRACE_SEIZE, pid, 0, SPAWN_PTRACE_OPTIONS) != 0) {
    fail(why, why_size, "ptrace: %s (is ptrace restricted by Yama?)",
         strerror(errno));
    goto out;
  }
  if (write(go[1], "g", 1) != 1) {
    fail(why, why_size, "starting the loader: %s", strerror(errno));
    goto out;
  }
  int st = await_filter(pid, sync[0], sigfd);
  if (st != 0) {
    *stub_status = st;
    fail(why, why_size, "%s", st > 0 ? stub_failure(st) : "the loader died");
    goto out;
  }
  out->pid = pid;
  out->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
  out->listener =
      out->pidfd < 0
          ? -1
          : (int)syscall(SYS_pidfd_getfd, out->pidfd, LAUNCH_FD_LISTENER, 0);
  /* An id that cannot exist: a listener answers ENOENT, anything else
   * ENOTTY or EINVAL. */
  uint64_t bogus = ~0ull;
  if (out->listener < 0 ||
      ioctl(out->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &bogus) == 0 ||
      errno != ENOENT) {
    fail(why, why_size, "cannot take the seccomp listener: %s",
         strerror(errno));
    if (out->listener >= 0)
      close(out->listener);
    if (out->pidfd >= 0)
      close(out->pidfd);
    goto out;
  }
  out->ioslots = io_map;
  io_map = MAP_FAILED;
  pid = -1; /* handed over */
  result = 0;
out:
  if (pinned)
    sched_setaffinity(0, sizeof(cpus), &cpus);
  if (pid > 0) {
    kill(pid, SIGKILL);
    waitpid(pid, NULL, __WALL);
  }
  if (io_map != MAP_FAILED)
    munmap(io_map, IOSLOT_REGION_SIZE);
  int fds[] = {stub, vdso, block, ioslots, go[0], go[1], sync[0], sync[1]};
  for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
    if (fds[i] >= 0)
      close(fds[i]);
  return result;
}

int spawn_guest(int sigfd, int prog_fd, const struct launch_config *lc,
                const struct filter_prog *filter, struct spawned *out,
                char *why, size_t why_size) {
  /* Killable waits once the supervisor has a call, so that a stop signal
   * cannot make a call that already happened run twice (Linux 5.19). */
  uint64_t flags = SECCOMP_FILTER_FLAG_NEW_LISTENER |
                   SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV;
  int stub_status;
  int r = spawn_once(sigfd, prog_fd, lc, filter, flags, out, &stub_status, why,
                     why_size);
  if (r != 0 && stub_status == STUB_EFILTERFLAGS)
    r = spawn_once(sigfd, prog_fd, lc, filter,
                   SECCOMP_FILTER_FLAG_NEW_LISTENER, out, &stub_status, why,
                   why_size);
  return r;
}
