/*
 * What mirrors.c (the records, taking mirrors back) and mirror_offer.c
 * (making them) share; see mirrors.h.
 */
#ifndef SUPERVISOR_MIRROR_RECORDS_H
#define SUPERVISOR_MIRROR_RECORDS_H

#include <stdbool.h>
#include <stdint.h>

#include "sup.h"

#define R(x) CLOUDABI_RIGHT_##x

/*
 * How an offer answers its call: not at all (the caller replies), through
 * the answer bytes of the call's I/O slot (trap.h), or bare, for a call
 * whose own result is 0 on success, so that the vDSO takes any mirror
 * number for an answer (sock_recv: the mirror is of the first descriptor
 * received).
 */
enum answer_kind { ANSWER_NONE, ANSWER_SLOT, ANSWER_BARE };
struct answer {
  enum answer_kind kind;
  uint64_t *bytes; /* ANSWER_SLOT's */
};

/* Installs src at gfd for c (SETFD), answering the call in the same step
 * unless ans says not to: 0, -1 with errno, or INSTALL_NO_MIRROR
 * (answered, but nothing installed; mirrors.c says when). */
#define INSTALL_NO_MIRROR 1
int mirror_install(struct call *c, int src, int gfd, const struct answer *ans);

/* What the kernel can enforce alone on cap (mirrors.c); probe: ask the
 * host how a socket's description blocks. */
cloudabi_rights_t mirror_rights(const struct sup *s,
                                const struct capability *cap, bool probe);
/* Whether a mirror of o is its blocking description. */
bool mirror_blocking(const struct hostobj *o);
/* Whether m still names what its capability grants. */
bool mirror_valid(const struct sup *s, struct gproc *p, const struct mirror *m);
/* Writes p's vDSO table entry for capfd; a failure only costs speed. */
void mirror_tell_vdso(struct sup *s, struct gproc *p, cloudabi_fd_t capfd,
                      uint16_t gfd);
/* Drops record i (the last moves to i). */
void mirror_forget(struct gproc *p, unsigned i);
/* The vDSO's use byte for capfd (trap.h, "Mirror use"), or NULL. */
uint8_t *mirror_use_byte(const struct gproc *p, cloudabi_fd_t capfd);
/* Counts a mirror made at file_open going back unused (open_misses). */
void mirror_count_use(struct gproc *p, const struct mirror *m);
/* Takes record i back on c's call (closed: the vDSO closed the number
 * itself); false if the process had to go. */
bool mirror_take_back(struct call *c, unsigned i, bool closed);
/* Takes back every record closed before c (mirrors_closed) but the one at
 * number keep (-1: none); false if the process had to go. */
bool mirror_settle_closed(struct call *c, int keep);

#endif
