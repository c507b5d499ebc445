/*
 * The protocol half of the example server (http.h): requests in, files
 * or errors out.  No libc beyond memcpy, memmove, memcmp and strlen, so
 * it builds with the project's minimal CloudABI runtime as well.
 */
#include "http.h"

#ifdef __CloudABI__
#include "rt.h"
#else
#include <string.h>
#endif

#define REQUEST_MAX 8192 /* request line and headers */
#define PATH_MAX_LEN 1024
#define REPLY_MAX 16384 /* headers and a small body in one write */
#define CHUNK 65536     /* larger bodies go out this much at a time */

struct request {
  bool head;     /* HEAD: headers only */
  bool keep;     /* the connection stays open after the answer */
  int status;    /* 0, or the error to answer */
  char path[PATH_MAX_LEN + sizeof("/index.html")];
  size_t path_len;
};

/* ---- small helpers ---- */

static char lower(char c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

static bool same_nocase(const char *a, size_t alen, const char *b) {
  size_t blen = strlen(b);
  if (alen != blen)
    return false;
  for (size_t i = 0; i < alen; i++)
    if (lower(a[i]) != lower(b[i]))
      return false;
  return true;
}

/* Whether b occurs in a (case-insensitive): for Connection's list. */
static bool has_token(const char *a, size_t alen, const char *b) {
  size_t blen = strlen(b);
  for (size_t i = 0; i + blen <= alen; i++)
    if (same_nocase(a + i, blen, b))
      return true;
  return false;
}

/* Whether a header value is 0 (spaces around it allowed). */
static bool is_zero(const char *v, size_t n) {
  size_t zeros = 0, i = 0;
  while (i < n && v[i] == ' ')
    i++;
  while (i < n && v[i] == '0')
    i++, zeros++;
  while (i < n && (v[i] == ' ' || v[i] == '\t'))
    i++;
  return zeros > 0 && i == n;
}

struct out {
  char *p;
  size_t len, cap;
};

static void put(struct out *o, const char *s, size_t n) {
  if (n > o->cap - o->len)
    n = o->cap - o->len;
  memcpy(o->p + o->len, s, n);
  o->len += n;
}

static void put_str(struct out *o, const char *s) { put(o, s, strlen(s)); }

static void put_u64(struct out *o, uint64_t v) {
  char d[20];
  size_t n = 0;
  do {
    d[sizeof(d) - ++n] = (char)('0' + v % 10);
    v /= 10;
  } while (v != 0);
  put(o, d + sizeof(d) - n, n);
}

/* ---- parsing ---- */

/* The length of the head (through its blank line), or 0 if incomplete. */
static size_t head_end(const char *b, size_t n) {
  for (size_t i = 0; i + 1 < n; i++) {
    if (b[i] != '\n')
      continue;
    if (b[i + 1] == '\n')
      return i + 2;
    if (b[i + 1] == '\r' && i + 2 < n && b[i + 2] == '\n')
      return i + 3;
  }
  return 0;
}

static int hex(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  c = lower(c);
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The target's path, percent-decoded, without its '/', query and
 * fragment; a directory's gets index.html.  An HTTP status on error. */
static int parse_target(struct request *r, const char *t, size_t n) {
  if (n == 0 || t[0] != '/')
    return 400;
  size_t k = 0;
  for (size_t i = 1; i < n && t[i] != '?' && t[i] != '#'; i++) {
    char c = t[i];
    if (c == '%') {
      int hi = i + 2 < n ? hex(t[i + 1]) : -1;
      int lo = i + 2 < n ? hex(t[i + 2]) : -1;
      if (hi < 0 || lo < 0)
        return 400;
      c = (char)(hi * 16 + lo);
      i += 2;
    }
    if (c == '\0')
      return 400;
    if (k == PATH_MAX_LEN)
      return 414;
    r->path[k++] = c;
  }
  if (k == 0 || r->path[k - 1] == '/') {
    memcpy(r->path + k, "index.html", 10);
    k += 10;
  }
  r->path_len = k;
  return 0;
}

/* The request line and the headers that matter here. */
static void parse(struct request *r, const char *b, size_t n) {
  size_t eol = 0;
  while (eol < n && b[eol] != '\n')
    eol++;
  size_t line = eol > 0 && b[eol - 1] == '\r' ? eol - 1 : eol;
  /* METHOD SP TARGET SP HTTP/1.x */
  size_t sp1 = 0, sp2;
  while (sp1 < line && b[sp1] != ' ')
    sp1++;
  sp2 = sp1 + 1;
  while (sp2 < line && b[sp2] != ' ')
    sp2++;
  const char *version = b + sp2 + 1;
  size_t vlen = sp2 < line ? line - sp2 - 1 : 0;
  r->keep = false;
  if (sp1 == 0 || sp2 >= line || vlen != 8 || memcmp(version, "HTTP/", 5) != 0 ||
      version[6] != '.') {
    r->status = 400;
    return;
  }
  if (version[5] != '1' || (version[7] != '0' && version[7] != '1')) {
    r->status = 505;
    return;
  }
  bool http11 = version[7] == '1';
  r->keep = http11;
  if (sp1 == 3 && memcmp(b, "GET", 3) == 0)
    r->head = false;
  else if (sp1 == 4 && memcmp(b, "HEAD", 4) == 0)
    r->head = true;
  else
    r->status = 405;
  if (r->status == 0)
    r->status = parse_target(r, b + sp1 + 1, sp2 - sp1 - 1);
  /* Headers: Connection decides keep-alive; a body is not for us. */
  for (size_t i = eol + 1; i < n;) {
    size_t e = i;
    while (e < n && b[e] != '\n')
      e++;
    size_t len = e > i && b[e - 1] == '\r' ? e - 1 - i : e - i;
    const char *h = b + i;
    size_t colon = 0;
    while (colon < len && h[colon] != ':')
      colon++;
    if (len > 0 && colon == len)
      r->status = r->status != 0 ? r->status : 400;
    const char *v = h + colon + 1;
    size_t vl = colon < len ? len - colon - 1 : 0;
    if (same_nocase(h, colon, "connection")) {
      if (has_token(v, vl, "close"))
        r->keep = false;
      else if (has_token(v, vl, "keep-alive"))
        r->keep = true;
    } else if (same_nocase(h, colon, "transfer-encoding") ||
               (same_nocase(h, colon, "content-length") && !is_zero(v, vl))) {
      r->status = r->status != 0 ? r->status : 400;
    }
    i = e + 1;
  }
  /* After a bad request the stream cannot be trusted to continue. */
  if (r->status == 400)
    r->keep = false;
}

/* ---- answers ---- */

static const char *reason(int status) {
  switch (status) {
  case 200: return "OK";
  case 400: return "Bad Request";
  case 404: return "Not Found";
  case 405: return "Method Not Allowed";
  case 414: return "URI Too Long";
  default: return "HTTP Version Not Supported";
  }
}

static const char *content_type(const char *path, size_t len) {
  static const struct {
    const char *ext, *type;
  } types[] = {
      {".html", "text/html; charset=utf-8"}, {".htm", "text/html; charset=utf-8"},
      {".txt", "text/plain; charset=utf-8"}, {".css", "text/css"},
      {".js", "text/javascript"},            {".json", "application/json"},
      {".png", "image/png"},                 {".jpg", "image/jpeg"},
      {".svg", "image/svg+xml"},
  };
  for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
    size_t n = strlen(types[i].ext);
    if (len >= n && same_nocase(path + len - n, n, types[i].ext))
      return types[i].type;
  }
  return "application/octet-stream";
}

static void head(struct out *o, int status, const char *type, uint64_t length,
                 const struct request *r) {
  put_str(o, "HTTP/1.1 ");
  put_u64(o, (uint64_t)status);
  put_str(o, " ");
  put_str(o, reason(status));
  put_str(o, "\r\nServer: httpd-example\r\nContent-Type: ");
  put_str(o, type);
  put_str(o, "\r\nContent-Length: ");
  put_u64(o, length);
  if (status == 405)
    put_str(o, "\r\nAllow: GET, HEAD");
  put_str(o, r->keep ? "\r\nConnection: keep-alive\r\n\r\n"
                     : "\r\nConnection: close\r\n\r\n");
}

static bool answer_error(int conn, struct request *r, char *reply) {
  struct out o = {reply, 0, REPLY_MAX};
  const char *text = reason(r->status);
  head(&o, r->status, "text/plain; charset=utf-8", strlen(text) + 5, r);
  if (!r->head) {
    put_u64(&o, (uint64_t)r->status);
    put_str(&o, " ");
    put_str(&o, text);
    put_str(&o, "\n");
  }
  return http_sys_write(conn, reply, o.len);
}

/* Reads exactly n bytes of fd into buf; false if it ended sooner. */
static bool read_exactly(int fd, char *buf, size_t n) {
  while (n > 0) {
    long got = http_sys_read(fd, buf, n);
    if (got <= 0)
      return false;
    buf += got;
    n -= (size_t)got;
  }
  return true;
}

/* The file, or 404.  False if the connection must close. */
static bool answer(int conn, int root, struct request *r, char *reply) {
  int fd;
  uint64_t size;
  enum http_open_result k = http_sys_open(root, r->path, r->path_len, &fd, &size);
  if (k == HTTP_OPEN_DIRECTORY && r->path_len + 11 <= sizeof(r->path)) {
    memcpy(r->path + r->path_len, "/index.html", 11);
    r->path_len += 11;
    k = http_sys_open(root, r->path, r->path_len, &fd, &size);
  }
  if (k != HTTP_OPEN_FILE) {
    if (k == HTTP_OPEN_DIRECTORY)
      http_sys_close(fd);
    r->status = 404;
    return answer_error(conn, r, reply) && r->keep;
  }
  struct out o = {reply, 0, REPLY_MAX};
  head(&o, 200, content_type(r->path, r->path_len), size, r);
  bool ok = true;
  if (r->head) {
    ok = http_sys_write(conn, reply, o.len);
  } else if (size <= REPLY_MAX - o.len) {
    /* Headers and body in one write. */
    ok = read_exactly(fd, reply + o.len, (size_t)size) &&
         http_sys_write(conn, reply, o.len + (size_t)size);
  } else {
    ok = http_sys_write(conn, reply, o.len);
    char chunk[CHUNK];
    for (uint64_t left = size; ok && left > 0;) {
      size_t n = left < CHUNK ? (size_t)left : CHUNK;
      ok = read_exactly(fd, chunk, n) && http_sys_write(conn, chunk, n);
      left -= n;
    }
  }
  http_sys_close(fd);
  return ok && r->keep;
}

void http_serve(int conn, int root) {
  char buf[REQUEST_MAX], reply[REPLY_MAX];
  size_t have = 0;
  for (;;) {
    size_t end;
    while ((end = head_end(buf, have)) == 0) {
      if (have == sizeof(buf)) {
        struct request r = {.status = 400};
        answer_error(conn, &r, reply);
        return;
      }
      long n = http_sys_read(conn, buf + have, sizeof(buf) - have);
      if (n <= 0)
        return;
      have += (size_t)n;
    }
    struct request r = {.status = 0};
    parse(&r, buf, end);
    bool more = r.status != 0 ? answer_error(conn, &r, reply) && r.keep
                              : answer(conn, root, &r, reply);
    if (!more)
      return;
    /* Pipelined requests stay for the next round. */
    memmove(buf, buf + end, have - end);
    have -= end;
  }
}
