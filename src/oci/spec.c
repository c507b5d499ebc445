/* A bundle's config.json as an oci_spec; see spec.h. */
#include "spec.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Bigger than any config a runtime is handed (podman's are ~10 KiB). */
#define SPEC_MAX (4u << 20)

static char *read_all(const char *path, size_t *len, char *why,
                      size_t why_size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    snprintf(why, why_size, "%s: %s", path, strerror(errno));
    return NULL;
  }
  char *buf = malloc(SPEC_MAX);
  size_t n = 0;
  ssize_t got = 1;
  while (buf != NULL && n < SPEC_MAX && got > 0) {
    got = read(fd, buf + n, SPEC_MAX - n);
    if (got < 0 && errno == EINTR)
      got = 1;
    else if (got > 0)
      n += (size_t)got;
  }
  int err = errno;
  close(fd);
  if (buf == NULL || got < 0 || n == SPEC_MAX) {
    snprintf(why, why_size, "%s: %s", path,
             buf == NULL ? "out of memory"
             : got < 0   ? strerror(err)
                         : "too big");
    free(buf);
    return NULL;
  }
  *len = n;
  return buf;
}

/* A host path: absolute as it is, else beneath the bundle. */
static char *beneath(const char *bundle, const char *path) {
  size_t n = strlen(bundle) + strlen(path) + 2;
  char *s = malloc(n);
  if (s != NULL)
    snprintf(s, n, "%s%s%s", path[0] == '/' ? "" : bundle,
             path[0] == '/' ? "" : "/", path);
  return s;
}

static bool has_option(const struct json *opts, const char *want) {
  if (opts == NULL || opts->type != JSON_ARRAY)
    return false;
  for (size_t i = 0; i < opts->n; i++)
    if (opts->items[i].type == JSON_STRING &&
        strcmp(opts->items[i].string, want) == 0)
      return true;
  return false;
}

/* Bind mounts become the view's mounts; the rest (proc, sysfs, tmpfs,
 * devpts, mqueue, cgroup) have nothing to give a CloudABI program. */
static int read_mounts(const char *bundle, const struct json *mounts,
                       struct oci_spec *s, char *why, size_t why_size) {
  if (mounts == NULL)
    return 0;
  if (mounts->type != JSON_ARRAY) {
    snprintf(why, why_size, "config.json: mounts is not an array");
    return -1;
  }
  s->mounts = calloc(mounts->n + 1, sizeof(*s->mounts));
  s->mount_sources = calloc(mounts->n + 1, sizeof(*s->mount_sources));
  if (s->mounts == NULL || s->mount_sources == NULL) {
    snprintf(why, why_size, "out of memory");
    return -1;
  }
  for (size_t i = 0; i < mounts->n; i++) {
    const struct json *m = &mounts->items[i];
    const char *dest = json_get_str(m, "destination");
    const char *src = json_get_str(m, "source");
    const char *type = json_get_str(m, "type");
    const struct json *opts = json_get(m, "options");
    bool bind = (type != NULL && strcmp(type, "bind") == 0) ||
                has_option(opts, "bind") || has_option(opts, "rbind");
    if (!bind) {
      s->nignored++;
      continue;
    }
    if (dest == NULL || dest[0] != '/' || src == NULL) {
      snprintf(why, why_size,
               "config.json: mounts[%zu]: a bind mount needs an absolute "
               "destination and a source",
               i);
      return -1;
    }
    char *abs = beneath(bundle, src);
    if (abs == NULL) {
      snprintf(why, why_size, "out of memory");
      return -1;
    }
    s->mount_sources[s->nmounts] = abs;
    s->mounts[s->nmounts++] =
        (struct oci_mount){dest, abs, has_option(opts, "ro")};
  }
  return 0;
}

/* The soft value of rlimit type, or 0. */
static uint64_t rlimit(const struct json *process, const char *type) {
  const struct json *list = json_get(process, "rlimits");
  if (list == NULL || list->type != JSON_ARRAY)
    return 0;
  uint64_t v = 0;
  for (size_t i = 0; i < list->n; i++) {
    const char *t = json_get_str(&list->items[i], "type");
    const struct json *soft = json_get(&list->items[i], "soft");
    if (t != NULL && strcmp(t, type) == 0 && soft != NULL &&
        soft->type == JSON_NUMBER && soft->number >= 1 &&
        soft->number < 1.8e19)
      v = (uint64_t)soft->number;
  }
  return v;
}

static uint64_t smaller(uint64_t a, uint64_t b) {
  return a == 0 ? b : b == 0 ? a : a < b ? a : b;
}

static uint64_t number_at(const struct json *j, const char *a, const char *b) {
  const struct json *v = json_get(json_get(j, a), b);
  /* A negative or zero limit is "none" in the spec's runc reading. */
  return v != NULL && v->type == JSON_NUMBER && v->number >= 1 &&
                 v->number < 1.8e19
             ? (uint64_t)v->number
             : 0;
}

static int read_process(const struct json *process, struct oci_spec *s,
                        char *why, size_t why_size) {
  const struct json *terminal = json_get(process, "terminal");
  if (terminal != NULL && terminal->type == JSON_BOOL && terminal->boolean) {
    snprintf(why, why_size,
             "process.terminal is true: cloudabi-oci gives a CloudABI "
             "program no terminal (run without -t / --tty)");
    return -1;
  }
  const struct json *args = json_get(process, "args");
  if (args == NULL || args->type != JSON_ARRAY || args->n == 0 ||
      args->items[0].type != JSON_STRING) {
    snprintf(why, why_size,
             "config.json: process.args must name the program (args[0])");
    return -1;
  }
  s->program = args->items[0].string;
  if (args->n > 1 && args->items[1].type == JSON_STRING)
    s->config = args->items[1].string;
  else
    s->config = json_get_str(s->annotations, OCI_CONFIG_ANNOTATION);
  if (s->config == NULL) {
    snprintf(why, why_size,
             "no YAML config: give its path inside the rootfs as "
             "process.args[1] or the annotation " OCI_CONFIG_ANNOTATION);
    return -1;
  }
  if (args->n > 2) {
    snprintf(why, why_size,
             "process.args has %zu elements: a CloudABI program takes its "
             "program and config only (its arguments come from the config)",
             args->n);
    return -1;
  }
  s->cwd = json_get_str(process, "cwd");
  if (s->cwd == NULL || s->cwd[0] != '/')
    s->cwd = "/";
  s->memory = rlimit(process, "RLIMIT_AS");
  s->cpu_seconds = rlimit(process, "RLIMIT_CPU");
  s->fds = rlimit(process, "RLIMIT_NOFILE");
  s->procs = rlimit(process, "RLIMIT_NPROC");
  return 0;
}

int oci_spec_read(const char *bundle, struct oci_spec *s, char *why,
                  size_t why_size) {
  memset(s, 0, sizeof(*s));
  char path[PATH_MAX];
  snprintf(path, sizeof(path), "%s/config.json", bundle);
  size_t len;
  char *text = read_all(path, &len, why, why_size);
  if (text == NULL)
    return -1;
  char jwhy[128];
  s->doc = json_parse(text, len, jwhy, sizeof(jwhy));
  free(text);
  if (s->doc == NULL || s->doc->type != JSON_OBJECT) {
    snprintf(why, why_size, "%s: %s", path,
             s->doc == NULL ? jwhy : "not a JSON object");
    return -1;
  }
  const struct json *d = s->doc;
  s->annotations = json_get(d, "annotations");
  const struct json *process = json_get(d, "process");
  if (process == NULL) {
    snprintf(why, why_size, "config.json: no process");
    return -1;
  }
  if (read_process(process, s, why, why_size) != 0)
    return -1;
  const char *root = json_get_str(json_get(d, "root"), "path");
  if (root == NULL) {
    snprintf(why, why_size, "config.json: no root.path");
    return -1;
  }
  const struct json *ro = json_get(json_get(d, "root"), "readonly");
  s->root_ro = ro != NULL && ro->type == JSON_BOOL && ro->boolean;
  s->rootfs = beneath(bundle, root);
  if (s->rootfs == NULL) {
    snprintf(why, why_size, "out of memory");
    return -1;
  }
  const struct json *ns = json_get(json_get(d, "linux"), "namespaces");
  for (size_t i = 0; ns != NULL && ns->type == JSON_ARRAY && i < ns->n; i++) {
    const char *type = json_get_str(&ns->items[i], "type");
    if (type != NULL && strcmp(type, "network") == 0)
      s->netns = json_get_str(&ns->items[i], "path");
  }
  const struct json *res = json_get(json_get(d, "linux"), "resources");
  s->memory = smaller(s->memory, number_at(res, "memory", "limit"));
  s->procs = smaller(s->procs, number_at(res, "pids", "limit"));
  return read_mounts(bundle, json_get(d, "mounts"), s, why, why_size);
}

void oci_spec_free(struct oci_spec *s) {
  for (size_t i = 0; i < s->nmounts; i++)
    free(s->mount_sources[i]);
  free(s->mount_sources);
  free(s->mounts);
  free(s->rootfs);
  json_free(s->doc);
  memset(s, 0, sizeof(*s));
}
