/* start, state, kill, delete, ps: the verbs after create; see oci.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config/config.h"
#include "oci.h"
#include "state.h"

/* How long start waits for the container process to take the fifo, and
 * delete for a killed one to go: both are immediate unless the machine
 * is stalled. */
#define START_WAIT_MS 10000
#define DELETE_WAIT_MS 10000

/* Reads the container's state; logs runc's message when there is none. */
static int load(const struct oci_ctx *c, const char *id, struct oci_state *s) {
  if (!oci_id_valid(id)) {
    oci_log(&c->log, "error", "invalid container id \"%s\"", id);
    return -1;
  }
  if (oci_state_read(c->root, id, s) == 0)
    return 0;
  if (errno == ENOENT)
    oci_log(&c->log, "error", "container \"%s\" does not exist", id);
  else
    oci_log(&c->log, "error", "container \"%s\": cannot read its state: %s",
            id, strerror(errno));
  return -1;
}

int oci_start(const struct oci_ctx *c, const char *id) {
  struct oci_state s;
  if (load(c, id, &s) != 0)
    return 1;
  const char *status = oci_status(c->root, &s);
  char fifo[4096];
  int fd = -1, rc = 1;
  if (strcmp(status, "created") != 0) {
    oci_log(&c->log, "error", "cannot start a container that is %s", status);
  } else if (!oci_state_path(c->root, id, "exec.fifo", fifo, sizeof(fifo)) ||
             (fd = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
    oci_log(&c->log, "error", "cannot start container %s: %s", id,
            strerror(errno));
  } else {
    /* Non-blocking, so that a process killed before it opened its end
     * cannot hang us: poll, and look whether it still lives. */
    unsigned long long st;
    for (int waited = 0; waited < START_WAIT_MS; waited += 50) {
      struct pollfd p = {fd, POLLIN, 0};
      char byte;
      if (poll(&p, 1, 50) > 0 && read(fd, &byte, 1) == 1) {
        unlink(fifo);
        rc = 0;
        break;
      }
      if (!oci_proc_alive(s.pid, &st) || st != s.starttime)
        break;
    }
    if (rc != 0)
      oci_log(&c->log, "error", "container %s did not start: its process %s",
              id, oci_proc_alive(s.pid, &st) ? "did not answer" : "is gone");
  }
  if (fd >= 0)
    close(fd);
  oci_state_free(&s);
  return rc;
}

int oci_state(const struct oci_ctx *c, const char *id) {
  struct oci_state s;
  bool recorded = oci_id_valid(id) && oci_state_read(c->root, id, &s) == 0;
  if (!recorded && oci_id_valid(id) && errno == ENOENT &&
      oci_state_exists(c->root, id)) {
    /* create has made the folder and not yet recorded the process. */
    printf("{\n  \"ociVersion\": \"%s\",\n  \"id\": ", OCI_VERSION);
    json_string(stdout, id);
    printf(",\n  \"pid\": 0,\n  \"status\": \"creating\",\n"
           "  \"bundle\": \"\"\n}\n");
    return fflush(stdout) == 0 ? 0 : 1;
  }
  /* load says why there is none. */
  if (!recorded && load(c, id, &s) != 0)
    return 1;
  const char *status = oci_status(c->root, &s);
  printf("{\n  \"ociVersion\": \"%s\",\n  \"id\": ", OCI_VERSION);
  json_string(stdout, s.id);
  /* A stopped container's pid is 0, as runc says. */
  printf(",\n  \"pid\": %d,\n  \"status\": \"%s\",\n  \"bundle\": ",
         strcmp(status, "stopped") == 0 ? 0 : (int)s.pid, status);
  json_string(stdout, s.bundle);
  if (s.created != NULL) {
    printf(",\n  \"created\": ");
    json_string(stdout, s.created);
  }
  printf(",\n  \"annotations\": {");
  size_t k = 0;
  for (size_t i = 0; s.annotations != NULL && i < s.annotations->n; i++) {
    if (s.annotations->items[i].type != JSON_STRING)
      continue;
    printf("%s\n    ", k++ > 0 ? "," : "");
    json_string(stdout, s.annotations->keys[i]);
    printf(": ");
    json_string(stdout, s.annotations->items[i].string);
  }
  printf("%s}\n}\n", k > 0 ? "\n  " : "");
  oci_state_free(&s);
  return fflush(stdout) == 0 ? 0 : 1;
}

static const struct {
  const char *name;
  int number;
} signals[] = {
    {"HUP", SIGHUP},     {"INT", SIGINT},       {"QUIT", SIGQUIT},
    {"ILL", SIGILL},     {"TRAP", SIGTRAP},     {"ABRT", SIGABRT},
    {"BUS", SIGBUS},     {"FPE", SIGFPE},       {"KILL", SIGKILL},
    {"USR1", SIGUSR1},   {"SEGV", SIGSEGV},     {"USR2", SIGUSR2},
    {"PIPE", SIGPIPE},   {"ALRM", SIGALRM},     {"TERM", SIGTERM},
    {"CHLD", SIGCHLD},   {"CONT", SIGCONT},     {"STOP", SIGSTOP},
    {"TSTP", SIGTSTP},   {"TTIN", SIGTTIN},     {"TTOU", SIGTTOU},
    {"URG", SIGURG},     {"XCPU", SIGXCPU},     {"XFSZ", SIGXFSZ},
    {"VTALRM", SIGVTALRM}, {"PROF", SIGPROF},   {"WINCH", SIGWINCH},
    {"IO", SIGIO},       {"PWR", SIGPWR},       {"SYS", SIGSYS},
};

int oci_signal_number(const char *s) {
  if (s[0] >= '0' && s[0] <= '9') {
    char *end;
    long n = strtol(s, &end, 10);
    return *end == '\0' && n > 0 && n < 65 ? (int)n : -1;
  }
  const char *name = strncmp(s, "SIG", 3) == 0 ? s + 3 : s;
  for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
    if (strcmp(name, signals[i].name) == 0)
      return signals[i].number;
  return -1;
}

/* Signals the container's process (its pid checked against reuse).  The
 * guests follow: cloudabi-run forwards SIGINT, SIGTERM and SIGHUP to them,
 * and any death of cloudabi-run kills them (PTRACE_O_EXITKILL). */
static int signal_container(const struct oci_state *s, int sig) {
  unsigned long long st;
  if (!oci_proc_alive(s->pid, &st) || st != s->starttime) {
    errno = ESRCH;
    return -1;
  }
  return kill(s->pid, sig);
}

int oci_kill(const struct oci_ctx *c, const char *id, const char *sig,
             bool all) {
  (void)all; /* the container is one process tree that dies as one */
  int n = oci_signal_number(sig);
  if (n < 0) {
    oci_log(&c->log, "error", "invalid signal \"%s\"", sig);
    return 1;
  }
  struct oci_state s;
  if (load(c, id, &s) != 0)
    return 1;
  int rc = 0;
  if (strcmp(oci_status(c->root, &s), "stopped") == 0 ||
      signal_container(&s, n) != 0) {
    /* containerd's shim and podman look for these words. */
    oci_log(&c->log, "error", "container not running");
    rc = 1;
  }
  oci_state_free(&s);
  return rc;
}

static void sleep_ms(int ms) {
  struct timespec ts = {0, ms * 1000000L};
  nanosleep(&ts, NULL);
}

int oci_delete(const struct oci_ctx *c, const char *id, bool force) {
  struct oci_state s;
  if (!oci_id_valid(id)) {
    oci_log(&c->log, "error", "invalid container id \"%s\"", id);
    return 1;
  }
  if (oci_state_read(c->root, id, &s) != 0) {
    /* A create that died before writing its state leaves a folder. */
    bool exists = oci_state_exists(c->root, id);
    if (exists && oci_state_remove(c->root, id) != 0) {
      oci_log(&c->log, "error", "cannot remove container %s: %s", id,
              strerror(errno));
      return 1;
    }
    if (exists || force)
      return 0;
    oci_log(&c->log, "error", "container \"%s\" does not exist", id);
    return 1;
  }
  const char *status = oci_status(c->root, &s);
  if (strcmp(status, "running") == 0 && !force) {
    oci_log(&c->log, "error",
            "cannot delete container %s that is not stopped: %s", id, status);
    oci_state_free(&s);
    return 1;
  }
  /* A created container is ended as runc ends one; a running one only
   * with --force. */
  if (strcmp(status, "stopped") != 0) {
    signal_container(&s, SIGKILL);
    for (int waited = 0; waited < DELETE_WAIT_MS; waited += 10) {
      if (strcmp(oci_status(c->root, &s), "stopped") == 0)
        break;
      sleep_ms(10);
    }
  }
  int rc = 0;
  if (oci_state_remove(c->root, id) != 0) {
    oci_log(&c->log, "error", "cannot remove container %s: %s", id,
            strerror(errno));
    rc = 1;
  }
  oci_state_free(&s);
  return rc;
}

/* Appends pid's children, and theirs, to pids (at most max). */
static size_t descendants(pid_t pid, pid_t *pids, size_t n, size_t max) {
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
  DIR *d = opendir(path);
  if (d == NULL)
    return n;
  struct dirent *e;
  while ((e = readdir(d)) != NULL && n < max) {
    if (e->d_name[0] == '.')
      continue;
    char cpath[320];
    snprintf(cpath, sizeof(cpath), "/proc/%d/task/%s/children", (int)pid,
             e->d_name);
    FILE *f = fopen(cpath, "re");
    int child;
    while (f != NULL && n < max && fscanf(f, "%d", &child) == 1) {
      pids[n++] = child;
      n = descendants(child, pids, n, max);
    }
    if (f != NULL)
      fclose(f);
  }
  closedir(d);
  return n;
}

int oci_ps(const struct oci_ctx *c, const char *id, bool json) {
  struct oci_state s;
  if (load(c, id, &s) != 0)
    return 1;
  /* cloudabi-run and its guests: at most 128 of them (limits.h). */
  pid_t pids[256];
  size_t n = 0;
  if (strcmp(oci_status(c->root, &s), "stopped") != 0) {
    pids[n++] = s.pid;
    n = descendants(s.pid, pids, n, sizeof(pids) / sizeof(pids[0]));
  }
  if (json) {
    printf("[");
    for (size_t i = 0; i < n; i++)
      printf("%s%d", i > 0 ? "," : "", (int)pids[i]);
    printf("]\n");
  } else {
    printf("PID\n");
    for (size_t i = 0; i < n; i++)
      printf("%d\n", (int)pids[i]);
  }
  oci_state_free(&s);
  return fflush(stdout) == 0 ? 0 : 1;
}

int oci_features(void) {
  /* runtime-spec features.md: what a caller may ask for.  No hooks, no
   * namespaces made, no cgroups: the supervisor's limits stand in. */
  printf("{\n"
         "  \"ociVersionMin\": \"1.0.0\",\n"
         "  \"ociVersionMax\": \"%s\",\n"
         "  \"hooks\": [],\n"
         "  \"mountOptions\": [\"bind\", \"rbind\", \"ro\", \"rw\"],\n"
         "  \"linux\": {\n"
         "    \"namespaces\": [\"network\"],\n"
         "    \"capabilities\": [],\n"
         "    \"cgroup\": {\"v1\": false, \"v2\": false, \"systemd\": false, "
         "\"systemdUser\": false},\n"
         "    \"seccomp\": {\"enabled\": false},\n"
         "    \"apparmor\": {\"enabled\": false},\n"
         "    \"selinux\": {\"enabled\": false}\n"
         "  },\n"
         "  \"annotations\": {\"org.cloudabi.config\": \"the YAML config's "
         "path inside the rootfs, when process.args has one element\"}\n"
         "}\n",
         OCI_VERSION);
  return fflush(stdout) == 0 ? 0 : 1;
}
