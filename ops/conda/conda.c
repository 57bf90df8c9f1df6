/* ops/conda/conda.c: the conda job: channel URLs, strict channel priority, the CUDA rule per
 * package (resolver/condapick), one variant across the set, the depends closure, a local
 * channel. */
#include "ops/conda/conda.h"
#include "ops/conda/sbom_channel.h"
#include "base/json.h"
#include "base/lazylib.h"
#include "base/mem.h"
#include "cache/catalog.h"
#include "cache/store.h"
#include "ops/conda/attest.h"
#include "ops/conda/channel.h"
#include "ops/conda/condalocks.h"
#include "ops/core/fetch.h"
#include "ops/core/sources.h"
#include "ops/core/suggest.h"
#include "resolver/matchspec.h"
#include "base/os/os.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CLOSURE 2000

/* Every record of one package name, owned, with the channel each came from. */
struct recs {
	char *name;
	struct wp_conda_candidate *c;
	int *channel;       /* index into the channel list; lower wins (strict priority) */
	char **own;
	size_t n, nown;
	size_t cap_c, cap_channel, cap_own; /* the arrays' room */
	char *elsewhere; /* a channel the catalog has it from that is not in play (for messages) */
};

/* A dependency no channel in play has: who needs it, and a channel that would have it. */
struct missing_dep {
	char *name, *needed_by, *channel;
};

struct cflow {
	struct wp_catalog *cat;
	char **channels;    /* base URLs in priority order */
	size_t nch, capch;
	struct recs **r;
	size_t nr, capr;
	struct missing_dep *miss;
	size_t nmiss, capmiss;
	const struct wp_asks *asks; /* the session's words for what a message advises */
	bool offline; /* --offline: no channel's repodata was fetched, whatever the catalog lacks */
};

static const char *keep(struct recs *p, const char *s)
{
	if (!s)
		return NULL;
	size_t k = wp_vec_push_fields(p->own, p->nown, p->cap_own, wp_xstrdup(s));
	return p->own[k];
}

/* The channel in play a record came from (its repodata's URL, CHANNEL/SUBDIR/repodata.json, or
 * else its own, CHANNEL/SUBDIR/FILE), or -1: the catalog also holds channels this job did not
 * name, and conda takes packages only from the channels given. */
static int channel_of(const struct cflow *cf, const char *url)
{
	for (size_t i = 0; i < cf->nch; i++) {
		size_t n = strlen(cf->channels[i]);
		if (!strncmp(url, cf->channels[i], n) && url[n] == '/')
			return (int)i;
	}
	return -1;
}

/* CHANNEL/SUBDIR/NAME -> CHANNEL (a new string). */
static char *channel_base(const char *url)
{
	char *base = wp_xstrdup(url);
	for (int cut = 0; cut < 2; cut++) {
		char *slash = strrchr(base, '/');
		if (slash)
			*slash = 0;
	}
	return base;
}

struct load_ctx {
	struct cflow *cf;
	struct recs *p;
};

static int load_row(void *vctx, const struct wp_file_row *r, struct wp_err *err)
{
	struct load_ctx *lc = vctx;
	struct recs *p = lc->p;
	(void)err;
	const char *from = r->source_url && *r->source_url ? r->source_url : r->url;
	int ch = channel_of(lc->cf, from);
	if (ch < 0) {
		if (!p->elsewhere)
			p->elsewhere = channel_base(from);
		return 0;
	}
	/* one file listed by two sources of one channel (its repodata.json read whole once, its
	 * shard since): the same record, taken once */
	for (size_t i = 0; i < p->n; i++)
		if (p->channel[i] == ch &&
		    !strcmp(p->c[i].filename, r->filename ? r->filename : "") &&
		    !strcmp(p->c[i].subdir ? p->c[i].subdir : "", r->subdir ? r->subdir : ""))
			return 0;
	wp_vec_reserve_((void **)&p->c, &p->cap_c, p->n + 1, sizeof(*p->c));
	wp_vec_reserve_((void **)&p->channel, &p->cap_channel, p->n + 1, sizeof(*p->channel));
	p->c[p->n] = (struct wp_conda_candidate){
		.name = keep(p, r->project),
		.version = keep(p, r->version),
		.build = keep(p, r->build),
		.build_number = r->build_number,
		.depends = keep(p, r->depends),
		.constrains = keep(p, r->constrains),
		.track_features = keep(p, r->track_features),
		.subdir = keep(p, r->subdir),
		.timestamp = r->timestamp,
		.filename = keep(p, r->filename),
		.url = keep(p, r->url),
		.md5 = keep(p, r->md5),
		.sha256 = keep(p, r->sha256),
		.hash_conflict = keep(p, r->hash_conflict),
	};
	p->channel[p->n] = ch;
	p->n++;
	return 0;
}

static struct recs *recs_of(struct cflow *cf, const char *name, struct wp_err *err)
{
	for (size_t i = 0; i < cf->nr; i++)
		if (!strcmp(cf->r[i]->name, name))
			return cf->r[i];
	struct recs *p = wp_xcalloc(1, sizeof(*p));
	p->name = wp_xstrdup(name);
	wp_vec_push_fields(cf->r, cf->nr, cf->capr, p);
	struct load_ctx lc = { cf, p };
	if (wp_catalog_files(cf->cat, name, true, load_row, &lc, err) < 0)
		return NULL;
	/* strict channel priority: only the best channel that has the name takes part */
	int best = -1;
	for (size_t i = 0; i < p->n; i++)
		if (best < 0 || p->channel[i] < best)
			best = p->channel[i];
	size_t out = 0;
	for (size_t i = 0; i < p->n; i++)
		if (p->channel[i] == best) {
			p->c[out] = p->c[i];
			p->channel[out++] = p->channel[i];
		}
	p->n = out;
	return p;
}

static void cflow_release(struct cflow *cf)
{
	for (size_t i = 0; i < cf->nr; i++) {
		struct recs *p = cf->r[i];
		for (size_t k = 0; k < p->nown; k++)
			free(p->own[k]);
		free(p->own), free(p->c), free(p->channel), free(p->name), free(p->elsewhere),
			free(p);
	}
	free(cf->r);
	for (size_t i = 0; i < cf->nmiss; i++)
		free(cf->miss[i].name), free(cf->miss[i].needed_by), free(cf->miss[i].channel);
	free(cf->miss);
	for (size_t i = 0; i < cf->nch; i++)
		free(cf->channels[i]);
	free(cf->channels);
}


static bool picked(const struct wp_conda_result *ps, size_t t, const char *name, size_t *at)
{
	for (size_t i = 0; i < ps->n; i++)
		if (ps->picks[i].target == t && !strcmp(ps->picks[i].c->name, name)) {
			if (at)
				*at = i;
			return true;
		}
	return false;
}

/* The channel to suggest for a name: one the catalog has it from, else conda-forge (where today's
 * PyTorch and nearly every dependency live) when it is not in play already; NULL when nothing is
 * known to have it. */
static char *suggest_channel(const struct cflow *cf, const struct recs *p)
{
	if (p->elsewhere)
		return wp_xstrdup(p->elsewhere);
	for (size_t i = 0; i < cf->nch; i++)
		if (!strcmp(cf->channels[i], WP_CONDA_FORGE))
			return NULL;
	return wp_xstrdup(WP_CONDA_FORGE);
}

static void add_missing(struct cflow *cf, struct wp_conda_result *ps, const struct recs *p,
			const char *needed_by)
{
	for (size_t i = 0; i < ps->nmissing; i++)
		if (!strcmp(ps->missing[i], p->name))
			return;
	wp_vec_push_fields(ps->missing, ps->nmissing, ps->cap_missing, wp_xstrdup(p->name));
	/* "pytorch 1.8.0 py3.8_cuda11.1_cudnn8.0.5_0" -> "pytorch 1.8.0": the build adds nothing
	 * here */
	char *by = wp_xstrdup(needed_by);
	char *sp = strchr(by, ' ');
	if (sp && (sp = strchr(sp + 1, ' ')))
		*sp = 0;
	wp_vec_push_fields(cf->miss, cf->nmiss, cf->capmiss,
			   ((struct missing_dep){ wp_xstrdup(p->name), by,
						  suggest_channel(cf, p) }));
}

/* A channel as conda's -c takes it: "conda-forge" for https://conda.anaconda.org/conda-forge. */
static const char *channel_short(const char *base)
{
	static const char prefix[] = "https://conda.anaconda.org/";
	return !strncmp(base, prefix, sizeof(prefix) - 1) ? base + sizeof(prefix) - 1 : base;
}

/* One line naming every missing dependency, who needs it, and where to get it. */
static int fail_incomplete(const struct cflow *cf, struct wp_err *err)
{
	struct wp_buf b = WP_BUF_INIT;
	const size_t shown = 8;
	wp_buf_printf(&b, "the closure is incomplete: %zu %s in no channel given: ", cf->nmiss,
		      cf->nmiss == 1 ? "dependency is" : "dependencies are");
	for (size_t i = 0; i < cf->nmiss && i < shown; i++)
		wp_buf_printf(&b, "%s%s (needed by %s%s%s)", i ? ", " : "", cf->miss[i].name,
			      cf->miss[i].needed_by, cf->miss[i].channel ? "; channel " : "",
			      cf->miss[i].channel ? channel_short(cf->miss[i].channel) : "");
	if (cf->nmiss > shown)
		wp_buf_printf(&b, " and %zu more", cf->nmiss - shown);
	const char *ch = NULL;
	for (size_t i = 0; i < cf->nmiss && !ch; i++)
		ch = cf->miss[i].channel;
	if (ch)
		wp_buf_printf(&b, "; add it with -c %s (after 'wheelpick update --conda -c %s')",
			      channel_short(ch), channel_short(ch));
	wp_buf_addstr(&b, ", or pass --allow-missing to write the channel without them");
	int rc = wp_fail(err, -WPE_NOMATCH, "%s", b.data);
	wp_buf_free(&b);
	return rc;
}

/* Resolve one target: a queue of MatchSpecs, breadth first; each name picked once, later specs
 * checked against the pick. */
/* Constraints learned from conflicts ("pytorch-mutex 1.0 cpu" needed by a later pick): applied
 * from the start when the target is resolved again, so the first pick already fits them. */
struct carried {
	struct wp_matchspec *v;
	size_t n, cap;
};

static int resolve_target(struct cflow *cf, const struct wp_conda_job *o,
			  const struct wp_strlist *reqs, const struct wp_target *t, size_t ti,
			  struct wp_conda_result *ps, struct carried *cr, bool *restart,
			  struct wp_err *err)
{
	struct wp_matchspec *queue = NULL;
	char **by = NULL;
	size_t nq = 0, head = 0, cap_queue = 0, cap_by = 0; /* queue and by grow together */
	const char *exact_variant = NULL; /* borrowed from ps->picks */
	int rc = 0;
	for (size_t i = 0; i < reqs->n; i++) {
		wp_vec_reserve_((void **)&queue, &cap_queue, nq + 1, sizeof(*queue));
		wp_vec_reserve_((void **)&by, &cap_by, nq + 1, sizeof(*by));
		if ((rc = wp_matchspec_parse(reqs->v[i], &queue[nq], err))) {
			rc = wp_fail(err, -WPE_USAGE, "'%s' is not a conda MatchSpec: %s",
				     reqs->v[i], err->msg);
			goto out;
		}
		by[nq++] = NULL;
	}
	for (; head < nq && !rc; head++) {
		struct wp_matchspec *m = &queue[head];
		size_t at;
		if (picked(ps, ti, m->name, &at)) {
			const struct wp_conda_candidate *c = ps->picks[at].c;
			if (!wp_matchspec_match(m, c->name, c->version, c->build,
						c->build_number)) {
				struct wp_buf b = WP_BUF_INIT;
				wp_matchspec_format(m, &b);
				rc = wp_fail(err, -WPE_NOMATCH,
					     "%s needs '%s', but %s %s %s was picked",
					     by[head] ? by[head] : "the request", b.data, c->name,
					     c->version, c->build);
				/* carry the requirement into the next attempt, where it shapes the
				 * first pick */
				wp_vec_reserve_((void **)&cr->v, &cr->cap, cr->n + 1,
						sizeof(*cr->v));
				struct wp_err pe = WP_ERR_INIT;
				if (wp_matchspec_parse(b.data, &cr->v[cr->n], &pe) == 0) {
					cr->n++;
					*restart = true;
				}
				wp_buf_free(&b);
			}
			continue;
		}
		struct recs *p = recs_of(cf, m->name, err);
		if (!p) {
			rc = err->code;
			break;
		}
		if (!p->n) {
			if (!by[head]) {
				/* a typo first: the names the catalog's conda records have
				 * ("pytroch": pytorch) */
				struct wp_names close = { 0 };
				struct wp_err se = WP_ERR_INIT;
				if (wp_suggest_projects(NULL, cf->cat, NULL, true, true, m->name,
							&close, &se) == 0 &&
				    close.n) {
					struct wp_strlist l = { 0 };
					struct wp_buf b = WP_BUF_INIT;
					for (size_t i = 0; i < close.n; i++)
						wp_strlist_push(&l, close.v[i]);
					wp_suggest_join(&l, &b);
					rc = wp_fail(err, -WPE_NOMATCH,
						     "no channel given has '%s'; did you mean %s?",
						     m->name, b.data);
					wp_buf_free(&b);
					wp_strlist_release(&l);
					wp_names_release(&close);
					break;
				}
				wp_names_release(&close);
				if (cf->offline && !p->elsewhere) {
					/* nothing was fetched, so the channels cannot be said to
					 * lack it: the catalog is all there is (pip's --offline
					 * says the same) */
					const char *c = cf->nch ? channel_short(cf->channels[0]) :
								  "CHANNEL";
					rc = wp_fail(err, -WPE_NOMATCH,
						     "the catalog has nothing for '%s' from the channels given, "
						     "and --offline forbids fetching their repodata; run 'wheelpick update --conda "
						     "-c %s' online first (or pick without --offline)",
						     m->name, c);
					break;
				}
				char *ch = suggest_channel(cf, p);
				const char *c = ch ? channel_short(ch) : "CHANNEL";
				rc = wp_fail(err, -WPE_NOMATCH,
					     "no channel given has '%s'; add one with -c %s (after 'wheelpick "
					     "update --conda -c %s')",
					     m->name, c, c);
				free(ch);
				break;
			}
			add_missing(cf, ps, p, by[head]);
			continue;
		}
		struct wp_buf spec_text = WP_BUF_INIT;
		wp_matchspec_format(m, &spec_text);
		/* one variant across the set comes from the records' own constraints (one
		 * cudatoolkit, one pytorch-mutex, pytorch pinned by torchvision): a clash is a
		 * conflict, resolved again */
		struct wp_condapick_request req = { .spec_text = spec_text.data,
						    .spec = m,
						    .allow_variant = exact_variant,
						    .asks = cf->asks };
		/* the candidates that also meet what earlier attempts learned */
		struct wp_conda_candidate *cands = wp_xcalloc(p->n, sizeof(*cands));
		size_t *orig = wp_xcalloc(p->n, sizeof(*orig)), nc = 0;
		for (size_t i = 0; i < p->n; i++) {
			bool ok = true;
			for (size_t k = 0; k < cr->n && ok; k++)
				if (wp_matchspec_name_match(&cr->v[k], p->c[i].name))
					ok = wp_matchspec_match(&cr->v[k], p->c[i].name,
								p->c[i].version, p->c[i].build,
								p->c[i].build_number);
			if (ok) {
				cands[nc] = p->c[i];
				orig[nc++] = i;
			}
		}
		/* records that meet the spec, and whether what the set learned leaves any of
		 * them */
		bool spec_any = false, both_any = false;
		for (size_t i = 0; i < p->n; i++)
			spec_any |= wp_matchspec_match(m, p->c[i].name, p->c[i].version,
						       p->c[i].build, p->c[i].build_number);
		for (size_t i = 0; i < nc; i++)
			both_any |= wp_matchspec_match(m, cands[i].name, cands[i].version,
						       cands[i].build, cands[i].build_number);
		if (cr->n && spec_any && !both_any) {
			/* its records are there; what the rest of the set needs of it rules them
			 * all out */
			struct wp_buf need = WP_BUF_INIT;
			for (size_t k = 0; k < cr->n; k++)
				if (wp_matchspec_name_match(&cr->v[k], m->name)) {
					wp_buf_addstr(&need, need.len ? "', '" : "");
					wp_matchspec_format(&cr->v[k], &need);
				}
			wp_buf_reset(&spec_text);
			wp_matchspec_format(m, &spec_text);
			rc = wp_fail(err, -WPE_NOMATCH,
				     "the channels given have records of '%s'%s%s%s, but none also meets what "
				     "the rest of the set needs of it ('%s'): the requirements conflict",
				     spec_text.data, by[head] ? " (needed by " : "",
				     by[head] ? by[head] : "", by[head] ? ")" : "",
				     need.data ? need.data : "");
			wp_buf_free(&need);
			wp_buf_free(&spec_text);
			free(cands);
			free(orig);
			break;
		}
		struct wp_condapick_result res;
		rc = wp_condapick(cands, nc, &req, t, &res, err);
		char *untrusted_url = !rc && res.untrusted >= 0 && cands[res.untrusted].url ?
					      wp_xstrdup(cands[res.untrusted].url) :
					      NULL;
		wp_buf_free(&spec_text);
		free(cands);
		if (!rc && res.chosen >= 0)
			res.chosen = (long)orig[res.chosen];
		free(orig);
		if (rc)
			break;
		if (res.chosen < 0 && res.untrusted >= 0) {
			/* no other build in its place, and no other variant for the set */
			rc = wp_fail(err, -WPE_UNTRUSTED,
				     "%s; check the source, then accept the new bytes with: wheelpick "
				     "trust '%s'",
				     res.message, untrusted_url ? untrusted_url : "%");
			free(untrusted_url);
			wp_condapick_result_release(&res);
			break;
		}
		free(untrusted_url);
		if (res.chosen < 0) {
			rc = wp_fail(err, -WPE_NOMATCH, "%s%s%s%s", res.message,
				     by[head] ? " (needed by " : "", by[head] ? by[head] : "",
				     by[head] ? ")" : "");
			wp_condapick_result_release(&res);
			break;
		}
		const struct wp_conda_candidate *c = &p->c[res.chosen];
		wp_vec_push_fields(ps->picks, ps->n, ps->cap,
				   (struct wp_conda_pick){
					   .c = c,
					   .channel = cf->channels[p->channel[res.chosen]],
					   .reason = wp_xstrdup(res.reason ? res.reason : ""),
					   .required_by = by[head] ? wp_xstrdup(by[head]) : NULL,
					   .variant = wp_xstrdup(res.variant.kind !=
										 WP_VARIANT_NONE ?
									 res.variant.label :
									 ""),
					   .target = ti,
				   });
		wp_condapick_result_release(&res);
		/* an exact build string the user gave ("pytorch=1.8.0=py3.8_cpu_0") is what conda
		 * installs whatever the machine has: its variant holds for the rest of the set */
		if (!by[head] && m->build && !strpbrk(m->build, "*?[^$") &&
		    *ps->picks[ps->n - 1].variant)
			exact_variant = ps->picks[ps->n - 1].variant;
		if (o->no_deps)
			continue;
		struct wp_matchspec *deps = NULL;
		size_t nd = 0;
		if ((rc = wp_condapick_deps(c, &deps, &nd, err)))
			break;
		if (nq + nd > MAX_CLOSURE) {
			wp_matchspecs_free(deps, nd);
			rc = wp_fail(err, -WPE_NOMATCH,
				     "the closure grows past %d packages; stopping at '%s'",
				     MAX_CLOSURE, c->name);
			break;
		}
		wp_vec_reserve_((void **)&queue, &cap_queue, nq + nd, sizeof(*queue));
		wp_vec_reserve_((void **)&by, &cap_by, nq + nd, sizeof(*by));
		for (size_t k = 0; k < nd; k++) {
			queue[nq] = deps[k];
			by[nq++] = wp_xasprintf("%s %s %s", c->name, c->version, c->build);
		}
		free(deps); /* the specs moved into the queue */
	}
out:
	wp_matchspecs_free(queue, nq);
	for (size_t i = 0; i < nq; i++)
		free(by[i]);
	free(by);
	return rc;
}

/* The upstream record rebuilt from the fields the catalog keeps (conda reads these). */
static char *record_json(const struct wp_conda_candidate *c, long long size,
			 const char *attest_sha256)
{
	struct wp_json j;
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	wp_json_init(&j);
	wp_json_obj(&j);
	wp_json_kstr(&j, "name", c->name);
	wp_json_kstr(&j, "version", c->version);
	wp_json_kstr(&j, "build", c->build);
	wp_json_kint(&j, "build_number", c->build_number < 0 ? 0 : c->build_number);
	wp_json_key(&j, "depends");
	wp_json_raw_list(&j, c->depends);
	wp_json_key(&j, "constrains");
	wp_json_raw_list(&j, c->constrains);
	if (c->md5)
		wp_json_kstr(&j, "md5", c->md5);
	if (c->sha256)
		wp_json_kstr(&j, "sha256", c->sha256);
	if (attest_sha256) /* CEP 50: the attestations the channel carries beside the package */
		wp_json_kstr(&j, "attestations_sha256", attest_sha256);
	if (size >= 0)
		wp_json_kint(&j, "size", size);
	wp_json_kstr(&j, "subdir", c->subdir ? c->subdir : "noarch");
	if (c->timestamp > 0)
		wp_json_kint(&j, "timestamp", c->timestamp);
	if (c->track_features && *c->track_features)
		wp_json_kstr(&j, "track_features", c->track_features);
	wp_json_obj_end(&j);
	wp_json_finish(&j, mem);
	fclose(mem);
	return text;
}

/* Channels in the order given (strict priority), each for the targets' subdirs and noarch;
 * cf->channels gets each channel's base URL. */
static void channel_sources(const struct wp_session *s, const struct wp_conda_job *job,
			    const struct wp_target *targets, size_t nt, struct wp_sources *src,
			    struct cflow *cf)
{
	struct wp_strlist chans = { 0 };
	char *block = NULL;
	for (size_t i = 0; i < job->channels.n; i++)
		wp_strlist_push(&chans, job->channels.v[i]);
	if (!chans.n && !job->index.n)
		block = wp_default_indexes(s->envp, &chans, true);
	const char **subdirs = wp_xcalloc(nt + 1, sizeof(*subdirs));
	char (*subbuf)[32] = wp_xcalloc(nt + 1, sizeof(*subbuf));
	size_t ns = 0;
	for (size_t t = 0; t < nt; t++) {
		wp_condapick_subdir(&targets[t], subbuf[t]);
		bool dup = false;
		for (size_t k = 0; k < ns && !dup; k++)
			dup = !strcmp(subdirs[k], subbuf[t]);
		if (!dup)
			subdirs[ns++] = subbuf[t];
	}
	subdirs[ns++] = "noarch";
	/* the named channels first, then repodata given as --index: strict priority in that
	 * order */
	for (size_t i = 0; i < chans.n + job->index.n; i++) {
		size_t before = src->n;
		wp_sources_add_channel(src, i < chans.n ? chans.v[i] : job->index.v[i - chans.n],
				       subdirs, ns);
		/* the channel's base URL: a source URL without "/SUBDIR/repodata.json" */
		if (src->n > before) {
			char *base = channel_base(src->urls[before]);
			bool dup = false;
			for (size_t k = 0; k < cf->nch && !dup; k++)
				dup = !strcmp(cf->channels[k], base);
			if (dup) {
				free(base);
				continue;
			}
			wp_vec_push_fields(cf->channels, cf->nch, cf->capch, base);
		}
	}
	free(subdirs);
	free(subbuf);
	wp_strlist_release(&chans);
	free(block);
}

/* One target, resolved again with what each conflict taught (at most 8 times). */
static int resolve_with_restarts(struct cflow *cf, const struct wp_conda_job *job, size_t t,
				 struct wp_conda_result *res, struct wp_err *err)
{
	struct carried cr = { 0 };
	int rc = 0;
	for (int attempt = 0; attempt < 8; attempt++) {
		bool restart = false;
		struct wp_err te = WP_ERR_INIT;
		rc = resolve_target(cf, job, &job->reqs, &res->targets[t], t, res, &cr, &restart,
				    &te);
		if (!rc || !restart) {
			if (rc)
				wp_fail(err, rc, "%s", te.msg);
			break;
		}
		/* drop this target's picks and resolve it again with the learned constraint */
		size_t out = 0;
		for (size_t i = 0; i < res->n; i++) {
			if (res->picks[i].target == t) {
				free(res->picks[i].reason), free(res->picks[i].required_by),
					free(res->picks[i].variant);
				continue;
			}
			res->picks[out++] = res->picks[i];
		}
		res->n = out;
		if (attempt == 7)
			wp_fail(err, rc, "%s", te.msg);
	}
	wp_matchspecs_free(cr.v, cr.n);
	return rc;
}

/* Fetch the closure into the store, then lay it out as a channel in dest. */
static int write_channel(const struct wp_session *s, struct wp_catalog *cat,
			 const struct wp_conda_job *job, struct wp_conda_result *res,
			 struct wp_err *err)
{
	struct wp_store store = { 0 };
	char *root = wp_xasprintf("%s/files", s->cache_dir);
	int rc;
	if ((rc = wp_lazy_require(WP_LIB_CRYPTO | WP_LIB_ARCHIVE | (job->offline ? 0 : WP_LIB_CURL),
				  err)) ||
	    (rc = wp_store_init(&store, root, err))) {
		free(root);
		return rc;
	}
	struct wp_err ce = WP_ERR_INIT;
	if (wp_store_clean_tmp(&store, WP_STORE_TMP_MAX_AGE_S, &ce) < 0)
		wp_say(s, WP_SAY_DEBUG, "%s", ce.msg);
	size_t n = res->n;
	struct wp_fetch_item *items = wp_xcalloc(n ? n : 1, sizeof(*items));
	for (size_t i = 0; i < n; i++) {
		const struct wp_conda_candidate *c = res->picks[i].c;
		items[i] = (struct wp_fetch_item){
			.url = c->url,
			.filename = c->filename,
			.sha256 = c->sha256,
			.size = -1,
			.md5 = c->md5,
			.check = WP_FETCH_CHECK_CONDA,
			.conda_name = c->name,
			.conda_version = c->version,
			.conda_build = c->build,
		};
	}
	struct wp_fetch_opts fo = { .offline = job->offline,
				    .progress = s->progress.update,
				    .resumed = s->progress.resumed,
				    .pctx = s->progress.ctx,
				    .net = s->net };
	int frc = wp_fetch_files(&store, items, n, &fo, err);
	/* each package's attestations where its channel offers them; one that cannot be had leaves
	 * its package without (said, and the exit code says it), never a record naming a missing
	 * sidecar */
	const char **urls = wp_xcalloc(n ? n : 1, sizeof(*urls));
	struct wp_conda_attest *att = wp_xcalloc(n ? n : 1, sizeof(*att));
	for (size_t i = 0; i < n; i++)
		urls[i] = items[i].rc ? "" : res->picks[i].c->url;
	struct wp_err aerr = WP_ERR_INIT;
	int arc = wp_conda_attest_carry(s, cat, urls, n, job->offline, att, &aerr);
	struct wp_conda_file *cfiles = wp_xcalloc(n ? n : 1, sizeof(*cfiles));
	char **jsons = wp_xcalloc(n ? n : 1, sizeof(*jsons));
	size_t ncf = 0;
	for (size_t i = 0; i < n; i++) {
		const struct wp_conda_candidate *c = res->picks[i].c;
		if (items[i].rc) {
			if (!(frc && !strcmp(items[i].err.msg, err->msg)))
				wp_say(s, WP_SAY_ERROR, "%s", items[i].err.msg);
			continue;
		}
		bool dup = false;
		for (size_t k = 0; k < ncf && !dup; k++)
			dup = !strcmp(cfiles[k].filename, c->filename) &&
			      !strcmp(cfiles[k].subdir, c->subdir ? c->subdir : "noarch");
		if (dup)
			continue;
		/* the proven object's own size: what was transferred is 0 when the store already
		 * had it (and a part on a resume), and the channel must not differ between runs */
		struct wp_os_stat sb;
		jsons[ncf] = record_json(c,
					 wp_os_stat(items[i].path, &sb) == 0 ?
						 (long long)sb.st_size :
					 items[i].bytes > 0 ? items[i].bytes :
							      -1,
					 att[i].path ? att[i].sha256 : NULL);
		cfiles[ncf] = (struct wp_conda_file){
			.subdir = c->subdir ? c->subdir : "noarch",
			.filename = c->filename,
			.store_path = items[i].path,
			.record_json = jsons[ncf],
			.attest_path = att[i].path,
			.attest_sha256 = att[i].path ? att[i].sha256 : NULL,
		};
		ncf++;
	}
	/* what was proven goes in even when something else failed; the error still says so */
	struct wp_err werr = WP_ERR_INIT;
	rc = wp_channel_write(job->dest, cfiles, ncf, s->source_date_set ? &s->source_date : NULL,
			      frc || arc ? &werr : err);
	if (frc)
		rc = frc;
	else if (arc && !rc)
		rc = wp_fail(err, arc, "%s", aerr.msg);
	res->wrote = rc == 0;
	for (size_t i = 0; i < n; i++)
		wp_fetch_item_release(&items[i]);
	for (size_t i = 0; i < ncf; i++)
		free(jsons[i]);
	wp_conda_attest_release(att, n);
	free(att);
	free(urls);
	free(jsons);
	free(cfiles);
	free(items);
	wp_store_release(&store);
	free(root);
	return rc;
}

int wp_conda_run(const struct wp_session *s, const struct wp_conda_job *job,
		 struct wp_conda_result *res, struct wp_err *err)
{
	struct wp_catalog cat = { 0 };
	struct cflow *cf = wp_xcalloc(1, sizeof(*cf));
	struct wp_sources src = { .creds = s->creds };
	int rc = 0, crc = 0; /* crc: the crawl's failure, which a pick from the catalog went on
				after */
	struct wp_err ce = WP_ERR_INIT;

	memset(res, 0, sizeof(*res));
	res->records = cf;
	cf->cat = &cat;
	cf->asks = s->asks;
	cf->offline = job->offline;
	if (!job->reqs.n)
		return wp_fail(err, -WPE_USAGE,
			       "name at least one package, e.g. 'wheelpick pytorch --conda --cuda 11.2'");
	if ((rc = wp_targets_build(s, &job->targets, &res->targets, &res->n_targets, err)))
		goto out;
	channel_sources(s, job, res->targets, res->n_targets, &src, cf);
	if ((rc = wp_catalog_open_as(&cat, s->catalog_path, s->asks, err)))
		goto out;
	if (src.n && !job->offline) {
		/* a sharded channel gives the shards of the closure of what was asked, not its
		 * whole repodata */
		crc = wp_sources_crawl_conda(s, &cat, &src, (const char *const *)job->reqs.v,
					     job->reqs.n, (const char *const *)cf->channels,
					     cf->nch, false, job->refresh ? 0 : s->max_age_s, &ce);
		if (crc == -WPE_INTEGRITY) {
			/* a shard that is not what its index names: nothing from it may be
			 * picked */
			rc = wp_fail(err, crc, "%s", ce.msg);
			goto out;
		}
		if (crc)
			wp_say(s, WP_SAY_WARN, "%s; picking from what the catalog already has",
			       ce.msg);
	}
	for (size_t t = 0; t < res->n_targets && !rc; t++)
		rc = resolve_with_restarts(cf, job, t, res, err);
	/* an incomplete closure installs nowhere: say what is missing, unless told to go on */
	if (!rc && cf->nmiss) {
		struct wp_err me = WP_ERR_INIT;
		fail_incomplete(cf, &me);
		if (!job->allow_missing) {
			rc = wp_fail(err, me.code, "%s", me.msg);
			goto out;
		}
		wp_say(s, WP_SAY_WARN, "%s", me.msg);
	}
	if (!rc && job->dest)
		rc = write_channel(s, cf->cat, job, res, err);
	if (!rc && job->dest) {
		const char **chans = wp_xcalloc(cf->nch ? cf->nch : 1, sizeof(*chans));
		for (size_t i = 0; i < cf->nch; i++)
			chans[i] = channel_short(cf->channels[i]);
		struct wp_conda_lock_input in = {
			.targets = res->targets,
			.n_targets = res->n_targets,
			.picks = res->picks,
			.n = res->n,
			.channels = chans,
			.nch = cf->nch,
			.missing = res->missing,
			.nmissing = res->nmissing,
			.env_name = job->reqs.n ? job->reqs.v[0] : "env",
		};
		rc = wp_write_conda_locks(&in, job->locks_dir ? job->locks_dir : job->dest,
					  &res->locks, err);
		free(chans);
	}
	if (!rc && job->dest)
		rc = wp_conda_write_sbom(s, job->dest, res->picks, res->n, res->targets, err);
out:
	/* nothing fits, after a channel failed: the failure is the answer (exit 3, naming the
	 * source), not "no channel has" what that channel would have given */
	if (rc == -WPE_NOMATCH && crc && crc != -WPE_NOMATCH) {
		char *nomatch = wp_xstrdup(err->msg);
		wp_err_clear(err);
		rc = wp_fail(err, crc, "%s; from what the catalog already has: %s", ce.msg,
			     nomatch);
		free(nomatch);
	}
	/* the records stay (the picks point into them); the catalog goes */
	cf->cat = NULL;
	wp_catalog_close(&cat);
	wp_sources_release(&src);
	return rc;
}

void wp_conda_result_release(struct wp_conda_result *res)
{
	for (size_t i = 0; i < res->n; i++)
		free(res->picks[i].reason), free(res->picks[i].required_by),
			free(res->picks[i].variant);
	free(res->picks);
	for (size_t i = 0; i < res->nmissing; i++)
		free(res->missing[i]);
	free(res->missing);
	if (res->records) {
		cflow_release(res->records);
		free(res->records);
	}
	free(res->targets);
	wp_lock_report_release(&res->locks);
	memset(res, 0, sizeof(*res));
}
