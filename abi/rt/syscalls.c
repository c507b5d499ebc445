/*
 * The cloudabi_sys_* functions a program calls.  As in upstream crt0, each
 * forwards through a table that starts out answering ENOSYS and that
 * rt_bind_vdso() fills from the vDSO's symbols.
 */
#include "rt.h"
#include "syscalls.h"

#define RET_0 cloudabi_errno_t
#define RET_1 void
#define RET_X(b) RET_##b
#define RET(b) RET_X(b)
#define FN_TYPE(name, where, n, args)                                          \
  typedef RET(CLOUDABI_IS_NORETURN(name))                                      \
      fn_##name##_t(CLOUDABI_PARAMS(n, args));
CLOUDABI_SYSCALLS(FN_TYPE)

#define UNUSED_PARAM(i, kind, name, rights)                                    \
  __attribute__((unused)) cloudabi_kind_##kind##_t name
#define UNUSED_PARAMS_0(n, args) void
#define UNUSED_PARAMS_N(n, args)                                               \
  CLOUDABI_ARGS_FOREACH(UNUSED_PARAM, CLOUDABI_SEP_COMMA, n, args)
#define UNUSED_PARAMS_1 UNUSED_PARAMS_N
#define UNUSED_PARAMS_2 UNUSED_PARAMS_N
#define UNUSED_PARAMS_3 UNUSED_PARAMS_N
#define UNUSED_PARAMS_4 UNUSED_PARAMS_N
#define UNUSED_PARAMS_5 UNUSED_PARAMS_N
#define UNUSED_PARAMS_6 UNUSED_PARAMS_N
#define UNUSED_PARAMS_7 UNUSED_PARAMS_N

/* Unbound calls fail with ENOSYS; the ones that may not return spin. */
#define ENOSYS_BODY_0 return CLOUDABI_ENOSYS;
#define ENOSYS_BODY_1 for (;;) {}
#define ENOSYS_BODY_X(b) ENOSYS_BODY_##b
#define ENOSYS_BODY(b) ENOSYS_BODY_X(b)
#define ENOSYS_FN(name, where, n, args)                                        \
  static RET(CLOUDABI_IS_NORETURN(name))                                       \
      enosys_##name(UNUSED_PARAMS_##n(n, args)) {                              \
    ENOSYS_BODY(CLOUDABI_IS_NORETURN(name))                                    \
  }
CLOUDABI_SYSCALLS(ENOSYS_FN)

typedef void generic_fn_t(void);
#define DEFAULT_SLOT(name, ...) (generic_fn_t *)enosys_##name,
static generic_fn_t *slots[CLOUDABI_SYSCALL_COUNT] = {
    CLOUDABI_SYSCALLS(DEFAULT_SLOT)};

#define NAME(name, ...) #name,
static const char names[][24] = {CLOUDABI_SYSCALLS(NAME)};

#define ARG_NAME(i, kind, name, rights) name
#define CALL(name, n, args)                                                    \
  ((fn_##name##_t *)slots[CLOUDABI_SYS_##name])(                               \
      CLOUDABI_ARGS_FOREACH(ARG_NAME, CLOUDABI_SEP_COMMA, n, args))
#define WRAPPER_BODY_0(name, n, args) return CALL(name, n, args);
#define WRAPPER_BODY_1(name, n, args)                                          \
  CALL(name, n, args);                                                         \
  for (;;) {                                                                   \
  }
#define WRAPPER_BODY_X(b, name, n, args) WRAPPER_BODY_##b(name, n, args)
#define WRAPPER_BODY(b, name, n, args) WRAPPER_BODY_X(b, name, n, args)
#define WRAPPER(name, where, n, args)                                          \
  CLOUDABI_RESULT_TYPE(name) cloudabi_sys_##name(CLOUDABI_PARAMS(n, args)) {   \
    WRAPPER_BODY(CLOUDABI_IS_NORETURN(name), name, n, args)                    \
  }
CLOUDABI_SYSCALLS(WRAPPER)

static bool has_prefix(const char *s, const char *prefix, const char **rest) {
  while (*prefix != '\0')
    if (*s++ != *prefix++)
      return false;
  *rest = s;
  return true;
}

size_t rt_bind_vdso(const void *ehdr_ptr) {
  const elf64_ehdr_t *ehdr = ehdr_ptr;
  const char *base = ehdr_ptr;
  const elf64_phdr_t *phdr = (const elf64_phdr_t *)(base + ehdr->e_phoff);
  const elf64_dyn_t *dyn = NULL;
  for (size_t i = 0; i < ehdr->e_phnum; i++)
    if (phdr[i].p_type == ELF64_PT_DYNAMIC)
      dyn = (const elf64_dyn_t *)(base + phdr[i].p_vaddr);
  if (dyn == NULL)
    return 0;
  const uint32_t *hash = NULL;
  const elf64_sym_t *symtab = NULL;
  const char *strtab = NULL;
  for (; dyn->d_tag != ELF64_DT_NULL; dyn++) {
    if (dyn->d_tag == ELF64_DT_HASH)
      hash = (const uint32_t *)(base + dyn->d_val);
    else if (dyn->d_tag == ELF64_DT_SYMTAB)
      symtab = (const elf64_sym_t *)(base + dyn->d_val);
    else if (dyn->d_tag == ELF64_DT_STRTAB)
      strtab = base + dyn->d_val;
  }
  if (hash == NULL || symtab == NULL || strtab == NULL)
    return 0;
  /* Like upstream crt0: DT_HASH's nchain is the number of symbols. */
  size_t nsyms = hash[1], bound = 0;
  for (size_t i = 0; i < nsyms; i++) {
    const elf64_sym_t *sym = &symtab[i];
    const char *rest;
    if ((sym->st_info >> 4) != ELF64_STB_GLOBAL ||
        (sym->st_info & 0xf) != ELF64_STT_FUNC ||
        (sym->st_other & 0x3) != ELF64_STV_DEFAULT || sym->st_name == 0 ||
        !has_prefix(strtab + sym->st_name, "cloudabi_sys_", &rest))
      continue;
    for (size_t k = 0; k < CLOUDABI_SYSCALL_COUNT; k++) {
      if (strcmp(rest, names[k]) == 0) {
        slots[k] = (generic_fn_t *)(base + sym->st_value);
        bound++;
        break;
      }
    }
  }
  return bound;
}
