/*
 * Notes to the user through the supervisor (TRAP_NR_NOTE), as a hostile
 * program sends them: control bytes, a bad pointer, a length far beyond
 * the text, and more notes than a run may print.  Prints what each
 * answer was on `out`.
 */
#include "rt.h"
#include "trap.h"

#define BAD_PTR ((const char *)0x10)

void program_main(const argdata_t *ad) {
  cloudabi_fd_t out = rt_map_fd(ad, "out");
  rt_log_fd = out;
  static const char ctrl[] = "red \x1b[31mtext\\ and a bell\a\n";
  cloudabi_errno_t e1 = rt_note(ctrl, sizeof(ctrl) - 1);
  cloudabi_errno_t e2 = rt_note(BAD_PTR, 10);
  static char longer[300];
  for (size_t i = 0; i < sizeof(longer); i++)
    longer[i] = (char)('a' + i % 26);
  /* Only TRAP_NOTE_MAX bytes are read, so the lie about the length is
   * harmless. */
  cloudabi_errno_t e3 = rt_note(longer, (size_t)1 << 40);
  unsigned ok = 0, spent = 0;
  for (int i = 0; i < 20; i++) {
    cloudabi_errno_t e = rt_note("again", 5);
    if (e == 0)
      ok++;
    else if (e == CLOUDABI_ENOSPC)
      spent++;
  }
  rt_printf(out, "ctrl=%u bad=%u long=%u again: %u printed, %u refused\n",
            e1, e2, e3, ok, spent);
}
