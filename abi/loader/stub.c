/*
 * The loader stub: the first and only trusted code in a guest process.
 * The supervisor execs it (from a memfd) with the descriptors of
 * launch_block.h open.  It maps the CloudABI program and the vDSO, builds
 * the stack, aux vector and TLS as the ABI says, installs the seccomp
 * filter, hands the supervisor its listener, and jumps to the program.
 * No program instruction runs before the filter is in place.
 *
 * Freestanding: no libc, raw system calls only.  On failure it exits with
 * a STUB_E* status that the supervisor turns into a message.
 */
#include <stddef.h>
#include <stdint.h>

#include <asm/prctl.h>
#include <asm/stat.h>
#include <linux/errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "cloudabi_types.h"
#include "elf64.h"
#include "elf_lookup.h"
#include "launch_block.h"
#include "segplan.h"
#include "linux_syscall.h"
#include "stub_status.h"
#include "trap.h"

#define PAGE 4096ul
/* mseal (Linux 6.10), which older headers do not name. */
#define STUB_SYS_mseal 462
#define ROUND_DOWN(x) ((x) & ~(PAGE - 1))
#define ROUND_UP(x) (((x) + PAGE - 1) & ~(PAGE - 1))

void stub_main(const uint64_t *initial_sp) __attribute__((noreturn, used));

static __attribute__((noreturn)) void fail(int status) {
  for (;;)
    linux_syscall1(SYS_exit_group, status);
}

static void *stub_memcpy(void *dst, const void *src, size_t n) {
  char *d = dst;
  const char *s = src;
  while (n-- > 0)
    *d++ = *s++;
  return dst;
}

/* The compiler may emit calls to these for struct copies and zeroing. */
void *memcpy(void *dst, const void *src, size_t n);
void *memcpy(void *dst, const void *src, size_t n) {
  return stub_memcpy(dst, src, n);
}
void *memset(void *dst, int c, size_t n);
void *memset(void *dst, int c, size_t n) {
  char *d = dst;
  while (n-- > 0)
    *d++ = (char)c;
  return dst;
}

static int pread_all(int fd, void *buf, size_t len, uint64_t off) {
  char *p = buf;
  while (len > 0) {
    long n = linux_syscall4(SYS_pread64, fd, p, len, off);
    if (n <= 0)
      return -1;
    p += n;
    off += (uint64_t)n;
    len -= (size_t)n;
  }
  return 0;
}

static long prot_of(uint32_t flags) {
  return ((flags & ELF64_PF_R) ? PROT_READ : 0) |
         ((flags & ELF64_PF_W) ? PROT_WRITE : 0) |
         ((flags & ELF64_PF_X) ? PROT_EXEC : 0);
}

struct loaded {
  uintptr_t base, entry, phdr;
  uint16_t phnum;
};

/*
 * Maps an ELF file's PT_LOAD segments at a kernel-chosen base.  Handles
 * both lld layouts: page-aligned segments, and packed ones whose file
 * offsets are only congruent to their addresses modulo the page size and
 * whose boundary pages may be shared with the neighbouring segment (those
 * pages are filled by reading, not mapping, so neither segment's bytes are
 * lost, and get the union of both protections).
 */
static void load_elf(int fd, int is_program, struct loaded *out) {
  struct stat st;
  elf64_ehdr_t eh;
  if (linux_syscall2(SYS_fstat, fd, &st) != 0 ||
      pread_all(fd, &eh, sizeof(eh), 0) != 0 ||
      segplan_header(&eh, (uint64_t)st.st_size) != SEGPLAN_OK)
    fail(STUB_EELF);
  elf64_phdr_t ph[SEGPLAN_MAX_PHDRS];
  struct segplan plan;
  if (pread_all(fd, ph, eh.e_phnum * sizeof(elf64_phdr_t), eh.e_phoff) != 0 ||
      segplan(&eh, ph, (uint64_t)st.st_size, is_program, &plan) != SEGPLAN_OK)
    fail(STUB_EELF);
  /* Every MAP_FIXED below stays inside this reservation (segplan.h). */
  uint64_t lo = plan.lo, hi = plan.hi;
  long reserve = linux_syscall6(SYS_mmap, 0, (long)(hi - lo), PROT_NONE,
                                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (reserve < 0 && reserve > -4096)
    fail(STUB_ENOMEM);
  uintptr_t base = (uintptr_t)reserve - lo;

  uintptr_t prev_end_page = 0;
  long prev_prot = 0;
  for (int i = 0; i < eh.e_phnum; i++) {
    const elf64_phdr_t *p = &ph[i];
    if (p->p_type != ELF64_PT_LOAD || p->p_memsz == 0)
      continue;
    uintptr_t start = base + p->p_vaddr;
    uintptr_t file_end = start + p->p_filesz, mem_end = start + p->p_memsz;
    uintptr_t first_page = ROUND_DOWN(start);
    int shared_first = prev_end_page > first_page;
    uintptr_t map_from = shared_first ? first_page + PAGE : first_page;
    /* Writable while we fill it; final protections come below. */
    if (linux_syscall3(SYS_mprotect, first_page, ROUND_UP(mem_end) - first_page,
                       PROT_READ | PROT_WRITE) != 0)
      fail(STUB_ENOMEM);
    if (p->p_filesz > 0 && map_from < ROUND_UP(file_end)) {
      uint64_t off = p->p_offset - (start - map_from);
      long r = linux_syscall6(SYS_mmap, (long)map_from,
                              (long)(ROUND_UP(file_end) - map_from),
                              PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED,
                              fd, (long)off);
      if (r != (long)map_from)
        fail(STUB_EMAP);
    }
    if (shared_first && p->p_filesz > 0) {
      uintptr_t end = file_end < first_page + PAGE ? file_end : first_page + PAGE;
      if (pread_all(fd, (void *)start, end - start, p->p_offset) != 0)
        fail(STUB_EELF);
    }
    /* The rest of the last file page is bss, or file bytes outside the
     * segment, or the next segment's (loaded after this one). */
    if ((file_end % PAGE) != 0)
      memset((void *)file_end, 0, ROUND_UP(file_end) - file_end);
    long prot = prot_of(p->p_flags);
    if (linux_syscall3(SYS_mprotect, first_page, ROUND_UP(mem_end) - first_page,
                       prot) != 0)
      fail(STUB_ENOMEM);
    if (shared_first &&
        linux_syscall3(SYS_mprotect, first_page, PAGE, prot | prev_prot) != 0)
      fail(STUB_ENOMEM);
    prev_end_page = ROUND_UP(mem_end);
    prev_prot = prot;
  }

  /* Where the program headers are in memory, for AT_PHDR. */
  uintptr_t phdr = 0;
  for (int i = 0; i < eh.e_phnum; i++) {
    if (ph[i].p_type == ELF64_PT_LOAD && eh.e_phoff >= ph[i].p_offset &&
        eh.e_phoff + eh.e_phnum * sizeof(elf64_phdr_t) <=
            ph[i].p_offset + ph[i].p_filesz) {
      phdr = base + ph[i].p_vaddr + (eh.e_phoff - ph[i].p_offset);
      break;
    }
  }
  out->base = base;
  out->entry = base + eh.e_entry;
  out->phdr = phdr;
  out->phnum = eh.e_phnum;
}

/* Linux's vDSO, from the aux vector the kernel gave us: sp points at argc,
 * then argv and envp, each NULL-terminated, then the aux vector. */
static const void *linux_vdso(const uint64_t *sp) {
  const uint64_t *p = sp + 1 + sp[0] + 1;
  while (*p != 0)
    p++;
  for (p++; p[0] != 0; p += 2)
    if (p[0] == 33 /* AT_SYSINFO_EHDR */)
      return (const void *)p[1];
  return NULL;
}

/* Our vDSO reads clocks through Linux's (abi/vdso/linux_vdso.c). */
static void introduce_vdsos(const struct loaded *vdso, const void *linux_ehdr) {
  uintptr_t init = elf_lookup((const void *)vdso->base, "cloudabi_vdso_init");
  if (init != 0)
    ((void (*)(const void *))init)(linux_ehdr);
}

void stub_main(const uint64_t *initial_sp) {
  /* Nothing before the supervisor traces us and set our limits. */
  char go;
  if (linux_syscall3(SYS_read, LAUNCH_FD_GO, &go, 1) != 1)
    fail(STUB_EGO);
  linux_syscall1(SYS_close, LAUNCH_FD_GO);
  /* The program and the vDSO first: the launch block is mapped only
   * afterwards, where the kernel finds room, so that no segment can have
   * been placed over what the stub reads from it (the filter, its flags,
   * the start-up call, argdata). */
  struct loaded prog, vdso;
  load_elf(LAUNCH_FD_PROGRAM, 1, &prog);
  load_elf(LAUNCH_FD_VDSO, 0, &vdso);

  struct stat st;
  if (linux_syscall2(SYS_fstat, LAUNCH_FD_BLOCK, &st) != 0 ||
      st.st_size < (long)sizeof(struct launch_block))
    fail(STUB_EBLOCK);
  long m = linux_syscall6(SYS_mmap, 0, st.st_size, PROT_READ, MAP_PRIVATE,
                          LAUNCH_FD_BLOCK, 0);
  if (m < 0 && m > -4096)
    fail(STUB_EBLOCK);
  const struct launch_block *lb = (const struct launch_block *)m;
  const char *blk = (const char *)m;
  if (lb->magic != LAUNCH_MAGIC || lb->size != (uint64_t)st.st_size ||
      lb->argdata_off > lb->size || lb->argdata_len > lb->size - lb->argdata_off ||
      lb->filter_off > lb->size ||
      lb->filter_len > (lb->size - lb->filter_off) / sizeof(struct sock_filter) ||
      lb->stack_size < 65536 || lb->stack_size > (1ul << 32))
    fail(STUB_EBLOCK);

  introduce_vdsos(&vdso, linux_vdso(initial_sp));

  /* The I/O slots, shared with the supervisor; a forked child must not
   * share them, so they are not inherited. */
  long io = linux_syscall6(SYS_mmap, 0, IOSLOT_REGION_SIZE,
                           PROT_READ | PROT_WRITE, MAP_SHARED,
                           LAUNCH_FD_IOSLOTS, 0);
  if (io < 0 && io > -4096)
    fail(STUB_ENOMEM);
  linux_syscall3(SYS_madvise, io, IOSLOT_REGION_SIZE, MADV_DONTFORK);
  /* The supervisor writes file data here: sealed, the region can never
   * be made executable, moved or replaced (mprotect, mmap MAP_FIXED over
   * it, munmap, mremap fail with EPERM).  Kernels before 6.10 lack mseal
   * (ENOSYS); the supervisor says so with --verbose. */
  long sealed = linux_syscall3(STUB_SYS_mseal, io, IOSLOT_REGION_SIZE, 0);
  if (sealed != 0 && sealed != -ENOSYS)
    fail(STUB_ENOMEM);
  uintptr_t slot_word = elf_lookup((const void *)vdso.base, VDSO_IOSLOTS_SYMBOL);
  if (slot_word == 0)
    fail(STUB_EELF);
  *(long *)slot_word = io;

  /* The stack, with a guard page below it. */
  size_t argsz = (lb->argdata_len + 1 + 15) & ~15ul;
  size_t need = argsz + 64 + 16 + 16 * 16 + 64;
  if (need > lb->stack_size / 2)
    fail(STUB_E2BIG);
  long s = linux_syscall6(SYS_mmap, 0, (long)(lb->stack_size + PAGE),
                          PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (s < 0 && s > -4096)
    fail(STUB_ENOMEM);
  linux_syscall3(SYS_mprotect, s, PAGE, PROT_NONE);
  char *top = (char *)s + PAGE + lb->stack_size;

  /* Top down, as FreeBSD lays it out: argdata (+ a NUL not counted in
   * ARGDATALEN), canary, process UUID, aux vector, TCB, %fs word. */
  char *argdata = top - argsz;
  stub_memcpy(argdata, blk + lb->argdata_off, lb->argdata_len);
  argdata[lb->argdata_len] = '\0';
  char *canary = argdata - 64;
  stub_memcpy(canary, lb->canary, 64);
  char *pid = canary - 16;
  stub_memcpy(pid, lb->pid, 16);
  cloudabi_auxv_t *auxv = (cloudabi_auxv_t *)(pid - 13 * sizeof(cloudabi_auxv_t));
  long tid = linux_syscall0(SYS_gettid);
  const struct {
    uint32_t type;
    uint64_t val;
  } entries[13] = {
      {CLOUDABI_AT_ARGDATA, (uint64_t)argdata},
      {CLOUDABI_AT_ARGDATALEN, lb->argdata_len},
      {CLOUDABI_AT_BASE, prog.base},
      {CLOUDABI_AT_CANARY, (uint64_t)canary},
      {CLOUDABI_AT_CANARYLEN, 64},
      {CLOUDABI_AT_NCPUS, lb->ncpus},
      {CLOUDABI_AT_PAGESZ, PAGE},
      {CLOUDABI_AT_PHDR, prog.phdr},
      {CLOUDABI_AT_PHNUM, prog.phnum},
      {CLOUDABI_AT_PID, (uint64_t)pid},
      {CLOUDABI_AT_SYSINFO_EHDR, vdso.base},
      {CLOUDABI_AT_TID, (uint64_t)tid},
      {CLOUDABI_AT_NULL, 0},
  };
  for (int i = 0; i < 13; i++) {
    auxv[i].a_type = entries[i].type;
    auxv[i].a_val = entries[i].val;
  }
  cloudabi_tcb_t *tcb = (cloudabi_tcb_t *)((char *)auxv - 8);
  tcb->parent = NULL;
  void **fsword = (void **)((char *)tcb - 8);
  *fsword = tcb;
  if (linux_syscall2(SYS_arch_prctl, ARCH_SET_FS, fsword) != 0)
    fail(STUB_EFS);
  uintptr_t sp = (((uintptr_t)fsword - 16) & ~15ul) + 8;
  *(uint64_t *)sp = 0; /* the fake return address */

  linux_syscall1(SYS_close, LAUNCH_FD_PROGRAM);
  linux_syscall1(SYS_close, LAUNCH_FD_VDSO);
  linux_syscall1(SYS_close, LAUNCH_FD_IOSLOTS);

  /* The guest cannot wait for children: ignoring SIGCHLD has the kernel
   * reap them (after the supervisor, their tracer, has seen them go). */
  struct {
    long handler, flags, restorer, mask;
  } ign = {1 /* SIG_IGN */, 0, 0, 0};
  if (linux_syscall4(SYS_rt_sigaction, SIGCHLD, &ign, 0, 8) != 0)
    fail(STUB_EFS);
  /* CloudABI ignores SIGPIPE (writes fail with EPIPE), which matters for
   * writes the kernel performs itself, on mirrored descriptors. */
  if (linux_syscall4(SYS_rt_sigaction, SIGPIPE, &ign, 0, 8) != 0)
    fail(STUB_EFS);
  /* Faults in threads the supervisor does not trace go to the vDSO
   * (trap.h, TRAP_NR_CRASH; src/supervisor/crash.h keeps the list).  Its
   * handler never returns, so the restorer is never used. */
  uintptr_t on_fault =
      elf_lookup((const void *)vdso.base, VDSO_FAULT_HANDLER_SYMBOL);
  if (on_fault == 0)
    fail(STUB_EELF);
  struct {
    long handler, flags, restorer, mask;
  } fault = {(long)on_fault,
             0x4 /* SA_SIGINFO */ | 0x40000000 /* SA_NODEFER */ |
                 0x04000000 /* SA_RESTORER */,
             (long)on_fault, 0};
  static const int fault_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE,
                                      SIGTRAP};
  for (size_t i = 0; i < sizeof(fault_signals) / sizeof(*fault_signals); i++)
    if (linux_syscall4(SYS_rt_sigaction, fault_signals[i], &fault, 0, 8) != 0)
      fail(STUB_EFS);

  if (linux_syscall6(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0) != 0)
    fail(STUB_EFILTER);
  struct sock_fprog fprog = {
      .len = (unsigned short)lb->filter_len,
      .filter = (struct sock_filter *)(blk + lb->filter_off),
  };
  long listener = linux_syscall3(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                                 lb->seccomp_flags, &fprog);
  if (listener != LAUNCH_FD_LISTENER)
    fail(listener == -22 ? STUB_EFILTERFLAGS : STUB_EFILTER);

  /* From here on only calls the filter allows. */
  long boot_nr = (long)lb->boot_nr;
  linux_syscall2(SYS_munmap, m, st.st_size);
  linux_syscall1(SYS_close, LAUNCH_FD_BLOCK);
  /* EOF on the sync pipe tells the supervisor to take the listener... */
  linux_syscall1(SYS_close, LAUNCH_FD_SYNC);
  /* ...and it answers this call once it has.  The vDSO's address lets it
   * recognise faults in the vDSO's copy routine. */
  if (linux_syscall1(boot_nr, vdso.base) != 0)
    fail(STUB_EBOOT);
  /* Without this, trapped calls would hang, not fail, once the supervisor
   * is gone. */
  linux_syscall1(SYS_close, LAUNCH_FD_LISTENER);

  __asm__ volatile("mov %0, %%rsp\n\t"
                   "xor %%ebp, %%ebp\n\t"
                   "xor %%eax, %%eax\n\t"
                   "xor %%ebx, %%ebx\n\t"
                   "xor %%ecx, %%ecx\n\t"
                   "xor %%edx, %%edx\n\t"
                   "xor %%r8d, %%r8d\n\t"
                   "xor %%r9d, %%r9d\n\t"
                   "xor %%r10d, %%r10d\n\t"
                   "xor %%r11d, %%r11d\n\t"
                   "xor %%r12d, %%r12d\n\t"
                   "xor %%r13d, %%r13d\n\t"
                   "xor %%r14d, %%r14d\n\t"
                   "xor %%r15d, %%r15d\n\t"
                   "jmp *%%rsi"
                   :
                   : "r"(sp), "D"(auxv), "S"(prog.entry)
                   : "memory");
  __builtin_unreachable();
}

/* The kernel enters here with the stack holding argc, argv, envp and the
 * aux vector (only Linux's vDSO address is used). */
__asm__(".globl _start\n"
        "_start:\n"
        "  mov %rsp, %rdi\n"
        "  and $-16, %rsp\n"
        "  call stub_main\n"
        "  hlt\n");
