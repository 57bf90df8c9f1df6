/* base/envp.c: a variable's value in an environment handed in as a value. */
#include "base/envp.h"

#include <string.h>

const char *wp_envp_get(const char *const *envp, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; envp && envp[i]; i++)
		if (!strncmp(envp[i], name, n) && envp[i][n] == '=')
			return envp[i][n + 1] ? envp[i] + n + 1 : NULL;
	return NULL;
}
