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

/*
 * What goes through an I/O slot, by kind (trap.h, io.c): paths and input
 * buffers with the length that follows them, the fixed-size structs in and
 * out, and output buffers.  Kinds holding pointers to further pointers
 * (iovecs, subscriptions, socket messages) keep their plain addresses.
 */
#define MARSHAL_path(i) {i, i + 1, 1, 0},
#define MARSHAL_buf_in(i) {i, i + 1, 1, 0},
#define MARSHAL_fdstat_in(i) {i, -1, 1, sizeof(cloudabi_fdstat_t)},
#define MARSHAL_filestat_in(i) {i, -1, 1, sizeof(cloudabi_filestat_t)},
#define MARSHAL_fdstat_out(i) {i, -1, 0, sizeof(cloudabi_fdstat_t)},
#define MARSHAL_filestat_out(i) {i, -1, 0, sizeof(cloudabi_filestat_t)},
#define MARSHAL_buf_out(i) {i, i + 1, 0, 0},
#define MARSHAL_char_out(i) {i, i + 1, 0, 0},
#define MARSHALLED_path CLOUDABI__PROBE
#define MARSHALLED_buf_in CLOUDABI__PROBE
#define MARSHALLED_fdstat_in CLOUDABI__PROBE
#define MARSHALLED_filestat_in CLOUDABI__PROBE
#define MARSHALLED_fdstat_out CLOUDABI__PROBE
#define MARSHALLED_filestat_out CLOUDABI__PROBE
#define MARSHALLED_buf_out CLOUDABI__PROBE
#define MARSHALLED_char_out CLOUDABI__PROBE
#define MARSHAL_IF_0(kind, i)
#define MARSHAL_IF_1(kind, i) MARSHAL_##kind(i)
#define MARSHAL_IF_X(b, kind, i) MARSHAL_IF_##b(kind, i)
#define MARSHAL_IF(b, kind, i) MARSHAL_IF_X(b, kind, i)
#define MARSHAL(i, kind, name, rights)                                         \
  MARSHAL_IF(CLOUDABI__IS_PROBE(MARSHALLED_##kind), kind, i)

#define STUB_LOCAL(name, n, args)
#define STUB_MIXED(name, n, args)
#define STUB_TRAP(name, n, args)                                               \
  VDSO_EXPORT cloudabi_errno_t cloudabi_sys_##name(                            \
      uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4,         \
      uint64_t a5) {                                                           \
    static const struct vdso_marshal ops[] = {                                 \
        CLOUDABI_ARGS_FOREACH(MARSHAL, CLOUDABI_SEP_NONE, n, args){-1, -1, 0,  \
                                                                   0}};        \
    long a[6] = {(long)a0, (long)a1, (long)a2, (long)a3, (long)a4, (long)a5};  \
    size_t nops = sizeof(ops) / sizeof(ops[0]) - 1;                            \
    long r = nops > 0 ? vdso_trap_marshalled(CLOUDABI_SYS_##name, a, ops, nops) \
                      : vdso_trap(CLOUDABI_SYS_##name, a[0], a[1], a[2], a[3],  \
                                  a[4], a[5]);                                 \
    if (r < 0)                                                                 \
      return vdso_trap_errno(r);                                               \
    CLOUDABI_ARGS_FOREACH(STORE, CLOUDABI_SEP_NONE, n, args)                   \
    return 0;                                                                  \
  }
#define STUB(name, where, n, args) STUB_##where(name, n, args)
CLOUDABI_SYSCALLS(STUB)
