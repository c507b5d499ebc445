/*
 * Which CloudABI file type and rights a host descriptor gets, following
 * upstream (ABI-NOTES.md 4.3 and 6.3): the type's maximum rights, less
 * FD_READ or FD_WRITE when the host descriptor cannot do them.
 */
#ifndef RIGHTS_H
#define RIGHTS_H

#include <stdbool.h>

#include "cloudabi_types.h"

struct fd_rights {
  cloudabi_filetype_t type;
  cloudabi_rights_t base, inheriting;
};

/* The most a descriptor of `type` can ever hold. */
void rights_max_for_type(cloudabi_filetype_t type, bool is_tty,
                         cloudabi_rights_t *base,
                         cloudabi_rights_t *inheriting);

/*
 * The type and rights for the open host descriptor fd.  Returns 0, or -1
 * with errno set: ENOTSUP/EINVAL for host objects CloudABI has no type for
 * (e.g. SOCK_SEQPACKET sockets), or what fstat/fcntl said.
 */
int rights_for_host_fd(int fd, struct fd_rights *out);

/* All rights bits the ABI defines. */
#define RIGHTS_ALL ((cloudabi_rights_t)0x000000815ffff7ffull)

#endif
