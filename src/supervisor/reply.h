/* Answers to the guest and messages to the user (reply.c). */
#ifndef REPLY_H
#define REPLY_H

#include <stdbool.h>
#include <stdint.h>

#include "call.h"
#include "cloudabi_types.h"

struct sup;

/* "cloudabi-run: " and the message, on standard error. */
void sup_msg(const struct sup *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Answers notification id on listener: e, or the result value. */
void sup_reply(int listener, uint64_t id, cloudabi_errno_t e, uint64_t value);
/* Checks that the notification is still pending: the calling thread is
 * alive and still in this call. */
bool call_is_valid(struct call *c);

#endif
