/* resolver/fileinfo.c: file name + folder -> project, version, kind, tags, variant. */
#include "resolver/fileinfo.h"
#include "base/mem.h"
#include "resolver/variant.h"
#include "resolver/version.h"
#include "resolver/wheelname.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool all_any(char *const *tags, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *plat = strrchr(tags[i], '-');
		if (!plat || strcmp(plat + 1, "any") != 0)
			return false;
	}
	return n > 0;
}

static void set_variant(struct wp_fileinfo *fi, const char *version, const char *dir)
{
	struct wp_version v;
	struct wp_variant var;
	struct wp_err e = WP_ERR_INIT;
	fi->variant[0] = 0;
	if (wp_version_parse(&v, version, strlen(version), &e) < 0)
		return;
	const char *local = wp_version_local(&v);
	if (local) {
		if (wp_variant_from_label(local, &var))
			snprintf(fi->variant, sizeof(fi->variant), "%s", var.label);
	} else if (dir && wp_variant_from_dir(dir, &var)) {
		snprintf(fi->variant, sizeof(fi->variant), "%s", var.label);
	}
	wp_version_release(&v);
}

int wp_fileinfo_from_name(const char *filename, const char *dir, struct wp_fileinfo *fi,
			  struct wp_err *err)
{
	memset(fi, 0, sizeof(*fi));
	size_t n = strlen(filename);
	if (n > 4 && !strcmp(filename + n - 4, ".whl")) {
		struct wp_wheelname w;
		int rc = wp_wheelname_parse(filename, &w, err);
		if (rc)
			return rc;
		fi->kind = "wheel";
		fi->project = wp_xstrdup(w.project);
		fi->version = wp_xstrdup(w.version);
		fi->build = w.build && *w.build ? wp_xstrdup(w.build) : NULL;
		/* the last three dash-separated fields, exactly as written */
		const char *end = filename + n - 4, *p = end;
		int dashes = 0;
		while (p > filename && !(p[-1] == '-' && ++dashes == 3))
			p--;
		fi->tags = wp_xstrndup(p, (size_t)(end - p));
		if (!all_any(w.tags, w.n_tags))
			set_variant(fi, w.version, dir);
		/* a PEP 825 label names the build, pure or not, and keeps apart files that differ
		 * only by it */
		if (w.variant_label)
			snprintf(fi->variant, sizeof(fi->variant), "%s", w.variant_label);
		wp_wheelname_release(&w);
		return 0;
	}
	/* PEP 825's index-level {name}-{version}-variants.json: described by project and version */
	static const char vj[] = "-variants.json";
	if (n > sizeof(vj) - 1 && !strcmp(filename + n - (sizeof(vj) - 1), vj)) {
		size_t stem = n - (sizeof(vj) - 1);
		const char *dash = memchr(filename, '-', stem);
		if (!dash || dash == filename || dash + 1 == filename + stem ||
		    memchr(dash + 1, '-', (size_t)(filename + stem - dash - 1)))
			return wp_fail(err, -WPE_PARSE,
				       "'%s' is not {name}-{version}-variants.json", filename);
		struct wp_buf proj = WP_BUF_INIT;
		wp_project_name_normalize(filename, (size_t)(dash - filename), &proj);
		fi->kind = "variants";
		fi->project = wp_buf_detach(&proj, NULL);
		fi->version = wp_xstrndup(dash + 1, (size_t)(filename + stem - dash - 1));
		return 0;
	}
	struct wp_sdistname s;
	int rc = wp_sdistname_parse(filename, &s, err);
	if (rc)
		return rc;
	fi->kind = "sdist";
	fi->project = wp_xstrdup(s.project);
	fi->version = wp_xstrdup(s.version);
	set_variant(fi, s.version, NULL);
	wp_sdistname_release(&s);
	return 0;
}

void wp_fileinfo_release(struct wp_fileinfo *fi)
{
	free(fi->project);
	free(fi->version);
	free(fi->tags);
	free(fi->build);
	memset(fi, 0, sizeof(*fi));
}

void wp_conda_variant(const char *build, char out[48])
{
	out[0] = 0;
	if (!build)
		return;
	for (const char *p = build; (p = strstr(p, "cuda")); p += 4) {
		const char *d = p + 4;
		if (!isdigit((unsigned char)*d))
			continue;
		int major = 0, minor = 0, nd = 0;
		while (isdigit((unsigned char)d[nd]) && nd < 4)
			nd++;
		if (d[nd] == '.' && isdigit((unsigned char)d[nd + 1])) {
			/* cuda11.1 */
			major = (int)strtol(d, NULL, 10);
			minor = (int)strtol(d + nd + 1, NULL, 10);
		} else if (nd == 3 || nd == 2) {
			/* cuda112 / cuda92: the last digit is the minor */
			int v = (int)strtol(d, NULL, 10);
			major = v / 10;
			minor = v % 10;
		} else {
			continue;
		}
		snprintf(out, 48, "cu%d%d", major, minor);
		return;
	}
	/* "_cpu_", "cpu_", a build that starts with "cpu" */
	size_t n = strlen(build);
	for (const char *p = build; (p = strstr(p, "cpu")); p += 3) {
		bool left = p == build || p[-1] == '_' || p[-1] == '-';
		bool right = p + 3 == build + n || p[3] == '_' || p[3] == '-';
		if (left && right) {
			snprintf(out, 48, "cpu");
			return;
		}
	}
}
