/* env/detect.c: find this machine's NVIDIA driver, CUDA, GPUs, toolkits, Pythons, libc and OS
 * (Linux, and Windows where the seam's uname says so: its own places, names and driver table). */
#include "env/detect.h"
#include "base/envp.h"
#include "base/buf.h"
#include "base/json.h"
#include "base/mem.h"
#include "base/str.h"
#include "base/vec.h"
#include "env/detect_hw.h"
#include "env/detect_nvlib.h"
#include "env/run.h"
#include "resolver/gpu.h"
#include "base/os/os.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define DEFAULT_TIMEOUT_MS 5000
#define DEFAULT_OUTPUT_MAX (64 << 10)
#define SMALL_FILE_MAX (256 << 10) /* version files are a few KiB; anything bigger is not one */
#define MAX_TOOLKITS 64
#define MAX_JOBS 32

/* Minor version compatibility: from CUDA 11 on, a toolkit X.Y runs on any driver of the X.x
 * range at or above this floor, without the features that need the newer driver
 * (../shared/data/nvidia/cuda_minor_version_compat_min_driver.tsv). */
static const struct compat_row {
	int major, min_minor;
	const char *driver, *windows; /* Linux's floor, Windows' (NULL: none listed) */
} compat_rows[] = {
	{ 13, 0, "580", NULL },
	{ 12, 0, "525.60.13", "528.33" },
	{ 11, 1, "450.80.02", "452.39" },
};

static const char py_probe[] =
	"import sys,sysconfig,platform;print(sys.implementation.name, *sys.version_info[:3], "
	"sysconfig.get_config_var(\"SOABI\") or \"\", platform.machine())";

/* On Windows the last word is the interpreter's own architecture, from sysconfig.get_platform():
 * platform.machine() says AMD64 in a 32-bit Python on 64-bit Windows (it reads
 * PROCESSOR_ARCHITEW6432), and only the interpreter's tells which wheels it takes */
static const char py_probe_windows[] =
	"import sys,sysconfig;p=sysconfig.get_platform();print(sys.implementation.name, "
	"*sys.version_info[:3], sysconfig.get_config_var(\"SOABI\") or \"\", "
	"{\"win32\":\"x86\",\"win-amd64\":\"AMD64\",\"win-arm64\":\"ARM64\"}.get(p,p))";

/* Windows has python.exe (and the py launcher, asked with -0p); python3.exe is only the Store's
 * alias there */
static const char *const python_names_windows[] = { "python" };

static const char *const python_names[] = {
	"python3",     "python3.6",   "python3.7",  "python3.8",  "python3.9",
	"python3.10",  "python3.11",  "python3.12", "python3.13", "python3.14",
	"python3.13t", "python3.14t", /* PEP 703's free-threaded builds, installed beside the others
				       */
};

struct toolkit_probe {
	char *dir;             /* host path of the toolkit root */
	const char *source;
	int major, minor, patch;
	bool have;
	int job;               /* nvcc job that tells the version, or -1 */
};

WP_VEC_OF(strs, char *); /* each string owned */

#define MAX_PY_LAUNCHED 16 /* interpreters `py -0p` lists that are asked */

struct ctx {
	struct wp_detect *d;
	bool windows; /* the seam's uname says Windows: its places, names and driver table */
	char *system32; /* Windows: %SystemRoot%\System32, and NVIDIA's NVSMI folder under
			   %ProgramFiles% */
	char *nvsmi, *program_files;
	char *root;            /* sysroot without its trailing '/'; "" for the host */
	bool host;
	const char *path_env;
	const char *const *envp; /* the environment handed in (base/envp.h): CUDA_HOME,
				    LD_LIBRARY_PATH... */
	const char *lib_dir; /* where NVIDIA's libraries are dlopened from; NULL: the loader's
				search */
	bool dlopen_ok;
	struct wp_nvlib nvml, cuda; /* what each library said (loaded false when not asked or not
				       found) */
	bool smi_found, smi_answered; /* nvidia-smi is on PATH; it printed a driver (so the module
					 is loaded) */
	int smi_status;
	char smi_line[256];    /* nvidia-smi's first line when it failed */
	unsigned pci_ids[WP_DETECT_MAX_GPUS]; /* NVIDIA GPUs on the PCI bus: device ids, 0 when
						 unreadable */
	int n_pci;
	int timeout_ms;
	size_t output_max;
	const struct wp_asks *asks;
	struct strs notes;     /* lesser warnings, appended after the main ones */
	struct strs tk_keys;   /* resolved toolkit roots, to count each toolkit once */
};

/* ---- small helpers ---- */

static char *vformat(const char *fmt, va_list ap)
{
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		return wp_xstrdup(fmt);
	char *s = wp_xmalloc((size_t)n + 1);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	return s;
}

__attribute__((format(printf, 2, 3)))
static void warn(struct ctx *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	wp_vec_push_fields(c->d->warnings, c->d->n_warnings, c->d->cap_warnings, vformat(fmt, ap));
	va_end(ap);
}

__attribute__((format(printf, 2, 3)))
static void note(struct ctx *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	wp_vec_push(&c->notes, vformat(fmt, ap));
	va_end(ap);
}

/* Text from programs and files ends up in JSON and on terminals: keep valid UTF-8 without
 * control characters, and replace anything else with '?'. */
static void sanitize(char *s)
{
	unsigned char *p = (unsigned char *)s;
	while (*p) {
		size_t len = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 :
			     (*p & 0xf8) == 0xf0 ? 4 : 0;
		bool ok = len > 0 && !(len == 1 && (*p < 0x20 || *p == 0x7f)) &&
			  !(len == 2 && *p < 0xc2);
		for (size_t i = 1; ok && i < len; i++)
			ok = (p[i] & 0xc0) == 0x80;
		if (!ok) {
			*p++ = '?';
			continue;
		}
		p += len;
	}
}

static void copy_clean(char *dst, size_t size, struct wp_str s)
{
	size_t n = s.n < size - 1 ? s.n : size - 1;
	memcpy(dst, s.p, n);
	dst[n] = 0;
	/* a cut in the middle of a UTF-8 sequence becomes '?' here */
	sanitize(dst);
}

static char *root_path(const struct ctx *c, const char *abs)
{
	return wp_xasprintf("%s%s", c->root, abs);
}

static bool is_dir(const char *path)
{
	struct wp_os_stat st;
	return wp_os_stat(path, &st) == 0 && WP_S_ISDIR(st.st_mode);
}

static bool is_exec(const char *path)
{
	struct wp_os_stat st;
	return wp_os_stat(path, &st) == 0 && WP_S_ISREG(st.st_mode) &&
	       wp_os_access(path, WP_X_OK) == 0;
}

/* The same file, by its resolved path (the names as given when either cannot be resolved). */
static bool same_file(const char *a, const char *b)
{
	char *ra = wp_os_realpath(a), *rb = wp_os_realpath(b);
	bool same = ra && rb ? !strcmp(ra, rb) : !strcmp(a, b);
	free(ra);
	free(rb);
	return same;
}

static bool is_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\v' || ch == '\f';
}

/* The next whitespace-separated word of s; empty at the end. */
static struct wp_str next_word(struct wp_str *s)
{
	while (s->n && is_space(*s->p)) {
		s->p++;
		s->n--;
	}
	size_t i = 0;
	while (i < s->n && !is_space(s->p[i]))
		i++;
	struct wp_str w = WP_STRN(s->p, i);
	s->p += i;
	s->n -= i;
	return w;
}

static struct wp_str find(struct wp_str s, const char *needle)
{
	size_t n = strlen(needle);
	for (size_t i = 0; n <= s.n && i <= s.n - n; i++)
		if (memcmp(s.p + i, needle, n) == 0)
			return WP_STRN(s.p + i, s.n - i);
	return WP_STRN(s.p + s.n, 0);
}

/* "535.104.05" -> {535, 104, 5}: 1 to max dot-separated numbers and nothing else. Returns how
 * many; 0 when s is not such a version. Missing parts are 0. */
static int parse_version(struct wp_str s, int *v, int max)
{
	int n = 0;
	for (int i = 0; i < max; i++)
		v[i] = 0;
	while (n < max) {
		struct wp_str part = wp_str_cut(&s, '.');
		long long x;
		if (!wp_str_to_ll(part, &x) || x > 999999)
			return 0;
		v[n++] = (int)x;
		if (!s.n) /* "535." ends in a dot: the cut left s just past it */
			return s.p == part.p + part.n ? n : 0;
	}
	return 0; /* more parts than max */
}

/* The leading run of digits and dots of s (after blanks), without a trailing dot. */
static struct wp_str version_prefix(struct wp_str s)
{
	while (s.n && (*s.p == ' ' || *s.p == '\t')) {
		s.p++;
		s.n--;
	}
	size_t i = 0;
	while (i < s.n && ((s.p[i] >= '0' && s.p[i] <= '9') || s.p[i] == '.'))
		i++;
	while (i && s.p[i - 1] == '.')
		i--;
	return WP_STRN(s.p, i);
}

static bool driver_like(struct wp_str w)
{
	int v[3];
	return w.n < 32 && w.n && w.p[0] != '0' && parse_version(w, v, 3) >= 2;
}

static int cmp3(const int *a, const int *b)
{
	for (int i = 0; i < 3; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

static void driver_parts(const char *text, int *v)
{
	if (!parse_version(WP_STR(text), v, 3))
		v[0] = v[1] = v[2] = 0;
}

static int cuda_cmp(int amaj, int amin, int bmaj, int bmin)
{
	if (amaj != bmaj)
		return amaj < bmaj ? -1 : 1;
	return amin < bmin ? -1 : amin > bmin;
}

/* The floor of minor version compatibility for CUDA major.minor on this system; NULL: none. */
static const char *compat_floor(bool windows, int major, int minor)
{
	for (size_t i = 0; i < WP_ARRAY_LEN(compat_rows); i++)
		if (compat_rows[i].major == major && minor >= compat_rows[i].min_minor)
			return windows ? compat_rows[i].windows : compat_rows[i].driver;
	return NULL;
}

static void set_driver(struct ctx *c, struct wp_str w, const char *source)
{
	copy_clean(c->d->driver_version, sizeof(c->d->driver_version), w);
	c->d->driver_source = source;
}

/* ---- running programs ---- */

/* One entry of PATH (';'-separated on Windows, where an entry may be quoted). */
static struct wp_str path_entry(struct wp_str *rest)
{
	struct wp_str dir = wp_str_cut(rest, wp_os_path_list_sep);
	if (dir.n >= 2 && dir.p[0] == '"' && dir.p[dir.n - 1] == '"') {
		dir.p++;
		dir.n -= 2;
	}
	return dir;
}

/* name (".exe" added on Windows) in the first folder of PATH that has it as a program. */
static char *find_program(const struct ctx *c, const char *name)
{
	struct wp_str rest = WP_STR(c->path_env);
	while (rest.n) {
		struct wp_str dir = path_entry(&rest);
		char *p = wp_xasprintf("%.*s%s%s%s", dir.n ? (int)dir.n : 1, dir.n ? dir.p : ".",
				       c->windows ? "\\" : "/", name, wp_os_exe_suffix);
		if (is_exec(p))
			return p;
		free(p);
	}
	return NULL;
}

/* The folder part of a program's path, either separator: ".../bin/nvcc" -> ".../bin". */
static struct wp_str parent_dir(struct wp_str s)
{
	while (s.n && !wp_os_is_sep(s.p[s.n - 1]))
		s.n--;
	while (s.n > 1 && wp_os_is_sep(s.p[s.n - 1]))
		s.n--;
	return s;
}

/* A folder of Windows from the environment handed in: %SystemRoot%\System32 (wheelpick.exe is a
 * 64-bit program, so System32 is the 64-bit folder where the driver puts nvidia-smi.exe, nvml.dll
 * and nvcuda.dll; a 32-bit program would see SysWOW64 there and must ask for Sysnative), and
 * %ProgramFiles%\NVIDIA Corporation\NVSMI, where drivers before the DCH ones (2019) put them
 * (%ProgramW6432% first: a 32-bit program's %ProgramFiles% is "Program Files (x86)"). */
static void windows_dirs(struct ctx *c)
{
	const char *root = wp_envp_get(c->envp, "SystemRoot");
	if (!root)
		root = wp_envp_get(c->envp, "windir");
	const char *pf = wp_envp_get(c->envp, "ProgramW6432");
	if (!pf)
		pf = wp_envp_get(c->envp, "ProgramFiles");
	c->program_files = wp_xstrdup(pf ? pf : "C:\\Program Files");
	c->system32 = wp_xasprintf("%s\\System32", root ? root : "C:\\Windows");
	c->nvsmi = wp_xasprintf("%s\\NVIDIA Corporation\\NVSMI", c->program_files);
}

/* nvidia-smi: on PATH, else (Windows) in the NVSMI folder, then System32. */
static char *find_smi(const struct ctx *c)
{
	char *p = find_program(c, "nvidia-smi");
	for (int i = 0; !p && c->windows && i < 2; i++) {
		p = wp_xasprintf("%s\\nvidia-smi.exe", i ? c->system32 : c->nvsmi);
		if (!is_exec(p)) {
			free(p);
			p = NULL;
		}
	}
	return p;
}

static struct wp_run *job_add(struct wp_run *jobs, size_t *n, char *path, bool merge_stderr)
{
	if (*n >= MAX_JOBS) {
		free(path);
		return NULL;
	}
	struct wp_run *j = &jobs[(*n)++];
	wp_run_init(j, 0);
	j->argv[0] = path;
	j->merge_stderr = merge_stderr;
	return j;
}

/* Run the jobs, a few at a time (a dozen pyenv shims at once can starve a small machine into
 * timing out all of them, python3 included), each with its own time limit and max bytes kept. */
static void run_jobs(struct wp_run *jobs, size_t n, int timeout_ms, size_t max,
		     const char *const *envp)
{
	for (size_t i = 0; i < n; i++) {
		jobs[i].out.max = max;
		jobs[i].envp = envp; /* the programs see the environment detection was handed */
	}
	wp_run_all(jobs, n, 0, timeout_ms);
}

static void job_release(struct wp_run *j)
{
	free((char *)j->argv[0]);
	wp_buf_free(&j->out);
}

/* A job that produced nothing usable says why, once, as a note. */
static void job_note(struct ctx *c, const struct wp_run *j)
{
	if (j->timed_out) {
		note(c, "'%s' did not finish within %g s and was stopped", j->argv[0],
		     c->timeout_ms / 1000.0);
		return;
	}
	if (j->skipped) {
		note(c, "'%s' was not run: hung programs before it used up the time", j->argv[0]);
		return;
	}
	if (!j->started) {
		note(c, "could not run '%s'", j->argv[0]);
		return;
	}
	struct wp_str s = WP_STRN(j->out.data ? j->out.data : "", j->out.len);
	struct wp_str line = WP_STRN("", 0);
	while (s.n && !line.n)
		line = wp_str_trim(wp_str_cut(&s, '\n'));
	char msg[160];
	copy_clean(msg, sizeof(msg), line);
	if (j->status < 0)
		note(c, "'%s' crashed%s%s", j->argv[0], msg[0] ? ": " : "", msg);
	else
		note(c, "'%s' exited with status %d%s%s", j->argv[0], j->status, msg[0] ? ": " : "",
		     msg);
}

/* ---- NVIDIA driver and GPUs ---- */

/* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 ..." or
 * "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  Release Build ...":
 * the first version-looking word after "Kernel Module". */
static bool parse_nvrm(struct wp_str text, struct wp_str *out)
{
	while (text.n) {
		struct wp_str line = wp_str_cut(&text, '\n');
		if (!find(line, "NVRM").n)
			continue;
		struct wp_str rest = find(line, "Kernel Module");
		if (!rest.n)
			rest = line;
		for (struct wp_str w = next_word(&rest); w.n; w = next_word(&rest)) {
			if (driver_like(w)) {
				*out = w;
				return true;
			}
		}
	}
	return false;
}

static void detect_driver_files(struct ctx *c)
{
	struct wp_buf b = WP_BUF_INIT;
	char *p = root_path(c, "/proc/driver/nvidia/version");
	struct wp_str w;
	if (wp_env_read_small(p, SMALL_FILE_MAX, &b) == 0 &&
	    parse_nvrm(WP_STRN(wp_buf_cstr(&b), b.len), &w)) {
		set_driver(c, w, "proc");
		goto out;
	}
	free(p);
	p = root_path(c, "/sys/module/nvidia/version");
	if (wp_env_read_small(p, SMALL_FILE_MAX, &b) == 0) {
		w = wp_str_trim(WP_STRN(wp_buf_cstr(&b), b.len));
		if (driver_like(w))
			set_driver(c, w, "sysfs");
	}
out:
	free(p);
	wp_buf_free(&b);
}

static bool dir_has_entries(const char *path)
{
	struct wp_os_dir *dir = wp_os_opendir(path);
	if (!dir)
		return false;
	bool found = false;
	const struct wp_os_dirent *e;
	while (!found && (e = wp_os_readdir(dir)))
		found = strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	wp_os_closedir(dir);
	return found;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* An NVIDIA display or 3D controller on the PCI bus (vendor 0x10de, class 0x03xxxx) is there
 * whether or not a driver is loaded: what the "no driver" warning needs to know, and the last rung
 * for the GPUs themselves (their device ids, in bus order). */
static bool nvidia_on_pci(struct ctx *c)
{
	char *path = root_path(c, "/sys/bus/pci/devices");
	struct wp_os_dir *dir = wp_os_opendir(path);
	struct wp_buf b = WP_BUF_INIT;
	const struct wp_os_dirent *e;
	struct strs names = { 0 };
	while (dir && (e = wp_os_readdir(dir)) && names.n < 4096)
		if (e->d_name[0] != '.')
			wp_vec_push(&names, wp_xstrdup(e->d_name));
	if (names.n)
		qsort(names.v, names.n, sizeof(*names.v), cmp_str);
	for (size_t i = 0; i < names.n && c->n_pci < WP_DETECT_MAX_GPUS; i++) {
		char *f = wp_xasprintf("%s/%s/vendor", path, names.v[i]);
		bool nv = wp_env_read_small(f, 64, &b) == 0 &&
			  wp_str_eq(wp_str_trim(WP_STRN(wp_buf_cstr(&b), b.len)), "0x10de");
		free(f);
		if (!nv)
			continue;
		f = wp_xasprintf("%s/%s/class", path, names.v[i]);
		bool gpu = wp_env_read_small(f, 64, &b) == 0 &&
			   wp_str_startswith(WP_STR(wp_buf_cstr(&b)), "0x03");
		free(f);
		if (!gpu)
			continue;
		f = wp_xasprintf("%s/%s/device", path, names.v[i]);
		unsigned id = 0;
		if (wp_env_read_small(f, 64, &b) == 0) {
			char *end = NULL;
			unsigned long v = strtoul(wp_buf_cstr(&b), &end, 16);
			id = end != wp_buf_cstr(&b) && v <= 0xffff ? (unsigned)v : 0;
		}
		free(f);
		c->pci_ids[c->n_pci++] = id;
	}
	for (size_t i = 0; i < names.n; i++)
		free(names.v[i]);
	wp_vec_free(&names);
	if (dir)
		wp_os_closedir(dir);
	wp_buf_free(&b);
	free(path);
	return c->n_pci > 0;
}

bool wp_detect_python_free_threaded(const struct wp_detect_python *py)
{
	/* Windows: "cp313t-win_amd64", the part before the first dash */
	if (!strncmp(py->soabi, "cp", 2) && py->soabi[2] >= '0' && py->soabi[2] <= '9') {
		const char *d = strchr(py->soabi, '-');
		return !strcmp(py->impl, "cpython") && d && d[-1] == 't';
	}
	/* "cpython-313t-x86_64-linux-gnu": the version part ends in t */
	const char *dash = strchr(py->soabi, '-');
	const char *end = dash ? strchr(dash + 1, '-') : NULL;
	return !strcmp(py->impl, "cpython") && dash &&
	       (end ? end > dash + 1 && end[-1] == 't' : py->soabi[strlen(py->soabi) - 1] == 't');
}

static void detect_gpu_hardware(struct ctx *c)
{
	char *gpus = root_path(c, "/proc/driver/nvidia/gpus");
	char *dev = root_path(c, "/dev/nvidia0");
	struct wp_os_stat st;
	bool pci = nvidia_on_pci(c);
	c->d->gpu_hardware = dir_has_entries(gpus) || wp_os_stat(dev, &st) == 0 || pci;
	free(gpus);
	free(dev);
}

static void add_gpu(struct ctx *c, struct wp_str name, int cc_major, int cc_minor)
{
	struct wp_detect *d = c->d;
	if (d->n_gpus >= WP_DETECT_MAX_GPUS)
		return;
	struct wp_detect_gpu *g = &d->gpus[d->n_gpus++];
	copy_clean(g->name, sizeof(g->name), name);
	g->cc_major = cc_major;
	g->cc_minor = cc_minor;
}

/* Where NVIDIA's library is loaded from (cand[3] filled, NULL-terminated, each freed by the
 * caller): lib_dir's copy when given; else on Linux the loader's search, on Windows the driver's
 * own folders by full path (System32, and for NVML the NVSMI folder), never the DLL search order
 * (the program's folder, the current one, PATH: a planted DLL would be loaded). */
static void nvlib_candidates(const struct ctx *c, bool nvml, char **cand)
{
	const char *name = c->windows ? (nvml ? "nvml.dll" : "nvcuda.dll") :
					(nvml ? "libnvidia-ml.so.1" : "libcuda.so.1");
	size_t n = 0;
	if (c->lib_dir)
		cand[n++] = wp_xasprintf("%s/%s", c->lib_dir, name);
	else if (!c->windows)
		cand[n++] = wp_xstrdup(name);
	else {
		cand[n++] = wp_xasprintf("%s\\%s", c->system32, name);
		if (nvml)
			cand[n++] = wp_xasprintf("%s\\%s", c->nvsmi, name);
	}
	cand[n] = NULL;
}

static void nvlib_ask(const struct ctx *c, bool nvml, struct wp_nvlib *r)
{
	char *cand[3];
	nvlib_candidates(c, nvml, cand);
	if (nvml)
		wp_nvlib_nvml((const char *const *)cand, r);
	else
		wp_nvlib_libcuda((const char *const *)cand, r);
	for (size_t i = 0; cand[i]; i++)
		free(cand[i]);
}

/* NVML, the driver's own answer without starting a program: asked first. Not under a sysroot
 * unless a library folder is given: the library the loader finds would be the host's. */
static void probe_nvml(struct ctx *c)
{
	struct wp_detect *d = c->d;
	if (!c->dlopen_ok)
		return;
	nvlib_ask(c, true, &c->nvml);
	if (!c->nvml.loaded || c->nvml.init_rc != 0)
		return;
	if (!d->driver_version[0] && driver_like(WP_STR(c->nvml.driver)))
		set_driver(c, WP_STR(c->nvml.driver), "nvml");
	if (c->nvml.cuda) {
		d->cuda_major = c->nvml.cuda / 1000;
		d->cuda_minor = c->nvml.cuda % 1000 / 10;
		d->cuda_source = WP_CUDA_SRC_NVML;
	}
	for (int i = 0; i < c->nvml.n_gpus; i++)
		add_gpu(c, WP_STR(c->nvml.gpus[i].name), c->nvml.gpus[i].cc_major,
			c->nvml.gpus[i].cc_minor);
	if (d->n_gpus)
		d->gpu_source = "nvml";
}

/* libcuda after nvidia-smi, for what is still missing. Its cuDriverGetVersion answers from the
 * user-space library alone, even with no kernel module loaded: the figure counts only once cuInit
 * worked (else it is kept for the advice: wp_detect's userspace_cuda_*). */
static void probe_libcuda(struct ctx *c)
{
	struct wp_detect *d = c->d;
	/* nothing left to ask (cuInit can take a second on a real GPU) */
	bool answered = (c->nvml.loaded && c->nvml.init_rc == 0) || c->smi_answered;
	if (!c->dlopen_ok || (answered && d->cuda_major && d->n_gpus))
		return;
	nvlib_ask(c, false, &c->cuda);
	if (!c->cuda.loaded || c->cuda.init_rc != 0)
		return;
	if (c->cuda.cuda && !d->cuda_major) {
		d->cuda_major = c->cuda.cuda / 1000;
		d->cuda_minor = c->cuda.cuda % 1000 / 10;
		d->cuda_source = WP_CUDA_SRC_LIBCUDA;
	}
	if (!d->n_gpus) {
		for (int i = 0; i < c->cuda.n_gpus; i++)
			add_gpu(c, WP_STR(c->cuda.gpus[i].name), c->cuda.gpus[i].cc_major,
				c->cuda.gpus[i].cc_minor);
		if (d->n_gpus)
			d->gpu_source = "libcuda";
	}
}

/* The last rung: the GPUs on the PCI bus, named from NVIDIA's list of PCI device ids. */
static void gpus_from_pci(struct ctx *c)
{
	for (int i = 0; i < c->n_pci; i++) {
		int sm = 0;
		if (!c->pci_ids[i]) /* no device id to tell it by */
			continue;
		const char *name = wp_gpu_from_pci_id(c->pci_ids[i], &sm);
		char unknown[64];
		snprintf(unknown, sizeof(unknown), "NVIDIA GPU (PCI device 0x%04x)", c->pci_ids[i]);
		add_gpu(c, WP_STR(name ? name : unknown), name ? sm / 10 : -1, name ? sm % 10 : -1);
	}
	if (c->d->n_gpus)
		c->d->gpu_source = "pci";
}

static bool same(struct wp_str a, struct wp_str b)
{
	return a.n == b.n && !memcmp(a.p, b.p, a.n);
}

/* The word that ends just before p in s (after blanks), or an empty view. */
static struct wp_str word_before(struct wp_str s, const char *p)
{
	const char *e = p;
	while (e > s.p && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	const char *b = e;
	while (b > s.p && !is_space(b[-1]) && b[-1] != '|')
		b--;
	return WP_STRN(b, (size_t)(e - b));
}

/* The value after "<first> [second] Version:" anywhere in out, whatever the spacing (a blank
 * before the colon too): "CUDA Version: 12.4", and from driver 610 "CUDA UMD Version: 13.3"
 * (second "UMD"); "Driver Version: 550.54.15" or, from 610, "KMD Version: 610.57.04". */
static struct wp_str smi_field(struct wp_str out, const char *const *words, size_t nwords)
{
	for (struct wp_str s = find(out, "Version"); s.n;
	     s = find(WP_STRN(s.p + 7, s.n - 7), "Version")) {
		struct wp_str w = word_before(out, s.p);
		bool ok = false;
		for (size_t i = 0; i < nwords && !ok; i++) {
			struct wp_str want = WP_STR(words[i]);
			struct wp_str first = wp_str_cut(&want, ' ');
			if (want.n) /* two words: "CUDA UMD" */
				ok = same(w, want) && same(word_before(out, w.p), first);
			else
				ok = same(w, first);
		}
		struct wp_str rest = WP_STRN(s.p + 7, s.n - 7);
		while (rest.n && (*rest.p == ' ' || *rest.p == '\t')) {
			rest.p++;
			rest.n--;
		}
		if (ok && rest.n && *rest.p == ':')
			return version_prefix(WP_STRN(rest.p + 1, rest.n - 1));
	}
	return WP_STRN(out.p + out.n, 0);
}

/* "| NVIDIA-SMI 550.54.15   Driver Version: 550.54.15   CUDA Version: 12.4     |", from driver 610
 * "| NVIDIA-SMI 610.57.04   KMD Version: 610.57.04   CUDA UMD Version: 13.3     |" */
static void parse_smi_banner(struct ctx *c, const struct wp_run *j)
{
	static const char *const cuda_words[] = { "CUDA", "CUDA UMD" };
	static const char *const driver_words[] = { "Driver", "KMD" };
	struct wp_str out = WP_STRN(wp_buf_cstr(&j->out), j->out.len);
	struct wp_str s = smi_field(out, cuda_words, WP_ARRAY_LEN(cuda_words));
	int v[2];
	if (s.n && !c->d->cuda_major && parse_version(s, v, 2) == 2 && v[0] > 0 && v[0] < 100 &&
	    v[1] < 100) {
		c->d->cuda_major = v[0];
		c->d->cuda_minor = v[1];
		c->d->cuda_source = WP_CUDA_SRC_NVIDIA_SMI;
	}
	s = smi_field(out, driver_words, WP_ARRAY_LEN(driver_words));
	if (s.n && driver_like(s)) {
		c->smi_answered = true;
		if (!c->d->driver_version[0])
			set_driver(c, s, "nvidia-smi");
	}
}

/* "NVIDIA A100-SXM4-80GB, 8.0, 535.104.05" per GPU (with_cc), or "Tesla K80, 470.82.01".
 * Fields are cut from the right, so a comma in a name cannot shift them. */
static void parse_smi_query(struct ctx *c, const struct wp_run *j, bool with_cc)
{
	struct wp_str s = WP_STRN(wp_buf_cstr(&j->out), j->out.len);
	while (s.n) {
		struct wp_str drv = wp_str_trim(wp_str_cut(&s, '\n'));
		struct wp_str name = wp_str_rcut(&drv, ',');
		struct wp_str cc = WP_STRN("", 0);
		if (with_cc) {
			cc = name;
			name = wp_str_rcut(&cc, ',');
		}
		drv = wp_str_trim(drv);
		cc = wp_str_trim(cc);
		name = wp_str_trim(name);
		if (!name.n || !driver_like(drv))
			continue;
		int v[2] = { -1, -1 };
		if (!with_cc || parse_version(cc, v, 2) != 2)
			v[0] = v[1] = -1;
		add_gpu(c, name, v[0], v[1]);
		c->d->gpu_source = "nvidia-smi";
		c->smi_answered = true;
		if (!c->d->driver_version[0])
			set_driver(c, drv, "nvidia-smi");
	}
}

/* Which state the driver is in, from what answered: a kernel module's version file or a library or
 * program that reached the driver means loaded. User-space pieces with none of that (a container
 * or image with the driver's libraries but no module, or no GPU passed in) run nothing: no CUDA
 * figure is kept, and what each said becomes the message. GPUs nothing else listed come from the
 * PCI bus, and with no driver at all that is the machine a driver is still to be installed on. */
static void decide_driver_state(struct ctx *c)
{
	struct wp_detect *d = c->d;
	bool loaded = (d->driver_source &&
		       (!strcmp(d->driver_source, "proc") || !strcmp(d->driver_source, "sysfs"))) ||
		      (c->nvml.loaded && c->nvml.init_rc == 0) || c->smi_answered ||
		      (c->cuda.loaded && c->cuda.init_rc == 0);
	bool userspace = c->nvml.loaded || c->cuda.loaded || c->smi_found;
	if (!d->n_gpus)
		gpus_from_pci(c);
	if (loaded) {
		d->driver_state = WP_DRIVER_LOADED;
		return;
	}
	if (!userspace) {
		d->driver_state = c->n_pci ? WP_DRIVER_NONE_YET : WP_DRIVER_NONE;
		return;
	}
	d->driver_state = WP_DRIVER_NOT_LOADED;
	d->cuda_major = d->cuda_minor = 0;
	d->cuda_source = WP_CUDA_SRC_NONE;
	if (c->cuda.cuda) {
		d->userspace_cuda_major = c->cuda.cuda / 1000;
		d->userspace_cuda_minor = c->cuda.cuda % 1000 / 10;
	}
	struct wp_buf b = WP_BUF_INIT;
	const char *name;
	if (c->nvml.loaded) {
		name = wp_nvml_error_name(c->nvml.init_rc);
		if (name)
			wp_buf_printf(&b, "nvmlInit_v2 gave %s", name);
		else
			wp_buf_printf(&b, "nvmlInit_v2 gave error %d", c->nvml.init_rc);
	}
	if (c->cuda.loaded) {
		name = wp_cu_error_name(c->cuda.init_rc);
		wp_buf_printf(&b, "%scuInit gave ", b.len ? "; " : "");
		if (name)
			wp_buf_printf(&b, "%s", name);
		else
			wp_buf_printf(&b, "error %d", c->cuda.init_rc);
	}
	if (c->smi_found && c->smi_status)
		wp_buf_printf(&b, "%snvidia-smi exited with status %d%s%s", b.len ? "; " : "",
			      c->smi_status, c->smi_line[0] ? ": " : "", c->smi_line);
	snprintf(d->driver_failure, sizeof(d->driver_failure), "%s", wp_buf_cstr(&b));
	wp_buf_free(&b);
}

static void derive_cuda_from_driver(struct ctx *c)
{
	struct wp_detect *d = c->d;
	if (d->cuda_major || !d->driver_version[0])
		return;
	int major, minor;
	struct wp_driver drv;
	struct wp_err e = WP_ERR_INIT;
	/* Windows drivers have their own numbers in NVIDIA's table (CUDA 11.2: 460.82, not
	 * 460.27.03) */
	if (wp_driver_parse(d->driver_version, &drv, &e) == 0 &&
	    wp_driver_newest_cuda(&drv, c->windows, &major, &minor) == 0) {
		d->cuda_major = major;
		d->cuda_minor = minor;
		d->cuda_source = WP_CUDA_SRC_DRIVER_TABLE;
	}
}

/* ---- CUDA toolkits ---- */

/* nvcc --version: "Cuda compilation tools, release 11.2, V11.2.152" */
static bool parse_nvcc(const struct wp_run *j, int *v)
{
	struct wp_str out = WP_STRN(wp_buf_cstr(&j->out), j->out.len);
	struct wp_str s = find(out, "release ");
	if (!s.n)
		return false;
	s.p += 8;
	s.n -= 8;
	if (parse_version(version_prefix(s), v, 3) < 2)
		return false;
	struct wp_str full = find(s, ", V");
	int w[3];
	if (full.n > 3 &&
	    parse_version(version_prefix(WP_STRN(full.p + 3, full.n - 3)), w, 3) == 3 &&
	    w[0] == v[0] && w[1] == v[1])
		v[2] = w[2];
	else
		v[2] = -1;
	return true;
}

/* version.json ({"cuda": {"version": "12.2.0"}}), else version.txt ("CUDA Version 10.2.89"). */
static const char *read_toolkit_version(const char *dir, int *v)
{
	struct wp_buf b = WP_BUF_INIT;
	const char *source = NULL;
	char *p = wp_xasprintf("%s/version.json", dir);
	if (wp_env_read_small(p, SMALL_FILE_MAX, &b) == 0) {
		const struct wp_json_opts o = { .what = p, .max_bytes = SMALL_FILE_MAX };
		struct wp_json_val *root = NULL;
		/* a broken version.json is passed over for version.txt: no message */
		wp_json_load(b.data, b.len, &o, &root, NULL);
		const char *text = wp_json_get_str(root, "cuda", "version");
		if (text && parse_version(WP_STR(text), v, 3) >= 2)
			source = "version.json";
		wp_json_tree_free(root);
	}
	free(p);
	if (source)
		goto out;
	p = wp_xasprintf("%s/version.txt", dir);
	if (wp_env_read_small(p, SMALL_FILE_MAX, &b) == 0) {
		struct wp_str s = find(WP_STRN(wp_buf_cstr(&b), b.len), "CUDA Version");
		if (s.n && parse_version(version_prefix(WP_STRN(s.p + 12, s.n - 12)), v, 3) >= 2)
			source = "version.txt";
	}
	free(p);
out:
	wp_buf_free(&b);
	return source;
}

static void add_toolkit(struct ctx *c, const struct toolkit_probe *tp)
{
	struct wp_detect *d = c->d;
	char *key = wp_os_realpath(tp->dir);
	if (!key)
		key = wp_xstrdup(tp->dir);
	for (size_t i = 0; i < c->tk_keys.n; i++) {
		if (!strcmp(c->tk_keys.v[i], key)) {
			free(key);
			return;
		}
	}
	if (d->n_toolkits >= MAX_TOOLKITS) {
		free(key);
		return;
	}
	wp_vec_push(&c->tk_keys, key);
	/* a path inside the sysroot is shown as the target machine sees it */
	size_t rl = strlen(c->root);
	const char *shown = key;
	if (rl && !strncmp(key, c->root, rl) && key[rl] == '/')
		shown = key + rl;
	struct wp_detect_toolkit t = { .major = tp->major, .minor = tp->minor, .patch = tp->patch,
				       .path = wp_xstrdup(shown), .source = tp->source };
	sanitize(t.path);
	for (char *q = t.path; c->windows && *q; q++)
		if (*q == '/') /* the seam's resolved paths use '/'; Windows users read '\' */
			*q = '\\';
	wp_vec_push_fields(d->toolkits, d->n_toolkits, d->cap_toolkits, t);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Plan where toolkits are: nvcc on PATH, $CUDA_HOME, $CUDA_PATH, $SYSROOT/usr/local/cuda*.
 * Version files are read now; a root with none gets its nvcc asked (not inside a sysroot, whose
 * binaries may not even run here). */
static size_t plan_toolkits(struct ctx *c, struct toolkit_probe *tp, size_t max,
			    struct wp_run *jobs, size_t *nj)
{
	size_t n = 0;
	char *nvcc = find_program(c, "nvcc");
	if (nvcc) {
		char *real = wp_os_realpath(nvcc);
		struct wp_str top = parent_dir(parent_dir(WP_STR(real ? real : nvcc)));
		tp[n] = (struct toolkit_probe){ .dir = wp_xstrndup(top.p, top.n),
						.source = "nvcc",
						.job = -1 };
		free(real);
		if (job_add(jobs, nj, nvcc, false)) {
			jobs[*nj - 1].argv[1] = "--version";
			tp[n].job = (int)*nj - 1;
		}
		n++;
	}

	struct strs dirs = { 0 };
	const char *envs[] = { "CUDA_HOME", "CUDA_PATH" };
	const char *env_source[MAX_TOOLKITS];
	for (size_t i = 0; i < WP_ARRAY_LEN(envs); i++) {
		const char *e = wp_envp_get(c->envp, envs[i]);
		if (e && *e) {
			env_source[dirs.n] = envs[i];
			wp_vec_push(&dirs, wp_xstrdup(e));
		}
	}
	/* Windows' installer sets CUDA_PATH_V<major>_<minor> for each toolkit (CUDA_PATH for the
	 * last one installed) */
	for (size_t i = 0; c->windows && c->envp && c->envp[i] && dirs.n < max; i++) {
		const char *eq = strchr(c->envp[i], '=');
		if (strncasecmp(c->envp[i], "CUDA_PATH_V", 11) || !eq || !eq[1])
			continue;
		env_source[dirs.n] = "CUDA_PATH_Vx_y";
		wp_vec_push(&dirs, wp_xstrdup(eq + 1));
	}
	size_t n_env = dirs.n;
	/* the default places: /usr/local/cuda*, and on Windows
	 * %ProgramFiles%\NVIDIA GPU Computing Toolkit\CUDA\v* */
	char *local = c->windows ? wp_xasprintf("%s\\NVIDIA GPU Computing Toolkit\\CUDA",
						c->program_files) :
				   root_path(c, "/usr/local");
	const char *prefix = c->windows ? "v" : "cuda";
	struct wp_os_dir *dir = wp_os_opendir(local);
	const struct wp_os_dirent *e;
	while (dir && (e = wp_os_readdir(dir)) && dirs.n - n_env < max) {
		if (strncmp(e->d_name, prefix, strlen(prefix)))
			continue;
		char *p = wp_xasprintf("%s%s%s", local, c->windows ? "\\" : "/", e->d_name);
		if (is_dir(p))
			wp_vec_push(&dirs, p);
		else
			free(p);
	}
	if (dir)
		wp_os_closedir(dir);
	free(local);
	if (dirs.n > n_env)
		qsort(dirs.v + n_env, dirs.n - n_env, sizeof(*dirs.v), cmp_names);

	for (size_t i = 0; i < dirs.n; i++) {
		const char *source = i < n_env ? env_source[i] : NULL;
		int v[3];
		const char *file_source = n < max ? read_toolkit_version(dirs.v[i], v) : NULL;
		if (file_source) {
			tp[n++] = (struct toolkit_probe){ .dir = dirs.v[i],
							  .source = source ? source : file_source,
							  .major = v[0],
							  .minor = v[1],
							  .patch = v[2],
							  .have = true,
							  .job = -1 };
			continue;
		}
		char *bin = wp_xasprintf("%s/bin/nvcc%s", dirs.v[i], wp_os_exe_suffix);
		if (n < max && (source || c->host) && is_exec(bin) && *nj < MAX_JOBS) {
			job_add(jobs, nj, bin, false);
			jobs[*nj - 1].argv[1] = "--version";
			tp[n++] = (struct toolkit_probe){ .dir = dirs.v[i],
							  .source = source ? source : "nvcc",
							  .job = (int)*nj - 1 };
			continue;
		}
		free(bin);
		free(dirs.v[i]);
	}
	wp_vec_free(&dirs);
	return n;
}

/* ---- Python, libc ---- */

/* "cpython 3 11 7 cpython-311-x86_64-linux-gnu x86_64"; SOABI may be empty (5 words). */
static bool parse_python(const struct wp_run *j, struct wp_detect_python *py)
{
	struct wp_str s = WP_STRN(wp_buf_cstr(&j->out), j->out.len);
	struct wp_str line = wp_str_trim(wp_str_cut(&s, '\n'));
	struct wp_str w[7];
	int n = 0;
	for (struct wp_str x = next_word(&line); x.n; x = next_word(&line)) {
		if (n == 6)
			return false;
		w[n++] = x;
	}
	if (n != 5 && n != 6)
		return false;
	long long v[3];
	for (int i = 0; i < 3; i++)
		if (!wp_str_to_ll(w[i + 1], &v[i]) || v[i] > 1000)
			return false;
	copy_clean(py->impl, sizeof(py->impl), w[0]);
	py->major = (int)v[0];
	py->minor = (int)v[1];
	py->micro = (int)v[2];
	copy_clean(py->soabi, sizeof(py->soabi), n == 6 ? w[4] : WP_STRN("", 0));
	copy_clean(py->machine, sizeof(py->machine), w[n - 1]);
	return true;
}

static void set_libc(struct ctx *c, struct wp_str ver, bool musl)
{
	int v[3];
	if (parse_version(ver, v, 3) < 2 || (!musl && v[0] != 2))
		return;
	if (musl) {
		c->d->musl_major = v[0];
		c->d->musl_minor = v[1];
	} else {
		c->d->glibc_major = v[0];
		c->d->glibc_minor = v[1];
	}
}

/* glibc: "ldd (Debian GLIBC 2.36-9+deb12u4) 2.36" (version last on the first line).
 * musl: "musl libc (x86_64)\nVersion 1.2.3\n..." on stderr, exit status 1. */
static void parse_ldd(struct ctx *c, const struct wp_run *j)
{
	struct wp_str out = WP_STRN(wp_buf_cstr(&j->out), j->out.len);
	if (find(out, "musl libc").n) {
		struct wp_str s = find(out, "Version ");
		if (s.n)
			set_libc(c, version_prefix(WP_STRN(s.p + 8, s.n - 8)), true);
		return;
	}
	struct wp_str line = wp_str_cut(&out, '\n');
	struct wp_str last = WP_STRN("", 0);
	for (struct wp_str w = next_word(&line); w.n; w = next_word(&line))
		last = w;
	set_libc(c, last, false);
}

/* ---- warnings ---- */

static void warn_toolkits(struct ctx *c)
{
	struct wp_detect *d = c->d;
	int drv[3], need[3], floor[3];
	bool have_drv = d->driver_version[0] != 0;
	if (have_drv)
		driver_parts(d->driver_version, drv);
	for (size_t i = 0; i < d->n_toolkits; i++) {
		const struct wp_detect_toolkit *t = &d->toolkits[i];
		const char *row_driver = NULL; /* the lowest driver of that CUDA release */
		bool known =
			wp_cuda_min_driver_os(t->major, t->minor, c->windows, &row_driver) == 0;
		const char *compat = compat_floor(c->windows, t->major, t->minor);
		bool newer = d->cuda_major &&
			     cuda_cmp(t->major, t->minor, d->cuda_major, d->cuda_minor) > 0;
		if (have_drv && known) {
			driver_parts(row_driver, need);
			if (cmp3(drv, need) >= 0)
				continue;
			if (compat)
				driver_parts(compat, floor);
			if (compat && cmp3(drv, floor) >= 0) {
				warn(c,
				     "driver %s is older than the CUDA %d.%d toolkit at '%s' needs (>= %s); "
				     "its programs run only through minor version compatibility (CUDA %d.x on >= %s), "
				     "without features that need the newer driver and without JIT-compiling its PTX",
				     d->driver_version, t->major, t->minor, t->path, row_driver,
				     t->major, compat);
				continue;
			}
			char drv_cuda[64] = "";
			if (d->cuda_major)
				snprintf(drv_cuda, sizeof(drv_cuda),
					 "; the driver runs CUDA %d.%d at most", d->cuda_major,
					 d->cuda_minor);
			if (compat)
				warn(c,
				     "driver %s is too old for the CUDA %d.%d toolkit at '%s' (it needs >= %s, or >= %s "
				     "with minor version compatibility)%s; programs it builds fail with "
				     "'CUDA driver version is insufficient'",
				     d->driver_version, t->major, t->minor, t->path, row_driver,
				     compat, drv_cuda);
			else
				warn(c,
				     "driver %s is too old for the CUDA %d.%d toolkit at '%s' (it needs >= %s)%s; "
				     "programs it builds fail with 'CUDA driver version is insufficient'",
				     d->driver_version, t->major, t->minor, t->path, row_driver,
				     drv_cuda);
			continue;
		}
		if (newer)
			warn(c,
			     "the CUDA %d.%d toolkit at '%s' is newer than the CUDA %d.%d the driver supports",
			     t->major, t->minor, t->path, d->cuda_major, d->cuda_minor);
	}
}

static bool dir_has_prefix(const char *dir, const char *prefix)
{
	struct wp_os_dir *dd = wp_os_opendir(dir);
	if (!dd)
		return false;
	size_t n = strlen(prefix);
	bool found = false;
	const struct wp_os_dirent *e;
	while (!found && (e = wp_os_readdir(dd)))
		found = !strncmp(e->d_name, prefix, n);
	wp_os_closedir(dd);
	return found;
}

/* The CUDA runtime in dir, from its file names: libcudart.so.12.4.127 is 12.4 (*minor -1 when
 * only the soname's major is there: libcudart.so.12, libcudart.so.11.0). False when none. */
static bool dir_runtime_version(const char *dir, int *major, int *minor)
{
	struct wp_os_dir *dd = wp_os_opendir(dir);
	const struct wp_os_dirent *e;
	bool found = false;
	*major = 0;
	*minor = -1;
	while (dd && (e = wp_os_readdir(dd))) {
		int a = 0, b = 0, c = 0, n = 0;
		if (strncmp(e->d_name, "libcudart.so.", 13))
			continue;
		n = sscanf(e->d_name + 13, "%d.%d.%d", &a, &b, &c);
		if (n < 1 || a <= 0)
			continue;
		found = true;
		if (a > *major) {
			*major = a;
			*minor = n == 3 ? b : -1;
		} else if (a == *major && n == 3 && b > *minor) {
			*minor = b;
		}
	}
	if (dd)
		wp_os_closedir(dd);
	return found;
}

/* What one CUDA runtime directory on LD_LIBRARY_PATH does to PyTorch's wheels: newer than the
 * driver runs, it fails to start; with the libraries the nvidia-* wheels ship (cuBLAS, cuDNN,
 * NCCL), it is searched before theirs, and a mismatch fails with 'undefined symbol'. */
static void warn_runtime_dir(struct ctx *c, const char *dir)
{
	struct wp_detect *d = c->d;
	int M, m;
	if (!dir_runtime_version(dir, &M, &m))
		return;
	char shown[PATH_MAX];
	snprintf(shown, sizeof(shown), "%s", dir);
	sanitize(shown);
	if (d->cuda_major && (M > d->cuda_major || (M == d->cuda_major && m > d->cuda_minor))) {
		char v[16];
		snprintf(v, sizeof(v), m >= 0 ? "%d.%d" : "%d", M, m);
		warn(c,
		     "LD_LIBRARY_PATH names a CUDA %s runtime ('%s'), newer than driver %s runs (CUDA %d.%d)%s",
		     v, shown, d->driver_version[0] ? d->driver_version : "?", d->cuda_major,
		     d->cuda_minor,
		     M > d->cuda_major ?
			     ": programs that load it fail ('CUDA driver version is insufficient')" :
			     ": it runs only through minor version compatibility, without JIT-compiling PTX");
	}
	static const char *const wheel_libs[] = { "libcublas.so", "libcudnn.so", "libnccl.so",
						  "libcusparse.so" };
	for (size_t i = 0; i < sizeof(wheel_libs) / sizeof(wheel_libs[0]); i++)
		if (dir_has_prefix(dir, wheel_libs[i])) {
			warn(c,
			     "LD_LIBRARY_PATH names '%s', which holds %s*: it is searched before the libraries of the "
			     "nvidia-* wheels that PyTorch's CUDA wheels load, so its copies load instead (a version "
			     "mismatch fails with 'undefined symbol'); unset LD_LIBRARY_PATH to run PyTorch from pip",
			     shown, wheel_libs[i]);
			break;
		}
}

/* Several CUDA runtimes on LD_LIBRARY_PATH: the first one wins, often not the one meant. A
 * driver stub directory there shadows the real libcuda. */
static void warn_ld_library_path(struct ctx *c)
{
	const char *env = wp_envp_get(c->envp, "LD_LIBRARY_PATH");
	if (!env)
		return;
	struct strs seen = { 0 };
	struct wp_buf list = WP_BUF_INIT;
	struct wp_str rest = WP_STR(env);
	while (rest.n) {
		struct wp_str part = wp_str_cut(&rest, ':');
		if (!part.n)
			continue;
		char *dir = wp_xstrndup(part.p, part.n);
		char *real = wp_os_realpath(dir);
		bool dup = false;
		for (size_t i = 0; real && i < seen.n; i++)
			dup |= !strcmp(seen.v[i], real);
		if (real && !dup) {
			if (dir_has_prefix(real, "libcudart.so")) {
				warn_runtime_dir(c, dir);
				wp_buf_printf(&list, "%s'%s'", seen.n ? ", " : "", dir);
				wp_vec_push(&seen, real);
				real = NULL;
			}
			struct wp_str ds = WP_STR(dir);
			while (ds.n > 1 && ds.p[ds.n - 1] == '/')
				ds.n--;
			if (wp_str_endswith(ds, "stubs") && dir_has_prefix(dir, "libcuda.so"))
				warn(c,
				     "LD_LIBRARY_PATH names the CUDA driver stub directory '%s'; programs that load "
				     "its libcuda instead of the driver's fail ('CUDA driver is a stub library')",
				     dir);
		}
		free(real);
		free(dir);
	}
	if (seen.n > 1) {
		sanitize(list.data);
		warn(c,
		     "LD_LIBRARY_PATH names %zu CUDA runtime directories (%s); the first one wins, which may "
		     "not be the CUDA you expect",
		     seen.n, wp_buf_cstr(&list));
	}
	for (size_t i = 0; i < seen.n; i++)
		free(seen.v[i]);
	wp_vec_free(&seen);
	wp_buf_free(&list);
}

/* The first folder on PATH that holds a CUDA toolkit's programs or runtime (nvcc.exe,
 * cudart64_*.dll); NULL when none. */
static char *first_cuda_bin(const struct ctx *c)
{
	struct wp_str rest = WP_STR(c->path_env);
	while (rest.n) {
		struct wp_str e = path_entry(&rest);
		if (!e.n)
			continue;
		char *dir = wp_xstrndup(e.p, e.n);
		char *nvcc = wp_xasprintf("%s/nvcc%s", dir, wp_os_exe_suffix);
		bool cuda = is_exec(nvcc) || dir_has_prefix(dir, "cudart64_");
		free(nvcc);
		if (cuda)
			return dir;
		free(dir);
	}
	return NULL;
}

/* Windows: CUDA_PATH is the toolkit a user installed for building (nvcc, the CUDA DLLs in its
 * bin), not the CUDA the driver runs, and PyTorch's wheels bring their own CUDA runtime: said when
 * the two differ, as LD_LIBRARY_PATH's runtimes are on Linux. Which toolkit's DLLs a program that
 * takes them from PATH gets is the first CUDA bin folder on PATH: warned when that is not
 * CUDA_PATH's. */
static void warn_cuda_path(struct ctx *c)
{
	struct wp_detect *d = c->d;
	const char *cp = wp_envp_get(c->envp, "CUDA_PATH");
	if (!cp)
		return;
	int v[3] = { 0, 0, 0 }, w[3] = { 0, 0, 0 };
	bool known = read_toolkit_version(cp, v) != NULL;
	char shown[PATH_MAX];
	snprintf(shown, sizeof(shown), "%s", cp);
	sanitize(shown);
	if (known && d->cuda_major && cuda_cmp(v[0], v[1], d->cuda_major, d->cuda_minor))
		note(c,
		     "CUDA_PATH names the CUDA %d.%d toolkit at '%s': the toolkit installed for "
		     "building (nvcc, its DLLs), not the CUDA the driver runs (%d.%d, driver %s); "
		     "PyTorch's CUDA wheels bring their own CUDA runtime and need only the driver",
		     v[0], v[1], shown, d->cuda_major, d->cuda_minor,
		     d->driver_version[0] ? d->driver_version : "?");
	char *first = first_cuda_bin(c);
	char *want = wp_xasprintf("%s\\bin", cp);
	if (first && !same_file(first, want)) {
		char *top = wp_xstrndup(parent_dir(WP_STR(first)).p, parent_dir(WP_STR(first)).n);
		char ver[32] = "";
		if (read_toolkit_version(top, w))
			snprintf(ver, sizeof(ver), " (CUDA %d.%d)", w[0], w[1]);
		char fshown[PATH_MAX];
		snprintf(fshown, sizeof(fshown), "%s", first);
		sanitize(fshown);
		char cver[32] = "";
		if (known)
			snprintf(cver, sizeof(cver), " (CUDA %d.%d)", v[0], v[1]);
		warn(c,
		     "PATH puts the CUDA folder '%s'%s before CUDA_PATH's '%s\\bin'%s: programs "
		     "that take nvcc or the CUDA DLLs (cudart64_*.dll, cuDNN) from PATH get that "
		     "one, not CUDA_PATH's",
		     fshown, ver, shown, cver);
		free(top);
	}
	free(first);
	free(want);
}

/* ---- the whole run ---- */

static void detect_libc(struct ctx *c, struct wp_run *jobs, size_t *nj, int *ldd_job)
{
	*ldd_job = -1;
	if (c->host) {
		const char *v = wp_os_libc_version();
		if (v) {
			set_libc(c, WP_STR(v), false);
			return;
		}
	} else {
		struct wp_buf b = WP_BUF_INIT;
		char *hook = root_path(c, "/etc/wheelpick-glibc");
		bool hooked = wp_env_read_small(hook, 64, &b) == 0;
		if (hooked)
			set_libc(c, wp_str_trim(WP_STRN(wp_buf_cstr(&b), b.len)), false);
		free(hook);
		wp_buf_free(&b);
		if (hooked)
			return;
	}
	char *ldd = find_program(c, "ldd");
	if (ldd && job_add(jobs, nj, ldd, true)) {
		jobs[*nj - 1].argv[1] = "--version";
		*ldd_job = (int)*nj - 1;
	}
}

static void detect_uname(struct wp_detect *d)
{
	char sys[65], rel[65], mach[65]; /* struct utsname's sizes */
	if (wp_os_uname(sys, sizeof(sys), rel, sizeof(rel), mach, sizeof(mach)) < 0)
		return;
	copy_clean(d->os, sizeof(d->os), WP_STR(sys));
	copy_clean(d->os_release, sizeof(d->os_release), WP_STR(rel));
	copy_clean(d->machine, sizeof(d->machine), WP_STR(mach));
}

static void pick_default_python(struct ctx *c, bool have_python3, int launcher_default)
{
	struct wp_detect *d = c->d;
	if (have_python3 || !d->n_pythons)
		return;
	if (launcher_default >= 0) {
		/* what `py` runs with no version asked for */
		d->default_python = launcher_default;
		note(c,
		     "no working 'python' on PATH; the target Python is the py launcher's default "
		     "'%s' (%d.%d)",
		     d->pythons[launcher_default].path, d->pythons[launcher_default].major,
		     d->pythons[launcher_default].minor);
		return;
	}
	size_t best = 0;
	for (size_t i = 1; i < d->n_pythons; i++)
		if (cuda_cmp(d->pythons[i].major, d->pythons[i].minor, d->pythons[best].major,
			     d->pythons[best].minor) > 0)
			best = i;
	d->default_python = (int)best;
	warn(c, "no working '%s' on PATH; the target Python is '%s' (%d.%d)",
	     c->windows ? "python" : "python3", d->pythons[best].path, d->pythons[best].major,
	     d->pythons[best].minor);
}

/* Everything that needs a program is started at once and shares one deadline. */
struct plan {
	struct wp_run jobs[MAX_JOBS];
	size_t nj;
	int smi_banner, smi_query, ldd, py_launcher;
	int py[WP_ARRAY_LEN(python_names)];
	struct toolkit_probe tp[MAX_TOOLKITS];
	size_t ntp;
};

static void plan_smi(struct ctx *c, struct plan *pl, const char *smi)
{
	struct wp_detect *d = c->d;
	if (!smi)
		return;
	if (!d->cuda_major && job_add(pl->jobs, &pl->nj, wp_xstrdup(smi), true))
		pl->smi_banner = (int)pl->nj - 1;
	if ((!d->n_gpus || !d->driver_version[0]) &&
	    job_add(pl->jobs, &pl->nj, wp_xstrdup(smi), true)) {
		pl->smi_query = (int)pl->nj - 1;
		pl->jobs[pl->nj - 1].argv[1] = "--query-gpu=name,compute_cap,driver_version";
		pl->jobs[pl->nj - 1].argv[2] = "--format=csv,noheader";
	}
}

/* The interpreters' names on PATH on this system. */
static const char *const *py_names(const struct ctx *c, size_t *n)
{
	*n = c->windows ? WP_ARRAY_LEN(python_names_windows) : WP_ARRAY_LEN(python_names);
	return c->windows ? python_names_windows : python_names;
}

static void plan_pythons(struct ctx *c, struct plan *pl)
{
	char *real[WP_ARRAY_LEN(python_names)] = { 0 };
	size_t nn;
	const char *const *names = py_names(c, &nn);
	for (size_t i = 0; i < WP_ARRAY_LEN(python_names); i++)
		pl->py[i] = -1;
	pl->py_launcher = -1;
	/* Windows' Python launcher lists every interpreter it knows (the registry's, PEP 514) */
	char *py = c->windows ? find_program(c, "py") : NULL;
	if (py && job_add(pl->jobs, &pl->nj, py, false)) {
		pl->py_launcher = (int)pl->nj - 1;
		pl->jobs[pl->nj - 1].argv[1] = "-0p";
	}
	for (size_t i = 0; i < nn; i++) {
		char *p = find_program(c, names[i]);
		if (!p)
			continue;
		/* python3 is often a link to one of the python3.N: ask it once */
		real[i] = wp_os_realpath(p);
		bool dup = false;
		for (size_t k = 0; real[i] && k < i; k++)
			dup |= real[k] && !strcmp(real[k], real[i]);
		if (dup) {
			free(p);
			continue;
		}
		if (!job_add(pl->jobs, &pl->nj, p, false))
			continue;
		pl->py[i] = (int)pl->nj - 1;
		pl->jobs[pl->nj - 1].argv[1] = "-c";
		pl->jobs[pl->nj - 1].argv[2] = c->windows ? py_probe_windows : py_probe;
	}
	for (size_t i = 0; i < nn; i++)
		free(real[i]);
}

/* nvidia-smi's status and first line, for the message when the driver is not loaded */
static void smi_failure(struct ctx *c, const struct wp_run *j)
{
	struct wp_str s = WP_STRN(j->out.data ? j->out.data : "", j->out.len);
	struct wp_str line = WP_STRN("", 0);
	while (s.n && !line.n)
		line = wp_str_trim(wp_str_cut(&s, '\n'));
	c->smi_status = j->status;
	copy_clean(c->smi_line, sizeof(c->smi_line), line);
}

/* true when the driver is too old to know compute_cap: it refuses the whole query, and the
 * query has to be asked again without it */
static bool collect_smi(struct ctx *c, const struct plan *pl)
{
	const struct wp_run *banner = pl->smi_banner >= 0 ? &pl->jobs[pl->smi_banner] : NULL;
	const struct wp_run *query = pl->smi_query >= 0 ? &pl->jobs[pl->smi_query] : NULL;
	if (banner) {
		parse_smi_banner(c, banner);
		if (banner->status != 0) {
			job_note(c, banner);
			smi_failure(c, banner);
		}
	}
	if (!query)
		return false;
	bool old = query->status > 0 &&
		   find(WP_STRN(wp_buf_cstr(&query->out), query->out.len), "compute_cap").n;
	if (old)
		return true;
	parse_smi_query(c, query, true);
	/* one note is enough when both failed the same way */
	if (query->status != 0 && (!banner || banner->status == 0)) {
		job_note(c, query);
		if (!c->smi_line[0])
			smi_failure(c, query);
	}
	return false;
}

static void collect_toolkits(struct ctx *c, struct plan *pl)
{
	for (size_t i = 0; i < pl->ntp; i++) {
		struct toolkit_probe *tp = &pl->tp[i];
		int v[3];
		if (tp->job >= 0 && parse_nvcc(&pl->jobs[tp->job], v)) {
			tp->major = v[0];
			tp->minor = v[1];
			tp->patch = v[2];
			tp->have = true;
		} else if (tp->job >= 0) {
			job_note(c, &pl->jobs[tp->job]);
		}
		if (tp->have)
			add_toolkit(c, tp);
	}
}

/* The interpreter a probe job asked, added to d->pythons; false when it said nothing usable. */
static bool add_python(struct ctx *c, const struct wp_run *j)
{
	struct wp_detect *d = c->d;
	struct wp_detect_python py;
	memset(&py, 0, sizeof(py));
	if (j->status != 0 || !parse_python(j, &py)) {
		/* exiting non-zero is what a pyenv shim for a version not selected does (and
		 * Windows' Store alias python.exe): quietly skip */
		if (j->timed_out || j->skipped || j->status < 0)
			job_note(c, j);
		return false;
	}
	py.path = wp_xstrdup(j->argv[0]);
	sanitize(py.path);
	wp_vec_push_fields(d->pythons, d->n_pythons, d->cap_pythons, py);
	return true;
}

/* true when python3 (Windows: python) itself answered */
static bool collect_pythons(struct ctx *c, const struct plan *pl)
{
	struct wp_detect *d = c->d;
	bool have_python3 = false;
	for (size_t i = 0; i < WP_ARRAY_LEN(python_names); i++) {
		if (pl->py[i] < 0 || !add_python(c, &pl->jobs[pl->py[i]]))
			continue;
		if (i == 0) {
			have_python3 = true;
			d->default_python = (int)d->n_pythons - 1;
		}
	}
	return have_python3;
}

/* `py -0p`: one interpreter a line, its tag first and the default marked with '*', before the path
 * from launcher 3.11 on (" -V:3.12 *        C:\Python312\python.exe"), after it before
 * (" -3.9-64        C:\Python39\python.exe *"); a path may hold blanks. The paths into paths
 * (each owned), *def the default's index or -1. */
static size_t parse_py_list(struct wp_str out, char **paths, size_t max, int *def)
{
	size_t n = 0;
	*def = -1;
	while (out.n && n < max) {
		struct wp_str line = wp_str_trim(wp_str_cut(&out, '\n'));
		if (!line.n || line.p[0] != '-')
			continue; /* a heading ("Installed Pythons found by py Launcher...") */
		next_word(&line);
		line = wp_str_trim(line);
		bool star = false;
		if (line.n && line.p[0] == '*' && (line.n == 1 || is_space(line.p[1]))) {
			star = true;
			line = wp_str_trim(WP_STRN(line.p + 1, line.n - 1));
		}
		if (line.n >= 2 && line.p[line.n - 1] == '*' && is_space(line.p[line.n - 2])) {
			star = true;
			line = wp_str_trim(WP_STRN(line.p, line.n - 1));
		}
		char *p = wp_xstrndup(line.p, line.n);
		if (!line.n || !wp_os_path_is_abs(p)) {
			free(p);
			continue;
		}
		if (star)
			*def = (int)n;
		paths[n++] = p;
	}
	return n;
}

/* The interpreters the py launcher listed that PATH did not give, asked as the others were. Returns
 * the index in d->pythons of the launcher's default, or -1. */
static int launched_pythons(struct ctx *c, const struct plan *pl)
{
	struct wp_detect *d = c->d;
	if (pl->py_launcher < 0)
		return -1;
	const struct wp_run *lj = &pl->jobs[pl->py_launcher];
	if (lj->status != 0) {
		job_note(c, lj);
		return -1;
	}
	char *paths[MAX_PY_LAUNCHED];
	int def = -1, found = -1;
	size_t n = parse_py_list(WP_STRN(wp_buf_cstr(&lj->out), lj->out.len), paths,
				 MAX_PY_LAUNCHED, &def);
	struct wp_run jobs[MAX_PY_LAUNCHED];
	int of[MAX_PY_LAUNCHED]; /* which path each job asks */
	size_t nj = 0;
	for (size_t i = 0; i < n; i++) {
		bool known = false;
		for (size_t k = 0; k < d->n_pythons && !known; k++)
			if (same_file(paths[i], d->pythons[k].path)) {
				known = true;
				if ((int)i == def)
					found = (int)k;
			}
		if (known) {
			free(paths[i]);
			continue;
		}
		of[nj] = (int)i;
		job_add(jobs, &nj, paths[i], false);
		jobs[nj - 1].argv[1] = "-c";
		jobs[nj - 1].argv[2] = py_probe_windows;
	}
	run_jobs(jobs, nj, c->timeout_ms, c->output_max, c->envp);
	for (size_t i = 0; i < nj; i++) {
		if (add_python(c, &jobs[i]) && of[i] == def)
			found = (int)d->n_pythons - 1;
		job_release(&jobs[i]);
	}
	return found;
}

static void smi_old_query(struct ctx *c, const char *smi)
{
	struct wp_run jobs[1];
	size_t nj = 0;
	struct wp_run *j = job_add(jobs, &nj, wp_xstrdup(smi), true);
	j->argv[1] = "--query-gpu=name,driver_version";
	j->argv[2] = "--format=csv,noheader";
	run_jobs(jobs, nj, c->timeout_ms, c->output_max, c->envp);
	parse_smi_query(c, j, false);
	if (j->status != 0)
		job_note(c, j);
	job_release(j);
}

/* A GPU the driver is too old for: no CUDA build runs on it (H100 needs CUDA 11.8, R520; Blackwell
 * CUDA 12.8, R570). */
static void warn_gpus_driver(struct ctx *c)
{
	struct wp_detect *d = c->d;
	for (int i = 0; d->cuda_major && i < d->n_gpus; i++) {
		int sm = d->gpus[i].cc_major * 10 + d->gpus[i].cc_minor, M, m;
		const char *need = NULL;
		if (d->gpus[i].cc_major < 0 || wp_gpu_min_cuda(sm, &M, &m) < 0 ||
		    cuda_cmp(M, m, d->cuda_major, d->cuda_minor) <= 0)
			continue;
		wp_cuda_min_driver_os(M, m, c->windows, &need);
		warn(c,
		     "the %s (sm_%d) needs CUDA %d.%d or newer (driver %s or newer); driver %s runs CUDA %d.%d at most, so "
		     "no CUDA build runs on it: upgrade the driver",
		     d->gpus[i].name, sm, M, m, need ? need : "?",
		     d->driver_version[0] ? d->driver_version : "?", d->cuda_major, d->cuda_minor);
	}
}

/* A GPU on the PCI bus and no driver: what to install, per GPU, and what the target is. */
static void warn_none_yet(struct ctx *c)
{
	struct wp_detect *d = c->d;
	bool known = false;
	for (int i = 0; i < d->n_gpus; i++) {
		const struct wp_detect_gpu *g = &d->gpus[i];
		int sm = g->cc_major * 10 + g->cc_minor, M, m;
		const char *need = NULL;
		if (g->cc_major < 0) {
			warn(c,
			     "%s is on the PCI bus but its compute capability is not in NVIDIA's list of PCI ids (Turing "
			     "and later) that wheelpick carries; give it with %s",
			     g->name, wp_ask_words(c->asks, WP_ASK_GPU));
			continue;
		}
		known = true;
		if (wp_gpu_min_cuda(sm, &M, &m) == 0 && wp_cuda_min_driver(M, m, &need) == 0)
			warn(c,
			     "no NVIDIA driver is installed yet for the %s (sm_%d) on the PCI bus: it needs driver %s or "
			     "newer (CUDA %d.%d); the CUDA builds picked for it say which driver they need",
			     g->name, sm, need, M, m);
	}
	if (known)
		warn(c,
		     "the target is CUDA builds for these GPUs with the driver still to be installed (driver: none yet)");
	else
		warn(c,
		     "no NVIDIA driver found; the target is CPU builds (give %s to pick CUDA builds anyway)",
		     wp_ask_words(c->asks, WP_ASK_CUDA));
}

/* The ones that change what gets picked come first; notes about programs come last. */
static void add_warnings(struct ctx *c, bool have_python3, int launcher_default)
{
	struct wp_detect *d = c->d;
	if (d->driver_state == WP_DRIVER_NOT_LOADED && c->windows) {
		struct wp_buf parts = WP_BUF_INIT;
		if (c->nvml.loaded)
			wp_buf_printf(&parts, "nvml.dll");
		if (c->cuda.loaded)
			wp_buf_printf(&parts, "%snvcuda.dll", parts.len ? ", " : "");
		if (d->userspace_cuda_major)
			wp_buf_printf(&parts, " (CUDA %d.%d)", d->userspace_cuda_major,
				      d->userspace_cuda_minor);
		if (c->smi_found)
			wp_buf_printf(&parts, "%snvidia-smi.exe", parts.len ? ", " : "");
		warn(c,
		     "NVIDIA's driver is installed (%s) but did not answer: no CUDA program runs "
		     "here until it does (Device Manager shows whether the display adapter's "
		     "driver started; reinstall the driver or restart)%s%s",
		     wp_buf_cstr(&parts), d->driver_failure[0] ? "; the driver said: " : "",
		     d->driver_failure);
		wp_buf_free(&parts);
		warn(c,
		     "no CUDA is claimed; the target is CPU builds (give %s to pick CUDA builds "
		     "anyway)",
		     wp_ask_words(c->asks, WP_ASK_CUDA));
	} else if (d->driver_state == WP_DRIVER_NOT_LOADED) {
		struct wp_buf parts = WP_BUF_INIT;
		if (c->nvml.loaded)
			wp_buf_printf(&parts, "libnvidia-ml.so.1");
		if (c->cuda.loaded)
			wp_buf_printf(&parts, "%slibcuda.so.1", parts.len ? ", " : "");
		if (d->userspace_cuda_major)
			wp_buf_printf(&parts, " (CUDA %d.%d)", d->userspace_cuda_major,
				      d->userspace_cuda_minor);
		if (c->smi_found)
			wp_buf_printf(&parts, "%snvidia-smi", parts.len ? ", " : "");
		warn(c,
		     "NVIDIA's user-space driver is installed (%s) but its kernel module 'nvidia' is not loaded (no "
		     "/proc/driver/nvidia/version or /sys/module/nvidia): no CUDA program runs here until it is "
		     "(modprobe nvidia, or reboot after installing the driver; in a container, start it with the GPUs)%s%s",
		     wp_buf_cstr(&parts), d->driver_failure[0] ? "; the driver said: " : "",
		     d->driver_failure);
		wp_buf_free(&parts);
		if (d->userspace_cuda_major)
			warn(c,
			     "no CUDA is claimed; the target is CPU builds (%s %d.%d to pick for this driver once "
			     "its module is loaded)",
			     wp_ask_words(c->asks, WP_ASK_CUDA_AS), d->userspace_cuda_major,
			     d->userspace_cuda_minor);
		else
			warn(c,
			     "no CUDA is claimed; the target is CPU builds (give %s to pick CUDA builds for this driver "
			     "once its module is loaded)",
			     wp_ask_words(c->asks, WP_ASK_CUDA));
	} else if (d->driver_state == WP_DRIVER_NONE_YET) {
		warn_none_yet(c);
	} else if (!d->cuda_major) {
		if (d->gpu_hardware && !d->driver_version[0])
			warn(c,
			     "NVIDIA GPU hardware is present but no driver version could be read (no "
			     "/proc/driver/nvidia/version, /sys/module/nvidia/version or working nvidia-smi); "
			     "is the driver installed and loaded?");
		if (d->rocm_major && d->n_gfx)
			/* ROCm builds are taken only when asked for: say how, and what a profile
			 * records */
			note(c,
			     "ROCm %d.%d (/opt/rocm/.info/version) and %s%s are here: %s %d.%d to pick ROCm builds "
			     "(a %s profile records them)",
			     d->rocm_major, d->rocm_minor, d->gfx[0],
			     d->n_gfx > 1 ? " and other AMD GPUs" : "",
			     wp_ask_words(c->asks, WP_ASK_ROCM_AS), d->rocm_major, d->rocm_minor,
			     wp_ask_words(c->asks, WP_ASK_PROFILE));
		if (d->driver_version[0])
			warn(c,
			     "driver %s is older than any CUDA release wheelpick knows; the target is CPU builds",
			     d->driver_version);
		else
			warn(c,
			     "no NVIDIA driver found; the target is CPU builds (give %s to pick CUDA builds anyway)",
			     wp_ask_words(c->asks, WP_ASK_CUDA));
	}
	warn_gpus_driver(c);
	warn_toolkits(c);
	if (c->windows)
		warn_cuda_path(c);
	else
		warn_ld_library_path(c);
	pick_default_python(c, have_python3, launcher_default);
	if (!d->n_pythons)
		warn(c, "no Python 3 interpreter found on PATH; give %s",
		     wp_ask_words(c->asks, WP_ASK_PYTHON));
	if (!d->glibc_major && !d->musl_major && !strcmp(d->os, "Linux"))
		warn(c,
		     "could not tell the C library (glibc or musl); the platform is plain linux_%s",
		     d->machine);
	for (size_t i = 0; i < c->notes.n; i++)
		wp_vec_push_fields(d->warnings, d->n_warnings, d->cap_warnings, c->notes.v[i]);
	c->notes.n = 0;
}

static void hw_note(void *ctx, const char *msg)
{
	note(ctx, "%s", msg);
}

int wp_detect_run(struct wp_detect *d, const struct wp_detect_opts *opts, struct wp_err *err)
{
	static const struct wp_detect_opts no_opts;
	if (!opts)
		opts = &no_opts;
	memset(d, 0, sizeof(*d));
	d->default_python = -1;

	int rc = 0;
	struct ctx c = { .d = d };
	struct plan pl = {
		.nj = 0, .smi_banner = -1, .smi_query = -1, .ldd = -1, .py_launcher = -1
	};
	char *smi = NULL;

	c.envp = opts->envp;
	const char *sysroot = opts->sysroot ? opts->sysroot :
					      wp_envp_get(opts->envp, "WHEELPICK_SYSROOT");
	if (!sysroot || !*sysroot)
		sysroot = "/";
	struct wp_str r = WP_STR(sysroot);
	while (r.n && r.p[r.n - 1] == '/')
		r.n--;
	c.host = !r.n;
	/* resolved, so toolkit paths (also resolved) can be shown relative to it */
	c.root = c.host ? wp_xstrdup("") : wp_os_realpath(sysroot);
	if (!c.root || (!c.host && !is_dir(c.root))) {
		rc = wp_fail(err, -WPE_ENV, "sysroot '%s' is not a directory", sysroot);
		goto out;
	}
	if (!strcmp(c.root, "/"))
		c.root[0] = 0;
	c.path_env = opts->path ? opts->path : wp_envp_get(opts->envp, "PATH");
	if (!c.path_env)
		c.path_env = "/usr/local/bin:/usr/bin:/bin";
	c.lib_dir = opts->lib_dir && *opts->lib_dir ? opts->lib_dir : NULL;
	c.dlopen_ok = !opts->no_dlopen && (c.host || c.lib_dir);
	c.timeout_ms = opts->timeout_ms > 0 ? opts->timeout_ms : DEFAULT_TIMEOUT_MS;
	c.output_max = opts->output_max ? opts->output_max : DEFAULT_OUTPUT_MAX;
	c.asks = opts->asks;

	detect_uname(d);
	c.windows = !strcmp(d->os, "Windows");
	if (c.windows) {
		/* no /proc, /sys or PCI bus files there: the driver answers through NVML,
		 * nvidia-smi and nvcuda.dll */
		windows_dirs(&c);
	} else {
		wp_detect_hw(d, c.root, hw_note, &c);
		detect_driver_files(&c);
		detect_gpu_hardware(&c);
	}
	probe_nvml(&c);

	smi = find_smi(&c);
	c.smi_found = smi != NULL;
	plan_smi(&c, &pl, smi);
	pl.ntp = plan_toolkits(&c, pl.tp, MAX_TOOLKITS, pl.jobs, &pl.nj);
	plan_pythons(&c, &pl);
	if (!c.windows)
		detect_libc(&c, pl.jobs, &pl.nj, &pl.ldd);

	run_jobs(pl.jobs, pl.nj, c.timeout_ms, c.output_max, c.envp);

	bool smi_old = collect_smi(&c, &pl);
	collect_toolkits(&c, &pl);
	bool have_python3 = collect_pythons(&c, &pl);
	int launcher_default = launched_pythons(&c, &pl);
	if (pl.ldd >= 0) {
		parse_ldd(&c, &pl.jobs[pl.ldd]);
		if (!d->glibc_major && !d->musl_major && pl.jobs[pl.ldd].timed_out)
			job_note(&c, &pl.jobs[pl.ldd]);
	}
	if (smi_old)
		smi_old_query(&c, smi);
	probe_libcuda(&c);
	decide_driver_state(&c);
	derive_cuda_from_driver(&c);
	/* a GPU nvidia-smi lists is GPU hardware, whatever the files a container shows say */
	if (d->n_gpus)
		d->gpu_hardware = true;
	add_warnings(&c, have_python3, launcher_default);
out:
	free(smi);
	for (size_t i = 0; i < pl.nj; i++)
		job_release(&pl.jobs[i]);
	for (size_t i = 0; i < pl.ntp; i++)
		free(pl.tp[i].dir);
	for (size_t i = 0; i < c.tk_keys.n; i++)
		free(c.tk_keys.v[i]);
	wp_vec_free(&c.tk_keys);
	for (size_t i = 0; i < c.notes.n; i++)
		free(c.notes.v[i]);
	wp_vec_free(&c.notes);
	free(c.root);
	free(c.system32);
	free(c.nvsmi);
	free(c.program_files);
	return rc;
}

void wp_detect_release(struct wp_detect *d)
{
	for (size_t i = 0; i < d->n_toolkits; i++)
		free(d->toolkits[i].path);
	free(d->toolkits);
	for (size_t i = 0; i < d->n_pythons; i++)
		free(d->pythons[i].path);
	free(d->pythons);
	for (size_t i = 0; i < d->n_warnings; i++)
		free(d->warnings[i]);
	free(d->warnings);
	memset(d, 0, sizeof(*d));
	d->default_python = -1;
}

const char *wp_driver_state_name(enum wp_driver_state s)
{
	switch (s) {
	case WP_DRIVER_LOADED:     return "loaded";
	case WP_DRIVER_NOT_LOADED: return "not loaded";
	case WP_DRIVER_NONE_YET:   return "none yet";
	default:                   return "none";
	}
}

const char *wp_cuda_source_name(enum wp_cuda_source s)
{
	switch (s) {
	case WP_CUDA_SRC_NVML:         return "nvml";
	case WP_CUDA_SRC_LIBCUDA:      return "libcuda";
	case WP_CUDA_SRC_NVIDIA_SMI:   return "nvidia-smi";
	case WP_CUDA_SRC_DRIVER_TABLE: return "driver-table";
	default:                       return NULL;
	}
}

/* ---- target ---- */

static const char *impl_tag(const char *name)
{
	static const char *const map[][2] = {
		{ "cpython", "cp" }, { "pypy", "pp" }, { "ironpython", "ip" }, { "jython", "jy" },
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(map); i++)
		if (!strcmp(name, map[i][0]))
			return map[i][1];
	return name;
}

/* The ABI tag when it is not the interpreter's default: "cpython-313t-..." -> "cp313t" (free
 * threading), "pypy39-pp73" -> "pypy39_pp73"; "" for plain cp38, or cp37m on 3.7 and older. */
static void abi_from_soabi(const struct wp_detect_python *py, char *abi, size_t size)
{
	abi[0] = 0;
	struct wp_str s = WP_STR(py->soabi);
	if (!s.n)
		return;
	if (strcmp(py->impl, "cpython")) {
		struct wp_str head = wp_str_cut(&s, '-');
		struct wp_str tail = wp_str_cut(&s, '-');
		if (tail.n)
			snprintf(abi, size, "%.*s_%.*s", WP_STR_FMT(head), WP_STR_FMT(tail));
		return;
	}
	struct wp_str head = wp_str_cut(&s, '-');
	/* "cpython-313t-..." on POSIX, "cp313t-win_amd64" on Windows */
	struct wp_str ver = wp_str_startswith(head, "cp") && head.n > 2 && head.p[2] >= '0' &&
					    head.p[2] <= '9' ?
				    WP_STRN(head.p + 2, head.n - 2) :
				    wp_str_cut(&s, '-');
	char plain[16];
	snprintf(plain, sizeof(plain), "%d%d%s", py->major, py->minor,
		 py->major == 3 && py->minor <= 7 ? "m" : "");
	if (ver.n && !wp_str_eq(ver, plain))
		snprintf(abi, size, "cp%.*s", WP_STR_FMT(ver));
}

static void platform_tag(const struct wp_detect *d, char *out, size_t size)
{
	char arch[32];
	snprintf(arch, sizeof(arch), "%s", d->machine);
	for (char *p = arch; *p; p++)
		if (*p == '-' || *p == '.' || *p == ' ')
			*p = '_';
	out[0] = 0;
	if (!strcmp(d->os, "Linux")) {
		if (d->glibc_major)
			snprintf(out, size, "manylinux_%d_%d_%s", d->glibc_major, d->glibc_minor,
				 arch);
		else if (d->musl_major)
			snprintf(out, size, "musllinux_%d_%d_%s", d->musl_major, d->musl_minor,
				 arch);
		else
			snprintf(out, size, "linux_%s", arch);
	} else if (!strcmp(d->os, "Windows")) {
		/* the default interpreter's machine when it says (an x64 Python on an ARM64 machine
		 * runs emulated and takes win_amd64 wheels, as its pip does), else the system's */
		const char *m = d->machine;
		if (d->default_python >= 0 && (size_t)d->default_python < d->n_pythons &&
		    d->pythons[d->default_python].machine[0])
			m = d->pythons[d->default_python].machine;
		if (!strcasecmp(m, "AMD64") || !strcasecmp(m, "x86_64"))
			snprintf(out, size, "win_amd64");
		else if (!strcasecmp(m, "ARM64") || !strcasecmp(m, "aarch64"))
			snprintf(out, size, "win_arm64");
		else if (!strcasecmp(m, "x86") || !strcasecmp(m, "i386") || !strcasecmp(m, "i686"))
			snprintf(out, size, "win32");
	} else if (!strcmp(d->os, "Darwin")) {
		/* Darwin 20..24 is macOS 11..15, and Darwin 25 is macOS 26; before 20, 10.(N-4) */
		int v[3];
		if (parse_version(version_prefix(WP_STR(d->os_release)), v, 3) < 1)
			return;
		int major = v[0] >= 25 ? v[0] + 1 : v[0] >= 20 ? v[0] - 9 : 10;
		int minor = v[0] >= 20 ? 0 : v[0] - 4;
		if (minor < 0)
			return;
		snprintf(out, size, "macosx_%d_%d_%s", major, minor,
			 !strcmp(arch, "arm64") || !strcmp(arch, "aarch64") ? "arm64" : arch);
	}
}

int wp_detect_profile_target(const struct wp_detect *d, struct wp_target *t)
{
	int rc = wp_detect_to_target(d, t);
	/* a profile describes the machine to pick for elsewhere: its accelerator is ROCm when that
	 * is all it has (no NVIDIA driver runs anything), as `--rocm X.Y --gfx G` would say */
	if (t->accel == WP_ACCEL_CPU && d->rocm_major && d->n_gfx)
		t->accel = WP_ACCEL_ROCM;
	return rc;
}

int wp_detect_to_target(const struct wp_detect *d, struct wp_target *t)
{
	memset(t, 0, sizeof(*t));
	t->py_micro = -1;
	if (d->default_python >= 0 && (size_t)d->default_python < d->n_pythons) {
		const struct wp_detect_python *py = &d->pythons[d->default_python];
		snprintf(t->impl, sizeof(t->impl), "%.7s", impl_tag(py->impl));
		t->py_major = py->major;
		t->py_minor = py->minor;
		t->py_micro = py->micro;
		abi_from_soabi(py, t->abi, sizeof(t->abi));
	}
	bool none_yet = false;
	for (int i = 0; d->driver_state == WP_DRIVER_NONE_YET && i < d->n_gpus; i++)
		none_yet |= d->gpus[i].cc_major >= 0;
	if (none_yet) {
		/* a GPU and no driver: builds for the GPU, as the newest driver would run them; the
		 * pick says which driver they need */
		t->accel = WP_ACCEL_CUDA;
		t->driver_none_yet = true;
		wp_cuda_newest_known(&t->cuda_major, &t->cuda_minor);
	} else if (d->cuda_major) {
		t->accel = WP_ACCEL_CUDA;
		t->cuda_major = d->cuda_major;
		t->cuda_minor = d->cuda_minor;
		/* the driver itself decides what runs (minor-version compatibility needs its
		 * number) */
		struct wp_err e = WP_ERR_INIT;
		if (d->driver_version[0] && wp_driver_parse(d->driver_version, &t->driver, &e) == 0)
			t->driver_given = true;
	} else {
		/* ROCm builds are taken only when asked for (--rocm, or a profile:
		 * wp_detect_profile_target) */
		t->accel = WP_ACCEL_CPU;
	}
	if (d->rocm_major && d->n_gfx) {
		t->rocm_major = d->rocm_major;
		t->rocm_minor = d->rocm_minor;
	}
	for (int i = 0; i < d->n_gfx && t->n_gfx < WP_TARGET_MAX_GPUS; i++)
		snprintf(t->gfx[t->n_gfx++], sizeof(t->gfx[0]), "%s", d->gfx[i]);
	t->x86_64_level = d->x86_64_level;
	for (int i = 0; i < d->n_gpus && t->n_gpus < WP_TARGET_MAX_GPUS; i++)
		if (d->gpus[i].cc_major >= 0 && d->gpus[i].cc_minor >= 0 &&
		    d->gpus[i].cc_minor < 10)
			t->gpu_sm[t->n_gpus++] = d->gpus[i].cc_major * 10 + d->gpus[i].cc_minor;
	if (!strcmp(d->os, "Linux")) {
		t->glibc_major = d->glibc_major;
		t->glibc_minor = d->glibc_minor;
		t->musl_major = d->glibc_major ? 0 : d->musl_major;
		t->musl_minor = d->glibc_major ? 0 : d->musl_minor;
	}
	platform_tag(d, t->platform, sizeof(t->platform));
	return t->platform[0] ? 0 : -WPE_ENV;
}
