/* Guest memory access; see guestmem.h. */
#include "guestmem.h"

#include <errno.h>
#include <sys/uio.h>

#include "call.h"

cloudabi_errno_t gmem_readv(struct call *c, const struct iovec *local,
                            size_t nlocal, const struct iovec *remote,
                            size_t nremote, size_t total) {
  if (total == 0)
    return 0;
  ssize_t got =
      process_vm_readv((pid_t)c->tid, local, nlocal, remote, nremote, 0);
  if (got < 0 || (size_t)got != total)
    return CLOUDABI_EFAULT;
  /* The thread may have died and its pid been reused while we read. */
  return call_is_valid(c) ? 0 : CLOUDABI_EFAULT;
}

cloudabi_errno_t gmem_read(struct call *c, uint64_t addr, void *buf,
                           size_t len) {
  struct iovec l = {buf, len}, r = {(void *)(uintptr_t)addr, len};
  return gmem_readv(c, &l, 1, &r, 1, len);
}

cloudabi_errno_t gmem_writev(struct call *c, const struct iovec *local,
                             size_t nlocal, const struct iovec *remote,
                             size_t nremote, size_t total, size_t *written) {
  *written = 0;
  if (total == 0)
    return 0;
  ssize_t put =
      process_vm_writev((pid_t)c->tid, local, nlocal, remote, nremote, 0);
  if (put < 0)
    return CLOUDABI_EFAULT;
  *written = (size_t)put;
  return (size_t)put == total ? 0 : CLOUDABI_EFAULT;
}

cloudabi_errno_t gmem_write(struct call *c, uint64_t addr, const void *buf,
                            size_t len) {
  struct iovec l = {(void *)buf, len}, r = {(void *)(uintptr_t)addr, len};
  size_t written;
  return gmem_writev(c, &l, 1, &r, 1, len, &written);
}

cloudabi_errno_t gmem_read_iovecs(struct call *c, uint64_t addr, size_t n,
                                  struct iovec *iov, size_t *total) {
  _Static_assert(sizeof(cloudabi_iovec_t) == sizeof(struct iovec),
                 "guest and host iovecs differ");
  *total = 0;
  if (n > GUESTMEM_MAX_IOVS)
    return CLOUDABI_EINVAL;
  if (n == 0)
    return 0;
  cloudabi_errno_t e = gmem_read(c, addr, iov, n * sizeof(*iov));
  if (e != 0)
    return e;
  size_t sum = 0;
  for (size_t i = 0; i < n; i++) {
    if (iov[i].iov_len > GUESTMEM_MAX_IO - sum)
      iov[i].iov_len = GUESTMEM_MAX_IO - sum;
    sum += iov[i].iov_len;
  }
  *total = sum;
  return 0;
}
