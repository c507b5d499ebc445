/*
 * Hand-made ELF files for the loader's tests, one per way a program file
 * can be malformed, built from the smallest executable FreeBSD runs: 300
 * bytes, OS/ABI CloudABI, ET_DYN, one R+X PT_LOAD (offset 0, 0x82 bytes,
 * p_align 0x200000) whose body at the entry point is `jmp .`.  Shared by
 * the unit test (test_elf_check.c) and the generator the end-to-end
 * tests run (mkelf.c).
 */
#ifndef ELF_IMAGES_H
#define ELF_IMAGES_H

#include <stdint.h>
#include <string.h>

#include "elf64.h"

#define IMG_MAX (64 + 65535 * 56 + 4096)
#define IMG_ENTRY 0x80

struct img {
  unsigned char bytes[4096];
  size_t len;
  elf64_ehdr_t *eh;
  elf64_phdr_t *ph; /* at offset 64 */
};

/* The minimal program with n program headers (PT_LOAD first, the rest
 * PT_NULL), n at most 50 so that they fit before the code. */
static inline void img_minimal(struct img *m, unsigned n) {
  memset(m, 0, sizeof(*m));
  m->eh = (elf64_ehdr_t *)m->bytes;
  m->ph = (elf64_phdr_t *)(m->bytes + 64);
  unsigned char *id = m->eh->e_ident;
  id[0] = 0x7f, id[1] = 'E', id[2] = 'L', id[3] = 'F';
  id[4] = 2 /* 64-bit */, id[5] = 1 /* little endian */, id[6] = 1;
  id[7] = ELF64_OSABI_CLOUDABI;
  m->eh->e_type = 3 /* ET_DYN */;
  m->eh->e_machine = 62 /* x86-64 */;
  m->eh->e_version = 1;
  m->eh->e_entry = IMG_ENTRY;
  m->eh->e_phoff = 64;
  m->eh->e_ehsize = 64;
  m->eh->e_phentsize = sizeof(elf64_phdr_t);
  m->eh->e_phnum = (uint16_t)n;
  m->ph[0].p_type = ELF64_PT_LOAD;
  m->ph[0].p_flags = ELF64_PF_R | ELF64_PF_X;
  m->ph[0].p_filesz = m->ph[0].p_memsz = 0x82;
  m->ph[0].p_align = 0x200000;
  /* The code: jmp . (eb fe), after the headers when they overlap it. */
  m->len = 300;
  if (64 + n * sizeof(elf64_phdr_t) > IMG_ENTRY) {
    uint64_t at = (64 + n * sizeof(elf64_phdr_t) + 15) & ~15ull;
    m->eh->e_entry = at;
    m->ph[0].p_filesz = m->ph[0].p_memsz = at + 2;
    m->len = at + 2 > m->len ? at + 2 : m->len;
  }
  m->bytes[m->eh->e_entry] = 0xeb;
  m->bytes[m->eh->e_entry + 1] = 0xfe;
}

/* The attack of the review: the real segment, then PT_LOADs each a page
 * lower, which a check of each against the previous one alone let pass
 * and which shrank the reservation the first segment is mapped into. */
static inline void img_descending(struct img *m) {
  img_minimal(m, 4);
  m->ph[0].p_vaddr = 0x10000;
  m->ph[0].p_offset = 0;
  m->eh->e_entry += 0x10000;
  for (unsigned i = 1; i < 4; i++) {
    m->ph[i].p_type = ELF64_PT_LOAD;
    m->ph[i].p_flags = ELF64_PF_R;
    m->ph[i].p_vaddr = 0x10000 - i * 0x1000;
    m->ph[i].p_memsz = 0x1000;
  }
}

#endif
