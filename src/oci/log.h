/*
 * cloudabi-oci's messages: to standard error, and to --log FILE as text or,
 * with --log-format json, as runc's JSON lines ({"level", "msg", "time"}),
 * whose last line podman and containerd show when a verb fails.
 */
#ifndef OCI_LOG_H
#define OCI_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct oci_log {
  FILE *file; /* NULL: standard error only */
  bool json;
};

/* Opens path for appending (NULL: none).  0, or -1 with errno. */
int oci_log_open(struct oci_log *l, const char *path, bool json);
void oci_log_close(struct oci_log *l);

/* The time now as RFC 3339 UTC with nanoseconds, as runc writes it. */
void oci_now(char *buf, size_t size);

void oci_log(const struct oci_log *l, const char *level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
