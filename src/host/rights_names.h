/*
 * Names of rights and file types as the spec spells them (FD_READ,
 * REGULAR_FILE): the config reads rights by name, and the plan prints
 * them, so both use one table expanded from the ABI description.
 */
#ifndef RIGHTS_NAMES_H
#define RIGHTS_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "cloudabi_types.h"

/* The right called `name` (case-insensitive, without CLOUDABI_RIGHT_), or
 * 0 when there is none. */
cloudabi_rights_t rights_from_name(const char *name, size_t len);

/* The i-th right in bit order and its name; false past the last one. */
bool rights_at(size_t i, cloudabi_rights_t *bit, const char **name);

/* The spec's name of a file type ("REGULAR_FILE"), or "UNKNOWN". */
const char *filetype_name(cloudabi_filetype_t type);

#endif
