/*
 * The smallest useful CloudABI program: it can write only to the
 * descriptor its configuration hands it.
 */
#include "rt.h"

void program_main(const argdata_t *ad) {
  argdata_t v;
  const char *name = "world";
  size_t len;
  if (rt_map_get(ad, "name", &v) && argdata_get_str(&v, &name, &len) != 0)
    name = "world";
  rt_printf(rt_map_fd(ad, "terminal"), "Hello, %s!\n", name);
}
