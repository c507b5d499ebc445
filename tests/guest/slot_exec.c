/*
 * The I/O slot region, where the supervisor writes file data, can never
 * be made executable, nor replaced or moved by the program (issue 11.6):
 * raw mprotect, mmap MAP_FIXED over it, munmap and mremap all fail, and
 * the data path still works after.  The region is found as a hostile
 * program would: through the vDSO's symbol table.  Config: out (stdout).
 */
#include "rt.h"
#include "vdso_symbol.h"
#include "trap.h"

enum { NR_mmap = 9, NR_mprotect = 10, NR_munmap = 11, NR_mremap = 25 };

static unsigned refused, allowed;

static void expect_refused(cloudabi_fd_t out, const char *what, long r) {
  if (r < 0 && r > -4096) {
    refused++;
    return;
  }
  allowed++;
  rt_printf(out, "ALLOWED %s: %ld\n", what, r);
}

void program_main(const argdata_t *ad) {
  cloudabi_fd_t out = rt_map_fd(ad, "out");
  const long *word = vdso_symbol(VDSO_IOSLOTS_SYMBOL);
  RT_CHECK(word != NULL);
  /* A first call through the slots, so the region is in use. */
  RT_EXPECT(rt_printf(out, "slots at %p\n", (void *)*word), 0);
  long io = *word;
  RT_CHECK(io != 0);
  const long size = IOSLOT_REGION_SIZE, rx = 5 /* PROT_READ | PROT_EXEC */;
  expect_refused(out, "mprotect r-x",
                 rt_raw_syscall(NR_mprotect, io, size, rx, 0, 0, 0));
  expect_refused(out, "mprotect --x one slot",
                 rt_raw_syscall(NR_mprotect, io + IOSLOT_OFFSET(3),
                                IOSLOT_SIZE, 4, 0, 0, 0));
  expect_refused(out, "mprotect r-- last page",
                 rt_raw_syscall(NR_mprotect, io + size - 4096, 4096, 1, 0, 0, 0));
  expect_refused(out, "mmap MAP_FIXED r-x over it",
                 rt_raw_syscall(NR_mmap, io, 4096, rx,
                                0x32 /* MAP_PRIVATE|MAP_ANONYMOUS|MAP_FIXED */,
                                -1, 0));
  expect_refused(out, "munmap",
                 rt_raw_syscall(NR_munmap, io + IOSLOT_OFFSET(1), 4096, 0, 0,
                                0, 0));
  /* mremap is not in the filter at all: it would end the program, so
   * that it is refused is the escape suite's to show, not this test's. */
  (void)NR_mremap;
  /* The data path still works. */
  RT_EXPECT(rt_printf(out, "slot_exec: %u refused, %u allowed\n", refused,
                      allowed),
            0);
}
