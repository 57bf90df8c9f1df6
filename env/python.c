/* env/python.c: ask a Python interpreter about itself (version, tags, markers, scheme paths) by running it. */
#include "env/python.h"
#include "base/mem.h"
#include "base/str.h"
#include "resolver/ask.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Prints NUL-separated key, value pairs. The scheme logic is pip's (locations/_sysconfig.py):
 * in a virtual environment headers go under <base>/include/site/pythonX.Y/<name>. */
static const char probe_script[] =
	"import os, sys, sysconfig, platform\n"
	"mode, d = sys.argv[1], sys.argv[2]\n"
	"venv = sys.prefix != getattr(sys, 'base_prefix', sys.prefix)\n"
	"xy = '%d.%d' % sys.version_info[:2]\n"
	"if mode == 'prefix':\n"
	"    try: name = sysconfig.get_preferred_scheme('prefix')\n"
	"    except AttributeError: name = 'posix_prefix'\n"
	"    v = {k: d for k in ('installed_base', 'base', 'installed_platbase', 'platbase', 'prefix', 'exec_prefix')}\n"
	"    p = sysconfig.get_paths(scheme=name, vars=v)\n"
	"    base = d\n"
	"elif mode == 'target':\n"
	"    p = {'purelib': d, 'platlib': d, 'scripts': os.path.join(d, 'bin'), 'data': d,\n"
	"         'include': os.path.join(d, 'include', 'python')}\n"
	"    base = d\n"
	"else:\n"
	"    p = sysconfig.get_paths()\n"
	"    base = sys.prefix\n"
	"inc = os.path.join(base, 'include', 'site', 'python' + xy) if venv else p['include']\n"
	"plat = sysconfig.get_platform().replace('-', '_').replace('.', '_')\n"
	"libc = ''\n"
	"try: libc = os.confstr('CS_GNU_LIBC_VERSION') or ''\n"
	"except (AttributeError, ValueError, OSError): pass\n"
	"if plat.startswith('linux_') and libc.startswith('glibc '):\n"
	"    mm = libc.split()[1].split('.')\n"
	"    plat = 'manylinux_%s_%s_%s' % (mm[0], mm[1], plat[6:])\n"
	"iv = sys.implementation.version\n"
	"ivs = '%d.%d.%d' % (iv.major, iv.minor, iv.micro)\n"
	"if iv.releaselevel != 'final': ivs += iv.releaselevel[0] + str(iv.serial)\n"
	"gil = sysconfig.get_config_var('Py_GIL_DISABLED')\n"
	"out = {'executable': sys.executable, 'prefix': sys.prefix, 'version': platform.python_version(),\n"
	"  'major': str(sys.version_info[0]), 'minor': str(sys.version_info[1]), 'impl': sys.implementation.name,\n"
	"  'soabi': sysconfig.get_config_var('SOABI') or '', 'cache_tag': sys.implementation.cache_tag or '',\n"
	"  'free_threaded': '1' if gil else '0', 'platform': plat, 'venv': '1' if venv else '0',\n"
	"  'purelib': p['purelib'], 'platlib': p['platlib'], 'scripts': p['scripts'], 'data': p['data'], 'include': inc,\n"
	"  'stdlib': sysconfig.get_paths()['stdlib'],\n"
	"  'm.implementation_name': sys.implementation.name, 'm.implementation_version': ivs,\n"
	"  'm.os_name': os.name, 'm.platform_machine': platform.machine(), 'm.platform_release': platform.release(),\n"
	"  'm.platform_system': platform.system(), 'm.platform_version': platform.version(),\n"
	"  'm.python_full_version': platform.python_version(), 'm.python_version': xy,\n"
	"  'm.platform_python_implementation': platform.python_implementation(), 'm.sys_platform': sys.platform}\n"
	"w = sys.stdout.buffer\n"
	"for k, v in out.items():\n"
	"    w.write(k.encode() + b'\\0' + os.fsencode(v) + b'\\0')\n"
	"w.flush()\n";

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int wp_env_run(const char *const *argv, const char *stdin_text, size_t stdin_len, bool merge, int timeout_ms,
	       struct wp_buf *out, int *status, struct wp_err *err)
{
	int in[2] = { -1, -1 }, op[2] = { -1, -1 };
	int rc = 0;
	*status = -1;
	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(op, O_CLOEXEC) < 0) {
		rc = wp_fail(err, -WPE_ENV, "cannot run '%s': %s", argv[0], strerror(errno));
		goto out;
	}
	pid_t pid = fork();
	if (pid < 0) {
		rc = wp_fail(err, -WPE_ENV, "cannot run '%s': %s", argv[0], strerror(errno));
		goto out;
	}
	if (pid == 0) {
		setpgid(0, 0);
		dup2(in[0], 0);
		dup2(op[1], 1);
		if (merge)
			dup2(op[1], 2);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	setpgid(pid, pid);
	close(in[0]);
	close(op[1]);
	in[0] = op[1] = -1;
	fcntl(in[1], F_SETFL, O_NONBLOCK);
	size_t sent = 0;
	if (!stdin_text || !stdin_len) {
		close(in[1]);
		in[1] = -1;
	}
	long long deadline = now_ms() + timeout_ms;
	bool timed_out = false;
	while (op[0] >= 0) {
		struct pollfd pf[2] = { { op[0], POLLIN, 0 }, { in[1], POLLOUT, 0 } };
		long long left = deadline - now_ms();
		if (left <= 0) {
			timed_out = true;
			break;
		}
		int pr = poll(pf, in[1] >= 0 ? 2 : 1, (int)(left > 1000 ? 1000 : left));
		if (pr < 0 && errno != EINTR)
			break;
		if (in[1] >= 0 && (pf[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
			ssize_t k = write(in[1], stdin_text + sent, stdin_len - sent);
			if (k > 0)
				sent += (size_t)k;
			if (k < 0 && errno != EAGAIN && errno != EINTR)
				sent = stdin_len;
			if (sent >= stdin_len) {
				close(in[1]);
				in[1] = -1;
			}
		}
		if (pf[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			char tmp[8192];
			ssize_t k = read(op[0], tmp, sizeof(tmp));
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0) {
				close(op[0]);
				op[0] = -1;
				break;
			}
			size_t room = out->max ? out->max - out->len : (size_t)k;
			wp_buf_add(out, tmp, (size_t)k < room ? (size_t)k : room);
		}
	}
	if (timed_out)
		kill(-pid, SIGKILL);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (timed_out)
		rc = wp_fail(err, -WPE_ENV, "'%s' did not finish within %d s", argv[0], timeout_ms / 1000);
	else if (WIFEXITED(st))
		*status = WEXITSTATUS(st);
	else
		*status = 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
out:
	for (int i = 0; i < 2; i++) {
		if (in[i] >= 0)
			close(in[i]);
		if (op[i] >= 0)
			close(op[i]);
	}
	return rc;
}

static char *take(const char *v)
{
	return wp_xstrdup(v ? v : "");
}

int wp_python_probe(const char *path, enum wp_python_scheme scheme, const char *dir, struct wp_python *py,
		    struct wp_err *err)
{
	return wp_python_probe_as(path, scheme, dir, NULL, py, err);
}

int wp_python_probe_as(const char *path, enum wp_python_scheme scheme, const char *dir, const struct wp_asks *asks,
		       struct wp_python *py, struct wp_err *err)
{
	struct wp_buf out = WP_BUF_INIT_MAX(1 << 20);
	const char *mode = scheme == WP_SCHEME_PREFIX ? "prefix" : scheme == WP_SCHEME_TARGET ? "target" : "default";
	const char *argv[] = { path, "-I", "-c", probe_script, mode, dir ? dir : "", NULL };
	int status = -1, rc;
	memset(py, 0, sizeof(*py));
	wp_marker_env_init(&py->markers);
	wp_target_init(&py->target);
	if ((rc = wp_env_run(argv, NULL, 0, false, 30000, &out, &status, err)))
		goto out;
	if (status == 127) {
		rc = wp_fail(err, -WPE_ENV, "cannot run the interpreter '%s'; name one with %s", path,
			     wp_ask_words(asks, WP_ASK_INTERPRETER));
		goto out;
	}
	if (status != 0 || !out.len) {
		rc = wp_fail(err, -WPE_ENV, "the interpreter '%s' did not answer (exit %d); is it a Python 3?", path, status);
		goto out;
	}
	const char *kv[64][2];
	size_t nkv = 0;
	for (size_t i = 0; i < out.len && nkv < 64;) {
		const char *k = out.data + i;
		size_t kl = strnlen(k, out.len - i);
		if (i + kl + 1 >= out.len)
			break;
		const char *v = k + kl + 1;
		size_t vl = strnlen(v, out.len - i - kl - 1);
		kv[nkv][0] = k;
		kv[nkv][1] = v;
		nkv++;
		i += kl + 1 + vl + 1;
	}
	const char *major = NULL, *minor = NULL, *impl = NULL, *ft = NULL, *venv = NULL;
	for (size_t i = 0; i < nkv; i++) {
		const char *k = kv[i][0], *v = kv[i][1];
		if (!strncmp(k, "m.", 2)) {
			struct wp_err sub = WP_ERR_INIT;
			wp_marker_env_set(&py->markers, k + 2, v, &sub);
		}
#define KEY(name, field) else if (!strcmp(k, name)) { free(py->field); py->field = take(v); }
		if (0) {
		}
		KEY("executable", executable) KEY("prefix", prefix) KEY("version", version) KEY("soabi", soabi)
		KEY("cache_tag", cache_tag) KEY("platform", tag_platform) KEY("purelib", purelib)
		KEY("platlib", platlib) KEY("scripts", scripts) KEY("data", data) KEY("include", include)
		KEY("stdlib", stdlib)
		else if (!strcmp(k, "major")) major = v;
		else if (!strcmp(k, "minor")) minor = v;
		else if (!strcmp(k, "impl")) impl = v;
		else if (!strcmp(k, "free_threaded")) ft = v;
		else if (!strcmp(k, "venv")) venv = v;
#undef KEY
	}
	if (!py->executable || !py->purelib || !py->platlib || !py->scripts || !py->data || !py->include || !major ||
	    !minor || !py->tag_platform || !py->purelib[0] || py->purelib[0] != '/') {
		rc = wp_fail(err, -WPE_ENV, "the interpreter '%s' gave an answer wheelpick cannot use; is it CPython 3?", path);
		goto out;
	}
	py->in_venv = venv && !strcmp(venv, "1");
	py->path = wp_xstrdup(path);
	char ver[32];
	snprintf(ver, sizeof(ver), "%s.%s%s", major, minor, ft && !strcmp(ft, "1") ? "t" : "");
	if ((rc = wp_target_set_python(&py->target, ver, err)))
		goto out;
	if (impl && !strcmp(impl, "pypy"))
		snprintf(py->target.impl, sizeof(py->target.impl), "pp");
	if ((rc = wp_target_set_platform(&py->target, py->tag_platform, err)))
		goto out;
	py->target.platform_exact = false;
out:
	if (rc)
		wp_python_release(py);
	wp_buf_free(&out);
	return rc;
}

void wp_python_release(struct wp_python *py)
{
	free(py->path);
	free(py->executable);
	free(py->prefix);
	free(py->version);
	free(py->soabi);
	free(py->cache_tag);
	free(py->tag_platform);
	free(py->purelib);
	free(py->platlib);
	free(py->scripts);
	free(py->data);
	free(py->include);
	free(py->stdlib);
	memset(py, 0, sizeof(*py));
}
