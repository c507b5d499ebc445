/* Clock reads through Linux's vDSO; see linux_vdso.h. */
#include "linux_vdso.h"

#include <sys/syscall.h>

#include "elf_lookup.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"

typedef long linux_clock_gettime_fn(long clock, void *ts);

/* Set once, before the program runs; read-only after that. */
static linux_clock_gettime_fn *linux_clock_gettime;

/*
 * Called by the loader stub (abi/loader/stub.c) with the address of the
 * ELF header of Linux's vDSO, before the program starts.  Exported under
 * a name that is no CloudABI system call, which crt0s ignore.  A program
 * that calls it itself can only redirect its own clock reads.
 */
VDSO_EXPORT void cloudabi_vdso_init(const void *linux_vdso) {
  if (linux_vdso != NULL)
    linux_clock_gettime = (linux_clock_gettime_fn *)elf_lookup(
        linux_vdso, "__vdso_clock_gettime");
}

long vdso_clock_gettime(long clock, void *ts) {
  if (linux_clock_gettime != NULL)
    return linux_clock_gettime(clock, ts);
  return vdso_syscall2(SYS_clock_gettime, clock, ts);
}
