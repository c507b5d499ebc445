/*
 * The cost of the mechanism itself: a bare seccomp user-notification round
 * trip.  A child routes getppid to a listener and calls it N times; the
 * parent answers each with a constant, as cheaply as a supervisor can
 * (blocking RECV, SEND, no epoll, no guest memory).  Prints
 * "notify_rtt ns_per_op".  usage: notify_rtt [N]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP 1
#endif

static uint64_t now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int send_fd(int sock, int fd) {
  char c = 0;
  struct iovec iov = {&c, 1};
  char ctl[CMSG_SPACE(sizeof(int))];
  struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
                     .msg_controllen = sizeof(ctl)};
  struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
  cm->cmsg_level = SOL_SOCKET;
  cm->cmsg_type = SCM_RIGHTS;
  cm->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(cm), &fd, sizeof(int));
  return sendmsg(sock, &m, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock) {
  char c;
  struct iovec iov = {&c, 1};
  char ctl[CMSG_SPACE(sizeof(int))];
  struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
                     .msg_controllen = sizeof(ctl)};
  if (recvmsg(sock, &m, 0) != 1)
    return -1;
  int fd;
  memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof(int));
  return fd;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 200000;
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
    return 1;
  pid_t pid = fork();
  if (pid == 0) {
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {4, f};
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    int l = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                         SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
    if (l < 0 || send_fd(sv[1], l) != 0)
      _exit(1);
    close(l);
    for (long i = 0; i < n / 10; i++) /* warm up */
      syscall(SYS_getppid);
    uint64_t t0 = now();
    for (long i = 0; i < n; i++)
      syscall(SYS_getppid);
    uint64_t t1 = now();
    printf("notify_rtt %.2f\n", (double)(t1 - t0) / (double)n);
    fflush(stdout);
    _exit(0);
  }
  int l = recv_fd(sv[0]);
  if (l < 0)
    return 1;
  ioctl(l, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
  for (;;) {
    struct seccomp_notif req;
    memset(&req, 0, sizeof(req));
    if (ioctl(l, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0)
      break; /* ENOENT once the child is gone */
    struct seccomp_notif_resp resp = {.id = req.id, .val = 1};
    ioctl(l, SECCOMP_IOCTL_NOTIF_SEND, &resp);
  }
  int st;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
