/* tests/unit/test_mirror.c: PEP 503/691 mirror and conda channel writing; pip through nginx; kill
 * -9. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/unit/tmpdir.h"

#include "tests/unit/readfile.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/mem.h"
#include "index/html.h"
#include "index/pep691.h"
#include "index/repodata.h"
#include "ops/conda/channel.h"
#include "ops/publish/mirror.h"
#include "ops/verify/outputs.h"
#include "verify/hash.h"

#define DEMO "demo_pkg-1.0-py3-none-any.whl"
#define TORCH_CU111 "torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl"

/* One generated tree per run: mkwheels.py's wheels under w/, mksample.py's under s/. */
static char root[64];
static char shm[64]; /* the kill -9 test's tree, when /dev/shm takes one */

struct tf {
	struct wp_mirror_file f;
	char sha[WP_SHA256_HEX_LEN + 1];
	char *path;
	char *project;
};

static void tf_init(struct tf *t, const char *project, const char *path)
{
	long long size = -1;
	memset(t, 0, sizeof(*t));
	t->path = wp_xstrdup(path);
	t->project = wp_xstrdup(project);
	assert_int_equal(wp_hash_file(path, t->sha, &size, NULL), 0);
	const char *slash = strrchr(t->path, '/');
	t->f = (struct wp_mirror_file){
		.project = t->project,
		.filename = slash ? slash + 1 : t->path,
		.store_path = t->path,
		.sha256 = t->sha,
		.size = size,
	};
}

static void tf_release(struct tf *t)
{
	free(t->path);
	free(t->project);
}

static bool exists(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0;
}

static void rm_rf(const char *path)
{
	char *cmd = wp_xasprintf("rm -rf '%s'", path);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

static char *fresh_dir(const char *name)
{
	char *d = wp_xasprintf("%s/%s", root, name);
	rm_rf(d);
	return d;
}

static char *demo_path(void)
{
	return wp_xasprintf("%s/w/%s", root, DEMO);
}

static char *sample_path(const char *folder, const char *filename)
{
	return wp_xasprintf("%s/s/whl/%s/%s", root, folder, filename);
}

/* Every .whl of mksample's tree, with its project (the file name up to the first '-'). */
static size_t sample_files(struct tf **out)
{
	char *whl = wp_xasprintf("%s/s/whl", root);
	DIR *d = opendir(whl);
	struct dirent *de;
	struct tf *v = NULL;
	size_t n = 0;
	assert_non_null(d);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char *sub = wp_xasprintf("%s/%s", whl, de->d_name);
		DIR *sd = opendir(sub);
		struct dirent *fe;
		while (sd && (fe = readdir(sd))) {
			size_t len = strlen(fe->d_name);
			n += len > 4 && !strcmp(fe->d_name + len - 4, ".whl");
		}
		if (sd)
			closedir(sd);
		free(sub);
	}
	closedir(d);
	v = wp_xcalloc(n ? n : 1, sizeof(*v));
	/* second pass fills in place: tf keeps pointers into itself */
	d = opendir(whl);
	size_t i = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char *sub = wp_xasprintf("%s/%s", whl, de->d_name);
		DIR *sd = opendir(sub);
		struct dirent *fe;
		while (sd && (fe = readdir(sd))) {
			size_t len = strlen(fe->d_name);
			if (len < 4 || strcmp(fe->d_name + len - 4, ".whl") || i >= n)
				continue;
			char *project = wp_xstrndup(fe->d_name, strcspn(fe->d_name, "-"));
			char *p = wp_xasprintf("%s/%s", sub, fe->d_name);
			tf_init(&v[i++], project, p);
			free(p);
			free(project);
		}
		if (sd)
			closedir(sd);
		free(sub);
	}
	closedir(d);
	free(whl);
	*out = v;
	return i;
}

static void tfs_free(struct tf *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		tf_release(&v[i]);
	free(v);
}

static int mirror(const char *dir, struct tf *t, size_t n, const struct wp_mirror_opts *o,
		  struct wp_mirror_report *rep, struct wp_err *err)
{
	struct wp_mirror_file *f = wp_xcalloc(n ? n : 1, sizeof(*f));
	for (size_t i = 0; i < n; i++)
		f[i] = t[i].f;
	int rc = wp_mirror_write(dir, f, n, o, rep, err);
	free(f);
	return rc;
}

static void assert_verifies(const char *dir)
{
	struct wp_verify_report rep = WP_VERIFY_REPORT_INIT;
	struct wp_err err = WP_ERR_INIT;
	int rc = wp_verify_path(dir, &rep, &err);
	if (rc)
		print_error("verify: %s\n", err.msg);
	assert_int_equal(rc, 0);
	assert_int_equal(rep.n_fatal, 0);
	wp_verify_report_release(&rep);
}

/* verify fails and some fatal problem names a path ending in tail */
static void assert_fails_naming(const char *dir, const char *tail)
{
	struct wp_verify_report rep = WP_VERIFY_REPORT_INIT;
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_verify_path(dir, &rep, &err), -WPE_INTEGRITY);
	bool named = false;
	for (size_t i = 0; i < rep.n_problems; i++) {
		const struct wp_verify_problem *p = &rep.problems[i];
		size_t n = strlen(p->path), k = strlen(tail);
		named |= p->fatal && n >= k && !strcmp(p->path + n - k, tail);
	}
	if (!named)
		print_error("no problem names '%s'; first: %s\n", tail, err.msg);
	assert_true(named);
	wp_verify_report_release(&rep);
}

struct recs {
	size_t n;
	char *sha[8];
	char *rp[8];
	char *core[8];
	char *filename[8];
};

static int collect(void *ctx, const struct wp_file_record *rec, struct wp_err *err)
{
	struct recs *r = ctx;
	if (r->n < 8) {
		r->sha[r->n] = rec->sha256 ? wp_xstrdup(rec->sha256) : NULL;
		r->rp[r->n] = rec->requires_python ? wp_xstrdup(rec->requires_python) : NULL;
		r->core[r->n] = rec->core_metadata ? wp_xstrdup(rec->core_metadata) : NULL;
		r->filename[r->n] = wp_xstrdup(rec->filename);
	}
	r->n++;
	return 0;
}

static void recs_free(struct recs *r)
{
	for (size_t i = 0; i < r->n && i < 8; i++) {
		free(r->sha[i]);
		free(r->rp[i]);
		free(r->core[i]);
		free(r->filename[i]);
	}
	memset(r, 0, sizeof(*r));
}

static void read_page(const char *dir, const char *project, bool json, struct recs *r)
{
	char *path = wp_xasprintf("%s/simple/%s/index.%s", dir, project, json ? "json" : "html");
	char *url = wp_xasprintf("file://%s/simple/%s/", dir, project);
	char *text = test_read_file(path, NULL);
	struct wp_err err = WP_ERR_INIT;
	assert_non_null(text);
	int rc = json ? wp_read_pep691(url, project, text, strlen(text), collect, r, NULL, &err) :
			wp_read_html_links(url, project, text, strlen(text), collect, r, NULL,
					   &err);
	if (rc)
		print_error("%s: %s\n", path, err.msg);
	assert_int_equal(rc, 0);
	free(text);
	free(url);
	free(path);
}

/* ---- pages ---- */

static void test_pages(void **state)
{
	char *dir = fresh_dir("pages");
	char *demo = demo_path(), *torch = sample_path("cu111", TORCH_CU111);
	struct tf t[2];
	struct wp_mirror_report rep;
	struct wp_err err = WP_ERR_INIT;
	tf_init(&t[0], "Demo_Pkg", demo);
	t[0].f.requires_python = ">=3.8";
	t[0].f.upload_time = "2021-03-12T00:00:00.000000Z";
	tf_init(&t[1], "torch", torch);
	t[1].f.metadata = "Metadata-Version: 2.1\nName: torch\nVersion: 1.8.0+cu111\n";

	assert_int_equal(mirror(dir, t, 2, NULL, &rep, &err), 0);
	assert_int_equal(rep.files, 2);
	assert_int_equal(rep.projects, 2);
	assert_int_equal(rep.added, 2);
	assert_int_equal(rep.metadata, 2);

	/* hard links from the store */
	char *placed = wp_xasprintf("%s/files/demo-pkg/%s", dir, DEMO);
	struct stat a, b;
	assert_int_equal(stat(placed, &a), 0);
	assert_int_equal(stat(demo, &b), 0);
	assert_true(a.st_ino == b.st_ino);

	/* PEP 658: the METADATA read out of the wheel, and its hash on the page */
	char *meta_path = wp_xasprintf("%s.metadata", placed);
	char *meta = test_read_file(meta_path, NULL);
	assert_non_null(meta);
	assert_non_null(strstr(meta, "Name: demo-pkg\n"));
	char msha[WP_SHA256_HEX_LEN + 1];
	assert_int_equal(wp_hash_file(meta_path, msha, NULL, NULL), 0);

	char *page = wp_xasprintf("%s/simple/demo-pkg/index.html", dir);
	char *html = test_read_file(page, NULL);
	char *want = wp_xasprintf("href=\"../../files/demo-pkg/%s#sha256=%s\"", DEMO, t[0].sha);
	assert_non_null(strstr(html, want));
	assert_non_null(strstr(html, "data-requires-python=\"&gt;=3.8\""));
	free(want);
	want = wp_xasprintf("data-core-metadata=\"sha256=%s\"", msha);
	assert_non_null(strstr(html, want));
	free(want);
	want = wp_xasprintf("data-dist-info-metadata=\"sha256=%s\"", msha);
	assert_non_null(strstr(html, want));
	/* the JSON page names it by PEP 714's key alone: pip 22.3-23.1 fail on PEP 658's there */
	char *jpage = wp_xasprintf("%s/simple/demo-pkg/index.json", dir);
	char *jtext = test_read_file(jpage, NULL);
	assert_non_null(strstr(jtext, "\"core-metadata\""));
	assert_null(strstr(jtext, "dist-info-metadata"));
	free(jtext);
	free(jpage);
	assert_non_null(strstr(html, "<meta name=\"pypi:repository-version\" content=\"1.1\">"));

	/* '+' is %2B in the href, as S3 needs it */
	char *tpage = wp_xasprintf("%s/simple/torch/index.html", dir);
	char *thtml = test_read_file(tpage, NULL);
	assert_non_null(
		strstr(thtml,
		       "../../files/torch/torch-1.8.0%2Bcu111-cp38-cp38-linux_x86_64.whl#sha256="));
	assert_non_null(strstr(thtml, ">" TORCH_CU111 "</a>"));
	char *tmeta = wp_xasprintf("%s/files/torch/%s.metadata", dir, TORCH_CU111);
	char *tm = test_read_file(tmeta, NULL);
	assert_string_equal(tm, t[1].f.metadata);

	/* the readers see the same thing in HTML and JSON */
	for (int json = 0; json < 2; json++) {
		struct recs r = { 0 };
		read_page(dir, "demo-pkg", json, &r);
		assert_int_equal(r.n, 1);
		assert_string_equal(r.filename[0], DEMO);
		assert_string_equal(r.sha[0], t[0].sha);
		assert_string_equal(r.rp[0], ">=3.8");
		assert_non_null(r.core[0]);
		assert_string_equal(r.core[0] + 7, msha);
		recs_free(&r);
	}
	char *jpath = wp_xasprintf("%s/simple/demo-pkg/index.json", dir);
	char *json = test_read_file(jpath, NULL);
	assert_non_null(strstr(json, "\"api-version\":\"1.1\""));
	assert_non_null(strstr(json, "\"versions\":[\"1.0\"]"));
	assert_non_null(strstr(json, "\"yanked\":false"));
	assert_non_null(strstr(json, "\"upload-time\":\"2021-03-12T00:00:00.000000Z\""));
	char *sz = wp_xasprintf("\"size\":%lld", t[0].f.size);
	assert_non_null(strstr(json, sz));

	char *rpath = wp_xasprintf("%s/simple/index.html", dir);
	char *rhtml = test_read_file(rpath, NULL);
	assert_non_null(strstr(rhtml, "<a href=\"demo-pkg/\">demo-pkg</a>"));
	assert_non_null(strstr(rhtml, "<a href=\"torch/\">torch</a>"));
	char *rjpath = wp_xasprintf("%s/simple/index.json", dir);
	char *rjson = test_read_file(rjpath, NULL);
	assert_non_null(strstr(rjson, "{\"name\":\"demo-pkg\"}"));

	assert_verifies(dir);

	/* a second identical run changes nothing on disk */
	assert_int_equal(stat(page, &a), 0);
	assert_int_equal(mirror(dir, t, 2, NULL, &rep, &err), 0);
	assert_int_equal(rep.unchanged, 2);
	assert_int_equal(rep.added, 0);
	assert_int_equal(stat(page, &b), 0);
	assert_true(a.st_ino == b.st_ino);

	free(rjson); free(rjpath); free(rhtml); free(rpath); free(sz); free(json); free(jpath);
	free(tm); free(tmeta); free(thtml); free(tpage); free(want); free(html); free(page);
	free(meta); free(meta_path); free(placed); free(demo); free(torch); free(dir);
	tf_release(&t[0]);
	tf_release(&t[1]);
}

static void test_bad_input(void **state)
{
	char *dir = fresh_dir("bad");
	char *demo = demo_path();
	struct tf t[2];
	struct wp_err err = WP_ERR_INIT;
	tf_init(&t[0], "demo-pkg", demo);
	tf_init(&t[1], "demo-pkg", demo);

	t[0].f.project = "not a name";
	assert_int_equal(mirror(dir, t, 1, NULL, NULL, &err), -WPE_USAGE);
	assert_non_null(strstr(err.msg, "'not a name'"));
	t[0].f.project = "other";
	wp_err_clear(&err);
	assert_int_equal(mirror(dir, t, 1, NULL, NULL, &err), -WPE_USAGE);
	t[0].f.project = "demo-pkg";
	t[0].f.size = 3;
	wp_err_clear(&err);
	assert_int_equal(mirror(dir, t, 1, NULL, NULL, &err), -WPE_INTEGRITY);
	t[0].f.size = -1;
	/* the same name twice with other bytes */
	t[1].f.sha256 = "0000000000000000000000000000000000000000000000000000000000000000";
	wp_err_clear(&err);
	assert_int_equal(mirror(dir, t, 2, NULL, NULL, &err), -WPE_USAGE);
	assert_non_null(strstr(err.msg, DEMO));
	/* the same file twice is one file */
	t[1].f.sha256 = t[1].sha;
	struct wp_mirror_report rep;
	wp_err_clear(&err);
	assert_int_equal(mirror(dir, t, 2, NULL, &rep, &err), 0);
	assert_int_equal(rep.files, 1);
	assert_verifies(dir);
	tf_release(&t[0]);
	tf_release(&t[1]);
	free(demo);
	free(dir);
}

static void test_rerun_adds_prune_keeps_pinned(void **state)
{
	char *dir = fresh_dir("rerun");
	char *demo = demo_path();
	char *t1 = sample_path("cu111", TORCH_CU111);
	char *t2 = sample_path("cpu", "torch-1.8.0+cpu-cp38-cp38-linux_x86_64.whl");
	char *tv = sample_path("cu111", "torchvision-0.9.0+cu111-cp38-cp38-linux_x86_64.whl");
	struct tf t[4];
	struct wp_mirror_report rep;
	struct wp_err err = WP_ERR_INIT;
	tf_init(&t[0], "demo-pkg", demo);
	tf_init(&t[1], "torch", t1);
	tf_init(&t[2], "torch", t2);
	tf_init(&t[3], "torchvision", tv);

	assert_int_equal(mirror(dir, &t[0], 1, NULL, &rep, &err), 0);
	assert_int_equal(mirror(dir, &t[1], 1, NULL, &rep, &err), 0);
	assert_int_equal(rep.files, 2);
	assert_int_equal(rep.projects, 2);
	struct recs r = { 0 };
	read_page(dir, "demo-pkg", false, &r);
	assert_int_equal(r.n, 1);
	recs_free(&r);
	char *manifest = wp_xasprintf("%s/%s", dir, WP_MIRROR_MANIFEST);
	assert_true(exists(manifest));
	assert_verifies(dir);

	/* prune: only torch cpu stays, and the pinned cu111 file */
	const char *keep[] = { TORCH_CU111 };
	struct wp_mirror_opts o = { .prune = true, .keep = keep, .n_keep = 1 };
	assert_int_equal(mirror(dir, &t[2], 1, &o, &rep, &err), 0);
	assert_int_equal(rep.files, 2);
	assert_int_equal(rep.removed, 1);
	assert_int_equal(rep.pinned, 1);
	assert_int_equal(rep.projects, 1);
	char *gone = wp_xasprintf("%s/files/demo-pkg/%s", dir, DEMO);
	char *gone_meta = wp_xasprintf("%s.metadata", gone);
	char *gone_page = wp_xasprintf("%s/simple/demo-pkg/index.html", dir);
	char *pinned = wp_xasprintf("%s/files/torch/%s", dir, TORCH_CU111);
	assert_false(exists(gone));
	assert_false(exists(gone_meta));
	assert_false(exists(gone_page));
	assert_true(exists(pinned));
	read_page(dir, "torch", false, &r);
	assert_int_equal(r.n, 2);
	recs_free(&r);
	char *rpath = wp_xasprintf("%s/simple/index.html", dir);
	char *root_html = test_read_file(rpath, NULL);
	assert_null(strstr(root_html, "demo-pkg"));
	free(root_html);
	assert_verifies(dir);

	/* prune without the pin: cu111 goes, torchvision comes */
	struct wp_mirror_opts o2 = { .prune = true };
	struct tf both[2] = { t[2], t[3] };
	both[0].f.sha256 = t[2].sha;
	both[1].f.sha256 = t[3].sha;
	assert_int_equal(mirror(dir, both, 2, &o2, &rep, &err), 0);
	assert_int_equal(rep.files, 2);
	assert_int_equal(rep.removed, 1);
	assert_int_equal(rep.unchanged, 1);
	assert_false(exists(pinned));
	assert_verifies(dir);

	/* a file deleted by hand leaves the pages on the next run instead of breaking them */
	char *tvp = wp_xasprintf("%s/files/torchvision/%s", dir, strrchr(tv, '/') + 1);
	assert_int_equal(unlink(tvp), 0);
	assert_fails_naming(dir, strrchr(tv, '/') + 1);
	assert_int_equal(mirror(dir, &t[0], 1, NULL, &rep, &err), 0);
	assert_int_equal(rep.files, 2); /* torch cpu + demo */
	assert_verifies(dir);

	free(tvp); free(rpath); free(pinned); free(gone_page); free(gone_meta); free(gone);
	free(manifest);
	for (int i = 0; i < 4; i++)
		tf_release(&t[i]);
	free(demo); free(t1); free(t2); free(tv); free(dir);
}

/* The same file name with other bytes (an upstream re-upload): replaced, pages follow. */
static void test_replace_other_bytes(void **state)
{
	char *dir = fresh_dir("replace");
	char *src = wp_xasprintf("%s/w/demo_dirs-1.0-py3-none-any.whl", root);
	char *fake = wp_xasprintf("%s/w/other/%s", root, DEMO);
	char *mk = wp_xasprintf("mkdir -p '%s/w/other' && cp '%s' '%s'", root, src, fake);
	assert_int_equal(system(mk), 0);
	char *demo = demo_path();
	struct tf t[2];
	struct wp_mirror_report rep;
	struct wp_err err = WP_ERR_INIT;
	tf_init(&t[0], "demo-pkg", demo);
	tf_init(&t[1], "demo-pkg", fake);
	t[1].f.metadata = "Metadata-Version: 2.1\nName: demo-pkg\nVersion: 1.0\n";
	assert_int_equal(mirror(dir, &t[0], 1, NULL, &rep, &err), 0);
	assert_int_equal(mirror(dir, &t[1], 1, NULL, &rep, &err), 0);
	assert_int_equal(rep.replaced, 1);
	struct recs r = { 0 };
	read_page(dir, "demo-pkg", true, &r);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.sha[0], t[1].sha);
	recs_free(&r);
	/* the bytes are demo_dirs', so the wheel check (names) fails, but every hash holds */
	struct wp_verify_report vr = WP_VERIFY_REPORT_INIT;
	wp_verify_path(dir, &vr, &err);
	for (size_t i = 0; i < vr.n_problems; i++)
		assert_null(strstr(vr.problems[i].what, "sha256 is"));
	wp_verify_report_release(&vr);
	tf_release(&t[0]);
	tf_release(&t[1]);
	free(demo); free(mk); free(fake); free(src); free(dir);
}

static void test_verify_finds_damage(void **state)
{
	struct tf *t;
	size_t n = sample_files(&t);
	struct wp_err err = WP_ERR_INIT;
	const char *victim = "torch-1.8.0+cpu-cp38-cp38-linux_x86_64.whl";
	assert_true(n > 50);

	/* a flipped byte in a wheel (a copy, not the hard-linked fixture) */
	char *dir = fresh_dir("damage1");
	assert_int_equal(mirror(dir, t, n, NULL, NULL, &err), 0);
	assert_verifies(dir);
	char *path = wp_xasprintf("%s/files/torch/%s", dir, victim);
	char *cmd = wp_xasprintf("cp '%s' '%s.x' && mv '%s.x' '%s' && printf 'Z' | dd of='%s' bs=1 "
				 "seek=100 conv=notrunc status=none", path, path, path, path, path);
	assert_int_equal(system(cmd), 0);
	assert_fails_naming(dir, victim);
	free(cmd);
	free(path);
	free(dir);

	/* a file removed */
	dir = fresh_dir("damage2");
	assert_int_equal(mirror(dir, t, n, NULL, NULL, &err), 0);
	path = wp_xasprintf("%s/files/torch/%s", dir, victim);
	assert_int_equal(unlink(path), 0);
	assert_fails_naming(dir, victim);
	free(path);
	free(dir);

	/* a hash edited in a page */
	dir = fresh_dir("damage3");
	assert_int_equal(mirror(dir, t, n, NULL, NULL, &err), 0);
	const struct tf *v = NULL;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].f.filename, victim))
			v = &t[i];
	assert_non_null(v);
	char *page = wp_xasprintf("%s/simple/torch/index.html", dir);
	char edited[WP_SHA256_HEX_LEN + 1];
	memcpy(edited, v->sha, sizeof(edited));
	edited[63] = edited[63] == '0' ? '1' : '0';
	cmd = wp_xasprintf("sed -i 's/%s/%s/' '%s'", v->sha, edited, page);
	assert_int_equal(system(cmd), 0);
	assert_fails_naming(dir, victim);
	free(cmd);

	/* a .metadata file edited */
	dir = (free(dir), fresh_dir("damage4"));
	assert_int_equal(mirror(dir, t, n, NULL, NULL, &err), 0);
	path = wp_xasprintf("%s/files/torch/%s.metadata", dir, victim);
	cmd = wp_xasprintf("echo 'Extra: 1' >> '%s'", path);
	assert_int_equal(system(cmd), 0);
	assert_fails_naming(dir, ".metadata");
	free(cmd);
	free(path);
	free(page);
	free(dir);
	tfs_free(t, n);
}

/* ---- conda channel ---- */

static char *conda_record(const char *path, const char *extra)
{
	char sha[WP_SHA256_HEX_LEN + 1];
	long long size;
	assert_int_equal(wp_hash_file(path, sha, &size, NULL), 0);
	return wp_xasprintf("{\n      \"build\": \"py_0\",\n      \"build_number\": 0,\n"
			    "      \"depends\": [\"python >=3.8\"],\n      \"name\": \"demo-conda\",\n"
			    "      \"sha256\": \"%s\",\n      \"size\": %lld,\n%s"
			    "      \"version\": \"1.0\"\n    }",
			    sha, size, extra);
}

struct crecs {
	size_t n;
	char names[4][128];
	char sha[4][65];
	long long size[4];
};

static int ccollect(void *ctx, const struct wp_file_record *rec, struct wp_err *err)
{
	struct crecs *c = ctx;
	if (c->n < 4) {
		snprintf(c->names[c->n], sizeof(c->names[0]), "%s", rec->filename);
		snprintf(c->sha[c->n], sizeof(c->sha[0]), "%s", rec->sha256 ? rec->sha256 : "");
		c->size[c->n] = rec->size;
	}
	c->n++;
	return 0;
}

static void test_conda_channel(void **state)
{
	char *dir = fresh_dir("chan");
	char *bz2 = wp_xasprintf("%s/w/demo-conda-1.0-py_0.tar.bz2", root);
	char *conda = wp_xasprintf("%s/w/demo-conda-1.0-py_0.conda", root);
	bool have_conda = exists(conda);
	char *r1 = conda_record(bz2,
				"      \"timestamp\": 1615507200123,\n      \"license\": \"BSD \\\"3\\\"\",\n");
	struct wp_err err = WP_ERR_INIT;
	struct wp_conda_file f1 = { "linux-64", "demo-conda-1.0-py_0.tar.bz2", bz2, r1, NULL, NULL };
	assert_int_equal(wp_channel_write(dir, &f1, 1, NULL, &err), 0);

	char *rd = wp_xasprintf("%s/linux-64/repodata.json", dir);
	char *text = test_read_file(rd, NULL);
	assert_non_null(text);
	/* the upstream record, byte for byte */
	assert_non_null(strstr(text, r1));
	assert_non_null(strstr(text, "\"repodata_version\": 1"));
	assert_non_null(strstr(text, "\"subdir\": \"linux-64\""));
	struct crecs c = { 0 };
	char *url = wp_xasprintf("file://%s/linux-64", dir);
	assert_int_equal(wp_read_repodata_mem(text, strlen(text), url, ccollect, &c, NULL, &err),
			 0);
	assert_int_equal(c.n, 1);
	assert_string_equal(c.names[0], "demo-conda-1.0-py_0.tar.bz2");
	char *na = wp_xasprintf("%s/noarch/repodata.json", dir);
	char *natext = test_read_file(na, NULL);
	assert_non_null(natext);
	assert_non_null(strstr(natext, "\"packages\": {}"));
	assert_verifies(dir);

	if (have_conda) {
		/* a re-run adds; the .conda record goes under packages.conda */
		char *r2 = conda_record(conda, "");
		struct wp_conda_file f2 = { "linux-64", "demo-conda-1.0-py_0.conda",
					    conda,      r2,
					    NULL,       NULL };
		assert_int_equal(wp_channel_write(dir, &f2, 1, NULL, &err), 0);
		free(text);
		text = test_read_file(rd, NULL);
		assert_non_null(strstr(text, r1));
		assert_non_null(strstr(text, r2));
		assert_true(strstr(text, "\"packages.conda\"") < strstr(text, r2));
		c.n = 0;
		assert_int_equal(wp_read_repodata_mem(text, strlen(text), url, ccollect, &c, NULL,
						      &err),
				 0);
		assert_int_equal(c.n, 2);
		assert_verifies(dir);
		free(r2);
	}

	/* a record that disagrees with the file is refused */
	char *bad = wp_xstrdup("{\"name\": \"demo-conda\", \"size\": 1}");
	struct wp_conda_file f3 = {
		"linux-64", "demo-conda-1.0-py_0.tar.bz2", bz2, bad, NULL, NULL
	};
	wp_err_clear(&err);
	assert_int_equal(wp_channel_write(dir, &f3, 1, NULL, &err), -WPE_INTEGRITY);
	f3.record_json = "[1]";
	wp_err_clear(&err);
	assert_int_equal(wp_channel_write(dir, &f3, 1, NULL, &err), -WPE_USAGE);
	f3.subdir = "../x";
	wp_err_clear(&err);
	assert_int_equal(wp_channel_write(dir, &f3, 1, NULL, &err), -WPE_USAGE);

	/* damage shows, naming the file */
	char *pkg = wp_xasprintf("%s/linux-64/demo-conda-1.0-py_0.tar.bz2", dir);
	char *cmd = wp_xasprintf("cp '%s' '%s.x' && mv '%s.x' '%s' && printf 'Z' | dd of='%s' bs=1 "
				 "seek=50 conv=notrunc status=none", pkg, pkg, pkg, pkg, pkg);
	assert_int_equal(system(cmd), 0);
	assert_fails_naming(dir, "demo-conda-1.0-py_0.tar.bz2");

	free(cmd); free(pkg); free(bad); free(natext); free(na); free(url); free(text); free(rd);
	free(r1); free(conda); free(bz2); free(dir);
}

/* ---- pip through nginx ---- */

struct nginx {
	pid_t pid;
	int port;
	char *prefix;
};

static struct nginx ngx;

static int free_port(void)
{
	int s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    getsockname(s, (struct sockaddr *)&a, &len) < 0) {
		if (s >= 0)
			close(s);
		return -1;
	}
	close(s);
	return ntohs(a.sin_port);
}

static bool port_open(int port)
{
	int s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	bool ok = s >= 0 && connect(s, (struct sockaddr *)&a, sizeof(a)) == 0;
	if (s >= 0)
		close(s);
	return ok;
}

static int nginx_teardown(void **state)
{
	if (ngx.pid > 0) {
		kill(ngx.pid, SIGTERM);
		for (int i = 0; i < 50; i++) {
			if (waitpid(ngx.pid, NULL, WNOHANG) == ngx.pid) {
				ngx.pid = 0;
				break;
			}
			usleep(100 * 1000);
		}
		if (ngx.pid > 0) {
			kill(ngx.pid, SIGKILL);
			waitpid(ngx.pid, NULL, 0);
		}
	}
	ngx.pid = 0;
	free(ngx.prefix);
	ngx.prefix = NULL;
	return 0;
}

static void nginx_start(const char *mirror_dir)
{
	ngx.prefix = fresh_dir("nginx");
	char *logs = wp_xasprintf("%s/logs", ngx.prefix);
	assert_int_equal(mkdir(ngx.prefix, 0755), 0);
	assert_int_equal(mkdir(logs, 0755), 0);
	ngx.port = free_port();
	assert_true(ngx.port > 0);
	char *conf = wp_xasprintf("%s/nginx.conf", ngx.prefix);
	FILE *f = fopen(conf, "w");
	assert_non_null(f);
	fprintf(f,
		"%s"
		"worker_processes 1;\n"
		"error_log %s/logs/error.log;\n"
		"pid %s/logs/nginx.pid;\n"
		"events { worker_connections 64; }\n"
		"http {\n"
		"  access_log %s/logs/access.log;\n"
		"  client_body_temp_path %s/logs/body;\n"
		"  proxy_temp_path %s/logs/proxy;\n"
		"  fastcgi_temp_path %s/logs/fastcgi;\n"
		"  uwsgi_temp_path %s/logs/uwsgi;\n"
		"  scgi_temp_path %s/logs/scgi;\n"
		"  types { text/html html; application/vnd.pypi.simple.v1+json json; }\n"
		"  default_type application/octet-stream;\n"
		"  map $http_accept $simple_index {\n"
		"    ~application/vnd\\.pypi\\.simple\\.v1\\+json index.json;\n"
		"    default index.html;\n"
		"  }\n"
		"  server {\n"
		"    listen 127.0.0.1:%d;\n"
		"    root %s;\n"
		"    index index.html;\n"
		"    location /simple/ { try_files $uri/$simple_index $uri =404; }\n"
		"  }\n"
		"}\n",
		geteuid() == 0 ? "user root;\n" : "", ngx.prefix, ngx.prefix, ngx.prefix,
		ngx.prefix, ngx.prefix, ngx.prefix, ngx.prefix, ngx.prefix, ngx.port, mirror_dir);
	fclose(f);
	/* mkdtemp made the tree 0700; nginx's worker must walk into it */
	assert_int_equal(chmod(root, 0755), 0);
	ngx.pid = fork();
	assert_true(ngx.pid >= 0);
	if (ngx.pid == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		execl("/usr/sbin/nginx", "nginx", "-p", ngx.prefix, "-c", conf, "-g", "daemon off;",
		      (char *)NULL);
		_exit(127);
	}
	bool up = false;
	for (int i = 0; i < 100 && !up; i++) {
		if (waitpid(ngx.pid, NULL, WNOHANG) == ngx.pid) {
			ngx.pid = 0;
			char *log = wp_xasprintf("%s/logs/error.log", ngx.prefix);
			char *text = test_read_file(log, NULL);
			print_error("nginx exited: %s\n", text ? text : "(no log)");
			free(text);
			free(log);
			break;
		}
		up = port_open(ngx.port);
		if (!up)
			usleep(50 * 1000);
	}
	assert_true(up);
	free(conf);
	free(logs);
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	va_list ap;
	char *cmd = NULL;
	va_start(ap, fmt);
	assert_true(vasprintf(&cmd, fmt, ap) >= 0);
	va_end(ap);
	int rc = system(cmd);
	if (rc)
		print_error("command failed (%d): %s\n", rc, cmd);
	free(cmd);
	return rc;
}

static bool dir_has(const char *dir, const char *prefix, const char *suffix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	bool yes = false;
	while (d && (de = readdir(d)) && !yes) {
		size_t n = strlen(de->d_name), k = strlen(suffix);
		yes = !strncmp(de->d_name, prefix, strlen(prefix)) && n >= k &&
		      !strcmp(de->d_name + n - k, suffix);
	}
	if (d)
		closedir(d);
	return yes;
}

static void test_pip_through_nginx(void **state)
{
	if (access("/usr/sbin/nginx", X_OK) != 0 ||
	    system("python3 -m pip --version >/dev/null 2>&1") != 0)
		skip();
	struct tf *t;
	size_t n = sample_files(&t);
	t = wp_xrealloc(t, (n + 1) * sizeof(*t));
	for (size_t i = 0; i < n; i++) /* tf points into itself: fix after the move */
		t[i].f.sha256 = t[i].sha;
	char *demo = demo_path();
	tf_init(&t[n], "demo-pkg", demo);
	t[n].f.requires_python = ">=3.8";
	char *dir = fresh_dir("served");
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(mirror(dir, t, n + 1, NULL, NULL, &err), 0);
	assert_verifies(dir);
	nginx_start(dir);

	char *tmp = fresh_dir("pip");
	assert_int_equal(mkdir(tmp, 0755), 0);
	char *cache = wp_xasprintf("%s/cache", tmp);
	setenv("PIP_DISABLE_PIP_VERSION_CHECK", "1", 1);
	setenv("PIP_NO_INPUT", "1", 1);
	setenv("PIP_CONFIG_FILE", "/dev/null", 1);
	setenv("PIP_CACHE_DIR", cache, 1);
	setenv("no_proxy", "127.0.0.1,localhost", 1);
	setenv("NO_PROXY", "127.0.0.1,localhost", 1);
	unsetenv("PIP_INDEX_URL");
	unsetenv("PIP_EXTRA_INDEX_URL");
	unsetenv("PIP_FIND_LINKS");
	char *index = wp_xasprintf("http://127.0.0.1:%d/simple", ngx.port);
	const char *pip = "python3 -m pip --no-cache-dir --timeout 10 --retries 0";

	/* content negotiation: JSON when asked for, HTML otherwise */
	assert_int_equal(sh("python3 -c \"import urllib.request as u, json, sys; "
			    "r = u.urlopen(u.Request(sys.argv[1], headers={'Accept': "
			    "'application/vnd.pypi.simple.v1+json'})); "
			    "assert r.headers['Content-Type'].startswith('application/vnd.pypi.simple.v1+json'), r.headers; "
			    "assert json.load(r)['name'] == 'demo-pkg'; "
			    "r = u.urlopen(sys.argv[1]); assert r.headers['Content-Type'].startswith('text/html')\" "
			    "'%s/demo-pkg/'",
			    index),
			 0);

	char *dl = wp_xasprintf("%s/dl", tmp);
	assert_int_equal(sh("%s download -q --no-deps --only-binary=:all: --index-url '%s' -d '%s' demo-pkg",
			    pip, index, dl),
			 0);
	assert_true(dir_has(dl, DEMO, ""));

	char *target = wp_xasprintf("%s/t", tmp);
	assert_int_equal(sh("%s install -q --no-deps --index-url '%s' --target '%s' demo-pkg", pip,
			    index, target),
			 0);
	assert_int_equal(sh("PYTHONPATH='%s' python3 -c 'import demo_pkg; assert demo_pkg.VALUE == 42'",
			    target),
			 0);

	char *win = wp_xasprintf("%s/win", tmp);
	assert_int_equal(sh("%s download -q --no-deps --only-binary=:all: --platform win_amd64 "
			    "--python-version 3.8 --index-url '%s' -d '%s' torch==1.8.0",
			    pip, index, win),
			 0);
	assert_true(dir_has(win, "torch-1.8.0", "-cp38-cp38-win_amd64.whl"));

	free(win);
	free(target);
	free(dl);
	free(index);
	free(cache);
	free(tmp);
	free(dir);
	free(demo);
	tfs_free(t, n + 1);
}

/* ---- kill -9 ---- */

/* Two hundred tiny wheels (ten projects x twenty versions): enough that a write takes a while. */
static const char gen_py[] =
	"import base64, hashlib, io, os, sys, zipfile\n"
	"out = sys.argv[1]; os.makedirs(out, exist_ok=True)\n"
	"def b64(d): return base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b'=').decode()\n"
	"for p in range(10):\n"
	"  for v in range(20):\n"
	"    name, ver = 'kpkg%d' % p, '1.%d' % v\n"
	"    di = '%s-%s.dist-info' % (name, ver)\n"
	"    files = {name + '/__init__.py': b'V = %d\\n' % v,\n"
	"             di + '/METADATA': ('Metadata-Version: 2.1\\nName: %s\\nVersion: %s\\n' % (name, ver)).encode(),\n"
	"             di + '/WHEEL': b'Wheel-Version: 1.0\\nGenerator: t\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n'}\n"
	"    rec = ''.join('%s,sha256=%s,%d\\n' % (n, b64(d), len(d)) for n, d in files.items()) + di + '/RECORD,,\\n'\n"
	"    files[di + '/RECORD'] = rec.encode()\n"
	"    with zipfile.ZipFile(os.path.join(out, '%s-%s-py3-none-any.whl' % (name, ver)), 'w') as z:\n"
	"      for n, d in files.items(): z.writestr(zipfile.ZipInfo(n, (2020, 1, 1, 0, 0, 0)), d)\n";

static size_t count_tmp(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;
	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *p = wp_xasprintf("%s/%s", dir, de->d_name);
		struct stat sb;
		if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode))
			n += count_tmp(p);
		else
			n += wp_fs_is_tmp_name(de->d_name);
		free(p);
	}
	if (d)
		closedir(d);
	return n;
}

/* Every file under a final name holds whole bytes: wheels equal their source, JSON parses. */
static void assert_no_partial(const char *dir, struct tf *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *p = wp_xasprintf("%s/files/%s/%s", dir, t[i].f.project, t[i].f.filename);
		char sha[WP_SHA256_HEX_LEN + 1];
		if (exists(p)) {
			assert_int_equal(wp_hash_file(p, sha, NULL, NULL), 0);
			assert_string_equal(sha, t[i].sha);
		}
		free(p);
	}
	char *manifest = wp_xasprintf("%s/%s", dir, WP_MIRROR_MANIFEST);
	char *text = test_read_file(manifest, NULL);
	if (text) {
		size_t len = strlen(text);
		assert_true(len > 0);
		while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
			len--;
		assert_true(text[len - 1] == '}');
	}
	free(text);
	free(manifest);
}

static void test_kill9(void **state)
{
	char *gen = fresh_dir("gen");
	char *py = wp_xasprintf("%s.py", gen);
	FILE *f = fopen(py, "w");
	assert_non_null(f);
	fputs(gen_py, f);
	fclose(f);
	assert_int_equal(sh("python3 '%s' '%s'", py, gen), 0);

	size_t n = 200;
	struct tf *t = wp_xcalloc(n, sizeof(*t));
	for (size_t i = 0; i < n; i++) {
		char *name = wp_xasprintf("kpkg%zu", i / 20);
		char *p = wp_xasprintf("%s/kpkg%zu-1.%zu-py3-none-any.whl", gen, i / 20, i % 20);
		tf_init(&t[i], name, p);
		free(p);
		free(name);
	}
	/* on tmpfs when there is one: kill -9 does not care about fsync, and the test gets 10x
	 * faster */
	char *dir = NULL;
	snprintf(shm, sizeof(shm), "/dev/shm/wp_kill9_XXXXXX");
	if (mkdtemp(shm))
		dir = wp_xasprintf("%s/m", shm);
	else
		dir = fresh_dir("kill9"), shm[0] = 0;
	struct wp_err err = WP_ERR_INIT;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	assert_int_equal(mirror(dir, t, n, NULL, NULL, &err), 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	long us = (b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000;
	if (us < 2000)
		us = 2000;
	srand((unsigned)getpid());

	for (int iter = 0; iter < 10; iter++) {
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			/* alternate halves with prune, so runs add, replace pages and remove */
			for (unsigned k = 0;; k++) {
				struct wp_mirror_opts o = { .prune = true };
				size_t from = (k % 3) * 50;
				struct wp_err e = WP_ERR_INIT;
				mirror(dir, t + from, 100, &o, NULL, &e);
			}
		}
		usleep((useconds_t)(rand() % (2 * us + 1)));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		assert_verifies(dir);
		assert_no_partial(dir, t, n);
	}
	/* the next run clears what the killed ones left */
	assert_int_equal(mirror(dir, t, n, NULL, NULL, &err), 0);
	assert_int_equal(count_tmp(dir), 0);
	assert_verifies(dir);
	assert_no_partial(dir, t, n);

	for (size_t i = 0; i < n; i++)
		tf_release(&t[i]);
	free(t);
	free(dir);
	free(py);
	free(gen);
}

/* ---- PEP 825: the variants.json beside the variant wheels ---- */

#define VJSON "torch-2.10.0-variants.json"
#define VWHEEL(label) "torch-2.10.0-py3-none-manylinux_2_28_x86_64-" label ".whl"

/* Is name linked (with sha) from dir/page's index.html and listed in its index.json? */
static bool page_lists(const char *dir, const char *page, const char *name, const char *sha)
{
	char *h = wp_xasprintf("%s/%s/index.html", dir, page),
	     *j = wp_xasprintf("%s/%s/index.json", dir, page);
	char *html = test_read_file(h, NULL), *json = test_read_file(j, NULL);
	char *link = wp_xasprintf("%s#sha256=%s\"", name, sha),
	     *entry = wp_xasprintf("\"%s\"", name);
	bool in_html = html && strstr(html, link),
	     in_json = json && strstr(json, entry) && strstr(json, sha);
	if (in_html != in_json)
		print_error("%s: index.html %s, index.json %s\n", page,
			    in_html ? "lists it" : "does not", in_json ? "lists it" : "does not");
	assert_true(in_html == in_json);
	free(h), free(j), free(html), free(json), free(link), free(entry);
	return in_html;
}

static void test_variants_json(void **state)
{
	char *gen = fresh_dir("vgen"), *dir = fresh_dir("variants");
	assert_int_equal(sh("python3 tests/fixtures/mkvariants.py '%s' "
			    "tests/fixtures/real/variants/variant-repack__torch-2.10__torch-2.10.0-variants.json",
			    gen),
			 0);
	struct tf t[4];
	char *p = wp_xasprintf("%s/files/%s", gen, VWHEEL("cuda12.8"));
	tf_init(&t[0], "torch", p), t[0].f.variant = "cuda12.8";
	free(p), p = wp_xasprintf("%s/files/%s", gen, VWHEEL("rocm7.0"));
	tf_init(&t[1], "torch", p), t[1].f.variant = "rocm7.0";
	free(p),
		p = wp_xasprintf("%s/files/nvidia_cublas-12.8.4.1-py3-none-manylinux_2_28_x86_64.whl",
				 gen);
	tf_init(&t[2], "nvidia-cublas", p);
	free(p), p = sample_path("cu111", TORCH_CU111);
	tf_init(&t[3], "torch", p), t[3].f.variant = "cu111";
	free(p), p = wp_xasprintf("%s/files/%s", gen, VJSON);
	size_t blen = 0;
	char *body = test_read_file(p, &blen), vsha[WP_SHA256_HEX_LEN + 1];
	assert_int_equal(wp_hash_file(p, vsha, NULL, NULL), 0);
	free(p);
	struct tf all[5];
	memcpy(all, t, sizeof(t));
	memset(&all[4], 0, sizeof(all[4]));
	all[4].f = (struct wp_mirror_file){ .project = "torch",
					    .filename = VJSON,
					    .sha256 = vsha,
					    .body = body,
					    .body_len = blen };
	struct wp_mirror_report rep;
	struct wp_err err = WP_ERR_INIT;

	/* the catalog's copy must be the bytes the index listed */
	char bad[WP_SHA256_HEX_LEN + 1];
	memcpy(bad, vsha, sizeof(bad));
	bad[0] = bad[0] == '0' ? '1' : '0';
	all[4].f.sha256 = bad;
	assert_int_equal(mirror(dir, all, 5, NULL, &rep, &err), -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, VJSON));
	wp_err_clear(&err);
	all[4].f.sha256 = vsha;
	/* bytes only for a variants.json, and a variants.json only with its bytes, of its own
	 * project */
	struct tf odd = all[4];
	odd.f.filename = VWHEEL("cuda12.8");
	assert_int_equal(mirror(dir, &odd, 1, NULL, &rep, &err), -WPE_USAGE);
	wp_err_clear(&err);
	odd = all[4], odd.f.body = NULL, odd.f.store_path = t[0].path;
	assert_int_equal(mirror(dir, &odd, 1, NULL, &rep, &err), -WPE_USAGE);
	wp_err_clear(&err);
	odd = all[4], odd.f.project = "numpy";
	assert_int_equal(mirror(dir, &odd, 1, NULL, &rep, &err), -WPE_USAGE);
	wp_err_clear(&err);

	assert_int_equal(mirror(dir, all, 5, NULL, &rep, &err), 0);
	assert_int_equal(rep.files, 5);
	p = wp_xasprintf("%s/files/torch/%s", dir, VJSON);
	size_t got_len = 0;
	char *got = test_read_file(p, &got_len);
	assert_true(got && got_len == blen && !memcmp(got, body, blen));
	free(got);
	/* on every page that lists a variant wheel of its release, and on no other */
	assert_true(page_lists(dir, "simple/torch", VJSON, vsha));
	assert_true(page_lists(dir, "cuda12.8/torch", VJSON, vsha));
	assert_true(page_lists(dir, "rocm7.0/torch", VJSON, vsha));
	assert_false(page_lists(dir, "cu111/torch", VJSON, vsha));
	assert_false(page_lists(dir, "cuda12.8/nvidia-cublas", VJSON, vsha));
	{
		/* PEP 825 (Provisional, revised 2026-08-19): no core-metadata, requires-python or
		 * yanked for the variants.json entry; the wheels keep theirs */
		char *j = wp_xasprintf("%s/simple/torch/index.json", dir),
		     *json = test_read_file(j, NULL);
		char *h = wp_xasprintf("%s/simple/torch/index.html", dir),
		     *html = test_read_file(h, NULL);
		assert_non_null(json);
		assert_non_null(html);
		char *entry = strstr(json, "\"" VJSON "\"");
		assert_non_null(entry);
		char *end = strchr(entry, '}'); /* its hashes object closes first, then the entry */
		assert_non_null(end);
		end = strchr(end + 1, '}');
		assert_non_null(end);
		*end = 0;
		assert_null(strstr(entry, "yanked"));
		assert_null(strstr(entry, "requires-python"));
		assert_null(strstr(entry, "core-metadata"));
		assert_true(strstr(json, "\"yanked\"") || strstr(end + 1, "\"yanked\"")); /* the
											     wheels
											     keep it
											   */
		char *a = strstr(html, VJSON "#sha256=");
		assert_non_null(a);
		char *close = strchr(a, '>');
		assert_non_null(close);
		*close = 0;
		assert_null(strstr(a, "data-"));
		free(j), free(json), free(h), free(html);
	}
	char *man = wp_xasprintf("%s/" WP_MIRROR_MANIFEST, dir), *mtext = test_read_file(man, NULL);
	assert_non_null(strstr(mtext, "\"filename\": \"" VJSON "\""));
	free(mtext);
	assert_verifies(dir);

	/* a re-run finds it in place */
	assert_int_equal(mirror(dir, all, 5, NULL, &rep, &err), 0);
	assert_int_equal(rep.unchanged, 5);
	assert_int_equal(rep.added, 0);
	/* the kept one is listed where a re-run of the ROCm wheel alone puts its release */
	assert_int_equal(mirror(dir, &t[1], 1, NULL, &rep, &err), 0);
	assert_true(page_lists(dir, "rocm7.0/torch", VJSON, vsha));
	/* --prune to files without variants: it goes, pages first */
	struct wp_mirror_opts prune = { .prune = true };
	assert_int_equal(mirror(dir, &t[2], 1, &prune, &rep, &err), 0);
	assert_false(exists(p));
	assert_false(page_lists(dir, "simple/nvidia-cublas", VJSON, vsha));
	char *tpage = wp_xasprintf("%s/simple/torch/index.html", dir);
	assert_false(exists(tpage));
	assert_verifies(dir);

	/* what a killed run left: the pending list names it, so verify notes it and --prune removes
	 * it */
	char *pend = wp_xasprintf("%s/" WP_MIRROR_PENDING, dir),
	     *tdir = wp_xasprintf("%s/files/torch", dir);
	assert_int_equal(mkdir(tdir, 0755), 0);
	FILE *fp = fopen(p, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(body, 1, blen, fp), blen);
	fclose(fp);
	assert_fails_naming(dir, VJSON); /* not listed, not pending: slipped in */
	fp = fopen(pend, "w");
	assert_non_null(fp);
	fputs("torch/" VJSON "\n", fp);
	fclose(fp);
	assert_verifies(dir);
	assert_int_equal(mirror(dir, &t[2], 1, &prune, &rep, &err), 0);
	assert_false(exists(p));
	assert_false(exists(pend));
	assert_verifies(dir);
	free(pend), free(tdir);

	/* kill -9 while runs add and prune the variant release: the tree verifies after each */
	struct tf withv[3] = { t[0], t[2], all[4] };
	srand((unsigned)getpid());
	for (int iter = 0; iter < 8; iter++) {
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			for (unsigned k = 0;; k++) {
				struct wp_err e = WP_ERR_INIT;
				if (k % 2)
					mirror(dir, &t[2], 1, &prune, NULL, &e);
				else
					mirror(dir, withv, 3, &prune, NULL, &e);
			}
		}
		usleep((useconds_t)(1000 + rand() % 20000));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		assert_verifies(dir);
	}
	assert_int_equal(mirror(dir, withv, 3, &prune, &rep, &err), 0);
	assert_true(page_lists(dir, "cuda12.8/torch", VJSON, vsha));
	assert_verifies(dir);

	free(tpage), free(p), free(man), free(body);
	for (size_t i = 0; i < 4; i++)
		tf_release(&t[i]);
	free(dir), free(gen);
}

static int group_setup(void **state)
{
	if (test_tmpdir_make(root, sizeof(root), "mirror") < 0)
		return -1;
	char *cmd = wp_xasprintf("python3 tests/fixtures/mkwheels.py '%s/w' && "
				 "python3 sample/mksample.py '%s/s'", root, root);
	int rc = system(cmd);
	free(cmd);
	return rc == 0 ? 0 : -1;
}

static int group_teardown(void **state)
{
	test_tmpdir_remove(shm);
	return test_tmpdir_remove(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pages),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_rerun_adds_prune_keeps_pinned),
		cmocka_unit_test(test_replace_other_bytes),
		cmocka_unit_test(test_verify_finds_damage),
		cmocka_unit_test(test_conda_channel),
		cmocka_unit_test_teardown(test_pip_through_nginx, nginx_teardown),
		cmocka_unit_test(test_kill9),
		cmocka_unit_test(test_variants_json),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
