/* Host errno to CloudABI errno: every handler's host failures cross here. */
#ifndef ERRNO_MAP_H
#define ERRNO_MAP_H

#include "cloudabi_types.h"

cloudabi_errno_t errno_from_host(int host_errno);

#endif
