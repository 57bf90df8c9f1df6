/* cache/condabatch.c: staged conda rows, a linked list per package over one packed buffer. */
#include "cache/condabatch.h"
#include "base/mem.h"
#include "cache/condapack.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

struct wp_condabatch_rec {
	size_t off;    /* where the row starts in stage */
	uint32_t next; /* the package's next row, or NONE */
};

struct wp_condabatch_pkg {
	size_t name;   /* offset in names */
	uint32_t head, tail;
};

static size_t hash_name(const char *s)
{
	size_t h = 1469598103934665603ull; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

const char *wp_condabatch_package(const struct wp_condabatch *b, size_t i)
{
	return b->names.data + b->pkg[i].name;
}

static void rehash(struct wp_condabatch *b, size_t n_slot)
{
	free(b->slot);
	b->slot = wp_xcalloc(n_slot, sizeof(*b->slot));
	b->n_slot = n_slot;
	for (size_t i = 0; i < b->n_pkg; i++) {
		size_t at = hash_name(wp_condabatch_package(b, i)) & (n_slot - 1);
		while (b->slot[at])
			at = (at + 1) & (n_slot - 1);
		b->slot[at] = (uint32_t)i + 1;
	}
}

static struct wp_condabatch_pkg *package_of(struct wp_condabatch *b, const char *name)
{
	if (2 * (b->n_pkg + 1) > b->n_slot)
		rehash(b, b->n_slot ? b->n_slot * 2 : 4096);
	size_t at = hash_name(name) & (b->n_slot - 1);
	for (; b->slot[at]; at = (at + 1) & (b->n_slot - 1)) {
		struct wp_condabatch_pkg *p = &b->pkg[b->slot[at] - 1];
		if (!strcmp(b->names.data + p->name, name))
			return p;
	}
	if (b->n_pkg == b->cap_pkg) {
		b->cap_pkg = b->cap_pkg ? b->cap_pkg * 2 : 1024;
		b->pkg = wp_xrealloc(b->pkg, b->cap_pkg * sizeof(*b->pkg));
	}
	struct wp_condabatch_pkg *p = &b->pkg[b->n_pkg];
	p->name = b->names.len;
	p->head = p->tail = NONE;
	wp_buf_add(&b->names, name, strlen(name) + 1);
	b->slot[at] = (uint32_t)++b->n_pkg;
	return p;
}

void wp_condabatch_add(struct wp_condabatch *b, const struct wp_file_row *f)
{
	struct wp_condabatch_pkg *p = package_of(b, f->project);
	if (b->n_rec == b->cap_rec) {
		b->cap_rec = b->cap_rec ? b->cap_rec * 2 : 4096;
		b->rec = wp_xrealloc(b->rec, b->cap_rec * sizeof(*b->rec));
	}
	uint32_t i = (uint32_t)b->n_rec++;
	b->rec[i] = (struct wp_condabatch_rec){ b->stage.len, NONE };
	if (p->tail == NONE)
		p->head = i;
	else
		b->rec[p->tail].next = i;
	p->tail = i;
	struct wp_condapack_writer w = { .out = &b->stage, .keep_urls = true };
	wp_condapack_put_row(&w, f);
	wp_condapack_writer_release(&w);
}

int wp_condabatch_rows(const struct wp_condabatch *b, size_t i,
		       int (*fn)(void *ctx, const struct wp_file_row *f), void *ctx)
{
	struct wp_condapack_reader rd;
	int rc = 0;
	memset(&rd, 0, sizeof(rd));
	for (uint32_t r = b->pkg[i].head; r != NONE && !rc; r = b->rec[r].next) {
		struct wp_file_row f;
		memset(&f, 0, sizeof(f));
		wp_condapack_reader_at(&rd, b->stage.data + b->rec[r].off,
				       b->stage.data + b->stage.len);
		if (wp_condapack_get_row(&rd, &f) != 1)
			rc = -1;
		else
			rc = fn(ctx, &f);
	}
	wp_condapack_reader_release(&rd);
	return rc;
}

void wp_condabatch_reset(struct wp_condabatch *b)
{
	if (b->n_pkg)
		memset(b->slot, 0, b->n_slot * sizeof(*b->slot));
	b->n_pkg = b->n_rec = 0;
	wp_buf_reset(&b->stage);
	wp_buf_reset(&b->names);
}

void wp_condabatch_free(struct wp_condabatch *b)
{
	wp_buf_free(&b->stage);
	wp_buf_free(&b->names);
	free(b->rec);
	free(b->pkg);
	free(b->slot);
	memset(b, 0, sizeof(*b));
}
