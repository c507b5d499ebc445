/*
 * A reader for argdata, the binary encoding of a CloudABI program's
 * configuration.  Every function checks the bytes it reads: malformed
 * input gives CLOUDABI_EINVAL (bad encoding), CLOUDABI_ERANGE (a value
 * that does not fit), CLOUDABI_EBADF (the invalid descriptor) or
 * CLOUDABI_ENOENT... never undefined behaviour.  Nothing here allocates.
 */
#ifndef RT_ARGDATA_H
#define RT_ARGDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cloudabi_types.h"

typedef struct {
  const uint8_t *buf;
  size_t len;
} argdata_t;

/* Type tags, as encoded; null has no tag (an empty value). */
typedef enum {
  ARGDATA_NULL = 0,
  ARGDATA_BINARY = 1,
  ARGDATA_BOOL = 2,
  ARGDATA_FD = 3,
  ARGDATA_FLOAT = 4,
  ARGDATA_INT = 5,
  ARGDATA_MAP = 6,
  ARGDATA_SEQ = 7,
  ARGDATA_STR = 8,
  ARGDATA_TIMESTAMP = 9,
} argdata_type_t;

typedef struct {
  int64_t sec;
  uint32_t nsec; /* always below 10^9, also for times before 1970 */
} argdata_timestamp_t;

/* Iterates the subfields of a map or a sequence. */
typedef struct {
  const uint8_t *p;
  size_t left;
  cloudabi_errno_t error; /* set when iteration stopped at bad bytes */
} argdata_iter_t;

argdata_t argdata_from_buffer(const void *buf, size_t len);
/* The type, or an error for an unknown tag. */
cloudabi_errno_t argdata_type(const argdata_t *ad, argdata_type_t *type);

cloudabi_errno_t argdata_get_binary(const argdata_t *ad, const void **data,
                                    size_t *len);
cloudabi_errno_t argdata_get_bool(const argdata_t *ad, bool *value);
cloudabi_errno_t argdata_get_fd(const argdata_t *ad, cloudabi_fd_t *fd);
cloudabi_errno_t argdata_get_float(const argdata_t *ad, double *value);
cloudabi_errno_t argdata_get_int_s(const argdata_t *ad, int64_t *value);
cloudabi_errno_t argdata_get_int_u(const argdata_t *ad, uint64_t *value);
/* The string's bytes, NUL-terminated in the buffer; len excludes it. */
cloudabi_errno_t argdata_get_str(const argdata_t *ad, const char **str,
                                 size_t *len);
cloudabi_errno_t argdata_get_timestamp(const argdata_t *ad,
                                       argdata_timestamp_t *ts);

cloudabi_errno_t argdata_map_iterate(const argdata_t *ad, argdata_iter_t *it);
cloudabi_errno_t argdata_seq_iterate(const argdata_t *ad, argdata_iter_t *it);
/* The next element (seq) or key and value (map); false at the end or at
 * malformed bytes, which leave it->error set. */
bool argdata_seq_next(argdata_iter_t *it, argdata_t *value);
bool argdata_map_next(argdata_iter_t *it, argdata_t *key, argdata_t *value);

#endif
