/*
 * /proc/PID/stat, read once: the fields after the command name, which may
 * hold anything (spaces, parentheses), so they start after its last ')'.
 */
#ifndef PROCSTAT_H
#define PROCSTAT_H

#include <stddef.h>
#include <sys/types.h>

/* Reads pid's stat line into buf; the fields from the state on (" S 1 ..."
 * starting at the space before it), or NULL if it is gone or unreadable. */
char *procstat_fields(pid_t pid, char *buf, size_t size);

#endif
