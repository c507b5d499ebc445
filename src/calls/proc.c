/* Handlers for the proc_* system calls the supervisor performs. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "loader/elf_check.h"
#include "loader/prog_image.h"
#include "host/errno_map.h"
#include "supervisor/guestmem.h"
#include "supervisor/procs.h"
#include "host/signals.h"
#include "supervisor/sup.h"
#include "syscall_table.h"

#define R(x) CLOUDABI_RIGHT_##x
/* The largest argument data proc_exec takes, as the config front end. */
#define EXEC_MAX_ARGDATA (4u << 20)

/*
 * CloudABI has no signal handlers: raising a signal takes its default
 * action.  A signal that terminates or stops is sent to the calling
 * thread; since the guest is traced, it is delivered when the thread
 * leaves this call, so the answer below is never seen by a thread that
 * dies.  Ignored signals do nothing.
 */
cloudabi_errno_t handle_proc_raise(struct call *c) {
  cloudabi_signal_t sig = (cloudabi_signal_t)c->args[0];
  if (sig == 0)
    return 0;
  int lsig = signal_to_linux(sig);
  if (lsig == 0)
    return CLOUDABI_EINVAL;
  if (signal_default_action(sig) == SIGACT_IGNORE)
    return 0;
  if (syscall(SYS_tgkill, c->proc->pid, (pid_t)c->tid, lsig) != 0)
    return errno_from_host(errno);
  return 0;
}
/*
 * The parent's half of proc_fork: the vDSO forked, and now asks for a
 * descriptor of the child it names in argument 2.
 */
cloudabi_errno_t handle_proc_fork(struct call *c) {
  pid_t child = (pid_t)c->args[2];
  struct gproc *p = procs_child_of(c->sup, c->proc, child);
  if (p == NULL)
    return CLOUDABI_EAGAIN; /* refused at the fork, or not our child */
  struct hostobj *obj = hostobj_new(-1, CLOUDABI_FILETYPE_PROCESS);
  if (obj == NULL)
    return CLOUDABI_ENOMEM;
  obj->proc = p->info;
  p->info->refcount++;
  cloudabi_fd_t fd;
  cloudabi_errno_t e = captab_insert(
      &c->proc->fds, obj, R(FILE_STAT_FGET) | R(POLL_PROC_TERMINATE), 0, &fd);
  hostobj_unref(obj);
  if (e != 0)
    return e;
  procs_claimed(c->sup, p);
  c->result = fd | (uint64_t)(uint32_t)child << 32;
  return 0;
}

/*
 * proc_exec: a new process runs the program, with the descriptors listed
 * (renumbered from 0) and the argument data given, and takes over this
 * process's identity: process descriptors naming this process now name
 * it.  This process is then killed.  Starting afresh (new address space,
 * new filter) is what exec means; doing it from the supervisor avoids
 * letting the guest call execve at all.
 */
cloudabi_errno_t handle_proc_exec(struct call *c) {
  struct sup *s = c->sup;
  struct hostobj *prog = c->cap[0]->obj;
  /* Another thread's proc_exec replaced this process already: this
   * thread dies with it (procs.c, "replaced"). */
  if (c->proc->info == NULL)
    return CALL_ABANDONED;
  struct stat st;
  if (prog->fd < 0 || fstat(prog->fd, &st) != 0)
    return CLOUDABI_EBADF;
  if (S_ISDIR(st.st_mode))
    return CLOUDABI_EACCES;
  /* FreeBSD's fexecve reads the file through the descriptor: one opened
   * write-only is EBADF, whatever its rights. */
  int fl = fcntl(prog->fd, F_GETFL);
  if (fl < 0 || (fl & O_ACCMODE) == O_WRONLY)
    return CLOUDABI_EBADF;
  char why[256];
  struct elf_info info;
  /* Checked and loaded from one sealed copy, so that another thread
   * rewriting the file cannot change it between the two (prog_image.h). */
  int image = prog_image_seal(prog->fd, why, sizeof(why));
  if (image < 0)
    return errno == EFBIG ? CLOUDABI_ENOEXEC : errno_from_host(errno);
  if (elf_check(image, &info, why, sizeof(why)) != 0) {
    close(image);
    return CLOUDABI_ENOEXEC;
  }
  size_t len = c->args[2], nfds = c->args[4];
  if (len > EXEC_MAX_ARGDATA || nfds > CAPTAB_MAX) {
    close(image);
    return CLOUDABI_E2BIG;
  }
  uint8_t *data = malloc(len + 1);
  cloudabi_fd_t *fds = malloc(nfds * sizeof(*fds) + 1);
  struct captab table;
  captab_init(&table);
  cloudabi_errno_t e = data == NULL || fds == NULL ? CLOUDABI_ENOMEM : 0;
  if (e == 0)
    e = gmem_read(c, c->args[1], data, len);
  if (e == 0)
    e = gmem_read(c, c->args[3], fds, nfds * sizeof(*fds));
  for (size_t i = 0; e == 0 && i < nfds; i++) {
    struct capability *cap;
    e = captab_get(&c->proc->fds, fds[i], 0, &cap);
    if (e == 0)
      e = captab_insert_at(&table, (cloudabi_fd_t)i, cap->obj, cap->base,
                           cap->inheriting);
  }
  struct gproc *np = NULL;
  if (e == 0) {
    np = procs_spawn(s, c->proc, image, data, len, &table, why, sizeof(why));
    if (np == NULL)
      e = CLOUDABI_ENOEXEC;
  }
  captab_free(&table);
  free(data);
  free(fds);
  close(image);
  if (e != 0)
    return e;

  /* The new process is this one now. */
  procs_take_over(s, c->proc, np);
  return CALL_ABANDONED;
}
