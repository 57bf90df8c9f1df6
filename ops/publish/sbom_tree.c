/* ops/publish/sbom_tree.c: the SBOM of a mirror, which lists every file the tree holds (its
 * manifest), this run's with what the plan knows, earlier runs' with what their SBOM said. */
#include "ops/publish/sbom_tree.h"
#include "base/buf.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/mem.h"
#include "ops/publish/mirror.h"
#include "resolver/fileinfo.h"
#include "resolver/wheelname.h"

#include <stdlib.h>
#include <string.h>

#define SBOM_MAX ((size_t)256 << 20)

static char *norm(const char *project)
{
	struct wp_buf b = WP_BUF_INIT;
	wp_project_name_normalize(project, strlen(project), &b);
	return wp_buf_detach(&b, NULL);
}

/* What the tree's earlier SBOM said of path: its targets, variant, GPU list, tags and source. */
static void carry_over(const struct wp_json_val *old, const char *path, struct wp_sbom_comp *c)
{
	const struct wp_json_val *comps = wp_json_get_arr(old, "components");
	for (size_t i = 0; i < wp_json_len(comps); i++) {
		const struct wp_json_val *oc = wp_json_at(comps, i);
		const char *ref = wp_json_get_str(oc, "bom-ref");
		if (!ref || strcmp(ref, path) != 0)
			continue;
		const struct wp_json_val *props = wp_json_get_arr(oc, "properties");
		for (size_t k = 0; k < wp_json_len(props); k++) {
			const char *n = wp_json_get_str(wp_json_at(props, k), "name");
			const char *v = wp_json_get_str(wp_json_at(props, k), "value");
			if (!n || !v)
				continue;
			if (!strcmp(n, "wheelpick:target"))
				wp_sbom_comp_target(c, v);
			else if (!strcmp(n, "wheelpick:variant") && !c->variant)
				c->variant = wp_xstrdup(v);
			else if (!strcmp(n, "wheelpick:gpu-archs") && !c->gpu_archs)
				c->gpu_archs = wp_xstrdup(v);
			else if (!strcmp(n, "wheelpick:tags") && !c->tags)
				c->tags = wp_xstrdup(v);
			else if (!strcmp(n, "wheelpick:source") && !c->url)
				c->url = wp_xstrdup(v);
		}
		return;
	}
}

int wp_publish_mirror_sbom(const struct wp_session *s, const struct wp_plan *plan, const char *dir,
			   struct wp_err *err)
{
	struct wp_sbom b = { .kind = "mirror" };
	struct wp_buf text = WP_BUF_INIT, old_text = WP_BUF_INIT;
	struct wp_json_val *man = NULL, *old = NULL;
	char *path = wp_xasprintf("%s/%s", dir, WP_MIRROR_MANIFEST);
	bool found = false;
	int rc;
	const struct wp_json_opts mo = { .what = path,
					 .noun = "mirror manifest",
					 .max_bytes = SBOM_MAX };
	if ((rc = wp_file_read_capped(path, SBOM_MAX, &text, err)) ||
	    (rc = wp_json_load(text.data, text.len, &mo, &man, err)))
		goto out;
	free(path);
	path = wp_xasprintf("%s/" WP_SBOM_CDX_NAME, dir);
	const struct wp_json_opts so = { .what = path, .noun = "SBOM", .max_bytes = SBOM_MAX };
	struct wp_err oe = WP_ERR_INIT;
	/* an unreadable earlier SBOM only loses what it said of earlier runs' files */
	if (wp_file_read_if_exists(path, SBOM_MAX, &old_text, &found, &oe) == 0 && found)
		wp_json_load(old_text.data, old_text.len, &so, &old, &oe);
	/* this run's files, with targets and dependencies; their paths are the tree's */
	wp_sbom_from_plan(plan, &b);
	size_t from_plan = b.n;
	bool *listed = wp_xcalloc(from_plan ? from_plan : 1, sizeof(*listed));
	const struct wp_json_val *files = wp_json_get_arr(man, "files");
	for (size_t i = 0; i < wp_json_len(files); i++) {
		const struct wp_json_val *f = wp_json_at(files, i);
		const char *project = wp_json_get_str(f, "project"),
			   *filename = wp_json_get_str(f, "filename");
		if (!project || !filename)
			continue;
		char *p = norm(project);
		char *rel = wp_xasprintf("files/%s/%s", p, filename);
		free(p);
		struct wp_sbom_comp *c = NULL;
		for (size_t k = 0; k < from_plan && !c; k++)
			if (!strcmp(b.c[k].filename, filename))
				c = &b.c[k], listed[k] = true;
		if (!c) {
			struct wp_fileinfo fi;
			c = wp_sbom_add(&b);
			c->ecosystem = wp_xstrdup("pypi");
			c->filename = wp_xstrdup(filename);
			memset(&fi, 0, sizeof(fi));
			bool parsed = wp_fileinfo_from_name(filename, NULL, &fi, NULL) == 0;
			c->name = wp_xstrdup(parsed && fi.project ? fi.project : project);
			c->version = wp_xstrdup(parsed && fi.version ? fi.version : "");
			if (parsed)
				wp_fileinfo_release(&fi);
			long long size;
			c->size = wp_json_as_int(wp_json_get(f, "size"), &size) ? size : -1;
			c->sha256 = wp_json_get_str(f, "sha256") ?
					    wp_xstrdup(wp_json_get_str(f, "sha256")) :
					    NULL;
			carry_over(old, rel, c);
		}
		free(c->path);
		c->path = rel;
	}
	/* every fetched plan file is in the manifest; one that is not (never expected) keeps a path
	 * under files/ so that verify names it */
	for (size_t k = 0; k < from_plan; k++)
		if (!listed[k]) {
			free(b.c[k].path);
			b.c[k].path = wp_xasprintf("files/%s", b.c[k].filename);
		}
	free(listed);
	rc = wp_sbom_write(s, dir, &b, WP_SBOM_CDX | (s->sbom_spdx ? WP_SBOM_SPDX : 0), err);
out:
	wp_sbom_release(&b);
	wp_json_tree_free(man);
	wp_json_tree_free(old);
	wp_buf_free(&text);
	wp_buf_free(&old_text);
	free(path);
	return rc;
}
