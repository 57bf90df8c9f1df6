/* base/envp.c: a variable's value in an environment handed in as a value. */
#include "base/envp.h"
#include "base/os/os.h"

#include <string.h>
#include <strings.h>

/* Windows' names are the same in any case ("ProgramData", "PROGRAMDATA"). */
const char *wp_envp_get(const char *const *envp, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; envp && envp[i]; i++)
		if (!(wp_os_layout == WP_OS_LAYOUT_WINDOWS ? strncasecmp : strncmp)(envp[i], name,
										    n) &&
		    envp[i][n] == '=')
			return envp[i][n + 1] ? envp[i] + n + 1 : NULL;
	return NULL;
}
