/*
 * Program start-up, doing what upstream cloudlibc's crt0 does, so that our
 * test programs exercise the supervisor the way real programs do:
 * relocate, bind the vDSO, protect RELRO, set up TLS behind %fs:0, call
 * program_main() with the argument data.
 */
#include "rt.h"
#include "syscalls.h"

struct rt_startup rt_startup;

/* TLS for the initial thread lives on _start's stack, as upstream; other
 * threads build theirs the same way on their own stacks (thread.c). */
struct tls_image {
  const void *init;
  size_t filesz, memsz, align;
};
static struct tls_image tls_image;

/* TLS variant II: the block ends where the TCB starts. */
static size_t tls_block_size(const struct tls_image *tls) {
  return (tls->memsz + tls->align - 1) & ~(tls->align - 1);
}

static size_t tls_tcb_align(const struct tls_image *tls) {
  return tls->align > 16 ? tls->align : 16;
}

size_t rt_tls_area_size(void) {
  return tls_block_size(&tls_image) + sizeof(cloudabi_tcb_t) +
         tls_tcb_align(&tls_image);
}

static void fatal(const char *msg) {
  if (rt_write_all(2, msg, strlen(msg)) != 0)
    rt_note(msg, strlen(msg));
  cloudabi_sys_proc_raise(CLOUDABI_SIGABRT);
  cloudabi_sys_proc_exit(127);
}

/*
 * Runs before relocation: no global data may be touched, only locals and
 * position-independent code.  Returns false on a relocation type a static
 * PIE should not contain.
 */
static bool relocate(uintptr_t base, const elf64_dyn_t *dyn) {
  const elf64_rela_t *rela = NULL;
  size_t relasz = 0, relaent = sizeof(elf64_rela_t);
  for (; dyn->d_tag != ELF64_DT_NULL; dyn++) {
    if (dyn->d_tag == ELF64_DT_RELA)
      rela = (const elf64_rela_t *)(base + dyn->d_val);
    else if (dyn->d_tag == ELF64_DT_RELASZ)
      relasz = dyn->d_val;
    else if (dyn->d_tag == ELF64_DT_RELAENT)
      relaent = dyn->d_val;
  }
  bool ok = true;
  for (size_t off = 0; rela != NULL && off + relaent <= relasz;
       off += relaent) {
    const elf64_rela_t *r = (const elf64_rela_t *)((const char *)rela + off);
    if ((r->r_info & 0xffffffff) == ELF64_R_X86_64_RELATIVE)
      *(uint64_t *)(base + r->r_offset) = base + (uint64_t)r->r_addend;
    else
      ok = false;
  }
  return ok;
}

static void tcb_set(cloudabi_tcb_t *tcb) {
  __asm__ volatile("mov %0, %%fs:0" : : "r"(tcb));
}

static void tls_install(const struct tls_image *tls, char *area) {
  size_t tls_size = tls_block_size(tls), tcb_align = tls_tcb_align(tls);
  uintptr_t tp =
      ((uintptr_t)area + tls_size + tcb_align - 1) & ~(tcb_align - 1);
  char *block = (char *)(tp - tls_size);
  memcpy(block, tls->init, tls->filesz);
  memset(block + tls->filesz, 0, tls_size - tls->filesz);
  cloudabi_tcb_t *tcb = (cloudabi_tcb_t *)tp;
  tcb->parent = NULL;
  tcb_set(tcb);
}

void rt_tls_install(char *area) { tls_install(&tls_image, area); }

_Noreturn void _start(const cloudabi_auxv_t *auxv);
_Noreturn void _start(const cloudabi_auxv_t *auxv) {
  uintptr_t base = 0;
  const elf64_phdr_t *phdr = NULL;
  size_t phnum = 0, argdatalen = 0, ncpus = 1, pagesz = 1, canarylen = 0;
  const void *argdata = NULL, *vdso = NULL, *pid = NULL, *canary = NULL;
  cloudabi_tid_t tid = 1;
  for (const cloudabi_auxv_t *a = auxv; a->a_type != CLOUDABI_AT_NULL; a++) {
    switch (a->a_type) {
    case CLOUDABI_AT_ARGDATA:
      argdata = a->a_ptr;
      break;
    case CLOUDABI_AT_ARGDATALEN:
      argdatalen = a->a_val;
      break;
    case CLOUDABI_AT_BASE:
      base = (uintptr_t)a->a_ptr;
      break;
    case CLOUDABI_AT_CANARY:
      canary = a->a_ptr;
      break;
    case CLOUDABI_AT_CANARYLEN:
      canarylen = a->a_val;
      break;
    case CLOUDABI_AT_NCPUS:
      ncpus = a->a_val;
      break;
    case CLOUDABI_AT_PAGESZ:
      pagesz = a->a_val;
      break;
    case CLOUDABI_AT_PHDR:
      phdr = a->a_ptr;
      break;
    case CLOUDABI_AT_PHNUM:
      phnum = a->a_val;
      break;
    case CLOUDABI_AT_PID:
      pid = a->a_ptr;
      break;
    case CLOUDABI_AT_SYSINFO_EHDR:
      vdso = a->a_ptr;
      break;
    case CLOUDABI_AT_TID:
      tid = (cloudabi_tid_t)a->a_val;
      break;
    }
  }

  const elf64_dyn_t *dyn = NULL;
  const elf64_phdr_t *relro = NULL;
  struct tls_image tls = {NULL, 0, 0, 1};
  for (size_t i = 0; phdr != NULL && i < phnum; i++) {
    if (phdr[i].p_type == ELF64_PT_DYNAMIC)
      dyn = (const elf64_dyn_t *)(base + phdr[i].p_vaddr);
    else if (phdr[i].p_type == ELF64_PT_GNU_RELRO)
      relro = &phdr[i];
    else if (phdr[i].p_type == ELF64_PT_TLS)
      tls = (struct tls_image){(const void *)(base + phdr[i].p_vaddr),
                               phdr[i].p_filesz, phdr[i].p_memsz,
                               phdr[i].p_align > 0 ? phdr[i].p_align : 1};
  }
  bool relocs_ok = dyn == NULL || relocate(base, dyn);

  /* From here on global data holds correct addresses. */
  if (vdso != NULL)
    rt_startup.nsyscalls_bound = rt_bind_vdso(vdso);
  if (!relocs_ok)
    fatal("crt0: unsupported relocation type\n");

  /* Upstream rounds RELRO inwards to whole pages, and so do we. */
  if (relro != NULL && pagesz > 1) {
    uintptr_t start = (base + relro->p_vaddr + pagesz - 1) & ~(pagesz - 1);
    uintptr_t end = (base + relro->p_vaddr + relro->p_memsz) & ~(pagesz - 1);
    if (start < end)
      cloudabi_sys_mem_protect((void *)start, end - start, CLOUDABI_PROT_READ);
  }

  tls_image = tls;
  tls_install(&tls, __builtin_alloca(rt_tls_area_size()));
  rt_thread_init_main(tid);

  rt_startup.auxv = auxv;
  rt_startup.base = base;
  rt_startup.ncpus = ncpus;
  rt_startup.pagesz = pagesz;
  rt_startup.tid = tid;
  rt_startup.pid = pid;
  rt_startup.canary = canary;
  rt_startup.canarylen = canarylen;

  argdata_t ad = argdata_from_buffer(argdata, argdatalen);
  program_main(&ad);
  cloudabi_sys_proc_exit(0);
}
