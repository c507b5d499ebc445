/*
 * The segment planner: from an ELF header and its program headers to the
 * span the loader reserves, or a refusal.  One pure function, with no
 * I/O and no library, used by both the supervisor's check (elf_check.c)
 * and the loader stub, so that what was checked is what is mapped: the
 * stub maps segments with MAP_FIXED inside the reservation this sizes,
 * before the seccomp filter is installed, so a planner that let a
 * segment reach past it would let a program file overwrite the stub.
 *
 * Accepted: 1 to SEGPLAN_MAX_PHDRS program headers inside the file; at
 * least one PT_LOAD with a non-empty memory image; PT_LOADs sorted by
 * address and not overlapping (two may share a page, as lld's packed
 * layout does), each with p_filesz <= p_memsz, its file bytes inside the
 * file, its offset congruent to its address modulo the page size, a
 * power-of-two alignment (or 0 or 1), and no sum that wraps; all of them
 * within SEGPLAN_MAX_SPAN bytes; for a program (not the vDSO, which is
 * entered by symbol), the entry point inside a segment.
 * PT_LOADs with an empty memory image map nothing and are ignored.
 */
#ifndef SEGPLAN_H
#define SEGPLAN_H

#include <stdint.h>

#include "elf64.h"

#define SEGPLAN_PAGE 4096u
#define SEGPLAN_MAX_PHDRS 64u
#define SEGPLAN_MAX_SPAN ((uint64_t)1 << 32)

struct segplan {
  uint64_t lo, hi; /* page-aligned: the reservation is [lo, hi) + base */
  unsigned nload;  /* PT_LOADs that map something */
};

/* Why a file was refused, for the supervisor's message. */
enum segplan_error {
  SEGPLAN_OK,
  SEGPLAN_EPHENTSIZE,
  SEGPLAN_EPHNUM,
  SEGPLAN_EPHOFF,
  SEGPLAN_ESIZES,
  SEGPLAN_EFILE,
  SEGPLAN_ECONGRUENT,
  SEGPLAN_EALIGN,
  SEGPLAN_EWRAP,
  SEGPLAN_EORDER,
  SEGPLAN_ESPAN,
  SEGPLAN_ENOLOAD,
  SEGPLAN_EENTRY,
};

/* Checks the header alone: where the program headers are. */
static inline enum segplan_error segplan_header(const elf64_ehdr_t *eh,
                                                uint64_t file_size) {
  if (eh->e_phentsize != sizeof(elf64_phdr_t))
    return SEGPLAN_EPHENTSIZE;
  if (eh->e_phnum == 0 || eh->e_phnum > SEGPLAN_MAX_PHDRS)
    return SEGPLAN_EPHNUM;
  uint64_t len = (uint64_t)eh->e_phnum * sizeof(elf64_phdr_t);
  if (eh->e_phoff > file_size || len > file_size - eh->e_phoff)
    return SEGPLAN_EPHOFF;
  return SEGPLAN_OK;
}

/* Plans the PT_LOADs of ph[0 .. eh->e_phnum), which segplan_header
 * accepted; fills *out only on SEGPLAN_OK. */
static inline enum segplan_error segplan(const elf64_ehdr_t *eh,
                                         const elf64_phdr_t *ph,
                                         uint64_t file_size, int need_entry,
                                         struct segplan *out) {
  const uint64_t page = SEGPLAN_PAGE;
  uint64_t lo = 0, hi = 0, prev_end = 0;
  unsigned nload = 0;
  int entry_inside = 0;
  for (unsigned i = 0; i < eh->e_phnum; i++) {
    const elf64_phdr_t *p = &ph[i];
    if (p->p_type != ELF64_PT_LOAD || p->p_memsz == 0)
      continue;
    if (p->p_filesz > p->p_memsz)
      return SEGPLAN_ESIZES;
    if (p->p_filesz > 0 && (p->p_offset > file_size ||
                            p->p_filesz > file_size - p->p_offset))
      return SEGPLAN_EFILE;
    if ((p->p_offset % page) != (p->p_vaddr % page))
      return SEGPLAN_ECONGRUENT;
    if (p->p_align > 1 && (p->p_align & (p->p_align - 1)) != 0)
      return SEGPLAN_EALIGN;
    /* The end, rounded up to a page, must not wrap. */
    if (p->p_vaddr > UINT64_MAX - p->p_memsz ||
        p->p_vaddr + p->p_memsz > UINT64_MAX - (page - 1))
      return SEGPLAN_EWRAP;
    uint64_t end = p->p_vaddr + p->p_memsz;
    if (nload > 0 && p->p_vaddr < prev_end)
      return SEGPLAN_EORDER;
    if (nload == 0)
      lo = p->p_vaddr & ~(page - 1);
    hi = (end + page - 1) & ~(page - 1);
    if (hi - lo > SEGPLAN_MAX_SPAN)
      return SEGPLAN_ESPAN;
    if (eh->e_entry >= p->p_vaddr && eh->e_entry < end)
      entry_inside = 1;
    prev_end = end;
    nload++;
  }
  if (nload == 0)
    return SEGPLAN_ENOLOAD;
  if (need_entry && !entry_inside)
    return SEGPLAN_EENTRY;
  out->lo = lo;
  out->hi = hi;
  out->nload = nload;
  return SEGPLAN_OK;
}

#endif
