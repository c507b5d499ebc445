/*
 * The program-file check and the segment planner the loader stub shares
 * (abi/loader/segplan.h), on hand-made files (elf_images.h): each way a
 * file can be malformed is refused with its reason, by the planner and
 * by elf_check through a real descriptor, and the smallest program
 * FreeBSD runs is accepted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "elf_images.h"
#include "loader/elf_check.h"
#include "segplan.h"

static enum segplan_error plan(const struct img *m) {
  struct segplan p;
  enum segplan_error e = segplan_header(m->eh, m->len);
  return e != SEGPLAN_OK ? e : segplan(m->eh, m->ph, m->len, 1, &p);
}

/* elf_check of the bytes through a memfd; "" when accepted. */
static const char *check_bytes(const void *bytes, size_t len, size_t size) {
  static char why[256];
  int fd = memfd_create("elf", MFD_CLOEXEC);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, bytes, len), (ssize_t)len);
  if (size > len)
    assert_int_equal(ftruncate(fd, (off_t)size), 0);
  struct elf_info info;
  why[0] = '\0';
  if (elf_check(fd, &info, why, sizeof(why)) == 0)
    why[0] = '\0';
  else
    assert_true(why[0] != '\0');
  close(fd);
  return why;
}

static const char *check(const struct img *m) {
  return check_bytes(m->bytes, m->len, m->len);
}

static void test_minimal(void **state) {
  (void)state;
  struct img m;
  img_minimal(&m, 1);
  assert_int_equal(m.len, 300);
  assert_int_equal(plan(&m), SEGPLAN_OK);
  assert_string_equal(check(&m), "");
}

static void test_headers(void **state) {
  (void)state;
  struct img m;
  assert_string_equal(check_bytes("", 0, 0), "not an ELF file");
  img_minimal(&m, 1);
  assert_string_equal(check_bytes(m.bytes, 64, 64),
                      "program headers outside the file");
  img_minimal(&m, 1);
  m.eh->e_phnum = 0;
  assert_int_equal(plan(&m), SEGPLAN_EPHNUM);
  assert_string_equal(check(&m),
                      "no usable program headers (none, or more than 64)");
  /* 65,535 headers, really there: refused before one is read. */
  static unsigned char big[IMG_MAX];
  img_minimal(&m, 1);
  m.eh->e_phnum = 65535;
  memcpy(big, m.bytes, m.len);
  assert_int_equal(plan(&m), SEGPLAN_EPHNUM);
  assert_string_equal(check_bytes(big, sizeof(big), sizeof(big)),
                      "no usable program headers (none, or more than 64)");
  img_minimal(&m, 1);
  m.eh->e_phentsize = 32;
  assert_int_equal(plan(&m), SEGPLAN_EPHENTSIZE);
  img_minimal(&m, 1);
  m.eh->e_phoff = UINT64_MAX - 8;
  assert_int_equal(plan(&m), SEGPLAN_EPHOFF);
  /* A header of 50 fills the first 2,864 bytes; still fine. */
  img_minimal(&m, 50);
  assert_int_equal(plan(&m), SEGPLAN_OK);
}

static void test_segments(void **state) {
  (void)state;
  static const struct {
    const char *name;
    enum segplan_error want;
  } rows[] = {
      {"descending", SEGPLAN_EORDER}, {"unsorted", SEGPLAN_EORDER},
      {"overlapping", SEGPLAN_EORDER}, {"huge span", SEGPLAN_ESPAN},
      {"past the end", SEGPLAN_EFILE}, {"wraps", SEGPLAN_EWRAP},
      {"filesz > memsz", SEGPLAN_ESIZES}, {"incongruent", SEGPLAN_ECONGRUENT},
      {"alignment 3", SEGPLAN_EALIGN},  {"entry outside", SEGPLAN_EENTRY},
      {"no PT_LOAD", SEGPLAN_ENOLOAD},
  };
  for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
    struct img m;
    img_minimal(&m, 2);
    elf64_phdr_t *second = &m.ph[1];
    *second = m.ph[0];
    second->p_flags = ELF64_PF_R;
    second->p_vaddr = 0x1000;
    second->p_offset = 0;
    second->p_filesz = 0;
    second->p_memsz = 0x100;
    switch (i) {
    case 0:
      img_descending(&m);
      break;
    case 1: /* the first segment above the second */
      m.ph[0].p_vaddr = 0x2000;
      m.eh->e_entry += 0x2000;
      break;
    case 2:
      second->p_vaddr = 0x40;
      second->p_offset = 0x40;
      break;
    case 3:
      second->p_vaddr = (uint64_t)1 << 40;
      break;
    case 4:
      second->p_filesz = second->p_memsz = 1u << 20;
      break;
    case 5:
      second->p_vaddr = UINT64_MAX - 0x800;
      second->p_offset = (UINT64_MAX - 0x800) % 0x1000;
      break;
    case 6:
      m.ph[0].p_filesz = m.ph[0].p_memsz + 1;
      break;
    case 7:
      second->p_offset = 8;
      break;
    case 8:
      second->p_align = 3;
      break;
    case 9:
      m.eh->e_entry = 0x5000;
      break;
    case 10:
      m.ph[0].p_type = 6 /* PT_PHDR */;
      second->p_type = 0;
      break;
    }
    enum segplan_error got = plan(&m);
    if (got != rows[i].want)
      fail_msg("%s: planner says %d, want %d", rows[i].name, got, rows[i].want);
    assert_string_not_equal(check(&m), "");
  }
}

/* Trailing empty PT_LOADs map nothing: ignored, whatever their address. */
static void test_empty_loads(void **state) {
  (void)state;
  struct img m;
  img_minimal(&m, 3);
  m.ph[0].p_vaddr = 0x10000;
  m.eh->e_entry += 0x10000;
  for (unsigned i = 1; i < 3; i++) {
    m.ph[i].p_type = ELF64_PT_LOAD;
    m.ph[i].p_vaddr = 0x10000 - i * 0x1000;
  }
  struct segplan p = {0, 0, 0};
  assert_int_equal(segplan(m.eh, m.ph, m.len, 1, &p), SEGPLAN_OK);
  assert_int_equal(p.nload, 1);
  assert_true(p.lo == 0x10000 && p.hi == 0x11000);
}

/* A section table claiming 20 million sections is never read. */
static void test_sections_ignored(void **state) {
  (void)state;
  struct img m;
  img_minimal(&m, 1);
  m.eh->e_shoff = 200;
  m.eh->e_shentsize = 64;
  m.eh->e_shnum = 0; /* the real count is in section 0's sh_size */
  uint64_t count = 20000000;
  memcpy(m.bytes + 200 + 32, &count, sizeof(count));
  assert_string_equal(check_bytes(m.bytes, m.len, 1u << 30), "");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_minimal),
      cmocka_unit_test(test_headers),
      cmocka_unit_test(test_segments),
      cmocka_unit_test(test_empty_loads),
      cmocka_unit_test(test_sections_ignored),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
