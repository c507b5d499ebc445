/* --report; see report.h.  The keys are documented in the README
 * ("Limits, determinism and the report") and the manual page. */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include "calls/syscall_table.h"
#include "config/config.h"
#include "host/signals.h"

static const char *const limit_names[LIMIT_HIT_COUNT] = {
    "memory", "cpu", "time", "processes",
    "threads", "fds", "file-size", "disk",
};

/* A call's family: its name up to the first '_' (fd, file, proc, ...). */
static size_t family_len(const char *name) {
  const char *u = strchr(name, '_');
  return u != NULL ? (size_t)(u - name) : strlen(name);
}

static void write_calls(FILE *out, const struct run_stats *st) {
  uint64_t total = 0;
  fputs("\"calls\":{", out);
  bool first = true;
  for (size_t i = 0; i < CLOUDABI_SYSCALL_COUNT; i++) {
    const char *name = syscall_table[i].name;
    size_t len = family_len(name);
    /* Each family once, where its first member comes. */
    bool seen = false;
    for (size_t j = 0; j < i && !seen; j++)
      seen = family_len(syscall_table[j].name) == len &&
             strncmp(syscall_table[j].name, name, len) == 0;
    if (seen)
      continue;
    uint64_t n = 0;
    for (size_t j = i; j < CLOUDABI_SYSCALL_COUNT; j++)
      if (family_len(syscall_table[j].name) == len &&
          strncmp(syscall_table[j].name, name, len) == 0)
        n += st->calls[j];
    total += n;
    if (n == 0)
      continue;
    fprintf(out, "%s\"%.*s\":%" PRIu64, first ? "" : ",", (int)len, name, n);
    first = false;
  }
  fprintf(out, "},\"calls_total\":%" PRIu64, total);
}

static void write_end(FILE *out, const struct run_report *r) {
  const struct run_stats *st = r->stats;
  char name[32];
  if (!st->main_ended) {
    fputs("\"status\":\"not started\",\"exit_code\":null,\"signal\":null",
          out);
  } else if (WIFEXITED(st->main_status)) {
    fprintf(out, "\"status\":\"exited\",\"exit_code\":%d,\"signal\":null",
            WEXITSTATUS(st->main_status));
  } else {
    int sig = WIFSIGNALED(st->main_status) ? WTERMSIG(st->main_status) : 0;
    fputs("\"status\":\"signaled\",\"exit_code\":null,\"signal\":", out);
    json_string(out, signal_name_linux(sig, name, sizeof(name)));
  }
  fprintf(out, ",\"exit_status\":%d", r->exit_status);
}

int report_write(const struct run_report *r, FILE *out) {
  const struct run_stats *st = r->stats;
  fputs("{\"program\":", out);
  json_string(out, r->program);
  fputc(',', out);
  write_end(out, r);
  fprintf(out,
          ",\"wall_ms\":%" PRIu64 ".%03" PRIu64 ",\"cpu_ms\":%" PRIu64
          ".%03" PRIu64 ",\"peak_memory_kib\":%" PRIu64
          ",\"processes\":%" PRIu64 ",\"threads\":%" PRIu64
          ",\"limits_hit\":[",
          r->wall_us / 1000, r->wall_us % 1000, st->cpu_us / 1000,
          st->cpu_us % 1000, st->peak_rss_kib, st->processes, st->threads);
  bool first = true;
  for (unsigned i = 0; i < LIMIT_HIT_COUNT; i++) {
    if ((st->limits_hit & (1u << i)) == 0)
      continue;
    fprintf(out, "%s\"%s\"", first ? "" : ",", limit_names[i]);
    first = false;
  }
  const struct run_limits *l = r->limits;
  fprintf(out,
          "],\"limits\":{\"memory\":%" PRIu64 ",\"cpu_s\":%" PRIu64
          ",\"time_ms\":%" PRIu64 ",\"processes\":%u,\"threads\":%u"
          ",\"fds\":%u,\"file_size\":%" PRIu64 ",\"disk\":%" PRIu64 "},",
          l->memory, l->cpu_seconds, l->time_ms, l->processes, l->threads,
          l->fds, l->file_size, l->disk);
  if (r->deterministic)
    fprintf(out, "\"deterministic\":{\"seed\":%" PRIu64 "},", r->seed);
  else
    fputs("\"deterministic\":null,", out);
  write_calls(out, st);
  fputs("}\n", out);
  int failed = ferror(out);
  if (fclose(out) != 0 || failed) {
    if (errno == 0)
      errno = EIO;
    return -1;
  }
  return 0;
}
