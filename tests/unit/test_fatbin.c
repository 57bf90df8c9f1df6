/* tests/unit/test_fatbin.c: the fatbinary reader and the GPU-code verdict, on every binary of the
 * gpu-code corpus (tests/fixtures/gpu-code/, PROVENANCE.md there), against cuobjdump's listings,
 * the corpus index and its verdict table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/mem.h"
#include "resolver/gpucode.h"
#include "verify/fatbin.h"

#define DIR "tests/fixtures/gpu-code"

static size_t split_tab(char *line, char **cols, size_t max)
{
	static char empty[1];
	size_t n = 0;
	for (size_t i = 0; i < max; i++)
		cols[i] = empty;
	line[strcspn(line, "\r\n")] = 0;
	while (n < max) {
		cols[n++] = line;
		char *t = strchr(line, '\t');
		if (!t)
			break;
		*t = 0;
		line = t + 1;
	}
	return n;
}

/* A corpus binary, gunzipped. */
static unsigned char *load(const char *file, size_t *len)
{
	char *path = wp_xasprintf("%s/%s.gz", DIR, file);
	gzFile g = gzopen(path, "rb");
	if (!g)
		fail_msg("missing test input '%s'", path);
	struct wp_buf b = WP_BUF_INIT;
	unsigned char chunk[65536];
	int k;
	while ((k = gzread(g, chunk, sizeof chunk)) > 0)
		wp_buf_add(&b, chunk, (size_t)k);
	assert_true(k == 0);
	gzclose(g);
	free(path);
	*len = b.len;
	return (unsigned char *)wp_buf_detach(&b, NULL);
}

/* The index's containers_detail form: nv_fatbin(v1):[sm_80,compute_80~lz4] ... ("-" when none). */
static void detail(const struct wp_fatbin *fb, struct wp_buf *out)
{
	wp_buf_reset(out);
	for (size_t i = 0; i < fb->n_containers; i++) {
		const struct wp_fatbin_container *c = &fb->containers[i];
		const char *sec = c->section == WP_FATBIN_SEC_REL ? "relfatbin" :
				  c->section == WP_FATBIN_SEC_FATBIN ? "nv_fatbin" : "other";
		wp_buf_printf(out, "%s%s", i ? " " : "", sec);
		if (fb->wrappers)
			wp_buf_printf(out, c->registered ? "(v%u)" : "(unreg)", c->registered);
		wp_buf_addstr(out, ":[");
		for (uint32_t j = 0; j < c->n; j++) {
			const struct wp_fatbin_entry *e = &fb->entries[c->first + j];
			char name[32];
			wp_buf_printf(out, "%s%s", j ? "," : "",
				      wp_fatbin_entry_name(e, name, sizeof name));
			if (e->flags & WP_FATBIN_FLAG_LZ4)
				wp_buf_addstr(out, "~lz4");
			if (e->flags & WP_FATBIN_FLAG_ZSTD)
				wp_buf_addstr(out, "~zstd");
		}
		wp_buf_addstr(out, "]");
	}
	if (!fb->n_containers)
		wp_buf_addstr(out, "-");
	wp_buf_cstr(out);
}

/* Kinds and archs only, in file order: "sm_80 compute_80 ..." */
static void flat(const struct wp_fatbin *fb, struct wp_buf *out)
{
	wp_buf_reset(out);
	for (size_t i = 0; i < fb->n_entries; i++) {
		char name[32];
		wp_buf_printf(out, "%s%s", i ? " " : "",
			      wp_fatbin_entry_name(&fb->entries[i], name, sizeof name));
	}
	wp_buf_cstr(out);
}

/* Fed in chunks of sizes from a small generator: every boundary case of the streaming reader. */
static void read_chunked(const unsigned char *p, size_t n, unsigned seed, struct wp_fatbin *out)
{
	struct wp_fatbin_scan *s = wp_fatbin_scan_new();
	size_t at = 0;
	while (at < n) {
		seed = seed * 1103515245u + 12345u;
		size_t k = (seed >> 16) % 4 == 0 ? 1 + (seed >> 8) % 7 : 1 + (seed >> 8) % 5000;
		if (k > n - at)
			k = n - at;
		wp_fatbin_scan_feed(s, p + at, k);
		at += k;
	}
	struct wp_err e = WP_ERR_INIT;
	assert_int_equal(wp_fatbin_scan_finish(s, "x", out, &e), 0);
	wp_fatbin_scan_free(s);
}

/* "sm_37,sm_50" + "compute_90" -> "sm_37 sm_50 compute_90", as wp_gpucode_archs writes it */
static void columns_archs(const char *native, const char *ptx, struct wp_buf *out)
{
	wp_buf_reset(out);
	const char *src[2] = { native, ptx };
	for (int i = 0; i < 2; i++) {
		if (!strcmp(src[i], "-"))
			continue;
		for (const char *p = src[i]; *p; p++)
			wp_buf_addch(out, *p == ',' ? ' ' : *p);
		wp_buf_addch(out, ' ');
	}
	wp_buf_cstr(out);
	if (out->len)
		out->data[--out->len] = 0;
}

/* verdicts.tsv's words -> ours */
static const char *verdict_word(const char *v)
{
	return !strcmp(v, "jit") ? "ptx-jit" : !strcmp(v, "no-gpu-code") ? "no GPU code" : v;
}

/* Every corpus file: the containers and entries equal the index's (every field it lists), whole and
 * streamed; the code the runtime loads equals the registered columns; the verdict on each GPU of
 * cc 3.5 to 12.1 equals verdicts.tsv. */
static void test_corpus(void **state)
{
	(void)state;
	FILE *f = fopen(DIR "/index.tsv", "r");
	FILE *vf = fopen(DIR "/verdicts.tsv", "r");
	assert_non_null(f);
	assert_non_null(vf);
	char line[16384], vline[4096];
	assert_non_null(fgets(line, sizeof line, f));
	assert_non_null(fgets(vline, sizeof vline, vf));
	char *vh[32];
	size_t nvh = split_tab(vline, vh, 32);
	int ccs[32];
	for (size_t i = 1; i < nvh; i++) {
		unsigned a, b;
		assert_int_equal(sscanf(vh[i], "cc%u.%u", &a, &b), 2);
		ccs[i] = (int)(a * 10 + b);
	}
	struct wp_buf d = WP_BUF_INIT, d2 = WP_BUF_INIT, sum = WP_BUF_INIT, archs = WP_BUF_INIT,
		      want = WP_BUF_INIT, why = WP_BUF_INIT;
	size_t files = 0, checked = 0;
	while (fgets(line, sizeof line, f)) {
		char *col[17];
		split_tab(line, col, 17);
		size_t len;
		unsigned char *bin = load(col[0], &len);
		struct wp_fatbin fb = { 0 };
		struct wp_err e = WP_ERR_INIT;
		assert_int_equal(wp_fatbin_read(bin, len, col[0], &fb, &e), 0);
		detail(&fb, &d);
		if (strcmp(d.data, col[12]))
			fail_msg("%s: read %s, the index has %s", col[0], d.data, col[12]);
		assert_int_equal(fb.n_containers, strtoul(col[9], NULL, 10));
		assert_int_equal(fb.n_entries, strtoul(col[10], NULL, 10));

		/* streamed in odd chunks: the same */
		for (unsigned seed = 1; seed <= 3; seed++) {
			struct wp_fatbin fs = { 0 };
			read_chunked(bin, len, seed * 7919u + (unsigned)files, &fs);
			detail(&fs, &d2);
			if (strcmp(d.data, d2.data))
				fail_msg("%s streamed (seed %u): %s, whole: %s", col[0], seed,
					 d2.data, d.data);
			wp_fatbin_free(&fs);
		}
		/* no ELF header (a section-free scan): the same entries */
		if (len > 4) {
			unsigned char save = bin[1];
			bin[1] = 'X';
			struct wp_fatbin fs = { 0 };
			assert_int_equal(wp_fatbin_read(bin, len, col[0], &fs, &e), 0);
			assert_false(fs.sections);
			flat(&fb, &d);
			flat(&fs, &d2);
			if (strcmp(d.data, d2.data))
				fail_msg("%s scanned: %s, with sections: %s", col[0], d2.data,
					 d.data);
			wp_fatbin_free(&fs);
			bin[1] = save;
		}

		/* what the runtime loads */
		wp_buf_reset(&sum);
		wp_fatbin_summary(&fb, &sum);
		wp_gpucode_archs(wp_buf_cstr(&sum), &archs);
		columns_archs(col[5], col[6], &want);
		if (strcmp(archs.data, want.data))
			fail_msg("%s: registered code %s (summary '%s'), the index has %s", col[0],
				 archs.data, wp_buf_cstr(&sum), want.data);

		/* without the wrappers (a linker that leaves the pointers to relocations, a PE
		 * file): the same code; without sections too, the same except where libcudadevrt's
		 * relocatable code cannot be told from the package's (it then counts, which only
		 * makes the verdict worse) */
		{
			struct wp_buf alt = WP_BUF_INIT;
			fb.wrappers = false;
			wp_fatbin_units(&fb);
			wp_fatbin_summary(&fb, &alt);
			if (strcmp(wp_buf_cstr(&alt), wp_buf_cstr(&sum)))
				fail_msg("%s without wrappers: '%s', with: '%s'", col[0],
					 wp_buf_cstr(&alt), wp_buf_cstr(&sum));
			for (size_t i = 0; i < fb.n_containers; i++)
				fb.containers[i].section = WP_FATBIN_SEC_UNKNOWN;
			wp_fatbin_units(&fb);
			wp_buf_reset(&alt);
			wp_fatbin_summary(&fb, &alt);
			bool devrt = !strcmp(col[0], "cuda11.8/ptx_compute80.so");
			if (!strcmp(wp_buf_cstr(&alt), wp_buf_cstr(&sum)) == devrt)
				fail_msg("%s without sections: '%s', with: '%s'", col[0],
					 wp_buf_cstr(&alt), wp_buf_cstr(&sum));
			wp_buf_free(&alt);
		}

		/* the verdicts */
		if (!fgets(vline, sizeof vline, vf))
			fail_msg("verdicts.tsv ends before %s", col[0]);
		char *vc[32];
		split_tab(vline, vc, 32);
		assert_string_equal(vc[0], col[0]);
		for (size_t i = 1; i < nvh; i++) {
			enum wp_gpu_verdict v;
			assert_int_equal(wp_gpucode_verdict(wp_buf_cstr(&sum), ccs[i], 0, &v, &why,
							    &e),
					 0);
			if (strcmp(wp_gpu_verdict_name(v), verdict_word(vc[i])))
				fail_msg("%s on cc %d.%d: %s (%s), the table has %s; code '%s'",
					 col[0], ccs[i] / 10, ccs[i] % 10, wp_gpu_verdict_name(v),
					 wp_buf_cstr(&why), vc[i], wp_buf_cstr(&sum));
			checked++;
		}
		wp_fatbin_free(&fb);
		free(bin);
		files++;
	}
	fclose(f);
	fclose(vf);
	assert_int_equal(files, 73);
	assert_int_equal(checked, 73 * 18);
	wp_buf_free(&d);
	wp_buf_free(&d2);
	wp_buf_free(&sum);
	wp_buf_free(&archs);
	wp_buf_free(&want);
	wp_buf_free(&why);
}

/* "ELF file    1: x.1.sm_52.cubin" lines of one command's output, as "sm_52 sm_70" */
static void listing_view(const char *text, const char *cmd, const char *what, struct wp_buf *out)
{
	wp_buf_reset(out);
	const char *p = strstr(text, cmd);
	assert_non_null(p);
	p = strchr(p, '\n') + 1;
	while (*p && *p != '$') {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);
		if (!strncmp(p, what, strlen(what))) {
			const char *dot = memchr(p, '\n', n);
			(void)dot;
			/* the arch is the part before the last '.': name.N.sm_80.cubin */
			const char *end = p + n;
			const char *ext = end;
			while (ext > p && *ext != '.')
				ext--;
			const char *sm = ext - 1;
			while (sm > p && *sm != '.')
				sm--;
			wp_buf_printf(out, "%s%.*s", out->len ? " " : "", (int)(ext - sm - 1),
				      sm + 1);
		}
		p = eol ? eol + 1 : p + n;
	}
	wp_buf_cstr(out);
}

/* The same kinds and archs, in file order, of the containers cuobjdump shows: by default those of
 * .nv_fatbin when the file has any, else __nv_relfatbin's; with -all, all. PTX shows as sm_XY. */
static void our_view(const struct wp_fatbin *fb, bool all, int kind, struct wp_buf *out)
{
	bool has_fatbin = false;
	for (size_t i = 0; i < fb->n_containers; i++)
		has_fatbin |= fb->containers[i].section == WP_FATBIN_SEC_FATBIN;
	wp_buf_reset(out);
	for (size_t i = 0; i < fb->n_entries; i++) {
		const struct wp_fatbin_entry *e = &fb->entries[i];
		uint8_t sec = fb->containers[e->container].section;
		if (!all && (has_fatbin ? sec != WP_FATBIN_SEC_FATBIN : sec != WP_FATBIN_SEC_REL))
			continue;
		if (e->kind != kind)
			continue;
		wp_buf_printf(out, "%ssm_%u%s", out->len ? " " : "", e->arch,
			      e->variant == 'a' ? "a" : "");
	}
	wp_buf_cstr(out);
}

/* Every CUDA 11.8 file: the reader's entries equal cuobjdump's four listings (kind and arch). */
static void test_cuobjdump(void **state)
{
	(void)state;
	FILE *f = fopen(DIR "/index.tsv", "r");
	assert_non_null(f);
	char line[16384];
	assert_non_null(fgets(line, sizeof line, f));
	struct wp_buf theirs = WP_BUF_INIT, ours = WP_BUF_INIT;
	size_t files = 0;
	while (fgets(line, sizeof line, f)) {
		char *col[3];
		split_tab(line, col, 3);
		if (strncmp(col[0], "cuda11.8/", 9))
			continue;
		const char *base = col[0] + 9;
		char *lpath = wp_xasprintf("%s/listings11.8/%s.cuobjdump.txt", DIR, base);
		struct wp_buf lt = WP_BUF_INIT;
		FILE *lf = fopen(lpath, "r");
		if (!lf)
			fail_msg("missing test input '%s'", lpath);
		assert_int_equal(wp_buf_read_fd(&lt, fileno(lf)), 0);
		fclose(lf);
		size_t len;
		unsigned char *bin = load(col[0], &len);
		struct wp_fatbin fb = { 0 };
		struct wp_err e = WP_ERR_INIT;
		assert_int_equal(wp_fatbin_read(bin, len, col[0], &fb, &e), 0);
		static const struct { const char *cmd, *what; bool all; int kind; } views[] = {
			{ "$ cuobjdump --list-elf", "ELF file", false, WP_FATBIN_CUBIN },
			{ "$ cuobjdump --list-ptx", "PTX file", false, WP_FATBIN_PTX },
			{ "$ cuobjdump -all --list-elf", "ELF file", true, WP_FATBIN_CUBIN },
			{ "$ cuobjdump -all --list-ptx", "PTX file", true, WP_FATBIN_PTX },
		};
		for (size_t v = 0; v < 4; v++) {
			listing_view(wp_buf_cstr(&lt), views[v].cmd, views[v].what, &theirs);
			our_view(&fb, views[v].all, views[v].kind, &ours);
			if (strcmp(theirs.data, ours.data))
				fail_msg("%s, %s: cuobjdump lists '%s', the reader '%s'", base,
					 views[v].cmd + 2, theirs.data, ours.data);
		}
		wp_fatbin_free(&fb);
		wp_buf_free(&lt);
		free(bin);
		free(lpath);
		files++;
	}
	fclose(f);
	assert_int_equal(files, 43);
	wp_buf_free(&theirs);
	wp_buf_free(&ours);
}

/* A container of one entry, built by hand: version, kind and arch as given. */
static size_t container(unsigned char *p, unsigned version, unsigned kind, unsigned arch,
			unsigned flags)
{
	memset(p, 0, 16 + 64 + 32);
	memcpy(p, "\x50\xed\x55\xba", 4);
	p[4] = (unsigned char)version;
	p[6] = 16;
	p[8] = 64 + 32;
	p[16] = (unsigned char)kind;
	p[18] = 1;
	p[19] = 1;
	p[20] = 64;
	p[24] = 32;
	p[16 + 24] = 8; /* version 7.8 (a PTX's ISA) */
	p[16 + 26] = 7;
	p[16 + 28] = (unsigned char)arch;
	p[16 + 40] = (unsigned char)flags;
	p[16 + 41] = (unsigned char)(flags >> 8);
	p[16 + 42] = (unsigned char)(flags >> 16);
	return 16 + 64 + 32;
}

/* A version other than 1 and an unknown kind fail loudly; random bytes make no container. */
static void test_loud_and_quiet(void **state)
{
	(void)state;
	unsigned char buf[4096];
	struct wp_fatbin fb = { 0 };
	struct wp_err e = WP_ERR_INIT;

	size_t n = container(buf, 1, 2, 86, 0x2000);
	assert_int_equal(wp_fatbin_read(buf, n, "ok.so", &fb, &e), 0);
	assert_int_equal(fb.n_entries, 1);
	assert_int_equal(fb.entries[0].arch, 86);
	assert_int_equal(fb.entries[0].kind, WP_FATBIN_CUBIN);
	container(buf, 1, 1, 90, WP_FATBIN_FLAG_A);
	assert_int_equal(wp_fatbin_read(buf, n, "ok.so", &fb, &e), 0);
	char name[32];
	assert_string_equal(wp_fatbin_entry_name(&fb.entries[0], name, sizeof name), "compute_90a");

	container(buf, 2, 2, 86, 0);
	assert_int_equal(wp_fatbin_read(buf, n, "v2.so", &fb, &e), -WPE_INTEGRITY);
	assert_non_null(strstr(e.msg, "'v2.so'"));
	assert_non_null(strstr(e.msg, "version 2"));

	wp_err_clear(&e);
	container(buf, 1, 3, 86, 0);
	assert_int_equal(wp_fatbin_read(buf, n, "k3.so", &fb, &e), -WPE_INTEGRITY);
	assert_non_null(strstr(e.msg, "unknown kind 3"));

	/* a second entry that does not fit: the container's entries do not add up */
	wp_err_clear(&e);
	container(buf, 1, 2, 86, 0);
	buf[8] = 64 + 32 + 64; /* room for one more entry header... */
	memset(buf + n, 0xee, 64); /* ...that is not one */
	assert_int_equal(wp_fatbin_read(buf, n + 64, "cut.so", &fb, &e), -WPE_INTEGRITY);

	/* random bytes with the magic sprinkled in: nothing, and no error */
	unsigned seed = 42;
	for (size_t i = 0; i < sizeof buf; i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = (unsigned char)(seed >> 16);
	}
	for (size_t i = 0; i + 8 < sizeof buf; i += 97) {
		memcpy(buf + i, "\x50\xed\x55\xba\x01\x00\x10\x00", 8);
	}
	wp_err_clear(&e);
	assert_int_equal(wp_fatbin_read(buf, sizeof buf, "noise", &fb, &e), 0);
	assert_int_equal(fb.n_containers, 0);
	wp_fatbin_free(&fb);
}

/* A Windows DLL: its containers placed by the PE section table (.nv_fatb, __nv_rel), none of them
 * registered (no wrappers are read there), and the code judged as on Linux. */
static void test_pe(void **state)
{
	(void)state;
	unsigned char f[0x600];
	memset(f, 0, sizeof f);
	f[0] = 'M';
	f[1] = 'Z';
	f[0x3c] = 0x40;                    /* e_lfanew */
	memcpy(f + 0x40, "PE\0\0", 4);
	f[0x40 + 6] = 3;                   /* NumberOfSections; SizeOfOptionalHeader 0 */
	static const char *const names[3] = { ".text", ".nv_fatb", "__nv_rel" };
	for (int i = 0; i < 3; i++) {
		unsigned char *sh = f + 0x40 + 24 + 40 * i;
		memcpy(sh, names[i], strlen(names[i]));
		sh[8 + 1] = 1;                  /* VirtualSize 0x100 */
		sh[12 + 1] = (unsigned char)(0x10 * (i + 1)); /* VirtualAddress */
		sh[16 + 1] = 1;                 /* SizeOfRawData 0x100 */
		sh[20 + 1] = (unsigned char)(2 + i); /* PointerToRawData 0x200, 0x300, 0x400 */
	}
	container(f + 0x300, 1, 1, 86, 0);
	container(f + 0x400, 1, 1, 90, 0x2000);
	struct wp_fatbin fb = { 0 };
	struct wp_err e = WP_ERR_INIT;
	assert_int_equal(wp_fatbin_read(f, sizeof f, "x.dll", &fb, &e), 0);
	assert_true(fb.pe);
	assert_true(fb.sections);
	assert_false(fb.wrappers);
	assert_int_equal(fb.n_containers, 2);
	assert_int_equal(fb.containers[0].section, WP_FATBIN_SEC_FATBIN);
	assert_int_equal(fb.containers[1].section, WP_FATBIN_SEC_REL);
	/* relocatable code beside the package's own unit: libcudadevrt's, left out */
	assert_int_equal(fb.containers[0].role, WP_FATBIN_UNIT);
	assert_int_equal(fb.containers[1].role, WP_FATBIN_DEVRT);
	struct wp_buf sum = WP_BUF_INIT;
	wp_fatbin_summary(&fb, &sum);
	assert_string_equal(wp_buf_cstr(&sum), "compute_86@7.8");
	assert_true(wp_fatbin_wanted("torch/lib/c10_cuda.DLL"));
	assert_true(wp_fatbin_wanted("x/_C.cp311-win_amd64.pyd"));
	assert_true(wp_fatbin_wanted("nvidia/cublas/lib/libcublas.so.12"));
	assert_false(wp_fatbin_wanted("x/readme.txt"));
	assert_false(wp_fatbin_wanted("x/.so.hidden"));
	wp_buf_free(&sum);
	wp_fatbin_free(&fb);
}

/* NVIDIA's rules, one row each, cc 3.5 to 12.1. */
static void test_rules(void **state)
{
	(void)state;
	assert_true(wp_gpucode_sass_runs(80, 0, 86));
	assert_true(wp_gpucode_sass_runs(80, 0, 89));
	assert_false(wp_gpucode_sass_runs(86, 0, 80));
	assert_false(wp_gpucode_sass_runs(80, 0, 90));  /* not across majors */
	assert_false(wp_gpucode_sass_runs(80, 0, 87));  /* Tegra: exact */
	assert_false(wp_gpucode_sass_runs(87, 0, 89));
	assert_true(wp_gpucode_sass_runs(87, 0, 87));
	assert_false(wp_gpucode_sass_runs(100, 0, 110)); /* Thor */
	assert_true(wp_gpucode_sass_runs(100, 0, 103));
	assert_true(wp_gpucode_sass_runs(120, 0, 121));
	assert_true(wp_gpucode_sass_runs(35, 0, 37));
	assert_false(wp_gpucode_sass_runs(90, 'a', 100));
	assert_true(wp_gpucode_sass_runs(90, 'a', 90));
	assert_false(wp_gpucode_sass_runs(100, 'a', 103));
	assert_true(wp_gpucode_sass_runs(100, 'f', 103));
	assert_false(wp_gpucode_sass_runs(103, 'f', 100));
	assert_true(wp_gpucode_ptx_runs(80, 0, 120));
	assert_true(wp_gpucode_ptx_runs(80, 0, 87));
	assert_false(wp_gpucode_ptx_runs(90, 0, 89));
	assert_false(wp_gpucode_ptx_runs(90, 'a', 100));
	assert_true(wp_gpucode_ptx_runs(120, 'f', 121));
	assert_false(wp_gpucode_ptx_runs(100, 'f', 120));

	/* the driver must know the PTX's ISA */
	enum wp_gpu_verdict v;
	struct wp_buf why = WP_BUF_INIT;
	struct wp_err e = WP_ERR_INIT;
	assert_int_equal(wp_gpucode_verdict("sm_80,compute_90@9.0", 100, 128, &v, &why, &e), 0);
	assert_int_equal(v, WP_GPU_NONE);
	assert_non_null(strstr(why.data, "CUDA 13.0"));
	assert_int_equal(wp_gpucode_verdict("sm_80,compute_90@9.0", 100, 130, &v, &why, &e), 0);
	assert_int_equal(v, WP_GPU_PTX_JIT);
	assert_int_equal(wp_gpucode_verdict("sm_80,compute_90@9.0", 100, 0, &v, &why, &e), 0);
	assert_int_equal(v, WP_GPU_PTX_JIT);
	/* the worst unit wins, and the reason names it */
	assert_int_equal(wp_gpucode_verdict("sm_80,sm_90 sm_90", 80, 0, &v, &why, &e), 0);
	assert_int_equal(v, WP_GPU_NONE);
	assert_string_equal(why.data,
			    "no SASS for sm_80 and no PTX at or below it in code built for sm_90");
	assert_int_equal(wp_gpucode_verdict("", 80, 0, &v, &why, &e), 0);
	assert_int_equal(v, WP_GPU_NO_CODE);
	assert_int_equal(wp_gpucode_verdict("sm_80,bogus", 80, 0, &v, &why, &e), -WPE_PARSE);
	wp_buf_free(&why);

	struct wp_buf m = WP_BUF_INIT;
	wp_gpucode_merge("sm_80 sm_90", "sm_90 sm_75,compute_75@7.8", &m);
	assert_string_equal(m.data, "sm_80 sm_90 sm_75,compute_75@7.8");
	struct wp_buf a = WP_BUF_INIT;
	wp_gpucode_archs(m.data, &a);
	assert_string_equal(a.data, "sm_75 sm_80 sm_90 compute_75");
	wp_buf_free(&m);
	wp_buf_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_corpus),
		cmocka_unit_test(test_cuobjdump),
		cmocka_unit_test(test_loud_and_quiet),
		cmocka_unit_test(test_pe),
		cmocka_unit_test(test_rules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
