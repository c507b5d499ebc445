/*
 * The vDSO entry points of every call the supervisor performs ("TRAP" in
 * abi/cloudabi_abi.h), expanded from the description: forward the argument
 * registers, then store the answer through the out_* pointers.
 */
#include "cloudabi_syscalls.h"
#include "vdso.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"

#define STORE_out_fd(i) *(uint32_t *)a##i = (uint32_t)r;
#define STORE_out_tid(i) *(uint32_t *)a##i = (uint32_t)r;
#define STORE_out_fd2(i) *(uint32_t *)a##i = (uint32_t)((uint64_t)r >> 32);
#define STORE_out_tid2(i) *(uint32_t *)a##i = (uint32_t)((uint64_t)r >> 32);
#define STORE_out_size(i) *(uint64_t *)a##i = (uint64_t)r;
#define STORE_out_filesize(i) *(uint64_t *)a##i = (uint64_t)r;
#define STORE_out_timestamp(i) *(uint64_t *)a##i = (uint64_t)r;
#define STORE_out_mem(i) *(uint64_t *)a##i = (uint64_t)r;
/* Only the out_* kinds store anything. */
#define OUT_KIND_out_fd CLOUDABI__PROBE
#define OUT_KIND_out_tid CLOUDABI__PROBE
#define OUT_KIND_out_fd2 CLOUDABI__PROBE
#define OUT_KIND_out_tid2 CLOUDABI__PROBE
#define OUT_KIND_out_size CLOUDABI__PROBE
#define OUT_KIND_out_filesize CLOUDABI__PROBE
#define OUT_KIND_out_timestamp CLOUDABI__PROBE
#define OUT_KIND_out_mem CLOUDABI__PROBE
#define STORE_IF_0(kind, i)
#define STORE_IF_1(kind, i) STORE_##kind(i)
#define STORE_IF_X(b, kind, i) STORE_IF_##b(kind, i)
#define STORE_IF(b, kind, i) STORE_IF_X(b, kind, i)
#define STORE(i, kind, name, rights)                                           \
  STORE_IF(CLOUDABI__IS_PROBE(OUT_KIND_##kind), kind, i)

#define STUB_LOCAL(name, n, args)
#define STUB_MIXED(name, n, args)
#define STUB_TRAP(name, n, args)                                               \
  VDSO_EXPORT cloudabi_errno_t cloudabi_sys_##name(                            \
      uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4,         \
      uint64_t a5) {                                                           \
    long r = vdso_trap(CLOUDABI_SYS_##name, (long)a0, (long)a1, (long)a2,      \
                       (long)a3, (long)a4, (long)a5);                          \
    if (r < 0)                                                                 \
      return vdso_trap_errno(r);                                               \
    CLOUDABI_ARGS_FOREACH(STORE, CLOUDABI_SEP_NONE, n, args)                   \
    return 0;                                                                  \
  }
#define STUB(name, where, n, args) STUB_##where(name, n, args)
CLOUDABI_SYSCALLS(STUB)
