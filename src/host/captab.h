/*
 * A guest process's descriptor table: guest descriptor numbers to
 * capabilities, i.e. a host object plus the rights this descriptor
 * carries.  Descriptors that share a host object (fd_dup) share its flags,
 * as POSIX descriptors share an open file description.
 */
#ifndef CAPTAB_H
#define CAPTAB_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cloudabi_types.h"
#include "sockmarks.h"

/*
 * What the supervisor knows of a guest process that process descriptors
 * name; it outlives the process (for PROC_TERMINATE) and follows it
 * through proc_exec.
 */
struct procinfo {
  unsigned refcount;
  pid_t pid;
  int pidfd;  /* of pid; readable once it has exited */
  /* An eventfd, readable once the supervisor has collected the end
   * (exited, killed, dumped): what PROC_TERMINATE waits on.  It stays
   * the same across proc_exec, which replaces pid and pidfd, and no
   * ptrace stop makes it ready. */
  int endfd;
  bool exited;
  int status; /* the wait status, once exited */
};

struct hostobj {
  unsigned refcount;
  int fd; /* the supervisor's descriptor, close-on-exec */
  cloudabi_filetype_t type;
  /* What the guest set with fd_stat_put or file_open: NONBLOCK and APPEND
   * are kept here, whatever mode the host descriptor is in. */
  cloudabi_fdflags_t flags;
  bool is_socket;        /* non-blocking I/O by MSG_DONTWAIT */
  /* A TCP socket: it carries bytes only, never descriptors, so the
   * kernel alone can do a guest's reads and writes (mirrors.h). */
  bool inet_stream;
  bool host_nonblocking; /* fd is our own O_NONBLOCK open file description */
  /* fd's access mode (O_RDONLY, O_WRONLY, O_RDWR) as opened or first read
   * with F_GETFL, which no call changes; -1 if not known. */
  int accmode;
  /* A pipe or device we were given blocking: that description, kept for
   * mirrors (supervisor/mirrors.h), so that a guest's read waits in its
   * own kernel context as it would natively; -1 if none. */
  int blocking_fd;
  /* A file by path (file_open, a config !file): what writes add counts
   * against --file-size-limit and --disk-limit (not cloudabi-run's own
   * standard streams a config hands on with !fd). */
  bool by_path;
  /* PROCESS descriptors: fd is -1, the process is proc (its pidfd can
   * change with proc_exec); closing the last reference kills the process,
   * as with FreeBSD's process descriptors. */
  struct procinfo *proc;
  /* One end of a stream pair made here: the other end (NULL once it is
   * gone), the bytes guests sent and received through this end, and
   * where messages with descriptors begin in what it receives. */
  struct hostobj *peer;
  uint64_t sent, received;
  struct sockmarks marks;
  /* The program's end of an acceptor's pair (supervisor/acceptor.h):
   * the acceptor, told by on_free when this object goes; NULL if none. */
  void *acceptor;
  void (*on_free)(void *acceptor);
};

struct capability {
  struct hostobj *obj; /* NULL: free slot */
  cloudabi_rights_t base, inheriting;
  /* Reads and writes the supervisor performed for it: a mirror is made
   * at the second (supervisor/mirrors.h), so a file read once is never
   * worth the ADDFD, which costs a round trip of its own. */
  uint8_t trapped_io;
};

struct captab {
  struct capability *slots;
  uint32_t size;  /* allocated slots */
  uint32_t count; /* used slots */
  uint32_t limit; /* at most this many used (--fd-limit); 0: CAPTAB_MAX */
  /* Close hints (abi/trap.h) in memory the process shares with us: a
   * byte per descriptor below nhints, kept CLOSE_HINT_OPEN for a file or
   * directory and 0 for anything else; NULL if the process has none. */
  uint8_t *hints;
  uint32_t nhints;
  uint32_t *closes_pending;
  /* Closes through the hints since the mirrors last looked (mirrors.h):
   * counted wherever a hint is taken, at a call or at a fork. */
  uint32_t quiet_closes;
};

/* The largest descriptor table a guest may have. */
#define CAPTAB_MAX 65536

/* Takes ownership of fd (closes it on failure). */
struct hostobj *hostobj_new(int fd, cloudabi_filetype_t type);
void hostobj_ref(struct hostobj *obj);
void hostobj_unref(struct hostobj *obj);

/* Takes ownership of pidfd. */
struct procinfo *procinfo_new(pid_t pid, int pidfd);
void procinfo_unref(struct procinfo *info);
/* The process has ended with this wait status: wakes whoever waits on
 * endfd. */
void procinfo_ended(struct procinfo *info, int status);

void captab_init(struct captab *t);
void captab_free(struct captab *t);
/* Puts obj (taking a reference) in the lowest free slot: 0 or EMFILE/ENOMEM. */
cloudabi_errno_t captab_insert(struct captab *t, struct hostobj *obj,
                               cloudabi_rights_t base,
                               cloudabi_rights_t inheriting,
                               cloudabi_fd_t *fd);
/* Puts obj at exactly fd (replacing what is there). */
cloudabi_errno_t captab_insert_at(struct captab *t, cloudabi_fd_t fd,
                                  struct hostobj *obj, cloudabi_rights_t base,
                                  cloudabi_rights_t inheriting);
/* The capability for fd if it has all of `need`: EBADF if fd is not open,
 * ENOTCAPABLE if rights are missing. */
cloudabi_errno_t captab_get(struct captab *t, cloudabi_fd_t fd,
                            cloudabi_rights_t need, struct capability **cap);
cloudabi_errno_t captab_close(struct captab *t, cloudabi_fd_t fd);
/* A copy for a forked process: same host objects, new references (and
 * no close hints). */
cloudabi_errno_t captab_clone(const struct captab *from, struct captab *to);

/* Starts keeping hints (n bytes) and the pending count in shared memory,
 * writing every descriptor's hint; NULL stops. */
void captab_share_hints(struct captab *t, uint8_t *hints, uint32_t n,
                        uint32_t *pending);
/* Closes what the process closed through its hints since the last call;
 * how many were closed. */
unsigned captab_take_closed(struct captab *t);
/* Makes fd's hint 0 (a mirror is coming, say): false if the process had
 * closed it through the hint, which is then closed here. */
bool captab_unhint(struct captab *t, cloudabi_fd_t fd);

#endif
