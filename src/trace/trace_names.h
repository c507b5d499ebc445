/*
 * Names for the trace: every enumeration and flag set of the ABI
 * description (CLOUDABI_ENUMS and CLOUDABI_VALUES_<type>), errno names
 * with a one-line meaning each.
 */
#ifndef TRACE_NAMES_H
#define TRACE_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cloudabi_types.h"

struct trace_value {
  uint64_t value;
  const char *name; /* without the prefix */
};

struct trace_enum {
  const char *type;   /* "oflags" */
  const char *prefix; /* printed before each name: "O_" */
  const struct trace_value *values;
  size_t nvalues;
  bool flags; /* a bit set */
};

/* The enumeration or flag set called `type` in the description, or NULL. */
const struct trace_enum *trace_enum_by_type(const char *type);

/*
 * Spells v: the prefixed name of an enumeration's value, or a flag set's
 * names joined by "|" with unknown bits last in hex; "0" for an empty set;
 * a number for a value without a name.  Rights are spelled as the config
 * spells them (FD_READ, not RIGHT_FD_READ).  Returns buf.
 */
const char *trace_enum_format(const struct trace_enum *d, uint64_t v, char *buf,
                              size_t size);

/* "EBADF", or NULL for a value the ABI does not define. */
const char *trace_errno_name(cloudabi_errno_t e);
/* "Bad file descriptor"; "Unknown error" for undefined values. */
const char *trace_errno_meaning(cloudabi_errno_t e);

#endif
