/*
 * The one way the supervisor touches guest memory: bounded copies in and
 * out of the address space of the thread that made a call, each read
 * followed by a check that the notification is still alive (so the bytes
 * came from that thread's process, not from a recycled pid).
 */
#ifndef GUESTMEM_H
#define GUESTMEM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "cloudabi_types.h"

struct call;

/* The most bytes one call moves through guest memory. */
#define GUESTMEM_MAX_IO (4u << 20)
/* The most iovecs one call may pass (Linux's IOV_MAX). */
#define GUESTMEM_MAX_IOVS 1024

/* EFAULT unless all len bytes at addr were copied. */
cloudabi_errno_t gmem_read(struct call *c, uint64_t addr, void *buf,
                           size_t len);
cloudabi_errno_t gmem_write(struct call *c, uint64_t addr, const void *buf,
                            size_t len);
/* Scatter forms: the guest ranges are the remote vector; total is what
 * the local vector holds. */
cloudabi_errno_t gmem_readv(struct call *c, const struct iovec *local,
                            size_t nlocal, const struct iovec *remote,
                            size_t nremote, size_t total);
cloudabi_errno_t gmem_writev(struct call *c, const struct iovec *local,
                             size_t nlocal, const struct iovec *remote,
                             size_t nremote, size_t total, size_t *written);

/*
 * Reads a guest iovec array (cloudabi_iovec_t and ciovec_t have Linux's
 * layout) into iov[0..n): EINVAL for more than GUESTMEM_MAX_IOVS entries,
 * EFAULT for a bad array.  Lengths are clamped so that their sum, *total,
 * is at most GUESTMEM_MAX_IO: a larger request becomes a short transfer,
 * as the kernel does for very large reads and writes.
 */
cloudabi_errno_t gmem_read_iovecs(struct call *c, uint64_t addr, size_t n,
                                  struct iovec *iov, size_t *total);

#endif
