/* Internal to the guest runtime: binding the vDSO at start-up. */
#ifndef RT_SYSCALLS_H
#define RT_SYSCALLS_H

#include <stddef.h>

#include "cloudabi_types.h"

#include "elf64.h"

/* Binds every cloudabi_sys_* symbol the vDSO at `ehdr` exports; returns how
 * many were bound. */
size_t rt_bind_vdso(const void *ehdr);

/* Thread-local storage (crt0.c): the bytes a thread needs for its TLS
 * block and TCB, and setting them up behind %fs:0 from the PT_TLS image. */
size_t rt_tls_area_size(void);
void rt_tls_install(char *area);

/* Records the initial thread's tid once its TLS exists (thread.c). */
void rt_thread_init_main(cloudabi_tid_t tid);

#endif
