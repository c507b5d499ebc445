/*
 * The launch block: everything the loader stub needs to start a guest,
 * written by the supervisor (src/loader/spawn.c) into a memfd that the stub maps
 * at descriptor LAUNCH_FD_BLOCK.  Offsets are from the block's start.
 */
#ifndef LAUNCH_BLOCK_H
#define LAUNCH_BLOCK_H

#include <stdint.h>

#define LAUNCH_MAGIC 0x434c4f5544414249ull /* "CLOUDABI" */

/* Descriptors the stub finds open; everything else is closed. */
#define LAUNCH_FD_BLOCK 3
#define LAUNCH_FD_PROGRAM 4
#define LAUNCH_FD_VDSO 5
#define LAUNCH_FD_SYNC 6
#define LAUNCH_FD_IOSLOTS 7 /* the shared I/O slots (trap.h) */
/* One byte arrives once the supervisor traces the stub and has set its
 * limits; the stub waits for it before anything else. */
#define LAUNCH_FD_GO 8
/* How many the child hands over: these six and the stub itself (9, closed
 * by the exec). */
#define LAUNCH_FDS 7
/* After the stub closed 0..2 and installed the filter, the listener is the
 * lowest free descriptor. */
#define LAUNCH_FD_LISTENER 0

struct launch_block {
  uint64_t magic;
  uint64_t size;              /* of the whole block */
  uint64_t argdata_off, argdata_len;
  uint64_t filter_off;        /* struct sock_filter[filter_len] */
  uint64_t filter_len;
  uint64_t seccomp_flags;     /* SECCOMP_FILTER_FLAG_* for the install */
  uint64_t stack_size;
  uint64_t ncpus;
  uint64_t boot_nr;           /* the private rendezvous call */
  uint8_t canary[64];
  uint8_t pid[16];            /* a version 4 UUID */
};

#endif
