/*
 * Inside the config parser (config_parse.c, parse_diag.c,
 * parse_scalar.c): the parser's state and what its parts share.  Nothing
 * outside src/config/ includes this.
 */
#ifndef CONFIG_PARSER_H
#define CONFIG_PARSER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "anchors.h"
#include "config_plan.h"

#define CORE_PREFIX "tag:yaml.org,2002:"
#define CLOUDABI_PREFIX "tag:nuxi.nl,2015:cloudabi/"

struct parser {
  struct cfg_report report; /* first: its callbacks find the parser by it */
  yaml_parser_t yaml;
  const char *name;    /* for diagnostics */
  const uint8_t *text; /* the whole input, for reader error positions */
  size_t text_len;
  struct config_diags *diags;
  /* Diagnostics are found out of order (a duplicate key when its map
   * ends, after what is inside it), so they wait here to be sorted. */
  struct config_diags found;
  struct cfg_pos *found_pos;
  bool sort_failed;
  bool fatal; /* stop: syntax error, limit reached, out of memory */
  struct anchors anchors;
};

enum tag_class {
  TAG_NONE,        /* no tag: resolved by node kind and style */
  TAG_NONSPECIFIC, /* "!": a string, sequence or mapping as written */
  TAG_CORE,        /* !!str, !!int, ...: the name after the prefix */
  TAG_CLOUDABI,    /* !fd, !file, ...: the name after the prefix */
  TAG_OTHER,       /* unknown, or local (!fd without the %TAG directive) */
};

/* parse_diag.c: positions and diagnostics. */
struct cfg_pos cfgp_mark_pos(yaml_mark_t m);
/* Sorts the diagnostics found into document order and hands them on. */
void cfgp_flush_diagnostics(struct parser *p);
/* The cfg_report callbacks. */
void cfgp_report_error(struct cfg_report *rep, struct cfg_pos pos,
                       const char *msg);
void cfgp_report_nomem(struct cfg_report *rep);
void cfgp_error(struct parser *p, struct cfg_pos pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* An error after which nothing more is parsed. */
void cfgp_fatal(struct parser *p, struct cfg_pos pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void cfgp_out_of_memory(struct parser *p);
/* The next libyaml event; false (reported) on a syntax error or after a
 * fatal one. */
bool cfgp_next_event(struct parser *p, yaml_event_t *ev);

/* parse_scalar.c: tags, nodes and scalars. */
enum tag_class cfgp_classify_tag(const char *tag, const char **suffix);
/* A tag on the wrong kind of node: a clear message if the tag is known. */
void cfgp_wrong_node_kind(struct parser *p, struct cfg_pos pos, const char *tag,
                          const char *got);
/* Finishes a new node and checks the limits that keep every later walk
 * bounded.  Returns the node, or NULL (freed) when a limit is exceeded or
 * when n is NULL already (out of memory). */
struct cfg_node *cfgp_complete(struct parser *p, struct cfg_node *n);
/* A node standing in for one in error, so that parsing goes on. */
struct cfg_node *cfgp_placeholder(struct parser *p, struct cfg_pos pos);
struct cfg_node *cfgp_parse_scalar(struct parser *p, const yaml_event_t *ev);
/* The text of an untagged plain scalar, and of !fd (also what the
 * command line's --set and --fd take). */
struct cfg_node *cfgp_parse_plain(struct parser *p, struct cfg_pos pos,
                                  const char *s, size_t len);
struct cfg_node *cfgp_parse_fd(struct parser *p, struct cfg_pos pos,
                               const char *s, size_t len);

#endif
