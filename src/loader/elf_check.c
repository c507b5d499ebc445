/* Checks a CloudABI executable with libelf before anything is started. */
#include "elf_check.h"

#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>

#define PAGE 4096u

static const char *osabi_name(unsigned v) {
  switch (v) {
  case ELFOSABI_SYSV:
    return "System V";
  case ELFOSABI_HPUX:
    return "HP-UX";
  case ELFOSABI_NETBSD:
    return "NetBSD";
  case ELFOSABI_GNU:
    return "GNU/Linux";
  case ELFOSABI_SOLARIS:
    return "Solaris";
  case ELFOSABI_FREEBSD:
    return "FreeBSD";
  case ELFOSABI_OPENBSD:
    return "OpenBSD";
  case 17:
    return "CloudABI";
  default:
    return "unknown";
  }
}

static int fail(char *why, size_t size, const char *msg, unsigned long v,
                const char *name) {
  if (name != NULL)
    snprintf(why, size, "%s %lu (%s)", msg, v, name);
  else
    snprintf(why, size, "%s", msg);
  return -1;
}

int elf_check(int fd, struct elf_info *info, char *why, size_t why_size) {
  struct stat st;
  if (fstat(fd, &st) != 0)
    return fail(why, why_size, "cannot stat the file", 0, NULL);
  if (S_ISDIR(st.st_mode))
    return fail(why, why_size, "is a directory", 0, NULL);
  if (!S_ISREG(st.st_mode))
    return fail(why, why_size, "not a regular file", 0, NULL);
  if (elf_version(EV_CURRENT) == EV_NONE)
    return fail(why, why_size, "libelf is unusable", 0, NULL);
  Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
  if (elf == NULL || elf_kind(elf) != ELF_K_ELF) {
    if (elf != NULL)
      elf_end(elf);
    return fail(why, why_size, "not an ELF file", 0, NULL);
  }
  int result = -1;
  size_t ident_len;
  const char *ident = elf_getident(elf, &ident_len);
  GElf_Ehdr eh;
  if (ident == NULL || ident_len < EI_NIDENT || gelf_getehdr(elf, &eh) == NULL) {
    fail(why, why_size, "unreadable ELF header", 0, NULL);
  } else if (ident[EI_CLASS] != ELFCLASS64) {
    fail(why, why_size, "not a 64-bit ELF file", 0, NULL);
  } else if (ident[EI_DATA] != ELFDATA2LSB) {
    fail(why, why_size, "not a little-endian ELF file", 0, NULL);
  } else if ((unsigned char)ident[EI_OSABI] != 17) {
    fail(why, why_size, "OS/ABI is", (unsigned char)ident[EI_OSABI],
         osabi_name((unsigned char)ident[EI_OSABI]));
  } else if (eh.e_machine != EM_X86_64) {
    fail(why, why_size, "machine is not x86-64:", eh.e_machine, "e_machine");
  } else if (eh.e_type != ET_DYN) {
    fail(why, why_size, "not a position-independent executable: e_type is",
         eh.e_type, eh.e_type == ET_EXEC ? "ET_EXEC" : "not ET_DYN");
  } else {
    size_t phnum;
    bool ok = elf_getphdrnum(elf, &phnum) == 0 && phnum > 0 && phnum < 1024;
    if (!ok)
      fail(why, why_size, "no usable program headers", 0, NULL);
    uint64_t lo = UINT64_MAX, hi = 0;
    size_t nload = 0;
    for (size_t i = 0; ok && i < phnum; i++) {
      GElf_Phdr ph;
      if (gelf_getphdr(elf, (int)i, &ph) == NULL) {
        ok = false;
        fail(why, why_size, "unreadable program header", 0, NULL);
      } else if (ph.p_type == PT_INTERP) {
        ok = false;
        fail(why, why_size,
             "has an interpreter (PT_INTERP): not a static executable", 0,
             NULL);
      } else if (ph.p_type == PT_LOAD) {
        nload++;
        if (ph.p_filesz > ph.p_memsz || ph.p_offset > (uint64_t)st.st_size ||
            ph.p_filesz > (uint64_t)st.st_size - ph.p_offset ||
            ph.p_vaddr > (1ull << 46) || ph.p_memsz > (1ull << 46) ||
            (ph.p_offset % PAGE) != (ph.p_vaddr % PAGE)) {
          ok = false;
          fail(why, why_size, "malformed PT_LOAD segment", 0, NULL);
        } else {
          uint64_t start = ph.p_vaddr & ~(uint64_t)(PAGE - 1);
          uint64_t end = (ph.p_vaddr + ph.p_memsz + PAGE - 1) & ~(uint64_t)(PAGE - 1);
          if (start < lo)
            lo = start;
          if (end > hi)
            hi = end;
        }
      }
    }
    if (ok && nload == 0) {
      ok = false;
      fail(why, why_size, "no loadable segments", 0, NULL);
    }
    if (ok && (eh.e_entry < lo || eh.e_entry >= hi)) {
      ok = false;
      fail(why, why_size, "entry point outside the loaded segments", 0, NULL);
    }
    if (ok) {
      info->entry = eh.e_entry;
      info->phoff = eh.e_phoff;
      info->phnum = (uint16_t)phnum;
      info->nload = nload;
      info->span = hi - lo;
      info->file_size = (uint64_t)st.st_size;
      result = 0;
    }
  }
  elf_end(elf);
  return result;
}
