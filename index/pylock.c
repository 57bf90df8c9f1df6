/* index/pylock.c: PEP 751 pylock.toml read, validated and selected from as packaging HEAD's
 * pylock.py (Pylock.from_dict, Pylock.select). The checks follow that file's order, so that the
 * first problem reported is the one packaging reports. */
#include "index/pylock.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "base/fs.h"
#include "base/mem.h"
#include "index/toml.h"
#include "resolver/requirement.h"
#include "resolver/version.h"
#include "resolver/wheelname.h"

struct ctx {
	const char *what;
	struct wp_err *err;
	char where[256]; /* "packages[3].wheels[0]" */
};

static int bad(struct ctx *c, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "MESSAGE in 'CONTEXT.key'", packaging's str(PylockValidationError). */
static int bad(struct ctx *c, const char *key, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	char at[300];
	snprintf(at, sizeof(at), "%s%s%s", c->where, c->where[0] && key && key[0] ? "." : "",
		 key ? key : "");
	if (at[0])
		return wp_fail(c->err, -WPE_PARSE,
			       "'%s' is not a valid pylock.toml (PEP 751): %s in '%s'", c->what,
			       msg, at);
	return wp_fail(c->err, -WPE_PARSE, "'%s' is not a valid pylock.toml (PEP 751): %s", c->what,
		       msg);
}

/* ---- typed lookups, as _get / _get_required / _get_sequence ---- */

static const char *py_type(const struct wp_toml *v)
{
	switch (v->type) {
	case WP_TOML_STRING: return "str";
	case WP_TOML_INTEGER: return "int";
	case WP_TOML_FLOAT: return "float";
	case WP_TOML_BOOL: return "bool";
	case WP_TOML_DATETIME:
		return v->len == 10                     ? "date" :
		       v->len >= 10 && v->str[2] != ':' ? "datetime" :
							  "time";
	case WP_TOML_ARRAY: return "list";
	case WP_TOML_TABLE: return "dict";
	}
	return "object";
}

static const char *want_name(enum wp_toml_type t)
{
	switch (t) {
	case WP_TOML_STRING: return "str";
	case WP_TOML_INTEGER: return "int";
	case WP_TOML_BOOL: return "bool";
	case WP_TOML_DATETIME: return "datetime";
	case WP_TOML_ARRAY: return "Sequence";
	case WP_TOML_TABLE: return "Mapping";
	default: return "value";
	}
}

/* The value under key when it has type t; NULL when absent. -WPE_PARSE through *rc otherwise. */
static const struct wp_toml *get(struct ctx *c, const struct wp_toml *d, const char *key,
				 enum wp_toml_type t, int *rc)
{
	const struct wp_toml *v = wp_toml_get(d, key);
	*rc = 0;
	if (!v)
		return NULL;
	bool ok = v->type == t;
	/* upload-time is a datetime: a date or a time alone is another type */
	if (ok && t == WP_TOML_DATETIME)
		ok = strcmp(py_type(v), "datetime") == 0;
	if (!ok) {
		*rc = bad(c, key, "Unexpected type %s (expected %s)", py_type(v), want_name(t));
		return NULL;
	}
	return v;
}

static const struct wp_toml *get_required(struct ctx *c, const struct wp_toml *d, const char *key,
					  enum wp_toml_type t, int *rc)
{
	const struct wp_toml *v = get(c, d, key, t, rc);
	if (!v && !*rc)
		*rc = bad(c, key, "Missing required value");
	return v;
}

/* An array whose items all have type t. */
static const struct wp_toml *get_seq(struct ctx *c, const struct wp_toml *d, const char *key,
				     enum wp_toml_type t, int *rc)
{
	const struct wp_toml *v = wp_toml_get(d, key);
	*rc = 0;
	if (!v)
		return NULL;
	if (v->type != WP_TOML_ARRAY) {
		*rc = bad(c, key, "Unexpected type %s (expected Sequence)", py_type(v));
		return NULL;
	}
	for (size_t i = 0; i < v->n; i++)
		if (v->items[i]->type != t) {
			char k[80];
			snprintf(k, sizeof(k), "%s[%zu]", key, i);
			*rc = bad(c, k, "Unexpected type %s (expected %s)", py_type(v->items[i]),
				  want_name(t));
			return NULL;
		}
	return v;
}

static char *dup(const struct wp_toml *v)
{
	return v ? wp_xstrndup(v->str, v->len) : NULL;
}

/* Enter a nested context ("packages[3]"); returns the old length to leave it with. */
static size_t enter(struct ctx *c, const char *fmt, const char *key, size_t i)
{
	size_t len = strlen(c->where);
	char part[120];
	snprintf(part, sizeof(part), fmt, key, i);
	snprintf(c->where + len, sizeof(c->where) - len, "%s%s", len ? "." : "", part);
	return len;
}

static void leave(struct ctx *c, size_t len)
{
	c->where[len] = 0;
}

/* packaging.utils.is_normalized_name */
static bool normalized_name(const char *s)
{
	size_t n = strlen(s);
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		bool alnum = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
		if (alnum)
			continue;
		if (ch != '-' || i == 0 || i == n - 1 || s[i + 1] == '-')
			return false;
	}
	return true;
}

static int version_ok(struct ctx *c, const char *key, const struct wp_toml *v)
{
	struct wp_version ver;
	struct wp_err e = WP_ERR_INIT;
	if (wp_version_parse(&ver, v->str, v->len, &e) < 0)
		return bad(c, key, "Invalid version: '%.80s'", v->str);
	wp_version_release(&ver);
	return 0;
}

static int specset(struct ctx *c, const char *key, const struct wp_toml *v, struct wp_specset *out)
{
	struct wp_err e = WP_ERR_INIT;
	if (wp_specset_parse(out, v->str, v->len, &e) < 0)
		return bad(c, key, "Invalid specifier: '%.80s'", v->str);
	return 0;
}

static int marker(struct ctx *c, const char *key, const struct wp_toml *v, struct wp_marker *out)
{
	struct wp_err e = WP_ERR_INIT;
	if (wp_marker_parse(out, v->str, v->len, &e) < 0)
		return bad(c, key, "%s", e.msg);
	return 0;
}

/* ---- files ---- */

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if ((ch | 32) >= 'a' && (ch | 32) <= 'f')
		return (ch | 32) - 'a' + 10;
	return -1;
}

/* unquote(urlparse(url).path.rsplit("/", 1)[-1]); NULL when that is empty */
static char *url_name(const char *url)
{
	const char *p = url, *e, *last;
	const char *scheme = strstr(url, "://");
	if (scheme && !memchr(url, '/', (size_t)(scheme - url))) {
		p = scheme + 3 + strcspn(scheme + 3, "/?#"); /* past the netloc */
	}
	e = p + strcspn(p, "?#");
	last = p;
	for (const char *q = p; q < e; q++)
		if (*q == '/')
			last = q + 1;
	struct wp_buf b = WP_BUF_INIT;
	for (const char *q = last; q < e; q++) {
		if (*q == '%' && e - q >= 3 && hexval(q[1]) >= 0 && hexval(q[2]) >= 0) {
			wp_buf_addch(&b, (char)(hexval(q[1]) * 16 + hexval(q[2])));
			q += 2;
			continue;
		}
		wp_buf_addch(&b, *q);
	}
	char *s = b.len ? wp_xstrndup(b.data, b.len) : NULL;
	wp_buf_free(&b);
	return s;
}

static char *path_name(const char *path)
{
	const char *s = strrchr(path, '/');
	if (!s)
		s = strrchr(path, '\\');
	return wp_xstrdup(s ? s + 1 : path);
}

static void file_release(struct wp_pylock_file *f)
{
	if (!f)
		return;
	free(f->name);
	free(f->url);
	free(f->path);
	free(f->upload_time);
	free(f->subdirectory);
	for (size_t i = 0; i < f->nhashes; i++) {
		free(f->hashes[i].algo);
		free(f->hashes[i].hex);
	}
	free(f->hashes);
	memset(f, 0, sizeof(*f));
}

/* PackageWheel / PackageSdist / PackageArchive._from_dict; kind names the one read. */
static int file_read(struct ctx *c, const struct wp_toml *d, enum wp_pylock_source kind,
		     struct wp_pylock_file *f)
{
	const struct wp_toml *v;
	int rc;
	memset(f, 0, sizeof(*f));
	f->size = -1;
	if (kind != WP_PYLOCK_ARCHIVE) {
		v = get(c, d, "name", WP_TOML_STRING, &rc);
		if (rc)
			return rc;
		f->name = dup(v);
	}
	v = get(c, d, "upload-time", WP_TOML_DATETIME, &rc);
	if (rc)
		return rc;
	f->upload_time = dup(v);
	v = get(c, d, "url", WP_TOML_STRING, &rc);
	if (rc)
		return rc;
	f->url = dup(v);
	v = get(c, d, "path", WP_TOML_STRING, &rc);
	if (rc)
		return rc;
	f->path = dup(v);
	v = get(c, d, "size", WP_TOML_INTEGER, &rc);
	if (rc)
		return rc;
	if (v)
		f->size = v->i;
	v = get_required(c, d, "hashes", WP_TOML_TABLE, &rc);
	if (rc)
		return rc;
	if (!v->n)
		return bad(c, "hashes", "At least one hash must be provided");
	for (size_t i = 0; i < v->n; i++)
		if (v->items[i]->type != WP_TOML_STRING)
			return bad(c, "hashes", "Hash values must be strings");
	f->hashes = wp_xcalloc(v->n, sizeof(*f->hashes));
	for (size_t i = 0; i < v->n; i++) {
		f->hashes[i].algo = wp_xstrdup(v->keys[i]);
		f->hashes[i].hex = dup(v->items[i]);
	}
	f->nhashes = v->n;
	if (kind == WP_PYLOCK_ARCHIVE) {
		v = get(c, d, "subdirectory", WP_TOML_STRING, &rc);
		if (rc)
			return rc;
		f->subdirectory = dup(v);
	}
	if ((!f->path || !f->path[0]) && (!f->url || !f->url[0]))
		return bad(c, NULL, "path or url must be provided");
	if (kind != WP_PYLOCK_ARCHIVE && (!f->name || !f->name[0])) {
		free(f->name);
		f->name = f->path && f->path[0] ? path_name(f->path) : url_name(f->url);
	}
	return 0;
}

/* ---- packages ---- */

static void package_release(struct wp_pylock_package *p)
{
	free(p->name);
	free(p->version);
	free(p->marker_text);
	wp_marker_release(&p->marker);
	if (p->has_requires_python)
		wp_specset_release(&p->requires_python);
	free(p->index_url);
	for (size_t i = 0; i < p->nwheels; i++)
		file_release(&p->wheels[i]);
	free(p->wheels);
	file_release(p->sdist);
	free(p->sdist);
	file_release(p->archive);
	free(p->archive);
	if (p->directory) {
		free(p->directory->path);
		free(p->directory->subdirectory);
		free(p->directory);
	}
	if (p->vcs) {
		free(p->vcs->type);
		free(p->vcs->url);
		free(p->vcs->path);
		free(p->vcs->requested_revision);
		free(p->vcs->commit_id);
		free(p->vcs->subdirectory);
		free(p->vcs);
	}
	memset(p, 0, sizeof(*p));
}

static int read_vcs(struct ctx *c, const struct wp_toml *d, struct wp_pylock_vcs *vcs)
{
	static const char *const keys[] = { "type",      "url",
					    "path",      "requested-revision",
					    "commit-id", "subdirectory" };
	char **slot[] = { &vcs->type,      &vcs->url,         &vcs->path, &vcs->requested_revision,
			  &vcs->commit_id, &vcs->subdirectory };
	int rc;
	for (size_t i = 0; i < 6; i++) {
		const struct wp_toml *v = i == 0 || i == 4 ?
						  get_required(c, d, keys[i], WP_TOML_STRING, &rc) :
						  get(c, d, keys[i], WP_TOML_STRING, &rc);
		if (rc)
			return rc;
		*slot[i] = dup(v);
	}
	if ((!vcs->path || !vcs->path[0]) && (!vcs->url || !vcs->url[0]))
		return bad(c, NULL, "path or url must be provided");
	return 0;
}

static int read_directory(struct ctx *c, const struct wp_toml *d, struct wp_pylock_directory *dir)
{
	const struct wp_toml *v;
	int rc;
	dir->editable = -1;
	v = get_required(c, d, "path", WP_TOML_STRING, &rc);
	if (rc)
		return rc;
	dir->path = dup(v);
	v = get(c, d, "editable", WP_TOML_BOOL, &rc);
	if (rc)
		return rc;
	if (v)
		dir->editable = v->b;
	v = get(c, d, "subdirectory", WP_TOML_STRING, &rc);
	if (rc)
		return rc;
	dir->subdirectory = dup(v);
	return 0;
}

/* _get_object: a table read by fn in its own context. */
#define OBJECT(KEY, FIELD, TYPE, FN)                                                   \
	do {                                                                           \
		v = get(c, d, KEY, WP_TOML_TABLE, &rc);                                \
		if (rc)                                                                \
			return rc;                                                     \
		if (v) {                                                               \
			p->FIELD = wp_xcalloc(1, sizeof(TYPE));                        \
			size_t mark_ = enter(c, "%s", KEY, 0);                         \
			rc = FN;                                                       \
			leave(c, mark_);                                               \
			if (rc)                                                        \
				return rc;                                             \
		}                                                                      \
	} while (0)

static int same_version(const char *a, const char *b)
{
	struct wp_version va, vb;
	if (wp_version_parse(&va, a, strlen(a), NULL) < 0)
		return 0;
	if (wp_version_parse(&vb, b, strlen(b), NULL) < 0) {
		wp_version_release(&va);
		return 0;
	}
	int same = wp_version_cmp(&va, &vb) == 0;
	wp_version_release(&va);
	wp_version_release(&vb);
	return same;
}

/* parse_sdist_filename as packaging HEAD: .tar.gz or .zip, name-version split at the last '-'. */
static int sdist_name(const char *filename, struct wp_buf *name, char **version)
{
	size_t n = strlen(filename), stem;
	if (n > 7 && !strcmp(filename + n - 7, ".tar.gz"))
		stem = n - 7;
	else if (n > 4 && !strcmp(filename + n - 4, ".zip"))
		stem = n - 4;
	else
		return -1;
	const char *dash = NULL;
	for (size_t i = 0; i < stem; i++)
		if (filename[i] == '-')
			dash = filename + i;
	if (!dash || dash == filename)
		return -1;
	if (!wp_pep440_valid(dash + 1, (size_t)(filename + stem - dash - 1)))
		return -1;
	wp_buf_reset(name);
	wp_name_canonicalize(filename, (size_t)(dash - filename), name);
	*version = wp_xstrndup(dash + 1, (size_t)(filename + stem - dash - 1));
	return 0;
}

static int package_read(struct ctx *c, const struct wp_toml *d, struct wp_pylock_package *p)
{
	const struct wp_toml *v;
	int rc;

	v = get_required(c, d, "name", WP_TOML_STRING, &rc);
	if (rc)
		return rc;
	if (!normalized_name(v->str))
		return bad(c, "name", "Name '%.80s' is not normalized", v->str);
	p->name = dup(v);
	v = get(c, d, "version", WP_TOML_STRING, &rc);
	if (rc || (v && (rc = version_ok(c, "version", v))))
		return rc;
	p->version = dup(v);
	v = get(c, d, "requires-python", WP_TOML_STRING, &rc);
	if (rc)
		return rc;
	if (v) {
		if ((rc = specset(c, "requires-python", v, &p->requires_python)))
			return rc;
		p->has_requires_python = true;
	}
	v = get_seq(c, d, "dependencies", WP_TOML_TABLE, &rc);
	if (rc)
		return rc;
	p->ndependencies = v ? v->n : 0;
	v = get(c, d, "marker", WP_TOML_STRING, &rc);
	if (rc)
		return rc;
	if (v) {
		if ((rc = marker(c, "marker", v, &p->marker)))
			return rc;
		p->marker_text = dup(v);
	}
	OBJECT("vcs", vcs, struct wp_pylock_vcs, read_vcs(c, v, p->vcs));
	OBJECT("directory", directory, struct wp_pylock_directory,
	       read_directory(c, v, p->directory));
	OBJECT("archive", archive, struct wp_pylock_file,
	       file_read(c, v, WP_PYLOCK_ARCHIVE, p->archive));
	v = get(c, d, "index", WP_TOML_STRING, &rc);
	if (rc)
		return rc;
	p->index_url = dup(v);
	OBJECT("sdist", sdist, struct wp_pylock_file, file_read(c, v, WP_PYLOCK_SDIST, p->sdist));
	v = get_seq(c, d, "wheels", WP_TOML_TABLE, &rc);
	if (rc)
		return rc;
	if (v && v->n) {
		p->wheels = wp_xcalloc(v->n, sizeof(*p->wheels));
		for (size_t i = 0; i < v->n; i++) {
			size_t mark = enter(c, "%s[%zu]", "wheels", i);
			rc = file_read(c, v->items[i], WP_PYLOCK_WHEEL, &p->wheels[i]);
			leave(c, mark);
			p->nwheels = i + 1;
			if (rc)
				return rc;
		}
	}
	v = get_seq(c, d, "attestation-identities", WP_TOML_TABLE, &rc);
	if (rc)
		return rc;
	const struct wp_toml *ids = v;
	v = get(c, d, "tool", WP_TOML_TABLE, &rc);
	if (rc)
		return rc;

	size_t dists = (p->sdist != NULL) + p->nwheels;
	size_t direct = (p->vcs != NULL) + (p->directory != NULL) + (p->archive != NULL);
	if (dists && direct)
		return bad(c, NULL,
			   "None of vcs, directory, archive must be set if sdist or wheels are set");
	if (!dists && direct != 1)
		return bad(c, NULL,
			   "Exactly one of vcs, directory, archive must be set if sdist and wheels are not set");
	for (size_t i = 0; i < p->nwheels; i++) {
		struct wp_wheelname w;
		char key[40];
		snprintf(key, sizeof(key), "wheels[%zu]", i);
		if (!p->wheels[i].name || wp_wheelname_parse(p->wheels[i].name, &w, NULL) < 0)
			return bad(c, key, "Invalid wheel filename '%.120s'",
				   p->wheels[i].name ? p->wheels[i].name : "");
		rc = 0;
		if (strcmp(w.project, p->name))
			rc = bad(c, key,
				 "Name in '%.120s' is not consistent with package name '%s'",
				 p->wheels[i].name, p->name);
		else if (p->version && !same_version(w.version, p->version))
			rc = bad(c, key,
				 "Version in '%.120s' is not consistent with package version '%s'",
				 p->wheels[i].name, p->version);
		wp_wheelname_release(&w);
		if (rc)
			return rc;
	}
	if (p->sdist) {
		struct wp_buf name = WP_BUF_INIT;
		char *ver = NULL;
		const char *fn = p->sdist->name ? p->sdist->name : "";
		if (!fn[0] || sdist_name(fn, &name, &ver) < 0)
			rc = bad(c, "sdist", "Invalid sdist filename '%.120s'", fn);
		else if (strcmp(wp_buf_cstr(&name), p->name))
			rc = bad(c, "sdist",
				 "Name in '%.120s' is not consistent with package name '%s'", fn,
				 p->name);
		else if (p->version && !same_version(ver, p->version))
			rc = bad(c, "sdist",
				 "Version in '%.120s' is not consistent with package version '%s'",
				 fn, p->version);
		wp_buf_free(&name);
		free(ver);
		if (rc)
			return rc;
	}
	for (size_t i = 0; ids && i < ids->n; i++) {
		const struct wp_toml *kind = wp_toml_get(ids->items[i], "kind");
		char key[48];
		snprintf(key, sizeof(key), "attestation-identities[%zu].kind", i);
		if (!kind)
			return bad(c, key, "Missing required value");
		if (kind->type != WP_TOML_STRING)
			return bad(c, key, "Unexpected type %s (expected str)", py_type(kind));
	}
	return 0;
}

/* ---- the lock ---- */

static void strings_free(char **s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(s[i]);
	free(s);
}

void wp_pylock_release(struct wp_pylock *lk)
{
	free(lk->lock_version);
	free(lk->created_by);
	for (size_t i = 0; i < lk->nenvironments; i++)
		wp_marker_release(&lk->environments[i]);
	free(lk->environments);
	strings_free(lk->environment_texts, lk->nenvironments);
	if (lk->has_requires_python)
		wp_specset_release(&lk->requires_python);
	strings_free(lk->extras, lk->nextras);
	strings_free(lk->dependency_groups, lk->ndependency_groups);
	strings_free(lk->default_groups, lk->ndefault_groups);
	for (size_t i = 0; i < lk->npackages; i++)
		package_release(&lk->packages[i]);
	free(lk->packages);
	memset(lk, 0, sizeof(*lk));
}

static char **strings(const struct wp_toml *v, size_t *n)
{
	*n = v ? v->n : 0;
	if (!*n)
		return NULL;
	char **s = wp_xcalloc(v->n, sizeof(*s));
	for (size_t i = 0; i < v->n; i++)
		s[i] = dup(v->items[i]);
	return s;
}

static int lock_read(struct ctx *c, const struct wp_toml *d, struct wp_pylock *lk)
{
	const struct wp_toml *v;
	int rc;

	v = get_required(c, d, "lock-version", WP_TOML_STRING, &rc);
	if (rc || (rc = version_ok(c, "lock-version", v)))
		return rc;
	lk->lock_version = dup(v);
	v = get_seq(c, d, "environments", WP_TOML_STRING, &rc);
	if (rc)
		return rc;
	if (v) {
		lk->has_environments = true;
		lk->environments = wp_xcalloc(v->n ? v->n : 1, sizeof(*lk->environments));
		lk->environment_texts = wp_xcalloc(v->n ? v->n : 1, sizeof(char *));
		for (size_t i = 0; i < v->n; i++) {
			char key[40];
			snprintf(key, sizeof(key), "environments[%zu]", i);
			if ((rc = marker(c, key, v->items[i], &lk->environments[i])))
				return rc;
			lk->environment_texts[i] = dup(v->items[i]);
			lk->nenvironments = i + 1;
		}
	}
	v = get_seq(c, d, "extras", WP_TOML_STRING, &rc);
	if (rc)
		return rc;
	for (size_t i = 0; v && i < v->n; i++)
		if (!normalized_name(v->items[i]->str)) {
			char key[40];
			snprintf(key, sizeof(key), "extras[%zu]", i);
			return bad(c, key, "Name '%.80s' is not normalized", v->items[i]->str);
		}
	lk->extras = strings(v, &lk->nextras);
	v = get_seq(c, d, "dependency-groups", WP_TOML_STRING, &rc);
	if (rc)
		return rc;
	lk->dependency_groups = strings(v, &lk->ndependency_groups);
	v = get_seq(c, d, "default-groups", WP_TOML_STRING, &rc);
	if (rc)
		return rc;
	lk->has_default_groups = v != NULL;
	lk->default_groups = strings(v, &lk->ndefault_groups);
	v = get_required(c, d, "created-by", WP_TOML_STRING, &rc);
	if (rc)
		return rc;
	lk->created_by = dup(v);
	v = get(c, d, "requires-python", WP_TOML_STRING, &rc);
	if (rc)
		return rc;
	if (v) {
		if ((rc = specset(c, "requires-python", v, &lk->requires_python)))
			return rc;
		lk->has_requires_python = true;
	}
	v = get_seq(c, d, "packages", WP_TOML_TABLE, &rc);
	if (rc)
		return rc;
	if (!v)
		return bad(c, "packages", "Missing required value");
	lk->packages = wp_xcalloc(v->n ? v->n : 1, sizeof(*lk->packages));
	for (size_t i = 0; i < v->n; i++) {
		size_t mark = enter(c, "%s[%zu]", "packages", i);
		lk->packages[i].index = i;
		rc = package_read(c, v->items[i], &lk->packages[i]);
		leave(c, mark);
		lk->npackages = i + 1;
		if (rc)
			return rc;
	}
	v = get(c, d, "tool", WP_TOML_TABLE, &rc);
	if (rc)
		return rc;
	/* 1 <= lock-version < 2 */
	struct wp_version lv, one, two;
	wp_version_parse(&lv, lk->lock_version, strlen(lk->lock_version), NULL);
	wp_version_parse(&one, "1", 1, NULL);
	wp_version_parse(&two, "2", 1, NULL);
	bool supported = wp_version_cmp(&lv, &one) >= 0 && wp_version_cmp(&lv, &two) < 0;
	wp_version_release(&one);
	wp_version_parse(&one, "1.0", 3, NULL);
	lk->newer_minor = wp_version_cmp(&lv, &one) > 0;
	wp_version_release(&one);
	wp_version_release(&two);
	wp_version_release(&lv);
	if (!supported)
		return wp_fail(c->err, -WPE_PARSE,
			       "'%s': pylock version %s is not supported (wheelpick reads PEP 751 version 1.x)",
			       c->what, lk->lock_version);
	return 0;
}

int wp_pylock_parse(struct wp_pylock *lk, const char *text, size_t n, const char *what,
		    struct wp_err *err)
{
	struct wp_toml *root;
	struct ctx c = { what ? what : "pylock.toml", err, "" };
	int rc;
	memset(lk, 0, sizeof(*lk));
	if ((rc = wp_toml_parse(text, n, c.what, &root, err)) < 0)
		return rc;
	rc = lock_read(&c, root, lk);
	wp_toml_free(root);
	if (rc < 0)
		wp_pylock_release(lk);
	return rc;
}

int wp_pylock_load(struct wp_pylock *lk, const char *path, struct wp_err *err)
{
	struct wp_buf text = WP_BUF_INIT;
	int rc;
	memset(lk, 0, sizeof(*lk));
	if ((rc = wp_file_read_capped(path, WP_PYLOCK_MAX_BYTES, &text, err)) < 0)
		return rc;
	rc = wp_pylock_parse(lk, text.data ? text.data : "", text.len, path, err);
	wp_buf_free(&text);
	return rc;
}

/* ---- selecting ---- */

const char *wp_pylock_source_name(enum wp_pylock_source s)
{
	switch (s) {
	case WP_PYLOCK_WHEEL: return "wheel";
	case WP_PYLOCK_SDIST: return "sdist";
	case WP_PYLOCK_ARCHIVE: return "archive";
	case WP_PYLOCK_DIRECTORY: return "directory";
	case WP_PYLOCK_VCS: return "vcs";
	}
	return "source";
}

static int set_names(char *dst, const char *const *names, size_t n, struct wp_err *err)
{
	size_t used = 0;
	dst[0] = 0;
	for (size_t i = 0; i < n; i++) {
		size_t k = strlen(names[i]);
		if (used + k + 2 > WP_MARKER_SET_MAX)
			return wp_fail(err, -WPE_TOO_BIG,
				       "more extras or dependency groups than wheelpick selects with at once");
		memcpy(dst + used, names[i], k);
		used += k;
		dst[used++] = '\n';
		dst[used] = 0;
	}
	return 0;
}

static int tag_rank(const struct wp_pylock_want *w, const char *tag)
{
	if (w->tags)
		return wp_tagset_priority(w->tags, tag);
	for (size_t i = 0; i < w->ntags; i++)
		if (!strcasecmp(w->tag_list[i], tag))
			return (int)i;
	return -1;
}

static int python_ok(const struct wp_specset *rp, const char *full)
{
	struct wp_version v;
	struct wp_buf b = WP_BUF_INIT;
	wp_buf_addstr(&b, full);
	if (b.len && full[b.len - 1] == '+')
		wp_buf_addstr(&b, "local");
	if (wp_version_parse(&v, wp_buf_cstr(&b), b.len, NULL) < 0) {
		wp_buf_free(&b);
		return 0; /* packaging: contains() of an unparsable version is False */
	}
	int ok = wp_specset_contains(rp, &v, WP_PRERELEASES_YES);
	wp_version_release(&v);
	wp_buf_free(&b);
	return ok;
}

int wp_pylock_select(const struct wp_pylock *lk, const struct wp_pylock_want *w,
		     struct wp_pylock_pick **out, size_t *n, struct wp_err *err)
{
	struct wp_marker_env env = *w->env;
	struct wp_pylock_pick *picks = NULL;
	size_t np = 0;
	const char *full = w->env->python_full_version;
	int rc;

	*out = NULL;
	*n = 0;
	env.lock_sets = true; /* packages.marker may test extras and dependency_groups */
	if ((rc = set_names(env.extras, w->extras, w->nextras, err)) < 0)
		return rc;
	if (w->groups)
		rc = set_names(env.dependency_groups, w->groups, w->ngroups, err);
	else
		rc = set_names(env.dependency_groups, (const char *const *)lk->default_groups,
			       lk->ndefault_groups, err);
	if (rc < 0)
		return rc;

	if (lk->has_requires_python && !python_ok(&lk->requires_python, full)) {
		struct wp_buf s = WP_BUF_INIT;
		wp_specset_format(&lk->requires_python, &s);
		rc = wp_fail(err, -WPE_NOMATCH,
			     "python_full_version '%s' in provided environment does not satisfy the Python "
			     "version requirement '%s' of the lock",
			     full, wp_buf_cstr(&s));
		wp_buf_free(&s);
		return rc;
	}
	if (lk->has_environments) {
		bool any = false;
		for (size_t i = 0; i < lk->nenvironments && !any; i++) {
			bool r;
			if (wp_marker_uses(&lk->environments[i], "extra") ||
			    wp_marker_uses(&lk->environments[i], "extras") ||
			    wp_marker_uses(&lk->environments[i], "dependency_groups"))
				return wp_fail(err, -WPE_PARSE,
					       "the lock's environments[%zu] names extra, extras or "
					       "dependency_groups, which describe no environment",
					       i);
			if ((rc = wp_marker_evaluate(&lk->environments[i], w->env, &r, err)) < 0)
				return rc;
			any = r;
		}
		if (!any) {
			/* what the lock requires, as written there */
			struct wp_buf envs = WP_BUF_INIT;
			for (size_t i = 0; i < lk->nenvironments && envs.len < 400; i++)
				wp_buf_printf(&envs, "%s'%s'", i ? ", " : "",
					      lk->environment_texts && lk->environment_texts[i] ?
						      lk->environment_texts[i] :
						      "?");
			rc = wp_fail(err, -WPE_NOMATCH,
				     "the target satisfies none of the environments the lock was made for: %s",
				     wp_buf_cstr(&envs));
			wp_buf_free(&envs);
			return rc;
		}
	}
	picks = wp_xcalloc(lk->npackages ? lk->npackages : 1, sizeof(*picks));
	for (size_t i = 0; i < lk->npackages; i++) {
		const struct wp_pylock_package *p = &lk->packages[i];
		if (p->marker.root) {
			bool r;
			if (wp_marker_uses(&p->marker, "extra")) {
				rc = wp_fail(err, -WPE_PARSE,
					     "the marker of packages[%zu] '%s' names 'extra', which a lock file "
					     "does not define (PEP 751 markers test 'NAME' in extras)",
					     i, p->name);
				goto fail;
			}
			if ((rc = wp_marker_evaluate(&p->marker, &env, &r, err)) < 0) {
				wp_err_prefix(err, "packages[%zu] '%s'", i, p->name);
				goto fail;
			}
			if (!r)
				continue;
		}
		if (p->has_requires_python && !python_ok(&p->requires_python, full)) {
			struct wp_buf s = WP_BUF_INIT;
			wp_specset_format(&p->requires_python, &s);
			rc = wp_fail(err, -WPE_NOMATCH,
				     "python_full_version '%s' in provided environment does not satisfy the "
				     "Python version requirement '%s' for package '%s' at packages[%zu]",
				     full, wp_buf_cstr(&s), p->name, i);
			wp_buf_free(&s);
			goto fail;
		}
		for (size_t k = 0; k < np; k++)
			if (!strcmp(picks[k].pkg->name, p->name)) {
				rc = wp_fail(err, -WPE_PARSE,
					     "Multiple packages with the name '%s' are selected at packages[%zu] "
					     "and packages[%zu]",
					     p->name, i, picks[k].pkg->index);
				goto fail;
			}
		picks[np++].pkg = p;
	}
	for (size_t k = 0; k < np; k++) {
		const struct wp_pylock_package *p = picks[k].pkg;
		if (p->vcs) {
			picks[k].source = WP_PYLOCK_VCS;
		} else if (p->directory) {
			picks[k].source = WP_PYLOCK_DIRECTORY;
		} else if (p->archive) {
			picks[k].source = WP_PYLOCK_ARCHIVE;
			picks[k].file = p->archive;
		} else if (p->nwheels) {
			int best = -1;
			for (size_t i = 0; i < p->nwheels; i++) {
				struct wp_wheelname wn;
				if (wp_wheelname_parse(p->wheels[i].name, &wn, NULL) < 0)
					continue; /* validated when read; never here */
				int r = -1;
				for (size_t t = 0; t < wn.n_tags; t++) {
					int q = tag_rank(w, wn.tags[t]);
					if (q >= 0 && (r < 0 || q < r))
						r = q;
				}
				wp_wheelname_release(&wn);
				if (r >= 0 && (best < 0 || r < best)) {
					best = r;
					picks[k].file = &p->wheels[i];
				}
			}
			if (picks[k].file) {
				picks[k].source = WP_PYLOCK_WHEEL;
			} else if (p->sdist) {
				picks[k].source = WP_PYLOCK_SDIST;
				picks[k].file = p->sdist;
			} else {
				rc = wp_fail(err, -WPE_NOMATCH,
					     "No wheel found matching the provided tags for package '%s' at "
					     "packages[%zu], and no sdist available as a fallback",
					     p->name, p->index);
				goto fail;
			}
		} else {
			picks[k].source = WP_PYLOCK_SDIST;
			picks[k].file = p->sdist;
		}
	}
	if (!np) {
		free(picks);
		picks = NULL;
	}
	*out = picks;
	*n = np;
	return 0;
fail:
	free(picks);
	return rc;
}

int wp_pylock_select_target(const struct wp_pylock *lk, const struct wp_target *t,
			    const char *const *extras, size_t nextras, const char *const *groups,
			    size_t ngroups, struct wp_pylock_pick **out, size_t *n,
			    struct wp_err *err)
{
	struct wp_marker_env env;
	struct wp_tagset ts = WP_TAGSET_INIT;
	int rc;
	*out = NULL;
	*n = 0;
	wp_marker_env_from_target(&env, t);
	if ((rc = wp_tagset_build(&ts, t, err)) < 0)
		return rc;
	struct wp_pylock_want w = { .env = &env, .tags = &ts, .extras = extras, .nextras = nextras,
				    .groups = groups, .ngroups = ngroups };
	static const char *const none[1] = { NULL };
	if (groups && !ngroups)
		w.groups = none;
	rc = wp_pylock_select(lk, &w, out, n, err);
	wp_tagset_release(&ts);
	return rc;
}
