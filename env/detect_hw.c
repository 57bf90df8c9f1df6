/* env/detect_hw.c: the x86-64 level, the ROCm version and AMD gfx targets, from files under a
 * sysroot. */
#include "env/detect_hw.h"
#include "base/buf.h"
#include "base/mem.h"
#include "base/str.h"
#include "base/os/os.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cpuinfo and kfd properties are a few KiB per CPU; a 1024-CPU machine's cpuinfo is a few MiB */
#define CPUINFO_MAX ((size_t)16 << 20)
#define SMALL_MAX   ((size_t)64 << 10)
#define MAX_NODES   256

static bool has_flag(const char *flags, size_t len, const char *want)
{
	struct wp_str s = WP_STRN(flags, len);
	size_t wl = strlen(want);
	while (s.n) {
		while (s.n && (*s.p == ' ' || *s.p == '\t')) {
			s.p++;
			s.n--;
		}
		size_t i = 0;
		while (i < s.n && s.p[i] != ' ' && s.p[i] != '\t' && s.p[i] != '\n')
			i++;
		if (i == wl && !memcmp(s.p, want, wl))
			return true;
		s.p += i;
		s.n -= i;
		if (s.n && *s.p == '\n')
			break;
	}
	return false;
}

int wp_x86_64_level_from_flags(const char *flags, size_t len)
{
	/* one list per level; a name with '|' is met by either spelling (Linux shows LZCNT as
	 * abm) */
	static const char *const levels[][10] = {
		{ "lm", "cmov", "cx8", "fpu", "fxsr", "mmx", "syscall", "sse", "sse2", NULL },
		{ "cx16", "lahf_lm", "popcnt", "sse4_1", "sse4_2", "ssse3", NULL },
		{ "avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "lzcnt|abm", "movbe", "xsave",
		  NULL },
		{ "avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl", NULL },
	};
	int level = 0;
	for (size_t l = 0; l < WP_ARRAY_LEN(levels); l++) {
		for (size_t k = 0; levels[l][k]; k++) {
			const char *name = levels[l][k], *bar = strchr(name, '|');
			bool ok;
			if (bar) {
				char first[16];
				snprintf(first, sizeof(first), "%.*s", (int)(bar - name), name);
				ok = has_flag(flags, len, first) || has_flag(flags, len, bar + 1);
				/* some hypervisors' guests list neither (the kernel drops abm)
				 * while ld.so, asking CPUID, finds LZCNT: every CPU with AVX2 and
				 * BMI1 has it (Haswell, Excavator on) */
				if (!ok && !strcmp(first, "lzcnt"))
					ok = has_flag(flags, len, "avx2") &&
					     has_flag(flags, len, "bmi1");
			} else {
				ok = has_flag(flags, len, name);
			}
			if (!ok)
				return level;
		}
		level = (int)l + 1;
	}
	return level;
}

int wp_x86_64_level_from_cpuinfo(const char *text, size_t len)
{
	struct wp_str s = WP_STRN(text, len);
	int lowest = 0;
	bool any = false;
	while (s.n) {
		struct wp_str line = wp_str_cut(&s, '\n');
		struct wp_str key = wp_str_trim(wp_str_cut(&line, ':'));
		if (!wp_str_eq(key, "flags"))
			continue;
		int l = wp_x86_64_level_from_flags(line.p, line.n);
		if (!l)
			return 0; /* a CPU that is not x86-64 at all */
		lowest = any && lowest < l ? lowest : l;
		any = true;
	}
	return lowest;
}

bool wp_rocm_version_parse(const char *text, size_t len, int *major, int *minor)
{
	char buf[32];
	size_t n = len < sizeof(buf) - 1 ? len : sizeof(buf) - 1;
	memcpy(buf, text, n);
	buf[n] = 0;
	int a, b, used = 0;
	if (sscanf(buf, "%3d.%3d%n", &a, &b, &used) != 2 || used < 3 || buf[0] < '0' ||
	    buf[0] > '9' || a < 1)
		return false;
	*major = a;
	*minor = b;
	return true;
}

bool wp_gfx_from_kfd_properties(const char *text, size_t len, char out[16])
{
	struct wp_str s = WP_STRN(text, len);
	while (s.n) {
		struct wp_str line = wp_str_trim(wp_str_cut(&s, '\n'));
		struct wp_str key = wp_str_trim(wp_str_cut(&line, ' '));
		if (!wp_str_eq(key, "gfx_target_version"))
			continue;
		line = wp_str_trim(line);
		char num[16];
		if (!line.n || line.n >= sizeof(num))
			return false;
		memcpy(num, line.p, line.n);
		num[line.n] = 0;
		char *end;
		errno = 0;
		long v = strtol(num, &end, 10);
		if (errno || *end || v <= 0)
			return false;
		long major = v / 10000, minor = v / 100 % 100, step = v % 100;
		/* the name spells minor and stepping as one hex digit each: gfx90a is 9.0.10 */
		if (major < 1 || major > 99 || minor > 15 || step > 15)
			return false;
		snprintf(out, 16, "gfx%ld%lx%lx", major, minor, step);
		return true;
	}
	return false;
}

int wp_env_read_small(const char *path, size_t max, struct wp_buf *out)
{
	wp_buf_reset(out);
	int fd = wp_os_open(path, WP_O_RDONLY | WP_O_CLOEXEC | WP_O_NONBLOCK);
	if (fd < 0)
		return -1;
	char tmp[4096];
	while (out->len < max) {
		ssize_t n = wp_os_read(fd, tmp, sizeof(tmp));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		size_t room = max - out->len;
		wp_buf_add(out, tmp, (size_t)n < room ? (size_t)n : room);
	}
	wp_os_close(fd);
	return 0;
}

static int cmp_gfx(const void *a, const void *b)
{
	return strcmp(a, b);
}

static void add_gfx(struct wp_detect *d, const char *gfx)
{
	for (int i = 0; i < d->n_gfx; i++)
		if (!strcmp(d->gfx[i], gfx))
			return;
	if (d->n_gfx < WP_DETECT_MAX_GPUS)
		snprintf(d->gfx[d->n_gfx++], sizeof(d->gfx[0]), "%s", gfx);
}

void wp_detect_hw(struct wp_detect *d, const char *root, void (*warn)(void *ctx, const char *msg),
		  void *ctx)
{
	struct wp_buf b = WP_BUF_INIT;
	char *path = wp_xasprintf("%s/proc/cpuinfo", root);
	if (wp_env_read_small(path, CPUINFO_MAX, &b) == 0 && b.len)
		d->x86_64_level = wp_x86_64_level_from_cpuinfo(b.data, b.len);
	free(path);

	path = wp_xasprintf("%s/opt/rocm/.info/version", root);
	if (wp_env_read_small(path, SMALL_MAX, &b) == 0 && b.len) {
		struct wp_str text = WP_STRN(b.data, b.len);
		struct wp_str line = wp_str_trim(wp_str_cut(&text, '\n'));
		if (wp_rocm_version_parse(line.p, line.n, &d->rocm_major, &d->rocm_minor)) {
			snprintf(d->rocm_version, sizeof(d->rocm_version), "%.*s",
				 (int)(line.n < 31 ? line.n : 31), line.p);
			for (char *p = d->rocm_version; *p; p++)
				if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
					*p = '?';
		} else {
			warn(ctx,
			     "/opt/rocm/.info/version does not start with a version (N.N); ROCm is not taken from it");
		}
	}
	free(path);

	/* the kfd topology lists every node, CPUs (gfx_target_version 0) and GPUs alike */
	char *nodes = wp_xasprintf("%s/sys/class/kfd/kfd/topology/nodes", root);
	struct wp_os_dir *dir = wp_os_opendir(nodes);
	const struct wp_os_dirent *de;
	int seen = 0;
	while (dir && (de = wp_os_readdir(dir)) && seen < MAX_NODES) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		seen++;
		path = wp_xasprintf("%s/%s/properties", nodes, de->d_name);
		char gfx[16];
		if (wp_env_read_small(path, SMALL_MAX, &b) == 0 &&
		    wp_gfx_from_kfd_properties(b.data ? b.data : "", b.len, gfx))
			add_gfx(d, gfx);
		free(path);
	}
	if (dir)
		wp_os_closedir(dir);
	free(nodes);
	/* readdir's order is the file system's: sort, so the output is the same on every run */
	qsort(d->gfx, (size_t)d->n_gfx, sizeof(d->gfx[0]), cmp_gfx);
	if (d->rocm_version[0] && !d->n_gfx)
		warn(ctx,
		     "ROCm is installed but no AMD GPU is visible (/sys/class/kfd); the target is not a ROCm one");
	wp_buf_free(&b);
}
