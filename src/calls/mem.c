/*
 * mem_map of a descriptor.  The vDSO maps anonymous memory itself; for a
 * file it asks here, with the original arguments, for a host descriptor it
 * can map.  This handler checks the rights the mapping needs and lends the
 * guest a descriptor (supervisor/lends.c); the vDSO maps it and closes it
 * at once.  A program that traps mem_map itself and keeps the descriptor
 * loses it to an inert one at its thread's next call, or before its
 * capability is closed or narrowed takes effect (lends.h).
 *
 * What the lent descriptor allows must not exceed the rights, because
 * another guest thread can map it too before it is closed or revoked (the
 * filter lets the guest do nothing else with it: mmap and close):
 *  - it is open for writing only if the capability has FD_WRITE, so no
 *    shared writable mapping can be made without that right;
 *  - Linux maps only descriptors open for reading, and a mapping made
 *    without PROT_READ can later be mem_protect'ed to PROT_READ, so every
 *    file mapping needs FD_READ (a stricter reading of the spec, which
 *    lets MEM_MAP alone make PROT_NONE mappings: refusing them is the only
 *    way not to lend read access);
 *  - PROT_EXEC needs MEM_MAP_EXEC at mapping time, but Linux cannot forbid
 *    a later mprotect to PROT_EXEC of a readable file mapping.  That gives
 *    the guest nothing new: it can read the bytes and make anonymous
 *    memory executable anyway (CloudABI only forbids write+exec at once).
 * Directories, sockets and devices are never lent.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "host/errno_map.h"
#include "supervisor/lends.h"
#include "supervisor/sup.h"
#include "syscall_table.h"

#define R(name) CLOUDABI_RIGHT_##name

#define PROT_ALL (CLOUDABI_PROT_EXEC | CLOUDABI_PROT_WRITE | CLOUDABI_PROT_READ)
#define MFLAGS_ALL                                                             \
  (CLOUDABI_MAP_ANON | CLOUDABI_MAP_FIXED | CLOUDABI_MAP_PRIVATE |             \
   CLOUDABI_MAP_SHARED)

static cloudabi_rights_t rights_needed(cloudabi_mprot_t prot,
                                       cloudabi_mflags_t flags) {
  cloudabi_rights_t need = R(MEM_MAP) | R(FD_READ);
  /* A private mapping's writes never reach the file. */
  if ((prot & CLOUDABI_PROT_WRITE) != 0 && (flags & CLOUDABI_MAP_SHARED) != 0)
    need |= R(FD_WRITE);
  if ((prot & CLOUDABI_PROT_EXEC) != 0)
    need |= R(MEM_MAP_EXEC);
  return need;
}

/* A descriptor for the same file open exactly as the rights allow: the
 * object's own when its mode fits, else a new open file description. */
static int lendable_fd(const struct capability *cap, bool *owned) {
  int want = (cap->base & R(FD_WRITE)) != 0 ? O_RDWR : O_RDONLY;
  int fl = fcntl(cap->obj->fd, F_GETFL);
  if (fl < 0)
    return -1;
  *owned = false;
  if ((fl & O_PATH) == 0 && (fl & O_ACCMODE) == want)
    return cap->obj->fd;
  char link[64];
  snprintf(link, sizeof(link), "/proc/self/fd/%d", cap->obj->fd);
  int fd = open(link, want | O_CLOEXEC | O_NOCTTY);
  if (fd < 0 && want == O_RDWR) /* the file is not writable for us */
    fd = open(link, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  *owned = fd >= 0;
  return fd;
}

cloudabi_errno_t handle_mem_map(struct call *c) {
  struct capability *cap = c->cap[4];
  cloudabi_mprot_t prot = (cloudabi_mprot_t)c->args[2];
  cloudabi_mflags_t flags = (cloudabi_mflags_t)c->args[3];
  if ((prot & ~PROT_ALL) != 0)
    return CLOUDABI_ENOTSUP; /* as FreeBSD, and arg_check */
  if ((flags & ~MFLAGS_ALL) != 0)
    return CLOUDABI_EINVAL;
  /* Anonymous mappings never come here; exactly one of private/shared. */
  cloudabi_mflags_t share =
      flags & (CLOUDABI_MAP_PRIVATE | CLOUDABI_MAP_SHARED);
  if ((flags & CLOUDABI_MAP_ANON) != 0 ||
      (share != CLOUDABI_MAP_PRIVATE && share != CLOUDABI_MAP_SHARED))
    return CLOUDABI_EINVAL;
  if ((prot & CLOUDABI_PROT_WRITE) != 0 && (prot & CLOUDABI_PROT_EXEC) != 0)
    return CLOUDABI_ENOTSUP; /* W^X, as the vDSO */
  cloudabi_rights_t need = rights_needed(prot, flags);
  if ((cap->base & need) != need)
    return CLOUDABI_ENOTCAPABLE;
  /* Only files and shared memory can be mapped. */
  if (cap->obj->type != CLOUDABI_FILETYPE_REGULAR_FILE &&
      cap->obj->type != CLOUDABI_FILETYPE_SHARED_MEMORY)
    return CLOUDABI_ENODEV;

  bool owned;
  int fd = lendable_fd(cap, &owned);
  if (fd < 0)
    return errno_from_host(errno);
  /* The lend stands while the capability keeps every right the lent
   * descriptor can serve, whatever this call asked for. */
  cloudabi_rights_t lent =
      cap->base & (R(MEM_MAP) | R(MEM_MAP_EXEC) | R(FD_READ) | R(FD_WRITE));
  int gfd;
  cloudabi_errno_t e =
      lends_add(c, fd, (cloudabi_fd_t)c->args[4], lent, &gfd);
  if (owned)
    close(fd);
  if (e != 0)
    return e;
  c->result = (uint64_t)gfd;
  return 0;
}
