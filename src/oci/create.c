/*
 * create: check the bundle, record the container, and leave one process
 * (its pid in --pid-file) blocked on ROOT/ID/exec.fifo until start; then
 * it execs cloudabi-run on the program, inside the rootfs and mounts.
 * Our standard input, output and error are the container's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config/fsview.h"
#include "loader/elf_check.h"
#include "oci.h"
#include "spec.h"
#include "state.h"

/* cloudabi-run's own caps (limit_options.c), which bundles often exceed
 * (podman's RLIMIT_NOFILE is 1048576): a bigger limit is no limit. */
#define RUN_MAX_FDS 65536
#define RUN_MAX_PROCS 128

/* Up to this many arguments for cloudabi-run besides the mounts. */
#define FIXED_ARGS 16

/* Logs an error and is create's failure status. */
#define FAIL(c, ...) (oci_log(&(c)->log, "error", __VA_ARGS__), 1)

/* The program inside the view must be a CloudABI executable: say so at
 * create, where podman shows it, not in the container's output. */
static int check_program(const struct oci_ctx *c, const struct oci_spec *s) {
  struct fsview v;
  fsview_init(&v);
  char why[4200];
  int e = fsview_add(&v, "/", s->rootfs, s->root_ro, why, sizeof(why));
  for (size_t i = 0; e == 0 && i < s->nmounts; i++)
    e = fsview_add(&v, s->mounts[i].dest, s->mounts[i].source,
                   s->mounts[i].ro, why, sizeof(why));
  if (e != 0) {
    fsview_free(&v);
    return FAIL(c, "cannot open the bundle's file system: %s", why);
  }
  e = fsview_set_cwd(&v, s->cwd);
  bool ro;
  int fd = e == 0 ? fsview_open(&v, s->program, O_RDONLY, true, &ro) : -1;
  fsview_free(&v);
  if (fd < 0)
    return FAIL(c, "%s: %s (process.args[0], inside the rootfs)", s->program,
                strerror(errno));
  struct elf_info info;
  e = elf_check(fd, &info, why, sizeof(why));
  close(fd);
  if (e != 0)
    return FAIL(c, "%s: not a CloudABI executable: %s", s->program, why);
  return 0;
}

/* cloudabi-run beside this binary. */
static int runner_path(char *buf, size_t size) {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0)
    return -1;
  self[n] = '\0';
  char *slash = strrchr(self, '/');
  if (slash == NULL)
    return -1;
  *slash = '\0';
  int k = snprintf(buf, size, "%s/cloudabi-run", self);
  return k > 0 && (size_t)k < size ? 0 : -1;
}

/* cloudabi-run's argument vector; every string in store (freed by the
 * caller, one a slot, NULL-terminated). */
static char **run_argv(const char *runner, const struct oci_spec *s,
                       char **store) {
  size_t n = 0, k = 0;
  char **argv = calloc(FIXED_ARGS + 2 * s->nmounts + 1, sizeof(*argv));
  if (argv == NULL)
    return NULL;
#define ARG(...)                                                              \
  do {                                                                        \
    if (asprintf(&store[k], __VA_ARGS__) < 0) {                               \
      free(argv);                                                             \
      return NULL;                                                            \
    }                                                                         \
    argv[n++] = store[k++];                                                   \
  } while (0)
  ARG("%s", runner);
  ARG("-q");
  ARG("--root=%s%s", s->rootfs, s->root_ro ? ":ro" : "");
  ARG("--cwd=%s", s->cwd);
  for (size_t i = 0; i < s->nmounts; i++)
    ARG("--mount=%s=%s%s", s->mounts[i].dest, s->mounts[i].source,
        s->mounts[i].ro ? ":ro" : "");
  if (s->memory != 0)
    ARG("--memory-limit=%llu", (unsigned long long)s->memory);
  if (s->cpu_seconds != 0)
    ARG("--cpu-limit=%llu", (unsigned long long)s->cpu_seconds);
  if (s->fds != 0 && s->fds < RUN_MAX_FDS)
    ARG("--fd-limit=%llu", (unsigned long long)s->fds);
  if (s->procs != 0 && s->procs < RUN_MAX_PROCS)
    ARG("--process-limit=%llu", (unsigned long long)s->procs);
  ARG("%s", s->program);
  ARG("%s", s->config);
#undef ARG
  argv[n] = NULL;
  return argv;
}

/*
 * The config must open as the run will: cloudabi-run --plan on the same
 * arguments (nothing is created, no socket made), so that a config that
 * names what is not there fails create, with its own line in the log,
 * rather than the container.  Returns 0, or 1 after logging.
 */
static int check_config(const struct oci_ctx *c, char **argv) {
  size_t n = 0;
  while (argv[n] != NULL)
    n++;
  char **plan = calloc(n + 2, sizeof(*plan));
  int p[2] = {-1, -1};
  if (plan == NULL || pipe2(p, O_CLOEXEC) != 0) {
    free(plan);
    return FAIL(c, "cannot check the config: %s", strerror(errno));
  }
  plan[0] = argv[0];
  plan[1] = "--plan";
  memcpy(plan + 2, argv + 1, n * sizeof(*plan)); /* with the NULL */
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    /* The plan itself is not wanted; what is wrong with it is. */
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null < 0 || dup2(null, STDOUT_FILENO) < 0 ||
        dup2(p[1], STDERR_FILENO) < 0)
      _exit(127);
    execv(plan[0], plan);
    _exit(127);
  }
  free(plan);
  close(p[1]);
  char why[2048];
  size_t len = 0;
  for (;;) {
    char chunk[512];
    ssize_t got = read(p[0], chunk, sizeof(chunk));
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      break;
    /* Keep the first lines; drain the rest so that it never blocks. */
    size_t take = (size_t)got < sizeof(why) - 1 - len ? (size_t)got
                                                       : sizeof(why) - 1 - len;
    memcpy(why + len, chunk, take);
    len += take;
  }
  close(p[0]);
  int st = 0;
  if (pid < 0)
    return FAIL(c, "cannot check the config: fork: %s", strerror(errno));
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
    ;
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
    return 0;
  /* One log line: the lines of the message joined. */
  while (len > 0 && why[len - 1] == '\n')
    len--;
  why[len] = '\0';
  for (char *q = why; (q = strchr(q, '\n')) != NULL;)
    *q = ' ';
  return FAIL(c, "%s", len > 0 ? why : "the config cannot be opened");
}

/* The container process: waits for start, then becomes cloudabi-run. */
static _Noreturn void container(const char *fifo, const char *netns,
                                char **argv) {
  /* Its own session, as runc's: not in the caller's process group. */
  setsid();
  if (netns != NULL) {
    int ns = open(netns, O_RDONLY | O_CLOEXEC);
    if (ns < 0 || setns(ns, CLONE_NEWNET) != 0) {
      fprintf(stderr, "cloudabi-oci: cannot join network namespace %s: %s\n",
              netns, strerror(errno));
      _exit(127);
    }
    close(ns);
  }
  /* Blocks until start opens the other end. */
  int fd = open(fifo, O_WRONLY | O_CLOEXEC);
  if (fd < 0 || write(fd, "0", 1) != 1)
    _exit(127);
  close(fd);
  execv(argv[0], argv);
  fprintf(stderr, "cloudabi-oci: cannot run %s: %s\n", argv[0],
          strerror(errno));
  _exit(127);
}

static int write_pid_file(const char *path, pid_t pid) {
  char tmp[PATH_MAX];
  if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
    errno = ENAMETOOLONG;
    return -1;
  }
  FILE *f = fopen(tmp, "we");
  if (f == NULL)
    return -1;
  fprintf(f, "%d", (int)pid);
  if (fclose(f) != 0 || rename(tmp, path) != 0) {
    int err = errno;
    unlink(tmp);
    errno = err;
    return -1;
  }
  return 0;
}

/* mkdir -p, private: callers name roots like /run/containerd/runc/NS. */
static int make_root(const char *root) {
  char path[4096];
  if (snprintf(path, sizeof(path), "%s", root) >= (int)sizeof(path)) {
    errno = ENAMETOOLONG;
    return -1;
  }
  for (char *p = path + 1;; p++) {
    if (*p != '/' && *p != '\0')
      continue;
    char c = *p;
    *p = '\0';
    if (mkdir(path, 0700) != 0 && errno != EEXIST)
      return -1;
    *p = c;
    if (c == '\0')
      return 0;
  }
}

/* After the checks: the state folder, the process, the files. */
static int launch(const struct oci_ctx *c, const struct oci_create_args *a,
                  const char *bundle, const struct oci_spec *s) {
  char runner[PATH_MAX], dir[4096], fifo[4096];
  if (runner_path(runner, sizeof(runner)) != 0 || access(runner, X_OK) != 0)
    return FAIL(c, "cannot find cloudabi-run beside cloudabi-oci");
  if (!oci_state_path(c->root, a->id, NULL, dir, sizeof(dir)) ||
      !oci_state_path(c->root, a->id, "exec.fifo", fifo, sizeof(fifo)))
    return FAIL(c, "%s: state path too long", c->root);
  if (make_root(c->root) != 0)
    return FAIL(c, "%s: %s", c->root, strerror(errno));
  if (mkdir(dir, 0700) != 0)
    return errno == EEXIST
               ? FAIL(c, "container with id %s already exists", a->id)
               : FAIL(c, "%s: %s", dir, strerror(errno));
  char **store = calloc(FIXED_ARGS + 2 * s->nmounts + 1, sizeof(*store));
  char **argv = store != NULL ? run_argv(runner, s, store) : NULL;
  int status = 1;
  pid_t pid = -1;
  if (argv == NULL) {
    oci_log(&c->log, "error", "out of memory");
  } else if (check_config(c, argv) != 0) {
    /* logged */
  } else if (mkfifo(fifo, 0600) != 0) {
    oci_log(&c->log, "error", "%s: %s", fifo, strerror(errno));
  } else {
    fflush(NULL);
    pid = fork();
    if (pid == 0)
      container(fifo, s->netns, argv);
    unsigned long long st = 0;
    if (pid < 0)
      oci_log(&c->log, "error", "fork: %s", strerror(errno));
    else if (!oci_proc_alive(pid, &st) ||
             oci_state_write(c->root, a->id, pid, st, bundle,
                             s->annotations) != 0)
      oci_log(&c->log, "error", "cannot record container %s: %s", a->id,
              strerror(errno));
    else if (a->pid_file != NULL && write_pid_file(a->pid_file, pid) != 0)
      oci_log(&c->log, "error", "--pid-file %s: %s", a->pid_file,
              strerror(errno));
    else
      status = 0;
  }
  if (status != 0) {
    /* Nothing half-made stays: no process, no state folder. */
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, NULL, 0);
    }
    oci_state_remove(c->root, a->id);
  }
  for (size_t i = 0; store != NULL && store[i] != NULL; i++)
    free(store[i]);
  free(store);
  free(argv);
  return status;
}

int oci_create(const struct oci_ctx *c, const struct oci_create_args *a) {
  if (!oci_id_valid(a->id))
    return FAIL(c, "invalid container id \"%s\"", a->id);
  if (a->console_socket != NULL)
    return FAIL(c, "--console-socket: cloudabi-oci gives a CloudABI program "
                   "no terminal (run without -t / --tty)");
  char bundle[PATH_MAX];
  if (realpath(a->bundle, bundle) == NULL)
    return FAIL(c, "--bundle %s: %s", a->bundle, strerror(errno));
  struct oci_spec s;
  char why[4200];
  if (oci_spec_read(bundle, &s, why, sizeof(why)) != 0) {
    oci_spec_free(&s);
    return FAIL(c, "%s", why);
  }
  int status = check_program(c, &s);
  if (status == 0)
    status = launch(c, a, bundle, &s);
  oci_spec_free(&s);
  return status;
}
