/*
 * Descriptors cloudabi-run was started with beyond 0-2.  The config's
 * `!fd N` and `--fd` grants are duplicated when the config is opened, so
 * once that is done the originals are only authority a compromised
 * supervisor could use; they are closed before the guest starts.
 */
#ifndef CLOUDABI_HOST_INHERITED_H
#define CLOUDABI_HOST_INHERITED_H

#include <stddef.h>

struct inherited {
  int *fds;
  size_t n;
};

/* Lists the open descriptors >= 3.  Returns 0, or -1 (errno set). */
int inherited_scan(struct inherited *out);

/* Closes them and frees the list. */
void inherited_close(struct inherited *in);

#endif
