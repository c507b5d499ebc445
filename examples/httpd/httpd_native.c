/*
 * The example server natively for Linux (http.h), for comparison with
 * its CloudABI twin: a listening socket on 127.0.0.1:PORT, WORKERS
 * threads each accepting and serving a connection at a time, files opened
 * beneath ROOT with openat2(RESOLVE_BENEATH) as a directory capability
 * would allow.
 *
 *   httpd-native PORT ROOT [WORKERS]
 */
#define _GNU_SOURCE
#include "http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define WORKERS_MAX 64

struct server {
  int listener, root;
};

long http_sys_read(int fd, void *buf, size_t len) {
  ssize_t n;
  do
    n = read(fd, buf, len);
  while (n < 0 && errno == EINTR);
  return n < 0 ? -errno : (long)n;
}

bool http_sys_write(int fd, const void *buf, size_t len) {
  const char *p = buf;
  while (len > 0) {
    ssize_t n = write(fd, p, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    p += n;
    len -= (size_t)n;
  }
  return true;
}

enum http_open_result http_sys_open(int root, const char *path, size_t len,
                                    int *fd, uint64_t *size) {
  char p[2048];
  if (len >= sizeof(p))
    return HTTP_OPEN_MISSING;
  memcpy(p, path, len);
  p[len] = '\0';
  struct open_how how = {.flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW,
                         .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS};
  int f = (int)syscall(SYS_openat2, root, p, &how, sizeof(how));
  if (f < 0)
    return HTTP_OPEN_MISSING;
  struct stat st;
  if (fstat(f, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) {
    close(f);
    return HTTP_OPEN_MISSING;
  }
  *fd = f;
  *size = (uint64_t)st.st_size;
  return S_ISDIR(st.st_mode) ? HTTP_OPEN_DIRECTORY : HTTP_OPEN_FILE;
}

void http_sys_close(int fd) { close(fd); }

static void *worker(void *arg) {
  const struct server *s = arg;
  for (;;) {
    int conn = accept4(s->listener, NULL, NULL, SOCK_CLOEXEC);
    if (conn < 0) {
      if (errno == EINTR || errno == ECONNABORTED)
        continue;
      perror("httpd-native: accept");
      return NULL;
    }
    http_serve(conn, s->root);
    close(conn);
  }
}

int main(int argc, char **argv) {
  if (argc < 3 || argc > 4) {
    fprintf(stderr, "usage: httpd-native PORT ROOT [WORKERS]\n");
    return 2;
  }
  int workers = argc == 4 ? atoi(argv[3]) : 4;
  if (workers < 1 || workers > WORKERS_MAX)
    workers = 4;
  signal(SIGPIPE, SIG_IGN);
  static struct server s;
  s.root = open(argv[2], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (s.root < 0) {
    fprintf(stderr, "httpd-native: %s: %s\n", argv[2], strerror(errno));
    return 1;
  }
  struct sockaddr_in sin = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)atoi(argv[1])),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  int on = 1;
  s.listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s.listener < 0 ||
      setsockopt(s.listener, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) != 0 ||
      bind(s.listener, (struct sockaddr *)&sin, sizeof(sin)) != 0 ||
      listen(s.listener, SOMAXCONN) != 0) {
    fprintf(stderr, "httpd-native: 127.0.0.1:%s: %s\n", argv[1],
            strerror(errno));
    return 1;
  }
  pthread_t threads[WORKERS_MAX];
  for (int i = 1; i < workers; i++)
    pthread_create(&threads[i], NULL, worker, &s);
  worker(&s);
  return 1;
}
