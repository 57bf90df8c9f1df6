/* verify/fatbin.c: NVIDIA fatbinary containers found in a file's bytes (streamed once), placed into
 * the ELF/PE sections and matched with their registration wrappers; see fatbin.h. */
#include "verify/fatbin.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/bytes.h"
#include "base/mem.h"

#define WRAP_MAGIC   0x466243B1u   /* __fatBinC_Wrapper_t, in .nvFatBinSegment */
#define CHDR         16u           /* container header */
#define EHDR         64u           /* the fixed part of an entry header */
#define EHDR_MAX     4096u         /* an entry header with its extension, at most (144 seen) */
#define NEED_MAX     (CHDR + EHDR) /* the most bytes a decision needs at one place */
#define HEAD_MAX     4096u         /* the file's first bytes: ELF/PE headers, PE section table */
#define WINDOW_BEFORE (256u << 10) /* bytes kept before an ELF section table: .shstrtab lies there */
#define TABLE_MAX    (1u << 20)    /* an ELF section table larger than this is not read */
#define WRAPPERS_MAX (1u << 20)
#define CONTAINER_MAX (1ull << 40)

enum mode { M_SEARCH = 0, M_ENTRY, M_SKIP };

struct wrapper {
	uint64_t offset;
	uint64_t ptr;
	uint32_t version;
};

struct wp_fatbin_scan {
	uint64_t pos;                   /* file offset of the next byte fed */
	unsigned char head[HEAD_MAX];
	size_t head_len;
	/* ELF: the section table and the bytes before it, captured as they pass */
	bool win_set;
	uint64_t win_from, win_to;
	unsigned char *win;
	/* bytes of the last feed not yet decided on (fewer than NEED_MAX) */
	unsigned char pend[2 * NEED_MAX + 256];
	size_t pend_len;
	/* the parser */
	enum mode mode;
	uint64_t skip;                  /* M_SKIP: bytes left to pass */
	uint64_t c_left;                /* bytes of the current container still to come */
	uint32_t c_index;
	/* what was found */
	struct wp_fatbin fb;
	size_t cap_c, cap_e;
	struct wrapper *wr;
	size_t n_wr, cap_wr;
	/* the whole file, when wp_fatbin_read gave it */
	const unsigned char *whole;
	size_t whole_len;
	/* the first error */
	int err_code;
	char err_msg[256];
};


__attribute__((format(printf, 2, 3)))
static void scan_fail(struct wp_fatbin_scan *s, const char *fmt, ...)
{
	if (s->err_code)
		return;
	s->err_code = -WPE_INTEGRITY;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->err_msg, sizeof s->err_msg, fmt, ap);
	va_end(ap);
}

void wp_fatbin_free(struct wp_fatbin *fb)
{
	if (!fb)
		return;
	free(fb->containers);
	free(fb->entries);
	memset(fb, 0, sizeof *fb);
}

const char *wp_fatbin_entry_name(const struct wp_fatbin_entry *en, char *out, size_t cap)
{
	char v[2] = { en->variant, 0 };
	snprintf(out, cap, "%s_%u%s", en->kind == WP_FATBIN_PTX ? "compute" : "sm",
		 (unsigned)en->arch, v);
	return out;
}

struct wp_fatbin_scan *wp_fatbin_scan_new(void)
{
	struct wp_fatbin_scan *s = wp_xcalloc(1, sizeof *s);
	return s;
}

void wp_fatbin_scan_free(struct wp_fatbin_scan *s)
{
	if (!s)
		return;
	wp_fatbin_free(&s->fb);
	free(s->win);
	free(s->wr);
	free(s);
}

bool wp_fatbin_wanted(const char *name)
{
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	size_t n = strlen(base);
	if (n > 3 && !strcmp(base + n - 3, ".so"))
		return true;
	if (strstr(base, ".so.") && base[0] != '.')
		return true;
	return n > 4 && (!strcasecmp(base + n - 4, ".pyd") || !strcasecmp(base + n - 4, ".dll"));
}

/* An entry header's fields are those of real code: a header of 64 bytes or more, a payload that
 * fits in what is left of the container, an architecture number. Kind is checked by the caller. */
static bool entry_plausible(const unsigned char *h, uint64_t left)
{
	uint32_t hsize = wp_le32(h + 4);
	uint64_t payload = wp_le64(h + 8);
	uint32_t arch = wp_le32(h + 28);
	if (hsize < EHDR || hsize > EHDR_MAX || hsize > left || payload > left - hsize)
		return false;
	return arch >= 10 && arch <= 999;
}

static void add_entry(struct wp_fatbin_scan *s, const unsigned char *h, uint64_t off)
{
	struct wp_fatbin *fb = &s->fb;
	if (fb->n_entries == s->cap_e) {
		s->cap_e = s->cap_e ? 2 * s->cap_e : 64;
		fb->entries = wp_xrealloc(fb->entries, s->cap_e * sizeof *fb->entries);
	}
	struct wp_fatbin_entry *en = &fb->entries[fb->n_entries++];
	memset(en, 0, sizeof *en);
	en->kind = (uint8_t)wp_le16(h);
	en->payload = wp_le64(h + 8);
	en->ver_minor = wp_le16(h + 24);
	en->ver_major = wp_le16(h + 26);
	en->arch = (uint16_t)wp_le32(h + 28);
	en->flags = wp_le32(h + 40);
	en->variant = (en->flags & WP_FATBIN_FLAG_A) ? 'a' :
		      (en->flags & WP_FATBIN_FLAG_F) ? 'f' :
						       0;
	en->size = (en->flags & (WP_FATBIN_FLAG_LZ4 | WP_FATBIN_FLAG_ZSTD)) ? wp_le64(h + 56) :
									      en->payload;
	en->offset = off;
	en->container = s->c_index;
	fb->containers[s->c_index].n++;
}

static void add_container(struct wp_fatbin_scan *s, uint64_t off, uint64_t size)
{
	struct wp_fatbin *fb = &s->fb;
	if (fb->n_containers == s->cap_c) {
		s->cap_c = s->cap_c ? 2 * s->cap_c : 16;
		fb->containers = wp_xrealloc(fb->containers, s->cap_c * sizeof *fb->containers);
	}
	struct wp_fatbin_container *c = &fb->containers[fb->n_containers];
	memset(c, 0, sizeof *c);
	c->offset = off;
	c->size = CHDR + size;
	c->first = (uint32_t)fb->n_entries;
	s->c_index = (uint32_t)fb->n_containers++;
}

static void add_wrapper(struct wp_fatbin_scan *s, const unsigned char *p, uint64_t off)
{
	if (s->n_wr == WRAPPERS_MAX)
		return;
	if (s->n_wr == s->cap_wr) {
		s->cap_wr = s->cap_wr ? 2 * s->cap_wr : 16;
		s->wr = wp_xrealloc(s->wr, s->cap_wr * sizeof *s->wr);
	}
	s->wr[s->n_wr++] = (struct wrapper){ .offset = off,
					     .ptr = wp_le64(p + 8),
					     .version = wp_le32(p + 4) };
}

/* The first 4-byte-aligned offset (in the file: base is p's offset) of p[0..n) holding either
 * magic, or, when none, the first aligned offset too near the end to hold one (*hit false). Every
 * container and wrapper seen sits at an offset that is a multiple of 8 (their sections are
 * 8-aligned and every size in them is padded to 8), so looking at a quarter of the offsets loses
 * none; eight words are compared per step, with one branch, which the compiler turns into vector
 * compares. */
static size_t find_magic(const unsigned char *p, size_t n, uint64_t base, bool *hit)
{
	size_t i = (size_t)((4 - (base & 3)) & 3);
	*hit = false;
	if (i > n)
		return n;
	for (; i + 32 <= n; i += 32) {
		uint32_t w[8];
		memcpy(w, p + i, sizeof(w));
		unsigned any = 0;
		for (int k = 0; k < 8; k++)
			any |= (w[k] == WP_FATBIN_MAGIC) | (w[k] == WRAP_MAGIC);
		if (any)
			break;
	}
	for (; i + 4 <= n; i += 4) {
		uint32_t v = wp_le32(p + i);
		if (v == WP_FATBIN_MAGIC || v == WRAP_MAGIC) {
			*hit = true;
			return i;
		}
	}
	return i;
}

/* One decision at p (n bytes, file offset base). Returns the bytes consumed, or 0 when it needs
 * more bytes than n to decide (only when n < NEED_MAX, or in search mode with a candidate at the
 * end). */
static size_t step(struct wp_fatbin_scan *s, const unsigned char *p, size_t n, uint64_t base)
{
	if (s->mode == M_SKIP) {
		uint64_t k = s->skip < n ? s->skip : n;
		s->skip -= k;
		if (!s->skip)
			s->mode = s->c_left ? M_ENTRY : M_SEARCH;
		return (size_t)k;
	}
	if (s->mode == M_ENTRY) {
		if (n < EHDR)
			return 0;
		uint16_t kind = wp_le16(p);
		if (!entry_plausible(p, s->c_left) ||
		    (kind != WP_FATBIN_PTX && kind != WP_FATBIN_CUBIN)) {
			if (entry_plausible(p, s->c_left))
				scan_fail(s, "fatbinary entry of unknown kind %u at offset %llu",
					  kind, (unsigned long long)base);
			else
				scan_fail(s,
					  "fatbinary container at offset %llu: its entries do not add up (at offset %llu)",
					  (unsigned long long)s->fb.containers[s->c_index].offset,
					  (unsigned long long)base);
			s->fb.containers[s->c_index].cut = true;
			s->c_left = 0;
			s->mode = M_SEARCH;
			return 1;
		}
		add_entry(s, p, base);
		uint64_t len = wp_le32(p + 4) + wp_le64(p + 8);
		s->c_left -= len;
		s->skip = len;
		s->mode = M_SKIP;
		return step(s, p, n, base);
	}
	/* M_SEARCH */
	bool hit;
	size_t i = find_magic(p, n, base, &hit);
	if (!hit || i > 0)
		return i; /* 0: fewer than 4 bytes at an aligned offset, which wait for more */
	if (wp_le32(p) == WRAP_MAGIC) {
		if (n < 24)
			return 0;
		uint32_t v = wp_le32(p + 4);
		if (v == 1 || v == 2)
			add_wrapper(s, p, base);
		return 4;
	}
	/* a container's magic at p */
	if (n < CHDR)
		return 0;
	uint16_t version = wp_le16(p + 4), hsize = wp_le16(p + 6);
	uint64_t size = wp_le64(p + 8);
	if (hsize != CHDR || size > CONTAINER_MAX)
		return 1;
	if (size == 0) {
		if (version != 1)
			return 1;
		add_container(s, base, 0);
		return CHDR;
	}
	if (n < NEED_MAX)
		return 0;
	const unsigned char *e = p + CHDR;
	uint16_t kind = wp_le16(e);
	if (!entry_plausible(e, size))
		return 1;
	if (version != 1) {
		scan_fail(s,
			  "fatbinary container of version %u at offset %llu (only version 1 is known)",
			  version, (unsigned long long)base);
		return 1;
	}
	if (kind != WP_FATBIN_PTX && kind != WP_FATBIN_CUBIN) {
		scan_fail(s, "fatbinary entry of unknown kind %u at offset %llu", kind,
			  (unsigned long long)(base + CHDR));
		return 1;
	}
	add_container(s, base, size);
	s->c_left = size;
	s->mode = M_ENTRY;
	return CHDR;
}

/* Decide along p[0..n); returns the bytes consumed (the rest waits for more). */
static size_t run(struct wp_fatbin_scan *s, const unsigned char *p, size_t n, uint64_t base)
{
	size_t at = 0;
	while (at < n) {
		size_t k = step(s, p + at, n - at, base + at);
		if (!k)
			break;
		at += k;
	}
	return at;
}

static void capture(struct wp_fatbin_scan *s, const unsigned char *p, size_t n)
{
	uint64_t pos = s->pos;
	if (pos < HEAD_MAX) {
		size_t k = HEAD_MAX - (size_t)pos < n ? HEAD_MAX - (size_t)pos : n;
		memcpy(s->head + pos, p, k);
		s->head_len = (size_t)pos + k;
		if (s->head_len >= 64 && !s->win_set && !memcmp(s->head, "\177ELF\002\001", 6)) {
			uint64_t shoff = wp_le64(s->head + 0x28);
			uint64_t tab = (uint64_t)wp_le16(s->head + 0x3A) * wp_le16(s->head + 0x3C);
			s->win_set = true;
			if (tab && tab <= TABLE_MAX && shoff < UINT64_MAX - tab) {
				s->win_from = shoff > WINDOW_BEFORE ? shoff - WINDOW_BEFORE : 0;
				s->win_to = shoff + tab;
				s->win = wp_xcalloc(1, (size_t)(s->win_to - s->win_from));
			}
		}
	}
	if (s->win && pos + n > s->win_from && pos < s->win_to) {
		uint64_t from = pos > s->win_from ? pos : s->win_from;
		uint64_t to = pos + n < s->win_to ? pos + n : s->win_to;
		memcpy(s->win + (from - s->win_from), p + (from - pos), (size_t)(to - from));
	}
}

void wp_fatbin_scan_feed(struct wp_fatbin_scan *s, const void *data, size_t n)
{
	const unsigned char *p = data;
	if (!n)
		return;
	if (!s->whole)
		capture(s, p, n);
	uint64_t base = s->pos - s->pend_len;
	s->pos += n;
	if (s->pend_len) {
		/* the undecided bytes joined with the start of this feed */
		size_t take = n < 2 * NEED_MAX ? n : 2 * NEED_MAX;
		size_t had = s->pend_len;
		memcpy(s->pend + had, p, take);
		size_t used = run(s, s->pend, had + take, base);
		if (used < had) {
			/* only when the whole feed was too short to decide: all of it waits */
			memmove(s->pend, s->pend + used, had + take - used);
			s->pend_len = had + take - used;
			return;
		}
		s->pend_len = 0;
		p += used - had;
		n -= used - had;
		base += used;
	}
	size_t used = run(s, p, n, base);
	s->pend_len = n - used;
	memcpy(s->pend, p + used, s->pend_len);
}

/* ---- sections and wrappers ---- */

struct section {
	uint64_t off, size, addr;
	uint8_t kind;        /* enum wp_fatbin_section */
	bool segment;        /* .nvFatBinSegment */
	bool nobits;
};

/* n bytes at file offset off, when they were kept. */
static const unsigned char *bytes_at(const struct wp_fatbin_scan *s, uint64_t off, uint64_t n)
{
	if (s->whole)
		return off <= s->whole_len && n <= s->whole_len - off ? s->whole + off : NULL;
	if (off + n <= s->head_len && off + n >= off)
		return s->head + off;
	if (s->win && off >= s->win_from && off + n <= s->win_to && off + n >= off &&
	    off + n <= s->pos)
		return s->win + (off - s->win_from);
	return NULL;
}

static uint8_t section_kind(const char *name, size_t max)
{
	if (!strncmp(name, ".nv_fatb", max < 8 ? max : 8))
		return WP_FATBIN_SEC_FATBIN;
	if (!strncmp(name, "__nv_rel", max < 8 ? max : 8))
		return WP_FATBIN_SEC_REL;
	return WP_FATBIN_SEC_OTHER;
}

static size_t elf_sections(const struct wp_fatbin_scan *s, struct section **out)
{
	const unsigned char *h = bytes_at(s, 0, 64);
	if (!h || memcmp(h, "\177ELF\002\001", 6))
		return 0;
	uint64_t shoff = wp_le64(h + 0x28);
	uint16_t shentsize = wp_le16(h + 0x3A), shnum = wp_le16(h + 0x3C),
		 shstrndx = wp_le16(h + 0x3E);
	if (shentsize < 64 || !shnum || shstrndx >= shnum)
		return 0;
	const unsigned char *tab = bytes_at(s, shoff, (uint64_t)shentsize * shnum);
	if (!tab)
		return 0;
	const unsigned char *sh = tab + (size_t)shstrndx * shentsize;
	uint64_t str_off = wp_le64(sh + 0x18), str_size = wp_le64(sh + 0x20);
	const unsigned char *str = bytes_at(s, str_off, str_size);
	if (!str || !str_size)
		return 0;
	struct section *v = wp_xcalloc(shnum, sizeof *v);
	size_t k = 0;
	for (size_t i = 0; i < shnum; i++) {
		const unsigned char *e = tab + i * shentsize;
		uint32_t name = wp_le32(e), type = wp_le32(e + 4);
		if (!type || name >= str_size)
			continue;
		const char *nm = (const char *)str + name;
		size_t max = (size_t)(str_size - name);
		v[k] = (struct section){ .off = wp_le64(e + 0x18),
					 .size = wp_le64(e + 0x20),
					 .addr = wp_le64(e + 0x10),
					 .nobits = type == 8 };
		v[k].kind = section_kind(nm, max);
		v[k].segment = !strncmp(nm, ".nvFatBinSegment", max < 17 ? max : 17);
		k++;
	}
	*out = v;
	return k;
}

static size_t pe_sections(const struct wp_fatbin_scan *s, struct section **out)
{
	const unsigned char *h = bytes_at(s, 0, 64);
	if (!h || h[0] != 'M' || h[1] != 'Z')
		return 0;
	uint32_t pe = wp_le32(h + 0x3c);
	const unsigned char *coff = bytes_at(s, pe, 24);
	if (!coff || memcmp(coff, "PE\0\0", 4))
		return 0;
	uint16_t nsec = wp_le16(coff + 6), opt = wp_le16(coff + 20);
	const unsigned char *tab = bytes_at(s, (uint64_t)pe + 24 + opt, (uint64_t)nsec * 40);
	if (!tab || !nsec)
		return 0;
	struct section *v = wp_xcalloc(nsec, sizeof *v);
	for (size_t i = 0; i < nsec; i++) {
		const unsigned char *e = tab + i * 40;
		v[i] = (struct section){ .off = wp_le32(e + 20),
					 .size = wp_le32(e + 16),
					 .addr = wp_le32(e + 12) };
		v[i].kind = section_kind((const char *)e, 8);
	}
	*out = v;
	return nsec;
}

/* The file offset of virtual address a, through the section holding it; UINT64_MAX when none. */
static uint64_t addr_to_off(const struct section *v, size_t n, uint64_t a)
{
	for (size_t i = 0; i < n; i++)
		if (!v[i].nobits && v[i].addr && a >= v[i].addr && a - v[i].addr < v[i].size)
			return v[i].off + (a - v[i].addr);
	return UINT64_MAX;
}

static void place(struct wp_fatbin_scan *s)
{
	struct wp_fatbin *fb = &s->fb;
	struct section *v = NULL;
	size_t n = elf_sections(s, &v);
	if (n)
		fb->elf = true;
	else if ((n = pe_sections(s, &v)))
		fb->pe = true;
	const unsigned char *h = bytes_at(s, 0, 6);
	if (h && !memcmp(h, "\177ELF", 4))
		fb->elf = true;
	if (!n) {
		free(v);
		return;
	}
	fb->sections = true;
	for (size_t c = 0; c < fb->n_containers; c++) {
		struct wp_fatbin_container *ct = &fb->containers[c];
		ct->section = WP_FATBIN_SEC_UNKNOWN;
		for (size_t i = 0; i < n; i++)
			if (!v[i].nobits && ct->offset >= v[i].off &&
			    ct->offset - v[i].off < v[i].size) {
				ct->section = v[i].kind;
				break;
			}
	}
	for (size_t w = 0; w < s->n_wr; w++) {
		bool inside = false;
		for (size_t i = 0; i < n && !inside; i++)
			inside = v[i].segment && s->wr[w].offset >= v[i].off &&
				 s->wr[w].offset - v[i].off < v[i].size;
		if (!inside)
			continue;
		uint64_t off = addr_to_off(v, n, s->wr[w].ptr);
		for (size_t c = 0; c < fb->n_containers; c++)
			if (fb->containers[c].offset == off) {
				fb->containers[c].registered = (uint8_t)s->wr[w].version;
				fb->wrappers = true;
			}
	}
	free(v);
}

/* ---- roles ---- */

static bool cubins_only(const struct wp_fatbin *fb, const struct wp_fatbin_container *c)
{
	for (uint32_t i = 0; i < c->n; i++)
		if (fb->entries[c->first + i].kind != WP_FATBIN_CUBIN)
			return false;
	return c->n > 0;
}

/* Whether every cubin arch of c is among those of the containers after it in the same section. */
static bool covered_later(const struct wp_fatbin *fb, size_t ci)
{
	const struct wp_fatbin_container *c = &fb->containers[ci];
	for (uint32_t i = 0; i < c->n; i++) {
		const struct wp_fatbin_entry *a = &fb->entries[c->first + i];
		bool found = false;
		for (size_t k = ci + 1; k < fb->n_containers && !found; k++) {
			const struct wp_fatbin_container *d = &fb->containers[k];
			if (d->section != c->section)
				continue;
			for (uint32_t j = 0; j < d->n && !found; j++) {
				const struct wp_fatbin_entry *b = &fb->entries[d->first + j];
				found = b->kind == a->kind && b->arch == a->arch &&
					b->variant == a->variant;
			}
		}
		if (!found)
			return false;
	}
	return true;
}

void wp_fatbin_units(struct wp_fatbin *fb)
{
	bool rel = false, linked = false, unit = false;
	for (size_t i = 0; i < fb->n_containers; i++) {
		struct wp_fatbin_container *c = &fb->containers[i];
		c->role = c->n ? WP_FATBIN_UNIT : WP_FATBIN_EMPTY;
		if (c->n && c->section == WP_FATBIN_SEC_REL)
			rel = true;
	}
	if (fb->wrappers) {
		/* the runtime's own account: a version-2 wrapper names the device-linked image, an
		 * unregistered .nv_fatbin container is never loaded */
		for (size_t i = 0; i < fb->n_containers; i++) {
			struct wp_fatbin_container *c = &fb->containers[i];
			if (c->role == WP_FATBIN_EMPTY || c->section == WP_FATBIN_SEC_REL)
				continue;
			if (c->registered == 2)
				c->role = rel ? WP_FATBIN_LINKED : WP_FATBIN_DLINK;
			else if (!c->registered && c->section == WP_FATBIN_SEC_FATBIN)
				c->role = WP_FATBIN_DLINK;
		}
	} else {
		/* no wrappers (a scan, a PE file, a linker that left the pointers to relocations):
		 * the first cubin-only container of .nv_fatbin, when others follow, is nvlink's
		 * image: device-linked -rdc code when relocatable code is present, else the
		 * kernel-less image nvcc -shared adds (nvcc's default arch, or archs the later
		 * containers have too) */
		for (size_t i = 0; i < fb->n_containers; i++) {
			struct wp_fatbin_container *c = &fb->containers[i];
			if (c->role == WP_FATBIN_EMPTY)
				continue;
			if (c->section == WP_FATBIN_SEC_REL || c->section == WP_FATBIN_SEC_OTHER)
				break;
			bool later = false;
			for (size_t k = i + 1; k < fb->n_containers && !later; k++)
				later = fb->containers[k].n &&
					fb->containers[k].section == c->section;
			if (!cubins_only(fb, c) || (!later && !rel))
				break;
			if (rel) {
				c->role = WP_FATBIN_LINKED;
				break;
			}
			uint16_t a0 = fb->entries[c->first].arch;
			bool dflt = c->n == 1 && (a0 == 52 || a0 == 75);
			if (dflt || covered_later(fb, i))
				c->role = WP_FATBIN_DLINK;
			break;
		}
	}
	for (size_t i = 0; i < fb->n_containers; i++) {
		if (fb->containers[i].role == WP_FATBIN_LINKED)
			linked = true;
		if (fb->containers[i].role == WP_FATBIN_UNIT &&
		    fb->containers[i].section != WP_FATBIN_SEC_REL)
			unit = true;
	}
	for (size_t i = 0; i < fb->n_containers; i++) {
		struct wp_fatbin_container *c = &fb->containers[i];
		if (c->role != WP_FATBIN_UNIT || c->section != WP_FATBIN_SEC_REL)
			continue;
		/* relocatable code with no device-linked image beside it is libcudadevrt's, which
		 * nvcc links into every build; unless nothing else is there (an -rdc build of PTX
		 * only) */
		c->role = linked ? WP_FATBIN_RDC_PART : unit ? WP_FATBIN_DEVRT : WP_FATBIN_UNIT;
	}
}

int wp_fatbin_scan_finish(struct wp_fatbin_scan *s, const char *subject, struct wp_fatbin *out,
			  struct wp_err *err)
{
	if (s->pend_len) {
		/* the last bytes: decide what can be, with no more to come */
		size_t used = run(s, s->pend, s->pend_len, s->pos - s->pend_len);
		(void)used;
		s->pend_len = 0;
	}
	if (s->mode != M_SEARCH && s->fb.n_containers) {
		s->fb.containers[s->c_index].cut = true;
		scan_fail(s, "the bytes end inside a fatbinary container (at offset %llu)",
			  (unsigned long long)s->fb.containers[s->c_index].offset);
	}
	place(s);
	wp_fatbin_units(&s->fb);
	wp_fatbin_free(out);
	*out = s->fb;
	memset(&s->fb, 0, sizeof s->fb);
	s->cap_c = s->cap_e = 0;
	if (s->err_code)
		return wp_fail(err, s->err_code,
			       "'%s': %s; the file is damaged or of a CUDA newer than this reader",
			       subject, s->err_msg);
	return 0;
}

int wp_fatbin_read(const void *p, size_t n, const char *subject, struct wp_fatbin *out,
		   struct wp_err *err)
{
	struct wp_fatbin_scan *s = wp_fatbin_scan_new();
	s->whole = p;
	s->whole_len = n;
	wp_fatbin_scan_feed(s, p, n);
	int rc = wp_fatbin_scan_finish(s, subject, out, err);
	wp_fatbin_scan_free(s);
	return rc;
}

/* ---- the summary ---- */

static int entry_cmp(const void *x, const void *y)
{
	const struct wp_fatbin_entry *a = *(const struct wp_fatbin_entry *const *)x;
	const struct wp_fatbin_entry *b = *(const struct wp_fatbin_entry *const *)y;
	if (a->kind != b->kind)
		return b->kind - a->kind; /* SASS first */
	if (a->arch != b->arch)
		return a->arch - b->arch;
	return a->variant - b->variant;
}

static bool same_code(const struct wp_fatbin_entry *a, const struct wp_fatbin_entry *b)
{
	return a->kind == b->kind && a->arch == b->arch && a->variant == b->variant;
}

/* One unit of the entries in v[0..n) (sorted here; duplicates once) into out, unless out has it. */
static void add_unit(const struct wp_fatbin_entry **v, size_t n, struct wp_buf *out)
{
	if (!n)
		return;
	qsort(v, n, sizeof *v, entry_cmp);
	struct wp_buf u = { 0 };
	for (size_t i = 0; i < n; i++) {
		if (i && same_code(v[i - 1], v[i]))
			continue;
		char name[32];
		wp_buf_printf(&u, "%s%s", u.len ? "," : "",
			      wp_fatbin_entry_name(v[i], name, sizeof name));
		/* a PTX ISA version as one is written (7.8, 9.0); any other number says nothing of
		 * the driver */
		if (v[i]->kind == WP_FATBIN_PTX && v[i]->ver_major <= 99 && v[i]->ver_minor <= 9)
			wp_buf_printf(&u, "@%u.%u", v[i]->ver_major, v[i]->ver_minor);
	}
	const char *have = out->len ? wp_buf_cstr(out) : "";
	const char *s = wp_buf_cstr(&u);
	size_t k = strlen(s);
	for (const char *p = have; (p = strstr(p, s)); p += k)
		if ((p == have || p[-1] == ' ') && (p[k] == ' ' || !p[k]))
			goto out;
	if (out->len)
		wp_buf_addch(out, ' ');
	wp_buf_addstr(out, s);
out:
	wp_buf_free(&u);
}

void wp_fatbin_summary(const struct wp_fatbin *fb, struct wp_buf *out)
{
	const struct wp_fatbin_entry **v = wp_xcalloc(fb->n_entries + 1, sizeof *v);
	size_t n = 0;
	for (size_t i = 0; i < fb->n_containers; i++) {
		const struct wp_fatbin_container *c = &fb->containers[i];
		if (c->role != WP_FATBIN_UNIT)
			continue;
		n = 0;
		for (uint32_t j = 0; j < c->n; j++)
			v[n++] = &fb->entries[c->first + j];
		add_unit(v, n, out);
	}
	/* -rdc: the device-linked image, plus the PTX every relocatable part has (JIT-linked at
	 * load) */
	n = 0;
	const struct wp_fatbin_container *part0 = NULL;
	for (size_t i = 0; i < fb->n_containers; i++) {
		const struct wp_fatbin_container *c = &fb->containers[i];
		if (c->role == WP_FATBIN_LINKED)
			for (uint32_t j = 0; j < c->n; j++)
				v[n++] = &fb->entries[c->first + j];
		if (c->role == WP_FATBIN_RDC_PART && !part0)
			part0 = c;
	}
	for (uint32_t j = 0; part0 && j < part0->n; j++) {
		const struct wp_fatbin_entry *e = &fb->entries[part0->first + j];
		bool all = e->kind == WP_FATBIN_PTX;
		for (size_t i = 0; i < fb->n_containers && all; i++) {
			const struct wp_fatbin_container *c = &fb->containers[i];
			if (c->role != WP_FATBIN_RDC_PART)
				continue;
			bool has = false;
			for (uint32_t k = 0; k < c->n && !has; k++)
				has = same_code(&fb->entries[c->first + k], e);
			all = has;
		}
		if (all && n < fb->n_entries)
			v[n++] = e;
	}
	add_unit(v, n, out);
	free(v);
}
