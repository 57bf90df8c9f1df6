/* tests/unit/test_fs.c: atomic writes, capped reads, mkdir -p and link-or-copy, and their error
 * messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/unit/tmpdir.h"

#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "base/mem.h"
#include "base/fs.h"

static int fx_setup(void **state)
{
	char *dir = wp_xcalloc(1, 64);
	if (test_tmpdir_make(dir, 64, "fsutil") < 0)
		return -1;
	*state = dir;
	return 0;
}

static int fx_teardown(void **state)
{
	int rc = test_tmpdir_remove(*state);
	free(*state);
	return rc;
}

static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	static char buf[256];
	if (!f)
		return NULL;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static void test_atomic_write(void **state)
{
	const char *dir = *state;
	struct wp_err err = WP_ERR_INIT;
	char *sub = wp_xasprintf("%s/aw", dir);
	char *path = wp_xasprintf("%s/aw/index.html", dir);
	assert_int_equal(wp_mkdir_p(sub, 0755, &err), 0);
	assert_int_equal(wp_atomic_write(path, "one", 3, &err), 0);
	assert_int_equal(wp_atomic_write(path, "two!", 4, &err), 0);
	assert_string_equal(slurp(path), "two!");
	assert_int_equal(entries(sub), 1); /* no path.tmp.* left behind */
	struct stat sb;
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0644);
	free(sub);
	free(path);
}

static void test_atomic_file_commit_abort(void **state)
{
	const char *dir = *state;
	struct wp_err err = WP_ERR_INIT;
	struct wp_atomic_file af = WP_ATOMIC_FILE_INIT;
	char *sub = wp_xasprintf("%s/af", dir);
	char *path = wp_xasprintf("%s/af/out.bin", dir);
	assert_int_equal(wp_mkdir_p(sub, 0755, &err), 0);

	assert_int_equal(wp_atomic_file_open(&af, path, &err), 0);
	assert_non_null(strstr(af.tmp, "/af/out.bin.tmp."));
	assert_int_equal(write(af.fd, "partial", 7), 7);
	assert_int_not_equal(access(path, F_OK), 0); /* readers never see a half file */
	wp_atomic_file_abort(&af);
	assert_int_equal(entries(sub), 0);

	assert_int_equal(wp_atomic_file_open(&af, path, &err), 0);
	assert_int_equal(write(af.fd, "whole", 5), 5);
	assert_int_equal(wp_atomic_file_commit(&af, &err), 0);
	wp_atomic_file_abort(&af); /* harmless after commit */
	assert_string_equal(slurp(path), "whole");
	assert_int_equal(entries(sub), 1);
	free(sub);
	free(path);
}

static void test_write_fails_clearly(void **state)
{
	const char *dir = *state;
	struct wp_err err = WP_ERR_INIT;
	/* Tests run as root, so permissions do not fail; a parent that is a file does. */
	char *file = wp_xasprintf("%s/plain", dir);
	char *under = wp_xasprintf("%s/plain/x.json", dir);
	assert_int_equal(wp_atomic_write(file, "x", 1, &err), 0);
	assert_int_equal(wp_atomic_write(under, "x", 1, &err), -WPE_IO);
	print_message("%s\n", err.msg);
	assert_non_null(strstr(err.msg, "cannot create '"));
	assert_non_null(strstr(err.msg, "/plain/x.json': "));
	assert_non_null(strstr(err.msg, "not a directory"));

	/* /proc refuses new files whoever we are. */
	wp_err_clear(&err);
	assert_int_equal(wp_atomic_write("/proc/wheelpick-test", "x", 1, &err), -WPE_IO);
	print_message("%s\n", err.msg);
	assert_non_null(strstr(err.msg, "cannot create '/proc/wheelpick-test'"));

	wp_err_clear(&err);
	assert_int_equal(wp_atomic_write("/nonexistent-dir/x", "x", 1, &err), -WPE_IO);
	assert_non_null(strstr(err.msg, "no such file or directory"));

	/* The messages users meet name the remedy. */
	wp_err_clear(&err);
	wp_fs_fail(&err, ENOSPC, "cannot write", "/c/x");
	assert_string_equal(err.msg,
			    "cannot write '/c/x': no space left on device; free some space "
			    "or point the cache elsewhere");
	wp_err_clear(&err);
	wp_fs_fail(&err, EROFS, "cannot create", "/c/x");
	assert_non_null(strstr(err.msg, "read-only"));
	wp_err_clear(&err);
	wp_fs_fail(&err, EACCES, "cannot create", "/c/x");
	assert_non_null(strstr(err.msg, "permission denied"));
	free(file);
	free(under);
}

static void test_mkdir_p(void **state)
{
	const char *dir = *state;
	struct wp_err err = WP_ERR_INIT;
	char *deep = wp_xasprintf("%s/a/b//c/d/", dir);
	char *blocked = wp_xasprintf("%s/plain2/sub", dir);
	char *file = wp_xasprintf("%s/plain2", dir);
	struct stat sb;
	assert_int_equal(wp_mkdir_p(deep, 0755, &err), 0);
	assert_int_equal(wp_mkdir_p(deep, 0755, &err), 0);
	assert_int_equal(stat(deep, &sb), 0);
	assert_true(S_ISDIR(sb.st_mode));
	assert_int_equal(wp_atomic_write(file, "x", 1, &err), 0);
	assert_int_equal(wp_mkdir_p(file, 0755, &err), -WPE_IO);
	assert_non_null(strstr(err.msg, "a file of that name is in the way"));
	wp_err_clear(&err);
	assert_int_equal(wp_mkdir_p(blocked, 0755, &err), -WPE_IO);
	assert_non_null(strstr(err.msg, "plain2"));
	wp_err_clear(&err);
	assert_int_equal(wp_mkdir_p("", 0755, &err), -WPE_IO);
	free(deep);
	free(blocked);
	free(file);
}

/* wp_path_base: after the last separator; '\\' is one only where the system says so */
static void test_path_base(void **state)
{
	(void)state;
	assert_string_equal(wp_path_base("/a/b/c.tar.zst"), "c.tar.zst");
	assert_string_equal(wp_path_base("c.tar.zst"), "c.tar.zst");
	assert_string_equal(wp_path_base("/a/b/"), "");
	assert_string_equal(wp_path_base("/x"), "x");
	assert_string_equal(wp_path_base("Z:\\dir\\b.tar.zst"),
			    wp_os_is_sep('\\') ? "b.tar.zst" : "Z:\\dir\\b.tar.zst");
	assert_string_equal(wp_path_base("Z:/dir\\x/b"), "b");
}

/* wp_path_dir: before the same separator wp_path_base splits at */
static void test_path_dir(void **state)
{
	(void)state;
	const char *cases[][2] = {
		{ "/a/b/pylock.toml", "/a/b" }, { "pylock.toml", "." }, { "/x", "/" },
		{ "Z:\\dir/x\\b", wp_os_is_sep('\\') ? "Z:\\dir/x" : "Z:\\dir" },
		{ "Z:\\dir\\pylock.toml", wp_os_is_sep('\\') ? "Z:\\dir" : "." },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *d = wp_path_dir(cases[i][0]);
		assert_string_equal(d, cases[i][1]);
		free(d);
	}
}

static void test_link_or_copy(void **state)
{
	const char *dir = *state;
	struct wp_err err = WP_ERR_INIT;
	char *from = wp_xasprintf("%s/obj", dir);
	char *to = wp_xasprintf("%s/linked.whl", dir);
	struct stat a, b;
	assert_int_equal(wp_atomic_write(from, "payload", 7, &err), 0);
	assert_int_equal(wp_atomic_write(to, "old", 3, &err), 0);
	assert_int_equal(wp_link_or_copy(from, to, &err), 0);
	assert_string_equal(slurp(to), "payload");
	assert_int_equal(stat(from, &a), 0);
	assert_int_equal(stat(to, &b), 0);
	assert_int_equal(a.st_ino, b.st_ino); /* same file system: a hard link */
	assert_int_equal(wp_link_or_copy(from, to, &err), 0); /* already the same file */
	int n = entries(dir);
	assert_int_equal(wp_link_or_copy(from, to, &err), 0);
	assert_int_equal(entries(dir), n);
	/* a name not taken yet is linked straight (no temp name): one more entry, the same file */
	char *fresh = wp_xasprintf("%s/fresh.whl", dir);
	assert_int_equal(wp_link_or_copy(from, fresh, &err), 0);
	assert_int_equal(entries(dir), n + 1);
	assert_int_equal(stat(fresh, &b), 0);
	assert_int_equal(a.st_ino, b.st_ino);
	unlink(fresh);
	free(fresh);

	/* Across file systems (/dev/shm is tmpfs) it copies. */
	if (access("/dev/shm", W_OK) == 0) {
		char *far = wp_xasprintf("/dev/shm/wp_link_test_%ld", (long)getpid());
		assert_int_equal(wp_link_or_copy(from, far, &err), 0);
		assert_string_equal(slurp(far), "payload");
		unlink(far);
		free(far);
	}
	char *missing = wp_xasprintf("%s/missing", dir);
	assert_int_equal(wp_link_or_copy(missing, to, &err), -WPE_IO);
	assert_non_null(strstr(err.msg, "/missing'"));
	free(missing);
	free(from);
	free(to);
}

static void test_file_read_capped(void **state)
{
	const char *dir = *state;
	char *path = wp_xasprintf("%s/small.txt", dir), *missing = wp_xasprintf("%s/missing", dir);
	struct wp_err err = WP_ERR_INIT;
	struct wp_buf b;
	bool found = true;

	assert_int_equal(wp_atomic_write(path, "hello", 5, &err), 0);
	assert_int_equal(wp_file_read_capped(path, 5, &b, &err), 0);
	assert_string_equal(wp_buf_cstr(&b), "hello");
	wp_buf_free(&b);

	assert_int_equal(wp_file_read_capped(path, 4, &b, &err), -WPE_TOO_BIG);
	assert_non_null(strstr(err.msg, "small.txt' is larger than 4 bytes"));
	wp_buf_free(&b);

	wp_err_clear(&err);
	assert_int_equal(wp_file_read_capped(missing, 10, &b, &err), -WPE_IO);
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(err.msg, "cannot read '"));
	assert_non_null(strstr(err.msg, "/missing': no such file"));
	wp_buf_free(&b);

	/* a caller for whom a missing file is an answer */
	wp_err_clear(&err);
	assert_int_equal(wp_file_read_if_exists(missing, 10, &b, &found, &err), 0);
	assert_false(found);
	assert_int_equal(b.len, 0);
	assert_int_equal(err.code, 0);
	assert_int_equal(wp_file_read_if_exists(path, 10, &b, &found, &err), 0);
	assert_true(found);
	assert_string_equal(wp_buf_cstr(&b), "hello");
	wp_buf_free(&b);

	/* a directory is not a file to read */
	assert_int_equal(wp_file_read_capped(dir, 10, &b, NULL), -WPE_IO);
	wp_buf_free(&b);
	free(path);
	free(missing);
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A FIFO nobody writes to, a pipe with a writer, and /dev/zero: no read blocks or runs away. */
static void test_read_special_files(void **state)
{
	const char *dir = *state;
	char *fifo = wp_xasprintf("%s/fifo", dir);
	struct wp_buf b;
	assert_int_equal(mkfifo(fifo, 0600), 0);
	/* the caller's wait (the run's timeout, handed down), not the default 10 s */
	long long t0 = now_ms();
	assert_int_equal(wp_file_read_waiting(fifo, 100, 1000, &b, NULL), -WPE_IO);
	assert_int_equal(errno, ETIMEDOUT);
	assert_true(now_ms() - t0 < 5000);
	wp_buf_free(&b);
	int p[2];
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], "piped", 5), 5);
	close(p[1]);
	char *via = wp_xasprintf("/dev/fd/%d", p[0]);
	assert_int_equal(wp_file_read_capped(via, 100, &b, NULL), 0);
	assert_string_equal(wp_buf_cstr(&b), "piped");
	wp_buf_free(&b);
	close(p[0]);
	assert_int_equal(wp_file_read_capped("/dev/zero", 4096, &b, NULL), -WPE_TOO_BIG);
	wp_buf_free(&b);
	free(via);
	free(fifo);
}

/* Temp names a killed process left are swept; a live process's, a fresh one and others stay. */
static void test_sweep_stale_tmp(void **state)
{
	const char *dir = *state;
	pid_t dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0); /* reaped: a PID nobody has (for now) */
	const char *names[] = { "a.whl.tmp.%ld.0123abcd", "b.whl.tmp.%ld.0123abcd", "c.tmp.whl",
				"d.whl.tmp.%ld.xyz" };
	long pids[] = { (long)dead, (long)getpid(), 0, (long)dead };
	char *paths[4];
	for (int i = 0; i < 4; i++) {
		char name[80];
		snprintf(name, sizeof(name), names[i], pids[i]);
		paths[i] = wp_xasprintf("%s/%s", dir, name);
		FILE *f = fopen(paths[i], "w");
		assert_non_null(f);
		fclose(f);
		char *old = wp_xasprintf("touch -d '1 minute ago' '%s'", paths[i]);
		assert_int_equal(system(old), 0);
		free(old);
	}
	assert_int_equal(wp_fs_sweep_stale_tmp(dir), 1);
	assert_int_equal(access(paths[0], F_OK), -1);
	for (int i = 1; i < 4; i++)
		assert_int_equal(access(paths[i], F_OK), 0);
	/* a write of a.whl sweeps its own leftovers too */
	FILE *f = fopen(paths[0], "w");
	fclose(f);
	char *old = wp_xasprintf("touch -d '1 minute ago' '%s'", paths[0]);
	assert_int_equal(system(old), 0);
	free(old);
	char *target = wp_xasprintf("%s/a.whl", dir);
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_atomic_write(target, "x", 1, &err), 0);
	assert_int_equal(access(paths[0], F_OK), -1);
	free(target);
	for (int i = 0; i < 4; i++)
		free(paths[i]);
}

/* A scratch folder is told by its name: everything under the one wp_fs_mkscratch made, nothing
 * beside it, and no name that only contains the prefix (issue 37: it was a process-wide
 * setting). */
static void test_scratch_by_name(void **state)
{
	const char *dir = *state;
	struct wp_err err = WP_ERR_INIT;
	char *scratch = NULL;
	assert_int_equal(wp_fs_mkscratch(dir, &scratch, &err), 0);
	assert_non_null(scratch);
	assert_true(wp_fs_in_scratch(scratch));
	char *under = wp_xasprintf("%s/simple/torch/index.html", scratch);
	assert_true(wp_fs_in_scratch(under));
	assert_false(wp_fs_in_scratch(dir));
	char *beside = wp_xasprintf("%s/my-" WP_FS_SCRATCH_PREFIX "x/a", dir);
	assert_false(wp_fs_in_scratch(beside));
	assert_false(wp_fs_in_scratch(NULL));
	assert_true(wp_fs_in_scratch(WP_FS_SCRATCH_PREFIX "abc"));
	free(beside);
	free(under);
	wp_fs_remove_tree(scratch);
	free(scratch);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_atomic_write),
		cmocka_unit_test(test_atomic_file_commit_abort),
		cmocka_unit_test(test_write_fails_clearly),
		cmocka_unit_test(test_mkdir_p),
		cmocka_unit_test(test_path_base),
		cmocka_unit_test(test_path_dir),
		cmocka_unit_test(test_link_or_copy),
		cmocka_unit_test(test_file_read_capped),
		cmocka_unit_test_setup_teardown(test_read_special_files, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_sweep_stale_tmp, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_scratch_by_name, fx_setup, fx_teardown),
	};
	return cmocka_run_group_tests(tests, fx_setup, fx_teardown);
}
