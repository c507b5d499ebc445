/*
 * A server on a !socket {accept: true}: each sock_recv on `sock` yields
 * one connection and the peer's address as text.  By the config's `do`:
 *   serve   answer `count` connections that send a line, then print
 *           "served N" and exit; each gets "PEER LINE\n" for its line
 *           (silent ones are closed, uncounted), and the first
 *           connection's type and rights are printed
 *   stop    take one connection, then never receive again (back-pressure)
 *   fork    fork once; parent and child serve forever, answering
 *           "worker 0|1 LINE\n" (the test kills the run)
 *   send    sending on the acceptor's end fails (printed errno)
 *   threads `count` threads take connections forever, each answering
 *           "thread I LINE\n" (the test kills the run)
 *   mirror  take one connection and print "mirror RANGE" (its mirror's
 *           rights bits, trap.h, from the vDSO's table) before any I/O,
 *           then read its line
 *   nonblock take one connection, read a line (its reads are mirrored by
 *           then), set NONBLOCK: a read with nothing to read answers
 *           "eagain ERRNO\n"; clear it: a read waits for the next line
 *           and answers "got LINE\n"
 * Config: out (stdout), sock (the acceptor), do, count.
 */
#include "check.h"
#include "vdso_symbol.h"
#include "rt_thread.h"
#include "trap.h"

static cloudabi_fd_t out;

/* One connection from sock: its descriptor and the peer text in peer[]. */
static cloudabi_errno_t take(cloudabi_fd_t sock, cloudabi_fd_t *conn,
                             char *peer, size_t size, size_t *fds) {
  cloudabi_iovec_t iov = {peer, size - 1};
  cloudabi_recv_in_t in = {&iov, 1, conn, 1, 0};
  cloudabi_recv_out_t o;
  cloudabi_errno_t e = cloudabi_sys_sock_recv(sock, &in, &o);
  if (e != 0)
    return e;
  peer[o.ro_datalen] = '\0';
  *fds = o.ro_fdslen;
  return o.ro_datalen > 0 ? 0 : CLOUDABI_EPROTO;
}

/* Reads up to a newline (or the end); the line's length, newline
 * excluded. */
static size_t read_line(cloudabi_fd_t fd, char *buf, size_t size) {
  size_t n = 0;
  while (n + 1 < size) {
    cloudabi_iovec_t iov = {buf + n, 1};
    size_t got;
    if (cloudabi_sys_fd_read(fd, &iov, 1, &got) != 0 || got == 0)
      break;
    if (buf[n] == '\n')
      break;
    n++;
  }
  buf[n] = '\0';
  return n;
}

static void print_rights(cloudabi_fd_t conn) {
  cloudabi_fdstat_t st;
  RT_EXPECT(cloudabi_sys_fd_stat_get(conn, &st), 0);
  rt_printf(out, "type %u, base %llx, inheriting %llx\n", st.fs_filetype,
            (unsigned long long)st.fs_rights_base,
            (unsigned long long)st.fs_rights_inheriting);
}

static void serve(cloudabi_fd_t sock, long count, const char *name) {
  for (long i = 0; count < 0 || i < count; i++) {
    cloudabi_fd_t conn;
    char peer[128], line[256], reply[400];
    size_t fds = 0;
    cloudabi_errno_t e = take(sock, &conn, peer, sizeof(peer), &fds);
    if (e != 0 || fds != 1) {
      rt_printf(out, "receive %ld: errno %u, %zu descriptors\n", i, e, fds);
      rt_exit(1);
    }
    if (i == 0 && name == NULL)
      print_rights(conn);
    if (read_line(conn, line, sizeof(line)) == 0) {
      /* A client that left without a word does not count. */
      cloudabi_sys_fd_close(conn);
      i--;
      continue;
    }
    size_t n = rt_snprintf(reply, sizeof(reply), "%s %s\n",
                           name != NULL ? name : peer, line);
    rt_write_all(conn, reply, n);
    cloudabi_sys_fd_close(conn);
  }
  rt_printf(out, "served %ld\n", count);
}

static void set_nonblock(cloudabi_fd_t fd, bool on) {
  cloudabi_fdstat_t st = {.fs_flags = on ? CLOUDABI_FDFLAG_NONBLOCK : 0};
  RT_EXPECT(cloudabi_sys_fd_stat_put(fd, &st, CLOUDABI_FDSTAT_FLAGS), 0);
}

/* A mirror of a blocking socket must not outlive NONBLOCK, nor a
 * non-blocking path outlive its end. */
static void nonblock(cloudabi_fd_t sock) {
  cloudabi_fd_t conn;
  char peer[128], line[256], reply[300];
  size_t fds = 0;
  RT_EXPECT(take(sock, &conn, peer, sizeof(peer), &fds), 0);
  read_line(conn, line, sizeof(line));
  set_nonblock(conn, true);
  char byte;
  cloudabi_iovec_t iov = {&byte, 1};
  size_t got = 0;
  cloudabi_errno_t e = cloudabi_sys_fd_read(conn, &iov, 1, &got);
  size_t n = rt_snprintf(reply, sizeof(reply), "eagain %u\n", e);
  rt_write_all(conn, reply, n);
  set_nonblock(conn, false);
  read_line(conn, line, sizeof(line));
  n = rt_snprintf(reply, sizeof(reply), "got %s\n", line);
  rt_write_all(conn, reply, n);
  cloudabi_sys_fd_close(conn);
}

static cloudabi_fd_t shared_sock;
static char names[16][16];

static void *serve_thread(void *arg) {
  serve(shared_sock, -1, arg);
  return NULL;
}

/* All parked on one acceptor: every connection must wake one of them. */
static void threads(cloudabi_fd_t sock, long count) {
  shared_sock = sock;
  if (count < 1 || count > 16)
    count = 16;
  rt_thread_t *t[16];
  for (long i = 1; i < count; i++) {
    rt_snprintf(names[i], sizeof(names[i]), "thread %ld", i);
    RT_EXPECT(rt_thread_create(&t[i], serve_thread, names[i]), 0);
  }
  rt_snprintf(names[0], sizeof(names[0]), "thread 0");
  serve_thread(names[0]);
}

/* A received connection comes with its mirror, of the rights it has. */
static void mirror(cloudabi_fd_t sock) {
  const uint16_t *table = vdso_symbol(VDSO_MIRRORS_SYMBOL);
  cloudabi_fd_t conn;
  char peer[128], line[64];
  size_t fds = 0;
  RT_EXPECT(take(sock, &conn, peer, sizeof(peer), &fds), 0);
  RT_CHECK(conn < MIRROR_FDS);
  rt_printf(out, "mirror 0x%x\n", (unsigned)(table[conn] & ~(MIRROR_SPAN - 1)));
  read_line(conn, line, sizeof(line));
}

void program_main(const argdata_t *ad) {
  out = rt_map_fd(ad, "out");
  rt_log_fd = out;
  cloudabi_fd_t sock = rt_map_fd(ad, "sock");
  const char *what = rt_map_str(ad, "do", "serve");
  long count = (long)rt_map_int(ad, "count", 1);
  if (strcmp(what, "serve") == 0) {
    serve(sock, count, NULL);
  } else if (strcmp(what, "stop") == 0) {
    serve(sock, 1, "stopped");
    rt_sleep_ns(60000000000ull);
  } else if (strcmp(what, "fork") == 0) {
    cloudabi_fd_t pd;
    RT_EXPECT(rt_proc_fork(&pd), 0);
    serve(sock, -1, pd == CLOUDABI_PROCESS_CHILD ? "worker 1" : "worker 0");
  } else if (strcmp(what, "threads") == 0) {
    threads(sock, count);
  } else if (strcmp(what, "mirror") == 0) {
    mirror(sock);
  } else if (strcmp(what, "nonblock") == 0) {
    nonblock(sock);
  } else if (strcmp(what, "send") == 0) {
    char byte = 'x';
    cloudabi_ciovec_t iov = {&byte, 1};
    cloudabi_send_in_t in = {&iov, 1, NULL, 0, 0};
    cloudabi_send_out_t o;
    rt_printf(out, "send: errno %u\n", cloudabi_sys_sock_send(sock, &in, &o));
  }
  cloudabi_sys_proc_exit(0);
}
