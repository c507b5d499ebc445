/*
 * Descriptor I/O through the shared I/O slots (see trap.h): the vDSO
 * copies the data between the guest's buffers and a slot, so that the
 * supervisor touches neither the guest's iovecs nor its buffers.  Without
 * a region, with many iovecs, or with data larger than a slot, the calls
 * trap with their plain arguments and the supervisor reads guest memory.
 *
 * Copies of guest memory go through vdso_copy only: if a guest pointer is
 * bad, the fault happens at a known instruction, and the thread resumes at
 * the fault label instead of getting SIGSEGV, so the call fails with
 * EFAULT as on a native kernel: the supervisor moves a thread it traces
 * there, and the handler below does it for a thread not traced yet.
 */
#include <stdbool.h>
#include <sys/syscall.h>

#include "cloudabi_syscalls.h"
#include "vdso.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"

#define STR(x) #x
#define XSTR(x) STR(x)

/* Set by the loader to this process's region, or left NULL. */
VDSO_EXPORT void *cloudabi_vdso_ioslots;

/* Each descriptor's mirror (trap.h), written by the supervisor; used
 * under its hidden name so that no access needs a relocation. */
VDSO_HIDDEN uint16_t cloudabi_vdso_mirrors_table[MIRROR_FDS];
extern uint16_t cloudabi_vdso_mirrors[MIRROR_FDS]
    __attribute__((alias("cloudabi_vdso_mirrors_table"),
                   visibility("default")));

/* fd's mirror if the table names one whose number allows `want` (a set
 * of MIRROR_READ, MIRROR_WRITE, MIRROR_SEEK), else 0. */
static long mirror_of(cloudabi_fd_t fd, unsigned want) {
  if (fd >= MIRROR_FDS)
    return 0;
  unsigned m =
      __atomic_load_n(&cloudabi_vdso_mirrors_table[fd], __ATOMIC_RELAXED);
  if (m < MIRROR_LOW || m >= MIRROR_HIGH || (m & want) != want)
    return 0;
  return (long)m;
}

/* Tells the supervisor that fd's mirror was used (trap.h, "Mirror
 * use"); stored once, so that later calls only read the byte. */
static void mark_used(cloudabi_fd_t fd) {
  char *region = cloudabi_vdso_ioslots;
  if (region == NULL || fd >= CLOSE_HINT_FDS)
    return;
  uint8_t *used = (uint8_t *)region + IOSLOT_MIRROR_USED + fd;
  if (__atomic_load_n(used, __ATOMIC_RELAXED) == 0)
    __atomic_store_n(used, 1, __ATOMIC_RELAXED);
}

/* The mirror call's result r: true with *done set if it succeeded. */
static bool settled(cloudabi_fd_t fd, long m, long r, size_t *done) {
  if (r >= 0) {
    *done = (size_t)r;
    mark_used(fd);
    return true;
  }
  if (r == -9 /* EBADF */ || r == -22 /* EINVAL */) {
    uint16_t expect = (uint16_t)m;
    __atomic_compare_exchange_n(&cloudabi_vdso_mirrors_table[fd], &expect, 0,
                                false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  }
  return false;
}

/*
 * The call on the mirror, by the kernel: its result if it succeeded.  On
 * failure the trapped path decides (blocking, errors, a mirror taken back
 * while we looked): it is always right, the mirror only fast.  A mirror
 * that is gone (EBADF, or the inert descriptor's EINVAL) is forgotten.
 */
static bool mirrored(long nr, cloudabi_fd_t fd, unsigned want,
                     const void *iovs, size_t n, size_t *done) {
  long m = mirror_of(fd, want);
  if (m == 0)
    return false;
  /* One buffer, the common case: read or write, which spares the kernel
   * copying in an iovec array. */
  cloudabi_iovec_t one;
  if (n == 1 && vdso_copy16(&one, iovs) == 0) {
    nr = nr == SYS_readv ? SYS_read : SYS_write;
    iovs = one.buf;
    n = one.buf_len;
  }
  long r = vdso_syscall3(nr, m, (long)iovs, (long)n);
  return settled(fd, m, r, done);
}

/* pread/pwrite of one buffer at offset; more buffers trap. */
static bool mirrored_at(long nr, cloudabi_fd_t fd, unsigned want,
                        const void *iovs, size_t n, uint64_t offset,
                        size_t *done) {
  long m = n == 1 ? mirror_of(fd, want) : 0;
  cloudabi_iovec_t one;
  if (m == 0 || vdso_copy16(&one, iovs) != 0)
    return false;
  long r = vdso_syscall6(nr, m, (long)one.buf, (long)one.buf_len,
                         (long)offset, 0, 0);
  return settled(fd, m, r, done);
}

/* Whether answer word a0, with the call returning 0, says the answer
 * with a mirror was cut short (trap.h): the result is then in the second
 * word, and there is no mirror. */
static bool answer_interrupted(uint64_t a0) {
  uint64_t m = a0 & ~TRAP_SLOT_MASK;
  return (a0 & TRAP_SLOT_MASK) == TRAP_ANSWER_TAG && m >= MIRROR_LOW &&
         m < MIRROR_HIGH;
}

struct slot {
  int index;
  char *data;
};

static int slot_claim(struct slot *s) {
  char *region = cloudabi_vdso_ioslots;
  if (region == NULL)
    return 0;
  uint64_t *free_bits = (uint64_t *)region;
  uint64_t m = __atomic_load_n(free_bits, __ATOMIC_RELAXED);
  while (m != 0) {
    int i = __builtin_ctzll(m);
    if (__atomic_compare_exchange_n(free_bits, &m, m & ~(1ull << i), 0,
                                    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
      s->index = i;
      s->data = region + IOSLOT_OFFSET(i);
      return 1;
    }
  }
  return 0;
}

static void slot_release(const struct slot *s) {
  uint64_t *free_bits = (uint64_t *)cloudabi_vdso_ioslots;
  __atomic_fetch_or(free_bits, 1ull << s->index, __ATOMIC_RELEASE);
}


/*
 * The generic stubs' marshalling (trapped.c): copies each input into the
 * slot and points its argument there, traps, then copies each output back
 * to where the guest wanted it.  With no slot, or data that does not fit,
 * the call traps with its plain arguments.
 */
long vdso_trap_marshalled(unsigned sysno, long a[6],
                          const struct vdso_marshal *ops, size_t nops) {
  struct slot s;
  if (!slot_claim(&s))
    return vdso_trap(sysno, a[0], a[1], a[2], a[3], a[4], a[5]);
  long orig[6] = {a[0], a[1], a[2], a[3], a[4], a[5]};
  size_t off = 0;
  int fits = 1;
  for (size_t k = 0; fits && k < nops; k++) {
    const struct vdso_marshal *m = &ops[k];
    size_t len = m->len_arg >= 0 ? (size_t)a[m->len_arg] : m->size;
    off = (off + 7) & ~(size_t)7;
    if (len > IOSLOT_ANSWER - off) {
      fits = 0;
      break;
    }
    if (m->in && vdso_copy(s.data + off, (const void *)orig[m->arg], len) != 0) {
      slot_release(&s);
      return -(TRAP_ERRNO_BIAS + CLOUDABI_EFAULT);
    }
    a[m->arg] = (long)TRAP_SLOTADDR(s.index, off);
    off += len;
  }
  if (!fits)
    for (int i = 0; i < 6; i++)
      a[i] = orig[i];
  volatile uint64_t *answer = (volatile uint64_t *)(s.data + IOSLOT_ANSWER);
  answer[0] = 0;
  long r = vdso_trap(sysno, a[0], a[1], a[2], a[3], a[4], a[5]);
  if (fits && r == 0 && answer_interrupted(answer[0]))
    r = (long)answer[1];
  else if (fits && r >= 0 && answer[0] == (TRAP_ANSWER_TAG | (uint64_t)r)) {
    /* Answered with a mirror (trap.h): r is its number. */
    uint64_t result = answer[1];
    if (result < MIRROR_FDS)
      __atomic_store_n(&cloudabi_vdso_mirrors_table[result], (uint16_t)r,
                       __ATOMIC_RELAXED);
    r = (long)result;
  }
  if (fits && r >= 0) {
    off = 0;
    for (size_t k = 0; k < nops; k++) {
      const struct vdso_marshal *m = &ops[k];
      size_t len = m->len_arg >= 0 ? (size_t)orig[m->len_arg] : m->size;
      off = (off + 7) & ~(size_t)7;
      /* Outputs of a caller-given length hold `r` bytes (bufused). */
      size_t back = m->len_arg >= 0 && (size_t)r < len ? (size_t)r : len;
      if (!m->in &&
          vdso_copy((void *)orig[m->arg], s.data + off, back) != 0) {
        r = -(TRAP_ERRNO_BIAS + CLOUDABI_EFAULT);
        break;
      }
      off += len;
    }
  }
  slot_release(&s);
  return r;
}

__asm__(".text\n"
        ".globl vdso_copy\n"
        ".hidden vdso_copy\n"
        ".type vdso_copy, @function\n"
        ".globl " VDSO_COPY_BEGIN_SYMBOL "\n"
        ".type " VDSO_COPY_BEGIN_SYMBOL ", @function\n"
        "vdso_copy:\n" VDSO_COPY_BEGIN_SYMBOL ":\n"
        "  mov %rdx, %rcx\n"
        "  rep movsb\n"
        "  xor %eax, %eax\n"
        "  ret\n"
        /* 16 bytes (one iovec) without rep movsb's start-up cost. */
        ".globl vdso_copy16\n"
        ".hidden vdso_copy16\n"
        ".type vdso_copy16, @function\n"
        "vdso_copy16:\n"
        "  mov (%rsi), %rax\n"
        "  mov 8(%rsi), %rdx\n"
        "  mov %rax, (%rdi)\n"
        "  mov %rdx, 8(%rdi)\n"
        "  xor %eax, %eax\n"
        "  ret\n"
        ".globl " VDSO_COPY_END_SYMBOL "\n"
        VDSO_COPY_END_SYMBOL ":\n"
        ".Lcopy_end:\n"
        ".globl " VDSO_COPY_FAULT_SYMBOL "\n"
        ".type " VDSO_COPY_FAULT_SYMBOL ", @function\n"
        VDSO_COPY_FAULT_SYMBOL ":\n"
        ".Lcopy_fault:\n"
        "  mov $21, %eax\n" /* CLOUDABI_EFAULT */
        "  ret\n"
        /*
         * The signal handler for threads the supervisor does not trace
         * (trap.h, TRAP_NR_CRASH): rdi the signal, rsi the siginfo, rdx
         * the ucontext.  A fault (si_code > 0) at an instruction of the
         * copy routine resumes as the supervisor would: at the fault
         * label, on the routine's caller's stack, with the caller's
         * callee-saved registers and floating-point control words (the
         * kernel reset those for the handler).  Installed with
         * SA_NODEFER and left by a jump, not sigreturn: no signal stays
         * blocked and the filter need not allow rt_sigreturn.
         */
        ".globl " VDSO_FAULT_HANDLER_SYMBOL "\n"
        ".type " VDSO_FAULT_HANDLER_SYMBOL ", @function\n"
        VDSO_FAULT_HANDLER_SYMBOL ":\n"
        "  cmp $11, %edi\n" /* SIGSEGV */
        "  je 1f\n"
        "  cmp $7, %edi\n" /* SIGBUS */
        "  jne 3f\n"
        "1:\n"
        "  cmpl $0, " XSTR(TRAP_SI_CODE) "(%rsi)\n"
        "  jle 3f\n"
        "  mov " XSTR(TRAP_UC_RIP) "(%rdx), %rax\n"
        "  lea vdso_copy(%rip), %rcx\n"
        "  cmp %rcx, %rax\n"
        "  jb 3f\n"
        "  lea .Lcopy_end(%rip), %rcx\n"
        "  cmp %rcx, %rax\n"
        "  jae 3f\n"
        "  mov " XSTR(TRAP_UC_FPREGS) "(%rdx), %rcx\n"
        "  test %rcx, %rcx\n"
        "  jz 2f\n"
        "  ldmxcsr 24(%rcx)\n"
        "  fldcw (%rcx)\n"
        "2:\n"
        "  mov " XSTR(TRAP_UC_R12) "(%rdx), %r12\n"
        "  mov " XSTR(TRAP_UC_R13) "(%rdx), %r13\n"
        "  mov " XSTR(TRAP_UC_R14) "(%rdx), %r14\n"
        "  mov " XSTR(TRAP_UC_R15) "(%rdx), %r15\n"
        "  mov " XSTR(TRAP_UC_RBP) "(%rdx), %rbp\n"
        "  mov " XSTR(TRAP_UC_RBX) "(%rdx), %rbx\n"
        "  mov " XSTR(TRAP_UC_RSP) "(%rdx), %rsp\n"
        "  jmp .Lcopy_fault\n"
        /* Anything else: the supervisor reports it and kills us. */
        "3:\n"
        "  mov $" XSTR(TRAP_NR_CRASH) ", %eax\n"
        "  syscall\n"
        "  add $128, %edi\n"
        "4:\n"
        "  mov $231, %eax\n" /* exit_group, should it answer */
        "  syscall\n"
        "  jmp 4b\n");
_Static_assert(CLOUDABI_EFAULT == 21, "the fault label returns EFAULT");
_Static_assert(sizeof(cloudabi_iovec_t) == 16, "vdso_copy16 loads one iovec");

#define MAX_SLOT_IOVS 16

/* The guest's iovecs, if there are few enough; -1 for a bad array. */
static int load_iovs(cloudabi_iovec_t *v, const void *iovs, size_t n) {
  if (n > MAX_SLOT_IOVS)
    return 0;
  return vdso_copy(v, iovs, n * sizeof(*v)) == 0 ? 1 : -1;
}

/* Gathers the data into the slot; 0 if it does not fit, -1 on a fault. */
static int gather(char *dst, const cloudabi_iovec_t *v, size_t n,
                  size_t *total) {
  size_t t = 0;
  for (size_t i = 0; i < n; i++) {
    if (v[i].buf_len > IOSLOT_SIZE - t)
      return 0;
    if (vdso_copy(dst + t, v[i].buf, v[i].buf_len) != 0)
      return -1;
    t += v[i].buf_len;
  }
  *total = t;
  return 1;
}

/* Scatters n bytes from the slot into the iovecs. */
static cloudabi_errno_t scatter(const cloudabi_iovec_t *v, size_t niov,
                                const char *src, size_t n) {
  for (size_t i = 0; i < niov && n > 0; i++) {
    size_t k = v[i].buf_len < n ? v[i].buf_len : n;
    if (vdso_copy(v[i].buf, src, k) != 0)
      return CLOUDABI_EFAULT;
    src += k;
    n -= k;
  }
  return 0;
}

static size_t capacity(const cloudabi_iovec_t *v, size_t n) {
  size_t t = 0;
  for (size_t i = 0; i < n; i++)
    t += v[i].buf_len < IOSLOT_SIZE - t ? v[i].buf_len : IOSLOT_SIZE - t;
  return t;
}

/* The answer bytes of slot s, cleared before a trap that may use them. */
static volatile uint64_t *answer_of(const struct slot *s) {
  volatile uint64_t *a = (volatile uint64_t *)(s->data + IOSLOT_ANSWER);
  a[0] = 0;
  return a;
}

/* r as a read or write on fd returned it: if the call was answered with
 * fd's mirror (trap.h), its number goes into the table and the result is
 * the call's own.  A read of more than IOSLOT_ANSWER bytes is never
 * answered so, and whatever data it left in those bytes (a peer's choice)
 * cannot pass for an answer: its r is no mirror number. */
static long answered_io(volatile uint64_t *a, cloudabi_fd_t fd, long r) {
  if (a == NULL)
    return r;
  if (r == 0 && answer_interrupted(a[0]) && a[1] <= IOSLOT_ANSWER)
    return (long)a[1];
  if (r < MIRROR_LOW || r >= MIRROR_HIGH ||
      a[0] != (TRAP_ANSWER_TAG | (uint64_t)r) || a[1] > IOSLOT_ANSWER)
    return r;
  if (fd < MIRROR_FDS)
    __atomic_store_n(&cloudabi_vdso_mirrors_table[fd], (uint16_t)r,
                     __ATOMIC_RELAXED);
  return (long)a[1];
}

/* Writes (fd_write, fd_pwrite): `slot_arg` is the register for the tag. */
static cloudabi_errno_t write_via_slot(unsigned sysno, cloudabi_fd_t fd,
                                       const void *iovs, size_t n, long a3,
                                       unsigned slot_arg, size_t *written) {
  long args[6] = {fd, (long)iovs, (long)n, a3, 0, 0};
  struct slot s;
  cloudabi_iovec_t v[MAX_SLOT_IOVS];
  size_t total = 0;
  volatile uint64_t *a = NULL;
  int claimed = slot_claim(&s);
  if (claimed) {
    int ok = load_iovs(v, iovs, n);
    if (ok > 0)
      ok = gather(s.data, v, n, &total);
    if (ok < 0) {
      slot_release(&s);
      return CLOUDABI_EFAULT;
    }
    if (ok > 0)
      args[slot_arg] = (long)TRAP_SLOT(s.index, total);
    /* The answer bytes, unless the data reaches them. */
    if (ok > 0 && total <= IOSLOT_ANSWER)
      a = answer_of(&s);
  }
  long r = vdso_trap(sysno, args[0], args[1], args[2], args[3], args[4],
                     args[5]);
  r = answered_io(a, fd, r);
  if (claimed)
    slot_release(&s);
  if (r < 0)
    return vdso_trap_errno(r);
  *written = (size_t)r;
  return 0;
}

static cloudabi_errno_t read_via_slot(unsigned sysno, cloudabi_fd_t fd,
                                      const void *iovs, size_t n, long a3,
                                      unsigned slot_arg, size_t *nread) {
  long args[6] = {fd, (long)iovs, (long)n, a3, 0, 0};
  struct slot s;
  cloudabi_iovec_t v[MAX_SLOT_IOVS];
  volatile uint64_t *a = NULL;
  int use = slot_claim(&s);
  if (use) {
    int ok = load_iovs(v, iovs, n);
    if (ok < 0) {
      slot_release(&s);
      return CLOUDABI_EFAULT;
    }
    if (ok > 0) {
      args[slot_arg] = (long)TRAP_SLOT(s.index, capacity(v, n));
      a = answer_of(&s);
    } else {
      slot_release(&s);
      use = 0;
    }
  }
  long r = vdso_trap(sysno, args[0], args[1], args[2], args[3], args[4],
                     args[5]);
  r = answered_io(a, fd, r);
  cloudabi_errno_t e = r < 0 ? vdso_trap_errno(r) : 0;
  if (use) {
    if (e == 0)
      e = scatter(v, n, s.data, (size_t)r);
    slot_release(&s);
  }
  if (e == 0)
    *nread = (size_t)r;
  return e;
}

VDSO_EXPORT cloudabi_errno_t cloudabi_sys_fd_write(
    cloudabi_fd_t fd, const cloudabi_ciovec_t *iovs, size_t n,
    size_t *nwritten) {
  size_t done;
  if (mirrored(SYS_writev, fd, MIRROR_WRITE, iovs, n, &done)) {
    *nwritten = done;
    return 0;
  }
  return write_via_slot(CLOUDABI_SYS_fd_write, fd, iovs, n, 0, 3, nwritten);
}

VDSO_EXPORT cloudabi_errno_t cloudabi_sys_fd_pwrite(
    cloudabi_fd_t fd, const cloudabi_ciovec_t *iovs, size_t n,
    cloudabi_filesize_t offset, size_t *nwritten) {
  size_t done;
  if (mirrored_at(SYS_pwrite64, fd, MIRROR_WRITE | MIRROR_SEEK, iovs, n,
                  offset, &done)) {
    *nwritten = done;
    return 0;
  }
  return write_via_slot(CLOUDABI_SYS_fd_pwrite, fd, iovs, n, (long)offset, 4,
                        nwritten);
}

VDSO_EXPORT cloudabi_errno_t cloudabi_sys_fd_read(cloudabi_fd_t fd,
                                                  const cloudabi_iovec_t *iovs,
                                                  size_t n, size_t *nread) {
  size_t done;
  if (mirrored(SYS_readv, fd, MIRROR_READ, iovs, n, &done)) {
    *nread = done;
    return 0;
  }
  return read_via_slot(CLOUDABI_SYS_fd_read, fd, iovs, n, 0, 3, nread);
}

VDSO_EXPORT cloudabi_errno_t cloudabi_sys_fd_pread(
    cloudabi_fd_t fd, const cloudabi_iovec_t *iovs, size_t n,
    cloudabi_filesize_t offset, size_t *nread) {
  size_t done;
  if (mirrored_at(SYS_pread64, fd, MIRROR_READ | MIRROR_SEEK, iovs, n, offset,
                  &done)) {
    *nread = done;
    return 0;
  }
  return read_via_slot(CLOUDABI_SYS_fd_pread, fd, iovs, n, (long)offset, 4,
                       nread);
}

/* sock_recv's answer r with a mirror (trap.h): that of the first
 * descriptor received, whose number is fds[0]. */
static void received_mirror(long r, const cloudabi_fd_t *fds, size_t nfds) {
  if (r >= MIRROR_LOW && r < MIRROR_HIGH && nfds > 0 && fds[0] < MIRROR_FDS)
    __atomic_store_n(&cloudabi_vdso_mirrors_table[fds[0]], (uint16_t)r,
                     __ATOMIC_RELAXED);
}

static cloudabi_errno_t sock_recv_plain(cloudabi_fd_t sock,
                                        const cloudabi_recv_in_t *in,
                                        cloudabi_recv_out_t *out) {
  long r = vdso_trap(CLOUDABI_SYS_sock_recv, (long)sock, (long)in, (long)out,
                     0, 0, 0);
  if (r < 0)
    return vdso_trap_errno(r);
  cloudabi_recv_in_t i;
  cloudabi_fd_t fd;
  if (r >= MIRROR_LOW && r < MIRROR_HIGH &&
      vdso_copy(&i, in, sizeof(i)) == 0 && i.ri_fds_len > 0 &&
      vdso_copy(&fd, i.ri_fds, sizeof(fd)) == 0)
    received_mirror(r, &fd, 1);
  return 0;
}

/* At most this many buffers go through a slot; more trap plainly. */
#define RECV_SLOT_IOVS 16

static size_t align8(size_t n) { return (n + 7) & ~(size_t)7; }

/* Where a message call (sock_recv, sock_send) puts things in its slot:
 * the data from 0 to total, then its in struct, the descriptor array and
 * its out struct. */
struct msg_slot {
  struct slot s;
  size_t total, in_off, fds_off, out_off;
};

/* Copies the call's n buffers (iovecs or ciovecs, laid out alike) to iov,
 * lays the call out and claims a slot for it; false if something does not
 * fit or cannot be read, for the call to trap with its plain arguments. */
static bool msg_slot_claim(struct msg_slot *m, const void *iovs, size_t n,
                           size_t nfds, size_t in_size, size_t out_size,
                           cloudabi_iovec_t *iov) {
  if (n > RECV_SLOT_IOVS || nfds > IOSLOT_ANSWER / sizeof(cloudabi_fd_t) ||
      vdso_copy(iov, iovs, n * sizeof(iov[0])) != 0)
    return false;
  m->total = 0;
  for (size_t k = 0; k < n; k++) {
    if (iov[k].buf_len > IOSLOT_ANSWER - m->total)
      return false;
    m->total += iov[k].buf_len;
  }
  m->in_off = align8(m->total);
  m->fds_off = align8(m->in_off + in_size);
  m->out_off = align8(m->fds_off + nfds * sizeof(cloudabi_fd_t));
  return m->out_off + out_size <= IOSLOT_ANSWER && slot_claim(&m->s);
}

_Static_assert(sizeof(cloudabi_iovec_t) == sizeof(cloudabi_ciovec_t), "alike");

/* Puts the call's in struct (its descriptor array already pointing into
 * the slot) in its place and traps with the slot's addresses. */
static long msg_slot_trap(const struct msg_slot *m, unsigned sysno, long sock,
                          const void *in, size_t in_size) {
  __builtin_memcpy(m->s.data + m->in_off, in, in_size);
  return vdso_trap(sysno, sock, (long)TRAP_SLOTADDR(m->s.index, m->in_off),
                   (long)TRAP_SLOTADDR(m->s.index, m->out_off),
                   (long)TRAP_SLOT(m->s.index, m->total), 0, 0);
}

/*
 * sock_recv through an I/O slot, so that the supervisor moves neither the
 * message nor its descriptors with process_vm_readv/writev: the data at
 * the slot's start (the tag in the fourth argument, as fd_read's), then
 * recv_in with its descriptor array in the slot, the array, recv_out.  The
 * call returns 0 when it succeeds, so any mirror number is an answer with
 * one (trap.h): that of the first descriptor received, a connection.
 * What does not fit, and bad pointers, trap with the plain arguments.
 */
VDSO_EXPORT cloudabi_errno_t cloudabi_sys_sock_recv(
    cloudabi_fd_t sock, const cloudabi_recv_in_t *in,
    cloudabi_recv_out_t *out) {
  cloudabi_recv_in_t i;
  cloudabi_iovec_t iov[RECV_SLOT_IOVS];
  struct msg_slot ms;
  if (vdso_copy(&i, in, sizeof(i)) != 0 ||
      !msg_slot_claim(&ms, i.ri_data, i.ri_data_len, i.ri_fds_len, sizeof(i),
                      sizeof(*out), iov))
    return sock_recv_plain(sock, in, out);
  cloudabi_recv_in_t si = i;
  si.ri_fds = (cloudabi_fd_t *)TRAP_SLOTADDR(ms.s.index, ms.fds_off);
  long r = msg_slot_trap(&ms, CLOUDABI_SYS_sock_recv, sock, &si, sizeof(si));
  if (r < 0) {
    slot_release(&ms.s);
    return vdso_trap_errno(r);
  }
  /* The slot is this process's memory, which other threads can write:
   * every count read back is bounded again. */
  cloudabi_recv_out_t o;
  __builtin_memcpy(&o, ms.s.data + ms.out_off, sizeof(o));
  size_t nfds = o.ro_fdslen < i.ri_fds_len ? o.ro_fdslen : i.ri_fds_len;
  const cloudabi_fd_t *fds = (const cloudabi_fd_t *)(ms.s.data + ms.fds_off);
  size_t left = o.ro_datalen < ms.total ? o.ro_datalen : ms.total, off = 0;
  int bad = 0;
  for (size_t k = 0; k < i.ri_data_len && left > 0; k++) {
    size_t part = iov[k].buf_len < left ? iov[k].buf_len : left;
    bad |= vdso_copy(iov[k].buf, ms.s.data + off, part);
    off += part;
    left -= part;
  }
  if (nfds > 0)
    bad |= vdso_copy(i.ri_fds, fds, nfds * sizeof(cloudabi_fd_t));
  bad |= vdso_copy(out, &o, sizeof(o));
  if (bad) {
    /* As the supervisor does when it cannot write them: the program
     * cannot learn their numbers, so they do not stay. */
    for (size_t k = 0; k < nfds; k++)
      vdso_trap(CLOUDABI_SYS_fd_close, (long)fds[k], 0, 0, 0, 0, 0);
    slot_release(&ms.s);
    return CLOUDABI_EFAULT;
  }
  received_mirror(r, fds, nfds);
  slot_release(&ms.s);
  return 0;
}

static cloudabi_errno_t sock_send_plain(cloudabi_fd_t sock,
                                        const cloudabi_send_in_t *in,
                                        cloudabi_send_out_t *out) {
  long r = vdso_trap(CLOUDABI_SYS_sock_send, (long)sock, (long)in, (long)out,
                     0, 0, 0);
  return r < 0 ? vdso_trap_errno(r) : 0;
}

/*
 * sock_send through an I/O slot, as sock_recv: the data gathered at the
 * slot's start (its tag in the fourth argument, as fd_write's), then
 * send_in with its descriptor array in the slot, the array, send_out.
 */
VDSO_EXPORT cloudabi_errno_t cloudabi_sys_sock_send(
    cloudabi_fd_t sock, const cloudabi_send_in_t *in,
    cloudabi_send_out_t *out) {
  cloudabi_send_in_t i;
  cloudabi_iovec_t iov[RECV_SLOT_IOVS];
  struct msg_slot ms;
  if (vdso_copy(&i, in, sizeof(i)) != 0 ||
      !msg_slot_claim(&ms, i.si_data, i.si_data_len, i.si_fds_len, sizeof(i),
                      sizeof(*out), iov))
    return sock_send_plain(sock, in, out);
  /* Bad input pointers: the plain trap says EFAULT as before. */
  size_t off = 0;
  int bad = 0;
  for (size_t k = 0; k < i.si_data_len; k++) {
    bad |= vdso_copy(ms.s.data + off, iov[k].buf, iov[k].buf_len);
    off += iov[k].buf_len;
  }
  if (i.si_fds_len > 0)
    bad |= vdso_copy(ms.s.data + ms.fds_off, i.si_fds,
                     i.si_fds_len * sizeof(cloudabi_fd_t));
  if (bad) {
    slot_release(&ms.s);
    return sock_send_plain(sock, in, out);
  }
  cloudabi_send_in_t si = i;
  si.si_fds = (const cloudabi_fd_t *)TRAP_SLOTADDR(ms.s.index, ms.fds_off);
  long r = msg_slot_trap(&ms, CLOUDABI_SYS_sock_send, sock, &si, sizeof(si));
  cloudabi_errno_t e = r < 0 ? vdso_trap_errno(r) : 0;
  if (e == 0) {
    cloudabi_send_out_t o;
    __builtin_memcpy(&o, ms.s.data + ms.out_off, sizeof(o));
    e = vdso_copy(out, &o, sizeof(o)) != 0 ? CLOUDABI_EFAULT : 0;
  }
  slot_release(&ms.s);
  return e;
}

VDSO_EXPORT cloudabi_errno_t cloudabi_sys_fd_stat_get(cloudabi_fd_t fd,
                                                      cloudabi_fdstat_t *buf) {
  struct slot s;
  if (!slot_claim(&s)) {
    long r = vdso_trap(CLOUDABI_SYS_fd_stat_get, fd, (long)buf, 0, 0, 0, 0);
    return r < 0 ? vdso_trap_errno(r) : 0;
  }
  long r = vdso_trap(CLOUDABI_SYS_fd_stat_get, fd, (long)buf,
                     (long)TRAP_SLOT(s.index, sizeof(*buf)), 0, 0, 0);
  cloudabi_errno_t e = r < 0 ? vdso_trap_errno(r) : 0;
  if (e == 0)
    e = vdso_copy(buf, s.data, sizeof(*buf));
  slot_release(&s);
  return e;
}

/* fd's mirror, if the table names one, closed by us: the supervisor
 * then only checks it is gone (kcmp) instead of replacing it in our
 * table (ADDFD, a round trip to this task). */
static void close_mirror(cloudabi_fd_t fd) {
  long m = mirror_of(fd, 0);
  uint16_t expect = (uint16_t)m;
  if (m != 0 &&
      __atomic_compare_exchange_n(&cloudabi_vdso_mirrors_table[fd], &expect,
                                  0, false, __ATOMIC_RELAXED,
                                  __ATOMIC_RELAXED))
    vdso_syscall3(SYS_close, m, 0, 0);
}

/*
 * fd_close of a file or directory needs no answer: the
 * supervisor closes it before it looks at any later call of this process
 * (trap.h, "Deferred closes").  Anything else traps, as does a descriptor
 * closed already, so that the supervisor says EBADF; its mirror goes
 * first either way.
 */
VDSO_EXPORT cloudabi_errno_t cloudabi_sys_fd_close(cloudabi_fd_t fd) {
  char *region = cloudabi_vdso_ioslots;
  if (region != NULL && fd < CLOSE_HINT_FDS) {
    uint8_t *hint = (uint8_t *)region + IOSLOT_CLOSE_HINTS + fd;
    uint8_t open = CLOSE_HINT_OPEN;
    if (__atomic_compare_exchange_n(hint, &open, CLOSE_HINT_CLOSED, 0,
                                    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
      close_mirror(fd);
      __atomic_fetch_add((uint32_t *)(region + IOSLOT_CLOSES_PENDING), 1,
                         __ATOMIC_SEQ_CST);
      return 0;
    }
  }
  close_mirror(fd);
  long r = vdso_trap(CLOUDABI_SYS_fd_close, (long)fd, 0, 0, 0, 0, 0);
  return r < 0 ? vdso_trap_errno(r) : 0;
}

/* struct stat of Linux x86-64, as fstat fills it. */
struct linux_stat {
  uint64_t dev, ino, nlink;
  uint32_t mode, uid, gid, pad0;
  uint64_t rdev;
  int64_t size, blksize, blocks;
  uint64_t atime, atime_ns, mtime, mtime_ns, ctime, ctime_ns;
  int64_t unused[3];
};
_Static_assert(sizeof(struct linux_stat) == 144, "Linux struct stat");

#define LINUX_S_IFMT 0170000u
#define LINUX_S_IFREG 0100000u

/*
 * file_stat_fget of a file with a stat mirror (MIRROR_STAT, trap.h) is an
 * fstat of it, converted as the supervisor converts (host/filestat.c).
 * Anything but a regular file's answer (the inert descriptor's, say, an
 * epoll instance that fstat does not refuse) means the mirror is gone,
 * and the call traps.
 */
VDSO_EXPORT cloudabi_errno_t
cloudabi_sys_file_stat_fget(cloudabi_fd_t fd, cloudabi_filestat_t *buf) {
  long m = mirror_of(fd, MIRROR_STAT);
  if (m != 0) {
    struct linux_stat st;
    long r = vdso_syscall2(SYS_fstat, m, (long)&st);
    if (r == 0 && (st.mode & LINUX_S_IFMT) == LINUX_S_IFREG) {
      mark_used(fd);
      cloudabi_filestat_t fs = {
          .st_dev = st.dev,
          .st_ino = st.ino,
          .st_filetype = CLOUDABI_FILETYPE_REGULAR_FILE,
          .st_nlink = st.nlink > UINT32_MAX ? UINT32_MAX
                                            : (cloudabi_linkcount_t)st.nlink,
          .st_size = (cloudabi_filesize_t)st.size,
          .st_atim = st.atime * 1000000000u + st.atime_ns,
          .st_mtim = st.mtime * 1000000000u + st.mtime_ns,
          .st_ctim = st.ctime * 1000000000u + st.ctime_ns,
      };
      return vdso_copy(buf, &fs, sizeof(fs));
    }
    uint16_t expect = (uint16_t)m;
    __atomic_compare_exchange_n(&cloudabi_vdso_mirrors_table[fd], &expect, 0,
                                false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  }
  static const struct vdso_marshal out[] = {
      {1, -1, 0, sizeof(cloudabi_filestat_t)}};
  long a[6] = {(long)fd, (long)buf, 0, 0, 0, 0};
  long r = vdso_trap_marshalled(CLOUDABI_SYS_file_stat_fget, a, out, 1);
  return r < 0 ? vdso_trap_errno(r) : 0;
}
