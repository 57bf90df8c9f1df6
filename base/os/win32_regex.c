/* base/os/win32_regex.c: POSIX extended regular expressions for the Windows build
 * (base/os/win32inc/regex.h): whether a text matches, as glibc's regexec says with REG_NOSUB.
 *
 * The pattern is compiled to a small program (a character, any character, a set, a line's start
 * or end, split, jump, match) run as a Pike VM: every thread in step over the text, so the time
 * is at most the program's length times the text's, whatever the pattern (no backtracking to
 * blow up on hostile input). Bounds ({m,n}) repeat their atom's code; a program past MAX_PROG
 * instructions is refused (REG_ESPACE). Like glibc: \w \W \s \S are classes, any other escaped
 * character is itself, '.' matches a newline, ^ and $ anchor anywhere. */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/os/win32inc/regex.h"

#define MAX_PROG 20000
#define MAX_BOUND 255

enum op { CHAR, ANY, SET, BOL, EOL, SPLIT, JMP, MATCH };

/* x and y are relative: the next instruction is +1 */
struct ins {
	unsigned char op, c;
	int x, y;
	uint8_t set[32]; /* SET: a bit per byte */
};

struct frag {
	struct ins *v;
	int n, cap;
};

struct parser {
	const unsigned char *p;
	int flags, err;
	size_t nsub;
	int depth; /* open groups: a ')' outside any is itself, as glibc has it */
};

static bool frag_push(struct frag *f, struct ins i, struct parser *ps)
{
	if (f->n >= MAX_PROG) {
		ps->err = REG_ESPACE;
		return false;
	}
	if (f->n == f->cap) {
		int cap = f->cap ? 2 * f->cap : 16;
		struct ins *v = realloc(f->v, (size_t)cap * sizeof(*v));
		if (!v) {
			ps->err = REG_ESPACE;
			return false;
		}
		f->v = v;
		f->cap = cap;
	}
	f->v[f->n++] = i;
	return true;
}

static bool frag_cat(struct frag *a, const struct frag *b, struct parser *ps)
{
	for (int i = 0; i < b->n; i++)
		if (!frag_push(a, b->v[i], ps))
			return false;
	return true;
}

static void frag_free(struct frag *f)
{
	free(f->v);
	f->v = NULL;
	f->n = f->cap = 0;
}

static struct ins op(enum op o, int x, int y)
{
	struct ins i;
	memset(&i, 0, sizeof(i));
	i.op = (unsigned char)o;
	i.x = x;
	i.y = y;
	return i;
}

static void set_bit(struct ins *i, unsigned c)
{
	i->set[c >> 3] |= (uint8_t)(1u << (c & 7));
}

static bool in_class(const char *name, size_t n, int c)
{
	static const struct {
		const char *name;
		int (*fn)(int);
	} classes[] = { { "alpha", isalpha }, { "digit", isdigit },   { "alnum", isalnum },
			{ "upper", isupper }, { "lower", islower },   { "space", isspace },
			{ "punct", ispunct }, { "xdigit", isxdigit }, { "cntrl", iscntrl },
			{ "print", isprint }, { "graph", isgraph },   { "blank", isblank } };
	for (size_t k = 0; k < sizeof(classes) / sizeof(classes[0]); k++)
		if (strlen(classes[k].name) == n && !memcmp(classes[k].name, name, n))
			return classes[k].fn(c) != 0;
	return false;
}

static bool class_known(const char *name, size_t n)
{
	static const char *const names[] = { "alpha", "digit",  "alnum", "upper", "lower", "space",
					     "punct", "xdigit", "cntrl", "print", "graph", "blank" };
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		if (strlen(names[k]) == n && !memcmp(names[k], name, n))
			return true;
	return false;
}

/* A case-blind pattern: each letter stands for both cases. */
static void fold(struct ins *i, struct parser *ps)
{
	if (!(ps->flags & REG_ICASE))
		return;
	for (unsigned c = 0; c < 256; c++)
		if (i->set[c >> 3] & (1u << (c & 7))) {
			set_bit(i, (unsigned)tolower((int)c));
			set_bit(i, (unsigned)toupper((int)c));
		}
}

/* [ ... ]: ps->p just past the '['. */
static bool bracket(struct frag *f, struct parser *ps)
{
	struct ins i = op(SET, 0, 0);
	bool neg = false, first = true;
	if (*ps->p == '^') {
		neg = true;
		ps->p++;
	}
	for (;;) {
		int c = *ps->p;
		if (!c) {
			ps->err = REG_EBRACK;
			return false;
		}
		if (c == ']' && !first) {
			ps->p++;
			break;
		}
		first = false;
		if (c == '[' && ps->p[1] == ':') {
			const char *name = (const char *)ps->p + 2;
			const char *end = strstr(name, ":]");
			if (!end || !class_known(name, (size_t)(end - name))) {
				ps->err = REG_ECTYPE;
				return false;
			}
			for (int k = 1; k < 256; k++)
				if (in_class(name, (size_t)(end - name), k))
					set_bit(&i, (unsigned)k);
			ps->p = (const unsigned char *)end + 2;
			continue;
		}
		if (c == '[' && (ps->p[1] == '=' || ps->p[1] == '.')) {
			ps->err = REG_BADPAT; /* collating elements: not needed here */
			return false;
		}
		int lo = c, hi = c;
		ps->p++;
		if (*ps->p == '-' && ps->p[1] && ps->p[1] != ']') {
			hi = ps->p[1];
			ps->p += 2;
			if (hi < lo) {
				ps->err = REG_ERANGE;
				return false;
			}
		}
		for (int k = lo; k <= hi; k++)
			set_bit(&i, (unsigned)k);
	}
	fold(&i, ps);
	if (neg)
		for (int k = 0; k < 32; k++)
			i.set[k] = (uint8_t)~i.set[k];
	i.set[0] &= (uint8_t)~1u; /* never the terminating NUL */
	return frag_push(f, i, ps);
}

static bool alternation(struct frag *out, struct parser *ps);

/* One atom at ps->p into f. */
static bool atom(struct frag *f, struct parser *ps)
{
	int c = *ps->p;
	struct ins i;
	switch (c) {
	case '(': {
		ps->p++;
		ps->nsub++;
		ps->depth++;
		if (!alternation(f, ps))
			return false;
		if (*ps->p != ')') {
			ps->err = REG_EPAREN;
			return false;
		}
		ps->p++;
		ps->depth--;
		return true;
	}
	case '[':
		ps->p++;
		return bracket(f, ps);
	case '.':
		ps->p++;
		return frag_push(f, op(ANY, 0, 0), ps);
	case '^':
		ps->p++;
		return frag_push(f, op(BOL, 0, 0), ps);
	case '$':
		ps->p++;
		return frag_push(f, op(EOL, 0, 0), ps);
	case '*':
	case '+':
	case '?':
	case '{':
		ps->err = REG_BADRPT;
		return false;
	case '\\': {
		int e = ps->p[1];
		if (!e) {
			ps->err = REG_BADPAT; /* a trailing backslash */
			return false;
		}
		ps->p += 2;
		if (e == 'w' || e == 'W' || e == 's' || e == 'S') {
			i = op(SET, 0, 0);
			for (int k = 1; k < 256; k++)
				if (e == 'w' || e == 'W' ? isalnum(k) || k == '_' : isspace(k))
					set_bit(&i, (unsigned)k);
			if (e == 'W' || e == 'S')
				for (int k = 0; k < 32; k++)
					i.set[k] = (uint8_t)~i.set[k];
			i.set[0] &= (uint8_t)~1u;
			return frag_push(f, i, ps);
		}
		c = e;
		break;
	}
	default:
		ps->p++;
		break;
	}
	if (ps->flags & REG_ICASE && isalpha(c)) {
		i = op(SET, 0, 0);
		set_bit(&i, (unsigned)tolower(c));
		set_bit(&i, (unsigned)toupper(c));
		return frag_push(f, i, ps);
	}
	i = op(CHAR, 0, 0);
	i.c = (unsigned char)c;
	return frag_push(f, i, ps);
}

/* a* into out */
static bool star(struct frag *out, const struct frag *a, struct parser *ps)
{
	return frag_push(out, op(SPLIT, 1, a->n + 2), ps) && frag_cat(out, a, ps) &&
	       frag_push(out, op(JMP, -(a->n + 1), 0), ps);
}

/* a? into out */
static bool quest(struct frag *out, const struct frag *a, struct parser *ps)
{
	return frag_push(out, op(SPLIT, 1, a->n + 1), ps) && frag_cat(out, a, ps);
}

static bool number(struct parser *ps, int *v)
{
	if (!isdigit(*ps->p))
		return false;
	long n = 0;
	while (isdigit(*ps->p)) {
		n = n * 10 + (*ps->p++ - '0');
		if (n > MAX_BOUND) {
			ps->err = REG_BADBR;
			return false;
		}
	}
	*v = (int)n;
	return true;
}

/* An atom and its quantifiers, into out. */
static bool piece(struct frag *out, struct parser *ps)
{
	struct frag a = { 0 };
	bool ok = atom(&a, ps);
	while (ok && (*ps->p == '*' || *ps->p == '+' || *ps->p == '?' || *ps->p == '{')) {
		struct frag q = { 0 };
		int c = *ps->p++;
		if (c == '*') {
			ok = star(&q, &a, ps);
		} else if (c == '+') {
			ok = frag_cat(&q, &a, ps) && frag_push(&q, op(SPLIT, -a.n, 1), ps);
		} else if (c == '?') {
			ok = quest(&q, &a, ps);
		} else {
			int m = 0, n = 0;
			bool unbounded = false;
			if (!number(ps, &m)) {
				if (!ps->err)
					ps->err = REG_BADBR;
				ok = false;
			} else if (*ps->p == ',') {
				ps->p++;
				if (*ps->p == '}')
					unbounded = true;
				else if (!number(ps, &n) || n < m) {
					if (!ps->err)
						ps->err = REG_BADBR;
					ok = false;
				}
			} else {
				n = m;
			}
			if (ok && *ps->p != '}') {
				ps->err = REG_EBRACE;
				ok = false;
			}
			if (ok)
				ps->p++;
			for (int k = 0; ok && k < m; k++)
				ok = frag_cat(&q, &a, ps);
			if (ok && unbounded)
				ok = star(&q, &a, ps);
			/* the optional copies nest: (a(a(a)?)?)? */
			if (ok && !unbounded && n > m) {
				struct frag opt = { 0 };
				for (int k = 0; ok && k < n - m; k++) {
					struct frag inner = { 0 };
					ok = frag_cat(&inner, &a, ps) && frag_cat(&inner, &opt, ps);
					frag_free(&opt);
					ok = ok && quest(&opt, &inner, ps);
					frag_free(&inner);
				}
				ok = ok && frag_cat(&q, &opt, ps);
				frag_free(&opt);
			}
		}
		frag_free(&a);
		a = q;
	}
	ok = ok && frag_cat(out, &a, ps);
	frag_free(&a);
	return ok;
}

static bool concatenation(struct frag *out, struct parser *ps)
{
	while (*ps->p && *ps->p != '|' && (*ps->p != ')' || !ps->depth))
		if (!piece(out, ps))
			return false;
	return true;
}

static bool alternation(struct frag *out, struct parser *ps)
{
	struct frag a = { 0 };
	bool ok = concatenation(&a, ps);
	while (ok && *ps->p == '|') {
		ps->p++;
		struct frag b = { 0 }, both = { 0 };
		ok = concatenation(&b, ps) && frag_push(&both, op(SPLIT, 1, a.n + 2), ps) &&
		     frag_cat(&both, &a, ps) && frag_push(&both, op(JMP, b.n + 1, 0), ps) &&
		     frag_cat(&both, &b, ps);
		frag_free(&a);
		frag_free(&b);
		a = both;
	}
	ok = ok && frag_cat(out, &a, ps);
	frag_free(&a);
	return ok;
}

struct prog {
	struct ins *v;
	int n;
};

int wp_libc_regcomp(regex_t *re, const char *pattern, int flags)
{
	struct parser ps = { (const unsigned char *)pattern, flags, 0, 0, 0 };
	struct frag f = { 0 };
	bool ok = alternation(&f, &ps);
	ok = ok && frag_push(&f, op(MATCH, 0, 0), &ps);
	struct prog *p = ok ? malloc(sizeof(*p)) : NULL;
	if (!p) {
		frag_free(&f);
		return ps.err ? ps.err : REG_ESPACE;
	}
	p->v = f.v;
	p->n = f.n;
	re->prog = p;
	re->re_nsub = ps.nsub;
	return 0;
}

void wp_libc_regfree(regex_t *re)
{
	struct prog *p = re->prog;
	if (p)
		free(p->v);
	free(p);
	re->prog = NULL;
}

/* pc and what it leads to without reading a character, into the list (gen marks who is in) */
static void add(const struct prog *p, int *list, int *n, unsigned *mark, unsigned gen, int pc,
		size_t at, size_t len)
{
	/* an explicit stack: a deep chain of splits must not exhaust the C stack */
	int stack[64], top = 0;
	int *big = NULL, cap = 64;
	int *st = stack;
	st[top++] = pc;
	while (top) {
		pc = st[--top];
		if (mark[pc] == gen)
			continue;
		mark[pc] = gen;
		const struct ins *i = &p->v[pc];
		int push[2], np = 0;
		switch (i->op) {
		case JMP:
			push[np++] = pc + i->x;
			break;
		case SPLIT:
			push[np++] = pc + i->y;
			push[np++] = pc + i->x;
			break;
		case BOL:
			if (at == 0)
				push[np++] = pc + 1;
			break;
		case EOL:
			if (at == len)
				push[np++] = pc + 1;
			break;
		default:
			list[(*n)++] = pc;
			break;
		}
		for (int k = 0; k < np; k++) {
			if (top == cap) {
				int *nb = malloc((size_t)cap * 2 * sizeof(int));
				if (!nb)
					break; /* out of memory: fewer threads, never a crash */
				memcpy(nb, st, (size_t)top * sizeof(int));
				free(big);
				st = big = nb;
				cap *= 2;
			}
			st[top++] = push[k];
		}
	}
	free(big);
}

int wp_libc_regexec(const regex_t *re, const char *text, size_t nmatch, regmatch_t *m, int flags)
{
	(void)nmatch;
	(void)m;
	(void)flags;
	const struct prog *p = re->prog;
	size_t len = strlen(text);
	int *cur = malloc((size_t)p->n * sizeof(int)), *next = malloc((size_t)p->n * sizeof(int));
	unsigned *mark = calloc((size_t)p->n, sizeof(unsigned));
	int rc = REG_NOMATCH, nc = 0, nn;
	unsigned gen = 1;
	if (!cur || !next || !mark) {
		rc = REG_ESPACE;
		goto out;
	}
	for (size_t at = 0;; at++) {
		/* a match may start anywhere: a new thread at each position */
		add(p, cur, &nc, mark, gen, 0, at, len);
		for (int k = 0; k < nc; k++)
			if (p->v[cur[k]].op == MATCH) {
				rc = 0;
				goto out;
			}
		if (at == len)
			break;
		unsigned char c = (unsigned char)text[at];
		gen++;
		nn = 0;
		for (int k = 0; k < nc; k++) {
			const struct ins *i = &p->v[cur[k]];
			bool step = (i->op == CHAR && i->c == c) || i->op == ANY ||
				    (i->op == SET && (i->set[c >> 3] & (1u << (c & 7))));
			if (step)
				add(p, next, &nn, mark, gen, cur[k] + 1, at + 1, len);
		}
		int *t = cur;
		cur = next;
		next = t;
		nc = nn;
	}
out:
	free(cur);
	free(next);
	free(mark);
	return rc;
}
