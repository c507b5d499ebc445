/*
 * The supervisor confines itself before the first guest starts (so that
 * every guest process, forked from it or from one another, shares the
 * same Landlock domain and runs under both filters): no_new_privs, not
 * dumpable, a Landlock ruleset that allows file access only beneath what
 * the config granted, and a seccomp filter that allows only the system
 * calls the supervisor, its forked children before exec and the loader
 * stub make (confine_filter.c lists them, in one place).
 */
#ifndef CONFINE_H
#define CONFINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "config/launch.h"

/* Which layers are on (or would be, from confine_probe). */
struct confine_layers {
  bool no_new_privs;
  bool not_dumpable;
  int landlock_abi; /* 0: no Landlock; else the kernel's ABI version */
  bool landlock;    /* a ruleset is enforced */
  bool landlock_net, landlock_scoped; /* TCP rules (ABI 4), scopes (ABI 6) */
  bool seccomp;
  /* Why a layer is off, for --verbose; empty when all are on. */
  char missing[160];
};

/* What this kernel would give, changing nothing (for --plan).  abi_cap,
 * NULL but in the test tree, lowers the Landlock ABI seen, to test how
 * older kernels are handled (tests/confine/attack.c). */
void confine_probe(struct confine_layers *out, int (*abi_cap)(int abi));

/*
 * Applies every layer the kernel has.  A layer the kernel lacks is
 * skipped and named in out->missing; one that it has but refuses fails
 * the run: returns -1 with a message in why.  The launch config's
 * descriptors must still be open (they are the grants).
 */
int confine_self(const struct launch_config *lc, int (*abi_cap)(int abi),
                 struct confine_layers *out, char *why, size_t why_size);

/* The layers as one JSON object and as a line of text, for --plan. */
void confine_layers_json(const struct confine_layers *l, char *buf,
                         size_t size);
void confine_layers_text(const struct confine_layers *l, char *buf,
                         size_t size);

/* Loads the supervisor's own filter (confine_filter.h, built at build
 * time).  Returns 0, or -1 with a message in why. */
int confine_filter_install(char *why, size_t why_size);

#endif
