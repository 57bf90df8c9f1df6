/* tests/unit/test_solve_scale.c: the solver on dependency webs of real-environment size (256,
 * 1,000 and 10,000 projects, three versions each), with upper bounds that force it back a
 * version, run on the default stack. Every answer is checked against the web's rules: each
 * requirement of each picked file holds, and each project sits at the version the rules leave.
 *
 * The web: p0 is asked for; pK (each of 1.0, 2.0, 3.0) needs p(2K+1) and p(2K+2) (a binary tree,
 * so projects are found in number order); pK 3.0 for K % 10 == 5 also needs "p(K-1)<3", which
 * rules out p(K-1) 3.0 picked one level before: the solver gives pK 3.0 up and takes 2.0. And
 * p0 3.0 needs every leaf, so one project's Requires-Dist can be as long as the web is wide. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/mem.h"
#include "resolver/solve.h"
#include "resolver/target.h"

#define VERSIONS 3

struct web {
	size_t n;
	struct wp_candidate *cands;   /* VERSIONS per project, newest first */
	char **strings;               /* everything the candidates and deps point to, to free */
	size_t nstrings, capstrings;
	struct wp_reqs *deps; /* per candidate: its Requires-Dist, parsed as a provider parses them
			       */
	unsigned deps_calls;
};

static char *keep(struct web *w, char *s)
{
	if (w->nstrings == w->capstrings) {
		w->capstrings = w->capstrings ? w->capstrings * 2 : 1024;
		w->strings = wp_xrealloc(w->strings, w->capstrings * sizeof(*w->strings));
	}
	return w->strings[w->nstrings++] = s;
}

static void add_dep(struct web *w, size_t ci, char *line)
{
	wp_req_parse(wp_vec_add(&w->deps[ci]), line, strlen(line), NULL);
	free(line);
}

static void web_build(struct web *w, size_t n)
{
	memset(w, 0, sizeof(*w));
	w->n = n;
	w->cands = wp_xcalloc(n * VERSIONS, sizeof(*w->cands));
	w->deps = wp_xcalloc(n * VERSIONS, sizeof(*w->deps));
	for (size_t k = 0; k < n; k++) {
		char *name = keep(w, wp_xasprintf("p%zu", k));
		for (int v = 0; v < VERSIONS; v++) {
			size_t ci = k * VERSIONS + (size_t)v;
			char *ver = keep(w, wp_xasprintf("%d.0", VERSIONS - v));
			char *fn = keep(w, wp_xasprintf("p%zu-%s-py3-none-any.whl", k, ver));
			w->cands[ci] = (struct wp_candidate){
				.project = name,
				.version = ver,
				.variant = "",
				.kind = "wheel",
				.filename = fn,
				.url = keep(w, wp_xasprintf("https://example.test/simple/p%zu/%s",
							    k, fn)),
				.tags = "py3-none-any",
				.size = 1000,
			};
			for (size_t c = 2 * k + 1; c <= 2 * k + 2 && c < n; c++)
				add_dep(w, ci, wp_xasprintf("p%zu>=1.0", c));
			if (v == 0 && k % 10 == 5)
				add_dep(w, ci, wp_xasprintf("p%zu<3", k - 1));
			if (v == 0 && k == 0)
				for (size_t leaf = n / 2; leaf < n; leaf++)
					add_dep(w, ci, wp_xasprintf("p%zu", leaf));
		}
	}
}

static void web_free(struct web *w)
{
	for (size_t i = 0; i < w->nstrings; i++)
		free(w->strings[i]);
	for (size_t i = 0; i < w->n * VERSIONS; i++)
		wp_reqs_release(&w->deps[i]);
	free(w->strings), free(w->cands), free(w->deps);
}

static int w_files(void *ctx, const char *project, struct wp_solve_files *out, struct wp_err *err)
{
	struct web *w = ctx;
	char *end;
	size_t k = project[0] == 'p' ? strtoul(project + 1, &end, 10) : w->n;
	if (k >= w->n)
		return 0;
	out->c = &w->cands[k * VERSIONS];
	out->n = VERSIONS;
	return 0;
}

static int w_deps(void *ctx, const struct wp_candidate *c, struct wp_solve_deps *out,
		  struct wp_err *err)
{
	struct web *w = ctx;
	size_t ci = (size_t)(c - w->cands);
	w->deps_calls++;
	*out = (struct wp_solve_deps){ .reqs = w->deps[ci].v, .n = w->deps[ci].n,
				       .source = "test" };
	return 0;
}

/* The version the rules leave pK at: 2.0 where its 3.0 needs p(K-1)<3, else 3.0. */
static const char *expected_version(size_t k)
{
	return k % 10 == 5 ? "2.0" : "3.0";
}

static void set_cpu_target(struct wp_target *t)
{
	struct wp_err e = WP_ERR_INIT;
	wp_target_init(t);
	assert_int_equal(wp_target_set_cuda(t, "cpu", &e), 0);
	assert_int_equal(wp_target_set_python(t, "3.12", &e), 0);
	assert_int_equal(wp_target_set_platform(t, "manylinux_2_28_x86_64", &e), 0);
}

static void solve_web(size_t n)
{
	struct web w;
	web_build(&w, n);
	struct wp_solve_provider p = { .files = w_files, .deps = w_deps, .ctx = &w };
	struct wp_target t;
	struct wp_err e = WP_ERR_INIT;
	set_cpu_target(&t);
	struct wp_reqs req = { 0 };
	assert_int_equal(wp_reqs_add(&req, "p0", NULL), 0);
	struct wp_solve_opts o = { 0 };
	struct wp_plan plan;
	int rc = wp_solve(&p, req.v, req.n, &t, 1, &o, &plan, &e);
	wp_reqs_release(&req);
	if (rc)
		fail_msg("%zu projects: %s", n, e.msg);
	assert_int_equal(plan.n, n);
	char *seen = wp_xcalloc(n, 1);
	for (size_t i = 0; i < plan.n; i++) {
		size_t k = strtoul(plan.files[i].project + 1, NULL, 10);
		assert_true(k < n);
		assert_false(seen[k]);
		seen[k] = 1;
		if (strcmp(plan.files[i].version, expected_version(k)) != 0)
			fail_msg("%zu projects: p%zu picked %s, the rules leave %s", n, k,
				 plan.files[i].version, expected_version(k));
	}
	/* the version given up says so in the reason */
	for (size_t i = 0; n > 5 && i < plan.n; i++)
		if (!strcmp(plan.files[i].project, "p5"))
			assert_non_null(
				strstr(plan.files[i].reason,
				       "newer versions were given up: 3.0 (it conflicts with an earlier pick)"));
	free(seen);
	wp_plan_release(&plan);
	web_free(&w);
}

/* 256 projects crashed the recursive solver on an 8 MiB stack */
static void test_web_256(void **state) { solve_web(256); }
static void test_web_1000(void **state) { solve_web(1000); }
static void test_web_10000(void **state) { solve_web(10000); }

/* A web whose last project can never be had: "nothing fits", naming it, after jumping back only
 * to the projects that asked for it (going back one level at a time would try 3^depth sets). */
static void test_web_unsolvable(void **state)
{
	struct web w;
	web_build(&w, 1000);
	/* p999 has no file the target takes: each needs Python 2 */
	for (int v = 0; v < VERSIONS; v++)
		w.cands[999 * VERSIONS + (size_t)v].requires_python = "<3";
	struct wp_solve_provider p = { .files = w_files, .deps = w_deps, .ctx = &w };
	struct wp_target t;
	struct wp_err e = WP_ERR_INIT;
	set_cpu_target(&t);
	struct wp_reqs req = { 0 };
	assert_int_equal(wp_reqs_add(&req, "p0", NULL), 0);
	struct wp_solve_opts o = { 0 }; /* the default step limit */
	struct wp_plan plan;
	int rc = wp_solve(&p, req.v, req.n, &t, 1, &o, &plan, &e);
	wp_reqs_release(&req);
	if (rc != -WPE_NOMATCH)
		fail_msg("rc %d: %s", rc, e.msg);
	if (!strstr(e.msg, "p999"))
		fail_msg("message: %s", e.msg);
	assert_string_equal(plan.failed_project, "p999");
	wp_plan_release(&plan);
	web_free(&w);
}

/* p0 3.0 needs p999>=3, which the target cannot take: the failure, 999 levels down, is p0's to
 * blame, and the search jumps straight back to it and takes p0 2.0. */
static void test_web_jump_to_root(void **state)
{
	struct web w;
	web_build(&w, 1000);
	w.cands[999 * VERSIONS].requires_python = "<3";
	add_dep(&w, 0, wp_xasprintf("p999>=3"));
	struct wp_solve_provider p = { .files = w_files, .deps = w_deps, .ctx = &w };
	struct wp_target t;
	struct wp_err e = WP_ERR_INIT;
	set_cpu_target(&t);
	struct wp_reqs req = { 0 };
	assert_int_equal(wp_reqs_add(&req, "p0", NULL), 0);
	struct wp_solve_opts o = { 0 }; /* the default step limit */
	struct wp_plan plan;
	int rc = wp_solve(&p, req.v, req.n, &t, 1, &o, &plan, &e);
	wp_reqs_release(&req);
	if (rc)
		fail_msg("%s", e.msg);
	assert_int_equal(plan.n, 1000);
	for (size_t i = 0; i < plan.n; i++) {
		size_t k = strtoul(plan.files[i].project + 1, NULL, 10);
		const char *want = k == 0 || k == 999 ? "2.0" : expected_version(k);
		if (strcmp(plan.files[i].version, want) != 0)
			fail_msg("p%zu picked %s, the rules leave %s", k, plan.files[i].version,
				 want);
		if (k == 0)
			assert_non_null(strstr(plan.files[i].reason,
					       "3.0 (its dependencies cannot be met)"));
	}
	wp_plan_release(&plan);
	web_free(&w);
}

/* issue 36: one project with 20,000 versions, each needing a project no source lists. That the
 * project is missing is learnt once: the provider is asked for it once, and after a run of
 * versions that all need it the answer comes (nothing fits, naming it, saying older versions were
 * not tried), in seconds, not after minutes of trying version after version against a growing
 * list of the ones given up. */
struct many {
	struct wp_candidate *c;
	size_t n;
	char **strings;
	struct wp_req dep;
	const char *free_version;     /* the one version that needs nothing, or NULL */
	unsigned files_missing, deps_calls;
};

static int m_files(void *ctx, const char *project, struct wp_solve_files *out, struct wp_err *err)
{
	struct many *m = ctx;
	if (!strcmp(project, "a")) {
		out->c = m->c;
		out->n = m->n;
		return 0;
	}
	m->files_missing++;
	return 0; /* no source lists it */
}

static int m_deps(void *ctx, const struct wp_candidate *c, struct wp_solve_deps *out,
		  struct wp_err *err)
{
	struct many *m = ctx;
	m->deps_calls++;
	bool free_one = m->free_version && !strcmp(c->version, m->free_version);
	*out = (struct wp_solve_deps){ .reqs = &m->dep, .n = free_one ? 0 : 1, .source = "test" };
	return 0;
}

/* a: n versions, n.0 down to 1.0, each needing dep (a project no source lists) but free_version
 * (NULL: none). Every version is tried, as pip would: free_version is picked. */
static void many_versions_missing(size_t n, const char *dep, const char *free_version)
{
	struct many m = { .n = n, .free_version = free_version };
	assert_int_equal(wp_req_parse(&m.dep, dep, strlen(dep), NULL), 0);
	m.c = wp_xcalloc(n, sizeof(*m.c));
	m.strings = wp_xcalloc(3 * n, sizeof(*m.strings));
	for (size_t i = 0; i < n; i++) {
		char *ver = m.strings[3 * i] = wp_xasprintf("%zu.0", n - i);
		char *fn = m.strings[3 * i + 1] = wp_xasprintf("a-%s-py3-none-any.whl", ver);
		m.c[i] = (struct wp_candidate){
			.project = "a",
			.version = ver,
			.variant = "",
			.kind = "wheel",
			.filename = fn,
			.url = m.strings[3 * i +
					 2] = wp_xasprintf("https://example.test/simple/a/%s", fn),
			.tags = "py3-none-any",
			.size = 1000,
		};
	}
	struct wp_solve_provider p = { .files = m_files, .deps = m_deps, .ctx = &m };
	struct wp_target t;
	struct wp_err e = WP_ERR_INIT;
	set_cpu_target(&t);
	struct wp_reqs req = { 0 };
	assert_int_equal(wp_reqs_add(&req, "a", NULL), 0);
	struct wp_solve_opts o = { 0 };
	struct wp_plan plan;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int rc = wp_solve(&p, req.v, req.n, &t, 1, &o, &plan, &e);
	wp_reqs_release(&req);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (free_version) {
		if (rc != 0)
			fail_msg("%zu versions, only %s free of '%s': rc %d: %s", n, free_version,
				 dep, rc, e.msg);
		assert_int_equal(plan.n, 1);
		assert_string_equal(plan.files[0].version, free_version);
		assert_non_null(strstr(plan.files[0].reason, "more"));
	} else {
		if (rc != -WPE_NOMATCH)
			fail_msg("%zu versions needing '%s': rc %d: %s", n, dep, rc, e.msg);
		if (!strstr(e.msg, "missing"))
			fail_msg("the message does not name the missing project: %s", e.msg);
	}
	if (getenv("WP_SOLVE_SCALE_TIMES"))
		fprintf(stderr, "%zu versions (%s, free %s): %.2f s\n", n, dep,
			free_version ? free_version : "none", secs);
	if (secs > 60) /* well under a second here; minutes when each version was checked against
			  all */
		fail_msg("%zu versions needing a missing project took %.1f s", n, secs);
	/* each version's metadata read once, and no more: not walked again */
	if (m.deps_calls > n + 1)
		fail_msg("the metadata of %u versions was read for %zu", m.deps_calls, n);
	size_t tried = free_version ? n + 1 - strtoul(free_version, NULL, 10) : n; /* n.0 down to it
										    */
	if (m.deps_calls < tried)
		fail_msg("only %u of %zu versions were tried", m.deps_calls, n);
	if (m.files_missing > 1)
		fail_msg("the provider was asked for the missing project %u times",
			 m.files_missing);
	wp_plan_release(&plan);
	for (size_t i = 0; i < 3 * n; i++)
		free(m.strings[i]);
	free(m.strings);
	free(m.c);
	wp_req_release(&m.dep);
}

#ifndef MANY_N
#define MANY_N 20000
#endif
static void test_many_versions_missing_dep(void **state)
{
	many_versions_missing(MANY_N, "missing", NULL);
	many_versions_missing(MANY_N, "missing>=1.0", NULL);
	many_versions_missing(MANY_N / 4, "missing[extra]; python_version >= '3'", NULL);
}

/* Only the oldest of 20,000 versions does without the missing project: it is the pick (a cut-off
 * after a run of versions given up would miss it; pip finds it). */
static void test_many_versions_one_free(void **state)
{
	many_versions_missing(MANY_N, "missing", "1.0");
	many_versions_missing(MANY_N, "missing>=2", "7.0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_web_256),
		cmocka_unit_test(test_web_1000),
		cmocka_unit_test(test_web_10000),
		cmocka_unit_test(test_web_unsolvable),
		cmocka_unit_test(test_web_jump_to_root),
		cmocka_unit_test(test_many_versions_missing_dep),
		cmocka_unit_test(test_many_versions_one_free),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
