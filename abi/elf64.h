/*
 * The few ELF64 definitions that freestanding code (the loader, the vDSO,
 * the guest runtime) needs; the supervisor uses <elf.h> and libelf.
 */
#ifndef CLOUDABI_ELF64_H
#define CLOUDABI_ELF64_H

#include <stdint.h>

typedef struct {
  unsigned char e_ident[16];
  uint16_t e_type;
  uint16_t e_machine;
  uint32_t e_version;
  uint64_t e_entry;
  uint64_t e_phoff;
  uint64_t e_shoff;
  uint32_t e_flags;
  uint16_t e_ehsize;
  uint16_t e_phentsize;
  uint16_t e_phnum;
  uint16_t e_shentsize;
  uint16_t e_shnum;
  uint16_t e_shstrndx;
} elf64_ehdr_t;

typedef struct {
  uint32_t p_type;
  uint32_t p_flags;
  uint64_t p_offset;
  uint64_t p_vaddr;
  uint64_t p_paddr;
  uint64_t p_filesz;
  uint64_t p_memsz;
  uint64_t p_align;
} elf64_phdr_t;

typedef struct {
  int64_t d_tag;
  uint64_t d_val;
} elf64_dyn_t;

typedef struct {
  uint64_t r_offset;
  uint64_t r_info;
  int64_t r_addend;
} elf64_rela_t;

typedef struct {
  uint32_t st_name;
  unsigned char st_info;
  unsigned char st_other;
  uint16_t st_shndx;
  uint64_t st_value;
  uint64_t st_size;
} elf64_sym_t;

enum {
  ELF64_PT_LOAD = 1,
  ELF64_PT_DYNAMIC = 2,
  ELF64_PT_INTERP = 3,
  ELF64_PT_TLS = 7,
  ELF64_PT_GNU_RELRO = 0x6474e552,
  ELF64_PF_X = 1,
  ELF64_PF_W = 2,
  ELF64_PF_R = 4,
  ELF64_DT_NULL = 0,
  ELF64_DT_HASH = 4,
  ELF64_DT_STRTAB = 5,
  ELF64_DT_SYMTAB = 6,
  ELF64_DT_RELA = 7,
  ELF64_DT_RELASZ = 8,
  ELF64_DT_RELAENT = 9,
  ELF64_R_X86_64_RELATIVE = 8,
  ELF64_STB_GLOBAL = 1,
  ELF64_STT_FUNC = 2,
  ELF64_STV_DEFAULT = 0,
  ELF64_OSABI_CLOUDABI = 17,
};

#endif
