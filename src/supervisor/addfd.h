/* SECCOMP_IOCTL_NOTIF_ADDFD (Linux 5.9), for headers that predate it:
 * lends.c and mirrors.c put descriptors into a guest with it. */
#ifndef SUPERVISOR_ADDFD_H
#define SUPERVISOR_ADDFD_H

#include <linux/seccomp.h>
#include <linux/types.h>

#ifndef SECCOMP_IOCTL_NOTIF_ADDFD
struct seccomp_notif_addfd {
  __u64 id;
  __u32 flags;
  __u32 srcfd;
  __u32 newfd;
  __u32 newfd_flags;
};
#define SECCOMP_IOCTL_NOTIF_ADDFD SECCOMP_IOW(3, struct seccomp_notif_addfd)
#endif
#ifndef SECCOMP_ADDFD_FLAG_SETFD
#define SECCOMP_ADDFD_FLAG_SETFD (1UL << 0)
#endif

#endif
