/*
 * Host file metadata in CloudABI's terms: file types from st_mode and
 * d_type, struct stat to cloudabi_filestat_t, CloudABI times to Linux's.
 */
#ifndef FILESTAT_H
#define FILESTAT_H

#include <sys/stat.h>
#include <time.h>

#include "cloudabi_types.h"

/* FIFOs are SOCKET_STREAM, as upstream (CloudABI has no pipe type); so are
 * sockets, whose kind stat cannot tell. */
cloudabi_filetype_t filetype_from_mode(mode_t mode);
/* The same for a directory entry's d_type (DT_UNKNOWN: UNKNOWN). */
cloudabi_filetype_t filetype_from_dtype(unsigned char d_type);

/* type: what the caller knows better than st_mode (shared memory is a
 * regular file to the host), or UNKNOWN to take it from st_mode. */
void filestat_from_host(const struct stat *st, cloudabi_filetype_t type,
                        cloudabi_filestat_t *out);

/*
 * The two timestamps for futimens/utimensat from a guest filestat and
 * fsflags: *_NOW means now, ATIM/MTIM the given time, neither leaves it.
 * Returns EINVAL for flags other than the four time flags.
 */
cloudabi_errno_t filestat_times(const cloudabi_filestat_t *fs,
                                cloudabi_fsflags_t flags,
                                struct timespec ts[2]);

#define FILESTAT_TIME_FLAGS                                                    \
  (CLOUDABI_FILESTAT_ATIM | CLOUDABI_FILESTAT_ATIM_NOW |                       \
   CLOUDABI_FILESTAT_MTIM | CLOUDABI_FILESTAT_MTIM_NOW)

#endif
