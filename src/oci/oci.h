/*
 * cloudabi-oci: an OCI runtime (runtime-spec runtime.md) whose containers
 * are CloudABI programs run by cloudabi-run.  One verb a function; each
 * returns the process's exit status (0, or 1 after logging why, as runc).
 */
#ifndef OCI_OCI_H
#define OCI_OCI_H

#include <stdbool.h>

#include "log.h"

/* The runtime-spec version we implement. */
#define OCI_VERSION "1.0.2"

struct oci_ctx {
  const char *root; /* state directory, --root (default /run/cloudabi-oci) */
  struct oci_log log;
};

struct oci_create_args {
  const char *bundle, *pid_file, *console_socket, *id;
};

int oci_create(const struct oci_ctx *c, const struct oci_create_args *a);
int oci_start(const struct oci_ctx *c, const char *id);
int oci_state(const struct oci_ctx *c, const char *id);
int oci_kill(const struct oci_ctx *c, const char *id, const char *sig,
             bool all);
int oci_delete(const struct oci_ctx *c, const char *id, bool force);
int oci_ps(const struct oci_ctx *c, const char *id, bool json);
int oci_features(void);

/* The signal named by s (a number, "TERM" or "SIGTERM"), or -1. */
int oci_signal_number(const char *s);

#endif
