/* tests/fuzz/fuzz_install.c: libFuzzer target for a wheel given to `install`: planned, staged and
 * finished (ops/install/wheel.c) into a private temp environment, then held to the install
 * rules. */
#include "tests/fuzz/fuzz.h"

#include "base/err.h"
#include "base/fs.h"
#include "base/str.h"
#include "ops/install/internal.h"

#include <sys/stat.h>

/* A --target-like environment under dir: every scheme inside it, dir its one root. */
static void env_at(struct wp_ienv *env, const char *dir)
{
	memset(env, 0, sizeof(*env));
	env->lock_fd = -1;
	env->umask = 022;
	env->py.prefix = wp_xstrdup(dir);
	env->py.purelib = wp_xasprintf("%s/lib", dir);
	env->py.platlib = wp_xasprintf("%s/lib", dir);
	env->py.scripts = wp_xasprintf("%s/bin", dir);
	env->py.data = wp_xstrdup(dir);
	env->py.include = wp_xasprintf("%s/include", dir);
	env->py.executable = wp_xstrdup("/usr/bin/python3");
	env->py.cache_tag = wp_xstrdup("cpython-311");
	env->py.target.py_major = 3;
	env->py.target.py_minor = 11;
	env->roots[0] = wp_xstrdup(dir);
	env->real_roots[0] = wp_xstrdup(dir);
	env->n_roots = 1;
}

static void env_free(struct wp_ienv *env)
{
	free(env->py.prefix);
	free(env->py.purelib);
	free(env->py.platlib);
	free(env->py.scripts);
	free(env->py.data);
	free(env->py.include);
	free(env->py.executable);
	free(env->py.cache_tag);
	free(env->roots[0]);
	free(env->real_roots[0]);
}

/* Input: the wheel's bytes, named demo_pkg-1.0-py3-none-any.whl; or, when it does not start with
 * "PK", a first line naming the wheel and the bytes after it (as fuzz_wheel). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char name[256] = "demo_pkg-1.0-py3-none-any.whl";
	if (size < 2 || memcmp(data, "PK", 2) != 0) {
		const uint8_t *nl = memchr(data, '\n', size < sizeof(name) ? size : sizeof(name));
		if (nl) {
			size_t n = (size_t)(nl - data);
			memcpy(name, data, n);
			name[n] = 0;
			data = nl + 1;
			size -= n + 1;
		}
	}
	const char *path = fz_write_tmp("fuzz.whl", data, size);
	if (!path)
		return 0;
	char dir[600];
	snprintf(dir, sizeof(dir), "%s.env", path);
	wp_fs_remove_tree(dir);
	if (mkdir(dir, 0777) < 0)
		return 0;
	struct wp_ienv env;
	env_at(&env, dir);
	struct wp_iwheel w;
	memset(&w, 0, sizeof(w));
	w.path = wp_xstrdup(path);
	w.filename = wp_xstrdup(name);
	w.project = wp_xstrdup("demo-pkg");
	w.requested = true;
	struct wp_wheel_limits lim = { .max_members = 1000,
				       .max_total_size = 64 << 20,
				       .max_ratio = 500,
				       .ratio_min_size = 1 << 16,
				       .max_record = 1 << 20 };
	struct wp_err err = WP_ERR_INIT;
	int rc = wp_wheel_reader_open(path, name, &lim, &w.r, &w.info, &err);
	if (!rc)
		rc = wp_iwheel_plan(&w, &env, 0, &err);
	if (!rc) {
		/* the rules a planned file is held to: inside the environment, on no name the
		 * installer keeps, and RECORD last */
		size_t dl = strlen(dir);
		for (size_t i = 0; i < w.files.n; i++) {
			const char *d = w.files.v[i].dest;
			FZ_CHECK(!strncmp(d, dir, dl) && d[dl] == '/');
			char *plain = wp_inst_lexical(d);
			FZ_CHECK(!strcmp(plain, d));
			free(plain);
			FZ_CHECK(!wp_inst_reserved_name(d + dl + 1, strlen(d + dl + 1)));
			FZ_CHECK(wp_ienv_confines(&env, w.files.v[i].tmp));
		}
		FZ_CHECK(w.files.n && wp_cstr_endswith(w.files.v[w.files.n - 1].dest, "/RECORD"));
		/* staged for real: the folders, every member, the check, the generated files */
		for (size_t i = 0; i < w.files.n && !rc; i++) {
			char *parent = wp_xstrdup(w.files.v[i].tmp);
			*strrchr(parent, '/') = 0;
			struct wp_err e2 = WP_ERR_INIT;
			if (wp_mkdir_p(parent, 0777, &e2) == 0)
				rc = wp_iwheel_stage_file(&w, &env, &w.files.v[i], &err);
			else
				rc = -1;
			free(parent);
		}
		for (size_t i = 0; i < w.drained.n && !rc; i++)
			rc = wp_iwheel_drain_member(&w, w.drained.v[i], &err);
		if (!rc)
			rc = wp_wheel_reader_check(w.r, &err);
		if (!rc && !(rc = wp_iwheel_finish(&w, &env, 0, &err))) {
			/* RECORD lists each file once */
			const struct wp_buf *rec = &w.files.v[w.files.n - 1].content;
			size_t rows = 0;
			for (size_t i = 0; i < rec->len; i++)
				rows += rec->data[i] == '\n';
			FZ_CHECK(rows == w.files.n);
		}
	}
	if (rc)
		FZ_CHECK(err.msg[0] || rc == -1);
	wp_iwheel_release(&w);
	env_free(&env);
	wp_fs_remove_tree(dir);
	return 0;
}
