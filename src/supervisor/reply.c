/*
 * The supervisor's two ways out: answers to a trapped call (the errno
 * biased as abi/trap.h says, so the vDSO tells errors from results) and
 * one-line messages to the user.
 */
#include "reply.h"

#include <linux/seccomp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "trap.h"

void sup_msg(const struct sup *s, const char *fmt, ...) {
  (void)s;
  va_list ap;
  va_start(ap, fmt);
  fputs("cloudabi-run: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

bool call_is_valid(struct call *c) {
  uint64_t id = c->id;
  return ioctl(c->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

void sup_reply(int listener, uint64_t id, cloudabi_errno_t e, uint64_t value) {
  struct seccomp_notif_resp resp;
  memset(&resp, 0, sizeof(resp));
  resp.id = id;
  if (e == 0)
    resp.val = (int64_t)value;
  else
    resp.error = -(int32_t)(TRAP_ERRNO_BIAS + e);
  /* ENOENT: the thread died meanwhile; nobody is waiting. */
  ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}
