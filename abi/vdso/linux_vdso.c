/* Clock reads through Linux's vDSO; see linux_vdso.h. */
#include "linux_vdso.h"

#include "elf_lookup.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"

vdso_clock_gettime_fn *vdso_linux_clock_gettime;

/*
 * Called by the loader stub (abi/loader/stub.c) with the address of the
 * ELF header of Linux's vDSO, before the program starts.  Exported under
 * a name that is no CloudABI system call, which crt0s ignore.  A program
 * that calls it itself can only redirect its own clock reads.
 */
VDSO_EXPORT void cloudabi_vdso_init(const void *linux_vdso) {
  if (linux_vdso != NULL)
    vdso_linux_clock_gettime = (vdso_clock_gettime_fn *)elf_lookup(
        linux_vdso, "__vdso_clock_gettime");
}
