/* Checking that a file is a CloudABI executable we can load. */
#ifndef ELF_CHECK_H
#define ELF_CHECK_H

#include <stddef.h>
#include <stdint.h>

/* What the loader needs to know about a checked executable. */
struct elf_info {
  uint64_t entry;
  uint64_t phoff;
  uint16_t phnum;
  size_t nload;       /* PT_LOAD segments */
  uint64_t span;      /* bytes from the lowest to the highest loaded page */
  uint64_t file_size;
};

/*
 * Checks the executable open at fd: ELF64, little endian, x86-64, OS/ABI
 * CloudABI, ET_DYN, no PT_INTERP, and program headers that the segment
 * planner (abi/loader/segplan.h) accepts, as the loader stub will.  Reads
 * the ELF header and at most 64 program headers, nothing else.  On failure
 * writes one line of explanation (without a newline) into why and returns
 * -1.
 */
int elf_check(int fd, struct elf_info *info, char *why, size_t why_size);

#endif
