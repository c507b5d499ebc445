/* Releasing a launch_config; see launch.h. */
#include "launch.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void launch_config_free(struct launch_config *lc) {
  for (size_t i = 0; i < lc->nfds; i++) {
    if (lc->fds[i].host_fd >= 0)
      close(lc->fds[i].host_fd);
    free(lc->fds[i].resolved);
  }
  free(lc->fds);
  free(lc->argdata);
  memset(lc, 0, sizeof(*lc));
}
