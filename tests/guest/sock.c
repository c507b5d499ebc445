/*
 * sock_send, sock_recv and sock_shutdown over a connected pair of Unix
 * datagram sockets from the config: data, descriptors passed (and usable
 * afterwards, with rights narrowed by the socket's inheriting rights),
 * truncation of data and of descriptors, peeking, and the error paths.
 */
#include "rt.h"

#define R(x) CLOUDABI_RIGHT_##x
#define BAD_PTR ((void *)0x10)

static cloudabi_fd_t out, rx, tx, file;

static cloudabi_errno_t send_msg(cloudabi_fd_t fd, const char *text,
                                 const cloudabi_fd_t *fds, size_t nfds,
                                 size_t *sent) {
  cloudabi_ciovec_t iov = {text, strlen(text)};
  cloudabi_send_in_t in = {&iov, 1, fds, nfds, 0};
  cloudabi_send_out_t o = {0};
  cloudabi_errno_t e = cloudabi_sys_sock_send(fd, &in, &o);
  *sent = o.so_datalen;
  return e;
}

static void test_data_and_fds(void) {
  size_t sent;
  cloudabi_fd_t pass[1] = {file};
  RT_EXPECT(send_msg(tx, "hello", pass, 1, &sent), 0);
  RT_CHECK(sent == 5);

  char buf[16];
  cloudabi_iovec_t iov = {buf, sizeof(buf)};
  cloudabi_fd_t got[4] = {99, 99, 99, 99};
  cloudabi_recv_in_t in = {&iov, 1, got, 4, 0};
  cloudabi_recv_out_t o;
  RT_EXPECT(cloudabi_sys_sock_recv(rx, &in, &o), 0);
  RT_CHECK(o.ro_datalen == 5 && memcmp(buf, "hello", 5) == 0);
  RT_CHECK(o.ro_fdslen == 1 && o.ro_flags == 0);
  /* The received descriptor is the file, with no more rights than rx
   * lets descriptors inherit (the config narrowed them to FD_READ). */
  cloudabi_fdstat_t st;
  RT_EXPECT(cloudabi_sys_fd_stat_get(got[0], &st), 0);
  RT_CHECK(st.fs_filetype == CLOUDABI_FILETYPE_REGULAR_FILE);
  RT_CHECK(st.fs_rights_base == R(FD_READ));
  char c[4];
  cloudabi_iovec_t fiov = {c, 4};
  size_t n;
  RT_EXPECT(cloudabi_sys_fd_read(got[0], &fiov, 1, &n), 0);
  RT_CHECK(n == 4 && memcmp(c, "file", 4) == 0);
  RT_EXPECT(cloudabi_sys_fd_close(got[0]), 0);
}

static void test_truncation_and_peek(void) {
  size_t sent;
  cloudabi_fd_t pass[3] = {file, file, file};
  RT_EXPECT(send_msg(tx, "0123456789", pass, 3, &sent), 0);
  char buf[4];
  cloudabi_iovec_t iov = {buf, sizeof(buf)};
  cloudabi_fd_t got[1];
  cloudabi_recv_in_t in = {&iov, 1, got, 1, CLOUDABI_SOCK_RECV_PEEK};
  cloudabi_recv_out_t o;
  /* Peeking leaves the message; no descriptor room needed to see data. */
  in.ri_fds_len = 0;
  RT_EXPECT(cloudabi_sys_sock_recv(rx, &in, &o), 0);
  RT_CHECK(o.ro_datalen == 4 && memcmp(buf, "0123", 4) == 0);
  RT_CHECK((o.ro_flags & CLOUDABI_SOCK_RECV_DATA_TRUNCATED) != 0);
  in.ri_flags = 0;
  in.ri_fds_len = 1;
  RT_EXPECT(cloudabi_sys_sock_recv(rx, &in, &o), 0);
  RT_CHECK(o.ro_datalen == 4);
  RT_CHECK(o.ro_flags == (CLOUDABI_SOCK_RECV_DATA_TRUNCATED |
                          CLOUDABI_SOCK_RECV_FDS_TRUNCATED));
  RT_CHECK(o.ro_fdslen == 1);
  RT_EXPECT(cloudabi_sys_fd_close(got[0]), 0);
}

/* No room for descriptors at all: they are discarded, and that is no
 * truncation (FreeBSD; issue 13.6). */
static void test_no_room(void) {
  size_t sent;
  cloudabi_fd_t pass[2] = {file, file};
  RT_EXPECT(send_msg(tx, "ab", pass, 2, &sent), 0);
  RT_EXPECT(send_msg(tx, "c", NULL, 0, &sent), 0);
  char buf[4];
  cloudabi_iovec_t iov = {buf, sizeof(buf)};
  cloudabi_recv_in_t in = {&iov, 1, NULL, 0, 0};
  cloudabi_recv_out_t o;
  RT_EXPECT(cloudabi_sys_sock_recv(rx, &in, &o), 0);
  RT_CHECK(o.ro_datalen == 2 && o.ro_fdslen == 0 && o.ro_flags == 0);
  cloudabi_fd_t got[2];
  in.ri_fds = got;
  in.ri_fds_len = 2;
  RT_EXPECT(cloudabi_sys_sock_recv(rx, &in, &o), 0);
  RT_CHECK(o.ro_datalen == 1 && buf[0] == 'c');
  RT_CHECK(o.ro_fdslen == 0 && o.ro_flags == 0);
}

/* Data scattered over several buffers: through an I/O slot for a few
 * (abi/vdso/io.c), the plain trap for more than the slot path takes. */
static void test_scatter(void) {
  size_t sent;
  for (size_t nbufs = 3; nbufs <= 20; nbufs += 17) {
    RT_EXPECT(send_msg(tx, "abcdefghijklmnopqrstuvwxyz", NULL, 0, &sent), 0);
    char bufs[20][2];
    cloudabi_iovec_t iov[20];
    for (size_t k = 0; k < nbufs; k++)
      iov[k] = (cloudabi_iovec_t){bufs[k], 2};
    cloudabi_recv_in_t in = {iov, nbufs, NULL, 0, 0};
    cloudabi_recv_out_t o;
    RT_EXPECT(cloudabi_sys_sock_recv(rx, &in, &o), 0);
    size_t want = nbufs * 2 < 26 ? nbufs * 2 : 26;
    RT_CHECK(o.ro_datalen == want);
    RT_CHECK(o.ro_flags ==
             (want < 26 ? CLOUDABI_SOCK_RECV_DATA_TRUNCATED : 0));
    for (size_t k = 0; k < want; k++)
      RT_CHECK(bufs[k / 2][k % 2] == (char)('a' + k));
  }
}

/* A message whose data cannot be written: EFAULT, and the descriptor it
 * carried is not left in the table where the program cannot know it. */
static void test_lost_fds(void) {
  cloudabi_fd_t probe;
  RT_EXPECT(cloudabi_sys_fd_dup(file, &probe), 0);
  RT_EXPECT(cloudabi_sys_fd_close(probe), 0);
  size_t sent;
  cloudabi_fd_t pass[1] = {file};
  RT_EXPECT(send_msg(tx, "lost", pass, 1, &sent), 0);
  cloudabi_iovec_t iov = {BAD_PTR, 4};
  cloudabi_fd_t got[1] = {99};
  cloudabi_recv_in_t in = {&iov, 1, got, 1, 0};
  cloudabi_recv_out_t o;
  RT_EXPECT(cloudabi_sys_sock_recv(rx, &in, &o), CLOUDABI_EFAULT);
  cloudabi_fd_t again;
  RT_EXPECT(cloudabi_sys_fd_dup(file, &again), 0);
  RT_CHECK(again == probe);
  RT_EXPECT(cloudabi_sys_fd_close(again), 0);
}

static void test_errors(void) {
  size_t sent;
  cloudabi_fd_t bad[1] = {777};
  RT_EXPECT(send_msg(tx, "x", bad, 1, &sent), CLOUDABI_EBADF);
  RT_EXPECT(send_msg(file, "x", NULL, 0, &sent), CLOUDABI_ENOTCAPABLE);
  RT_EXPECT(send_msg(555, "x", NULL, 0, &sent), CLOUDABI_EBADF);
  cloudabi_ciovec_t iov = {"x", 1};
  cloudabi_send_in_t sin = {&iov, 1, NULL, 0, 1};
  cloudabi_send_out_t so;
  RT_EXPECT(cloudabi_sys_sock_send(tx, &sin, &so), CLOUDABI_EINVAL);
  RT_EXPECT(cloudabi_sys_sock_send(tx, BAD_PTR, &so), CLOUDABI_EFAULT);
  cloudabi_recv_out_t ro;
  RT_EXPECT(cloudabi_sys_sock_recv(rx, BAD_PTR, &ro), CLOUDABI_EFAULT);
  char buf[4];
  cloudabi_iovec_t riov = {buf, 4};
  cloudabi_recv_in_t rin = {&riov, 1, NULL, 0, 0x100};
  RT_EXPECT(cloudabi_sys_sock_recv(rx, &rin, &ro), CLOUDABI_EINVAL);
  /* Nothing queued and rx made non-blocking: EAGAIN. */
  cloudabi_fdstat_t st;
  RT_EXPECT(cloudabi_sys_fd_stat_get(rx, &st), 0);
  st.fs_flags = CLOUDABI_FDFLAG_NONBLOCK;
  RT_EXPECT(cloudabi_sys_fd_stat_put(rx, &st, CLOUDABI_FDSTAT_FLAGS), 0);
  rin.ri_flags = 0;
  RT_EXPECT(cloudabi_sys_sock_recv(rx, &rin, &ro), CLOUDABI_EAGAIN);
  RT_EXPECT(cloudabi_sys_sock_shutdown(tx, 0), CLOUDABI_EINVAL);
  RT_EXPECT(cloudabi_sys_sock_shutdown(tx, 4), CLOUDABI_EINVAL);
  RT_EXPECT(cloudabi_sys_sock_shutdown(file, CLOUDABI_SHUT_WR),
            CLOUDABI_ENOTCAPABLE);
  RT_EXPECT(cloudabi_sys_sock_shutdown(tx, CLOUDABI_SHUT_WR), 0);
  RT_EXPECT(send_msg(tx, "x", NULL, 0, &sent), CLOUDABI_EPIPE);
}

void program_main(const argdata_t *ad) {
  out = rt_map_fd(ad, "out");
  rt_log_fd = out;
  rx = rt_map_fd(ad, "rx");
  tx = rt_map_fd(ad, "tx");
  file = rt_map_fd(ad, "file");
  test_data_and_fds();
  test_truncation_and_peek();
  test_no_room();
  test_scatter();
  test_lost_fds();
  test_errors();
  rt_printf(out, "sock: %u checks passed\n", rt_checks_passed);
}
