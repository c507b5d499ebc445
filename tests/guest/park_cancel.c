/*
 * Parked calls cancelled every way while the host object they wait on
 * stays open elsewhere, then made ready: the supervisor must not resume
 * a freed call (it did, through a stale epoll registration, and jumped
 * where guest bytes said).  Under ASan a use-after-free ends the run.
 * Config: out (stdout), self (!executable), do (run or linger).
 */
#include "rt.h"
#include "rt_thread.h"

#define ROUNDS 12

static cloudabi_fd_t self;
/* {do: linger}, encoded by hand. */
static const unsigned char linger_argdata[] = {
    0x06, 0x84, 0x08, 'd', 'o', 0x00, 0x88, 0x08,
    'l',  'i',  'n',  'g', 'e', 'r', 0x00};

static void socket_pair(cloudabi_fd_t *a, cloudabi_fd_t *b) {
  RT_EXPECT(cloudabi_sys_fd_create2(CLOUDABI_FILETYPE_SOCKET_STREAM, a, b), 0);
}

static void *read_one(void *arg) {
  cloudabi_fd_t fd = (cloudabi_fd_t)(uintptr_t)arg;
  char c;
  cloudabi_iovec_t iov = {&c, 1};
  size_t n;
  /* Data, or EBADF when the descriptor went away meanwhile. */
  cloudabi_sys_fd_read(fd, &iov, 1, &n);
  return NULL;
}

static void *poll_one(void *arg) {
  cloudabi_fd_t fd = (cloudabi_fd_t)(uintptr_t)arg;
  cloudabi_subscription_t sub = {
      .userdata = 1,
      .type = CLOUDABI_EVENTTYPE_FD_READ,
      .fd_readwrite = {fd, CLOUDABI_SUBSCRIPTION_FD_READWRITE_POLL}};
  cloudabi_event_t ev;
  size_t n;
  cloudabi_sys_poll(&sub, &ev, 1, &n);
  return NULL;
}

static void poke(cloudabi_fd_t fd) {
  RT_EXPECT(rt_write_all(fd, "x", 1), 0);
}

/* The child waits in fd_read and poll on a; the parent keeps a open and
 * makes it readable after the child is gone (killed, or exec'd). */
static void across_processes(bool by_exec) {
  cloudabi_fd_t a, b, pd;
  socket_pair(&a, &b);
  RT_EXPECT(rt_proc_fork(&pd), 0);
  if (pd == CLOUDABI_PROCESS_CHILD) {
    rt_thread_t *t;
    RT_EXPECT(rt_thread_create(&t, poll_one, (void *)(uintptr_t)a), 0);
    if (by_exec) {
      RT_EXPECT(rt_thread_create(&t, read_one, (void *)(uintptr_t)a), 0);
      rt_sleep_ns(20000000);
      cloudabi_sys_proc_exec(self, linger_argdata, sizeof(linger_argdata),
                             NULL, 0);
      cloudabi_sys_proc_exit(1);
    }
    read_one((void *)(uintptr_t)a);
    cloudabi_sys_proc_exit(0);
  }
  rt_sleep_ns(60000000);
  if (!by_exec)
    RT_EXPECT(cloudabi_sys_fd_close(pd), 0); /* kills the child */
  rt_sleep_ns(20000000);
  poke(b);
  rt_sleep_ns(10000000);
  poke(b);
  if (by_exec)
    RT_EXPECT(cloudabi_sys_fd_close(pd), 0);
  cloudabi_sys_fd_close(a);
  cloudabi_sys_fd_close(b);
}

/* A thread waits on a copy of a that the main thread closes or replaces
 * meanwhile; then a becomes readable. */
static void within_process(bool replace) {
  cloudabi_fd_t a, b, copy, c, d;
  socket_pair(&a, &b);
  socket_pair(&c, &d);
  RT_EXPECT(cloudabi_sys_fd_dup(a, &copy), 0);
  rt_thread_t *r, *p;
  RT_EXPECT(rt_thread_create(&r, read_one, (void *)(uintptr_t)copy), 0);
  RT_EXPECT(rt_thread_create(&p, poll_one, (void *)(uintptr_t)copy), 0);
  rt_sleep_ns(30000000);
  if (replace)
    RT_EXPECT(cloudabi_sys_fd_replace(c, copy), 0);
  else
    RT_EXPECT(cloudabi_sys_fd_close(copy), 0);
  rt_sleep_ns(10000000);
  poke(b);
  poke(d); /* what the replaced descriptor now names */
  rt_thread_join(r);
  rt_thread_join(p);
  cloudabi_sys_fd_close(a);
  cloudabi_sys_fd_close(b);
  cloudabi_sys_fd_close(c);
  cloudabi_sys_fd_close(d);
  if (replace)
    cloudabi_sys_fd_close(copy);
}

void program_main(const argdata_t *ad) {
  const char *what = rt_map_str(ad, "do", "");
  if (strcmp(what, "linger") == 0) {
    rt_sleep_ns(150000000);
    cloudabi_sys_proc_exit(0);
  }
  cloudabi_fd_t out = rt_map_fd(ad, "out");
  self = rt_map_fd(ad, "self");
  for (int i = 0; i < ROUNDS; i++) {
    across_processes(false);
    across_processes(true);
    within_process(false);
    within_process(true);
  }
  rt_printf(out, "park_cancel: %d rounds\n", ROUNDS);
}
