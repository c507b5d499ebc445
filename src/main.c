/* cloudabi-run: command line. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_check.h"

static void usage(FILE *f) {
  fprintf(f, "usage: cloudabi-run [OPTIONS] PROGRAM [CONFIG]\n"
             "Runs the CloudABI executable PROGRAM with the resources named "
             "in the YAML\nfile CONFIG (standard input if absent).\n\n"
             "  -h, --help     show this help\n"
             "      --version  show the version\n");
}

int main(int argc, char **argv) {
  static const struct option longopts[] = {
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, 'V'},
      {NULL, 0, NULL, 0},
  };
  int c;
  while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
    switch (c) {
    case 'h':
      usage(stdout);
      return 0;
    case 'V':
      printf("cloudabi-run %s\n", CLOUDABI_RUN_VERSION);
      return 0;
    default:
      usage(stderr);
      return 127;
    }
  }
  if (optind >= argc || argc - optind > 2) {
    usage(stderr);
    return 127;
  }
  const char *program = argv[optind];
  int fd = open(program, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    fprintf(stderr, "cloudabi-run: %s: %s\n", program, strerror(errno));
    return 127;
  }
  char why[256];
  struct elf_info info;
  if (elf_check(fd, &info, why, sizeof(why)) != 0) {
    fprintf(stderr, "%s: not a CloudABI executable: %s\n", program, why);
    return 127;
  }
  printf("%s: CloudABI executable, entry 0x%llx, %zu loadable segments\n",
         program, (unsigned long long)info.entry, info.nload);
  return 0;
}
