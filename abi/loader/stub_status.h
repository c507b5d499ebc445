/* Exit statuses of the loader stub, shared with the supervisor. */
#ifndef STUB_STATUS_H
#define STUB_STATUS_H

#define STUB_EBLOCK 240       /* bad launch block */
#define STUB_EELF 241         /* program or vDSO not loadable */
#define STUB_ENOMEM 242       /* out of memory while mapping */
#define STUB_EMAP 243         /* mapping a segment failed */
#define STUB_E2BIG 244        /* argument data too large for the stack */
#define STUB_EFS 245          /* setting the %fs base failed */
#define STUB_EFILTER 246      /* installing the seccomp filter failed */
#define STUB_EFILTERFLAGS 247 /* the kernel refused the filter flags */
#define STUB_EBOOT 248        /* the supervisor refused the start */
/* 249: the child could not exec the stub (src/loader/spawn.c) */
#define STUB_EGO 250          /* the supervisor did not start us */

#endif
