/*
 * A container's state under the runtime's root: ROOT/ID/state.json (what
 * create recorded) and ROOT/ID/exec.fifo (present until start: the
 * container process blocks opening it for writing, as runc's does).  The
 * status is computed, never stored: creating (no state.json yet), created
 * (the fifo is there), running (the process lives), stopped.
 */
#ifndef OCI_STATE_H
#define OCI_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "json.h"

struct oci_state {
  struct json *doc; /* state.json as read; owns the strings */
  const char *id, *bundle, *created;
  pid_t pid;
  unsigned long long starttime; /* of pid, from /proc: guards reuse */
  const struct json *annotations;
};

/* An id runc would accept: [A-Za-z0-9_+.-], not "." or "..", < 1024. */
bool oci_id_valid(const char *id);

/* ROOT/ID[/NAME] into buf; false if it does not fit. */
bool oci_state_path(const char *root, const char *id, const char *name,
                    char *buf, size_t size);

/* Reads ROOT/ID/state.json: 0, or -1 with errno (ENOENT: no container or
 * still creating, see oci_state_exists). */
int oci_state_read(const char *root, const char *id, struct oci_state *s);
void oci_state_free(struct oci_state *s);
/* Whether ROOT/ID exists at all. */
bool oci_state_exists(const char *root, const char *id);

/* Writes state.json atomically (a temporary file renamed). */
int oci_state_write(const char *root, const char *id, pid_t pid,
                    unsigned long long starttime, const char *bundle,
                    const struct json *annotations);

/* The start time of pid (field 22 of /proc/PID/stat) and whether it is
 * alive (not a zombie); false if there is no such process. */
bool oci_proc_alive(pid_t pid, unsigned long long *starttime);

/* "created", "running" or "stopped". */
const char *oci_status(const char *root, const struct oci_state *s);

/* Removes ROOT/ID and what is in it. */
int oci_state_remove(const char *root, const char *id);

#endif
