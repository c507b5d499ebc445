/* A call's arguments and results, by argument kind; see trace_decode.h. */
#include "trace_decode.h"

#include <string.h>

#include "decode_dirents.h"
#include "decode_structs.h"
#include "decode_util.h"
#include "trace_names.h"

#define KIND_NAME(kind, ctype) #kind,
static const char *const kind_names[ARG_KIND_COUNT] = {
    CLOUDABI_ARG_KINDS(KIND_NAME)};
#undef KIND_NAME

static uint64_t masked(uint64_t x, uint8_t size) {
  return size < 8 ? x & ((UINT64_C(1) << (8 * size)) - 1) : x;
}

/* ---- the argument list ---- */

/* Bytes a buffer argument received: the out_size result when the call
 * has one (bytes used), else the whole buffer. */
static uint64_t buffer_filled(const struct trace_view *v, uint64_t len) {
  uint64_t n;
  return td_out_size(v, &n) ? td_min64(n, len) : len;
}

void trace_decode_args(struct temit *e, const char *key,
                       const struct trace_view *v) {
  const struct syscall_desc *d = v->d;
  bool output = v->phase == TP_OK;
  /* A lookup's flags say how the path after it is resolved: they are
   * shown after that path, as "lookup_flags". */
  bool lookup_pending = false;
  uint64_t lookup_flags = 0;
  te_open(e, key, TE_ARGS);
  for (unsigned i = 0; i < d->nargs && i < 7; i++) {
    const struct syscall_arg *a = &d->args[i];
    uint64_t x = masked(v->args[i], a->size);
    uint64_t next = i + 1 < d->nargs ? v->args[i + 1] : 0;
    switch (a->kind) {
    case ARG_fd:
      td_fd(e, a->name, x);
      break;
    case ARG_lookup:
      td_fd(e, a->name, (uint32_t)x);
      lookup_flags = x >> 32;
      lookup_pending = true;
      break;
    case ARG_path:
      td_bytes_at(e, v, a->name, x, next);
      if (lookup_pending)
        td_sym(e, "lookup_flags", "lookupflags", lookup_flags);
      lookup_pending = false;
      break;
    case ARG_path_len:
      break; /* shown as the path's length */
    case ARG_ciovs:
      td_iovecs(e, v, a->name, x, next, IOV_DATA_IN, 0);
      break;
    case ARG_iovs: {
      uint64_t n;
      if (td_out_size(v, &n))
        td_iovecs(e, v, a->name, x, next, IOV_DATA_OUT, n);
      else
        td_iovecs(e, v, a->name, x, next, IOV_POINTERS, 0);
      break;
    }
    case ARG_buf_out:
    case ARG_char_out:
      if (output && d == &syscall_table[CLOUDABI_SYS_file_readdir])
        td_dirents_at(e, v, a->name, x, buffer_filled(v, next));
      else if (output)
        td_bytes_at(e, v, a->name, x, buffer_filled(v, next));
      else
        td_unread(e, a->name, x);
      break;
    case ARG_buf_in:
      td_bytes_at(e, v, a->name, x, next);
      break;
    case ARG_fds_in:
      td_fd_list(e, v, a->name, x, next);
      break;
    case ARG_iovs_len:
    case ARG_buf_len:
    case ARG_fds_len:
    case ARG_mem_len:
    case ARG_size:
    case ARG_filesize:
    case ARG_timestamp:
    case ARG_exitcode:
    case ARG_nthreads:
      te_uint(e, a->name, x);
      break;
    case ARG_filedelta:
      te_int(e, a->name, (int64_t)x);
      break;
    case ARG_mem:
    case ARG_lock_ptr:
    case ARG_condvar_ptr:
      te_hex(e, a->name, x);
      break;
    /* Kinds named after an enumeration or flag set of the description. */
    case ARG_dircookie:
    case ARG_advice:
    case ARG_clockid:
    case ARG_fdsflags:
    case ARG_filetype:
    case ARG_fsflags:
    case ARG_mflags:
    case ARG_mprot:
    case ARG_msflags:
    case ARG_oflags:
    case ARG_scope:
    case ARG_sdflags:
    case ARG_signal:
    case ARG_ulflags:
    case ARG_whence:
      td_sym(e, a->name, kind_names[a->kind], x);
      break;
    case ARG_fdstat_in:
      td_fdstat_at(e, v, a->name, x);
      break;
    case ARG_fdstat_out:
      if (output)
        td_fdstat_at(e, v, a->name, x);
      else
        td_unread(e, a->name, x);
      break;
    case ARG_filestat_in:
      td_filestat_at(e, v, a->name, x);
      break;
    case ARG_filestat_out:
      if (output)
        td_filestat_at(e, v, a->name, x);
      else
        td_unread(e, a->name, x);
      break;
    case ARG_subscriptions:
      td_subscriptions_at(e, v, a->name, x);
      break;
    case ARG_events:
      td_events_at(e, v, a->name, x);
      break;
    case ARG_recv_in:
      td_recv_in_at(e, v, a->name, x);
      break;
    case ARG_recv_out:
      td_recv_out_at(e, v, a->name, x);
      break;
    case ARG_send_in:
      td_send_in_at(e, v, a->name, x);
      break;
    case ARG_send_out:
      td_send_out_at(e, v, a->name, x);
      break;
    case ARG_threadattr:
      td_threadattr_at(e, v, a->name, x);
      break;
    case ARG_out_fd:
    case ARG_out_fd2:
    case ARG_out_tid:
    case ARG_out_tid2:
    case ARG_out_size:
    case ARG_out_filesize:
    case ARG_out_timestamp:
    case ARG_out_mem:
      break; /* shown as the result */
    case ARG_KIND_COUNT:
      break;
    }
  }
  te_close(e);
}

static void out_value(struct temit *e, const struct trace_view *v, unsigned i) {
  const struct syscall_arg *a = &v->d->args[i];
  uint64_t val;
  if (!td_out_of(v, i, &val)) {
    td_unread(e, a->name, v->args[i]); /* the vDSO stored through it, though */
    return;
  }
  switch (a->kind) {
  case ARG_out_fd:
  case ARG_out_fd2:
    td_fd(e, a->name, val);
    break;
  case ARG_out_mem:
    if (v->outs_in_memory) {
      te_hex(e, a->name, val);
    } else {
      /* A trapped mem_map answers with a descriptor the vDSO maps and
       * closes: the mapping's address is only known in the guest. */
      te_open(e, a->name, TE_STRUCT);
      te_uint(e, "lent_fd", val);
      te_close(e);
    }
    break;
  default:
    te_uint(e, a->name, val);
  }
}

void trace_decode_result(struct temit *e, const char *key,
                         const struct trace_view *v) {
  unsigned outs = 0, first = 0;
  for (unsigned i = 0; i < v->d->nargs; i++) {
    if (td_is_out(v->d->args[i].kind)) {
      if (outs++ == 0)
        first = i;
    }
  }
  if (!e->json && outs == 0) {
    te_uint(e, key, 0);
    return;
  }
  if (!e->json && outs == 1) {
    out_value(e, v, first);
    return;
  }
  te_open(e, key, TE_STRUCT);
  for (unsigned i = 0; i < v->d->nargs; i++)
    if (td_is_out(v->d->args[i].kind))
      out_value(e, v, i);
  te_close(e);
}
