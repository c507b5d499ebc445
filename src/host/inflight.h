/*
 * Descriptors in flight between guests.  A descriptor a guest sends over a
 * socket travels as its host descriptor (SCM_RIGHTS), which says nothing
 * of the capability's rights or CloudABI type; the supervisor, which
 * performs every guest sock_send, records them here, and the sock_recv
 * that takes the descriptor out of the socket finds them again by the
 * open file description (kcmp), so that passing never widens a right.
 *
 * Only sends to a peer that may be inside this supervisor are recorded (a
 * host peer gets the real descriptor and does what it likes with it).  A record
 * holds a reference to the sender's object until the descriptor is
 * received, so their number is bounded: INFLIGHT_MAX per run.
 */
#ifndef HOST_INFLIGHT_H
#define HOST_INFLIGHT_H

#include <stddef.h>
#include <sys/types.h>

#include "captab.h"

#define INFLIGHT_MAX 4096

struct inflight_rec {
  struct hostobj *obj; /* a reference */
  cloudabi_rights_t base, inheriting;
  dev_t dev; /* a cheap filter before kcmp */
  ino_t ino;
};

struct inflight {
  struct inflight_rec *recs; /* oldest first */
  size_t n, cap;
  pid_t self;
};

void inflight_init(struct inflight *f);
void inflight_free(struct inflight *f);

/* Whether a socket's peer may be this supervisor itself: a pair it made,
 * or a datagram socket whose peer the kernel does not name. */
bool inflight_peer_is_self(const struct inflight *f, int sockfd);

/* Records caps[0..n) as sent, newest last: 0, EMFILE over budget, ENOMEM. */
cloudabi_errno_t inflight_push(struct inflight *f,
                               struct capability *const *caps, size_t n);
/* Forgets the newest n records (their send failed). */
void inflight_drop_newest(struct inflight *f, size_t n);

/*
 * For a descriptor just received: NULL if it was never recorded, else the
 * object it was sent as (a new reference) with the rights it was sent
 * with, the intersection of every record of the same open file
 * description, so that an ambiguity can only narrow.  consume removes the
 * oldest such record (not when peeking, which leaves the message).
 */
struct hostobj *inflight_take(struct inflight *f, int fd, bool consume,
                              cloudabi_rights_t *base,
                              cloudabi_rights_t *inheriting);

#endif
