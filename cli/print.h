/* cli/print.h: what pick, mirror and bundle print on stdout: the plan per target (text or JSON)
 * and the conda picks. Everything is borrowed. */
#ifndef WP_PRINT_H
#define WP_PRINT_H

#include <stdbool.h>

#include "ops/conda.h"
#include "resolver/solve.h"

void wp_print_plan(const struct wp_plan *plan, bool json, bool explain);
void wp_print_conda(const struct wp_conda_result *res, bool json);

#endif
