/*
 * The values of a call's register arguments (enumerations and flag sets),
 * checked before any descriptor is looked up: FreeBSD validates values
 * first, so a bad value on a bad descriptor is EINVAL, not EBADF, and a
 * bad value on a descriptor without the right is EINVAL, not
 * ENOTCAPABLE.  The handlers still map each value; this only orders the
 * errors.
 */
#ifndef ARG_CHECK_H
#define ARG_CHECK_H

#include <stdint.h>

#include "syscall_table.h"

/* 0, or the errno for the first argument whose value is refused. */
cloudabi_errno_t arg_check(unsigned sysno, const struct syscall_desc *d,
                           const uint64_t *args);

#endif
