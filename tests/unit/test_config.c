/*
 * The config front end, table-driven: each case is YAML text and either
 * the exact argdata bytes and descriptors it gives, or the exact
 * diagnostics (name:line:column: message) it gives, from parsing or from
 * opening.  Files, directories, pipes and sockets the cases name are made
 * at start-up in a temporary directory and at fixed descriptor numbers.
 * Every case also checks that no descriptor is left open afterwards.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <ftw.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "config/config.h"
#include "config/config_plan.h"
#include "host/rights.h"
#include "host/rights_names.h"

#define TAG "%TAG ! tag:nuxi.nl,2015:cloudabi/\n---\n"

/* Descriptors the cases name (see setup). */
#define FD_PIPE_R 40 /* read end of a pipe */
#define FD_PIPE_W 41 /* write end */
#define FD_STREAM 42 /* one end of a stream socketpair */
#define FD_DGRAM 43  /* one end of a datagram socketpair */
#define FD_SEQPACKET 44
#define FD_CLOSED 45
#define FD_OURS 46 /* open, but close-on-exec: "ours" */
#define FD_EVENTFD 47
#define FD_DEVNULL 48 /* /dev/null, read-write */

enum {
  DRY_RUN = 1, /* config_open with CONFIG_OPEN_DRY_RUN */
  NO_EXEC = 2, /* no program descriptor */
  PREFIX = 4,  /* the expected diagnostic is a prefix (host-dependent end) */
  UNPRIVILEGED = 8, /* permissions only hold without CAP_DAC_OVERRIDE */
};

/* 250 nested empty sequences. */
#define DEEP250                                                                \
  "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["     \
  "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["     \
  "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["     \
  "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"     \
  "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"     \
  "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"     \
  "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"     \
  "]]]]]]]]]]"

struct config_case {
  const char *yaml;
  const char *argdata; /* hex; NULL when errors are expected */
  /*
   * Expected descriptors, space-separated, in guest order: "*" (anything),
   * TYPE (its maximum rights), TYPE-RIGHT-RIGHT (maximum less those), or
   * TYPE=BASE/INHERITING with rights joined by + (or 0).
   */
  const char *fds;
  const char *errors; /* lines joined by \n */
  unsigned flags;
};

static const struct config_case cases[] = {
    /* --- argdata of plain values ----------------------------------- */
    {"", "", "", NULL, 0},
    {"~\n", "", "", NULL, 0},
    {"# only a comment\n", "", "", NULL, 0},
    /* ABI-NOTES.md section 5 test vectors. */
    {TAG "tmpdir: !file\n  path: dir\nlogfile: !fd 41\n",
     "06 88 08 74 6d 70 64 69 72 00 85 03 00 00 00 00 89 08 6c 6f 67 66 69 6c "
     "65 00 85 03 00 00 00 01",
     "DIRECTORY SOCKET_STREAM-FD_READ", NULL, 0},
    {"[0, true, \"A\"]", "07 81 05 82 02 01 83 08 41 00", "", NULL, 0},
    {"false", "02", "", NULL, 0},
    {"-1", "05 ff", "", NULL, 0},
    {"255", "05 00 ff", "", NULL, 0},
    {"1.5", "04 3f f8 00 00 00 00 00 00", "", NULL, 0},
    {"!!timestamp 1970-01-01 00:00:01.5Z", "09 59 68 2f 00", "", NULL, 0},
    {"!!binary AQI=", "01 01 02", "", NULL, 0},
    /* Booleans in the core schema's spellings; YAML 1.1's are strings, as
     * in upstream's last release (a key n: is the string "n"); nulls. */
    {"[True, FALSE, true, false]", "07 82 02 01 81 02 82 02 01 81 02", "", NULL,
     0},
    {"[yes, No, on, OFF, y, n]",
     "07 85 08 79 65 73 00 84 08 4e 6f 00 84 08 6f 6e 00 85 08 4f 46 46 00 83 "
     "08 79 00 83 08 6e 00",
     "", NULL, 0},
    {"{n: 1}", "06 83 08 6e 00 82 05 01", "", NULL, 0},
    {"[~, null, Null, NULL, !!null '', ]", "07 80 80 80 80 80", "", NULL, 0},
    {"key:\n", "06 85 08 6b 65 79 00 80", "", NULL, 0},
    /* Integers: prefixes, signs, leading zeros, both ends of the range. */
    {"[0x1F, 0o17, +5, 007, -1000, 1000]",
     "07 82 05 1f 82 05 0f 82 05 05 82 05 07 83 05 fc 18 83 05 03 e8", "", NULL,
     0},
    {"[-9223372036854775808, 18446744073709551615]",
     "07 89 05 80 00 00 00 00 00 00 00 8a 05 00 ff ff ff ff ff ff ff ff", "",
     NULL, 0},
    {"[0, -0, 127, 128, -128, -129]",
     "07 81 05 81 05 82 05 7f 83 05 00 80 82 05 80 83 05 ff 7f", "", NULL, 0},
    /* Floats. */
    {"[.inf, -.inf, .NaN, 1e3, -0.0, .5]",
     "07 89 04 7f f0 00 00 00 00 00 00 89 04 ff f0 00 00 00 00 00 00 89 04 7f "
     "f8 00 00 00 00 00 00 89 04 40 8f 40 00 00 00 00 00 89 04 80 00 00 00 00 "
     "00 00 00 89 04 3f e0 00 00 00 00 00 00",
     "", NULL, 0},
    /* Timestamps: offsets, date alone, before 1970, the far ends. */
    {"[!!timestamp 2001-12-14 21:59:43.10 -5, !!timestamp "
     "2001-12-14t21:59:43.10-05:00]",
     "07 89 09 0d fe 80 fb 3b 71 57 00 89 09 0d fe 80 fb 3b 71 57 00", "", NULL,
     0},
    {"[!!timestamp 2002-12-14, !!timestamp 1969-12-31T23:59:59Z, "
     "!!timestamp 2016-02-29T12:00:00+01:30]",
     "07 89 09 0e 6e 32 6b 34 ed 00 00 85 09 c4 65 36 00 89 09 14 37 62 f2 ee "
     "76 90 00",
     "", NULL, 0},
    {"[!!timestamp 9999-12-31T23:59:59.9999999999Z, !!timestamp 0000-01-01]",
     "07 8a 09 0d bc a9 d1 fe a2 ae ff ff 8a 09 fc a1 41 ab 83 7e 28 00 00", "",
     NULL, 0},
    /* Strings: quoted scalars, the non-specific tag, !!str, block scalars,
     * and things that only look like other types. */
    {"[\"123\", 'yes', ! 12, !!str 1.5, 2001-1-1, 0x, 1_000]",
     "07 85 08 31 32 33 00 85 08 79 65 73 00 84 08 31 32 00 85 08 31 2e 35 00 "
     "8a 08 32 30 30 31 2d 31 2d 31 00 84 08 30 78 00 87 08 31 5f 30 30 30 00",
     "", NULL, 0},
    {"|\n  a\n", "08 61 0a 00", "", NULL, 0},
    {"\"a\\0b\"", "08 61 00 62 00", "", NULL, 0},
    /* Explicit core tags on quoted text. */
    {"[!!int \"0x10\", !!float '1', !!bool \"True\", !!binary \"\"]",
     "07 82 05 10 89 04 3f f0 00 00 00 00 00 00 82 02 01 81 01", "", NULL, 0},
    /* A subfield of 132 bytes needs a two-byte length: 01 84. */
    {"[xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx]",
     "07 01 84 08 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 "
     "78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 "
     "78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 "
     "78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 "
     "78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 78 "
     "78 78 78 78 78 78 78 78 78 78 78 78 78 78 00",
     "", NULL, 0},
    /* Non-string keys; nesting; only the first document counts. */
    {"{1: a, true: [], ~: {}}",
     "06 82 05 01 83 08 61 00 82 02 01 81 07 80 81 06", "", NULL, 0},
    {"a\n---\nb\n", "08 61 00", "", NULL, 0},
    {"a\n--- [unclosed\n", "08 61 00", "", NULL, 0},
    /* Aliases: the anchored value repeated; a descriptor stays one. */
    {"a: &x [1, 2]\nb: *x\n",
     "06 83 08 61 00 87 07 82 05 01 82 05 02 83 08 62 00 87 07 82 05 01 82 05 "
     "02",
     "", NULL, 0},
    /* An anchor can be redefined; the latest wins.  << is a plain key. */
    {"[&a 1, *a, &a 2, *a]", "07 82 05 01 82 05 01 82 05 02 82 05 02", "", NULL,
     0},
    {"{<<: {a: 1}}", "06 84 08 3c 3c 00 88 06 83 08 61 00 82 05 01", "", NULL,
     0},
    {TAG "a: &f !file {path: file.txt}\nb: *f\n",
     "06 83 08 61 00 85 03 00 00 00 00 83 08 62 00 85 03 00 00 00 00",
     "REGULAR_FILE-FD_WRITE", NULL, 0},

    /* --- descriptors ------------------------------------------------- */
    /* Numbered by first appearance; the same host descriptor once. */
    {TAG "[!fd 41, !fd 40, !fd 41]",
     "07 85 03 00 00 00 00 85 03 00 00 00 01 85 03 00 00 00 00",
     "SOCKET_STREAM-FD_READ SOCKET_STREAM-FD_WRITE", NULL, 0},
    {TAG "[!fd stdin, !fd 0, !fd stdout, !fd stderr, !fd 1]",
     "07 85 03 00 00 00 00 85 03 00 00 00 00 85 03 00 00 00 01 85 03 00 00 00 "
     "02 85 03 00 00 00 01",
     "CHARACTER_DEVICE-FD_WRITE * *", NULL, 0},
    /* A map's key comes before its value. */
    {TAG "{!fd 40: !fd 41}", "06 85 03 00 00 00 00 85 03 00 00 00 01",
     "SOCKET_STREAM-FD_WRITE SOCKET_STREAM-FD_READ", NULL, 0},
    {TAG "[!fd 42, !fd 43, !fd 48]",
     "07 85 03 00 00 00 00 85 03 00 00 00 01 85 03 00 00 00 02",
     "SOCKET_STREAM SOCKET_DGRAM CHARACTER_DEVICE", NULL, 0},
    /* !file in each mode, and its rights literally. */
    {TAG "- !file {path: file.txt}\n- !file {path: file.txt, mode: rw}\n"
         "- !file {path: file.txt, mode: wo}\n",
     "07 85 03 00 00 00 00 85 03 00 00 00 01 85 03 00 00 00 02",
     "REGULAR_FILE=0x11c3801bf/0 REGULAR_FILE=0x11c3801ff/0 "
     "REGULAR_FILE=0x11c3801fd/0",
     NULL, 0},
    {TAG "!file {path: dir, directory: true}", "03 00 00 00 00",
     "DIRECTORY=0x13eff698/0x11ffff7ff", NULL, 0},
    {TAG "!file {path: 2015}", "03 00 00 00 00", "REGULAR_FILE-FD_WRITE", NULL,
     0},
    {TAG "!file {path: created.txt, mode: rw, create: true}", "03 00 00 00 00",
     "REGULAR_FILE", NULL, 0},
    /* Narrowing, in any case and with or without the C prefix. */
    {TAG "!file {path: file.txt, rights: [FD_READ, fd_seek, "
         "CLOUDABI_RIGHT_FILE_STAT_FGET]}",
     "03 00 00 00 00", "REGULAR_FILE=FD_READ+FD_SEEK+FILE_STAT_FGET/0", NULL,
     0},
    {TAG "!file {path: dir, rights: [], inheriting: [FD_READ, FILE_OPEN]}",
     "03 00 00 00 00", "DIRECTORY=0/FD_READ+FILE_OPEN", NULL, 0},
    {TAG "[!executable, !executable x]",
     "07 85 03 00 00 00 00 85 03 00 00 00 00", "REGULAR_FILE-FD_WRITE", NULL,
     0},
    /* Sockets: bind and listen, datagrams, Unix paths, connect. */
    {TAG "!socket {bind: 127.0.0.1:0}", "03 00 00 00 00", "SOCKET_STREAM", NULL,
     0},
    {TAG "!socket {type: dgram, bind: \"127.0.0.1:0\"}", "03 00 00 00 00",
     "SOCKET_DGRAM", NULL, 0},
    {TAG "!socket {bind: @TMP@/bound.sock}", "03 00 00 00 00", "SOCKET_STREAM",
     NULL, 0},
    {TAG "!socket {connect: @TMP@/server.sock}", "03 00 00 00 00",
     "SOCKET_STREAM", NULL, 0},
    {TAG "!socket {connect: \"127.0.0.1:@PORT@\", rights: [FD_READ]}",
     "03 00 00 00 00", "SOCKET_STREAM=FD_READ/0x815ffff7ff", NULL, 0},
    /* --plan must not wait for a FIFO's other end; a run would. */
    {TAG "[!file {path: fifo}, !file {path: fifo, mode: wo}]",
     "07 85 03 00 00 00 00 85 03 00 00 00 01",
     "SOCKET_STREAM-FD_WRITE SOCKET_STREAM-FD_READ", NULL, DRY_RUN},
    {TAG "!file {path: fifo-nobody-may-write, mode: rw}", NULL, NULL,
     "t.yaml:3:14: !file: cannot open \"fifo-nobody-may-write\": Permission "
     "denied",
     DRY_RUN | UNPRIVILEGED},
    /* Ports can be service names (resolved, not bound, in a dry run). */
    {TAG "!socket {bind: \"127.0.0.1:http\"}", "03 00 00 00 00",
     "SOCKET_STREAM", NULL, DRY_RUN},
    /* A dry run creates nothing and opens nothing. */
    {TAG "- !file {path: never.txt, mode: wo, create: true}\n"
         "- !socket {bind: @TMP@/never.sock}\n",
     "07 85 03 00 00 00 00 85 03 00 00 00 01",
     "REGULAR_FILE-FD_READ SOCKET_STREAM", NULL, DRY_RUN},

    /* --- mistakes found by parsing ----------------------------------- */
    {"!bogus 1", NULL, NULL, "t.yaml:1:1: unknown tag !bogus", 0},
    {"!!set {a: ~}", NULL, NULL, "t.yaml:1:1: unknown tag !!set", 0},
    {"a: !fd 1\n", NULL, NULL,
     "t.yaml:1:4: unknown tag !fd (start the file with \"%TAG ! "
     "tag:nuxi.nl,2015:cloudabi/\" and \"---\")",
     0},
    {TAG "x: !flower_switchboard_handle {switchboard_path: /s}\n", NULL, NULL,
     "t.yaml:3:4: !flower_switchboard_handle is not supported: there is no "
     "Flower switchboard here",
     0},
    {TAG "- !fd abc\n- !fd 2147483648\n- !fd -1\n", NULL, NULL,
     "t.yaml:3:3: !fd: expected stdin, stdout, stderr or a descriptor number, "
     "not \"abc\"\n"
     "t.yaml:4:3: !fd: descriptor number \"2147483648\" out of range (0 to "
     "2147483647)\n"
     "t.yaml:5:3: !fd: descriptor number \"-1\" out of range (0 to "
     "2147483647)",
     0},
    {"[18446744073709551616, -9223372036854775809, 1e999]", NULL, NULL,
     "t.yaml:1:2: integer \"18446744073709551616\" out of range (-2^63 to "
     "2^64-1)\n"
     "t.yaml:1:24: integer \"-9223372036854775809\" out of range (-2^63 to "
     "2^64-1)\n"
     "t.yaml:1:46: float \"1e999\" out of range",
     0},
    {"when: !!timestamp 2001-02-29\nthen: !!timestamp 2001-13-01 00:00:00\n"
     "text: 2001-02-29\n",
     NULL, NULL,
     "t.yaml:1:7: bad timestamp \"2001-02-29\": day 29 out of range for "
     "2001-02\n"
     "t.yaml:2:7: bad timestamp \"2001-13-01 00:00:00\": month 13 out of range",
     0},
    {"- !!binary A*==\n- !!binary AQI\n- !!binary AQ==AQ==\n", NULL, NULL,
     "t.yaml:1:3: !!binary: bad base64: invalid character '*' at offset 1\n"
     "t.yaml:2:3: !!binary: bad base64: 3 characters, not a multiple of 4\n"
     "t.yaml:3:3: !!binary: bad base64: data after padding at offset 4",
     0},
    {"[!!int abc, !!bool maybe, !!null x, !!timestamp today, !!float x]", NULL,
     NULL,
     "t.yaml:1:2: !!int: \"abc\" is not an integer\n"
     "t.yaml:1:13: !!bool: \"maybe\" is not a boolean\n"
     "t.yaml:1:27: !!null: \"x\" is not null\n"
     "t.yaml:1:37: !!timestamp: \"today\" is not a timestamp\n"
     "t.yaml:1:56: !!float: \"x\" is not a float",
     0},
    {"a: 1\nb: 2\na: 3\n", NULL, NULL,
     "t.yaml:3:1: duplicate key \"a\" (first at 1:1)", 0},
    {"{1: a, 0x1: b, [x]: c, [x]: d}", NULL, NULL,
     "t.yaml:1:8: duplicate key \"0x1\" (first at 1:2)\n"
     "t.yaml:1:24: duplicate key a sequence (first at 1:16)",
     0},
    {TAG "!file {path: a, path: b}", NULL, NULL,
     "t.yaml:3:17: duplicate key \"path\" (first at 3:8)", 0},
    {TAG "a: !file\n  pth: x\n", NULL, NULL,
     "t.yaml:4:3: !file: unknown attribute \"pth\" (expected path, mode, "
     "create, directory, follow, rights or inheriting)",
     0},
    {TAG "a: !file {}\nb: !file {path: ~}\nc: !file {path: [x]}\n", NULL, NULL,
     "t.yaml:3:4: !file: missing path\n"
     "t.yaml:4:17: !file: path: expected a string, not null\n"
     "t.yaml:5:17: !file: path: expected a string, not a sequence",
     0},
    {TAG "- !file x\n- !fd [1]\n- !!map [1]\n- !executable {}\n", NULL, NULL,
     "t.yaml:3:3: !file: expected a mapping, not a scalar\n"
     "t.yaml:4:3: !fd: expected a scalar, not a sequence\n"
     "t.yaml:5:3: !!map: expected a mapping, not a sequence\n"
     "t.yaml:6:3: !executable: expected a scalar, not a mapping",
     0},
    {TAG "- !file {path: x, mode: rx}\n- !file {path: x, create: maybe}\n"
         "- !file {path: x, create: true}\n"
         "- !file {path: x, mode: rw, create: true, directory: true}\n",
     NULL, NULL,
     "t.yaml:3:25: !file: mode: expected ro, rw or wo, not \"rx\"\n"
     "t.yaml:4:27: !file: create: expected true or false, not \"maybe\"\n"
     "t.yaml:5:3: !file: create: true needs mode: rw or mode: wo\n"
     "t.yaml:6:3: !file: create: true cannot be combined with directory: "
     "true",
     0},
    {TAG "- !file {path: x, rights: [FD_READ, FD_FLY]}\n"
         "- !file {path: x, inheriting: FD_READ}\n",
     NULL, NULL,
     "t.yaml:3:37: !file: rights: unknown right \"FD_FLY\"\n"
     "t.yaml:4:31: !file: inheriting: expected a sequence of rights, not "
     "\"FD_READ\"",
     0},
    {TAG "- !file {path: \"a\\0b\"}\n", NULL, NULL,
     "t.yaml:3:16: !file: path: contains a NUL character", 0},
    {TAG "- !socket {type: seqpacket, bind: /x}\n"
         "- !socket {bind: /a, connect: /b}\n"
         "- !socket {type: stream}\n"
         "- !socket {type: raw, bind: /x}\n"
         "- !socket {bind: /x, backlog: 5}\n",
     NULL, NULL,
     "t.yaml:3:18: !socket: type: seqpacket sockets have no CloudABI file "
     "type\n"
     "t.yaml:4:22: !socket: give one of bind and connect, not both\n"
     "t.yaml:5:3: !socket: needs bind or connect\n"
     "t.yaml:6:18: !socket: type: expected stream or dgram, not \"raw\"\n"
     "t.yaml:7:22: !socket: unknown attribute \"backlog\" (expected type, "
     "bind, connect, accept, rights or inheriting)",
     0},
    {TAG "- !socket {connect: /a, accept: true}\n"
         "- !socket {type: dgram, bind: /b, accept: true}\n"
         "- !socket {bind: /c, accept: yes please}\n",
     NULL, NULL,
     "t.yaml:3:33: !socket: accept: true needs bind, not connect\n"
     "t.yaml:4:43: !socket: accept: true needs a stream socket (datagram "
     "sockets have no connections)\n"
     "t.yaml:5:30: !socket: accept: expected true or false, not \"yes "
     "please\"",
     0},
    {TAG "- !socket {bind: noport}\n- !socket {bind: \"::1:80\"}\n"
         "- !socket {bind: \"[::1]\"}\n- !socket {connect: \"host:\"}\n"
         "- !socket {bind: \":80\"}\n",
     NULL, NULL,
     "t.yaml:3:18: !socket: address \"noport\" is not /path, host:port or "
     "[IPv6]:port\n"
     "t.yaml:4:18: !socket: address \"::1:80\" is not /path, host:port or "
     "[IPv6]:port\n"
     "t.yaml:5:18: !socket: address \"[::1]\" is not /path, host:port or "
     "[IPv6]:port\n"
     "t.yaml:6:21: !socket: address \"host:\" is not /path, host:port or "
     "[IPv6]:port\n"
     "t.yaml:7:18: !socket: address \":80\" is not /path, host:port or "
     "[IPv6]:port",
     0},
    {TAG
     "!socket {bind: /0123456789012345678901234567890123456789012345678901234"
     "5678901234567890123456789012345678901234567890123456}",
     NULL, NULL,
     "t.yaml:3:16: !socket: Unix socket path is 108 bytes, longer than the 107 "
     "a socket address holds",
     0},
    {"a: *nope\n", NULL, NULL,
     "t.yaml:1:4: alias *nope: no anchor &nope before it", 0},
    {"a: [1, 2\n", NULL, NULL,
     "t.yaml:2:1: syntax error: did not find expected ',' or ']' (while "
     "parsing a flow sequence at 1:4)",
     0},
    {"a: b\n\tc: d\n", NULL, NULL,
     "t.yaml:2:1: syntax error: found a tab character that violates "
     "indentation (while scanning a plain scalar at 1:4)",
     0},
    {"ok: 1\nbad: \"\xc3\xa9\x80\"\n", NULL, NULL,
     "t.yaml:2:8: cannot read: invalid leading UTF-8 octet (0x80)", 0},
    /* Every mistake of a config at once, in document order. */
    {TAG "a: !fd x\nb: !file {path: f, mode: r}\nc: 0x\nd: 1e400\n", NULL, NULL,
     "t.yaml:3:4: !fd: expected stdin, stdout, stderr or a descriptor number, "
     "not \"x\"\n"
     "t.yaml:4:26: !file: mode: expected ro, rw or wo, not \"r\"\n"
     "t.yaml:6:4: float \"1e400\" out of range",
     0},
    /* A duplicate key is found when its map ends, but reported first. */
    {TAG "n: 1\nn: {a: !fd x, a: 2}\n", NULL, NULL,
     "t.yaml:4:1: duplicate key \"n\" (first at 3:1)\n"
     "t.yaml:4:8: !fd: expected stdin, stdout, stderr or a descriptor number, "
     "not \"x\"\n"
     "t.yaml:4:15: duplicate key \"a\" (first at 4:5)",
     0},
    /* Limits. */
    {"a: &a [1,1,1,1,1,1,1,1,1,1]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
     "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,"
     "*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,"
     "*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f]\n",
     NULL, NULL,
     "t.yaml:7:4: the argument data would exceed its limit of 4194304 bytes",
     0},
    {TAG "a: &a [!fd 1, !fd 1, !fd 1, !fd 1, !fd 1, !fd 1, !fd 1, !fd 1]\n"
         "b: &b [*a, *a, *a, *a, *a, *a, *a, *a]\n"
         "c: &c [*b, *b, *b, *b, *b, *b, *b, *b]\n"
         "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n",
     NULL, NULL, "t.yaml:6:4: more than 4096 descriptor references", 0},
    {"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
     "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
     "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
     "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
     "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
     "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
     "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
     "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
     NULL, NULL, "t.yaml:1:257: nested more than 256 levels deep", 0},
    /* Depth counts what an alias stands for. */
    {"a: &a " DEEP250 "\nb: [[[[[[*a]]]]]]\n", NULL, NULL,
     "t.yaml:2:10: alias *a: nested more than 256 levels deep", 0},
    {"[!a 1, !a 1, !a 1, !a 1, !a 1, !a 1, !a 1, !a 1, !a 1, !a 1, !a 1, !a "
     "1, !a 1, !a 1, !a 1, !a 1, !a 1, !a 1, !a 1, !a 1, !a 1, !a 1]",
     NULL, NULL,
     "t.yaml:1:2: unknown tag !a\nt.yaml:1:8: unknown tag !a\n"
     "t.yaml:1:14: unknown tag !a\nt.yaml:1:20: unknown tag !a\n"
     "t.yaml:1:26: unknown tag !a\nt.yaml:1:32: unknown tag !a\n"
     "t.yaml:1:38: unknown tag !a\nt.yaml:1:44: unknown tag !a\n"
     "t.yaml:1:50: unknown tag !a\nt.yaml:1:56: unknown tag !a\n"
     "t.yaml:1:62: unknown tag !a\nt.yaml:1:68: unknown tag !a\n"
     "t.yaml:1:74: unknown tag !a\nt.yaml:1:80: unknown tag !a\n"
     "t.yaml:1:86: unknown tag !a\nt.yaml:1:92: unknown tag !a\n"
     "t.yaml:1:98: unknown tag !a\nt.yaml:1:104: unknown tag !a\n"
     "t.yaml:1:110: unknown tag !a\nt.yaml:1:116: unknown tag !a\n"
     "t.yaml: too many errors; stopping",
     0},

    /* --- mistakes found by opening ----------------------------------- */
    {TAG "tmp: !file\n  path: missing\n", NULL, NULL,
     "t.yaml:4:9: !file: cannot open \"missing\": No such file or directory",
     0},
    {TAG "- !file {path: file.txt}\n- !file {path: missing}\n", NULL, NULL,
     "t.yaml:4:16: !file: cannot open \"missing\": No such file or directory",
     0},
    {TAG "!file {path: file.txt, directory: true}", NULL, NULL,
     "t.yaml:3:14: !file: cannot open \"file.txt\": Not a directory", 0},
    /* A directory's mode: none is upstream's rights, rw the same, ro a
     * read-only tree, wo an error. */
    {TAG "!file {path: dir, mode: rw}", "03 00 00 00 00", "DIRECTORY", NULL,
     0},
    {TAG "!file {path: dir, mode: rw, directory: true}", "03 00 00 00 00",
     "DIRECTORY", NULL, 0},
    {TAG "!file {path: dir, mode: ro}", "03 00 00 00 00",
     "DIRECTORY=FD_STAT_PUT_FLAGS+FILE_ADVISE+FILE_OPEN+FILE_READDIR+"
     "FILE_READLINK+FILE_STAT_FGET+FILE_STAT_GET+POLL_FD_READWRITE/"
     "FD_READ+FD_SEEK+FD_STAT_PUT_FLAGS+FD_TELL+FILE_ADVISE+FILE_OPEN+"
     "FILE_READDIR+FILE_READLINK+FILE_STAT_FGET+FILE_STAT_GET+MEM_MAP+"
     "MEM_MAP_EXEC+POLL_FD_READWRITE+PROC_EXEC",
     NULL, 0},
    {TAG "!file {path: dir, mode: ro, rights: [FILE_CREATE_FILE]}", NULL, NULL,
     "t.yaml:3:37: !file: rights: FILE_CREATE_FILE is not available for this "
     "DIRECTORY opened ro; rights can only be narrowed",
     0},
    {TAG "!file {path: dir, mode: wo}", NULL, NULL,
     "t.yaml:3:25: !file: mode: wo: a directory cannot be write-only (ro or "
     "rw)",
     0},
    /* Symlinks in a config path only with follow: true, in any component;
     * never into a file system of the running system. */
    {TAG "!file {path: link-to-file}", NULL, NULL,
     "t.yaml:3:14: !file: \"link-to-file\" is a symlink or goes through "
     "one; config paths follow symlinks only with follow: true",
     0},
    {TAG "!file {path: link-to-dir/x.txt}", NULL, NULL,
     "t.yaml:3:14: !file: \"link-to-dir/x.txt\" is a symlink or goes "
     "through one; config paths follow symlinks only with follow: true",
     0},
    {TAG "!file {path: link-to-dir, directory: true}", NULL, NULL,
     "t.yaml:3:14: !file: \"link-to-dir\" is a symlink or goes through "
     "one; config paths follow symlinks only with follow: true",
     0},
    {TAG "!file {path: link-to-file, follow: true}", "03 00 00 00 00",
     "REGULAR_FILE-FD_WRITE", NULL, 0},
    {TAG "!file {path: link-to-dir/x.txt, follow: true}", "03 00 00 00 00",
     "REGULAR_FILE-FD_WRITE", NULL, 0},
    {TAG "!file {path: link-to-dir, follow: true}", "03 00 00 00 00",
     "DIRECTORY", NULL, 0},
    {TAG "!file {path: /proc}", NULL, NULL,
     "t.yaml:3:14: !file: \"/proc\" is on proc, a file system of the "
     "running system; no grant may reach it",
     0},
    {TAG "!file {path: /proc/version}", NULL, NULL,
     "t.yaml:3:14: !file: \"/proc/version\" is on proc, a file system of "
     "the running system; no grant may reach it",
     0},
    {TAG "!file {path: /sys, directory: true}", NULL, NULL,
     "t.yaml:3:14: !file: \"/sys\" is on sysfs, a file system of the "
     "running system; no grant may reach it",
     0},
    {TAG "!file {path: proc-link, follow: true}", NULL, NULL,
     "t.yaml:3:14: !file: \"proc-link\" is on proc, a file system of the "
     "running system; no grant may reach it",
     0},
    {TAG "[!fd 40, !fd 45]", NULL, NULL,
     "t.yaml:3:10: !fd: descriptor 45 is not open", 0},
    {TAG "!fd 46", NULL, NULL,
     "t.yaml:3:1: !fd: descriptor 46 is not one cloudabi-run was started with",
     0},
    {TAG "[!fd 44, !fd 47]", NULL, NULL,
     "t.yaml:3:2: !fd: descriptor 44 is of a kind CloudABI has no file type "
     "for",
     0},
    {TAG "!fd 47", NULL, NULL,
     "t.yaml:3:1: !fd: descriptor 47 is of a kind CloudABI has no file type "
     "for",
     0},
    {TAG "!file {path: file.txt, rights: [FD_READ, FD_WRITE]}", NULL, NULL,
     "t.yaml:3:32: !file: rights: FD_WRITE is not available for this "
     "REGULAR_FILE opened ro; rights can only be narrowed",
     0},
    {TAG "!socket {inheriting: [PROC_EXEC], connect: @TMP@/nobody.sock}", NULL,
     NULL,
     "t.yaml:3:44: !socket: cannot connect to \"@TMP@/nobody.sock\": No such "
     "file or directory",
     0},
    {TAG "!socket {bind: @TMP@/server.sock}", NULL, NULL,
     "t.yaml:3:16: !socket: cannot bind to \"@TMP@/server.sock\": Address "
     "already in use",
     0},
    {TAG "!socket {bind: host.invalid:80}", NULL, NULL,
     "t.yaml:3:16: !socket: cannot resolve \"host.invalid:80\": ", PREFIX},
    {TAG "!executable", NULL, NULL,
     "t.yaml:3:1: !executable: there is no program here", NO_EXEC},
};

/* --- the harness -------------------------------------------------------- */

static char tmpdir[64];
static char port[16];
static int exec_fd = -1;

/* Puts `fd` at number `at`, without close-on-exec unless asked. */
static void place(int fd, int at, bool cloexec) {
  assert_true(fd >= 0);
  assert_int_equal(dup3(fd, at, cloexec ? O_CLOEXEC : 0), at);
  close(fd);
}

static int setup(void **state) {
  (void)state;
  strcpy(tmpdir, "/tmp/test_config.XXXXXX");
  assert_non_null(mkdtemp(tmpdir));
  assert_int_equal(chdir(tmpdir), 0);
  int fd = open("file.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, "hello\n", 6), 6);
  close(fd);
  fd = open("2015", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  close(fd);
  assert_int_equal(mkdir("dir", 0755), 0);
  fd = open("dir/x.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  close(fd);
  assert_int_equal(symlink("file.txt", "link-to-file"), 0);
  assert_int_equal(symlink("dir", "link-to-dir"), 0);
  assert_int_equal(symlink("/proc/self", "proc-link"), 0);
  assert_int_equal(mkfifo("fifo", 0600), 0);
  assert_int_equal(mkfifo("fifo-nobody-may-write", 0400), 0);
  exec_fd = open("file.txt", O_RDONLY | O_CLOEXEC);

  int p[2], s[2];
  assert_int_equal(pipe(p), 0);
  place(p[0], FD_PIPE_R, false);
  place(p[1], FD_PIPE_W, false);
  assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, s), 0);
  place(s[0], FD_STREAM, false);
  close(s[1]);
  assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM, 0, s), 0);
  place(s[0], FD_DGRAM, false);
  close(s[1]);
  assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, s), 0);
  place(s[0], FD_SEQPACKET, false);
  close(s[1]);
  close(FD_CLOSED);
  place(open("/dev/null", O_RDONLY), FD_OURS, true);
  place(eventfd(0, 0), FD_EVENTFD, false);
  place(open("/dev/null", O_RDWR), FD_DEVNULL, false);
  /* Standard input as /dev/null, so its type is known. */
  place(open("/dev/null", O_RDONLY), 0, false);

  /* Servers for the connect cases. */
  int srv = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_un sun = {.sun_family = AF_UNIX};
  snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/server.sock", tmpdir);
  assert_int_equal(bind(srv, (struct sockaddr *)&sun, sizeof(sun)), 0);
  assert_int_equal(listen(srv, 16), 0);
  int tcp = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in sin = {.sin_family = AF_INET,
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof(sin);
  assert_int_equal(bind(tcp, (struct sockaddr *)&sin, sizeof(sin)), 0);
  assert_int_equal(listen(tcp, 16), 0);
  assert_int_equal(getsockname(tcp, (struct sockaddr *)&sin, &len), 0);
  snprintf(port, sizeof(port), "%u", ntohs(sin.sin_port));
  return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag,
                        struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

static int teardown(void **state) {
  (void)state;
  assert_int_equal(chdir("/"), 0);
  return nftw(tmpdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Replaces @TMP@ and @PORT@. */
static char *expand(const char *s) {
  size_t size = strlen(s) * 4 + 256;
  char *out = malloc(size), *o = out;
  assert_non_null(out);
  while (*s != '\0') {
    if (strncmp(s, "@TMP@", 5) == 0) {
      o += sprintf(o, "%s", tmpdir);
      s += 5;
    } else if (strncmp(s, "@PORT@", 6) == 0) {
      o += sprintf(o, "%s", port);
      s += 6;
    } else {
      *o++ = *s++;
    }
  }
  *o = '\0';
  return out;
}

static char *hex(const uint8_t *p, size_t len) {
  char *s = malloc(len * 3 + 1);
  assert_non_null(s);
  s[0] = '\0';
  for (size_t i = 0; i < len; i++)
    sprintf(s + strlen(s), i == 0 ? "%02x" : " %02x", p[i]);
  return s;
}

static char *joined(const struct config_diags *d) {
  size_t size = 1;
  for (size_t i = 0; i < d->count; i++)
    size += strlen(d->lines[i]) + 1;
  char *s = calloc(1, size);
  assert_non_null(s);
  for (size_t i = 0; i < d->count; i++) {
    if (i > 0)
      strcat(s, "\n");
    strcat(s, d->lines[i]);
  }
  return s;
}

static cloudabi_filetype_t type_named(const char *s, size_t len) {
  static const cloudabi_filetype_t types[] = {
      CLOUDABI_FILETYPE_BLOCK_DEVICE, CLOUDABI_FILETYPE_CHARACTER_DEVICE,
      CLOUDABI_FILETYPE_DIRECTORY,    CLOUDABI_FILETYPE_REGULAR_FILE,
      CLOUDABI_FILETYPE_SOCKET_DGRAM, CLOUDABI_FILETYPE_SOCKET_STREAM,
  };
  for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
    const char *name = filetype_name(types[i]);
    if (strlen(name) == len && memcmp(name, s, len) == 0)
      return types[i];
  }
  fail_msg("no file type %.*s", (int)len, s);
  return 0;
}

/* Rights as "0", "0x..." or NAME+NAME. */
static cloudabi_rights_t rights_named(const char *s, size_t len) {
  if (len > 2 && s[0] == '0' && s[1] == 'x')
    return strtoull(s, NULL, 16);
  cloudabi_rights_t set = 0;
  while (len > 0 && !(len == 1 && s[0] == '0')) {
    const char *end = memchr(s, '+', len);
    size_t n = end != NULL ? (size_t)(end - s) : len;
    cloudabi_rights_t bit = rights_from_name(s, n);
    if (bit == 0)
      fail_msg("no right %.*s", (int)n, s);
    set |= bit;
    s += n;
    len -= n;
    if (len > 0)
      s++, len--;
  }
  return set;
}

static void check_fd(size_t i, const char *want, size_t len,
                     const struct launch_fd *got) {
  if (len == 1 && want[0] == '*')
    return;
  size_t tn = strcspn(want, "-=");
  if (tn > len)
    tn = len;
  struct fd_rights exp;
  exp.type = type_named(want, tn);
  rights_max_for_type(exp.type, false, &exp.base, &exp.inheriting);
  if (tn < len && want[tn] == '=') {
    const char *slash = memchr(want, '/', len);
    assert_non_null(slash);
    exp.base = rights_named(want + tn + 1, (size_t)(slash - want - tn - 1));
    exp.inheriting = rights_named(slash + 1, len - (size_t)(slash + 1 - want));
  } else {
    for (size_t k = tn; k < len;) {
      size_t n = strcspn(want + k + 1, "- ");
      if (k + 1 + n > len)
        n = len - k - 1;
      exp.base &= ~rights_named(want + k + 1, n);
      k += 1 + n;
    }
  }
  if (got->rights.type != exp.type || got->rights.base != exp.base ||
      got->rights.inheriting != exp.inheriting)
    fail_msg("fd %zu: got %s 0x%llx/0x%llx, want %.*s = %s 0x%llx/0x%llx", i,
             filetype_name(got->rights.type),
             (unsigned long long)got->rights.base,
             (unsigned long long)got->rights.inheriting, (int)len, want,
             filetype_name(exp.type), (unsigned long long)exp.base,
             (unsigned long long)exp.inheriting);
}

static void check_fds(const char *want, const struct launch_config *lc,
                      bool dry_run) {
  size_t i = 0;
  while (*want != '\0') {
    size_t n = strcspn(want, " ");
    if (i >= lc->nfds)
      fail_msg("%zu descriptors, want more: %s", lc->nfds, want);
    check_fd(i, want, n, &lc->fds[i]);
    if (dry_run)
      assert_int_equal(lc->fds[i].host_fd, -1);
    else
      assert_true((fcntl(lc->fds[i].host_fd, F_GETFD) & FD_CLOEXEC) != 0);
    i++;
    want += n;
    while (*want == ' ')
      want++;
  }
  assert_int_equal(lc->nfds, i);
}

static size_t open_fds(void) {
  size_t n = 0;
  DIR *d = opendir("/proc/self/fd");
  assert_non_null(d);
  while (readdir(d) != NULL)
    n++;
  closedir(d);
  return n;
}

static size_t failures;

/* Reports a failed case and goes on with the next, so one run shows every
 * case that fails. */
#define case_fail(...)                                                         \
  do {                                                                         \
    print_error(__VA_ARGS__);                                                  \
    print_error("\n");                                                         \
    failures++;                                                                \
    goto out;                                                                  \
  } while (0)

static void run_case(size_t index, const struct config_case *c) {
  /* Root reads and writes whatever it likes. */
  if ((c->flags & UNPRIVILEGED) != 0 && geteuid() == 0)
    return;
  char *yaml = expand(c->yaml);
  char *want_errors = c->errors != NULL ? expand(c->errors) : NULL;
  size_t fds_before = open_fds();
  struct config_diags d = {0};
  struct launch_config lc = {0};
  struct config_plan *plan =
      config_parse_buffer(yaml, strlen(yaml), "t.yaml", &d);
  int e = -1;
  if (plan != NULL) {
    e = config_open(plan, (c->flags & NO_EXEC) != 0 ? -1 : exec_fd,
                    (c->flags & DRY_RUN) != 0 ? CONFIG_OPEN_DRY_RUN : 0, &lc,
                    &d);
    /* What the plan holds is what the launch gets. */
    if (e == 0) {
      size_t len;
      const uint8_t *data = config_plan_argdata(plan, &len);
      assert_int_equal(len, lc.argdata_len);
      assert_memory_equal(data, lc.argdata, len);
      assert_int_equal(lc.argdata[len], 0);
      assert_int_equal(config_plan_nfds(plan), lc.nfds);
    }
  }
  char *errors = joined(&d);
  if (c->argdata != NULL) {
    if (e != 0)
      case_fail("case %zu: unexpected errors:\n%s", index, errors);
    char *got = hex(lc.argdata, lc.argdata_len);
    bool same = strcmp(got, c->argdata) == 0;
    if (!same)
      print_error("case %zu: argdata\n got %s\nwant %s\n", index, got,
                  c->argdata);
    free(got);
    if (!same) {
      failures++;
      goto out;
    }
    check_fds(c->fds, &lc, (c->flags & DRY_RUN) != 0);
    assert_int_equal(d.count, 0);
  } else {
    if (e == 0)
      case_fail("case %zu: no error, want:\n%s", index, want_errors);
    bool match = (c->flags & PREFIX) != 0
                     ? strncmp(errors, want_errors, strlen(want_errors)) == 0
                     : strcmp(errors, want_errors) == 0;
    if (!match)
      case_fail("case %zu: errors\n got:\n%s\nwant:\n%s", index, errors,
                want_errors);
    assert_int_equal(lc.nfds, 0);
    assert_null(lc.fds);
  }
out:
  launch_config_free(&lc);
  config_plan_free(plan);
  config_diags_free(&d);
  /* Nothing stays open: not on success once freed, not after errors. */
  assert_int_equal(open_fds(), fds_before);
  free(errors);
  free(want_errors);
  free(yaml);
}

static void test_cases(void **state) {
  (void)state;
  size_t n = 0;
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    run_case(i, &cases[i]);
    n++;
  }
  if (failures > 0)
    fail_msg("%zu of %zu cases failed", failures, n);
  /* The issue asks for at least 40. */
  assert_true(n >= 40);
}

/* create: true makes the file; a dry run does not. */
static void test_create(void **state) {
  (void)state;
  struct stat st;
  assert_int_equal(stat("created.txt", &st), 0);
  assert_int_equal(st.st_size, 0);
  assert_int_equal(stat("never.txt", &st), -1);
  assert_int_equal(stat("never.sock", &st), -1);
}

/* The plan records where each descriptor is named. */
static void test_references(void **state) {
  (void)state;
  static const char yaml[] =
      TAG "tmpdir: !file {path: dir}\nlist:\n  - x\n  - log: !fd 41\n"
          "\"odd key\": &a !fd 40\n1: *a\nagain: !fd 41\n";
  struct config_diags d = {0};
  struct config_plan *plan =
      config_parse_buffer(yaml, strlen(yaml), "t.yaml", &d);
  assert_non_null(plan);
  assert_int_equal(plan->ndescs, 3);
  static const struct {
    size_t fd;
    const char *path;
    uint32_t line, column;
  } want[] = {
      {0, ".tmpdir", 3, 9}, {1, ".list[1].log", 6, 10},
      {1, ".again", 9, 8},  {2, "[\"odd key\"]", 7, 12},
      {2, "{3}", 8, 4},
  };
  size_t seen[3] = {0};
  for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
    const struct cfg_desc *desc = &plan->descs[want[i].fd];
    const struct cfg_ref *ref = &desc->refs[seen[want[i].fd]++];
    assert_string_equal(ref->path, want[i].path);
    assert_int_equal(ref->pos.line, want[i].line);
    assert_int_equal(ref->pos.column, want[i].column);
  }
  assert_int_equal(plan->descs[0].nrefs, 1);
  assert_int_equal(plan->descs[1].nrefs, 2);
  assert_int_equal(plan->descs[2].nrefs, 2);
  config_plan_free(plan);
  config_diags_free(&d);
}

/* A descriptor inside a mapping key is named there. */
static void test_reference_in_key(void **state) {
  (void)state;
  static const char yaml[] = TAG "x: 1\n? [a, !fd 42]\n: v\n";
  struct config_diags d = {0};
  struct config_plan *plan =
      config_parse_buffer(yaml, strlen(yaml), "t.yaml", &d);
  assert_non_null(plan);
  assert_int_equal(plan->ndescs, 1);
  assert_int_equal(plan->descs[0].nrefs, 1);
  assert_string_equal(plan->descs[0].refs[0].path, "{key 1}[1]");
  assert_int_equal(plan->descs[0].refs[0].pos.line, 4);
  assert_int_equal(plan->descs[0].refs[0].pos.column, 7);
  config_plan_free(plan);
  config_diags_free(&d);
}

/* A client tries each address of a name until one connects. */
static void test_connect_fallback(void **state) {
  (void)state;
  /* A port nobody listens on: bound once, then released. */
  int probe = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in refused = {.sin_family = AF_INET,
                                .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof(refused);
  assert_int_equal(bind(probe, (struct sockaddr *)&refused, len), 0);
  assert_int_equal(getsockname(probe, (struct sockaddr *)&refused, &len), 0);
  close(probe);
  struct sockaddr_in good = {.sin_family = AF_INET,
                             .sin_port = htons((uint16_t)atoi(port)),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  struct addrinfo second = {.ai_family = AF_INET,
                            .ai_socktype = SOCK_STREAM,
                            .ai_addr = (struct sockaddr *)&good,
                            .ai_addrlen = sizeof(good)};
  struct addrinfo first = second;
  first.ai_addr = (struct sockaddr *)&refused;
  first.ai_next = &second;
  struct cfg_resource r = {
      .kind = CFG_RES_SOCKET, .socktype = SOCK_STREAM, .connect = true};
  const char *step = NULL;
  int error = 0;
  int fd = cfg_socket_from_list(&r, &first, &step, &error);
  assert_true(fd >= 0);
  assert_true((fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
  close(fd);
  /* The refused address alone: the error of the last attempt. */
  first.ai_next = NULL;
  fd = cfg_socket_from_list(&r, &first, &step, &error);
  assert_int_equal(fd, -1);
  assert_int_equal(error, ECONNREFUSED);
  assert_string_equal(step, "connect to");
}

/*
 * Many anchors, each aliased and a tenth redefined first: every alias
 * stands for the latest node of its name.  (Correctness only; that this
 * is fast, with a hash table, is measured, not timed here: see the
 * anchor row of tools/bench.sh.)
 */
#define MANY_ANCHORS 100000
static void test_many_anchors(void **state) {
  (void)state;
  size_t cap = (size_t)MANY_ANCHORS * 40 + 64, len = 0;
  char *yaml = malloc(cap);
  assert_non_null(yaml);
  len += (size_t)snprintf(yaml + len, cap - len, "[");
  for (int i = 0; i < MANY_ANCHORS; i++)
    len += (size_t)snprintf(yaml + len, cap - len, "&n%d %d, ", i, i);
  for (int i = 0; i < MANY_ANCHORS; i += 10)
    len += (size_t)snprintf(yaml + len, cap - len, "&n%d r%d, ", i, i);
  for (int i = 0; i < MANY_ANCHORS; i++)
    len += (size_t)snprintf(yaml + len, cap - len, "*n%d, ", i);
  len += (size_t)snprintf(yaml + len, cap - len, "end]\n");
  assert_true(len < cap - 1);
  struct config_diags d = {0};
  struct config_plan *plan = config_parse_buffer(yaml, len, "t.yaml", &d);
  free(yaml);
  assert_non_null(plan);
  const struct cfg_node *root = plan->root;
  size_t redefs = MANY_ANCHORS / 10;
  assert_int_equal(root->kind, CFG_SEQ);
  assert_int_equal(root->u.list.n, MANY_ANCHORS + redefs + MANY_ANCHORS + 1);
  struct cfg_node *const *items = root->u.list.items;
  for (size_t i = 0; i < MANY_ANCHORS; i++) {
    const struct cfg_node *alias = items[MANY_ANCHORS + redefs + i];
    assert_int_equal(alias->kind, CFG_ALIAS);
    const struct cfg_node *want =
        i % 10 == 0 ? items[MANY_ANCHORS + i / 10] : items[i];
    if (alias->u.target != want)
      fail_msg("alias *n%zu stands for the wrong node", i);
  }
  config_plan_free(plan);
  config_diags_free(&d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cases),
      cmocka_unit_test(test_create),
      cmocka_unit_test(test_references),
      cmocka_unit_test(test_reference_in_key),
      cmocka_unit_test(test_connect_fallback),
      cmocka_unit_test(test_many_anchors),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
