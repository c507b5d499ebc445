/*
 * libFuzzer target for the program file as hostile input: the input is
 * the file.  elf_check reads it from a memfd, as the supervisor reads the
 * sealed copy; the segment planner the loader stub shares (segplan.h)
 * runs on the same bytes.  What must hold, besides no crash, leak or read
 * outside the buffer: an accepted file's plan covers every PT_LOAD that
 * maps something, in order, without overlap, inside the span bound and,
 * where it has file bytes, inside the file; and elf_check agrees with
 * the planner.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "loader/elf_check.h"
#include "segplan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "fuzz_elf: check failed: %s\n", #cond);                  \
      abort();                                                                 \
    }                                                                          \
  } while (0)

/* The planner alone; returns whether it accepted, checking its plan. */
static int plan_and_verify(const uint8_t *data, size_t size) {
  elf64_ehdr_t eh;
  if (size < sizeof(eh))
    return 0;
  memcpy(&eh, data, sizeof(eh));
  if (segplan_header(&eh, size) != SEGPLAN_OK)
    return 0;
  elf64_phdr_t ph[SEGPLAN_MAX_PHDRS];
  memcpy(ph, data + eh.e_phoff, eh.e_phnum * sizeof(ph[0]));
  struct segplan plan;
  if (segplan(&eh, ph, size, 1, &plan) != SEGPLAN_OK)
    return 0;
  CHECK(plan.lo % SEGPLAN_PAGE == 0 && plan.hi % SEGPLAN_PAGE == 0);
  CHECK(plan.lo < plan.hi && plan.hi - plan.lo <= SEGPLAN_MAX_SPAN);
  CHECK(plan.nload > 0 && plan.nload <= eh.e_phnum);
  uint64_t prev_end = 0;
  unsigned seen = 0;
  int entry_inside = 0;
  for (unsigned i = 0; i < eh.e_phnum; i++) {
    const elf64_phdr_t *p = &ph[i];
    if (p->p_type != ELF64_PT_LOAD || p->p_memsz == 0)
      continue;
    CHECK(p->p_vaddr >= plan.lo && p->p_vaddr + p->p_memsz > p->p_vaddr);
    CHECK(p->p_vaddr + p->p_memsz <= plan.hi);
    CHECK(seen == 0 || p->p_vaddr >= prev_end);
    CHECK(p->p_filesz <= p->p_memsz);
    CHECK(p->p_filesz == 0 ||
          (p->p_offset <= size && p->p_filesz <= size - p->p_offset));
    if (eh.e_entry >= p->p_vaddr && eh.e_entry - p->p_vaddr < p->p_memsz)
      entry_inside = 1;
    prev_end = p->p_vaddr + p->p_memsz;
    seen++;
  }
  CHECK(seen == plan.nload && entry_inside);
  return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int planned = plan_and_verify(data, size);
  int fd = memfd_create("fuzz_elf", MFD_CLOEXEC);
  CHECK(fd >= 0);
  CHECK(size == 0 || write(fd, data, size) == (ssize_t)size);
  struct elf_info info;
  char why[256];
  why[0] = '\0';
  int r = elf_check(fd, &info, why, sizeof(why));
  close(fd);
  if (r == 0) {
    /* The check accepts only what the stub's planner accepts. */
    CHECK(planned);
    CHECK(info.nload > 0 && info.span > 0 && info.span <= SEGPLAN_MAX_SPAN);
    CHECK(info.file_size == size);
  } else {
    CHECK(r == -1 && why[0] != '\0' && memchr(why, '\0', sizeof(why)));
  }
  return 0;
}
