/* The supervisor's own signals (interrupt.c). */
#ifndef INTERRUPT_H
#define INTERRUPT_H

#include <stdbool.h>
#include <stddef.h>

#include "sup.h"

struct seccomp_notif;

/* Catches SIGCHLD, SIGINT, SIGTERM and SIGHUP; s->sigfd becomes the
 * wake-up pipe's read end.  -1 with errno on failure. */
int interrupt_setup(struct sup *s);
void interrupt_teardown(void);
bool interrupt_pending(void);
/* Forwards SIGINT/SIGTERM/SIGHUP to the program, reaps on SIGCHLD. */
void interrupt_handle(struct sup *s);
/* RECV on fd that a signal interrupts; true if n holds a notification,
 * else errno says why (ENOENT: none came, EINTR: a signal). */
bool interrupt_recv(int fd, struct seccomp_notif *n, size_t size);

#endif
