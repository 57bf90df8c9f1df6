/* ops/wheel/sbom.c: CycloneDX 1.6 and SPDX 2.3 documents for an output's files, deterministic. */
#include "ops/wheel/sbom.h"
#include "ops/core/provenance.h"
#include "base/buf.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/mem.h"
#include "resolver/wheelname.h"
#include "resolver/pick.h"
#include "resolver/torchbuilds.h"
#include "resolver/variant.h"
#include "verify/hash.h"
#include "verify/wheel.h"
#include "verify/wheellimits.h"
#include "base/os/os.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct wp_sbom_comp *wp_sbom_add(struct wp_sbom *b)
{
	b->c = wp_xrealloc(b->c, (b->n + 1) * sizeof(*b->c));
	memset(&b->c[b->n], 0, sizeof(b->c[b->n]));
	b->c[b->n].size = -1;
	return &b->c[b->n++];
}

void wp_sbom_comp_target(struct wp_sbom_comp *c, const char *words)
{
	for (size_t i = 0; i < c->n_targets; i++)
		if (!strcmp(c->targets[i], words))
			return;
	c->targets = wp_xrealloc(c->targets, (c->n_targets + 1) * sizeof(*c->targets));
	c->targets[c->n_targets++] = wp_xstrdup(words);
}

static void add_dep(struct wp_sbom_comp *c, size_t j)
{
	for (size_t i = 0; i < c->n_deps; i++)
		if (c->deps[i] == j)
			return;
	c->deps = wp_xrealloc(c->deps, (c->n_deps + 1) * sizeof(*c->deps));
	c->deps[c->n_deps++] = j;
}

static char *dupn(const char *s)
{
	return s ? wp_xstrdup(s) : NULL;
}

/* PyTorch's GPU architectures for a torch CUDA build on a platform ("sm_50 sm_60 ...
 * compute_86"). */
static char *gpu_archs(const struct wp_plan_file *f, const struct wp_target *t)
{
	struct wp_variant v;
	struct wp_arch_list l;
	if (strcmp(f->project, "torch") != 0 || !f->variant ||
	    !wp_variant_from_label(f->variant, &v) || v.kind != WP_VARIANT_CUDA)
		return NULL;
	const char *fam = wp_torch_platform_family(t->platform);
	if (!fam || wp_torch_arch_list(f->version, v.major, v.minor, fam, &l) < 0)
		return NULL;
	struct wp_buf b = WP_BUF_INIT;
	wp_arch_list_format(&l, &b);
	return wp_buf_detach(&b, NULL);
}

/* "torchvision 0.9.0" names the pick of that project at that public version in target t. */
static long find_by(const struct wp_plan *plan, size_t t, const char *by, size_t by_len)
{
	const char *sp = memrchr(by, ' ', by_len);
	if (!sp)
		return -1;
	struct wp_buf want = WP_BUF_INIT, have = WP_BUF_INIT;
	wp_project_name_normalize(by, (size_t)(sp - by), &want);
	size_t vlen = by_len - (size_t)(sp + 1 - by);
	long found = -1;
	for (size_t i = 0; i < plan->n && found < 0; i++) {
		const struct wp_plan_file *f = &plan->files[i];
		if (f->target != t)
			continue;
		wp_buf_reset(&have);
		wp_project_name_normalize(f->project, strlen(f->project), &have);
		size_t pub = strcspn(f->version, "+");
		if (!strcmp(have.data, want.data) && pub == vlen &&
		    !strncmp(f->version, sp + 1, vlen))
			found = (long)i;
	}
	wp_buf_free(&want);
	wp_buf_free(&have);
	return found;
}

void wp_sbom_from_plan(const struct wp_plan *plan, struct wp_sbom *out)
{
	size_t *comp_of = wp_xcalloc(plan->n ? plan->n : 1, sizeof(*comp_of));
	for (size_t i = 0; i < plan->n; i++) {
		const struct wp_plan_file *f = &plan->files[i];
		size_t at = out->n;
		comp_of[i] = SIZE_MAX;
		if (!f->path)
			continue; /* not fetched, or refused: it is in no output */
		for (size_t k = 0; k < out->n && at == out->n; k++)
			if (!strcmp(out->c[k].filename, f->filename))
				at = k;
		struct wp_sbom_comp *c;
		if (at == out->n) {
			c = wp_sbom_add(out);
			c->path = wp_xstrdup(f->filename);
			c->ecosystem = wp_xstrdup("pypi");
			c->name = wp_xstrdup(f->project);
			c->version = wp_xstrdup(f->version);
			c->filename = wp_xstrdup(f->filename);
			c->sha256 = dupn(f->sha256);
			c->url = dupn(f->url);
			c->size = f->size;
			c->tags = dupn(f->tags);
			c->variant = f->variant && *f->variant ? wp_xstrdup(f->variant) : NULL;
		} else {
			c = &out->c[at];
		}
		comp_of[i] = at;
		const struct wp_target *t = &plan->targets[f->target];
		struct wp_buf words = WP_BUF_INIT;
		wp_target_describe(t, &words);
		wp_sbom_comp_target(c, words.data);
		wp_buf_free(&words);
		if (!c->gpu_archs)
			c->gpu_archs = gpu_archs(f, t);
	}
	/* who needs whom, per target: "torchvision 0.9.0" needs this file */
	for (size_t i = 0; i < plan->n; i++) {
		const char *by = plan->files[i].needed_by;
		while (by && *by) {
			size_t len = strcspn(by, "\n");
			long j = find_by(plan, plan->files[i].target, by, len);
			if (j >= 0 && comp_of[j] != SIZE_MAX && comp_of[i] != SIZE_MAX &&
			    comp_of[j] != comp_of[i])
				add_dep(&out->c[comp_of[j]], comp_of[i]);
			by += len + (by[len] == '\n');
		}
	}
	free(comp_of);
}

void wp_sbom_release(struct wp_sbom *b)
{
	for (size_t i = 0; i < b->n; i++) {
		struct wp_sbom_comp *c = &b->c[i];
		free(c->path), free(c->ecosystem), free(c->name), free(c->version),
			free(c->filename), free(c->sha256);
		free(c->url), free(c->subdir), free(c->build), free(c->channel), free(c->tags),
			free(c->variant);
		free(c->gpu_archs), free(c->provenance);
		for (size_t k = 0; k < c->n_targets; k++)
			free(c->targets[k]);
		free(c->targets);
		free(c->deps);
		for (size_t k = 0; k < c->n_sboms; k++)
			free(c->sboms[k]);
		free(c->sboms);
	}
	free(b->c);
	memset(b, 0, sizeof(*b));
}

/* --- filling from the output's files --- */

/* PEP 770: the SBOMs a wheel carries under NAME.dist-info/sboms/, each "PATH sha256". */
static void wheel_sboms(const char *path, const char *filename, struct wp_sbom_comp *c)
{
	struct wp_wheel_limits lim;
	struct wp_wheel_reader *r = NULL;
	struct wp_wheel_info info;
	struct wp_err e = WP_ERR_INIT;
	wp_wheel_limits_fill(&lim, NULL);
	if (wp_wheel_reader_open(path, filename, &lim, &r, &info, &e) < 0) {
		wp_wheel_info_release(&info);
		return; /* verify speaks of a wheel that does not open; the SBOM lists what it can
			 */
	}
	for (size_t i = 0; i < wp_wheel_reader_count(r); i++) {
		struct wp_wheel_entry we;
		wp_wheel_reader_entry(r, i, &we);
		const char *sb = strstr(we.name, ".dist-info/sboms/");
		if (we.is_dir || !sb || strchr(we.name, '/') != sb + 10 || !sb[17])
			continue;
		unsigned char raw[32];
		char hex[WP_SHA256_HEX_LEN + 1];
		wp_err_clear(&e);
		if (wp_wheel_reader_extract(r, i, NULL, NULL, &e) < 0)
			continue;
		wp_wheel_reader_sha256(r, i, raw);
		wp_hex_encode(raw, sizeof(raw), hex);
		c->sboms = wp_xrealloc(c->sboms, (c->n_sboms + 1) * sizeof(*c->sboms));
		c->sboms[c->n_sboms++] = wp_xasprintf("%s %s", we.name, hex);
	}
	wp_wheel_reader_close(r);
	wp_wheel_info_release(&info);
}

static void fill_from_dir(const char *dir, struct wp_sbom_comp *c)
{
	char *p = wp_xasprintf("%s/%s%s", dir, c->path, WP_PROV_SUFFIX);
	struct wp_os_stat sb;
	if (!c->provenance)
		c->provenance = wp_xstrdup(
			wp_os_stat(p, &sb) == 0 && WP_S_ISREG(sb.st_mode) ? "present" : "absent");
	free(p);
	size_t n = strlen(c->filename);
	if (!c->n_sboms && n > 4 && !strcmp(c->filename + n - 4, ".whl")) {
		p = wp_xasprintf("%s/%s", dir, c->path);
		wheel_sboms(p, c->filename, c);
		free(p);
	}
}

/* --- purls --- */

/* purl's percent-encoding: unreserved characters stay, as do ':' and '/' in a qualifier value */
static void purl_enc(struct wp_buf *out, const char *s, bool keep_slash)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (isalnum(*p) || *p == '.' || *p == '-' || *p == '_' || *p == '~' ||
		    (keep_slash && (*p == '/' || *p == ':')))
			wp_buf_addch(out, (char)*p);
		else
			wp_buf_printf(out, "%%%02X", *p);
	}
}

/* A URL's folder with no credentials, query or fragment: where a purl says the file came from. */
static char *repository_of(const char *url)
{
	if (!url)
		return NULL;
	const char *host = strstr(url, "://");
	struct wp_buf b = WP_BUF_INIT;
	size_t end = strcspn(url, "?#");
	if (host) {
		host += 3;
		size_t auth = strcspn(host, "/?#");
		const char *at = memchr(host, '@', auth);
		wp_buf_add(&b, url, (size_t)(host - url));
		if (at)
			host = at + 1; /* credentials never */
		wp_buf_add(&b, host, end - (size_t)(host - url));
	} else {
		wp_buf_add(&b, url, end);
	}
	char *slash = strrchr(b.data ? b.data : "", '/');
	if (slash && (!host || slash > b.data + (host - url)))
		b.len = (size_t)(slash - b.data), b.data[b.len] = 0;
	return wp_buf_detach(&b, NULL);
}

/* The URL with no credentials, query or fragment. */
static char *clean_url(const char *url)
{
	if (!url)
		return NULL;
	char *out = wp_xstrndup(url, strcspn(url, "?#"));
	char *h = strstr(out, "://");
	if (h) {
		char *auth_end = h + 3 + strcspn(h + 3, "/");
		char *at = memchr(h + 3, '@', (size_t)(auth_end - (h + 3)));
		if (at)
			memmove(h + 3, at + 1, strlen(at + 1) + 1);
	}
	return out;
}

static char *purl_of(const struct wp_sbom_comp *c)
{
	struct wp_buf b = WP_BUF_INIT;
	char *repo = repository_of(c->url);
	if (!strcmp(c->ecosystem, "conda")) {
		wp_buf_addstr(&b, "pkg:conda/");
		purl_enc(&b, c->name, false);
		wp_buf_addch(&b, '@');
		purl_enc(&b, c->version, false);
		const char *sep = "?";
		if (c->build) {
			wp_buf_printf(&b, "%sbuild=", sep), purl_enc(&b, c->build, false),
				sep = "&";
		}
		char *chan = c->channel ? repository_of(c->channel) : NULL;
		if (c->channel) {
			free(chan);
			chan = wp_xstrdup(c->channel);
			char *q = strpbrk(chan, "?#");
			if (q)
				*q = 0;
			const char *h = strstr(chan, "://"), *at = h ? strchr(h + 3, '@') : NULL;
			if (at && (!strchr(h + 3, '/') || at < strchr(h + 3, '/'))) {
				char *clean = wp_xasprintf("%.*s%s", (int)(h + 3 - chan), chan,
							   at + 1);
				free(chan);
				chan = clean;
			}
			wp_buf_printf(&b, "%schannel=", sep), purl_enc(&b, chan, true), sep = "&";
		}
		free(chan);
		if (c->subdir)
			wp_buf_printf(&b, "%ssubdir=", sep), purl_enc(&b, c->subdir, false),
				sep = "&";
		size_t n = strlen(c->filename);
		wp_buf_printf(&b, "%stype=%s", sep,
			      n > 6 && !strcmp(c->filename + n - 6, ".conda") ? "conda" :
										"tar.bz2");
	} else {
		struct wp_buf name = WP_BUF_INIT;
		wp_project_name_normalize(c->name, strlen(c->name), &name);
		wp_buf_addstr(&b, "pkg:pypi/");
		purl_enc(&b, name.data, false);
		wp_buf_free(&name);
		wp_buf_addch(&b, '@');
		purl_enc(&b, c->version, false);
		wp_buf_addstr(&b, "?file_name=");
		purl_enc(&b, c->filename, false);
		if (repo) {
			wp_buf_addstr(&b, "&repository_url=");
			purl_enc(&b, repo, true);
		}
	}
	free(repo);
	return wp_buf_detach(&b, NULL);
}

/* --- documents --- */

static void prop(struct wp_json *j, const char *name, const char *value)
{
	if (!value)
		return;
	wp_json_obj(j);
	wp_json_kstr(j, "name", name);
	wp_json_kstr(j, "value", value);
	wp_json_obj_end(j);
}

static void iso_time(long long t, char out[32])
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (!gmtime_r(&tt, &tm) || !strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(out, 32, "%s", "1970-01-01T00:00:00Z");
}

/* A UUID (RFC 4122 form, version 5 bits) from the sha256 of the document without it: the same
 * content, the same serial number; another content, another. */
static void uuid_of(const struct wp_buf *doc, char out[37])
{
	char hex[WP_SHA256_HEX_LEN + 1];
	if (wp_sha256_hex_of(doc->data, doc->len, hex) < 0)
		memset(hex, '0', WP_SHA256_HEX_LEN), hex[WP_SHA256_HEX_LEN] = 0;
	hex[12] = '5';
	hex[16] = "89ab"[strtol((char[]){ hex[16], 0 }, NULL, 16) & 3];
	snprintf(out, 37, "%.8s-%.4s-%.4s-%.4s-%.12s", hex, hex + 8, hex + 12, hex + 16, hex + 20);
}

static int cdx_doc(const struct wp_session *s, const struct wp_sbom *b, const char *serial,
		   struct wp_buf *out, struct wp_err *err)
{
	struct wp_json j;
	wp_json_init(&j);
	wp_json_obj(&j);
	wp_json_kstr(&j, "bomFormat", "CycloneDX");
	wp_json_kstr(&j, "specVersion", "1.6");
	if (serial) {
		char *sn = wp_xasprintf("urn:uuid:%s", serial);
		wp_json_kstr(&j, "serialNumber", sn);
		free(sn);
	}
	wp_json_kint(&j, "version", 1);
	wp_json_key(&j, "metadata");
	wp_json_obj(&j);
	if (s && s->source_date_set) {
		char ts[32];
		iso_time(s->source_date, ts);
		wp_json_kstr(&j, "timestamp", ts);
	}
	wp_json_key(&j, "tools");
	wp_json_obj(&j);
	wp_json_key(&j, "components");
	wp_json_arr(&j);
	wp_json_obj(&j);
	wp_json_kstr(&j, "type", "application");
	wp_json_kstr(&j, "name", "wheelpick");
	wp_json_obj_end(&j);
	wp_json_arr_end(&j);
	wp_json_obj_end(&j);
	wp_json_key(&j, "component");
	wp_json_obj(&j);
	wp_json_kstr(&j, "type", "file");
	wp_json_kstr(&j, "bom-ref", "output");
	wp_json_kstr(&j, "name", b->name ? b->name : b->kind);
	wp_json_kstr(&j, "description", b->kind);
	wp_json_obj_end(&j);
	wp_json_key(&j, "properties");
	wp_json_arr(&j);
	prop(&j, "wheelpick:output", b->kind);
	wp_json_arr_end(&j);
	wp_json_obj_end(&j);

	wp_json_key(&j, "components");
	wp_json_arr(&j);
	for (size_t i = 0; i < b->n; i++) {
		const struct wp_sbom_comp *c = &b->c[i];
		char *purl = purl_of(c);
		wp_json_obj(&j);
		wp_json_kstr(&j, "type", "library");
		wp_json_kstr(&j, "bom-ref", c->path);
		wp_json_kstr(&j, "name", c->name);
		wp_json_kstr(&j, "version", c->version);
		if (c->sha256) {
			wp_json_key(&j, "hashes");
			wp_json_arr(&j);
			wp_json_obj(&j);
			wp_json_kstr(&j, "alg", "SHA-256");
			wp_json_kstr(&j, "content", c->sha256);
			wp_json_obj_end(&j);
			wp_json_arr_end(&j);
		}
		wp_json_kstr(&j, "purl", purl);
		free(purl);
		if (c->n_sboms) {
			/* PEP 770: the wheel's own SBOMs, by their path inside it */
			wp_json_key(&j, "externalReferences");
			wp_json_arr(&j);
			for (size_t k = 0; k < c->n_sboms; k++) {
				const char *sp = strrchr(c->sboms[k], ' ');
				char *member = wp_xstrndup(c->sboms[k], (size_t)(sp - c->sboms[k]));
				wp_json_obj(&j);
				wp_json_kstr(&j, "type", "bom");
				wp_json_kstr(&j, "url", member);
				wp_json_kstr(&j, "comment", "an SBOM this wheel carries (PEP 770)");
				wp_json_key(&j, "hashes");
				wp_json_arr(&j);
				wp_json_obj(&j);
				wp_json_kstr(&j, "alg", "SHA-256");
				wp_json_kstr(&j, "content", sp + 1);
				wp_json_obj_end(&j);
				wp_json_arr_end(&j);
				wp_json_obj_end(&j);
				free(member);
			}
			wp_json_arr_end(&j);
		}
		wp_json_key(&j, "properties");
		wp_json_arr(&j);
		prop(&j, "wheelpick:path", c->path);
		char *src = clean_url(c->url);
		prop(&j, "wheelpick:source", src);
		free(src);
		if (c->size >= 0) {
			char n[32];
			snprintf(n, sizeof(n), "%lld", c->size);
			prop(&j, "wheelpick:size", n);
		}
		prop(&j, "wheelpick:tags", c->tags);
		prop(&j, "wheelpick:variant", c->variant);
		prop(&j, "wheelpick:gpu-archs", c->gpu_archs);
		prop(&j, "wheelpick:conda-subdir", c->subdir);
		prop(&j, "wheelpick:conda-build", c->build);
		for (size_t k = 0; k < c->n_targets; k++)
			prop(&j, "wheelpick:target", c->targets[k]);
		prop(&j, "wheelpick:provenance", c->provenance ? c->provenance : "absent");
		wp_json_arr_end(&j);
		wp_json_obj_end(&j);
	}
	wp_json_arr_end(&j);

	wp_json_key(&j, "dependencies");
	wp_json_arr(&j);
	wp_json_obj(&j);
	wp_json_kstr(&j, "ref", "output");
	wp_json_key(&j, "dependsOn");
	wp_json_arr(&j);
	for (size_t i = 0; i < b->n; i++)
		wp_json_str(&j, b->c[i].path);
	wp_json_arr_end(&j);
	wp_json_obj_end(&j);
	for (size_t i = 0; i < b->n; i++) {
		const struct wp_sbom_comp *c = &b->c[i];
		wp_json_obj(&j);
		wp_json_kstr(&j, "ref", c->path);
		wp_json_key(&j, "dependsOn");
		wp_json_arr(&j);
		for (size_t k = 0; k < c->n_deps; k++)
			wp_json_str(&j, b->c[c->deps[k]].path);
		wp_json_arr_end(&j);
		wp_json_obj_end(&j);
	}
	wp_json_arr_end(&j);
	wp_json_obj_end(&j);
	int rc = wp_json_finish_buf(&j, out);
	if (rc)
		wp_fail(err, rc, "cannot write the SBOM: a name or URL is not UTF-8");
	return rc;
}

static int spdx_doc(const struct wp_session *s, const struct wp_sbom *b, const char *serial,
		    struct wp_buf *out, struct wp_err *err)
{
	struct wp_json j;
	char ts[32];
	iso_time(s && s->source_date_set ? s->source_date : 0, ts);
	wp_json_init(&j);
	wp_json_obj(&j);
	wp_json_kstr(&j, "spdxVersion", "SPDX-2.3");
	wp_json_kstr(&j, "dataLicense", "CC0-1.0");
	wp_json_kstr(&j, "SPDXID", "SPDXRef-DOCUMENT");
	wp_json_kstr(&j, "name", b->name ? b->name : b->kind);
	char *ns = wp_xasprintf("https://spdx.org/spdxdocs/wheelpick-%s", serial);
	wp_json_kstr(&j, "documentNamespace", ns);
	free(ns);
	wp_json_key(&j, "creationInfo");
	wp_json_obj(&j);
	wp_json_kstr(&j, "created", ts); /* required by SPDX: SOURCE_DATE_EPOCH, else the epoch */
	wp_json_key(&j, "creators");
	wp_json_arr(&j);
	wp_json_str(&j, "Tool: wheelpick");
	wp_json_arr_end(&j);
	wp_json_obj_end(&j);
	wp_json_key(&j, "packages");
	wp_json_arr(&j);
	for (size_t i = 0; i < b->n; i++) {
		const struct wp_sbom_comp *c = &b->c[i];
		char id[48], *purl = purl_of(c);
		snprintf(id, sizeof(id), "SPDXRef-Package-%zu", i + 1);
		wp_json_obj(&j);
		wp_json_kstr(&j, "SPDXID", id);
		wp_json_kstr(&j, "name", c->name);
		wp_json_kstr(&j, "versionInfo", c->version);
		wp_json_kstr(&j, "packageFileName", c->path);
		char *repo = repository_of(c->url);
		char *loc = repo ? wp_xasprintf("%s/%s", repo, c->filename) : NULL;
		wp_json_kstr(&j, "downloadLocation", loc ? loc : "NOASSERTION");
		free(loc);
		free(repo);
		wp_json_kbool(&j, "filesAnalyzed", false);
		if (c->sha256) {
			wp_json_key(&j, "checksums");
			wp_json_arr(&j);
			wp_json_obj(&j);
			wp_json_kstr(&j, "algorithm", "SHA256");
			wp_json_kstr(&j, "checksumValue", c->sha256);
			wp_json_obj_end(&j);
			wp_json_arr_end(&j);
		}
		wp_json_kstr(&j, "licenseConcluded", "NOASSERTION");
		wp_json_kstr(&j, "licenseDeclared", "NOASSERTION");
		wp_json_kstr(&j, "copyrightText", "NOASSERTION");
		wp_json_key(&j, "externalRefs");
		wp_json_arr(&j);
		wp_json_obj(&j);
		wp_json_kstr(&j, "referenceCategory", "PACKAGE-MANAGER");
		wp_json_kstr(&j, "referenceType", "purl");
		wp_json_kstr(&j, "referenceLocator", purl);
		wp_json_obj_end(&j);
		wp_json_arr_end(&j);
		struct wp_buf note = WP_BUF_INIT;
		for (size_t k = 0; k < c->n_targets; k++)
			wp_buf_printf(&note, "%starget: %s", note.len ? "; " : "", c->targets[k]);
		if (c->variant)
			wp_buf_printf(&note, "; variant: %s", c->variant);
		if (c->gpu_archs)
			wp_buf_printf(&note, "; gpu-archs: %s", c->gpu_archs);
		wp_buf_printf(&note, "%sprovenance: %s", note.len ? "; " : "",
			      c->provenance ? c->provenance : "absent");
		for (size_t k = 0; k < c->n_sboms; k++)
			wp_buf_printf(&note, "; sbom (PEP 770): %s", c->sboms[k]);
		wp_json_kstr(&j, "comment", note.data);
		wp_buf_free(&note);
		free(purl);
		wp_json_obj_end(&j);
	}
	wp_json_arr_end(&j);
	wp_json_key(&j, "relationships");
	wp_json_arr(&j);
	for (size_t i = 0; i < b->n; i++) {
		char id[48];
		snprintf(id, sizeof(id), "SPDXRef-Package-%zu", i + 1);
		wp_json_obj(&j);
		wp_json_kstr(&j, "spdxElementId", "SPDXRef-DOCUMENT");
		wp_json_kstr(&j, "relationshipType", "DESCRIBES");
		wp_json_kstr(&j, "relatedSpdxElement", id);
		wp_json_obj_end(&j);
	}
	for (size_t i = 0; i < b->n; i++)
		for (size_t k = 0; k < b->c[i].n_deps; k++) {
			char a[48], d[48];
			snprintf(a, sizeof(a), "SPDXRef-Package-%zu", i + 1);
			snprintf(d, sizeof(d), "SPDXRef-Package-%zu", b->c[i].deps[k] + 1);
			wp_json_obj(&j);
			wp_json_kstr(&j, "spdxElementId", a);
			wp_json_kstr(&j, "relationshipType", "DEPENDS_ON");
			wp_json_kstr(&j, "relatedSpdxElement", d);
			wp_json_obj_end(&j);
		}
	wp_json_arr_end(&j);
	wp_json_obj_end(&j);
	int rc = wp_json_finish_buf(&j, out);
	if (rc)
		wp_fail(err, rc, "cannot write the SPDX SBOM: a name or URL is not UTF-8");
	return rc;
}

static int idx_by_path(const void *a, const void *b, void *ctx)
{
	const struct wp_sbom_comp *c = ctx;
	return strcmp(c[*(const size_t *)a].path, c[*(const size_t *)b].path);
}

static int size_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

/* Components in path order (the document's order is the output's, not the resolver's), with
 * their dependency indexes moved along and sorted. */
static void sort_comps(struct wp_sbom *b)
{
	size_t n = b->n;
	if (!n)
		return;
	size_t *order = wp_xmalloc(n * sizeof(*order)), *where = wp_xmalloc(n * sizeof(*where));
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), idx_by_path, b->c);
	struct wp_sbom_comp *c = wp_xmalloc(n * sizeof(*c));
	for (size_t i = 0; i < n; i++) {
		where[order[i]] = i;
		c[i] = b->c[order[i]];
	}
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < c[i].n_deps; k++)
			c[i].deps[k] = where[c[i].deps[k]];
		if (c[i].n_deps)
			qsort(c[i].deps, c[i].n_deps, sizeof(*c[i].deps), size_cmp);
	}
	free(b->c);
	b->c = c;
	free(order);
	free(where);
}

int wp_sbom_cdx(const struct wp_session *s, const struct wp_sbom *b, struct wp_buf *out,
		struct wp_err *err)
{
	struct wp_buf body = WP_BUF_INIT;
	char uuid[37];
	int rc = cdx_doc(s, b, NULL, &body, err);
	if (!rc) {
		uuid_of(&body, uuid);
		rc = cdx_doc(s, b, uuid, out, err);
	}
	wp_buf_free(&body);
	return rc;
}

int wp_sbom_write(const struct wp_session *s, const char *dir, struct wp_sbom *b, unsigned formats,
		  struct wp_err *err)
{
	struct wp_buf doc = WP_BUF_INIT, body = WP_BUF_INIT;
	char *path = NULL, uuid[37];
	int rc;
	for (size_t i = 0; i < b->n; i++)
		fill_from_dir(dir, &b->c[i]);
	sort_comps(b);
	if ((rc = cdx_doc(s, b, NULL, &body, err)))
		goto out;
	uuid_of(&body, uuid);
	if ((rc = cdx_doc(s, b, uuid, &doc, err)))
		goto out;
	path = wp_xasprintf("%s/" WP_SBOM_CDX_NAME, dir);
	if ((rc = wp_atomic_write(path, doc.data, doc.len, err)))
		goto out;
	free(path);
	path = wp_xasprintf("%s/" WP_SBOM_SPDX_NAME, dir);
	if (formats & WP_SBOM_SPDX) {
		wp_buf_reset(&doc);
		if (!(rc = spdx_doc(s, b, uuid, &doc, err)))
			rc = wp_atomic_write(path, doc.data, doc.len, err);
	} else {
		wp_os_unlink(path); /* an earlier run's: it would list other files */
	}
out:
	free(path);
	wp_buf_free(&doc);
	wp_buf_free(&body);
	return rc;
}
