/*
 * The trace's pieces without a guest: spelling (text and JSON), names of
 * flags, enumerations and errors, --trace lists, the decoder on calls the
 * guests of the end-to-end tests cannot make yet (file_open, poll,
 * sockets), every row of the syscall table on random arguments and random
 * guest memory (no crash; the JSON always parses), and the tracer's lines
 * for parked, resumed and abandoned calls.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "supervisor/sup.h"
#include "calls/syscall_table.h"
#include "trace/trace.h"
#include "trace/trace_decode.h"
#include "trace/trace_emit.h"
#include "trace/trace_names.h"

/* ---- a small JSON checker: one value, nothing after it ---- */

static const char *json_ws(const char *p) {
  while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
    p++;
  return p;
}

static const char *json_value(const char *p, int depth);

static const char *json_string(const char *p) {
  if (*p++ != '"')
    return NULL;
  while (*p != '"') {
    if ((unsigned char)*p < 0x20)
      return NULL;
    if (*p == '\\') {
      p++;
      if (*p == 'u') {
        for (int i = 1; i <= 4; i++)
          if (strchr("0123456789abcdefABCDEF", p[i]) == NULL || p[i] == 0)
            return NULL;
        p += 4;
      } else if (strchr("\"\\/bfnrt", *p) == NULL || *p == 0) {
        return NULL;
      }
    }
    p++;
  }
  return p + 1;
}

static const char *json_value(const char *p, int depth) {
  if (depth > 32)
    return NULL;
  p = json_ws(p);
  if (*p == '{' || *p == '[') {
    char close = *p == '{' ? '}' : ']';
    bool object = *p == '{';
    p = json_ws(p + 1);
    if (*p == close)
      return p + 1;
    for (;;) {
      if (object) {
        p = json_string(json_ws(p));
        if (p == NULL)
          return NULL;
        p = json_ws(p);
        if (*p++ != ':')
          return NULL;
      }
      p = json_value(p, depth + 1);
      if (p == NULL)
        return NULL;
      p = json_ws(p);
      if (*p == close)
        return p + 1;
      if (*p++ != ',')
        return NULL;
    }
  }
  if (*p == '"')
    return json_string(p);
  if (strncmp(p, "true", 4) == 0 || strncmp(p, "null", 4) == 0)
    return p + 4;
  if (strncmp(p, "false", 5) == 0)
    return p + 5;
  const char *start = p;
  if (*p == '-')
    p++;
  while ((*p >= '0' && *p <= '9') || *p == '.')
    p++;
  return p > start ? p : NULL;
}

static bool json_valid(const char *s) {
  const char *end = json_value(s, 0);
  return end != NULL && *json_ws(end) == '\0';
}

static void test_json_checker(void **state) {
  (void)state;
  assert_true(json_valid("{\"a\":[1,-2,\"x\\u00ff\"],\"b\":{}}"));
  assert_false(json_valid("{\"a\":1,}"));
  assert_false(json_valid("{\"a\":\"\x01\"}"));
  assert_false(json_valid("[1] 2"));
}

/* ---- the emitter ---- */

static void test_emit_text(void **state) {
  (void)state;
  struct temit e;
  te_init(&e);
  te_reset(&e, false);
  te_raw(&e, "f");
  te_open(&e, "args", TE_ARGS);
  te_uint(&e, "a", 7);
  te_int(&e, "b", -1);
  te_open(&e, "s", TE_STRUCT);
  te_sym(&e, "flags", "O_CREAT|O_EXCL");
  te_hex(&e, "p", 0);
  te_close(&e);
  te_open(&e, "l", TE_LIST);
  te_open(&e, NULL, TE_TUPLE);
  te_bytes(&e, "data", "a\"\\\n\t\r\x01\x7f\xff", 9, true);
  te_uint(&e, "len", 99);
  te_close(&e);
  te_close_list(&e, "l", true);
  te_close(&e);
  assert_string_equal(e.buf, "f(7, -1, {flags=O_CREAT|O_EXCL, p=0x0}, "
                             "[{\"a\\\"\\\\\\n\\t\\r\\x01\\x7f\\xff\"..., 99}"
                             ", ...])");
  te_free(&e);
}

static void test_emit_json(void **state) {
  (void)state;
  struct temit e;
  te_init(&e);
  te_reset(&e, true);
  te_open(&e, NULL, TE_OBJECT);
  te_open(&e, "args", TE_ARGS);
  te_uint(&e, "a", 7);
  te_open(&e, "s", TE_STRUCT);
  te_sym(&e, "flags", "O_CREAT");
  te_close(&e);
  te_open(&e, "l", TE_LIST);
  te_open(&e, NULL, TE_TUPLE);
  te_bytes(&e, "data", "\0\"\x80", 3, true);
  te_close(&e);
  te_close_list(&e, "l", true);
  te_close(&e);
  te_null(&e, "n");
  te_seconds(&e, "t", 1234567891);
  te_close(&e);
  assert_string_equal(
      e.buf,
      "{\"args\":{\"a\":7,\"s\":{\"flags\":\"O_CREAT\"},\"l\":[{\"data\":"
      "\"\\u0000\\\"\\u0080\",\"data_truncated\":true}],"
      "\"l_truncated\":true},\"n\":null,\"t\":1.234567}");
  assert_true(json_valid(e.buf));
  /* Every byte value makes a valid JSON string. */
  unsigned char all[256];
  for (int i = 0; i < 256; i++)
    all[i] = (unsigned char)i;
  te_reset(&e, true);
  te_bytes(&e, NULL, all, sizeof(all), false);
  assert_true(json_valid(e.buf));
  te_free(&e);
}

/* ---- names ---- */

static void test_names(void **state) {
  (void)state;
  char buf[1024];
  const struct trace_enum *o = trace_enum_by_type("oflags");
  assert_non_null(o);
  assert_string_equal(trace_enum_format(o, 0, buf, sizeof(buf)), "0");
  assert_string_equal(trace_enum_format(o, CLOUDABI_O_CREAT | CLOUDABI_O_EXCL,
                                        buf, sizeof(buf)),
                      "O_CREAT|O_EXCL");
  assert_string_equal(
      trace_enum_format(o, CLOUDABI_O_TRUNC | 0x300, buf, sizeof(buf)),
      "O_TRUNC|0x300");
  const struct trace_enum *r = trace_enum_by_type("rights");
  assert_string_equal(
      trace_enum_format(r, CLOUDABI_RIGHT_FD_READ | CLOUDABI_RIGHT_FD_SEEK, buf,
                        sizeof(buf)),
      "FD_READ|FD_SEEK");
  const struct trace_enum *c = trace_enum_by_type("clockid");
  assert_string_equal(
      trace_enum_format(c, CLOUDABI_CLOCK_REALTIME, buf, sizeof(buf)),
      "CLOCK_REALTIME");
  assert_string_equal(trace_enum_format(c, 77, buf, sizeof(buf)), "77");
  assert_string_equal(trace_enum_format(trace_enum_by_type("signal"),
                                        CLOUDABI_SIGSEGV, buf, sizeof(buf)),
                      "SIGSEGV");
  assert_null(trace_enum_by_type("nonsense"));
  /* A buffer too small is cut, never overrun. */
  char tiny[6];
  trace_enum_format(o, CLOUDABI_O_CREAT | CLOUDABI_O_EXCL, tiny, sizeof(tiny));
  assert_int_equal(strlen(tiny), 5);
}

static void test_errnos(void **state) {
  (void)state;
  assert_string_equal(trace_errno_name(CLOUDABI_EBADF), "EBADF");
  assert_string_equal(trace_errno_meaning(CLOUDABI_EBADF),
                      "Bad file descriptor");
  assert_string_equal(trace_errno_name(CLOUDABI_ENOTCAPABLE), "ENOTCAPABLE");
  for (unsigned e = 0; e <= CLOUDABI_ENOTCAPABLE; e++) {
    assert_non_null(trace_errno_name((cloudabi_errno_t)e));
    assert_string_not_equal(trace_errno_meaning((cloudabi_errno_t)e),
                            "Unknown error");
  }
  assert_null(trace_errno_name(CLOUDABI_ENOTCAPABLE + 1));
  assert_string_equal(trace_errno_meaning(999), "Unknown error");
}

/* ---- --trace lists ---- */

static uint64_t bit(unsigned sysno) {
  return UINT64_C(1) << sysno;
}

static void test_spec(void **state) {
  (void)state;
  struct trace_options o;
  char why[256];
  trace_options_init(&o);
  assert_true(trace_spec_parse(NULL, &o, why, sizeof(why)));
  trace_options_finish(&o);
  assert_true(o.enabled);
  assert_int_equal(o.select, (bit(CLOUDABI_SYSCALL_COUNT - 1) << 1) - 1);
  assert_null(o.output);

  trace_options_init(&o);
  assert_true(trace_spec_parse("fd,poll,file_open,local,./t.txt", &o, why,
                               sizeof(why)));
  trace_options_finish(&o);
  assert_true(o.local);
  assert_int_equal(o.output_len, strlen("./t.txt"));
  assert_memory_equal(o.output, "./t.txt", o.output_len);
  assert_true(o.select & bit(CLOUDABI_SYS_fd_write));
  assert_true(o.select & bit(CLOUDABI_SYS_fd_stat_put));
  assert_true(o.select & bit(CLOUDABI_SYS_poll));
  assert_true(o.select & bit(CLOUDABI_SYS_file_open));
  assert_false(o.select & bit(CLOUDABI_SYS_file_unlink));
  assert_false(o.select & bit(CLOUDABI_SYS_proc_exit));

  /* Two lists add up; a file alone leaves every call selected. */
  trace_options_init(&o);
  assert_true(trace_spec_parse("mem", &o, why, sizeof(why)));
  assert_true(trace_spec_parse("clock_time_get", &o, why, sizeof(why)));
  trace_options_finish(&o);
  assert_int_equal(o.select & bit(CLOUDABI_SYS_clock_res_get), 0);
  assert_true(o.select & bit(CLOUDABI_SYS_clock_time_get));
  assert_true(o.select & bit(CLOUDABI_SYS_mem_map));
  trace_options_init(&o);
  assert_true(trace_spec_parse("/dev/null", &o, why, sizeof(why)));
  trace_options_finish(&o);
  assert_true(o.select & bit(CLOUDABI_SYS_thread_yield));

  static const char *const bad[] = {"",      "fd,",       ",fd",     "flie",
                                    "fd_wr", "trace.txt", "./a,./b", "FD"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    trace_options_init(&o);
    why[0] = '\0';
    assert_false(trace_spec_parse(bad[i], &o, why, sizeof(why)));
    assert_true(why[0] != '\0');
  }
  trace_options_init(&o);
  trace_spec_parse("flie", &o, why, sizeof(why));
  assert_string_equal(why, "--trace: unknown system call or family \"flie\" "
                           "(a file name needs a \"/\", as in ./flie)");
}

/* ---- the decoder, on fake guest memory ---- */

#define GUEST_BASE UINT64_C(0x100000)

struct fake_mem {
  unsigned char bytes[8192];
  size_t used;
  bool fail;     /* every read fails */
  uint64_t high; /* the end of the highest byte read */
};

static bool fake_read(void *ctx, uint64_t addr, void *buf, size_t len) {
  struct fake_mem *m = ctx;
  if (m->fail || addr < GUEST_BASE || addr - GUEST_BASE > sizeof(m->bytes) ||
      len > sizeof(m->bytes) - (addr - GUEST_BASE))
    return false;
  memcpy(buf, m->bytes + (addr - GUEST_BASE), len);
  if (len > 0 && addr + len > m->high)
    m->high = addr + len;
  return true;
}

/* Puts len bytes into the fake guest; returns their address. */
static uint64_t put(struct fake_mem *m, const void *data, size_t len) {
  m->used = (m->used + 7) & ~(size_t)7;
  assert_true(m->used + len <= sizeof(m->bytes));
  memcpy(m->bytes + m->used, data, len);
  uint64_t addr = GUEST_BASE + m->used;
  m->used += len;
  return addr;
}

static unsigned char scratch[TRACE_STRSIZE_MAX];

/* Decodes a call into e as "name(args) = result" (text) or a JSON object. */
static const char *decode(struct temit *e, bool json, unsigned sysno,
                          const uint64_t *args, enum trace_phase phase,
                          uint64_t result, bool in_memory, struct fake_mem *m) {
  struct trace_mem mem = {fake_read, m};
  struct trace_view v = {
      .d = &syscall_table[sysno],
      .phase = phase,
      .outs_in_memory = in_memory,
      .result = result,
      .mem = &mem,
      .strsize = 32,
      .scratch = scratch,
  };
  memcpy(v.args, args, sizeof(v.args));
  te_reset(e, json);
  if (json)
    te_open(e, NULL, TE_OBJECT);
  else
    te_raw(e, v.d->name);
  trace_decode_args(e, "args", &v);
  if (phase == TP_OK) {
    if (!json)
      te_raw(e, " = ");
    trace_decode_result(e, "result", &v);
  }
  if (json)
    te_close(e);
  return e->buf;
}

/* The issue's own example. */
static void test_decode_file_open(void **state) {
  (void)state;
  struct fake_mem m = {0};
  struct temit e;
  te_init(&e);
  uint64_t path = put(&m, "data/in.txt", 11);
  cloudabi_fdstat_t fds = {.fs_rights_base =
                               CLOUDABI_RIGHT_FD_READ | CLOUDABI_RIGHT_FD_SEEK};
  uint64_t fdsp = put(&m, &fds, sizeof(fds));
  uint64_t lookup = 3 | ((uint64_t)CLOUDABI_LOOKUP_SYMLINK_FOLLOW << 32);
  uint64_t args[7] = {lookup, path, 11, 0, fdsp, GUEST_BASE + 4000};
  assert_string_equal(
      decode(&e, false, CLOUDABI_SYS_file_open, args, TP_OK, 4, false, &m),
      "file_open(3, \"data/in.txt\", LOOKUP_SYMLINK_FOLLOW, 0, "
      "{filetype=FILETYPE_UNKNOWN, flags=0, rights=FD_READ|FD_SEEK, "
      "inheriting=0}) = 4");
  assert_string_equal(
      decode(&e, true, CLOUDABI_SYS_file_open, args, TP_OK, 4, false, &m),
      "{\"args\":{\"dirfd\":3,\"path\":\"data/in.txt\",\"lookup_flags\":"
      "\"LOOKUP_SYMLINK_FOLLOW\",\"oflags\":\"0\",\"fds\":{\"filetype\":"
      "\"FILETYPE_UNKNOWN\",\"flags\":\"0\",\"rights\":\"FD_READ|FD_SEEK\","
      "\"inheriting\":\"0\"}},\"result\":{\"fd\":4}}");
  /* A path that cannot be read is shown as its address; a long one is cut. */
  args[1] = 0x10;
  assert_string_equal(
      decode(&e, false, CLOUDABI_SYS_file_open, args, TP_FAILED, 0, false, &m),
      "file_open(3, 0x10, LOOKUP_SYMLINK_FOLLOW, 0, "
      "{filetype=FILETYPE_UNKNOWN, flags=0, rights=FD_READ|FD_SEEK, "
      "inheriting=0})");
  static const char longpath[] = "a/very/long/path/that/goes/on/and/on.txt";
  args[1] = put(&m, longpath, strlen(longpath));
  args[2] = strlen(longpath);
  assert_string_equal(
      decode(&e, true, CLOUDABI_SYS_file_open, args, TP_FAILED, 0, false, &m),
      "{\"args\":{\"dirfd\":3,\"path\":\"a/very/long/path/that/goes/on/an\","
      "\"path_truncated\":true,\"lookup_flags\":\"LOOKUP_SYMLINK_FOLLOW\","
      "\"oflags\":\"0\",\"fds\":{\"filetype\":\"FILETYPE_UNKNOWN\",\"flags\":"
      "\"0\",\"rights\":\"FD_READ|FD_SEEK\",\"inheriting\":\"0\"}}}");
  te_free(&e);
}

static void test_decode_poll(void **state) {
  (void)state;
  struct fake_mem m = {0};
  struct temit e;
  te_init(&e);
  cloudabi_subscription_t subs[2];
  memset(subs, 0, sizeof(subs));
  subs[0].userdata = 1;
  subs[0].type = CLOUDABI_EVENTTYPE_CLOCK;
  subs[0].clock.clock_id = CLOUDABI_CLOCK_MONOTONIC;
  subs[0].clock.timeout = 1000000;
  subs[0].clock.flags = CLOUDABI_SUBSCRIPTION_CLOCK_ABSTIME;
  subs[1].userdata = 2;
  subs[1].type = CLOUDABI_EVENTTYPE_FD_READ;
  subs[1].fd_readwrite.fd = 5;
  subs[1].fd_readwrite.flags = CLOUDABI_SUBSCRIPTION_FD_READWRITE_POLL;
  cloudabi_event_t ev[2];
  memset(ev, 0, sizeof(ev));
  ev[0].userdata = 2;
  ev[0].type = CLOUDABI_EVENTTYPE_FD_READ;
  ev[0].fd_readwrite.nbytes = 11;
  ev[0].fd_readwrite.flags = CLOUDABI_EVENT_FD_READWRITE_HANGUP;
  uint64_t args[7] = {put(&m, subs, sizeof(subs)), put(&m, ev, sizeof(ev)), 2,
                      GUEST_BASE + 4000};
  assert_string_equal(
      decode(&e, false, CLOUDABI_SYS_poll, args, TP_OK, 1, false, &m),
      "poll([{userdata=0x1, type=EVENTTYPE_CLOCK, clock={identifier=0x0, "
      "clock_id=CLOCK_MONOTONIC, timeout=1000000, precision=0, "
      "flags=SUBSCRIPTION_CLOCK_ABSTIME}}, {userdata=0x2, "
      "type=EVENTTYPE_FD_READ, fd_readwrite={fd=5, "
      "flags=SUBSCRIPTION_FD_READWRITE_POLL}}], [{userdata=0x2, error=0, "
      "type=EVENTTYPE_FD_READ, fd_readwrite={nbytes=11, "
      "flags=EVENT_FD_READWRITE_HANGUP}}], 2) = 1");
  /* Parked: the events are not written yet. */
  assert_string_equal(
      decode(&e, false, CLOUDABI_SYS_poll, args, TP_UNFINISHED, 0, false, &m),
      "poll([{userdata=0x1, type=EVENTTYPE_CLOCK, clock={identifier=0x0, "
      "clock_id=CLOCK_MONOTONIC, timeout=1000000, precision=0, "
      "flags=SUBSCRIPTION_CLOCK_ABSTIME}}, {userdata=0x2, "
      "type=EVENTTYPE_FD_READ, fd_readwrite={fd=5, "
      "flags=SUBSCRIPTION_FD_READWRITE_POLL}}], 0x100070, 2)");
  assert_true(json_valid(
      decode(&e, true, CLOUDABI_SYS_poll, args, TP_OK, 1, false, &m)));
  te_free(&e);
}

static void test_decode_sockets_and_pairs(void **state) {
  (void)state;
  struct fake_mem m = {0};
  struct temit e;
  te_init(&e);
  cloudabi_ciovec_t data = {(void *)(uintptr_t)put(&m, "ping", 4), 4};
  cloudabi_fd_t fds[2] = {3, 4};
  cloudabi_send_in_t si = {
      .si_data = (void *)(uintptr_t)put(&m, &data, sizeof(data)),
      .si_data_len = 1,
      .si_fds = (void *)(uintptr_t)put(&m, fds, sizeof(fds)),
      .si_fds_len = 2};
  cloudabi_send_out_t so = {4};
  uint64_t args[7] = {7, put(&m, &si, sizeof(si)), put(&m, &so, sizeof(so))};
  assert_string_equal(
      decode(&e, false, CLOUDABI_SYS_sock_send, args, TP_OK, 0, false, &m),
      "sock_send(7, {data=[{\"ping\", 4}], data_len=1, fds=[3, 4], "
      "fds_len=2, flags=0}, {datalen=4}) = 0");

  char inbuf[8] = "pong";
  cloudabi_iovec_t iov = {(void *)(uintptr_t)put(&m, inbuf, sizeof(inbuf)),
                          sizeof(inbuf)};
  cloudabi_fd_t got[1] = {9};
  cloudabi_recv_in_t ri = {
      .ri_data = (void *)(uintptr_t)put(&m, &iov, sizeof(iov)),
      .ri_data_len = 1,
      .ri_fds = (void *)(uintptr_t)put(&m, got, sizeof(got)),
      .ri_fds_len = 1,
      .ri_flags = CLOUDABI_SOCK_RECV_PEEK};
  cloudabi_recv_out_t ro = {.ro_datalen = 4, .ro_fdslen = 1};
  args[1] = put(&m, &ri, sizeof(ri));
  args[2] = put(&m, &ro, sizeof(ro));
  assert_string_equal(
      decode(&e, false, CLOUDABI_SYS_sock_recv, args, TP_OK, 0, false, &m),
      "sock_recv(7, {data=[{\"pong\", 8}], data_len=1, fds=[9], fds_len=1, "
      "flags=SOCK_RECV_PEEK}, {datalen=4, fdslen=1, flags=0}) = 0");

  /* Two results from one answer: low and high 32 bits. */
  uint64_t pair[7] = {CLOUDABI_FILETYPE_SOCKET_STREAM, GUEST_BASE,
                      GUEST_BASE + 4};
  assert_string_equal(decode(&e, false, CLOUDABI_SYS_fd_create2, pair, TP_OK,
                             (UINT64_C(6) << 32) | 5, false, &m),
                      "fd_create2(FILETYPE_SOCKET_STREAM) = {fd1=5, fd2=6}");
  /* A local call's results are behind its pointers. */
  uint64_t t = 123456789;
  uint64_t clock[7] = {CLOUDABI_CLOCK_MONOTONIC, 0, put(&m, &t, sizeof(t))};
  assert_string_equal(
      decode(&e, false, CLOUDABI_SYS_clock_time_get, clock, TP_OK, 0, true, &m),
      "clock_time_get(CLOCK_MONOTONIC, 0) = 123456789");
  assert_string_equal(
      decode(&e, true, CLOUDABI_SYS_clock_time_get, clock, TP_OK, 0, true, &m),
      "{\"args\":{\"clock_id\":\"CLOCK_MONOTONIC\","
      "\"precision\":0},\"result\":{\"time\":123456789}}");
  /* Bytes a call read are shown after it, up to what it used. */
  uint64_t link[7] = {3, put(&m, "ln", 2), 2, put(&m, "target!!", 8),
                      8, GUEST_BASE};
  assert_string_equal(
      decode(&e, false, CLOUDABI_SYS_file_readlink, link, TP_OK, 6, false, &m),
      "file_readlink(3, \"ln\", \"target\", 8) = 6");
  te_free(&e);
}

/* ---- file_readdir's entries ---- */

/* Appends a dirent header and name_bytes bytes of name to buf at *off. */
static void dirent_put(unsigned char *buf, size_t *off, uint64_t next,
                       uint64_t ino, uint32_t namlen, uint8_t type,
                       const char *name, size_t name_bytes) {
  cloudabi_dirent_t de;
  memset(&de, 0, sizeof(de));
  de.d_next = next;
  de.d_ino = ino;
  de.d_namlen = namlen;
  de.d_type = type;
  memcpy(buf + *off, &de, sizeof(de));
  *off += sizeof(de);
  memcpy(buf + *off, name, name_bytes);
  *off += name_bytes;
}

/* Decodes a readdir of buf_len bytes at addr that returned `used`. */
static const char *readdir_line(struct temit *e, bool json, struct fake_mem *m,
                                uint64_t addr, uint64_t buf_len,
                                uint64_t used) {
  uint64_t args[7] = {3, addr, buf_len, 0, GUEST_BASE};
  return decode(e, json, CLOUDABI_SYS_file_readdir, args, TP_OK, used, false,
                m);
}

#define DOT_ENTRIES                                                            \
  "{next=1, ino=10, namlen=1, type=FILETYPE_DIRECTORY, name=\".\"}, "          \
  "{next=2, ino=2, namlen=2, type=FILETYPE_DIRECTORY, name=\"..\"}"

static void test_decode_readdir(void **state) {
  (void)state;
  struct fake_mem m = {0};
  struct temit e;
  te_init(&e);
  unsigned char buf[512];
  memset(buf, 'X', sizeof(buf)); /* what lies beyond the entries */
  size_t len = 0;
  dirent_put(buf, &len, 1, 10, 1, CLOUDABI_FILETYPE_DIRECTORY, ".", 1);
  dirent_put(buf, &len, 2, 2, 2, CLOUDABI_FILETYPE_DIRECTORY, "..", 2);
  size_t dots = len;
  dirent_put(buf, &len, 3, 11, 5, CLOUDABI_FILETYPE_REGULAR_FILE, "a.txt", 5);
  size_t whole = len;
  uint64_t addr = put(&m, buf, sizeof(buf));

  /* Complete: the end of the directory (fewer bytes than the buffer). */
  assert_string_equal(
      readdir_line(&e, false, &m, addr, 128, whole),
      "file_readdir(3, [" DOT_ENTRIES ", {next=3, ino=11, namlen=5, "
      "type=FILETYPE_REGULAR_FILE, name=\"a.txt\"}], 128, DIRCOOKIE_START) "
      "= 80");
  assert_int_equal(m.high, addr + whole);
  assert_string_equal(
      readdir_line(&e, true, &m, addr, 128, whole),
      "{\"args\":{\"fd\":3,\"buf\":[{\"next\":1,\"ino\":10,\"namlen\":1,"
      "\"type\":\"FILETYPE_DIRECTORY\",\"name\":\".\"},{\"next\":2,\"ino\":2,"
      "\"namlen\":2,\"type\":\"FILETYPE_DIRECTORY\",\"name\":\"..\"},"
      "{\"next\":3,\"ino\":11,\"namlen\":5,\"type\":"
      "\"FILETYPE_REGULAR_FILE\",\"name\":\"a.txt\"}],\"buf_len\":128,"
      "\"cookie\":\"DIRCOOKIE_START\"},\"result\":{\"bufused\":80}}");

  /* The buffer full, the last header cut after 5 bytes. */
  m.high = 0;
  assert_string_equal(readdir_line(&e, false, &m, addr, dots + 5, dots + 5),
                      "file_readdir(3, [" DOT_ENTRIES
                      ", {truncated_header=5}], 56, DIRCOOKIE_START) = 56");
  assert_true(m.high <= addr + dots + 5);
  assert_true(json_valid(readdir_line(&e, true, &m, addr, dots + 5, dots + 5)));
  assert_non_null(strstr(e.buf, "{\"truncated_header\":5}]"));

  /* The last name cut after 2 of its 5 bytes. */
  m.high = 0;
  assert_string_equal(
      readdir_line(&e, false, &m, addr, dots + 26, dots + 26),
      "file_readdir(3, [" DOT_ENTRIES ", {next=3, ino=11, namlen=5, "
      "type=FILETYPE_REGULAR_FILE, name=\"a.\"...}], 77, DIRCOOKIE_START) "
      "= 77");
  assert_true(m.high <= addr + dots + 26);
  readdir_line(&e, true, &m, addr, dots + 26, dots + 26);
  assert_non_null(
      strstr(e.buf, "\"name\":\"a.\",\"name_truncated\":true}]"));

  /* bufused beyond buf_len (a lying answer): only buf_len bytes. */
  m.high = 0;
  readdir_line(&e, false, &m, addr, dots, 4096);
  assert_true(m.high <= addr + dots);
  assert_non_null(strstr(e.buf, "[" DOT_ENTRIES "], "));

  /* A zero-length name, then a huge d_namlen: nothing read past the end. */
  len = 0;
  memset(buf, 'X', sizeof(buf));
  dirent_put(buf, &len, 7, 1, 0, CLOUDABI_FILETYPE_UNKNOWN, "", 0);
  dirent_put(buf, &len, 8, 2, UINT32_MAX, 99, "abc", 3);
  addr = put(&m, buf, sizeof(buf));
  m.high = 0;
  assert_string_equal(
      readdir_line(&e, false, &m, addr, 64, len),
      "file_readdir(3, [{next=7, ino=1, namlen=0, type=FILETYPE_UNKNOWN, "
      "name=\"\"}, {next=8, ino=2, namlen=4294967295, type=99, "
      "name=\"abc\"...}], 64, DIRCOOKIE_START) = 51");
  assert_true(m.high <= addr + len);
  assert_true(json_valid(readdir_line(&e, true, &m, addr, 64, len)));

  /* More entries than are shown; names longer than the string size. */
  len = 0;
  static const char longname[] = "a-name-longer-than-the-string-size";
  for (int i = 0; i < TRACE_MAX_ITEMS + 1; i++)
    dirent_put(buf, &len, (uint64_t)i + 1, 5, 1,
               CLOUDABI_FILETYPE_REGULAR_FILE, "a", 1);
  addr = put(&m, buf, len);
  readdir_line(&e, false, &m, addr, len, len);
  assert_non_null(strstr(e.buf, "{next=16, ino=5, namlen=1, "
                                "type=FILETYPE_REGULAR_FILE, name=\"a\"}, "
                                "...], 425, "));
  assert_null(strstr(e.buf, "next=17"));
  readdir_line(&e, true, &m, addr, len, len);
  assert_non_null(strstr(e.buf, "}],\"buf_truncated\":true,\"buf_len\""));
  len = 0;
  dirent_put(buf, &len, 1, 5, (uint32_t)strlen(longname),
             CLOUDABI_FILETYPE_REGULAR_FILE, longname, strlen(longname));
  addr = put(&m, buf, len);
  readdir_line(&e, false, &m, addr, len, len);
  assert_non_null(
      strstr(e.buf, "name=\"a-name-longer-than-the-string-si\"...}]"));
  readdir_line(&e, true, &m, addr, len, len);
  assert_non_null(strstr(e.buf, "\"name_truncated\":true}]"));

  /* Unreadable memory: the address; a call that failed: the pointer. */
  m.fail = true;
  char want[128];
  snprintf(want, sizeof(want),
           "file_readdir(3, [0x%" PRIx64 "], 58, DIRCOOKIE_START) = 58", addr);
  assert_string_equal(readdir_line(&e, false, &m, addr, len, len), want);
  m.fail = false;
  uint64_t args[7] = {3, GUEST_BASE, 64, 5, GUEST_BASE};
  assert_string_equal(decode(&e, false, CLOUDABI_SYS_file_readdir, args,
                             TP_FAILED, 0, false, &m),
                      "file_readdir(3, 0x100000, 64, 5)");
  te_free(&e);
}

/* Every row, random arguments, random or missing memory, both formats,
 * every phase: nothing crashes (the sanitizer build watches) and the JSON
 * is always valid. */
static void test_decode_every_row(void **state) {
  (void)state;
  struct fake_mem m;
  struct temit e;
  te_init(&e);
  srand(12345);
  for (int round = 0; round < 300; round++) {
    for (size_t i = 0; i < sizeof(m.bytes); i++)
      m.bytes[i] = (unsigned char)rand();
    m.used = sizeof(m.bytes);
    m.fail = round % 5 == 0;
    for (unsigned sysno = 0; sysno < CLOUDABI_SYSCALL_COUNT; sysno++) {
      uint64_t args[7];
      for (int a = 0; a < 7; a++) {
        switch (rand() % 4) {
        case 0:
          args[a] = GUEST_BASE + (uint64_t)(rand() % 8192);
          break;
        case 1:
          args[a] = (uint64_t)(rand() % 40);
          break;
        case 2:
          args[a] = ((uint64_t)rand() << 33) ^ (uint64_t)rand();
          break;
        default:
          args[a] = UINT64_MAX;
        }
      }
      enum trace_phase phase = (enum trace_phase)(rand() % 4);
      uint64_t result = ((uint64_t)rand() << 32) | (uint64_t)rand();
      bool in_memory = rand() % 2;
      decode(&e, false, sysno, args, phase, result, in_memory, &m);
      assert_false(e.oom);
      const char *j =
          decode(&e, true, sysno, args, phase, result, in_memory, &m);
      if (!json_valid(j))
        fail_msg("invalid JSON for %s: %s", syscall_table[sysno].name, j);
    }
  }
  te_free(&e);
}

/* ---- the tracer's lines ---- */

/* A tracer writing to a temporary file; guest memory cannot be read
 * (the fake supervisor has no listener), so pointers are shown. */
struct rig {
  char path[64];
  struct tracer *t;
  struct sup s;
  struct gproc proc;
};

static void rig_open(struct rig *r, bool json, bool failed_only) {
  memset(r, 0, sizeof(*r));
  snprintf(r->path, sizeof(r->path), "/tmp/test_trace.XXXXXX");
  int fd = mkstemp(r->path);
  assert_true(fd >= 0);
  close(fd);
  struct trace_options o;
  trace_options_init(&o);
  char why[256];
  assert_true(trace_spec_parse(r->path, &o, why, sizeof(why)));
  o.format = json ? TRACE_JSON : TRACE_TEXT;
  o.failed_only = failed_only;
  trace_options_finish(&o);
  r->t = trace_open(&o, why, sizeof(why));
  assert_non_null(r->t);

  r->proc.number = 1;
}

static char *rig_close(struct rig *r) {
  trace_close(r->t);
  FILE *f = fopen(r->path, "r");
  assert_non_null(f);
  static char text[8192];
  size_t n = fread(text, 1, sizeof(text) - 1, f);
  text[n] = '\0';
  fclose(f);
  unlink(r->path);
  return text;
}

static struct call rig_call(struct rig *r, unsigned sysno) {
  struct call c = {
      .sup = &r->s, .proc = &r->proc, .tid = 42, .sysno = sysno, .wait_fd = -1};
  c.args[0] = 3;
  c.args[1] = 0x10;
  c.args[2] = 1;
  return c;
}

static void test_tracer_lines(void **state) {
  (void)state;
  struct rig r;
  rig_open(&r, false, false);
  /* Parked, parked again (nothing), resumed. */
  struct call c = rig_call(&r, CLOUDABI_SYS_fd_read);
  trace_call_enter(r.t, &c);
  assert_true(c.trace_start_ns != 0);
  trace_call_done(r.t, &c, CALL_PARKED);
  c.parked = true; /* the supervisor's heap copy */
  trace_call_done(r.t, &c, CALL_PARKED);
  c.result = 0;
  trace_call_done(r.t, &c, CLOUDABI_EBADF);
  assert_int_equal(c.trace_start_ns, 0);
  trace_call_abandoned(r.t, &c); /* answered: nothing */
  /* Parked, then its thread went away. */
  struct call d = rig_call(&r, CLOUDABI_SYS_fd_write);
  trace_call_enter(r.t, &d);
  trace_call_done(r.t, &d, CALL_PARKED);
  trace_call_abandoned(r.t, &d);
  trace_proc_exit(r.t, 1, 3 << 8, false);
  trace_proc_exit(r.t, 1, 9, false);
  trace_proc_exit(r.t, 1, 9, true);
  assert_string_equal(
      rig_close(&r),
      "[1:42] fd_read(3, 0x10, 1) <unfinished ...>\n"
      "[1:42] fd_read(3, 0x10, 1) = EBADF (Bad file descriptor) (resumed)\n"
      "[1:42] fd_write(3, 0x10, 1) <unfinished ...>\n"
      "[1:42] fd_write(3, 0x10, 1) = ? <abandoned: the thread is gone>\n"
      "[1] +++ exited with 3 +++\n"
      "[1] +++ killed by SIGKILL +++\n"
      "[1] +++ killed by SIGSYS (a forbidden system call) +++\n");

  /* Only failures: no unfinished line, no success. */
  rig_open(&r, true, true);
  c = rig_call(&r, CLOUDABI_SYS_fd_read);
  trace_call_enter(r.t, &c);
  trace_call_done(r.t, &c, CALL_PARKED);
  c.parked = true;
  trace_call_done(r.t, &c, 0);
  c = rig_call(&r, CLOUDABI_SYS_fd_close);
  trace_call_enter(r.t, &c);
  trace_call_done(r.t, &c, CLOUDABI_EBADF);
  assert_string_equal(rig_close(&r),
                      "{\"type\":\"call\",\"proc\":1,\"tid\":42,\"name\":"
                      "\"fd_close\",\"args\":{\"fd\":3},\"error\":{\"name\":"
                      "\"EBADF\",\"value\":8,\"message\":\"Bad file "
                      "descriptor\"}}\n");
}

static void test_tracer_signals(void **state) {
  (void)state;
  struct rig r;
  rig_open(&r, false, false);
  struct user_regs_struct regs;
  memset(&regs, 0, sizeof(regs));
  regs.rip = 0x1234;
  regs.rsp = 0xffff;
  struct trace_signal_info si = {.sig = 11,
                                 .code = "SEGV_MAPERR",
                                 .why = "address not mapped",
                                 .fault = true,
                                 .addr = 0x10,
                                 .regs = &regs,
                                 .where = "prog+0x1234"};
  trace_signal(r.t, 1, 42, &si);
  uint64_t args[6] = {1, 2, 3, 4, 5, 6};
  trace_forbidden(r.t, 1, 42, "open", 2, 0x99, NULL, args);
  assert_string_equal(
      rig_close(&r),
      "[1:42] --- SIGSEGV {code=SEGV_MAPERR (address not mapped), addr=0x10, "
      "ip=0x1234 (prog+0x1234)} ---\n"
      "[1:42]     rip=0x0000000000001234 rsp=0x000000000000ffff "
      "rbp=0x0000000000000000 eflags=0x0000000000000000\n"
      "[1:42]     rax=0x0000000000000000 rbx=0x0000000000000000 "
      "rcx=0x0000000000000000 rdx=0x0000000000000000\n"
      "[1:42]     rsi=0x0000000000000000 rdi=0x0000000000000000 "
      "r8=0x0000000000000000 r9=0x0000000000000000\n"
      "[1:42]     r10=0x0000000000000000 r11=0x0000000000000000 "
      "r12=0x0000000000000000 r13=0x0000000000000000\n"
      "[1:42]     r14=0x0000000000000000 r15=0x0000000000000000 "
      "fs_base=0x0000000000000000\n"
      "[1:42] --- forbidden Linux system call open(0x1, 0x2, 0x3, 0x4, 0x5, "
      "0x6) at 0x99 ---\n");
  rig_open(&r, true, false);
  trace_signal(r.t, 1, 42, &si);
  si.regs = NULL;
  si.code = NULL;
  si.why = NULL;
  si.fault = false;
  trace_signal(r.t, 0, 42, &si);
  trace_forbidden(r.t, 1, 42, "open", 2, 0x99, "prog+0x99", args);
  char *text = rig_close(&r);
  for (char *line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n"))
    if (!json_valid(line))
      fail_msg("invalid JSON: %s", line);
}

static void test_open_failure(void **state) {
  (void)state;
  struct trace_options o;
  trace_options_init(&o);
  o.enabled = true;
  o.output = "/nonexistent/dir/trace.txt";
  trace_options_finish(&o);
  char why[256];
  assert_null(trace_open(&o, why, sizeof(why)));
  assert_string_equal(why, "cannot open the trace file "
                           "/nonexistent/dir/trace.txt: No such file or "
                           "directory");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_json_checker),
      cmocka_unit_test(test_emit_text),
      cmocka_unit_test(test_emit_json),
      cmocka_unit_test(test_names),
      cmocka_unit_test(test_errnos),
      cmocka_unit_test(test_spec),
      cmocka_unit_test(test_decode_file_open),
      cmocka_unit_test(test_decode_poll),
      cmocka_unit_test(test_decode_sockets_and_pairs),
      cmocka_unit_test(test_decode_readdir),
      cmocka_unit_test(test_decode_every_row),
      cmocka_unit_test(test_tracer_lines),
      cmocka_unit_test(test_tracer_signals),
      cmocka_unit_test(test_open_failure),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
