/* The syscall table, expanded from abi/cloudabi_abi.h. */
#include "syscall_table.h"

#define ARG_ROW(i, kind, name, rights)                                         \
  {ARG_##kind, sizeof(cloudabi_kind_##kind##_t), #name, rights},
#define HANDLER_TRAP(name) handle_##name
#define HANDLER_MIXED(name) handle_##name
#define HANDLER_LOCAL(name) NULL
#define ROW(name, where, n, args)                                              \
  [CLOUDABI_SYS_##name] = {                                                    \
      #name,                                                                   \
      HANDLER_##where(name),                                                   \
      WHERE_##where,                                                           \
      n,                                                                       \
      {CLOUDABI_ARGS_FOREACH(ARG_ROW, CLOUDABI_SEP_NONE, n, args)},            \
  },

const struct syscall_desc syscall_table[CLOUDABI_SYSCALL_COUNT] = {
    CLOUDABI_SYSCALLS(ROW)};
