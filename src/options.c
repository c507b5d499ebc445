/* cloudabi-run's command line; see options.h. */
#include "options.h"

#include <getopt.h>
#include <string.h>

#ifndef CLOUDABI_RUN_VERSION
#define CLOUDABI_RUN_VERSION "unknown"
#endif

static void usage(FILE *f) {
  fprintf(f, "usage: cloudabi-run [OPTIONS] PROGRAM [CONFIG]\n"
             "Runs the CloudABI executable PROGRAM with the resources named in "
             "the YAML\nfile CONFIG (standard input if absent or \"-\").\n\n"
             "  --plan[=text|json]  print every descriptor the program would "
             "get, with its\n"
             "                      rights and where the config names it, and "
             "exit\n"
             "  -h, --help          show this help\n"
             "      --version       show the version\n");
}

enum options_result options_parse(int argc, char **argv, struct options *o,
                                  FILE *out, FILE *err) {
  enum { OPT_VERSION = 256, OPT_PLAN };
  static const struct option longopts[] = {
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, OPT_VERSION},
      {"plan", optional_argument, NULL, OPT_PLAN},
      {NULL, 0, NULL, 0},
  };
  memset(o, 0, sizeof(*o));
  o->plan_format = PLAN_TEXT;
  /* Keep getopt quiet: its messages would not say where they come from. */
  opterr = 0;
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
    switch (c) {
    case 'h':
      usage(out);
      return OPTIONS_EXIT;
    case OPT_VERSION:
      fprintf(out, "cloudabi-run %s\n", CLOUDABI_RUN_VERSION);
      return OPTIONS_EXIT;
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
    default:
      if (optopt != 0 && optopt < 256)
        fprintf(err, "cloudabi-run: unknown option -%c\n", optopt);
      else
        fprintf(err, "cloudabi-run: unknown option %s\n", argv[optind - 1]);
      usage(err);
      return OPTIONS_USAGE;
    }
  }
  if (optind >= argc || argc - optind > 2) {
    usage(err);
    return OPTIONS_USAGE;
  }
  o->program = argv[optind];
  if (argc - optind == 2 && strcmp(argv[optind + 1], "-") != 0)
    o->config = argv[optind + 1];
  return OPTIONS_RUN;
}
