/*
 * One trapped CloudABI system call, from the notification to the answer.
 * Handlers get it, read and write guest memory through it, and set its
 * result; a handler that must wait parks it (see sup.h).
 */
#ifndef CALL_H
#define CALL_H

#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdint.h>

#include "host/captab.h"
#include "cloudabi_types.h"

struct sup;
struct gproc;

/* A handler's answer meaning "not yet: the call is parked". */
#define CALL_PARKED ((cloudabi_errno_t)0xffff)
/* ... meaning "no answer ever": the calling thread is being killed. */
#define CALL_ABANDONED ((cloudabi_errno_t)0xfffe)

struct park_obj;

struct call {
  struct sup *sup;
  struct gproc *proc;
  uint64_t id;            /* the notification's */
  int listener;           /* and the listener it came from */
  uint32_t tid;           /* the calling thread, a host tid */
  uint32_t sysno;         /* CloudABI syscall number */
  uint64_t args[6];       /* argument registers as the guest set them */
  struct capability *cap[7]; /* resolved descriptor arguments, by index */
  uint64_t result;        /* returned to the vDSO stub on success */
  /* sock_recv: the first descriptor it gave the guest, which may be
   * mirrored in the answer (supervisor/mirrors.h). */
  bool received;
  cloudabi_fd_t received_fd;
  /* Parking: what the call waits for (park.c). */
  bool parked; /* a heap copy on the supervisor's parked list */
  bool dead;   /* answered or abandoned; freed at the end of the round */
  struct call *next;
  int wait_fd;     /* a descriptor of its own (poll, edge waits), or -1 */
  struct park_obj *wait_obj; /* or the shared wait of one host object */
  struct call *next_waiter;  /* on wait_obj's list */
  uint64_t handle; /* its epoll data: a number looked up, never a pointer */
  uint32_t wait_events;
  unsigned wait_regs; /* descriptors in wait_fd's private set */
  size_t cost; /* bytes of state it holds while parked (budget, park.c) */
  uint64_t deadline_ns;   /* CLOCK_MONOTONIC; 0 for none */
  void *state;            /* handler-owned, freed with the call */
  uint64_t trace_start_ns; /* when a traced call arrived; 0: not traced */
  void (*state_free)(void *state); /* how; NULL: free() */
};

typedef cloudabi_errno_t call_handler_t(struct call *c);


#endif
