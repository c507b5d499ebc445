/*
 * I/O on host objects that never blocks the supervisor: sockets get
 * MSG_DONTWAIT, pipes and terminals are reopened as our own non-blocking
 * open file descriptions (so the mode of a description shared with the
 * user's shell is left alone), regular files do not block.  Whether the
 * guest sees EAGAIN or waits is the handler's decision (its NONBLOCK flag).
 */
#ifndef HOSTIO_H
#define HOSTIO_H

#include <sys/types.h>
#include <sys/uio.h>

#include "captab.h"
#include "rights.h"

/* Prepares a new host object for non-blocking use (reopening pipes and
 * character devices when possible). */
void hostio_prepare(struct hostobj *obj);
/* The same with what rights_for_host_fd_probe learnt of obj->fd. */
void hostio_prepare_probed(struct hostobj *obj, const struct host_probe *p);

/* Like readv/writev: bytes moved, or -errno (-EAGAIN: would block). */
ssize_t hostio_readv(struct hostobj *obj, const struct iovec *iov, int n);
ssize_t hostio_writev(struct hostobj *obj, const struct iovec *iov, int n);

#endif
