/* tests/unit/test_solve_cases.c: runs every tests/solve/NAME.t case through the dependency solver
 * (resolver/solve.c) with a provider built from the case's text: no catalog, no network.
 *
 * One case per file, one directive per line ('#' starts a comment):
 *   target   cuda=11.8|cpu rocm=6.1 python=3.10 platform=TAG gpu=sm_86   (repeat: one target each)
 *   file     DIR/NAME.whl [requires_python=SPEC] [yanked] [sha256=HEX] [variant=LABEL]
 *                                           (percent-encoded, as an href); variant= gives the
 *                                           catalog's label as the index had it ("" none),
 *                                           instead of the one the name and DIR imply
 *   dep      DIR/NAME.whl REQUIREMENT      a Requires-Dist line of that file's METADATA
 *   metapy   DIR/NAME.whl SPEC             Requires-Python in that file's METADATA (not on the
 * page) broken   PROJECT                        reading that project's page fails (a source is
 * down) brokenmeta DIR/NAME.whl                 reading that file's metadata fails option   no_deps
 * | pre | explain | max_steps=N | max_projects=N request  REQUIREMENT                    (one per
 * line, PEP 508) constraint REQUIREMENT                  pip's -c: binds the project only when it
 * is pulled in hash     PROJECT HEX...                 pip's --hash: PROJECT only from files with
 * one of these sha256 expect   [@T] DIR/NAME.whl | none       the files picked (for target T,
 * default 0); the set must be exactly these exit     nomatch | limit | net | usage | integrity  the
 * solve fails with that code message  TEXT                           the error message contains
 * TEXT note     TEXT                           some note of the plan contains TEXT reason   PROJECT
 * TEXT                   that project's pick reason contains TEXT variants PATH a real PEP 825
 * {name}-{version}-variants.json under tests/fixtures/real (the part after the last "__" names it):
 * the metadata of that project and version's files
 *
 * With an argument, it runs that case file, or the cases in that folder, instead of tests/solve
 * (what `wheelpick pick --write-testcase FILE` writes replays so, with no network).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/mem.h"
#include "base/url.h"
#include "base/vec.h"
#include "index/variants.h"
#include "resolver/fileinfo.h"
#include "resolver/solve.h"
#include "resolver/solvecase.h"
#include "tests/unit/fixtures.h"
#include "resolver/wheelname.h"

#define MAX_LINES 256 /* dependencies of one file */
#define MAX_FILES 4096 /* a written case holds every file a resolution saw */

struct tfile {
	char *path; /* decoded DIR/NAME */
	struct wp_fileinfo fi;
	struct wp_candidate cand;
	char *url, *requires_python, *yanked, *metapy, *sha256, *variant;
	struct wp_reqs deps; /* parsed as the case is read, as a provider parses metadata it reads
			      */
	bool broken_meta;
};

struct tcase {
	const char *name;
	struct tfile files[MAX_FILES];
	size_t nfiles;
	char *broken[16];
	size_t nbroken;
	/* per-project candidate arrays handed to the solver */
	struct wp_candidate cands[MAX_FILES];
	struct wp_variants vars[4];   /* PEP 825 metadata, and the project and version it is for */
	struct wp_fileinfo vfi[4];
	size_t nvars;
	unsigned files_calls, deps_calls;
};

static char *decode(const char *s)
{
	char *out = NULL;
	struct wp_err e = WP_ERR_INIT;
	if (wp_url_decode(s, strlen(s), &out, &e) < 0)
		fail_msg("bad percent-encoding in '%s'", s);
	return out;
}

static struct tfile *find_file(struct tcase *tc, const char *href)
{
	char *dec = decode(href);
	for (size_t i = 0; i < tc->nfiles; i++)
		if (!strcmp(tc->files[i].path, dec)) {
			free(dec);
			return &tc->files[i];
		}
	fail_msg("%s: no 'file' line for '%s'", tc->name, dec);
	return NULL;
}

static int p_files(void *ctx, const char *project, struct wp_solve_files *out, struct wp_err *err)
{
	struct tcase *tc = ctx;
	tc->files_calls++;
	for (size_t i = 0; i < tc->nbroken; i++)
		if (!strcmp(tc->broken[i], project))
			return wp_fail(err, -WPE_NET,
				       "'https://example.test/whl/%s/': HTTP 503 (3 tries)",
				       project);
	/* one project's files, contiguous in tc->cands; each project's block starts fresh */
	size_t start = 0;
	while (start < WP_ARRAY_LEN(tc->cands) && tc->cands[start].project)
		start++;
	size_t n = 0;
	for (size_t i = 0; i < tc->nfiles; i++)
		if (!strcmp(tc->files[i].fi.project, project))
			tc->cands[start + n++] = tc->files[i].cand;
	out->c = &tc->cands[start];
	out->n = n;
	return 0;
}

static int p_deps(void *ctx, const struct wp_candidate *c, struct wp_solve_deps *out,
		  struct wp_err *err)
{
	struct tcase *tc = ctx;
	tc->deps_calls++;
	for (size_t i = 0; i < tc->nfiles; i++) {
		struct tfile *f = &tc->files[i];
		if (strcmp(f->url, c->url) != 0)
			continue;
		if (f->broken_meta)
			return wp_fail(err, -WPE_NET, "'%s.metadata': HTTP 500 (3 tries)", f->url);
		*out = (struct wp_solve_deps){ .reqs = f->deps.v,
					       .n = f->deps.n,
					       .requires_python = f->metapy,
					       .source = "test" };
		return 0;
	}
	return wp_fail(err, -WPE_NET, "no metadata for '%s'", c->url);
}

static char *own(struct wp_strlist *owned, const char *s)
{
	char *c = wp_xstrdup(s);
	wp_strlist_push(owned, c);
	return c;
}

/* A request or constraint line, parsed as it is read (the case file is this test's edge); one
 * that does not parse is kept, for the solver to refuse as it refuses the job's. */
static void push_req(struct wp_reqs *l, const char *text)
{
	struct wp_req q;
	wp_req_parse(&q, text, strlen(text), NULL);
	wp_vec_push(l, q);
}

static char *rest_after(char *line, const char *word)
{
	size_t n = strlen(word);
	if (strncmp(line, word, n) != 0 || (line[n] != ' ' && line[n] != '\t'))
		return NULL;
	line += n;
	while (*line == ' ' || *line == '\t')
		line++;
	return line;
}

/* "href rest-of-line" -> the file and the rest */
static struct tfile *file_and_rest(struct tcase *tc, char *a, char **rest)
{
	char *sp = a + strcspn(a, " \t");
	if (*sp)
		*sp++ = 0;
	while (*sp == ' ' || *sp == '\t')
		sp++;
	*rest = sp;
	return find_file(tc, a);
}

static int code_of(const char *word)
{
	if (!strcmp(word, "nomatch"))
		return -WPE_NOMATCH;
	if (!strcmp(word, "limit"))
		return -WPE_LIMIT;
	if (!strcmp(word, "net"))
		return -WPE_NET;
	if (!strcmp(word, "usage"))
		return -WPE_USAGE;
	if (!strcmp(word, "integrity"))
		return -WPE_INTEGRITY;
	fail_msg("unknown exit word '%s'", word);
	return 0;
}

/* A case, or a case solved through the recording provider (resolver/solvecase.h) whose written
 * case is then run in turn: every case here checks the writer once more. */
struct case_run {
	const char *file;
	bool record;
};

static void run_case(void **state)
{
	const struct case_run *cr = *state;
	const char *file = cr->file;
	char written[64] = "";
	FILE *f = fopen(file, "r");
	if (!f)
		fail_msg("cannot open case '%s'", file);
	struct tcase *tc = wp_xcalloc(1, sizeof(*tc));
	tc->name = file;
	struct wp_target targets[8];
	size_t nt = 0;
	struct wp_reqs reqs = { 0 }, cons = { 0 }; /* parsed as read, kept when unreadable (the
						      solver says so) */
	struct wp_solve_hashes hashes[8];
	const char *hash_values[8][8];
	size_t nhashes = 0;
	struct wp_strlist owned = { 0 }; /* every line's copy, freed at the end */
	char *expect[1024], *messages[8], *notes[8], *reasons[8];
	size_t nexp = 0, nmsg = 0, nnote = 0, nreason = 0;
	struct wp_solve_opts so = { 0 };
	int want_code = 0;
	char line[4096];
	struct wp_err e = WP_ERR_INIT;

	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = 0;
		char *a, *rest;
		if (line[0] == '#' || line[0] == 0)
			continue;
		if ((a = rest_after(line, "target"))) {
			if (nt == WP_ARRAY_LEN(targets))
				fail_msg("%s: too many targets", file);
			struct wp_target *t = &targets[nt++];
			wp_target_init(t);
			for (char *save = NULL, *w = strtok_r(a, " \t", &save); w;
			     w = strtok_r(NULL, " \t", &save)) {
				int rc = 0;
				if (!strncmp(w, "cuda=", 5))
					rc = wp_target_set_cuda(t, w + 5, &e);
				else if (!strncmp(w, "rocm=", 5))
					rc = wp_target_set_rocm(t, w + 5, &e);
				else if (!strncmp(w, "python=", 7))
					rc = wp_target_set_python(t, w + 7, &e);
				else if (!strncmp(w, "platform=", 9))
					rc = wp_target_set_platform(t, w + 9, &e);
				else if (!strncmp(w, "gpu=", 4))
					rc = wp_target_add_gpu(t, w + 4, &e);
				else if (!strncmp(w, "driver=", 7))
					rc = wp_target_set_driver(t, w + 7, &e);
				else if (!strcmp(w, "strict"))
					rc = wp_target_set_cuda_compat(t, "strict", &e);
				else if (!strcmp(w, "xpu"))
					wp_target_set_xpu(t);
				else
					fail_msg("%s: unknown target word '%s'", file, w);
				if (rc)
					fail_msg("%s: %s", file, e.msg);
			}
			if (wp_target_finish(t, &e) < 0)
				fail_msg("%s: %s", file, e.msg);
		} else if ((a = rest_after(line, "file"))) {
			if (tc->nfiles == MAX_FILES)
				fail_msg("%s: too many files", file);
			struct tfile *tf = &tc->files[tc->nfiles];
			char *save = NULL, *href = strtok_r(a, " \t", &save);
			for (char *w; (w = strtok_r(NULL, " \t", &save));) {
				if (!strncmp(w, "requires_python=", 16))
					tf->requires_python = wp_xstrdup(w + 16);
				else if (!strcmp(w, "yanked"))
					tf->yanked = wp_xstrdup("");
				else if (!strncmp(w, "sha256=", 7))
					tf->sha256 = wp_xstrdup(w + 7);
				else if (!strncmp(w, "variant=", 8))
					tf->variant = decode(w + 8);
				else
					fail_msg("%s: unknown file word '%s'", file, w);
			}
			tf->path = decode(href);
			char *slash = strrchr(tf->path, '/');
			char *dir = slash ? wp_xstrndup(tf->path, (size_t)(slash - tf->path)) :
					    NULL;
			if (wp_fileinfo_from_name(slash ? slash + 1 : tf->path, dir, &tf->fi, &e) <
			    0)
				fail_msg("%s: '%s' is not a wheel or sdist name: %s", file,
					 tf->path, e.msg);
			free(dir);
			tf->url = wp_xasprintf("https://example.test/whl/%s", href);
			tf->cand = (struct wp_candidate){
				.project = tf->fi.project,
				.version = tf->fi.version,
				.variant = tf->variant ? tf->variant : tf->fi.variant,
				.kind = tf->fi.kind,
				.filename = slash ? slash + 1 : tf->path,
				.url = tf->url,
				.requires_python = tf->requires_python,
				.yanked = tf->yanked,
				.sha256 = tf->sha256,
				.size = -1,
			};
			tc->nfiles++;
		} else if ((a = rest_after(line, "variants"))) {
			if (tc->nvars == WP_ARRAY_LEN(tc->vars))
				fail_msg("%s: too many variants lines", file);
			size_t len;
			char *text = fixture_read(a, &len);
			const char *base = strrchr(a, '/') ? strrchr(a, '/') + 1 : a;
			while (strstr(base, "__"))
				base = strstr(base, "__") + 2;
			if (wp_fileinfo_from_name(base, NULL, &tc->vfi[tc->nvars], &e) < 0 ||
			    wp_variants_parse(a, text, len, &tc->vars[tc->nvars], &e) < 0)
				fail_msg("%s: '%s': %s", file, a, e.msg);
			free(text);
			tc->nvars++;
		} else if ((a = rest_after(line, "dep"))) {
			struct tfile *tf = file_and_rest(tc, a, &rest);
			if (tf->deps.n == MAX_LINES)
				fail_msg("%s: too many deps", file);
			push_req(&tf->deps, rest);
		} else if ((a = rest_after(line, "metapy"))) {
			struct tfile *tf = file_and_rest(tc, a, &rest);
			tf->metapy = wp_xstrdup(rest);
		} else if ((a = rest_after(line, "brokenmeta"))) {
			find_file(tc, a)->broken_meta = true;
		} else if ((a = rest_after(line, "broken"))) {
			if (tc->nbroken == WP_ARRAY_LEN(tc->broken))
				fail_msg("%s: too many broken lines", file);
			tc->broken[tc->nbroken++] = own(&owned, a);
		} else if ((a = rest_after(line, "option"))) {
			if (!strcmp(a, "no_deps"))
				so.no_deps = true;
			else if (!strcmp(a, "pre"))
				so.pre = true;
			else if (!strcmp(a, "explain"))
				so.explain = true;
			else if (!strncmp(a, "max_steps=", 10))
				so.max_steps = (unsigned)strtoul(a + 10, NULL, 10);
			else if (!strncmp(a, "max_projects=", 13))
				so.max_projects = strtoul(a + 13, NULL, 10);
			else
				fail_msg("%s: unknown option '%s'", file, a);
		} else if ((a = rest_after(line, "constraint"))) {
			push_req(&cons, a);
		} else if ((a = rest_after(line, "hash"))) {
			if (nhashes == WP_ARRAY_LEN(hashes))
				fail_msg("%s: too many hash lines", file);
			char *mine = own(&owned, a);
			char *save = NULL;
			struct wp_solve_hashes *h = &hashes[nhashes++];
			h->project = strtok_r(mine, " \t", &save);
			h->sha256 = hash_values[nhashes - 1];
			h->n = 0;
			for (char *w; (w = strtok_r(NULL, " \t", &save));) {
				if (h->n == 8)
					fail_msg("%s: too many hashes", file);
				hash_values[nhashes - 1][h->n++] = w;
			}
		} else if ((a = rest_after(line, "request"))) {
			push_req(&reqs, a);
		} else if ((a = rest_after(line, "expect"))) {
			if (nexp == WP_ARRAY_LEN(expect))
				fail_msg("%s: too many expect lines", file);
			expect[nexp++] = own(&owned, a);
		} else if ((a = rest_after(line, "exit"))) {
			want_code = code_of(a);
		} else if ((a = rest_after(line, "message"))) {
			messages[nmsg++] = own(&owned, a);
		} else if ((a = rest_after(line, "note"))) {
			notes[nnote++] = own(&owned, a);
		} else if ((a = rest_after(line, "reason"))) {
			reasons[nreason++] = own(&owned, a);
		} else {
			fail_msg("%s: cannot read line '%s'", file, line);
		}
	}
	fclose(f);
	if (!nt)
		fail_msg("%s: no target", file);
	if (!reqs.n)
		fail_msg("%s: no request", file);
	if (!nexp && !want_code)
		fail_msg("%s: nothing is expected", file);

	for (size_t i = 0; i < tc->nfiles; i++)
		for (size_t v = 0; v < tc->nvars; v++)
			if (!strcmp(tc->vfi[v].project, tc->files[i].fi.project) &&
			    !strcmp(tc->vfi[v].version, tc->files[i].fi.version))
				tc->files[i].cand.variants = &tc->vars[v];
	so.constraints = cons.v, so.n_constraints = cons.n;
	so.hashes = hashes, so.n_hashes = nhashes;
	struct wp_solve_provider p = { .files = p_files, .deps = p_deps, .ctx = tc };
	struct wp_plan plan;
	struct wp_solve_rec rec;
	struct wp_solve_provider outer;
	/* PEP 825 metadata is what a written case cannot carry */
	bool record = cr->record && !tc->nvars;
	if (record)
		wp_solve_rec_wrap(&rec, &p, &outer);
	int rc = wp_solve(record ? &outer : &p, reqs.v, reqs.n, targets, nt, &so, &plan, &e);
	if (record) {
		struct wp_buf text = WP_BUF_INIT;
		wp_solve_rec_case(&rec, reqs.v, reqs.n, targets, nt, &so, &plan, rc, e.msg, &text);
		snprintf(written, sizeof(written), "%s/wp-solvecase.XXXXXX",
			 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
		int fd = mkstemp(written);
		if (fd < 0 || write(fd, text.data, text.len) != (ssize_t)text.len || close(fd) < 0)
			fail_msg("%s: cannot write '%s'", file, written);
		wp_buf_free(&text);
		wp_solve_rec_release(&rec);
	}
	if (getenv("WP_SOLVE_VERBOSE")) {
		for (size_t k = 0; !rc && k < plan.n; k++)
			fprintf(stderr, "  [%zu] %s\n      why: %s\n", plan.files[k].target,
				plan.files[k].where, plan.files[k].reason);
		for (size_t k = 0; !rc && k < plan.n_notes; k++)
			fprintf(stderr, "  note: %s\n", plan.notes[k]);
		if (rc)
			fprintf(stderr, "  error: %s\n", e.msg);
	}
	if (want_code) {
		if (rc != want_code)
			fail_msg("%s: expected the solve to fail with %d, got %d (%s)", file,
				 want_code, rc, e.msg);
	} else if (rc) {
		fail_msg("%s: the solve failed: %s", file, e.msg);
	}
	for (size_t i = 0; i < nmsg; i++)
		if (!strstr(e.msg, messages[i]))
			fail_msg("%s: message '%s' lacks '%s'", file, e.msg, messages[i]);
	for (size_t i = 0; i < nnote; i++) {
		bool found = false;
		for (size_t k = 0; k < plan.n_notes && !found; k++)
			found = strstr(plan.notes[k], notes[i]) != NULL;
		if (!found)
			fail_msg("%s: no note contains '%s' (%zu notes)", file, notes[i],
				 plan.n_notes);
	}
	/* the picked set, exactly */
	if (!rc) {
		size_t expected = 0;
		for (size_t i = 0; i < nexp; i++) {
			if (!strcmp(expect[i], "none"))
				continue;
			size_t ti = 0;
			char *what = expect[i];
			if (what[0] == '@') {
				ti = strtoul(what + 1, &what, 10);
				while (*what == ' ')
					what++;
			}
			char *want = decode(what);
			bool found = false;
			for (size_t k = 0; k < plan.n && !found; k++) {
				const struct wp_plan_file *pf = &plan.files[k];
				char *got = wp_xasprintf("%s",
							 pf->url +
								 strlen("https://example.test/whl/"));
				char *dgot = decode(got);
				found = pf->target == ti && !strcmp(dgot, want);
				free(got), free(dgot);
			}
			if (!found) {
				struct wp_buf all = WP_BUF_INIT;
				for (size_t k = 0; k < plan.n; k++)
					wp_buf_printf(&all, " [%zu]%s", plan.files[k].target,
						      plan.files[k].where);
				fail_msg("%s: expected '%s' for target %zu; picked:%s", file, want,
					 ti, all.len ? all.data : " nothing");
			}
			free(want);
			expected++;
		}
		if (expected != plan.n) {
			struct wp_buf all = WP_BUF_INIT;
			for (size_t k = 0; k < plan.n; k++)
				wp_buf_printf(&all, " [%zu]%s", plan.files[k].target,
					      plan.files[k].where);
			fail_msg("%s: expected %zu files, picked %zu:%s", file, expected, plan.n,
				 all.data);
		}
		for (size_t i = 0; i < nreason; i++) {
			char *sp = strchr(reasons[i], ' ');
			assert_non_null(sp);
			*sp = 0;
			bool found = false;
			for (size_t k = 0; k < plan.n && !found; k++)
				found = !strcmp(plan.files[k].project, reasons[i]) &&
					plan.files[k].reason &&
					strstr(plan.files[k].reason, sp + 1);
			if (!found)
				fail_msg("%s: no pick of '%s' has a reason containing '%s'", file,
					 reasons[i], sp + 1);
		}
	}
	wp_plan_release(&plan);
	for (size_t i = 0; i < tc->nfiles; i++) {
		struct tfile *tf = &tc->files[i];
		free(tf->path), free(tf->url), free(tf->requires_python), free(tf->yanked),
			free(tf->metapy), free(tf->sha256);
		free(tf->variant);
		wp_reqs_release(&tf->deps);
		wp_fileinfo_release(&tf->fi);
	}
	for (size_t v = 0; v < tc->nvars; v++) {
		wp_variants_release(&tc->vars[v]);
		wp_fileinfo_release(&tc->vfi[v]);
	}
	for (size_t i = 0; i < owned.n; i++)
		free((char *)owned.v[i]);
	wp_strlist_release(&owned);
	wp_reqs_release(&reqs);
	wp_reqs_release(&cons);
	free(tc);
	if (*written) {
		struct case_run again = { .file = written };
		void *st = &again;
		run_case(&st);
		unlink(written);
	}
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1                 ? argv[1] :
			  getenv("WP_SOLVE_CASES") ? getenv("WP_SOLVE_CASES") :
						     "tests/solve";
	DIR *d = opendir(dir);
	if (!d && argc > 1) {
		/* one case file: a written testcase, replayed */
		struct case_run cr = { .file = argv[1] };
		struct CMUnitTest one = { .name = argv[1],
					  .test_func = run_case,
					  .initial_state = &cr };
		return _cmocka_run_group_tests("solve_cases", &one, 1, NULL, NULL);
	}
	if (!d) {
		fprintf(stderr, "test_solve_cases: cannot open '%s'\n", dir);
		return 1;
	}
	char **names = NULL;
	size_t n = 0;
	struct dirent *ent;
	while ((ent = readdir(d))) {
		size_t len = strlen(ent->d_name);
		if (len > 2 && !strcmp(ent->d_name + len - 2, ".t")) {
			names = wp_xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = wp_xasprintf("%s/%s", dir, ent->d_name);
		}
	}
	closedir(d);
	if (!n) {
		fprintf(stderr, "test_solve_cases: no cases in '%s'\n", dir);
		return 1;
	}
	qsort(names, n, sizeof(*names), by_name);
	struct CMUnitTest *tests = wp_xcalloc(2 * n, sizeof(*tests));
	struct case_run *runs = wp_xcalloc(2 * n, sizeof(*runs));
	char **labels = wp_xcalloc(n, sizeof(*labels));
	for (size_t i = 0; i < n; i++) {
		labels[i] = wp_xasprintf("%s (written by the recorder, replayed)", names[i]);
		runs[2 * i] = (struct case_run){ .file = names[i] };
		runs[2 * i + 1] = (struct case_run){ .file = names[i], .record = true };
		tests[2 * i] = (struct CMUnitTest){ .name = names[i],
						    .test_func = run_case,
						    .initial_state = &runs[2 * i] };
		tests[2 * i + 1] = (struct CMUnitTest){ .name = labels[i],
							.test_func = run_case,
							.initial_state = &runs[2 * i + 1] };
	}
	int rc = _cmocka_run_group_tests("solve_cases", tests, 2 * n, NULL, NULL);
	for (size_t i = 0; i < n; i++)
		free(names[i]), free(labels[i]);
	free(labels);
	free(runs);
	free(names);
	free(tests);
	return rc;
}
