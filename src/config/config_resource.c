/*
 * Resources described by mappings: the attributes of !file and !socket,
 * checked and turned into a typed cfg_resource.  Pure: nothing is opened
 * or resolved here (config_open.c does that).  Every mistake is reported
 * at the attribute it is about, and checking goes on, so that one run
 * shows them all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "config_plan.h"
#include "host/rights_names.h"

static bool text_is(const struct cfg_node *n, const char *word) {
  return strlen(word) == n->text_len && memcmp(n->text, word, n->text_len) == 0;
}

/*
 * The text of an attribute value.  Attribute values are taken as written,
 * so that a file called 2015 or yes needs no quotes; only what is not a
 * word at all (null, sequences, mappings, descriptors) is refused.
 */
static const struct cfg_node *attr_text(struct cfg_report *rep, const char *tag,
                                        const char *attr,
                                        const struct cfg_node *value) {
  const struct cfg_node *v = cfg_deref(value);
  if (!cfg_has_text(v) || v->kind == CFG_NULL) {
    cfg_report_error(rep, value->pos, "%s: %s: expected a string, not %s", tag,
                     attr, cfg_kind_name(v->kind));
    return NULL;
  }
  if (memchr(v->text, '\0', v->text_len) != NULL) {
    cfg_report_error(rep, value->pos, "%s: %s: contains a NUL character", tag,
                     attr);
    return NULL;
  }
  return v;
}

static bool attr_bool(struct cfg_report *rep, const char *tag, const char *attr,
                      const struct cfg_node *value, bool *out) {
  const struct cfg_node *v = cfg_deref(value);
  char d[128];
  if (v->kind != CFG_BOOL) {
    cfg_report_error(rep, value->pos, "%s: %s: expected true or false, not %s",
                     tag, attr, cfg_describe(v, d, sizeof(d)));
    return false;
  }
  *out = v->u.b;
  return true;
}

/* rights: [FD_READ, file_open, ...]: the spec's names, any case, with or
 * without the CLOUDABI_RIGHT_ prefix. */
static bool attr_rights(struct cfg_report *rep, const char *tag,
                        const char *attr, const struct cfg_node *value,
                        cloudabi_rights_t *out) {
  const struct cfg_node *v = cfg_deref(value);
  char d[128];
  if (v->kind != CFG_SEQ) {
    cfg_report_error(rep, value->pos,
                     "%s: %s: expected a sequence of rights, not %s", tag, attr,
                     cfg_describe(v, d, sizeof(d)));
    return false;
  }
  static const char prefix[] = "CLOUDABI_RIGHT_";
  bool ok = true;
  *out = 0;
  for (size_t i = 0; i < v->u.list.n; i++) {
    const struct cfg_node *item = v->u.list.items[i];
    const struct cfg_node *it = cfg_deref(item);
    if (!cfg_has_text(it) || it->kind == CFG_NULL) {
      cfg_report_error(rep, item->pos, "%s: %s: expected a right, not %s", tag,
                       attr, cfg_kind_name(it->kind));
      ok = false;
      continue;
    }
    const char *name = it->text;
    size_t len = it->text_len;
    if (len > strlen(prefix) && strncasecmp(name, prefix, strlen(prefix)) == 0)
      name += strlen(prefix), len -= strlen(prefix);
    cloudabi_rights_t bit = rights_from_name(name, len);
    if (bit == 0) {
      cfg_report_error(rep, item->pos, "%s: %s: unknown right %s", tag, attr,
                       cfg_describe(it, d, sizeof(d)));
      ok = false;
    }
    *out |= bit;
  }
  return ok;
}

static char *dup_text(struct cfg_report *rep, const struct cfg_node *v) {
  char *s = strndup(v->text, v->text_len);
  if (s == NULL)
    cfg_report_nomem(rep);
  return s;
}

/* The name of a mapping entry's key, or NULL (with an error) if it has
 * none. */
static const struct cfg_node *attr_name(struct cfg_report *rep, const char *tag,
                                        const struct cfg_node *key) {
  const struct cfg_node *k = cfg_deref(key);
  if (!cfg_has_text(k)) {
    cfg_report_error(rep, key->pos, "%s: attribute names are words, not %s",
                     tag, cfg_kind_name(k->kind));
    return NULL;
  }
  return k;
}

/* rights: and inheriting:, which !file and !socket share.  True when k
 * is one of them (then handled, errors included). */
static bool narrow(struct cfg_report *rep, const char *tag,
                   const struct cfg_node *k, const struct cfg_node *value,
                   struct cfg_resource *r) {
  if (text_is(k, "rights")) {
    r->narrow_base = attr_rights(rep, tag, "rights", value, &r->base);
    r->base_pos = value->pos;
    return true;
  }
  if (text_is(k, "inheriting")) {
    r->narrow_inheriting =
        attr_rights(rep, tag, "inheriting", value, &r->inheriting);
    r->inheriting_pos = value->pos;
    return true;
  }
  return false;
}

/* !file {path: P, mode: ro|rw|wo, create: B, directory: B, follow: B,
 * rights: [...], inheriting: [...]}. */
static void make_file(struct cfg_report *rep, struct cfg_resource *r,
                      const struct cfg_node *map) {
  static const char tag[] = "!file";
  size_t errors = rep->errors;
  char d[128];
  for (size_t i = 0; i + 1 < map->u.list.n; i += 2) {
    const struct cfg_node *key = map->u.list.items[i];
    const struct cfg_node *value = map->u.list.items[i + 1];
    const struct cfg_node *k = attr_name(rep, tag, key), *v;
    if (k == NULL || narrow(rep, tag, k, value, r))
      continue;
    if (text_is(k, "path")) {
      if ((v = attr_text(rep, tag, "path", value)) != NULL) {
        free(r->path);
        r->path = dup_text(rep, v);
        r->path_pos = value->pos;
      }
    } else if (text_is(k, "mode")) {
      if ((v = attr_text(rep, tag, "mode", value)) == NULL)
        continue;
      r->mode_set = true;
      r->mode_pos = value->pos;
      if (text_is(v, "ro"))
        r->mode = CFG_MODE_RO;
      else if (text_is(v, "rw"))
        r->mode = CFG_MODE_RW;
      else if (text_is(v, "wo"))
        r->mode = CFG_MODE_WO;
      else
        cfg_report_error(rep, value->pos,
                         "%s: mode: expected ro, rw or wo, not %s", tag,
                         cfg_describe(v, d, sizeof(d)));
    } else if (text_is(k, "create")) {
      attr_bool(rep, tag, "create", value, &r->create);
    } else if (text_is(k, "directory")) {
      attr_bool(rep, tag, "directory", value, &r->directory);
    } else if (text_is(k, "follow")) {
      attr_bool(rep, tag, "follow", value, &r->follow);
    } else {
      cfg_report_error(rep, key->pos,
                       "%s: unknown attribute %s (expected path, mode, create, "
                       "directory, follow, rights or inheriting)",
                       tag, cfg_describe(k, d, sizeof(d)));
    }
  }
  if (rep->errors == errors) {
    if (r->path == NULL)
      cfg_report_error(rep, r->pos, "%s: missing path", tag);
    else if (r->create && r->directory)
      cfg_report_error(rep, r->pos,
                       "%s: create: true cannot be combined with directory: "
                       "true",
                       tag);
    else if (r->create && r->mode == CFG_MODE_RO)
      /* An empty file the program cannot write is never what was meant. */
      cfg_report_error(rep, r->pos,
                       "%s: create: true needs mode: rw or mode: wo", tag);
  }
}

/* ADDR: /unix/path, host:port or [v6]:port; checked here, resolved when
 * the socket is made. */
static bool parse_address(struct cfg_report *rep, struct cfg_pos pos,
                          struct cfg_resource *r, const struct cfg_node *v) {
  static const char tag[] = "!socket";
  const char *s = v->text;
  size_t len = v->text_len;
  char d[128];
  if (len > 0 && s[0] == '/') {
    struct sockaddr_un sun;
    if (len >= sizeof(sun.sun_path)) {
      cfg_report_error(rep, pos,
                       "%s: Unix socket path is %zu bytes, longer than the %zu "
                       "a socket address holds",
                       tag, len, sizeof(sun.sun_path) - 1);
      return false;
    }
    r->unix_path = true;
    return true;
  }
  const char *host = s, *host_end, *port;
  if (len > 0 && s[0] == '[') {
    host = s + 1;
    host_end = memchr(s, ']', len);
    port = host_end != NULL ? host_end + 1 : NULL;
  } else {
    host_end = memrchr(s, ':', len);
    port = host_end;
    /* An IPv6 address without brackets cannot be told from its port. */
    if (host_end != NULL && memchr(s, ':', (size_t)(host_end - s)) != NULL)
      host_end = NULL;
  }
  if (host_end == NULL || host_end == host || port >= s + len || *port != ':' ||
      port + 1 == s + len) {
    cfg_report_error(rep, pos,
                     "%s: address %s is not /path, host:port or [IPv6]:port",
                     tag, cfg_describe(v, d, sizeof(d)));
    return false;
  }
  /* A numeric port must fit 16 bits: getaddrinfo would wrap 99999 to
   * 34463 without a word. */
  const char *digits = port + 1;
  size_t ndigits = (size_t)(s + len - digits);
  if (ndigits > 0 && strspn(digits, "0123456789") >= ndigits) {
    unsigned long port_value = 0;
    for (size_t i = 0; i < ndigits && port_value <= 65535; i++)
      port_value = port_value * 10 + (unsigned long)(digits[i] - '0');
    if (port_value > 65535) {
      cfg_report_error(rep, pos, "%s: port in %s out of range (0 to 65535)",
                       tag, cfg_describe(v, d, sizeof(d)));
      return false;
    }
  }
  r->host = strndup(host, (size_t)(host_end - host));
  r->port = strndup(port + 1, (size_t)(s + len - port - 1));
  if (r->host == NULL || r->port == NULL) {
    cfg_report_nomem(rep);
    return false;
  }
  return true;
}

/* !socket {type: stream|dgram, bind: ADDR | connect: ADDR, accept: B,
 * rights: [...], inheriting: [...]}. */
static void make_socket(struct cfg_report *rep, struct cfg_resource *r,
                        const struct cfg_node *map) {
  static const char tag[] = "!socket";
  size_t errors = rep->errors;
  char d[128];
  const struct cfg_node *address = NULL;
  r->socktype = SOCK_STREAM;
  for (size_t i = 0; i + 1 < map->u.list.n; i += 2) {
    const struct cfg_node *key = map->u.list.items[i];
    const struct cfg_node *value = map->u.list.items[i + 1];
    const struct cfg_node *k = attr_name(rep, tag, key), *v;
    if (k == NULL || narrow(rep, tag, k, value, r))
      continue;
    if (text_is(k, "type")) {
      if ((v = attr_text(rep, tag, "type", value)) == NULL)
        continue;
      if (text_is(v, "stream"))
        r->socktype = SOCK_STREAM;
      else if (text_is(v, "dgram"))
        r->socktype = SOCK_DGRAM;
      else if (text_is(v, "seqpacket"))
        cfg_report_error(
            rep, value->pos,
            "%s: type: seqpacket sockets have no CloudABI file type", tag);
      else
        cfg_report_error(rep, value->pos,
                         "%s: type: expected stream or dgram, not %s", tag,
                         cfg_describe(v, d, sizeof(d)));
    } else if (text_is(k, "bind") || text_is(k, "connect")) {
      if (address != NULL) {
        cfg_report_error(rep, key->pos,
                         "%s: give one of bind and connect, not both", tag);
        continue;
      }
      if ((v = attr_text(rep, tag, k->text, value)) == NULL)
        continue;
      address = value;
      r->connect = text_is(k, "connect");
      free(r->path);
      r->path = dup_text(rep, v);
      r->path_pos = value->pos;
      parse_address(rep, value->pos, r, v);
    } else if (text_is(k, "accept")) {
      attr_bool(rep, tag, "accept", value, &r->accept);
      r->accept_pos = value->pos;
    } else {
      cfg_report_error(
          rep, key->pos,
          "%s: unknown attribute %s (expected type, bind, connect, accept, "
          "rights or inheriting)",
          tag, cfg_describe(k, d, sizeof(d)));
    }
  }
  if (rep->errors != errors)
    return;
  if (address == NULL)
    cfg_report_error(rep, r->pos, "%s: needs bind or connect", tag);
  else if (r->accept && r->connect)
    cfg_report_error(rep, r->accept_pos,
                     "%s: accept: true needs bind, not connect", tag);
  else if (r->accept && r->socktype != SOCK_STREAM)
    cfg_report_error(rep, r->accept_pos,
                     "%s: accept: true needs a stream socket (datagram "
                     "sockets have no connections)",
                     tag);
}

struct cfg_resource *cfg_resource_from_map(enum cfg_res_kind kind,
                                           struct cfg_pos pos,
                                           const struct cfg_node *map,
                                           struct cfg_report *rep) {
  struct cfg_resource *r = calloc(1, sizeof(*r));
  if (r == NULL) {
    cfg_report_nomem(rep);
    return NULL;
  }
  r->kind = kind;
  r->pos = pos;
  r->host_fd = -1;
  size_t errors = rep->errors;
  if (kind == CFG_RES_FILE)
    make_file(rep, r, map);
  else
    make_socket(rep, r, map);
  if (rep->errors != errors) {
    cfg_resource_free(r);
    return NULL;
  }
  return r;
}
