/*
 * File systems that reflect or control the running system (procfs,
 * sysfs, cgroup, debugfs, ...).  Paths are resolved in the supervisor, so
 * beneath such a file system "self" is cloudabi-run itself: no grant and
 * no lookup may land on one.  The test is on an open descriptor (fstatfs),
 * never on a path, so nothing can change between the check and the use.
 */
#ifndef PSEUDOFS_H
#define PSEUDOFS_H

#include <stdbool.h>

/*
 * Whether fd lies on such a file system: true with *name set to its
 * type's name ("proc", ...).  A descriptor fstatfs cannot inspect counts
 * as one (name "unknown"): refusing is the safe answer.  allow_pty lets a
 * terminal on devpts through (one handed over as !fd stdin).
 */
bool pseudofs_fd(int fd, bool allow_pty, const char **name);

#endif
