/* Internal to the guest runtime: binding the vDSO at start-up. */
#ifndef RT_SYSCALLS_H
#define RT_SYSCALLS_H

#include <stddef.h>

#include "elf64.h"

/* Binds every cloudabi_sys_* symbol the vDSO at `ehdr` exports; returns how
 * many were bound. */
size_t rt_bind_vdso(const void *ehdr);

#endif
