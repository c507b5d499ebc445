/*
 * What cloudabi-oci takes from a bundle's config.json (runtime-spec
 * config.md): the program and its YAML config, the file-system view, the
 * limits.  Parse, then act: oci_spec_read has no side effects.
 */
#ifndef OCI_SPEC_H
#define OCI_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "json.h"

/* The annotation that names the YAML config when args has no second
 * element (a path inside the rootfs). */
#define OCI_CONFIG_ANNOTATION "org.cloudabi.config"

struct oci_mount {
  const char *dest, *source; /* source absolute (made so from the bundle) */
  bool ro;
};

struct oci_spec {
  struct json *doc; /* owns every string below */
  const char *program, *config; /* paths inside the rootfs */
  const char *cwd;
  char *rootfs; /* absolute host path, malloc'ed */
  bool root_ro;
  struct oci_mount *mounts; /* bind mounts only, malloc'ed */
  char **mount_sources;     /* malloc'ed absolute sources, one a mount */
  size_t nmounts, nignored; /* ignored: proc, tmpfs, ... (not bind) */
  /* 0: no such limit in the bundle. */
  uint64_t memory, cpu_seconds, fds, procs;
  const struct json *annotations; /* an object or NULL */
  /* linux.namespaces' network path: the container process joins it. */
  const char *netns;
};

/* Reads bundle/config.json.  Returns 0, or -1 with why filled in. */
int oci_spec_read(const char *bundle, struct oci_spec *s, char *why,
                  size_t why_size);
void oci_spec_free(struct oci_spec *s);

#endif
