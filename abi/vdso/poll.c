/*
 * poll: what can be done in the guest is done here; the rest traps.
 *   - A lock or condition variable wait (the first subscription, alone or
 *     followed by one CLOCK, as cloudabi.txt requires) happens here with
 *     futexes (locks.c).  As the reference implementation does, it yields
 *     exactly one event: the clock's if the timeout came first, else the
 *     lock's or condition variable's (with an error if the wait failed).
 *   - Subscriptions that are all CLOCKs (or invalid) sleep here.
 *   - Anything with a descriptor (FD_READ, FD_WRITE, PROC_TERMINATE) goes
 *     to the supervisor (src/calls/poll.c), which follows the same rules.
 * Rules shared with the supervisor: an invalid subscription (unknown type,
 * a lock or condition variable anywhere else, an unknown clock) yields an
 * event with error EINVAL, and if any subscription has an error the call
 * returns at once with only those events, as FreeBSD's kevent does.
 * Otherwise poll waits until something is ready and returns every event
 * that is, in subscription order.
 */
#include "cloudabi_syscalls.h"
#include "det.h"
#include "futex.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"

/* Clock-only polls larger than this go to the supervisor. */
#define LOCAL_CLOCKS_MAX 32
/* The most subscriptions a poll may have (as in src/calls/poll.c). */
#define POLL_MAX 65536

static bool is_futex_type(cloudabi_eventtype_t type) {
  return type == CLOUDABI_EVENTTYPE_CONDVAR ||
         type == CLOUDABI_EVENTTYPE_LOCK_RDLOCK ||
         type == CLOUDABI_EVENTTYPE_LOCK_WRLOCK;
}

static bool has_descriptor(cloudabi_eventtype_t type) {
  return type == CLOUDABI_EVENTTYPE_FD_READ ||
         type == CLOUDABI_EVENTTYPE_FD_WRITE ||
         type == CLOUDABI_EVENTTYPE_PROC_TERMINATE;
}

static void set_event(cloudabi_event_t *ev, const cloudabi_subscription_t *s,
                      cloudabi_errno_t error) {
  *ev = (cloudabi_event_t){
      .userdata = s->userdata, .error = error, .type = s->type};
}

/* A lock or condition variable, perhaps with a timeout. */
static void poll_futex(const cloudabi_subscription_t *in, size_t n,
                       cloudabi_event_t *out) {
  const cloudabi_subscription_t *s = &in[0];
  struct vdso_deadline d = {VDSO_NO_DEADLINE, 0};
  cloudabi_errno_t e = 0;
  if (n == 2)
    e = vdso_deadline_of(&in[1], &d);
  if (e == 0) {
    switch (s->type) {
    case CLOUDABI_EVENTTYPE_CONDVAR:
      if (!vdso_scope_valid(s->condvar.condvar_scope) ||
          !vdso_scope_valid(s->condvar.lock_scope))
        e = CLOUDABI_EINVAL;
      else
        e = vdso_condvar_wait((uint32_t *)s->condvar.condvar,
                              s->condvar.condvar_scope,
                              (uint32_t *)s->condvar.lock, vdso_gettid(), &d);
      break;
    case CLOUDABI_EVENTTYPE_LOCK_RDLOCK:
    case CLOUDABI_EVENTTYPE_LOCK_WRLOCK:
      if (!vdso_scope_valid(s->lock.lock_scope) ||
          ((uintptr_t)s->lock.lock & 3) != 0)
        e = CLOUDABI_EINVAL;
      else if (s->type == CLOUDABI_EVENTTYPE_LOCK_RDLOCK)
        e = vdso_lock_rdlock((uint32_t *)s->lock.lock, &d);
      else
        e = vdso_lock_wrlock((uint32_t *)s->lock.lock, vdso_gettid(), &d);
      break;
    }
  }
  if (e == CLOUDABI_ETIMEDOUT && n == 2)
    set_event(out, &in[1], 0);
  else
    set_event(out, s, e);
}

/* The deadline on CLOCK_MONOTONIC that d stands for now. */
static uint64_t monotonic_equivalent(const struct vdso_deadline *d,
                                     uint64_t now_mono, uint64_t now_real) {
  if (d->clock == CLOCK_MONOTONIC)
    return d->ns;
  return d->ns > now_real ? vdso_add_sat(now_mono, d->ns - now_real) : now_mono;
}

/* Only CLOCK subscriptions and invalid ones; n <= LOCAL_CLOCKS_MAX. */
static size_t poll_clocks(const cloudabi_subscription_t *in, size_t n,
                          cloudabi_event_t *out) {
  struct vdso_deadline d[LOCAL_CLOCKS_MAX];
  size_t nerrors = 0;
  for (size_t i = 0; i < n; i++) {
    cloudabi_errno_t e = in[i].type == CLOUDABI_EVENTTYPE_CLOCK
                             ? vdso_deadline_of(&in[i], &d[i])
                             : CLOUDABI_EINVAL;
    if (e != 0)
      set_event(&out[nerrors++], &in[i], e);
  }
  if (nerrors > 0)
    return nerrors;
  for (;;) {
    uint64_t mono = vdso_now(CLOCK_MONOTONIC);
    uint64_t real = vdso_now(CLOCK_REALTIME);
    size_t k = 0, first = 0;
    uint64_t first_at = UINT64_MAX;
    for (size_t i = 0; i < n; i++) {
      uint64_t now = d[i].clock == CLOCK_REALTIME ? real : mono;
      if (now >= d[i].ns) {
        set_event(&out[k++], &in[i], 0);
        continue;
      }
      uint64_t at = monotonic_equivalent(&d[i], mono, real);
      if (at < first_at) {
        first_at = at;
        first = i;
      }
    }
    if (k > 0)
      return k;
    if (vdso_det_on()) {
      /* Nothing but time can end this sleep: it passes at once. */
      vdso_det_advance_to(first_at);
      continue;
    }
    /* Sleep until the earliest, on its own clock. */
    struct vdso_timespec ts = vdso_timespec_of(d[first].ns);
    vdso_syscall6(SYS_clock_nanosleep, d[first].clock, TIMER_ABSTIME, (long)&ts,
                  0, 0, 0);
  }
}

/*
 * --deterministic, a poll the supervisor performs (one with descriptors):
 * it waits in real time, so its clocks go to it as timeouts relative to
 * virtual now, and a timeout that fires moves virtual time to its
 * deadline.  Larger polls keep their clocks as given (README).
 */
static cloudabi_errno_t det_poll(const cloudabi_subscription_t *in,
                                 cloudabi_event_t *out, size_t n,
                                 size_t *nevents) {
  cloudabi_subscription_t subs[LOCAL_CLOCKS_MAX];
  cloudabi_event_t evs[LOCAL_CLOCKS_MAX];
  uint64_t at[LOCAL_CLOCKS_MAX];
  if (vdso_copy(subs, in, n * sizeof(subs[0])) != 0)
    return CLOUDABI_EFAULT;
  uint64_t mono = vdso_now(CLOCK_MONOTONIC);
  uint64_t real = vdso_now(CLOCK_REALTIME);
  for (size_t i = 0; i < n; i++) {
    struct vdso_deadline d;
    at[i] = 0;
    if (subs[i].type != CLOUDABI_EVENTTYPE_CLOCK ||
        vdso_deadline_of(&subs[i], &d) != 0)
      continue; /* the supervisor says what is wrong with it */
    uint64_t now = d.clock == CLOCK_REALTIME ? real : mono;
    at[i] = monotonic_equivalent(&d, mono, real);
    subs[i].clock.timeout = d.ns > now ? d.ns - now : 0;
    subs[i].clock.flags &= (cloudabi_subclockflags_t)~CLOUDABI_SUBSCRIPTION_CLOCK_ABSTIME;
    subs[i].clock.clock_id = CLOUDABI_CLOCK_MONOTONIC;
  }
  long r = vdso_trap(CLOUDABI_SYS_poll, (long)subs, (long)evs, (long)n, 0, 0, 0);
  if (r < 0)
    return vdso_trap_errno(r);
  size_t k = (size_t)r <= n ? (size_t)r : n;
  for (size_t j = 0; j < k; j++) {
    if (evs[j].type != CLOUDABI_EVENTTYPE_CLOCK || evs[j].error != 0)
      continue;
    for (size_t i = 0; i < n; i++)
      if (subs[i].type == CLOUDABI_EVENTTYPE_CLOCK &&
          subs[i].userdata == evs[j].userdata && at[i] != 0)
        vdso_det_advance_to(at[i]);
  }
  if (vdso_copy(out, evs, k * sizeof(evs[0])) != 0)
    return CLOUDABI_EFAULT;
  *nevents = k;
  return 0;
}

VDSO_EXPORT cloudabi_errno_t
cloudabi_sys_poll(const cloudabi_subscription_t *in, cloudabi_event_t *out,
                  size_t nsubscriptions, size_t *nevents) {
  size_t n = nsubscriptions;
  if (n == 0) {
    *nevents = 0;
    return 0;
  }
  if (n > POLL_MAX)
    return CLOUDABI_EINVAL;
  if (n <= LOCAL_CLOCKS_MAX) {
    /* Copied in and out through vdso_copy, so that bad pointers give
     * EFAULT (io.c) rather than a crash in the vDSO. */
    cloudabi_subscription_t subs[LOCAL_CLOCKS_MAX];
    cloudabi_event_t evs[LOCAL_CLOCKS_MAX];
    if (vdso_copy(subs, in, n * sizeof(subs[0])) != 0)
      return CLOUDABI_EFAULT;
    size_t k;
    bool local = true;
    if (is_futex_type(subs[0].type) &&
        (n == 1 || (n == 2 && subs[1].type == CLOUDABI_EVENTTYPE_CLOCK))) {
      poll_futex(subs, n, evs);
      k = 1;
    } else {
      for (size_t i = 0; local && i < n; i++)
        local = !has_descriptor(subs[i].type);
      k = local ? poll_clocks(subs, n, evs) : 0;
    }
    if (local) {
      if (vdso_copy(out, evs, k * sizeof(evs[0])) != 0)
        return CLOUDABI_EFAULT;
      *nevents = k;
      return 0;
    }
  }
  if (vdso_det_on() && n <= LOCAL_CLOCKS_MAX)
    return det_poll(in, out, n, nevents);
  long r = vdso_trap(CLOUDABI_SYS_poll, (long)in, (long)out, (long)n, 0, 0, 0);
  if (r < 0)
    return vdso_trap_errno(r);
  *nevents = (size_t)r;
  return 0;
}
