/* Socket I/O that fd_read and fd_write share with sock_* (sock.c). */
#ifndef CALLS_SOCK_H
#define CALLS_SOCK_H

#include <sys/types.h>
#include <sys/uio.h>

#include "supervisor/call.h"

/* A guest's plain read of a socket: ends where a message with descriptors
 * begins, and drops the descriptors of the message (with their in-flight
 * records).  Bytes, or -errno. */
ssize_t sock_read(struct call *c, struct hostobj *obj, struct iovec *buf);
/* A guest wrote n bytes into obj: counted for the other end's marks. */
void sock_sent(struct hostobj *obj, size_t n);

#endif
