/* The launch configuration's lifetime; see launch.h. */
#include "launch.h"

#include <stdlib.h>
#include <unistd.h>

void launch_config_free(struct launch_config *lc) {
  for (size_t i = 0; i < lc->nfds; i++)
    if (lc->fds[i].host_fd >= 0)
      close(lc->fds[i].host_fd);
  free(lc->fds);
  free(lc->argdata);
  lc->fds = NULL;
  lc->argdata = NULL;
  lc->nfds = lc->argdata_len = 0;
}
