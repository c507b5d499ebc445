/*
 * System calls whose handlers land with later issues (files and
 * descriptors: #5; poll: #6; sockets and processes: their own issues).
 * Until then they fail with ENOSYS, which upstream crt0 also answers for
 * calls a vDSO does not provide.  Each moves to its family's file.
 */
#include "syscall_table.h"

#define PENDING(name)                                                          \
  cloudabi_errno_t handle_##name(struct call *c) {                             \
    (void)c;                                                                   \
    return CLOUDABI_ENOSYS;                                                    \
  }

PENDING(fd_create1)
PENDING(fd_create2)
PENDING(fd_datasync)
PENDING(fd_pread)
PENDING(fd_pwrite)
PENDING(fd_seek)
PENDING(fd_sync)
PENDING(file_advise)
PENDING(file_allocate)
PENDING(file_create)
PENDING(file_link)
PENDING(file_open)
PENDING(file_readdir)
PENDING(file_readlink)
PENDING(file_rename)
PENDING(file_stat_fget)
PENDING(file_stat_fput)
PENDING(file_stat_get)
PENDING(file_stat_put)
PENDING(file_symlink)
PENDING(file_unlink)
PENDING(mem_map)
PENDING(proc_exec)
PENDING(proc_fork)
PENDING(sock_recv)
PENDING(sock_send)
PENDING(sock_shutdown)
