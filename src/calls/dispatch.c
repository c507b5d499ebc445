/* From a notification's registers to a handler; see syscall_table.h. */
#include "syscall_table.h"

#include "arg_check.h"
#include "supervisor/sup.h"

cloudabi_errno_t dispatch(struct call *c) {
  if (c->sysno >= CLOUDABI_SYSCALL_COUNT ||
      syscall_table[c->sysno].handler == NULL)
    return CLOUDABI_ENOSYS;
  const struct syscall_desc *d = &syscall_table[c->sysno];
  for (unsigned i = 0; i < d->nargs && i < 6; i++) {
    const struct syscall_arg *a = &d->args[i];
    /* Sub-64-bit arguments have undefined upper bits (SysV). */
    if (a->size < 8)
      c->args[i] &= (UINT64_C(1) << (8 * a->size)) - 1;
  }
  /* Values, then descriptors, then rights: FreeBSD's order. */
  cloudabi_errno_t e = arg_check(c->sysno, d, c->args);
  if (e != 0)
    return e;
  for (unsigned i = 0; i < d->nargs && i < 6; i++) {
    const struct syscall_arg *a = &d->args[i];
    if (a->kind == ARG_fd || a->kind == ARG_lookup) {
      e = captab_get(&c->proc->fds, (uint32_t)c->args[i],
                                      a->rights, &c->cap[i]);
      if (e != 0)
        return e;
    }
  }
  return d->handler(c);
}
