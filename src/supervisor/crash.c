/* Crashes and forbidden calls; see crash.h. */
#include "crash.h"

#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/ucontext.h>
#include <sys/user.h>

#include "guestmem.h"
#include "reply.h"
#include "signal_report.h"
#include "trap.h"

/* What the vDSO's handler assumes (abi/vdso/io.c). */
#define UC_GREG(r) offsetof(ucontext_t, uc_mcontext.gregs[r])
_Static_assert(UC_GREG(REG_R12) == TRAP_UC_R12 &&
                   UC_GREG(REG_R13) == TRAP_UC_R13 &&
                   UC_GREG(REG_R14) == TRAP_UC_R14 &&
                   UC_GREG(REG_R15) == TRAP_UC_R15 &&
                   UC_GREG(REG_RBP) == TRAP_UC_RBP &&
                   UC_GREG(REG_RBX) == TRAP_UC_RBX &&
                   UC_GREG(REG_RSP) == TRAP_UC_RSP &&
                   UC_GREG(REG_RIP) == TRAP_UC_RIP &&
                   offsetof(ucontext_t, uc_mcontext.fpregs) == TRAP_UC_FPREGS &&
                   offsetof(siginfo_t, si_code) == TRAP_SI_CODE,
               "the vDSO's fault handler reads Linux's ucontext");

bool crash_vdso_handles(int sig) {
  return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE ||
         sig == SIGTRAP;
}

void crash_end(struct gproc *proc, int sig) {
  if (proc->killed_by_signal == 0)
    proc->killed_by_signal = sig;
  kill(proc->pid, SIGKILL);
}

static void regs_of(const ucontext_t *uc, struct user_regs_struct *r) {
  const greg_t *g = uc->uc_mcontext.gregs;
  memset(r, 0, sizeof(*r));
  r->r8 = (uint64_t)g[REG_R8];
  r->r9 = (uint64_t)g[REG_R9];
  r->r10 = (uint64_t)g[REG_R10];
  r->r11 = (uint64_t)g[REG_R11];
  r->r12 = (uint64_t)g[REG_R12];
  r->r13 = (uint64_t)g[REG_R13];
  r->r14 = (uint64_t)g[REG_R14];
  r->r15 = (uint64_t)g[REG_R15];
  r->rdi = (uint64_t)g[REG_RDI];
  r->rsi = (uint64_t)g[REG_RSI];
  r->rbp = (uint64_t)g[REG_RBP];
  r->rbx = (uint64_t)g[REG_RBX];
  r->rdx = (uint64_t)g[REG_RDX];
  r->rax = (uint64_t)g[REG_RAX];
  r->rcx = (uint64_t)g[REG_RCX];
  r->rsp = (uint64_t)g[REG_RSP];
  r->rip = (uint64_t)g[REG_RIP];
  r->eflags = (uint64_t)g[REG_EFL];
  /* fs_base is not in a signal frame: reported as 0. */
}

void crash_trap(struct sup *s, int listener, const struct seccomp_notif *n,
                struct gproc *proc) {
  if (proc == NULL) {
    sup_reply(listener, n->id, CLOUDABI_ENOSYS, 0);
    return;
  }
  /* Compared on all 64 bits: what the program wrote, if it made the call
   * by hand, only ends it. */
  int sig = n->data.args[0] < 64 ? (int)n->data.args[0] : 0;
  if (!crash_vdso_handles(sig)) {
    kill(proc->pid, SIGKILL);
    return;
  }
  struct call c = {.sup = s, .proc = proc, .id = n->id, .listener = listener,
                   .tid = n->pid, .wait_fd = -1};
  siginfo_t si;
  ucontext_t uc;
  struct user_regs_struct regs;
  bool have_si = gmem_read(&c, n->data.args[1], &si, sizeof(si)) == 0;
  bool have_regs =
      gmem_read(&c, n->data.args[2], &uc,
                offsetof(ucontext_t, uc_mcontext.fpregs)) == 0;
  if (have_regs)
    regs_of(&uc, &regs);
  /* The reads were the caller's, not a recycled tid's. */
  if (call_is_valid(&c))
    report_signal(s, proc, n->pid, sig, have_si ? &si : NULL,
                  have_regs ? &regs : NULL);
  crash_end(proc, sig);
}
