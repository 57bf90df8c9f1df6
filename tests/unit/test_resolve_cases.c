/* tests/unit/test_resolve_cases.c: runs every tests/resolve/NAME.t case through the picking rule.
 *
 * One case per file, one directive per line ('#' starts a comment):
 *   target    cuda=11.2|cpu driver=535.104.05 strict xpu rocm=5.7 python=3.8 platform=TAG gpu=sm_86
 * pre intel=20.1.0|bmg-g21 x86=v3 (gpu=gfx942 names an AMD GPU) file      DIR/NAME.whl
 * [requires_python=SPEC] [yanked]   (percent-encoded, as an href) findlinks PATH   every link of a
 * real find-links page under tests/fixtures/real (a missing page fails the case; $WP_TEST_REAL_DATA
 * points elsewhere) simple    PATH   every link of a real PEP 503 page there request PROJECT[SPEC]
 *   expect    DIR/NAME.whl | none
 *   message   TEXT   the "nothing fits" message contains TEXT
 *   reason    TEXT   the pick's reason contains TEXT
 *   rejected  DIR/NAME.whl TEXT   that file was rejected with a reason containing TEXT
 *   variants  PATH   a real PEP 825 {name}-{version}-variants.json under tests/fixtures/real (the
 * part after the last "__" names it): the metadata of that project and version's
 * files */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "index/html.h"
#include "index/variants.h"
#include "base/url.h"
#include "resolver/fileinfo.h"
#include "resolver/pick.h"
#include "resolver/pickmemo.h"
#include "resolver/specifier.h"
#include "resolver/tags.h"
#include "resolver/wheelname.h"
#include "tests/unit/fixtures.h"

struct row {
	char *path; /* decoded DIR/NAME */
	struct wp_fileinfo fi;
	char *url, *requires_python, *yanked;
	bool conflict; /* "conflict": its bytes are not those first trusted for its name */
};

struct rows {
	struct row *v;
	size_t n;
};

static void add_row(struct rows *rs, const char *dir, const char *name, const char *url,
		    const char *rp, const char *yanked)
{
	struct wp_err e = WP_ERR_INIT;
	struct row r = { 0 };
	if (wp_fileinfo_from_name(name, dir, &r.fi, &e) < 0)
		return; /* not a wheel or sdist name: the crawler skips it too */
	r.path = dir && *dir ? wp_xasprintf("%s/%s", dir, name) : wp_xstrdup(name);
	r.url = wp_xstrdup(url);
	r.requires_python = rp ? wp_xstrdup(rp) : NULL;
	r.yanked = yanked ? wp_xstrdup(yanked) : NULL;
	rs->v = wp_xrealloc(rs->v, (rs->n + 1) * sizeof(*rs->v));
	rs->v[rs->n++] = r;
}

static int sink(void *ctx, const struct wp_file_record *rec, struct wp_err *err)
{
	add_row(ctx, rec->dir, rec->filename, rec->url, rec->requires_python, rec->yanked);
	return 0;
}

/* A real page (tests/unit/fixtures.h: vendored, or under $WP_TEST_REAL_DATA; a missing one
 * fails). */
static void load_page(struct rows *rs, const char *rel, const char *base, const char *project)
{
	size_t len;
	char *text = fixture_read(rel, &len);
	struct wp_err e = WP_ERR_INIT;
	if (wp_read_html_links(base, project, text, len, sink, rs, NULL, &e))
		fail_msg("reading '%s': %s", rel, e.msg);
	free(text);
}

static char *decode(const char *s)
{
	char *out = NULL;
	struct wp_err e = WP_ERR_INIT;
	if (wp_url_decode(s, strlen(s), &out, &e) < 0)
		fail_msg("bad percent-encoding in '%s'", s);
	return out;
}

static char *rest_after(char *line, const char *word)
{
	size_t n = strlen(word);
	if (strncmp(line, word, n) != 0 || (line[n] != ' ' && line[n] != '\t'))
		return NULL;
	line += n;
	while (*line == ' ' || *line == '\t')
		line++;
	return line;
}

static bool same_text(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Two picks of the same files agree in everything they say. */
static void same_result(const char *file, const char *how, const struct wp_pick_result *a,
			const struct wp_pick_result *b)
{
	if (a->chosen != b->chosen || a->needs_metadata != b->needs_metadata ||
	    a->untrusted != b->untrusted || a->n_pending != b->n_pending ||
	    a->n_rejects != b->n_rejects || !same_text(a->reason, b->reason) ||
	    !same_text(a->message, b->message) || wp_variant_cmp(&a->variant, &b->variant) != 0)
		fail_msg("%s: %s: chose %ld (%s), without it %ld (%s)", file, how, b->chosen,
			 b->reason ? b->reason : b->message ? b->message : "-", a->chosen,
			 a->reason ? a->reason : a->message ? a->message : "-");
	for (size_t k = 0; k < a->n_rejects; k++)
		if (a->rejects[k].index != b->rejects[k].index ||
		    !same_text(a->rejects[k].why, b->rejects[k].why))
			fail_msg("%s: %s: reject %zu says '%s', without it '%s'", file, how, k,
				 b->rejects[k].why, a->rejects[k].why);
}

static void run_case(void **state)
{
	const char *file = *state;
	FILE *f = fopen(file, "r");
	assert_non_null(f);
	struct wp_target t;
	struct rows rs = { 0 };
	char line[4096], *req_text = NULL, *expect = NULL;
	char *messages[16], *reasons[16], *rejected[16];
	size_t n_msg = 0, n_reason = 0, n_rej = 0;
	struct wp_err e = WP_ERR_INIT;
	bool pre = false;
	struct vfile {
		struct wp_variants v;
		struct wp_fileinfo fi;
	} vfiles[8];
	size_t n_vfiles = 0;

	wp_target_init(&t);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = 0;
		char *a;
		if (line[0] == '#' || line[0] == 0)
			continue;
		if ((a = rest_after(line, "target"))) {
			for (char *save = NULL, *w = strtok_r(a, " \t", &save); w;
			     w = strtok_r(NULL, " \t", &save)) {
				int rc = 0;
				if (!strncmp(w, "cuda=", 5))
					rc = wp_target_set_cuda(&t, w + 5, &e);
				else if (!strncmp(w, "rocm=", 5))
					rc = wp_target_set_rocm(&t, w + 5, &e);
				else if (!strncmp(w, "python=", 7))
					rc = wp_target_set_python(&t, w + 7, &e);
				else if (!strncmp(w, "platform=", 9))
					rc = wp_target_set_platform(&t, w + 9, &e);
				else if (!strncmp(w, "gpu=", 4))
					rc = wp_target_add_gpu(&t, w + 4, &e);
				else if (!strncmp(w, "driver=", 7))
					rc = wp_target_set_driver(&t, w + 7, &e);
				else if (!strcmp(w, "strict"))
					rc = wp_target_set_cuda_compat(&t, "strict", &e);
				else if (!strcmp(w, "xpu"))
					wp_target_set_xpu(&t);
				else if (!strncmp(w, "intel=", 6))
					rc = wp_target_add_intel_ip(&t, w + 6, &e);
				else if (!strncmp(w, "x86=", 4))
					rc = wp_target_set_x86_64_level(&t, w + 4, &e);
				else if (!strcmp(w, "pre"))
					pre = true;
				else
					fail_msg("%s: unknown target word '%s'", file, w);
				if (rc)
					fail_msg("%s: %s", file, e.msg);
			}
		} else if ((a = rest_after(line, "file"))) {
			char *save = NULL, *href = strtok_r(a, " \t", &save), *rp = NULL,
			     *yanked = NULL;
			bool conflict = false;
			for (char *w; (w = strtok_r(NULL, " \t", &save));) {
				if (!strncmp(w, "requires_python=", 16))
					rp = w + 16;
				else if (!strcmp(w, "yanked"))
					yanked = "";
				else if (!strcmp(w, "conflict"))
					conflict = true;
			}
			char *dec = decode(href), *slash = strrchr(dec, '/');
			char *url = wp_xasprintf("https://example.test/whl/%s", href);
			if (slash)
				*slash = 0;
			add_row(&rs, slash ? dec : NULL, slash ? slash + 1 : dec, url, rp, yanked);
			if (conflict && rs.n)
				rs.v[rs.n - 1].conflict = true;
			free(url);
			free(dec);
		} else if ((a = rest_after(line, "findlinks"))) {
			load_page(&rs, a, "https://download.pytorch.org/whl/torch_stable.html",
				  NULL);
		} else if ((a = rest_after(line, "simple"))) {
			load_page(&rs, a, "https://download.pytorch.org/whl/torch/", NULL);
		} else if ((a = rest_after(line, "variants")) && n_vfiles < 8) {
			size_t len;
			char *text = fixture_read(a, &len);
			const char *base = strrchr(a, '/') ? strrchr(a, '/') + 1 : a;
			while (strstr(base, "__"))
				base = strstr(base, "__") + 2;
			struct vfile *vf = &vfiles[n_vfiles];
			if (wp_fileinfo_from_name(base, NULL, &vf->fi, &e) < 0 ||
			    strcmp(vf->fi.kind, "variants") != 0)
				fail_msg("%s: '%s' is not {name}-{version}-variants.json", file,
					 base);
			if (wp_variants_parse(a, text, len, &vf->v, &e) < 0)
				fail_msg("%s: %s", file, e.msg);
			free(text);
			n_vfiles++;
		} else if ((a = rest_after(line, "request"))) {
			req_text = wp_xstrdup(a);
		} else if ((a = rest_after(line, "expect"))) {
			expect = wp_xstrdup(a);
		} else if ((a = rest_after(line, "message")) && n_msg < 16) {
			messages[n_msg++] = wp_xstrdup(a);
		} else if ((a = rest_after(line, "reason")) && n_reason < 16) {
			reasons[n_reason++] = wp_xstrdup(a);
		} else if ((a = rest_after(line, "rejected")) && n_rej < 16) {
			rejected[n_rej++] = wp_xstrdup(a);
		} else {
			fail_msg("%s: cannot read line '%s'", file, line);
		}
	}
	fclose(f);
	assert_non_null(req_text);
	if (wp_target_finish(&t, &e) < 0)
		fail_msg("%s: %s", file, e.msg);
	assert_non_null(expect);

	/* request: PROJECT then an optional specifier set */
	size_t nl = strcspn(req_text, "<>=!~ [;");
	struct wp_buf proj = WP_BUF_INIT;
	wp_project_name_normalize(req_text, nl, &proj);
	struct wp_specset spec;
	if (wp_specset_parse(&spec, req_text + nl, strlen(req_text + nl), &e) < 0)
		fail_msg("%s: request '%s': %s", file, req_text, e.msg);

	struct wp_candidate *cands = wp_xcalloc(rs.n ? rs.n : 1, sizeof(*cands));
	size_t nc = 0;
	size_t *map = wp_xcalloc(rs.n ? rs.n : 1, sizeof(*map));
	for (size_t i = 0; i < rs.n; i++) {
		if (strcmp(rs.v[i].fi.project, proj.data) != 0)
			continue;
		struct wp_candidate *c = &cands[nc];
		c->project = rs.v[i].fi.project;
		c->version = rs.v[i].fi.version;
		c->variant = rs.v[i].fi.variant;
		c->kind = rs.v[i].fi.kind;
		c->filename = strrchr(rs.v[i].path, '/') ? strrchr(rs.v[i].path, '/') + 1 :
							   rs.v[i].path;
		c->url = rs.v[i].url;
		c->requires_python = rs.v[i].requires_python;
		c->yanked = rs.v[i].yanked;
		if (rs.v[i].conflict) {
			c->sha256 = "1111111111111111111111111111111111111111111111111111111111111111";
			c->hash_conflict =
				"2222222222222222222222222222222222222222222222222222222222222222";
		}
		c->size = -1;
		for (size_t v = 0; v < n_vfiles; v++)
			if (!strcmp(vfiles[v].fi.project, c->project) &&
			    !strcmp(vfiles[v].fi.version, c->version))
				c->variants = &vfiles[v].v;
		map[nc++] = i;
	}
	struct wp_tagset ts = WP_TAGSET_INIT;
	if (wp_tagset_build(&ts, &t, &e) < 0)
		fail_msg("%s: %s", file, e.msg);
	struct wp_pick_request req = {
		.project = proj.data,
		.spec_text = req_text + nl,
		.spec = &spec,
		.pre = pre,
		.reasons = true,
	};
	struct wp_pick_result res;
	assert_int_equal(wp_pick(cands, nc, &req, &t, &ts, &res, &e), 0);

	char *want = strcmp(expect, "none") ? decode(expect) : NULL;
	const char *got = res.chosen >= 0 ? rs.v[map[res.chosen]].path : NULL;
	if (!want && got)
		fail_msg("%s: expected nothing, got '%s'", file, got);
	if (want && !got)
		fail_msg("%s: expected '%s', got nothing: %s", file, want, res.message);
	if (want && strcmp(want, got) != 0)
		fail_msg("%s: expected '%s', got '%s' (%s)", file, want, got, res.reason);
	for (size_t i = 0; i < n_msg; i++)
		if (!res.message || !strstr(res.message, messages[i]))
			fail_msg("%s: message '%s' lacks '%s'", file,
				 res.message ? res.message : "(none)", messages[i]);
	for (size_t i = 0; i < n_reason; i++)
		if (!res.reason || !strstr(res.reason, reasons[i]))
			fail_msg("%s: reason '%s' lacks '%s'", file,
				 res.reason ? res.reason : "(none)", reasons[i]);
	for (size_t i = 0; i < n_rej; i++) {
		char *sp = strchr(rejected[i], ' ');
		assert_non_null(sp);
		*sp = 0;
		char *path = decode(rejected[i]);
		bool found = false;
		for (size_t k = 0; k < res.n_rejects; k++) {
			if (!strcmp(rs.v[map[res.rejects[k].index]].path, path)) {
				found = true;
				if (!strstr(res.rejects[k].why, sp + 1))
					fail_msg("%s: '%s' rejected for '%s', wanted '%s'", file,
						 path, res.rejects[k].why, sp + 1);
			}
		}
		if (!found)
			fail_msg("%s: '%s' was not rejected", file, path);
		free(path);
		free(rejected[i]);
	}
	/* the same pick through a memo (resolver/pickmemo.h: the solver keeps one per project for
	 * all its targets), once filling it and once from it: nothing it says may differ */
	struct wp_pick_memo memo = { 0 };
	req.memo = &memo;
	for (int pass = 0; pass < 2; pass++) {
		struct wp_pick_result mr;
		assert_int_equal(wp_pick(cands, nc, &req, &t, &ts, &mr, &e), 0);
		same_result(file, pass ? "from the memo" : "filling the memo", &res, &mr);
		wp_pick_result_release(&mr);
	}
	/* a memo made for other files at each index (the list reversed) is checked, not trusted */
	struct wp_candidate *rev = wp_xcalloc(nc ? nc : 1, sizeof(*rev));
	for (size_t i = 0; i < nc; i++)
		rev[i] = cands[nc - 1 - i];
	struct wp_pick_result r0, r1;
	req.memo = NULL;
	assert_int_equal(wp_pick(rev, nc, &req, &t, &ts, &r0, &e), 0);
	req.memo = &memo;
	assert_int_equal(wp_pick(rev, nc, &req, &t, &ts, &r1, &e), 0);
	same_result(file, "reversed, through a memo of the list in order", &r0, &r1);
	wp_pick_result_release(&r0);
	wp_pick_result_release(&r1);
	free(rev);
	wp_pick_memo_release(&memo);
	for (size_t i = 0; i < n_msg; i++)
		free(messages[i]);
	for (size_t i = 0; i < n_reason; i++)
		free(reasons[i]);
	free(want);
	wp_pick_result_release(&res);
	wp_tagset_release(&ts);
	wp_specset_release(&spec);
	wp_buf_free(&proj);
	free(cands);
	free(map);
	for (size_t i = 0; i < rs.n; i++) {
		wp_fileinfo_release(&rs.v[i].fi);
		free(rs.v[i].path);
		free(rs.v[i].url);
		free(rs.v[i].requires_python);
		free(rs.v[i].yanked);
	}
	free(rs.v);
	for (size_t v = 0; v < n_vfiles; v++) {
		wp_variants_release(&vfiles[v].v);
		wp_fileinfo_release(&vfiles[v].fi);
	}
	free(req_text);
	free(expect);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
	const char *dirname = "tests/resolve";
	DIR *d = opendir(dirname);
	if (!d) {
		fprintf(stderr, "cannot open %s (run from the repository root)\n", dirname);
		return 1;
	}
	char **names = NULL;
	size_t n = 0;
	for (struct dirent *de; (de = readdir(d));) {
		size_t l = strlen(de->d_name);
		if (l > 2 && !strcmp(de->d_name + l - 2, ".t")) {
			names = wp_xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = wp_xasprintf("%s/%s", dirname, de->d_name);
		}
	}
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	struct CMUnitTest *tests = wp_xcalloc(n ? n : 1, sizeof(*tests));
	for (size_t i = 0; i < n; i++) {
		tests[i].name = names[i];
		tests[i].test_func = run_case;
		tests[i].initial_state = names[i];
	}
	int rc = _cmocka_run_group_tests("resolve_cases", tests, n, NULL, NULL);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(tests);
	return rc;
}
