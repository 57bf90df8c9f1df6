/* ops/core/session.c: reporting through the session, and the defaults the environment gives. */
#include "ops/core/session.h"
#include "base/err.h"
#include "base/envp.h"
#include "base/mem.h"
#include "base/os/os.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void wp_say(const struct wp_session *s, enum wp_say_level level, const char *fmt, ...)
{
	if (!s || !s->say)
		return;
	char msg[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	s->say(s->say_ctx, level, msg);
}

/* $OVERRIDE, else $XDG_CACHE_HOME/wheelpick[/leaf], else $HOME/.cache/wheelpick[/leaf]; on
 * Windows %LOCALAPPDATA%\wheelpick[\leaf] (where uv and pip keep theirs: platformdirs'
 * user_cache_dir). */
static char *cache_path(const char *const *envp, const char *env_override, const char *leaf)
{
	const char *e = wp_envp_get(envp, env_override);
	if (e && *e)
		return wp_xstrdup(e);
	const char *tail = leaf ? leaf : "";
	if (wp_os_layout == WP_OS_LAYOUT_WINDOWS) {
		const char *local = wp_envp_get(envp, "LOCALAPPDATA");
		if (local && wp_os_path_is_abs(local))
			return wp_xasprintf("%s\\wheelpick%s%s", local, leaf ? "\\" : "", tail);
		return NULL;
	}
	const char *sep = leaf ? "/" : "";
	const char *xdg = wp_envp_get(envp, "XDG_CACHE_HOME");
	/* the XDG spec: a relative value is invalid and must be ignored */
	if (xdg && xdg[0] == '/')
		return wp_xasprintf("%s/wheelpick%s%s", xdg, sep, tail);
	const char *home = wp_envp_get(envp, "HOME");
	if (home && home[0] == '/')
		return wp_xasprintf("%s/.cache/wheelpick%s%s", home, sep, tail);
	return NULL;
}

char *wp_session_default_catalog(const char *const *envp)
{
	return cache_path(envp, "WHEELPICK_CATALOG", "catalog.sqlite3");
}

char *wp_session_default_cache_dir(const char *const *envp)
{
	return cache_path(envp, "WHEELPICK_CACHE_DIR", NULL);
}

/* SOURCE_DATE_EPOCH from the environment the session carries (cli/ hands it down). */
int wp_session_source_date(struct wp_session *s, struct wp_err *err)
{
	const char *e = wp_envp_get(s->envp, "SOURCE_DATE_EPOCH");
	char *end;
	s->source_date = 0;
	s->source_date_set = false;
	if (!e || !*e)
		return 0;
	errno = 0;
	long long v = strtoll(e, &end, 10);
	/* past 9999-12-31 neither a tar header nor an ISO 8601 date holds it */
	if (*end || v < 0 || v > 253402300799LL || errno)
		return wp_fail(err, -WPE_USAGE,
			       "SOURCE_DATE_EPOCH='%.64s' is not a number of seconds since 1970; unset it "
			       "or give e.g. 1700000000",
			       e);
	s->source_date = v;
	s->source_date_set = true;
	return 0;
}

int wp_session_max_age(const char *const *envp, long *out, struct wp_err *err)
{
	const char *e = wp_envp_get(envp, "WHEELPICK_MAX_AGE");
	char *end;
	*out = WP_DEFAULT_MAX_AGE_S;
	if (!e || !*e)
		return 0;
	errno = 0;
	long v = strtol(e, &end, 10);
	if (*end || v < 0 || errno)
		return wp_fail(err, -WPE_USAGE,
			       "WHEELPICK_MAX_AGE='%.64s' is not a number of seconds; unset it or give e.g. 3600",
			       e);
	*out = v;
	return 0;
}

const char *wp_session_env(const struct wp_session *s, const char *name)
{
	return s ? wp_envp_get(s->envp, name) : NULL;
}

struct wp_net_policy wp_session_net_policy(const struct wp_session *s)
{
	return (struct wp_net_policy){ .conf = s ? s->net : NULL };
}
