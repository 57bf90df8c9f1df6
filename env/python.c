/* env/python.c: ask a Python interpreter about itself (version, tags, markers, scheme paths) by
 * running it. */
#include "env/python.h"
#include "base/mem.h"
#include "base/os/os.h"
#include "base/str.h"
#include "env/run.h"
#include "resolver/ask.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int wp_env_run(const char *const *argv, const char *const *envp, const char *stdin_text,
	       size_t stdin_len, bool merge, int timeout_ms, struct wp_buf *out, int *status,
	       struct wp_err *err)
{
	struct wp_run r;
	size_t n = 0;
	*status = -1;
	wp_run_init(&r, 0);
	while (argv[n])
		n++;
	if (n >= sizeof(r.argv) / sizeof(r.argv[0]))
		return wp_fail(err, -WPE_USAGE, "cannot run '%s': %zu words are too many", argv[0],
			       n);
	memcpy(r.argv, argv, n * sizeof(*argv));
	r.search = true;
	r.merge_stderr = merge;
	r.inherit_stderr = !merge;
	r.drain = true; /* its exit status is the answer: read to the end whatever the ceiling */
	r.envp = envp;
	r.stdin_text = stdin_text;
	r.stdin_len = stdin_len;
	r.out = *out;
	wp_run_all(&r, 1, 1, timeout_ms);
	*out = r.out;
	if (!r.started)
		return wp_fail(err, -WPE_ENV, "cannot run '%s': %s", argv[0],
			       strerror(r.spawn_errno ? r.spawn_errno : EAGAIN));
	if (r.timed_out)
		return wp_fail(err, -WPE_ENV, "'%s' did not finish within %d s", argv[0],
			       timeout_ms / 1000);
	*status = r.status >= 0 ? r.status : 128 + r.signal;
	return 0;
}

static char *take(const char *v)
{
	return wp_xstrdup(v ? v : "");
}

int wp_python_probe(const char *path, enum wp_python_scheme scheme, const char *dir,
		    struct wp_python *py, struct wp_err *err)
{
	return wp_python_probe_as(path, scheme, dir, NULL, NULL, py, err);
}

int wp_python_probe_as(const char *path, enum wp_python_scheme scheme, const char *dir,
		       const struct wp_asks *asks, const char *const *envp, struct wp_python *py,
		       struct wp_err *err)
{
	struct wp_buf out = WP_BUF_INIT_MAX(1 << 20);
	const char *mode = scheme == WP_SCHEME_PREFIX ? "prefix" :
			   scheme == WP_SCHEME_TARGET ? "target" :
							"default";
	const char *argv[] = { path, "-I", "-c", probe_script, mode, dir ? dir : "", NULL };
	int status = -1, rc;
	memset(py, 0, sizeof(*py));
	wp_marker_env_init(&py->markers);
	wp_target_init(&py->target);
	if ((rc = wp_env_run(argv, envp, NULL, 0, false, 30000, &out, &status, err)))
		goto out;
	if (status == 127) {
		rc = wp_fail(err, -WPE_ENV, "cannot run the interpreter '%s'; name one with %s",
			     path, wp_ask_words(asks, WP_ASK_INTERPRETER));
		goto out;
	}
	if (status != 0 || !out.len) {
		rc = wp_fail(err, -WPE_ENV,
			     "the interpreter '%s' did not answer (exit %d); is it a Python 3?",
			     path, status);
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
		KEY("executable", executable)
		KEY("prefix", prefix) KEY("version", version) KEY("soabi", soabi)
			KEY("cache_tag", cache_tag) KEY("platform", tag_platform)
				KEY("purelib", purelib) KEY("platlib", platlib)
					KEY("scripts", scripts) KEY("data", data) KEY("include",
										      include)
						KEY("stdlib", stdlib) else if (!strcmp(k, "major"))
							major = v;
		else if (!strcmp(k, "minor")) minor = v;
		else if (!strcmp(k, "impl")) impl = v;
		else if (!strcmp(k, "free_threaded")) ft = v;
		else if (!strcmp(k, "venv")) venv = v;
#undef KEY
	}
	py->windows = !strcmp(py->markers.os_name, "nt");
	if (py->windows) {
		/* "C:\venv\Lib\site-packages" as "C:/venv/Lib/site-packages": the installer
		 * splits and compares paths at '/', and the seam takes either */
		char *const paths[] = { py->prefix,  py->purelib, py->platlib, py->scripts,
					py->data,    py->include, py->stdlib };
		for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
			for (char *p = paths[i]; p && *p; p++)
				if (*p == '\\')
					*p = '/';
	}
	if (!py->executable || !py->purelib || !py->platlib || !py->scripts || !py->data ||
	    !py->include || !major || !minor || !py->tag_platform || !py->purelib[0] ||
	    !wp_os_path_is_abs(py->purelib)) {
		rc = wp_fail(err, -WPE_ENV,
			     "the interpreter '%s' gave an answer wheelpick cannot use; is it CPython 3?",
			     path);
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
