/*
 * --deterministic's state (det.h, trap.h): used under its hidden name, so
 * that no access needs a relocation, and exported under another for the
 * supervisor to find.
 */
#include "det.h"

VDSO_HIDDEN struct trap_det cloudabi_vdso_det_state;
extern struct trap_det cloudabi_vdso_det
    __attribute__((alias("cloudabi_vdso_det_state"), visibility("default")));
