/*
 * find(1) for a directory capability: walks the directory its config
 * gives as `dir` and prints every path beneath it, sorted, symlinks with
 * their contents and whether following them stays inside.  With
 * `cat: true` it also prints each regular file's text, indented.  It can
 * see nothing but that directory: a symlink pointing out of it says so.
 *
 *   dir: !file {path: some/directory}
 *   out: !fd stdout
 *   cat: true           (optional)
 */
#include "rt.h"

#define MAX_DEPTH 32
#define MAX_ENTRIES 512
#define NAMES_SIZE 16384

static cloudabi_fd_t out;
static bool cat;

struct entry {
  const char *name;
  cloudabi_filetype_t type;
};

static void warn(const char *path, const char *what, cloudabi_errno_t e) {
  rt_printf(out, "find: %s: %s (errno %u)\n", path, what, e);
}

/* All of a directory's entries but "." and "..", by name. */
static size_t list(cloudabi_fd_t dir, const char *path, struct entry *ents,
                   char *names) {
  size_t n = 0, names_used = 0;
  char buf[4096];
  cloudabi_dircookie_t cookie = CLOUDABI_DIRCOOKIE_START;
  for (;;) {
    size_t used;
    cloudabi_errno_t e =
        cloudabi_sys_file_readdir(dir, buf, sizeof(buf), cookie, &used);
    if (e != 0) {
      warn(path, "cannot read the directory", e);
      break;
    }
    size_t off = 0;
    bool progress = false;
    while (off + sizeof(cloudabi_dirent_t) <= used) {
      cloudabi_dirent_t de;
      memcpy(&de, buf + off, sizeof(de));
      const char *name = buf + off + sizeof(de);
      if (off + sizeof(de) + de.d_namlen > used)
        break; /* cut short: read again from its cookie */
      off += sizeof(de) + de.d_namlen;
      cookie = de.d_next;
      progress = true;
      bool dot = (de.d_namlen == 1 && name[0] == '.') ||
                 (de.d_namlen == 2 && name[0] == '.' && name[1] == '.');
      if (dot)
        continue;
      if (n == MAX_ENTRIES || names_used + de.d_namlen + 1 > NAMES_SIZE) {
        warn(path, "too many entries; the rest are left out", 0);
        return n;
      }
      memcpy(names + names_used, name, de.d_namlen);
      names[names_used + de.d_namlen] = '\0';
      ents[n++] = (struct entry){names + names_used, de.d_type};
      names_used += de.d_namlen + 1;
    }
    if (used < sizeof(buf))
      break; /* the end of the directory */
    if (!progress) {
      warn(path, "a name longer than the buffer", 0);
      break;
    }
  }
  /* Insertion sort: directories are small, and the output reproducible. */
  for (size_t i = 1; i < n; i++) {
    struct entry e = ents[i];
    size_t j = i;
    while (j > 0 && strcmp(ents[j - 1].name, e.name) > 0) {
      ents[j] = ents[j - 1];
      j--;
    }
    ents[j] = e;
  }
  return n;
}

static void show_file(cloudabi_fd_t dir, const char *name, const char *path) {
  cloudabi_fdstat_t fds = {.fs_rights_base = CLOUDABI_RIGHT_FD_READ};
  cloudabi_lookup_t at = {dir, 0};
  cloudabi_fd_t fd;
  cloudabi_errno_t e =
      cloudabi_sys_file_open(at, name, strlen(name), 0, &fds, &fd);
  if (e != 0) {
    warn(path, "cannot open", e);
    return;
  }
  char buf[4096];
  bool line_start = true;
  for (;;) {
    cloudabi_iovec_t iov = {buf, sizeof(buf)};
    size_t n;
    if ((e = cloudabi_sys_fd_read(fd, &iov, 1, &n)) != 0) {
      warn(path, "cannot read", e);
      break;
    }
    if (n == 0)
      break;
    for (size_t i = 0; i < n; i++) {
      if (line_start)
        rt_write_all(out, "    ", 4);
      rt_write_all(out, &buf[i], 1);
      line_start = buf[i] == '\n';
    }
  }
  if (!line_start)
    rt_write_all(out, "\n", 1);
  cloudabi_sys_fd_close(fd);
}

static void walk(cloudabi_fd_t dir, char *path, size_t len, int depth) {
  struct entry ents[MAX_ENTRIES];
  char names[NAMES_SIZE];
  size_t n = list(dir, path, ents, names);
  for (size_t i = 0; i < n; i++) {
    size_t nl = strlen(ents[i].name);
    if (len + 1 + nl >= 4096) {
      warn(path, "path too long", 0);
      continue;
    }
    path[len] = '/';
    memcpy(path + len + 1, ents[i].name, nl + 1);
    switch (ents[i].type) {
    case CLOUDABI_FILETYPE_SYMBOLIC_LINK: {
      char target[256];
      size_t used = 0;
      cloudabi_sys_file_readlink(dir, ents[i].name, nl, target,
                                 sizeof(target) - 1, &used);
      target[used] = '\0';
      /* Following it works only while it stays inside. */
      cloudabi_lookup_t follow = {dir, CLOUDABI_LOOKUP_SYMLINK_FOLLOW};
      cloudabi_filestat_t st;
      cloudabi_errno_t e =
          cloudabi_sys_file_stat_get(follow, ents[i].name, nl, &st);
      rt_printf(out, "%s -> %s%s\n", path, target,
                e == CLOUDABI_ENOTCAPABLE ? "  (outside: not capable)"
                : e == CLOUDABI_ENOENT    ? "  (dangling)"
                                          : "");
      break;
    }
    case CLOUDABI_FILETYPE_DIRECTORY: {
      rt_printf(out, "%s/\n", path);
      if (depth == MAX_DEPTH) {
        warn(path, "too deep", 0);
        break;
      }
      /* The subdirectory as a capability of its own, with the rights
       * this one hands down. */
      cloudabi_fdstat_t st;
      cloudabi_sys_fd_stat_get(dir, &st);
      cloudabi_fdstat_t fds = {.fs_rights_base = CLOUDABI_RIGHT_FILE_READDIR |
                                                 CLOUDABI_RIGHT_FILE_OPEN |
                                                 CLOUDABI_RIGHT_FILE_READLINK |
                                                 CLOUDABI_RIGHT_FILE_STAT_GET,
                               .fs_rights_inheriting = st.fs_rights_inheriting};
      cloudabi_lookup_t at = {dir, 0};
      cloudabi_fd_t sub;
      cloudabi_errno_t e = cloudabi_sys_file_open(
          at, ents[i].name, nl, CLOUDABI_O_DIRECTORY, &fds, &sub);
      if (e != 0) {
        warn(path, "cannot open the directory", e);
        break;
      }
      walk(sub, path, len + 1 + nl, depth + 1);
      cloudabi_sys_fd_close(sub);
      break;
    }
    default:
      rt_printf(out, "%s\n", path);
      if (cat && ents[i].type == CLOUDABI_FILETYPE_REGULAR_FILE)
        show_file(dir, ents[i].name, path);
      break;
    }
  }
  path[len] = '\0';
}

void program_main(const argdata_t *ad) {
  out = rt_map_fd(ad, "out");
  rt_log_fd = out;
  argdata_t v;
  cat = rt_map_get(ad, "cat", &v) && argdata_get_bool(&v, &cat) == 0 && cat;
  static char path[4096] = ".";
  rt_printf(out, "./\n");
  walk(rt_map_fd(ad, "dir"), path, 1, 0);
}
