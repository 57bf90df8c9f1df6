/* base/lazylib.c: dlopen on first use; see lazylib.h for why. */
#include "base/lazylib.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef WP_LAZY
#define WP_LAZY 1
#endif

#include "base/err.h"
#include "base/os/os.h"

#if WP_LAZY
/* Set by the Makefile from the libraries we compile against; empty when objdump found none. */
_Static_assert(
	sizeof(WP_SONAME_CURL) > 1 && sizeof(WP_SONAME_ARCHIVE) > 1 && sizeof(WP_SONAME_XML) > 1 &&
		sizeof(WP_SONAME_CRYPTO) > 1,
	"the Makefile could not read the SONAMEs of the lazily loaded libraries (is binutils installed?)");

struct wp_lazy_lib wp_lazy_curl = { .soname = WP_SONAME_CURL, .package = "libcurl4" };
struct wp_lazy_lib wp_lazy_archive = { .soname = WP_SONAME_ARCHIVE, .package = "libarchive13" };
struct wp_lazy_lib wp_lazy_xml = { .soname = WP_SONAME_XML, .package = "libxml2" };
struct wp_lazy_lib wp_lazy_crypto = { .soname = WP_SONAME_CRYPTO, .package = "libssl3" };

/* One lock for all of them: loading happens at most once per library and process. */
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

void wp_lazy_register(struct wp_lazy_lib *lib, void **slot, const char *name)
{
	/* constructors run before main, on one thread; a shim with more functions than the table
	 * holds is caught by the assert in the test build and resolved late otherwise */
	if (lib->nsyms < WP_LAZY_MAX_SYMS)
		lib->syms[lib->nsyms++] = (struct wp_lazy_sym){ slot, name };
}

/* The library's handle, loading it; NULL with err set when it cannot be loaded. */
static void *load(struct wp_lazy_lib *lib, struct wp_err *err)
{
	void *h = __atomic_load_n(&lib->handle, __ATOMIC_ACQUIRE);
	if (h)
		return h;
	pthread_mutex_lock(&load_lock);
	h = lib->handle;
	if (!h) {
		/* RTLD_NOW: a missing symbol shows here, once, not in the middle of a transfer. */
		char why[256];
		h = wp_os_dlopen(lib->soname, why, sizeof(why));
		if (!h)
			wp_fail(err, -WPE_ENV, "cannot load %s (%s): install Debian's %s package",
				lib->soname, why, lib->package);
		else
			__atomic_store_n(&lib->handle, h, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&load_lock);
	return h;
}

static int resolve(struct wp_lazy_lib *lib, void **slot, const char *name, struct wp_err *err)
{
	if (__atomic_load_n(slot, __ATOMIC_ACQUIRE))
		return 0;
	void *h = load(lib, err);
	if (!h)
		return -WPE_ENV;
	void *fn = wp_os_dlsym(h, name);
	if (!fn)
		return wp_fail(err, -WPE_ENV,
			       "%s has no function %s: install the %s that wheelpick was built against",
			       lib->soname, name, lib->package);
	__atomic_store_n(slot, fn, __ATOMIC_RELEASE);
	return 0;
}

int wp_lazy_require(unsigned need, struct wp_err *err)
{
	struct wp_lazy_lib *libs[] = { &wp_lazy_curl, &wp_lazy_archive, &wp_lazy_xml,
				       &wp_lazy_crypto };
	for (unsigned i = 0; i < 4; i++) {
		if (!(need & (1u << i)))
			continue;
		struct wp_lazy_lib *lib = libs[i];
		if (!load(lib, err))
			return -WPE_ENV;
		for (size_t k = 0; k < lib->nsyms; k++)
			if (resolve(lib, lib->syms[k].slot, lib->syms[k].name, err) < 0)
				return -WPE_ENV;
	}
	return 0;
}

void *wp_lazy_fn(struct wp_lazy_lib *lib, void **slot, const char *name)
{
	void *fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	if (fn)
		return fn;
	struct wp_err e = WP_ERR_INIT;
	if (resolve(lib, slot, name, &e) < 0) {
		/* only a step that skipped its wp_lazy_require gets here: a bug, not a user
		 * error */
		fprintf(stderr,
			"wheelpick: internal error: %s was called before wp_lazy_require: %s\n",
			name, e.msg);
		abort();
	}
	return __atomic_load_n(slot, __ATOMIC_ACQUIRE);
}
#else
/* LAZY=0: the libraries are linked; the dynamic linker has already loaded them. */
int wp_lazy_require(unsigned need, struct wp_err *err)
{
	(void)need;
	(void)err;
	return 0;
}
#endif
