/*
 * The CloudABI x86-64 ABI as data: the one description every other part
 * of the project is expanded from (C types, syscall numbers, prototypes,
 * the vDSO's symbols, the supervisor's dispatch table, the trace decoder).
 *
 * Facts from the upstream specification (cloudabi.txt, BSD-2-Clause,
 * Copyright (c) 2016 Nuxi and contributors); see LICENSE.
 *
 * Format: each list is an X-macro.  Consumers define the element macro and
 * expand the list; nothing here declares anything by itself, so this file
 * can be included by freestanding guest code and the supervisor alike.
 */
#ifndef CLOUDABI_ABI_H
#define CLOUDABI_ABI_H

/*
 * Enumerations and flag sets: X(type, c_type, c_prefix, is_flags).
 * The values of type T are CLOUDABI_VALUES_T(V, u): V(u, NAME, value) with
 * u passed through for the consumer;
 * the C constant is CLOUDABI_<c_prefix><NAME>.
 */
#define CLOUDABI_ENUMS(X)                                                      \
  X(advice, uint8_t, ADVICE_, 0)                                               \
  X(auxtype, uint32_t, AT_, 0)                                                 \
  X(clockid, uint32_t, CLOCK_, 0)                                              \
  X(condvar, uint32_t, CONDVAR_, 0)                                            \
  X(dircookie, uint64_t, DIRCOOKIE_, 0)                                        \
  X(errno, uint16_t, E, 0)                                                     \
  X(eventrwflags, uint16_t, EVENT_FD_READWRITE_, 1)                            \
  X(eventtype, uint8_t, EVENTTYPE_, 0)                                         \
  X(fd, uint32_t, , 0)                                                         \
  X(fdflags, uint16_t, FDFLAG_, 1)                                             \
  X(fdsflags, uint16_t, FDSTAT_, 1)                                            \
  X(fsflags, uint16_t, FILESTAT_, 1)                                           \
  X(filetype, uint8_t, FILETYPE_, 0)                                           \
  X(lock, uint32_t, LOCK_, 0)                                                  \
  X(lookupflags, uint32_t, LOOKUP_, 1)                                         \
  X(mflags, uint8_t, MAP_, 1)                                                  \
  X(scope, uint8_t, SCOPE_, 0)                                                 \
  X(mprot, uint8_t, PROT_, 1)                                                  \
  X(msflags, uint8_t, MS_, 1)                                                  \
  X(oflags, uint16_t, O_, 1)                                                   \
  X(rights, uint64_t, RIGHT_, 1)                                               \
  X(sdflags, uint8_t, SHUT_, 1)                                                \
  X(siflags, uint16_t, SOCK_SEND_, 1)                                          \
  X(signal, uint8_t, SIG, 0)                                                   \
  X(subclockflags, uint16_t, SUBSCRIPTION_CLOCK_, 1)                           \
  X(subrwflags, uint16_t, SUBSCRIPTION_FD_READWRITE_, 1)                       \
  X(riflags, uint16_t, SOCK_RECV_, 1)                                          \
  X(roflags, uint16_t, SOCK_RECV_, 1)                                          \
  X(ulflags, uint8_t, UNLINK_, 1)                                              \
  X(whence, uint8_t, WHENCE_, 0)

#define CLOUDABI_VALUES_advice(V, u)                                              \
  V(u, DONTNEED, 1)                                                               \
  V(u, NOREUSE, 2)                                                                \
  V(u, NORMAL, 3)                                                                 \
  V(u, RANDOM, 4)                                                                 \
  V(u, SEQUENTIAL, 5)                                                             \
  V(u, WILLNEED, 6)

#define CLOUDABI_VALUES_auxtype(V, u)                                             \
  V(u, NULL, 0)                                                                   \
  V(u, PHDR, 3)                                                                   \
  V(u, PHNUM, 4)                                                                  \
  V(u, PAGESZ, 6)                                                                 \
  V(u, BASE, 7)                                                                   \
  V(u, ARGDATA, 256)                                                              \
  V(u, ARGDATALEN, 257)                                                           \
  V(u, CANARY, 258)                                                               \
  V(u, CANARYLEN, 259)                                                            \
  V(u, NCPUS, 260)                                                                \
  V(u, TID, 261)                                                                  \
  V(u, SYSINFO_EHDR, 262)                                                         \
  V(u, PID, 263)

#define CLOUDABI_VALUES_clockid(V, u)                                             \
  V(u, MONOTONIC, 1)                                                              \
  V(u, PROCESS_CPUTIME_ID, 2)                                                     \
  V(u, REALTIME, 3)                                                               \
  V(u, THREAD_CPUTIME_ID, 4)

#define CLOUDABI_VALUES_condvar(V, u) V(u, HAS_NO_WAITERS, 0)

#define CLOUDABI_VALUES_dircookie(V, u) V(u, START, 0)

#define CLOUDABI_VALUES_errno(V, u)                                               \
  V(u, SUCCESS, 0)                                                                \
  V(u, 2BIG, 1)                                                                   \
  V(u, ACCES, 2)                                                                  \
  V(u, ADDRINUSE, 3)                                                              \
  V(u, ADDRNOTAVAIL, 4)                                                           \
  V(u, AFNOSUPPORT, 5)                                                            \
  V(u, AGAIN, 6)                                                                  \
  V(u, ALREADY, 7)                                                                \
  V(u, BADF, 8)                                                                   \
  V(u, BADMSG, 9)                                                                 \
  V(u, BUSY, 10)                                                                  \
  V(u, CANCELED, 11)                                                              \
  V(u, CHILD, 12)                                                                 \
  V(u, CONNABORTED, 13)                                                           \
  V(u, CONNREFUSED, 14)                                                           \
  V(u, CONNRESET, 15)                                                             \
  V(u, DEADLK, 16)                                                                \
  V(u, DESTADDRREQ, 17)                                                           \
  V(u, DOM, 18)                                                                   \
  V(u, DQUOT, 19)                                                                 \
  V(u, EXIST, 20)                                                                 \
  V(u, FAULT, 21)                                                                 \
  V(u, FBIG, 22)                                                                  \
  V(u, HOSTUNREACH, 23)                                                           \
  V(u, IDRM, 24)                                                                  \
  V(u, ILSEQ, 25)                                                                 \
  V(u, INPROGRESS, 26)                                                            \
  V(u, INTR, 27)                                                                  \
  V(u, INVAL, 28)                                                                 \
  V(u, IO, 29)                                                                    \
  V(u, ISCONN, 30)                                                                \
  V(u, ISDIR, 31)                                                                 \
  V(u, LOOP, 32)                                                                  \
  V(u, MFILE, 33)                                                                 \
  V(u, MLINK, 34)                                                                 \
  V(u, MSGSIZE, 35)                                                               \
  V(u, MULTIHOP, 36)                                                              \
  V(u, NAMETOOLONG, 37)                                                           \
  V(u, NETDOWN, 38)                                                               \
  V(u, NETRESET, 39)                                                              \
  V(u, NETUNREACH, 40)                                                            \
  V(u, NFILE, 41)                                                                 \
  V(u, NOBUFS, 42)                                                                \
  V(u, NODEV, 43)                                                                 \
  V(u, NOENT, 44)                                                                 \
  V(u, NOEXEC, 45)                                                                \
  V(u, NOLCK, 46)                                                                 \
  V(u, NOLINK, 47)                                                                \
  V(u, NOMEM, 48)                                                                 \
  V(u, NOMSG, 49)                                                                 \
  V(u, NOPROTOOPT, 50)                                                            \
  V(u, NOSPC, 51)                                                                 \
  V(u, NOSYS, 52)                                                                 \
  V(u, NOTCONN, 53)                                                               \
  V(u, NOTDIR, 54)                                                                \
  V(u, NOTEMPTY, 55)                                                              \
  V(u, NOTRECOVERABLE, 56)                                                        \
  V(u, NOTSOCK, 57)                                                               \
  V(u, NOTSUP, 58)                                                                \
  V(u, NOTTY, 59)                                                                 \
  V(u, NXIO, 60)                                                                  \
  V(u, OVERFLOW, 61)                                                              \
  V(u, OWNERDEAD, 62)                                                             \
  V(u, PERM, 63)                                                                  \
  V(u, PIPE, 64)                                                                  \
  V(u, PROTO, 65)                                                                 \
  V(u, PROTONOSUPPORT, 66)                                                        \
  V(u, PROTOTYPE, 67)                                                             \
  V(u, RANGE, 68)                                                                 \
  V(u, ROFS, 69)                                                                  \
  V(u, SPIPE, 70)                                                                 \
  V(u, SRCH, 71)                                                                  \
  V(u, STALE, 72)                                                                 \
  V(u, TIMEDOUT, 73)                                                              \
  V(u, TXTBSY, 74)                                                                \
  V(u, XDEV, 75)                                                                  \
  V(u, NOTCAPABLE, 76)

#define CLOUDABI_VALUES_eventrwflags(V, u) V(u, HANGUP, 0x01)

#define CLOUDABI_VALUES_eventtype(V, u)                                           \
  V(u, CLOCK, 1)                                                                  \
  V(u, CONDVAR, 2)                                                                \
  V(u, FD_READ, 3)                                                                \
  V(u, FD_WRITE, 4)                                                               \
  V(u, LOCK_RDLOCK, 5)                                                            \
  V(u, LOCK_WRLOCK, 6)                                                            \
  V(u, PROC_TERMINATE, 7)

/* Special descriptor values (the spec's @cprefix is empty for fd). */
#define CLOUDABI_VALUES_fd(V, u)                                                  \
  V(u, PROCESS_CHILD, 0xffffffff)                                                 \
  V(u, MAP_ANON_FD, 0xffffffff)

#define CLOUDABI_VALUES_fdflags(V, u)                                             \
  V(u, APPEND, 0x01)                                                              \
  V(u, DSYNC, 0x02)                                                               \
  V(u, NONBLOCK, 0x04)                                                            \
  V(u, RSYNC, 0x08)                                                               \
  V(u, SYNC, 0x10)

#define CLOUDABI_VALUES_fdsflags(V, u)                                            \
  V(u, FLAGS, 0x01)                                                               \
  V(u, RIGHTS, 0x02)

#define CLOUDABI_VALUES_fsflags(V, u)                                             \
  V(u, ATIM, 0x01)                                                                \
  V(u, ATIM_NOW, 0x02)                                                            \
  V(u, MTIM, 0x04)                                                                \
  V(u, MTIM_NOW, 0x08)                                                            \
  V(u, SIZE, 0x10)

#define CLOUDABI_VALUES_filetype(V, u)                                            \
  V(u, UNKNOWN, 0x00)                                                             \
  V(u, BLOCK_DEVICE, 0x10)                                                        \
  V(u, CHARACTER_DEVICE, 0x11)                                                    \
  V(u, DIRECTORY, 0x20)                                                           \
  V(u, PROCESS, 0x50)                                                             \
  V(u, REGULAR_FILE, 0x60)                                                        \
  V(u, SHARED_MEMORY, 0x70)                                                       \
  V(u, SOCKET_DGRAM, 0x80)                                                        \
  V(u, SOCKET_STREAM, 0x82)                                                       \
  V(u, SYMBOLIC_LINK, 0x90)

/* Lock words: low 30 bits are the owner's tid or the reader count. */
#define CLOUDABI_VALUES_lock(V, u)                                                \
  V(u, UNLOCKED, 0)                                                               \
  V(u, WRLOCKED, 0x40000000)                                                      \
  V(u, KERNEL_MANAGED, 0x80000000)                                                \
  V(u, BOGUS, 0x80000000)

#define CLOUDABI_VALUES_lookupflags(V, u) V(u, SYMLINK_FOLLOW, 0x1)

#define CLOUDABI_VALUES_mflags(V, u)                                              \
  V(u, ANON, 0x01)                                                                \
  V(u, FIXED, 0x02)                                                               \
  V(u, PRIVATE, 0x04)                                                             \
  V(u, SHARED, 0x08)

#define CLOUDABI_VALUES_scope(V, u)                                               \
  V(u, PRIVATE, 4)                                                                \
  V(u, SHARED, 8)

/* Note: the reverse of Linux's PROT_* bit order. */
#define CLOUDABI_VALUES_mprot(V, u)                                               \
  V(u, EXEC, 0x01)                                                                \
  V(u, WRITE, 0x02)                                                               \
  V(u, READ, 0x04)

#define CLOUDABI_VALUES_msflags(V, u)                                             \
  V(u, ASYNC, 0x01)                                                               \
  V(u, INVALIDATE, 0x02)                                                          \
  V(u, SYNC, 0x04)

#define CLOUDABI_VALUES_oflags(V, u)                                              \
  V(u, CREAT, 0x01)                                                               \
  V(u, DIRECTORY, 0x02)                                                           \
  V(u, EXCL, 0x04)                                                                \
  V(u, TRUNC, 0x08)

/* Gaps are bits of rights removed from the ABI; they stay unassigned. */
#define CLOUDABI_VALUES_rights(V, u)                                              \
  V(u, FD_DATASYNC, 0x0000000000000001)                                           \
  V(u, FD_READ, 0x0000000000000002)                                               \
  V(u, FD_SEEK, 0x0000000000000004)                                               \
  V(u, FD_STAT_PUT_FLAGS, 0x0000000000000008)                                     \
  V(u, FD_SYNC, 0x0000000000000010)                                               \
  V(u, FD_TELL, 0x0000000000000020)                                               \
  V(u, FD_WRITE, 0x0000000000000040)                                              \
  V(u, FILE_ADVISE, 0x0000000000000080)                                           \
  V(u, FILE_ALLOCATE, 0x0000000000000100)                                         \
  V(u, FILE_CREATE_DIRECTORY, 0x0000000000000200)                                 \
  V(u, FILE_CREATE_FILE, 0x0000000000000400)                                      \
  V(u, FILE_LINK_SOURCE, 0x0000000000001000)                                      \
  V(u, FILE_LINK_TARGET, 0x0000000000002000)                                      \
  V(u, FILE_OPEN, 0x0000000000004000)                                             \
  V(u, FILE_READDIR, 0x0000000000008000)                                          \
  V(u, FILE_READLINK, 0x0000000000010000)                                         \
  V(u, FILE_RENAME_SOURCE, 0x0000000000020000)                                    \
  V(u, FILE_RENAME_TARGET, 0x0000000000040000)                                    \
  V(u, FILE_STAT_FGET, 0x0000000000080000)                                        \
  V(u, FILE_STAT_FPUT_SIZE, 0x0000000000100000)                                   \
  V(u, FILE_STAT_FPUT_TIMES, 0x0000000000200000)                                  \
  V(u, FILE_STAT_GET, 0x0000000000400000)                                         \
  V(u, FILE_STAT_PUT_TIMES, 0x0000000000800000)                                   \
  V(u, FILE_SYMLINK, 0x0000000001000000)                                          \
  V(u, FILE_UNLINK, 0x0000000002000000)                                           \
  V(u, MEM_MAP, 0x0000000004000000)                                               \
  V(u, MEM_MAP_EXEC, 0x0000000008000000)                                          \
  V(u, POLL_FD_READWRITE, 0x0000000010000000)                                     \
  V(u, POLL_PROC_TERMINATE, 0x0000000040000000)                                   \
  V(u, PROC_EXEC, 0x0000000100000000)                                             \
  V(u, SOCK_SHUTDOWN, 0x0000008000000000)

#define CLOUDABI_VALUES_sdflags(V, u)                                             \
  V(u, RD, 0x01)                                                                  \
  V(u, WR, 0x02)

/* No send flags are defined; sock_send requires 0. */
#define CLOUDABI_VALUES_siflags(V, u)

#define CLOUDABI_VALUES_signal(V, u)                                              \
  V(u, ABRT, 1)                                                                   \
  V(u, ALRM, 2)                                                                   \
  V(u, BUS, 3)                                                                    \
  V(u, CHLD, 4)                                                                   \
  V(u, CONT, 5)                                                                   \
  V(u, FPE, 6)                                                                    \
  V(u, HUP, 7)                                                                    \
  V(u, ILL, 8)                                                                    \
  V(u, INT, 9)                                                                    \
  V(u, KILL, 10)                                                                  \
  V(u, PIPE, 11)                                                                  \
  V(u, QUIT, 12)                                                                  \
  V(u, SEGV, 13)                                                                  \
  V(u, STOP, 14)                                                                  \
  V(u, SYS, 15)                                                                   \
  V(u, TERM, 16)                                                                  \
  V(u, TRAP, 17)                                                                  \
  V(u, TSTP, 18)                                                                  \
  V(u, TTIN, 19)                                                                  \
  V(u, TTOU, 20)                                                                  \
  V(u, URG, 21)                                                                   \
  V(u, USR1, 22)                                                                  \
  V(u, USR2, 23)                                                                  \
  V(u, VTALRM, 24)                                                                \
  V(u, XCPU, 25)                                                                  \
  V(u, XFSZ, 26)

#define CLOUDABI_VALUES_subclockflags(V, u) V(u, ABSTIME, 0x01)

/* POLL is deprecated: callers set it, implementations ignore it. */
#define CLOUDABI_VALUES_subrwflags(V, u) V(u, POLL, 0x01)

#define CLOUDABI_VALUES_riflags(V, u)                                             \
  V(u, PEEK, 0x04)                                                                \
  V(u, WAITALL, 0x10)

#define CLOUDABI_VALUES_roflags(V, u)                                             \
  V(u, FDS_TRUNCATED, 0x01)                                                       \
  V(u, DATA_TRUNCATED, 0x08)

#define CLOUDABI_VALUES_ulflags(V, u) V(u, REMOVEDIR, 0x01)

#define CLOUDABI_VALUES_whence(V, u)                                              \
  V(u, CUR, 1)                                                                    \
  V(u, END, 2)                                                                    \
  V(u, SET, 3)

/* Plain scalar types without named values: X(type, c_type). */
#define CLOUDABI_SCALARS(X)                                                    \
  X(device, uint64_t)                                                          \
  X(exitcode, uint32_t)                                                        \
  X(filedelta, int64_t)                                                        \
  X(filesize, uint64_t)                                                        \
  X(inode, uint64_t)                                                           \
  X(linkcount, uint32_t)                                                       \
  X(nthreads, uint32_t)                                                        \
  X(tid, uint32_t)                                                             \
  X(timestamp, uint64_t)                                                       \
  X(userdata, uint64_t)

/*
 * Struct layouts for x86-64: X(struct, member path, offset, size).
 * The C definitions in cloudabi_types.h are pinned against this table with
 * static_assert, and the unit tests walk it too.  SIZE(struct, bytes, align)
 * gives each struct's total size and alignment.
 */
#define CLOUDABI_STRUCT_SIZES(SIZE)                                            \
  SIZE(auxv, 16, 8)                                                            \
  SIZE(ciovec, 16, 8)                                                          \
  SIZE(dirent, 24, 8)                                                          \
  SIZE(event, 32, 8)                                                           \
  SIZE(fdstat, 24, 8)                                                          \
  SIZE(filestat, 56, 8)                                                        \
  SIZE(iovec, 16, 8)                                                           \
  SIZE(lookup, 8, 4)                                                           \
  SIZE(recv_in, 40, 8)                                                         \
  SIZE(recv_out, 64, 8)                                                        \
  SIZE(send_in, 40, 8)                                                         \
  SIZE(send_out, 8, 8)                                                         \
  SIZE(subscription, 56, 8)                                                    \
  SIZE(tcb, 8, 8)                                                              \
  SIZE(threadattr, 32, 8)

#define CLOUDABI_STRUCT_MEMBERS(X)                                             \
  X(auxv, a_type, 0, 4)                                                        \
  X(auxv, a_val, 8, 8)                                                         \
  X(auxv, a_ptr, 8, 8)                                                         \
  X(ciovec, buf, 0, 8)                                                         \
  X(ciovec, buf_len, 8, 8)                                                     \
  X(dirent, d_next, 0, 8)                                                      \
  X(dirent, d_ino, 8, 8)                                                       \
  X(dirent, d_namlen, 16, 4)                                                   \
  X(dirent, d_type, 20, 1)                                                     \
  X(event, userdata, 0, 8)                                                     \
  X(event, error, 8, 2)                                                        \
  X(event, type, 10, 1)                                                        \
  X(event, fd_readwrite.nbytes, 16, 8)                                         \
  X(event, fd_readwrite.unused, 24, 4)                                         \
  X(event, fd_readwrite.flags, 28, 2)                                          \
  X(event, proc_terminate.unused, 16, 4)                                       \
  X(event, proc_terminate.signal, 20, 1)                                       \
  X(event, proc_terminate.exitcode, 24, 4)                                     \
  X(fdstat, fs_filetype, 0, 1)                                                 \
  X(fdstat, fs_flags, 2, 2)                                                    \
  X(fdstat, fs_rights_base, 8, 8)                                              \
  X(fdstat, fs_rights_inheriting, 16, 8)                                       \
  X(filestat, st_dev, 0, 8)                                                    \
  X(filestat, st_ino, 8, 8)                                                    \
  X(filestat, st_filetype, 16, 1)                                              \
  X(filestat, st_nlink, 20, 4)                                                 \
  X(filestat, st_size, 24, 8)                                                  \
  X(filestat, st_atim, 32, 8)                                                  \
  X(filestat, st_mtim, 40, 8)                                                  \
  X(filestat, st_ctim, 48, 8)                                                  \
  X(iovec, buf, 0, 8)                                                          \
  X(iovec, buf_len, 8, 8)                                                      \
  X(lookup, fd, 0, 4)                                                          \
  X(lookup, flags, 4, 4)                                                       \
  X(recv_in, ri_data, 0, 8)                                                    \
  X(recv_in, ri_data_len, 8, 8)                                                \
  X(recv_in, ri_fds, 16, 8)                                                    \
  X(recv_in, ri_fds_len, 24, 8)                                                \
  X(recv_in, ri_flags, 32, 2)                                                  \
  X(recv_out, ro_datalen, 0, 8)                                                \
  X(recv_out, ro_fdslen, 8, 8)                                                 \
  X(recv_out, ro_unused, 16, 40)                                               \
  X(recv_out, ro_flags, 56, 2)                                                 \
  X(send_in, si_data, 0, 8)                                                    \
  X(send_in, si_data_len, 8, 8)                                                \
  X(send_in, si_fds, 16, 8)                                                    \
  X(send_in, si_fds_len, 24, 8)                                                \
  X(send_in, si_flags, 32, 2)                                                  \
  X(send_out, so_datalen, 0, 8)                                                \
  X(subscription, userdata, 0, 8)                                              \
  X(subscription, unused, 8, 2)                                                \
  X(subscription, type, 10, 1)                                                 \
  X(subscription, clock.identifier, 16, 8)                                     \
  X(subscription, clock.clock_id, 24, 4)                                       \
  X(subscription, clock.timeout, 32, 8)                                        \
  X(subscription, clock.precision, 40, 8)                                      \
  X(subscription, clock.flags, 48, 2)                                          \
  X(subscription, condvar.condvar, 16, 8)                                      \
  X(subscription, condvar.lock, 24, 8)                                         \
  X(subscription, condvar.condvar_scope, 32, 1)                                \
  X(subscription, condvar.lock_scope, 33, 1)                                   \
  X(subscription, fd_readwrite.fd, 16, 4)                                      \
  X(subscription, fd_readwrite.flags, 20, 2)                                   \
  X(subscription, lock.lock, 16, 8)                                            \
  X(subscription, lock.lock_scope, 24, 1)                                      \
  X(subscription, proc_terminate.fd, 16, 4)                                    \
  X(tcb, parent, 0, 8)                                                         \
  X(threadattr, entry_point, 0, 8)                                             \
  X(threadattr, stack, 8, 8)                                                   \
  X(threadattr, stack_len, 16, 8)                                              \
  X(threadattr, argument, 24, 8)

/*
 * Argument kinds: X(kind, c_type).  A kind says what an argument register
 * holds, precisely enough for the C prototype, the trace decoder and the
 * vDSO's result stores.  Kinds ending in _len hold the length of the
 * argument before them.  out_* kinds are result pointers that the vDSO
 * stub fills from the supervisor's return value (out_*2 from its high 32
 * bits, for the two calls with two results).
 */
#define CLOUDABI_ARG_KINDS(X)                                                  \
  X(fd, cloudabi_fd_t)                                                         \
  X(lookup, cloudabi_lookup_t)                                                 \
  X(path, const char *)                                                        \
  X(path_len, size_t)                                                          \
  X(ciovs, const cloudabi_ciovec_t *)                                          \
  X(iovs, const cloudabi_iovec_t *)                                            \
  X(iovs_len, size_t)                                                          \
  X(buf_out, void *)                                                           \
  X(char_out, char *)                                                          \
  X(buf_in, const void *)                                                      \
  X(buf_len, size_t)                                                           \
  X(fds_in, const cloudabi_fd_t *)                                             \
  X(fds_len, size_t)                                                           \
  X(mem, void *)                                                               \
  X(mem_len, size_t)                                                           \
  X(size, size_t)                                                              \
  X(filesize, cloudabi_filesize_t)                                             \
  X(filedelta, cloudabi_filedelta_t)                                           \
  X(dircookie, cloudabi_dircookie_t)                                           \
  X(timestamp, cloudabi_timestamp_t)                                           \
  X(exitcode, cloudabi_exitcode_t)                                             \
  X(nthreads, cloudabi_nthreads_t)                                             \
  X(advice, cloudabi_advice_t)                                                 \
  X(clockid, cloudabi_clockid_t)                                               \
  X(fdsflags, cloudabi_fdsflags_t)                                             \
  X(filetype, cloudabi_filetype_t)                                             \
  X(fsflags, cloudabi_fsflags_t)                                               \
  X(mflags, cloudabi_mflags_t)                                                 \
  X(mprot, cloudabi_mprot_t)                                                   \
  X(msflags, cloudabi_msflags_t)                                               \
  X(oflags, cloudabi_oflags_t)                                                 \
  X(scope, cloudabi_scope_t)                                                   \
  X(sdflags, cloudabi_sdflags_t)                                               \
  X(signal, cloudabi_signal_t)                                                 \
  X(ulflags, cloudabi_ulflags_t)                                               \
  X(whence, cloudabi_whence_t)                                                 \
  X(fdstat_in, const cloudabi_fdstat_t *)                                      \
  X(fdstat_out, cloudabi_fdstat_t *)                                           \
  X(filestat_in, const cloudabi_filestat_t *)                                  \
  X(filestat_out, cloudabi_filestat_t *)                                       \
  X(subscriptions, const cloudabi_subscription_t *)                            \
  X(events, cloudabi_event_t *)                                                \
  X(recv_in, const cloudabi_recv_in_t *)                                       \
  X(recv_out, cloudabi_recv_out_t *)                                           \
  X(send_in, const cloudabi_send_in_t *)                                       \
  X(send_out, cloudabi_send_out_t *)                                           \
  X(threadattr, cloudabi_threadattr_t *)                                       \
  X(lock_ptr, _Atomic(cloudabi_lock_t) *)                                      \
  X(condvar_ptr, _Atomic(cloudabi_condvar_t) *)                                \
  X(out_fd, cloudabi_fd_t *)                                                   \
  X(out_fd2, cloudabi_fd_t *)                                                  \
  X(out_tid, cloudabi_tid_t *)                                                 \
  X(out_tid2, cloudabi_tid_t *)                                                \
  X(out_size, size_t *)                                                        \
  X(out_filesize, cloudabi_filesize_t *)                                       \
  X(out_timestamp, cloudabi_timestamp_t *)                                     \
  X(out_mem, void **)

/*
 * The 49 system calls, in the spec's alphabetical order; a call's number
 * is its position.  S(name, where, nargs, (args...)):
 *   where: TRAP   the vDSO traps to the supervisor;
 *          LOCAL  the vDSO performs it with Linux calls the filter allows;
 *          MIXED  the vDSO decides per call, or prepares the call before
 *                 it traps (mem_map of a file, poll on something other
 *                 than a lock or condvar; descriptor I/O through the
 *                 shared I/O slots, see trap.h).
 *   args:  (kind, name, rights), rights being what a descriptor argument
 *          must carry before the call is looked at any further (0 for
 *          non-descriptors, and for rights that depend on other arguments,
 *          which the handler checks).
 * mem_map has seven arguments: the last one is passed on the stack.
 */
#define CLOUDABI_SYSCALLS(S)                                                   \
  S(clock_res_get, LOCAL, 2,                                                   \
    ((clockid, clock_id, 0), (out_timestamp, resolution, 0)))                  \
  S(clock_time_get, LOCAL, 3,                                                  \
    ((clockid, clock_id, 0), (timestamp, precision, 0),                        \
     (out_timestamp, time, 0)))                                                \
  S(condvar_signal, LOCAL, 3,                                                  \
    ((condvar_ptr, condvar, 0), (scope, scope, 0), (nthreads, nwaiters, 0)))   \
  S(fd_close, MIXED, 1, ((fd, fd, 0)))                                         \
  S(fd_create1, TRAP, 2, ((filetype, type, 0), (out_fd, fd, 0)))               \
  S(fd_create2, TRAP, 3,                                                       \
    ((filetype, type, 0), (out_fd, fd1, 0), (out_fd2, fd2, 0)))                \
  S(fd_datasync, TRAP, 1, ((fd, fd, CLOUDABI_R(FD_DATASYNC))))                             \
  S(fd_dup, TRAP, 2, ((fd, from, 0), (out_fd, fd, 0)))                         \
  S(fd_pread, MIXED, 5,                                                         \
    ((fd, fd, CLOUDABI_R(FD_READ) | CLOUDABI_R(FD_SEEK)), (iovs, iovs, 0), (iovs_len, iovs_len, 0),    \
     (filesize, offset, 0), (out_size, nread, 0)))                             \
  S(fd_pwrite, MIXED, 5,                                                        \
    ((fd, fd, CLOUDABI_R(FD_WRITE) | CLOUDABI_R(FD_SEEK)), (ciovs, iovs, 0), (iovs_len, iovs_len, 0),  \
     (filesize, offset, 0), (out_size, nwritten, 0)))                          \
  S(fd_read, MIXED, 4,                                                          \
    ((fd, fd, CLOUDABI_R(FD_READ)), (iovs, iovs, 0), (iovs_len, iovs_len, 0),              \
     (out_size, nread, 0)))                                                    \
  S(fd_replace, TRAP, 2, ((fd, from, 0), (fd, to, 0)))                         \
  S(fd_seek, TRAP, 4,                                                          \
    ((fd, fd, 0), (filedelta, offset, 0), (whence, whence, 0),                 \
     (out_filesize, newoffset, 0)))                                            \
  S(fd_stat_get, MIXED, 2, ((fd, fd, 0), (fdstat_out, buf, 0)))                 \
  S(fd_stat_put, TRAP, 3,                                                      \
    ((fd, fd, 0), (fdstat_in, buf, 0), (fdsflags, flags, 0)))                  \
  S(fd_sync, TRAP, 1, ((fd, fd, CLOUDABI_R(FD_SYNC))))                                     \
  S(fd_write, MIXED, 4,                                                         \
    ((fd, fd, CLOUDABI_R(FD_WRITE)), (ciovs, iovs, 0), (iovs_len, iovs_len, 0),            \
     (out_size, nwritten, 0)))                                                 \
  S(file_advise, TRAP, 4,                                                      \
    ((fd, fd, CLOUDABI_R(FILE_ADVISE)), (filesize, offset, 0), (filesize, len, 0),         \
     (advice, advice, 0)))                                                     \
  S(file_allocate, TRAP, 3,                                                    \
    ((fd, fd, CLOUDABI_R(FILE_ALLOCATE)), (filesize, offset, 0), (filesize, len, 0)))      \
  S(file_create, TRAP, 4,                                                      \
    ((fd, fd, 0), (path, path, 0), (path_len, path_len, 0),                    \
     (filetype, type, 0)))                                                     \
  S(file_link, TRAP, 6,                                                        \
    ((lookup, fd1, CLOUDABI_R(FILE_LINK_SOURCE)), (path, path1, 0),                        \
     (path_len, path1_len, 0), (fd, fd2, CLOUDABI_R(FILE_LINK_TARGET)),                    \
     (path, path2, 0), (path_len, path2_len, 0)))                              \
  S(file_open, TRAP, 6,                                                        \
    ((lookup, dirfd, CLOUDABI_R(FILE_OPEN)), (path, path, 0), (path_len, path_len, 0),     \
     (oflags, oflags, 0), (fdstat_in, fds, 0), (out_fd, fd, 0)))               \
  S(file_readdir, TRAP, 5,                                                     \
    ((fd, fd, CLOUDABI_R(FILE_READDIR)), (buf_out, buf, 0), (buf_len, buf_len, 0),         \
     (dircookie, cookie, 0), (out_size, bufused, 0)))                          \
  S(file_readlink, TRAP, 6,                                                    \
    ((fd, fd, CLOUDABI_R(FILE_READLINK)), (path, path, 0), (path_len, path_len, 0),        \
     (char_out, buf, 0), (buf_len, buf_len, 0), (out_size, bufused, 0)))       \
  S(file_rename, TRAP, 6,                                                      \
    ((fd, fd1, CLOUDABI_R(FILE_RENAME_SOURCE)), (path, path1, 0),                          \
     (path_len, path1_len, 0), (fd, fd2, CLOUDABI_R(FILE_RENAME_TARGET)),                  \
     (path, path2, 0), (path_len, path2_len, 0)))                              \
  S(file_stat_fget, MIXED, 2,                                                  \
    ((fd, fd, CLOUDABI_R(FILE_STAT_FGET)), (filestat_out, buf, 0)))                        \
  S(file_stat_fput, TRAP, 3,                                                   \
    ((fd, fd, 0), (filestat_in, buf, 0), (fsflags, flags, 0)))                 \
  S(file_stat_get, TRAP, 4,                                                    \
    ((lookup, fd, CLOUDABI_R(FILE_STAT_GET)), (path, path, 0), (path_len, path_len, 0),    \
     (filestat_out, buf, 0)))                                                  \
  S(file_stat_put, TRAP, 5,                                                    \
    ((lookup, fd, CLOUDABI_R(FILE_STAT_PUT_TIMES)), (path, path, 0),                       \
     (path_len, path_len, 0), (filestat_in, buf, 0), (fsflags, flags, 0)))     \
  S(file_symlink, TRAP, 5,                                                     \
    ((path, path1, 0), (path_len, path1_len, 0), (fd, fd, CLOUDABI_R(FILE_SYMLINK)),       \
     (path, path2, 0), (path_len, path2_len, 0)))                              \
  S(file_unlink, TRAP, 4,                                                      \
    ((fd, fd, CLOUDABI_R(FILE_UNLINK)), (path, path, 0), (path_len, path_len, 0),          \
     (ulflags, flags, 0)))                                                     \
  S(lock_unlock, LOCAL, 2, ((lock_ptr, lock, 0), (scope, scope, 0)))           \
  S(mem_advise, LOCAL, 3,                                                      \
    ((mem, mapping, 0), (mem_len, mapping_len, 0), (advice, advice, 0)))       \
  S(mem_map, MIXED, 7,                                                         \
    ((mem, addr, 0), (mem_len, len, 0), (mprot, prot, 0),                      \
     (mflags, flags, 0), (fd, fd, 0), (filesize, off, 0),                      \
     (out_mem, mem, 0)))                                                       \
  S(mem_protect, LOCAL, 3,                                                     \
    ((mem, mapping, 0), (mem_len, mapping_len, 0), (mprot, prot, 0)))          \
  S(mem_sync, LOCAL, 3,                                                        \
    ((mem, mapping, 0), (mem_len, mapping_len, 0), (msflags, flags, 0)))       \
  S(mem_unmap, LOCAL, 2, ((mem, mapping, 0), (mem_len, mapping_len, 0)))       \
  S(poll, MIXED, 4,                                                            \
    ((subscriptions, in, 0), (events, out, 0), (size, nsubscriptions, 0),      \
     (out_size, nevents, 0)))                                                  \
  S(proc_exec, TRAP, 5,                                                        \
    ((fd, fd, CLOUDABI_R(PROC_EXEC)), (buf_in, data, 0), (buf_len, data_len, 0),           \
     (fds_in, fds, 0), (fds_len, fds_len, 0)))                                 \
  S(proc_exit, LOCAL, 1, ((exitcode, rval, 0)))                                \
  S(proc_fork, MIXED, 2, ((out_fd, fd, 0), (out_tid2, tid, 0)))                 \
  S(proc_raise, TRAP, 1, ((signal, sig, 0)))                                   \
  S(random_get, LOCAL, 2, ((buf_out, buf, 0), (buf_len, buf_len, 0)))          \
  S(sock_recv, MIXED, 3,                                                        \
    ((fd, sock, CLOUDABI_R(FD_READ)), (recv_in, in, 0), (recv_out, out, 0)))               \
  S(sock_send, MIXED, 3,                                                       \
    ((fd, sock, CLOUDABI_R(FD_WRITE)), (send_in, in, 0), (send_out, out, 0)))              \
  S(sock_shutdown, TRAP, 2, ((fd, sock, CLOUDABI_R(SOCK_SHUTDOWN)), (sdflags, how, 0)))    \
  S(thread_create, LOCAL, 2, ((threadattr, attr, 0), (out_tid, tid, 0)))       \
  S(thread_exit, LOCAL, 2, ((lock_ptr, lock, 0), (scope, scope, 0)))           \
  S(thread_yield, LOCAL, 0, ())

/* Rights named in the syscall table. */
#define CLOUDABI_R(name) CLOUDABI_RIGHT_##name

/* Calls that never return: CLOUDABI_IS_NORETURN(name) is 1 or 0. */
#define CLOUDABI__PROBE ~, 1
#define CLOUDABI__SECOND(a, b, ...) b
#define CLOUDABI__IS_PROBE(...) CLOUDABI__SECOND(__VA_ARGS__, 0, 0)
#define CLOUDABI_NORETURN_proc_exit CLOUDABI__PROBE
#define CLOUDABI_NORETURN_thread_exit CLOUDABI__PROBE
#define CLOUDABI_IS_NORETURN(name) CLOUDABI__IS_PROBE(CLOUDABI_NORETURN_##name)

/*
 * Expansion helpers.  CLOUDABI_ARGS_FOREACH(M, SEP, n, (args...)) expands
 * M(index, kind, name, rights) for each argument, with SEP() between them.
 */
#define CLOUDABI__UNPAREN(...) __VA_ARGS__
#define CLOUDABI__CALL(M, i, t) CLOUDABI__CALL2(M, i, CLOUDABI__UNPAREN t)
#define CLOUDABI__CALL2(M, ...) M(__VA_ARGS__)
#define CLOUDABI__FE0(M, S, ...)
#define CLOUDABI__FE1(M, S, a) CLOUDABI__CALL(M, 0, a)
#define CLOUDABI__FE2(M, S, a, b) CLOUDABI__FE1(M, S, a) S() CLOUDABI__CALL(M, 1, b)
#define CLOUDABI__FE3(M, S, a, b, c)                                           \
  CLOUDABI__FE2(M, S, a, b) S() CLOUDABI__CALL(M, 2, c)
#define CLOUDABI__FE4(M, S, a, b, c, d)                                        \
  CLOUDABI__FE3(M, S, a, b, c) S() CLOUDABI__CALL(M, 3, d)
#define CLOUDABI__FE5(M, S, a, b, c, d, e)                                     \
  CLOUDABI__FE4(M, S, a, b, c, d) S() CLOUDABI__CALL(M, 4, e)
#define CLOUDABI__FE6(M, S, a, b, c, d, e, f)                                  \
  CLOUDABI__FE5(M, S, a, b, c, d, e) S() CLOUDABI__CALL(M, 5, f)
#define CLOUDABI__FE7(M, S, a, b, c, d, e, f, g)                               \
  CLOUDABI__FE6(M, S, a, b, c, d, e, f) S() CLOUDABI__CALL(M, 6, g)
#define CLOUDABI__FEN(M, S, n, ...) CLOUDABI__FE##n(M, S, __VA_ARGS__)
#define CLOUDABI_ARGS_FOREACH(M, S, n, args)                                   \
  CLOUDABI__FEX(M, S, n, CLOUDABI__UNPAREN args)
#define CLOUDABI__FEX(M, S, n, ...) CLOUDABI__FEN(M, S, n, __VA_ARGS__)
#define CLOUDABI_SEP_NONE()
#define CLOUDABI_SEP_COMMA() ,

#endif
