/* The structures a call passes by pointer (fdstat, filestat, poll
 * subscriptions and events, socket messages, thread attributes), read
 * through the trace view and shown field by field. */
#include <string.h>

#include "decode_structs.h"
#include "decode_util.h"
#include "trace_names.h"

void td_fdstat_at(struct temit *e, const struct trace_view *v, const char *key,
                  uint64_t addr) {
  cloudabi_fdstat_t st;
  if (v->slot != NULL && v->slot_len >= sizeof(st)) {
    memcpy(&st, v->slot, sizeof(st)); /* fd_stat_get's answer, in its slot */
  } else if (!td_read(v, addr, &st, sizeof(st))) {
    td_unread(e, key, addr);
    return;
  }
  te_open(e, key, TE_STRUCT);
  td_sym(e, "filetype", "filetype", st.fs_filetype);
  td_sym(e, "flags", "fdflags", st.fs_flags);
  td_sym(e, "rights", "rights", st.fs_rights_base);
  td_sym(e, "inheriting", "rights", st.fs_rights_inheriting);
  te_close(e);
}

void td_filestat_at(struct temit *e, const struct trace_view *v,
                    const char *key, uint64_t addr) {
  cloudabi_filestat_t st;
  if (!td_read(v, addr, &st, sizeof(st))) {
    td_unread(e, key, addr);
    return;
  }
  te_open(e, key, TE_STRUCT);
  te_uint(e, "dev", st.st_dev);
  te_uint(e, "ino", st.st_ino);
  td_sym(e, "filetype", "filetype", st.st_filetype);
  te_uint(e, "nlink", st.st_nlink);
  te_uint(e, "size", st.st_size);
  te_uint(e, "atim", st.st_atim);
  te_uint(e, "mtim", st.st_mtim);
  te_uint(e, "ctim", st.st_ctim);
  te_close(e);
}

static void subscription(struct temit *e, const cloudabi_subscription_t *s) {
  te_open(e, NULL, TE_STRUCT);
  te_hex(e, "userdata", s->userdata);
  td_sym(e, "type", "eventtype", s->type);
  switch (s->type) {
  case CLOUDABI_EVENTTYPE_CLOCK:
    te_open(e, "clock", TE_STRUCT);
    te_hex(e, "identifier", s->clock.identifier);
    td_sym(e, "clock_id", "clockid", s->clock.clock_id);
    te_uint(e, "timeout", s->clock.timeout);
    te_uint(e, "precision", s->clock.precision);
    td_sym(e, "flags", "subclockflags", s->clock.flags);
    te_close(e);
    break;
  case CLOUDABI_EVENTTYPE_CONDVAR:
    te_open(e, "condvar", TE_STRUCT);
    te_hex(e, "condvar", (uint64_t)(uintptr_t)s->condvar.condvar);
    te_hex(e, "lock", (uint64_t)(uintptr_t)s->condvar.lock);
    td_sym(e, "condvar_scope", "scope", s->condvar.condvar_scope);
    td_sym(e, "lock_scope", "scope", s->condvar.lock_scope);
    te_close(e);
    break;
  case CLOUDABI_EVENTTYPE_FD_READ:
  case CLOUDABI_EVENTTYPE_FD_WRITE:
    te_open(e, "fd_readwrite", TE_STRUCT);
    td_fd(e, "fd", s->fd_readwrite.fd);
    td_sym(e, "flags", "subrwflags", s->fd_readwrite.flags);
    te_close(e);
    break;
  case CLOUDABI_EVENTTYPE_LOCK_RDLOCK:
  case CLOUDABI_EVENTTYPE_LOCK_WRLOCK:
    te_open(e, "lock", TE_STRUCT);
    te_hex(e, "lock", (uint64_t)(uintptr_t)s->lock.lock);
    td_sym(e, "lock_scope", "scope", s->lock.lock_scope);
    te_close(e);
    break;
  case CLOUDABI_EVENTTYPE_PROC_TERMINATE:
    te_open(e, "proc_terminate", TE_STRUCT);
    td_fd(e, "fd", s->proc_terminate.fd);
    te_close(e);
    break;
  default:
    break;
  }
  te_close(e);
}

static void event(struct temit *e, const cloudabi_event_t *ev) {
  te_open(e, NULL, TE_STRUCT);
  te_hex(e, "userdata", ev->userdata);
  const char *name = ev->error != 0 ? trace_errno_name(ev->error) : NULL;
  if (name != NULL)
    te_sym(e, "error", name);
  else
    te_uint(e, "error", ev->error);
  td_sym(e, "type", "eventtype", ev->type);
  switch (ev->type) {
  case CLOUDABI_EVENTTYPE_FD_READ:
  case CLOUDABI_EVENTTYPE_FD_WRITE:
    te_open(e, "fd_readwrite", TE_STRUCT);
    te_uint(e, "nbytes", ev->fd_readwrite.nbytes);
    td_sym(e, "flags", "eventrwflags", ev->fd_readwrite.flags);
    te_close(e);
    break;
  case CLOUDABI_EVENTTYPE_PROC_TERMINATE:
    te_open(e, "proc_terminate", TE_STRUCT);
    td_sym(e, "signal", "signal", ev->proc_terminate.signal);
    te_uint(e, "exitcode", ev->proc_terminate.exitcode);
    te_close(e);
    break;
  default:
    break;
  }
  te_close(e);
}

/* The number of subscriptions: the row's `size` argument. */
static uint64_t nsubscriptions(const struct trace_view *v) {
  int i = td_arg_of_kind(v, ARG_size);
  return i >= 0 ? v->args[i] : 0;
}

void td_subscriptions_at(struct temit *e, const struct trace_view *v,
                         const char *key, uint64_t addr) {
  uint64_t count = nsubscriptions(v);
  size_t n = (size_t)td_min64(count, TRACE_MAX_ITEMS);
  cloudabi_subscription_t s[TRACE_MAX_ITEMS];
  if (!td_read(v, addr, s, n * sizeof(s[0]))) {
    td_unread(e, key, addr);
    return;
  }
  te_open(e, key, TE_LIST);
  for (size_t i = 0; i < n; i++)
    subscription(e, &s[i]);
  te_close_list(e, key, count > n);
}

void td_events_at(struct temit *e, const struct trace_view *v, const char *key,
                  uint64_t addr) {
  uint64_t count;
  cloudabi_event_t ev[TRACE_MAX_ITEMS];
  if (!td_out_size(v, &count)) {
    td_unread(e, key, addr);
    return;
  }
  count = td_min64(count, nsubscriptions(v));
  size_t n = (size_t)td_min64(count, TRACE_MAX_ITEMS);
  if (!td_read(v, addr, ev, n * sizeof(ev[0]))) {
    td_unread(e, key, addr);
    return;
  }
  te_open(e, key, TE_LIST);
  for (size_t i = 0; i < n; i++)
    event(e, &ev[i]);
  te_close_list(e, key, count > n);
}

void td_recv_in_at(struct temit *e, const struct trace_view *v, const char *key,
                   uint64_t addr) {
  cloudabi_recv_in_t ri;
  if (!td_read(v, addr, &ri, sizeof(ri))) {
    td_unread(e, key, addr);
    return;
  }
  /* What arrived is in recv_out. */
  cloudabi_recv_out_t ro;
  int out = td_arg_of_kind(v, ARG_recv_out);
  bool done = v->phase == TP_OK && out >= 0 &&
              td_read(v, v->args[out], &ro, sizeof(ro));
  te_open(e, key, TE_STRUCT);
  td_iovecs(e, v, "data", (uint64_t)(uintptr_t)ri.ri_data, ri.ri_data_len,
            done ? IOV_DATA_OUT : IOV_POINTERS, done ? ro.ro_datalen : 0);
  te_uint(e, "data_len", ri.ri_data_len);
  if (done)
    td_fd_list(e, v, "fds", (uint64_t)(uintptr_t)ri.ri_fds,
               td_min64(ro.ro_fdslen, ri.ri_fds_len));
  else
    td_unread(e, "fds", (uint64_t)(uintptr_t)ri.ri_fds);
  te_uint(e, "fds_len", ri.ri_fds_len);
  td_sym(e, "flags", "riflags", ri.ri_flags);
  te_close(e);
}

void td_send_in_at(struct temit *e, const struct trace_view *v, const char *key,
                   uint64_t addr) {
  cloudabi_send_in_t si;
  if (!td_read(v, addr, &si, sizeof(si))) {
    td_unread(e, key, addr);
    return;
  }
  te_open(e, key, TE_STRUCT);
  td_iovecs(e, v, "data", (uint64_t)(uintptr_t)si.si_data, si.si_data_len,
            IOV_DATA_IN, 0);
  te_uint(e, "data_len", si.si_data_len);
  td_fd_list(e, v, "fds", (uint64_t)(uintptr_t)si.si_fds, si.si_fds_len);
  te_uint(e, "fds_len", si.si_fds_len);
  td_sym(e, "flags", "siflags", si.si_flags);
  te_close(e);
}

void td_recv_out_at(struct temit *e, const struct trace_view *v,
                    const char *key, uint64_t addr) {
  cloudabi_recv_out_t ro;
  if (v->phase != TP_OK || !td_read(v, addr, &ro, sizeof(ro))) {
    td_unread(e, key, addr);
    return;
  }
  te_open(e, key, TE_STRUCT);
  te_uint(e, "datalen", ro.ro_datalen);
  te_uint(e, "fdslen", ro.ro_fdslen);
  td_sym(e, "flags", "roflags", ro.ro_flags);
  te_close(e);
}

void td_send_out_at(struct temit *e, const struct trace_view *v,
                    const char *key, uint64_t addr) {
  cloudabi_send_out_t so;
  if (v->phase != TP_OK || !td_read(v, addr, &so, sizeof(so))) {
    td_unread(e, key, addr);
    return;
  }
  te_open(e, key, TE_STRUCT);
  te_uint(e, "datalen", so.so_datalen);
  te_close(e);
}

void td_threadattr_at(struct temit *e, const struct trace_view *v,
                      const char *key, uint64_t addr) {
  cloudabi_threadattr_t a;
  if (!td_read(v, addr, &a, sizeof(a))) {
    td_unread(e, key, addr);
    return;
  }
  te_open(e, key, TE_STRUCT);
  te_hex(e, "entry_point", (uint64_t)(uintptr_t)a.entry_point);
  te_hex(e, "stack", (uint64_t)(uintptr_t)a.stack);
  te_uint(e, "stack_len", a.stack_len);
  te_hex(e, "argument", (uint64_t)(uintptr_t)a.argument);
  te_close(e);
}
