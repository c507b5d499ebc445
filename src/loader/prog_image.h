/*
 * A program file as it was checked: its bytes copied into a sealed memfd
 * (no write, grow, shrink or new seal), from which the loader stub maps
 * it.  A program can write the files it execs, through another thread or
 * a shared mapping, while proc_exec runs; the copy is what elf_check
 * reads and what the stub loads, so the two see the same bytes.
 */
#ifndef PROG_IMAGE_H
#define PROG_IMAGE_H

#include <stddef.h>

/* The largest program file copied (the planner's span bounds what it
 * maps; this bounds the copy). */
#define PROG_IMAGE_MAX ((size_t)1 << 30)

/* A sealed copy of the regular file at fd, or -1 with errno and a line
 * in why. */
int prog_image_seal(int fd, char *why, size_t why_size);

#endif
