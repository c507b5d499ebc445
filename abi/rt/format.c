/* Small formatted output for guest programs: enough for tests and demos. */
#include "rt.h"
#include "trap.h"

struct out {
  char *buf;
  size_t size, len;
};

static void put(struct out *o, char c) {
  if (o->len + 1 < o->size)
    o->buf[o->len] = c;
  o->len++;
}

static void put_uint(struct out *o, uint64_t v, unsigned base, int width,
                     char pad, bool negative) {
  char digits[24];
  int n = 0;
  do {
    digits[n++] = "0123456789abcdef"[v % base];
    v /= base;
  } while (v != 0);
  if (negative && pad == '0')
    put(o, '-');
  for (int i = n + (negative ? 1 : 0); i < width; i++)
    put(o, pad);
  if (negative && pad != '0')
    put(o, '-');
  while (n > 0)
    put(o, digits[--n]);
}

size_t rt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap) {
  struct out o = {buf, size, 0};
  for (; *fmt != '\0'; fmt++) {
    if (*fmt != '%') {
      put(&o, *fmt);
      continue;
    }
    fmt++;
    char pad = ' ';
    int width = 0, lng = 0;
    if (*fmt == '0')
      pad = '0', fmt++;
    while (*fmt >= '0' && *fmt <= '9')
      width = width * 10 + (*fmt++ - '0');
    while (*fmt == 'l' || *fmt == 'z')
      lng += *fmt++ == 'z' ? 2 : 1;
    switch (*fmt) {
    case 'd':
    case 'i': {
      int64_t v = lng > 0 ? va_arg(ap, int64_t) : va_arg(ap, int);
      put_uint(&o, v < 0 ? -(uint64_t)v : (uint64_t)v, 10, width, pad, v < 0);
      break;
    }
    case 'u':
    case 'x': {
      uint64_t v = lng > 0 ? va_arg(ap, uint64_t) : va_arg(ap, unsigned);
      put_uint(&o, v, *fmt == 'x' ? 16 : 10, width, pad, false);
      break;
    }
    case 'p':
      put(&o, '0'), put(&o, 'x');
      put_uint(&o, (uintptr_t)va_arg(ap, void *), 16, width, pad, false);
      break;
    case 's': {
      const char *s = va_arg(ap, const char *);
      if (s == NULL)
        s = "(null)";
      for (int n = (int)strlen(s); n < width; n++)
        put(&o, ' ');
      while (*s != '\0')
        put(&o, *s++);
      break;
    }
    case 'c':
      put(&o, (char)va_arg(ap, int));
      break;
    case '%':
      put(&o, '%');
      break;
    default:
      return o.len; /* unknown conversion: stop rather than guess */
    }
  }
  if (size > 0)
    buf[o.len < size ? o.len : size - 1] = '\0';
  return o.len;
}

size_t rt_snprintf(char *buf, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  size_t n = rt_vsnprintf(buf, size, fmt, ap);
  va_end(ap);
  return n;
}

cloudabi_errno_t rt_write_all(cloudabi_fd_t fd, const void *buf, size_t len) {
  const char *p = buf;
  while (len > 0) {
    cloudabi_ciovec_t iov = {p, len};
    size_t n;
    cloudabi_errno_t error = cloudabi_sys_fd_write(fd, &iov, 1, &n);
    if (error != 0)
      return error;
    if (n == 0)
      return CLOUDABI_EIO;
    p += n;
    len -= n;
  }
  return 0;
}

cloudabi_errno_t rt_printf(cloudabi_fd_t fd, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  size_t n = rt_vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  return rt_write_all(fd, buf, n < sizeof(buf) ? n : sizeof(buf) - 1);
}

_Noreturn void rt_exit(uint32_t status) { cloudabi_sys_proc_exit(status); }

cloudabi_fd_t rt_log_fd = 2;

_Noreturn void rt_fail(const char *file, int line, const char *msg) {
  rt_printf(rt_log_fd, "FAIL %s:%d: %s\n", file, line, msg);
  rt_exit(1);
}

bool rt_map_get(const argdata_t *map, const char *key, argdata_t *value) {
  argdata_iter_t it;
  argdata_t k, v;
  if (argdata_map_iterate(map, &it) != 0)
    return false;
  while (argdata_map_next(&it, &k, &v)) {
    const char *s;
    size_t len;
    if (argdata_get_str(&k, &s, &len) == 0 && strcmp(s, key) == 0) {
      *value = v;
      return true;
    }
  }
  return false;
}

cloudabi_fd_t rt_map_fd(const argdata_t *map, const char *key) {
  argdata_t v;
  cloudabi_fd_t fd;
  if (!rt_map_get(map, key, &v) || argdata_get_fd(&v, &fd) != 0)
    rt_config_missing(key, "a descriptor");
  return fd;
}

int64_t rt_map_int(const argdata_t *map, const char *key, int64_t dflt) {
  argdata_t v;
  int64_t i;
  if (!rt_map_get(map, key, &v))
    return dflt;
  if (argdata_get_int_s(&v, &i) != 0)
    rt_config_missing(key, "an integer");
  return i;
}

const char *rt_map_str(const argdata_t *map, const char *key,
                       const char *dflt) {
  argdata_t v;
  const char *s;
  size_t len;
  if (!rt_map_get(map, key, &v) || argdata_get_str(&v, &s, &len) != 0)
    return dflt;
  return s;
}

cloudabi_errno_t rt_note(const char *text, size_t len) {
  long r = linux_syscall6(TRAP_NR_NOTE, (long)text, (long)len, 0, 0, 0, 0);
  if (r >= 0)
    return 0;
  /* -(TRAP_ERRNO_BIAS + errno); anything else is the filter's (ENOSYS). */
  return -r > TRAP_ERRNO_BIAS ? (cloudabi_errno_t)(-r - TRAP_ERRNO_BIAS)
                              : CLOUDABI_ENOSYS;
}

_Noreturn void rt_config_missing(const char *key, const char *want) {
  char buf[256];
  size_t n = rt_snprintf(buf, sizeof(buf),
                         "config: key \"%s\" is missing or not %s (give it "
                         "in the config or with --fd/--dir/--set %s=...)\n",
                         key, want, key);
  if (n >= sizeof(buf))
    n = sizeof(buf) - 1;
  if (rt_write_all(rt_log_fd, buf, n) != 0)
    rt_note(buf, n);
  rt_exit(1);
}

unsigned rt_checks_passed;

void rt_expect_errno(cloudabi_errno_t got, cloudabi_errno_t want,
                     const char *file, int line, const char *what) {
  if (got == want) {
    rt_checks_passed++;
    return;
  }
  char buf[512];
  rt_snprintf(buf, sizeof(buf), "%s: got errno %u, want %u", what, got, want);
  rt_fail(file, line, buf);
}
