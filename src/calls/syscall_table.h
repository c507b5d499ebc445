/*
 * The syscall table, one row per CloudABI system call, expanded from the
 * ABI description: name, handler, and each argument's kind, name and the
 * rights a descriptor argument must carry.  The dispatcher and the trace
 * decoder both read it.
 */
#ifndef SYSCALL_TABLE_H
#define SYSCALL_TABLE_H

#include <stdint.h>

#include "supervisor/call.h"
#include "cloudabi_syscalls.h"

#define KIND_ENUM(kind, ctype) ARG_##kind,
enum arg_kind { CLOUDABI_ARG_KINDS(KIND_ENUM) ARG_KIND_COUNT };
#undef KIND_ENUM

enum syscall_where { WHERE_TRAP, WHERE_LOCAL, WHERE_MIXED };

struct syscall_arg {
  enum arg_kind kind;
  uint8_t size; /* bytes of the C type; wider register bits are dropped */
  const char *name;
  cloudabi_rights_t rights;
};

struct syscall_desc {
  const char *name;
  call_handler_t *handler; /* NULL: never trapped */
  enum syscall_where where;
  uint8_t nargs;
  struct syscall_arg args[7];
};

extern const struct syscall_desc syscall_table[CLOUDABI_SYSCALL_COUNT];

/* Handlers, by family (fd.c, file.c, mem.c, poll.c, proc.c, sock.c). */
#define HANDLER_DECL_TRAP(name) call_handler_t handle_##name;
#define HANDLER_DECL_MIXED(name) call_handler_t handle_##name;
#define HANDLER_DECL_LOCAL(name)
#define HANDLER_DECL(name, where, n, args) HANDLER_DECL_##where(name)
CLOUDABI_SYSCALLS(HANDLER_DECL)
#undef HANDLER_DECL

/* Resolves descriptor arguments, then runs the handler. */
cloudabi_errno_t dispatch(struct call *c);

#endif
