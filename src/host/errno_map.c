/* The translation table itself is shared with the vDSO (abi/linux_errno.h). */
#include "errno_map.h"

#include "linux_errno.h"

cloudabi_errno_t errno_from_host(int host_errno) {
  return linux_errno_to_cloudabi(host_errno);
}
