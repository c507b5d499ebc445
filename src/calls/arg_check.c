/* Register argument values before descriptors; see arg_check.h. */
#include "arg_check.h"

#include <stdbool.h>

#include "host/filestat.h"

#define V_OR(u, name, value) | (value)
#define V_CASE(u, name, value) case value:
#define FLAG_MASK(type) (0 CLOUDABI_VALUES_##type(V_OR, ))

static bool advice_known(uint64_t x) {
  switch (x) {
    CLOUDABI_VALUES_advice(V_CASE, ) return true;
  default:
    return false;
  }
}

static bool whence_known(uint64_t x) {
  switch (x) {
    CLOUDABI_VALUES_whence(V_CASE, ) return true;
  default:
    return false;
  }
}

static bool only(uint64_t x, uint64_t mask) { return (x & ~mask) == 0; }

/* Rules that hold for an argument kind in every call that has it. */
static cloudabi_errno_t kind_check(enum arg_kind kind, uint64_t x) {
  switch (kind) {
  case ARG_advice:
    return advice_known(x) ? 0 : CLOUDABI_EINVAL;
  case ARG_whence:
    return whence_known(x) ? 0 : CLOUDABI_EINVAL;
  case ARG_lookup:
    return only(x >> 32, FLAG_MASK(lookupflags)) ? 0 : CLOUDABI_EINVAL;
  case ARG_fdsflags:
    /* fd_stat_put sets one thing at a time. */
    return x == CLOUDABI_FDSTAT_FLAGS || x == CLOUDABI_FDSTAT_RIGHTS
               ? 0
               : CLOUDABI_EINVAL;
  case ARG_fsflags:
    return only(x, FLAG_MASK(fsflags)) ? 0 : CLOUDABI_EINVAL;
  case ARG_mflags:
    return only(x, FLAG_MASK(mflags)) ? 0 : CLOUDABI_EINVAL;
  case ARG_mprot:
    /* FreeBSD: protections it cannot give, W^X included, are ENOTSUP. */
    if (!only(x, FLAG_MASK(mprot)) ||
        ((x & CLOUDABI_PROT_WRITE) != 0 && (x & CLOUDABI_PROT_EXEC) != 0))
      return CLOUDABI_ENOTSUP;
    return 0;
  case ARG_oflags:
    return only(x, FLAG_MASK(oflags)) ? 0 : CLOUDABI_EINVAL;
  case ARG_sdflags:
    return x != 0 && only(x, FLAG_MASK(sdflags)) ? 0 : CLOUDABI_EINVAL;
  case ARG_ulflags:
    return only(x, FLAG_MASK(ulflags)) ? 0 : CLOUDABI_EINVAL;
  default:
    return 0;
  }
}

/* Rules of one call. */
static cloudabi_errno_t call_check(unsigned sysno, const uint64_t *args) {
  switch (sysno) {
  case CLOUDABI_SYS_file_create:
    /* Only directories are created by name; files come from file_open. */
    return args[3] == CLOUDABI_FILETYPE_DIRECTORY ? 0 : CLOUDABI_EINVAL;
  case CLOUDABI_SYS_file_stat_fput:
    /* A size alone, or times alone (FreeBSD: separate operations). */
    if (args[2] == CLOUDABI_FILESTAT_SIZE)
      return 0;
    return (args[2] & FILESTAT_TIME_FLAGS) != 0 &&
                   only(args[2], FILESTAT_TIME_FLAGS)
               ? 0
               : CLOUDABI_EINVAL;
  case CLOUDABI_SYS_file_stat_put:
    /* Sizes are set through a descriptor. */
    return only(args[4], FILESTAT_TIME_FLAGS) ? 0 : CLOUDABI_EINVAL;
  default:
    return 0;
  }
}

cloudabi_errno_t arg_check(unsigned sysno, const struct syscall_desc *d,
                           const uint64_t *args) {
  for (unsigned i = 0; i < d->nargs && i < 6; i++) {
    cloudabi_errno_t e = kind_check(d->args[i].kind, args[i]);
    if (e != 0)
      return e;
  }
  return call_check(sysno, args);
}
