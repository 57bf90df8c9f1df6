/* tests/unit/test_parse_once.c: a requirement is parsed once, where it is read, and stays typed to
 * the plan: the PEP 508 parser's entries are counted (the Makefile links this program with
 * -Wl,--wrap for them) while a 100-line requirements file goes through the reader and a whole
 * wp_pick_plan, and a requirement's extras and marker arrive where they are used as written. A
 * plan file's name and version, counted likewise, are parsed once, not again by each writer. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/unit/jobfix.h"

#include "base/vec.h"
#include "ops/install/install.h"
#include "ops/publish/publish.h"
#include "ops/publish/sbom_tree.h"
#include "ops/wheel/locks.h"
#include "resolver/fileinfo.h"
#include "resolver/reqfile.h"
#include "resolver/requirement.h"
#include "resolver/version.h"
#include "resolver/wheelname.h"

/* Every way into the parser from outside resolver/requirement.c (calls inside that file are not
 * wrapped, and wp_reqs_add reaches the parser only through wp_req_parse's body there). */
static unsigned parses;

int __real_wp_requirement_parse(struct wp_requirement *r, const char *s, size_t n,
				struct wp_err *err);
int __wrap_wp_requirement_parse(struct wp_requirement *r, const char *s, size_t n,
				struct wp_err *err);
int __wrap_wp_requirement_parse(struct wp_requirement *r, const char *s, size_t n,
				struct wp_err *err)
{
	parses++;
	return __real_wp_requirement_parse(r, s, n, err);
}

int __real_wp_req_parse(struct wp_req *q, const char *text, size_t n, struct wp_err *err);
int __wrap_wp_req_parse(struct wp_req *q, const char *text, size_t n, struct wp_err *err);
int __wrap_wp_req_parse(struct wp_req *q, const char *text, size_t n, struct wp_err *err)
{
	parses++;
	return __real_wp_req_parse(q, text, n, err);
}

int __real_wp_reqs_add(struct wp_reqs *l, const char *text, struct wp_err *err);
int __wrap_wp_reqs_add(struct wp_reqs *l, const char *text, struct wp_err *err);
int __wrap_wp_reqs_add(struct wp_reqs *l, const char *text, struct wp_err *err)
{
	parses++;
	return __real_wp_reqs_add(l, text, err);
}

/* The file-name and version parsers, counted the same way (calls from outside their own files):
 * a plan file's name and version are parsed where the catalog row becomes a candidate, and the
 * writers get the parsed values from the plan. */
static unsigned name_parses, version_parses;

int __real_wp_wheelname_parse(const char *filename, struct wp_wheelname *w, struct wp_err *err);
int __wrap_wp_wheelname_parse(const char *filename, struct wp_wheelname *w, struct wp_err *err);
int __wrap_wp_wheelname_parse(const char *filename, struct wp_wheelname *w, struct wp_err *err)
{
	name_parses++;
	return __real_wp_wheelname_parse(filename, w, err);
}

int __real_wp_sdistname_parse(const char *filename, struct wp_sdistname *sd, struct wp_err *err);
int __wrap_wp_sdistname_parse(const char *filename, struct wp_sdistname *sd, struct wp_err *err);
int __wrap_wp_sdistname_parse(const char *filename, struct wp_sdistname *sd, struct wp_err *err)
{
	name_parses++;
	return __real_wp_sdistname_parse(filename, sd, err);
}

int __real_wp_distname_split(const char *filename, char **project, char **version);
int __wrap_wp_distname_split(const char *filename, char **project, char **version);
int __wrap_wp_distname_split(const char *filename, char **project, char **version)
{
	name_parses++;
	return __real_wp_distname_split(filename, project, version);
}

int __real_wp_version_parse(struct wp_version *v, const char *s, size_t n, struct wp_err *err);
int __wrap_wp_version_parse(struct wp_version *v, const char *s, size_t n, struct wp_err *err);
int __wrap_wp_version_parse(struct wp_version *v, const char *s, size_t n, struct wp_err *err)
{
	version_parses++;
	return __real_wp_version_parse(v, s, n, err);
}

/* What cli/pick_opts.c does with a read file: each line's parse moves into the job. */
static void take_reqs(struct wp_reqfile *rf, struct wp_reqs *reqs, struct wp_reqs *cons)
{
	for (size_t i = 0; i < rf->reqs.n; i++) {
		struct wp_reqfile_req *q = &rf->reqs.v[i];
		wp_vec_push(q->constraint ? cons : reqs, q->req);
		memset(&q->req, 0, sizeof(q->req));
	}
}

/* Lines of every shape the grammar has (names spelled other ways, extras, markers, spaces,
 * --hash-free options, comments), all satisfiable together by the sample index for CUDA 11.x,
 * Python 3.8 on linux_x86_64: torchvision 0.9.0 + torch 1.8.0 + numpy + pillow +
 * typing-extensions. */
static void hundred_lines(struct wp_buf *text)
{
	static const char *const forms[] = {
		"torchvision==0.9.0",
		"Torch >= 1.%d ; python_version >= \"3.%d\"",
		"numpy>=1.%d",
		"Pillow >=4.1.1, <%d0",
		"typing_extensions",
		"torch<2 ; sys_platform == 'linux' and platform_machine == \"x86_64\"  # a comment",
		"TorchVision ~= 0.9.0",
		"pywin32 ; sys_platform == \"win32\"", /* false here: never wanted */
		"torch (>=1.%d)",
		"numpy ; extra == \"never\" or python_version >= '3'",
	};
	const size_t n = sizeof(forms) / sizeof(forms[0]);
	for (size_t i = 0; i < 100; i++) {
		wp_buf_printf(text, forms[i % n], (int)(i % 8), (int)(i % 8));
		wp_buf_addstr(text, "\n");
	}
}

static int count_lines(const char *s)
{
	int n = 0;
	for (; s && *s; s++)
		n += *s == '\n';
	return n;
}

/* The Requires-Dist lines of the distinct files the plan picked, as the catalog keeps them. */
static int plan_requires_dist(struct wp_pick_run *run)
{
	size_t distinct;
	bool *first = wp_plan_first_of_url(&run->plan, &distinct);
	int n = 0;
	for (size_t i = 0; i < run->plan.n; i++) {
		struct wp_catalog_meta cm = { 0 };
		struct wp_err e = WP_ERR_INIT;
		if (!first[i])
			continue;
		assert_int_equal(wp_catalog_metadata_lookup(&run->cat, run->plan.files[i].url, &cm,
							    &e),
				 0);
		assert_true(cm.found);
		n += count_lines(cm.requires_dist);
		wp_catalog_meta_release(&cm);
	}
	free(first);
	return n;
}

/* The measure: a 100-line requirements file is parsed 100 times by the reader and not once
 * more on its way through targets, crawl, resolution and plan; each picked file's Requires-Dist
 * line is parsed once, though two targets pick the same files. */
static void test_hundred_lines_parsed_once(void **state)
{
	struct jf_world w;
	struct wp_buf text = WP_BUF_INIT;
	struct wp_reqfile rf = { 0 };
	struct wp_pick_job job = { 0 };
	struct wp_pick_run run = { 0 };
	struct wp_reqs cons = { 0 };
	struct wp_err err = WP_ERR_INIT;
	jf_world_init(&w, jf_pristine);
	hundred_lines(&text);

	parses = 0;
	assert_int_equal(wp_reqfile_parse(&rf, "requirements.txt", text.data, text.len, false, NULL,
					  &err),
			 0);
	assert_int_equal(rf.reqs.n, 100);
	assert_int_equal(parses, 100);

	take_reqs(&rf, &job.reqs, &cons);
	wp_strlist_push(&job.targets.cuda, "11.1");
	wp_strlist_push(&job.targets.cuda, "11.2"); /* the same files as 11.1: cu111 */
	wp_strlist_push(&job.targets.python, "3.8");
	wp_strlist_push(&job.targets.platform, "linux_x86_64");
	wp_strlist_push(&job.index, w.simple);
	job.dry_run = true;
	if (wp_pick_plan(&w.s, &job, &run, &err))
		fail_msg("planning: %s", err.msg);
	unsigned after_plan = parses;

	/* both targets got torch, torchvision, numpy, pillow, typing-extensions; pywin32's marker
	 * is false */
	assert_int_equal(run.plan.n_targets, 2);
	assert_int_equal(run.plan.n, 10);
	for (size_t i = 0; i < run.plan.n; i++)
		assert_string_not_equal(run.plan.files[i].project, "pywin32");
	int deps = plan_requires_dist(&run);
	assert_true(deps > 0);
	if (after_plan != 100 + (unsigned)deps)
		fail_msg("%u parses: 100 lines read, %d Requires-Dist lines of distinct files, and %d more",
			 after_plan, deps, (int)after_plan - 100 - deps);

	wp_pick_run_release(&run);
	wp_reqs_release(&job.reqs);
	wp_reqs_release(&cons);
	wp_strlist_release(&job.targets.cuda);
	wp_strlist_release(&job.targets.python);
	wp_strlist_release(&job.targets.platform);
	wp_strlist_release(&job.index);
	wp_reqfile_release(&rf);
	wp_buf_free(&text);
	jf_world_release(&w);
}

/* A line's extras and marker, as the reader parsed them, are what the job's users get: the
 * formatted requirement is packaging's str() of the line, the name its PEP 503 form, and the
 * extras reach pick's "does not provide the extra" warning (which reads them from the job) as
 * written, in order, duplicates dropped. A second parse that read the line differently (a lost
 * marker, extras re-sorted or dropped) would show here. */
static void test_extras_and_marker_round_trip(void **state)
{
	static const char line
		[] = "Typing_Extensions [Zeta, alpha,Zeta] >= 4.0 ; "
		     "python_version >= '3.6' and (sys_platform == \"linux\" or os_name == 'nt')\n";
	struct jf_world w;
	struct wp_reqfile rf = { 0 };
	struct wp_pick_job job = { 0 };
	struct wp_pick_run run = { 0 };
	struct wp_reqs cons = { 0 };
	struct wp_buf f = WP_BUF_INIT;
	struct wp_err err = WP_ERR_INIT;
	jf_world_init(&w, jf_pristine);

	assert_int_equal(wp_reqfile_parse(&rf, "r.txt", line, strlen(line), false, NULL, &err), 0);
	take_reqs(&rf, &job.reqs, &cons);
	assert_int_equal(job.reqs.n, 1);
	const struct wp_req *q = &job.reqs.v[0];
	assert_true(q->ok);
	assert_string_equal(q->text,
			    "Typing_Extensions [Zeta, alpha,Zeta] >= 4.0 ; "
			    "python_version >= '3.6' and (sys_platform == \"linux\" or os_name == 'nt')");
	assert_string_equal(q->project, "typing-extensions");
	assert_int_equal(q->r.nextras, 2);
	assert_string_equal(q->r.extras[0], "Zeta");
	assert_string_equal(q->r.extras[1], "alpha");
	assert_int_equal(wp_requirement_format(&q->r, &f), 0);
	assert_string_equal(f.data,
			    "Typing_Extensions[Zeta,alpha]>=4.0; python_version >= \"3.6\" and "
			    "(sys_platform == \"linux\" or os_name == \"nt\")");

	wp_strlist_push(&job.targets.cuda, "cpu");
	wp_strlist_push(&job.targets.python, "3.8");
	wp_strlist_push(&job.targets.platform, "linux_x86_64");
	wp_strlist_push(&job.index, w.simple);
	job.dry_run = true;
	unsigned before = parses;
	if (wp_pick_plan(&w.s, &job, &run, &err))
		fail_msg("planning: %s", err.msg);
	assert_int_equal(parses, before); /* typing-extensions has no Requires-Dist: nothing more to
					     parse */
	assert_int_equal(run.plan.n, 1);
	assert_string_equal(run.plan.files[0].project, "typing-extensions");
	/* the marker held for this target (the want was added), and both extras travelled */
	assert_true(jf_said(&w, WP_SAY_WARN,
			    "typing-extensions 4.5.0 does not provide the extra 'Zeta'"));
	assert_true(jf_said(&w, WP_SAY_WARN,
			    "typing-extensions 4.5.0 does not provide the extra 'alpha'"));

	wp_pick_run_release(&run);
	wp_reqs_release(&job.reqs);
	wp_reqs_release(&cons);
	wp_strlist_release(&job.targets.cuda);
	wp_strlist_release(&job.targets.python);
	wp_strlist_release(&job.targets.platform);
	wp_strlist_release(&job.index);
	wp_reqfile_release(&rf);
	wp_buf_free(&f);
	jf_world_release(&w);
}

/* The typed value keeps what a writer and a message need: the text as written, the name, and
 * for a line that does not parse, why (a Requires-Dist kept to be refused later). */
static void test_req_value(void **state)
{
	struct wp_req q;
	struct wp_reqs l = { 0 };
	struct wp_err e = WP_ERR_INIT;
	assert_int_equal(wp_req_parse(&q, "Foo.Bar[x]==1.0xyz", 10, &e), 0); /* n bounds the text */
	assert_string_equal(q.text, "Foo.Bar[x]");
	assert_string_equal(q.project, "foo-bar");
	assert_true(q.ok);
	wp_req_release(&q);

	assert_int_equal(wp_req_parse(&q, "foo >= ", 7, &e), -WPE_PARSE);
	assert_false(q.ok);
	assert_string_equal(q.text, "foo >= ");
	assert_null(q.project);
	assert_non_null(q.why);
	assert_string_equal(q.why, e.msg);
	wp_req_release(&q);

	assert_int_equal(wp_reqs_add(&l, "a; python_version > '3'", NULL), 0);
	assert_int_equal(wp_reqs_add(&l, "b ==", NULL), -WPE_PARSE);
	assert_int_equal(l.n, 1); /* nothing appended for what does not parse */
	assert_true(l.v[0].r.has_marker);
	wp_reqs_release(&l);
	assert_int_equal(l.n, 0);
}

/* A plan file's name, version and requires-python are parsed once, where the plan takes the file
 * (wp_plan_file_type), and stay typed to the writers: a pick, then every writer of its plan (the
 * lock, requirements.txt, --json, the wheelhouse with its plain-name copies and SBOM, the mirror's
 * pages and SBOM, the bundle), each counted. Before the plan carried them the writers parsed the
 * same 5 names 55 times and their versions and requires-python 40 times. */
static void test_plan_names_parsed_once(void **state)
{
	struct jf_world w;
	struct wp_pick_job job = { 0 };
	struct wp_pick_run run = { 0 };
	struct wp_lock_report rep = { 0 };
	struct wp_mirror_report mrep = { 0 };
	struct wp_err err = WP_ERR_INIT;
	jf_world_init(&w, jf_pristine);
	assert_int_equal(wp_reqs_add(&job.reqs, "torchvision==0.9.0", &err), 0);
	wp_strlist_push(&job.targets.cuda, "11.1");
	wp_strlist_push(&job.targets.python, "3.8");
	wp_strlist_push(&job.targets.platform, "linux_x86_64");
	wp_strlist_push(&job.index, w.simple);

	if (wp_pick_plan(&w.s, &job, &run, &err))
		fail_msg("planning: %s", err.msg);
	assert_int_equal(run.plan.n, 5); /* torchvision, torch, numpy, pillow, typing-extensions */
	if (wp_pick_fetch(&w.s, &job, &run, &err))
		fail_msg("fetching: %s", err.msg);
	char *dir = jf_path(&w, "out"), *house = jf_path(&w, "house"),
	     *mirror = jf_path(&w, "mirror");
	char *bundle = jf_path(&w, "b.tar");
	assert_int_equal(wp_mkdir_p(dir, 0755, NULL), 0);
	FILE *devnull = fopen("/dev/null", "w");
	assert_non_null(devnull);
#define WRITER(what, call)                                                                             \
	do {                                                                                           \
		name_parses = version_parses = 0;                                                      \
		if (call)                                                                              \
			fail_msg("%s: %s", what, err.msg);                                             \
		if (name_parses || version_parses)                                                     \
			fail_msg("%s parsed %u file names and %u versions again", what, name_parses,   \
				 version_parses);                                                      \
	} while (0)
	WRITER("pylock.toml", wp_write_pylock(&run.plan, dir, WP_LOCK_URLS, &rep, &err));
	WRITER("requirements.txt", wp_write_requirements(&run.plan, dir, &rep, &err));
	WRITER("--json", (wp_plan_write_json(&run.plan, true, devnull), 0));
	WRITER("the wheelhouse", wp_pick_write_wheelhouse(&w.s, &run, house, &err));
	WRITER("the mirror", wp_publish_mirror(&w.s, &run, mirror, false, &mrep, &err));
	WRITER("the mirror's SBOM", wp_publish_mirror_sbom(&w.s, &run.plan, mirror, &err));
	WRITER("the bundle", wp_publish_bundle(&w.s, &run, bundle, &err));
#undef WRITER
	fclose(devnull);
	assert_int_equal(mrep.files, 5);

	/* what they read instead: the values the plan took the files with */
	for (size_t i = 0; i < run.plan.n; i++) {
		const struct wp_plan_file *f = &run.plan.files[i];
		assert_non_null(f->wheel.name);
		assert_string_equal(f->wheel.version, f->version);
		assert_true(f->version_ok);
		struct wp_buf vb = WP_BUF_INIT;
		assert_int_equal(wp_version_format(&f->version_parsed, &vb), 0);
		assert_true(wp_version_same(vb.data, f->version));
		wp_buf_free(&vb);
		assert_int_equal(f->requires_python_ok, f->requires_python && *f->requires_python);
	}

	free(dir);
	free(house);
	free(mirror);
	free(bundle);
	wp_lock_report_release(&rep);
	wp_pick_run_release(&run);
	wp_reqs_release(&job.reqs);
	wp_strlist_release(&job.targets.cuda);
	wp_strlist_release(&job.targets.python);
	wp_strlist_release(&job.targets.platform);
	wp_strlist_release(&job.index);
	jf_world_release(&w);
}

/* `install -r` from a folder: each wheel's version is parsed once, where the folder is read, not
 * again for every requirement line it is matched against (that was lines x wheels x 2 passes). A
 * wheelhouse of three pure wheels, installed (dry run) into a --target folder by python3. */
static void test_install_versions_parsed_once(void **state)
{
	struct jf_world w;
	struct wp_pick_job job = { 0 };
	struct wp_pick_run run = { 0 };
	struct wp_install_report rep = { 0 };
	struct wp_err err = WP_ERR_INIT;
	jf_world_init(&w, jf_pristine);
	assert_int_equal(wp_reqs_add(&job.reqs, "numpy", &err), 0);
	assert_int_equal(wp_reqs_add(&job.reqs, "pillow", &err), 0);
	assert_int_equal(wp_reqs_add(&job.reqs, "typing_extensions", &err), 0);
	wp_strlist_push(&job.targets.cuda, "cpu");
	wp_strlist_push(&job.targets.python, "3.11");
	wp_strlist_push(&job.targets.platform, "linux_x86_64");
	wp_strlist_push(&job.index, w.simple);
	if (wp_pick_plan(&w.s, &job, &run, &err))
		fail_msg("planning: %s", err.msg);
	if (wp_pick_fetch(&w.s, &job, &run, &err))
		fail_msg("fetching: %s", err.msg);
	char *house = jf_path(&w, "house"), *site = jf_path(&w, "site");
	assert_int_equal(wp_pick_write_wheelhouse(&w.s, &run, house, &err), 0);
	char *reqs = wp_xasprintf("%s/requirements.txt", house);
	const char *const rfiles[] = { reqs }, *const links[] = { house };
	struct wp_install_job ij = { .python = "python3",
				     .scheme = WP_SCHEME_TARGET,
				     .dir = site,
				     .requirements = rfiles,
				     .n_requirements = 1,
				     .find_links = links,
				     .n_find_links = 1,
				     .dry_run = true,
				     .threads = 1 };
	name_parses = version_parses = 0;
	if (wp_install_run(&w.s, &ij, &rep, &err))
		fail_msg("installing: %s", err.msg);
	assert_int_equal(rep.n, 3);
	/* each name twice: where the folder is read and where the wheel is opened (a want holds a
	 * path, not the parse); once was three times, the variant label read a third time */
	if (name_parses > 2 * rep.n)
		fail_msg("%u file-name parses for %zu wheels", name_parses, rep.n);
	/* each wheel's version once, the interpreter's once, and each wheel's Requires-Python (two
	 * specifiers at most): once was every wheel's version for every line, twice (3 x 3 x 2),
	 * and the interpreter's for every wheel; 27 here */
	if (version_parses > 1 + 3 * rep.n)
		fail_msg("%u version parses for %zu wheels", version_parses, rep.n);

	wp_install_report_release(&rep);
	free(reqs), free(house), free(site);
	wp_pick_run_release(&run);
	wp_reqs_release(&job.reqs);
	wp_strlist_release(&job.targets.cuda);
	wp_strlist_release(&job.targets.python);
	wp_strlist_release(&job.targets.platform);
	wp_strlist_release(&job.index);
	jf_world_release(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_req_value),
		cmocka_unit_test(test_hundred_lines_parsed_once),
		cmocka_unit_test(test_extras_and_marker_round_trip),
		cmocka_unit_test(test_plan_names_parsed_once),
		cmocka_unit_test(test_install_versions_parsed_once),
	};
	return cmocka_run_group_tests_name("parse_once", tests, jf_group_setup, jf_group_teardown);
}
