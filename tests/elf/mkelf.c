/* Writes one of elf_images.h's files: mkelf minimal|descending FILE. */
#include <stdio.h>
#include <string.h>

#include "elf_images.h"

int main(int argc, char **argv) {
  static struct img m;
  if (argc != 3)
    return 2;
  if (strcmp(argv[1], "minimal") == 0)
    img_minimal(&m, 1);
  else if (strcmp(argv[1], "descending") == 0)
    img_descending(&m);
  else
    return 2;
  FILE *f = fopen(argv[2], "wb");
  if (f == NULL || fwrite(m.bytes, 1, m.len, f) != m.len || fclose(f) != 0)
    return 1;
  return 0;
}
