/* File systems no grant may reach; see pseudofs.h. */
#include "pseudofs.h"

#include <linux/magic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/vfs.h>

/* Not in every linux/magic.h. */
#define CONFIGFS_MAGIC 0x62656570
#define FUSECTL_MAGIC 0x65735543
#define MQUEUE_MAGIC 0x19800202

/*
 * A deny-list, not an allow-list: the file systems people store data on
 * are many (ext4, xfs, btrfs, tmpfs, overlay, fuse, nfs, 9p, ...), the
 * ones that are windows into the kernel are few and well known.  mqueue
 * holds other programs' message queues and devpts every terminal of the
 * machine, so both are refused too (except a terminal given as !fd).
 */
static const struct {
  uint64_t magic;
  const char *name;
} denied[] = {
    {PROC_SUPER_MAGIC, "proc"},
    {SYSFS_MAGIC, "sysfs"},
    {DEBUGFS_MAGIC, "debugfs"},
    {TRACEFS_MAGIC, "tracefs"},
    {SECURITYFS_MAGIC, "securityfs"},
    {SELINUX_MAGIC, "selinuxfs"},
    {SMACK_MAGIC, "smackfs"},
    {BPF_FS_MAGIC, "bpf"},
    {CGROUP_SUPER_MAGIC, "cgroup"},
    {CGROUP2_SUPER_MAGIC, "cgroup2"},
    {RDTGROUP_SUPER_MAGIC, "resctrl"},
    {CONFIGFS_MAGIC, "configfs"},
    {PSTOREFS_MAGIC, "pstore"},
    {EFIVARFS_MAGIC, "efivarfs"},
    {FUSECTL_MAGIC, "fusectl"},
    {BINFMTFS_MAGIC, "binfmt_misc"},
    {NSFS_MAGIC, "nsfs"},
    {MQUEUE_MAGIC, "mqueue"},
    {AUTOFS_SUPER_MAGIC, "autofs"},
    {DEVPTS_SUPER_MAGIC, "devpts"},
};

bool pseudofs_fd(int fd, bool allow_pty, const char **name) {
  struct statfs st;
  if (fstatfs(fd, &st) != 0) {
    *name = "unknown";
    return true;
  }
  uint64_t magic = (uint64_t)(uint32_t)st.f_type;
  for (size_t i = 0; i < sizeof(denied) / sizeof(denied[0]); i++) {
    if (denied[i].magic == magic) {
      if (allow_pty && magic == DEVPTS_SUPER_MAGIC)
        return false;
      *name = denied[i].name;
      return true;
    }
  }
  return false;
}
