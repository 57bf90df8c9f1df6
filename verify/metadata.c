/* verify/metadata.c: RFC 822-style header parsing for core metadata and WHEEL files. */
#include "verify/metadata.h"
#include "base/buf.h"
#include "base/mem.h"
#include "base/str.h"

#include <stdlib.h>
#include <string.h>

typedef int wp_header_fn(void *ctx, struct wp_str key, struct wp_str value, struct wp_err *err);

static bool is_ws(char c)
{
	return c == ' ' || c == '\t';
}

/* Call fn for each header, unfolded; *body gets what follows the first blank line. The
 * unfolding joins continuation lines with '\n' so a folded Description keeps its lines;
 * single-line fields are trimmed by their handlers. */
static int parse_headers(const char *what, const char *text, size_t len, wp_header_fn *fn,
			 void *ctx, struct wp_str *body, struct wp_err *err)
{
	struct wp_buf value = WP_BUF_INIT_MAX(WP_METADATA_MAX_LEN);
	struct wp_str rest = WP_STRN(text, len), key = WP_STRN(NULL, 0);
	bool have = false;
	int rc = 0, lineno = 0;
	*body = WP_STRN(text + len, 0);
	if (len > WP_METADATA_MAX_LEN)
		return wp_fail(err, -WPE_TOO_BIG, "'%s' is larger than %d bytes", what,
			       WP_METADATA_MAX_LEN);
	if (len && memchr(text, 0, len))
		return wp_fail(err, -WPE_PARSE, "'%s' contains a NUL byte", what);
	while (rest.n) {
		struct wp_str line = wp_str_cut(&rest, '\n');
		lineno++;
		if (line.n && line.p[line.n - 1] == '\r')
			line.n--;
		if (line.n && is_ws(line.p[0])) {
			if (!have) {
				rc = wp_fail(err, -WPE_PARSE,
					     "'%s' line %d: continuation line before any "
					     "header",
					     what, lineno);
				goto out;
			}
			struct wp_str t = wp_str_trim(line);
			if (wp_buf_addch(&value, '\n') < 0 || wp_buf_add(&value, t.p, t.n) < 0)
				goto too_big;
			continue;
		}
		if (have) {
			rc = fn(ctx, key, WP_STRN(value.data, value.len), err);
			if (rc)
				goto out;
			have = false;
		}
		if (line.n == 0) {
			*body = rest;
			break;
		}
		if (!memchr(line.p, ':', line.n)) {
			rc = wp_fail(err, -WPE_PARSE,
				     "'%s' line %d: expected 'Name: value', got '%.*s'", what,
				     lineno, line.n > 60 ? 60 : (int)line.n, line.p);
			goto out;
		}
		struct wp_str v = line;
		key = wp_str_trim(wp_str_cut(&v, ':'));
		if (!key.n || memchr(key.p, ' ', key.n)) {
			rc = wp_fail(err, -WPE_PARSE, "'%s' line %d: bad header name '%.*s'", what,
				     lineno, WP_STR_FMT(key));
			goto out;
		}
		v = wp_str_trim(v);
		wp_buf_reset(&value);
		if (wp_buf_add(&value, v.p, v.n) < 0)
			goto too_big;
		have = true;
	}
	if (have)
		rc = fn(ctx, key, WP_STRN(value.data, value.len), err);
	goto out;
too_big:
	rc = wp_fail(err, -WPE_TOO_BIG, "'%s' has a header longer than %d bytes", what,
		     WP_METADATA_MAX_LEN);
out:
	wp_buf_free(&value);
	return rc;
}

static void push(char ***arr, size_t *n, struct wp_str s)
{
	/* Grow at powers of two: n is the count, so the capacity is implied. */
	if ((*n & (*n - 1)) == 0)
		*arr = wp_xrealloc(*arr, (*n ? *n * 2 : 1) * sizeof(**arr));
	(*arr)[(*n)++] = wp_xstrndup(s.p, s.n);
}

static int set_once(const char *what, char **slot, struct wp_str key, struct wp_str v,
		    struct wp_err *err)
{
	if (*slot)
		return wp_fail(err, -WPE_PARSE, "'%s': header '%.*s' appears more than once", what,
			       WP_STR_FMT(key));
	*slot = wp_xstrndup(v.p, v.n);
	return 0;
}

struct md_ctx {
	struct wp_metadata *md;
	const char *what;
};

static int md_header(void *ctx, struct wp_str key, struct wp_str value, struct wp_err *err)
{
	struct md_ctx *c = ctx;
	struct wp_metadata *md = c->md;
	struct wp_str v = wp_str_trim(value);
	if (wp_str_ieq(key, "Metadata-Version"))
		return set_once(c->what, &md->metadata_version, key, v, err);
	if (wp_str_ieq(key, "Name"))
		return set_once(c->what, &md->name, key, v, err);
	if (wp_str_ieq(key, "Version"))
		return set_once(c->what, &md->version, key, v, err);
	if (wp_str_ieq(key, "Summary"))
		return set_once(c->what, &md->summary, key, v, err);
	if (wp_str_ieq(key, "Requires-Python"))
		return set_once(c->what, &md->requires_python, key, v, err);
	if (wp_str_ieq(key, "Description"))
		return set_once(c->what, &md->description, key, value, err);
	if (wp_str_ieq(key, "Requires-Dist")) {
		if (!v.n)
			return wp_fail(err, -WPE_PARSE, "'%s': empty Requires-Dist", c->what);
		push(&md->requires_dist, &md->n_requires_dist, v);
	} else if (wp_str_ieq(key, "Provides-Extra")) {
		push(&md->provides_extra, &md->n_provides_extra, v);
	}
	return 0;
}

int wp_metadata_parse(const char *text, size_t len, struct wp_metadata *md, struct wp_err *err)
{
	struct md_ctx c = { md, "METADATA" };
	struct wp_str body;
	memset(md, 0, sizeof(*md));
	int rc = parse_headers(c.what, text, len, md_header, &c, &body, err);
	if (rc)
		goto out;
	if (!md->metadata_version || !md->name || !md->version) {
		rc = wp_fail(err, -WPE_PARSE, "'%s' lacks '%s'", c.what,
			     !md->metadata_version ? "Metadata-Version" :
			     !md->name             ? "Name" :
						     "Version");
		goto out;
	}
	if (!*md->name || !*md->version) {
		rc = wp_fail(err, -WPE_PARSE, "'%s' has an empty '%s'", c.what,
			     !*md->name ? "Name" : "Version");
		goto out;
	}
	if (body.n && !md->description)
		md->description = wp_xstrndup(body.p, body.n);
out:
	if (rc)
		wp_metadata_release(md);
	return rc;
}

static void free_list(char **arr, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(arr[i]);
	free(arr);
}

void wp_metadata_release(struct wp_metadata *md)
{
	free(md->metadata_version);
	free(md->name);
	free(md->version);
	free(md->summary);
	free(md->requires_python);
	free(md->description);
	free_list(md->requires_dist, md->n_requires_dist);
	free_list(md->provides_extra, md->n_provides_extra);
	memset(md, 0, sizeof(*md));
}

struct wf_ctx {
	struct wp_wheelfile *wf;
	char *purelib;
};

static int wf_header(void *ctx, struct wp_str key, struct wp_str value, struct wp_err *err)
{
	struct wf_ctx *c = ctx;
	struct wp_wheelfile *wf = c->wf;
	struct wp_str v = wp_str_trim(value);
	if (wp_str_ieq(key, "Wheel-Version"))
		return set_once("WHEEL", &wf->wheel_version, key, v, err);
	if (wp_str_ieq(key, "Root-Is-Purelib"))
		return set_once("WHEEL", &c->purelib, key, v, err);
	if (wp_str_ieq(key, "Build"))
		return set_once("WHEEL", &wf->build, key, v, err);
	if (wp_str_ieq(key, "Generator"))
		return set_once("WHEEL", &wf->generator, key, v, err);
	if (wp_str_ieq(key, "Tag")) {
		if (!v.n || memchr(v.p, ' ', v.n))
			return wp_fail(err, -WPE_PARSE, "'WHEEL': bad Tag '%.*s'", WP_STR_FMT(v));
		push(&wf->tags, &wf->n_tags, v);
	}
	return 0;
}

int wp_wheelfile_parse(const char *text, size_t len, struct wp_wheelfile *wf, struct wp_err *err)
{
	struct wf_ctx c = { wf, NULL };
	struct wp_str body;
	memset(wf, 0, sizeof(*wf));
	int rc = parse_headers("WHEEL", text, len, wf_header, &c, &body, err);
	if (rc)
		goto out;
	if (!wf->wheel_version) {
		rc = wp_fail(err, -WPE_PARSE, "'WHEEL' lacks 'Wheel-Version'");
		goto out;
	}
	struct wp_str ver = WP_STR(wf->wheel_version);
	long long major;
	if (!wp_str_to_ll(wp_str_cut(&ver, '.'), &major) || major != 1) {
		/* pip refuses a major version it does not know: the layout may have changed. */
		rc = wp_fail(err, -WPE_PARSE,
			     "'WHEEL': unsupported Wheel-Version '%s' (1.x expected)",
			     wf->wheel_version);
		goto out;
	}
	if (!c.purelib) {
		rc = wp_fail(err, -WPE_PARSE, "'WHEEL' lacks 'Root-Is-Purelib'");
		goto out;
	}
	if (wp_str_ieq(WP_STR(c.purelib), "true")) {
		wf->root_is_purelib = true;
	} else if (!wp_str_ieq(WP_STR(c.purelib), "false")) {
		rc = wp_fail(err, -WPE_PARSE, "'WHEEL': Root-Is-Purelib is '%s', not true or false",
			     c.purelib);
		goto out;
	}
	if (!wf->n_tags) {
		rc = wp_fail(err, -WPE_PARSE, "'WHEEL' has no 'Tag'");
		goto out;
	}
out:
	free(c.purelib);
	if (rc)
		wp_wheelfile_release(wf);
	return rc;
}

void wp_wheelfile_release(struct wp_wheelfile *wf)
{
	free(wf->wheel_version);
	free(wf->build);
	free(wf->generator);
	free_list(wf->tags, wf->n_tags);
	memset(wf, 0, sizeof(*wf));
}
