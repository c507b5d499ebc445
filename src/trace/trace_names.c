/* Names for the trace, expanded from the ABI description; see trace_names.h. */
#include "trace_names.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define VALUE(u, name, value) {value, #name},
#define TABLE(type, ctype, prefix, is_flags)                                   \
  static const struct trace_value values_##type[] = {                          \
      CLOUDABI_VALUES_##type(VALUE, _){0, NULL}};
CLOUDABI_ENUMS(TABLE)
#undef TABLE

/* Each table ends with a sentinel, hence the - 1. */
#define DESC(type, ctype, prefix, is_flags)                                    \
  {#type, #prefix, values_##type,                                              \
   sizeof(values_##type) / sizeof(values_##type[0]) - 1, is_flags},
static const struct trace_enum enums[] = {CLOUDABI_ENUMS(DESC)};
#undef DESC

const struct trace_enum *trace_enum_by_type(const char *type) {
  for (size_t i = 0; i < sizeof(enums) / sizeof(enums[0]); i++)
    if (strcmp(enums[i].type, type) == 0)
      return &enums[i];
  return NULL;
}

/* Appends s to buf[*len..size), keeping it NUL-terminated. */
static void append(char *buf, size_t size, size_t *len, const char *s) {
  int n = snprintf(buf + *len, size - *len, "%s", s);
  if (n > 0)
    *len = *len + (size_t)n < size ? *len + (size_t)n : size - 1;
}

const char *trace_enum_format(const struct trace_enum *d, uint64_t v, char *buf,
                              size_t size) {
  if (size == 0)
    return buf;
  buf[0] = '\0';
  /* Rights read as in the config and the plan: FD_READ. */
  const char *prefix = strcmp(d->type, "rights") == 0 ? "" : d->prefix;
  size_t len = 0;
  if (!d->flags) {
    for (size_t i = 0; i < d->nvalues; i++) {
      if (d->values[i].value == v) {
        append(buf, size, &len, prefix);
        append(buf, size, &len, d->values[i].name);
        return buf;
      }
    }
    snprintf(buf, size, "%" PRIu64, v);
    return buf;
  }
  uint64_t left = v;
  for (size_t i = 0; i < d->nvalues; i++) {
    uint64_t bit = d->values[i].value;
    if (bit == 0 || (v & bit) != bit || (left & bit) == 0)
      continue;
    if (len > 0)
      append(buf, size, &len, "|");
    append(buf, size, &len, prefix);
    append(buf, size, &len, d->values[i].name);
    left &= ~bit;
  }
  if (left != 0 || v == 0) {
    char hex[24];
    snprintf(hex, sizeof(hex), v == 0 ? "0" : "%#" PRIx64, left);
    if (len > 0)
      append(buf, size, &len, "|");
    append(buf, size, &len, hex);
  }
  return buf;
}

/* Errno names: the description's, with the E the C constants have. */
#define ERRNO_NAME(u, name, value) [value] = "E" #name,
static const char *const errno_names[] = {CLOUDABI_VALUES_errno(ERRNO_NAME, _)};
#undef ERRNO_NAME

#define COUNT(u, name, value) +1
enum { NERRNO = 0 CLOUDABI_VALUES_errno(COUNT, _) };
#undef COUNT

/* What each error means, in a few words. */
#define M(name, text) [CLOUDABI_E##name] = text
static const char *const meanings[] = {
    M(SUCCESS, "Success"),
    M(2BIG, "Argument list too long"),
    M(ACCES, "Permission denied"),
    M(ADDRINUSE, "Address already in use"),
    M(ADDRNOTAVAIL, "Address not available here"),
    M(AFNOSUPPORT, "Address family not supported"),
    M(AGAIN, "Try again: the operation would block"),
    M(ALREADY, "Already in progress"),
    M(BADF, "Bad file descriptor"),
    M(BADMSG, "Malformed message"),
    M(BUSY, "Resource busy"),
    M(CANCELED, "Operation canceled"),
    M(CHILD, "No child process"),
    M(CONNABORTED, "Connection aborted"),
    M(CONNREFUSED, "Connection refused"),
    M(CONNRESET, "Connection reset by the peer"),
    M(DEADLK, "Deadlock avoided"),
    M(DESTADDRREQ, "Destination address needed"),
    M(DOM, "Argument outside the function's domain"),
    M(DQUOT, "Disk quota exceeded"),
    M(EXIST, "Already exists"),
    M(FAULT, "Bad address"),
    M(FBIG, "File too large"),
    M(HOSTUNREACH, "Host unreachable"),
    M(IDRM, "Identifier removed"),
    M(ILSEQ, "Invalid byte sequence"),
    M(INPROGRESS, "Operation now in progress"),
    M(INTR, "Interrupted"),
    M(INVAL, "Invalid argument"),
    M(IO, "Input/output error"),
    M(ISCONN, "Socket already connected"),
    M(ISDIR, "Is a directory"),
    M(LOOP, "Too many symbolic links, or a symbolic link not followed"),
    M(MFILE, "Too many descriptors in this process"),
    M(MLINK, "Too many links"),
    M(MSGSIZE, "Message too long"),
    M(MULTIHOP, "Multihop attempted"),
    M(NAMETOOLONG, "Name too long"),
    M(NETDOWN, "Network down"),
    M(NETRESET, "Connection dropped by the network"),
    M(NETUNREACH, "Network unreachable"),
    M(NFILE, "Too many open files on the system"),
    M(NOBUFS, "No buffer space"),
    M(NODEV, "No such device"),
    M(NOENT, "No such file or directory"),
    M(NOEXEC, "Not an executable this system can run"),
    M(NOLCK, "No locks left"),
    M(NOLINK, "Link severed"),
    M(NOMEM, "Out of memory"),
    M(NOMSG, "No message of that type"),
    M(NOPROTOOPT, "Protocol option not available"),
    M(NOSPC, "No space left on the device"),
    M(NOSYS, "Not implemented"),
    M(NOTCONN, "Socket not connected"),
    M(NOTDIR, "Not a directory"),
    M(NOTEMPTY, "Directory not empty"),
    M(NOTRECOVERABLE, "State cannot be recovered"),
    M(NOTSOCK, "Not a socket"),
    M(NOTSUP, "Not supported"),
    M(NOTTY, "Not a terminal"),
    M(NXIO, "No such device or address"),
    M(OVERFLOW, "Value too large for its type"),
    M(OWNERDEAD, "The previous owner died"),
    M(PERM, "Operation not permitted"),
    M(PIPE, "Broken pipe: nobody reads the other end"),
    M(PROTO, "Protocol error"),
    M(PROTONOSUPPORT, "Protocol not supported"),
    M(PROTOTYPE, "Protocol of the wrong type for the socket"),
    M(RANGE, "Result out of range"),
    M(ROFS, "Read-only file system"),
    M(SPIPE, "Cannot seek on this descriptor"),
    M(SRCH, "No such process"),
    M(STALE, "Stale file handle"),
    M(TIMEDOUT, "Timed out"),
    M(TXTBSY, "Text file busy"),
    M(XDEV, "Link across file systems"),
    M(NOTCAPABLE, "The descriptor lacks the rights for this"),
};
#undef M
_Static_assert(sizeof(meanings) / sizeof(meanings[0]) == NERRNO,
               "every errno of the description needs a meaning");
_Static_assert(sizeof(errno_names) / sizeof(errno_names[0]) == NERRNO,
               "errno values are dense");

const char *trace_errno_name(cloudabi_errno_t e) {
  return e < NERRNO ? errno_names[e] : NULL;
}

const char *trace_errno_meaning(cloudabi_errno_t e) {
  return e < NERRNO && meanings[e] != NULL ? meanings[e] : "Unknown error";
}
