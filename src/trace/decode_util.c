/* What both halves of the trace decoder use; see decode_util.h. */
#include "decode_util.h"

#include "trace_names.h"

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
void td_bytes_at(struct temit *e, const struct trace_view *v,
                     const char *key, uint64_t addr, uint64_t len) {
  size_t n = (size_t)td_min64(len, v->strsize);
  if (!td_read(v, addr, v->scratch, n)) {
    td_unread(e, key, addr);
    return;
  }
  te_bytes(e, key, v->scratch, n, len > n);
}

/* ---- out values ---- */

bool td_is_out(enum arg_kind k) {
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
bool td_out_of(const struct trace_view *v, unsigned i, uint64_t *val) {
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
  return v->phase == TP_OK && i >= 0 && td_out_of(v, (unsigned)i, n);
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
      td_bytes_at(e, v, "data", base, len);
      break;
    case IOV_DATA_OUT: {
      uint64_t shown = td_min64(len, avail);
      avail -= shown;
      td_bytes_at(e, v, "data", base, shown);
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
