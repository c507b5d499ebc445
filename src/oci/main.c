/*
 * cloudabi-oci's command line, runc's shape: global options, a verb, its
 * options and the container id.  Options take "--name value" or
 * "--name=value" and may come before or after the id, as with runc's
 * command-line library.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oci.h"

#ifndef CLOUDABI_RUN_VERSION
#define CLOUDABI_RUN_VERSION "unknown"
#endif

/* One option of a verb: a flag (value NULL) or one with a value. */
struct opt {
  const char *name, *alias; /* "--bundle", "-b" */
  bool takes_value;
  const char **value; /* set to the value, or to "" for a flag */
};

/*
 * Picks argv's options out by the table and the rest into pos (at most
 * npos).  Unknown options are an error, except those in the table of
 * ignored ones (runc's flags that mean nothing here).  Returns the number
 * of positional arguments, or -1 after logging.
 */
static int scan(const struct oci_ctx *c, const char *verb, int argc,
                char **argv, const struct opt *opts, const char **pos,
                int npos) {
  int n = 0;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (a[0] != '-' || a[1] == '\0') {
      if (n == npos) {
        oci_log(&c->log, "error", "%s: unexpected argument \"%s\"", verb, a);
        return -1;
      }
      pos[n++] = a;
      continue;
    }
    const char *eq = strchr(a, '=');
    size_t len = eq != NULL ? (size_t)(eq - a) : strlen(a);
    const struct opt *o = opts;
    for (; o->name != NULL; o++)
      if ((strlen(o->name) == len && strncmp(a, o->name, len) == 0) ||
          (o->alias != NULL && strlen(o->alias) == len &&
           strncmp(a, o->alias, len) == 0))
        break;
    if (o->name == NULL) {
      oci_log(&c->log, "error", "%s: unknown option %s", verb, a);
      return -1;
    }
    if (!o->takes_value) {
      *o->value = "";
    } else if (eq != NULL) {
      *o->value = eq + 1;
    } else if (i + 1 < argc) {
      *o->value = argv[++i];
    } else {
      oci_log(&c->log, "error", "%s: option %s needs a value", verb, a);
      return -1;
    }
  }
  return n;
}

static int need_id(const struct oci_ctx *c, const char *verb, int n) {
  if (n >= 1)
    return 0;
  oci_log(&c->log, "error", "%s: no container id given", verb);
  return -1;
}

static int verb(const struct oci_ctx *c, const char *name, int argc,
                char **argv) {
  const char *pos[2] = {NULL, NULL}, *ignored = NULL;
  if (strcmp(name, "create") == 0) {
    struct oci_create_args a = {.bundle = "."};
    const struct opt opts[] = {
        {"--bundle", "-b", true, &a.bundle},
        {"--pid-file", NULL, true, &a.pid_file},
        {"--console-socket", NULL, true, &a.console_socket},
        {"--no-pivot", NULL, false, &ignored},
        {"--no-new-keyring", NULL, false, &ignored},
        {"--preserve-fds", NULL, true, &ignored},
        {NULL, NULL, false, NULL}};
    int n = scan(c, name, argc, argv, opts, pos, 1);
    if (n < 0 || need_id(c, name, n) != 0)
      return 1;
    a.id = pos[0];
    return oci_create(c, &a);
  }
  if (strcmp(name, "kill") == 0) {
    const char *all = NULL;
    const struct opt opts[] = {{"--all", "-a", false, &all},
                               {NULL, NULL, false, NULL}};
    int n = scan(c, name, argc, argv, opts, pos, 2);
    if (n < 0 || need_id(c, name, n) != 0)
      return 1;
    return oci_kill(c, pos[0], n > 1 ? pos[1] : "SIGTERM", all != NULL);
  }
  if (strcmp(name, "delete") == 0) {
    const char *force = NULL;
    const struct opt opts[] = {{"--force", "-f", false, &force},
                               {NULL, NULL, false, NULL}};
    int n = scan(c, name, argc, argv, opts, pos, 1);
    if (n < 0 || need_id(c, name, n) != 0)
      return 1;
    return oci_delete(c, pos[0], force != NULL);
  }
  if (strcmp(name, "ps") == 0) {
    const char *format = "table";
    const struct opt opts[] = {{"--format", "-f", true, &format},
                               {NULL, NULL, false, NULL}};
    int n = scan(c, name, argc, argv, opts, pos, 1);
    if (n < 0 || need_id(c, name, n) != 0)
      return 1;
    return oci_ps(c, pos[0], strcmp(format, "json") == 0);
  }
  if (strcmp(name, "start") == 0 || strcmp(name, "state") == 0) {
    const struct opt opts[] = {{NULL, NULL, false, NULL}};
    int n = scan(c, name, argc, argv, opts, pos, 1);
    if (n < 0 || need_id(c, name, n) != 0)
      return 1;
    return name[3] == 'r' ? oci_start(c, pos[0]) : oci_state(c, pos[0]);
  }
  if (strcmp(name, "features") == 0)
    return oci_features();
  if (strcmp(name, "exec") == 0 || strcmp(name, "pause") == 0 ||
      strcmp(name, "resume") == 0 || strcmp(name, "update") == 0 ||
      strcmp(name, "checkpoint") == 0 || strcmp(name, "restore") == 0 ||
      strcmp(name, "events") == 0 || strcmp(name, "run") == 0) {
    /* exec: a CloudABI program has only its config's descriptors, and a
     * second program in the container would have to be given some. */
    oci_log(&c->log, "error",
            "%s is not supported by cloudabi-oci (create, start, state, "
            "kill, delete, ps and features are)",
            name);
    return 1;
  }
  oci_log(&c->log, "error", "unknown command \"%s\"", name);
  return 1;
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: cloudabi-oci [--root DIR] [--log FILE] [--log-format "
          "text|json] COMMAND ...\n"
          "An OCI runtime for CloudABI programs: process.args[0] is the "
          "program and\nprocess.args[1] its YAML config, both inside the "
          "rootfs; cloudabi-run runs it.\n\n"
          "  create [--bundle DIR] [--pid-file FILE] ID\n"
          "  start ID\n"
          "  state ID\n"
          "  kill [--all] ID [SIGNAL]\n"
          "  delete [--force] ID\n"
          "  ps [--format table|json] ID\n"
          "  features\n"
          "  --version\n");
}

int main(int argc, char **argv) {
  struct oci_ctx c = {.root = "/run/cloudabi-oci"};
  const char *log_path = NULL, *log_format = "text", *ignored = NULL;
  const struct opt globals[] = {
      {"--root", NULL, true, &c.root},
      {"--log", NULL, true, &log_path},
      {"--log-format", NULL, true, &log_format},
      {"--debug", NULL, false, &ignored},
      {"--systemd-cgroup", NULL, false, &ignored},
      {"--rootless", NULL, true, &ignored},
      {"--criu", NULL, true, &ignored},
      /* podman --cgroups=disabled passes crun's --cgroup-manager disabled;
       * no cgroup is made in any case. */
      {"--cgroup-manager", NULL, true, &ignored},
      {NULL, NULL, false, NULL}};
  /* Global options run up to the verb. */
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--version") == 0 || strcmp(a, "-v") == 0) {
      printf("cloudabi-oci version %s\nspec: %s\n", CLOUDABI_RUN_VERSION,
             OCI_VERSION);
      return 0;
    }
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      return 0;
    }
    const char *pos[1];
    /* One option at a time, with its value if it takes one. */
    int take = strchr(a, '=') == NULL && i + 1 < argc ? 2 : 1;
    const struct opt *o = globals;
    for (; o->name != NULL; o++)
      if (strncmp(a, o->name, strlen(o->name)) == 0 &&
          (a[strlen(o->name)] == '\0' || a[strlen(o->name)] == '='))
        break;
    if (o->name != NULL && !o->takes_value)
      take = 1;
    if (scan(&c, "cloudabi-oci", take, argv + i, globals, pos, 0) != 0) {
      usage(stderr);
      return 1;
    }
    i += take - 1;
  }
  bool json = strcmp(log_format, "json") == 0;
  if (!json && strcmp(log_format, "text") != 0) {
    fprintf(stderr, "cloudabi-oci: --log-format: \"%s\" (text or json)\n",
            log_format);
    return 1;
  }
  if (oci_log_open(&c.log, log_path, json) != 0) {
    perror(log_path);
    return 1;
  }
  int status;
  if (i >= argc) {
    usage(stderr);
    status = 1;
  } else if (strcmp(argv[i], "version") == 0) {
    printf("cloudabi-oci version %s\nspec: %s\n", CLOUDABI_RUN_VERSION,
           OCI_VERSION);
    status = 0;
  } else {
    status = verb(&c, argv[i], argc - i - 1, argv + i + 1);
  }
  oci_log_close(&c.log);
  return status;
}
