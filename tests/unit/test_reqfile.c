/* tests/unit/test_reqfile.c: resolver/reqfile (pip's requirements and constraints files), with
 * files and environment variables served from memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "resolver/reqfile.h"

#define H1 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define H2 "BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"

struct memfs {
	const char *names[8];
	const char *texts[8];
	unsigned reads;
};

static int mem_read(void *ctx, const char *path, struct wp_buf *out, struct wp_err *err)
{
	struct memfs *fs = ctx;
	fs->reads++;
	for (size_t i = 0; i < 8 && fs->names[i]; i++)
		if (!strcmp(fs->names[i], path)) {
			if (wp_buf_addstr(out, fs->texts[i]) < 0)
				return wp_fail(err, -WPE_TOO_BIG, "'%s' is too big", path);
			return 0;
		}
	return wp_fail(err, -WPE_IO, "cannot open '%s': No such file or directory", path);
}

static const char *mem_env(void *ctx, const char *name)
{
	return !strcmp(name, "TORCH_VERSION") ? "2.4.0" :
	       !strcmp(name, "MIRROR")        ? "https://mirror.test/simple/" :
						NULL;
}

static int parse(struct wp_reqfile *rf, struct memfs *fs, const char *text, struct wp_err *err)
{
	struct wp_reqfile_io io = { .read = mem_read, .lookup_var = mem_env, .ctx = fs };
	memset(rf, 0, sizeof(*rf));
	return wp_reqfile_parse(rf, "dir/requirements.txt", text, strlen(text), false, &io, err);
}

static void test_lines(void **state)
{
	struct wp_reqfile rf;
	struct wp_err e = WP_ERR_INIT;
	struct memfs fs = { 0 };
	const char *text = "\xef\xbb\xbf# a comment\n"
			   "torch==${TORCH_VERSION} \\\n"
			   "    --hash=sha256:" H1 " \\\n"
			   "    --hash sha256:" H2 "\r\n"
			   "\n"
			   "numpy>=1.24 ; python_version >= \"3.9\"  # why: the ABI\n"
			   "pillow[extra]  # a comment after\n"
			   "   \n"
			   "foo @ bar#notacomment ; extra == 'x'\n";
	/* a direct reference is refused: the last line */
	assert_int_equal(parse(&rf, &fs, text, &e), -WPE_USAGE);
	assert_non_null(strstr(e.msg, "dir/requirements.txt:9:"));
	assert_non_null(strstr(e.msg, "names a file by URL"));
	assert_int_equal(rf.reqs.n, 3);
	assert_string_equal(rf.reqs.v[0].text, "torch==2.4.0");
	assert_string_equal(rf.reqs.v[0].project, "torch");
	assert_string_equal(rf.reqs.v[0].where, "dir/requirements.txt:2");
	assert_int_equal(rf.reqs.v[0].nhashes, 2);
	assert_string_equal(rf.reqs.v[0].hashes[0], H1);
	assert_string_equal(rf.reqs.v[0].hashes[1],
			    "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
	assert_true(rf.reqs.v[0].pinned);
	assert_string_equal(rf.reqs.v[1].text, "numpy>=1.24 ; python_version >= \"3.9\"");
	assert_false(rf.reqs.v[1].pinned);
	assert_string_equal(rf.reqs.v[1].where, "dir/requirements.txt:6");
	assert_string_equal(rf.reqs.v[2].project, "pillow");
	wp_reqfile_release(&rf);
}

static void test_options(void **state)
{
	struct wp_reqfile rf;
	struct wp_err e = WP_ERR_INIT;
	struct memfs fs = { 0 };
	assert_int_equal(parse(&rf, &fs,
			       "--index-url ${MIRROR}\n"
			       "--extra-index-url=https://download.pytorch.org/whl/cu121\n"
			       "-f wheels\n"
			       "--find-links /abs/wh\n"
			       "--pre\n--no-index\n--require-hashes\n--prefer-binary\n--only-binary :all:\n"
			       "torch --config-settings x=y\n",
			       &e),
			 0);
	assert_int_equal(rf.sources.n, 4);
	assert_string_equal(rf.sources.v[0].url, "https://mirror.test/simple/");
	assert_int_equal(rf.sources.v[0].kind, WP_REQFILE_INDEX_URL);
	assert_int_equal(rf.sources.v[1].kind, WP_REQFILE_EXTRA_INDEX_URL);
	assert_string_equal(rf.sources.v[2].url, "dir/wheels"); /* next to the file, as pip reads it
								 */
	assert_int_equal(rf.sources.v[2].kind, WP_REQFILE_FIND_LINKS);
	assert_string_equal(rf.sources.v[3].url, "/abs/wh");
	assert_true(rf.pre && rf.no_index && rf.require_hashes);
	assert_int_equal(rf.notes.n, 3);
	assert_non_null(strstr(rf.notes.v[2], "--config-settings"));
	assert_int_equal(rf.reqs.n, 1);
	/* --require-hashes: torch has none */
	assert_int_equal(wp_reqfile_check_hashes(&rf, false, &e), -WPE_USAGE);
	assert_non_null(strstr(e.msg, "dir/requirements.txt:10: 'torch' has no --hash"));
	wp_reqfile_release(&rf);

	static const struct {
		const char *line, *want;
	} refused[] = {
		{ "-e .\n", "-e installs a source tree" },
		{ "--trusted-host example.test\n", "turns off TLS checks" },
		{ "--no-binary :all:\n", "build from source" },
		{ "--frobnicate\n", "'--frobnicate' is not a requirements-file option" },
		{ "torch --hash=md5:abcd\n", "only sha256 hashes" },
		{ "torch --hash=sha256:abcd\n", "not sha256: and 64 hex digits" },
		{ "torch --pre\n", "cannot follow a requirement" },
		{ "./torch-2.4.0-cp311-cp311-linux_x86_64.whl\n", "a file by path or URL" },
		{ "https://example.test/x.whl\n", "a file by path or URL" },
		{ "torch=2.9\n", "did you mean 'torch==2.9'?" },
		{ "pytorch 1.8.*\n", "did you mean 'pytorch==1.8.*'?" },
		{ "torch==>1\n", "is not a requirement:" },
		{ "--index-url\n", "needs a URL" },
		{ "-r https://example.test/r.txt\n", "by URL" },
		{ "torch --hash='sha256:" H1 "\n", "quote is not closed" },
		{ "a\0b\n", "NUL byte" },
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		struct wp_err e2 = WP_ERR_INIT;
		struct wp_reqfile_io io = { .read = mem_read, .ctx = &fs };
		memset(&rf, 0, sizeof(rf));
		size_t len = strlen(refused[i].line);
		if (!strcmp(refused[i].line, "a"))
			len = 4; /* the NUL case */
		assert_int_equal(wp_reqfile_parse(&rf, "r.txt", refused[i].line, len, false, &io,
						  &e2),
				 -WPE_USAGE);
		if (!strstr(e2.msg, refused[i].want))
			fail_msg("'%s': message '%s' lacks '%s'", refused[i].line, e2.msg,
				 refused[i].want);
		assert_non_null(strstr(e2.msg, "r.txt:1: "));
		wp_reqfile_release(&rf);
	}
}

static void test_nesting(void **state)
{
	struct wp_reqfile rf = { 0 };
	struct wp_err e = WP_ERR_INIT;
	struct memfs fs = {
		.names = { "top/requirements.txt", "top/sub/more.txt", "top/constraints.txt",
			   "top/loop.txt", "top/sub/../constraints.txt" },
		.texts = { "-r sub/more.txt\n-c constraints.txt\ntorch\n",
			   "numpy\n-r ../constraints.txt\n", "numpy<2 --hash=sha256:" H1 "\n",
			   "-r loop.txt\n", "numpy<2 --hash=sha256:" H1 "\n" },
	};
	struct wp_reqfile_io io = { .read = mem_read, .ctx = &fs };
	assert_int_equal(wp_reqfile_load(&rf, "top/requirements.txt", false, &io, &e), 0);
	/* more.txt, then constraints.txt read as requirements (named with -r), as a constraint,
	 * torch */
	assert_int_equal(rf.reqs.n, 4);
	assert_string_equal(rf.reqs.v[0].text, "numpy");
	assert_string_equal(rf.reqs.v[0].where, "top/sub/more.txt:1");
	assert_false(rf.reqs.v[1].constraint);
	assert_string_equal(rf.reqs.v[1].where, "top/sub/../constraints.txt:1");
	assert_true(rf.reqs.v[2].constraint);
	assert_int_equal(rf.reqs.v[2].nhashes, 1);
	assert_string_equal(rf.reqs.v[3].text, "torch");
	assert_int_equal(rf.files, 4);
	/* a hash on one requirement: pip's hash-checking mode wants all pinned and hashed */
	assert_int_equal(wp_reqfile_check_hashes(&rf, false, &e), -WPE_USAGE);
	assert_non_null(strstr(e.msg, "top/sub/more.txt:1: 'numpy' has no --hash"));
	assert_non_null(strstr(e.msg, "hash-checking mode"));
	wp_reqfile_release(&rf);

	/* a file that names itself */
	memset(&rf, 0, sizeof(rf));
	wp_err_clear(&e);
	assert_int_equal(wp_reqfile_load(&rf, "top/loop.txt", false, &io, &e), -WPE_USAGE);
	assert_non_null(strstr(e.msg, "includes itself"));
	wp_reqfile_release(&rf);

	/* a missing nested file: the reader's error */
	memset(&rf, 0, sizeof(rf));
	wp_err_clear(&e);
	assert_int_equal(wp_reqfile_parse(&rf, "x.txt", "-r nope.txt\n", 12, false, &io, &e),
			 -WPE_IO);
	assert_non_null(strstr(e.msg, "nope.txt"));
	wp_reqfile_release(&rf);

	/* extras in a constraint are refused, as pip does */
	memset(&rf, 0, sizeof(rf));
	wp_err_clear(&e);
	assert_int_equal(wp_reqfile_parse(&rf, "c.txt", "torch[opt]<3\n", 13, true, &io, &e),
			 -WPE_USAGE);
	assert_non_null(strstr(e.msg, "cannot name extras"));
	wp_reqfile_release(&rf);
}

/* A reader that answers every path with a file naming another: the depth cap stops it. */
static int deep_read(void *ctx, const char *path, struct wp_buf *out, struct wp_err *err)
{
	unsigned *n = ctx;
	wp_buf_printf(out, "-r f%u.txt\n", ++*n);
	return 0;
}

static void test_depth(void **state)
{
	struct wp_reqfile rf = { 0 };
	struct wp_err e = WP_ERR_INIT;
	unsigned n = 0;
	struct wp_reqfile_io io = { .read = deep_read, .ctx = &n };
	assert_int_equal(wp_reqfile_load(&rf, "f0.txt", false, &io, &e), -WPE_USAGE);
	assert_non_null(strstr(e.msg, "nested more than 10 deep"));
	assert_int_equal(n, WP_REQFILE_MAX_DEPTH + 1);
	wp_reqfile_release(&rf);
}

/* Issue 24: 30 -r lines per file, 10 levels. Each file names 30 others of the next level (distinct
 * names), or the same one 30 times; the leaves are empty. */
struct fan {
	unsigned reads;
	bool same;   /* every line of a level names the same file */
	size_t pad;  /* bytes of comment in each file */
};

static int fan_read(void *ctx, const char *path, struct wp_buf *out, struct wp_err *err)
{
	struct fan *f = ctx;
	unsigned level = 0;
	f->reads++;
	sscanf(path, "l%u", &level);
	char line[101];
	memset(line, '#', 99);
	line[99] = '\n';
	line[100] = 0;
	for (size_t i = 0; i < f->pad / 100; i++)
		if (wp_buf_addstr(out, line) < 0)
			return wp_fail(err, -WPE_TOO_BIG, "'%s' is too big", path);
	if (level < 9)
		for (unsigned i = 0; i < 30; i++)
			wp_buf_printf(out, "-r l%u-%u-%s.txt\n", level + 1, f->same ? 0 : i,
				      f->same ? "x" : path);
	return 0;
}

static void test_fanout(void **state)
{
	struct wp_reqfile rf = { 0 };
	struct wp_err e = WP_ERR_INIT;
	/* distinct files: the cap on files read ends it */
	struct fan f = { 0 };
	struct wp_reqfile_io io = { .read = fan_read, .ctx = &f };
	assert_int_equal(wp_reqfile_load(&rf, "l0.txt", false, &io, &e), -WPE_USAGE);
	assert_non_null(strstr(e.msg, "more than 1000 files read"));
	assert_true(f.reads <= 1000);
	wp_reqfile_release(&rf);
	/* the same file named 30 times is read once: ten reads in all, and no error */
	memset(&f, 0, sizeof(f));
	f.same = true;
	wp_err_clear(&e);
	assert_int_equal(wp_reqfile_load(&rf, "l0.txt", false, &io, &e), 0);
	assert_int_equal(f.reads, 10);
	assert_int_equal(rf.files, 10);
	/* and a file given twice at the top is read once too */
	assert_int_equal(wp_reqfile_load(&rf, "l0.txt", false, &io, &e), 0);
	assert_int_equal(f.reads, 10);
	wp_reqfile_release(&rf);
	/* big files: the cap on bytes of all files together ends it */
	memset(&f, 0, sizeof(f));
	f.pad = 4 << 20;
	wp_err_clear(&e);
	assert_int_equal(wp_reqfile_load(&rf, "l0.txt", false, &io, &e), -WPE_USAGE);
	assert_non_null(strstr(e.msg, "more than 64 MiB"));
	assert_true(f.reads <= 17);
	wp_reqfile_release(&rf);
}

static void test_hash_mode_pinned(void **state)
{
	struct wp_reqfile rf;
	struct wp_err e = WP_ERR_INIT;
	struct memfs fs = { 0 };
	assert_int_equal(parse(&rf, &fs,
			       "torch>=2 --hash=sha256:" H1 "\nnumpy===1.0 --hash=sha256:" H2 "\n",
			       &e),
			 0);
	assert_int_equal(wp_reqfile_check_hashes(&rf, false, &e), -WPE_USAGE);
	assert_non_null(strstr(e.msg, "'torch>=2' is not pinned with =="));
	wp_reqfile_release(&rf);
	wp_err_clear(&e);
	assert_int_equal(parse(&rf, &fs, "torch==2.4.0 --hash=sha256:" H1 "\n", &e), 0);
	assert_int_equal(wp_reqfile_check_hashes(&rf, true, &e), 0);
	wp_reqfile_release(&rf);
	/* nothing hashed, nothing asked: no rule */
	assert_int_equal(parse(&rf, &fs, "torch\n", &e), 0);
	assert_int_equal(wp_reqfile_check_hashes(&rf, false, &e), 0);
	wp_err_clear(&e);
	assert_int_equal(wp_reqfile_check_hashes(&rf, true, &e), -WPE_USAGE);
	assert_non_null(strstr(e.msg, "--require-hashes is given"));
	wp_reqfile_release(&rf);
}

static void test_guess(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "torch=2.9", "torch==2.9" },
		{ "pytorch=1.8.0=py3.8_cuda11.1_cudnn8.0.5_0", "pytorch==1.8.0" },
		{ "pytorch 1.8.*", "pytorch==1.8.*" },
		{ "torch==2.9", NULL },
		{ "torch>=2", NULL },
		{ "torch=abc", NULL },
		{ "=2", NULL },
		{ "torch 2.9 extra", NULL },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct wp_buf b = WP_BUF_INIT;
		bool got = wp_requirement_guess(cases[i].in, &b);
		if (cases[i].out) {
			assert_true(got);
			assert_string_equal(b.data, cases[i].out);
		} else {
			assert_false(got);
		}
		wp_buf_free(&b);
	}
	assert_true(wp_looks_like_version_spec("1.8.*"));
	assert_true(wp_looks_like_version_spec(">=2.0"));
	assert_true(wp_looks_like_version_spec("2.4"));
	assert_false(wp_looks_like_version_spec("torchvision"));
	assert_false(wp_looks_like_version_spec("3to2x-y"));
	assert_false(wp_looks_like_version_spec(""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_nesting),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_fanout),
		cmocka_unit_test(test_hash_mode_pinned),
		cmocka_unit_test(test_guess),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
