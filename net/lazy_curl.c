/* net/lazy_curl.c: the libcurl functions wheelpick calls, loaded on first use (see lazylib.h).
 * Add a line here when net/ starts calling another one; the link fails until you do. */
#include "base/lazylib.h"

#include <stdarg.h>
#include <curl/curl.h>

#define FWD(ret, name, params, args) WP_LAZY_FORWARD(wp_lazy_curl, ret, name, params, args)
#define FWD_VOID(name, params, args) WP_LAZY_FORWARD_VOID(wp_lazy_curl, name, params, args)

FWD(CURLcode, curl_global_init, (long flags), (flags))
FWD(CURL *, curl_easy_init, (void), ())
FWD_VOID(curl_easy_cleanup, (CURL *curl), (curl))
FWD_VOID(curl_easy_reset, (CURL *curl), (curl))
FWD(const char *, curl_easy_strerror, (CURLcode code), (code))
FWD(time_t, curl_getdate, (const char *p, const time_t *unused), (p, unused))
FWD(curl_version_info_data *, curl_version_info, (CURLversion v), (v))
FWD(CURLM *, curl_multi_init, (void), ())
FWD(CURLMcode, curl_multi_add_handle, (CURLM *m, CURL *e), (m, e))
FWD(CURLMcode, curl_multi_remove_handle, (CURLM *m, CURL *e), (m, e))
FWD(CURLMcode, curl_multi_cleanup, (CURLM *m), (m))
FWD(CURLMsg *, curl_multi_info_read, (CURLM *m, int *msgs_in_queue), (m, msgs_in_queue))
FWD(CURLMcode, curl_multi_perform, (CURLM *m, int *running), (m, running))
FWD(CURLMcode, curl_multi_poll,
    (CURLM *m, struct curl_waitfd extra_fds[], unsigned int extra_nfds, int timeout_ms, int *ret),
    (m, extra_fds, extra_nfds, timeout_ms, ret))
FWD(const char *, curl_multi_strerror, (CURLMcode code), (code))
FWD(struct curl_slist *, curl_slist_append, (struct curl_slist * list, const char *data),
    (list, data))
FWD_VOID(curl_slist_free_all, (struct curl_slist *list), (list))

/* The variadic three take one argument whose type libcurl documents by the option's number
 * range (CURLOPTTYPE_*): a long, an object or function pointer, or a curl_off_t. Forward it as
 * that type; the parentheses around the names keep curl.h's type-checking macros out. */
#define OPT_IS_LONG(o) ((o) < CURLOPTTYPE_OBJECTPOINT)
#define OPT_IS_OFF_T(o) ((o) >= CURLOPTTYPE_OFF_T && (o) < CURLOPTTYPE_BLOB)
#define OPT_IS_FUNC(o) ((o) >= CURLOPTTYPE_FUNCTIONPOINT && (o) < CURLOPTTYPE_OFF_T)

typedef void (*any_fn)(void);

#define FORWARD_SETOPT(ret, name, handle_t, option_t)                                             \
	WP_LAZY_SLOT(wp_lazy_curl, name)                                                         \
	ret(name)(handle_t * h, option_t option, ...)                                            \
	{                                                                                        \
		ret (*real)(handle_t *, option_t, ...) =                                         \
			(ret(*)(handle_t *, option_t, ...))wp_lazy_fn(&wp_lazy_curl, &wp_lazy_slot_##name, #name); \
		va_list ap;                                                                      \
		ret rc;                                                                          \
		va_start(ap, option);                                                            \
		if (OPT_IS_LONG(option))                                                         \
			rc = real(h, option, va_arg(ap, long));                                  \
		else if (OPT_IS_OFF_T(option))                                                   \
			rc = real(h, option, va_arg(ap, curl_off_t));                            \
		else if (OPT_IS_FUNC(option))                                                    \
			rc = real(h, option, va_arg(ap, any_fn));                                \
		else                                                                             \
			rc = real(h, option, va_arg(ap, void *));                                \
		va_end(ap);                                                                      \
		return rc;                                                                       \
	}

FORWARD_SETOPT(CURLcode, curl_easy_setopt, CURL, CURLoption)
FORWARD_SETOPT(CURLMcode, curl_multi_setopt, CURLM, CURLMoption)

/* Every CURLINFO takes a pointer to where the answer goes. */
WP_LAZY_SLOT(wp_lazy_curl, curl_easy_getinfo)
CURLcode(curl_easy_getinfo)(CURL *curl, CURLINFO info, ...)
{
	CURLcode (*real)(CURL *, CURLINFO, ...) = (CURLcode(*)(CURL *, CURLINFO, ...))
		wp_lazy_fn(&wp_lazy_curl, &wp_lazy_slot_curl_easy_getinfo, "curl_easy_getinfo");
	va_list ap;
	va_start(ap, info);
	void *out = va_arg(ap, void *);
	va_end(ap);
	return real(curl, info, out);
}
