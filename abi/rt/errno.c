/*
 * CloudABI errno values as text, for programs' messages: the spec's name
 * and, for the ones a program meets most, what it means.
 */
#include "rt.h"

#define RT_ERRNO_NAME(u, name, value) [value] = "E" #name,
static const char *const names[] = {CLOUDABI_VALUES_errno(RT_ERRNO_NAME, _)};

static const struct {
  cloudabi_errno_t e;
  const char *text;
} texts[] = {
    {CLOUDABI_EACCES, "EACCES (permission denied)"},
    {CLOUDABI_EAGAIN, "EAGAIN (try again)"},
    {CLOUDABI_EBADF, "EBADF (bad descriptor)"},
    {CLOUDABI_EEXIST, "EEXIST (file exists)"},
    {CLOUDABI_EFAULT, "EFAULT (bad address)"},
    {CLOUDABI_EINVAL, "EINVAL (invalid argument)"},
    {CLOUDABI_EISDIR, "EISDIR (is a directory)"},
    {CLOUDABI_ELOOP, "ELOOP (a symlink where none may be)"},
    {CLOUDABI_ENAMETOOLONG, "ENAMETOOLONG (name too long)"},
    {CLOUDABI_ENOENT, "ENOENT (no such file or directory)"},
    {CLOUDABI_ENOMEM, "ENOMEM (out of memory)"},
    {CLOUDABI_ENOSPC, "ENOSPC (no space left)"},
    {CLOUDABI_ENOSYS, "ENOSYS (not implemented)"},
    {CLOUDABI_ENOTCAPABLE,
     "ENOTCAPABLE (the descriptor lacks the right, or the path leaves it)"},
    {CLOUDABI_ENOTDIR, "ENOTDIR (not a directory)"},
    {CLOUDABI_ENOTEMPTY, "ENOTEMPTY (directory not empty)"},
    {CLOUDABI_EPERM, "EPERM (not permitted)"},
    {CLOUDABI_EPIPE, "EPIPE (broken pipe)"},
};

const char *rt_strerror(cloudabi_errno_t e) {
  for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
    if (texts[i].e == e)
      return texts[i].text;
  if (e < sizeof(names) / sizeof(names[0]) && names[e] != NULL)
    return e == 0 ? "success" : names[e];
  return "unknown errno";
}
