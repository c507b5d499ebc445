/*
 * A small static-file HTTP/1.1 server, one source for two worlds: as a
 * CloudABI program (httpd_cloudabi.c: connections arrive over a
 * cloudabi-run acceptor, files open beneath a directory capability) and
 * natively for Linux (httpd_native.c: accept(2), openat2 with
 * RESOLVE_BENEATH), so that both can be measured side by side.
 *
 * http.c speaks the protocol: GET and HEAD, keep-alive, a few content
 * types, 400, 404, 405 and 505 answers.  Each world supplies the calls
 * below.
 */
#ifndef HTTP_H
#define HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes read (0 at the end), or negative on error. */
long http_sys_read(int fd, void *buf, size_t len);
/* Writes all of buf; false on error. */
bool http_sys_write(int fd, const void *buf, size_t len);

enum http_open_result {
  HTTP_OPEN_FILE,      /* *fd is a regular file of *size bytes */
  HTTP_OPEN_DIRECTORY, /* a directory: try its index.html */
  HTTP_OPEN_MISSING,   /* absent, not ours to reach, or unreadable */
};
/* Opens path (no leading '/', not NUL-terminated) beneath root. */
enum http_open_result http_sys_open(int root, const char *path, size_t len,
                                    int *fd, uint64_t *size);
void http_sys_close(int fd);

/* Serves one connection until the client is done or misbehaves. */
void http_serve(int conn, int root);

#endif
