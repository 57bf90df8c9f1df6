/* ops/conda/condalocks.c: explicit-<subdir>.txt (CEP 23) and environment.yml for a conda
 * closure. */
#include "ops/conda/condalocks.h"
#include "base/buf.h"
#include "base/fs.h"
#include "base/mem.h"
#include "resolver/condapick.h"
#include "resolver/matchspec.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Targets that share a file: one subdir, the same closure. */
struct group {
	char subdir[32];
	size_t first;        /* the target whose picks stand for the group */
	bool *in;            /* which targets */
	char *suffix; /* "linux-64", or "linux-64-cu124-py3.12-..." when a subdir has several */
	char *for_whom;
};

/* The filenames of one target's closure, sorted, joined: two targets with the same text picked
 * the same files. */
static char *closure_key(const struct wp_conda_lock_input *in, size_t t)
{
	const char **names = wp_xcalloc(in->n ? in->n : 1, sizeof(*names));
	size_t k = 0;
	for (size_t i = 0; i < in->n; i++)
		if (in->picks[i].target == t)
			names[k++] = in->picks[i].c->url;
	for (size_t i = 1; i < k; i++)
		for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			const char *x = names[j];
			names[j] = names[j - 1];
			names[j - 1] = x;
		}
	struct wp_buf b = WP_BUF_INIT;
	for (size_t i = 0; i < k; i++)
		wp_buf_printf(&b, "%s\n", names[i]);
	free(names);
	return wp_buf_detach(&b, NULL);
}

static size_t make_groups(const struct wp_conda_lock_input *in, struct group **out)
{
	struct group *g = wp_xcalloc(in->n_targets ? in->n_targets : 1, sizeof(*g));
	char **keys = wp_xcalloc(in->n_targets ? in->n_targets : 1, sizeof(*keys));
	size_t ng = 0;
	for (size_t t = 0; t < in->n_targets; t++) {
		char sd[32];
		wp_condapick_subdir(&in->targets[t], sd);
		keys[t] = closure_key(in, t);
		size_t k = 0;
		while (k < ng && !(!strcmp(g[k].subdir, sd) && !strcmp(keys[g[k].first], keys[t])))
			k++;
		if (k == ng) {
			memcpy(g[ng].subdir, sd, sizeof(sd));
			g[ng].first = t;
			g[ng].in = wp_xcalloc(in->n_targets, sizeof(bool));
			ng++;
		}
		g[k].in[t] = true;
	}
	struct wp_buf b = WP_BUF_INIT;
	for (size_t k = 0; k < ng; k++) {
		size_t same_subdir = 0;
		for (size_t j = 0; j < ng; j++)
			same_subdir += !strcmp(g[j].subdir, g[k].subdir);
		const char *sd = g[k].subdir[0] ? g[k].subdir : "unknown";
		if (same_subdir > 1) {
			/* the target's slug without its wheel platform tag: the subdir says that
			 * here */
			const struct wp_target *t = &in->targets[g[k].first];
			wp_target_slug(t, &b);
			size_t pl = strlen(t->platform);
			if (pl && b.len > pl + 1 && b.data[b.len - pl - 1] == '-')
				b.data[b.len -= pl + 1] = 0;
			g[k].suffix = wp_xasprintf("%s-%s", sd, b.data);
		} else {
			g[k].suffix = wp_xstrdup(sd);
		}
		wp_buf_reset(&b);
		for (size_t t = 0; t < in->n_targets; t++)
			if (g[k].in[t]) {
				if (b.len)
					wp_buf_addstr(&b, "; ");
				wp_condapick_describe_target(&in->targets[t], &b);
			}
		g[k].for_whom = wp_buf_detach(&b, NULL);
	}
	wp_buf_free(&b);
	for (size_t t = 0; t < in->n_targets; t++)
		free(keys[t]);
	free(keys);
	*out = g;
	return ng;
}

static void groups_free(struct group *g, size_t n)
{
	for (size_t k = 0; k < n; k++)
		free(g[k].in), free(g[k].suffix), free(g[k].for_whom);
	free(g);
}

/* Dependencies before what needs them (CEP 23: conda runs no solver on an explicit file): a
 * depth-first walk over one target's picks in name order, each pick after the picks its depends
 * name. A cycle (python and pip name each other on conda-forge) is cut where it closes. */
struct topo {
	const struct wp_conda_lock_input *in;
	size_t *idx, n;          /* the target's picks, by name */
	unsigned char *state;    /* 0 new, 1 on the path, 2 placed */
	size_t *order, placed;
};

static long find_pick(const struct topo *tp, const char *name)
{
	for (size_t i = 0; i < tp->n; i++)
		if (!strcmp(tp->in->picks[tp->idx[i]].c->name, name))
			return (long)i;
	return -1;
}

static void visit(struct topo *tp, size_t i)
{
	if (tp->state[i])
		return;
	tp->state[i] = 1;
	struct wp_matchspec *deps = NULL;
	size_t nd = 0;
	struct wp_err e = WP_ERR_INIT;
	/* the records were read for the walk that picked them: their depends parse */
	if (wp_condapick_deps(tp->in->picks[tp->idx[i]].c, &deps, &nd, &e) == 0) {
		long *kids = wp_xcalloc(nd ? nd : 1, sizeof(*kids));
		size_t nk = 0;
		for (size_t d = 0; d < nd; d++) {
			long k = find_pick(tp, deps[d].name);
			if (k >= 0)
				kids[nk++] = k;
		}
		for (size_t a = 1; a < nk; a++)  /* in name order, as the picks are */
			for (size_t b = a; b > 0 && kids[b - 1] > kids[b]; b--) {
				long x = kids[b];
				kids[b] = kids[b - 1];
				kids[b - 1] = x;
			}
		for (size_t k = 0; k < nk; k++)
			visit(tp, (size_t)kids[k]);
		free(kids);
		wp_matchspecs_free(deps, nd);
	}
	tp->state[i] = 2;
	tp->order[tp->placed++] = tp->idx[i];
}

static size_t *topo_order(const struct wp_conda_lock_input *in, size_t t, size_t *n)
{
	struct topo tp = { .in = in };
	tp.idx = wp_xcalloc(in->n ? in->n : 1, sizeof(*tp.idx));
	for (size_t i = 0; i < in->n; i++)
		if (in->picks[i].target == t)
			tp.idx[tp.n++] = i;
	for (size_t a = 1; a < tp.n; a++)
		for (size_t b = a; b > 0 && strcmp(in->picks[tp.idx[b - 1]].c->name,
						   in->picks[tp.idx[b]].c->name) > 0;
		     b--) {
			size_t x = tp.idx[b];
			tp.idx[b] = tp.idx[b - 1];
			tp.idx[b - 1] = x;
		}
	tp.state = wp_xcalloc(tp.n ? tp.n : 1, 1);
	tp.order = wp_xcalloc(tp.n ? tp.n : 1, sizeof(*tp.order));
	for (size_t i = 0; i < tp.n; i++)
		visit(&tp, i);
	free(tp.idx);
	free(tp.state);
	*n = tp.placed;
	return tp.order;
}

/* A field that goes into a line as it is: conda's names, versions and builds use these
 * characters; anything else (a space, '#', a newline from a hostile repodata) would change what
 * the line says. */
static bool plain_field(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("._+!-", *s)))
			return false;
	return true;
}

static bool plain_url(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s <= 0x20 || (unsigned char)*s >= 0x7f || *s == '#')
			return false;
	return true;
}

static bool hex_of(const char *s, size_t len)
{
	if (!s || strlen(s) != len)
		return false;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return false;
	return true;
}

static int check_record(const struct wp_conda_candidate *c, struct wp_err *err)
{
	if (!plain_field(c->name) || !plain_field(c->version) || !plain_field(c->build))
		return wp_fail(err, -WPE_USAGE,
			       "the record '%s' has a name, version or build a lock line cannot hold; "
			       "leave it out of the request",
			       c->filename ? c->filename : "?");
	if (!plain_url(c->url))
		return wp_fail(err, -WPE_USAGE, "the record '%s' has a URL a lock line cannot hold",
			       c->filename);
	return 0;
}

static void header(struct wp_buf *b, const struct group *g, const struct wp_conda_lock_input *in)
{
	wp_buf_printf(b, "# written by wheelpick for: %s\n", g->for_whom);
	if (in->nmissing) {
		wp_buf_addstr(b, "# incomplete (--allow-missing): no channel given has");
		for (size_t i = 0; i < in->nmissing; i++)
			wp_buf_printf(b, " %s", in->missing[i]);
		wp_buf_addch(b, '\n');
	}
}

static int explicit_text(const struct wp_conda_lock_input *in, const struct group *g,
			 struct wp_buf *b, struct wp_err *err)
{
	size_t n;
	size_t *order = topo_order(in, g->first, &n);
	int rc = 0;
	header(b, g, in);
	wp_buf_addstr(b, "# This file may be used to create an environment using:\n"
			 "# $ conda create --name <env> --file <this file>\n");
	wp_buf_printf(b, "# platform: %s\n@EXPLICIT\n", g->subdir);
	for (size_t i = 0; i < n && !rc; i++) {
		const struct wp_conda_candidate *c = in->picks[order[i]].c;
		if ((rc = check_record(c, err)))
			break;
		wp_buf_addstr(b, c->url);
		if (hex_of(c->sha256, 64))
			wp_buf_printf(b, "#sha256:%s", c->sha256);
		else if (hex_of(c->md5, 32))
			wp_buf_printf(b, "#%s", c->md5);
		wp_buf_addch(b, '\n');
	}
	free(order);
	return rc;
}

/* The env's name from the first request: "pytorch==2.5.1" -> "pytorch". */
static void env_name(const char *req, struct wp_buf *b)
{
	const char *colons = strstr(req, "::");
	if (colons)
		req = colons + 2;
	for (; *req && plain_field((char[]){ *req, 0 }) && *req != '!' && *req != '+'; req++)
		wp_buf_addch(b, *req);
	if (!b->len)
		wp_buf_addstr(b, "env");
}

static int environment_text(const struct wp_conda_lock_input *in, const struct group *g,
			    struct wp_buf *b, struct wp_err *err)
{
	size_t n;
	size_t *order = topo_order(in, g->first, &n);
	int rc = 0;
	header(b, g, in);
	wp_buf_printf(b, "# platform: %s; create it with: conda env create -f <this file>\nname: ",
		      g->subdir);
	env_name(in->env_name ? in->env_name : "", b);
	wp_buf_addstr(b, "\nchannels:\n");
	for (size_t i = 0; i < in->nch; i++) {
		if (!plain_url(in->channels[i]) || strchr(in->channels[i], '\'')) {
			rc = wp_fail(err, -WPE_USAGE,
				     "the channel '%s' cannot be written into environment.yml",
				     in->channels[i]);
			goto out;
		}
		wp_buf_printf(b, "  - '%s'\n", in->channels[i]);
	}
	wp_buf_addstr(b, "  - nodefaults\ndependencies:\n");
	for (size_t i = 0; i < n && !rc; i++) {
		const struct wp_conda_candidate *c = in->picks[order[i]].c;
		if (!(rc = check_record(c, err)))
			wp_buf_printf(b, "  - %s=%s=%s\n", c->name, c->version, c->build);
	}
out:
	free(order);
	return rc;
}

static int write_one(const char *dir, const char *name, const struct wp_buf *b,
		     const char *for_whom, struct wp_lock_report *rep, struct wp_err *err)
{
	char *path = wp_xasprintf("%s/%s", dir, name);
	int rc = wp_atomic_write(path, b->data, b->len, err);
	free(path);
	if (!rc)
		wp_lock_report_add(rep, name, for_whom);
	return rc;
}

int wp_write_conda_locks(const struct wp_conda_lock_input *in, const char *dir,
			 struct wp_lock_report *rep, struct wp_err *err)
{
	struct group *g = NULL;
	size_t ng = make_groups(in, &g);
	struct wp_buf b = WP_BUF_INIT;
	size_t from = rep->n;
	int rc = 0;
	for (size_t k = 0; k < ng && !rc; k++) {
		char *name = wp_xasprintf("explicit-%s.txt", g[k].suffix);
		wp_buf_reset(&b);
		if (!(rc = explicit_text(in, &g[k], &b, err)))
			rc = write_one(dir, name, &b, g[k].for_whom, rep, err);
		free(name);
	}
	for (size_t k = 0; k < ng && !rc; k++) {
		char *name = ng == 1 ? wp_xstrdup("environment.yml") :
				       wp_xasprintf("environment-%s.yml", g[k].suffix);
		wp_buf_reset(&b);
		if (!(rc = environment_text(in, &g[k], &b, err)))
			rc = write_one(dir, name, &b, g[k].for_whom, rep, err);
		free(name);
	}
	if (!rc) {
		wp_lock_remove_stale(dir, "", "explicit-", ".txt", rep, from);
		wp_lock_remove_stale(dir, "environment.yml", "environment-", ".yml", rep, from);
	}
	wp_buf_free(&b);
	groups_free(g, ng);
	return rc;
}
