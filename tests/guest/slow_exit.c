/*
 * Ends slowly: maps and touches 256 MiB, so that the kernel takes tens of
 * milliseconds to tear the process down after its exit.  The supervisor
 * must wait for the SIGCHLD all that time without asking its listener
 * again and again (tests/e2e/exit_spin.sh).
 */
#include "rt.h"

#define SIZE (256u << 20)

void program_main(const argdata_t *ad) {
  (void)ad;
  void *mem;
  RT_CHECK(cloudabi_sys_mem_map(NULL, SIZE,
                                CLOUDABI_PROT_READ | CLOUDABI_PROT_WRITE,
                                CLOUDABI_MAP_ANON | CLOUDABI_MAP_PRIVATE,
                                CLOUDABI_MAP_ANON_FD, 0, &mem) == 0);
  for (size_t i = 0; i < SIZE; i += 4096)
    ((volatile char *)mem)[i] = 1;
}
