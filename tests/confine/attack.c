/*
 * Test-only: what an attacker who took over the supervisor would try,
 * run inside cloudabi-run once it is confined (main.c's after_confine
 * hook; this file is built into tests/cloudabi-run-attack only).  The
 * attack is named by CLOUDABI_ATTACK; its target by CLOUDABI_ATTACK_ARG
 * (a path or a pid).  Prints one line: "attack NAME: refused: WHY" or
 * "attack NAME: ALLOWED".  A call the supervisor's filter refuses never
 * returns: its SIGSYS handler reports it and ends the run (status 70).
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <unistd.h>

void confine_attack(void);
int confine_landlock_cap(int abi);

/* CLOUDABI_ATTACK_LANDLOCK_MAX=N: run as if the kernel's Landlock ABI
 * were at most N (0: no Landlock), to test the layers' fallbacks. */
int confine_landlock_cap(int abi) {
  const char *max = getenv("CLOUDABI_ATTACK_LANDLOCK_MAX");
  if (max == NULL || *max == '\0')
    return abi;
  int m = atoi(max);
  return m < abi ? m : abi;
}

static void outcome(const char *name, long r) {
  if (r < 0)
    fprintf(stderr, "attack %s: refused: %s\n", name, strerror(errno));
  else
    fprintf(stderr, "attack %s: ALLOWED\n", name);
}

void confine_attack(void) {
  const char *name = getenv("CLOUDABI_ATTACK");
  const char *arg = getenv("CLOUDABI_ATTACK_ARG");
  if (name == NULL)
    return;
  if (arg == NULL)
    arg = "";
  long r = 0;
  if (strcmp(name, "read") == 0) {
    /* Read a file the config did not grant (or, as a control, one it
     * did). */
    int fd = open(arg, O_RDONLY | O_CLOEXEC);
    char c;
    r = fd < 0 ? -1 : read(fd, &c, 1);
  } else if (strcmp(name, "write") == 0) {
    r = open(arg, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  } else if (strcmp(name, "execve") == 0) {
    char *argv[] = {(char *)arg, NULL};
    r = execve(arg, argv, argv + 1);
  } else if (strcmp(name, "execveat") == 0) {
    /* The one exec the filter allows, on a file opened here. */
    int fd = open(arg, O_RDONLY | O_CLOEXEC);
    char *argv[] = {(char *)arg, NULL};
    r = fd < 0 ? -1 : execveat(fd, "", argv, argv + 1, AT_EMPTY_PATH);
  } else if (strcmp(name, "connect") == 0) {
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)atoi(arg)),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    r = s < 0 ? -1 : connect(s, (struct sockaddr *)&a, sizeof(a));
  } else if (strcmp(name, "ptrace_attach") == 0) {
    r = ptrace(PTRACE_ATTACH, atoi(arg), 0, 0);
  } else if (strcmp(name, "ptrace_seize") == 0) {
    r = ptrace(PTRACE_SEIZE, atoi(arg), 0, 0);
  } else if (strcmp(name, "signal") == 0) {
    r = kill(atoi(arg), SIGTERM);
  } else if (strcmp(name, "sigsys_handler") == 0) {
    /* Taking over SIGSYS would let refused calls return. */
    r = sigaction(SIGSYS, &(struct sigaction){.sa_handler = SIG_IGN}, NULL);
  } else {
    fprintf(stderr, "attack %s: unknown\n", name);
    return;
  }
  outcome(name, r);
}
