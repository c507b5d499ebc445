/* cloudabi-run: command line. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config/config.h"
#include "config/fsview.h"
#include "loader/elf_check.h"
#include "loader/prog_image.h"
#include "options.h"
#include "report.h"
#include "calls/path.h"
#include "supervisor/confine.h"
#include "host/inherited.h"
#include "supervisor/loop.h"
#include "supervisor/sup.h"
#include "calls/syscall_table.h"
#include "trace/trace.h"

static struct config_plan *parse_config(const struct options *o,
                                         const struct fsview *view);

/* The test tree builds this file again with a hook that attacks from
 * inside the confined supervisor (tests/confine/); never this binary. */
#ifndef CONFINE_TEST_HOOK
#define CONFINE_TEST_HOOK NULL
#define CONFINE_TEST_CAP NULL
#else
void CONFINE_TEST_HOOK(void);
int CONFINE_TEST_CAP(int abi);
#endif

/* Every failure to start exits 127, as upstream. */
#define EXIT_NOT_STARTED 127

/* The config, parsed, with the flags added; NULL after printing why not. */
static struct config_plan *read_config(const struct options *o,
                                        const struct fsview *view) {
  struct config_diags diags = {0};
  struct config_plan *plan = NULL;
  bool from_stdin = o->config == NULL && (o->nflags == 0 || o->config_stdin);
  if (o->config != NULL || from_stdin) {
    /* A terminal waiting for YAML looks like a hang: say what it wants. */
    if (from_stdin && !o->quiet && isatty(STDIN_FILENO))
      fprintf(stderr,
              "cloudabi-run: reading the config from standard input; give a "
              "file or flags (--dir, --file, --fd, --set), or end it with "
              "Ctrl-D\n");
    plan = parse_config(o, view);
    if (plan == NULL || o->nflags == 0)
      return plan;
  }
  plan = config_plan_add_flags(plan, o->flags, o->nflags, &diags);
  config_diags_print(&diags, stderr);
  config_diags_free(&diags);
  return plan;
}

/* The YAML config, from its file or standard input. */
static struct config_plan *parse_config(const struct options *o,
                                         const struct fsview *view) {
  const char *name = o->config != NULL ? o->config : "<stdin>";
  FILE *in = stdin;
  if (o->config != NULL && view != NULL) {
    bool ro;
    int cfd = fsview_open(view, o->config, O_RDONLY, true, &ro);
    if (cfd < 0 || (in = fdopen(cfd, "r")) == NULL) {
      fprintf(stderr, "cloudabi-run: %s: %s\n", o->config, strerror(errno));
      if (cfd >= 0)
        close(cfd);
      return NULL;
    }
  } else if (o->config != NULL && (in = fopen(o->config, "re")) == NULL) {
    fprintf(stderr, "cloudabi-run: %s: %s\n", o->config, strerror(errno));
    return NULL;
  }
  struct config_diags diags = {0};
  struct config_plan *plan = config_parse_file(in, name, &diags);
  if (in != stdin)
    fclose(in);
  config_diags_print(&diags, stderr);
  config_diags_free(&diags);
  return plan;
}

static uint64_t now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static int run(const struct options *opts);
static int run_scanned(const struct options *opts, struct inherited *inh,
                       const struct fsview *view);

int main(int argc, char **argv) {
  struct options o;
  switch (options_parse(argc, argv, &o, stdout, stderr)) {
  case OPTIONS_RUN:
    break;
  case OPTIONS_EXIT:
    options_free(&o);
    return 0;
  case OPTIONS_USAGE:
    options_free(&o);
    return EXIT_NOT_STARTED;
  }
  int status = run(&o);
  options_free(&o);
  return status;
}

static int make_view(const struct options *o, struct fsview *v);

static int run(const struct options *opts) {
  /* Before we open anything: what was inherited is what gets closed. */
  struct inherited inh;
  if (inherited_scan(&inh) != 0) {
    fprintf(stderr, "cloudabi-run: cannot list inherited descriptors: %s\n",
            strerror(errno));
    return EXIT_NOT_STARTED;
  }
  /* After the scan: the view's descriptors are ours, not inherited. */
  struct fsview view;
  fsview_init(&view);
  int status = EXIT_NOT_STARTED;
  if (opts->root == NULL || make_view(opts, &view) == 0)
    status = run_scanned(opts, &inh, opts->root != NULL ? &view : NULL);
  fsview_free(&view);
  inherited_close(&inh);
  return status;
}

/* "PATH:ro" is PATH, read-only; into buf. */
static bool strip_ro(const char *arg, char *buf, size_t size) {
  size_t len = strlen(arg);
  bool ro = len >= 3 && strcmp(arg + len - 3, ":ro") == 0;
  snprintf(buf, size, "%.*s", (int)(ro ? len - 3 : len), arg);
  return ro;
}

/* --root, --mount, --cwd as a view; 0, or -1 after saying why. */
static int make_view(const struct options *o, struct fsview *v) {
  char path[4096], why[4200];
  bool ro = strip_ro(o->root, path, sizeof(path));
  if (fsview_add(v, "/", path, ro, why, sizeof(why)) != 0) {
    fprintf(stderr, "cloudabi-run: --root: %s\n", why);
    return -1;
  }
  for (size_t i = 0; i < o->nmounts; i++) {
    const char *eq = strchr(o->mounts[i], '=');
    char dest[4096];
    snprintf(dest, sizeof(dest), "%.*s", (int)(eq - o->mounts[i]),
             o->mounts[i]);
    ro = strip_ro(eq + 1, path, sizeof(path));
    if (fsview_add(v, dest, path, ro, why, sizeof(why)) != 0) {
      fprintf(stderr, "cloudabi-run: --mount %s: %s\n", o->mounts[i], why);
      return -1;
    }
  }
  if (fsview_set_cwd(v, o->cwd != NULL ? o->cwd : "/") != 0) {
    fprintf(stderr, "cloudabi-run: out of memory\n");
    return -1;
  }
  return 0;
}

static int run_scanned(const struct options *opts, struct inherited *inh,
                       const struct fsview *view) {
  const struct options o = *opts;
  /* The program first: !executable in the config hands it out. */
  bool ro;
  int fd = view != NULL ? fsview_open(view, o.program, O_RDONLY, true, &ro)
                        : open(o.program, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    fprintf(stderr, "cloudabi-run: %s: %s\n", o.program, strerror(errno));
    return EXIT_NOT_STARTED;
  }
  char why[256];
  struct elf_info info;
  /* What is checked is what is loaded: a sealed copy (prog_image.h). */
  int image = prog_image_seal(fd, why, sizeof(why));
  if (image < 0 || elf_check(image, &info, why, sizeof(why)) != 0) {
    fprintf(stderr, "%s: not a CloudABI executable: %s\n", o.program, why);
    if (image >= 0)
      close(image);
    close(fd);
    return EXIT_NOT_STARTED;
  }
  struct config_plan *plan = read_config(opts, view);
  if (plan == NULL) {
    close(image);
    close(fd);
    return EXIT_NOT_STARTED;
  }
  struct config_diags diags = {0};
  struct launch_config lc;
  int e = config_open_view(plan, fd, o.plan ? CONFIG_OPEN_DRY_RUN : 0, view,
                           &lc, &diags);
  config_diags_print(&diags, stderr);
  config_diags_free(&diags);
  int status = EXIT_NOT_STARTED;
  if (e == 0 && o.plan) {
    struct confine_layers layers;
    confine_probe(&layers, CONFINE_TEST_CAP);
    char json[256], text[256];
    confine_layers_json(&layers, json, sizeof(json));
    confine_layers_text(&layers, text, sizeof(text));
    /* The text plan is about the program's grants; -v adds this. */
    struct plan_extra extra = {json, o.verbose ? text : NULL};
    if (plan_print(plan, &lc, o.plan_format, &extra, stdout) == 0)
      status = 0;
    else
      fprintf(stderr, "cloudabi-run: cannot write the plan: %s\n",
              strerror(errno));
  } else if (e == 0 && path_check_kernel(why, sizeof(why)) != 0) {
    fprintf(stderr, "cloudabi-run: %s\n", why);
  } else if (e == 0) {
    /* Opened now: the supervisor cannot open files once it is confined. */
    FILE *report = NULL;
    struct run_stats stats = {0};
    if (o.report != NULL && (report = fopen(o.report, "we")) == NULL) {
      fprintf(stderr, "cloudabi-run: --report: %s: %s\n", o.report,
              strerror(errno));
      goto out;
    }
    struct sup_options so = {.program_name = o.program,
                             .dispatch = dispatch,
                             .local_vdso = o.trace.local,
                             .limits = o.limits,
                             .verbose = o.verbose,
                             .after_confine = CONFINE_TEST_HOOK,
                             .landlock_abi_cap = CONFINE_TEST_CAP,
                             .deterministic = o.deterministic,
                             .seed = o.seed,
                             .stats_out = report != NULL ? &stats : NULL};
    if (o.trace.enabled) {
      so.trace_hooks = &trace_hooks;
      so.tracer = trace_open(&o.trace, why, sizeof(why));
      if (so.tracer == NULL)
        fprintf(stderr, "cloudabi-run: %s\n", why);
    }
    if (o.verbose) {
      size_t len;
      config_plan_argdata(plan, &len);
      fprintf(stderr,
              "cloudabi-run: running %s with %zu descriptor%s and %zu bytes "
              "of argument data (--plan lists them)\n",
              o.program, lc.nfds, lc.nfds == 1 ? "" : "s", len);
    }
    /* The grants are duplicates by now (config_open). */
    inherited_close(inh);
    uint64_t start = now_us();
    if (!o.trace.enabled || so.tracer != NULL)
      status = sup_run(&so, image, &lc);
    if (report != NULL) {
      struct run_report r = {.program = o.program,
                             .exit_status = status,
                             .wall_us = now_us() - start,
                             .limits = &o.limits,
                             .stats = &stats,
                             .seed = o.seed,
                             .deterministic = o.deterministic};
      if (report_write(&r, report) != 0)
        fprintf(stderr, "cloudabi-run: --report: %s: %s\n", o.report,
                strerror(errno));
    }
    if (o.verbose && (!o.trace.enabled || so.tracer != NULL))
      fprintf(stderr, "cloudabi-run: %s ended with status %d\n", o.program,
              status);
    trace_close(so.tracer);
  }
out:
  launch_config_free(&lc);
  config_plan_free(plan);
  close(image);
  close(fd);
  return status;
}
