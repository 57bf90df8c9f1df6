/* tests/unit/test_detect.c: machine detection against fake sysroots and fake programs on PATH. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tests/unit/tmpdir.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <yajl/yajl_tree.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/mem.h"
#include "resolver/wheelvariant.h" /* the providers' list a profile holds */
#include "env/detect.h"
#include "env/detect_hw.h"
#include "env/python.h"
#include "env/profile.h"
#include "resolver/pick.h"

static char fixtures[PATH_MAX]; /* tests/fixtures/detect, absolute */
static char fakelibs[64];       /* where group_setup built fake_nvml.c and fake_libcuda.c */
static char host_machine[32];

/* One fake machine: <dir>/root is the sysroot, <dir>/bin the only thing on PATH. */
struct fake {
	char dir[64];
	char root[128];
	char bin[128];
	char libdir[128];
	struct wp_detect_opts opts;
	struct wp_detect d;
	bool ran;
	char *env[8];        /* the environment detection is handed (opts.envp), NAME=VALUE */
};

/* Set (value non-NULL) or unset name in the fake machine's environment: a value, not setenv. */
static void fake_env(struct fake *f, const char *name, const char *value)
{
	size_t n = strlen(name), i = 0;
	while (f->env[i] && !(strncmp(f->env[i], name, n) == 0 && f->env[i][n] == '='))
		i++;
	if (f->env[i]) {
		free(f->env[i]);
		for (; f->env[i]; i++)
			f->env[i] = f->env[i + 1];
	}
	if (value) {
		for (i = 0; f->env[i]; i++)
			;
		assert_true(i + 1 < sizeof(f->env) / sizeof(*f->env));
		f->env[i] = wp_xasprintf("%s=%s", name, value);
	}
	f->opts.envp = (const char *const *)f->env;
}

static void mkdirs(const char *path)
{
	char buf[PATH_MAX];
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		mkdir(buf, 0755);
		*p = '/';
	}
	mkdir(buf, 0755);
}

static void put_bytes(const char *path, const char *data, size_t n, mode_t mode)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = 0;
	mkdirs(dir);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	fclose(f);
	chmod(path, mode);
}

static void put(const char *path, const char *text, mode_t mode)
{
	put_bytes(path, text, strlen(text), mode);
}

/* A file inside the sysroot: put_root(f, "/proc/driver/nvidia/version", ...). */
static void put_root(struct fake *f, const char *abs, const char *text)
{
	char *p = wp_xasprintf("%s%s", f->root, abs);
	put(p, text, 0644);
	free(p);
}

/* A shell script on PATH. Only absolute paths inside: PATH holds nothing but the fakes. */
static void script(struct fake *f, const char *name, const char *body)
{
	char *p = wp_xasprintf("%s/%s", f->bin, name);
	char *text = wp_xasprintf("#!/bin/sh\n%s\n", body);
	put(p, text, 0755);
	free(text);
	free(p);
}

/* A program that prints what `printf '%s'` makes of text. */
static void prints(struct fake *f, const char *name, const char *text, int rc)
{
	char *data = wp_xasprintf("%s/%s.out", f->dir, name);
	put(data, text, 0644);
	char *body = wp_xasprintf("/bin/cat '%s'\nexit %d", data, rc);
	script(f, name, body);
	free(body);
	free(data);
}

static void python3(struct fake *f, const char *name, const char *line)
{
	char *text = wp_xasprintf("%s\n", line);
	prints(f, name, text, 0);
	free(text);
}

static const char py310[] = "cpython 3 10 12 cpython-310-x86_64-linux-gnu x86_64";

static int fake_setup(void **state)
{
	struct fake *f = wp_xcalloc(1, sizeof(*f));
	assert_int_equal(test_tmpdir_make(f->dir, sizeof(f->dir), "detect"), 0);
	snprintf(f->root, sizeof(f->root), "%s/root", f->dir);
	snprintf(f->bin, sizeof(f->bin), "%s/bin", f->dir);
	mkdirs(f->root);
	mkdirs(f->bin);
	fake_env(f, "PATH", f->bin);
	f->opts.sysroot = f->root;
	f->opts.timeout_ms = 5000;
	*state = f;
	return 0;
}

static int fake_teardown(void **state)
{
	struct fake *f = *state;
	if (f->ran)
		wp_detect_release(&f->d);
	test_tmpdir_remove(f->dir);
	for (size_t i = 0; f->env[i]; i++)
		free(f->env[i]);
	free(f);
	return 0;
}

/* The ordinary machine around the GPU bits: a python3 and glibc 2.28. */
static void plain_machine(struct fake *f)
{
	python3(f, "python3", py310);
	put_root(f, "/etc/wheelpick-glibc", "2.28\n");
}

static void run(struct fake *f)
{
	struct wp_err err = WP_ERR_INIT;
	if (f->ran)
		wp_detect_release(&f->d);
	int rc = wp_detect_run(&f->d, &f->opts, &err);
	f->ran = true;
	if (rc)
		print_error("wp_detect_run: %s\n", err.msg);
	assert_int_equal(rc, 0);
}

static void dump_warnings(const struct wp_detect *d)
{
	for (size_t i = 0; i < d->n_warnings; i++)
		print_message("  warning: %s\n", d->warnings[i]);
}

static bool has_warning(const struct wp_detect *d, const char *text)
{
	for (size_t i = 0; i < d->n_warnings; i++)
		if (strstr(d->warnings[i], text))
			return true;
	dump_warnings(d);
	print_message("  (no warning contains '%s')\n", text);
	return false;
}

static void json_ok(const struct wp_detect *d)
{
	struct wp_buf b = WP_BUF_INIT;
	assert_int_equal(wp_detect_format_json(d, &b), 0);
	char e[256];
	yajl_val v = yajl_tree_parse(wp_buf_cstr(&b), e, sizeof(e));
	if (!v)
		print_error("%s\n%s\n", e, wp_buf_cstr(&b));
	assert_non_null(v);
	yajl_tree_free(v);
	wp_buf_free(&b);
}

/* ---- the machines in tests/fixtures/detect/machines ---- */

static bool fixture(const char *m, const char *name, char *path, size_t size)
{
	int n = snprintf(path, size, "%s/machines/%s/%s", fixtures, m, name);
	return n > 0 && (size_t)n < size && access(path, R_OK) == 0;
}

static int fixture_rc(const char *m, const char *name)
{
	char path[PATH_MAX];
	if (!fixture(m, name, path, sizeof(path)))
		return 0;
	FILE *fp = fopen(path, "r");
	int rc = 0;
	if (fp && fscanf(fp, "%d", &rc) != 1)
		rc = 0;
	if (fp)
		fclose(fp);
	return rc;
}

static void copy_in(struct fake *f, const char *from, const char *abs)
{
	char buf[1 << 16];
	FILE *fp = fopen(from, "rb");
	assert_non_null(fp);
	size_t n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = 0;
	put_root(f, abs, buf);
}

static void build_machine(struct fake *f, const char *m)
{
	char path[PATH_MAX], *body;
	plain_machine(f);
	if (fixture(m, "proc_version", path, sizeof(path)))
		copy_in(f, path, "/proc/driver/nvidia/version");
	if (fixture(m, "sys_module_version", path, sizeof(path)))
		copy_in(f, path, "/sys/module/nvidia/version");
	if (fixture(m, "pci_nvidia", path, sizeof(path))) {
		put_root(f, "/sys/bus/pci/devices/0000:07:00.0/vendor", "0x10de\n");
		put_root(f, "/sys/bus/pci/devices/0000:07:00.0/class", "0x030200\n");
	}
	/* pci_devices: "SLOT VENDOR DEVICE CLASS" a line, as
	 * /sys/bus/pci/devices/SLOT/{vendor,device,class} */
	if (fixture(m, "pci_devices", path, sizeof(path))) {
		FILE *fp = fopen(path, "r");
		char slot[64], vendor[16], device[16], class[16], abs[160], val[32];
		assert_non_null(fp);
		while (fscanf(fp, "%63s %15s %15s %15s", slot, vendor, device, class) == 4) {
			const char *const files[][2] = { { "vendor", vendor },
							 { "device", device },
							 { "class", class } };
			for (size_t i = 0; i < 3; i++) {
				snprintf(abs, sizeof(abs), "/sys/bus/pci/devices/%s/%s", slot,
					 files[i][0]);
				snprintf(val, sizeof(val), "%s\n", files[i][1]);
				put_root(f, abs, val);
			}
		}
		fclose(fp);
	}
	/* nvml.txt, libcuda.txt: the fake libraries, with what they answer beside them */
	const char *const libs[][3] = { { "nvml.txt", "libnvidia-ml.so.1" },
					{ "libcuda.txt", "libcuda.so.1" } };
	for (size_t i = 0; i < WP_ARRAY_LEN(libs); i++) {
		if (!fixture(m, libs[i][0], path, sizeof(path)))
			continue;
		char *lib = wp_xasprintf("%s/lib", f->dir),
		     *so = wp_xasprintf("%s/%s", fakelibs, libs[i][1]);
		char *dst = wp_xasprintf("%s/%s", lib, libs[i][1]),
		     *txt = wp_xasprintf("%s/%s", lib, libs[i][0]);
		FILE *fp = fopen(so, "rb");
		static char bytes[1 << 20];
		assert_non_null(fp);
		size_t n = fread(bytes, 1, sizeof(bytes), fp);
		fclose(fp);
		put_bytes(dst, bytes, n, 0755);
		fp = fopen(path, "rb");
		assert_non_null(fp);
		n = fread(bytes, 1, sizeof(bytes) - 1, fp);
		fclose(fp);
		put_bytes(txt, bytes, n, 0644);
		snprintf(f->libdir, sizeof(f->libdir), "%s", lib);
		f->opts.lib_dir = f->libdir;
		free(lib);
		free(so);
		free(dst);
		free(txt);
	}
	if (fixture(m, "nvidia-smi.txt", path, sizeof(path))) {
		char q[PATH_MAX], old[PATH_MAX];
		fixture(m, "nvidia-smi-query.csv", q, sizeof(q));
		fixture(m, "nvidia-smi-query-old.csv", old, sizeof(old));
		body = wp_xasprintf("case \"$1\" in\n"
				    "--query-gpu=name,compute_cap,driver_version) /bin/cat '%s'; exit %d;;\n"
				    "--query-gpu=name,driver_version) /bin/cat '%s'; exit $?;;\n"
				    "*) /bin/cat '%s'; exit %d;;\n"
				    "esac",
				    q, fixture_rc(m, "nvidia-smi-query.rc"), old, path,
				    fixture_rc(m, "nvidia-smi.rc"));
		script(f, "nvidia-smi", body);
		free(body);
	}
	if (fixture(m, "nvcc.txt", path, sizeof(path))) {
		body = wp_xasprintf("/bin/cat '%s'", path);
		script(f, "nvcc", body);
		free(body);
	}
	/* PEP 825 variants: the CPU's flags, ROCm and the kfd topology's nodes */
	if (fixture(m, "cpuinfo", path, sizeof(path)))
		copy_in(f, path, "/proc/cpuinfo");
	if (fixture(m, "rocm_version", path, sizeof(path)))
		copy_in(f, path, "/opt/rocm/.info/version");
	for (int n = 0; n < 16; n++) {
		char name[32], abs[96];
		snprintf(name, sizeof(name), "kfd_node_%d", n);
		snprintf(abs, sizeof(abs), "/sys/class/kfd/kfd/topology/nodes/%d/properties", n);
		if (fixture(m, name, path, sizeof(path)))
			copy_in(f, path, abs);
	}
}

static void check_machine(struct fake *f, const char *m)
{
	char path[PATH_MAX], line[512];
	assert_true(fixture(m, "expect", path, sizeof(path)));
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	const struct wp_detect *d = &f->d;
	int gpu = 0, gfx = 0;
	size_t tk = 0;
	char v[64];
	struct wp_target tg;
	wp_detect_to_target(d, &tg);
	while (fgets(line, sizeof(line), fp)) {
		line[strcspn(line, "\n")] = 0;
		char *arg = strchr(line, ' ');
		if (!arg)
			continue;
		*arg++ = 0;
		if (!strcmp(line, "driver")) {
			assert_string_equal(d->driver_version, strcmp(arg, "-") ? arg : "");
		} else if (!strcmp(line, "driver_source")) {
			assert_non_null(d->driver_source);
			assert_string_equal(d->driver_source, arg);
		} else if (!strcmp(line, "cuda")) {
			snprintf(v, sizeof(v), "%d.%d", d->cuda_major, d->cuda_minor);
			assert_string_equal(d->cuda_major ? v : "-", arg);
		} else if (!strcmp(line, "state")) {
			assert_string_equal(wp_driver_state_name(d->driver_state), arg);
		} else if (!strcmp(line, "gpu_source")) {
			assert_string_equal(d->gpu_source ? d->gpu_source : "-", arg);
		} else if (!strcmp(line, "target")) {
			/* what pick's target says of the accelerator: "CUDA up to 13.1 (driver:
			 * none yet)" */
			struct wp_buf b = WP_BUF_INIT;
			wp_target_describe(&tg, &b);
			if (!strstr(wp_buf_cstr(&b), arg))
				print_message("  target: %s\n", wp_buf_cstr(&b));
			assert_non_null(strstr(wp_buf_cstr(&b), arg));
			wp_buf_free(&b);
		} else if (!strcmp(line, "cuda_source")) {
			assert_string_equal(wp_cuda_source_name(d->cuda_source), arg);
		} else if (!strcmp(line, "gpu")) {
			assert_true(gpu < d->n_gpus);
			const struct wp_detect_gpu *g = &d->gpus[gpu++];
			snprintf(v, sizeof(v), "%d.%d", g->cc_major, g->cc_minor);
			char *want = wp_xasprintf("%s|%s", g->name, g->cc_major >= 0 ? v : "-");
			assert_string_equal(want, arg);
			free(want);
		} else if (!strcmp(line, "toolkit")) {
			assert_true(tk < d->n_toolkits);
			const struct wp_detect_toolkit *t = &d->toolkits[tk++];
			snprintf(v, sizeof(v), "%d.%d.%d", t->major, t->minor, t->patch);
			assert_string_equal(v, arg);
		} else if (!strcmp(line, "warnings")) {
			if (d->n_warnings != strtoul(arg, NULL, 10))
				dump_warnings(d);
			assert_int_equal(d->n_warnings, strtoul(arg, NULL, 10));
		} else if (!strcmp(line, "warning")) {
			assert_true(has_warning(d, arg));
		} else if (!strcmp(line, "x86_64_level")) {
			assert_int_equal(d->x86_64_level, strtol(arg, NULL, 10));
			assert_int_equal(tg.x86_64_level, strtol(arg, NULL, 10));
		} else if (!strcmp(line, "rocm")) {
			snprintf(v, sizeof(v), "%d.%d", d->rocm_major, d->rocm_minor);
			assert_string_equal(d->rocm_major ? v : "-", arg);
		} else if (!strcmp(line, "gfx")) {
			assert_true(gfx < d->n_gfx && gfx < tg.n_gfx);
			assert_string_equal(d->gfx[gfx], arg);
			assert_string_equal(tg.gfx[gfx++], arg);
		} else if (!strcmp(line, "accel") || !strcmp(line, "profile_accel")) {
			/* pick's own target, and the one a detect --json profile records */
			static const char *const names[] = { "cuda", "cpu", "rocm", "xpu" };
			struct wp_target pt;
			if (line[0] == 'p')
				wp_detect_profile_target(d, &pt);
			else
				pt = tg;
			assert_true((unsigned)pt.accel < WP_ARRAY_LEN(names));
			assert_string_equal(names[pt.accel], arg);
			if (pt.accel == WP_ACCEL_ROCM) {
				assert_int_equal(pt.rocm_major, d->rocm_major);
				assert_int_equal(pt.rocm_minor, d->rocm_minor);
			}
		} else {
			fail_msg("machine '%s': unknown expect line '%s'", m, line);
		}
	}
	fclose(fp);
	assert_int_equal(d->n_gpus, gpu);
	assert_int_equal(d->n_toolkits, tk);
	assert_int_equal(d->n_gfx, gfx);
}

/* Every member of want is in got with the same value (objects: recursively, the members want names;
 * arrays and scalars: equal). */
static bool json_subset(yajl_val want, yajl_val got, const char *where)
{
	if (YAJL_IS_OBJECT(want)) {
		if (!YAJL_IS_OBJECT(got)) {
			print_message("  %s: not an object\n", where);
			return false;
		}
		for (size_t i = 0; i < want->u.object.len; i++) {
			const char *k = want->u.object.keys[i];
			yajl_val g = NULL;
			for (size_t j = 0; j < got->u.object.len && !g; j++)
				if (!strcmp(got->u.object.keys[j], k))
					g = got->u.object.values[j];
			char *sub = wp_xasprintf("%s.%s", where, k);
			bool ok = g && json_subset(want->u.object.values[i], g, sub);
			if (!g)
				print_message("  %s: missing\n", sub);
			free(sub);
			if (!ok)
				return false;
		}
		return true;
	}
	if (YAJL_IS_ARRAY(want)) {
		if (!YAJL_IS_ARRAY(got) || got->u.array.len != want->u.array.len) {
			print_message("  %s: not an array of %zu\n", where, want->u.array.len);
			return false;
		}
		for (size_t i = 0; i < want->u.array.len; i++)
			if (!json_subset(want->u.array.values[i], got->u.array.values[i], where))
				return false;
		return true;
	}
	bool ok = want->type == got->type || (YAJL_IS_NUMBER(want) && YAJL_IS_NUMBER(got));
	const char *a = YAJL_IS_STRING(want) ? YAJL_GET_STRING(want) :
			YAJL_IS_NUMBER(want) ? YAJL_GET_NUMBER(want) :
					       NULL;
	const char *b = YAJL_IS_STRING(got) ? YAJL_GET_STRING(got) :
			YAJL_IS_NUMBER(got) ? YAJL_GET_NUMBER(got) :
					      NULL;
	if (ok && a)
		ok = b && !strcmp(a, b);
	if (!ok)
		print_message("  %s: want %s, got %s\n", where,
			      YAJL_IS_STRING(want) ? YAJL_GET_STRING(want) : "(value)",
			      YAJL_IS_STRING(got) ? YAJL_GET_STRING(got) : "(other value)");
	return ok;
}

/* detect.json beside expect: the members detect --json must have, as written there. */
static void check_machine_json(const struct wp_detect *d, const char *m)
{
	char path[PATH_MAX], e[256];
	static char text[1 << 16];
	if (!fixture(m, "detect.json", path, sizeof(path)))
		return;
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	size_t n = fread(text, 1, sizeof(text) - 1, fp);
	fclose(fp);
	text[n] = 0;
	yajl_val want = yajl_tree_parse(text, e, sizeof(e));
	if (!want)
		fail_msg("machine '%s': detect.json: %s", m, e);
	struct wp_buf b = WP_BUF_INIT;
	assert_int_equal(wp_detect_format_json(d, &b), 0);
	yajl_val got = yajl_tree_parse(wp_buf_cstr(&b), e, sizeof(e));
	assert_non_null(got);
	if (!json_subset(want, got, "$"))
		fail_msg("machine '%s': detect --json differs from detect.json:\n%s", m,
			 wp_buf_cstr(&b));
	yajl_tree_free(want);
	yajl_tree_free(got);
	wp_buf_free(&b);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_machines(void **state)
{
	char *dirpath = wp_xasprintf("%s/machines", fixtures);
	DIR *dir = opendir(dirpath);
	assert_non_null(dir);
	char *names[256];
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(dir)) && n < WP_ARRAY_LEN(names))
		if (e->d_name[0] != '.')
			names[n++] = wp_xstrdup(e->d_name);
	closedir(dir);
	free(dirpath);
	qsort(names, n, sizeof(*names), cmp_names);
	assert_true(n >= 5);
	for (size_t i = 0; i < n; i++) {
		void *st;
		print_message("machine %s\n", names[i]);
		fake_setup(&st);
		struct fake *f = st;
		build_machine(f, names[i]);
		run(f);
		check_machine(f, names[i]);
		check_machine_json(&f->d, names[i]);
		json_ok(&f->d);
		fake_teardown(&st);
		free(names[i]);
	}
}

/* ---- one behaviour each ---- */

static void test_a100_target(void **state)
{
	struct fake *f = *state;
	build_machine(f, "a100-535-proprietary");
	run(f);
	struct wp_target t;
	assert_int_equal(wp_detect_to_target(&f->d, &t), 0);
	assert_int_equal(t.accel, WP_ACCEL_CUDA);
	assert_int_equal(t.cuda_major, 12);
	assert_int_equal(t.cuda_minor, 2);
	assert_string_equal(t.impl, "cp");
	assert_int_equal(t.py_major, 3);
	assert_int_equal(t.py_minor, 10);
	assert_int_equal(t.py_micro, 12);
	assert_string_equal(t.abi, "");
	char want[128];
	snprintf(want, sizeof(want), "manylinux_2_28_%s", host_machine);
	assert_string_equal(t.platform, want);
	assert_int_equal(t.glibc_major, 2);
	assert_int_equal(t.glibc_minor, 28);
	assert_int_equal(t.n_gpus, 2);
	assert_int_equal(t.gpu_sm[0], 80);
	assert_int_equal(t.gpu_sm[1], 80);
	/* the fake nvcc lives in <dir>/bin, so its toolkit root is <dir> */
	assert_int_equal(f->d.n_toolkits, 1);
	assert_string_equal(f->d.toolkits[0].source, "nvcc");
	char *real = realpath(f->dir, NULL);
	assert_string_equal(f->d.toolkits[0].path, real);
	free(real);
}

/* No nvidia-smi: the figure comes from NVIDIA's driver table, and says so. */
static void test_cuda_from_driver_table(void **state)
{
	struct fake *f = *state;
	plain_machine(f);
	put_root(f, "/proc/driver/nvidia/version",
		 "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\n");
	run(f);
	assert_string_equal(f->d.driver_version, "535.104.05");
	assert_int_equal(f->d.cuda_major, 12);
	assert_int_equal(f->d.cuda_minor, 2);
	assert_int_equal(f->d.cuda_source, WP_CUDA_SRC_DRIVER_TABLE);
	assert_int_equal(f->d.n_gpus, 0);

	/* table edges: exactly a GA minimum, just under it, and past the newest row */
	put_root(f, "/proc/driver/nvidia/version",
		 "NVRM version: NVIDIA UNIX x86_64 Kernel Module  460.27.03  x\n");
	run(f);
	assert_int_equal(f->d.cuda_major * 10 + f->d.cuda_minor, 112);
	put_root(f, "/proc/driver/nvidia/version",
		 "NVRM version: NVIDIA UNIX x86_64 Kernel Module  460.27.02  x\n");
	run(f);
	assert_int_equal(f->d.cuda_major * 10 + f->d.cuda_minor, 111);
	put_root(f, "/proc/driver/nvidia/version",
		 "NVRM version: NVIDIA UNIX x86_64 Kernel Module  999.1  x\n");
	run(f);
	assert_int_equal(f->d.cuda_major * 10 + f->d.cuda_minor, 131);
	put_root(f, "/proc/driver/nvidia/version",
		 "NVRM version: NVIDIA UNIX x86_64 Kernel Module  300.10  x\n");
	run(f);
	assert_int_equal(f->d.cuda_major, 0);
	assert_true(has_warning(&f->d, "older than any CUDA release"));
}

static void test_toolkit_newer_than_driver(void **state)
{
	struct fake *f = *state;
	plain_machine(f);
	put_root(f, "/proc/driver/nvidia/version",
		 "NVRM version: NVIDIA UNIX x86_64 Kernel Module  460.32.03  Sun Dec 27 19:00:34 UTC 2020\n");
	put_root(f, "/usr/local/cuda-12.2/version.json",
		 "{\n   \"cuda\" : {\n      \"name\" : \"CUDA SDK\",\n      \"version\" : \"12.2.0\"\n   },\n"
		 "   \"cuda_cudart\" : {\n      \"name\" : \"CUDA Runtime (cudart)\",\n      \"version\" : \"12.2.53\"\n   }\n}\n");
	put_root(f, "/usr/local/cuda-10.2/version.txt", "CUDA Version 10.2.89\n");
	/* the usual link to the default toolkit is the same toolkit, counted once */
	char *cuda = wp_xasprintf("%s/usr/local/cuda", f->root);
	assert_int_equal(symlink("cuda-12.2", cuda), 0);
	free(cuda);
	run(f);
	assert_int_equal(f->d.cuda_major * 10 + f->d.cuda_minor, 112);
	assert_int_equal(f->d.n_toolkits, 2);
	/* "cuda" sorts first and resolves to cuda-12.2; paths are as the target machine sees
	 * them */
	assert_string_equal(f->d.toolkits[0].path, "/usr/local/cuda-12.2");
	assert_string_equal(f->d.toolkits[0].source, "version.json");
	assert_int_equal(f->d.toolkits[0].patch, 0);
	assert_string_equal(f->d.toolkits[1].path, "/usr/local/cuda-10.2");
	assert_string_equal(f->d.toolkits[1].source, "version.txt");
	assert_int_equal(f->d.toolkits[1].patch, 89);
	assert_true(
		has_warning(&f->d,
			    "driver 460.32.03 is too old for the CUDA 12.2 toolkit at '/usr/local/cuda-12.2' "
			    "(it needs >= 535.54.03, or >= 525.60.13 with minor version compatibility); "
			    "the driver runs CUDA 11.2 at most"));
	/* 10.2 runs on 460: no warning about it */
	for (size_t i = 0; i < f->d.n_warnings; i++)
		assert_null(strstr(f->d.warnings[i], "10.2"));
}

/* An 11.2 toolkit on a 455 driver runs through minor version compatibility; on 440 it does not. */
static void test_toolkit_minor_version_compat(void **state)
{
	struct fake *f = *state;
	plain_machine(f);
	put_root(f, "/sys/module/nvidia/version", "455.45.01\n");
	prints(f, "nvcc",
	       "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 11.2, V11.2.152\n",
	       0);
	run(f);
	assert_string_equal(f->d.driver_source, "sysfs");
	assert_int_equal(f->d.cuda_major * 10 + f->d.cuda_minor, 111);
	assert_true(has_warning(&f->d, "driver 455.45.01 is older than the CUDA 11.2 toolkit"));
	assert_true(has_warning(&f->d,
				"(>= 460.27.03); its programs run only through minor version "
				"compatibility (CUDA 11.x on >= 450.80.02)"));

	put_root(f, "/sys/module/nvidia/version", "440.33\n");
	run(f);
	assert_true(has_warning(&f->d, "driver 440.33 is too old for the CUDA 11.2 toolkit"));
	assert_true(
		has_warning(&f->d,
			    "(it needs >= 460.27.03, or >= 450.80.02 with minor version compatibility); "
			    "the driver runs CUDA 10.2 at most"));
}

/* $CUDA_HOME and $CUDA_PATH are toolkits too, named by where they came from. */
static void test_cuda_home(void **state)
{
	struct fake *f = *state;
	plain_machine(f);
	char *home = wp_xasprintf("%s/opt/cuda-12.4", f->dir);
	char *vj = wp_xasprintf("%s/version.json", home);
	put(vj, "{\"cuda\": {\"name\": \"CUDA SDK\", \"version\": \"12.4.1\"}}", 0644);
	fake_env(f, "CUDA_HOME", home);
	/* CUDA_PATH without version files: its nvcc is asked */
	char *path = wp_xasprintf("%s/opt/cuda-11.8", f->dir);
	char *nvcc = wp_xasprintf("%s/bin/nvcc", path);
	put(nvcc, "#!/bin/sh\necho 'Cuda compilation tools, release 11.8, V11.8.89'\n", 0755);
	fake_env(f, "CUDA_PATH", path);
	run(f);
	assert_int_equal(f->d.n_toolkits, 2);
	assert_string_equal(f->d.toolkits[0].source, "CUDA_HOME");
	assert_int_equal(f->d.toolkits[0].major * 10 + f->d.toolkits[0].minor, 124);
	assert_string_equal(f->d.toolkits[1].source, "CUDA_PATH");
	assert_int_equal(f->d.toolkits[1].patch, 89);
	free(home);
	free(vj);
	free(path);
	free(nvcc);
}

static void test_no_driver_cpu_target(void **state)
{
	struct fake *f = *state;
	plain_machine(f);
	run(f);
	assert_string_equal(f->d.driver_version, "");
	assert_int_equal(f->d.cuda_major, 0);
	assert_false(f->d.gpu_hardware);
	assert_true(has_warning(&f->d, "no NVIDIA driver found; the target is CPU builds"));
	struct wp_target t;
	assert_int_equal(wp_detect_to_target(&f->d, &t), 0);
	assert_int_equal(t.accel, WP_ACCEL_CPU);
	assert_int_equal(t.n_gpus, 0);

	/* the GPU is there, the driver is not */
	put_root(f, "/dev/nvidia0", "");
	run(f);
	assert_true(f->d.gpu_hardware);
	assert_true(
		has_warning(&f->d,
			    "NVIDIA GPU hardware is present but no driver version could be read"));
}

/* A hung nvidia-smi (and a hung python) cost one timeout, and what they started is killed too. */
static void test_hung_programs(void **state)
{
	struct fake *f = *state;
	plain_machine(f);
	char *pidfile = wp_xasprintf("%s/sleep.pid", f->dir);
	char *body = wp_xasprintf("/bin/sleep 100 &\necho $! > '%s'\nwait", pidfile);
	script(f, "nvidia-smi", body);
	script(f, "python3.12", "exec /bin/sleep 100");
	f->opts.timeout_ms = 300;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	run(f);
	clock_gettime(CLOCK_MONOTONIC, &b);
	long ms = (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
	assert_true(ms < 2000);
	assert_true(has_warning(&f->d, "nvidia-smi' did not finish within 0.3 s and was stopped"));
	assert_true(has_warning(&f->d, "python3.12' did not finish within 0.3 s"));
	assert_int_equal(f->d.n_pythons, 1);
	assert_int_equal(f->d.cuda_major, 0);

	FILE *fp = fopen(pidfile, "r");
	assert_non_null(fp);
	int pid = 0;
	assert_int_equal(fscanf(fp, "%d", &pid), 1);
	fclose(fp);
	bool gone = false;
	for (int i = 0; i < 100 && !gone; i++) {
		char stat[64], st = 0;
		snprintf(stat, sizeof(stat), "/proc/%d/stat", pid);
		FILE *sf = fopen(stat, "r");
		/* a zombie waiting for a reaper counts as gone: it is dead */
		gone = (kill(pid, 0) < 0 && errno == ESRCH) ||
		       (sf && fscanf(sf, "%*d (%*[^)]) %c", &st) == 1 && st == 'Z');
		if (sf)
			fclose(sf);
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		if (!gone)
			nanosleep(&ts, NULL);
	}
	assert_true(gone);
	free(pidfile);
	free(body);
}

static void garbage_run(struct fake *f, const char *data, size_t n)
{
	const char *progs[] = { "nvidia-smi", "nvcc", "python3", "python3.9", "ldd" };
	char *path = wp_xasprintf("%s/garbage", f->dir);
	put_bytes(path, data, n, 0644);
	for (size_t i = 0; i < WP_ARRAY_LEN(progs); i++) {
		char *body = wp_xasprintf("/bin/cat '%s'", path);
		script(f, progs[i], body);
		free(body);
	}
	const char *files[] = { "/proc/driver/nvidia/version", "/sys/module/nvidia/version",
				"/usr/local/cuda-x/version.json", "/usr/local/cuda-y/version.txt",
				"/etc/wheelpick-glibc" };
	for (size_t i = 0; i < WP_ARRAY_LEN(files); i++) {
		char *p = wp_xasprintf("%s%s", f->root, files[i]);
		put_bytes(p, data, n, 0644);
		free(p);
	}
	free(path);
	run(f);
	json_ok(&f->d);
	struct wp_target t;
	wp_detect_to_target(&f->d, &t);
	for (int i = 0; i < f->d.n_gpus; i++)
		assert_true(f->d.gpus[i].cc_major < 1000000);
}

static void test_garbage_outputs(void **state)
{
	struct fake *f = *state;
	static const char *const texts[] = {
		"",
		"\n\n\n",
		"CUDA Version: 99999999999999999999.1\nDriver Version: 1.2.3.4.5\nrelease 11., V\n",
		"CUDA Version: 12.\nDriver Version: .535\nrelease .2, V11.2.x\ncpython 3 x 1 a b\n",
		"NVRM version: NVIDIA UNIX x86_64 Kernel Module  \n| NVIDIA-SMI | Driver Version: | CUDA Version: |\n",
		", , \n,,,\nname, 8., 535.1\n, 8.0, 535.104.05\nGPU, 99999999999999.0, 535.104.05\n",
		"cpython 3 11 99999999999 a b c d\ncpython 3 11 4 \xff\xfe\x01 x86_64\n",
		"NVIDIA \xc3\x28 GPU\x1b[31m, 8.0, 535.104.05\n",
		"{\"cuda\": {\"version\": 12}}",
		"{\"cuda\": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]}",
		"musl libc (x86_64)\nVersion \n",
		"ldd (GNU libc) 2.\n",
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(texts); i++)
		garbage_run(f, texts[i], strlen(texts[i]));

	/* binary noise past the 64 KiB cap, and 200 KiB of '[' for the JSON reader */
	size_t n = 100000;
	char *noise = wp_xmalloc(n);
	for (size_t i = 0; i < n; i++)
		noise[i] = (char)((i * 131 + 7) & 0xff);
	garbage_run(f, noise, n);
	free(noise);
	n = 200000;
	noise = wp_xmalloc(n);
	memset(noise, '[', n);
	garbage_run(f, noise, n);
	free(noise);
}

/* The replies of a working machine with nothing wrong, written in odd but real spellings. */
static void test_parse_spellings(void **state)
{
	struct fake *f = *state;
	plain_machine(f);
	put_root(f, "/proc/driver/nvidia/version",
		 "NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  550.54.15  Release Build  "
		 "(dvs-builder@U16-I3-B03-4-3)  Tue Mar  5 22:15:33 UTC 2024\n");
	prints(f, "nvidia-smi",
	       "| NVIDIA-SMI 550.54.15   Driver Version: 550.54.15   CUDA Version: 12.4 |\r\n"
	       "NVIDIA GH200 480GB, 9.0, 550.54.15\r\n",
	       0);
	run(f);
	assert_string_equal(f->d.driver_version, "550.54.15");
	assert_int_equal(f->d.cuda_major * 10 + f->d.cuda_minor, 124);
	assert_int_equal(f->d.cuda_source, WP_CUDA_SRC_NVIDIA_SMI);
	/* the banner fake answers the query too: only the csv line counts as a GPU */
	assert_int_equal(f->d.n_gpus, 1);
	assert_string_equal(f->d.gpus[0].name, "NVIDIA GH200 480GB");
	assert_int_equal(f->d.gpus[0].cc_major, 9);

	/* no /proc file (WSL): the driver version comes from nvidia-smi */
	char *p = wp_xasprintf("%s/proc/driver/nvidia/version", f->root);
	unlink(p);
	free(p);
	run(f);
	assert_string_equal(f->d.driver_version, "550.54.15");
	assert_string_equal(f->d.driver_source, "nvidia-smi");

	/* driver 610's banner (KMD, CUDA UMD), the fields swapped, a blank before a colon, none
	 * after the other; and words that only look alike ("Runtime Version") are not taken */
	static const char *const banners[] = {
		"| NVIDIA-SMI 610.57.04   KMD Version: 610.57.04   CUDA UMD Version: 13.3     |\n",
		"| NVIDIA-SMI 610.57.04  CUDA UMD Version :13.3  KMD Version:   610.57.04 |\n",
		"|  CUDA Runtime Version: 12.0  CUDA  UMD\tVersion:  13.3  Driver Version : 610.57.04 |\n",
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(banners); i++) {
		prints(f, "nvidia-smi", banners[i], 0);
		run(f);
		assert_string_equal(f->d.driver_version, "610.57.04");
		assert_string_equal(f->d.driver_source, "nvidia-smi");
		assert_int_equal(f->d.cuda_major * 10 + f->d.cuda_minor, 133);
		assert_int_equal(f->d.cuda_source, WP_CUDA_SRC_NVIDIA_SMI);
		assert_int_equal(f->d.driver_state, WP_DRIVER_LOADED);
	}
}

static void test_musl(void **state)
{
	struct fake *f = *state;
	python3(f, "python3", "cpython 3 12 3 cpython-312-x86_64-linux-musl x86_64");
	/* musl's ldd says who it is on stderr, and exits 1 */
	script(f, "ldd", "echo 'musl libc (x86_64)' >&2\necho 'Version 1.2.4' >&2\n"
	       "echo 'Dynamic Program Loader' >&2\nexit 1");
	run(f);
	assert_int_equal(f->d.musl_major, 1);
	assert_int_equal(f->d.musl_minor, 2);
	assert_int_equal(f->d.glibc_major, 0);
	struct wp_target t;
	assert_int_equal(wp_detect_to_target(&f->d, &t), 0);
	char want[128];
	snprintf(want, sizeof(want), "musllinux_1_2_%s", host_machine);
	assert_string_equal(t.platform, want);

	script(f, "ldd",
	       "echo 'ldd (Ubuntu GLIBC 2.35-0ubuntu3.6) 2.35'\necho 'Copyright (C) 2022'");
	run(f);
	assert_int_equal(f->d.glibc_major * 100 + f->d.glibc_minor, 235);
}

static void test_pythons(void **state)
{
	struct fake *f = *state;
	python3(f, "python3.12", "cpython 3 12 1 cpython-312-x86_64-linux-gnu x86_64");
	python3(f, "python3.13", "cpython 3 13 0 cpython-313t-x86_64-linux-gnu x86_64");
	python3(f, "python3.9", "cpython 3 9 18  x86_64"); /* no SOABI: an empty word */
	prints(f, "python3.8", "", 127);                   /* a pyenv shim for a version not set */
	put_root(f, "/etc/wheelpick-glibc", "2.31");
	run(f);
	assert_int_equal(f->d.n_pythons, 3);
	assert_string_equal(f->d.pythons[0].soabi, "");
	assert_int_equal(f->d.pythons[0].minor, 9);
	/* no python3: the newest one is the target, and the user is told */
	assert_int_equal(f->d.default_python, 2);
	assert_true(has_warning(&f->d, "no working 'python3' on PATH; the target Python is"));
	struct wp_target t;
	wp_detect_to_target(&f->d, &t);
	assert_int_equal(t.py_minor, 13);
	assert_string_equal(t.abi, "cp313t");

	/* python3 is a link to python3.12: asked once, and it is the default */
	char *a = wp_xasprintf("%s/python3", f->bin);
	assert_int_equal(symlink("python3.12", a), 0);
	free(a);
	run(f);
	assert_int_equal(f->d.n_pythons, 3);
	assert_int_equal(f->d.default_python, 0);
	assert_int_equal(f->d.pythons[0].minor, 12);
	assert_null(strstr(f->d.pythons[0].path, "python3.12"));
}

static void test_ld_library_path(void **state)
{
	struct fake *f = *state;
	plain_machine(f);
	char *a = wp_xasprintf("%s/cuda-11.8/lib64", f->dir);
	char *b = wp_xasprintf("%s/cuda-12.1/lib64", f->dir);
	char *stubs = wp_xasprintf("%s/stubs", b);
	char *link = wp_xasprintf("%s/cuda", f->dir);
	char *p;
	put(p = wp_xasprintf("%s/libcudart.so.11.0", a), "", 0644), free(p);
	put(p = wp_xasprintf("%s/libcudart.so.12", b), "", 0644), free(p);
	put(p = wp_xasprintf("%s/libcuda.so", stubs), "", 0644), free(p);
	assert_int_equal(symlink("cuda-12.1", link), 0);
	/* cuda/lib64 is cuda-12.1/lib64 again: two runtimes, not three */
	char *env = wp_xasprintf("%s:%s/lib64::%s:%s/", a, link, b, stubs);
	fake_env(f, "LD_LIBRARY_PATH", env);
	run(f);
	assert_true(has_warning(&f->d, "LD_LIBRARY_PATH names 2 CUDA runtime directories"));
	assert_true(has_warning(&f->d, "the CUDA driver stub directory"));

	fake_env(f, "LD_LIBRARY_PATH", a);
	run(f);
	for (size_t i = 0; i < f->d.n_warnings; i++)
		assert_null(strstr(f->d.warnings[i], "LD_LIBRARY_PATH"));
	free(a);
	free(b);
	free(stubs);
	free(link);
	free(env);
}

static void test_bad_sysroot(void **state)
{
	struct fake *f = *state;
	struct wp_err err = WP_ERR_INIT;
	f->opts.sysroot = "/nonexistent/wheelpick-sysroot";
	assert_int_equal(wp_detect_run(&f->d, &f->opts, &err), -WPE_ENV);
	f->ran = true;
	assert_non_null(strstr(err.msg, "'/nonexistent/wheelpick-sysroot'"));

	/* $WHEELPICK_SYSROOT is the default */
	f->opts.sysroot = NULL;
	fake_env(f, "WHEELPICK_SYSROOT", "/nonexistent/from-env/");
	wp_err_clear(&err);
	wp_detect_release(&f->d);
	assert_int_equal(wp_detect_run(&f->d, &f->opts, &err), -WPE_ENV);
	assert_non_null(strstr(err.msg, "from-env"));
	fake_env(f, "WHEELPICK_SYSROOT", NULL);
}

static void test_target_platforms(void **state)
{
	struct wp_detect d;
	struct wp_target t;
	memset(&d, 0, sizeof(d));
	d.default_python = 0;
	struct wp_detect_python py = { .impl = "cpython", .major = 3, .minor = 7, .micro = 9,
				       .soabi = "cpython-37m-darwin" };
	d.pythons = &py;
	d.n_pythons = 1;

	static const struct { const char *os, *release, *machine, *platform; } cases[] = {
		{ "Darwin", "23.4.0", "arm64", "macosx_14_0_arm64" },
		{ "Darwin", "20.6.0", "x86_64", "macosx_11_0_x86_64" },
		{ "Darwin", "25.0.0", "arm64", "macosx_26_0_arm64" },
		{ "Darwin", "19.6.0", "x86_64", "macosx_10_15_x86_64" },
		{ "Linux", "6.1.0", "aarch64", "linux_aarch64" },
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(cases); i++) {
		snprintf(d.os, sizeof(d.os), "%s", cases[i].os);
		snprintf(d.os_release, sizeof(d.os_release), "%s", cases[i].release);
		snprintf(d.machine, sizeof(d.machine), "%s", cases[i].machine);
		assert_int_equal(wp_detect_to_target(&d, &t), 0);
		assert_string_equal(t.platform, cases[i].platform);
		assert_string_equal(t.abi, ""); /* cp37m is 3.7's default */
		assert_int_equal(t.accel, WP_ACCEL_CPU);
	}
	snprintf(d.os, sizeof(d.os), "SunOS");
	assert_int_equal(wp_detect_to_target(&d, &t), -WPE_ENV);

	py = (struct wp_detect_python){ .impl = "pypy", .major = 3, .minor = 9, .micro = 16,
					.soabi = "pypy39-pp73" };
	snprintf(d.os, sizeof(d.os), "Linux");
	d.glibc_major = 2;
	d.glibc_minor = 17;
	d.cuda_major = 11;
	d.cuda_minor = 8;
	d.n_gpus = 2;
	d.gpus[0] = (struct wp_detect_gpu){ "NVIDIA GeForce RTX 3090", 8, 6 };
	d.gpus[1] = (struct wp_detect_gpu){ "old", -1, -1 };
	assert_int_equal(wp_detect_to_target(&d, &t), 0);
	assert_string_equal(t.platform, "manylinux_2_17_aarch64");
	assert_string_equal(t.impl, "pp");
	assert_string_equal(t.abi, "pypy39_pp73");
	assert_int_equal(t.accel, WP_ACCEL_CUDA);
	assert_int_equal(t.n_gpus, 1); /* an unknown capability narrows nothing */
	assert_int_equal(t.gpu_sm[0], 86);

	/* Windows: the tag is the default interpreter's (its sysconfig platform, which detection
	 * asks there), else the machine's; Windows SOABIs are "cp313t-win_amd64" */
	static const struct { const char *machine, *py_machine, *soabi, *platform, *abi; bool ft; }
	win[] = {
		{ "AMD64", "AMD64", "", "win_amd64", "", false },
		{ "ARM64", "ARM64", "cp313-win_arm64", "win_arm64", "", false },
		/* an x64 Python, emulated on ARM64 */
		{ "ARM64", "AMD64", "cp313t-win_amd64", "win_amd64", "cp313t", true },
		{ "AMD64", "x86", "", "win32", "", false }, /* a 32-bit Python */
		{ "AMD64", "", "", "win_amd64", "", false }, /* the interpreter did not say */
	};
	memset(&d, 0, sizeof(d));
	d.default_python = 0;
	d.pythons = &py;
	d.n_pythons = 1;
	snprintf(d.os, sizeof(d.os), "Windows");
	for (size_t i = 0; i < WP_ARRAY_LEN(win); i++) {
		py = (struct wp_detect_python){ .impl = "cpython", .major = 3, .minor = 13 };
		snprintf(py.soabi, sizeof(py.soabi), "%s", win[i].soabi);
		snprintf(py.machine, sizeof(py.machine), "%s", win[i].py_machine);
		snprintf(d.machine, sizeof(d.machine), "%s", win[i].machine);
		assert_int_equal(wp_detect_to_target(&d, &t), 0);
		assert_string_equal(t.platform, win[i].platform);
		assert_string_equal(t.abi, win[i].abi);
		assert_int_equal(wp_detect_python_free_threaded(&py), win[i].ft);
		assert_int_equal(t.glibc_major, 0);
	}
}

/* ---- profiles ---- */

static char *write_profile(struct fake *f, const char *name, const char *text)
{
	char *p = wp_xasprintf("%s/%s", f->dir, name);
	put(p, text, 0644);
	return p;
}

static void roundtrip(struct fake *f, const struct wp_detect *d)
{
	struct wp_target want, got;
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_detect_to_target(d, &want), 0);
	struct wp_buf b = WP_BUF_INIT;
	assert_int_equal(wp_detect_format_json(d, &b), 0);
	char *p = write_profile(f, "profile.json", wp_buf_cstr(&b));
	int rc = wp_target_load_profile(p, &got, &err);
	if (rc)
		print_error("%s\n%s\n", err.msg, wp_buf_cstr(&b));
	assert_int_equal(rc, 0);
	assert_string_equal(got.platform, want.platform);
	assert_string_equal(got.impl, want.impl);
	assert_string_equal(got.abi, want.abi);
	assert_int_equal(got.accel, want.accel);
	assert_int_equal(got.cuda_major, want.cuda_major);
	assert_int_equal(got.n_gpus, want.n_gpus);
	/* PEP 825: the profile holds what the providers compute for the machine as its list of
	 * compatible features, which reads back as the user's list: the same lines */
	struct wp_buf props = WP_BUF_INIT;
	wp_target_variant_props(&want, &props);
	assert_string_equal(got.variant_props, wp_buf_cstr(&props));
	assert_true(got.variant_given); /* written always, {} when nothing is supported */
	wp_buf_free(&props);
	got.variant_given = false;
	memset(got.variant_props, 0, sizeof(got.variant_props));
	assert_memory_equal(&got, &want, sizeof(got));
	free(p);
	wp_buf_free(&b);
}

static void test_profile_roundtrip(void **state)
{
	struct fake *f = *state;
	build_machine(f, "a100-535-proprietary");
	run(f);
	roundtrip(f, &f->d);

	/* a CPU machine with musl and a free-threaded Python */
	struct fake *g;
	void *st;
	fake_setup(&st);
	g = st;
	python3(g, "python3", "cpython 3 13 1 cpython-313t-x86_64-linux-musl x86_64");
	script(g, "ldd", "echo 'musl libc (x86_64)' >&2\necho 'Version 1.2.4' >&2\nexit 1");
	run(g);
	roundtrip(g, &g->d);
	fake_teardown(&st);
}

static void test_profile_hand_written(void **state)
{
	struct fake *f = *state;
	struct wp_target t;
	struct wp_err err = WP_ERR_INIT;
	char *p = write_profile(f, "flat.json",
				"{\"python\": \"3.10\", \"platform\": \"manylinux2014_x86_64\", "
				"\"cuda\": \"12.1\", \"gpu_sms\": [80, 90]}");
	assert_int_equal(wp_target_load_profile(p, &t, &err), 0);
	assert_int_equal(t.py_major * 100 + t.py_minor, 310);
	assert_int_equal(t.py_micro, -1);
	assert_int_equal(t.accel, WP_ACCEL_CUDA);
	assert_int_equal(t.cuda_major * 10 + t.cuda_minor, 121);
	assert_int_equal(t.glibc_major * 100 + t.glibc_minor, 217);
	assert_int_equal(t.n_gpus, 2);
	assert_int_equal(t.gpu_sm[1], 90);
	free(p);
	p = write_profile(f, "cpu.json",
			  "{\"target\": {\"platform\": \"macosx_11_0_arm64\", \"accel\": \"cpu\"}}");
	assert_int_equal(wp_target_load_profile(p, &t, &err), 0);
	assert_int_equal(t.accel, WP_ACCEL_CPU);
	assert_int_equal(t.py_major, 0);
	assert_int_equal(t.glibc_major, 0);
	free(p);
}

static void test_profile_errors(void **state)
{
	struct fake *f = *state;
	static const struct { const char *text, *says; } cases[] = {
		{ "{\"python\": \"3.10\", \"platform\": ", "is not valid JSON" },
		{ "[1, 2]", "is not a JSON object" },
		{ "{\"target\": null}", "'target' is not an object" },
		{ "{\"python\": \"3.10\", \"cuda\": \"12.1\"}", "names no target 'platform'" },
		{ "{\"platform\": \"linux_x86_64\"}", "says neither 'cuda'" },
		{ "{\"platform\": \"linux_x86_64\", \"cuda\": \"12\"}", "not a version like" },
		{ "{\"platform\": \"linux_x86_64\", \"cuda\": 12.1}", "'cuda' must be a string" },
		{ "{\"platform\": \"linux_x86_64\", \"accel\": \"tpu\"}",
		  "accel 'tpu' is not cuda, cpu, rocm or xpu" },
		{ "{\"platform\": \"linux_x86_64\", \"accel\": \"rocm\"}", "gives no version" },
		{ "{\"platform\": \"linux x86_64\", \"accel\": \"cpu\"}",
		  "'platform' must be a string" },
		{ "{\"platform\": \"linux_x86_64\", \"accel\": \"cpu\", \"python\": \"3.10.\"}",
		  "not a version" },
		{ "{\"platform\": \"linux_x86_64\", \"accel\": \"cpu\", \"gpu_sms\": [\"sm_80\"]}",
		  "'gpu_sms' holds" },
		{ "{\"platform\": \"linux_x86_64\", \"accel\": \"cpu\", \"platform_exact\": 1}",
		  "true or false" },
		{ "", "is not valid JSON" },
	};
	struct wp_target t;
	for (size_t i = 0; i < WP_ARRAY_LEN(cases); i++) {
		struct wp_err err = WP_ERR_INIT;
		char *p = write_profile(f, "bad.json", cases[i].text);
		assert_int_equal(wp_target_load_profile(p, &t, &err), -WPE_USAGE);
		char *quoted = wp_xasprintf("'%s'", p);
		if (!strstr(err.msg, cases[i].says) || !strstr(err.msg, quoted))
			fail_msg("case %zu: message '%s'", i, err.msg);
		free(quoted);
		free(p);
	}
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_target_load_profile("/nonexistent/profile.json", &t, &err), -WPE_USAGE);
	assert_non_null(strstr(err.msg, "cannot read profile '/nonexistent/profile.json'"));

	/* deep nesting is refused before the tree reader (whose free recurses) sees it */
	size_t n = 1 << 19;
	char *deep = wp_xmalloc(n + 1);
	memset(deep, '[', n);
	deep[n] = 0;
	char *p = write_profile(f, "deep.json", deep);
	wp_err_clear(&err);
	assert_int_equal(wp_target_load_profile(p, &t, &err), -WPE_USAGE);
	assert_non_null(strstr(err.msg, "nested too deep"));
	free(p);
	free(deep);
}

/* The real machine this runs on: whatever it has, detection finishes and writes valid JSON. */
/* ---- PEP 825 variants: the x86-64 level, ROCm, gfx ---- */

static void test_hw_parsers(void **state)
{
	static const char v1[] = "fpu cx8 cmov mmx fxsr sse sse2 syscall lm";
	static const char v2[] =
		"fpu cx8 cmov mmx fxsr sse sse2 syscall lm cx16 lahf_lm popcnt sse4_1 sse4_2 ssse3";
	char *v3 = wp_xasprintf("%s avx avx2 bmi1 bmi2 f16c fma abm movbe xsave", v2);
	char *v3_lzcnt = wp_xasprintf("%s avx avx2 bmi1 bmi2 f16c fma lzcnt movbe xsave", v2);
	char *v4 = wp_xasprintf("%s avx512f avx512bw avx512cd avx512dq avx512vl", v3);
	char *v4_less = wp_xasprintf("%s avx512f avx512bw avx512cd avx512dq", v3);
	assert_int_equal(wp_x86_64_level_from_flags(v1, strlen(v1)), 1);
	assert_int_equal(wp_x86_64_level_from_flags(v2, strlen(v2)), 2);
	assert_int_equal(wp_x86_64_level_from_flags(v3, strlen(v3)), 3);
	assert_int_equal(wp_x86_64_level_from_flags(v3_lzcnt, strlen(v3_lzcnt)), 3);
	assert_int_equal(wp_x86_64_level_from_flags(v4, strlen(v4)), 4);
	assert_int_equal(wp_x86_64_level_from_flags(v4_less, strlen(v4_less)), 3);
	/* a level is a whole set: v3's flags without v2's popcnt are v1; "sse4_2x" is not sse4_2 */
	static const char no_popcnt[] = "lm cmov cx8 fpu fxsr mmx syscall sse sse2 avx avx2",
			  old[] = "fpu vme de";
	assert_int_equal(wp_x86_64_level_from_flags(no_popcnt, strlen(no_popcnt)), 1);
	assert_int_equal(wp_x86_64_level_from_flags(old, strlen(old)), 0);
	/* the lowest CPU wins; an ARM cpuinfo (Features, no flags) is no x86-64 */
	char *two = wp_xasprintf("processor\t: 0\nflags\t\t: %s\n\nprocessor\t: 1\nflags\t\t: %s\n",
				 v4, v2);
	assert_int_equal(wp_x86_64_level_from_cpuinfo(two, strlen(two)), 2);
	static const char
		arm[] = "processor\t: 0\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32\n";
	assert_int_equal(wp_x86_64_level_from_cpuinfo(arm, strlen(arm)), 0);
	free(v3), free(v3_lzcnt), free(v4), free(v4_less), free(two);

	int ma = 0, mi = 0;
	assert_true(wp_rocm_version_parse("6.4.1-120", 9, &ma, &mi));
	assert_int_equal(ma, 6);
	assert_int_equal(mi, 4);
	assert_true(wp_rocm_version_parse("7.0.2", 5, &ma, &mi));
	assert_int_equal(ma, 7);
	assert_int_equal(mi, 0);
	assert_false(wp_rocm_version_parse("rocm", 4, &ma, &mi));
	assert_false(wp_rocm_version_parse("6", 1, &ma, &mi));
	assert_false(wp_rocm_version_parse("", 0, &ma, &mi));

	static const struct { const char *text; const char *gfx; } cases[] = {
		{ "gfx_target_version 90402\n", "gfx942" },
		{ "simd_count 4\ngfx_target_version 90010\n", "gfx90a" },
		{ "gfx_target_version 110000\n", "gfx1100" },
		{ "gfx_target_version 110501\n", "gfx1151" },
		{ "gfx_target_version 120001\n", "gfx1201" },
		{ "gfx_target_version 90500", "gfx950" },
		{ "gfx_target_version 0\n", NULL },     /* a CPU node */
		{ "cpu_cores_count 8\n", NULL },
		{ "gfx_target_version 91602\n", NULL }, /* a minor no hex digit spells */
		{ "gfx_target_version -5\n", NULL },
		{ "gfx_target_version 9x\n", NULL },
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(cases); i++) {
		char out[16] = "";
		bool ok = wp_gfx_from_kfd_properties(cases[i].text, strlen(cases[i].text), out);
		if (ok != (cases[i].gfx != NULL) || (ok && strcmp(out, cases[i].gfx)))
			fail_msg("'%s': got %s '%s'", cases[i].text, ok ? "yes" : "no", out);
	}
}

/* A sysroot holds the files; WHEELPICK_SYSROOT names it when the options do not. */
static void test_hw_sysroot(void **state)
{
	struct fake *f = *state;
	plain_machine(f);
	put_root(f, "/opt/rocm/.info/version", "6.3.0\n");
	put_root(f, "/sys/class/kfd/kfd/topology/nodes/0/properties", "gfx_target_version 0\n");
	run(f);
	/* ROCm without an AMD GPU: not a ROCm target, and said */
	assert_string_equal(f->d.rocm_version, "6.3.0");
	assert_int_equal(f->d.n_gfx, 0);
	assert_true(has_warning(&f->d, "ROCm is installed but no AMD GPU is visible"));
	struct wp_target t;
	wp_detect_to_target(&f->d, &t);
	assert_int_equal(t.accel, WP_ACCEL_CPU);
	json_ok(&f->d);

	/* the same GPU on two nodes is one gfx; an NVIDIA driver keeps the target CUDA, gfx still
	 * given */
	put_root(f, "/sys/class/kfd/kfd/topology/nodes/1/properties", "gfx_target_version 90402\n");
	put_root(f, "/sys/class/kfd/kfd/topology/nodes/2/properties", "gfx_target_version 90402\n");
	put_root(f, "/proc/driver/nvidia/version",
		 "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\n");
	put_root(f, "/opt/rocm/.info/version", "garbage\n");
	f->opts.sysroot = NULL;
	fake_env(f, "WHEELPICK_SYSROOT", f->root);
	run(f);
	fake_env(f, "WHEELPICK_SYSROOT", NULL);
	assert_int_equal(f->d.n_gfx, 1);
	assert_string_equal(f->d.gfx[0], "gfx942");
	assert_string_equal(f->d.rocm_version, "");
	assert_true(has_warning(&f->d, "/opt/rocm/.info/version does not start with a version"));
	wp_detect_to_target(&f->d, &t);
	assert_int_equal(t.accel, WP_ACCEL_CUDA);
	assert_int_equal(t.n_gfx, 1);
	assert_int_equal(t.x86_64_level, 0); /* no /proc/cpuinfo in this sysroot */

	struct wp_buf b = WP_BUF_INIT;
	assert_int_equal(wp_detect_format_json(&f->d, &b), 0);
	char e[256];
	yajl_val v = yajl_tree_parse(wp_buf_cstr(&b), e, sizeof(e));
	assert_non_null(v);
	const char *gfx_path[] = { "gfx", NULL }, *lvl_path[] = { "x86_64_level", NULL };
	yajl_val g = yajl_tree_get(v, gfx_path, yajl_t_array);
	assert_true(g && YAJL_GET_ARRAY(g)->len == 1);
	assert_string_equal(YAJL_GET_STRING(YAJL_GET_ARRAY(g)->values[0]), "gfx942");
	assert_true(YAJL_IS_NULL(yajl_tree_get(v, lvl_path, yajl_t_any)));
	yajl_tree_free(v);
	wp_buf_free(&b);
}

static void test_this_machine(void **state)
{
	const char *path = getenv("WP_TEST_HOST_PATH");
	struct wp_detect_opts opts = { .sysroot = "/", .timeout_ms = 1000, .path = path };
	struct wp_detect d;
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_detect_run(&d, &opts, &err), 0);
	assert_true(d.os[0]);
	json_ok(&d);
	wp_detect_release(&d);
}

/* The fake NVIDIA libraries, built once with the host's compiler ($CC, else cc). */
static int build_fakelibs(void)
{
	const char *cc = getenv("CC");
	if (test_tmpdir_make(fakelibs, sizeof(fakelibs), "fakelibs") < 0)
		return -1;
	const char *const src[][2] = { { "fake_nvml.c", "libnvidia-ml.so.1" },
				       { "fake_libcuda.c", "libcuda.so.1" } };
	for (size_t i = 0; i < WP_ARRAY_LEN(src); i++) {
		char *cmd = wp_xasprintf("%s -shared -fPIC -O1 -o '%s/%s' '%s/%s'",
					 cc && *cc ? cc : "cc", fakelibs, src[i][1], fixtures,
					 src[i][0]);
		int rc = system(cmd);
		free(cmd);
		if (rc != 0) {
			fprintf(stderr, "test_detect: cannot build the fake %s\n", src[i][1]);
			return -1;
		}
	}
	return 0;
}

static int group_teardown(void **state)
{
	if (fakelibs[0])
		test_tmpdir_remove(fakelibs);
	return 0;
}

static int group_setup(void **state)
{
	const char *dir = getenv("WP_FIXTURES");
	if (!realpath(dir ? dir : "tests/fixtures/detect", fixtures)) {
		fprintf(stderr, "test_detect: run from the repository root (or set WP_FIXTURES)\n");
		return -1;
	}
	struct utsname u;
	uname(&u);
	snprintf(host_machine, sizeof(host_machine), "%.31s", u.machine);
	/* the host's PATH, for test_this_machine, before the fakes replace it */
	if (getenv("PATH"))
		setenv("WP_TEST_HOST_PATH", getenv("PATH"), 0);
	return build_fakelibs();
}

/* wp_env_run (env/run.c, the runner detection shares): stdin in, output out under a ceiling read to
 * the end, an exit status, a program that is not there (127, as the fork+exec runner said), and a
 * time limit that stops a hung one. */
static void test_env_run(void **state)
{
	(void)state;
	struct wp_err err = WP_ERR_INIT;
	struct wp_buf out = WP_BUF_INIT_MAX(1 << 10);
	int status = -2;
	const char *cat[] = { "cat", NULL };
	assert_int_equal(wp_env_run(cat, (const char *const *)environ, "hello\n", 6, false, 10000,
				    &out, &status, &err),
			 0);
	assert_int_equal(status, 0);
	assert_string_equal(wp_buf_cstr(&out), "hello\n");
	wp_buf_free(&out);

	out = (struct wp_buf)WP_BUF_INIT_MAX(10);
	const char *many[] = { "sh", "-c",
			       "head -c 200000 /dev/zero | tr '\\0' x; echo err >&2; exit 3",
			       NULL };
	assert_int_equal(wp_env_run(many, (const char *const *)environ, NULL, 0, true, 10000, &out,
				    &status, &err),
			 0);
	assert_int_equal(status, 3); /* drained past the ceiling: not killed */
	assert_int_equal(out.len, 10);
	wp_buf_free(&out);

	const char *none[] = { "/nonexistent/wheelpick-no-such-program", NULL };
	out = (struct wp_buf)WP_BUF_INIT_MAX(10);
	assert_int_equal(wp_env_run(none, (const char *const *)environ, NULL, 0, false, 10000, &out,
				    &status, &err),
			 0);
	assert_int_equal(status, 127);
	wp_buf_free(&out);

	const char *hang[] = { "sleep", "30", NULL };
	long long t0 = (long long)time(NULL);
	assert_int_equal(wp_env_run(hang, (const char *const *)environ, NULL, 0, false, 300, &out,
				    &status, &err),
			 -WPE_ENV);
	assert_non_null(strstr(err.msg, "'sleep' did not finish within"));
	assert_true((long long)time(NULL) - t0 < 10);
	wp_buf_free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_this_machine),
		cmocka_unit_test(test_machines),
		cmocka_unit_test_setup_teardown(test_a100_target, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_cuda_from_driver_table, fake_setup,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_toolkit_newer_than_driver, fake_setup,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_toolkit_minor_version_compat, fake_setup,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_cuda_home, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_no_driver_cpu_target, fake_setup,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_hung_programs, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_garbage_outputs, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_parse_spellings, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_musl, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_pythons, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_ld_library_path, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_bad_sysroot, fake_setup, fake_teardown),
		cmocka_unit_test(test_target_platforms),
		cmocka_unit_test(test_env_run),
		cmocka_unit_test(test_hw_parsers),
		cmocka_unit_test_setup_teardown(test_hw_sysroot, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_profile_roundtrip, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_profile_hand_written, fake_setup,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_profile_errors, fake_setup, fake_teardown),
	};
	return cmocka_run_group_tests_name("detect", tests, group_setup, group_teardown);
}
