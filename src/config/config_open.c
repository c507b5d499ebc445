/*
 * Phase two of the config: the plan's resources become host descriptors
 * with CloudABI rights, in guest descriptor order.  Every descriptor made
 * here is close-on-exec and owned by the launch_config; on the first
 * failure everything opened so far is closed again and nothing is left
 * half-done (except what the kernel did on disk: see README, !socket).
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <arpa/inet.h>
#include <linux/openat2.h>
#include <limits.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "config_plan.h"
#include "fsview.h"
#include "host/pseudofs.h"
#include "host/rights.h"
#include "host/rights_names.h"

struct opener {
  const struct config_plan *plan;
  struct config_diags *diags;
  int exec_fd;
  bool dry_run;
  const struct fsview *view; /* NULL: paths are the host's */
};

static void open_error(const struct opener *o, struct cfg_pos pos,
                       const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void open_error(const struct opener *o, struct cfg_pos pos,
                       const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  cfg_diag(o->diags, o->plan->name, pos, "%s", msg);
}

static const char *tag_name(const struct cfg_resource *r) {
  switch (r->kind) {
  case CFG_RES_FD:
    return "!fd";
  case CFG_RES_FILE:
    return "!file";
  case CFG_RES_EXECUTABLE:
    return "!executable";
  case CFG_RES_SOCKET:
    break;
  }
  return "!socket";
}

static const char *mode_name(enum cfg_file_mode mode) {
  return mode == CFG_MODE_RW ? "rw" : mode == CFG_MODE_WO ? "wo" : "ro";
}

/* Type and rights of a descriptor we hold; a message when CloudABI has no
 * type for it. */
static int host_rights(const struct opener *o, const struct cfg_resource *r,
                       int fd, const char *what, struct fd_rights *out) {
  if (rights_for_host_fd(fd, out) == 0)
    return 0;
  if (errno == ENOTSUP || errno == EINVAL)
    open_error(o, r->pos, "%s: %s is of a kind CloudABI has no file type for",
               tag_name(r), what);
  else
    open_error(o, r->pos, "%s: cannot inspect %s: %s", tag_name(r), what,
               strerror(errno));
  return -1;
}

/* No grant of a file system that reflects or controls the running
 * system: beneath /proc, "self" is cloudabi-run. */
static int check_not_pseudo(const struct opener *o, struct cfg_pos pos,
                            const char *tag, const char *what, int fd,
                            bool allow_pty) {
  const char *fs;
  if (!pseudofs_fd(fd, allow_pty, &fs))
    return 0;
  open_error(o, pos,
             "%s: %s is on %s, a file system of the running system; no "
             "grant may reach it",
             tag, what, fs);
  return -1;
}

/* !fd N: a copy of a descriptor cloudabi-run was started with. */
static int open_fd(const struct opener *o, const struct cfg_resource *r,
                   struct launch_fd *out) {
  char what[64];
  if (r->fd_name != NULL)
    snprintf(what, sizeof(what), "descriptor %d (%s)", r->host_fd, r->fd_name);
  else
    snprintf(what, sizeof(what), "descriptor %d", r->host_fd);
  int flags = fcntl(r->host_fd, F_GETFD);
  if (flags < 0) {
    open_error(o, r->pos, "!fd: %s is not open", what);
    return -1;
  }
  /*
   * Descriptors inherited across exec cannot be close-on-exec, and all of
   * ours are: so this one was opened by cloudabi-run itself (the program,
   * the config file) and is not the user's to hand out.
   */
  if ((flags & FD_CLOEXEC) != 0) {
    open_error(o, r->pos, "!fd: %s is not one cloudabi-run was started with",
               what);
    return -1;
  }
  int fd = fcntl(r->host_fd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) {
    open_error(o, r->pos, "!fd: cannot duplicate %s: %s", what,
               strerror(errno));
    return -1;
  }
  out->host_fd = fd;
  /* A directory of /proc handed over by descriptor is as bad as one by
   * path; a terminal on devpts is what stdin often is, but /dev/pts
   * itself would reach every terminal of the machine. */
  struct stat st;
  bool dir = fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
  if (check_not_pseudo(o, r->pos, "!fd", what, fd, !dir) != 0)
    return -1;
  return host_rights(o, r, fd, what, &out->rights);
}

/* !executable: a copy of the program's own descriptor. */
static int open_executable(const struct opener *o, const struct cfg_resource *r,
                           struct launch_fd *out) {
  if (o->exec_fd < 0) {
    open_error(o, r->pos, "!executable: there is no program here");
    return -1;
  }
  int fd = fcntl(o->exec_fd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) {
    open_error(o, r->pos,
               "!executable: cannot duplicate the program's "
               "descriptor: %s",
               strerror(errno));
    return -1;
  }
  out->host_fd = fd;
  return host_rights(o, r, fd, "the program", &out->rights);
}

/* Rights less what the open mode cannot do, as rights_for_host_fd. */
static void rights_for_mode(cloudabi_filetype_t type, enum cfg_file_mode mode,
                            struct fd_rights *out) {
  out->type = type;
  rights_max_for_type(type, false, &out->base, &out->inheriting);
  if (mode == CFG_MODE_RO)
    out->base &= ~(cloudabi_rights_t)CLOUDABI_RIGHT_FD_WRITE;
  else if (mode == CFG_MODE_WO)
    out->base &= ~(cloudabi_rights_t)CLOUDABI_RIGHT_FD_READ;
}

/*
 * Opens a config path.  Symlinks are followed only with follow: true, in
 * any component: a program granted a writable directory could otherwise
 * plant one for the next run's config to follow, in the last component or
 * in one before it (RESOLVE_NO_SYMLINKS).  Magic links (/proc/PID/fd/N)
 * are never followed.  Returns the descriptor, or -1 with errno.
 */
static int open_path(const struct opener *o, const struct cfg_resource *r,
                     int flags, bool *ro) {
  /* openat2 refuses O_PATH with any flag it would ignore. */
  flags |= (flags & O_PATH) != 0 ? 0 : O_NOCTTY;
  *ro = false;
  if (o->view != NULL)
    return fsview_open(o->view, r->path, flags, r->follow, ro);
  struct open_how how = {
      .flags = (uint64_t)(flags | O_CLOEXEC),
      .mode = (flags & O_CREAT) != 0 ? 0666 : 0,
      .resolve = r->follow ? RESOLVE_NO_MAGICLINKS : RESOLVE_NO_SYMLINKS,
  };
  for (int tries = 0;; tries++) {
    long fd = syscall(SYS_openat2, AT_FDCWD, r->path, &how, sizeof(how));
    if (fd >= 0 || (errno != EAGAIN && errno != EINTR) || tries >= 16)
      return (int)fd;
  }
}

static void path_error(const struct opener *o, const struct cfg_resource *r,
                       const char *q, int err) {
  if (err == ELOOP && !r->follow)
    open_error(o, r->path_pos,
               "!file: %s is a symlink or goes through one; config paths "
               "follow symlinks only with follow: true",
               q);
  else
    open_error(o, r->path_pos, "!file: cannot open %s: %s", q, strerror(err));
}

/* Where fd resolved, for --plan: the kernel's name for it. */
static char *resolved_path(int fd) {
  char link[64], buf[PATH_MAX];
  snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, buf, sizeof(buf) - 1);
  if (n < 0)
    return NULL;
  buf[n] = '\0';
  return strdup(buf);
}

/*
 * A dry run of a FIFO: opening one waits for the other end, which is what
 * a run should do (as upstream) but would hang --plan.  So check access
 * instead.  Returns 1 if path is no FIFO (open it as usual), 0 or -1.
 */
static int dry_run_fifo(const struct opener *o, const struct cfg_resource *r,
                        const char *q, struct launch_fd *out) {
  bool ro;
  int pfd = open_path(o, r, O_PATH, &ro);
  struct stat st;
  if (pfd < 0)
    return 1; /* the open proper says why */
  if (fstat(pfd, &st) != 0 || !S_ISFIFO(st.st_mode)) {
    close(pfd);
    return 1;
  }
  static const int need[] = {
      [CFG_MODE_RO] = R_OK, [CFG_MODE_RW] = R_OK | W_OK, [CFG_MODE_WO] = W_OK};
  int e = faccessat(pfd, "", need[r->mode], AT_EMPTY_PATH | AT_EACCESS);
  int err = errno;
  int bad = check_not_pseudo(o, r->path_pos, "!file", q, pfd, false);
  out->resolved = resolved_path(pfd);
  close(pfd);
  if (bad != 0)
    return -1;
  if (e != 0) {
    open_error(o, r->path_pos, "!file: cannot open %s: %s", q, strerror(err));
    return -1;
  }
  /* Upstream counts pipes and FIFOs as stream sockets. */
  rights_for_mode(CLOUDABI_FILETYPE_SOCKET_STREAM, r->mode, &out->rights);
  return 0;
}

/*
 * A directory's rights by its mode: none written keeps upstream's
 * (everything a directory can have); rw the same; ro a read-only tree.
 * A directory cannot be write-only.
 */
static int directory_mode(const struct opener *o, const struct cfg_resource *r,
                          bool ro_mount, struct fd_rights *rights) {
  if (rights->type != CLOUDABI_FILETYPE_DIRECTORY)
    return 0;
  /* A read-only mount is a read-only tree, whatever the config says
   * (a written mode: rw failed to open). */
  if (ro_mount) {
    rights->base &= RIGHTS_READ_ONLY;
    rights->inheriting &= RIGHTS_READ_ONLY;
    return 0;
  }
  if (!r->mode_set)
    return 0;
  if (r->mode == CFG_MODE_WO) {
    open_error(o, r->mode_pos,
               "!file: mode: wo: a directory cannot be write-only (ro or rw)");
    return -1;
  }
  if (r->mode == CFG_MODE_RO) {
    rights->base &= RIGHTS_READ_ONLY;
    rights->inheriting &= RIGHTS_READ_ONLY;
  }
  return 0;
}

static int open_file(const struct opener *o, const struct cfg_resource *r,
                     struct launch_fd *out) {
  char q[256];
  cfg_quote(q, sizeof(q), r->path, strlen(r->path));
  if (o->dry_run) {
    int e = dry_run_fifo(o, r, q, out);
    if (e <= 0)
      return e;
  }
  static const int access[] = {[CFG_MODE_RO] = O_RDONLY,
                               [CFG_MODE_RW] = O_RDWR,
                               [CFG_MODE_WO] = O_WRONLY};
  int flags = access[r->mode];
  if (r->directory)
    flags |= O_DIRECTORY;
  if (r->create && !o->dry_run)
    flags |= O_CREAT;
  bool ro = false;
  int fd = open_path(o, r, flags, &ro);
  /* A directory opens only for reading; its mode is in its rights. */
  if (fd < 0 && errno == EISDIR && r->mode != CFG_MODE_RO)
    fd = open_path(o, r, O_RDONLY | O_DIRECTORY, &ro);
  if (fd < 0) {
    if (o->dry_run && r->create && errno == ENOENT) {
      /* What a run would create: an empty regular file opened so. */
      rights_for_mode(CLOUDABI_FILETYPE_REGULAR_FILE, r->mode, &out->rights);
      return 0;
    }
    path_error(o, r, q, errno);
    return -1;
  }
  out->host_fd = fd;
  out->resolved = resolved_path(fd);
  if (check_not_pseudo(o, r->path_pos, "!file", q, fd, false) != 0 ||
      host_rights(o, r, fd, q, &out->rights) != 0)
    return -1;
  return directory_mode(o, r, ro, &out->rights);
}

/* An address for messages. */
static const char *address_string(const struct sockaddr *sa, char *buf,
                                  size_t size) {
  char host[INET6_ADDRSTRLEN] = "?";
  if (sa->sa_family == AF_INET) {
    const struct sockaddr_in *sin = (const struct sockaddr_in *)sa;
    inet_ntop(AF_INET, &sin->sin_addr, host, sizeof(host));
    snprintf(buf, size, "%s:%u", host, ntohs(sin->sin_port));
  } else if (sa->sa_family == AF_INET6) {
    const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)sa;
    inet_ntop(AF_INET6, &sin6->sin6_addr, host, sizeof(host));
    snprintf(buf, size, "[%s]:%u", host, ntohs(sin6->sin6_port));
  } else {
    snprintf(buf, size, "?");
  }
  return buf;
}

/* Makes one socket of the plan's type for addr, bound and listening or
 * connected.  Returns the descriptor, or -1 with errno and *step set to
 * what failed. */
static int make_socket(const struct cfg_resource *r, const struct sockaddr *sa,
                       socklen_t len, const char **step) {
  *step = "create a socket for";
  int fd = socket(sa->sa_family, r->socktype | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -1;
  if (r->connect) {
    *step = "connect to";
    if (connect(fd, sa, len) == 0)
      return fd;
  } else {
    /* Restarting a server must not wait for old connections to time out. */
    int on = 1;
    if (sa->sa_family != AF_UNIX)
      setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
    *step = "bind to";
    if (bind(fd, sa, len) == 0) {
      *step = "listen on";
      if (r->socktype != SOCK_STREAM || listen(fd, SOMAXCONN) == 0)
        return fd;
    }
  }
  int saved = errno;
  close(fd);
  errno = saved;
  return -1;
}

int cfg_socket_from_list(const struct cfg_resource *r,
                         const struct addrinfo *list, const char **step,
                         int *error) {
  int fd = -1;
  /* A client tries each address in turn, as clients do; a server has
   * exactly one (open_socket checks). */
  for (const struct addrinfo *ai = list; ai != NULL && fd < 0;
       ai = ai->ai_next) {
    fd = make_socket(r, ai->ai_addr, ai->ai_addrlen, step);
    *error = errno;
  }
  return fd;
}

static int open_socket(const struct opener *o, const struct cfg_resource *r,
                       struct launch_fd *out) {
  char q[256];
  cfg_quote(q, sizeof(q), r->path, strlen(r->path));
  struct sockaddr_un sun = {.sun_family = AF_UNIX};
  struct addrinfo *res = NULL, unix_ai = {
                                   .ai_family = AF_UNIX,
                                   .ai_addr = (struct sockaddr *)&sun,
                                   .ai_addrlen = sizeof(sun),
                               };
  if (r->unix_path && o->view != NULL) {
    /* bind and connect take a host path, which a view cannot bound. */
    open_error(o, r->path_pos,
               "!socket: %s: Unix socket paths are not available inside a "
               "root directory (--root)",
               q);
    return -1;
  }
  if (r->unix_path) {
    /* The parser checked that the path fits. */
    memcpy(sun.sun_path, r->path, strlen(r->path));
  } else {
    struct addrinfo hints = {
        .ai_family = AF_UNSPEC,
        .ai_socktype = r->socktype,
        .ai_flags = r->connect ? 0 : AI_PASSIVE,
    };
    int e = getaddrinfo(r->host, r->port, &hints, &res);
    if (e != 0) {
      open_error(o, r->path_pos, "!socket: cannot resolve %s: %s", q,
                 e == EAI_SYSTEM ? strerror(errno) : gai_strerror(e));
      return -1;
    }
    if (!r->connect && res->ai_next != NULL) {
      /* Which one would be served is a guess; make the config say. */
      char list[256] = "", one[64];
      size_t n = 0;
      for (const struct addrinfo *ai = res; ai != NULL; ai = ai->ai_next, n++)
        if (strlen(list) + 64 < sizeof(list))
          snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
                   n > 0 ? ", " : "",
                   address_string(ai->ai_addr, one, sizeof(one)));
      open_error(o, r->path_pos,
                 "!socket: %s resolves to %zu addresses (%s); bind needs "
                 "exactly one",
                 q, n, list);
      freeaddrinfo(res);
      return -1;
    }
  }
  const struct addrinfo *first = res != NULL ? res : &unix_ai;
  if (o->dry_run) {
    /* A new socket can read and write: the type's maximum rights. */
    out->rights.type = r->socktype == SOCK_STREAM
                           ? CLOUDABI_FILETYPE_SOCKET_STREAM
                           : CLOUDABI_FILETYPE_SOCKET_DGRAM;
    rights_max_for_type(out->rights.type, false, &out->rights.base,
                        &out->rights.inheriting);
    if (res != NULL)
      freeaddrinfo(res);
    return 0;
  }
  const char *step = "";
  int saved = 0;
  int fd = cfg_socket_from_list(r, first, &step, &saved);
  if (res != NULL)
    freeaddrinfo(res);
  if (fd < 0) {
    open_error(o, r->path_pos, "!socket: cannot %s %s: %s", step, q,
               strerror(saved));
    return -1;
  }
  out->host_fd = fd;
  if (r->accept) {
    /* The supervisor accepts from its event loop: never blocking. */
    out->accept = true;
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0) {
      open_error(o, r->path_pos, "!socket: cannot make %s non-blocking: %s",
                 q, strerror(errno));
      return -1;
    }
    out->rights.type = CLOUDABI_FILETYPE_SOCKET_STREAM;
    rights_max_for_type(out->rights.type, false, &out->rights.base,
                        &out->rights.inheriting);
    return 0;
  }
  return host_rights(o, r, fd, q, &out->rights);
}

/* The rights the config asked for: never more than the host object has. */
static int apply_narrowing(const struct opener *o, const struct cfg_resource *r,
                           struct fd_rights *rights) {
  struct {
    bool on;
    cloudabi_rights_t want;
    cloudabi_rights_t *have;
    struct cfg_pos pos;
    const char *attr;
  } sets[] = {
      {r->narrow_base, r->base, &rights->base, r->base_pos, "rights"},
      {r->narrow_inheriting, r->inheriting, &rights->inheriting,
       r->inheriting_pos, "inheriting"},
  };
  for (size_t i = 0; i < 2; i++) {
    if (!sets[i].on)
      continue;
    cloudabi_rights_t extra = sets[i].want & ~*sets[i].have;
    if (extra != 0) {
      cloudabi_rights_t bit;
      const char *name = "?";
      for (size_t k = 0; rights_at(k, &bit, &name); k++)
        if ((extra & bit) != 0)
          break;
      char how[32] = "";
      if (r->kind == CFG_RES_FILE)
        snprintf(how, sizeof(how), " opened %s", mode_name(r->mode));
      open_error(o, sets[i].pos,
                 "%s: %s: %s is not available for this %s%s; rights can "
                 "only be narrowed",
                 tag_name(r), sets[i].attr, name, filetype_name(rights->type),
                 how);
      return -1;
    }
    *sets[i].have = sets[i].want;
  }
  return 0;
}

static int open_one(const struct opener *o, const struct cfg_resource *r,
                    struct launch_fd *out) {
  int e;
  switch (r->kind) {
  case CFG_RES_FD:
    e = open_fd(o, r, out);
    break;
  case CFG_RES_FILE:
    e = open_file(o, r, out);
    break;
  case CFG_RES_EXECUTABLE:
    e = open_executable(o, r, out);
    break;
  default:
    e = open_socket(o, r, out);
    break;
  }
  if (e == 0)
    e = apply_narrowing(o, r, &out->rights);
  if (o->dry_run && out->host_fd >= 0) {
    close(out->host_fd);
    out->host_fd = -1;
  }
  return e;
}

int config_open(const struct config_plan *plan, int exec_fd, unsigned flags,
                struct launch_config *lc, struct config_diags *d) {
  return config_open_view(plan, exec_fd, flags, NULL, lc, d);
}

int config_open_view(const struct config_plan *plan, int exec_fd,
                     unsigned flags, const struct fsview *view,
                     struct launch_config *lc, struct config_diags *d) {
  struct opener o = {plan, d, exec_fd, (flags & CONFIG_OPEN_DRY_RUN) != 0,
                     view};
  memset(lc, 0, sizeof(*lc));
  lc->fds = calloc(plan->ndescs > 0 ? plan->ndescs : 1, sizeof(*lc->fds));
  lc->argdata = malloc(plan->argdata_len + 1);
  if (lc->fds == NULL || lc->argdata == NULL) {
    launch_config_free(lc);
    cfg_diag_nopos(d, plan->name, "out of memory");
    return -1;
  }
  /* Mark every slot empty first, so that freeing closes exactly what was
   * opened. */
  for (size_t i = 0; i < plan->ndescs; i++)
    lc->fds[i].host_fd = -1;
  lc->nfds = plan->ndescs;
  for (size_t i = 0; i < plan->ndescs; i++) {
    if (open_one(&o, plan->descs[i].res, &lc->fds[i]) != 0) {
      launch_config_free(lc);
      return -1;
    }
  }
  if (plan->argdata_len > 0)
    memcpy(lc->argdata, plan->argdata, plan->argdata_len);
  /* Upstream's convention: a NUL after the data, not counted. */
  lc->argdata[plan->argdata_len] = '\0';
  lc->argdata_len = plan->argdata_len;
  return 0;
}
