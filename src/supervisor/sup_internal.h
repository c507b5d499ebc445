/* Between the pieces of the supervisor: its event loop (sup.c), task
 * events (task_events.c), signals (interrupt.c) and process lifecycle
 * (procs.c); nothing outside src/supervisor/ should need these. */
#ifndef SUP_INTERNAL_H
#define SUP_INTERNAL_H

#include "sup.h"

void sup_msg(const struct sup *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void sup_reply(int listener, uint64_t id, cloudabi_errno_t e, uint64_t value);
/* A new listener in the epoll set (taking fd), or NULL. */
struct listener *sup_listener_add(struct sup *s, int fd);
void sup_listener_unref(struct sup *s, struct listener *l);
/* Handles every pending ptrace event and exit (task_events.c). */
void sup_reap(struct sup *s);

/* The supervisor's own signals (interrupt.c). */
int interrupt_setup(struct sup *s);
void interrupt_teardown(void);
bool interrupt_pending(void);
/* Forwards SIGINT/SIGTERM/SIGHUP to the program, reaps on SIGCHLD. */
void interrupt_handle(struct sup *s);
/* RECV on fd that a signal interrupts; true if n holds a notification. */
struct seccomp_notif;
bool interrupt_recv(int fd, struct seccomp_notif *n, size_t size);

/* A guest process forked: child is stopped; give it a process record. */
void procs_forked(struct sup *s, struct gproc *parent, pid_t child);
void procs_free(struct sup *s, struct gproc *p);
/* Its last thread is gone. */
void procs_exited(struct sup *s, struct gproc *p);

#endif
