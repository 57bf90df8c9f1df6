/* tests/fuzz/fuzz_reqfile.c: libFuzzer target for pip's requirements files (resolver/reqfile):
 * the input is the file, and every file it names (-r/-c) reads as the input again, so nesting
 * runs into the depth cap. What is accepted must be PEP 508 with well-formed hashes. */
#include "tests/fuzz/fuzz.h"

#include <ctype.h>
#include <stdbool.h>

#include "base/buf.h"
#include "base/err.h"
#include "resolver/reqfile.h"
#include "resolver/requirement.h"

struct input {
	const uint8_t *data;
	size_t size;
};

static int read_same(void *ctx, const char *path, struct wp_buf *out, struct wp_err *err)
{
	const struct input *in = ctx;
	FZ_CHECK(path && *path);
	if (wp_buf_add(out, in->data, in->size) < 0)
		return wp_fail(err, -WPE_TOO_BIG, "'%s' is too big", path);
	return 0;
}

static const char *env(void *ctx, const char *name)
{
	FZ_CHECK(name && *name);
	return name[0] == 'A' ? "" : name[0] == 'B' ? "${B}" : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	struct wp_reqfile_io io = { .read = read_same, .lookup_var = env, .ctx = &in };
	struct wp_reqfile rf = { 0 };
	struct wp_err err = WP_ERR_INIT;
	int rc = wp_reqfile_load(&rf, "dir/requirements.txt", false, &io, &err);
	FZ_CHECK(rc == 0 || (err.code == rc && err.msg[0]));
	for (size_t i = 0; i < rf.reqs.n; i++) {
		const struct wp_reqfile_req *q = &rf.reqs.v[i];
		struct wp_requirement r;
		struct wp_err e2 = WP_ERR_INIT;
		FZ_CHECK(q->project && *q->project && q->where);
		FZ_CHECK(wp_requirement_parse(&r, q->text, strlen(q->text), &e2) == 0);
		FZ_CHECK(!r.url);
		wp_requirement_release(&r);
		/* the reader's own parse, which the jobs take instead of parsing the text again */
		FZ_CHECK(q->req.ok && !strcmp(q->req.text, q->text) &&
			 !strcmp(q->req.project, q->project));
		for (size_t k = 0; k < q->nhashes; k++) {
			FZ_CHECK(strlen(q->hashes[k]) == 64);
			for (const char *c = q->hashes[k]; *c; c++)
				FZ_CHECK(isxdigit((unsigned char)*c) &&
					 !isupper((unsigned char)*c));
		}
	}
	for (size_t i = 0; i < rf.sources.n; i++)
		FZ_CHECK(rf.sources.v[i].url && rf.sources.v[i].url[0]);
	struct wp_err e3 = WP_ERR_INIT;
	(void)wp_reqfile_check_hashes(&rf, size & 1, &e3);
	wp_reqfile_release(&rf);

	/* the guesses, on the first line */
	char *s = fz_cstr(data, size);
	s[strcspn(s, "\n")] = 0;
	struct wp_buf fix = WP_BUF_INIT_MAX(4 * WP_REQUIREMENT_MAX_LEN + 16);
	if (wp_requirement_guess(s, &fix)) {
		FZ_CHECK(strstr(fix.data, "=="));
	}
	(void)wp_looks_like_version_spec(s);
	wp_buf_free(&fix);
	free(s);
	return 0;
}
