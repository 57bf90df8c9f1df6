/* base/lazylib.c: dlopen on first use; see lazylib.h for why. */
#include "base/lazylib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* Set by the Makefile from the libraries we compile against; empty when objdump found none. */
_Static_assert(sizeof(WP_SONAME_CURL) > 1 && sizeof(WP_SONAME_ARCHIVE) > 1 && sizeof(WP_SONAME_XML) > 1 &&
		       sizeof(WP_SONAME_CRYPTO) > 1,
	       "the Makefile could not read the SONAMEs of the lazily loaded libraries (is binutils installed?)");

struct wp_lazy_lib wp_lazy_curl = { WP_SONAME_CURL, "libcurl4", NULL };
struct wp_lazy_lib wp_lazy_archive = { WP_SONAME_ARCHIVE, "libarchive13", NULL };
struct wp_lazy_lib wp_lazy_xml = { WP_SONAME_XML, "libxml2", NULL };
struct wp_lazy_lib wp_lazy_crypto = { WP_SONAME_CRYPTO, "libssl3", NULL };

/* One lock for all of them: loading happens at most once per library and process. */
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

static void *load(struct wp_lazy_lib *lib)
{
	void *h = __atomic_load_n(&lib->handle, __ATOMIC_ACQUIRE);
	if (h)
		return h;
	pthread_mutex_lock(&load_lock);
	h = lib->handle;
	if (!h) {
		/* RTLD_NOW: a missing symbol shows here, once, not in the middle of a transfer. */
		h = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			fprintf(stderr, "wheelpick: cannot load %s (%s): install Debian's %s package\n",
				lib->soname, dlerror(), lib->package);
			exit(3);
		}
		__atomic_store_n(&lib->handle, h, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&load_lock);
	return h;
}

void *wp_lazy_fn(struct wp_lazy_lib *lib, void **slot, const char *name)
{
	void *fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	if (fn)
		return fn;
	fn = dlsym(load(lib), name);
	if (!fn) {
		fprintf(stderr, "wheelpick: %s has no function %s: install the %s that wheelpick was built against\n",
			lib->soname, name, lib->package);
		exit(3);
	}
	__atomic_store_n(slot, fn, __ATOMIC_RELEASE);
	return fn;
}
