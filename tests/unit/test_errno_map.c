/*
 * The host errno translation (errno_map.c, abi/linux_errno.h): every errno
 * the file and descriptor calls' host system calls are documented to
 * return has a CloudABI errno of its own, never the ENOSYS that stands for
 * "no equivalent"; and the fix-ups' inputs translate as they should.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "host/errno_map.h"

static void test_file_errnos(void **state) {
  (void)state;
  /* From the man pages of openat2, fstat(at), mkdirat, linkat, renameat,
   * symlinkat, unlinkat, readlinkat, utimensat, ftruncate, fallocate,
   * posix_fadvise, fsync, pread/pwrite, lseek, getdents64, memfd_create,
   * socketpair, mmap and process_vm_readv, plus what file systems add. */
  static const struct {
    int host;
    cloudabi_errno_t want;
  } rows[] = {
      {EACCES, CLOUDABI_EACCES},
      {EAGAIN, CLOUDABI_EAGAIN},
      {EWOULDBLOCK, CLOUDABI_EAGAIN},
      {EBADF, CLOUDABI_EBADF},
      {EBUSY, CLOUDABI_EBUSY},
      {EDQUOT, CLOUDABI_EDQUOT},
      {EEXIST, CLOUDABI_EEXIST},
      {EFAULT, CLOUDABI_EFAULT},
      {EFBIG, CLOUDABI_EFBIG},
      {EINTR, CLOUDABI_EINTR},
      {EINVAL, CLOUDABI_EINVAL},
      {EIO, CLOUDABI_EIO},
      {EISDIR, CLOUDABI_EISDIR},
      {ELOOP, CLOUDABI_ELOOP},
      {EMFILE, CLOUDABI_EMFILE},
      {EMLINK, CLOUDABI_EMLINK},
      {ENAMETOOLONG, CLOUDABI_ENAMETOOLONG},
      {ENFILE, CLOUDABI_ENFILE},
      {ENODEV, CLOUDABI_ENODEV},
      {ENOENT, CLOUDABI_ENOENT},
      {ENOMEM, CLOUDABI_ENOMEM},
      {ENOSPC, CLOUDABI_ENOSPC},
      {ENOTDIR, CLOUDABI_ENOTDIR},
      {ENOTEMPTY, CLOUDABI_ENOTEMPTY},
      {ENXIO, CLOUDABI_ENXIO},
      {EOPNOTSUPP, CLOUDABI_ENOTSUP},
      {ENOTSUP, CLOUDABI_ENOTSUP},
      {EOVERFLOW, CLOUDABI_EOVERFLOW},
      {EPERM, CLOUDABI_EPERM},
      {EROFS, CLOUDABI_EROFS},
      {ETXTBSY, CLOUDABI_ETXTBSY},
      {EXDEV, CLOUDABI_EXDEV},
      {ESPIPE, CLOUDABI_ESPIPE},
      {ESRCH, CLOUDABI_ESRCH},
      {ESTALE, CLOUDABI_ESTALE},
      {ENOBUFS, CLOUDABI_ENOBUFS},
      {EAFNOSUPPORT, CLOUDABI_EAFNOSUPPORT},
      {EPROTONOSUPPORT, CLOUDABI_EPROTONOSUPPORT},
      {ENOLCK, CLOUDABI_ENOLCK},
      {EDEADLK, CLOUDABI_EDEADLK},
      {ENOTTY, CLOUDABI_ENOTTY},
      {ENOSYS, CLOUDABI_ENOSYS},
      /* Linux's own. */
      {EUCLEAN, CLOUDABI_EIO},
      {EREMOTEIO, CLOUDABI_EIO},
      {ENODATA, CLOUDABI_EIO},
      {ENOKEY, CLOUDABI_EACCES},
      {EKEYREVOKED, CLOUDABI_EACCES},
      {ENOMEDIUM, CLOUDABI_ENXIO},
      {EMEDIUMTYPE, CLOUDABI_ENXIO},
      {EBADFD, CLOUDABI_EBADF},
      {ESHUTDOWN, CLOUDABI_EPIPE},
      {ETIME, CLOUDABI_ETIMEDOUT},
  };
  for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
    if (errno_from_host(rows[i].host) != rows[i].want)
      fail_msg("host errno %d: %u, want %u", rows[i].host,
               errno_from_host(rows[i].host), rows[i].want);
  /* Out of range or unknown: ENOSYS, never an index out of the table. */
  assert_int_equal(errno_from_host(0), CLOUDABI_ENOSYS);
  assert_int_equal(errno_from_host(-1), CLOUDABI_ENOSYS);
  assert_int_equal(errno_from_host(100000), CLOUDABI_ENOSYS);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_file_errnos)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
