/* cli/print.c: the plan and the conda picks on stdout, for people or (--json) for scripts. */
#include "cli/print.h"
#include "base/buf.h"
#include "base/json.h"
#include "cli/progress.h"
#include "base/urlmask.h"
#include "ops/wheel/pick.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_plan_text(const struct wp_plan *plan, bool explain)
{
	struct wp_buf d = WP_BUF_INIT;
	for (size_t t = 0; t < plan->n_targets; t++) {
		wp_buf_reset(&d);
		wp_target_describe(&plan->targets[t], &d);
		printf("for %s:\n", d.data);
		for (size_t i = 0; i < plan->n; i++) {
			const struct wp_plan_file *f = &plan->files[i];
			if (f->target != t)
				continue;
			/* a pylock.toml archive may have no version */
			printf("  %s %s%s%s%s\n", f->project,
			       f->version && f->version[0] ? f->version : "(version unknown)",
			       f->required_by ? "  (needed by " : "",
			       f->required_by ? f->required_by : "", f->required_by ? ")" : "");
			printf("    %s\n", f->where);
			if (!f->required_by || explain)
				printf("    why: %s\n", f->reason);
			for (size_t k = 0; explain && k < f->n_rejects; k++)
				printf("    - %s: %s\n", f->rejects[k].where, f->rejects[k].why);
		}
	}
	wp_buf_free(&d);
}

/* Whether a JSON document went to stdout in this run: main prints a failure's object only when
 * none did (one document a run). */
static bool json_printed;

bool wp_print_json_printed(void)
{
	return json_printed;
}

void wp_print_json_out(struct wp_json *j)
{
	wp_json_finish(j, stdout);
	json_printed = true;
}

void wp_print_plan(const struct wp_plan *plan, bool json, bool explain)
{
	if (json) {
		wp_plan_write_json(plan, explain, stdout);
		json_printed = true;
	} else
		print_plan_text(plan, explain);
}

void wp_print_plan_total(const struct wp_plan *plan, const char *what)
{
	wp_print_plan_total_sized(plan, NULL, what);
}

void wp_print_plan_total_sized(const struct wp_plan *plan, const long long *shown, const char *what)
{
	size_t files = 0, unknown = 0;
	long long bytes = 0;
	bool *first = wp_plan_first_of_url(plan, &files); /* a file several targets share counts
							     once */
	for (size_t i = 0; i < plan->n; i++) {
		if (!first[i])
			continue;
		long long size = shown ? shown[i] : plan->files[i].size;
		if (size >= 0)
			bytes += size;
		else
			unknown++;
	}
	free(first);
	char h[32];
	wp_progress_human(h, sizeof(h), (double)bytes);
	if (unknown == files && !shown)
		printf("total: %zu file%s%s (the index gives no sizes)\n", files,
		       files == 1 ? "" : "s", what);
	else if (unknown == files)
		printf("total: %zu file%s%s (size unknown for %s: the index gives no sizes and the server%s did not say)\n",
		       files, files == 1 ? "" : "s", what, files == 1 ? "it" : "all",
		       files == 1 ? "" : "s");
	else if (unknown && shown)
		printf("total: %zu files, at least %s%s (size unknown for %zu file%s: the index gives none and %s server "
		       "did not say)\n",
		       files, h, what, unknown, unknown == 1 ? "" : "s",
		       unknown == 1 ? "its" : "their");
	else if (unknown)
		printf("total: %zu files, at least %s%s (%zu of unknown size)\n", files, h, what,
		       unknown);
	else
		printf("total: %zu file%s, %s%s\n", files, files == 1 ? "" : "s", h, what);
}

void wp_print_json_error_obj(struct wp_json *j, int rc, const struct wp_err *err,
			     const struct wp_plan *plan)
{
	wp_json_obj(j);
	wp_json_kint(j, "exit", wp_err_exit_code(rc));
	/* whatever quoted a URL the user typed, its user:password is not repeated */
	char *msg = wp_url_text_mask(err && err->code ? err->msg : "failed");
	wp_json_kstr(j, "message", msg);
	free(msg);
	if (plan && plan->failed_project) {
		wp_json_kstr(j, "project", plan->failed_project);
		wp_json_key(j, "rejected");
		wp_json_arr(j);
		for (size_t i = 0; i < plan->n_failed_rejects; i++) {
			const struct wp_plan_reject *r = &plan->failed_rejects[i];
			const char *slash = strrchr(r->where, '/');
			wp_json_obj(j);
			wp_json_kstr(j, "filename", slash ? slash + 1 : r->where);
			wp_json_kstr(j, "where", r->where);
			wp_json_kstr(j, "reason", r->why);
			wp_json_obj_end(j);
		}
		wp_json_arr_end(j);
	} else {
		wp_json_key(j, "rejected");
		wp_json_arr(j);
		wp_json_arr_end(j);
	}
	wp_json_obj_end(j);
}

void wp_print_json_error(int rc, const struct wp_err *err, const struct wp_plan *plan)
{
	struct wp_json j;
	if (json_printed)
		return; /* one document a run: the first said what there was to say */
	wp_json_init(&j);
	wp_json_obj(&j);
	wp_json_key(&j, "error");
	wp_print_json_error_obj(&j, rc, err, plan);
	wp_json_obj_end(&j);
	wp_print_json_out(&j);
}

static void print_conda_json(const struct wp_conda_result *res)
{
	struct wp_json j;
	wp_json_init(&j);
	wp_json_obj(&j);
	wp_json_key(&j, "picks");
	wp_json_arr(&j);
	for (size_t i = 0; i < res->n; i++) {
		const struct wp_conda_pick *p = &res->picks[i];
		wp_json_obj(&j);
		wp_json_kstr(&j, "name", p->c->name);
		wp_json_kstr(&j, "version", p->c->version);
		wp_json_kstr(&j, "build", p->c->build);
		wp_json_kstr(&j, "variant", p->variant);
		wp_json_kstr(&j, "subdir", p->c->subdir);
		wp_json_kstr(&j, "filename", p->c->filename);
		wp_json_kstr(&j, "url", p->c->url);
		wp_json_kstr(&j, "sha256", p->c->sha256);
		wp_json_kstr(&j, "md5", p->c->md5);
		wp_json_kint(&j, "target", (long long)p->target);
		wp_json_kstr(&j, "required_by", p->required_by);
		wp_json_kstr(&j, "reason", p->reason);
		wp_json_obj_end(&j);
	}
	wp_json_arr_end(&j);
	wp_json_key(&j, "missing");
	wp_json_arr(&j);
	for (size_t i = 0; i < res->nmissing; i++)
		wp_json_str(&j, res->missing[i]);
	wp_json_arr_end(&j);
	wp_json_obj_end(&j);
	wp_print_json_out(&j);
}

void wp_print_conda(const struct wp_conda_result *res, bool json)
{
	if (json) {
		print_conda_json(res);
		return;
	}
	struct wp_buf d = WP_BUF_INIT;
	for (size_t t = 0; t < res->n_targets; t++) {
		wp_buf_reset(&d);
		wp_condapick_describe_target(&res->targets[t], &d);
		printf("for %s:\n", d.data);
		for (size_t i = 0; i < res->n; i++) {
			const struct wp_conda_pick *p = &res->picks[i];
			if (p->target != t)
				continue;
			printf("  %s %s %s%s%s%s\n", p->c->name, p->c->version, p->c->build,
			       p->required_by ? "  (needed by " : "",
			       p->required_by ? p->required_by : "", p->required_by ? ")" : "");
			if (!p->required_by)
				printf("    why: %s\n", p->reason);
		}
	}
	if (res->nmissing) {
		printf("not in the channels given (add one with -c, e.g. -c conda-forge):");
		for (size_t i = 0; i < res->nmissing; i++)
			printf(" %s", res->missing[i]);
		putchar('\n');
	}
	wp_buf_free(&d);
}

void wp_fputs_shown(const char *s, FILE *f)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\x%02x", *p);
		else
			fputc(*p, f);
	}
}

void wp_print_shell_word(const char *s, FILE *f)
{
	bool plain = *s != 0, ctl = false;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		plain &= isalnum(*p) || strchr("/._-+:=@,%", *p);
		ctl |= *p < 0x20 || *p == 0x7f;
	}
	if (plain) {
		fputs(s, f);
		return;
	}
	fputs(ctl ? "$'" : "'", f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (ctl && (*p < 0x20 || *p == 0x7f))
			fprintf(f, "\\x%02x", *p);
		else if (*p == '\'' && ctl)
			fputs("\\'", f);
		else if (*p == '\'')
			fputs("'\\''", f);
		else if (*p == '\\' && ctl)
			fputs("\\\\", f);
		else
			fputc(*p, f);
	}
	fputc('\'', f);
}
