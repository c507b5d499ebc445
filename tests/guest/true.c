/* Does nothing and succeeds, whatever its configuration. */
#include "rt.h"

void program_main(const argdata_t *ad) { (void)ad; }
