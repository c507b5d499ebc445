/*
 * Escapes from a directory capability: every call that takes a path, with
 * every path that leaves the directory, must fail with ENOTCAPABLE (or
 * ENOENT where the path names nothing that exists inside).
 *
 * Config: out, dir (box/in, see paths.yaml.setup: symlinks pointing out
 * absolutely and relatively, /proc links, a loop), proc (/proc/self of
 * the supervisor was granted here once; no grant of /proc is accepted
 * now: tests/e2e/configs/pseudofs*.yaml).  The test checks afterwards
 * that nothing outside box/in changed.
 */
#include "check.h"

/* Which calls a row is tried with. */
enum kind {
  /* The path leaves by its own components (or through a symlink before
   * its last component): every call fails. */
  ESCAPES,
  /* Its last component is a symlink pointing out: calls that follow it
   * fail; calls on the link itself are not escapes. */
  LINK_OUT,
};

struct row {
  const char *path;
  enum kind kind;
};

static const struct row box_rows[] = {
    {"..", ESCAPES},
    {"../secret.txt", ESCAPES},
    {"../in/x", ESCAPES}, /* out and back in is still out */
    {"/", ESCAPES},
    {"/etc/passwd", ESCAPES},
    {"//etc", ESCAPES},
    {"sub/../..", ESCAPES},
    {"sub/../../secret.txt", ESCAPES},
    {"sub/../../in/sub", ESCAPES},
    {"./../secret.txt", ESCAPES},
    {"sub/./../../secret.txt", ESCAPES},
    {"abs/passwd", ESCAPES}, /* abs -> /etc */
    {"abs/", ESCAPES},       /* a trailing slash follows abs */
    {"abs/.", ESCAPES},
    {"rel/", ESCAPES}, /* rel -> ../secret.txt */
    {"up/", ESCAPES},  /* up -> .. */
    {"up/secret.txt", ESCAPES},
    {"up2/", ESCAPES}, /* up2 -> sub/../.. */
    {"up2/secret.txt", ESCAPES},
    {"sub/out/secret.txt", ESCAPES}, /* sub/out -> ../.. */
    {"sub/out/", ESCAPES},
    {"proc/self/root/etc/passwd", ESCAPES}, /* proc -> /proc */
    {"self/root/etc/passwd", ESCAPES},      /* self -> /proc/self */
    {"self/fd/0", ESCAPES},
    {"self/cwd/", ESCAPES},
    {"self/", ESCAPES},
    {"abs", LINK_OUT},
    {"absfile", LINK_OUT}, /* -> /etc/passwd */
    {"rel", LINK_OUT},
    {"up", LINK_OUT},
    {"up2", LINK_OUT},
    {"sub/out", LINK_OUT},
    {"self", LINK_OUT},
    {"proc", LINK_OUT},
    {"dangling", LINK_OUT}, /* -> /nonexistent/file */
};


static cloudabi_fd_t other; /* a second directory beneath box/in */

/* One call with a path, `follow` for the calls that take lookup flags.
 * The calls that take two paths try each side with a harmless other. */
typedef cloudabi_errno_t path_call(cloudabi_fd_t dir, const char *p, size_t n,
                                   bool follow);

static cloudabi_errno_t p_open(cloudabi_fd_t d, const char *p, size_t n,
                               bool follow) {
  cloudabi_fdstat_t fds = {.fs_rights_base = R(FD_READ)};
  cloudabi_fd_t fd;
  cloudabi_errno_t e =
      cloudabi_sys_file_open(at(d, follow), p, n, 0, &fds, &fd);
  if (e == 0)
    cloudabi_sys_fd_close(fd);
  return e;
}
static cloudabi_errno_t p_open_dir(cloudabi_fd_t d, const char *p, size_t n,
                                   bool follow) {
  cloudabi_fdstat_t fds = {.fs_rights_base = R(FILE_READDIR),
                           .fs_rights_inheriting = R(FD_READ)};
  cloudabi_fd_t fd;
  cloudabi_errno_t e = cloudabi_sys_file_open(at(d, follow), p, n,
                                              CLOUDABI_O_DIRECTORY, &fds, &fd);
  if (e == 0)
    cloudabi_sys_fd_close(fd);
  return e;
}
static cloudabi_errno_t p_creat(cloudabi_fd_t d, const char *p, size_t n,
                                bool follow) {
  cloudabi_fdstat_t fds = {.fs_rights_base = R(FD_WRITE)};
  cloudabi_fd_t fd;
  cloudabi_errno_t e = cloudabi_sys_file_open(
      at(d, follow), p, n, CLOUDABI_O_CREAT | CLOUDABI_O_TRUNC, &fds, &fd);
  if (e == 0)
    cloudabi_sys_fd_close(fd);
  return e;
}
static cloudabi_errno_t p_stat(cloudabi_fd_t d, const char *p, size_t n,
                               bool follow) {
  cloudabi_filestat_t st;
  return cloudabi_sys_file_stat_get(at(d, follow), p, n, &st);
}
static cloudabi_errno_t p_stat_put(cloudabi_fd_t d, const char *p, size_t n,
                                   bool follow) {
  cloudabi_filestat_t st = {.st_mtim = 1};
  return cloudabi_sys_file_stat_put(at(d, follow), p, n, &st,
                                    CLOUDABI_FILESTAT_MTIM);
}
static cloudabi_errno_t p_readlink(cloudabi_fd_t d, const char *p, size_t n,
                                   bool follow) {
  (void)follow;
  char buf[64];
  size_t used;
  return cloudabi_sys_file_readlink(d, p, n, buf, sizeof(buf), &used);
}
static cloudabi_errno_t p_mkdir(cloudabi_fd_t d, const char *p, size_t n,
                                bool follow) {
  (void)follow;
  return cloudabi_sys_file_create(d, p, n, CLOUDABI_FILETYPE_DIRECTORY);
}
static cloudabi_errno_t p_link_from(cloudabi_fd_t d, const char *p, size_t n,
                                    bool follow) {
  return cloudabi_sys_file_link(at(d, follow), p, n, other, "linked", 6);
}
static cloudabi_errno_t p_link_to(cloudabi_fd_t d, const char *p, size_t n,
                                  bool follow) {
  (void)follow;
  return cloudabi_sys_file_link(at(other, false), "victim", 6, d, p, n);
}
static cloudabi_errno_t p_rename_from(cloudabi_fd_t d, const char *p, size_t n,
                                      bool follow) {
  (void)follow;
  return cloudabi_sys_file_rename(d, p, n, other, "renamed", 7);
}
static cloudabi_errno_t p_rename_to(cloudabi_fd_t d, const char *p, size_t n,
                                    bool follow) {
  (void)follow;
  return cloudabi_sys_file_rename(other, "victim", 6, d, p, n);
}
static cloudabi_errno_t p_symlink(cloudabi_fd_t d, const char *p, size_t n,
                                  bool follow) {
  (void)follow;
  return cloudabi_sys_file_symlink("victim", 6, d, p, n);
}
static cloudabi_errno_t p_unlink(cloudabi_fd_t d, const char *p, size_t n,
                                 bool follow) {
  (void)follow;
  return cloudabi_sys_file_unlink(d, p, n, 0);
}
static cloudabi_errno_t p_rmdir(cloudabi_fd_t d, const char *p, size_t n,
                                bool follow) {
  (void)follow;
  return cloudabi_sys_file_unlink(d, p, n, CLOUDABI_UNLINK_REMOVEDIR);
}

static const struct {
  const char *name;
  path_call *call;
  bool follows; /* with LOOKUP_SYMLINK_FOLLOW, the last component */
} calls[] = {
    {"file_open", p_open, true},
    {"file_open(dir)", p_open_dir, true},
    {"file_open(creat)", p_creat, true},
    {"file_stat_get", p_stat, true},
    {"file_stat_put", p_stat_put, true},
    {"file_readlink", p_readlink, false},
    {"file_create", p_mkdir, false},
    {"file_link(from)", p_link_from, true},
    {"file_link(to)", p_link_to, false},
    {"file_rename(from)", p_rename_from, false},
    {"file_rename(to)", p_rename_to, false},
    {"file_symlink", p_symlink, false},
    {"file_unlink", p_unlink, false},
    {"file_unlink(dir)", p_rmdir, false},
};
#define NCALLS (sizeof(calls) / sizeof(calls[0]))

static void run(const char *where, cloudabi_fd_t dir, const struct row *rows,
                size_t n) {
  for (size_t r = 0; r < n; r++) {
    const char *p = rows[r].path;
    for (size_t c = 0; c < NCALLS; c++) {
      char what[96];
      if (rows[r].kind == ESCAPES) {
        for (int follow = 0; follow < 2; follow++) {
          rt_snprintf(what, sizeof(what), "%s %s%s", where, calls[c].name,
                      follow ? " following" : "");
          check(p, what, calls[c].call(dir, p, strlen(p), follow),
                CLOUDABI_ENOTCAPABLE);
        }
      } else if (calls[c].follows) {
        rt_snprintf(what, sizeof(what), "%s %s following", where,
                    calls[c].name);
        check(p, what, calls[c].call(dir, p, strlen(p), true),
              CLOUDABI_ENOTCAPABLE);
      }
    }
  }
}

/* Calls on a link pointing out, not following it, act on the link. */
static void links_themselves(cloudabi_fd_t dir) {
  cloudabi_filestat_t st;
  check("abs", "file_stat_get of the link", stat_path(dir, "abs", false, &st),
        0);
  check("abs", "is a link",
        st.st_filetype == CLOUDABI_FILETYPE_SYMBOLIC_LINK ? 0 : WRONG_RESULT,
        0);
  char buf[32];
  size_t used;
  check("abs", "file_readlink",
        cloudabi_sys_file_readlink(dir, "abs", 3, buf, sizeof(buf), &used), 0);
  check("abs", "contents",
        used == 4 && memcmp(buf, "/etc", 4) == 0 ? 0 : WRONG_RESULT, 0);
  check("rel", "file_open without following", p_open(dir, "rel", 3, false),
        CLOUDABI_ELOOP);
  check("rel", "rename the link itself",
        cloudabi_sys_file_rename(dir, "rel", 3, dir, "rel.moved", 9), 0);
  check("rel", "and back",
        cloudabi_sys_file_rename(dir, "rel.moved", 9, dir, "rel", 3), 0);
  check("loop", "a symlink loop", p_open(dir, "loop1", 5, true),
        CLOUDABI_ELOOP);
  /* Inside, symlinks and ".." work as usual. */
  check("inside", "../in through sub", p_stat(dir, "sub/../sub/.", 12, true),
        0);
  check("inside", "relative link inside", p_open(dir, "inlink", 6, true), 0);
  check("inside", "link to a directory inside",
        p_stat(dir, "sublink/../victim.txt", 21, false), 0);
}

void program_main(const argdata_t *ad) {
  rt_log_fd = rt_map_fd(ad, "out");
  cloudabi_fd_t dir = rt_map_fd(ad, "dir");
  RT_CHECK(cloudabi_sys_file_create(dir, "other", 5,
                                    CLOUDABI_FILETYPE_DIRECTORY) == 0);
  RT_CHECK(open_file(dir, "other", CLOUDABI_O_DIRECTORY,
                     fdstat(dir).fs_rights_base,
                     fdstat(dir).fs_rights_inheriting, 0, &other) == 0);
  put_file(other, "victim", "v");
  run("box", dir, box_rows, sizeof(box_rows) / sizeof(box_rows[0]));
  links_themselves(dir);
  check_done("paths");
}
