/* base/envp.h: the process environment as a value: NAME=VALUE strings, NULL-terminated, handed
 * down from cli/ (which alone reads the real environment) so that nothing below it calls getenv. */
#ifndef WP_BASE_ENVP_H
#define WP_BASE_ENVP_H

/* NAME's value in envp, NULL when envp is NULL, or NAME is unset or empty. */
const char *wp_envp_get(const char *const *envp, const char *name);

#endif
