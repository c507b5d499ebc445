/* cloudabi-run's command line; see options.h. */
#include "options.h"
#include "limit_options.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#ifndef CLOUDABI_RUN_VERSION
#define CLOUDABI_RUN_VERSION "unknown"
#endif

static void usage(FILE *f) {
  fprintf(f, "usage: cloudabi-run [OPTIONS] PROGRAM [CONFIG]\n"
             "Runs the CloudABI executable PROGRAM with the resources named in "
             "the YAML\nfile CONFIG (standard input if absent or \"-\"), "
             "and those given by flags.\n\n"
             "  --dir KEY=PATH[:rw] a directory, read-only unless :rw\n"
             "  --file KEY=PATH[:ro|:rw|:wo]\n"
             "                      a file, opened read-only unless said\n"
             "  --fd KEY=N|stdin|stdout|stderr\n"
             "                      a descriptor cloudabi-run was given\n"
             "  --set KEY=VALUE     a value, typed as a plain YAML scalar "
             "(4, true, 1.5)\n"
             "  --set-str KEY=VALUE a string, whatever it looks like\n"
             "                      (without CONFIG these alone are the "
             "config and\n"
             "                      standard input is not read; with one they "
             "add or\n"
             "                      replace its top-level keys)\n"
             "  --plan[=text|json]  print every descriptor the program would "
             "get, with its\n"
             "                      rights and where the config names it, and "
             "exit\n"
             "  --trace[=LIST]      trace the program's system calls on "
             "standard error;\n"
             "                      LIST: names (fd_write) and families (fd, "
             "file, mem,\n"
             "                      poll, proc, sock, clock, lock, condvar, "
             "random,\n"
             "                      thread), \"local\" for the calls the vDSO "
             "performs\n"
             "                      itself (slower), and one output file "
             "with a \"/\"\n"
             "                      (--trace=fd,file,./trace.txt)\n"
             "  --trace-output=FILE write the trace to FILE\n"
             "  --trace-format=text|json\n"
             "                      one line per event, like strace, or "
             "one JSON object\n"
             "  --trace-failed      only calls that fail\n"
             "  -T, --trace-time    how long each call took\n"
             "  --trace-timestamps  seconds since the start, before each "
             "line\n"
             "  --trace-strsize=N   bytes of each string shown (default 32)\n"
             "                      (any --trace-* option turns tracing on)\n"
             "  --memory-limit=SIZE address space of each process (K, M, G)\n"
             "  --cpu-limit=SECONDS CPU time of each process\n"
             "  --time-limit=SECONDS\n"
             "                      wall-clock time of the run (exit 124)\n"
             "  --process-limit=N   processes at once (default and most 128)\n"
             "  --thread-limit=N    threads per process (default and most "
             "1024)\n"
             "  --fd-limit=N        descriptors per process (default and "
             "most 65536)\n"
             "  --file-size-limit=SIZE\n"
             "                      the size a write may make a file "
             "(EFBIG)\n"
             "  --disk-limit=SIZE   bytes all writes may add to files "
             "(ENOSPC)\n"
             "  --report=FILE       write what the run did, as one JSON "
             "object, to FILE\n"
             "  --deterministic[=SEED]\n"
             "                      virtual clocks and random bytes from SEED "
             "(default 0):\n"
             "                      a single-threaded program repeats its "
             "run exactly\n"
             "  --root DIR[:ro]     PROGRAM, CONFIG and every config path "
             "are inside DIR,\n"
             "                      as if it were \"/\" (read-only with :ro)\n"
             "  --cwd DIR           where relative paths start inside the "
             "root (\"/\")\n"
             "  --mount DEST=SRC[:ro]\n"
             "                      the host directory SRC at DEST inside "
             "the root\n"
             "  -q, --quiet         no hint when reading a config from a "
             "terminal\n"
             "  -v, --verbose       say what the program is given and how it "
             "ended\n"
             "  -h, --help          show this help\n"
             "  -V, --version       show the version\n");
}

enum options_result options_parse(int argc, char **argv, struct options *o,
                                  FILE *out, FILE *err) {
  enum {
    OPT_VERSION = 256,
    OPT_PLAN,
    OPT_TRACE,
    OPT_TRACE_OUTPUT,
    OPT_TRACE_FORMAT,
    OPT_TRACE_FAILED,
    OPT_TRACE_TIMESTAMPS,
    OPT_TRACE_STRSIZE,
    OPT_LIMIT,
    OPT_DIR,
    OPT_FILE,
    OPT_FD,
    OPT_SET,
    OPT_SET_STR,
    OPT_REPORT,
    OPT_DETERMINISTIC,
    OPT_ROOT,
    OPT_CWD,
    OPT_MOUNT,
  };
  static const struct option longopts[] = {
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, 'V'},
      {"quiet", no_argument, NULL, 'q'},
      {"verbose", no_argument, NULL, 'v'},
      {"dir", required_argument, NULL, OPT_DIR},
      {"file", required_argument, NULL, OPT_FILE},
      {"fd", required_argument, NULL, OPT_FD},
      {"set", required_argument, NULL, OPT_SET},
      {"set-str", required_argument, NULL, OPT_SET_STR},
      {"plan", optional_argument, NULL, OPT_PLAN},
      {"trace", optional_argument, NULL, OPT_TRACE},
      {"trace-output", required_argument, NULL, OPT_TRACE_OUTPUT},
      {"trace-format", required_argument, NULL, OPT_TRACE_FORMAT},
      {"trace-failed", no_argument, NULL, OPT_TRACE_FAILED},
      {"trace-time", no_argument, NULL, 'T'},
      {"trace-timestamps", no_argument, NULL, OPT_TRACE_TIMESTAMPS},
      {"trace-strsize", required_argument, NULL, OPT_TRACE_STRSIZE},
      {"memory-limit", required_argument, NULL, OPT_LIMIT},
      {"cpu-limit", required_argument, NULL, OPT_LIMIT},
      {"time-limit", required_argument, NULL, OPT_LIMIT},
      {"process-limit", required_argument, NULL, OPT_LIMIT},
      {"thread-limit", required_argument, NULL, OPT_LIMIT},
      {"fd-limit", required_argument, NULL, OPT_LIMIT},
      {"file-size-limit", required_argument, NULL, OPT_LIMIT},
      {"disk-limit", required_argument, NULL, OPT_LIMIT},
      {"report", required_argument, NULL, OPT_REPORT},
      {"deterministic", optional_argument, NULL, OPT_DETERMINISTIC},
      {"root", required_argument, NULL, OPT_ROOT},
      {"cwd", required_argument, NULL, OPT_CWD},
      {"mount", required_argument, NULL, OPT_MOUNT},
      {NULL, 0, NULL, 0},
  };
  memset(o, 0, sizeof(*o));
  o->plan_format = PLAN_TEXT;
  trace_options_init(&o->trace);
  run_limits_default(&o->limits);
  /* Every flag is one argument at most: argc bounds them. */
  o->flags = calloc((size_t)argc, sizeof(*o->flags));
  o->mounts = calloc((size_t)argc, sizeof(*o->mounts));
  if (o->flags == NULL || o->mounts == NULL) {
    fprintf(err, "cloudabi-run: out of memory\n");
    return OPTIONS_USAGE;
  }
  char why[256];
  /* Keep getopt quiet: its messages would not say where they come from. */
  opterr = 0;
  optind = 1;
  int c, index = 0;
  while ((c = getopt_long(argc, argv, "+:hTVqv", longopts, &index)) != -1) {
    switch (c) {
    case OPT_LIMIT: {
      /* "memory-limit" names the limit "memory". */
      char name[32];
      size_t len = strlen(longopts[index].name) - strlen("-limit");
      snprintf(name, sizeof(name), "%.*s", (int)len, longopts[index].name);
      if (!limit_option(name, optarg, &o->limits, why, sizeof(why))) {
        fprintf(err, "cloudabi-run: %s\n", why);
        return OPTIONS_USAGE;
      }
      break;
    }
    case 'h':
      usage(out);
      return OPTIONS_EXIT;
    case 'V':
      fprintf(out, "cloudabi-run %s\n", CLOUDABI_RUN_VERSION);
      return OPTIONS_EXIT;
    case 'q':
      o->quiet = true;
      break;
    case 'v':
      o->verbose = true;
      break;
    case OPT_DIR:
    case OPT_FILE:
    case OPT_FD:
    case OPT_SET:
    case OPT_SET_STR: {
      static const enum config_flag_kind kinds[] = {
          CONFIG_FLAG_DIR, CONFIG_FLAG_FILE, CONFIG_FLAG_FD, CONFIG_FLAG_SET,
          CONFIG_FLAG_SET_STR};
      o->flags[o->nflags].kind = kinds[c - OPT_DIR];
      o->flags[o->nflags++].arg = optarg;
      break;
    }
    case OPT_PLAN:
      o->plan = true;
      if (optarg == NULL || strcmp(optarg, "text") == 0) {
        o->plan_format = PLAN_TEXT;
      } else if (strcmp(optarg, "json") == 0) {
        o->plan_format = PLAN_JSON;
      } else {
        fprintf(err,
                "cloudabi-run: --plan: unknown format \"%s\" "
                "(expected text or json)\n",
                optarg);
        return OPTIONS_USAGE;
      }
      break;
    case OPT_TRACE:
      if (!trace_spec_parse(optarg, &o->trace, why, sizeof(why))) {
        fprintf(err, "cloudabi-run: %s\n", why);
        return OPTIONS_USAGE;
      }
      break;
    case OPT_TRACE_OUTPUT:
      o->trace.enabled = true;
      o->trace.output = optarg;
      o->trace.output_len = strlen(optarg);
      break;
    case OPT_TRACE_FORMAT:
      o->trace.enabled = true;
      if (strcmp(optarg, "text") == 0) {
        o->trace.format = TRACE_TEXT;
      } else if (strcmp(optarg, "json") == 0) {
        o->trace.format = TRACE_JSON;
      } else {
        fprintf(err,
                "cloudabi-run: --trace-format: unknown format \"%s\" "
                "(expected text or json)\n",
                optarg);
        return OPTIONS_USAGE;
      }
      break;
    case OPT_REPORT:
      if (optarg[0] == '\0') {
        fprintf(err, "cloudabi-run: --report: no file named\n");
        return OPTIONS_USAGE;
      }
      o->report = optarg;
      break;
    case OPT_DETERMINISTIC: {
      char *end = NULL;
      errno = 0;
      unsigned long long seed =
          optarg != NULL ? strtoull(optarg, &end, 0) : 0;
      if (optarg != NULL &&
          (optarg[0] < '0' || optarg[0] > '9' || *end != '\0' || errno != 0)) {
        fprintf(err,
                "cloudabi-run: --deterministic: \"%s\" is not a number "
                "from 0 to 2^64-1\n",
                optarg);
        return OPTIONS_USAGE;
      }
      o->deterministic = true;
      o->seed = seed;
      break;
    }
    case OPT_ROOT:
      o->root = optarg;
      break;
    case OPT_CWD:
      o->cwd = optarg;
      break;
    case OPT_MOUNT:
      if (strchr(optarg, '=') == NULL || optarg[0] != '/') {
        fprintf(err,
                "cloudabi-run: --mount %s: expected DEST=SRC[:ro] with an "
                "absolute DEST\n",
                optarg);
        return OPTIONS_USAGE;
      }
      o->mounts[o->nmounts++] = optarg;
      break;
    case OPT_TRACE_FAILED:
      o->trace.enabled = true;
      o->trace.failed_only = true;
      break;
    case 'T':
      o->trace.enabled = true;
      o->trace.durations = true;
      break;
    case OPT_TRACE_TIMESTAMPS:
      o->trace.enabled = true;
      o->trace.timestamps = true;
      break;
    case OPT_TRACE_STRSIZE: {
      char *end;
      errno = 0;
      unsigned long n = strtoul(optarg, &end, 10);
      if (optarg[0] < '0' || optarg[0] > '9' || *end != '\0' ||
          errno != 0 || n > TRACE_STRSIZE_MAX) {
        fprintf(err,
                "cloudabi-run: --trace-strsize: \"%s\" is not a number "
                "from 0 to %u\n",
                optarg, TRACE_STRSIZE_MAX);
        return OPTIONS_USAGE;
      }
      o->trace.enabled = true;
      o->trace.strsize = n;
      break;
    }
    case ':':
      fprintf(err, "cloudabi-run: option %s needs an argument\n",
              argv[optind - 1]);
      usage(err);
      return OPTIONS_USAGE;
    default:
      if (optopt != 0 && optopt < 256)
        fprintf(err, "cloudabi-run: unknown option -%c\n", optopt);
      else
        fprintf(err, "cloudabi-run: unknown option %s\n", argv[optind - 1]);
      usage(err);
      return OPTIONS_USAGE;
    }
  }
  if (optind >= argc) {
    fprintf(err, "cloudabi-run: no PROGRAM given\n");
    usage(err);
    return OPTIONS_USAGE;
  }
  /* Options stop at PROGRAM (what follows could be the program's own):
   * one written after it is a slip worth naming. */
  for (int i = optind + 1; i < argc; i++) {
    if (argv[i][0] == '-' && argv[i][1] != '\0') {
      fprintf(err,
              "cloudabi-run: option %s after PROGRAM: options go before it "
              "(a config file named so: ./%s)\n",
              argv[i], argv[i]);
      usage(err);
      return OPTIONS_USAGE;
    }
  }
  if (argc - optind > 2) {
    fprintf(err,
            "cloudabi-run: too many arguments: \"%s\" after CONFIG (the "
            "program's arguments come from the config)\n",
            argv[optind + 2]);
    usage(err);
    return OPTIONS_USAGE;
  }
  if ((o->cwd != NULL || o->nmounts > 0) && o->root == NULL) {
    fprintf(err, "cloudabi-run: --cwd and --mount need --root\n");
    return OPTIONS_USAGE;
  }
  trace_options_finish(&o->trace);
  o->program = argv[optind];
  if (argc - optind == 2 && strcmp(argv[optind + 1], "-") != 0)
    o->config = argv[optind + 1];
  o->config_stdin = argc - optind == 2 && o->config == NULL;
  return OPTIONS_RUN;
}

void options_free(struct options *o) {
  free(o->flags);
  free(o->mounts);
  o->flags = NULL;
  o->mounts = NULL;
  o->nflags = 0;
}
