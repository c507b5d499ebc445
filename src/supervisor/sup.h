/*
 * The supervisor's state, shared by its pieces: one event loop (loop.c)
 * over the seccomp listeners (listener.c), the guest tasks' ptrace events
 * (task_events.c) and whatever parked calls wait for (park.c).  All state
 * is in struct sup, passed explicitly; nothing is global but what a
 * signal handler needs (interrupt.c).  Functions live in the header of
 * the piece that defines them.
 */
#ifndef SUP_H
#define SUP_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "call.h"
#include "host/captab.h"
#include "host/inflight.h"
#include "limits.h"
#include "stats.h"
#include "config/launch.h"
#include "loader/filter.h"
#include "tracer.h"
#include "trap.h"
#include "loader/vdso_info.h"

/* A seccomp listener: one per process the loader started, shared by the
 * processes forked from it (they inherit its filter). */
struct listener {
  int fd;
  unsigned refcount;
  unsigned index; /* in sup.listeners */
  /* No task runs under its filter any more (the last one is exiting):
   * RECV would return ENOENT at once, forever, so the loop leaves it
   * alone until its processes are reaped (listener.c). */
  bool hung;
  bool recv_failed; /* its last blocking RECV came back with nothing */
};

/* A descriptor lent to the guest for mem_map (lends.h). */
struct lend {
  uint64_t id;   /* the notification of the mem_map that lent it */
  pid_t tid;     /* the thread it was lent to; 0: none, due at any call */
  int gfd;       /* its number in the guest */
  cloudabi_fd_t capfd; /* the capability it came from ... */
  /* ... whose object it must still be (a reference, dropped with the
   * record: it also keeps the pointer from being reused), NULL for an
   * inherited one; and the rights it must keep. */
  struct hostobj *obj;
  cloudabi_rights_t rights;
};

/* At most this many lends outstanding per process; mem_map is EMFILE
 * beyond.  The vDSO closes each at once, and each thread's next call
 * drops its own, so a program reaches this only by keeping them from
 * many threads. */
#define SUP_MAX_LENDS 64
struct lends {
  struct lend at[SUP_MAX_LENDS];
  unsigned n;
};

/* A mirrored descriptor (mirrors.h). */
struct mirror {
  cloudabi_fd_t capfd; /* the capability it mirrors ... */
  int gfd;             /* its number in the guest */
  /* ... whose object it must still be (a reference) and the rights it
   * must still have: FD_READ, FD_WRITE, FD_SEEK, as gfd's number says. */
  struct hostobj *obj;
  cloudabi_rights_t rights;
  bool blocking; /* obj's blocking_fd, for a capability without NONBLOCK */
  bool nonblock; /* obj's NONBLOCK when it was made (mirrorable's probe) */
  bool at_open;  /* made by file_open's answer (trap.h) */
  /* Closed by the vDSO before a file_open, whose answer may put its new
   * mirror at this number (mirrors.c, settle_closed): taken back before
   * that call is answered either way. */
  bool closed;
};

struct mirrors {
  struct mirror *at; /* malloc'ed, n used of size */
  unsigned n, size;
  uint64_t used[MIRROR_HIGH / 64]; /* numbers of live records */
  unsigned cursor[MIRROR_RANGES]; /* next index to try, by set of rights (trap.h) */
  /* A forked child's: numbers it may hold from its parent, taken back at
   * its first call. */
  bool inherited;
  uint64_t stale[MIRROR_HIGH / 64];
  /* Mirrors made at file_open and taken back unused, in a row (the
   * vDSO's use byte, trap.h; the file offset still 0 for descriptors
   * beyond those bytes): a program that opens without reading or
   * stat-ing through the mirror (to check a path) pays for its take-back
   * for nothing, so past a few it gets mirrors at the second read only,
   * but for one open in 16, in case it has moved on. */
  unsigned open_misses, opens_skipped;
  unsigned closed; /* records with .closed set */
};

struct gproc {
  pid_t pid; /* thread group id */
  pid_t forked_as; /* what its parent's proc_fork names: pid, or the pid
                      of the process it exec'd from (procs.c) */
  unsigned number; /* small, for messages and traces; 1 for the first */
  struct captab fds;
  struct listener *listener;
  struct procinfo *info; /* shared with process descriptors naming it */
  struct gproc *parent;  /* that forked it, until it claims the child */
  bool exited;           /* gone, kept only for that claim */
  char *ioslots;      /* our mapping of its I/O slots, or NULL */
  uint64_t vdso_base; /* where its vDSO is, from its start-up call */
  struct lends lends; /* lent descriptors not yet known to be gone */
  struct mirrors mirrors;
  unsigned nthreads; /* of those traced (tidmap) */
  /* At least how many threads it has: the first, plus every clone let
   * through, until a count at the thread limit says fewer (adopt.c). */
  unsigned threads_bound;
  /* Why it died, when the supervisor knows better than the wait status. */
  int killed_for_syscall; /* Linux syscall number + 1, or 0 */
  bool killed_for_threads; /* it made more than SUP_MAX_THREADS */
  int killed_by_signal; /* a crash the supervisor ended it for (crash.c) */
  uint64_t killed_at_ip;
  struct gproc *next;
};

/* A traced guest task: a process's first thread, a forked child, or a
 * thread from its first notification on (adopt.h). */
struct gthread {
  pid_t tid;
  struct gproc *proc;
  bool stopped_unknown;  /* a forked child stopped before its fork event */
};

/* Open-addressed tid -> thread map. */
struct tidmap {
  struct gthread **slots;
  size_t size, count;
};

struct sup_options {
  const char *program_name; /* for messages */
  bool quiet;
  /* The calls layer's entry: resolves a call's descriptors, runs its
   * handler (ENOSYS for a number without one). */
  call_handler_t *dispatch;
  bool local_vdso; /* map the tracing vDSO (--trace=local) */
  struct tracer *tracer; /* open, owned by the caller; NULL: no trace */
  const struct sup_trace_hooks *trace_hooks; /* with tracer */
  struct run_limits limits;
  bool verbose; /* say which confinement layers are missing */
  /* Called once the supervisor is confined, before the guest starts:
   * NULL but in the test tree's attack binary (tests/confine/). */
  void (*after_confine)(void);
  int (*landlock_abi_cap)(int abi); /* test tree only: confine_probe */
  struct run_stats *stats_out; /* filled in when the run ends; or NULL */
  /* --deterministic: virtual clocks and a random stream from seed
   * (abi/vdso/det.h), set up in each process the supervisor starts. */
  bool deterministic;
  uint64_t seed;
};

struct sup {
  const struct sup_options *opts;
  struct vdso_info vdso;
  int epfd;
  int sigfd; /* SIGCHLD */
#define SUP_MAX_LISTENERS 256
  struct listener *listeners[SUP_MAX_LISTENERS];
  unsigned next_listener;
  unsigned nlisteners;
  struct listener *single; /* the only listener, when there is one */
#define SUP_MAX_ACCEPTORS 256
  struct acceptor *acceptors[SUP_MAX_ACCEPTORS]; /* acceptor.h */
  unsigned nprocs, next_number;
/* Exited children whose parent has not claimed them, kept for the claim. */
#define SUP_MAX_UNCLAIMED 32
  unsigned nunclaimed;
  struct filter_prog filter;
  bool reap_pending; /* wait statuses to collect without a SIGCHLD */
  size_t notif_size, resp_size;
  struct gproc *procs;
  struct tidmap threads;
  pid_t main_pid;
  bool main_done;
  bool batch; /* we run SCHED_BATCH, the guests SCHED_OTHER (loop.c) */
  /* A terminating signal was forwarded: stops are no longer kept. */
  bool ending;
  int exit_status; /* what cloudabi-run exits with */
  bool time_up;     /* --time-limit ended the run */
  cpu_set_t cpus;   /* our CPUs at start, the guests' once they boot */
  unsigned notes;   /* TRAP_NR_NOTE notes printed (at most TRAP_NOTE_COUNT) */
  uint64_t disk_added; /* bytes writes added to files (--disk-limit) */
  struct run_stats stats; /* for --report */
  struct call *parked; /* calls waiting, in no particular order */
  struct call *dead;   /* unparked calls, freed after the current round */
  unsigned nparked;
  uint64_t park_serial; /* the last parked call's handle, less EV_PARKED */
  struct park_obj *park_objs; /* host objects parked calls wait on */
  /* What parked calls hold, against the budgets in park.h. */
  size_t parked_bytes;
  unsigned park_fds, park_regs;
  struct inflight inflight; /* descriptors passed between guests */
  void *scratch; /* GUESTMEM_MAX_IO bytes for copying guest data */
  void *notif;   /* a struct seccomp_notif of the kernel's size */
  /* What revoked lends are replaced with: the read end of a pipe whose
   * write end is closed, which maps nothing (ENODEV); -1 when lends
   * cannot be revoked (no kcmp), and so are not made (lends.c). */
  int inert_fd;
  /* What taken-back mirrors become: an epoll instance, on which read and
   * write fail with EINVAL (so the vDSO falls back to trapping); -1 when
   * no mirrors are made. */
  int mirror_inert_fd;
  bool mirrors_off; /* installing one failed: no more are made */
  /* The hard RLIMIT_NOFILE leaves no room for stat mirrors' numbers
   * (MIRROR_STAT and above): mirrors without that bit only. */
  bool mirrors_no_stat;
  bool mirrors_no_send; /* no SECCOMP_ADDFD_FLAG_SEND (Linux < 5.14) */
  pid_t self_pid; /* ours, for kcmp */
  struct tracer *trace; /* NULL unless --trace */
  const struct sup_trace_hooks *trace_hooks;
};

/* A buffer of GUESTMEM_MAX_IO bytes, valid until the handler returns. */
static inline void *sup_scratch(struct sup *s) { return s->scratch; }

#endif
