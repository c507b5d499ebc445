/*
 * CloudABI system call numbers and prototypes, expanded from cloudabi_abi.h.
 * A call's number is its position in the alphabetical list, as upstream.
 */
#ifndef CLOUDABI_SYSCALLS_H
#define CLOUDABI_SYSCALLS_H

#include "cloudabi_types.h"

#define CLOUDABI__SYSNUM(name, ...) CLOUDABI_SYS_##name,
enum { CLOUDABI_SYSCALLS(CLOUDABI__SYSNUM) CLOUDABI_SYSCALL_COUNT };
#undef CLOUDABI__SYSNUM

/* The C type of each argument kind, as CLOUDABI_KIND_T_<kind>. */
#define CLOUDABI__KIND_T(kind, ctype) typedef ctype cloudabi_kind_##kind##_t;
CLOUDABI_ARG_KINDS(CLOUDABI__KIND_T)
#undef CLOUDABI__KIND_T

#define CLOUDABI_PARAM(i, kind, name, rights) cloudabi_kind_##kind##_t name
#define CLOUDABI__PARAMS0(args, n) void
#define CLOUDABI__PARAMSN(args, n)                                             \
  CLOUDABI_ARGS_FOREACH(CLOUDABI_PARAM, CLOUDABI_SEP_COMMA, n, args)
#define CLOUDABI__PARAMS1 CLOUDABI__PARAMSN
#define CLOUDABI__PARAMS2 CLOUDABI__PARAMSN
#define CLOUDABI__PARAMS3 CLOUDABI__PARAMSN
#define CLOUDABI__PARAMS4 CLOUDABI__PARAMSN
#define CLOUDABI__PARAMS5 CLOUDABI__PARAMSN
#define CLOUDABI__PARAMS6 CLOUDABI__PARAMSN
#define CLOUDABI__PARAMS7 CLOUDABI__PARAMSN
/* The parameter list of a syscall with n arguments. */
#define CLOUDABI_PARAMS(n, args) CLOUDABI__PARAMS##n(args, n)

#ifndef CLOUDABI_NO_PROTOTYPES
#define CLOUDABI__RET_0 cloudabi_errno_t
#define CLOUDABI__RET_1 _Noreturn void
#define CLOUDABI__RETX(b) CLOUDABI__RET_##b
#define CLOUDABI__RET(b) CLOUDABI__RETX(b)
/* The result type of a syscall: errno, or nothing for those that never return. */
#define CLOUDABI_RESULT_TYPE(name) CLOUDABI__RET(CLOUDABI_IS_NORETURN(name))
#define CLOUDABI__PROTO(name, where, n, args) \
  CLOUDABI_RESULT_TYPE(name) cloudabi_sys_##name(CLOUDABI_PARAMS(n, args));
CLOUDABI_SYSCALLS(CLOUDABI__PROTO)
#undef CLOUDABI__PROTO
#endif

#endif
