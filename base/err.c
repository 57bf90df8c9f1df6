/* base/err.c: recording errors with their subject; the first one wins. */
#include "base/err.h"

#include <stdio.h>
#include <string.h>

int wp_fail(struct wp_err *err, int code, const char *fmt, ...)
{
	if (code > 0)
		code = -code;
	if (!err || err->code)
		return code;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	err->code = code;
	return code;
}

void wp_err_prefix(struct wp_err *err, const char *fmt, ...)
{
	if (!err || !err->code)
		return;
	char head[512], old[sizeof(err->msg)];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(head, sizeof(head), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	snprintf(err->msg, sizeof(err->msg), "%s: %s", head, old);
}

void wp_err_clear(struct wp_err *err)
{
	err->code = 0;
	err->msg[0] = 0;
}

int wp_err_exit_code(int code)
{
	if (code < 0)
		code = -code;
	switch (code) {
	case WPE_OK:        return 0;
	case WPE_NOMATCH:
	case WPE_LIMIT:
	case WPE_UNTRUSTED: return 1;
	case WPE_USAGE:
	case WPE_PARSE:     return 2;
	case WPE_INTEGRITY: return 4;
	default:            return 3;
	}
}
