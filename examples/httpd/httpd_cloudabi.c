/*
 * The example server as a CloudABI program (http.h): `http` is a
 * !socket {bind: ..., accept: true}, from which each sock_recv yields one
 * connection; `root` the directory served; `workers` threads each take a
 * connection, serve it to the end, and take the next.  `log` (optional)
 * gets one line at start.
 */
#include "http.h"
#include "rt.h"
#include "rt_thread.h"

#define WORKERS_MAX 64

struct server {
  cloudabi_fd_t http, root;
};

long http_sys_read(int fd, void *buf, size_t len) {
  cloudabi_iovec_t iov = {buf, len};
  size_t n;
  cloudabi_errno_t e = cloudabi_sys_fd_read((cloudabi_fd_t)fd, &iov, 1, &n);
  return e != 0 ? -(long)e : (long)n;
}

bool http_sys_write(int fd, const void *buf, size_t len) {
  return rt_write_all((cloudabi_fd_t)fd, buf, len) == 0;
}

enum http_open_result http_sys_open(int root, const char *path, size_t len,
                                    int *fd, uint64_t *size) {
  cloudabi_lookup_t at = {(cloudabi_fd_t)root, 0};
  cloudabi_fdstat_t want = {
      .fs_rights_base = CLOUDABI_RIGHT_FD_READ | CLOUDABI_RIGHT_FILE_STAT_FGET};
  cloudabi_fd_t f;
  /* `..` out of root and absolute paths fail here: the capability. */
  if (cloudabi_sys_file_open(at, path, len, 0, &want, &f) != 0)
    return HTTP_OPEN_MISSING;
  cloudabi_filestat_t st;
  if (cloudabi_sys_file_stat_fget(f, &st) != 0 ||
      (st.st_filetype != CLOUDABI_FILETYPE_REGULAR_FILE &&
       st.st_filetype != CLOUDABI_FILETYPE_DIRECTORY)) {
    cloudabi_sys_fd_close(f);
    return HTTP_OPEN_MISSING;
  }
  *fd = (int)f;
  *size = st.st_size;
  return st.st_filetype == CLOUDABI_FILETYPE_DIRECTORY ? HTTP_OPEN_DIRECTORY
                                                       : HTTP_OPEN_FILE;
}

void http_sys_close(int fd) { cloudabi_sys_fd_close((cloudabi_fd_t)fd); }

/* One connection from the acceptor; false when it has none to give. */
static bool next_connection(cloudabi_fd_t http, cloudabi_fd_t *conn) {
  char peer[128];
  cloudabi_iovec_t iov = {peer, sizeof(peer)};
  cloudabi_recv_in_t in = {&iov, 1, conn, 1, 0};
  cloudabi_recv_out_t out;
  return cloudabi_sys_sock_recv(http, &in, &out) == 0 && out.ro_fdslen == 1;
}

static void *worker(void *arg) {
  const struct server *s = arg;
  cloudabi_fd_t conn;
  while (next_connection(s->http, &conn)) {
    http_serve((int)conn, (int)s->root);
    cloudabi_sys_fd_close(conn);
  }
  return NULL;
}

void program_main(const argdata_t *ad) {
  static struct server s;
  s.http = rt_map_fd(ad, "http");
  s.root = rt_map_fd(ad, "root");
  int64_t n = rt_map_int(ad, "workers", 4);
  if (n < 1 || n > WORKERS_MAX)
    n = 4;
  argdata_t v;
  if (rt_map_get(ad, "log", &v))
    rt_printf(rt_map_fd(ad, "log"), "httpd: serving with %d workers\n",
              (int)n);
  rt_thread_t *threads[WORKERS_MAX];
  for (int64_t i = 1; i < n; i++)
    if (rt_thread_create(&threads[i], worker, &s) != 0)
      n = i;
  worker(&s);
  for (int64_t i = 1; i < n; i++)
    rt_thread_join(threads[i]);
}
