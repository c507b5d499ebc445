/* Symbol offsets of the embedded vDSO, read from its dynamic symbols. */
#include "vdso_info.h"

#include <elf.h>
#include <stdbool.h>
#include <string.h>

#include "trap.h"

extern const char blob_vdso_start[], blob_vdso_end[];
extern const char blob_vdso_trace_start[], blob_vdso_trace_end[];

static int lookup(bool traced, const char *name, uint64_t *value) {
  const char *img = traced ? blob_vdso_trace_start : blob_vdso_start;
  size_t size = (size_t)(traced ? blob_vdso_trace_end - blob_vdso_trace_start
                                : blob_vdso_end - blob_vdso_start);
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
  if (size < sizeof(*eh) || eh->e_shoff > size ||
      eh->e_shnum > (size - eh->e_shoff) / sizeof(Elf64_Shdr))
    return -1;
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(img + eh->e_shoff);
  for (unsigned i = 0; i < eh->e_shnum; i++) {
    if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh->e_shnum)
      continue;
    const Elf64_Shdr *strs = &sh[sh[i].sh_link];
    const Elf64_Sym *syms = (const Elf64_Sym *)(img + sh[i].sh_offset);
    size_t n = sh[i].sh_size / sizeof(Elf64_Sym);
    for (size_t k = 0; k < n; k++) {
      if (syms[k].st_name >= strs->sh_size)
        continue;
      if (strcmp(img + strs->sh_offset + syms[k].st_name, name) == 0) {
        *value = syms[k].st_value;
        return 0;
      }
    }
  }
  return -1;
}

int vdso_info_get(bool traced, struct vdso_info *out) {
  if (lookup(traced, VDSO_COPY_BEGIN_SYMBOL, &out->copy_begin) != 0 ||
      lookup(traced, VDSO_COPY_END_SYMBOL, &out->copy_end) != 0 ||
      lookup(traced, VDSO_COPY_FAULT_SYMBOL, &out->copy_fault) != 0 ||
      lookup(traced, VDSO_IOSLOTS_SYMBOL, &out->ioslots) != 0 ||
      lookup(traced, VDSO_DET_SYMBOL, &out->det) != 0 ||
      lookup(traced, VDSO_MIRRORS_SYMBOL, &out->mirrors) != 0)
    return -1;
  return 0;
}
