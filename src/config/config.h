/*
 * The YAML configuration front end of cloudabi-run.
 *
 * Two phases, so that every mistake in a config can be found without
 * touching anything:
 *
 *   1. config_parse_*: YAML text -> a typed, immutable plan (the argument
 *      data as a value tree whose descriptor leaves describe resources,
 *      numbered 0..n-1 by first appearance).  No side effects.
 *   2. config_open: plan -> struct launch_config (the argdata bytes and
 *      the host descriptors with their rights).  On any error everything
 *      opened so far is closed again.
 *
 * Mistakes come back as diagnostics, one line each, in the form
 * "NAME:LINE:COLUMN: message" (1-based), or "NAME: message" for problems
 * that have no position.
 */
#ifndef CONFIG_H
#define CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "launch.h"

struct config_diags {
  char **lines;
  size_t count, cap;
  bool out_of_memory; /* a line was lost; printed as a last line */
};

void config_diags_print(const struct config_diags *d, FILE *out);
void config_diags_free(struct config_diags *d);

/* Limits, so that no config can make the supervisor run away. */
#define CONFIG_MAX_INPUT (16u << 20)  /* bytes of YAML read */
#define CONFIG_MAX_ARGDATA (4u << 20) /* bytes of encoded argdata */
#define CONFIG_MAX_DEPTH 256          /* nesting, aliases expanded */
#define CONFIG_MAX_FD_REFS 4096       /* descriptor leaves, aliases expanded */
#define CONFIG_MAX_ERRORS 20          /* diagnostics before giving up */

struct config_plan;

/*
 * Parses YAML text; `name` is what diagnostics call it ("<stdin>" for
 * standard input).  Returns the plan, or NULL with at least one diagnostic
 * added.  Only the first document is read.
 */
struct config_plan *config_parse_buffer(const void *text, size_t len,
                                        const char *name,
                                        struct config_diags *d);
/* The same for a whole stream (up to CONFIG_MAX_INPUT bytes). */
struct config_plan *config_parse_file(FILE *in, const char *name,
                                      struct config_diags *d);
void config_plan_free(struct config_plan *plan);

/* The number of descriptors the plan gives the program. */
size_t config_plan_nfds(const struct config_plan *plan);
/* The encoded argument data (without the trailing NUL). */
const uint8_t *config_plan_argdata(const struct config_plan *plan, size_t *len);

enum {
  /*
   * Find the type and rights of every descriptor without side effects:
   * files are opened and closed but never created, socket addresses are
   * resolved but no socket is made.  Every host_fd in the result is -1.
   */
  CONFIG_OPEN_DRY_RUN = 1,
};

/*
 * Opens the plan's resources.  exec_fd is the program's own descriptor
 * for !executable (duplicated, never consumed), or -1 when there is none.
 * Returns 0 with *lc filled in (free with launch_config_free), or -1 with
 * diagnostics and *lc empty.
 */
int config_open(const struct config_plan *plan, int exec_fd, unsigned flags,
                struct launch_config *lc, struct config_diags *d);
/* The same with every path inside view (fsview.h), unless view is NULL;
 * Unix socket paths are refused there. */
struct fsview;
int config_open_view(const struct config_plan *plan, int exec_fd,
                     unsigned flags, const struct fsview *view,
                     struct launch_config *lc, struct config_diags *d);

/* Resources and values given on the command line instead of, or on top
 * of, a config file. */
enum config_flag_kind {
  CONFIG_FLAG_DIR,     /* --dir KEY=PATH[:ro|:rw]: a directory */
  CONFIG_FLAG_FILE,    /* --file KEY=PATH[:ro|:rw|:wo] */
  CONFIG_FLAG_FD,      /* --fd KEY=N|stdin|stdout|stderr */
  CONFIG_FLAG_SET,     /* --set KEY=VALUE: a plain scalar */
  CONFIG_FLAG_SET_STR, /* --set-str KEY=VALUE: a string */
};
struct config_flag {
  enum config_flag_kind kind;
  const char *arg; /* KEY=..., as given */
};
/* The option's name, "--dir" for CONFIG_FLAG_DIR. */
const char *config_flag_option(enum config_flag_kind kind);

/* The name a plan made from flags alone has, as "<stdin>" for stdin. */
#define CONFIG_FLAGS_NAME "<command line>"

/*
 * Adds the flags' keys to the top-level mapping of plan (NULL: an empty
 * mapping named CONFIG_FLAGS_NAME), replacing a key the config has, and
 * numbers the descriptors afresh.  Takes plan; returns the new plan, or
 * NULL with diagnostics (and plan freed).  Paths are only recorded: they
 * are opened by config_open like the config's own.
 */
struct config_plan *config_plan_add_flags(struct config_plan *plan,
                                          const struct config_flag *flags,
                                          size_t n, struct config_diags *d);

enum plan_format { PLAN_TEXT, PLAN_JSON };

/*
 * Prints what the program is given: each descriptor's number, type and
 * rights (from lc, the result of config_open for this plan), the resource
 * behind it and every place in the config that names it.  Returns 0, or -1
 * when writing failed.
 */
/* What the caller adds: a JSON value for the key "supervisor" and a text
 * line (the supervisor's confinement layers); either may be NULL. */
struct plan_extra {
  const char *supervisor_json, *supervisor_text;
};
int plan_print(const struct config_plan *plan, const struct launch_config *lc,
               enum plan_format format, const struct plan_extra *extra,
               FILE *out);

/* Writes s as a JSON string, bytes that are not UTF-8 as U+FFFD, so that
 * the output parses whatever s holds (also used by --report). */
void json_string(FILE *out, const char *s);

#endif
