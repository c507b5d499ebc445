/*
 * Which CloudABI file type and rights a host descriptor gets, following
 * upstream (ABI-NOTES.md 4.3 and 6.3): the type's maximum rights, less
 * FD_READ or FD_WRITE when the host descriptor cannot do them.
 */
#ifndef RIGHTS_H
#define RIGHTS_H

#include <stdbool.h>
#include <sys/stat.h>

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

/* What rights_for_host_fd_probe learnt of a descriptor on the way, which
 * hostio_prepare_probed need not ask again: its fstat, F_GETFL flags and,
 * for a socket, SO_TYPE. */
struct host_probe {
  struct stat st;
  int status_flags;
  int so_type;
  int domain; /* a socket's SO_DOMAIN, or 0 for not asked yet */
};
int rights_for_host_fd_probe(int fd, struct fd_rights *out,
                             struct host_probe *probe);

/*
 * Rights that neither change the file system nor open anything for
 * writing: looking up, reading, listing, stat, mapping and executing.
 * A directory granted with an explicit `mode: ro` keeps only these, in
 * its base and its inheriting rights (a read-only tree, as
 * bwrap --ro-bind).
 */
#define RIGHTS_READ_ONLY                                                       \
  (CLOUDABI_RIGHT_FD_READ | CLOUDABI_RIGHT_FD_SEEK |                           \
   CLOUDABI_RIGHT_FD_STAT_PUT_FLAGS | CLOUDABI_RIGHT_FD_TELL |                 \
   CLOUDABI_RIGHT_FILE_ADVISE | CLOUDABI_RIGHT_FILE_OPEN |                     \
   CLOUDABI_RIGHT_FILE_READDIR | CLOUDABI_RIGHT_FILE_READLINK |                \
   CLOUDABI_RIGHT_FILE_STAT_FGET | CLOUDABI_RIGHT_FILE_STAT_GET |              \
   CLOUDABI_RIGHT_MEM_MAP | CLOUDABI_RIGHT_MEM_MAP_EXEC |                      \
   CLOUDABI_RIGHT_POLL_FD_READWRITE | CLOUDABI_RIGHT_PROC_EXEC)

/* All rights bits the ABI defines. */
#define RIGHTS_ALL ((cloudabi_rights_t)0x000000815ffff7ffull)

#endif
