/* cloudabi-run's command line. */
#ifndef OPTIONS_H
#define OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "config/config.h"
#include "supervisor/limits.h"
#include "trace/trace.h"

struct options {
  const char *program;
  const char *config; /* NULL: standard input, or flags alone */
  bool config_stdin;  /* CONFIG was "-": read standard input even with flags */
  /* --dir, --file, --fd, --set, --set-str, in order (malloc'ed). */
  struct config_flag *flags;
  size_t nflags;
  bool quiet;   /* -q: no hint on a terminal */
  bool verbose; /* -v: say what is given and how the program ended */
  bool plan;          /* --plan: print the plan and exit */
  enum plan_format plan_format;
  struct trace_options trace; /* --trace and friends */
  struct run_limits limits;   /* --memory-limit and friends */
  const char *report;         /* --report=FILE, or NULL */
  bool deterministic;         /* --deterministic[=SEED] */
  uint64_t seed;              /* its SEED, 0 by default */
  /* --root DIR[:ro], --cwd DIR, --mount DEST=SRC[:ro] (config/fsview.h):
   * PROGRAM, CONFIG and every config path inside that view. */
  const char *root;
  const char *cwd;
  const char **mounts; /* malloc'ed array, the arguments as given */
  size_t nmounts;
};

enum options_result {
  OPTIONS_RUN,   /* go on with *o */
  OPTIONS_EXIT,  /* --help or --version was printed: exit 0 */
  OPTIONS_USAGE, /* a usage error was printed: exit 127 */
};

/* Parses argv; help and version go to out, usage errors to err. */
enum options_result options_parse(int argc, char **argv, struct options *o,
                                  FILE *out, FILE *err);
void options_free(struct options *o);

#endif
