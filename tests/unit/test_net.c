/* tests/unit/test_net.c: net/ against tests/server/faultserver.py on loopback: retries, resume,
 * caps, TLS. */
#include "base/buf.h"
#include "base/err.h"
#include "base/mem.h"
#include "net/auth.h"
#include "net/download.h"
#include "net/http.h"
#include "net/s3.h"
#include "index/s3xml.h"

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
#include <pthread.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The run's settings, handed to net/ as a value with each request (net/ reads no variable): short
 * waits between tries. A test that needs more (a CA, a timeout, a trusted host) copies it. */
static const struct wp_net_conf fast = { .retry_base_ms = 20, .retry_base_set = true };
static const struct wp_dl_opts fast_dl = { .policy.conf = &fast };

#define BIG_SIZE     300000
#define DROP_AT      100000
#define N_PARALLEL   16
#define SERVER_SECS  "60"

struct server {
	pid_t pid;
	int port;
	char log[512];
};

struct fixture {
	char dir[256];
	char root[300];
	char script[300];
	char ca[300];
	struct server http;
	struct server https;
	struct server https2;  /* another origin with the same certificate */
	struct server h10; /* `python3 -m http.server`'s ways: HTTP/1.0, a listen backlog of 1 */
};

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The same bytes every time for a given seed, so downloads can be compared. */
static unsigned char *pattern(size_t n, uint32_t seed)
{
	unsigned char *p = wp_xmalloc(n);
	uint32_t x = seed * 2654435761u + 1;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (unsigned char)x;
	}
	return p;
}

/* Written whole and renamed into place: the server re-reads its script on every request. */
static void write_file(const char *dir, const char *name, const void *p, size_t n)
{
	char path[512], tmp[520];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = fopen(tmp, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(rename(tmp, path), 0);
}

/* Run argv with stdout and stderr to /dev/null; the exit status, or -1. */
static int run_quiet(char *const argv[])
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int start_server_as(struct fixture *fx, struct server *s, const char *name, bool tls,
			   bool h10)
{
	char port_file[512], cert[512], key[512];
	snprintf(s->log, sizeof(s->log), "%s/%s.log", fx->dir, name);
	snprintf(port_file, sizeof(port_file), "%s/%s.port", fx->dir, name);
	snprintf(cert, sizeof(cert), "%s/srv.pem", fx->dir);
	snprintf(key, sizeof(key), "%s/srv.key", fx->dir);
	char *argv[] = {
		"python3",
		"tests/server/faultserver.py",
		"--root",
		fx->root,
		"--script",
		fx->script,
		"--log",
		s->log,
		"--port-file",
		port_file,
		"--max-seconds",
		SERVER_SECS,
		h10 ? "--http10" :
		tls ? "--tls" :
		      NULL,
		h10 ? "--backlog" : cert,
		h10 ? "1" : key,
		NULL,
	};

	return faultserver_start(argv, port_file, &s->pid, &s->port);
}

static int start_server(struct fixture *fx, struct server *s, const char *name, bool tls)
{
	return start_server_as(fx, s, name, tls, false);
}

static void stop_server(struct server *s)
{
	faultserver_stop(&s->pid);
}

static void url_of(char *out, size_t n, const struct server *s, const char *scheme,
		   const char *path)
{
	snprintf(out, n, "%s://127.0.0.1:%d%s", scheme, s->port, path);
}

/* The n-th logged request (from 0) to path, or NULL; the caller frees it. */
static char *logged(const struct server *s, const char *path, int n)
{
	char *log = test_read_file(s->log, NULL);
	char needle[300];
	char *found = NULL;
	snprintf(needle, sizeof(needle), "\"path\":\"%s\"", path);
	for (char *line = log, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (strstr(line, needle) && n-- == 0) {
			found = wp_xstrdup(line);
			break;
		}
	}
	free(log);
	return found;
}

static int logged_count(const struct server *s, const char *path)
{
	int n = 0;
	char *line;
	while ((line = logged(s, path, n))) {
		free(line);
		n++;
	}
	return n;
}

static void assert_logged_has(const struct server *s, const char *path, int n, const char *text)
{
	char *line = logged(s, path, n);
	assert_non_null(line);
	if (!strstr(line, text))
		fail_msg("request %d to %s lacks %s: %s", n, path, text, line);
	free(line);
}

static void assert_logged_lacks(const struct server *s, const char *path, int n, const char *text)
{
	char *line = logged(s, path, n);
	assert_non_null(line);
	if (strstr(line, text))
		fail_msg("request %d to %s has %s: %s", n, path, text, line);
	free(line);
}

static void assert_msg_has(const struct wp_err *err, const char *text)
{
	if (!strstr(err->msg, text))
		fail_msg("error message lacks '%s': %s", text, err->msg);
}

struct mem_sink {
	struct wp_buf buf;
	int resets;
};

static int mem_write(void *ctx, const void *p, size_t n, struct wp_err *err)
{
	struct mem_sink *k = ctx;
	if (wp_buf_add(&k->buf, p, n) < 0)
		return wp_fail(err, -WPE_TOO_BIG, "test sink is full");
	return 0;
}

static int mem_reset(void *ctx, long long offset, struct wp_err *err)
{
	struct mem_sink *k = ctx;
	k->resets++;
	k->buf.len = (size_t)offset;
	return 0;
}

static int download_one(const char *url, long long expect, struct mem_sink *k,
			const struct wp_dl_opts *opts, struct wp_download *out)
{
	*k = (struct mem_sink){ .buf = WP_BUF_INIT_MAX(64 << 20) };
	*out = (struct wp_download){ .url = url, .expect_size = expect, .write = mem_write,
				     .reset = mem_reset, .ctx = k };
	return wp_download_run(out, 1, opts ? opts : &fast_dl, NULL, NULL);
}

static void write_script(struct fixture *fx)
{
	char buf[4096];
	int n = snprintf(buf, sizeof(buf),
			 "{\n"
			 " \"/etag.html\": {\"etag\": \"\\\"v1\\\"\"},\n"
			 " \"/etag-file.html\": {\"etag\": \"\\\"f1\\\"\"},\n"
			 " \"/gz.html\": {\"gzip\": true},\n"
			 " \"/moved\": {\"redirect\": \"/a.txt\"},\n"
			 " \"/flaky\": {\"status\": [500, 200], \"body\": \"ok after 500\\n\"},\n"
			 " \"/busy\": {\"status\": [429, 200], \"retry_after\": 1, \"body\": \"ok after 429\\n\"},\n"
			 " \"/down\": {\"status\": [503]},\n"
			 " \"/bomb\": {\"gzip_bomb\": 64},\n"
			 " \"/slow.bin\": {\"trickle\": 2000},\n"
			 " \"/drip.bin\": {\"trickle\": 200},\n"
			 " \"/longwait\": {\"status\": [503], \"retry_after\": 86400},\n"
			 " \"/drop.bin\": {\"drop_after\": %d, \"times\": 1},\n"
			 " \"/norange.bin\": {\"drop_after\": %d, \"times\": 1, \"ignore_range\": true},\n"
			 " \"/badrange.bin\": {\"drop_after\": %d, \"times\": 1, \"bad_range_offset\": 1000},\n"
			 " \"/wronglen.bin\": {\"wrong_length\": 5000, \"times\": 3},\n"
			 " \"/skip.bin\": {\"drop_after\": %d, \"times\": 1, \"range_skip\": 1000},\n"
			 " \"/skipnl.bin\": {\"drop_after\": %d, \"times\": 1, \"range_skip\": 1000, \"no_length\": true},\n"
			 " \"/whole.bin\": {\"ignore_range\": true},\n"
			 " \"/head405.bin\": {\"head_status\": 405},\n"
			 " \"/headnolen.bin\": {\"head_no_length\": true},\n"
			 " \"/headlie.bin\": {\"head_length\": 7},\n"
			 " \"/ifrange.bin\": {\"etag\": \"\\\"r1\\\"\"},\n"
			 " \"/downgrade\": {\"redirect\": \"http://127.0.0.1:%d/a.txt\"},\n"
			 " \"/elsewhere\": {\"redirect\": \"https://127.0.0.1:%d/a.txt\"},\n"
			 " \"/elsewhere-307\": {\"redirect\": \"https://localhost:%d/a.txt\", \"redirect_status\": 307},\n"
			 " \"/twice\": {\"redirect\": \"/moved\"}\n"
			 "}\n",
			 DROP_AT, DROP_AT, DROP_AT, DROP_AT, DROP_AT, fx->http.port,
			 fx->https2.port, fx->https2.port);
	assert_true(n > 0 && (size_t)n < sizeof(buf));
	write_file(fx->dir, "script.json", buf, (size_t)n);
}

static int make_certs(struct fixture *fx)
{
	char cmd[2048];
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && "
		 "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key "
		 "-out ca.pem -days 2 -subj /CN=wheelpick-test-ca "
		 "-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign && "
		 "openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout srv.key "
		 "-out srv.csr -subj /CN=127.0.0.1 && "
		 "printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\nbasicConstraints=CA:FALSE\\n"
		 "extendedKeyUsage=serverAuth\\n' > srv.ext && "
		 "openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out srv.pem "
		 "-days 2 -extfile srv.ext",
		 fx->dir);
	char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	snprintf(fx->ca, sizeof(fx->ca), "%s/ca.pem", fx->dir);
	return run_quiet(argv);
}

static int group_setup(void **state)
{
	struct fixture *fx = wp_xcalloc(1, sizeof(*fx));
	*state = fx;

	/* only our loopback server: libcurl's own proxy variables (the run's settings come as a
	 * value) */
	static const char *const unset[] = { "http_proxy",  "https_proxy", "HTTP_PROXY",
					     "HTTPS_PROXY", "all_proxy",   "ALL_PROXY" };
	for (size_t i = 0; i < WP_ARRAY_LEN(unset); i++)
		unsetenv(unset[i]);
	setenv("no_proxy", "127.0.0.1,localhost", 1);
	setenv("NO_PROXY", "127.0.0.1,localhost", 1);

	if (test_tmpdir_make(fx->dir, sizeof(fx->dir), "test_net") < 0)
		return -1;
	snprintf(fx->root, sizeof(fx->root), "%s/root", fx->dir);
	snprintf(fx->script, sizeof(fx->script), "%s/script.json", fx->dir);
	if (mkdir(fx->root, 0755) < 0)
		return -1;

	const char *hello = "hello from wheelpick\n";
	write_file(fx->root, "a.txt", hello, strlen(hello));
	struct wp_buf page = WP_BUF_INIT;
	wp_buf_addstr(&page, "<!DOCTYPE html><html><body>\n");
	for (int i = 0; i < 400; i++)
		wp_buf_printf(&page,
			      "<a href=\"torch-2.%d.0+cu121-cp311-cp311-linux_x86_64.whl\">x</a><br>\n",
			      i);
	wp_buf_addstr(&page, "</body></html>\n");
	write_file(fx->root, "gz.html", page.data, page.len);
	write_file(fx->root, "page.html", page.data, page.len);
	write_file(fx->root, "etag.html", page.data, page.len);
	write_file(fx->root, "etag-file.html", page.data, page.len);
	wp_buf_free(&page);

	unsigned char *big = pattern(BIG_SIZE, 7);
	static const char *const bigs[] = { "drop.bin",     "norange.bin",   "badrange.bin",
					    "wronglen.bin", "slow.bin",      "plain.bin",
					    "ranged.bin",   "whole.bin",     "drip.bin",
					    "head405.bin",  "headnolen.bin", "headlie.bin",
					    "ifrange.bin",  "skip.bin",      "skipnl.bin" };
	for (size_t i = 0; i < WP_ARRAY_LEN(bigs); i++)
		write_file(fx->root, bigs[i], big, BIG_SIZE);
	free(big);
	for (int i = 0; i < N_PARALLEL; i++) {
		char name[32];
		size_t n = 20000 * (size_t)(i + 1) + (size_t)i * 37;
		unsigned char *p = pattern(n, (uint32_t)(100 + i));
		snprintf(name, sizeof(name), "f%02d.bin", i);
		write_file(fx->root, name, p, n);
		free(p);
	}

	if (make_certs(fx) != 0)
		return -1;
	write_file(fx->dir, "script.json", "{}", 2);
	if (start_server(fx, &fx->http, "http", false) < 0)
		return -1;
	if (start_server(fx, &fx->https, "https", true) < 0 ||
	    start_server(fx, &fx->https2, "https2", true) < 0 ||
	    start_server_as(fx, &fx->h10, "h10", false, true) < 0)
		return -1;
	write_script(fx);
	return 0;
}

static int group_teardown(void **state)
{
	struct fixture *fx = *state;
	if (!fx)
		return 0;
	stop_server(&fx->http);
	stop_server(&fx->https);
	stop_server(&fx->https2);
	stop_server(&fx->h10);
	test_tmpdir_remove(fx->dir);
	free(fx);
	return 0;
}

static void test_file_url(void **state)
{
	struct fixture *fx = *state;
	char url[600];
	struct wp_http_res res;
	struct wp_err err = WP_ERR_INIT;
	snprintf(url, sizeof(url), "file://%s/a.txt", fx->root);
	struct wp_http_req req = { .policy.conf = &fast, .url = url };

	assert_int_equal(wp_http_get(&req, &res, &err), 0);
	assert_string_equal(wp_buf_cstr(&res.body), "hello from wheelpick\n");
	assert_false(res.not_modified);
	wp_http_res_release(&res);

	snprintf(url, sizeof(url), "file://%s/nothing-here.txt", fx->root);
	assert_int_equal(wp_http_get(&req, &res, &err), -WPE_NET);
	assert_msg_has(&err, "nothing-here.txt");
	wp_http_res_release(&res);
}

static void test_etag_304(void **state)
{
	struct fixture *fx = *state;
	char url[300];
	struct wp_http_res res, again;
	struct wp_err err = WP_ERR_INIT;
	url_of(url, sizeof(url), &fx->http, "http", "/etag.html");
	struct wp_http_req req = { .policy.conf = &fast, .url = url };

	assert_int_equal(wp_http_get(&req, &res, &err), 0);
	assert_int_equal(res.status, 200);
	assert_non_null(res.etag);
	assert_string_equal(res.etag, "\"v1\"");
	assert_non_null(res.last_modified);
	assert_true(res.body.len > 1000);

	req.etag = res.etag;
	assert_int_equal(wp_http_get(&req, &again, &err), 0);
	assert_true(again.not_modified);
	assert_int_equal(again.status, 304);
	assert_int_equal(again.body.len, 0);
	assert_string_equal(again.etag, "\"v1\"");
	assert_logged_has(&fx->http, "/etag.html", 1, "\"If-None-Match\":\"\\\"v1\\\"\"");
	assert_logged_has(&fx->http, "/etag.html", 0, "\"User-Agent\":\"wheelpick/");
	wp_http_res_release(&again);
	wp_http_res_release(&res);
}

static void test_gzip_decoded(void **state)
{
	struct fixture *fx = *state;
	char url[300], path[600];
	struct wp_http_res res;
	struct wp_err err = WP_ERR_INIT;
	url_of(url, sizeof(url), &fx->http, "http", "/gz.html");
	struct wp_http_req req = { .policy.conf = &fast, .url = url, .accept = "text/html" };
	size_t len;
	snprintf(path, sizeof(path), "%s/gz.html", fx->root);
	char *want = test_read_file(path, &len);

	assert_int_equal(wp_http_get(&req, &res, &err), 0);
	assert_int_equal(res.body.len, len);
	assert_memory_equal(res.body.data, want, len);
	assert_logged_has(&fx->http, "/gz.html", 0, "gzip");
	assert_logged_has(&fx->http, "/gz.html", 0, "\"Accept\":\"text/html\"");
	free(want);
	wp_http_res_release(&res);
}

static void test_redirect(void **state)
{
	struct fixture *fx = *state;
	char url[300];
	struct wp_http_res res;
	struct wp_err err = WP_ERR_INIT;
	url_of(url, sizeof(url), &fx->http, "http", "/moved");
	struct wp_http_req req = { .policy.conf = &fast, .url = url };

	assert_int_equal(wp_http_get(&req, &res, &err), 0);
	assert_string_equal(wp_buf_cstr(&res.body), "hello from wheelpick\n");
	assert_non_null(res.effective_url);
	assert_non_null(strstr(res.effective_url, "/a.txt"));
	wp_http_res_release(&res);
}

static void test_404(void **state)
{
	struct fixture *fx = *state;
	char url[300];
	struct wp_http_res res;
	struct wp_err err = WP_ERR_INIT;
	url_of(url, sizeof(url), &fx->http, "http", "/missing.html");
	struct wp_http_req req = { .policy.conf = &fast, .url = url };

	assert_int_equal(wp_http_get(&req, &res, &err), -WPE_NET);
	assert_msg_has(&err, "404");
	assert_msg_has(&err, url);
	assert_int_equal(res.status, 404);
	assert_int_equal(logged_count(&fx->http, "/missing.html"), 1);
	wp_http_res_release(&res);
}

static void test_500_then_200(void **state)
{
	struct fixture *fx = *state;
	char url[300];
	struct wp_http_res res;
	struct wp_err err = WP_ERR_INIT;
	url_of(url, sizeof(url), &fx->http, "http", "/flaky");
	struct wp_http_req req = { .policy.conf = &fast, .url = url };

	assert_int_equal(wp_http_get(&req, &res, &err), 0);
	assert_string_equal(wp_buf_cstr(&res.body), "ok after 500\n");
	assert_int_equal(res.tries, 2);
	assert_int_equal(logged_count(&fx->http, "/flaky"), 2);
	wp_http_res_release(&res);
}

static void test_429_retry_after(void **state)
{
	struct fixture *fx = *state;
	char url[300];
	struct wp_http_res res;
	struct wp_err err = WP_ERR_INIT;
	url_of(url, sizeof(url), &fx->http, "http", "/busy");
	struct wp_http_req req = { .policy.conf = &fast, .url = url };

	long long t0 = now_ms();
	assert_int_equal(wp_http_get(&req, &res, &err), 0);
	long long took = now_ms() - t0;
	assert_string_equal(wp_buf_cstr(&res.body), "ok after 429\n");
	assert_true(took >= 900);   /* Retry-After: 1, not the 20 ms backoff */
	assert_true(took < 5000);
	wp_http_res_release(&res);
}

static void test_503_bounded(void **state)
{
	struct fixture *fx = *state;
	char url[300];
	struct wp_http_res res;
	struct wp_err err = WP_ERR_INIT;
	url_of(url, sizeof(url), &fx->http, "http", "/down");
	struct wp_http_req req = { .policy.conf = &fast, .url = url };

	assert_int_equal(wp_http_get(&req, &res, &err), -WPE_NET);
	assert_msg_has(&err, "HTTP 503");
	assert_msg_has(&err, "3 tries");
	assert_int_equal(logged_count(&fx->http, "/down"), WP_NET_TRIES);
	wp_http_res_release(&res);
}

static void test_refused(void **state)
{
	char url[300];
	struct wp_http_res res;
	struct wp_err err = WP_ERR_INIT;
	/* a port that was free a moment ago */
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
	close(fd);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/x", ntohs(sa.sin_port));
	struct wp_http_req req = { .policy.conf = &fast, .url = url, .policy.max_tries = 2 };

	assert_int_equal(wp_http_get(&req, &res, &err), -WPE_NET);
	assert_msg_has(&err, url);
	assert_msg_has(&err, "2 tries");
	wp_http_res_release(&res);
}

static void test_cap_plain(void **state)
{
	struct fixture *fx = *state;
	char url[300];
	struct wp_http_res res;
	struct wp_err err = WP_ERR_INIT;
	url_of(url, sizeof(url), &fx->http, "http", "/page.html");
	struct wp_http_req req = { .policy.conf = &fast, .url = url, .max_bytes = 1000 };

	assert_int_equal(wp_http_get(&req, &res, &err), -WPE_TOO_BIG);
	assert_msg_has(&err, "page.html");
	assert_int_equal(res.body.len, 0);
	wp_http_res_release(&res);
}

static void test_gzip_bomb(void **state)
{
	struct fixture *fx = *state;
	char url[300];
	struct wp_http_res res;
	struct wp_err err = WP_ERR_INIT;
	url_of(url, sizeof(url), &fx->http, "http", "/bomb");
	struct wp_http_req req = { .policy.conf = &fast, .url = url, .max_bytes = 1 << 20 };

	assert_int_equal(wp_http_get(&req, &res, &err), -WPE_TOO_BIG);
	assert_msg_has(&err, "/bomb");
	assert_int_equal(logged_count(&fx->http, "/bomb"), 1);
	wp_http_res_release(&res);
}

static void test_slow_trickle(void **state)
{
	struct fixture *fx = *state;
	char url[300];
	struct mem_sink k;
	struct wp_download d;
	url_of(url, sizeof(url), &fx->http, "http", "/slow.bin");
	struct wp_dl_opts opts = { .policy = { .conf = &fast,
					       .low_speed_bytes = 100000,
					       .low_speed_time_s = 1,
					       .max_tries = 2 } };

	long long t0 = now_ms();
	assert_int_equal(download_one(url, BIG_SIZE, &k, &opts, &d), -WPE_NET);
	long long took = now_ms() - t0;
	assert_true(took < 8000);
	assert_int_equal(d.result, -WPE_NET);
	assert_int_equal(d.tries, 2);
	assert_msg_has(&d.err, "slow.bin");
	wp_buf_free(&k.buf);
}

/* Above the stall limit for ever, under the overall rate: the deadline ends it, tries and all. */
static void test_deadline(void **state)
{
	struct fixture *fx = *state;
	char url[300];
	struct mem_sink k;
	struct wp_download d;
	url_of(url, sizeof(url), &fx->http, "http", "/drip.bin");
	struct wp_dl_opts opts = {
		.policy = { .conf = &fast, .deadline_grace_s = 2, .min_rate = 100000 }
	};
	long long t0 = now_ms();
	assert_int_equal(download_one(url, BIG_SIZE, &k, &opts, &d), -WPE_NET);
	long long took = now_ms() - t0;
	if (!(took >= 1900 && took < 6000))
		fail_msg("took %lld ms: %s", took, d.err.msg);
	assert_msg_has(&d.err, "too slow");
	assert_msg_has(&d.err, "drip.bin");
	wp_buf_free(&k.buf);
}

/* A Retry-After of a day is cut to the cap (the configured timeout when smaller), and the failure
 * says what the server asked for. A setting cli/ found garbage fails every transfer naming it, and
 * an unreadable CA bundle each https one, naming where it came from. */
static void test_retry_after_capped_and_env(void **state)
{
	struct fixture *fx = *state;
	char url[300];
	struct wp_http_req req = { .policy.conf = &fast };
	struct wp_http_res res;
	struct wp_err err = WP_ERR_INIT;
	url_of(url, sizeof(url), &fx->http, "http", "/longwait");
	req.url = url;
	req.policy.max_tries = 2;
	struct wp_net_conf c = fast;
	c.timeout_s = 1;
	req.policy.conf = &c;
	long long t0 = now_ms();
	assert_int_equal(wp_http_get(&req, &res, &err), -WPE_NET);
	assert_true(now_ms() - t0 < 5000);
	assert_msg_has(&err, "asked to wait 86400 s");
	wp_http_res_release(&res);
	struct wp_net_conf garbage = fast;
	garbage.bad = "WHEELPICK_TIMEOUT='5m' is not a whole number from 1 to 86400";
	req.policy.conf = &garbage;
	struct wp_err e = WP_ERR_INIT;
	assert_int_equal(wp_http_get(&req, &res, &e), -WPE_USAGE);
	assert_msg_has(&e, "WHEELPICK_TIMEOUT='5m'");
	wp_http_res_release(&res);
	struct wp_net_conf noca = fast;
	noca.ca_file = "/nonexistent/ca.pem";
	noca.ca_origin = "WHEELPICK_CA_BUNDLE";
	req.policy.conf = &noca;
	char https[300];
	url_of(https, sizeof(https), &fx->https, "https", "/a.txt");
	req.url = https;
	wp_err_clear(&e);
	assert_int_equal(wp_http_get(&req, &res, &e), -WPE_USAGE);
	assert_msg_has(&e, "'/nonexistent/ca.pem' (WHEELPICK_CA_BUNDLE) is not a readable file");
	wp_http_res_release(&res);
}

static void check_big(const struct mem_sink *k)
{
	unsigned char *want = pattern(BIG_SIZE, 7);
	assert_int_equal(k->buf.len, BIG_SIZE);
	assert_memory_equal(k->buf.data, want, BIG_SIZE);
	free(want);
}

static void test_resume_after_drop(void **state)
{
	struct fixture *fx = *state;
	char url[300], range[64];
	struct mem_sink k;
	struct wp_download d;
	url_of(url, sizeof(url), &fx->http, "http", "/drop.bin");

	assert_int_equal(download_one(url, BIG_SIZE, &k, NULL, &d), 0);
	check_big(&k);
	assert_int_equal(k.resets, 0);
	assert_int_equal(d.tries, 2);
	assert_int_equal(d.received, BIG_SIZE);
	assert_int_equal(d.status, 206);
	assert_logged_lacks(&fx->http, "/drop.bin", 0, "Range");
	snprintf(range, sizeof(range), "\"Range\":\"bytes=%d-\"", DROP_AT);
	assert_logged_has(&fx->http, "/drop.bin", 1, range);
	assert_logged_has(&fx->http, "/drop.bin", 1, "\"status\":206");
	wp_buf_free(&k.buf);
}

/* Sizes by HEAD, for a plan's total: what the server announces, or -1 when it does not say. */
static void test_probe_sizes(void **state)
{
	struct fixture *fx = *state;
	char u[6][300];
	url_of(u[0], sizeof(u[0]), &fx->http, "http", "/plain.bin");
	url_of(u[1], sizeof(u[1]), &fx->http, "http", "/head405.bin");
	url_of(u[2], sizeof(u[2]), &fx->http, "http", "/headnolen.bin");
	url_of(u[3], sizeof(u[3]), &fx->http, "http", "/headlie.bin");
	url_of(u[4], sizeof(u[4]), &fx->http, "http", "/nosuch.bin");
	snprintf(u[5], sizeof(u[5]), "file://%s/a.txt", fx->root);
	const char *urls[6] = { u[0], u[1], u[2], u[3], u[4], u[5] };
	long long sizes[6];
	int before = logged_count(&fx->http, "/plain.bin");

	wp_download_probe_sizes(urls, 6, sizes, &fast_dl);
	assert_int_equal(sizes[0], BIG_SIZE);
	assert_int_equal(sizes[1], -1); /* refuses HEAD */
	assert_int_equal(sizes[2], -1); /* no length */
	assert_int_equal(sizes[3], 7);  /* a lie is what it says: the caller only shows it */
	assert_int_equal(sizes[4], -1);
	assert_int_equal(sizes[5], (long long)strlen("hello from wheelpick\n"));
	/* one try each: a 405 is not retried (the server logs HEADs apart from GETs) */
	char head_log[600];
	snprintf(head_log, sizeof(head_log), "%s.head", fx->http.log);
	char *heads = test_read_file(head_log, NULL);
	assert_non_null(heads);
	int n405 = 0;
	for (char *p = heads; (p = strstr(p, "\"path\":\"/head405.bin\"")); p++)
		n405++;
	assert_int_equal(n405, 1);
	free(heads);
	assert_int_equal(logged_count(&fx->http, "/plain.bin"), before);
}

struct validated_sink {
	struct mem_sink k; /* first: mem_write and mem_reset take it */
	char seen[64];
};

static void validated_cb(void *ctx, const char *v, long long total)
{
	(void)total;
	struct validated_sink *vs = ctx;
	snprintf(vs->seen, sizeof(vs->seen), "%s", v ? v : "(none)");
}

/* A resume across runs names the version its bytes came under: If-Range; a 206 continues them, a
 * 200 (the file changed) starts the sink over, and the sink hears the new validator first. */
static void test_resume_if_range(void **state)
{
	struct fixture *fx = *state;
	char url[300];
	struct validated_sink vs;
	unsigned char *big = pattern(BIG_SIZE, 7);
	url_of(url, sizeof(url), &fx->http, "http", "/ifrange.bin");
	static const char *const held[] = { "\"r1\"", "\"r0\"" };

	for (int changed = 0; changed < 2; changed++) {
		vs = (struct validated_sink){ .k.buf = WP_BUF_INIT_MAX(64 << 20) };
		wp_buf_add(&vs.k.buf, big, DROP_AT);
		struct wp_download d = { .url = url,
					 .expect_size = BIG_SIZE,
					 .write = mem_write,
					 .reset = mem_reset,
					 .validated = validated_cb,
					 .ctx = &vs,
					 .start = DROP_AT,
					 .if_range = held[changed] };
		assert_int_equal(wp_download_run(&d, 1, &fast_dl, NULL, NULL), 0);
		check_big(&vs.k);
		assert_int_equal(d.tries, 1);
		assert_int_equal(vs.k.resets, changed);
		assert_int_equal(d.status, changed ? 200 : 206);
		assert_logged_has(&fx->http, "/ifrange.bin", changed,
				  changed ? "\"If-Range\":\"\\\"r0\\\"\"" :
					    "\"If-Range\":\"\\\"r1\\\"\"");
		/* a 206 keeps the validator held; a 200 brings its own */
		assert_string_equal(vs.seen, changed ? "\"r1\"" : "");
		wp_buf_free(&vs.k.buf);
	}
	free(big);
}

static void test_resume_ignored_range(void **state)
{
	struct fixture *fx = *state;
	char url[300];
	struct mem_sink k;
	struct wp_download d;
	url_of(url, sizeof(url), &fx->http, "http", "/norange.bin");

	assert_int_equal(download_one(url, BIG_SIZE, &k, NULL, &d), 0);
	check_big(&k);
	assert_int_equal(k.resets, 1);
	assert_int_equal(d.tries, 2);
	assert_logged_has(&fx->http, "/norange.bin", 1, "\"Range\":\"bytes=");
	assert_logged_has(&fx->http, "/norange.bin", 1, "\"status\":200");
	wp_buf_free(&k.buf);
}

static void test_resume_wrong_offset(void **state)
{
	struct fixture *fx = *state;
	char url[300];
	struct mem_sink k;
	struct wp_download d;
	url_of(url, sizeof(url), &fx->http, "http", "/badrange.bin");

	/* the 206 from the wrong byte is refused; the next try asks for the whole file */
	assert_int_equal(download_one(url, BIG_SIZE, &k, NULL, &d), 0);
	check_big(&k);
	assert_int_equal(k.resets, 1);
	assert_int_equal(d.tries, 3);
	assert_logged_has(&fx->http, "/badrange.bin", 1, "\"status\":206");
	assert_logged_lacks(&fx->http, "/badrange.bin", 2, "Range");
	wp_buf_free(&k.buf);

	/* with no tries left the refusal is the error */
	struct wp_dl_opts opts = { .policy.conf = &fast, .policy.max_tries = 2 };
	char script[600];
	snprintf(script, sizeof(script),
		 "{\"/badrange.bin\": {\"drop_after\": %d, \"bad_range_offset\": 1000}}", DROP_AT);
	write_file(fx->dir, "script.json", script, strlen(script));
	assert_int_equal(download_one(url, BIG_SIZE, &k, &opts, &d), -WPE_NET);
	assert_msg_has(&d.err, "from byte");
	write_script(fx);
	wp_buf_free(&k.buf);
}

/* A 206 that names the range asked for but whose bytes start later (issue 36): its Content-Length
 * counts fewer bytes than its Content-Range names, or with no length its body ends short of it.
 * None of its bytes stay; the next try asks for the whole file. */
static void test_resume_range_skip(void **state)
{
	struct fixture *fx = *state;
	char url[300];
	struct mem_sink k;
	struct wp_download d;
	const char *paths[] = { "/skip.bin", "/skipnl.bin" };
	for (size_t i = 0; i < WP_ARRAY_LEN(paths); i++) {
		url_of(url, sizeof(url), &fx->http, "http", paths[i]);
		assert_int_equal(download_one(url, i ? -1 : BIG_SIZE, &k, NULL, &d), 0);
		check_big(&k);
		assert_int_equal(k.resets, 1);
		assert_int_equal(d.tries, 3);
		assert_logged_has(&fx->http, paths[i], 1, "\"status\":206");
		assert_logged_lacks(&fx->http, paths[i], 2, "Range");
		wp_buf_free(&k.buf);
	}
	/* with no tries left the refusal is the error, and nothing of it is kept to resume from */
	struct wp_dl_opts opts = { .policy.conf = &fast, .policy.max_tries = 2 };
	char script[600];
	for (size_t i = 0; i < WP_ARRAY_LEN(paths); i++) {
		snprintf(script, sizeof(script),
			 "{\"%s\": {\"drop_after\": %d, \"range_skip\": 1000%s}}", paths[i],
			 DROP_AT, i ? ", \"no_length\": true" : "");
		write_file(fx->dir, "script.json", script, strlen(script));
		url_of(url, sizeof(url), &fx->http, "http", paths[i]);
		assert_int_equal(download_one(url, -1, &k, &opts, &d), -WPE_NET);
		assert_msg_has(&d.err, "bytes 100000-299999");
		assert_int_equal(k.buf.len, 0);
		assert_int_equal(d.received, 0);
		wp_buf_free(&k.buf);
	}
	write_script(fx);
}

static void test_short_body_resumed(void **state)
{
	struct fixture *fx = *state;
	char url[300], range[64];
	struct mem_sink k;
	struct wp_download d;
	url_of(url, sizeof(url), &fx->http, "http", "/wronglen.bin");

	/* Content-Length promised 5000 bytes more than came: resume, and a 416 says we have it
	 * all; the same whether the size was known beforehand or not */
	for (int i = 0; i < 2; i++) {
		assert_int_equal(download_one(url, i ? -1 : BIG_SIZE, &k, NULL, &d), 0);
		check_big(&k);
		assert_int_equal(d.tries, 2);
		snprintf(range, sizeof(range), "\"Range\":\"bytes=%d-\"", BIG_SIZE);
		assert_logged_has(&fx->http, "/wronglen.bin", 2 * i + 1, range);
		assert_logged_has(&fx->http, "/wronglen.bin", 2 * i + 1, "\"status\":416");
		wp_buf_free(&k.buf);
	}
}

static void test_size_mismatch(void **state)
{
	struct fixture *fx = *state;
	char url[300];
	struct mem_sink k;
	struct wp_download d;
	url_of(url, sizeof(url), &fx->http, "http", "/plain.bin");

	assert_int_equal(download_one(url, BIG_SIZE - 1, &k, NULL, &d), -WPE_INTEGRITY);
	assert_msg_has(&d.err, "plain.bin");
	wp_buf_free(&k.buf);
	assert_int_equal(download_one(url, BIG_SIZE + 1, &k, NULL, &d), -WPE_INTEGRITY);
	wp_buf_free(&k.buf);
	assert_int_equal(download_one(url, -1, &k, NULL, &d), 0);
	check_big(&k);
	wp_buf_free(&k.buf);
}

struct progress_seen {
	long long last[N_PARALLEL];
	int calls;
};

static void on_progress(void *pctx, size_t index, long long received, long long total)
{
	struct progress_seen *ps = pctx;
	assert_true(index < N_PARALLEL);
	ps->last[index] = received;
	ps->calls++;
}

static void test_parallel_16(void **state)
{
	struct fixture *fx = *state;
	struct wp_download d[N_PARALLEL];
	struct mem_sink k[N_PARALLEL];
	char urls[N_PARALLEL][300];
	struct progress_seen ps = { { 0 }, 0 };

	for (int i = 0; i < N_PARALLEL; i++) {
		char path[32];
		snprintf(path, sizeof(path), "/f%02d.bin", i);
		url_of(urls[i], sizeof(urls[i]), &fx->http, "http", path);
		k[i] = (struct mem_sink){ .buf = WP_BUF_INIT_MAX(1 << 20) };
		d[i] = (struct wp_download){ .url = urls[i],
					     .expect_size = i % 2 ? -1 : 20000 * (i + 1) + i * 37,
					     .write = mem_write,
					     .reset = mem_reset,
					     .ctx = &k[i] };
	}
	assert_int_equal(wp_download_run(d, N_PARALLEL, &fast_dl, on_progress, &ps), 0);
	for (int i = 0; i < N_PARALLEL; i++) {
		size_t n = 20000 * (size_t)(i + 1) + (size_t)i * 37;
		unsigned char *want = pattern(n, (uint32_t)(100 + i));
		assert_int_equal(d[i].result, 0);
		assert_int_equal(k[i].buf.len, n);
		assert_memory_equal(k[i].buf.data, want, n);
		assert_int_equal(ps.last[i], (long long)n);
		free(want);
		wp_buf_free(&k[i].buf);
	}
	assert_true(ps.calls >= N_PARALLEL);
}

static void test_fetch_many(void **state)
{
	struct fixture *fx = *state;
	char urls[3][300];
	struct wp_http_req reqs[3];
	struct wp_http_res res[3];
	struct wp_err errs[3];
	url_of(urls[0], sizeof(urls[0]), &fx->http, "http", "/a.txt");
	url_of(urls[1], sizeof(urls[1]), &fx->http, "http", "/not-there");
	url_of(urls[2], sizeof(urls[2]), &fx->http, "http", "/gz.html");
	for (int i = 0; i < 3; i++)
		reqs[i] = (struct wp_http_req){ .policy.conf = &fast, .url = urls[i] };

	assert_int_equal(wp_http_get_many(reqs, res, 3, errs), -WPE_NET);
	assert_int_equal(errs[0].code, 0);
	assert_string_equal(wp_buf_cstr(&res[0].body), "hello from wheelpick\n");
	assert_int_equal(errs[1].code, -WPE_NET);
	assert_msg_has(&errs[1], "404");
	assert_int_equal(errs[2].code, 0);
	assert_true(res[2].body.len > 1000);
	for (int i = 0; i < 3; i++)
		wp_http_res_release(&res[i]);
}

/* A part of a file: exactly the bytes asked for, where they lie, and the file's size. */
static void check_part(const char *url, const char *range, long long start, size_t len,
		       const unsigned char *want)
{
	struct wp_http_res res;
	struct wp_err err = WP_ERR_INIT;
	struct wp_http_req req = { .policy.conf = &fast, .url = url, .range = range };
	int rc = wp_http_get(&req, &res, &err);
	if (rc)
		fail_msg("range %s: %s", range, err.msg);
	assert_int_equal(res.status, 206);
	assert_true(res.partial);
	assert_int_equal(res.range_start, start);
	assert_int_equal(res.range_total, BIG_SIZE);
	assert_int_equal(res.body.len, len);
	assert_memory_equal(res.body.data, want + start, len);
	wp_http_res_release(&res);
}

static void test_fetch_range(void **state)
{
	struct fixture *fx = *state;
	char url[300], range[64];
	struct wp_http_res res;
	struct wp_err err = WP_ERR_INIT;
	unsigned char *want = pattern(BIG_SIZE, 7);
	url_of(url, sizeof(url), &fx->http, "http", "/ranged.bin");

	check_part(url, "100-1099", 100, 1000, want);
	check_part(url, "-500", BIG_SIZE - 500, 500, want);
	check_part(url, "-999999", 0, BIG_SIZE, want);
	snprintf(range, sizeof(range), "%d-", BIG_SIZE - 10);
	check_part(url, range, BIG_SIZE - 10, 10, want);
	assert_logged_has(&fx->http, "/ranged.bin", 0, "\"Range\":\"bytes=100-1099\"");
	assert_logged_has(&fx->http, "/ranged.bin", 1, "\"Range\":\"bytes=-500\"");
	assert_logged_lacks(&fx->http, "/ranged.bin", 0, "Accept-Encoding");

	/* a part over max_bytes, a range past the end, ranges that are not ranges */
	struct wp_http_req req = {
		.policy.conf = &fast, .url = url, .range = "0-", .max_bytes = 1000
	};
	assert_int_equal(wp_http_get(&req, &res, &err), -WPE_TOO_BIG);
	wp_http_res_release(&res);
	snprintf(range, sizeof(range), "%d-", BIG_SIZE + 10);
	req = (struct wp_http_req){ .policy.conf = &fast, .url = url, .range = range };
	wp_err_clear(&err);
	assert_int_equal(wp_http_get(&req, &res, &err), -WPE_NET);
	assert_msg_has(&err, "416");
	wp_http_res_release(&res);
	static const char *const bad[] = { "5-2", "abc",   "-0",        "-",
					   "1",   "1-2-3", "bytes=1-2", "1-\r\nX: y" };
	int before = logged_count(&fx->http, "/ranged.bin");
	for (size_t i = 0; i < WP_ARRAY_LEN(bad); i++) {
		req.range = bad[i];
		wp_err_clear(&err);
		assert_int_equal(wp_http_get(&req, &res, &err), -WPE_USAGE);
		wp_http_res_release(&res);
	}
	assert_int_equal(logged_count(&fx->http, "/ranged.bin"), before);

	/* a server that ignores Range: the whole file, said so */
	url_of(url, sizeof(url), &fx->http, "http", "/whole.bin");
	req = (struct wp_http_req){ .policy.conf = &fast, .url = url, .range = "-500" };
	assert_int_equal(wp_http_get(&req, &res, &err), 0);
	assert_int_equal(res.status, 200);
	assert_false(res.partial);
	assert_int_equal(res.range_start, 0);
	assert_int_equal(res.range_total, -1);
	assert_int_equal(res.body.len, BIG_SIZE);
	assert_memory_equal(res.body.data, want, BIG_SIZE);
	wp_http_res_release(&res);
	/* ... and one too large for max_bytes fails on its Content-Length */
	req.max_bytes = 1000;
	wp_err_clear(&err);
	assert_int_equal(wp_http_get(&req, &res, &err), -WPE_TOO_BIG);
	assert_int_equal(res.status, 200);
	wp_http_res_release(&res);

	/* file:// reads whole; a request without a range says nothing of ranges */
	snprintf(url, sizeof(url), "file://%s/ranged.bin", fx->root);
	req = (struct wp_http_req){ .policy.conf = &fast, .url = url, .range = "-500" };
	assert_int_equal(wp_http_get(&req, &res, &err), 0);
	assert_false(res.partial);
	assert_int_equal(res.body.len, BIG_SIZE);
	wp_http_res_release(&res);
	req.range = NULL;
	assert_int_equal(wp_http_get(&req, &res, &err), 0);
	assert_false(res.partial);
	assert_int_equal(res.range_total, -1);
	wp_http_res_release(&res);
	free(want);
}


/* spill_after: a body up to it stays in memory (no file made); a larger one goes to the file */
static void test_spill(void **state)
{
	struct fixture *fx = *state;
	char url[300], dest[600], src[600];
	struct wp_http_res res;
	struct wp_err err = WP_ERR_INIT;
	size_t len, want_len;
	url_of(url, sizeof(url), &fx->http, "http", "/etag-file.html");
	snprintf(dest, sizeof(dest), "%s/spilled.html", fx->dir);
	snprintf(src, sizeof(src), "%s/etag-file.html", fx->root);
	char *want = test_read_file(src, &want_len);
	assert_true(want_len > 16);

	struct wp_http_req req = { .url = url, .to_path = dest, .spill_after = want_len };
	assert_int_equal(wp_http_get(&req, &res, &err), 0);
	assert_false(res.spilled);
	assert_int_equal(res.body.len, want_len);
	assert_memory_equal(res.body.data, want, want_len);
	assert_int_equal(access(dest, F_OK), -1);
	wp_http_res_release(&res);

	req.spill_after = 16;
	assert_int_equal(wp_http_get(&req, &res, &err), 0);
	assert_true(res.spilled);
	assert_int_equal(res.body.len, 0);
	char *got = test_read_file(dest, &len);
	assert_non_null(got);
	assert_int_equal(len, want_len);
	assert_memory_equal(got, want, len);
	free(got);
	wp_http_res_release(&res);
	unlink(dest);

	/* the ceiling holds for a spilled body too */
	req.max_bytes = want_len - 1;
	assert_int_equal(wp_http_get(&req, &res, &err), -WPE_TOO_BIG);
	assert_int_equal(access(dest, F_OK), -1);
	wp_http_res_release(&res);
	free(want);
}

static void test_to_path(void **state)
{
	struct fixture *fx = *state;
	char url[300], dest[600], part[620], src[600];
	struct wp_http_res res, again;
	struct wp_err err = WP_ERR_INIT;
	size_t len, want_len;
	url_of(url, sizeof(url), &fx->http, "http", "/etag-file.html");
	snprintf(dest, sizeof(dest), "%s/saved.html", fx->dir);
	snprintf(part, sizeof(part), "%s.part", dest);
	struct wp_http_req req = { .policy.conf = &fast, .url = url, .to_path = dest };

	assert_int_equal(wp_http_get(&req, &res, &err), 0);
	assert_int_equal(res.body.len, 0);
	char *got = test_read_file(dest, &len);
	snprintf(src, sizeof(src), "%s/etag-file.html", fx->root);
	char *want = test_read_file(src, &want_len);
	assert_non_null(got);
	assert_int_equal(len, want_len);
	assert_memory_equal(got, want, len);
	free(got);
	assert_int_equal(access(part, F_OK), -1);

	/* a 304 leaves the saved copy as it was */
	req.etag = res.etag;
	assert_int_equal(wp_http_get(&req, &again, &err), 0);
	assert_true(again.not_modified);
	got = test_read_file(dest, &len);
	assert_int_equal(len, want_len);
	assert_memory_equal(got, want, len);
	assert_int_equal(access(part, F_OK), -1);
	free(got);
	free(want);
	wp_http_res_release(&again);
	wp_http_res_release(&res);
}

static void test_https_with_ca(void **state)
{
	struct fixture *fx = *state;
	char url[300];
	struct wp_http_res res;
	struct wp_err err = WP_ERR_INIT;
	url_of(url, sizeof(url), &fx->https, "https", "/a.txt");
	struct wp_http_req req = { .policy.conf = &fast, .url = url };

	struct wp_net_conf withca = fast;
	withca.ca_file = fx->ca;
	req.policy.conf = &withca;
	int rc = wp_http_get(&req, &res, &err);
	if (rc)
		fail_msg("https fetch failed: %s", err.msg);
	assert_string_equal(wp_buf_cstr(&res.body), "hello from wheelpick\n");
	wp_http_res_release(&res);
}

static void test_https_unknown_ca(void **state)
{
	struct fixture *fx = *state;
	char url[300];
	struct wp_http_res res;
	struct wp_err err = WP_ERR_INIT;
	url_of(url, sizeof(url), &fx->https, "https", "/a.txt");
	struct wp_http_req req = { .policy.conf = &fast, .url = url };

	assert_int_equal(wp_http_get(&req, &res, &err), -WPE_NET);
	assert_msg_has(&err, "certificate");
	assert_int_equal(res.tries, 1);   /* a bad certificate is not worth a retry */
	wp_http_res_release(&res);
}

static void test_https_downgrade_refused(void **state)
{
	struct fixture *fx = *state;
	char url[300];
	struct wp_http_res res;
	struct wp_err err = WP_ERR_INIT;
	url_of(url, sizeof(url), &fx->https, "https", "/downgrade");
	struct wp_http_req req = { .policy.conf = &fast, .url = url };
	int before = logged_count(&fx->http, "/a.txt");

	struct wp_net_conf withca = fast;
	withca.ca_file = fx->ca;
	req.policy.conf = &withca;
	int rc = wp_http_get(&req, &res, &err);
	assert_int_equal(rc, -WPE_NET);
	assert_msg_has(&err, "redirect");
	assert_int_equal(logged_count(&fx->https, "/downgrade"), 1);
	assert_int_equal(logged_count(&fx->http, "/a.txt"), before);
	wp_http_res_release(&res);
}

/* A trusted host (--trusted-host) is trusted for itself: where it redirects is checked as any
 * origin is (pip mounts its unchecked adapter on the trusted origin alone). */
static void test_trusted_host_not_its_redirects(void **state)
{
	struct fixture *fx = *state;
	char url[300], trusted[64];
	struct wp_http_res res;
	struct wp_err err = WP_ERR_INIT;
	struct wp_http_req req = { .policy.conf = &fast, .url = url };
	snprintf(trusted, sizeof(trusted), "127.0.0.1:%d", fx->https.port);
	const char *hosts[] = { trusted };
	struct wp_net_conf tc = fast;
	tc.trusted_hosts = hosts;
	tc.n_trusted_hosts = 1;
	req.policy.conf = &tc;
	struct wp_dl_opts tdl = { .policy.conf = &tc };

	/* the trusted origin itself, and a redirect that stays on it */
	url_of(url, sizeof(url), &fx->https, "https", "/a.txt");
	assert_int_equal(wp_http_get(&req, &res, &err), 0);
	wp_http_res_release(&res);
	url_of(url, sizeof(url), &fx->https, "https", "/twice");
	assert_int_equal(wp_http_get(&req, &res, &err), 0);
	assert_string_equal(wp_buf_cstr(&res.body), "hello from wheelpick\n");
	assert_non_null(strstr(res.effective_url, "/a.txt"));
	wp_http_res_release(&res);

	/* a redirect to another origin (another port; another name, 307) is held to its
	 * certificate */
	const char *away[] = { "/elsewhere", "/elsewhere-307" };
	for (size_t i = 0; i < WP_ARRAY_LEN(away); i++) {
		int before = logged_count(&fx->https2, "/a.txt");
		url_of(url, sizeof(url), &fx->https, "https", away[i]);
		wp_err_clear(&err);
		assert_int_equal(wp_http_get(&req, &res, &err), -WPE_NET);
		assert_msg_has(&err, "certificate");
		assert_int_equal(logged_count(&fx->https2, "/a.txt"), before); /* no request got
										  through */
		wp_http_res_release(&res);
	}
	/* a file download and a size probe alike */
	struct mem_sink k;
	struct wp_download d;
	url_of(url, sizeof(url), &fx->https, "https", "/elsewhere");
	assert_int_equal(download_one(url, -1, &k, &tdl, &d), -WPE_NET);
	assert_msg_has(&d.err, "certificate");
	wp_buf_free(&k.buf);
	long long size = 0;
	const char *urls[] = { url };
	wp_download_probe_sizes(urls, 1, &size, &tdl);
	assert_int_equal(size, -1);

	/* with the CA given, the same redirect is followed */
	tc.ca_file = fx->ca;
	url_of(url, sizeof(url), &fx->https, "https", "/elsewhere");
	int rc = wp_http_get(&req, &res, &err);
	assert_int_equal(rc, 0);
	assert_string_equal(wp_buf_cstr(&res.body), "hello from wheelpick\n");
	wp_http_res_release(&res);
}

/* Credentials are the conf's, not the process's: two requests to the same origin at the same time,
 * each with its own conf holding its own user, each send their own (a process-wide store held one
 * pair per origin, the later replacing the earlier); a conf without any sends none. */
struct cred_get {
	const struct wp_net_conf *conf;
	const char *url;
	int rc;
};

static void *cred_get_main(void *arg)
{
	struct cred_get *g = arg;
	struct wp_http_req req = { .policy.conf = g->conf, .url = g->url };
	struct wp_http_res res;
	struct wp_err err = WP_ERR_INIT;
	g->rc = wp_http_get(&req, &res, &err);
	wp_http_res_release(&res);
	return NULL;
}

static void test_credentials_per_conf(void **state)
{
	struct fixture *fx = *state;
	char url_a[300], url_b[300], url_none[300];
	url_of(url_a, sizeof(url_a), &fx->http, "http", "/cred-a");
	url_of(url_b, sizeof(url_b), &fx->http, "http", "/cred-b");
	url_of(url_none, sizeof(url_none), &fx->http, "http", "/cred-none");
	write_file(fx->root, "cred-a", "a\n", 2);
	write_file(fx->root, "cred-b", "b\n", 2);
	write_file(fx->root, "cred-none", "n\n", 2);
	struct wp_net_creds ca = { 0 }, cb = { 0 };
	wp_net_creds_add(&ca, url_a, "alice", "alpha");
	wp_net_creds_add(&cb, url_b, "bob", "beta");
	struct wp_net_conf conf_a = fast, conf_b = fast;
	conf_a.creds = &ca;
	conf_b.creds = &cb;
	struct cred_get gets[] = { { &conf_a, url_a, -1 },
				   { &conf_b, url_b, -1 },
				   { &fast, url_none, -1 } };
	pthread_t th[WP_ARRAY_LEN(gets)];
	for (size_t i = 0; i < WP_ARRAY_LEN(gets); i++)
		assert_int_equal(pthread_create(&th[i], NULL, cred_get_main, &gets[i]), 0);
	for (size_t i = 0; i < WP_ARRAY_LEN(gets); i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(gets[i].rc, 0);
	}
	assert_logged_has(&fx->http, "/cred-a", 0,
			  "\"Authorization\":\"Basic YWxpY2U6YWxwaGE=\""); /* alice:alpha */
	assert_logged_has(&fx->http, "/cred-b", 0,
			  "\"Authorization\":\"Basic Ym9iOmJldGE=\""); /* bob:beta */
	char *none = logged(&fx->http, "/cred-none", 0);
	assert_non_null(none);
	assert_null(strstr(none, "Authorization"));
	free(none);
	wp_net_creds_release(&ca);
	wp_net_creds_release(&cb);
	assert_int_equal(ca.n + cb.n, 0);
}

/* Too many hops end, as libcurl ended them. */
static void test_redirect_loop(void **state)
{
	struct fixture *fx = *state;
	char url[300], script[600];
	struct wp_http_res res;
	struct wp_err err = WP_ERR_INIT;
	url_of(url, sizeof(url), &fx->http, "http", "/loop");
	snprintf(script, sizeof(script), "{\"/loop\": {\"redirect\": \"/loop\"}}");
	write_file(fx->dir, "script.json", script, strlen(script));
	struct wp_http_req req = { .policy.conf = &fast, .url = url };
	assert_int_equal(wp_http_get(&req, &res, &err), -WPE_NET);
	assert_msg_has(&err, "redirects");
	assert_int_equal(res.tries, 1);
	assert_int_equal(logged_count(&fx->http, "/loop"), 11);
	wp_http_res_release(&res);
	write_script(fx);
}

/* `python3 -m http.server` (HTTP/1.0: a connection per answer; a listen queue of 5, here 1):
 * connects that its full queue drops (the kernel sends the SYN again only a second later) are
 * dialled again at once, so 16 small files at 8 connections at once take a fraction of a second,
 * not seconds; the sizes asked with HEAD likewise. */
static void test_http10_small_queue(void **state)
{
	struct fixture *fx = *state;
	struct wp_download d[N_PARALLEL];
	struct mem_sink k[N_PARALLEL];
	char urls[N_PARALLEL][300];
	const char *up[N_PARALLEL];
	long long sizes[N_PARALLEL];

	for (int i = 0; i < N_PARALLEL; i++) {
		char path[32];
		snprintf(path, sizeof(path), "/f%02d.bin", i);
		url_of(urls[i], sizeof(urls[i]), &fx->h10, "http", path);
		up[i] = urls[i];
	}
	long long t0 = now_ms();
	wp_download_probe_sizes(up, N_PARALLEL, sizes, &fast_dl);
	long long probe_ms = now_ms() - t0;
	for (int i = 0; i < N_PARALLEL; i++) {
		k[i] = (struct mem_sink){ .buf = WP_BUF_INIT_MAX(1 << 20) };
		d[i] = (struct wp_download){ .url = urls[i],
					     .expect_size = -1,
					     .write = mem_write,
					     .reset = mem_reset,
					     .ctx = &k[i] };
	}
	t0 = now_ms();
	assert_int_equal(wp_download_run(d, N_PARALLEL, &fast_dl, NULL, NULL), 0);
	long long fetch_ms = now_ms() - t0;
	for (int i = 0; i < N_PARALLEL; i++) {
		size_t n = 20000 * (size_t)(i + 1) + (size_t)i * 37;
		assert_int_equal(sizes[i], (long long)n);
		assert_int_equal(d[i].result, 0);
		assert_int_equal(d[i].tries, 1);
		assert_int_equal(k[i].buf.len, n);
		wp_buf_free(&k[i].buf);
	}
	print_message("16 files, HTTP/1.0, listen queue 1: HEAD %lld ms, GET %lld ms\n", probe_ms,
		      fetch_ms);
	/* a dropped SYN cost 1 s before (3 s for a second one): both took 1.4 s or more */
	if (probe_ms > 900 || fetch_ms > 900)
		fail_msg("16 files from an HTTP/1.0 server with a full listen queue: HEAD %lld ms, GET %lld ms",
			 probe_ms, fetch_ms);
}

/* A store whose listing never ends (issue 36: 258,442 requests in 200 s) is stopped, whichever way
 * it loops, with a message that says the listing is broken (-WPE_SOURCE: exit 3). */
static void test_s3_list_never_ends(void **state)
{
	struct fixture *fx = *state;
	char endpoint[100];
	static const struct {
		const char *body;
		int most;            /* requests it may take */
		const char *says;
	} cases[] = {
		/* the same token again, with the same keys */
		{ "<ListBucketResult><Contents><Key>a/x.whl</Key><Size>1</Size></Contents><IsTruncated>true</IsTruncated>"
		  "<NextContinuationToken>again</NextContinuationToken></ListBucketResult>",
		  3, "same continuation token" },
		/* the same token again, nothing listed */
		{ "<ListBucketResult><IsTruncated>true</IsTruncated><NextContinuationToken>t</NextContinuationToken>"
		  "</ListBucketResult>",
		  3, "same continuation token" },
		/* a fresh token each time, the same keys */
		{ "<ListBucketResult><Contents><Key>a/x.whl</Key><Size>1</Size></Contents><IsTruncated>true</IsTruncated>"
		  "<NextContinuationToken>t{n}</NextContinuationToken></ListBucketResult>",
		  3, "listed before" },
		/* a fresh token each time, nothing listed */
		{ "<ListBucketResult><IsTruncated>true</IsTruncated><NextContinuationToken>t{n}</NextContinuationToken>"
		  "</ListBucketResult>",
		  9, "list nothing" },
		/* an empty token */
		{ "<ListBucketResult><IsTruncated>true</IsTruncated><NextContinuationToken></NextContinuationToken>"
		  "</ListBucketResult>",
		  1, "without a continuation token" },
	};
	snprintf(endpoint, sizeof(endpoint), "http://127.0.0.1:%d", fx->http.port);
	const struct wp_s3_conf s3fast = { .net = &fast }; /* no credentials: unsigned requests */
	for (size_t i = 0; i < WP_ARRAY_LEN(cases); i++) {
		char path[32], url[64], *script = NULL;
		struct wp_s3 s3;
		struct wp_s3_listing l = { 0 };
		struct wp_err err = WP_ERR_INIT;
		snprintf(path, sizeof(path), "/loop%zu", i);
		script = wp_xasprintf("{\"%s\": {\"body\": \"%s\", \"body_n\": true}}", path,
				      cases[i].body);
		write_file(fx->dir, "script.json", script, strlen(script));
		free(script);
		snprintf(url, sizeof(url), "s3://loop%zu/a/", i);
		assert_int_equal(wp_s3_open(&s3, url, endpoint, NULL, &s3fast, &err), 0);
		s3.xml = &wp_s3xml_reader;
		assert_int_equal(wp_s3_list(&s3, s3.prefix, &l, &err), -WPE_SOURCE);
		assert_msg_has(&err, cases[i].says);
		assert_msg_has(&err, url);
		int n = logged_count(&fx->http, path);
		if (n > cases[i].most)
			fail_msg("case %zu: %d requests", i, n);
		wp_s3_listing_free(&l);
		wp_s3_release(&s3);
	}
	write_script(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_url),
		cmocka_unit_test(test_etag_304),
		cmocka_unit_test(test_gzip_decoded),
		cmocka_unit_test(test_redirect),
		cmocka_unit_test(test_404),
		cmocka_unit_test(test_500_then_200),
		cmocka_unit_test(test_429_retry_after),
		cmocka_unit_test(test_503_bounded),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_cap_plain),
		cmocka_unit_test(test_gzip_bomb),
		cmocka_unit_test(test_slow_trickle),
		cmocka_unit_test(test_deadline),
		cmocka_unit_test(test_retry_after_capped_and_env),
		cmocka_unit_test(test_resume_after_drop),
		cmocka_unit_test(test_probe_sizes),
		cmocka_unit_test(test_resume_if_range),
		cmocka_unit_test(test_resume_ignored_range),
		cmocka_unit_test(test_resume_wrong_offset),
		cmocka_unit_test(test_resume_range_skip),
		cmocka_unit_test(test_short_body_resumed),
		cmocka_unit_test(test_size_mismatch),
		cmocka_unit_test(test_parallel_16),
		cmocka_unit_test(test_fetch_many),
		cmocka_unit_test(test_fetch_range),
		cmocka_unit_test(test_to_path),
		cmocka_unit_test(test_spill),
		cmocka_unit_test(test_https_with_ca),
		cmocka_unit_test(test_https_unknown_ca),
		cmocka_unit_test(test_https_downgrade_refused),
		cmocka_unit_test(test_trusted_host_not_its_redirects),
		cmocka_unit_test(test_credentials_per_conf),
		cmocka_unit_test(test_redirect_loop),
		cmocka_unit_test(test_http10_small_queue),
		cmocka_unit_test(test_s3_list_never_ends),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
