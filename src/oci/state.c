/* Container state files; see state.h. */
#include "state.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config.h"
#include "host/procstat.h"
#include "log.h"

bool oci_id_valid(const char *id) {
  size_t n = strlen(id);
  if (n == 0 || n >= 1024 || strcmp(id, ".") == 0 || strcmp(id, "..") == 0)
    return false;
  return strspn(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                    "0123456789_+.-") == n;
}

bool oci_state_path(const char *root, const char *id, const char *name,
                    char *buf, size_t size) {
  int n = name != NULL ? snprintf(buf, size, "%s/%s/%s", root, id, name)
                       : snprintf(buf, size, "%s/%s", root, id);
  return n > 0 && (size_t)n < size;
}

bool oci_state_exists(const char *root, const char *id) {
  char path[4096];
  struct stat st;
  return oci_state_path(root, id, NULL, path, sizeof(path)) &&
         stat(path, &st) == 0;
}

int oci_state_read(const char *root, const char *id, struct oci_state *s) {
  memset(s, 0, sizeof(*s));
  char path[4096], text[65536];
  if (!oci_state_path(root, id, "state.json", path, sizeof(path))) {
    errno = ENAMETOOLONG;
    return -1;
  }
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  ssize_t n = read(fd, text, sizeof(text));
  close(fd);
  char why[128];
  if (n <= 0 || (size_t)n == sizeof(text) ||
      (s->doc = json_parse(text, (size_t)n, why, sizeof(why))) == NULL) {
    errno = EINVAL;
    return -1;
  }
  const struct json *pid = json_get(s->doc, "pid");
  const struct json *st = json_get(s->doc, "starttime");
  s->id = json_get_str(s->doc, "id");
  s->bundle = json_get_str(s->doc, "bundle");
  s->created = json_get_str(s->doc, "created");
  s->annotations = json_get(s->doc, "annotations");
  if (s->id == NULL || s->bundle == NULL || pid == NULL ||
      pid->type != JSON_NUMBER || st == NULL || st->type != JSON_STRING) {
    oci_state_free(s);
    errno = EINVAL;
    return -1;
  }
  s->pid = (pid_t)pid->number;
  s->starttime = strtoull(st->string, NULL, 10);
  return 0;
}

void oci_state_free(struct oci_state *s) {
  json_free(s->doc);
  memset(s, 0, sizeof(*s));
}

/* Writes a JSON object's members back (annotations: strings only). */
static void write_object(FILE *f, const struct json *obj) {
  fputc('{', f);
  size_t k = 0;
  for (size_t i = 0; obj != NULL && i < obj->n; i++) {
    if (obj->items[i].type != JSON_STRING)
      continue;
    fputs(k++ > 0 ? "," : "", f);
    json_string(f, obj->keys[i]);
    fputc(':', f);
    json_string(f, obj->items[i].string);
  }
  fputc('}', f);
}

int oci_state_write(const char *root, const char *id, pid_t pid,
                    unsigned long long starttime, const char *bundle,
                    const struct json *annotations) {
  char path[4096], tmp[4096];
  if (!oci_state_path(root, id, "state.json", path, sizeof(path)) ||
      !oci_state_path(root, id, "state.json.tmp", tmp, sizeof(tmp))) {
    errno = ENAMETOOLONG;
    return -1;
  }
  FILE *f = fopen(tmp, "we");
  if (f == NULL)
    return -1;
  char when[64];
  oci_now(when, sizeof(when));
  fputs("{\"id\":", f);
  json_string(f, id);
  fprintf(f, ",\"pid\":%d,\"starttime\":\"%llu\",\"bundle\":", (int)pid,
          starttime);
  json_string(f, bundle);
  fprintf(f, ",\"created\":\"%s\",\"annotations\":", when);
  write_object(f, annotations);
  fputs("}\n", f);
  bool ok = ferror(f) == 0;
  if (fclose(f) != 0 || !ok || rename(tmp, path) != 0) {
    int err = errno;
    unlink(tmp);
    errno = err;
    return -1;
  }
  return 0;
}

bool oci_proc_alive(pid_t pid, unsigned long long *starttime) {
  char buf[1024];
  char *p = procstat_fields(pid, buf, sizeof(buf));
  if (p == NULL)
    return false;
  char state = p[1];
  /* After the state: fields 4 to 21, then starttime (22). */
  p += 2;
  for (int field = 4; field < 22 && p != NULL; field++)
    p = strchr(p + 1, ' ');
  if (p == NULL)
    return false;
  *starttime = strtoull(p + 1, NULL, 10);
  return state != 'Z' && state != 'X' && state != 'x';
}

const char *oci_status(const char *root, const struct oci_state *s) {
  unsigned long long st = 0;
  if (s->pid <= 0 || !oci_proc_alive(s->pid, &st) || st != s->starttime)
    return "stopped";
  char fifo[4096];
  struct stat sb;
  if (oci_state_path(root, s->id, "exec.fifo", fifo, sizeof(fifo)) &&
      stat(fifo, &sb) == 0)
    return "created";
  return "running";
}

int oci_state_remove(const char *root, const char *id) {
  char dir[4096], path[4096];
  if (!oci_state_path(root, id, NULL, dir, sizeof(dir))) {
    errno = ENAMETOOLONG;
    return -1;
  }
  /* Only our own files are there; remove whatever is, then the folder. */
  DIR *d = opendir(dir);
  if (d == NULL)
    return errno == ENOENT ? 0 : -1;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) <
        (int)sizeof(path))
      unlink(path);
  }
  closedir(d);
  return rmdir(dir) == 0 || errno == ENOENT ? 0 : -1;
}
