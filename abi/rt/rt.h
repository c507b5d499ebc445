/*
 * The guest runtime for the project's own CloudABI test and example
 * programs: what upstream crt0 does at start-up, an argdata reader, and a
 * few string and output helpers.  It is deliberately not a libc.
 */
#ifndef RT_H
#define RT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "argdata.h"
#include "cloudabi_syscalls.h"
#include "linux_syscall.h"

/* The program's entry, called by crt0; returning exits with status 0. */
void program_main(const argdata_t *ad);

/* What crt0 learned at start-up, for tests that check it. */
struct rt_startup {
  const cloudabi_auxv_t *auxv;
  uintptr_t base;
  size_t nsyscalls_bound; /* vDSO symbols crt0 bound */
  size_t ncpus;
  size_t pagesz;
  cloudabi_tid_t tid;
  const uint8_t *pid; /* 16 bytes */
  const uint8_t *canary;
  size_t canarylen;
};
extern struct rt_startup rt_startup;

void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);

/* Formatted output: %d %i %u %x %s %c %p %% with l, ll, z and width/0. */
size_t rt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
size_t rt_snprintf(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Writes everything or returns the error. */
cloudabi_errno_t rt_write_all(cloudabi_fd_t fd, const void *buf, size_t len);
cloudabi_errno_t rt_printf(cloudabi_fd_t fd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

_Noreturn void rt_exit(uint32_t status);
/* Where rt_fail reports; a program sets it from its configuration. */
extern cloudabi_fd_t rt_log_fd;
/* Prints "FAIL file:line: msg" to rt_log_fd and exits with 1. */
_Noreturn void rt_fail(const char *file, int line, const char *msg);
#define RT_CHECK(cond)                                                         \
  do {                                                                         \
    if (!(cond))                                                               \
      rt_fail(__FILE__, __LINE__, #cond);                                      \
  } while (0)

/* An errno as text: "ENOENT (no such file or directory)", or its name. */
const char *rt_strerror(cloudabi_errno_t e);

/*
 * A config key the program needs is missing or of the wrong type: says so
 * on rt_log_fd, and when that cannot be written (no fd 2 granted), as a
 * note cloudabi-run prints (rt_note), then exits with 1.
 */
_Noreturn void rt_config_missing(const char *key, const char *want);

/* Text for the user on cloudabi-run's standard error, through the
 * supervisor (TRAP_NR_NOTE in trap.h): for a program that holds no
 * descriptor to write it to.  Bounded and counted by the supervisor. */
cloudabi_errno_t rt_note(const char *text, size_t len);

/* A raw system call, for tests that bypass the vDSO on purpose. */
#define rt_raw_syscall linux_syscall6

/* Looks up a key of a map given as argdata; returns false if absent. */
bool rt_map_get(const argdata_t *map, const char *key, argdata_t *value);
/* Shorthands over rt_map_get for tests: the value or a failure exit. */
cloudabi_fd_t rt_map_fd(const argdata_t *map, const char *key);
int64_t rt_map_int(const argdata_t *map, const char *key, int64_t dflt);
/* The string value of key, or dflt. */
const char *rt_map_str(const argdata_t *map, const char *key, const char *dflt);

/* Checks that a call failed with (or succeeded as) `want`, printing both
 * errnos on failure. */
#define RT_EXPECT(call, want)                                                  \
  rt_expect_errno((call), (want), __FILE__, __LINE__, #call)
void rt_expect_errno(cloudabi_errno_t got, cloudabi_errno_t want,
                     const char *file, int line, const char *what);
/* How many RT_EXPECTs passed. */
extern unsigned rt_checks_passed;

#endif
