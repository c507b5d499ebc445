/* The supervisor's own confinement: prctl and Landlock; see confine.h. */
#include "confine.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cloudabi_types.h"
#include "landlock_abi.h"

#define R(name) CLOUDABI_RIGHT_##name

static int landlock_abi(void) {
#ifdef SYS_landlock_create_ruleset
  long v = syscall(SYS_landlock_create_ruleset, NULL, 0,
                   LL_CREATE_RULESET_VERSION);
  return v > 0 ? (int)v : 0;
#else
  return 0;
#endif
}

static void note(struct confine_layers *l, const char *what) {
  size_t n = strlen(l->missing);
  snprintf(l->missing + n, sizeof(l->missing) - n, "%s%s", n ? "; " : "",
           what);
}

void confine_probe(struct confine_layers *out, int (*abi_cap)(int abi)) {
  memset(out, 0, sizeof(*out));
  out->no_new_privs = true;
  out->not_dumpable = true;
  out->seccomp = true;
  out->landlock_abi = landlock_abi();
  if (abi_cap != NULL)
    out->landlock_abi = abi_cap(out->landlock_abi);
  /* ABI 1 cannot allow a rename or link across directories at all. */
  out->landlock = out->landlock_abi >= 2;
  out->landlock_net = out->landlock_abi >= 4;
  out->landlock_scoped = out->landlock_abi >= 6;
  if (out->landlock_abi == 0)
    note(out, "no Landlock in this kernel: file access is not confined");
  else if (out->landlock_abi < 2)
    note(out, "Landlock ABI 1 cannot allow renames across directories: "
              "file access is not confined");
  else if (!out->landlock_net)
    note(out, "Landlock ABI < 4: TCP is refused only by the seccomp filter");
}

/* Every file-system right this ABI knows: the ones the ruleset handles. */
static uint64_t handled_fs(int abi) {
  uint64_t a = (LL_FS_MAKE_SYM << 1) - 1; /* ABI 1 */
  if (abi >= 2)
    a |= LL_FS_REFER;
  if (abi >= 3)
    a |= LL_FS_TRUNCATE;
  if (abi >= 5)
    a |= LL_FS_IOCTL_DEV;
  return a;
}

/*
 * What the supervisor may do beneath a directory granted with rights r
 * (base and inheriting together: the rule covers the whole tree).  The
 * capability table decides each call exactly; this is the bound a
 * compromised supervisor cannot cross.  Never EXECUTE (proc_exec reads
 * through a descriptor and runs a sealed copy), never devices made: mknod is not in the seccomp filter either.
 */
static uint64_t dir_access(cloudabi_rights_t r) {
  uint64_t a = 0;
  /* file_open opens everything at least for reading (calls/file_open.c)
   * and asks isatty of devices; which ioctls are made at all is the
   * seccomp filter's bound. */
  if (r & R(FILE_OPEN))
    a |= LL_FS_READ_FILE | LL_FS_READ_DIR | LL_FS_IOCTL_DEV;
  if (r & (R(FD_WRITE) | R(FILE_ALLOCATE)))
    a |= LL_FS_WRITE_FILE | LL_FS_TRUNCATE;
  if (r & R(FILE_STAT_FPUT_SIZE))
    a |= LL_FS_TRUNCATE;
  if (r & R(FILE_READDIR))
    a |= LL_FS_READ_DIR;
  if (r & R(FILE_CREATE_DIRECTORY))
    a |= LL_FS_MAKE_DIR;
  if (r & R(FILE_CREATE_FILE))
    a |= LL_FS_MAKE_REG;
  if (r & R(FILE_SYMLINK))
    a |= LL_FS_MAKE_SYM;
  if (r & R(FILE_UNLINK))
    a |= LL_FS_REMOVE_FILE | LL_FS_REMOVE_DIR;
  /* Moving or linking in any kind of file, over any existing one. */
  uint64_t make_any = LL_FS_MAKE_REG | LL_FS_MAKE_DIR | LL_FS_MAKE_SYM |
                      LL_FS_MAKE_SOCK | LL_FS_MAKE_FIFO | LL_FS_MAKE_CHAR |
                      LL_FS_MAKE_BLOCK;
  if (r & R(FILE_RENAME_SOURCE))
    a |= LL_FS_REFER | LL_FS_REMOVE_FILE | LL_FS_REMOVE_DIR;
  if (r & R(FILE_RENAME_TARGET))
    a |= LL_FS_REFER | make_any | LL_FS_REMOVE_FILE | LL_FS_REMOVE_DIR;
  if (r & R(FILE_LINK_SOURCE))
    a |= LL_FS_REFER;
  if (r & R(FILE_LINK_TARGET))
    a |= LL_FS_REFER | make_any;
  return a;
}

/* A pipe or device is reopened non-blocking through /proc/self/fd with
 * its own access mode (host/hostio.c), after the ruleset is on. */
static uint64_t reopen_access(int fd) {
  int fl = fcntl(fd, F_GETFL);
  if (fl < 0)
    return 0;
  int mode = fl & O_ACCMODE;
  uint64_t a = 0;
  if (mode == O_RDONLY || mode == O_RDWR)
    a |= LL_FS_READ_FILE;
  if (mode == O_WRONLY || mode == O_RDWR)
    a |= LL_FS_WRITE_FILE;
  return a;
}

static int add_rule(int ruleset, int fd, uint64_t access) {
  if (access == 0)
    return 0;
  struct ll_path_beneath_attr pb = {.allowed_access = access,
                                    .parent_fd = fd};
  return (int)syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH,
                      &pb, 0);
}

/* A rule for each granted directory or file; /proc readable, for the
 * supervisor's reports on its guests (which the Landlock domain limits
 * to the guests themselves: other processes' /proc files that need
 * ptrace access are refused). */
static int add_rules(int ruleset, int abi, const struct launch_config *lc,
                     char *why, size_t why_size) {
  uint64_t handled = handled_fs(abi);
  for (size_t i = 0; i < lc->nfds; i++) {
    int fd = lc->fds[i].host_fd;
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0)
      continue;
    cloudabi_rights_t r =
        lc->fds[i].rights.base | lc->fds[i].rights.inheriting;
    uint64_t a = dir_access(r) & handled;
    if (S_ISDIR(st.st_mode))
      ; /* the whole tree */
    else if (S_ISREG(st.st_mode))
      a &= LL_FS_FILE_ONLY;
    else if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
      /* For hostio_prepare's reopen.  An anonymous pipe has no path
       * (EBADFD), and Landlock does not check its reopen either. */
      if (add_rule(ruleset, fd, reopen_access(fd) & handled) != 0 &&
          errno != EBADFD) {
        snprintf(why, why_size, "Landlock rule for descriptor %zu: %s", i,
                 strerror(errno));
        return -1;
      }
      continue;
    } else
      continue; /* sockets: nothing opened by path */
    if (add_rule(ruleset, fd, a) != 0) {
      snprintf(why, why_size, "Landlock rule for descriptor %zu: %s", i,
               strerror(errno));
      return -1;
    }
  }
  int proc = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (proc >= 0) {
    int e = add_rule(ruleset, proc, LL_FS_READ_FILE | LL_FS_READ_DIR);
    close(proc);
    if (e != 0) {
      snprintf(why, why_size, "Landlock rule for /proc: %s", strerror(errno));
      return -1;
    }
  }
  return 0;
}

static int landlock_apply(const struct launch_config *lc,
                          struct confine_layers *l, char *why,
                          size_t why_size) {
  int abi = l->landlock_abi;
  struct ll_ruleset_attr attr = {.handled_access_fs = handled_fs(abi)};
  size_t size = sizeof(attr.handled_access_fs);
  if (l->landlock_net) {
    /* Handled with no rule: no TCP bind or connect at all. */
    attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
    size = offsetof(struct ll_ruleset_attr, scoped);
  }
  if (l->landlock_scoped) {
    /* Signals and abstract sockets only within the domain: the guests. */
    attr.scoped = LL_SCOPE_SIGNAL | LL_SCOPE_ABSTRACT_UNIX_SOCKET;
    size = sizeof(attr);
  }
  int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
  if (ruleset < 0) {
    snprintf(why, why_size, "Landlock ruleset: %s", strerror(errno));
    return -1;
  }
  int r = add_rules(ruleset, abi, lc, why, why_size);
  if (r == 0 && syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) {
    snprintf(why, why_size, "Landlock: %s", strerror(errno));
    r = -1;
  }
  close(ruleset);
  return r;
}

int confine_self(const struct launch_config *lc, int (*abi_cap)(int abi),
                 struct confine_layers *out, char *why, size_t why_size) {
  confine_probe(out, abi_cap);
  /* Required by Landlock and seccomp without CAP_SYS_ADMIN; also keeps
   * any exec (there is only the loader stub's) from gaining privileges. */
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    snprintf(why, why_size, "no_new_privs: %s", strerror(errno));
    return -1;
  }
  /* Other processes of the user may not ptrace us or read our memory;
   * forked children make themselves dumpable again for the seize
   * (loader/spawn.c), and exec resets it for the guest. */
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
    snprintf(why, why_size, "PR_SET_DUMPABLE: %s", strerror(errno));
    return -1;
  }
  if (out->landlock && landlock_apply(lc, out, why, why_size) != 0)
    return -1;
  if (confine_filter_install(why, why_size) != 0)
    return -1;
  return 0;
}

static const char *tf(bool b) { return b ? "true" : "false"; }

void confine_layers_json(const struct confine_layers *l, char *buf,
                         size_t size) {
  snprintf(buf, size,
           "{\"no_new_privs\": %s, \"not_dumpable\": %s, \"landlock\": %s, "
           "\"landlock_abi\": %d, \"landlock_net\": %s, "
           "\"landlock_scoped\": %s, \"seccomp\": %s}",
           tf(l->no_new_privs), tf(l->not_dumpable), tf(l->landlock),
           l->landlock_abi, tf(l->landlock_net), tf(l->landlock_scoped),
           tf(l->seccomp));
}

void confine_layers_text(const struct confine_layers *l, char *buf,
                         size_t size) {
  int n = snprintf(buf, size, "confined by no_new_privs, not dumpable, %s",
                   l->seccomp ? "its own seccomp filter" : "no seccomp filter");
  if (n < 0 || (size_t)n >= size)
    return;
  if (l->landlock)
    snprintf(buf + n, size - (size_t)n,
             ", Landlock ABI %d (files beneath the grants%s%s)",
             l->landlock_abi, l->landlock_net ? ", no TCP" : "",
             l->landlock_scoped ? ", signals to the guests only" : "");
  else
    snprintf(buf + n, size - (size_t)n, "; without Landlock (%s)",
             l->missing);
}
