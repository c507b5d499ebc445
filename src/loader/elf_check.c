/*
 * Checks a CloudABI executable before anything is started.  The file is
 * hostile input (a program can write the files it later execs), so only
 * the ELF header and the program headers are read, bounded, and judged
 * by the segment planner that the loader stub uses too (segplan.h); the
 * section table is never looked at.
 */
#include "elf_check.h"

#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "segplan.h"
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

/* Reads exactly len bytes at off; false on a short file or an error. */
static bool read_at(int fd, void *buf, size_t len, off_t off) {
  char *p = buf;
  while (len > 0) {
    ssize_t n = pread(fd, p, len, off);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    p += n;
    off += n;
    len -= (size_t)n;
  }
  return true;
}

static const char *plan_error(enum segplan_error e) {
  switch (e) {
  case SEGPLAN_EPHENTSIZE:
    return "program header size is not 56";
  case SEGPLAN_EPHNUM:
    return "no usable program headers (none, or more than 64)";
  case SEGPLAN_EPHOFF:
    return "program headers outside the file";
  case SEGPLAN_ESIZES:
    return "malformed PT_LOAD segment: more file bytes than memory";
  case SEGPLAN_EFILE:
    return "malformed PT_LOAD segment: past the end of the file";
  case SEGPLAN_ECONGRUENT:
    return "malformed PT_LOAD segment: offset and address differ modulo the "
           "page size";
  case SEGPLAN_EALIGN:
    return "malformed PT_LOAD segment: alignment is not a power of two";
  case SEGPLAN_EWRAP:
    return "malformed PT_LOAD segment: its end wraps around";
  case SEGPLAN_EORDER:
    return "PT_LOAD segments unsorted or overlapping";
  case SEGPLAN_ESPAN:
    return "PT_LOAD segments span more than 4 GiB";
  case SEGPLAN_ENOLOAD:
    return "no loadable segments";
  case SEGPLAN_EENTRY:
    return "entry point outside the loaded segments";
  default:
    return "malformed program headers";
  }
}

int elf_check(int fd, struct elf_info *info, char *why, size_t why_size) {
  struct stat st;
  if (fstat(fd, &st) != 0)
    return fail(why, why_size, "cannot stat the file", 0, NULL);
  if (S_ISDIR(st.st_mode))
    return fail(why, why_size, "is a directory", 0, NULL);
  if (!S_ISREG(st.st_mode))
    return fail(why, why_size, "not a regular file", 0, NULL);
  elf64_ehdr_t eh;
  const unsigned char *id = eh.e_ident;
  if (!read_at(fd, &eh, sizeof(eh), 0) || id[EI_MAG0] != ELFMAG0 ||
      id[EI_MAG1] != ELFMAG1 || id[EI_MAG2] != ELFMAG2 ||
      id[EI_MAG3] != ELFMAG3)
    return fail(why, why_size, "not an ELF file", 0, NULL);
  if (id[EI_CLASS] != ELFCLASS64)
    return fail(why, why_size, "not a 64-bit ELF file", 0, NULL);
  if (id[EI_DATA] != ELFDATA2LSB)
    return fail(why, why_size, "not a little-endian ELF file", 0, NULL);
  if (id[EI_OSABI] != ELF64_OSABI_CLOUDABI)
    return fail(why, why_size, "OS/ABI is", id[EI_OSABI],
                osabi_name(id[EI_OSABI]));
  if (eh.e_machine != EM_X86_64)
    return fail(why, why_size, "machine is not x86-64:", eh.e_machine,
                "e_machine");
  if (eh.e_type != ET_DYN)
    return fail(why, why_size,
                "not a position-independent executable: e_type is",
                eh.e_type, eh.e_type == ET_EXEC ? "ET_EXEC" : "not ET_DYN");
  uint64_t size = (uint64_t)st.st_size;
  enum segplan_error e = segplan_header(&eh, size);
  if (e != SEGPLAN_OK)
    return fail(why, why_size, plan_error(e), 0, NULL);
  elf64_phdr_t ph[SEGPLAN_MAX_PHDRS];
  if (!read_at(fd, ph, eh.e_phnum * sizeof(ph[0]), (off_t)eh.e_phoff))
    return fail(why, why_size, "unreadable program headers", 0, NULL);
  for (unsigned i = 0; i < eh.e_phnum; i++)
    if (ph[i].p_type == PT_INTERP)
      return fail(why, why_size,
                  "has an interpreter (PT_INTERP): not a static executable",
                  0, NULL);
  struct segplan plan;
  if ((e = segplan(&eh, ph, size, 1, &plan)) != SEGPLAN_OK)
    return fail(why, why_size, plan_error(e), 0, NULL);
  info->entry = eh.e_entry;
  info->phoff = eh.e_phoff;
  info->phnum = eh.e_phnum;
  info->nload = plan.nload;
  info->span = plan.hi - plan.lo;
  info->file_size = size;
  return 0;
}
