/*
 * CloudABI C types for x86-64, expanded from cloudabi_abi.h.
 * Used by the supervisor, the vDSO, the loader and the guest runtime.
 */
#ifndef CLOUDABI_TYPES_H
#define CLOUDABI_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "cloudabi_abi.h"

#define CLOUDABI__TYPEDEF(type, ctype, ...) typedef ctype cloudabi_##type##_t;
CLOUDABI_ENUMS(CLOUDABI__TYPEDEF)
CLOUDABI_SCALARS(CLOUDABI__TYPEDEF)
#undef CLOUDABI__TYPEDEF

/* Named values become enumerators; rights need 64 bits, which both gcc and
 * clang give an enum whose values do not fit in int. */
#define CLOUDABI__ENUMERATOR(prefix, name, value) CLOUDABI_##prefix##name = value,
#define CLOUDABI__ENUM(type, ctype, prefix, flags)                             \
  enum { cloudabi__first_##type = 0, CLOUDABI_VALUES_##type(CLOUDABI__ENUMERATOR, prefix) };
CLOUDABI_ENUMS(CLOUDABI__ENUM)
#undef CLOUDABI__ENUM
#undef CLOUDABI__ENUMERATOR

typedef struct {
  cloudabi_auxtype_t a_type;
  union {
    size_t a_val;
    void *a_ptr;
  };
} cloudabi_auxv_t;

typedef struct {
  const void *buf;
  size_t buf_len;
} cloudabi_ciovec_t;

typedef struct {
  void *buf;
  size_t buf_len;
} cloudabi_iovec_t;

typedef struct {
  cloudabi_dircookie_t d_next;
  cloudabi_inode_t d_ino;
  uint32_t d_namlen;
  cloudabi_filetype_t d_type;
} cloudabi_dirent_t;

typedef struct {
  cloudabi_userdata_t userdata;
  cloudabi_errno_t error;
  cloudabi_eventtype_t type;
  union {
    struct {
      cloudabi_filesize_t nbytes;
      char unused[4];
      cloudabi_eventrwflags_t flags;
    } fd_readwrite;
    struct {
      char unused[4];
      cloudabi_signal_t signal;
      cloudabi_exitcode_t exitcode;
    } proc_terminate;
  };
} cloudabi_event_t;

typedef struct {
  cloudabi_filetype_t fs_filetype;
  cloudabi_fdflags_t fs_flags;
  cloudabi_rights_t fs_rights_base;
  cloudabi_rights_t fs_rights_inheriting;
} cloudabi_fdstat_t;

typedef struct {
  cloudabi_device_t st_dev;
  cloudabi_inode_t st_ino;
  cloudabi_filetype_t st_filetype;
  cloudabi_linkcount_t st_nlink;
  cloudabi_filesize_t st_size;
  cloudabi_timestamp_t st_atim;
  cloudabi_timestamp_t st_mtim;
  cloudabi_timestamp_t st_ctim;
} cloudabi_filestat_t;

typedef struct {
  cloudabi_fd_t fd;
  cloudabi_lookupflags_t flags;
} cloudabi_lookup_t;

typedef struct {
  const cloudabi_iovec_t *ri_data;
  size_t ri_data_len;
  cloudabi_fd_t *ri_fds;
  size_t ri_fds_len;
  cloudabi_riflags_t ri_flags;
} cloudabi_recv_in_t;

typedef struct {
  const cloudabi_ciovec_t *si_data;
  size_t si_data_len;
  const cloudabi_fd_t *si_fds;
  size_t si_fds_len;
  cloudabi_siflags_t si_flags;
} cloudabi_send_in_t;

typedef struct {
  size_t so_datalen;
} cloudabi_send_out_t;

typedef struct {
  size_t ro_datalen;
  size_t ro_fdslen;
  char ro_unused[40];
  cloudabi_roflags_t ro_flags;
} cloudabi_recv_out_t;

typedef struct {
  cloudabi_userdata_t userdata;
  uint16_t unused;
  cloudabi_eventtype_t type;
  union {
    struct {
      cloudabi_userdata_t identifier;
      cloudabi_clockid_t clock_id;
      cloudabi_timestamp_t timeout;
      cloudabi_timestamp_t precision;
      cloudabi_subclockflags_t flags;
    } clock;
    struct {
      _Atomic(cloudabi_condvar_t) *condvar;
      _Atomic(cloudabi_lock_t) *lock;
      cloudabi_scope_t condvar_scope;
      cloudabi_scope_t lock_scope;
    } condvar;
    struct {
      cloudabi_fd_t fd;
      cloudabi_subrwflags_t flags;
    } fd_readwrite;
    struct {
      _Atomic(cloudabi_lock_t) *lock;
      cloudabi_scope_t lock_scope;
    } lock;
    struct {
      cloudabi_fd_t fd;
    } proc_terminate;
  };
} cloudabi_subscription_t;

typedef struct {
  void *parent;
} cloudabi_tcb_t;

typedef void cloudabi_threadentry_t(cloudabi_tid_t tid, void *aux);

typedef struct {
  cloudabi_threadentry_t *entry_point;
  void *stack;
  size_t stack_len;
  void *argument;
} cloudabi_threadattr_t;

typedef void cloudabi_processentry_t(const cloudabi_auxv_t *auxv);

/* Pin every layout the guest sees to the description. */
#define CLOUDABI__PIN_SIZE(s, size, align)                                     \
  _Static_assert(sizeof(cloudabi_##s##_t) == size, "size of " #s);            \
  _Static_assert(_Alignof(cloudabi_##s##_t) == align, "alignment of " #s);
#define CLOUDABI__PIN_MEMBER(s, member, offset, size)                          \
  _Static_assert(offsetof(cloudabi_##s##_t, member) == offset,                \
                 "offset of " #s "." #member);                                 \
  _Static_assert(sizeof(((cloudabi_##s##_t *)0)->member) == size,             \
                 "size of " #s "." #member);
CLOUDABI_STRUCT_SIZES(CLOUDABI__PIN_SIZE)
CLOUDABI_STRUCT_MEMBERS(CLOUDABI__PIN_MEMBER)
#undef CLOUDABI__PIN_SIZE
#undef CLOUDABI__PIN_MEMBER

#endif
