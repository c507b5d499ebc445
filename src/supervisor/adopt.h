/*
 * Threads the supervisor does not stop at their creation (adopt.c).  A
 * guest's clone comes past it as a notification: it counts the thread
 * against the limit and lets the kernel carry the call out.  The new
 * thread then runs untraced, which costs it nothing (the filter and the
 * notifications hold it as they hold every thread, and the vDSO's handler
 * turns faults in its copy routine into EFAULT), until it makes its first
 * notified call.  There the supervisor learns its process and seizes it,
 * so that its exit is reported and its tid cannot be reused unseen.
 */
#ifndef ADOPT_H
#define ADOPT_H

#include <linux/seccomp.h>

#include "sup.h"

/* The process of the thread that sent n, traced from now on; NULL if it
 * is none of ours or already gone. */
struct gproc *adopt_thread(struct sup *s, int listener,
                           const struct seccomp_notif *n);
/* A clone from proc (NULL if unknown): a thread (THREAD_CLONE_FLAGS) or
 * proc_fork's child (SIGCHLD, whose creator is traced and so stops for
 * the fork event).  Answered here. */
void adopt_clone(struct sup *s, int listener, const struct seccomp_notif *n,
                 struct gproc *proc);

#endif
