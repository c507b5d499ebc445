/* file_readdir's entries for the trace; see decode_dirents.h. */
#include "decode_dirents.h"

#include "decode_util.h"

/* One entry whose header is at addr and of which `left` bytes, header
 * included, are in the buffer; returns the bytes it takes there. */
static uint64_t dirent(struct temit *e, const struct trace_view *v,
                       uint64_t addr, uint64_t left) {
  cloudabi_dirent_t de;
  if (left < sizeof(de)) {
    te_open(e, NULL, TE_STRUCT);
    te_uint(e, "truncated_header", left);
    te_close(e);
    return left;
  }
  if (!td_read(v, addr, &de, sizeof(de))) {
    td_unread(e, NULL, addr);
    return left; /* the rest cannot be found without this header */
  }
  /* d_namlen is the guest's word: only the bytes the call returned. */
  uint64_t have = td_min64(de.d_namlen, left - sizeof(de));
  size_t n = (size_t)td_min64(have, v->strsize);
  te_open(e, NULL, TE_STRUCT);
  te_uint(e, "next", de.d_next);
  te_uint(e, "ino", de.d_ino);
  te_uint(e, "namlen", de.d_namlen);
  td_sym(e, "type", "filetype", de.d_type);
  if (td_read(v, addr + sizeof(de), v->scratch, n))
    te_bytes(e, "name", v->scratch, n, n < de.d_namlen);
  else
    td_unread(e, "name", addr + sizeof(de));
  te_close(e);
  return sizeof(de) + have;
}

void td_dirents_at(struct temit *e, const struct trace_view *v,
                   const char *key, uint64_t addr, uint64_t filled) {
  te_open(e, key, TE_LIST);
  uint64_t off = 0;
  for (unsigned i = 0; i < TRACE_MAX_ITEMS && off < filled; i++)
    off += dirent(e, v, addr + off, filled - off);
  te_close_list(e, key, off < filled);
}
