/*
 * The vDSOs (plain and tracing) are what upstream crt0 can bind: a SysV
 * hash table (DT_HASH, which crt0 reads; GNU_HASH it ignores), exactly the
 * 49 cloudabi_sys_* functions as GLOBAL FUNC DEFAULT symbols in the spec's
 * order of names, and no relocations, since nothing relocates a vDSO.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "cloudabi_syscalls.h"

#define NAME(name, ...) "cloudabi_sys_" #name,
static const char *const names[] = {CLOUDABI_SYSCALLS(NAME)};

static int nimages;
static char **images;

static void check(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  assert_true(fd >= 0);
  Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
  assert_non_null(elf);
  bool found[CLOUDABI_SYSCALL_COUNT] = {false};
  bool has_hash = false;
  for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn != NULL;
       scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    assert_non_null(gelf_getshdr(scn, &sh));
    if (sh.sh_type == SHT_REL || sh.sh_type == SHT_RELA)
      assert_int_equal(sh.sh_size, 0);
    has_hash |= sh.sh_type == SHT_HASH;
    if (sh.sh_type != SHT_DYNSYM)
      continue;
    Elf_Data *data = elf_getdata(scn, NULL);
    for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
      GElf_Sym sym;
      assert_non_null(gelf_getsym(data, (int)i, &sym));
      const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
      if (name == NULL || strncmp(name, "cloudabi_sys_", 13) != 0)
        continue;
      assert_int_equal(GELF_ST_BIND(sym.st_info), STB_GLOBAL);
      assert_int_equal(GELF_ST_TYPE(sym.st_info), STT_FUNC);
      assert_int_equal(GELF_ST_VISIBILITY(sym.st_other), STV_DEFAULT);
      assert_true(sym.st_value != 0);
      bool known = false;
      for (size_t k = 0; k < CLOUDABI_SYSCALL_COUNT; k++) {
        if (strcmp(name, names[k]) == 0) {
          assert_false(found[k]);
          found[k] = known = true;
        }
      }
      if (!known)
        fail_msg("%s: unknown symbol %s", path, name);
    }
  }
  assert_true(has_hash);
  for (size_t k = 0; k < CLOUDABI_SYSCALL_COUNT; k++)
    if (!found[k])
      fail_msg("%s: %s missing", path, names[k]);
  elf_end(elf);
  close(fd);
}

static void test_images(void **state) {
  (void)state;
  assert_true(nimages > 0);
  elf_version(EV_CURRENT);
  for (int i = 0; i < nimages; i++)
    check(images[i]);
}

int main(int argc, char **argv) {
  nimages = argc - 1;
  images = argv + 1;
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_images)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
