/* cloudabi-oci's messages; see log.h. */
#include "log.h"

#include <stdarg.h>
#include <time.h>

#include "config/config.h"

int oci_log_open(struct oci_log *l, const char *path, bool json) {
  l->json = json;
  l->file = NULL;
  if (path == NULL)
    return 0;
  /* Close-on-exec: the container must not inherit it. */
  l->file = fopen(path, "ae");
  return l->file != NULL ? 0 : -1;
}

void oci_log_close(struct oci_log *l) {
  if (l->file != NULL)
    fclose(l->file);
  l->file = NULL;
}

void oci_now(char *buf, size_t size) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  struct tm tm;
  gmtime_r(&ts.tv_sec, &tm);
  char sec[40];
  strftime(sec, sizeof(sec), "%Y-%m-%dT%H:%M:%S", &tm);
  snprintf(buf, size, "%s.%09ldZ", sec, ts.tv_nsec);
}

void oci_log(const struct oci_log *l, const char *level, const char *fmt,
             ...) {
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  fprintf(stderr, "cloudabi-oci: %s\n", msg);
  if (l->file == NULL)
    return;
  char when[64];
  oci_now(when, sizeof(when));
  if (l->json) {
    fprintf(l->file, "{\"level\":\"%s\",\"msg\":", level);
    json_string(l->file, msg);
    fprintf(l->file, ",\"time\":\"%s\"}\n", when);
  } else {
    fprintf(l->file, "%s %s: %s\n", when, level, msg);
  }
  fflush(l->file);
}
