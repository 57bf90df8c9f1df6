/* tests/unit/jobfix.h: what the in-process job tests (test_job_*.c) share: a world of fixture
 * sources in a temp folder, a session that keeps what it is told, a catalog crawled from the
 * fixture pages by the real crawl code (file:// sources), and faults put under the fetch.
 * Test-only, header-only. Include after <cmocka.h>.
 *
 * The sources are generated once per test program (jf_pristine_make: sample/mksample.py's wheel
 * index, tests/fixtures/conda/mkchannel.py's two channels) and shared by its tests; each test has
 * a folder of its own for its catalog, cache and outputs (jf_world_init). A fault a test puts on a
 * source file is undone when its world is released (the file's bytes are kept until then), so
 * the next test reads the sources whole again.
 *
 * Faults come two ways. On disk, under file:// sources, which libcurl reads through the same
 * transfer, store writer and checks (ops/core/fetch.c, net/xfer.c, cache/store.c) as http:// ones:
 * a file whose bytes were changed (its size kept) fails its sha256, one cut short fails too, one
 * removed fails the transfer. On the wire, with the sources served over HTTP by
 * tests/server/faultserver.py (jf_serve): statuses, dropped connections, other bodies, scripted
 * per path and re-read on every request, so a test plans first and breaks the fetch after.
 *
 * Ownership: a jf_world owns its strings and its temp folder (jf_world_release removes it). */
#ifndef WP_TEST_JOBFIX_H
#define WP_TEST_JOBFIX_H

#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/mem.h"
#include "cache/catalog.h"
#include "ops/core/session.h"
#include "ops/core/sources.h"
#include "ops/wheel/pick.h"
#include "tests/unit/faultserver.h"
#include "tests/unit/tmpdir.h"

/* Where the wheel index's files lie under a world's sample/whl/ (see sample/mksample.py). */
#define JF_TORCH_CU111 "cu111/torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl"
#define JF_TYPING      "typing_extensions-4.5.0-py3-none-any.whl"

#define JF_MAX_FAULTS 8

/* The run's network settings, handed to every job as a value (net/ reads no variable): the fault
 * server's retries come quickly. */
static const struct wp_net_conf jf_net = { .retry_base_ms = 20, .retry_base_set = true };

struct jf_world {
	char root[128];    /* the test's own folder: catalog, cache, outputs */
	const char *src;   /* SRC: the group's sources (borrowed) */
	char *simple; /* file://SRC/sample/simple/: the wheel index's PEP 503 root, with sha256s */
	char *findlinks; /* file://SRC/sample/whl/torch_stable.html: its find-links page, no hashes
			  */
	char *chan;        /* file://SRC/conda/pt: a channel shaped like pytorch's (no python) */
	char *forge;       /* file://SRC/conda/forge: python and pip, as conda-forge has them */
	char *catalog;     /* ROOT/catalog.sqlite3 (made on first use) */
	char *cache;       /* ROOT/cache: the store (files/) and tmp/ */
	struct wp_session s;
	struct wp_buf said; /* every message the session was told: "LEVEL: msg\n" */
	struct { char *path; struct wp_buf bytes; } faults[JF_MAX_FAULTS]; /* to undo */
	size_t n_faults;
};

static inline const char *jf_level_name(enum wp_say_level level)
{
	static const char *const names[] = { "debug", "info", "note", "warn", "error" };
	return (unsigned)level < sizeof(names) / sizeof(names[0]) ? names[level] : "?";
}

static inline void jf_say(void *ctx, enum wp_say_level level, const char *msg)
{
	struct jf_world *w = ctx;
	wp_buf_printf(&w->said, "%s: %s\n", jf_level_name(level), msg);
}

/* Runs a shell command built like printf; its status (0 when it succeeded). */
static inline int jf_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline int jf_sh(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *cmd = NULL;
	int n = vasprintf(&cmd, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	int rc = system(cmd);
	free(cmd);
	return rc;
}

/* What a developer's shell may carry that would change a job's result (its defaults: indexes,
 * channels, CUDA compatibility, retries, proxies) goes, so the tests see what they set and no
 * more. */
static inline void jf_env_hermetic(void)
{
	extern char **environ;
	static const char *const prefixes[] = { "WHEELPICK_", "PIP_", "UV_", "CONDA_" };
	static const char *const names[] = { "http_proxy", "https_proxy",         "all_proxy",
					     "HTTP_PROXY", "HTTPS_PROXY",         "ALL_PROXY",
					     "NETRC",      "CUDA_VISIBLE_DEVICES" };
	for (size_t i = 0; environ[i];) {
		const char *eq = strchr(environ[i], '=');
		bool drop = false;
		for (size_t k = 0; k < sizeof(prefixes) / sizeof(prefixes[0]) && eq; k++)
			drop |= !strncmp(environ[i], prefixes[k], strlen(prefixes[k]));
		if (drop) {
			char *name = wp_xasprintf("%.*s", (int)(eq - environ[i]), environ[i]);
			unsetenv(name); /* environ shifts down: the same index again */
			free(name);
		} else {
			i++;
		}
	}
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		unsetenv(names[k]);
}

/* The group's sources, generated once into a fresh temp folder named into dir: 0 or -1 (for a
 * group setup). Run from the repository root, as make runs the tests. The environment is made
 * hermetic first (jf_env_hermetic). */
static inline int jf_pristine_make(char *dir, size_t size)
{
	jf_env_hermetic();
	if (test_tmpdir_make_fast(dir, size, "jobfix") < 0)
		return -1;
	/* both generators (stdlib only) in one interpreter, Debian's where it is there (the
	 * Makefile's DEB_PKGS): starting python3 is most of the cost, and a python3 first on a
	 * developer's PATH may be a version manager's shim, a shell script that takes a second to
	 * start one */
	const char *py = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
	if (jf_sh("%s -c 'import runpy, sys\n"
		  "d = sys.argv[1]\n"
		  "for argv in ([\"sample/mksample.py\", d + \"/sample\"],\n"
		  "             [\"tests/fixtures/conda/mkchannel.py\", d + \"/conda/pt\", d + \"/conda/forge\"]):\n"
		  "    sys.argv = argv\n"
		  "    runpy.run_path(argv[0], run_name=\"__main__\")' '%s' >/dev/null",
		  py, dir) != 0) {
		fprintf(stderr,
			"jobfix: cannot generate the fixture sources into %s (run from the repository root)\n",
			dir);
		test_tmpdir_remove(dir);
		dir[0] = 0;
		return -1;
	}
	return 0;
}

/* This program's generated sources: made once by the cmocka group setup (jf_group_setup), copied
 * into each test's world (jf_world_init(&w, jf_pristine)), removed by jf_group_teardown. */
static char jf_pristine[128] __attribute__((unused));

static inline int jf_group_setup(void **state)
{
	(void)state;
	return jf_pristine_make(jf_pristine, sizeof(jf_pristine));
}

static inline int jf_group_teardown(void **state)
{
	(void)state;
	return test_tmpdir_remove(jf_pristine);
}

/* A fresh world over the group's sources: a temp folder of its own, a session over its catalog
 * and cache that keeps every message (max age one hour: a source is crawled once per test, then
 * read from the catalog, as a user's second run would). */
static inline void jf_world_init(struct jf_world *w, const char *pristine)
{
	memset(w, 0, sizeof(*w));
	assert_int_equal(test_tmpdir_make_fast(w->root, sizeof(w->root), "job"), 0);
	w->src = pristine;
	w->simple = wp_xasprintf("file://%s/sample/simple/", pristine);
	w->findlinks = wp_xasprintf("file://%s/sample/whl/torch_stable.html", pristine);
	w->chan = wp_xasprintf("file://%s/conda/pt", pristine);
	w->forge = wp_xasprintf("file://%s/conda/forge", pristine);
	w->catalog = wp_xasprintf("%s/catalog.sqlite3", w->root);
	w->cache = wp_xasprintf("%s/cache", w->root);
	w->said = (struct wp_buf)WP_BUF_INIT;
	w->s = (struct wp_session){
		.catalog_path = w->catalog,
		.cache_dir = w->cache,
		.verbosity = 1,
		.max_age_s = 3600,
		.say = jf_say,
		.say_ctx = w,
		.net = &jf_net,
	};
}

/* Undoes the world's faults (the sources are whole again) and removes its folder. */
static inline void jf_world_release(struct jf_world *w)
{
	for (size_t i = w->n_faults; i-- > 0;) {
		struct wp_err err = WP_ERR_INIT;
		if (wp_atomic_write(w->faults[i].path, w->faults[i].bytes.data,
				    w->faults[i].bytes.len, &err) < 0)
			fprintf(stderr, "jobfix: cannot restore '%s': %s\n", w->faults[i].path,
				err.msg);
		free(w->faults[i].path);
		wp_buf_free(&w->faults[i].bytes);
	}
	test_tmpdir_remove(w->root);
	free(w->simple);
	free(w->findlinks);
	free(w->chan);
	free(w->forge);
	free(w->catalog);
	free(w->cache);
	wp_buf_free(&w->said);
	memset(w, 0, sizeof(*w));
}

/* Has the session been told something at this level that contains text? */
static inline bool jf_said(const struct jf_world *w, enum wp_say_level level, const char *text)
{
	const char *p = wp_buf_cstr(&w->said);
	char prefix[16];
	snprintf(prefix, sizeof(prefix), "%s: ", jf_level_name(level));
	for (const char *line = p; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		if (!strncmp(line, prefix, strlen(prefix)) && memmem(line, len, text, strlen(text)))
			return true;
		line = end ? end + 1 : NULL;
	}
	return false;
}

/* Fails the test, showing everything said, unless something at level contains text. */
#define jf_assert_said(w, level, text)                                                            \
	do {                                                                                       \
		if (!jf_said((w), (level), (text)))                                                \
			fail_msg("nothing said at %s contains '%s'; said:\n%s", jf_level_name(level), \
				 (text), wp_buf_cstr(&(w)->said));                                 \
	} while (0)

/* A path under the world's folder (a new string). */
static inline char *jf_path(const struct jf_world *w, const char *rel)
{
	return wp_xasprintf("%s/%s", w->root, rel);
}

static inline bool jf_exists(const char *path)
{
	struct stat sb;
	return lstat(path, &sb) == 0;
}

/* The fixture catalog: the given sources (as --index takes them: URLs or paths) crawled into the
 * world's catalog by the real crawl code (ops/core/sources.c, ops/core/crawl.c, index/ readers),
 * following projects on root pages (NULL: torch, torchvision, torchaudio). Every source must
 * crawl. */
static inline void jf_catalog_crawl(struct jf_world *w, const char *const *indexes, size_t n,
				    const char *const *projects, size_t n_projects)
{
	struct wp_sources src = { 0 };
	struct wp_catalog cat = { 0 };
	struct wp_err err = WP_ERR_INIT;
	for (size_t i = 0; i < n; i++)
		wp_sources_add_index(&src, indexes[i]);
	assert_int_equal(wp_catalog_open(&cat, w->catalog, &err), 0);
	int rc = wp_sources_crawl(&w->s, &cat, &src, projects, n_projects, true, 0, &err);
	if (rc)
		fail_msg("crawling the fixture sources: %s", err.msg);
	wp_catalog_close(&cat);
	wp_sources_release(&src);
}

/* A wheel job over the world's PEP 503 root: req for linux_x86_64, Python 3.8, one target per
 * CUDA word (NULL-terminated: "11.2", "cpu", NULL). The job borrows its strings. */
struct jf_pick {
	struct wp_pick_job job;
	struct wp_pick_run run;
};

static inline void jf_pick_init(struct jf_pick *p, const struct jf_world *w, const char *req,
				const char *const *cuda)
{
	memset(p, 0, sizeof(*p));
	assert_int_equal(wp_reqs_add(&p->job.reqs, req, NULL), 0);
	for (; *cuda; cuda++)
		wp_strlist_push(&p->job.targets.cuda, *cuda);
	wp_strlist_push(&p->job.targets.python, "3.8");
	wp_strlist_push(&p->job.targets.platform, "linux_x86_64");
	wp_strlist_push(&p->job.index, w->simple);
}

/* The plan (it must succeed), then the fetch, as pick -d, mirror and bundle run them. A fault
 * meant for the fetch goes between the two: planning reads a file:// wheel's METADATA in place
 * and proves its hash then. */
static inline void jf_pick_plan(struct jf_pick *p, const struct jf_world *w)
{
	struct wp_err err = WP_ERR_INIT;
	if (wp_pick_plan(&w->s, &p->job, &p->run, &err))
		fail_msg("planning '%s': %s", p->job.reqs.v[0].text, err.msg);
}

/* The fetch's code (0 or -WPE_*). */
static inline int jf_pick_fetch(struct jf_pick *p, const struct jf_world *w, struct wp_err *err)
{
	return wp_pick_fetch(&w->s, &p->job, &p->run, err);
}

static inline void jf_pick_release(struct jf_pick *p)
{
	wp_pick_run_release(&p->run);
	wp_reqs_release(&p->job.reqs);
	wp_strlist_release(&p->job.targets.cuda);
	wp_strlist_release(&p->job.targets.python);
	wp_strlist_release(&p->job.targets.platform);
	wp_strlist_release(&p->job.index);
}

/* Faults, on a source file (rel: under SRC, "sample/whl/..." or "conda/pt/linux-64/..."); each is
 * undone by jf_world_release. Returns the file's path (the world keeps it). */
static inline const char *jf_fault_begin(struct jf_world *w, const char *rel)
{
	assert_true(w->n_faults < JF_MAX_FAULTS);
	char *p = wp_xasprintf("%s/%s", w->src, rel);
	w->faults[w->n_faults].bytes = (struct wp_buf)WP_BUF_INIT;
	if (wp_file_read_capped(p, 64 << 20, &w->faults[w->n_faults].bytes, NULL) < 0)
		fail_msg("jobfix: cannot read the source file '%s'", p);
	w->faults[w->n_faults++].path = p;
	return p;
}

/* One byte in the middle changed; the size stays: only a hash can tell. */
static inline void jf_fault_flip(struct jf_world *w, const char *rel)
{
	const char *p = jf_fault_begin(w, rel);
	struct stat sb;
	int fd = open(p, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &sb), 0);
	assert_true(sb.st_size > 2);
	unsigned char c;
	off_t at = sb.st_size / 2;
	assert_int_equal(pread(fd, &c, 1, at), 1);
	c ^= 0x5a;
	assert_int_equal(pwrite(fd, &c, 1, at), 1);
	close(fd);
}

/* Cut to len bytes. */
static inline void jf_fault_truncate(struct jf_world *w, const char *rel, off_t len)
{
	assert_int_equal(truncate(jf_fault_begin(w, rel), len), 0);
}

/* Gone. */
static inline void jf_fault_remove(struct jf_world *w, const char *rel)
{
	assert_int_equal(unlink(jf_fault_begin(w, rel)), 0);
}

/* The group's sources over HTTP on 127.0.0.1: base is http://127.0.0.1:PORT/ (the sample's
 * simple/ and whl/ are under it); the script and the request log lie in the world's folder. */
struct jf_server {
	pid_t pid;
	int port;
	char base[64];
	char *script, *log;
};

/* Writes the fault script (faultserver.py's JSON; "{}" for none), atomically: the server reads it
 * on every request. */
static inline void jf_serve_script(struct jf_server *srv, const char *json)
{
	struct wp_err err = WP_ERR_INIT;
	if (wp_atomic_write(srv->script, json, strlen(json), &err) < 0)
		fail_msg("%s", err.msg);
}

static inline void jf_serve(struct jf_world *w, struct jf_server *srv)
{
	memset(srv, 0, sizeof(*srv));
	srv->script = jf_path(w, "server.json");
	srv->log = jf_path(w, "server.log");
	jf_serve_script(srv, "{}");
	char *root = wp_xasprintf("%s/sample", w->src), *port_file = jf_path(w, "server.port");
	char *argv[] = {
		access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3",
		"tests/server/faultserver.py",
		"--root",
		root,
		"--script",
		srv->script,
		"--log",
		srv->log,
		"--port-file",
		port_file,
		"--max-seconds",
		"120",
		NULL,
	};
	/* no proxy of the developer's sits in between (libcurl's own variables; the quick retries
	 * are the session's, jf_net) */
	setenv("no_proxy", "127.0.0.1,localhost", 1);
	setenv("NO_PROXY", "127.0.0.1,localhost", 1);
	if (faultserver_start(argv, port_file, &srv->pid, &srv->port) < 0)
		fail_msg("jobfix: tests/server/faultserver.py did not start");
	snprintf(srv->base, sizeof(srv->base), "http://127.0.0.1:%d/", srv->port);
	free(root);
	free(port_file);
}

static inline void jf_serve_stop(struct jf_server *srv)
{
	faultserver_stop(&srv->pid);
	free(srv->script);
	free(srv->log);
	srv->script = srv->log = NULL;
}

/* How many entries (of any kind, but . and ..) dir holds; 0 when it is not there. */
static inline size_t jf_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;
	while (d && (de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

/* How many regular files lie directly in dir whose names end in suffix ("" for all). */
static inline size_t jf_count(const char *dir, const char *suffix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0, sl = strlen(suffix);
	while (d && (de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char *p = wp_xasprintf("%s/%s", dir, de->d_name);
		struct stat sb;
		if (lstat(p, &sb) == 0 && S_ISREG(sb.st_mode) && len >= sl &&
		    !strcmp(de->d_name + len - sl, suffix))
			n++;
		free(p);
	}
	if (d)
		closedir(d);
	return n;
}

#endif
