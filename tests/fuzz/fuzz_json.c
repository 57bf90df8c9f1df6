/* tests/fuzz/fuzz_json.c: libFuzzer target for base/json: the reader fed whole and in pieces must
 * agree, the tree loader must agree with it, and what the tree holds must write back out. */
#include "tests/fuzz/fuzz.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/json.h"

/* Counts events, and keeps the depth the skeleton promises never passes its cap. */
struct tally {
	size_t events;
	int depth;
};

static int t_value(void *ctx, enum wp_json_type t, const unsigned char *s, size_t n, bool b)
{
	struct tally *y = ctx;
	FZ_CHECK(t == WP_JSON_NULL || t == WP_JSON_BOOL ||
		 ((t == WP_JSON_NUMBER || t == WP_JSON_STRING) && s));
	y->events += 1 + n;
	return 0;
}

static int t_open(void *ctx)
{
	struct tally *y = ctx;
	FZ_CHECK(y->depth < WP_JSON_MAX_DEPTH);
	y->depth++;
	y->events++;
	return 0;
}

static int t_close(void *ctx)
{
	struct tally *y = ctx;
	FZ_CHECK(y->depth > 0);
	y->depth--;
	y->events++;
	return 0;
}

static int t_key(void *ctx, const unsigned char *s, size_t n)
{
	((struct tally *)ctx)->events += 1 + n;
	return 0;
}

static const struct wp_json_callbacks cbs = {
	.value = t_value, .start_map = t_open, .key = t_key, .end_map = t_close,
	.start_array = t_open, .end_array = t_close,
};

/* Every string in the tree written out again: the writer takes what the parser accepted. */
static void rewrite(struct wp_json *w, const struct wp_json_val *v)
{
	long long i;
	bool b;
	switch (wp_json_type(v)) {
	case WP_JSON_STRING:
		wp_json_str(w, wp_json_as_str(v));
		break;
	case WP_JSON_BOOL:
		FZ_CHECK(wp_json_as_bool(v, &b));
		wp_json_bool(w, b);
		break;
	case WP_JSON_NUMBER:
		wp_json_int(w, wp_json_as_int(v, &i) ? i : 0);
		break;
	case WP_JSON_ARRAY:
	case WP_JSON_OBJECT:
		wp_json_arr(w);
		for (size_t k = 0; k < wp_json_len(v); k++)
			rewrite(w, wp_json_at(v, k));
		wp_json_arr_end(w);
		break;
	default:
		wp_json_null(w);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct wp_json_opts o = { .what = "fuzz", .max_bytes = 1 << 20, .max_token = 4096 };
	struct wp_err e1 = WP_ERR_INIT, e2 = WP_ERR_INIT, e3 = WP_ERR_INIT;
	struct tally whole = { 0 }, pieces = { 0 };
	char *copy = wp_xmalloc(size ? size : 1); /* exactly sized: an overread is caught */
	memcpy(copy, data, size);

	int rc1 = wp_json_read(copy, size, &cbs, &whole, &o, &e1);
	FZ_CHECK(rc1 == 0 || (e1.code == rc1 && e1.msg[0] && !strchr(e1.msg, '\n')));
	if (!rc1)
		FZ_CHECK(whole.depth == 0);

	/* the same bytes in pieces of 1, 2, 3, ... bytes: the same answer */
	struct wp_json_reader r;
	wp_json_reader_init(&r, &cbs, &pieces, &o, &e2);
	int rc2 = 0;
	for (size_t at = 0, step = 1; at < size && !rc2; at += step, step++)
		rc2 = wp_json_reader_feed(&r, copy + at, step < size - at ? step : size - at);
	if (!rc2)
		rc2 = wp_json_reader_finish(&r);
	wp_json_reader_release(&r);
	FZ_CHECK((rc1 == 0) == (rc2 == 0));
	if (!rc1)
		FZ_CHECK(whole.events == pieces.events);

	struct wp_json_val *root = NULL;
	int rc3 = wp_json_load(copy, size, &o, &root, &e3);
	FZ_CHECK((rc1 == 0) == (rc3 == 0));
	if (!rc3) {
		struct wp_json w;
		struct wp_buf out = WP_BUF_INIT;
		wp_json_init_indent(&w, NULL);
		rewrite(&w, root);
		FZ_CHECK(wp_json_finish_buf(&w, &out) == 0);
		FZ_CHECK(wp_json_read(out.data, out.len, NULL, NULL, &o, NULL) == 0);
		(void)wp_json_get_str(root, "a", "b");
		wp_buf_free(&out);
	}
	wp_json_tree_free(root);
	free(copy);
	return 0;
}
