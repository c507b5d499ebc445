/*
 * The inside of a config plan, shared by the files of the config front
 * end (parse, open, argdata writer, plan printer) and their tests.
 *
 * A plan is a tree of values.  YAML aliases make it a DAG: an alias is a
 * small node of its own (for its position) pointing at the anchored node,
 * which is shared and reference-counted, so that a resource named through
 * an alias is one descriptor.  Every node carries what the later steps
 * need without walking the expanded tree again: its encoded argdata size,
 * its height, a hash for finding duplicate keys, and how many descriptor
 * leaves lie beneath it.
 */
#ifndef CONFIG_PLAN_H
#define CONFIG_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cloudabi_types.h"
#include "config.h"

/* Integers span -2^63 .. 2^64-1 and timestamps need 96 bits of
 * nanoseconds, so both are held in 128 bits (gcc and clang on x86-64). */
typedef __int128 cfg_wide;

struct cfg_pos {
  uint32_t line, column; /* 1-based */
  /* A node made from a command-line flag: the flag as given ("--dir
   * data=/srv", owned by the plan), which stands for the position. */
  const char *flag;
};

enum cfg_kind {
  CFG_NULL,
  CFG_BOOL,
  CFG_INT,
  CFG_FLOAT,
  CFG_STR,
  CFG_BINARY,
  CFG_TIMESTAMP,
  CFG_SEQ,
  CFG_MAP,
  CFG_FD,    /* a resource: becomes a descriptor number */
  CFG_ALIAS, /* stands for u.target; never the target of another alias */
};

enum cfg_res_kind {
  CFG_RES_FD,
  CFG_RES_FILE,
  CFG_RES_EXECUTABLE,
  CFG_RES_SOCKET
};
enum cfg_file_mode { CFG_MODE_RO, CFG_MODE_RW, CFG_MODE_WO };

/* What a descriptor leaf stands for: the typed description phase two
 * acts on. */
struct cfg_resource {
  enum cfg_res_kind kind;
  struct cfg_pos pos; /* of the tagged node */
  /* CFG_RES_FD: the host descriptor, and the keyword if one was used. */
  int host_fd;
  const char *fd_name;
  /* CFG_RES_FILE: the path; CFG_RES_SOCKET: the address as written. */
  char *path;
  struct cfg_pos path_pos;
  enum cfg_file_mode mode;
  bool mode_set; /* mode: was written (a directory's rights follow it) */
  struct cfg_pos mode_pos;
  bool create, directory;
  bool follow; /* follow: true: symlinks in the path are followed */
  /* CFG_RES_SOCKET */
  int socktype;   /* SOCK_STREAM or SOCK_DGRAM */
  bool connect;   /* connect to the address, else bind (and listen) */
  /* accept: true: cloudabi-run accepts, the program receives each
   * connection over a socket pair (supervisor/acceptor.h). */
  bool accept;
  struct cfg_pos accept_pos;
  bool unix_path; /* the address is a path; else host and port */
  char *host, *port;
  /* Narrowing requested by the config: rights: and inheriting:. */
  bool narrow_base, narrow_inheriting;
  cloudabi_rights_t base, inheriting;
  struct cfg_pos base_pos, inheriting_pos;
  /* Assigned when the plan is complete. */
  bool numbered;
  size_t guest_fd;
};

struct cfg_node {
  enum cfg_kind kind;
  struct cfg_pos pos;
  uint32_t refs;
  uint32_t height; /* 1 for a leaf; aliases count as their target */
  uint64_t hash;
  size_t size;    /* encoded length; saturates above CONFIG_MAX_ARGDATA */
  size_t fd_refs; /* descriptor leaves beneath; saturates likewise */
  /* Scalars: the text as written (strings: the value), NUL-terminated. */
  char *text;
  size_t text_len;
  union {
    bool b;
    cfg_wide i; /* CFG_INT; CFG_TIMESTAMP: nanoseconds since 1970 UTC */
    double f;
    struct {
      uint8_t *data;
      size_t len;
    } bin;
    struct {
      /* CFG_MAP: key, value, key, value, ... */
      struct cfg_node **items;
      size_t n, cap;
    } list;
    struct cfg_resource *res;
    struct cfg_node *target;
  } u;
};

/* What a node stands for: the anchored node for an alias, else itself. */
static inline const struct cfg_node *cfg_deref(const struct cfg_node *n) {
  return n->kind == CFG_ALIAS ? n->u.target : n;
}

/* One place in the config that names a descriptor. */
struct cfg_ref {
  char *path; /* ".tmpdir", "[2].log", "." for the root */
  struct cfg_pos pos;
};

struct cfg_desc {
  struct cfg_resource *res; /* the first resource naming it */
  struct cfg_ref *refs;
  size_t nrefs;
};

struct config_plan {
  char *name;
  struct cfg_node *root;
  struct cfg_desc *descs; /* guest descriptor i is descs[i] */
  size_t ndescs;
  uint8_t *argdata;
  size_t argdata_len;
  /* The command-line flags merged in (config_flags.c): what flag
   * positions point to. */
  char **flags;
  size_t nflags;
};

/* Nodes (config_node.c). */
struct cfg_node *cfg_node_new(enum cfg_kind kind, struct cfg_pos pos);
struct cfg_node *cfg_node_ref(struct cfg_node *n);
void cfg_node_unref(struct cfg_node *n);
/* Copies len bytes of text (plus a NUL); -1 when out of memory. */
int cfg_node_set_text(struct cfg_node *n, const char *text, size_t len);
/* Appends a child to a sequence or a map, taking the reference. */
int cfg_node_append(struct cfg_node *n, struct cfg_node *child);
/* Computes size, height, hash and fd_refs once the payload is complete. */
void cfg_node_finish(struct cfg_node *n);
/* Equal when they encode to the same argdata with the same descriptors. */
bool cfg_node_equal(const struct cfg_node *a, const struct cfg_node *b);
void cfg_resource_free(struct cfg_resource *r);
/* For messages: "an integer", "a mapping", ... */
const char *cfg_kind_name(enum cfg_kind k);
/* Whether n is a scalar that keeps its source text. */
bool cfg_has_text(const struct cfg_node *n);
/* A node for messages: a scalar's text quoted, else its kind. */
const char *cfg_describe(const struct cfg_node *n, char *buf, size_t size);

/*
 * Where checks report mistakes.  The parser implements it; the checks
 * that only look at finished nodes (config_resource.c) need no more.
 */
struct cfg_report {
  void (*error)(struct cfg_report *rep, struct cfg_pos pos, const char *msg);
  void (*out_of_memory)(struct cfg_report *rep);
  size_t errors; /* counted by cfg_report_error */
};
void cfg_report_error(struct cfg_report *rep, struct cfg_pos pos,
                      const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void cfg_report_nomem(struct cfg_report *rep);

/*
 * The attributes of !file or !socket (config_resource.c): the typed
 * resource, or NULL after reporting every mistake.
 */
struct cfg_resource *cfg_resource_from_map(enum cfg_res_kind kind,
                                           struct cfg_pos pos,
                                           const struct cfg_node *map,
                                           struct cfg_report *rep);

/* Numbers the plan's descriptors and records their references
 * (config_number.c).  -1 when out of memory. */
int cfg_plan_number(struct config_plan *plan);

/* Encoding sizes (argdata_writer.c). */
size_t argdata_varint_len(size_t v);
size_t argdata_int_len(cfg_wide v); /* payload bytes, minimal */
/*
 * Encodes the tree into a malloc'ed buffer of root->size bytes plus a NUL
 * not counted in *len.  Descriptor leaves are written as their guest
 * numbers.  Returns 0, or -1 (ENOMEM, or E2BIG above CONFIG_MAX_ARGDATA).
 */
int argdata_write(const struct cfg_node *root, uint8_t **out, size_t *len);

/*
 * Sockets (config_open.c): makes r's socket for the first address in list
 * that works, bound and listening or connected.  Returns it, or -1 with
 * *error and *step ("connect to", ...) from the last attempt.
 */
struct addrinfo;
int cfg_socket_from_list(const struct cfg_resource *r,
                         const struct addrinfo *list, const char **step,
                         int *error);

/* Diagnostics (config_diag.c). */
void cfg_diag(struct config_diags *d, const char *name, struct cfg_pos pos,
              const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* A diagnostic without a position. */
void cfg_diag_nopos(struct config_diags *d, const char *name, const char *fmt,
                    ...) __attribute__((format(printf, 3, 4)));
/* Appends a malloc'ed line, taking it (NULL: a line lost to memory). */
void cfg_diag_take(struct config_diags *d, char *line);
/*
 * Writes s (len bytes) into buf in double quotes with C escapes for
 * quotes, backslashes and control bytes, shortened with "..." when it
 * does not fit: diagnostics stay one line whatever the config holds.
 */
const char *cfg_quote(char *buf, size_t size, const char *s, size_t len);

#endif
