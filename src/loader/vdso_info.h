/* What the supervisor needs to know about the vDSO it embeds. */
#ifndef VDSO_INFO_H
#define VDSO_INFO_H

#include <stdbool.h>
#include <stdint.h>

/* Offsets from the vDSO's load address. */
struct vdso_info {
  uint64_t copy_begin, copy_end, copy_fault;
  uint64_t ioslots; /* the data word pointing at the I/O slots */
  uint64_t det;     /* struct trap_det, for --deterministic */
  uint64_t mirrors; /* uint16_t[MIRROR_FDS], each descriptor's mirror */
};

/* Reads the offsets from the embedded image (the tracing variant when
 * traced); -1 if they are missing. */
int vdso_info_get(bool traced, struct vdso_info *out);

#endif
