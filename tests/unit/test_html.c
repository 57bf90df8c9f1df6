/* tests/unit/test_html.c: find-links and PEP 503 pages, the real PyTorch ones and hostile ones. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <yajl/yajl_tree.h>

#include "base/buf.h"
#include "base/mem.h"
#include "index/html.h"
#include "tests/unit/fixtures.h"

struct rec {
	enum wp_file_kind kind;
	char *filename, *url, *dir, *project, *sha256, *md5, *requires_python, *yanked, *core;
};

struct got {
	struct rec *v;
	size_t n, cap;
	size_t stop_after; /* 0 = never stop */
	bool count_only;
};

static char *dup_or_null(const char *s)
{
	return s ? wp_xstrdup(s) : NULL;
}

static int collect(void *ctx, const struct wp_file_record *r, struct wp_err *err)
{
	struct got *g = ctx;
	if (g->stop_after && g->n == g->stop_after)
		return wp_fail(err, -WPE_CATALOG, "sink is full");
	if (g->count_only) {
		g->n++;
		return 0;
	}
	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 64;
		g->v = wp_xrealloc(g->v, g->cap * sizeof(*g->v));
	}
	g->v[g->n++] = (struct rec){
		r->kind,
		dup_or_null(r->filename),
		dup_or_null(r->url),
		dup_or_null(r->dir),
		dup_or_null(r->project),
		dup_or_null(r->sha256),
		dup_or_null(r->md5),
		dup_or_null(r->requires_python),
		dup_or_null(r->yanked),
		dup_or_null(r->core_metadata),
	};
	return 0;
}

static void got_free(struct got *g)
{
	for (size_t i = 0; i < g->n && !g->count_only; i++) {
		struct rec *r = &g->v[i];
		free(r->filename), free(r->url), free(r->dir), free(r->project), free(r->sha256);
		free(r->md5), free(r->requires_python), free(r->yanked), free(r->core);
	}
	free(g->v);
	memset(g, 0, sizeof(*g));
}

/* Whole file into memory, or NULL when it is not there. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	struct wp_buf b = WP_BUF_INIT;
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		wp_buf_add(&b, chunk, n);
	fclose(f);
	return wp_buf_detach(&b, len);
}

static int read_links(const char *url, const char *project, const char *data, size_t len,
		      struct got *g, struct wp_index_stats *st, struct wp_err *err)
{
	return wp_read_html_links(url, project, data, len, collect, g, st, err);
}

static const struct rec *find(const struct got *g, const char *filename)
{
	for (size_t i = 0; i < g->n; i++)
		if (!strcmp(g->v[i].filename, filename))
			return &g->v[i];
	return NULL;
}

#define assert_str_or_null(a, b) \
	do { if (b) assert_string_equal((a), (b)); else assert_null(a); } while (0)

static void test_torch_stable_2021(void **state)
{
	size_t len;
	char *page = fixture_read("pytorch_index/torch_stable_2021-03-12.html", &len);
	struct got g = { 0 };
	struct wp_index_stats st;
	struct wp_err err = WP_ERR_INIT;
	int rc = read_links("https://download.pytorch.org/whl/torch_stable.html", NULL, page, len,
			    &g, &st, &err);
	if (rc)
		fail_msg("%s", err.msg);
	/* PROVENANCE says 1,498 lines (wc -l); the last line has no newline: 1,499 anchors */
	assert_int_equal(st.links, 1499);
	assert_int_equal(st.records + st.skipped, st.links);
	size_t torch = 0;
	for (size_t i = 0; i < g.n; i++) {
		if (!strncmp(g.v[i].filename, "torch-", 6))
			torch++;
		assert_null(g.v[i].project);
		assert_null(g.v[i].sha256);
		assert_non_null(strstr(g.v[i].url, "https://download.pytorch.org/whl/"));
		assert_null(strchr(g.v[i].url, '+')); /* %2B must survive for S3 */
	}
	assert_int_equal(torch, 777);
	const struct rec *r = find(&g, "torch-1.8.0+cu111-cp39-cp39-linux_x86_64.whl");
	assert_non_null(r);
	assert_int_equal(r->kind, WP_KIND_WHEEL);
	assert_string_equal(r->url,
			    "https://download.pytorch.org/whl/cu111/torch-1.8.0%2Bcu111-cp39-cp39-linux_x86_64.whl");
	assert_string_equal(r->dir, "cu111");
	/* one file name sits in several variant directories: the URL, not the name, is unique */
	size_t same = 0;
	for (size_t i = 0; i < g.n; i++) {
		if (strcmp(g.v[i].filename, "torch-0.4.1-cp27-cp27mu-linux_x86_64.whl"))
			continue;
		same++;
		if (!strcmp(g.v[i].dir, "cu92"))
			assert_string_equal(g.v[i].url,
					    "https://download.pytorch.org/whl/cu92/torch-0.4.1-cp27-cp27mu-linux_x86_64.whl");
	}
	assert_true(same > 1);
	free(page);
	got_free(&g);
}

static void test_whl_simple_torch(void **state)
{
	size_t len;
	char *page = fixture_read("pytorch_index/whl_simple_2023-10-13/torch/index.html", &len);
	struct got g = { 0 };
	struct wp_index_stats st;
	struct wp_err err = WP_ERR_INIT;
	int rc = read_links("https://download.pytorch.org/whl/torch/", "torch", page, len, &g, &st,
			    &err);
	if (rc)
		fail_msg("%s", err.msg);
	assert_int_equal(st.links, 1494);
	assert_int_equal(g.n, 1494);
	size_t hashed = 0;
	for (size_t i = 0; i < g.n; i++) {
		hashed += g.v[i].sha256 != NULL;
		assert_string_equal(g.v[i].project, "torch");
		assert_null(strchr(g.v[i].url, '#'));
	}
	assert_int_equal(hashed, 1128);
	const struct rec *r = find(&g, "torch-2.0.1+cu118-cp310-cp310-linux_x86_64.whl");
	assert_non_null(r);
	assert_string_equal(r->dir, "cu118");
	assert_string_equal(r->sha256,
			    "a7a49d459bf4862f64f7bc1a68beccf8881c2fa9f3e0569608e16ba6f85ebf7b");
	free(page);
	got_free(&g);
}

struct seen {
	size_t n;
	bool torch, jinja;
};

static int seen_sink(void *ctx, const char *name, const char *url, struct wp_err *e)
{
	struct seen *seen = ctx;
	seen->n++;
	if (!strcmp(name, "torch")) {
		assert_string_equal(url, "https://download.pytorch.org/whl/torch/");
		seen->torch = true;
	}
	if (!strcmp(name, "Jinja2")) {
		assert_string_equal(url, "https://download.pytorch.org/whl/Jinja2/");
		seen->jinja = true;
	}
	return 0;
}

static void test_whl_root(void **state)
{
	size_t len;
	char *page = fixture_read("pytorch_index/whl_simple_2023-10-13/index.html", &len);
	struct seen seen = { 0 };
	struct wp_index_stats st;
	struct wp_err err = WP_ERR_INIT;
	int rc = wp_read_html_projects("https://download.pytorch.org/whl/", page, len, seen_sink,
				       &seen, &st, &err);
	if (rc)
		fail_msg("%s", err.msg);
	assert_true(seen.n > 30);
	assert_int_equal(seen.n, st.records);
	assert_int_equal(st.links, st.records);
	assert_true(seen.torch);
	assert_true(seen.jinja);
	free(page);
}

/* One project page of a real snapshot parses, and every link is a file: nothing is malformed. */
static void check_real_page(const char *dir, const char *project)
{
	char *rel = wp_xasprintf("pytorch_index/%s/%s/index.html", dir, project);
	size_t len;
	char *page = fixture_read(rel, &len);
	char *url = wp_xasprintf("https://download.pytorch.org/whl/%s/", project);
	struct got g = { .count_only = true };
	struct wp_index_stats st;
	struct wp_err err = WP_ERR_INIT;
	int rc = read_links(url, project, page, len, &g, &st, &err);
	if (rc)
		fail_msg("%s: %s", rel, err.msg);
	if (st.malformed || st.records != st.links || !st.links)
		fail_msg("%s: %llu links, %llu records, %llu malformed", rel, st.links, st.records,
			 st.malformed);
	free(url);
	free(page);
	free(rel);
}

/* Every page of the 2023 PEP 503 snapshot and the third-party pages parse. */
static void test_all_real_pages(void **state)
{
	static const char *const projects[] = { "cerifi",
						"charset-normalizer",
						"cmake",
						"colorama",
						"fbgemm-gpu",
						"filelock",
						"fsspec",
						"idna",
						"lit",
						"mpmath",
						"networkx",
						"numpy",
						"packaging",
						"pytorch-triton-rocm",
						"requests",
						"sympy",
						"torch",
						"torch-cuda80",
						"torch-model-archiver",
						"torch-nightly",
						"torch-tb-profiler",
						"torchaudio",
						"torchcsprng",
						"torchdata",
						"torchdistx",
						"torchmetrics",
						"torchrec",
						"torchrec-cpu",
						"torchserve",
						"torchtext",
						"torchvision",
						"tqdm",
						"triton",
						"typing-extensions",
						"urllib3" };
	/* the third-party snapshot has pages for these three only */
	static const char *const eternalphane[] = { "torch", "torchaudio", "torchvision" };
	for (size_t i = 0; i < WP_ARRAY_LEN(projects); i++)
		check_real_page("whl_simple_2023-10-13", projects[i]);
	for (size_t i = 0; i < WP_ARRAY_LEN(eternalphane); i++)
		check_real_page("torch_stable_derived_eternalphane/pypi_branch_2024-03-27",
				eternalphane[i]);

	size_t len;
	char *page = fixture_read("pytorch_index/torch_stable_derived_eternalphane/"
				  "torch_stable_2024-03-27_RECONSTRUCTED_torch_torchvision_torchaudio_only.html",
				  &len);
	struct got g = { .count_only = true };
	struct wp_index_stats st;
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(read_links("https://download.pytorch.org/whl/torch_stable.html", NULL,
				    page, len, &g, &st, &err),
			 0);
	assert_int_equal(st.links, 4103);
	assert_int_equal(st.records, 4103);
	free(page);
}

/* PEP 825 (Provisional, revised 2026-08-19): core-metadata, requires-python and yanked mean
 * nothing for a {name}-{version}-variants.json, and tools ignore them: a yanked-looking
 * variants.json still describes the version's wheels. The wheel beside it keeps its own. */
static void test_variants_json_attributes_ignored(void **state)
{
	static const char page[] =
		"<a href=\"torch-2.10.0-variants.json#sha256=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\" data-yanked=\"\" data-requires-python=\"&gt;=3.10\""
		" data-core-metadata=\"true\">torch-2.10.0-variants.json</a>\n"
		"<a href=\"torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-null.whl\" data-yanked=\"old\""
		" data-requires-python=\"&gt;=3.10\">torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-null.whl</a>\n";
	struct got g = { 0 };
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(read_links("https://example.com/simple/torch/", "torch", page,
				    sizeof(page) - 1, &g, NULL, &err),
			 0);
	const struct rec *v = find(&g, "torch-2.10.0-variants.json");
	assert_non_null(v);
	assert_int_equal(v->kind, WP_KIND_VARIANTS);
	assert_null(v->yanked);
	assert_null(v->requires_python);
	assert_null(v->core);
	const struct rec *w = find(&g, "torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-null.whl");
	assert_non_null(w);
	assert_string_equal(w->yanked, "old");
	assert_string_equal(w->requires_python, ">=3.10");
	got_free(&g);
}

static void test_snippets_root_relative(void **state)
{
	static const char *const files[] = { "cu117_mixed_torch_index_excerpt_2025-06.html",
					     "nightly_torch_index_2023-02_test-infra.html" };
	static const size_t want[] = { 5, 8 };
	for (size_t f = 0; f < 2; f++) {
		char *rel = wp_xasprintf("pytorch_index/snippets/%s", files[f]);
		size_t len;
		char *page = fixture_read(rel, &len);
		free(rel);
		struct got g = { 0 };
		struct wp_err err = WP_ERR_INIT;
		assert_int_equal(read_links("https://download.pytorch.org/whl/torch/", "torch",
					    page, len, &g, NULL, &err),
				 0);
		assert_int_equal(g.n, want[f]);
		for (size_t i = 0; i < g.n; i++)
			assert_true(!strncmp(g.v[i].url, "https://download.pytorch.org/whl/", 33));
		if (f == 0) {
			const struct rec *r = find(&g,
						   "torch-1.13.0+cu117-cp310-cp310-win_amd64.whl");
			assert_non_null(r);
			assert_string_equal(r->url,
					    "https://download.pytorch.org/whl/cu117/torch-1.13.0%2Bcu117-cp310-cp310-win_amd64.whl");
			assert_string_equal(r->dir, "cu117");
			assert_string_equal(r->sha256,
					    "a0b87b3c87e16f472aa5c87dd31a071211cdec972de280ad1aacff0d245354f8");
			r = find(&g, "torch-2.0.1-cp38-cp38-manylinux2014_aarch64.whl");
			assert_string_equal(r->url,
					    "https://download.pytorch.org/whl/torch-2.0.1-cp38-cp38-manylinux2014_aarch64.whl");
			assert_string_equal(r->dir, "whl");
		} else {
			assert_string_equal(g.v[4].dir, "rocm5.3");
			assert_null(g.v[4].sha256);
		}
		free(page);
		got_free(&g);
	}
}

/* The uv parser's edge cases, with what wheelpick makes of each. */
static void check_uv_case(const char *name, const struct got *g, const struct wp_index_stats *st)
{
	const char *jinja = "https://download.pytorch.org/whl/Jinja2-3.1.2-py3-none-any.whl";
	const char *sha = "6088930bfe239f0e6710546ab9c19c9ef35e29792895fed6e6e31a023a182a61";
	if (!strcmp(name, "parse_sha256")) {
		assert_int_equal(g->n, 1);
		assert_string_equal(g->v[0].url, jinja);
		assert_string_equal(g->v[0].filename, "Jinja2-3.1.2-py3-none-any.whl");
		assert_string_equal(g->v[0].sha256, sha);
		assert_string_equal(g->v[0].dir, "whl");
	} else if (!strcmp(name, "parse_md5")) {
		/* 64 hex digits cannot be an md5: the link is broken, not merely unhashed */
		assert_int_equal(g->n, 0);
		assert_int_equal(st->malformed, 1);
	} else if (!strcmp(name, "parse_base")) {
		assert_int_equal(g->n, 1);
		assert_string_equal(g->v[0].url,
				    "https://index.python.org/whl/Jinja2-3.1.2-py3-none-any.whl");
	} else if (!strcmp(name, "parse_escaped_fragment")) {
		assert_int_equal(g->n, 1);
		assert_string_equal(g->v[0].filename, "Jinja2-3.1.2+233fca715f49-py3-none-any.whl");
		assert_string_equal(g->v[0].url,
				    "https://download.pytorch.org/whl/Jinja2-3.1.2+233fca715f49-py3-none-any.whl");
		assert_string_equal(g->v[0].sha256, sha);
	} else if (!strcmp(name, "parse_encoded_fragment")) {
		assert_int_equal(g->n, 1);
		assert_string_equal(g->v[0].url, jinja);
		assert_string_equal(g->v[0].sha256,
				    "4095ada29e51070f7d199a0a5bdf5c8d8e238e03f0bf4dcc02571e78c9ae800d");
	} else if (!strcmp(name, "parse_quoted_filepath")) {
		assert_int_equal(g->n, 1);
		assert_string_equal(g->v[0].url,
				    "https://download.pytorch.org/whl/jinja2/cpu/torchtext-0.17.0%2Bcpu-cp39-cp39-win_amd64.whl");
		assert_string_equal(g->v[0].filename,
				    "torchtext-0.17.0+cpu-cp39-cp39-win_amd64.whl");
		assert_string_equal(g->v[0].dir, "cpu");
	} else if (!strcmp(name, "parse_missing_hash") || !strcmp(name, "parse_empty_fragment") ||
		   !strcmp(name, "parse_unknown_fragment") || !strcmp(name, "parse_egg_fragment") ||
		   !strcmp(name, "parse_unknown_hash")) {
		assert_int_equal(g->n, 1);
		assert_string_equal(g->v[0].url, jinja);
		assert_null(g->v[0].sha256);
		assert_null(g->v[0].md5);
	} else if (!strcmp(name, "parse_empty_href")) {
		assert_int_equal(g->n, 0);
		assert_int_equal(st->links, 1);
		assert_int_equal(st->malformed, 1);
	} else if (!strcmp(name, "parse_query_string")) {
		assert_int_equal(g->n, 1);
		assert_string_equal(g->v[0].url,
				    "https://download.pytorch.org/whl/Jinja2-3.1.2-py3-none-any.whl?project=legacy");
		assert_string_equal(g->v[0].filename, "Jinja2-3.1.2-py3-none-any.whl");
	} else if (!strcmp(name, "parse_flat_index_html")) {
		/* the extracted input runs on into the next uv test's page: 2 jaxlib wheels, 3
		 * flask sdists */
		assert_int_equal(g->n, 5);
		assert_string_equal(g->v[0].url,
				    "https://storage.googleapis.com/jax-releases/cuda100/jaxlib-0.1.52+cuda100-cp36-none-manylinux2010_x86_64.whl");
		assert_string_equal(g->v[0].filename,
				    "jaxlib-0.1.52+cuda100-cp36-none-manylinux2010_x86_64.whl");
		assert_string_equal(g->v[0].dir, "cuda100");
		assert_string_equal(g->v[2].url,
				    "https://account.d.codeartifact.us-west-2.amazonaws.com/pypi/shared-packages-pypi/simple/flask/0.1/Flask-0.1.tar.gz");
		assert_int_equal(g->v[2].kind, WP_KIND_SDIST);
		assert_string_equal(g->v[4].requires_python, ">=3.8");
	} else if (!strcmp(name, "parse_file_requires_python_trailing_comma")) {
		assert_int_equal(g->n, 1);
		assert_string_equal(g->v[0].requires_python, ">=3.8,");
	} else if (!strcmp(name, "parse_core_metadata")) {
		assert_int_equal(g->n, 5);
		assert_str_or_null(g->v[0].core, "true");
		assert_str_or_null(g->v[1].core, "true");
		assert_null(g->v[2].core);
		assert_null(g->v[3].core);
		assert_str_or_null(g->v[4].core, "true"); /* PEP 714: data-core-metadata wins */
	} else {
		fail_msg("uv case '%s' has no expectation here", name);
	}
}

static void test_uv_cases(void **state)
{
	size_t len;
	char *json = fixture_read("pytorch_index/uv_html_parser_test_inputs.json", &len);
	char errbuf[256];
	yajl_val root = yajl_tree_parse(json, errbuf, sizeof(errbuf));
	assert_non_null(root);
	const char *cases_path[] = { "cases", NULL };
	yajl_val cases = yajl_tree_get(root, cases_path, yajl_t_array);
	assert_non_null(cases);
	assert_int_equal(YAJL_GET_ARRAY(cases)->len, 16);
	for (size_t i = 0; i < YAJL_GET_ARRAY(cases)->len; i++) {
		yajl_val c = YAJL_GET_ARRAY(cases)->values[i];
		const char *tp[] = { "test", NULL }, *bp[] = { "base_url", NULL },
			   *hp[] = { "html", NULL };
		const char *name = YAJL_GET_STRING(yajl_tree_get(c, tp, yajl_t_string));
		const char *base = YAJL_GET_STRING(yajl_tree_get(c, bp, yajl_t_string));
		const char *html = YAJL_GET_STRING(yajl_tree_get(c, hp, yajl_t_string));
		struct got g = { 0 };
		struct wp_index_stats st;
		struct wp_err err = WP_ERR_INIT;
		int rc = read_links(base, NULL, html, strlen(html), &g, &st, &err);
		if (rc)
			fail_msg("uv case '%s': %s", name, err.msg);
		assert_int_equal(st.records + st.skipped, st.links);
		check_uv_case(name, &g, &st);
		got_free(&g);
	}
	yajl_tree_free(root);
	free(json);
}

static char *fixture(const char *name, size_t *len)
{
	char *path = wp_xasprintf("tests/fixtures/index/%s", name);
	char *s = slurp(path, len);
	if (!s)
		fail_msg("fixture '%s' is missing (run from the repository root)", path);
	free(path);
	return s;
}

static void test_pep503_attributes(void **state)
{
	size_t len;
	char *page = fixture("pep503_attrs.html", &len);
	struct got g = { 0 };
	struct wp_index_stats st;
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(read_links("https://pypi.example.org/simple/demo/", "demo", page, len, &g,
				    &st, &err),
			 0);
	assert_int_equal(st.links, 14);
	assert_int_equal(st.records, 10);
	assert_int_equal(st.skipped, 4);
	assert_int_equal(st.malformed, 2);
	assert_int_equal(g.n, 10);
	const struct rec *r = find(&g, "demo-1.0.tar.gz");
	assert_string_equal(r->url, "https://pypi.example.org/packages/demo-1.0.tar.gz");
	assert_int_equal(r->kind, WP_KIND_SDIST);
	assert_string_equal(r->sha256,
			    "0000000000000000000000000000000000000000000000000000000000000001");
	assert_string_equal(r->project, "demo");
	assert_null(r->yanked);
	r = find(&g, "demo-1.1-py3-none-any.whl");
	assert_string_equal(r->md5, "0123456789abcdef0123456789abcdef");
	assert_string_equal(r->requires_python, ">=3.8,<4");
	assert_string_equal(find(&g, "demo-1.2-py3-none-any.whl")->yanked, "");
	assert_string_equal(find(&g, "demo-1.3-py3-none-any.whl")->yanked, "broken \"ABI\"");
	assert_string_equal(find(&g, "demo-1.4-py3-none-any.whl")->core,
			    "sha256=00000000000000000000000000000000000000000000000000000000000000ab");
	assert_string_equal(find(&g, "demo-1.5-py3-none-any.whl")->core,
			    "sha256=00000000000000000000000000000000000000000000000000000000000000cd");
	for (const char *const *s =
		     (const char *const[]){ "demo-1.6.tgz", "demo-1.6.zip", "demo-1.6.tar.bz2",
					    "demo-1.6.tar.xz", NULL };
	     *s; s++)
		assert_int_equal(find(&g, *s)->kind, WP_KIND_SDIST);
	free(page);
	got_free(&g);
}

struct names {
	size_t n;
	char *name[8], *url[8];
};

static int names_sink(void *ctx, const char *name, const char *url, struct wp_err *err)
{
	struct names *ns = ctx;
	if (ns->n < 8) {
		ns->name[ns->n] = wp_xstrdup(name);
		ns->url[ns->n] = wp_xstrdup(url);
	}
	ns->n++;
	return 0;
}

static void test_root_page(void **state)
{
	size_t len;
	char *page = fixture("root_simple.html", &len);
	struct names ns = { 0 };
	struct wp_index_stats st;
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_read_html_projects("https://pypi.example.org/simple/", page, len,
					       names_sink, &ns, &st, &err),
			 0);
	assert_int_equal(ns.n, 4);
	assert_int_equal(st.malformed, 2);
	assert_string_equal(ns.name[0], "torch");
	assert_string_equal(ns.url[0], "https://pypi.example.org/simple/torch/");
	assert_string_equal(ns.name[2], "nvidia-cudnn-cu12");
	assert_string_equal(ns.url[2], "https://pypi.example.org/simple/nvidia-cudnn-cu12/");
	assert_string_equal(ns.name[3], "Jinja2");
	for (size_t i = 0; i < 4; i++)
		free(ns.name[i]), free(ns.url[i]);
	free(page);

	/* a links page read as a root page names no projects, even where a file name could be
	 * one */
	page = fixture("pep503_attrs.html", &len);
	memset(&ns, 0, sizeof(ns));
	assert_int_equal(wp_read_html_projects("https://pypi.example.org/simple/demo/", page, len,
					       names_sink, &ns, &st, &err),
			 0);
	assert_int_equal(ns.n, 0);
	assert_int_equal(st.records, 0);
	free(page);
}

static void expect_not_index(const char *what, const char *data, size_t len, int code,
			     const char *in_msg)
{
	struct got g = { 0 };
	struct wp_err err = WP_ERR_INIT;
	int rc = read_links("https://mirror.example.org/whl/torch/", NULL, data, len, &g, NULL,
			    &err);
	if (rc != code)
		fail_msg("%s: got %d (%s), want %d", what, rc, err.msg, code);
	if (!strstr(err.msg, in_msg))
		fail_msg("%s: message '%s' lacks '%s'", what, err.msg, in_msg);
	got_free(&g);
}

static void test_not_an_index(void **state)
{
	size_t len;
	char *p = fixture("cloudflare_challenge.html", &len);
	expect_not_index("bot challenge", p, len, -WPE_SOURCE, "Just a moment...");
	expect_not_index("bot challenge", p, len, -WPE_SOURCE,
			 "'https://mirror.example.org/whl/torch/'");
	free(p);
	p = fixture("nginx_404.html", &len);
	expect_not_index("404 page", p, len, -WPE_SOURCE, "404 Not Found");
	free(p);
	p = fixture("repo_version_2.html", &len);
	expect_not_index("PEP 629 v2", p, len, -WPE_SOURCE, "repository version '2.0'");
	free(p);
	expect_not_index("NUL bytes", "<a href=\"x.whl\">x</a>\0\0\0", 25, -WPE_SOURCE, "binary");
	expect_not_index("plain text", "Service Unavailable", 19, -WPE_SOURCE, "no package links");
	expect_not_index("JSON", "{\"meta\":{\"api-version\":\"1.0\"},\"files\":[]}", 41,
			 -WPE_SOURCE, "not an index");

	unsigned char junk[4096];
	unsigned x = 12345;
	for (size_t i = 0; i < sizeof(junk); i++) {
		x = x * 1103515245u + 12345u;
		junk[i] = (unsigned char)(0x80 | (x >> 16));
	}
	expect_not_index("binary junk", (const char *)junk, sizeof(junk), -WPE_SOURCE, "UTF-8");

	/* A PEP 503 page with no files yet, and an empty body, are fine */
	struct got g = { 0 };
	struct wp_err err = WP_ERR_INIT;
	p = fixture("empty_pep503.html", &len);
	assert_int_equal(read_links("https://h/simple/x/", "x", p, len, &g, NULL, &err), 0);
	assert_int_equal(g.n, 0);
	free(p);
	assert_int_equal(read_links("https://h/simple/x/", "x", "", 0, &g, NULL, &err), 0);
	assert_int_equal(read_links("https://h/simple/x/", "x", NULL, 0, &g, NULL, &err), 0);
	/* a page URL that is not absolute is the caller's mistake */
	assert_int_equal(read_links("whl/torch/", NULL, "", 0, &g, NULL, &err), -WPE_USAGE);
}

static void test_million_links(void **state)
{
	struct wp_buf b = WP_BUF_INIT;
	for (int i = 0; i < 1000000; i++)
		wp_buf_printf(&b, "<a href=\"cu%d/t-%d.whl\">t</a>\n", i % 7, i);
	struct got g = { .count_only = true };
	struct wp_index_stats st;
	struct wp_err err = WP_ERR_INIT;
	clock_t t0 = clock();
	assert_int_equal(read_links("https://h/whl/torch_stable.html", NULL, b.data, b.len, &g, &st,
				    &err),
			 0);
	double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	assert_int_equal(g.n, 1000000);
	assert_int_equal(st.links, 1000000);
	assert_true(secs < 20.0);
	wp_buf_free(&b);
}

static void test_hostile(void **state)
{
	struct wp_buf b = WP_BUF_INIT;
	struct got g = { 0 };
	struct wp_index_stats st;
	struct wp_err err = WP_ERR_INIT;

	for (int i = 0; i < 100000; i++)
		wp_buf_addstr(&b, "<div>");
	wp_buf_addstr(&b, "<a href=\"x.whl\">x</a>");
	clock_t t0 = clock();
	assert_int_equal(read_links("https://h/", NULL, b.data, b.len, &g, &st, &err), -WPE_SOURCE);
	assert_non_null(strstr(err.msg, "nest"));
	assert_true((double)(clock() - t0) / CLOCKS_PER_SEC < 5.0);

	/* too many anchors: refused before the sink sees two million of them */
	wp_buf_free(&b);
	for (int i = 0; i < WP_HTML_MAX_ANCHORS + 1; i++)
		wp_buf_addstr(&b, "<a>");
	wp_err_clear(&err);
	assert_int_equal(read_links("https://h/", NULL, b.data, b.len, &g, &st, &err),
			 -WPE_TOO_BIG);

	/* an 8 KiB+ href is skipped and counted, the page goes on */
	wp_buf_free(&b);
	wp_buf_addstr(&b, "<a href=\"");
	for (int i = 0; i < 9000; i++)
		wp_buf_addch(&b, 'a');
	wp_buf_addstr(&b, ".whl\">long</a><a href=\"ok-1.0.tar.gz\">ok</a>");
	wp_err_clear(&err);
	assert_int_equal(read_links("https://h/", NULL, b.data, b.len, &g, &st, &err), 0);
	assert_int_equal(st.links, 2);
	assert_int_equal(st.malformed, 1);
	assert_int_equal(g.n, 1);

	/* refused on the length alone, before any byte is read */
	wp_err_clear(&err);
	assert_int_equal(read_links("https://h/", NULL, b.data, WP_HTML_MAX_BYTES + 1, &g, &st,
				    &err),
			 -WPE_TOO_BIG);

	/* the sink stops the reader, and its code comes back unchanged */
	got_free(&g);
	g.stop_after = 1;
	wp_buf_free(&b);
	wp_buf_addstr(&b,
		      "<a href=\"a-1.whl\">a</a><a href=\"b-1.whl\">b</a><a href=\"c-1.whl\">c</a>");
	wp_err_clear(&err);
	assert_int_equal(read_links("https://h/", NULL, b.data, b.len, &g, &st, &err),
			 -WPE_CATALOG);
	assert_string_equal(err.msg, "sink is full");
	assert_int_equal(g.n, 1);

	/* unclosed tags, stray quotes and bad entities do not crash or loop */
	static const char *const messy[] = {
		"<a href=\"x-1.whl",
		"<a href='y-1.whl'>",
		"<a href=z-1.whl>",
		"<<<a href=\"&bogus;q-1.whl\">",
		"<a href=\"&#0;&#xD800;r-1.whl\">",
		"<!-- <a href=\"c-1.whl\"> -->",
		"<script><a href=s-1.whl></script>",
		"<![CDATA[<a href=d-1.whl>]]>",
		"<a href=\"\xc3\xa9-1.whl\">",
	};
	for (size_t i = 0; i < sizeof(messy) / sizeof(messy[0]); i++) {
		struct got m = { 0 };
		wp_err_clear(&err);
		int rc = read_links("https://h/", NULL, messy[i], strlen(messy[i]), &m, &st, &err);
		assert_true(rc == 0 || rc == -WPE_SOURCE);
		assert_int_equal(st.records + st.skipped, st.links);
		got_free(&m);
	}
	got_free(&g);
	wp_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_torch_stable_2021),
		cmocka_unit_test(test_whl_simple_torch),
		cmocka_unit_test(test_whl_root),
		cmocka_unit_test(test_all_real_pages),
		cmocka_unit_test(test_snippets_root_relative),
		cmocka_unit_test(test_variants_json_attributes_ignored),
		cmocka_unit_test(test_uv_cases),
		cmocka_unit_test(test_pep503_attributes),
		cmocka_unit_test(test_root_page),
		cmocka_unit_test(test_not_an_index),
		cmocka_unit_test(test_million_links),
		cmocka_unit_test(test_hostile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
