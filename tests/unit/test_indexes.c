/* tests/unit/test_indexes.c: where indexes come from and how they are written (issue 25): a URL's
 * credentials taken into the run and matched by origin (net/auth.c), masked wherever shown;
 * trusted hosts; index roots as pip reads them (ops/core/sources.c); pip's configuration format and
 * the order of the command line, uv's and pip's variables and pip's files
 * (ops/core/indexconf.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/unit/tmpdir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/envp.h"
#include "base/mem.h"
#include "base/urlmask.h"
#include "net/auth.h"
#include "ops/core/indexconf.h"
#include "ops/core/session.h"
#include "ops/core/sources.h"

static void test_take_credentials(void **state)
{
	const char *u = NULL, *p = NULL;
	struct wp_net_creds cr = { 0 };
	char *clean = wp_net_url_take_credentials(&cr,
						  "https://alice:s%40cret@Host.Example/simple/");
	assert_string_equal(clean, "https://Host.Example/simple/");
	assert_true(wp_net_creds_find(&cr, "https://host.example:443/simple/torch/", &u, &p));
	assert_string_equal(u, "alice");
	assert_string_equal(p, "s@cret"); /* percent-decoded */
	assert_false(
		wp_net_creds_find(&cr, "https://host.example:8443/simple/", &u, &p)); /* another
											 port
										       */
	assert_false(wp_net_creds_find(&cr, "http://host.example/simple/", &u, &p)); /* another
											scheme */
	assert_false(wp_net_creds_find(&cr, "https://other.example/simple/", &u, &p)); /* another
											  host */
	free(clean);
	/* a token alone (GitLab's habit: https://__token__:T@ or https://T@) */
	clean = wp_net_url_take_credentials(&cr, "http://TOKEN@127.0.0.1:8080/simple");
	assert_string_equal(clean, "http://127.0.0.1:8080/simple");
	assert_true(wp_net_creds_find(&cr, "http://127.0.0.1:8080/x", &u, &p));
	assert_string_equal(u, "TOKEN");
	assert_string_equal(p, "");
	free(clean);
	/* no userinfo, and an '@' in the path or query is not one */
	clean = wp_net_url_take_credentials(&cr, "https://h/simple/?a=b@c");
	assert_string_equal(clean, "https://h/simple/?a=b@c");
	free(clean);
	clean = wp_net_url_take_credentials(&cr, "/srv/wheels");
	assert_string_equal(clean, "/srv/wheels");
	free(clean);
	wp_net_creds_release(&cr);
	assert_false(wp_net_creds_find(&cr, "https://host.example/simple/", &u, &p));
	/* no store: the userinfo is dropped, the URL still clean */
	clean = wp_net_url_take_credentials(NULL, "https://alice:pw@host.example/simple/");
	assert_string_equal(clean, "https://host.example/simple/");
	free(clean);
	assert_false(wp_net_creds_find(NULL, "https://host.example/simple/", &u, &p));
}

static void test_mask(void **state)
{
	char *m = wp_net_url_mask("https://alice:TOKEN@h:8443/simple/");
	assert_string_equal(m, "https://***@h:8443/simple/");
	free(m);
	m = wp_net_url_mask("https://h/simple/");
	assert_string_equal(m, "https://h/simple/");
	free(m);
	m = wp_net_text_mask(
		"cannot fetch 'https://a:b@h/x' nor http://c:d@e@f/y, only https://g/z");
	assert_string_equal(m,
			    "cannot fetch 'https://***@h/x' nor http://***@f/y, only https://g/z");
	free(m);
	char host[64];
	wp_net_url_host("https://a:b@Example.org:8443/x", host, sizeof(host));
	assert_string_equal(host, "Example.org:8443");
}

/* Trusted hosts are a value of the run's settings (struct wp_net_conf), not a global. */
static void test_trusted(void **state)
{
	const char *hosts[] = { "Index.Example", "127.0.0.1:8443" };
	struct wp_net_conf nc = { .trusted_hosts = hosts, .n_trusted_hosts = 2 };
	assert_true(wp_net_host_trusted(&nc, "https://index.example/simple/"));
	assert_true(wp_net_host_trusted(&nc, "https://index.example:9999/simple/")); /* a host: any
											port */
	assert_true(wp_net_host_trusted(&nc, "https://127.0.0.1:8443/simple/"));
	assert_false(wp_net_host_trusted(&nc, "https://127.0.0.1:8444/simple/")); /* host:port: that
										     port */
	assert_false(wp_net_host_trusted(&nc, "https://index.example.evil/simple/"));
	assert_false(wp_net_host_trusted(&nc, "https://evil/index.example/"));
	assert_false(wp_net_host_trusted(&nc, "http://index.example/simple/")); /* only https is
										   checked */
	assert_false(wp_net_host_trusted(NULL, "https://index.example/simple/"));
	struct wp_net_conf none = { 0 };
	assert_false(wp_net_host_trusted(&none, "https://index.example/simple/"));
}

static void test_roots(void **state)
{
	struct wp_sources s = { 0 };
	wp_sources_add_index(&s, "https://download.pytorch.org/whl/cu118");
	wp_sources_add_index(&s, "https://download.pytorch.org/whl/cu118/"); /* the same root */
	wp_sources_add_index(&s, "https://download.pytorch.org/whl/torch_stable.html");
	wp_sources_add_index(&s, "https://host");
	wp_sources_add_index(&s, "https://host/links?page=1");
	wp_sources_add_findlinks(&s, "https://host/wheels");
	assert_int_equal(s.n, 5);
	assert_string_equal(s.urls[0], "https://download.pytorch.org/whl/cu118/");
	assert_string_equal(s.urls[1], "https://download.pytorch.org/whl/torch_stable.html");
	assert_string_equal(s.urls[2], "https://host/");
	assert_string_equal(s.urls[3], "https://host/links?page=1");
	assert_string_equal(s.urls[4], "https://host/wheels"); /* -f: never made a root */
	assert_true(wp_sources_is_root(s.urls[0]));
	assert_false(wp_sources_is_root(s.urls[1]));
	wp_sources_release(&s);

	/* on disk: a PEP 503 tree is a root, a folder of wheels is not, even with its slash */
	char dir[64];
	assert_int_equal(test_tmpdir_make(dir, sizeof(dir), "roots"), 0);
	char *p = wp_xasprintf("%s/simple/torch", dir);
	char *cmd = wp_xasprintf("mkdir -p '%s' '%s/wheels' && touch '%s/index.html' '%s/simple/index.html' "
				 "'%s/wheels/a-1-py3-none-any.whl'",
				 p, dir, p, dir, dir);
	assert_int_equal(system(cmd), 0);
	char *tree = wp_xasprintf("%s/simple", dir), *wheels = wp_xasprintf("%s/wheels/", dir);
	wp_sources_add_index(&s, tree);
	wp_sources_add_index(&s, dir);   /* a mirror's top: its simple/ */
	wp_sources_add_index(&s, wheels);
	char *want = wp_xasprintf("file://%s/simple/", dir);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.urls[0], want);
	assert_true(wp_sources_is_root(s.urls[0]));
	assert_false(wp_sources_is_root(s.urls[1]));
	wp_sources_release(&s);
	free(cmd);
	test_tmpdir_remove(dir);
	free(p);
	free(tree);
	free(wheels);
	free(want);
}

struct kv {
	char text[512];
};

static void collect(void *ctx, const char *section, const char *key, const char *value,
		    unsigned line)
{
	struct kv *k = ctx;
	size_t n = strlen(k->text);
	snprintf(k->text + n, sizeof(k->text) - n, "[%s]%s=%s|", section, key, value);
}

static void test_pipconf(void **state)
{
	const char *conf = "# a comment\n"
			   "[global]\n"
			   "index-url = https://a/simple\n"
			   "Extra_Index_URL =\n"
			   "    https://b/simple\n"
			   "\thttps://c/simple\n"
			   "; another\n"
			   "[Download]\n"
			   "timeout: 30\n"
			   "not a key line\n"
			   "find-links=/w";
	struct kv k = { "" };
	wp_pipconf_parse(conf, strlen(conf), collect, &k);
	/* as configparser: an empty first line kept, section names as written (pip's are
	 * case-sensitive) */
	assert_string_equal(k.text,
			    "[global]index-url=https://a/simple|[global]extra-index-url=\nhttps://b/simple\n"
			    "https://c/simple|[Download]timeout=30|[Download]find-links=/w|");
	k.text[0] = 0;
	wp_pipconf_parse("", 0, collect, &k);
	wp_pipconf_parse("[x\n=\n  \n", 8, collect, &k);
	assert_string_equal(k.text, "");
}

/* The environment as a value: what a test hands the resolver instead of setenv. */
static struct wp_index_config resolve_with(const struct wp_index_given *given,
					   const char *const *envp)
{
	struct wp_index_given g = *given;
	struct wp_index_config c;
	struct wp_err e = WP_ERR_INIT;
	g.envp = envp;
	assert_int_equal(wp_index_config_resolve(&g, &c, &e), 0);
	return c;
}

static char *write_tmp(const char *text)
{
	char *path = wp_xstrdup("/tmp/wp-pipconf.XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (int)strlen(text));
	close(fd);
	return path;
}

static void test_order(void **state)
{
	struct wp_net_creds cr = { 0 };
	struct wp_index_given g = { .creds = &cr };
	struct wp_index_config c;
	const char *u = NULL, *p = NULL;

	const char *none[] = { "PIP_CONFIG_FILE=/dev/null", "UV_NO_CONFIG=1", NULL };
	c = resolve_with(&g, none);
	assert_string_equal(c.origin, "the default");
	assert_int_equal(c.index.n, 0);
	wp_index_config_release(&c);

	const char *pipenv[] = { "PIP_CONFIG_FILE=/dev/null", "UV_NO_CONFIG=1",
				 "PIP_INDEX_URL=https://pip:PW@pip.example/simple",
				 "PIP_EXTRA_INDEX_URL=https://x1/simple https://x2/simple", NULL };
	c = resolve_with(&g, pipenv);
	assert_string_equal(c.origin, "PIP_INDEX_URL, PIP_EXTRA_INDEX_URL");
	assert_int_equal(c.index.n, 3);
	assert_string_equal(c.index.v[0], "https://pip.example/simple");
	assert_string_equal(c.shown.v[0], "https://pip.example/simple/");
	assert_string_equal(c.looking.v[0], "https://pip:****@pip.example/simple");
	assert_true(wp_net_creds_find(&cr, "https://pip.example/simple/torch/", &u, &p));
	assert_string_equal(p, "PW");
	wp_index_config_release(&c);

	/* uv before pip: --index entries, extra, then the default index last */
	const char *uvenv[] = {
		"PIP_CONFIG_FILE=/dev/null",         "UV_NO_CONFIG=1",
		"PIP_INDEX_URL=https://pip/simple",  "UV_DEFAULT_INDEX=https://uvdefault/simple",
		"UV_INDEX=corp=https://corp/simple", "UV_INDEX_CORP_USERNAME=bob",
		"UV_INDEX_CORP_PASSWORD=uvpw",       NULL
	};
	c = resolve_with(&g, uvenv);
	assert_string_equal(c.origin, "UV_INDEX, UV_DEFAULT_INDEX");
	assert_string_equal(c.tool, "uv");
	assert_int_equal(c.index.n, 2);
	assert_string_equal(c.index.v[0], "https://corp/simple");
	assert_string_equal(c.index.v[1], "https://uvdefault/simple");
	assert_true(wp_net_creds_find(&cr, "https://corp/simple/", &u, &p));
	assert_string_equal(u, "bob");
	assert_string_equal(p, "uvpw");
	wp_index_config_release(&c);

	/* a company's uv index alone: the public default is not in play (issue 37, case c) */
	const char *corp[] = { "PIP_CONFIG_FILE=/dev/null", "UV_NO_CONFIG=1",
			       "UV_INDEX=corp=https://corp/simple", NULL };
	c = resolve_with(&g, corp);
	assert_int_equal(c.index.n, 1);
	assert_string_equal(c.index.v[0], "https://corp/simple");
	wp_index_config_release(&c);

	/* WHEELPICK_INDEX before both; only said, the job reads it */
	const char *wpenv[] = { "PIP_CONFIG_FILE=/dev/null", "UV_NO_CONFIG=1",
				"UV_INDEX=https://corp/simple",
				"WHEELPICK_INDEX=https://t:SECRET@wp/simple/", NULL };
	c = resolve_with(&g, wpenv);
	assert_string_equal(c.origin, "WHEELPICK_INDEX");
	assert_int_equal(c.index.n, 0);
	assert_string_equal(c.shown.v[0], "https://***@wp/simple/");
	wp_index_config_release(&c);

	/* --extra-index-url alone adds to the default */
	struct wp_index_given cl = { 0 };
	wp_strlist_push(&cl.extra, "https://extra/simple");
	c = resolve_with(&cl, none);
	assert_string_equal(c.origin, "the default, the command line");
	assert_int_equal(c.index.n, 3);
	assert_string_equal(c.index.v[0], WP_PYTORCH_FINDLINKS);
	assert_string_equal(c.index.v[2], "https://extra/simple");
	wp_index_config_release(&c);
	/* ... and to pip's index-url, as pip's append options do */
	c = resolve_with(&cl, pipenv);
	assert_int_equal(c.index.n, 4);
	assert_string_equal(c.index.v[0], "https://pip.example/simple");
	assert_string_equal(c.index.v[3], "https://extra/simple");
	wp_index_config_release(&c);
	wp_strlist_release(&cl.extra);

	/* --isolated: pip's and uv's variables and files ignored */
	g.isolated = true;
	c = resolve_with(&g, pipenv);
	assert_string_equal(c.origin, "the default");
	wp_index_config_release(&c);
	g.isolated = false;

	/* pip's files: [download] over [global]; variables over both, key by key */
	char *path = write_tmp(
		"[global]\nindex-url = https://global/simple\ntrusted-host = th.example\n"
		"[download]\nindex-url = https://download/simple\n");
	char *forced = wp_xasprintf("PIP_CONFIG_FILE=%s", path);
	const char *files[] = { forced, "UV_NO_CONFIG=1",
				"PIP_EXTRA_INDEX_URL=https://extra/simple", NULL };
	c = resolve_with(&g, files);
	char *where = wp_xasprintf("pip.conf %s", path);
	assert_string_equal(c.shown_from.v[0], where);
	assert_string_equal(c.index.v[0], "https://download/simple");
	assert_string_equal(c.index.v[1], "https://extra/simple"); /* issue 37, case a */
	assert_int_equal(c.trusted_host.n, 1);
	assert_string_equal(c.trusted_host.v[0], "th.example"); /* handed back, not set in net/ */
	wp_index_config_release(&c);
	/* [install] is install's section, not a pick's */
	struct wp_index_given inst = { .pip_command = "install" };
	c = resolve_with(&inst, files);
	assert_string_equal(c.index.v[0], "https://global/simple");
	wp_index_config_release(&c);
	free(where);
	free(forced);
	unlink(path);
	free(path);

	/* a timeout is a value handed back, never put in the environment */
	const char *tenv[] = { "PIP_CONFIG_FILE=/dev/null", "UV_NO_CONFIG=1",
			       "PIP_DEFAULT_TIMEOUT=7.4", NULL };
	c = resolve_with(&g, tenv);
	assert_int_equal(c.timeout_s, 7);
	wp_index_config_release(&c);
	wp_net_creds_release(&cr);
}

/* uv.toml: the user's file, [[index]] entries before the default, named credentials. */
static void test_uv_toml(void **state)
{
	struct wp_net_creds cr = { 0 };
	struct wp_index_given g = { .creds = &cr };
	char *path = write_tmp(
		"index-strategy = \"unsafe-best-match\"\n[[index]]\nname = \"corp\"\n"
		"url = \"https://corp/simple\"\n[[index]]\nurl = \"https://dflt/simple\"\ndefault = true\n");
	char *forced = wp_xasprintf("UV_CONFIG_FILE=%s", path);
	const char *env[] = { "PIP_CONFIG_FILE=/dev/null",
			      forced,
			      "UV_INDEX_CORP_USERNAME=u",
			      "UV_INDEX_CORP_PASSWORD=p",
			      "UV_EXTRA_INDEX_URL=https://extra/simple",
			      NULL };
	struct wp_index_config c = resolve_with(&g, env);
	assert_string_equal(c.tool, "uv");
	assert_int_equal(c.index.n, 3);
	assert_string_equal(c.index.v[0], "https://extra/simple");
	assert_string_equal(c.index.v[1], "https://corp/simple");
	assert_string_equal(c.index.v[2], "https://dflt/simple");
	assert_string_equal(c.index_strategy, "unsafe-best-match");
	const char *u = NULL, *p = NULL;
	assert_true(wp_net_creds_find(&cr, "https://corp/simple/x/", &u, &p));
	assert_string_equal(u, "u");
	wp_index_config_release(&c);
	/* UV_NO_CONFIG: no file */
	const char *off[] = { "PIP_CONFIG_FILE=/dev/null", forced, "UV_NO_CONFIG=1", NULL };
	c = resolve_with(&g, off);
	assert_int_equal(c.index.n, 0);
	wp_index_config_release(&c);
	unlink(path);
	free(path);
	free(forced);
	wp_net_creds_release(&cr);
}

/* pip's redaction (base/, a pure function): the same text pip prints in "Looking in indexes" */
static void test_redact(void **state)
{
	const char *cases[][2] = {
		{ "http://alice:s3cret@host/priv/simple", "http://alice:****@host/priv/simple" },
		{ "https://TOKEN@host/simple/", "https://****@host/simple/" },
		{ "https://a:b:c@h@host/x", "https://a:****@host/x" },
		{ "https://host/simple", "https://host/simple" },
		{ "/srv/wheels", "/srv/wheels" },
		{ "://x@y", "://x@y" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *r = wp_url_redact(cases[i][0]);
		assert_string_equal(r, cases[i][1]);
		free(r);
	}
	char *m = wp_url_mask("https://alice:TOKEN@h:8443/simple/");
	assert_string_equal(m, "https://***@h:8443/simple/");
	free(m);
	/* to compare where URLs point: no userinfo at all, not even "***" */
	const char *bare[][2] = {
		{ "http://***@127.0.0.1:8080/simple/", "http://127.0.0.1:8080/simple/" },
		{ "https://a:b:c@h@host/x?q=@", "https://host/x?q=@" },
		{ "https://host/simple", "https://host/simple" },
		{ "/srv/a@b", "/srv/a@b" },
	};
	for (size_t i = 0; i < sizeof(bare) / sizeof(*bare); i++) {
		char *r = wp_url_strip_userinfo(bare[i][0]);
		assert_string_equal(r, bare[i][1]);
		free(r);
	}
}

/* The session's defaults come from an environment handed in, never from the process's. */
static void test_session_env(void **state)
{
	const char *env[] = { "HOME=/h", "XDG_CACHE_HOME=relative", "WHEELPICK_MAX_AGE=0",
			      "EMPTY=", NULL };
	char *cat = wp_session_default_catalog(env);
	assert_string_equal(cat, "/h/.cache/wheelpick/catalog.sqlite3"); /* a relative XDG value is
									    ignored */
	free(cat);
	const char *env2[] = { "WHEELPICK_CACHE_DIR=/c", NULL };
	char *dir = wp_session_default_cache_dir(env2);
	assert_string_equal(dir, "/c");
	free(dir);
	assert_null(wp_session_default_catalog(NULL)); /* no home: no catalog in whatever folder */
	long age = -5;
	struct wp_err e = WP_ERR_INIT;
	assert_int_equal(wp_session_max_age(env, &age, &e), 0);
	assert_int_equal(age, 0);
	const char *bad[] = { "WHEELPICK_MAX_AGE=5m", NULL };
	assert_int_equal(wp_session_max_age(bad, &age, &e), -WPE_USAGE);
	assert_null(wp_envp_get(env, "EMPTY"));
	assert_null(wp_envp_get(env, "HOM"));
	assert_string_equal(wp_envp_get(env, "HOME"), "/h");
	struct wp_session s = { .envp = env };
	assert_string_equal(wp_session_env(&s, "WHEELPICK_MAX_AGE"), "0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_take_credentials),
		cmocka_unit_test(test_mask),
		cmocka_unit_test(test_trusted),
		cmocka_unit_test(test_roots),
		cmocka_unit_test(test_pipconf),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_uv_toml),
		cmocka_unit_test(test_redact),
		cmocka_unit_test(test_session_env),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
