/*
 * thread_create and thread_exit at the ABI level, without the runtime's
 * helpers: the registers and stack a new thread starts with (FreeBSD's
 * layout: rdi = tid, rsi = argument, rsp = 8 mod 16 with a zero return
 * address, %fs:0 holding the address of a zeroed TCB at the top of the
 * stack), the join lock thread_exit releases, bad arguments, and how the
 * process ends when its initial thread exits before the others.
 *
 * Config: out; do: "abi" (the checks), "main_exits" (the initial thread
 * exits, the last thread calls proc_exit(3)), "last_exits" (the initial
 * thread exits, then the last thread too: status 0).
 */
#include "rt.h"
#include "rt_thread.h"

#define MS 1000000ull

struct probe {
  cloudabi_tid_t tid;
  void *self;
  uint64_t rsp, ret, fs0, tcb_parent;
  _Atomic(cloudabi_lock_t) join;
};

/* The entry as the kernel... as the vDSO starts it: record the stack
 * pointer and return address before any C code moves them. */
void probe_entry(cloudabi_tid_t tid, void *arg);
void probe_entry_c(cloudabi_tid_t tid, void *arg, uint64_t rsp, uint64_t ret);
__asm__(".globl probe_entry\n"
        "probe_entry:\n"
        "  mov %rsp, %rdx\n"
        "  mov (%rsp), %rcx\n"
        "  jmp probe_entry_c\n");

void probe_entry_c(cloudabi_tid_t tid, void *arg, uint64_t rsp,
                   uint64_t ret) {
  struct probe *p = arg;
  uint64_t fs0;
  __asm__ volatile("mov %%fs:0, %0" : "=r"(fs0));
  p->tid = tid;
  p->self = arg;
  p->rsp = rsp;
  p->ret = ret;
  p->fs0 = fs0;
  p->tcb_parent = (uint64_t)((cloudabi_tcb_t *)fs0)->parent;
  cloudabi_sys_thread_exit(&p->join, CLOUDABI_SCOPE_PRIVATE);
}

static void join(_Atomic(cloudabi_lock_t) *lock) {
  cloudabi_subscription_t sub = {.type = CLOUDABI_EVENTTYPE_LOCK_RDLOCK,
                                 .lock = {lock, CLOUDABI_SCOPE_PRIVATE}};
  cloudabi_event_t ev;
  size_t n;
  RT_EXPECT(cloudabi_sys_poll(&sub, &ev, 1, &n), 0);
  RT_CHECK(n == 1 && ev.error == 0);
}

static void test_abi(void) {
  static char stacks[4][65536] __attribute__((aligned(16)));
  /* Stack ends that are not 16-byte aligned are rounded down. */
  static const size_t lens[4] = {65536, 65535, 65528, 4099};
  for (int i = 0; i < 4; i++) {
    struct probe p = {.join = CLOUDABI_LOCK_BOGUS};
    cloudabi_threadattr_t attr = {probe_entry, stacks[i], lens[i], &p};
    cloudabi_tid_t tid;
    RT_EXPECT(cloudabi_sys_thread_create(&attr, &tid), 0);
    /* Write-locked by the new thread (as cloudlibc's pthread_create does
     * once the tid is known); thread_exit releases it. */
    cloudabi_lock_t bogus = CLOUDABI_LOCK_BOGUS;
    __atomic_compare_exchange_n((uint32_t *)&p.join, &bogus,
                                tid | CLOUDABI_LOCK_WRLOCKED, false,
                                __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    join(&p.join);
    RT_CHECK(p.join == CLOUDABI_LOCK_UNLOCKED || p.join == 1);
    RT_CHECK(p.tid == tid && tid != rt_thread_self() && tid < (1u << 30));
    RT_CHECK(p.self == &p);
    uintptr_t top = (uintptr_t)stacks[i] + lens[i];
    uintptr_t tcb = (top - 8) & ~(uintptr_t)7;
    RT_CHECK(p.fs0 == tcb);
    RT_CHECK(p.tcb_parent == 0);
    RT_CHECK(p.rsp % 16 == 8);
    RT_CHECK(p.rsp == (((tcb - 8) & ~(uintptr_t)15) - 8));
    RT_CHECK(p.ret == 0);
  }
  /* A stack too small for the TCB and a frame. */
  struct probe p;
  cloudabi_threadattr_t attr = {probe_entry, stacks[0], 64, &p};
  cloudabi_tid_t tid;
  RT_EXPECT(cloudabi_sys_thread_create(&attr, &tid), CLOUDABI_EINVAL);
  attr.stack = (void *)~(uintptr_t)0;
  attr.stack_len = 4096;
  RT_EXPECT(cloudabi_sys_thread_create(&attr, &tid), CLOUDABI_EINVAL);
  /* thread_yield, for completeness. */
  RT_EXPECT(cloudabi_sys_thread_yield(), 0);
}

static cloudabi_fd_t out;
static const char *mode;

static void *outlive(void *arg) {
  (void)arg;
  rt_sleep_ns(50 * MS);
  rt_printf(out, "the last thread\n");
  if (strcmp(mode, "main_exits") == 0)
    cloudabi_sys_proc_exit(3);
  static _Atomic(cloudabi_lock_t) unused;
  cloudabi_sys_thread_exit(&unused, CLOUDABI_SCOPE_PRIVATE);
}

void program_main(const argdata_t *ad) {
  out = rt_map_fd(ad, "out");
  rt_log_fd = out;
  mode = rt_map_str(ad, "do", "abi");
  if (strcmp(mode, "abi") == 0) {
    test_abi();
    rt_printf(out, "thread_abi: %u checks passed\n", rt_checks_passed);
    return;
  }
  rt_thread_t *t;
  RT_CHECK(rt_thread_create(&t, outlive, NULL) == 0);
  static _Atomic(cloudabi_lock_t) unused;
  cloudabi_sys_thread_exit(&unused, CLOUDABI_SCOPE_PRIVATE);
}
