/* A call's arguments and results, by argument kind; see trace_decode.h. */
#include "trace_decode.h"

#include <string.h>

#include "decode_internal.h"
#include "trace_names.h"

#define KIND_NAME(kind, ctype) #kind,
static const char *const kind_names[ARG_KIND_COUNT] = {
    CLOUDABI_ARG_KINDS(KIND_NAME)};
#undef KIND_NAME

static uint64_t masked(uint64_t x, uint8_t size) {
  return size < 8 ? x & ((UINT64_C(1) << (8 * size)) - 1) : x;
}

bool td_read(const struct trace_view *v, uint64_t addr, void *buf, size_t len) {
  return len == 0 || v->mem->read(v->mem->ctx, addr, buf, len);
}

/* A value of the description's enumeration or flag set `type`. */
void td_sym(struct temit *e, const char *key, const char *type, uint64_t x) {
  const struct trace_enum *d = trace_enum_by_type(type);
  if (d == NULL) {
    te_uint(e, key, x);
    return;
  }
  char buf[1024];
  te_sym(e, key, trace_enum_format(d, x, buf, sizeof(buf)));
}

/* Descriptor numbers; the all-ones value (MAP_ANON_FD, PROCESS_CHILD)
 * reads better as -1. */
void td_fd(struct temit *e, const char *key, uint64_t x) {
  if ((uint32_t)x == UINT32_MAX)
    te_int(e, key, -1);
  else
    te_uint(e, key, (uint32_t)x);
}

/* Where a value would have been read from, when it was not (unreadable,
 * or not yet written): the bare address in text; {"addr": "0x..."} in
 * JSON, which no decoded value looks like. */
void td_unread(struct temit *e, const char *key, uint64_t addr) {
  if (!e->json) {
    te_hex(e, key, addr);
    return;
  }
  te_open(e, key, TE_STRUCT);
  te_hex(e, "addr", addr);
  te_close(e);
}

/* len bytes at addr, up to the string size; the address if unreadable. */
static void bytes_at(struct temit *e, const struct trace_view *v,
                     const char *key, uint64_t addr, uint64_t len) {
  size_t n = (size_t)td_min64(len, v->strsize);
  if (!td_read(v, addr, v->scratch, n)) {
    td_unread(e, key, addr);
    return;
  }
  te_bytes(e, key, v->scratch, n, len > n);
}

/* ---- out values ---- */

static bool is_out(enum arg_kind k) {
  switch (k) {
  case ARG_out_fd:
  case ARG_out_fd2:
  case ARG_out_tid:
  case ARG_out_tid2:
  case ARG_out_size:
  case ARG_out_filesize:
  case ARG_out_timestamp:
  case ARG_out_mem:
    return true;
  default:
    return false;
  }
}

/* The value of out argument i; false if it cannot be read. */
static bool out_of(const struct trace_view *v, unsigned i, uint64_t *val) {
  enum arg_kind k = v->d->args[i].kind;
  bool high = k == ARG_out_fd2 || k == ARG_out_tid2;
  bool narrow = high || k == ARG_out_fd || k == ARG_out_tid;
  if (v->outs_in_memory) {
    if (narrow) {
      uint32_t w;
      if (!td_read(v, v->args[i], &w, sizeof(w)))
        return false;
      *val = w;
    } else if (!td_read(v, v->args[i], val, sizeof(*val))) {
      return false;
    }
    return true;
  }
  *val = high ? v->result >> 32 : narrow ? (uint32_t)v->result : v->result;
  return true;
}

/* The index of the row's first argument of kind k, or -1. */
int td_arg_of_kind(const struct trace_view *v, enum arg_kind k) {
  for (unsigned i = 0; i < v->d->nargs; i++)
    if (v->d->args[i].kind == k)
      return (int)i;
  return -1;
}

/* The out_size value of a call that succeeded (bytes read, events
 * written), or false. */
bool td_out_size(const struct trace_view *v, uint64_t *n) {
  int i = td_arg_of_kind(v, ARG_out_size);
  return v->phase == TP_OK && i >= 0 && out_of(v, (unsigned)i, n);
}

/* ---- arrays ---- */

/* An iovec array: each buffer's data (written by the call, or for data
 * out the first `avail` bytes across them) or just where it is. */
void td_iovecs(struct temit *e, const struct trace_view *v, const char *key,
               uint64_t addr, uint64_t count, enum iov_show how,
               uint64_t avail) {
  cloudabi_iovec_t iov[TRACE_MAX_ITEMS];
  size_t n = (size_t)td_min64(count, TRACE_MAX_ITEMS);
  if (!td_read(v, addr, iov, n * sizeof(iov[0]))) {
    td_unread(e, key, addr);
    return;
  }
  te_open(e, key, TE_LIST);
  size_t slot_off = 0; /* the data went through the I/O slot, in order */
  for (size_t i = 0; i < n; i++) {
    uint64_t base = (uint64_t)(uintptr_t)iov[i].buf, len = iov[i].buf_len;
    te_open(e, NULL, TE_TUPLE);
    if (v->slot != NULL && how != IOV_POINTERS) {
      uint64_t have = v->slot_len - slot_off;
      uint64_t part =
          td_min64(len, how == IOV_DATA_OUT ? td_min64(avail, have) : have);
      if (how == IOV_DATA_OUT)
        avail -= part;
      size_t shown = (size_t)td_min64(part, v->strsize);
      te_bytes(e, "data", (const unsigned char *)v->slot + slot_off, shown,
               part > shown);
      slot_off += (size_t)part;
      te_uint(e, "len", len);
      te_close(e);
      continue;
    }
    switch (how) {
    case IOV_DATA_IN:
      bytes_at(e, v, "data", base, len);
      break;
    case IOV_DATA_OUT: {
      uint64_t shown = td_min64(len, avail);
      avail -= shown;
      bytes_at(e, v, "data", base, shown);
      break;
    }
    case IOV_POINTERS:
      td_unread(e, "data", base);
      break;
    }
    te_uint(e, "len", len);
    te_close(e);
  }
  te_close_list(e, key, count > n);
}

void td_fd_list(struct temit *e, const struct trace_view *v, const char *key,
                uint64_t addr, uint64_t count) {
  uint32_t fds[TRACE_MAX_ITEMS];
  size_t n = (size_t)td_min64(count, TRACE_MAX_ITEMS);
  if (!td_read(v, addr, fds, n * sizeof(fds[0]))) {
    td_unread(e, key, addr);
    return;
  }
  te_open(e, key, TE_LIST);
  for (size_t i = 0; i < n; i++)
    td_fd(e, NULL, fds[i]);
  te_close_list(e, key, count > n);
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
      bytes_at(e, v, a->name, x, next);
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
      if (output)
        bytes_at(e, v, a->name, x, buffer_filled(v, next));
      else
        td_unread(e, a->name, x);
      break;
    case ARG_buf_in:
      bytes_at(e, v, a->name, x, next);
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
  if (!out_of(v, i, &val)) {
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
    if (is_out(v->d->args[i].kind)) {
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
    if (is_out(v->d->args[i].kind))
      out_value(e, v, i);
  te_close(e);
}
