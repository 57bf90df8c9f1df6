/* ops/verify/s3.c: `verify s3://BUCKET/PREFIX`: the mirror, channel or bundle a publish put there,
 * read back over S3 into a temporary folder and checked there as on disk (ops/verify/outputs.c);
 * the problems name the objects, not the copies. */
#include "ops/verify/s3.h"
#include "base/fs.h"
#include "base/lazylib.h"
#include "base/mem.h"
#include "base/str.h"
#include "index/s3xml.h"
#include "net/s3.h"
#include "base/os/os.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool rel_ok(const char *rel)
{
	if (!*rel || rel[0] == '/')
		return false;
	const char *p = rel;
	while (*p) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (!n || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		for (size_t i = 0; i < n; i++)
			if (p[i] == '\\')
				return false;
		p += n + (e ? 1 : 0);
		if (e && !*p)
			return false; /* "dir/": a folder marker, no file */
	}
	return true;
}

/* s with each "TMP/" (or a closing "TMP") said as the URL it was copied from (shown ends in '/');
 * a "file://TMP/..." (a page's link, read as a URL) is that URL too, not "file://s3://...". */
static void swap_tmp(char **s, const char *tmp, const char *shown)
{
	size_t tl = strlen(tmp);
	if (!*s || !strstr(*s, tmp))
		return;
	struct wp_buf m = WP_BUF_INIT;
	for (const char *q = *s; *q;) {
		const char *hit = strstr(q, tmp);
		if (!hit) {
			wp_buf_addstr(&m, q);
			break;
		}
		const char *cut = hit;
		if (cut - q >= 7 && !strncasecmp(cut - 7, "file://", 7))
			cut -= 7;
		wp_buf_add(&m, q, (size_t)(cut - q));
		wp_buf_addstr(&m, shown);
		q = hit + tl;
		if (*q == '/')
			q++;
	}
	free(*s);
	*s = wp_buf_detach(&m, NULL);
}

int wp_verify_s3(const char *url, const char *endpoint, const struct wp_s3_conf *conf,
		 const struct wp_verify_opts *vo, struct wp_verify_report *rep, struct wp_err *err)
{
	struct wp_s3 s3;
	struct wp_s3_listing list = { 0 };
	struct wp_s3_op *ops = NULL;
	char **paths = NULL;
	char *tmp = NULL, *shown = NULL;
	size_t n = 0, before = rep->n_problems;
	/* what was read back is checked as on disk, a bundle unpacked under the caller's tmpdir */
	struct wp_verify_opts scratch = { .tmpdir = vo ? vo->tmpdir : NULL };
	int rc = wp_s3_open(&s3, url, endpoint, NULL, conf, err);
	s3.xml = &wp_s3xml_reader; /* S3's XML answers read in index/, with libxml2 */
	if (!rc)
		rc = wp_lazy_require(WP_LIB_CURL | WP_LIB_XML, err);
	if (!rc)
		rc = wp_s3_list(&s3, s3.prefix, &list, err);
	size_t pre = strlen(s3.prefix);
	char *bundle = NULL; /* the URL names a bundle object (or its volumes), not a prefix */
	shown = wp_xasprintf("s3://%s/%s", s3.bucket, s3.prefix);
	if (!rc && !list.n && pre > 1) {
		char *name = wp_xstrndup(s3.prefix, pre - 1);
		struct wp_s3_listing all = { 0 };
		if (!(rc = wp_s3_list(&s3, name, &all, err))) {
			size_t nl = strlen(name);
			for (size_t i = 0; i < all.n; i++) {
				const char *k = all.v[i].key, *t = k + nl;
				bool vol = strlen(t) == 4 && t[0] == '.' &&
					   isdigit((unsigned char)t[1]) &&
					   isdigit((unsigned char)t[2]) &&
					   isdigit((unsigned char)t[3]);
				if (!strncmp(k, name, nl) && (!*t || vol)) {
					if (list.n == list.cap) {
						list.cap = list.cap ? list.cap * 2 : 8;
						list.v = wp_xrealloc(list.v,
								     list.cap * sizeof(*list.v));
					}
					list.v[list.n++] = all.v[i];
					all.v[i].key = NULL;
				}
			}
		}
		wp_s3_listing_free(&all);
		if (list.n) {
			const char *slash = strrchr(name, '/');
			pre = slash ? (size_t)(slash - name) + 1 : 0;
			bundle = wp_xstrdup(name + pre);
			free(shown);
			shown = wp_xasprintf("s3://%s/%.*s", s3.bucket, (int)pre, name);
		}
		free(name);
	}
	if (!rc && !list.n)
		rc = wp_fail(err, -WPE_USAGE, "'%s' holds no objects at '%s'", s3.display,
			     s3.endpoint);
	if (!rc) {
		const char *t = vo ? vo->tmpdir : NULL;
		rc = wp_fs_mkdtemp(t && *t ? t : "/tmp", "wheelpick-verify-s3", &tmp, err);
	}
	if (rc)
		goto out;
	ops = wp_xcalloc(list.n, sizeof(*ops));
	paths = wp_xcalloc(list.n, sizeof(*paths));
	for (size_t i = 0; i < list.n && !rc; i++) {
		const char *rel = list.v[i].key + pre;
		if (!rel_ok(rel) ||
		    wp_fs_is_tmp_name(strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel) ||
		    wp_cstr_endswith(rel, ".part"))
			continue;
		paths[n] = wp_xasprintf("%s/%s", tmp, rel);
		char *dir = wp_xstrndup(paths[n], (size_t)(strrchr(paths[n], '/') - paths[n]));
		rc = wp_mkdir_p(dir, 0755, err);
		free(dir);
		/* a page replaced since the listing may have grown: its hash, not its size,
		 * decides */
		ops[n] = (struct wp_s3_op){ .verb = WP_S3_GET,
					    .key = list.v[i].key,
					    .path = paths[n],
					    .size = list.v[i].size + (64 << 20),
					    .may_miss = true };
		n++;
	}
	if (!rc)
		rc = wp_s3_run(&s3, ops, n, 16, NULL, NULL, err);
	if (rc)
		goto out;
	for (size_t i = 0; i < n; i++)
		if (ops[i].missing) /* gone since the listing: a run under way; its pages say the
				       rest */
			wp_os_unlink(paths[i]);
	if (bundle) {
		/* the bundle itself, or its first volume (verify reads the set from any one) */
		char *first = wp_xasprintf("%s/%s", tmp, bundle),
		     *vol = wp_xasprintf("%s/%s.001", tmp, bundle);
		struct wp_os_stat sb;
		rc = wp_verify_path_opts(wp_os_stat(first, &sb) == 0 ? first : vol, &scratch, rep,
					 err);
		free(first);
		free(vol);
	} else {
		rc = wp_verify_path_opts(tmp, &scratch, rep, err);
	}
	/* the problems name objects, not the temporary copies */
	for (size_t i = before; i < rep->n_problems; i++) {
		swap_tmp(&rep->problems[i].path, tmp, shown);
		swap_tmp(&rep->problems[i].what, tmp, shown);
	}
	if (rc) {
		char *m = wp_xstrdup(err->msg);
		int code = err->code;
		swap_tmp(&m, tmp, shown);
		wp_err_clear(err);
		wp_fail(err, code, "%s", m);
		free(m);
	}
out:
	wp_fs_remove_tree(tmp);
	free(tmp);
	free(shown);
	free(bundle);
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	free(ops);
	wp_s3_listing_free(&list);
	wp_s3_release(&s3);
	return rc;
}
