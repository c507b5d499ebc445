/*
 * Built-in acceptors: !socket {bind: ADDR, accept: true}.  CloudABI has
 * no accept; a program receives connections as descriptors.  So the
 * supervisor keeps the listening socket and hands the program one end of
 * a SOCK_SEQPACKET pair instead, seen as a stream socket.  Each message on
 * it carries one accepted connection (SCM_RIGHTS) and, as data, the peer's
 * address as text: "127.0.0.1:50312", "[::1]:50312", a Unix path ("@name"
 * if abstract), or the listening path when the peer has none.
 *
 * Back-pressure: at most one connection waits in the pair; the rest stay
 * in the kernel's backlog.  The supervisor accepts when the pair is empty
 * and either a program asks (sock_recv, fd_read, a poll on its end: pulled
 * in the call itself, so the loop's fast path stays) or, while calls are
 * parked, when the listener is readable (its epoll entry, armed only then).
 * A plain sock_recv that finds the pair empty gets its connection straight
 * from accept4, in the message the pair would have carried, with no
 * hand-over through the pair (acceptor_take).
 * A client gone before its hand-over is dropped.  When the program's end
 * goes (last reference), the listener is closed.
 */
#ifndef ACCEPTOR_H
#define ACCEPTOR_H

#include "host/rights.h"
#include "sup.h"

/* epoll data of acceptor i's listener (listener.h has the others). */
#define EV_ACCEPTOR ((uint64_t)1 << 20)

/* The program's end of a new acceptor over listen_fd (taken, even on
 * failure), an object of type SOCKET_STREAM; NULL with errno. */
struct hostobj *acceptor_open(struct sup *s, int listen_fd);

/* Hands over a connection if the pair is empty and one is waiting; a
 * no-op for an object that is not an acceptor's end. */
void acceptor_feed(struct hostobj *obj);

/*
 * What a descriptor received on end is, if end is an acceptor's: only the
 * acceptor sends into that pair, and only what accept4 gave it, so the
 * descriptor is one of its listener's connections, with the rights of a
 * stream socket, and needs no probing (fstat, fcntl, getsockopt).  False
 * for any other object.
 */
bool acceptor_connection(const struct hostobj *end, struct fd_rights *rights,
                         struct host_probe *probe);

/* The most a peer's text takes (a Unix path and a little). */
#define ACCEPTOR_TEXT_MAX 120

/*
 * For a receive on end that found its pair empty: a connection straight
 * from the listener, as the pair would have carried it (its descriptor,
 * the peer's text in text, *len bytes), which spares handing it over
 * through the pair; -1 if none waits or end is not an acceptor's.
 */
int acceptor_take(struct hostobj *end, char *text, size_t size, size_t *len);

/* After such a receive: the listener is watched instead of the pair fed,
 * so that a connection goes to a call parked on end (through the pair),
 * and otherwise to the next receive, straight. */
void acceptor_watch(struct hostobj *end);

/* Acceptor i's listener is readable (the loop's EV_ACCEPTOR + i). */
void acceptor_event(struct sup *s, uint64_t i);

/* Closes what is left (their program ends are gone with the processes). */
void acceptors_teardown(struct sup *s);

#endif
