/*
 * poll in the supervisor (src/poll.c): the subscriptions the vDSO cannot
 * handle itself, i.e. any with a descriptor (FD_READ, FD_WRITE,
 * PROC_TERMINATE), with any number of CLOCKs.  The rules are the vDSO's
 * (abi/vdso/poll.c):
 *   - a subscription that is invalid (unknown type; a lock or condition
 *     variable, which is only valid first and alone or with one clock and
 *     then never reaches us; an unknown clock) or whose descriptor is
 *     missing or lacks rights yields an event with an error, and if any
 *     does, poll returns at once with just those events (FreeBSD's kevent
 *     behaves so);
 *   - otherwise poll waits until something is ready and returns an event
 *     for everything that is, in subscription order.
 *
 * The pieces below are the parts that need no guest: a set of parsed
 * subscriptions (descriptors resolved once, clocks turned into deadlines
 * once), what is ready now, and what to wait for.
 */
#ifndef POLL_SET_H
#define POLL_SET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "host/captab.h"

/* The most subscriptions one poll may have; more is EINVAL.  56 bytes
 * each, so a set fits in the supervisor's scratch buffer. */
#define POLL_MAX_SUBSCRIPTIONS 65536

struct poll_sub {
  cloudabi_userdata_t userdata;
  cloudabi_eventtype_t type;
  cloudabi_errno_t error; /* found while parsing: reported as is */
  struct hostobj *obj;    /* FD_READ, FD_WRITE, PROC_TERMINATE: a reference */
  uint64_t deadline;      /* CLOCK: CLOCK_MONOTONIC ns */
};

struct poll_set {
  size_t n, nerrors;
  struct poll_sub sub[];
};

/* Parses n subscriptions (copied from the guest) against the descriptor
 * table fds of the process pid, for its thread tid (whose CPU-time clocks
 * CLOCK subscriptions may name).  NULL when out of memory. */
struct poll_set *poll_set_new(struct captab *fds,
                              const cloudabi_subscription_t *subs, size_t n,
                              pid_t pid, pid_t tid);
void poll_set_free(struct poll_set *set);

/* Writes the events of what is ready at time now (CLOCK_MONOTONIC ns) to
 * events[0..set->n), and returns how many; only errors if there are any. */
size_t poll_set_check(const struct poll_set *set, uint64_t now,
                      cloudabi_event_t *events);

/* What to wait for when nothing is ready: distinct host descriptors with
 * epoll events (into fds[0..set->n), returns how many) and the earliest
 * deadline (0 for none). */
struct park_fd;
size_t poll_set_waits(const struct poll_set *set, struct park_fd *fds,
                      uint64_t *deadline);

uint64_t poll_now(void);

#endif
