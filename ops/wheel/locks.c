/* ops/wheel/locks.c: requirement files and pylock.toml for every target of a plan. */
#include "ops/wheel/locks.h"
#include "base/buf.h"
#include "base/fs.h"
#include "base/mem.h"
#include "base/str.h"
#include "base/vec.h"
#include "resolver/marker.h"
#include "resolver/pick.h"
#include "resolver/wheelvariant.h"
#include "base/os/os.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WP_LOCK_CREATED_BY "wheelpick"

void wp_lock_report_release(struct wp_lock_report *rep)
{
	for (size_t i = 0; i < rep->n; i++)
		free(rep->v[i].name), free(rep->v[i].for_whom);
	free(rep->v);
	for (size_t i = 0; i < rep->n_warnings; i++)
		free(rep->warnings[i]);
	free(rep->warnings);
	memset(rep, 0, sizeof(*rep));
}

void wp_lock_report_add(struct wp_lock_report *rep, const char *name, const char *for_whom)
{
	wp_vec_push_fields(rep->v, rep->n, rep->cap,
			   ((struct wp_lock_file){ wp_xstrdup(name), wp_xstrdup(for_whom) }));
}

void wp_target_slug(const struct wp_target *t, struct wp_buf *out)
{
	wp_buf_reset(out);
	switch (t->accel) {
	case WP_ACCEL_CUDA:
		if (t->driver_given)
			wp_buf_printf(out, "driver%s", t->driver.text);
		else
			wp_buf_printf(out, "cu%d%d", t->cuda_major, t->cuda_minor);
		if (t->cuda_strict)
			wp_buf_addstr(out, "-strict");
		break;
	case WP_ACCEL_ROCM:
		wp_buf_printf(out, "rocm%d.%d", t->rocm_major, t->rocm_minor);
		break;
	case WP_ACCEL_XPU:
		wp_buf_addstr(out, "xpu");
		break;
	default:
		wp_buf_addstr(out, "cpu");
		break;
	}
	for (int g = 0; g < t->n_gpus; g++)
		wp_buf_printf(out, "-sm%d", t->gpu_sm[g]);
	for (int g = 0; g < t->n_gfx; g++)
		wp_buf_printf(out, "-%s", t->gfx[g]);
	wp_buf_printf(out, "-py%d.%d%s-%s", t->py_major, t->py_minor,
		      t->abi[0] && t->abi[strlen(t->abi) - 1] == 't' ? "t" : "", t->platform);
	/* a slug goes into file names: keep it to what every file system takes */
	for (size_t i = 0; i < out->len; i++) {
		char c = out->data[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-'))
			out->data[i] = '_';
	}
}

/* The targets of a plan, each with its marker and slug, and which share a marker. */
struct targets {
	size_t n;
	char **marker;
	char **slug;
	char **desc;
	bool *alone;   /* no other target has its marker: the shared files can serve it */
	size_t n_alone;
};

static void targets_init(struct targets *ts, const struct wp_plan *plan)
{
	struct wp_buf b = WP_BUF_INIT;
	ts->n = plan->n_targets;
	ts->marker = wp_xcalloc(ts->n ? ts->n : 1, sizeof(*ts->marker));
	ts->slug = wp_xcalloc(ts->n ? ts->n : 1, sizeof(*ts->slug));
	ts->desc = wp_xcalloc(ts->n ? ts->n : 1, sizeof(*ts->desc));
	ts->alone = wp_xcalloc(ts->n ? ts->n : 1, sizeof(*ts->alone));
	for (size_t i = 0; i < ts->n; i++) {
		wp_buf_reset(&b);
		wp_target_marker(&plan->targets[i], &b);
		ts->marker[i] = wp_xstrdup(wp_buf_cstr(&b));
		wp_buf_reset(&b);
		wp_target_describe(&plan->targets[i], &b);
		ts->desc[i] = wp_xstrdup(wp_buf_cstr(&b));
		wp_target_slug(&plan->targets[i], &b);
		/* two targets with one slug (the same words twice) are told apart by a number */
		int same = 0;
		for (size_t k = 0; k < i; k++)
			if (!strncmp(ts->slug[k], b.data, b.len) &&
			    (ts->slug[k][b.len] == 0 || ts->slug[k][b.len] == '-'))
				same++;
		ts->slug[i] = same ? wp_xasprintf("%s-%d", b.data, same + 1) : wp_xstrdup(b.data);
	}
	for (size_t i = 0; i < ts->n; i++) {
		ts->alone[i] = true;
		for (size_t k = 0; k < ts->n && ts->alone[i]; k++)
			if (k != i && !strcmp(ts->marker[i], ts->marker[k]))
				ts->alone[i] = false;
		ts->n_alone += ts->alone[i];
	}
	wp_buf_free(&b);
}

static void targets_free(struct targets *ts)
{
	for (size_t i = 0; i < ts->n; i++)
		free(ts->marker[i]), free(ts->slug[i]), free(ts->desc[i]);
	free(ts->marker), free(ts->slug), free(ts->desc), free(ts->alone);
}

/* One project and version of the plan, the targets (of the set being written) that take it, and
 * the plan files that hold its distinct files. */
struct entry {
	const char *project, *version;
	bool *for_target;      /* indexed by target */
	WP_VEC_OF(, const struct wp_plan_file *) files;
};

WP_VEC_OF(entry_vec, struct entry);

/* Entries for the targets in `in` (a bool per target), in plan order. */
static void entries_for(const struct wp_plan *plan, const bool *in, size_t nt,
			struct entry_vec *out)
{
	for (size_t i = 0; i < plan->n; i++) {
		const struct wp_plan_file *f = &plan->files[i];
		if (!in[f->target])
			continue;
		struct entry *e = NULL;
		for (size_t k = 0; k < out->n && !e; k++)
			if (!strcmp(out->v[k].project, f->project) &&
			    !strcmp(out->v[k].version, f->version))
				e = &out->v[k];
		if (!e) {
			e = wp_vec_add(out);
			e->project = f->project;
			e->version = f->version;
			e->for_target = wp_xcalloc(nt ? nt : 1, sizeof(*e->for_target));
		}
		e->for_target[f->target] = true;
		bool dup = false;
		for (size_t k = 0; k < e->files.n && !dup; k++)
			dup = !strcmp(e->files.v[k]->filename, f->filename);
		if (!dup)
			wp_vec_push(&e->files, f);
	}
}

static void entries_free(struct entry_vec *es)
{
	for (size_t i = 0; i < es->n; i++) {
		free(es->v[i].for_target);
		wp_vec_free(&es->v[i].files);
	}
	wp_vec_free(es);
}

/* The marker of an entry within the set: none when every target of the set takes it. */
static void entry_marker(const struct entry *e, const struct targets *ts, const bool *in,
			 struct wp_buf *out)
{
	size_t n_in = 0, n_e = 0;
	for (size_t t = 0; t < ts->n; t++) {
		n_in += in[t];
		n_e += in[t] && e->for_target[t];
	}
	wp_buf_reset(out);
	if (n_e == n_in)
		return;
	bool first = true;
	for (size_t t = 0; t < ts->n; t++) {
		if (!in[t] || !e->for_target[t])
			continue;
		if (n_e > 1)
			wp_buf_printf(out, "%s(%s)", first ? "" : " or ", ts->marker[t]);
		else
			wp_buf_addstr(out, ts->marker[t]);
		first = false;
	}
}

static int need_hash(const struct wp_plan_file *f, struct wp_err *err)
{
	if (f->sha256 && *f->sha256)
		return 0;
	/* a policy, not a source failure that a retry could mend: exit 1 */
	return wp_fail(err, -WPE_NOMATCH,
		       "the index gives no sha256 for '%s', and a lock must name one; give "
		       "--fetch-hashes to download and hash it, or use an index that publishes hashes",
		       f->filename);
}

/* --- requirements --- */

static int requirements_text(const struct wp_plan *plan, const struct targets *ts, const bool *in,
			     const char *name, enum wp_lock_files how, struct wp_buf *b,
			     struct wp_err *err)
{
	(void)how; /* pip finds the files by name in the folder (--find-links) */
	struct entry_vec es = { 0 };
	struct wp_buf marker = WP_BUF_INIT;
	int rc = 0;
	wp_buf_printf(b, "# written by wheelpick for:\n");
	for (size_t t = 0; t < ts->n; t++)
		if (in[t])
			wp_buf_printf(b, "#   %s\n", ts->desc[t]);
	wp_buf_printf(b,
		      "# install offline: pip install --no-index --find-links . --require-hashes -r %s\n",
		      name);
	entries_for(plan, in, ts->n, &es);
	for (size_t i = 0; i < es.n && !rc; i++) {
		const struct entry *e = &es.v[i];
		entry_marker(e, ts, in, &marker);
		if (e->version[0])
			wp_buf_printf(b, "%s==%s%s%s", e->project, e->version,
				      marker.len ? " ; " : "", wp_buf_cstr(&marker));
		else /* a pylock.toml archive with no version: the file itself, from the folder */
			wp_buf_printf(b, "./%s%s%s", e->files.v[0]->filename,
				      marker.len ? " ; " : "", wp_buf_cstr(&marker));
		for (size_t k = 0; k < e->files.n && !rc; k++) {
			if ((rc = need_hash(e->files.v[k], err)))
				break;
			bool dup = false;
			for (size_t j = 0; j < k && !dup; j++)
				dup = !strcmp(e->files.v[j]->sha256, e->files.v[k]->sha256);
			if (!dup)
				wp_buf_printf(b, " \\\n    --hash=sha256:%s",
					      e->files.v[k]->sha256);
		}
		wp_buf_addch(b, '\n');
	}
	entries_free(&es);
	wp_buf_free(&marker);
	return rc;
}

static int write_file(const char *dir, const char *name, const struct wp_buf *b, struct wp_err *err)
{
	char *path = wp_xasprintf("%s/%s", dir, name);
	int rc = wp_atomic_write(path, b->data, b->len, err);
	free(path);
	return rc;
}

/* A file an earlier run wrote that this run does not (its targets changed): it would promise
 * files that are not there, so it goes. Only files whose first line says wheelpick wrote them. */
static void remove_stale(const char *dir, const char *name)
{
	char *path = wp_xasprintf("%s/%s", dir, name);
	char head[64] = "";
	FILE *f = fopen(path, "r");
	if (f) {
		if (!fgets(head, sizeof(head), f))
			head[0] = 0;
		fclose(f);
		if (strstr(head, "written by wheelpick"))
			wp_os_unlink(path);
	}
	free(path);
}

void wp_lock_remove_stale(const char *dir, const char *shared, const char *prefix,
			  const char *suffix, const struct wp_lock_report *written, size_t from)
{
	struct wp_os_dir *d = wp_os_opendir(dir);
	const struct wp_os_dirent *de;
	size_t pl = strlen(prefix), sl = strlen(suffix);
	while (d && (de = wp_os_readdir(d))) {
		size_t n = strlen(de->d_name);
		bool ours = !strcmp(de->d_name, shared) ||
			    (n > pl + sl && !strncmp(de->d_name, prefix, pl) &&
			     !strcmp(de->d_name + n - sl, suffix));
		if (!ours)
			continue;
		bool now = false;
		for (size_t i = from; written && i < written->n && !now; i++)
			now = !strcmp(written->v[i].name, de->d_name);
		if (!now)
			remove_stale(dir, de->d_name);
	}
	if (d)
		wp_os_closedir(d);
}

/* The shared file for the targets alone in their marker, then one file per other target. */
typedef int text_fn(const struct wp_plan *plan, const struct targets *ts, const bool *in,
		    const char *name, enum wp_lock_files how, struct wp_buf *b, struct wp_err *err);

static int write_set(const struct wp_plan *plan, const char *dir, const char *shared,
		     const char *prefix, const char *suffix, text_fn *text, enum wp_lock_files how,
		     struct wp_lock_report *rep, struct wp_err *err)
{
	struct targets ts = { 0 };
	struct wp_buf b = WP_BUF_INIT;
	struct wp_lock_report mine = { 0 };
	bool *in = NULL;
	int rc = 0;
	if (!rep)
		rep = &mine;
	size_t from = rep->n;
	targets_init(&ts, plan);
	in = wp_xcalloc(ts.n ? ts.n : 1, sizeof(*in));
	if (ts.n_alone) {
		for (size_t t = 0; t < ts.n; t++)
			in[t] = ts.alone[t];
		if (!(rc = text(plan, &ts, in, shared, how, &b, err)) &&
		    !(rc = write_file(dir, shared, &b, err)))
			wp_lock_report_add(rep, shared,
					   ts.n_alone == ts.n ? "every target" :
								"the targets its markers name");
	}
	for (size_t t = 0; t < ts.n && !rc; t++) {
		if (ts.alone[t])
			continue;
		char *name = wp_xasprintf("%s%s%s", prefix, ts.slug[t], suffix);
		memset(in, 0, ts.n * sizeof(*in));
		in[t] = true;
		wp_buf_reset(&b);
		if (!(rc = text(plan, &ts, in, name, how, &b, err)) &&
		    !(rc = write_file(dir, name, &b, err)))
			wp_lock_report_add(rep, name, ts.desc[t]);
		free(name);
	}
	if (!rc)
		wp_lock_remove_stale(dir, shared, prefix, suffix, rep, from);
	free(in);
	wp_buf_free(&b);
	targets_free(&ts);
	wp_lock_report_release(&mine);
	return rc;
}

int wp_write_requirements(const struct wp_plan *plan, const char *dir, struct wp_lock_report *rep,
			  struct wp_err *err)
{
	return write_set(plan, dir, "requirements.txt", "requirements-", ".txt", requirements_text,
			 WP_LOCK_PATHS, rep, err);
}

/* --- pylock.toml --- */

/* A requires-python an index gave, fit for a lock: a PEP 440 specifier set (an installer parses
 * it; text that is none would make the lock unreadable to it, or mean something else). The plan
 * parsed it when it took the file (wp_plan_file_type). */
static bool requires_python_ok(const struct wp_plan_file *f)
{
	return f->requires_python && *f->requires_python && f->requires_python_ok;
}

/* Each file whose requires-python is left out of the lock, said once. */
static void warn_requires_python(const struct wp_plan *plan, struct wp_lock_report *rep)
{
	size_t cap = rep->n_warnings; /* what rep->warnings holds at least */
	for (size_t i = 0; i < plan->n; i++) {
		const struct wp_plan_file *f = &plan->files[i];
		if (!f->requires_python || !*f->requires_python || requires_python_ok(f))
			continue;
		bool said = false;
		for (size_t k = 0; k < i && !said; k++)
			said = !strcmp(plan->files[k].filename, f->filename);
		if (said)
			continue;
		wp_vec_push_fields(rep->warnings, rep->n_warnings, cap,
				   wp_xasprintf("the index gives '%s' a requires-python that is no PEP 440 "
						"specifier set ('%.120s'); the lock leaves it out",
						f->filename, f->requires_python));
	}
}

/* A TOML basic string: quotes, backslashes and control characters escaped; text that is not
 * UTF-8 is refused (TOML requires it). */
static int toml_str(struct wp_buf *b, const char *s, struct wp_err *err)
{
	const unsigned char *p = (const unsigned char *)s;
	wp_buf_addch(b, '"');
	while (*p) {
		unsigned char c = *p;
		if (c == '"' || c == '\\') {
			wp_buf_addch(b, '\\');
			wp_buf_addch(b, (char)c);
			p++;
		} else if (c < 0x20 || c == 0x7f) {
			wp_buf_printf(b, "\\u%04x", c);
			p++;
		} else if (c < 0x80) {
			wp_buf_addch(b, (char)c);
			p++;
		} else {
			/* a whole UTF-8 sequence, or a refusal */
			int len = c >= 0xf0 && c < 0xf5 ? 4 :
				  c >= 0xe0             ? 3 :
				  c >= 0xc2 && c < 0xe0 ? 2 :
							  0;
			for (int k = 1; k < len; k++)
				if ((p[k] & 0xc0) != 0x80)
					len = 0;
			if (!len)
				return wp_fail(err, -WPE_SOURCE,
					       "'%.80s' is not UTF-8 text; a TOML lock cannot hold it",
					       s);
			wp_buf_add(b, p, (size_t)len);
			p += len;
		}
	}
	wp_buf_addch(b, '"');
	return 0;
}

static void toml_key_str(struct wp_buf *b, const char *key, const char *value, int *rc,
			 struct wp_err *err)
{
	if (*rc)
		return;
	wp_buf_printf(b, "%s = ", key);
	*rc = toml_str(b, value, err);
	wp_buf_addch(b, '\n');
}

/* The lowest Python of the targets in the set, as a specifier (">=3.10"). */
static void min_python(const struct wp_plan *plan, const bool *in, struct wp_buf *out)
{
	int M = 0, m = 0;
	for (size_t t = 0; t < plan->n_targets; t++) {
		const struct wp_target *tg = &plan->targets[t];
		if (!in[t])
			continue;
		if (!M || tg->py_major < M || (tg->py_major == M && tg->py_minor < m))
			M = tg->py_major, m = tg->py_minor;
	}
	wp_buf_reset(out);
	if (M)
		wp_buf_printf(out, ">=%d.%d", M, m);
}

/* The variant a target got: its torch-family pick's, else its first labelled pick's. */
static const char *target_variant(const struct wp_plan *plan, size_t t)
{
	const char *any = NULL;
	for (size_t i = 0; i < plan->n; i++) {
		const struct wp_plan_file *f = &plan->files[i];
		if (f->target != t || !f->variant || !*f->variant)
			continue;
		if (wp_pick_is_torch_family(f->project))
			return f->variant;
		if (!any)
			any = f->variant;
	}
	return any;
}

static int pylock_tool_table(const struct wp_plan *plan, const struct targets *ts, const bool *in,
			     struct wp_buf *b, struct wp_err *err)
{
	int rc = 0;
	char v[64];
	/* disposable: what wheelpick decided, for the people and tools that read the lock later */
	wp_buf_addstr(b, "\n[tool.wheelpick]\n");
	toml_key_str(b, "note", "targets and the build each got; installers ignore this table", &rc,
		     err);
	for (size_t t = 0; t < ts->n && !rc; t++) {
		const struct wp_target *tg = &plan->targets[t];
		if (!in[t])
			continue;
		wp_buf_addstr(b, "\n[[tool.wheelpick.targets]]\n");
		toml_key_str(b, "marker", ts->marker[t], &rc, err);
		toml_key_str(b, "description", ts->desc[t], &rc, err);
		toml_key_str(b, "accelerator", wp_accel_word(tg->accel), &rc, err);
		if (tg->accel == WP_ACCEL_CUDA) {
			snprintf(v, sizeof(v), "%d.%d", tg->cuda_major, tg->cuda_minor);
			toml_key_str(b, "cuda", v, &rc, err);
			if (tg->driver.nparts)
				toml_key_str(b, "driver", tg->driver.text, &rc, err);
			toml_key_str(b, "cuda-compat", tg->cuda_strict ? "strict" : "minor", &rc,
				     err);
		} else if (tg->accel == WP_ACCEL_ROCM) {
			snprintf(v, sizeof(v), "%d.%d", tg->rocm_major, tg->rocm_minor);
			toml_key_str(b, "rocm", v, &rc, err);
		}
		if (tg->n_gpus || tg->n_gfx) {
			wp_buf_addstr(b, "gpus = [");
			for (int g = 0; g < tg->n_gpus; g++)
				wp_buf_printf(b, "%s\"sm_%d\"", g ? ", " : "", tg->gpu_sm[g]);
			for (int g = 0; g < tg->n_gfx && !rc; g++) {
				wp_buf_addstr(b, g || tg->n_gpus ? ", " : "");
				rc = toml_str(b, tg->gfx[g], err);
			}
			wp_buf_addstr(b, "]\n");
		}
		const char *var = target_variant(plan, t);
		if (var)
			toml_key_str(b, "variant", var, &rc, err);
	}
	return rc;
}

/* ---- PEP 825: a variant wheel's [packages.variants-json] table ---- */

/* A TOML string: the grammar above leaves only letters, digits, '_', '.', and the schema URL;
 * escape '"' and '\' anyway. */
static void vt_str(struct wp_buf *out, const char *s)
{
	wp_buf_addch(out, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			wp_buf_addch(out, '\\');
		if ((unsigned char)*s < 0x20 || *s == 0x7f) /* TOML: DEL is a control character too
							     */
			wp_buf_printf(out, "\\u%04x", (unsigned char)*s);
		else
			wp_buf_addch(out, *s);
	}
	wp_buf_addch(out, '"');
}

static void vt_list(struct wp_buf *out, char *const *s, size_t n)
{
	wp_buf_addch(out, '[');
	for (size_t i = 0; i < n; i++) {
		wp_buf_addstr(out, i ? ", " : "");
		vt_str(out, s[i]);
	}
	wp_buf_addch(out, ']');
}

static bool vt_kept(const char *label, const char *const *keep, size_t n_keep)
{
	if (!keep)
		return true;
	for (size_t i = 0; i < n_keep; i++)
		if (!strcmp(keep[i], label))
			return true;
	return false;
}

/* props as { ns = { feature = [..] }, ... }, namespaces in first-seen order */
static void vt_props(struct wp_buf *out, const struct wp_vprop *p, size_t n)
{
	wp_buf_addstr(out, "{");
	for (size_t i = 0; i < n; i++) {
		bool first_of_ns = true;
		for (size_t k = 0; k < i && first_of_ns; k++)
			first_of_ns = strcmp(p[k].ns, p[i].ns) != 0;
		if (!first_of_ns)
			continue;
		wp_buf_addstr(out, i ? ", " : " ");
		vt_str(out, p[i].ns);
		wp_buf_addstr(out, " = {");
		bool first = true;
		for (size_t k = i; k < n; k++) {
			if (strcmp(p[k].ns, p[i].ns) != 0)
				continue;
			wp_buf_addstr(out, first ? " " : ", ");
			first = false;
			vt_str(out, p[k].feature);
			wp_buf_addstr(out, " = ");
			vt_list(out, p[k].values, p[k].n_values);
		}
		wp_buf_addstr(out, " }");
	}
	wp_buf_addstr(out, n ? " }" : "}");
}

void wp_pylock_variants_toml(const struct wp_variants *v, const char *const *keep, size_t n_keep,
			     const char *prefix, struct wp_buf *out)
{
	/* namespaces the kept labels use, in the file's order; all of them when the kept labels use
	 * none (a lone null), since the list may not be empty */
	char **ns = wp_xcalloc(v->n_namespaces + 1, sizeof(*ns));
	size_t nns = 0;
	for (size_t i = 0; i < v->n_namespaces; i++) {
		bool used = false;
		for (size_t l = 0; l < v->n_labels && !used; l++) {
			if (!vt_kept(v->labels[l].label, keep, n_keep))
				continue;
			for (size_t p = 0; p < v->labels[l].n_props && !used; p++)
				used = !strcmp(v->labels[l].props[p].ns, v->namespaces[i]);
		}
		if (used || !keep)
			ns[nns++] = v->namespaces[i];
	}
	if (!nns)
		for (size_t i = 0; i < v->n_namespaces; i++)
			ns[nns++] = v->namespaces[i];

	wp_buf_printf(out, "\n[%s]\n\"$schema\" = ", prefix);
	vt_str(out, v->schema);
	wp_buf_printf(out, "\n\n[%s.default-priorities]\nnamespace = ", prefix);
	vt_list(out, ns, nns);
	wp_buf_addch(out, '\n');
	if (v->n_feature_prio) {
		wp_buf_printf(out, "feature = {");
		for (size_t i = 0; i < v->n_feature_prio; i++) {
			wp_buf_addstr(out, i ? ", " : " ");
			vt_str(out, v->feature_prio[i].ns);
			wp_buf_addstr(out, " = ");
			vt_list(out, v->feature_prio[i].features, v->feature_prio[i].n);
		}
		wp_buf_addstr(out, " }\n");
	}
	if (v->n_value_prio) {
		wp_buf_addstr(out, "property = ");
		vt_props(out, v->value_prio, v->n_value_prio);
		wp_buf_addch(out, '\n');
	}
	if (v->n_static_props) {
		wp_buf_printf(out, "\n[%s.static-properties]\n", prefix);
		for (size_t i = 0; i < v->n_static_props; i++) {
			bool first_of_ns = true;
			for (size_t k = 0; k < i && first_of_ns; k++)
				first_of_ns = strcmp(v->static_props[k].ns,
						     v->static_props[i].ns) != 0;
			if (!first_of_ns)
				continue;
			vt_str(out, v->static_props[i].ns);
			wp_buf_addstr(out, " = {");
			bool first = true;
			for (size_t k = i; k < v->n_static_props; k++) {
				if (strcmp(v->static_props[k].ns, v->static_props[i].ns) != 0)
					continue;
				wp_buf_addstr(out, first ? " " : ", ");
				first = false;
				vt_str(out, v->static_props[k].feature);
				wp_buf_addstr(out, " = ");
				vt_list(out, v->static_props[k].values,
					v->static_props[k].n_values);
			}
			wp_buf_addstr(out, " }\n");
		}
	}
	wp_buf_printf(out, "\n[%s.variants]\n", prefix);
	for (size_t l = 0; l < v->n_labels; l++) {
		if (!vt_kept(v->labels[l].label, keep, n_keep))
			continue;
		vt_str(out, v->labels[l].label);
		wp_buf_addstr(out, " = ");
		vt_props(out, v->labels[l].props, v->labels[l].n_props);
		wp_buf_addch(out, '\n');
	}
	free(ns);
}

static int pylock_text(const struct wp_plan *plan, const struct targets *ts, const bool *in,
		       const char *name, enum wp_lock_files how, struct wp_buf *b,
		       struct wp_err *err)
{
	struct entry_vec es = { 0 };
	struct wp_buf m = WP_BUF_INIT;
	int rc = 0;
	(void)name;
	/* only installers that read PEP 751 locks today; pip reads the requirements.txt beside
	 * it */
	wp_buf_addstr(b,
		      "# written by wheelpick; install with an installer that reads PEP 751 locks (uv pip install -r "
		      "pylock.toml); with pip, use requirements.txt\n");
	wp_buf_addstr(b, "lock-version = \"1.0\"\nenvironments = [");
	bool first = true;
	for (size_t t = 0; t < ts->n && !rc; t++) {
		if (!in[t])
			continue;
		bool dup = false;
		for (size_t k = 0; k < t && !dup; k++)
			dup = in[k] && !strcmp(ts->marker[k], ts->marker[t]);
		if (dup)
			continue;
		wp_buf_addstr(b, first ? "" : ", ");
		rc = toml_str(b, ts->marker[t], err);
		first = false;
	}
	wp_buf_addstr(b, "]\n");
	min_python(plan, in, &m);
	if (m.len)
		toml_key_str(b, "requires-python", m.data, &rc, err);
	toml_key_str(b, "created-by", WP_LOCK_CREATED_BY, &rc, err);
	entries_for(plan, in, ts->n, &es);
	for (size_t i = 0; i < es.n && !rc; i++) {
		const struct entry *e = &es.v[i];
		wp_buf_addstr(b, "\n[[packages]]\n");
		toml_key_str(b, "name", e->project, &rc, err);
		if (e->version[0]) /* an archive may have none */
			toml_key_str(b, "version", e->version, &rc, err);
		entry_marker(e, ts, in, &m);
		if (m.len)
			toml_key_str(b, "marker", m.data, &rc, err);
		const char *rp = NULL;
		for (size_t k = 0; k < e->files.n && !rp; k++)
			rp = requires_python_ok(e->files.v[k]) ? e->files.v[k]->requires_python :
								 NULL;
		if (rp)
			toml_key_str(b, "requires-python", rp, &rc, err);
		/* an sdist or archive a pylock.toml named, carried as a file: PEP 751's own
		 * table */
		const struct wp_plan_file *src = NULL;
		for (size_t k = 0; k < e->files.n && !src; k++)
			src = wp_cstr_endswith(e->files.v[k]->filename, ".whl") ? NULL :
										  e->files.v[k];
		if (src) {
			if ((rc = need_hash(src, err)))
				break;
			wp_buf_printf(b, "%s = { ", src->archive ? "archive" : "sdist");
			if (!src->archive) {
				wp_buf_addstr(b, "name = ");
				rc = toml_str(b, src->filename, err);
				wp_buf_addstr(b, ", ");
			}
			wp_buf_addstr(b, how == WP_LOCK_PATHS ? "path = " : "url = ");
			if (!rc)
				rc = toml_str(b, how == WP_LOCK_PATHS ? src->filename : src->url,
					      err);
			if (src->size >= 0)
				wp_buf_printf(b, ", size = %lld", src->size);
			wp_buf_printf(b, ", hashes = { sha256 = \"%s\" } }\n", src->sha256);
			continue;
		}
		wp_buf_addstr(b, "wheels = [\n");
		for (size_t k = 0; k < e->files.n && !rc; k++) {
			const struct wp_plan_file *f = e->files.v[k];
			if ((rc = need_hash(f, err)))
				break;
			wp_buf_addstr(b, "    { name = ");
			if ((rc = toml_str(b, f->filename, err)))
				break;
			if (how == WP_LOCK_PATHS) {
				wp_buf_addstr(b, ", path = ");
				rc = toml_str(b, f->filename, err);
			} else {
				wp_buf_addstr(b, ", url = ");
				rc = toml_str(b, f->url, err);
			}
			if (f->size >= 0)
				wp_buf_printf(b, ", size = %lld", f->size);
			wp_buf_printf(b, ", hashes = { sha256 = \"%s\" } },\n", f->sha256);
		}
		wp_buf_addstr(b, "]\n");
		/* PEP 825: a variant wheel's entry inlines its release's variant metadata, which an
		 * installer needs to evaluate its variant markers */
		const struct wp_variants *vt = NULL;
		for (size_t k = 0; k < e->files.n && !vt; k++)
			vt = e->files.v[k]->variants;
		if (vt)
			wp_pylock_variants_toml(vt, NULL, 0, "packages.variants-json", b);
	}
	if (!rc)
		rc = pylock_tool_table(plan, ts, in, b, err);
	entries_free(&es);
	wp_buf_free(&m);
	return rc;
}

int wp_write_pylock(const struct wp_plan *plan, const char *dir, enum wp_lock_files how,
		    struct wp_lock_report *rep, struct wp_err *err)
{
	warn_requires_python(plan, rep);
	return write_set(plan, dir, "pylock.toml", "pylock.", ".toml", pylock_text, how, rep, err);
}

int wp_write_pylock_named(const struct wp_plan *plan, const char *dir, const char *name,
			  enum wp_lock_files how, struct wp_lock_report *rep, struct wp_err *err)
{
	size_t n = strlen(name);
	/* PEP 751's own test: pylock.toml, or pylock.NAME.toml with no dot in NAME */
	bool ok = !strcmp(name, "pylock.toml") ||
		  (n > 12 && !strncmp(name, "pylock.", 7) && !strcmp(name + n - 5, ".toml") &&
		   !memchr(name + 7, '.', n - 12) && !memchr(name, '/', n));
	if (!ok)
		return wp_fail(err, -WPE_USAGE,
			       "lock file '%s' must be named pylock.toml or pylock.NAME.toml (PEP 751)",
			       name);
	warn_requires_python(plan, rep);
	return write_set(plan, dir, name, "pylock.", ".toml", pylock_text, how, rep, err);
}
