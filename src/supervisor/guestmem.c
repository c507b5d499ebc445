/* Guest memory access; see guestmem.h. */
#include "guestmem.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/uio.h>

#include "call.h"
#include "sup.h"
#include "trap.h"

/* A slot address (trap.h) as our pointer to len bytes, or NULL (EFAULT). */
static char *slot_bytes(struct call *c, uint64_t addr, size_t len) {
  uint64_t index = (addr >> 32) & 0xffff, off = (uint32_t)addr;
  if (c->proc->ioslots == NULL || index >= IOSLOT_COUNT || off > IOSLOT_SIZE ||
      len > IOSLOT_SIZE - off)
    return NULL;
  return c->proc->ioslots + IOSLOT_OFFSET(index) + off;
}

static bool any_slot_address(const struct iovec *remote, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (((uint64_t)(uintptr_t)remote[i].iov_base & TRAP_SLOT_MASK) ==
        TRAP_SLOTADDR_TAG)
      return true;
  return false;
}

/*
 * Element by element, for vectors that name the I/O slot: slot addresses
 * are copied directly, the rest through process_vm_*.  Moves `total`
 * bytes between the local vector and the remote one, in order.
 */
static cloudabi_errno_t slot_rw(struct call *c, const struct iovec *local,
                                size_t nlocal, const struct iovec *remote,
                                size_t nremote, size_t total, bool write,
                                size_t *moved) {
  size_t li = 0, loff = 0, done = 0;
  *moved = 0;
  for (size_t ri = 0; ri < nremote && done < total; ri++) {
    uint64_t base = (uint64_t)(uintptr_t)remote[ri].iov_base;
    size_t rlen = remote[ri].iov_len, roff = 0;
    bool in_slot = (base & TRAP_SLOT_MASK) == TRAP_SLOTADDR_TAG;
    char *slot = in_slot ? slot_bytes(c, base, rlen) : NULL;
    if (in_slot && slot == NULL)
      return CLOUDABI_EFAULT;
    while (roff < rlen && done < total) {
      while (li < nlocal && loff == local[li].iov_len)
        li++, loff = 0;
      if (li == nlocal)
        return CLOUDABI_EFAULT;
      size_t k = local[li].iov_len - loff;
      if (k > rlen - roff)
        k = rlen - roff;
      char *l = (char *)local[li].iov_base + loff;
      if (slot != NULL) {
        if (write)
          memcpy(slot + roff, l, k);
        else
          memcpy(l, slot + roff, k);
      } else {
        struct iovec lv = {l, k}, rv = {(void *)(uintptr_t)(base + roff), k};
        ssize_t n = write ? process_vm_writev((pid_t)c->tid, &lv, 1, &rv, 1, 0)
                          : process_vm_readv((pid_t)c->tid, &lv, 1, &rv, 1, 0);
        if (n < 0 || (size_t)n != k)
          return CLOUDABI_EFAULT;
      }
      roff += k, loff += k, done += k;
      *moved = done;
    }
  }
  return done == total ? 0 : CLOUDABI_EFAULT;
}

cloudabi_errno_t gmem_readv(struct call *c, const struct iovec *local,
                            size_t nlocal, const struct iovec *remote,
                            size_t nremote, size_t total) {
  if (total == 0)
    return 0;
  if (any_slot_address(remote, nremote)) {
    size_t moved;
    return slot_rw(c, local, nlocal, remote, nremote, total, false, &moved);
  }
  ssize_t got =
      process_vm_readv((pid_t)c->tid, local, nlocal, remote, nremote, 0);
  return got < 0 || (size_t)got != total ? CLOUDABI_EFAULT : 0;
}

int gmem_slot(struct call *c, unsigned arg, char **data, size_t *len) {
  uint64_t v = c->args[arg];
  if ((v & TRAP_SLOT_MASK) != TRAP_SLOT_TAG)
    return 0;
  uint64_t index = (v >> 32) & 0xffff, n = (uint32_t)v;
  if (c->proc->ioslots == NULL || index >= IOSLOT_COUNT || n > IOSLOT_SIZE)
    return -1;
  *data = c->proc->ioslots + IOSLOT_OFFSET(index);
  *len = n;
  return 1;
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
  if (any_slot_address(remote, nremote))
    return slot_rw(c, local, nlocal, remote, nremote, total, true, written);
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

cloudabi_errno_t gmem_source(struct call *c, unsigned iovs_arg,
                             unsigned slot_arg, struct iovec *data) {
  char *slot;
  size_t len;
  int r = gmem_slot(c, slot_arg, &slot, &len);
  if (r < 0)
    return CLOUDABI_EFAULT;
  if (r > 0) {
    *data = (struct iovec){slot, len};
    return 0;
  }
  struct iovec remote[GUESTMEM_MAX_IOVS];
  size_t total, n = c->args[iovs_arg + 1];
  cloudabi_errno_t e = gmem_read_iovecs(c, c->args[iovs_arg], n, remote, &total);
  if (e != 0)
    return e;
  *data = (struct iovec){sup_scratch(c->sup), total};
  return gmem_readv(c, data, 1, remote, n, total);
}

cloudabi_errno_t gmem_sink_open(struct call *c, unsigned iovs_arg,
                                unsigned slot_arg, struct gmem_sink *sink) {
  char *slot;
  size_t len;
  int r = gmem_slot(c, slot_arg, &slot, &len);
  if (r < 0)
    return CLOUDABI_EFAULT;
  sink->slot = r;
  sink->nremote = 0;
  if (r > 0) {
    sink->buf = (struct iovec){slot, len};
    return 0;
  }
  size_t total;
  sink->nremote = c->args[iovs_arg + 1];
  cloudabi_errno_t e = gmem_read_iovecs(c, c->args[iovs_arg], sink->nremote,
                                        sink->remote, &total);
  sink->buf = (struct iovec){sup_scratch(c->sup), total};
  return e;
}

cloudabi_errno_t gmem_sink_fill(struct call *c, struct gmem_sink *sink,
                                size_t n) {
  if (sink->slot)
    return 0; /* the vDSO copies it out */
  struct iovec local = {sink->buf.iov_base, n};
  size_t written;
  return gmem_writev(c, &local, 1, sink->remote, sink->nremote, n, &written);
}
