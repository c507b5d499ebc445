/*
 * System calls whose handlers land with later issues (poll: #6; sockets
 * and processes: their own issues).
 * Until then they fail with ENOSYS, which upstream crt0 also answers for
 * calls a vDSO does not provide.  Each moves to its family's file.
 */
#include "syscall_table.h"

#define PENDING(name)                                                          \
  cloudabi_errno_t handle_##name(struct call *c) {                             \
    (void)c;                                                                   \
    return CLOUDABI_ENOSYS;                                                    \
  }

PENDING(poll)
