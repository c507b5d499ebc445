/* Crash and signal reports; see signal_report.h. */
#include "signal_report.h"

#include <inttypes.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>

#include "host/signals.h"
#include "sup.h"

struct code_name {
  int sig; /* 0: any signal */
  int code;
  const char *name, *why;
};

/* si_code values (Linux's, from siginfo.h), with what they mean. */
static const struct code_name codes[] = {
    {SIGSEGV, 1, "SEGV_MAPERR", "address not mapped"},
    {SIGSEGV, 2, "SEGV_ACCERR", "access the mapping does not allow"},
    {SIGSEGV, 3, "SEGV_BNDERR", "bounds check failed"},
    {SIGSEGV, 4, "SEGV_PKUERR", "protection key check failed"},
    {SIGBUS, 1, "BUS_ADRALN", "misaligned address"},
    {SIGBUS, 2, "BUS_ADRERR", "address beyond the end of a mapped file"},
    {SIGBUS, 3, "BUS_OBJERR", "hardware error"},
    {SIGBUS, 4, "BUS_MCEERR_AR", "memory error"},
    {SIGBUS, 5, "BUS_MCEERR_AO", "memory error"},
    {SIGILL, 1, "ILL_ILLOPC", "illegal opcode"},
    {SIGILL, 2, "ILL_ILLOPN", "illegal operand"},
    {SIGILL, 3, "ILL_ILLADR", "illegal addressing mode"},
    {SIGILL, 4, "ILL_ILLTRP", "illegal trap"},
    {SIGILL, 5, "ILL_PRVOPC", "privileged opcode"},
    {SIGILL, 6, "ILL_PRVREG", "privileged register"},
    {SIGILL, 7, "ILL_COPROC", "coprocessor error"},
    {SIGILL, 8, "ILL_BADSTK", "internal stack error"},
    {SIGFPE, 1, "FPE_INTDIV", "integer division by zero"},
    {SIGFPE, 2, "FPE_INTOVF", "integer overflow"},
    {SIGFPE, 3, "FPE_FLTDIV", "floating-point division by zero"},
    {SIGFPE, 4, "FPE_FLTOVF", "floating-point overflow"},
    {SIGFPE, 5, "FPE_FLTUND", "floating-point underflow"},
    {SIGFPE, 6, "FPE_FLTRES", "inexact floating-point result"},
    {SIGFPE, 7, "FPE_FLTINV", "invalid floating-point operation"},
    {SIGFPE, 8, "FPE_FLTSUB", "subscript out of range"},
    {SIGTRAP, 1, "TRAP_BRKPT", "breakpoint"},
    {SIGTRAP, 2, "TRAP_TRACE", "trace trap"},
    {SIGTRAP, 4, "TRAP_HWBKPT", "hardware breakpoint"},
    {0, 0x80, "SI_KERNEL", "raised by the kernel"},
    {0, 0, "SI_USER", "sent with kill"},
    {0, -1, "SI_QUEUE", "queued by a process"},
    /* Only the supervisor can send one: the guest cannot call tgkill. */
    {0, -6, "SI_TKILL", "raised by proc_raise"},
};

static const struct code_name *code_of(int sig, int code) {
  for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
    if ((codes[i].sig == sig || codes[i].sig == 0) && codes[i].code == code)
      return &codes[i];
  return NULL;
}

static bool is_crash_signal(int sig) {
  return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE ||
         sig == SIGTRAP || sig == SIGABRT;
}

/*
 * Where addr lies in the guest, as "name+0xoffset": name is the mapped
 * file's (the program's base name, or "cloudabi-vdso"), the offset counts
 * from the lowest address that file is mapped at, which is the program's
 * link address 0 for our static PIEs: addr2line -e PROGRAM 0xoffset.
 * False for anonymous memory or when the maps cannot be read.
 */
static bool where_is(pid_t tid, uint64_t addr, char *buf, size_t size) {
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/maps", (int)tid);
  FILE *f = fopen(path, "re");
  if (f == NULL)
    return false;
  char line[4096], file[4096] = "";
  uint64_t lo, hi, base = UINT64_MAX;
  /* First the mapping that holds addr, then the lowest one of its file. */
  while (fgets(line, sizeof(line), f) != NULL) {
    int name_at = 0;
    if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %*s %*s %*s %n", &lo, &hi,
               &name_at) >= 2 &&
        name_at > 0 && addr >= lo && addr < hi && line[name_at] == '/') {
      snprintf(file, sizeof(file), "%s", line + name_at);
      file[strcspn(file, "\n")] = '\0';
      break;
    }
  }
  if (file[0] != '\0') {
    rewind(f);
    while (fgets(line, sizeof(line), f) != NULL) {
      int name_at = 0;
      line[strcspn(line, "\n")] = '\0';
      if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %*s %*s %*s %n", &lo, &hi,
                 &name_at) >= 2 &&
          name_at > 0 && strcmp(line + name_at, file) == 0 && lo < base)
        base = lo;
    }
  }
  fclose(f);
  if (file[0] == '\0' || base == UINT64_MAX)
    return false;
  /* "/memfd:cloudabi-vdso (deleted)" reads better as "cloudabi-vdso". */
  const char *name = strrchr(file, '/') + 1;
  if (strncmp(file, "/memfd:", 7) == 0)
    name = file + 7;
  size_t len = strcspn(name, " ");
  snprintf(buf, size, "%.*s+%#" PRIx64, (int)len, name, addr - base);
  return true;
}

void report_signal(struct sup *s, struct gproc *proc, pid_t tid, int sig,
                   const siginfo_t *si, const struct user_regs_struct *given) {
  /* A crash: a fault the kernel raised, not a signal someone sent. */
  bool crash = si != NULL && si->si_code > 0 && is_crash_signal(sig);
  if (!crash && s->trace == NULL)
    return;
  const struct code_name *cn = si != NULL ? code_of(sig, si->si_code) : NULL;
  struct trace_signal_info info = {
      .sig = sig,
      .code = cn != NULL ? cn->name : NULL,
      .why = cn != NULL ? cn->why : NULL,
      .fault = crash && si->si_code != 0x80 /* SI_KERNEL has no address */,
      .addr = si != NULL ? (uint64_t)(uintptr_t)si->si_addr : 0,
  };
  struct user_regs_struct regs;
  char where[256] = "";
  if (given != NULL)
    regs = *given;
  if (crash && (given != NULL || ptrace(PTRACE_GETREGS, tid, 0, &regs) == 0)) {
    info.regs = &regs;
    if (where_is(tid, regs.rip, where, sizeof(where)))
      info.where = where;
  }
  if (crash) {
    char name[32], addr[64] = "", ip[300] = "";
    if (info.fault && (sig == SIGSEGV || sig == SIGBUS))
      snprintf(addr, sizeof(addr), " at address %#" PRIx64, info.addr);
    if (info.regs != NULL)
      snprintf(ip, sizeof(ip), ", instruction %#llx%s%s%s",
               (unsigned long long)regs.rip, info.where != NULL ? " (" : "",
               info.where != NULL ? info.where : "",
               info.where != NULL ? ")" : "");
    fprintf(stderr,
            "cloudabi-run: program crashed in thread %d: %s%s%s%s%s%s\n",
            (int)tid, signal_name_linux(sig, name, sizeof(name)),
            info.why != NULL ? " (" : "", info.why != NULL ? info.why : "",
            info.why != NULL ? ")" : "", addr, ip);
  }
  if (s->trace != NULL)
    s->trace_hooks->signal(s->trace, proc != NULL ? proc->number : 0, tid,
                           &info);
}

void report_forbidden(struct sup *s, struct gproc *proc, pid_t tid, int nr,
                      uint64_t ip, const uint64_t args[6]) {
  if (s->trace == NULL)
    return;
  char where[256];
  bool located = where_is(tid, ip, where, sizeof(where));
  char number[16];
  char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
  snprintf(number, sizeof(number), "%d", nr);
  s->trace_hooks->forbidden(s->trace, proc != NULL ? proc->number : 0, tid,
                            name != NULL ? name : number, nr, ip,
                            located ? where : NULL, args);
  free(name);
}
