/* Names of rights and file types; see rights_names.h. */
#include "rights_names.h"

#include <string.h>
#include <strings.h>

struct right_name {
  cloudabi_rights_t bit;
  const char *name;
};

#define RIGHT_ROW(prefix, name, value) {value, #name},
static const struct right_name right_names[] = {
    CLOUDABI_VALUES_rights(RIGHT_ROW, RIGHT_)};
#undef RIGHT_ROW

cloudabi_rights_t rights_from_name(const char *name, size_t len) {
  for (size_t i = 0; i < sizeof(right_names) / sizeof(right_names[0]); i++) {
    const char *n = right_names[i].name;
    if (strlen(n) == len && strncasecmp(n, name, len) == 0)
      return right_names[i].bit;
  }
  return 0;
}

bool rights_at(size_t i, cloudabi_rights_t *bit, const char **name) {
  if (i >= sizeof(right_names) / sizeof(right_names[0]))
    return false;
  *bit = right_names[i].bit;
  *name = right_names[i].name;
  return true;
}

const char *filetype_name(cloudabi_filetype_t type) {
#define TYPE_CASE(prefix, name, value)                                         \
  case value:                                                                  \
    return #name;
  switch (type) { CLOUDABI_VALUES_filetype(TYPE_CASE, FILETYPE_) }
#undef TYPE_CASE
  return "UNKNOWN";
}
