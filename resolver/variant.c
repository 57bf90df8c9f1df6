/* resolver/variant.c: telling cu111 from rocm4.0.1 from ubuntu.1, so CUDA builds are never ranked
 * as text. */
#include "resolver/variant.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "base/mem.h"

#define MAX_SEGS 8

struct segs {
	char buf[64];
	const char *s[MAX_SEGS];
	int n;
};

/* Lower-case and split at '.', '-', '_' (PEP 440 treats them alike in a local label). */
static bool split(const char *in, struct segs *g)
{
	size_t n = strlen(in);
	if (!n || n >= sizeof(g->buf))
		return false;
	g->n = 0;
	char *start = g->buf;
	for (size_t i = 0; i <= n; i++) {
		char c = in[i];
		if (c == '.' || c == '-' || c == '_' || c == 0) {
			g->buf[i] = 0;
			if (!*start || g->n == MAX_SEGS)
				return false;
			g->s[g->n++] = start;
			start = g->buf + i + 1;
			continue;
		}
		if (!isalnum((unsigned char)c))
			return false;
		g->buf[i] = (char)tolower((unsigned char)c);
	}
	return true;
}

/* 1-4 decimal digits, the whole of s */
static bool small_num(const char *s, int *out)
{
	size_t n = strlen(s);
	if (!n || n > 4)
		return false;
	int v = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return true;
}

static bool segs_are(const struct segs *g, int from, const char *const *want, int nwant)
{
	if (g->n - from != nwant)
		return false;
	for (int i = 0; i < nwant; i++)
		if (strcmp(g->s[from + i], want[i]))
			return false;
	return true;
}

/* Everything after the family part: "" or a known flavour; anything else makes it OTHER. */
static void flavour(const struct segs *g, int from, struct wp_variant *v)
{
	static const char *const cxx11[] = { "cxx11", "abi" };
	static const char *const pypi[] = { "pypi", "cudnn" };
	static const char *const with_pypi[] = { "with", "pypi", "cudnn" };
	if (from == g->n)
		return;
	if (v->kind == WP_VARIANT_CPU && segs_are(g, from, cxx11, 2)) {
		snprintf(v->flavour, sizeof(v->flavour), "cxx11.abi");
		return;
	}
	if (v->kind == WP_VARIANT_CUDA &&
	    (segs_are(g, from, pypi, 2) || segs_are(g, from, with_pypi, 3))) {
		snprintf(v->flavour, sizeof(v->flavour), "pypi.cudnn");
		return;
	}
	v->kind = WP_VARIANT_OTHER;
}

static int parse(const char *text, struct wp_variant *v)
{
	struct segs g;
	struct wp_variant z = { 0 };
	*v = z;
	if (!text)
		return 0;
	if (*text == '+')
		text++;
	if (!split(text, &g))
		return 0;

	const char *head = g.s[0];
	int next = 1, num;
	if (!strcmp(head, "cpu")) {
		v->kind = WP_VARIANT_CPU;
	} else if (!strcmp(head, "xpu")) {
		v->kind = WP_VARIANT_XPU;
	} else if ((!strncmp(head, "cu", 2) && small_num(head + 2, &num) && strlen(head + 2) >= 2 &&
		    strlen(head + 2) <= 3) ||
		   (!strncmp(head, "cuda", 4) && small_num(head + 4, &num) &&
		    strlen(head + 4) == 3)) {
		/* cu92 = 9.2, cu100 = 10.0, cu121 = 12.1: the last digit is the minor */
		v->kind = WP_VARIANT_CUDA;
		v->major = num / 10;
		v->minor = num % 10;
	} else if (!strncmp(head, "rocm", 4) && small_num(head + 4, &num)) {
		v->kind = WP_VARIANT_ROCM;
		v->major = num;
		if (next < g.n && small_num(g.s[next], &num)) {
			v->minor = num;
			next++;
			if (next < g.n && small_num(g.s[next], &num)) {
				v->patch = num;
				next++;
			}
		} else {
			/* "rocm5" alone is no ROCm release PyTorch names */
			*v = z;
			return 0;
		}
	} else {
		return 0;
	}
	flavour(&g, next, v);

	switch (v->kind) {
	case WP_VARIANT_CPU:
		snprintf(v->label, sizeof(v->label), "cpu%s%s", v->flavour[0] ? "." : "",
			 v->flavour);
		break;
	case WP_VARIANT_XPU:
		snprintf(v->label, sizeof(v->label), "xpu");
		break;
	case WP_VARIANT_CUDA:
		snprintf(v->label, sizeof(v->label), "cu%d%d%s", v->major, v->minor,
			 v->flavour[0] ? ".with.pypi.cudnn" : "");
		break;
	case WP_VARIANT_ROCM: {
		int k = snprintf(v->label, sizeof(v->label), "rocm%d.%d", v->major, v->minor);
		if (next >= 3 && k > 0)
			snprintf(v->label + k, sizeof(v->label) - (size_t)k, ".%d", v->patch);
		break;
	}
	default: {
		/* OTHER keeps its own spelling, dotted */
		size_t k = 0;
		for (int i = 0; i < g.n; i++) {
			int w = snprintf(v->label + k, sizeof(v->label) - k, "%s%s", i ? "." : "",
					 g.s[i]);
			if (w < 0 || (size_t)w >= sizeof(v->label) - k) {
				*v = z;
				return 0;
			}
			k += (size_t)w;
		}
		break;
	}
	}
	return 1;
}

int wp_variant_from_label(const char *local, struct wp_variant *v)
{
	return parse(local, v);
}

int wp_variant_from_dir(const char *dir, struct wp_variant *v)
{
	/* a leading '+' is a label habit, not a directory one */
	if (dir && *dir == '+') {
		struct wp_variant z = { 0 };
		*v = z;
		return 0;
	}
	return parse(dir, v);
}

static int icmp(int a, int b)
{
	return (a > b) - (a < b);
}

int wp_variant_cmp(const struct wp_variant *a, const struct wp_variant *b)
{
	int c = icmp((int)a->kind, (int)b->kind);
	if (!c)
		c = icmp(a->major, b->major);
	if (!c)
		c = icmp(a->minor, b->minor);
	if (!c)
		c = icmp(a->patch, b->patch);
	if (c)
		return c;
	bool pa = !a->flavour[0], pb = !b->flavour[0];
	if (pa != pb)
		return pa ? 1 : -1;
	c = strcmp(b->flavour, a->flavour);
	if (!c)
		c = strcmp(b->label, a->label);
	return (c > 0) - (c < 0);
}


void wp_variant_format(const struct wp_variant *v, struct wp_buf *out)
{
	wp_buf_reset(out);
	switch (v->kind) {
	case WP_VARIANT_NONE:
		wp_buf_addstr(out, "no variant");
		return;
	case WP_VARIANT_CPU:
		wp_buf_addstr(out, "CPU");
		break;
	case WP_VARIANT_CUDA:
		wp_buf_printf(out, "CUDA %d.%d", v->major, v->minor);
		break;
	case WP_VARIANT_ROCM:
		wp_buf_printf(out, "ROCm %s", v->label + 4);
		break;
	case WP_VARIANT_XPU:
		wp_buf_addstr(out, "Intel XPU");
		break;
	case WP_VARIANT_OTHER:
		wp_buf_printf(out, "unknown variant '%s'", v->label);
		return;
	}
	if (v->flavour[0])
		wp_buf_printf(out, " (%s)", v->flavour);
}
