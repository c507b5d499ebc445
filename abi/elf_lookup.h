/*
 * Finding a symbol in an ELF shared object that is mapped in memory and
 * was never relocated: Linux's vDSO, or ours.  Freestanding (used by the
 * loader stub and the vDSO): PT_DYNAMIC's DT_HASH, DT_SYMTAB and
 * DT_STRTAB, searched linearly; addresses are link-time values plus the
 * load bias.  The image must start with its ELF header, mapped by its
 * first PT_LOAD segment, as both vDSOs are.
 */
#ifndef CLOUDABI_ELF_LOOKUP_H
#define CLOUDABI_ELF_LOOKUP_H

#include <stddef.h>
#include <stdint.h>

#include "elf64.h"

static inline int elf_lookup_name_is(const char *a, const char *b) {
  while (*a != '\0' && *a == *b) {
    a++;
    b++;
  }
  return *a == *b;
}

/* The address of the defined symbol `name`, or 0. */
static inline uintptr_t elf_lookup(const void *image, const char *name) {
  const char *base = image;
  const elf64_ehdr_t *eh = image;
  const elf64_phdr_t *ph = (const elf64_phdr_t *)(base + eh->e_phoff);
  uintptr_t bias = 0;
  const elf64_dyn_t *dyn = NULL;
  int have_bias = 0;
  for (unsigned i = 0; i < eh->e_phnum; i++) {
    if (ph[i].p_type == ELF64_PT_LOAD && !have_bias) {
      bias = (uintptr_t)image + ph[i].p_offset - ph[i].p_vaddr;
      have_bias = 1;
    }
  }
  for (unsigned i = 0; have_bias && i < eh->e_phnum; i++)
    if (ph[i].p_type == ELF64_PT_DYNAMIC)
      dyn = (const elf64_dyn_t *)(bias + ph[i].p_vaddr);
  if (dyn == NULL)
    return 0;
  const uint32_t *hash = NULL;
  const elf64_sym_t *symtab = NULL;
  const char *strtab = NULL;
  for (; dyn->d_tag != ELF64_DT_NULL; dyn++) {
    if (dyn->d_tag == ELF64_DT_HASH)
      hash = (const uint32_t *)(bias + dyn->d_val);
    else if (dyn->d_tag == ELF64_DT_SYMTAB)
      symtab = (const elf64_sym_t *)(bias + dyn->d_val);
    else if (dyn->d_tag == ELF64_DT_STRTAB)
      strtab = (const char *)(bias + dyn->d_val);
  }
  if (hash == NULL || symtab == NULL || strtab == NULL)
    return 0;
  for (uint32_t i = 1; i < hash[1]; i++)
    if (symtab[i].st_shndx != 0 && symtab[i].st_value != 0 &&
        elf_lookup_name_is(strtab + symtab[i].st_name, name))
      return bias + symtab[i].st_value;
  return 0;
}

#endif
