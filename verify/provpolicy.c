/* verify/provpolicy.c: the publisher each project's provenance must name (--require-provenance). */
#include "verify/provenance.h"
#include "resolver/name.h"
#include "base/buf.h"
#include "base/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int canon(const char *s, size_t n, char *out, size_t size)
{
	struct wp_buf b = WP_BUF_INIT_MAX(size - 1);
	int rc = wp_name_canonicalize(s, n, &b);
	if (!rc)
		snprintf(out, size, "%s", wp_buf_cstr(&b));
	wp_buf_free(&b);
	return rc;
}

int wp_prov_policy_add(struct wp_prov_policy *p, const char *text, struct wp_err *err)
{
	struct wp_prov_rule r = { 0 };
	const char *eq = strchr(text, '=');
	const char *colon = eq ? strchr(eq + 1, ':') : NULL;
	/* "@WORKFLOW" only after a repository: an email identity holds its own '@' */
	bool repo_kind = colon &&
			 (!strncmp(eq + 1, "github:", 7) || !strncmp(eq + 1, "gitlab:", 7));
	const char *at = repo_kind ? strchr(colon + 1, '@') : NULL;
	const char *end = at ? at : colon ? colon + strlen(colon) : NULL;
	if (!eq || eq == text || !colon || end == colon + 1 ||
	    canon(text, (size_t)(eq - text), r.project, sizeof(r.project)) ||
	    (size_t)(colon - eq - 1) >= sizeof(r.kind) ||
	    (size_t)(end - colon - 1) >= sizeof(r.ident) ||
	    (at && (!at[1] || strlen(at + 1) >= sizeof(r.workflow))))
		return wp_fail(err, -WPE_USAGE,
			       "provenance policy '%s' is not PROJECT=KIND:IDENTITY[@WORKFLOW] (torch=github:pytorch/pytorch)",
			       text);
	memcpy(r.kind, eq + 1, (size_t)(colon - eq - 1));
	memcpy(r.ident, colon + 1, (size_t)(end - colon - 1));
	if (at)
		snprintf(r.workflow, sizeof(r.workflow), "%s", at + 1);
	if (strcmp(r.kind, "github") && strcmp(r.kind, "gitlab") && strcmp(r.kind, "google") &&
	    strcmp(r.kind, "email"))
		return wp_fail(err, -WPE_USAGE,
			       "provenance policy '%s': kind '%s' is not github, gitlab, google or email",
			       text, r.kind);
	p->rules = realloc(p->rules, (p->n + 1) * sizeof(*p->rules));
	if (!p->rules)
		abort();
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->rules[i].project, r.project)) {
			p->rules[i] = r; /* the last rule for a project wins, as later flags do */
			return 0;
		}
	p->rules[p->n++] = r;
	return 0;
}

int wp_prov_policy_add_lines(struct wp_prov_policy *p, const char *text, size_t len,
			     const char *what, struct wp_err *err)
{
	size_t i = 0, lineno = 0;
	while (i < len) {
		size_t j = i;
		while (j < len && text[j] != '\n')
			j++;
		lineno++;
		char line[640];
		size_t n = j - i;
		while (n && (text[i + n - 1] == '\r' || text[i + n - 1] == ' ' ||
			     text[i + n - 1] == '\t'))
			n--;
		size_t s = 0;
		while (s < n && (text[i + s] == ' ' || text[i + s] == '\t'))
			s++;
		if (n - s >= sizeof(line))
			return wp_fail(err, -WPE_USAGE,
				       "provenance policy '%s' line %zu is too long", what, lineno);
		memcpy(line, text + i + s, n - s);
		line[n - s] = 0;
		if (line[0] && line[0] != '#') {
			int rc = wp_prov_policy_add(p, line, err);
			if (rc) {
				wp_err_prefix(err, "'%s' line %zu", what, lineno);
				return rc;
			}
		}
		i = j + 1;
	}
	return 0;
}

void wp_prov_policy_release(struct wp_prov_policy *p)
{
	free(p->rules);
	p->rules = NULL;
	p->n = 0;
}

const struct wp_prov_rule *wp_prov_policy_find(const struct wp_prov_policy *p, const char *project)
{
	char c[128];
	if (!p || canon(project, strlen(project), c, sizeof(c)))
		return NULL;
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->rules[i].project, c))
			return &p->rules[i];
	return NULL;
}

bool wp_prov_rule_matches(const struct wp_prov_rule *r, const struct wp_prov_identity *id)
{
	char want[600];
	if (!strcmp(r->kind, "github") || !strcmp(r->kind, "gitlab")) {
		bool gh = !strcmp(r->kind, "github");
		snprintf(want, sizeof(want), "https://%s.com/%s", gh ? "github" : "gitlab",
			 r->ident);
		if (strcmp(id->issuer, gh ? "https://token.actions.githubusercontent.com" :
					    "https://gitlab.com") ||
		    strcasecmp(id->source_repo, want))
			return false;
		if (!r->workflow[0])
			return true;
		snprintf(want, sizeof(want), gh ? "/.github/workflows/%s@" : "//%s@", r->workflow);
		return strstr(id->build_config, want) != NULL;
	}
	if (!strcmp(r->kind, "google"))
		return !strcmp(id->issuer, "https://accounts.google.com") &&
		       !strcmp(id->san, r->ident);
	return !strcmp(r->kind, "email") && !strcasecmp(id->san, r->ident);
}

void wp_prov_rule_format(const struct wp_prov_rule *r, char *out, size_t size)
{
	snprintf(out, size, "%s:%s%s%s", r->kind, r->ident, r->workflow[0] ? "@" : "", r->workflow);
}
