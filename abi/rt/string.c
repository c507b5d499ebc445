/*
 * The memory and string functions the compiler may call even in
 * freestanding code (struct copies, zeroing), plus two more the tests use.
 */
#include "rt.h"

void *memcpy(void *restrict dst, const void *restrict src, size_t n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  while (n-- > 0)
    *d++ = *s++;
  return dst;
}

void *memmove(void *dst, const void *src, size_t n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  if (d < s) {
    while (n-- > 0)
      *d++ = *s++;
  } else {
    while (n-- > 0)
      d[n] = s[n];
  }
  return dst;
}

void *memset(void *dst, int c, size_t n) {
  unsigned char *d = dst;
  while (n-- > 0)
    *d++ = (unsigned char)c;
  return dst;
}

int memcmp(const void *a, const void *b, size_t n) {
  const unsigned char *x = a, *y = b;
  for (size_t i = 0; i < n; i++)
    if (x[i] != y[i])
      return x[i] < y[i] ? -1 : 1;
  return 0;
}

size_t strlen(const char *s) {
  size_t n = 0;
  while (s[n] != '\0')
    n++;
  return n;
}

int strcmp(const char *a, const char *b) {
  while (*a != '\0' && *a == *b)
    a++, b++;
  return (unsigned char)*a - (unsigned char)*b;
}
