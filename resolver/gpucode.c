/* resolver/gpucode.c: the verdict of a binary's GPU code on a GPU (native / ptx-jit / none); see
 * gpucode.h. */
#include "resolver/gpucode.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/str.h"

const char *wp_gpu_verdict_name(enum wp_gpu_verdict v)
{
	switch (v) {
	case WP_GPU_NATIVE: return "native";
	case WP_GPU_PTX_JIT: return "ptx-jit";
	case WP_GPU_NONE: return "none";
	default: return "no GPU code";
	}
}

/* Tegra (Jetson, DRIVE, Thor) parts: integrated GPUs whose SASS is not shared with the discrete
 * parts of the same major. No NVIDIA source says otherwise, so SASS must be built for exactly
 * them. */
static bool tegra(int sm)
{
	return sm == 32 || sm == 53 || sm == 62 || sm == 72 || sm == 87 || sm == 101 || sm == 110;
}

bool wp_gpucode_sass_runs(int arch, char variant, int gpu_sm)
{
	if (variant == 'a' || tegra(arch) || tegra(gpu_sm))
		return arch == gpu_sm;
	/* plain and family ('f') code alike: the same major, a minor not above the GPU's */
	return arch / 10 == gpu_sm / 10 && gpu_sm % 10 >= arch % 10;
}

bool wp_gpucode_ptx_runs(int arch, char variant, int gpu_sm)
{
	if (variant == 'a')
		return arch == gpu_sm;
	if (variant == 'f')
		return arch / 10 == gpu_sm / 10 && gpu_sm % 10 >= arch % 10;
	return gpu_sm >= arch;
}

/* PTX ISA version -> the CUDA toolkit that introduced it (NVIDIA's PTX ISA "Release Notes" table;
 * ISA 8.6 shipped with no released toolkit before 12.8). A driver JIT-compiles the ISA of its CUDA
 * and older. */
static const struct { int isa, cuda; } isa_cuda[] = {
	{ 60, 90 }, { 61, 91 }, { 62, 92 }, { 63, 100 }, { 64, 101 }, { 65, 102 },
	{ 70, 110 }, { 71, 111 }, { 72, 112 }, { 73, 113 }, { 74, 114 }, { 75, 115 }, { 76, 116 },
	{ 77, 117 }, { 78, 118 }, { 80, 120 }, { 81, 121 }, { 82, 122 }, { 83, 123 }, { 84, 124 },
	{ 85, 125 }, { 86, 128 }, { 87, 128 }, { 88, 129 }, { 90, 130 }, { 91, 131 },
};

int wp_gpucode_ptx_min_cuda(int isa)
{
	for (size_t i = 0; i < sizeof isa_cuda / sizeof isa_cuda[0]; i++)
		if (isa_cuda[i].isa >= isa)
			return isa_cuda[i].cuda;
	return 0;
}

struct code {
	bool ptx;
	char variant;
	int arch;
	int isa; /* PTX ISA x10, 0 unknown */
};

/* "sm_90a", "compute_90@7.8" */
static bool code_parse(struct wp_str t, struct code *c)
{
	memset(c, 0, sizeof *c);
	if (wp_str_startswith(t, "sm_"))
		t.p += 3, t.n -= 3;
	else if (wp_str_startswith(t, "compute_"))
		t.p += 8, t.n -= 8, c->ptx = true;
	else
		return false;
	struct wp_str isa = { NULL, 0 };
	const char *at = memchr(t.p, '@', t.n);
	if (at) {
		isa = WP_STRN(at + 1, t.n - (size_t)(at + 1 - t.p));
		t.n = (size_t)(at - t.p);
		if (!c->ptx)
			return false;
	}
	if (t.n && (t.p[t.n - 1] == 'a' || t.p[t.n - 1] == 'f'))
		c->variant = t.p[--t.n];
	long long v;
	if (!t.n || t.n > 4 || !wp_str_to_ll(t, &v) || v < 10)
		return false;
	c->arch = (int)v;
	if (isa.n) {
		struct wp_str maj = wp_str_cut(&isa, '.');
		long long a, b;
		if (!wp_str_to_ll(maj, &a) || !wp_str_to_ll(isa, &b) || a > 99 || b > 9)
			return false;
		c->isa = (int)(a * 10 + b);
	}
	return true;
}

static void add_name(struct wp_buf *b, const struct code *c)
{
	wp_buf_printf(b, "%s_%d%s", c->ptx ? "compute" : "sm", c->arch,
		      c->variant == 'a' ? "a" :
		      c->variant == 'f' ? "f" :
					  "");
}

int wp_gpucode_verdict(const char *code, int gpu_sm, int driver_cuda, enum wp_gpu_verdict *out,
		       struct wp_buf *why, struct wp_err *err)
{
	enum wp_gpu_verdict worst = WP_GPU_NO_CODE;
	struct wp_str rest = WP_STR(code);
	bool told = false;
	while (rest.n) {
		struct wp_str unit = wp_str_cut(&rest, ' ');
		if (!unit.n)
			continue;
		enum wp_gpu_verdict best = WP_GPU_NONE;
		int old_driver_isa = 0;
		struct wp_str u = unit;
		while (u.n) {
			struct wp_str t = wp_str_cut(&u, ',');
			struct code c;
			if (!code_parse(t, &c))
				return wp_fail(err, -WPE_PARSE,
					       "GPU code '%.*s' is not of the form sm_80 or compute_90@7.8",
					       WP_STR_FMT(t));
			if (!c.ptx) {
				if (wp_gpucode_sass_runs(c.arch, c.variant, gpu_sm))
					best = WP_GPU_NATIVE;
				continue;
			}
			if (!wp_gpucode_ptx_runs(c.arch, c.variant, gpu_sm))
				continue;
			int need = c.isa ? wp_gpucode_ptx_min_cuda(c.isa) : 0;
			if (driver_cuda && need > driver_cuda) {
				old_driver_isa = need;
				continue;
			}
			if (best == WP_GPU_NONE)
				best = WP_GPU_PTX_JIT;
		}
		if (worst == WP_GPU_NO_CODE || best < worst) {
			worst = best;
			if (why && best != WP_GPU_NATIVE) {
				wp_buf_reset(why);
				if (best == WP_GPU_NONE)
					wp_buf_printf(why,
						      "no SASS for sm_%d and no PTX at or below it in code built for ",
						      gpu_sm);
				else
					wp_buf_printf(why, "no SASS for sm_%d in code built for ",
						      gpu_sm);
				struct wp_str v = unit;
				bool first = true;
				while (v.n) {
					struct wp_str t = wp_str_cut(&v, ',');
					struct code c;
					if (!code_parse(t, &c))
						continue;
					wp_buf_addstr(why, first ? "" : ", ");
					add_name(why, &c);
					first = false;
				}
				if (best == WP_GPU_NONE && old_driver_isa)
					wp_buf_printf(why,
						      "; its PTX needs a driver for CUDA %d.%d or newer",
						      old_driver_isa / 10, old_driver_isa % 10);
				told = true;
			}
		}
	}
	if (why && !told)
		wp_buf_reset(why);
	*out = worst;
	return 0;
}

static bool has_unit(const char *text, struct wp_str unit)
{
	struct wp_str rest = WP_STR(text);
	while (rest.n) {
		struct wp_str u = wp_str_cut(&rest, ' ');
		if (u.n == unit.n && !memcmp(u.p, unit.p, u.n))
			return true;
	}
	return false;
}

void wp_gpucode_merge(const char *a, const char *b, struct wp_buf *out)
{
	wp_buf_reset(out);
	const char *src[2] = { a ? a : "", b ? b : "" };
	for (int i = 0; i < 2; i++) {
		struct wp_str rest = WP_STR(src[i]);
		while (rest.n) {
			struct wp_str u = wp_str_cut(&rest, ' ');
			if (!u.n || has_unit(wp_buf_cstr(out), u))
				continue;
			if (out->len)
				wp_buf_addch(out, ' ');
			wp_buf_add(out, u.p, u.n);
		}
	}
	wp_buf_cstr(out);
}

static int code_cmp(const void *x, const void *y)
{
	const struct code *a = x, *b = y;
	if (a->ptx != b->ptx)
		return a->ptx - b->ptx;
	if (a->arch != b->arch)
		return a->arch - b->arch;
	return a->variant - b->variant;
}

void wp_gpucode_archs(const char *code, struct wp_buf *out)
{
	wp_buf_reset(out);
	struct code *v = NULL;
	size_t n = 0, cap = 0;
	struct wp_str rest = WP_STR(code ? code : "");
	while (rest.n) {
		struct wp_str u = wp_str_cut(&rest, ' ');
		while (u.n) {
			struct wp_str t = wp_str_cut(&u, ',');
			struct code c;
			if (!code_parse(t, &c))
				continue;
			c.isa = 0;
			bool dup = false;
			for (size_t i = 0; i < n && !dup; i++)
				dup = !code_cmp(&v[i], &c);
			if (dup)
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 16;
				v = wp_xrealloc(v, cap * sizeof *v);
			}
			v[n++] = c;
		}
	}
	if (n)
		qsort(v, n, sizeof *v, code_cmp);
	for (size_t i = 0; i < n; i++) {
		if (i)
			wp_buf_addch(out, ' ');
		add_name(out, &v[i]);
	}
	wp_buf_cstr(out);
	free(v);
}
