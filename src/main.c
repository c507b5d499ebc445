/* cloudabi-run: command line. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_check.h"
#include "launch.h"
#include "sup.h"

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
  /* Until the YAML front end lands: {terminal: stdout, out: stdout}. */
  static const uint8_t ad[] = {0x06, 0x8a, 0x08, 't', 'e', 'r', 'm', 'i',
                               'n', 'a', 'l', 0x00, 0x85, 0x03, 0, 0,
                               0,    0,    0x85, 0x08, 'o', 'u', 't', 0x00,
                               0x85, 0x03, 0,    0,    0,   0};
  struct launch_config lc = {0};
  lc.argdata = malloc(sizeof(ad) + 1);
  memcpy(lc.argdata, ad, sizeof(ad));
  lc.argdata_len = sizeof(ad);
  lc.fds = calloc(1, sizeof(*lc.fds));
  lc.nfds = 1;
  lc.fds[0].host_fd = fcntl(1, F_DUPFD_CLOEXEC, 3);
  if (rights_for_host_fd(lc.fds[0].host_fd, &lc.fds[0].rights) != 0) {
    fprintf(stderr, "cloudabi-run: stdout: %s\n", strerror(errno));
    return 127;
  }
  struct sup_options opts = {.program_name = program};
  int status = sup_run(&opts, fd, &lc);
  launch_config_free(&lc);
  close(fd);
  return status;
}
