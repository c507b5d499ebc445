/*
 * Every guest program the build made is what a CloudABI toolchain makes:
 * an ELF64 x86-64 static PIE with OS/ABI CloudABI, no PT_INTERP, and only
 * R_X86_64_RELATIVE relocations.  The programs are passed as arguments.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <unistd.h>

#include "loader/elf_check.h"

static int nprograms;
static char **programs;

static void check_one(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    fail_msg("%s: cannot open", path);
  char why[256];
  struct elf_info info;
  if (elf_check(fd, &info, why, sizeof(why)) != 0)
    fail_msg("%s: %s", path, why);

  Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
  assert_non_null(elf);
  GElf_Ehdr eh;
  assert_non_null(gelf_getehdr(elf, &eh));
  assert_int_equal(gelf_getclass(elf), ELFCLASS64);
  assert_int_equal(eh.e_ident[EI_OSABI], 17);
  assert_int_equal(eh.e_machine, EM_X86_64);
  assert_int_equal(eh.e_type, ET_DYN);

  size_t phnum;
  assert_int_equal(elf_getphdrnum(elf, &phnum), 0);
  int loads = 0, dynamic = 0;
  for (size_t i = 0; i < phnum; i++) {
    GElf_Phdr ph;
    assert_non_null(gelf_getphdr(elf, (int)i, &ph));
    if (ph.p_type == PT_INTERP)
      fail_msg("%s has PT_INTERP", path);
    loads += ph.p_type == PT_LOAD;
    dynamic += ph.p_type == PT_DYNAMIC;
  }
  assert_true(loads > 0);
  assert_int_equal(dynamic, 1);

  size_t nrel = 0;
  for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn != NULL;
       scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    assert_non_null(gelf_getshdr(scn, &sh));
    if (sh.sh_type == SHT_REL)
      fail_msg("%s has SHT_REL relocations", path);
    if (sh.sh_type != SHT_RELA)
      continue;
    Elf_Data *data = elf_getdata(scn, NULL);
    assert_non_null(data);
    for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
      GElf_Rela rela;
      assert_non_null(gelf_getrela(data, (int)i, &rela));
      if (GELF_R_TYPE(rela.r_info) != R_X86_64_RELATIVE)
        fail_msg("%s: relocation %zu has type %lu", path, i,
                 (unsigned long)GELF_R_TYPE(rela.r_info));
      nrel++;
    }
  }
  elf_end(elf);
  close(fd);
  print_message("%s: ok (%zu relative relocations)\n", path, nrel);
}

static void test_programs(void **state) {
  (void)state;
  assert_true(nprograms > 0);
  elf_version(EV_CURRENT);
  for (int i = 0; i < nprograms; i++)
    check_one(programs[i]);
}

/* elf_check refuses what is not a CloudABI executable, with a reason. */
static void test_refusals(void **state) {
  (void)state;
  char why[256];
  struct elf_info info;
  int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  assert_true(fd >= 0);
  assert_int_equal(elf_check(fd, &info, why, sizeof(why)), -1);
  assert_string_equal(why, "OS/ABI is 0 (System V)");
  close(fd);
  fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  assert_int_equal(elf_check(fd, &info, why, sizeof(why)), -1);
  assert_string_equal(why, "not a regular file");
  close(fd);
  fd = open("/", O_RDONLY | O_CLOEXEC);
  assert_int_equal(elf_check(fd, &info, why, sizeof(why)), -1);
  assert_string_equal(why, "is a directory");
  close(fd);
}

int main(int argc, char **argv) {
  nprograms = argc - 1;
  programs = argv + 1;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_programs),
      cmocka_unit_test(test_refusals),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
