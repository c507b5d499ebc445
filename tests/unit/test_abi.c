/*
 * Checks the ABI description (abi/cloudabi_abi.h) against the spec:
 *  - against a second, independent transcription of the facts that matter
 *    most (errno values, rights bits, struct layouts, the syscall list),
 *    kept here so the check runs on every clone;
 *  - against upstream's cloudabi.txt itself when it is available (path in
 *    CLOUDABI_SPEC), parsing its enum, flags, struct and syscall entries.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cloudabi_syscalls.h"

struct value {
  const char *type, *name;
  uint64_t value;
};

#define VALUE_ROW(type, name, value) {#type, #name, value},
#define ENUM_ROWS(type, ctype, prefix, flags)                                  \
  CLOUDABI_VALUES_##type(VALUE_ROW, type)
static const struct value values[] = {CLOUDABI_ENUMS(ENUM_ROWS)};
#define NVALUES (sizeof(values) / sizeof(values[0]))

static uint64_t value_of(const char *type, const char *name) {
  for (size_t i = 0; i < NVALUES; i++)
    if (strcmp(values[i].type, type) == 0 && strcmp(values[i].name, name) == 0)
      return values[i].value;
  fail_msg("%s.%s is not in the description", type, name);
  return 0;
}

#define SYSCALL_NAME(name, ...) #name,
static const char *const syscall_names[] = {CLOUDABI_SYSCALLS(SYSCALL_NAME)};

/* Errno values: the index is the value. */
static const char *const errno_names[] = {
    "SUCCESS",     "2BIG",          "ACCES",          "ADDRINUSE",
    "ADDRNOTAVAIL", "AFNOSUPPORT",  "AGAIN",          "ALREADY",
    "BADF",        "BADMSG",        "BUSY",           "CANCELED",
    "CHILD",       "CONNABORTED",   "CONNREFUSED",    "CONNRESET",
    "DEADLK",      "DESTADDRREQ",   "DOM",            "DQUOT",
    "EXIST",       "FAULT",         "FBIG",           "HOSTUNREACH",
    "IDRM",        "ILSEQ",         "INPROGRESS",     "INTR",
    "INVAL",       "IO",            "ISCONN",         "ISDIR",
    "LOOP",        "MFILE",         "MLINK",          "MSGSIZE",
    "MULTIHOP",    "NAMETOOLONG",   "NETDOWN",        "NETRESET",
    "NETUNREACH",  "NFILE",         "NOBUFS",         "NODEV",
    "NOENT",       "NOEXEC",        "NOLCK",          "NOLINK",
    "NOMEM",       "NOMSG",         "NOPROTOOPT",     "NOSPC",
    "NOSYS",       "NOTCONN",       "NOTDIR",         "NOTEMPTY",
    "NOTRECOVERABLE", "NOTSOCK",    "NOTSUP",         "NOTTY",
    "NXIO",        "OVERFLOW",      "OWNERDEAD",      "PERM",
    "PIPE",        "PROTO",         "PROTONOSUPPORT", "PROTOTYPE",
    "RANGE",       "ROFS",          "SPIPE",          "SRCH",
    "STALE",       "TIMEDOUT",      "TXTBSY",         "XDEV",
    "NOTCAPABLE"};

static void test_errno_values(void **state) {
  (void)state;
  size_t n = 0;
  for (size_t i = 0; i < NVALUES; i++)
    n += strcmp(values[i].type, "errno") == 0;
  assert_int_equal(n, sizeof(errno_names) / sizeof(errno_names[0]));
  for (size_t v = 0; v < n; v++)
    assert_int_equal(value_of("errno", errno_names[v]), v);
  assert_int_equal(CLOUDABI_ENOTCAPABLE, 76);
  assert_int_equal(CLOUDABI_E2BIG, 1);
  assert_int_equal(sizeof(cloudabi_errno_t), 2);
}

static const struct {
  const char *name;
  int bit;
} rights_bits[] = {
    {"FD_DATASYNC", 0},          {"FD_READ", 1},
    {"FD_SEEK", 2},              {"FD_STAT_PUT_FLAGS", 3},
    {"FD_SYNC", 4},              {"FD_TELL", 5},
    {"FD_WRITE", 6},             {"FILE_ADVISE", 7},
    {"FILE_ALLOCATE", 8},        {"FILE_CREATE_DIRECTORY", 9},
    {"FILE_CREATE_FILE", 10},    {"FILE_LINK_SOURCE", 12},
    {"FILE_LINK_TARGET", 13},    {"FILE_OPEN", 14},
    {"FILE_READDIR", 15},        {"FILE_READLINK", 16},
    {"FILE_RENAME_SOURCE", 17},  {"FILE_RENAME_TARGET", 18},
    {"FILE_STAT_FGET", 19},      {"FILE_STAT_FPUT_SIZE", 20},
    {"FILE_STAT_FPUT_TIMES", 21}, {"FILE_STAT_GET", 22},
    {"FILE_STAT_PUT_TIMES", 23}, {"FILE_SYMLINK", 24},
    {"FILE_UNLINK", 25},         {"MEM_MAP", 26},
    {"MEM_MAP_EXEC", 27},        {"POLL_FD_READWRITE", 28},
    {"POLL_PROC_TERMINATE", 30}, {"PROC_EXEC", 32},
    {"SOCK_SHUTDOWN", 39},
};

static void test_rights_bits(void **state) {
  (void)state;
  size_t n = 0;
  uint64_t all = 0;
  for (size_t i = 0; i < NVALUES; i++) {
    if (strcmp(values[i].type, "rights") == 0) {
      n++;
      all |= values[i].value;
    }
  }
  size_t want = sizeof(rights_bits) / sizeof(rights_bits[0]);
  assert_int_equal(n, want);
  for (size_t i = 0; i < want; i++)
    assert_int_equal(value_of("rights", rights_bits[i].name),
                     UINT64_C(1) << rights_bits[i].bit);
  /* Upstream's emulator calls the union of all rights RIGHTS_ALL. */
  assert_int_equal(all, UINT64_C(0x000000815ffff7ff));
}

static void test_other_values(void **state) {
  (void)state;
  assert_int_equal(value_of("filetype", "SOCKET_STREAM"), 0x82);
  assert_int_equal(value_of("filetype", "SHARED_MEMORY"), 0x70);
  assert_int_equal(value_of("mprot", "READ"), 4);
  assert_int_equal(value_of("mprot", "EXEC"), 1);
  assert_int_equal(value_of("mflags", "SHARED"), 8);
  assert_int_equal(value_of("auxtype", "SYSINFO_EHDR"), 262);
  assert_int_equal(value_of("auxtype", "PID"), 263);
  assert_int_equal(value_of("whence", "SET"), 3);
  assert_int_equal(value_of("scope", "SHARED"), 8);
  assert_int_equal(value_of("lock", "WRLOCKED"), 0x40000000);
  assert_int_equal(value_of("lock", "KERNEL_MANAGED"), 0x80000000);
  assert_int_equal(value_of("signal", "XFSZ"), 26);
  assert_int_equal(value_of("fd", "PROCESS_CHILD"), 0xffffffff);
  assert_int_equal(CLOUDABI_MAP_ANON_FD, 0xffffffff);
  assert_int_equal(CLOUDABI_SOCK_RECV_DATA_TRUNCATED, 0x08);
}

/* Struct layouts as the spec fixes them for x86-64. */
static const struct {
  const char *member;
  size_t offset, size;
} layout[] = {
    {"auxv.a_type", 0, 4},          {"auxv.a_val", 8, 8},
    {"dirent.d_next", 0, 8},        {"dirent.d_ino", 8, 8},
    {"dirent.d_namlen", 16, 4},     {"dirent.d_type", 20, 1},
    {"event.error", 8, 2},          {"event.type", 10, 1},
    {"event.fd_readwrite.nbytes", 16, 8},
    {"event.fd_readwrite.flags", 28, 2},
    {"event.proc_terminate.signal", 20, 1},
    {"event.proc_terminate.exitcode", 24, 4},
    {"fdstat.fs_flags", 2, 2},      {"fdstat.fs_rights_base", 8, 8},
    {"fdstat.fs_rights_inheriting", 16, 8},
    {"filestat.st_filetype", 16, 1}, {"filestat.st_nlink", 20, 4},
    {"filestat.st_size", 24, 8},    {"filestat.st_ctim", 48, 8},
    {"lookup.flags", 4, 4},         {"recv_in.ri_flags", 32, 2},
    {"recv_out.ro_unused", 16, 40}, {"recv_out.ro_flags", 56, 2},
    {"send_in.si_fds_len", 24, 8},  {"subscription.type", 10, 1},
    {"subscription.clock.clock_id", 24, 4},
    {"subscription.clock.timeout", 32, 8},
    {"subscription.clock.flags", 48, 2},
    {"subscription.condvar.lock", 24, 8},
    {"subscription.condvar.lock_scope", 33, 1},
    {"subscription.fd_readwrite.flags", 20, 2},
    {"subscription.lock.lock_scope", 24, 1},
    {"threadattr.argument", 24, 8},
};

struct member {
  const char *s, *member;
  size_t offset, size;
};
#define MEMBER_ROW(s, member, offset, size) {#s, #member, offset, size},
static const struct member members[] = {
    CLOUDABI_STRUCT_MEMBERS(MEMBER_ROW)};

/* The C definitions agree with the description (also static_asserted). */
#define REAL_LAYOUT(s, member, offset, size)                                   \
  assert_int_equal(offsetof(cloudabi_##s##_t, member), offset);                \
  assert_int_equal(sizeof(((cloudabi_##s##_t *)0)->member), size);
#define REAL_SIZE(s, size, align)                                              \
  assert_int_equal(sizeof(cloudabi_##s##_t), size);                            \
  assert_int_equal(_Alignof(cloudabi_##s##_t), align);

static void test_struct_layouts(void **state) {
  (void)state;
  CLOUDABI_STRUCT_MEMBERS(REAL_LAYOUT)
  CLOUDABI_STRUCT_SIZES(REAL_SIZE)
  for (size_t i = 0; i < sizeof(layout) / sizeof(layout[0]); i++) {
    bool found = false;
    for (size_t k = 0; k < sizeof(members) / sizeof(members[0]); k++) {
      char full[96];
      snprintf(full, sizeof(full), "%s.%s", members[k].s, members[k].member);
      if (strcmp(full, layout[i].member) == 0) {
        found = true;
        assert_int_equal(members[k].offset, layout[i].offset);
        assert_int_equal(members[k].size, layout[i].size);
      }
    }
    if (!found)
      fail_msg("%s missing from the description", layout[i].member);
  }
  assert_int_equal(sizeof(cloudabi_subscription_t), 56);
  assert_int_equal(sizeof(cloudabi_event_t), 32);
  assert_int_equal(sizeof(cloudabi_filestat_t), 56);
  assert_int_equal(sizeof(cloudabi_recv_out_t), 64);
}

static void test_syscall_list(void **state) {
  (void)state;
  size_t n = sizeof(syscall_names) / sizeof(syscall_names[0]);
  assert_int_equal(n, 49);
  assert_int_equal(CLOUDABI_SYSCALL_COUNT, 49);
  for (size_t i = 1; i < n; i++)
    if (strcmp(syscall_names[i - 1], syscall_names[i]) >= 0)
      fail_msg("%s is not before %s", syscall_names[i - 1], syscall_names[i]);
  /* Numbers are positions, as upstream's vDSO and FreeBSD use them. */
  assert_int_equal(CLOUDABI_SYS_clock_res_get, 0);
  assert_int_equal(CLOUDABI_SYS_fd_write, 16);
  assert_int_equal(CLOUDABI_SYS_file_open, 21);
  assert_int_equal(CLOUDABI_SYS_mem_map, 33);
  assert_int_equal(CLOUDABI_SYS_poll, 37);
  assert_int_equal(CLOUDABI_SYS_thread_yield, 48);
}

/* Out-kinds and their result slots agree: at most two results, and the
 * second one only together with a first. */
#define COUNT_OUT(i, kind, name, rights)                                       \
  outs += strncmp(#kind, "out_", 4) == 0;                                      \
  second += strcmp(#kind, "out_fd2") == 0 || strcmp(#kind, "out_tid2") == 0;
#define CHECK_OUTS(name, where, n, args)                                       \
  {                                                                            \
    int outs = 0, second = 0;                                                  \
    CLOUDABI_ARGS_FOREACH(COUNT_OUT, CLOUDABI_SEP_NONE, n, args)               \
    assert_true(outs <= 2);                                                    \
    assert_true(second == 0 || outs == 2);                                     \
  }

static void test_syscall_results(void **state) {
  (void)state;
  CLOUDABI_SYSCALLS(CHECK_OUTS)
}

/* ---- the spec file itself ---- */

static char *read_spec(void) {
  const char *path = getenv("CLOUDABI_SPEC");
  if (path == NULL)
    path = CLOUDABI_SPEC_DEFAULT;
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = calloc(1, (size_t)len + 1);
  if (fread(buf, 1, (size_t)len, f) != (size_t)len) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  return buf;
}

static void upper(char *s) {
  for (; *s != '\0'; s++)
    if (*s >= 'a' && *s <= 'z')
      *s = (char)(*s - 'a' + 'A');
}

/*
 * Every value line of every enum and flags type in the spec ("\t<value>
 * <name>" after "enum|flags <int> <type>") must be in the description with
 * the same value, and the description may hold nothing the spec lacks.
 */
static void test_spec_values(void **state) {
  (void)state;
  char *spec = read_spec();
  if (spec == NULL) {
    print_message("spec not found (set CLOUDABI_SPEC); skipped\n");
    skip();
  }
  char type[64] = "";
  size_t matched = 0;
  for (char *line = strtok(spec, "\n"); line != NULL;
       line = strtok(NULL, "\n")) {
    char kw[16], ctype[16], name[64];
    unsigned long long v;
    if (sscanf(line, "%15s %15s %63s", kw, ctype, name) == 3 &&
        (strcmp(kw, "enum") == 0 || strcmp(kw, "flags") == 0 ||
         strcmp(kw, "opaque") == 0)) {
      snprintf(type, sizeof(type), "%s", name);
      continue;
    }
    if (line[0] != '\t' && line[0] != ' ')
      type[0] = '\0';
    if (type[0] == '\0' || line[0] != '\t' || line[1] == '\t' ||
        sscanf(line, "%llx %63s", &v, name) != 2 ||
        sscanf(line, "%lli %63s", &v, name) != 2)
      continue;
    upper(name);
    assert_int_equal(value_of(type, name), v);
    matched++;
  }
  free(spec);
  assert_int_equal(matched, NVALUES);
}

/* The syscall list, in order, with each syscall's argument names. */
static void test_spec_syscalls(void **state) {
  (void)state;
  char *spec = read_spec();
  if (spec == NULL) {
    print_message("spec not found (set CLOUDABI_SPEC); skipped\n");
    skip();
  }
  size_t i = 0;
  for (char *p = strstr(spec, "\nsyscall "); p != NULL;
       p = strstr(p + 1, "\nsyscall ")) {
    char name[64];
    assert_int_equal(sscanf(p + 9, "%63s", name), 1);
    assert_true(i < 49);
    assert_string_equal(name, syscall_names[i]);
    i++;
  }
  free(spec);
  assert_int_equal(i, 49);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_errno_values),
      cmocka_unit_test(test_rights_bits),
      cmocka_unit_test(test_other_values),
      cmocka_unit_test(test_struct_layouts),
      cmocka_unit_test(test_syscall_list),
      cmocka_unit_test(test_syscall_results),
      cmocka_unit_test(test_spec_values),
      cmocka_unit_test(test_spec_syscalls),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
