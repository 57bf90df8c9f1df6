/* tests/unit/test_remote_metadata.c: METADATA by HTTP range from wheels served by faultserver.py,
 * and zipmeta on hostile bytes. */
#include "base/buf.h"
#include "base/err.h"
#include "base/mem.h"
#include "ops/core/remote_metadata.h"
#include "verify/zipmeta.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/unit/tmpdir.h"

#include "tests/unit/readfile.h"

#include "tests/unit/faultserver.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#define SERVER_SECS "120"

struct fixture {
	char dir[256];
	char root[300];
	char expect[300];
	char script[300];
	char log[300];
	pid_t pid;
	int port;
};

static void write_file(const char *path, const char *text)
{
	char tmp[520];
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = fopen(tmp, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
	assert_int_equal(fclose(f), 0);
	assert_int_equal(rename(tmp, path), 0);
}

/* Run argv with stdout to /dev/null; the exit status, or -1. */
static int run_quiet(char *const argv[])
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		if (fd >= 0)
			dup2(fd, 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int start_server(struct fixture *fx)
{
	char port_file[512];
	snprintf(fx->log, sizeof(fx->log), "%s/http.log", fx->dir);
	snprintf(port_file, sizeof(port_file), "%s/http.port", fx->dir);
	char *argv[] = {
		"python3",
		"tests/server/faultserver.py",
		"--root",
		fx->root,
		"--script",
		fx->script,
		"--log",
		fx->log,
		"--port-file",
		port_file,
		"--max-seconds",
		SERVER_SECS,
		NULL,
	};
	return faultserver_start(argv, port_file, &fx->pid, &fx->port);
}

static void stop_server(struct fixture *fx)
{
	faultserver_stop(&fx->pid);
}

static int group_setup(void **state)
{
	struct fixture *fx = wp_xcalloc(1, sizeof(*fx));
	*state = fx;

	static const char *const unset[] = { "http_proxy",  "https_proxy", "HTTP_PROXY",
					     "HTTPS_PROXY", "all_proxy",   "ALL_PROXY" };
	for (size_t i = 0; i < WP_ARRAY_LEN(unset); i++)
		unsetenv(unset[i]);
	setenv("no_proxy", "127.0.0.1,localhost", 1);
	setenv("NO_PROXY", "127.0.0.1,localhost", 1);

	if (test_tmpdir_make(fx->dir, sizeof(fx->dir), "remotemeta") < 0)
		return -1;
	snprintf(fx->root, sizeof(fx->root), "%s/root", fx->dir);
	snprintf(fx->expect, sizeof(fx->expect), "%s/expect", fx->dir);
	snprintf(fx->script, sizeof(fx->script), "%s/script.json", fx->dir);
	char *gen[] = { "python3", "tests/server/rangewheels.py", fx->root, fx->expect, NULL };
	if (run_quiet(gen) != 0)
		return -1;
	write_file(fx->script,
		   "{\"/norange/demo_pkg-1.0-py3-none-any.whl\": {\"ignore_range\": true},\n"
		   " \"/norange/huge-1.0-py3-none-any.whl\": {\"ignore_range\": true}}\n");
	return start_server(fx);
}

static int group_teardown(void **state)
{
	struct fixture *fx = *state;
	if (!fx)
		return 0;
	stop_server(fx);
	test_tmpdir_remove(fx->dir);
	free(fx);
	return 0;
}

/* The logged requests to path, one JSON line each, as a NULL-terminated array; caller frees. */
static char **logged(const struct fixture *fx, const char *path, int *n)
{
	char *log = test_read_file(fx->log, NULL);
	char needle[400];
	char **out = wp_xcalloc(1, sizeof(*out));
	*n = 0;
	snprintf(needle, sizeof(needle), "\"path\":\"%s\"", path);
	for (char *line = log, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (strstr(line, needle)) {
			out = wp_xrealloc(out, (size_t)(*n + 2) * sizeof(*out));
			out[(*n)++] = wp_xstrdup(line);
			out[*n] = NULL;
		}
	}
	free(log);
	return out;
}

static void free_lines(char **l)
{
	for (size_t i = 0; l[i]; i++)
		free(l[i]);
	free(l);
}

static long long file_size(const struct fixture *fx, const char *path)
{
	char full[600];
	struct stat sb;
	snprintf(full, sizeof(full), "%s%s", fx->root, path);
	assert_int_equal(stat(full, &sb), 0);
	return (long long)sb.st_size;
}

static void url_of(char *out, size_t n, const struct fixture *fx, const char *path)
{
	snprintf(out, n, "http://127.0.0.1:%d%s", fx->port, path);
}

/* the run's settings, handed down as a value (net/ reads no variable): short waits between tries */
static const struct wp_net_conf fast = { .retry_base_ms = 20, .retry_base_set = true };

static int remote(const struct fixture *fx, const char *path, long long size, char **text,
		  struct wp_remote_stats *st, struct wp_err *err)
{
	char url[600];
	url_of(url, sizeof(url), fx, path);
	return wp_remote_metadata(&fast, url, strrchr(path, '/') + 1, size, text, st, err);
}

/* Read path's METADATA, compare it with what Python wrote, and check from the server's log that
 * it took `requests` range requests (first == how many were logged before), none for the whole
 * file. */
static void read_ok(const struct fixture *fx, const char *path, int requests,
		    struct wp_remote_stats *st)
{
	struct wp_err err = WP_ERR_INIT;
	char *text = NULL, want_path[600];
	int before, after;
	free_lines(logged(fx, path, &before));

	int rc = remote(fx, path, -1, &text, st, &err);
	if (rc)
		fail_msg("%s: %d %s", path, rc, err.msg);
	snprintf(want_path, sizeof(want_path), "%s%s", fx->expect, strrchr(path, '/'));
	char *want = test_read_file(want_path, NULL);
	assert_non_null(want);
	assert_string_equal(text, want);
	free(want);
	free(text);

	long long size = file_size(fx, path);
	char **lines = logged(fx, path, &after);
	assert_int_equal(after - before, st->requests);
	assert_int_equal(st->requests, requests);
	assert_true(st->requests <= 3);
	for (int i = before; i < after; i++) {
		if (!strstr(lines[i], "\"Range\":\"bytes=") || !strstr(lines[i], "\"status\":206"))
			fail_msg("request %d to %s is not a range answered by 206: %s", i, path,
				 lines[i]);
	}
	free_lines(lines);
	assert_true(st->bytes > 0);
	if (size > WP_ZIPMETA_TAIL)
		assert_true(st->bytes < size);
	print_message("    %s: %lld bytes, %d requests, %lld bytes transferred\n",
		      strrchr(path, '/') + 1, size, st->requests, st->bytes);
}

static void fail_with(const struct fixture *fx, const char *path, long long size, int code,
		      const char *text)
{
	struct wp_err err = WP_ERR_INIT;
	struct wp_remote_stats st;
	char *out = (char *)1;
	int rc = remote(fx, path, size, &out, &st, &err);
	if (rc != code)
		fail_msg("%s: expected %d, got %d: %s", path, code, rc, err.msg);
	assert_null(out);
	if (!strstr(err.msg, text))
		fail_msg("%s: error lacks '%s': %s", path, text, err.msg);
	assert_true(st.requests <= 3);
}

/* --- range reads against the server --- */

static void test_small_one_request(void **state)
{
	struct wp_remote_stats st;
	read_ok(*state, "/demo_pkg-1.0-py3-none-any.whl", 1, &st);
}

static void test_big_member_two_requests(void **state)
{
	struct wp_remote_stats st;
	read_ok(*state, "/big_pkg-2.0-py3-none-any.whl", 2, &st);
	/* the 64 KiB tail, then METADATA's header, data and slack */
	assert_true(st.bytes < WP_ZIPMETA_TAIL + 2048);
}

static void test_big_directory_three_requests(void **state)
{
	struct wp_remote_stats st;
	read_ok(*state, "/many_pkg-3.0-py3-none-any.whl", 3, &st);
}

static void test_zip64_local_only(void **state)
{
	struct wp_remote_stats st;
	read_ok(*state, "/zip64_one-4.0-py3-none-any.whl", 2, &st);
}

static void test_long_local_extra(void **state)
{
	struct wp_remote_stats st;
	/* 4000 bytes of local extra field, past the 1024 of slack: one request more for the rest */
	read_ok(*state, "/long_extra-5.0-py3-none-any.whl", 3, &st);
}

static void test_zip64_records(void **state)
{
	struct wp_remote_stats st;
	read_ok(*state, "/zip64_all-4.1-py3-none-any.whl", 1, &st);
	read_ok(*state, "/zip64_sat-4.2-py3-none-any.whl", 1, &st);
}

static void test_names_normalised(void **state)
{
	struct wp_remote_stats st;
	/* Foo.Bar-1.0+cu111.dist-info, with a vendored dist-info before it */
	read_ok(*state, "/foo_bar-1.0+cu111-py3-none-any.whl", 1, &st);
}

static void test_size_from_index(void **state)
{
	struct fixture *fx = *state;
	const char *path = "/big_pkg-2.0-py3-none-any.whl";
	long long size = file_size(fx, path);
	struct wp_err err = WP_ERR_INIT;
	struct wp_remote_stats st;
	char *text = NULL;
	assert_int_equal(remote(fx, path, size, &text, &st, &err), 0);
	assert_non_null(strstr(text, "Requires-Dist: torch==2.1.0\n"));
	free(text);
	fail_with(fx, path, size + 1, -WPE_INTEGRITY, "expected");
}

static void test_bad_crc(void **state)
{
	fail_with(*state, "/bad_crc-1.0-py3-none-any.whl", -1, -WPE_INTEGRITY, "CRC-32");
}

static void test_no_metadata(void **state)
{
	fail_with(*state, "/no_meta-1.0-py3-none-any.whl", -1, -WPE_INTEGRITY,
		  "has no no-meta-1.0.dist-info/METADATA");
}

static void test_eocd_out_of_bounds(void **state)
{
	fail_with(*state, "/eocd_oob-1.0-py3-none-any.whl", -1, -WPE_INTEGRITY,
		  "runs past its end record");
}

static void test_truncated(void **state)
{
	fail_with(*state, "/truncated-1.0-py3-none-any.whl", -1, -WPE_INTEGRITY,
		  "no end of central directory");
}

static void test_wrong_name(void **state)
{
	fail_with(*state, "/wrong_name-1.0-py3-none-any.whl", -1, -WPE_INTEGRITY,
		  "says 'someone-else 1.0'");
}

static void test_two_metadata(void **state)
{
	fail_with(*state, "/two_meta-1.0-py3-none-any.whl", -1, -WPE_INTEGRITY, "more than one");
}

static void test_not_found(void **state)
{
	fail_with(*state, "/nothing-1.0-py3-none-any.whl", -1, -WPE_NET, "HTTP 404");
}

static void test_not_a_wheel_name(void **state)
{
	fail_with(*state, "/demo_pkg-1.0.tar.gz", -1, -WPE_PARSE, "demo_pkg-1.0.tar.gz");
}

static void test_no_ranges_small(void **state)
{
	struct fixture *fx = *state;
	const char *path = "/norange/demo_pkg-1.0-py3-none-any.whl";
	struct wp_err err = WP_ERR_INIT;
	struct wp_remote_stats st;
	char *text = NULL;
	int n;
	int rc = remote(fx, path, -1, &text, &st, &err);
	if (rc)
		fail_msg("%s", err.msg);
	assert_non_null(strstr(text, "Requires-Dist: numpy>=1.20\n"));
	free(text);
	assert_int_equal(st.requests, 1);
	assert_int_equal(st.bytes, file_size(fx, path));
	char **lines = logged(fx, path, &n);
	assert_int_equal(n, 1);
	assert_non_null(strstr(lines[0], "\"Range\":\"bytes=-65536\""));
	assert_non_null(strstr(lines[0], "\"status\":200"));
	free_lines(lines);
}

static void test_no_ranges_large(void **state)
{
	struct fixture *fx = *state;
	const char *path = "/norange/huge-1.0-py3-none-any.whl";
	int n;
	fail_with(fx, path, -1, -WPE_TOO_BIG, "does not serve byte ranges");
	char **lines = logged(fx, path, &n);
	assert_int_equal(n, 1);
	free_lines(lines);
}

static void test_file_url_reads_whole(void **state)
{
	struct fixture *fx = *state;
	char url[600];
	struct wp_err err = WP_ERR_INIT;
	struct wp_remote_stats st;
	char *text = NULL;
	snprintf(url, sizeof(url), "file://%s/demo_pkg-1.0-py3-none-any.whl", fx->root);
	assert_int_equal(wp_remote_metadata(&fast, url, "demo_pkg-1.0-py3-none-any.whl", -1, &text,
					    &st, &err),
			 0);
	assert_non_null(strstr(text, "Name: demo-pkg\n"));
	free(text);
}

/* --- zipmeta on bytes in memory, each piece in a heap block of its exact size --- */

static unsigned char *dup_exact(const unsigned char *p, size_t n)
{
	unsigned char *q = wp_xmalloc(n ? n : 1);
	if (n)
		memcpy(q, p, n);
	return q;
}

/* The whole read as remotemeta does it, with file as the remote file and win as the first tail. */
static int pipeline(const unsigned char *file, size_t size, size_t win, const char *project,
		    const char *version, char **text, struct wp_err *err)
{
	struct wp_zip_end end;
	struct wp_zip_member m;
	size_t start = size > win ? size - win : 0, data_at = 0, len;
	uint64_t need = 0;
	int rc;

	*text = NULL;
	for (int i = 0;; i++) {
		unsigned char *w = dup_exact(file + start, size - start);
		rc = wp_zip_end_find("t.whl", w, size - start, size, &end, err);
		free(w);
		if (rc)
			return rc;
		if (!end.need_more)
			break;
		assert_true(end.need_from < start);
		if (i == 2)
			return -100;
		start = (size_t)end.need_from;
	}
	assert_true(end.cd_offset <= size && end.cd_size <= size - end.cd_offset);
	unsigned char *cd = dup_exact(file + end.cd_offset, (size_t)end.cd_size);
	rc = wp_zip_find_metadata("t.whl", cd, (size_t)end.cd_size, &end, project, version, &m,
				  err);
	free(cd);
	if (rc)
		return rc;
	assert_true(m.local_offset < size);
	len = size - (size_t)m.local_offset;
	if (len > 40)
		len = 40; /* short on purpose: the header must ask for the rest */
	for (int i = 0;; i++) {
		unsigned char *b = dup_exact(file + m.local_offset, len);
		rc = wp_zip_local_data("t.whl", b, len, &m, &data_at, &need, err);
		if (rc || !need) {
			if (!rc)
				rc = wp_zip_member_decode("t.whl", b + data_at, (size_t)m.comp_size,
							  &m, text, &len, err);
			free(b);
			return rc;
		}
		free(b);
		assert_true(need > len);
		if (i == 2 || need > size - m.local_offset)
			return -101;
		len = (size_t)need;
	}
}

static unsigned char *load(const struct fixture *fx, const char *name, size_t *n)
{
	char path[600];
	snprintf(path, sizeof(path), "%s/%s", fx->root, name);
	unsigned char *p = (unsigned char *)test_read_file(path, n);
	assert_non_null(p);
	return p;
}

/* Every byte changed (four ways), every truncation and several windows: errors, never a bad
 * read. */
static void hammer(const struct fixture *fx, const char *name, const char *project,
		   const char *version)
{
	size_t n;
	unsigned char *orig = load(fx, name, &n);
	unsigned char *f = wp_xmalloc(n);
	char *text;
	struct wp_err err = WP_ERR_INIT;
	int ok = 0, bad = 0;

	assert_int_equal(pipeline(orig, n, WP_ZIPMETA_TAIL, project, version, &text, &err), 0);
	assert_non_null(strstr(text, "Metadata-Version: 2.1\n"));
	free(text);
	for (size_t win = 22; win < n; win += 37) {
		wp_err_clear(&err);
		assert_int_equal(pipeline(orig, n, win, project, version, &text, &err), 0);
		free(text);
	}
	for (size_t i = 0; i < n; i++) {
		const unsigned char vals[] = { 0x00, 0xFF, (unsigned char)(orig[i] ^ 0x80),
					       (unsigned char)(orig[i] + 1) };
		for (size_t v = 0; v < sizeof(vals); v++) {
			memcpy(f, orig, n);
			f[i] = vals[v];
			wp_err_clear(&err);
			int rc = pipeline(f, n, v & 1 ? 64 : WP_ZIPMETA_TAIL, project, version,
					  &text, &err);
			if (rc == 0) {
				ok++;
				free(text);
			} else {
				bad++;
				if (rc <= -100)
					continue;
				assert_true(err.msg[0]);
			}
		}
	}
	for (size_t cut = 0; cut < n; cut++) {
		wp_err_clear(&err);
		unsigned char *t = dup_exact(orig, cut);
		if (pipeline(t, cut, WP_ZIPMETA_TAIL, project, version, &text, &err) == 0)
			free(text);
		free(t);
	}
	print_message("    %s: %d mutations read, %d refused\n", name, ok, bad);
	assert_true(bad > 0);
	free(f);
	free(orig);
}

static void test_zip_mutations(void **state)
{
	hammer(*state, "demo_pkg-1.0-py3-none-any.whl", "demo-pkg", "1.0");
	hammer(*state, "zip64_all-4.1-py3-none-any.whl", "zip64-all", "4.1");
	hammer(*state, "zip64_sat-4.2-py3-none-any.whl", "zip64-sat", "4.2");
}

static void put16(unsigned char *p, unsigned v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v)
{
	put16(p, v & 0xFFFF);
	put16(p + 2, v >> 16);
}

static void put64(unsigned char *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static void eocd(unsigned char *e, unsigned n, uint32_t cd_size, uint32_t cd_off, unsigned comment)
{
	memset(e, 0, 22);
	put32(e, 0x06054b50);
	put16(e + 8, n);
	put16(e + 10, n);
	put32(e + 12, cd_size);
	put32(e + 16, cd_off);
	put16(e + 20, comment);
}

static int end_of(const unsigned char *p, size_t n, uint64_t size, struct wp_zip_end *end,
		  struct wp_err *err)
{
	unsigned char *w = dup_exact(p, n);
	wp_err_clear(err);
	int rc = wp_zip_end_find("t.whl", w, n, size, end, err);
	free(w);
	return rc;
}

static void test_zip_hostile_end(void **state)
{
	unsigned char b[200] = { 0 };
	struct wp_zip_end end;
	struct wp_err err = WP_ERR_INIT;

	assert_int_equal(end_of(b, 0, 0, &end, &err), -WPE_INTEGRITY);
	assert_int_equal(end_of(b, 21, 21, &end, &err), -WPE_INTEGRITY);
	assert_int_equal(end_of(b, 30, 10, &end, &err), -WPE_INTEGRITY); /* window past the file */

	eocd(b, 0, 0, 0, 5); /* a comment longer than what follows */
	assert_int_equal(end_of(b, 22, 22, &end, &err), -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "no end of central directory"));

	eocd(b, 0, 0, 0, 0); /* an empty zip */
	assert_int_equal(end_of(b, 22, 22, &end, &err), 0);
	assert_int_equal(end.n_entries, 0);

	eocd(b, 1, 46, 0xFFFFFFF0u, 0);
	assert_int_equal(end_of(b, 22, 22, &end, &err), -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "runs past"));

	memset(b, 0, sizeof(b));
	eocd(b + 100, 1000, 46, 0, 0); /* more entries than fit */
	assert_int_equal(end_of(b, 122, 122, &end, &err), -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "cannot fit"));

	eocd(b + 100, 1, 46, 0, 0);
	put16(b + 104, 1); /* disk 1 */
	assert_int_equal(end_of(b, 122, 122, &end, &err), -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "multi-disk"));

	/* zip64: a 200-byte file with its EOCD at 178, the locator at 158, the record at 102 */
	memset(b, 0, sizeof(b));
	eocd(b + 178, 0xFFFF, 0xFFFFFFFFu, 0xFFFFFFFFu, 0); /* saturated, and no locator */
	assert_int_equal(end_of(b, 200, 200, &end, &err), -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "no zip64 locator"));

	/* a locator pointing past itself, then at no record, then before the window */
	unsigned char *l = b + 158;
	put32(l, 0x07064b50);
	put32(l + 16, 1);
	put64(l + 8, UINT64_MAX - 10);
	assert_int_equal(end_of(b, 200, 200, &end, &err), -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "does not fit"));
	put64(l + 8, 60);
	assert_int_equal(end_of(b, 200, 200, &end, &err), -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "no zip64 end record"));
	assert_int_equal(end_of(b + 100, 100, 200, &end, &err), 0);
	assert_true(end.need_more);
	assert_int_equal(end.need_from, 60);
	put32(l + 4, 3); /* on another disk */
	assert_int_equal(end_of(b, 200, 200, &end, &err), -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "multi-disk"));
	put32(l + 4, 0);

	/* a record with a huge directory, one past the record, a length past the locator, a good
	 * one */
	unsigned char *r = b + 102;
	put64(l + 8, 102);
	put32(r, 0x06064b50);
	put64(r + 4, 44);
	put64(r + 24, 1);
	put64(r + 32, 1);
	put64(r + 40, (uint64_t)1 << 40);
	put64(r + 48, 0);
	assert_int_equal(end_of(b, 200, 200, &end, &err), -WPE_TOO_BIG);
	put64(r + 40, 46);
	put64(r + 48, 60);
	assert_int_equal(end_of(b, 200, 200, &end, &err), -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "runs past"));
	put64(r + 48, UINT64_MAX - 20);
	assert_int_equal(end_of(b, 200, 200, &end, &err), -WPE_INTEGRITY);
	put64(r + 48, 0);
	put64(r + 4, UINT64_MAX);
	assert_int_equal(end_of(b, 200, 200, &end, &err), -WPE_INTEGRITY);
	put64(r + 4, 44);
	put64(r + 32, 2); /* entries on this disk != entries */
	assert_int_equal(end_of(b, 200, 200, &end, &err), -WPE_INTEGRITY);
	put64(r + 32, 1);
	assert_int_equal(end_of(b, 200, 200, &end, &err), 0);
	assert_false(end.need_more);
	assert_int_equal(end.cd_size, 46);
	assert_int_equal(end.cd_offset, 0);
	assert_int_equal(end.n_entries, 1);
	/* the EOCD at the window's very start: the locator lies before it */
	assert_int_equal(end_of(b + 178, 22, 200, &end, &err), 0);
	assert_true(end.need_more);
	assert_int_equal(end.need_from, 158);
}

/* One central directory entry for name, with an optional zip64 extra, and its end record. */
static size_t central(unsigned char *b, const char *name, uint16_t flags, uint16_t method,
		      uint32_t csize, uint32_t usize, uint32_t off, const unsigned char *extra,
		      size_t xl)
{
	size_t nl = strlen(name);
	memset(b, 0, 46);
	put32(b, 0x02014b50);
	put16(b + 8, flags);
	put16(b + 10, method);
	put32(b + 20, csize);
	put32(b + 24, usize);
	put16(b + 28, (unsigned)nl);
	put16(b + 30, (unsigned)xl);
	put32(b + 42, off);
	memcpy(b + 46, name, nl);
	if (xl)
		memcpy(b + 46 + nl, extra, xl);
	return 46 + nl + xl;
}

static int find_in(const unsigned char *cd, size_t n, uint64_t entries, uint64_t cd_off,
		   struct wp_zip_member *m, struct wp_err *err)
{
	struct wp_zip_end end = { .cd_offset = cd_off, .cd_size = n, .n_entries = entries };
	unsigned char *c = dup_exact(cd, n);
	wp_err_clear(err);
	int rc = wp_zip_find_metadata("t.whl", c, n, &end, "demo-pkg", "1.0", m, err);
	free(c);
	return rc;
}

static void test_zip_hostile_directory(void **state)
{
	unsigned char b[1024], x[64];
	struct wp_zip_member m;
	struct wp_err err = WP_ERR_INIT;
	const char *meta = "demo_pkg-1.0.dist-info/METADATA";
	size_t n;

	n = central(b, meta, 0, 8, 100, 300, 0, NULL, 0);
	assert_int_equal(find_in(b, n, 1, 1000, &m, &err), 0);
	assert_int_equal(m.comp_size, 100);
	assert_int_equal(find_in(b, n, 2, 1000, &m, &err), -WPE_INTEGRITY); /* a second entry
									       missing */
	assert_int_equal(find_in(b, n - 1, 1, 1000, &m, &err), -WPE_INTEGRITY); /* name cut short */
	assert_int_equal(find_in(b, 45, 1, 1000, &m, &err), -WPE_INTEGRITY);
	assert_int_equal(find_in(b, n, 1, 100, &m, &err), -WPE_INTEGRITY); /* data over the
									      directory */
	assert_non_null(strstr(err.msg, "overlaps"));

	n = central(b, "demo_pkg-1.0.dist-info/RECORD", 0, 8, 100, 300, 0, NULL, 0);
	assert_int_equal(find_in(b, n, 1, 1000, &m, &err), -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "has no"));
	n = central(b, "sub/demo_pkg-1.0.dist-info/METADATA", 0, 8, 100, 300, 0, NULL, 0);
	assert_int_equal(find_in(b, n, 1, 1000, &m, &err), -WPE_INTEGRITY);
	n = central(b, "demo_pkg-1.1.dist-info/METADATA", 0, 8, 100, 300, 0, NULL, 0);
	assert_int_equal(find_in(b, n, 1, 1000, &m, &err), -WPE_INTEGRITY);
	n = central(b, "Demo.PKG-1.0.0.dist-info/METADATA", 0, 8, 100, 300, 0, NULL, 0);
	assert_int_equal(find_in(b, n, 1, 1000, &m, &err), 0); /* PEP 503 and PEP 440 equal */

	n = central(b, meta, 1, 8, 100, 300, 0, NULL, 0);
	assert_int_equal(find_in(b, n, 1, 1000, &m, &err), -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "encrypted"));
	n = central(b, meta, 0, 14, 100, 300, 0, NULL, 0);
	assert_int_equal(find_in(b, n, 1, 1000, &m, &err), -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "method 14"));
	n = central(b, meta, 0, 0, 100, 300, 0, NULL, 0);
	assert_int_equal(find_in(b, n, 1, 1000, &m, &err), -WPE_INTEGRITY); /* stored, sizes differ
									     */
	n = central(b, meta, 0, 8, 100, 17u << 20, 0, NULL, 0);
	assert_int_equal(find_in(b, n, 1, 1u << 30, &m, &err), -WPE_TOO_BIG);

	/* zip64 sizes: saturated fields need the extra, in its order, and within it */
	memset(x, 0, sizeof(x));
	put16(x, 1);
	put16(x + 2, 16);
	put64(x + 4, 300);
	put64(x + 12, 100);
	n = central(b, meta, 0, 8, 0xFFFFFFFFu, 0xFFFFFFFFu, 0, x, 20);
	assert_int_equal(find_in(b, n, 1, 1000, &m, &err), 0);
	assert_int_equal(m.size, 300);
	assert_int_equal(m.comp_size, 100);
	n = central(b, meta, 0, 8, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, x, 20); /* offset missing
										   */
	assert_int_equal(find_in(b, n, 1, 1000, &m, &err), -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "zip64"));
	put16(x + 2, 200); /* an extra longer than the field */
	n = central(b, meta, 0, 8, 0xFFFFFFFFu, 0xFFFFFFFFu, 0, x, 20);
	assert_int_equal(find_in(b, n, 1, 1000, &m, &err), -WPE_INTEGRITY);
	put16(x + 2, 16);
	put64(x + 12, UINT64_MAX); /* a compressed size that wraps */
	n = central(b, meta, 0, 8, 0xFFFFFFFFu, 0xFFFFFFFFu, 0, x, 20);
	assert_int_equal(find_in(b, n, 1, 1000, &m, &err), -WPE_TOO_BIG);
	put64(x + 12, 100);
	put16(x, 0x5455); /* another extra first, then ours */
	put16(x + 2, 0);
	put16(x + 4, 1);
	put16(x + 6, 16);
	put64(x + 8, 300);
	put64(x + 16, 100);
	n = central(b, meta, 0, 8, 0xFFFFFFFFu, 0xFFFFFFFFu, 0, x, 24);
	assert_int_equal(find_in(b, n, 1, 1000, &m, &err), 0);
	assert_int_equal(m.comp_size, 100);
	/* an offset that wraps around the end of uint64 */
	put16(x, 1);
	put16(x + 2, 8);
	put64(x + 4, UINT64_MAX - 5);
	n = central(b, meta, 0, 8, 100, 300, 0xFFFFFFFFu, x, 12);
	assert_int_equal(find_in(b, n, 1, 1000, &m, &err), -WPE_INTEGRITY);

	/* two of them */
	n = central(b, meta, 0, 8, 100, 300, 0, NULL, 0);
	n += central(b + n, meta, 0, 8, 100, 300, 200, NULL, 0);
	assert_int_equal(find_in(b, n, 2, 1000, &m, &err), -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "more than one"));
}

static size_t deflate_raw(const char *in, size_t n, unsigned char *out, size_t cap)
{
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	assert_int_equal(deflateInit2(&zs, 9, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = (Bytef *)(uintptr_t)in;
	zs.avail_in = (uInt)n;
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	size_t got = zs.total_out;
	deflateEnd(&zs);
	return got;
}

static int decode(const unsigned char *data, size_t n, const struct wp_zip_member *m, char **out,
		  struct wp_err *err)
{
	unsigned char *d = dup_exact(data, n);
	size_t len;
	wp_err_clear(err);
	int rc = wp_zip_member_decode("t.whl", d, n, m, out, &len, err);
	free(d);
	return rc;
}

static void test_zip_decode(void **state)
{
	const char *
		text = "Metadata-Version: 2.1\nName: demo-pkg\nVersion: 1.0\n\n"
		       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n";
	size_t tn = strlen(text);
	unsigned char z[512];
	size_t zn = deflate_raw(text, tn, z, sizeof(z));
	struct wp_zip_member m = { .method = 8, .comp_size = zn, .size = tn,
				   .crc32 = (uint32_t)crc32(0, (const Bytef *)text, (uInt)tn) };
	struct wp_err err = WP_ERR_INIT;
	char *out = NULL;

	assert_int_equal(decode(z, zn, &m, &out, &err), 0);
	assert_string_equal(out, text);
	free(out);

	m.size = tn - 10; /* inflates past what the entry declares: a bomb stops at the size */
	assert_int_equal(decode(z, zn, &m, &out, &err), -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "more than"));
	m.size = tn + 10;
	assert_int_equal(decode(z, zn, &m, &out, &err), -WPE_INTEGRITY);
	m.size = tn;
	m.comp_size = zn - 3; /* cut short */
	assert_int_equal(decode(z, zn - 3, &m, &out, &err), -WPE_INTEGRITY);
	m.comp_size = zn;
	z[zn / 2] ^= 0x55; /* garbled */
	assert_int_not_equal(decode(z, zn, &m, &out, &err), 0);
	z[zn / 2] ^= 0x55;
	m.crc32 ^= 1;
	assert_int_equal(decode(z, zn, &m, &out, &err), -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "CRC-32"));
	m.crc32 ^= 1;
	assert_int_equal(decode(z, zn - 1, &m, &out, &err), -WPE_USAGE); /* not what the entry says
									  */

	struct wp_zip_member s = { .method = 0, .comp_size = tn, .size = tn,
				   .crc32 = (uint32_t)crc32(0, (const Bytef *)text, (uInt)tn) };
	assert_int_equal(decode((const unsigned char *)text, tn, &s, &out, &err), 0);
	assert_string_equal(out, text);
	free(out);
	s.size = tn - 1;
	assert_int_equal(decode((const unsigned char *)text, tn, &s, &out, &err), -WPE_INTEGRITY);
	s.size = tn;
	s.method = 12;
	assert_int_equal(decode((const unsigned char *)text, tn, &s, &out, &err), -WPE_INTEGRITY);
	assert_null(out);
}

static void test_zip_hostile_local(void **state)
{
	unsigned char b[200];
	const char *name = "demo_pkg-1.0.dist-info/METADATA";
	struct wp_zip_member m = {
		.method = 8, .comp_size = 10, .size = 20, .name_len = (uint16_t)strlen(name)
	};
	struct wp_err err = WP_ERR_INIT;
	size_t at;
	uint64_t need;
	memcpy(m.name, name, m.name_len + 1);

	memset(b, 0, sizeof(b));
	put32(b, 0x04034b50);
	put16(b + 8, 8);
	put16(b + 26, m.name_len);
	put16(b + 28, 0xFFFF); /* a long extra: ask for more, never read it from here */
	memcpy(b + 30, name, m.name_len);
	unsigned char *d = dup_exact(b, 100);
	assert_int_equal(wp_zip_local_data("t.whl", d, 100, &m, &at, &need, &err), 0);
	assert_int_equal(need, 30 + m.name_len + 0xFFFF + 10);
	assert_int_equal(wp_zip_local_data("t.whl", d, 29, &m, &at, &need, &err), 0);
	assert_true(need > 29);
	free(d);

	put16(b + 28, 0);
	d = dup_exact(b, 30 + m.name_len + 10);
	assert_int_equal(wp_zip_local_data("t.whl", d, 30 + m.name_len + 10, &m, &at, &need, &err),
			 0);
	assert_int_equal(need, 0);
	assert_int_equal(at, 30 + m.name_len);
	d[31] = 'X'; /* another name */
	assert_int_equal(wp_zip_local_data("t.whl", d, 30 + m.name_len + 10, &m, &at, &need, &err),
			 -WPE_INTEGRITY);
	d[31] = name[1];
	d[8] = 0; /* another method */
	assert_int_equal(wp_zip_local_data("t.whl", d, 30 + m.name_len + 10, &m, &at, &need, &err),
			 -WPE_INTEGRITY);
	d[8] = 8;
	d[0] = 'X';
	wp_err_clear(&err);
	assert_int_equal(wp_zip_local_data("t.whl", d, 30 + m.name_len + 10, &m, &at, &need, &err),
			 -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "no local header"));
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_one_request),
		cmocka_unit_test(test_big_member_two_requests),
		cmocka_unit_test(test_big_directory_three_requests),
		cmocka_unit_test(test_zip64_local_only),
		cmocka_unit_test(test_long_local_extra),
		cmocka_unit_test(test_zip64_records),
		cmocka_unit_test(test_names_normalised),
		cmocka_unit_test(test_size_from_index),
		cmocka_unit_test(test_bad_crc),
		cmocka_unit_test(test_no_metadata),
		cmocka_unit_test(test_eocd_out_of_bounds),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_wrong_name),
		cmocka_unit_test(test_two_metadata),
		cmocka_unit_test(test_not_found),
		cmocka_unit_test(test_not_a_wheel_name),
		cmocka_unit_test(test_no_ranges_small),
		cmocka_unit_test(test_no_ranges_large),
		cmocka_unit_test(test_file_url_reads_whole),
		cmocka_unit_test(test_zip_mutations),
		cmocka_unit_test(test_zip_hostile_end),
		cmocka_unit_test(test_zip_hostile_directory),
		cmocka_unit_test(test_zip_decode),
		cmocka_unit_test(test_zip_hostile_local),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
