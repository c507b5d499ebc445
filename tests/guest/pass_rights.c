/*
 * Passing a descriptor over a socket never widens it (issue 11.2): it
 * arrives with exactly the sender's base and inheriting rights and its
 * CloudABI type, narrowed only by the receiving socket's inheriting
 * rights.  Over stream and datagram pairs from fd_create2, between two
 * processes, after a peek, passed on a second time, and with two
 * capabilities of one open file description in one message.
 */
#include "check.h"

static cloudabi_fd_t out, dir, file;

#define FILE_RO (R(FD_READ) | R(FD_SEEK))

static void send_fds(cloudabi_fd_t sock, const cloudabi_fd_t *fds, size_t n) {
  char byte = 'x';
  cloudabi_ciovec_t iov = {&byte, 1};
  cloudabi_send_in_t in = {&iov, 1, fds, n, 0};
  cloudabi_send_out_t o;
  RT_EXPECT(cloudabi_sys_sock_send(sock, &in, &o), 0);
}

static size_t recv_fds(cloudabi_fd_t sock, cloudabi_fd_t *fds, size_t n,
                       cloudabi_riflags_t flags) {
  char byte;
  cloudabi_iovec_t iov = {&byte, 1};
  cloudabi_recv_in_t in = {&iov, 1, fds, n, flags};
  cloudabi_recv_out_t o;
  RT_EXPECT(cloudabi_sys_sock_recv(sock, &in, &o), 0);
  return o.ro_fdslen;
}

/* got has exactly want's type and rights. */
static void same_as(const char *row, cloudabi_fd_t got, cloudabi_filetype_t type,
                    cloudabi_rights_t base, cloudabi_rights_t inheriting) {
  cloudabi_fdstat_t st = fdstat(got);
  if (st.fs_filetype != type || st.fs_rights_base != base ||
      st.fs_rights_inheriting != inheriting) {
    check_failed++;
    rt_printf(rt_log_fd,
              "FAIL %s: type %u base 0x%llx inheriting 0x%llx, want type %u "
              "base 0x%llx inheriting 0x%llx\n",
              row, st.fs_filetype, (unsigned long long)st.fs_rights_base,
              (unsigned long long)st.fs_rights_inheriting, type,
              (unsigned long long)base, (unsigned long long)inheriting);
  } else {
    rt_checks_passed++;
  }
}

/* Sends fd over a and receives it on b: the new number. */
static cloudabi_fd_t pass(cloudabi_fd_t a, cloudabi_fd_t b, cloudabi_fd_t fd) {
  send_fds(a, &fd, 1);
  cloudabi_fd_t got = (cloudabi_fd_t)-1;
  RT_CHECK(recv_fds(b, &got, 1, 0) == 1);
  return got;
}

static const cloudabi_rights_t dir_ro =
    R(FILE_OPEN) | R(FILE_READDIR) | R(FILE_STAT_GET);
static const cloudabi_rights_t dir_ro_inh = R(FD_READ) | R(FILE_STAT_FGET);

/* A read-only view of the directory: still read-only on the far side. */
static void check_dir(const char *row, cloudabi_fd_t got) {
  same_as(row, got, CLOUDABI_FILETYPE_DIRECTORY, dir_ro, dir_ro_inh);
  cloudabi_fd_t f;
  check(row, "create a file",
        open_file(got, "new.txt", CLOUDABI_O_CREAT, R(FD_WRITE), 0, 0, &f),
        CLOUDABI_ENOTCAPABLE);
  check(row, "make a directory",
        cloudabi_sys_file_create(got, "sub", 3, CLOUDABI_FILETYPE_DIRECTORY),
        CLOUDABI_ENOTCAPABLE);
  check(row, "unlink", unlink_path(got, "f.txt", 0), CLOUDABI_ENOTCAPABLE);
  check(row, "open for writing",
        open_file(got, "f.txt", 0, R(FD_WRITE), 0, 0, &f),
        CLOUDABI_ENOTCAPABLE);
  RT_EXPECT(open_file(got, "f.txt", 0, R(FD_READ), 0, 0, &f), 0);
  RT_EXPECT(cloudabi_sys_fd_close(f), 0);
}

static void check_file(const char *row, cloudabi_fd_t got) {
  same_as(row, got, CLOUDABI_FILETYPE_REGULAR_FILE, FILE_RO, 0);
  cloudabi_ciovec_t iov = {"y", 1};
  size_t n;
  check(row, "write", cloudabi_sys_fd_write(got, &iov, 1, &n),
        CLOUDABI_ENOTCAPABLE);
  char c[4];
  cloudabi_iovec_t riov = {c, sizeof(c)};
  RT_EXPECT(cloudabi_sys_fd_pread(got, &riov, 1, 0, &n), 0);
  RT_CHECK(n == 4 && memcmp(c, "file", 4) == 0);
}

static void over_pair(const char *row, cloudabi_filetype_t type) {
  cloudabi_fd_t a, b;
  RT_EXPECT(cloudabi_sys_fd_create2(type, &a, &b), 0);
  cloudabi_fd_t rd = narrowed(dir, dir_ro, dir_ro_inh);
  cloudabi_fd_t rf = narrowed(file, FILE_RO, 0);
  cloudabi_fd_t shm;
  RT_EXPECT(cloudabi_sys_fd_create1(CLOUDABI_FILETYPE_SHARED_MEMORY, &shm), 0);
  cloudabi_rights_t shm_base = R(FD_READ) | R(MEM_MAP);
  cloudabi_fd_t rs = narrowed(shm, shm_base, 0);

  cloudabi_fd_t got = pass(a, b, rd);
  check_dir(row, got);
  /* Passed on once more, back the other way. */
  cloudabi_fd_t again = pass(b, a, got);
  check_dir(row, again);
  RT_EXPECT(cloudabi_sys_fd_close(again), 0);
  RT_EXPECT(cloudabi_sys_fd_close(got), 0);

  got = pass(a, b, rf);
  check_file(row, got);
  RT_EXPECT(cloudabi_sys_fd_close(got), 0);

  got = pass(a, b, rs);
  same_as(row, got, CLOUDABI_FILETYPE_SHARED_MEMORY, shm_base, 0);
  RT_EXPECT(cloudabi_sys_fd_close(got), 0);

  /* A peek shows it as sent, and so does the receive after it. */
  send_fds(a, &rf, 1);
  cloudabi_fd_t peeked = (cloudabi_fd_t)-1;
  RT_CHECK(recv_fds(b, &peeked, 1, CLOUDABI_SOCK_RECV_PEEK) == 1);
  check_file(row, peeked);
  RT_CHECK(recv_fds(b, &got, 1, 0) == 1);
  check_file(row, got);
  RT_EXPECT(cloudabi_sys_fd_close(peeked), 0);
  RT_EXPECT(cloudabi_sys_fd_close(got), 0);

  /* Two capabilities of one open file description, narrow and wide, in
   * one message: neither arrives wider than it was. */
  cloudabi_fd_t both[2] = {rf, file};
  send_fds(a, both, 2);
  cloudabi_fd_t two[2];
  RT_CHECK(recv_fds(b, two, 2, 0) == 2);
  check_file(row, two[0]);
  cloudabi_fdstat_t wide = fdstat(file), st = fdstat(two[1]);
  RT_CHECK((st.fs_rights_base & ~wide.fs_rights_base) == 0);
  RT_EXPECT(cloudabi_sys_fd_close(two[0]), 0);
  RT_EXPECT(cloudabi_sys_fd_close(two[1]), 0);

  /* A receiving socket that lets descriptors inherit less narrows them. */
  cloudabi_fdstat_t bst = fdstat(b);
  cloudabi_fd_t nb = narrowed(b, bst.fs_rights_base, R(FILE_STAT_FGET));
  got = pass(a, nb, rf);
  same_as(row, got, CLOUDABI_FILETYPE_REGULAR_FILE, 0, 0);
  RT_EXPECT(cloudabi_sys_fd_close(got), 0);
  RT_EXPECT(cloudabi_sys_fd_close(nb), 0);

  /* More descriptors than the receiver has room for: the rest are gone,
   * and what is received later is still exact. */
  cloudabi_fd_t three[3] = {rd, rd, rd};
  send_fds(a, three, 3);
  RT_CHECK(recv_fds(b, &got, 1, 0) == 1);
  check_dir(row, got);
  RT_EXPECT(cloudabi_sys_fd_close(got), 0);
  got = pass(a, b, rf);
  check_file(row, got);
  RT_EXPECT(cloudabi_sys_fd_close(got), 0);

  RT_EXPECT(cloudabi_sys_fd_close(rd), 0);
  RT_EXPECT(cloudabi_sys_fd_close(rf), 0);
  RT_EXPECT(cloudabi_sys_fd_close(rs), 0);
  RT_EXPECT(cloudabi_sys_fd_close(shm), 0);
  RT_EXPECT(cloudabi_sys_fd_close(a), 0);
  RT_EXPECT(cloudabi_sys_fd_close(b), 0);
}

/* A forked child sends its narrowed copies to the parent. */
static void across_processes(void) {
  cloudabi_fd_t a, b;
  RT_EXPECT(cloudabi_sys_fd_create2(CLOUDABI_FILETYPE_SOCKET_STREAM, &a, &b),
            0);
  cloudabi_fd_t pd;
  cloudabi_tid_t tid;
  RT_EXPECT(cloudabi_sys_proc_fork(&pd, &tid), 0);
  if (pd == CLOUDABI_PROCESS_CHILD) {
    cloudabi_fd_t fds[2] = {narrowed(dir, dir_ro, dir_ro_inh),
                            narrowed(file, FILE_RO, 0)};
    send_fds(a, fds, 2);
    cloudabi_sys_proc_exit(0);
  }
  cloudabi_fd_t got[2];
  RT_CHECK(recv_fds(b, got, 2, 0) == 2);
  check_dir("fork", got[0]);
  check_file("fork", got[1]);
  RT_EXPECT(cloudabi_sys_fd_close(got[0]), 0);
  RT_EXPECT(cloudabi_sys_fd_close(got[1]), 0);
  RT_EXPECT(cloudabi_sys_fd_close(pd), 0);
  RT_EXPECT(cloudabi_sys_fd_close(a), 0);
  RT_EXPECT(cloudabi_sys_fd_close(b), 0);
}

void program_main(const argdata_t *ad) {
  out = rt_map_fd(ad, "out");
  rt_log_fd = out;
  dir = rt_map_fd(ad, "dir");
  file = rt_map_fd(ad, "file");
  over_pair("stream", CLOUDABI_FILETYPE_SOCKET_STREAM);
  over_pair("dgram", CLOUDABI_FILETYPE_SOCKET_DGRAM);
  across_processes();
  check_done("pass_rights");
}
