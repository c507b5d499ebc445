/*
 * The one clone flag word a guest may use: what thread_create passes
 * (abi/vdso/threads.c) and the only one the seccomp filter allows
 * (src/loader/filter.c).  A thread in the same everything, with its own TLS
 * word, its tid written into its new stack.
 */
#ifndef CLOUDABI_CLONE_FLAGS_H
#define CLOUDABI_CLONE_FLAGS_H

#include <linux/sched.h>

#define THREAD_CLONE_FLAGS                                                     \
  (CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |          \
   CLONE_SYSVSEM | CLONE_SETTLS | CLONE_PARENT_SETTID)

#endif
