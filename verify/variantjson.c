/* verify/variantjson.c: a PEP 825 variant wheel's own *.dist-info/variant.json, read from the
 * wheel, and the check that it names its file name's label (the one thing a fetch must prove before
 * a variant wheel is kept under its name; ops/verify/variants.c checks the rest). */
#include "verify/variantjson.h"
#include "verify/archopen.h"
#include "base/json.h"
#include "base/mem.h"
#include "resolver/wheelvariant.h"

#include <archive.h>
#include <archive_entry.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int wp_wheel_variant_json(const char *path, struct wp_buf *out, bool *found, char *why,
			  size_t whysz)
{
	struct archive *a = archive_read_new();
	struct archive_entry *ae;
	int rc = 0, r;
	*found = false;
	archive_read_support_format_zip_seekable(a);
	if (wp_archive_read_open_paths(a, &path, 1) != ARCHIVE_OK) {
		snprintf(why, whysz, "cannot be read as a zip: %s", archive_error_string(a));
		rc = -1;
		goto out;
	}
	while ((r = archive_read_next_header(a, &ae)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(ae);
		const char *slash = name ? strchr(name, '/') : NULL;
		if (!slash || strcmp(slash, "/variant.json") || slash - name < 10 ||
		    strncmp(slash - 10, ".dist-info", 10))
			continue;
		*found = true;
		char chunk[16384];
		la_ssize_t got;
		while ((got = archive_read_data(a, chunk, sizeof(chunk))) > 0) {
			if (wp_buf_add(out, chunk, (size_t)got) < 0) {
				snprintf(why, whysz, "has a %s larger than %u bytes", name,
					 WP_VARIANTS_MAX_BYTES);
				rc = -1;
				goto out;
			}
		}
		if (got < 0) {
			snprintf(why, whysz, "cannot read %s: %s", name, archive_error_string(a));
			rc = -1;
		}
		goto out;
	}
	if (r != ARCHIVE_EOF) {
		snprintf(why, whysz, "cannot be read as a zip: %s", archive_error_string(a));
		rc = -1;
	}
out:
	archive_read_free(a);
	return rc;
}

int wp_variant_json_labels(const char *text, size_t len, struct wp_buf *labels)
{
	const struct wp_json_opts o = { .what = "variant.json",
					.max_bytes = WP_VARIANTS_MAX_BYTES };
	struct wp_json_val *tree = NULL;
	if (wp_json_load(text, len, &o, &tree, NULL) < 0)
		return -1;
	const struct wp_json_val *vars = wp_json_get_obj(tree, "variants");
	int rc = vars ? 0 : -1;
	for (size_t i = 0; vars && i < wp_json_len(vars); i++)
		wp_buf_printf(labels, "%s'%s'", i ? ", " : "", wp_json_key_at(vars, i));
	if (vars && wp_json_len(vars) == 1 && wp_json_key_at(vars, 0))
		rc = 1;
	wp_json_tree_free(tree);
	return rc;
}

int wp_verify_variant_wheel_label(const char *path, const char *filename, const char *label,
				  struct wp_err *err)
{
	if (!label)
		return 0;
	struct wp_buf b = WP_BUF_INIT_MAX(WP_VARIANTS_MAX_BYTES), labels = WP_BUF_INIT;
	bool found;
	char why[512];
	int rc = 0;
	if (wp_wheel_variant_json(path, &b, &found, why, sizeof(why)) < 0) {
		rc = wp_fail(err, -WPE_INTEGRITY, "variant wheel '%s' %s", filename, why);
	} else if (!found) {
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "variant wheel '%s' has no *.dist-info/variant.json; PEP 825 requires one",
			     filename);
	} else {
		int one = wp_variant_json_labels(wp_buf_cstr(&b), b.len, &labels);
		char *want = wp_xasprintf("'%s'", label);
		if (one != 1 || strcmp(labels.data, want))
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "variant wheel '%s': its variant.json names %s, but its file name's "
				     "label is '%s'; it is not the build its name says (PEP 825: exactly that one label)",
				     filename,
				     one < 0    ? "no \"variants\" object" :
				     labels.len ? labels.data :
						  "no label",
				     label);
		free(want);
	}
	wp_buf_free(&b);
	wp_buf_free(&labels);
	return rc;
}
