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
 * A library that cannot be loaded ends the process with exit 3 and a one-line message naming it
 * and the Debian package to install: the same outcome as the dynamic linker refusing to start a
 * program linked against it, with a clearer message (and, like out-of-memory in base/mem.c, the
 * one exception to "nothing below cli/ exits"). */
#ifndef WP_LAZYLIB_H
#define WP_LAZYLIB_H

struct wp_lazy_lib {
	const char *soname;  /* e.g. "libcurl.so.4", from the Makefile (read from the .so we build against) */
	const char *package; /* the Debian package that ships it, for the message */
	void *handle;        /* dlopen handle once loaded; never closed (the process keeps using it) */
};

/* The address of `name` in `lib`, loading the library on the first call. `slot` caches the
 * result per function, so later calls cost one atomic load. Thread-safe. */
void *wp_lazy_fn(struct wp_lazy_lib *lib, void **slot, const char *name);

/* The libraries, one per shim file. */
extern struct wp_lazy_lib wp_lazy_curl, wp_lazy_archive, wp_lazy_xml, wp_lazy_crypto;

/* Define `ret name params` that forwards to the library's own `name`. Used only by the lazy_*.c
 * files; the definition must match the library's header or the build fails. */
#define WP_LAZY_FORWARD(lib, ret, name, params, args)                                            \
	ret name params                                                                          \
	{                                                                                        \
		static void *slot;                                                               \
		ret(*real) params = (ret(*) params)wp_lazy_fn(&(lib), &slot, #name);             \
		return real args;                                                                \
	}

#define WP_LAZY_FORWARD_VOID(lib, name, params, args)                                            \
	void name params                                                                         \
	{                                                                                        \
		static void *slot;                                                               \
		void(*real) params = (void(*) params)wp_lazy_fn(&(lib), &slot, #name);           \
		real args;                                                                       \
	}

#endif
