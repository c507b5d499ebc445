/*
 * The one way the supervisor touches guest memory: bounded copies in and
 * out of the address space of the thread that made a call, and the shared
 * I/O slots (trap.h).
 *
 * Why no SECCOMP_IOCTL_NOTIF_ID_VALID after each read, as seccomp_unotify(2)
 * advises: that check guards against the caller dying and its pid being
 * reused by another process before we read.  Here every guest task is
 * ptraced by the supervisor, so a dead task stays a zombie, its tid
 * reserved, until the supervisor itself reaps it in its event loop, which
 * never happens while a handler runs.  A read from a dead caller fails
 * instead.  Calls resumed after parking are checked (park.c), and their
 * parked state is dropped when the thread is reaped.  The check cost a
 * system call per read, which on these machines is a large share of a call.
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

/*
 * If argument `arg` of the call is an I/O slot tag: 1, with the slot's
 * bytes (in the supervisor's mapping) and the tag's length; 0 if it is not
 * a tag (the call came with plain pointers); -1 for a tag that does not
 * name a slot of this process.
 */
int gmem_slot(struct call *c, unsigned arg, char **data, size_t *len);

/*
 * The data of a write-like call (fd_write, fd_pwrite, sock_send): the I/O
 * slot in argument slot_arg if there is one, else the iovec array in
 * arguments iovs_arg and iovs_arg + 1, copied into the scratch buffer.
 */
cloudabi_errno_t gmem_source(struct call *c, unsigned iovs_arg,
                             unsigned slot_arg, struct iovec *data);

/* Where a read-like call's data goes: the slot, or the guest's iovecs. */
struct gmem_sink {
  struct iovec buf; /* read into this; at most buf.iov_len bytes */
  int slot;
  size_t nremote;
  struct iovec remote[GUESTMEM_MAX_IOVS];
};
cloudabi_errno_t gmem_sink_open(struct call *c, unsigned iovs_arg,
                                unsigned slot_arg, struct gmem_sink *sink);
/* Delivers the first n bytes of sink->buf to the guest. */
cloudabi_errno_t gmem_sink_fill(struct call *c, struct gmem_sink *sink,
                                size_t n);

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
