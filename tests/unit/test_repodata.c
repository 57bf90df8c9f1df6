/* tests/unit/test_repodata.c: conda repodata, plain and compressed, real and hostile, in bounded
 * memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

#include "base/buf.h"
#include "base/mem.h"
#include "index/repodata.h"
#include "tests/unit/fixtures.h"

#define BASE "https://conda.anaconda.org/pytorch/linux-64"

struct tally {
	size_t n, pytorch, pytorch_cuda_builds, cuda_builds_with_cuda_dep, with_constrains,
		timestamp_ms;
	size_t bad_json;
	bool saw_example;
};

static bool has_dep(const char *depends, const char *name)
{
	/* entries are JSON strings: "cudatoolkit >=11.1,<11.2" */
	char *pat = wp_xasprintf("\"%s ", name);
	bool yes = depends && strstr(depends, pat);
	free(pat);
	return yes;
}

static int tally_sink(void *ctx, const struct wp_file_record *r, struct wp_err *err)
{
	struct tally *t = ctx;
	t->n++;
	assert_int_equal(r->kind, WP_KIND_CONDA);
	assert_non_null(r->project);
	assert_non_null(r->url);
	if (r->timestamp > 1000000000000LL)
		t->timestamp_ms++;
	if (r->depends) {
		char ebuf[128];
		yajl_val v = yajl_tree_parse(r->depends, ebuf, sizeof(ebuf));
		if (!v || !YAJL_IS_ARRAY(v))
			t->bad_json++;
		yajl_tree_free(v);
	}
	if (r->constrains)
		t->with_constrains++;
	if (!strcmp(r->project, "pytorch")) {
		t->pytorch++;
		if (strstr(r->build, "cuda")) {
			t->pytorch_cuda_builds++;
			if (has_dep(r->depends, "cudatoolkit") ||
			    has_dep(r->depends, "pytorch-cuda"))
				t->cuda_builds_with_cuda_dep++;
		}
	}
	if (!strcmp(r->filename, "pytorch-2.1.0-py3.9_cuda12.1_cudnn8.9.2_0.tar.bz2")) {
		t->saw_example = true;
		assert_string_equal(r->url,
				    BASE "/pytorch-2.1.0-py3.9_cuda12.1_cudnn8.9.2_0.tar.bz2");
		assert_string_equal(r->version, "2.1.0");
		assert_string_equal(r->build, "py3.9_cuda12.1_cudnn8.9.2_0");
		assert_int_equal(r->build_number, 0);
		assert_string_equal(r->subdir, "linux-64");
		assert_string_equal(r->md5, "bfd37eeafa75575b1220133194b467c9");
		assert_string_equal(r->sha256,
				    "86637237e9e841ee50e2c8e7708a2b866f134033c36a49928b02b18db40958a6");
		assert_int_equal(r->size, 1373673131);
		assert_int_equal(r->timestamp, 1695395996794LL);
		assert_string_equal(r->constrains, "[\"cpuonly <0\"]");
		assert_non_null(
			strstr(r->depends,
			       "\"pytorch-cuda >=12.1,<12.2\", \"pytorch-mutex 1.0 cuda\""));
		assert_string_equal(r->license, "BSD 3-Clause");
		assert_null(r->noarch);
		assert_null(r->dir);
	}
	return 0;
}

static void check_rattler(const struct tally *t, const struct wp_index_stats *st)
{
	assert_int_equal(t->n, 2181);
	assert_int_equal(st->records, 2181);
	assert_int_equal(st->links, 2181);
	assert_int_equal(st->malformed, 0);
	assert_int_equal(t->pytorch, 276);
	assert_int_equal(t->pytorch_cuda_builds, 203);
	assert_int_equal(t->cuda_builds_with_cuda_dep, 203);
	assert_int_equal(t->bad_json, 0);
	assert_true(t->saw_example);
	assert_int_equal(t->timestamp_ms, 2181);
}

static char *tmp_path(const char *suffix)
{
	return wp_xasprintf("/tmp/wp_test_repodata_%d%s", (int)getpid(), suffix);
}

static void run_cmd(const char *cmd)
{
	int rc = system(cmd);
	if (rc != 0)
		fail_msg("'%s' failed with %d", cmd, rc);
}

static void test_rattler_plain_and_compressed(void **state)
{
	char *src = fixture_need("conda_repodata/rattler_pytorch_linux-64_repodata.json");
	struct tally t = { 0 };
	struct wp_index_stats st;
	struct wp_err err = WP_ERR_INIT;
	if (wp_read_repodata_file(src, BASE, tally_sink, &t, &st, &err))
		fail_msg("%s", err.msg);
	check_rattler(&t, &st);

	static const char *const tools[][2] = { { ".bz2", "bzip2 -c" },
						{ ".zst", "zstd -q -c" },
						{ ".gz", "gzip -c" } };
	for (size_t i = 0; i < 3; i++) {
		char *dst = tmp_path(tools[i][0]);
		char *cmd = wp_xasprintf("%s '%s' > '%s'", tools[i][1], src, dst);
		run_cmd(cmd);
		memset(&t, 0, sizeof(t));
		wp_err_clear(&err);
		if (wp_read_repodata_file(dst, BASE, tally_sink, &t, &st, &err))
			fail_msg("%s: %s", tools[i][0], err.msg);
		check_rattler(&t, &st);

		/* the memory variant reads the same compressed bytes */
		FILE *f = fopen(dst, "rb");
		struct wp_buf b = WP_BUF_INIT;
		char chunk[65536];
		size_t n;
		while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
			wp_buf_add(&b, chunk, n);
		fclose(f);
		memset(&t, 0, sizeof(t));
		if (wp_read_repodata_mem(b.data, b.len, BASE "/", tally_sink, &t, &st, &err))
			fail_msg("%s in memory: %s", tools[i][0], err.msg);
		check_rattler(&t, &st);
		wp_buf_free(&b);
		unlink(dst);
		free(dst);
		free(cmd);
	}
	free(src);
}

struct first {
	size_t n;
	char *url, *subdir, *constrains, *features, *noarch;
	long long ts;
};

static int first_sink(void *ctx, const struct wp_file_record *r, struct wp_err *err)
{
	struct first *f = ctx;
	if (f->n++ == 0) {
		f->url = wp_xstrdup(r->url);
		f->subdir = r->subdir ? wp_xstrdup(r->subdir) : NULL;
		f->constrains = r->constrains ? wp_xstrdup(r->constrains) : NULL;
		f->features = r->track_features ? wp_xstrdup(r->track_features) : NULL;
		f->noarch = r->noarch ? wp_xstrdup(r->noarch) : NULL;
		f->ts = r->timestamp;
	}
	return 0;
}

static void first_free(struct first *f)
{
	free(f->url), free(f->subdir), free(f->constrains), free(f->features), free(f->noarch);
	memset(f, 0, sizeof(*f));
}

/* The tap sees every byte of a plain file, in order, with the records parsed as without it; a
 * compressed file is not tapped (the crawl hashes it on its own), nor is one the parse refused */
static void collect_tap(void *ctx, const void *data, size_t n)
{
	wp_buf_add(ctx, data, n);
}

static void test_tap(void **state)
{
	char *src = fixture_need("conda_repodata/rattler_pytorch_linux-64_repodata.json");
	struct tally t = { 0 };
	struct wp_index_stats st;
	struct wp_err err = WP_ERR_INIT;
	struct wp_buf seen = WP_BUF_INIT, whole = WP_BUF_INIT;
	bool tapped = false;
	if (wp_read_repodata_file_tap(src, BASE, collect_tap, &seen, &tapped, tally_sink, &t, &st,
				      &err))
		fail_msg("%s", err.msg);
	check_rattler(&t, &st);
	assert_true(tapped);
	FILE *f = fopen(src, "rb");
	assert_non_null(f);
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		wp_buf_add(&whole, chunk, n);
	fclose(f);
	assert_int_equal(seen.len, whole.len);
	assert_memory_equal(seen.data, whole.data, whole.len);

	char *gz = tmp_path(".tap.gz");
	char *cmd = wp_xasprintf("gzip -c '%s' > '%s'", src, gz);
	run_cmd(cmd);
	wp_buf_reset(&seen);
	memset(&t, 0, sizeof(t));
	tapped = true;
	if (wp_read_repodata_file_tap(gz, BASE, collect_tap, &seen, &tapped, tally_sink, &t, &st,
				      &err))
		fail_msg("%s", err.msg);
	check_rattler(&t, &st);
	assert_false(tapped);
	assert_int_equal(seen.len, 0);
	unlink(gz);

	char *bad = tmp_path(".tap.json");
	f = fopen(bad, "wb");
	assert_non_null(f);
	fputs("{\"packages\": {\"a-1-0.tar.bz2\": [", f);
	fclose(f);
	tapped = true;
	assert_int_not_equal(wp_read_repodata_file_tap(bad, BASE, collect_tap, &seen, &tapped,
						       tally_sink, &t, &st, &err),
			     0);
	assert_false(tapped);
	unlink(bad);
	free(bad);
	free(cmd);
	free(gz);
	wp_buf_free(&seen);
	wp_buf_free(&whole);
	free(src);
}

static void test_mamba_numpy(void **state)
{
	char *path = fixture_need("conda_repodata/mamba_conda-forge-numpy-linux-64_repodata.json");
	struct first f = { 0 };
	struct wp_index_stats st;
	struct wp_err err = WP_ERR_INIT;
	if (wp_read_repodata_file(path, "https://conda.anaconda.org/conda-forge/linux-64",
				  first_sink, &f, &st, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(f.n, 34);
	assert_int_equal(st.records, 34);
	assert_non_null(strstr(f.url, "https://conda.anaconda.org/conda-forge/linux-64/"));
	free(path);
	first_free(&f);
}

#define MEM(s, f, st, err) wp_read_repodata_mem((s), strlen(s), BASE, first_sink, (f), (st), (err))

static void test_fields_and_quirks(void **state)
{
	struct first f = { 0 };
	struct wp_index_stats st;
	struct wp_err err = WP_ERR_INIT;
	const char *doc =
		"{\"signatures\":{\"a\":{\"b\":{\"c\":[1,{\"d\":2}]}}},"
		"\"packages.conda\":{\"x-1-0.conda\":{\"name\":\"x\",\"version\":\"1\",\"build\":\"0\",\"build_number\":0,"
		"\"depends\":[\"quote\\\" back\\\\slash\", \"tab\\tnl\"],\"constrains\":null,\"track_features\":[\"a\",\"b\"],"
		"\"timestamp\":1699279927,\"noarch\":true,\"extra\":{\"deep\":[[{\"x\":[]}]]}}},"
		"\"info\":{\"subdir\":\"noarch\"}}";
	assert_int_equal(MEM(doc, &f, &st, &err), 0);
	assert_int_equal(f.n, 1);
	assert_string_equal(f.url, BASE "/x-1-0.conda");
	assert_null(f.subdir); /* info came after the packages */
	assert_null(f.constrains);
	assert_string_equal(f.features, "a b");
	assert_string_equal(f.noarch, "generic");
	assert_int_equal(f.ts, 1699279927000LL);
	first_free(&f);

	/* depends escapes survive as JSON */
	struct tally t = { 0 };
	assert_int_equal(wp_read_repodata_mem(doc, strlen(doc), BASE, tally_sink, &t, &st, &err),
			 0);
	assert_int_equal(t.bad_json, 0);

	/* long items (scanned sixteen bytes at a time): a quote, a backslash or a control byte past
	 * the first block is escaped where it is, and bytes over 0x7f are not mistaken for
	 * control */
	const char *longs =
		"{\"packages\":{\"y-1-0.tar.bz2\":{\"name\":\"y\",\"version\":\"1\",\"build\":\"0\","
		"\"constrains\":[\"abcdefghijklmnopqrst\\\"u\", \"\u00fcn\u00efcode-long-name-over >=1\","
		" \"0123456789abcdef\\\\\", \"0123456789abcdefg\\u0001\"]}}}";
	struct first g = { 0 };
	assert_int_equal(MEM(longs, &g, &st, &err), 0);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.constrains,
			    "[\"abcdefghijklmnopqrst\\\"u\", \"\xc3\xbcn\xc3\xaf"
			    "code-long-name-over >=1\", "
			    "\"0123456789abcdef\\\\\", \"0123456789abcdefg\\u0001\"]");
	first_free(&g);

	/* info first: its subdir and CEP 15 base_url apply */
	const char *cep15 =
		"{\"info\":{\"subdir\":\"linux-64\",\"base_url\":\"https://mirror.example.org/pt/linux-64/\"},"
		"\"packages\":{\"a-1-0.tar.bz2\":{\"name\":\"a\",\"track_features\":\"cuda80\"}}}";
	assert_int_equal(MEM(cep15, &f, &st, &err), 0);
	assert_string_equal(f.url, "https://mirror.example.org/pt/linux-64/a-1-0.tar.bz2");
	assert_string_equal(f.subdir, "linux-64");
	assert_string_equal(f.features, "cuda80");
	first_free(&f);

	/* broken entries are counted, not fatal */
	const char *broken = "{\"packages\":{"
			     "\"ok-1-0.tar.bz2\":{\"name\":\"ok\"},"
			     "\"noname-1-0.tar.bz2\":{\"version\":\"1\"},"
			     "\"badhash-1-0.tar.bz2\":{\"name\":\"b\",\"sha256\":\"zz\"},"
			     "\"badtype-1-0.tar.bz2\":{\"name\":\"b\",\"depends\":\"x\"},"
			     "\"badlist-1-0.tar.bz2\":{\"name\":\"b\",\"depends\":[1]},"
			     "\"../evil-1-0.tar.bz2\":{\"name\":\"evil\"},"
			     "\"notaconda.whl\":{\"name\":\"w\"},"
			     "\"scalar-1-0.tar.bz2\":5,"
			     "\"nul\\u0000-1-0.tar.bz2\":{\"name\":\"n\"}}}";
	assert_int_equal(MEM(broken, &f, &st, &err), 0);
	assert_int_equal(f.n, 1);
	assert_int_equal(st.links, 9);
	assert_int_equal(st.records, 1);
	assert_int_equal(st.skipped, 8);
	assert_int_equal(st.malformed, 7);
	first_free(&f);

	/* many depends: capped per record, the record is skipped, the file goes on */
	struct wp_buf b = WP_BUF_INIT;
	wp_buf_addstr(&b, "{\"packages\":{\"big-1-0.tar.bz2\":{\"name\":\"big\",\"depends\":[");
	for (int i = 0; i < 10000; i++)
		wp_buf_printf(&b, "%s\"dep%d\"", i ? "," : "", i);
	wp_buf_addstr(&b, "]},\"ok-1-0.tar.bz2\":{\"name\":\"ok\"}}}");
	assert_int_equal(wp_read_repodata_mem(b.data, b.len, BASE, first_sink, &f, &st, &err), 0);
	assert_int_equal(st.records, 1);
	assert_int_equal(st.malformed, 1);
	first_free(&f);
	wp_buf_free(&b);
}

static void expect_refused(const char *what, const char *data, size_t len, int code,
			   const char *in_msg)
{
	struct first f = { 0 };
	struct wp_err err = WP_ERR_INIT;
	clock_t t0 = clock();
	int rc = wp_read_repodata_mem(data, len, BASE, first_sink, &f, NULL, &err);
	if (rc != code)
		fail_msg("%s: got %d (%s), want %d", what, rc, err.msg, code);
	if (!strstr(err.msg, in_msg))
		fail_msg("%s: message '%s' lacks '%s'", what, err.msg, in_msg);
	if ((double)(clock() - t0) / CLOCKS_PER_SEC > 5.0)
		fail_msg("%s: took too long to refuse", what);
	first_free(&f);
}

#define REFUSE(what, s, code, msg) expect_refused(what, s, strlen(s), code, msg)

static void test_refused(void **state)
{
	REFUSE("truncated",
	       "{\"packages\":{\"a-1-0.tar.bz2\":{\"name\":\"a\"},\"b-1-0.tar.bz2\":{\"na",
	       -WPE_SOURCE, "is not conda repodata");
	REFUSE("HTML", "<html><body>502 Bad Gateway</body></html>", -WPE_SOURCE, BASE);
	REFUSE("not repodata", "{\"error\":\"not found\"}", -WPE_SOURCE, "no \"packages\"");
	REFUSE("array", "[]", -WPE_SOURCE, "not a JSON object");
	REFUSE("empty", "", -WPE_SOURCE, "not conda repodata");
	REFUSE("bad bzip2", "BZh91AY&SYgarbagegarbage", -WPE_SOURCE, "'" BASE "'");

	struct wp_buf b = WP_BUF_INIT;
	wp_buf_addstr(&b, "{\"packages\":");
	for (int i = 0; i < 100000; i++)
		wp_buf_addch(&b, '[');
	expect_refused("deep", b.data, b.len, -WPE_SOURCE, "nested too deep");
	wp_buf_free(&b);

	wp_buf_addstr(&b, "{\"packages\":{},\"x\":\"");
	for (size_t i = 0; i < WP_REPODATA_MAX_TOKEN + 10; i++)
		wp_buf_addch(&b, 'a');
	expect_refused("long string", b.data, b.len, -WPE_TOO_BIG, "longer than");
	wp_buf_free(&b);
	/* escapes count, and do not end the string */
	wp_buf_addstr(&b, "{\"packages\":{},\"x\":\"");
	for (size_t i = 0; i < WP_REPODATA_MAX_TOKEN / 2 + 10; i++)
		wp_buf_addstr(&b, "\\\"");
	expect_refused("long string of escapes", b.data, b.len, -WPE_TOO_BIG, "longer than");
	wp_buf_free(&b);
	/* a literal too */
	wp_buf_addstr(&b, "{\"packages\":{},\"x\":1");
	for (size_t i = 0; i < WP_REPODATA_MAX_TOKEN + 10; i++)
		wp_buf_addch(&b, '0');
	expect_refused("long number", b.data, b.len, -WPE_TOO_BIG, "longer than");
	wp_buf_free(&b);
	/* just under the limit, escapes and all, is read */
	wp_buf_addstr(&b,
		      "{\"packages\":{\"a-1-0.tar.bz2\":{\"name\":\"a\",\"version\":\"1\",\"build\":\"0\",\"x\":\"");
	for (size_t i = 0; i < WP_REPODATA_MAX_TOKEN / 2 - 10; i++)
		wp_buf_addstr(&b, i % 2 ? "\\n" : "ab");
	wp_buf_addstr(&b, "\"}}}");
	{
		struct wp_err e = WP_ERR_INIT;
		struct wp_index_stats st = { 0 };
		struct first one = { 0 };
		assert_int_equal(wp_read_repodata_mem(b.data, b.len, BASE, first_sink, &one, &st,
						      &e),
				 0);
		assert_int_equal(st.records, 1);
		first_free(&one);
	}
	wp_buf_free(&b);

	struct first f = { 0 };
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_read_repodata_file("/nonexistent/repodata.json", BASE, first_sink, &f,
					       NULL, &err),
			 -WPE_IO);
	assert_non_null(strstr(err.msg, "/nonexistent/repodata.json"));
	wp_err_clear(&err);
	assert_int_equal(wp_read_repodata_mem("{}", 2, "conda-forge/linux-64", first_sink, &f, NULL,
					      &err),
			 -WPE_USAGE);
}

static void test_bombs(void **state)
{
	/* 2 GiB of zeros as 128 zstd frames of 16 MiB (one compressed, then doubled: quick to make,
	 * and libarchive reads the frames as one stream): not JSON, refused at the first chunk */
	char *zeros = tmp_path("_zeros.zst");
	char *cmd = wp_xasprintf("head -c 16777216 /dev/zero | zstd -q -1 -c > '%1$s' && "
				 "for i in 1 2 3 4 5 6 7; do cat '%1$s' '%1$s' > '%1$s.2' && mv '%1$s.2' '%1$s'; done",
				 zeros);
	run_cmd(cmd);
	struct first f = { 0 };
	struct wp_err err = WP_ERR_INIT;
	clock_t t0 = clock();
	int rc = wp_read_repodata_file(zeros, BASE, first_sink, &f, NULL, &err);
	assert_true(rc == -WPE_TOO_BIG || rc == -WPE_SOURCE);
	assert_true((double)(clock() - t0) / CLOCKS_PER_SEC < 2.0);
	unlink(zeros);
	free(zeros);
	free(cmd);

	/* valid JSON that is 128 MiB of whitespace: only the expansion ratio tells it is a bomb */
	char *ws = tmp_path("_ws.zst");
	cmd = wp_xasprintf("printf '{\"packages\":{}' | zstd -q -c > '%1$s' && "
			   "head -c 16777216 /dev/zero | tr '\\0' ' ' | zstd -q -1 -c > '%1$s.sp' && "
			   "for i in 1 2 3 4 5 6 7 8; do cat '%1$s.sp' >> '%1$s'; done && "
			   "printf '}' | zstd -q -c >> '%1$s' && rm '%1$s.sp'",
			   ws);
	run_cmd(cmd);
	wp_err_clear(&err);
	t0 = clock();
	rc = wp_read_repodata_file(ws, BASE, first_sink, &f, NULL, &err);
	assert_int_equal(rc, -WPE_TOO_BIG);
	assert_non_null(strstr(err.msg, "compression bomb"));
	assert_true((double)(clock() - t0) / CLOCKS_PER_SEC < 2.0);
	unlink(ws);
	free(ws);
	free(cmd);
}

/* Writes a synthetic repodata of n records to path, streaming, without holding it. */
static void write_synthetic(const char *path, long n)
{
	FILE *out = fopen(path, "w");
	assert_non_null(out);
	fputs("{\"info\":{\"subdir\":\"linux-64\"},\"packages\":{", out);
	for (long i = 0; i < n; i++)
		fprintf(out,
			"%s\"pkg%ld-1.%ld-py39_0.tar.bz2\":{\"build\":\"py39_0\",\"build_number\":0,"
			"\"depends\":[\"python >=3.9,<3.10.0a0\",\"numpy >=1.21\",\"libgcc-ng >=12\"],"
			"\"license\":\"BSD-3-Clause\",\"md5\":\"%032ld\",\"name\":\"pkg%ld\",\"sha256\":\"%064ld\","
			"\"size\":%ld,\"subdir\":\"linux-64\",\"timestamp\":1695395996794,\"version\":\"1.%ld\"}",
			i ? "," : "", i % 5000, i, i, i % 5000, i, 1000 + i, i);
	fputs("},\"packages.conda\":{},\"repodata_version\":1}", out);
	fclose(out);
}

static int count_sink(void *ctx, const struct wp_file_record *r, struct wp_err *err)
{
	(*(size_t *)ctx)++;
	return 0;
}

/* First in the group so ru_maxrss is this test's high-water mark, not an earlier test's. */
static void test_streaming_memory(void **state)
{
	long n = getenv("WP_SLOW") ? 300000 : 30000;
	char *plain = tmp_path("_synthetic.json");
	char *zst = tmp_path("_synthetic.json.zst");
	write_synthetic(plain, n);
	char *cmd = wp_xasprintf("zstd -q -c '%s' > '%s'", plain, zst);
	run_cmd(cmd);

	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	long before_kb = ru.ru_maxrss;
	size_t count = 0;
	struct wp_index_stats st;
	struct wp_err err = WP_ERR_INIT;
	clock_t t0 = clock();
	if (wp_read_repodata_file(plain, BASE, count_sink, &count, &st, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(count, (size_t)n);
	count = 0;
	if (wp_read_repodata_file(zst, BASE, count_sink, &count, &st, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(count, (size_t)n);
	double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	getrusage(RUSAGE_SELF, &ru);
	long file_kb = 0;
	FILE *f = fopen(plain, "rb");
	fseek(f, 0, SEEK_END);
	file_kb = ftell(f) / 1024;
	fclose(f);
	print_message("synthetic repodata: %ld records, %ld KiB, %.1f s, peak RSS %ld KiB (before %ld KiB)\n",
		      n, file_kb, secs, ru.ru_maxrss, before_kb);
	assert_true(ru.ru_maxrss < 100 * 1024);
	/* and the growth is nowhere near the size of the input */
	assert_true(ru.ru_maxrss - before_kb < 32 * 1024);
	unlink(plain);
	unlink(zst);
	free(plain);
	free(zst);
	free(cmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_streaming_memory),
		cmocka_unit_test(test_rattler_plain_and_compressed),
		cmocka_unit_test(test_tap),
		cmocka_unit_test(test_mamba_numpy),
		cmocka_unit_test(test_fields_and_quirks),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_bombs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
