/* base/lazylib.h: load a shared library on first use instead of at process start.
 *
 * Why: libcurl, libarchive and libxml2 bring in 40 more shared libraries (TLS, Kerberos, LDAP,
 * ICU, compressors), and libcrypto alone is 4 MB to relocate. Mapping and relocating them cost
 * about 18 ms of a 22 ms start on the benchmark machine, paid by every command, even
 * `pick --dry-run` on a warm catalog that never touches the network, an archive, a page or a
 * hash. net/lazy_curl.c, index/lazy_xml.c, verify/lazy_archive.c and verify/lazy_crypto.c (each
 * in the folder that owns that library's header) define the functions wheelpick calls with the
 * library's own prototypes (the compiler checks them against its header), and each forwards to
 * the real one, looked up by wp_lazy_fn on its first call. Callers are unchanged.
 *
 * This is loading our own link-time dependencies later, not probing the machine: env/ stays the
 * only place that dlopens a library to learn what the machine has (libcuda).
 *
 * A step that needs a library asks for it first (wp_lazy_require), on the job's own thread: a
 * library that cannot be loaded is then an error (-WPE_ENV, exit 3) whose message names it and
 * the Debian package to install. `make LAZY=0` links the libraries normally instead (for
 * distribution packagers, whose tools read NEEDED), and the shims are not built. */
#ifndef WP_LAZYLIB_H
#define WP_LAZYLIB_H

#include <stddef.h>

struct wp_err;

struct wp_lazy_sym {
	void **slot;         /* the forwarder's cached address */
	const char *name;
};

#define WP_LAZY_MAX_SYMS 128

struct wp_lazy_lib {
	const char *soname; /* e.g. "libcurl.so.4", from the Makefile (read from the .so we build
			       against) */
	const char *package; /* the Debian package that ships it, for the message */
	void *handle; /* dlopen handle once loaded; never closed (the process keeps using it) */
	struct wp_lazy_sym syms[WP_LAZY_MAX_SYMS]; /* every function a shim forwards (registered at
						      start) */
	size_t nsyms;
};

/* The libraries, one per shim file. */
extern struct wp_lazy_lib wp_lazy_curl, wp_lazy_archive, wp_lazy_xml, wp_lazy_crypto;

enum wp_lazy_need {
	WP_LIB_CURL = 1,     /* net/: any transfer */
	WP_LIB_ARCHIVE = 2,  /* wheels, conda packages, compressed repodata, bundles */
	WP_LIB_XML = 4,      /* index/: HTML pages */
	WP_LIB_CRYPTO = 8,   /* verify/: hashes */
	WP_LIB_ALL = 15,
};

/* Load the libraries a step is about to use and resolve every function wheelpick calls in
 * them. 0, or -WPE_ENV naming the library and the Debian package to install. Jobs call this on
 * their own thread before a step that needs a library (before any worker thread starts), so a
 * missing library is an error the command reports with exit 3, never an exit from inside a
 * transfer. Built with LAZY=0 (linked normally) it does nothing. */
int wp_lazy_require(unsigned need, struct wp_err *err);

/* The address of `name` in `lib`, loading the library on the first call (for code that runs
 * after a wp_lazy_require, this is one atomic load). A library that cannot be loaded here means
 * a step forgot its wp_lazy_require: that is a bug, reported as such, and the process aborts.
 * Thread-safe. */
void *wp_lazy_fn(struct wp_lazy_lib *lib, void **slot, const char *name);

/* Called by the shims' constructors: name's slot, so wp_lazy_require can resolve it early. */
void wp_lazy_register(struct wp_lazy_lib *lib, void **slot, const char *name);

/* A slot for `name` in `lib`, registered at start: `WP_LAZY_SLOT(wp_lazy_curl, curl_easy_init)`
 * declares wp_lazy_slot_curl_easy_init. */
#define WP_LAZY_SLOT(lib, name)                                                                  	static void *wp_lazy_slot_##name;                                                        	__attribute__((constructor)) static void wp_lazy_reg_##name(void)                        	{                                                                                        		wp_lazy_register(&(lib), &wp_lazy_slot_##name, #name);                           	}

/* Define `ret name params` that forwards to the library's own `name`. Used only by the lazy_*.c
 * files; the definition must match the library's header or the build fails. */
#define WP_LAZY_FORWARD(lib, ret, name, params, args)                                            	WP_LAZY_SLOT(lib, name)                                                                  	ret name params                                                                          	{                                                                                        		ret(*real) params = (ret(*) params)wp_lazy_fn(&(lib), &wp_lazy_slot_##name, #name); 		return real args;                                                                	}

#define WP_LAZY_FORWARD_VOID(lib, name, params, args)                                            	WP_LAZY_SLOT(lib, name)                                                                  	void name params                                                                         	{                                                                                        		void(*real) params = (void(*) params)wp_lazy_fn(&(lib), &wp_lazy_slot_##name, #name); 		real args;                                                                       	}

#endif
