/*
 * The vDSO's exported data (its mirror table, the I/O slots' pointer), for
 * guest tests that read or forge what a hostile program could.
 */
#ifndef GUEST_VDSO_SYMBOL_H
#define GUEST_VDSO_SYMBOL_H

#include "elf_lookup.h"
#include "rt.h"

/* The address of the vDSO's symbol name; the test fails without one. */
static inline void *vdso_symbol(const char *name) {
  const void *base = NULL;
  for (const cloudabi_auxv_t *a = rt_startup.auxv;
       a->a_type != CLOUDABI_AT_NULL; a++)
    if (a->a_type == CLOUDABI_AT_SYSINFO_EHDR)
      base = a->a_ptr;
  RT_CHECK(base != NULL);
  void *sym = (void *)elf_lookup(base, name);
  RT_CHECK(sym != NULL);
  return sym;
}

#endif
