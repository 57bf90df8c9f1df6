/* tests/unit/test_provenance.c: PEP 740 provenance verified offline: real attestations (PyPI's
 * pypi-attestations test assets) against Sigstore's real trusted roots, and each way a tampered
 * copy must fail, with the message naming the check. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/mem.h"
#include "verify/hash.h"
#include "verify/provenance.h"
#include "verify/tlog.h"
#include "index/html.h"
#include "index/pep691.h"
#include "readfile.h"

#define DIR "tests/fixtures/provenance/"
/* The distributions are not vendored (PROVENANCE.md): each is named by the sha256 its statement
 * carries, which is all a verifier reads of the file. */
#define SDIST "pypi_attestations-0.0.19.tar.gz"
#define SDIST_SHA "9bb1add04b1b4e182be6b0b80931593f7a291eb49d69b4fd728a5d4cbcdc4bd3"
#define WHEEL "rfc8785-0.1.2-py3-none-any.whl"
#define WHEEL_SHA "c4e92e9ecc828bef2aa7dba1de8ac983511f7532a0df11c770d39099a25cf201"

static char *need(const char *name, size_t *len)
{
	char *path = wp_xasprintf(DIR "%s", name);
	char *s = test_read_file(path, len);
	if (!s)
		fail_msg("missing test input '%s' (vendored; run from the repository root)", path);
	free(path);
	return s;
}

static void load_root(struct wp_trust_root *tr, const char *name)
{
	size_t n;
	char *t = need(name, &n);
	struct wp_err err = WP_ERR_INIT;
	int rc = wp_trust_root_load(tr, t, n, name, &err);
	free(t);
	if (rc)
		fail_msg("%s", err.msg);
}


/* Standard padded base64 of n bytes (the test's own encoder: verify/ only decodes it). */
static char *b64(const unsigned char *p, size_t n)
{
	char *u = wp_xmalloc(4 * ((n + 2) / 3) + 4);
	wp_b64url_encode(p, n, u);
	size_t l = strlen(u);
	for (size_t i = 0; i < l; i++)
		u[i] = u[i] == '-' ? '+' : u[i] == '_' ? '/' : u[i];
	while (l % 4)
		u[l++] = '=';
	u[l] = 0;
	return u;
}

/* The n-th (0-based) string value of "key" in the compact JSON text: its start and length. */
static const char *find_value(const char *text, const char *key, int nth, size_t *len)
{
	char pat[128];
	snprintf(pat, sizeof(pat), "\"%s\":\"", key);
	const char *p = text;
	for (int i = 0; p && i <= nth; i++) {
		p = strstr(p, pat);
		if (p && i < nth)
			p++;
	}
	if (!p)
		fail_msg("no \"%s\" #%d in the fixture", key, nth);
	p += strlen(pat);
	const char *e = p;
	while (*e && !(*e == '"' && e[-1] != '\\'))
		e++;
	*len = (size_t)(e - p);
	return p;
}

/* text with the n-th string value of key replaced by val (JSON-escaped by the caller). */
static char *with_value(const char *text, const char *key, int nth, const char *val)
{
	size_t len;
	const char *v = find_value(text, key, nth, &len);
	return wp_xasprintf("%.*s%s%s", (int)(v - text), text, val, v + len);
}

/* The same for a base64 value: decoded, edit(bytes) applied, encoded again. */
static char *with_b64_edit(const char *text, const char *key, int nth,
			   void (*edit)(unsigned char *p, size_t *n, void *ctx), void *ctx)
{
	size_t len;
	const char *v = find_value(text, key, nth, &len);
	unsigned char *raw = wp_xmalloc(len + 256);
	long n = wp_b64_decode(v, len, raw);
	assert_true(n > 0);
	size_t sz = (size_t)n;
	edit(raw, &sz, ctx);
	char *enc = b64(raw, sz);
	char *out = wp_xasprintf("%.*s%s%s", (int)(v - text), text, enc, v + len);
	free(enc);
	free(raw);
	return out;
}

/* Edits: flip one byte at an offset (ctx: a size_t, from the end when past the length). */
static void flip_at(unsigned char *p, size_t *n, void *ctx)
{
	size_t off = *(size_t *)ctx;
	p[off < *n ? off : *n - 1] ^= 0x01;
}

/* Replace the first occurrence of a text inside the decoded bytes (ctx: "old\0new"). */
static void replace_in(unsigned char *p, size_t *n, void *ctx)
{
	const char *old = ctx, *new = old + strlen(old) + 1;
	unsigned char *hit = memmem(p, *n, old, strlen(old));
	assert_non_null(hit);
	assert_int_equal(strlen(old), strlen(new));
	memcpy(hit, new, strlen(new));
}

struct fixture {
	char *text;
	size_t len;
	struct wp_trust_root tr;
};

static int setup(void **state)
{
	struct fixture *f = wp_xcalloc(1, sizeof(*f));
	f->text = need(SDIST ".provenance", &f->len);
	load_root(&f->tr, "trusted_root.json");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	free(f->text);
	wp_trust_root_release(&f->tr);
	free(f);
	return 0;
}

/* text (freed here) must fail as -WPE_INTEGRITY with a message holding each of the words. */
static void must_fail(struct fixture *f, char *text, const char *file, const char *sha,
		      const char *word, const char *word2)
{
	struct wp_err err = WP_ERR_INIT;
	struct wp_prov_result res;
	int rc = wp_provenance_verify(text, strlen(text), "p", file, sha, &f->tr, &res, &err);
	if (rc != -WPE_INTEGRITY || !strstr(err.msg, word) || (word2 && !strstr(err.msg, word2)))
		fail_msg("expected a failure naming '%s'%s%s, got %d: %s", word,
			 word2 ? " and " : "", word2 ? word2 : "", rc, err.msg);
	free(text);
}

#define FAIL(text, word) must_fail(f, (text), SDIST, SDIST_SHA, (word), NULL)

/* Verify text as the sdist's provenance under the production root; the message, or "" on
 * success. */
static int verify_text(const char *text, size_t n, const char *root, const char *file,
		       const char *sha, struct wp_prov_result *res, char *msg, size_t msgsize)
{
	struct wp_trust_root tr;
	struct wp_err err = WP_ERR_INIT;
	load_root(&tr, root);
	int rc = wp_provenance_verify(text, n, "p", file, sha, &tr, res, &err);
	snprintf(msg, msgsize, "%s", err.msg);
	wp_trust_root_release(&tr);
	return rc;
}

static void test_real_sdist_verifies(void **state)
{
	size_t n;
	char *t = need(SDIST ".provenance", &n);
	char msg[1024];
	struct wp_prov_result res;
	int rc = verify_text(t, n, "trusted_root.json", SDIST, SDIST_SHA, &res, msg, sizeof(msg));
	if (rc)
		fail_msg("%s", msg);
	assert_int_equal(res.n, 1);
	assert_string_equal(res.id[0].issuer, "https://token.actions.githubusercontent.com");
	assert_string_equal(res.id[0].source_repo,
			    "https://github.com/trailofbits/pypi-attestations");
	assert_non_null(
		strstr(res.id[0].build_config, "/.github/workflows/release.yml@refs/tags/v0.0.19"));
	assert_string_equal(res.id[0].publisher, "GitHub");
	assert_int_equal(res.id[0].signed_at, 1733354041);
	free(t);
}

static void test_real_wheel_verifies(void **state)
{
	size_t n;
	char *t = need(WHEEL ".provenance", &n);
	char msg[1024];
	struct wp_prov_result res;
	int rc = verify_text(t, n, "trusted_root.staging.json", WHEEL, WHEEL_SHA, &res, msg,
			     sizeof(msg));
	if (rc)
		fail_msg("%s", msg);
	assert_int_equal(res.n, 1);
	assert_string_equal(res.id[0].san, "william@yossarian.net");
	assert_string_equal(res.id[0].issuer, "https://github.com/login/oauth");
	/* the production root does not know the staging log or CA */
	rc = verify_text(t, n, "trusted_root.json", WHEEL, WHEEL_SHA, &res, msg, sizeof(msg));
	assert_int_equal(rc, -WPE_INTEGRITY);
	assert_non_null(strstr(msg, "trusted root"));
	free(t);
}


static void test_tamper_statement(void **state)
{
	struct fixture *f = *state;
	/* the statement claims another predicate: the signature no longer covers it */
	FAIL(with_b64_edit(f->text, "statement", 0, replace_in,
			   "\"predicate\":null\0\"predicate\":true"),
	     "signature over the statement");
	/* a statement that is not base64 at all */
	FAIL(with_value(f->text, "statement", 0, "eyJf!"), "statement");
}

static void test_tamper_signature(void **state)
{
	struct fixture *f = *state;
	size_t off = 40;
	FAIL(with_b64_edit(f->text, "signature", 0, flip_at, &off), "signature over the statement");
}

static void test_tamper_certificate(void **state)
{
	struct fixture *f = *state;
	/* the SAN's workflow path, one letter changed: the issuer's signature breaks */
	FAIL(with_b64_edit(f->text, "certificate", 0, replace_in, "release.yml\0relaase.yml"),
	     "certificate does not chain to the trusted root");
	size_t off = 2;
	FAIL(with_b64_edit(f->text, "certificate", 0, flip_at, &off), "certificate");
}

static void test_tamper_inclusion_proof(void **state)
{
	struct fixture *f = *state;
	/* the fourth hash of the path */
	char *t = wp_xstrdup(f->text);
	char *h = strstr(t, "QmGjL5m3QfWxTeS1DSKdcZi1Cb/kXHez6zUQJFM+6No=");
	assert_non_null(h);
	h[0] = 'R';
	FAIL(t, "inclusion proof does not lead from the entry to the root hash");
	/* the proof's leaf index */
	FAIL(with_value(f->text, "logIndex", 0, "31550400"), "inclusion proof");
	/* the tree size (the checkpoint still says the old one) */
	FAIL(with_value(f->text, "treeSize", 0, "31550403"), "inclusion proof");
}

static void test_tamper_checkpoint(void **state)
{
	struct fixture *f = *state;
	/* the note's signature, one character changed */
	char *t = wp_xstrdup(f->text);
	char *sig = strstr(t, "wNI9ajBFAiBegciq");
	assert_non_null(sig);
	sig[12] = 'x';
	FAIL(t, "checkpoint's signature does not verify");
	/* an extra line in the signed body */
	t = wp_xstrdup(f->text);
	char *nl = strstr(t, "g4o=\\n\\n");
	assert_non_null(nl);
	memcpy(nl + 4, "\\nX", 3);
	FAIL(t, "checkpoint");
	/* another root hash in the note than in the proof */
	t = wp_xstrdup(f->text);
	char *r = strstr(t, "\\ny0mvJokg");
	assert_non_null(r);
	r[2] = 'z';
	FAIL(t, "checkpoint's tree size or root hash");
}

static void test_tamper_log_entry(void **state)
{
	struct fixture *f = *state;
	/* the entry's body, re-encoded after one change: the SET and the proof both cover it */
	FAIL(with_b64_edit(f->text, "canonicalizedBody", 0, replace_in,
			   "\"value\":\"eac5\0\"value\":\"fac5"),
	     "signed entry timestamp");
	/* ... and a body that is no longer this envelope's, or not a dsse entry */
	FAIL(with_b64_edit(f->text, "canonicalizedBody", 0, replace_in,
			   "\"value\":\"f979\0\"value\":\"f978"),
	     "payload hash is not the statement's");
	FAIL(with_b64_edit(f->text, "canonicalizedBody", 0, replace_in,
			   "\"apiVersion\":\"0.0.1\"\0\"apiVersion\":\"0.0.2\""),
	     "not a dsse 0.0.1 entry");
	/* the entry's global index */
	FAIL(with_value(f->text, "logIndex", 1, "153454664"), "signed entry timestamp");
	size_t off = 20;
	FAIL(with_b64_edit(f->text, "signedEntryTimestamp", 0, flip_at, &off),
	     "signed entry timestamp");
}

static void test_signing_time_outside_validity(void **state)
{
	struct fixture *f = *state;
	/* the certificate lived ten minutes from 2024-12-04T23:14:01Z */
	FAIL(with_value(f->text, "integratedTime", 0, "1733354700"),
	     "outside the certificate's validity");
	FAIL(with_value(f->text, "integratedTime", 0, "1733350000"),
	     "outside the certificate's validity");
	/* inside the validity but not what the log signed */
	FAIL(with_value(f->text, "integratedTime", 0, "1733354042"), "signed entry timestamp");
}

static void test_another_files_digest(void **state)
{
	struct fixture *f = *state;
	must_fail(f, wp_xstrdup(f->text), SDIST, WHEEL_SHA, "subject digest",
		  "another file's provenance");
	must_fail(f, wp_xstrdup(f->text), WHEEL, SDIST_SHA,
		  "subject is 'pypi_attestations-0.0.19.tar.gz'", WHEEL);
}

static void test_wrong_trusted_root(void **state)
{
	struct fixture *f = *state;
	struct wp_trust_root tr;
	struct wp_err err = WP_ERR_INIT;
	struct wp_prov_result res;
	load_root(&tr, "trusted_root.staging.json");
	assert_int_equal(wp_provenance_verify(f->text, f->len, "p", SDIST, SDIST_SHA, &tr, &res,
					      &err),
			 -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "does not chain to the trusted root"));
	wp_trust_root_release(&tr);

	/* the production root with its CA's validity cut to end before the signing */
	size_t n;
	char *t = need("trusted_root.json", &n);
	char *cut = strstr(t, "\"start\": \"2022-04-13T20:06:15Z\"");
	assert_non_null(cut);
	char *mod = wp_xasprintf("%.*s\"start\": \"2022-04-13T20:06:15Z\", \"end\": \"2023-01-01T00:00:00Z\"%s",
				 (int)(cut - t), t,
				 cut + strlen("\"start\": \"2022-04-13T20:06:15Z\""));
	wp_err_clear(&err);
	assert_int_equal(wp_trust_root_load(&tr, mod, strlen(mod), "cut", &err), 0);
	assert_int_equal(wp_provenance_verify(f->text, f->len, "p", SDIST, SDIST_SHA, &tr, &res,
					      &err),
			 -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "no certificate authority of the trusted root was valid"));
	wp_trust_root_release(&tr);
	free(mod);

	/* the production root with another key for the log: SET and checkpoint fail */
	char *key = strstr(t, "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE2G2Y");
	assert_non_null(key);
	mod = wp_xstrdup(t);
	mod[key - t + 40] = mod[key - t + 40] == 'A' ? 'B' : 'A';
	wp_err_clear(&err);
	assert_int_equal(wp_trust_root_load(&tr, mod, strlen(mod), "key", &err), 0);
	assert_int_equal(wp_provenance_verify(f->text, f->len, "p", SDIST, SDIST_SHA, &tr, &res,
					      &err),
			 -WPE_INTEGRITY);
	assert_true(strstr(err.msg, "log key") || strstr(err.msg, "signed entry timestamp"));
	wp_trust_root_release(&tr);
	free(mod);

	/* not a trusted root at all, or a truncated one */
	wp_err_clear(&err);
	assert_int_equal(wp_trust_root_load(&tr, t, n / 2, "half", &err), -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "trusted root 'half'"));
	wp_err_clear(&err);
	assert_int_equal(wp_trust_root_load(&tr, "{}", 2, "empty", &err), -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "trusted root 'empty'"));
	free(t);
}

static void test_truncated_json(void **state)
{
	struct fixture *f = *state;
	char *t = wp_xasprintf("%.*s", (int)(f->len / 2), f->text);
	FAIL(t, "provenance 'p'");
	FAIL(wp_xstrdup("{\"version\":1,\"attestation_bundles\":[]}"),
	     "not PEP 740 provenance version 1");
	FAIL(wp_xstrdup("{\"version\":2,\"attestation_bundles\":[{}]}"),
	     "not PEP 740 provenance version 1");
	FAIL(wp_xstrdup(""), "provenance 'p'");
}

static void test_publisher_must_match(void **state)
{
	struct fixture *f = *state;
	FAIL(with_value(f->text, "repository", 0, "pytorch/pytorch"),
	     "publisher (GitHub pytorch/pytorch) is not who");
	FAIL(with_value(f->text, "workflow", 0, "other.yml"), "publisher");
	FAIL(with_value(f->text, "kind", 1, "GitHux"), "publisher kind 'GitHux'");
}

static void test_policy(void **state)
{
	struct fixture *f = *state;
	struct wp_err err = WP_ERR_INIT;
	struct wp_prov_result res;
	assert_int_equal(wp_provenance_verify(f->text, f->len, "p", SDIST, SDIST_SHA, &f->tr, &res,
					      &err),
			 0);
	struct wp_prov_policy p = { 0 };
	assert_int_equal(wp_prov_policy_add(&p, "torch=github:pytorch/pytorch", &err), 0);
	assert_int_equal(wp_prov_policy_add(&p,
					    "Pypi_Attestations=github:trailofbits/pypi-attestations",
					    &err),
			 0);
	const char *lines =
		"# who publishes what\n\nrfc8785=email:william@yossarian.net\r\n  good=github:TrailOfBits/pypi-attestations@release.yml\n"
		"badwf=github:trailofbits/pypi-attestations@other.yml\ngl=gitlab:trailofbits/pypi-attestations\n";
	assert_int_equal(wp_prov_policy_add_lines(&p, lines, strlen(lines), "policy.txt", &err), 0);
	assert_int_equal(p.n, 6);
	const struct wp_prov_rule *r = wp_prov_policy_find(&p, "torch");
	assert_non_null(r);
	assert_false(wp_prov_rule_matches(r, &res.id[0])); /* wrong identity under a policy */
	r = wp_prov_policy_find(&p, "pypi-attestations");
	assert_non_null(r);
	assert_true(wp_prov_rule_matches(r, &res.id[0]));
	assert_true(wp_prov_rule_matches(wp_prov_policy_find(&p, "good"), &res.id[0]));
	assert_false(wp_prov_rule_matches(wp_prov_policy_find(&p, "badwf"), &res.id[0]));
	assert_false(wp_prov_rule_matches(wp_prov_policy_find(&p, "gl"), &res.id[0]));
	assert_false(wp_prov_rule_matches(wp_prov_policy_find(&p, "rfc8785"), &res.id[0]));
	r = wp_prov_policy_find(&p, "rfc8785");
	assert_string_equal(r->ident, "william@yossarian.net"); /* an email's '@' names no workflow
								 */
	assert_string_equal(r->workflow, "");
	struct wp_prov_identity mail = { .issuer = "https://github.com/login/oauth",
					 .san = "william@yossarian.net" };
	assert_true(wp_prov_rule_matches(r, &mail));
	assert_null(wp_prov_policy_find(&p, "numpy"));
	char buf[300];
	wp_prov_rule_format(wp_prov_policy_find(&p, "good"), buf, sizeof(buf));
	assert_string_equal(buf, "github:TrailOfBits/pypi-attestations@release.yml");
	/* bad rules say what the syntax is */
	assert_int_equal(wp_prov_policy_add(&p, "torch", &err), -WPE_USAGE);
	assert_non_null(strstr(err.msg, "PROJECT=KIND:IDENTITY"));
	wp_err_clear(&err);
	assert_int_equal(wp_prov_policy_add(&p, "torch=svn:x", &err), -WPE_USAGE);
	wp_err_clear(&err);
	assert_int_equal(wp_prov_policy_add_lines(&p, "ok=github:a/b\nbad\n", 18, "pol", &err),
			 -WPE_USAGE);
	assert_non_null(strstr(err.msg, "'pol' line 2"));
	wp_prov_policy_release(&p);
}

/* Every byte of the real provenance, changed: each copy must fail, except changes that leave
 * the document meaning the same thing (listed and counted). */
static void test_every_byte_tampered(void **state)
{
	struct fixture *f = *state;
	char *t = wp_xstrdup(f->text);
	size_t passed = 0;
	char where[8192] = "";
	for (size_t i = 0; i < f->len; i++) {
		char old = t[i];
		t[i] = (char)(old == 'A' ? 'B' : old == '"' || old == '\n' ? 'x' : old ^ 0x01);
		struct wp_err err = WP_ERR_INIT;
		struct wp_prov_result res;
		if (wp_provenance_verify(t, f->len, "p", SDIST, SDIST_SHA, &f->tr, &res, &err) ==
		    0) {
			passed++;
			if (strlen(where) < sizeof(where) - 64)
				snprintf(where + strlen(where), sizeof(where) - strlen(where),
					 " %zu:'%.12s'", i, f->text + (i > 4 ? i - 4 : 0));
		}
		t[i] = old;
	}
	free(t);
	if (passed)
		fail_msg("%zu tampered copies verified:%s", passed, where);
}


/* ---- the index readers: PEP 691 "provenance", HTML data-provenance ---- */

struct provs {
	char *v[8];
	size_t n;
};

static int take_prov(void *ctx, const struct wp_file_record *r, struct wp_err *err)
{
	struct provs *p = ctx;
	if (p->n < 8)
		p->v[p->n++] = r->provenance ? wp_xstrdup(r->provenance) : wp_xstrdup("(none)");
	return 0;
}

static void provs_check(struct provs *p, const char *const *want, size_t n)
{
	assert_int_equal(p->n, n);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(p->v[i], want[i]);
		free(p->v[i]);
	}
	p->n = 0;
}

static void test_index_readers(void **state)
{
	struct wp_err err = WP_ERR_INIT;
	struct provs p = { 0 };
	const char *json =
		"{\"meta\":{\"api-version\":\"1.3\"},\"name\":\"demo\",\"files\":["
		"{\"filename\":\"demo-1.0-py3-none-any.whl\",\"url\":\"https://files.example/demo-1.0-py3-none-any.whl\","
		"\"hashes\":{},\"provenance\":\"https://pypi.example/integrity/demo/1.0/demo-1.0-py3-none-any.whl/provenance\"},"
		"{\"filename\":\"demo-1.1-py3-none-any.whl\",\"url\":\"../../f/demo-1.1-py3-none-any.whl\",\"hashes\":{},"
		"\"provenance\":\"../../f/demo-1.1-py3-none-any.whl.provenance\"},"
		"{\"filename\":\"demo-1.2-py3-none-any.whl\",\"url\":\"../../f/demo-1.2-py3-none-any.whl\",\"hashes\":{},\"provenance\":null},"
		"{\"filename\":\"demo-1.3-py3-none-any.whl\",\"url\":\"../../f/demo-1.3-py3-none-any.whl\",\"hashes\":{},\"provenance\":7},"
		"{\"filename\":\"demo-1.4-py3-none-any.whl\",\"url\":\"../../f/demo-1.4-py3-none-any.whl\",\"hashes\":{},"
		"\"provenance\":\"file:///etc/passwd\"}]}";
	assert_int_equal(wp_read_pep691("https://pypi.example/simple/demo/", NULL, json,
					strlen(json), take_prov, &p, NULL, &err),
			 0);
	const char *want
		[] = { "https://pypi.example/integrity/demo/1.0/demo-1.0-py3-none-any.whl/provenance",
		       "https://pypi.example/f/demo-1.1-py3-none-any.whl.provenance", "(none)",
		       "(none)",
		       "(none)" /* a page on the network may not send us to a local file */ };
	provs_check(&p, want, 5);

	const char *html =
		"<html><body>"
		"<a href=\"../../f/demo-1.0-py3-none-any.whl\" data-provenance=\"https://pypi.example/p/demo-1.0\">a</a>"
		"<a href=\"../../f/demo-1.1-py3-none-any.whl\" data-provenance=\"../../f/demo-1.1-py3-none-any.whl.provenance\">b</a>"
		"<a href=\"../../f/demo-1.2-py3-none-any.whl\">c</a>"
		"<a href=\"../../f/demo-1.3-py3-none-any.whl\" data-provenance=\"\">d</a>"
		"</body></html>";
	assert_int_equal(wp_read_html_links("https://pypi.example/simple/demo/", "demo", html,
					    strlen(html), take_prov, &p, NULL, &err),
			 0);
	const char *want2[] = { "https://pypi.example/p/demo-1.0",
				"https://pypi.example/f/demo-1.1-py3-none-any.whl.provenance",
				"(none)", "(none)" };
	provs_check(&p, want2, 4);
}

/* The base64 decoder signatures rely on: one spelling per byte string. */
static void test_b64_strict(void **state)
{
	unsigned char out[16];
	assert_int_equal(wp_b64_decode("YWJj", 4, out), 3);
	assert_memory_equal(out, "abc", 3);
	assert_int_equal(wp_b64_decode("YWI=", 4, out), 2);
	assert_int_equal(wp_b64_decode("YQ==", 4, out), 1);
	assert_int_equal(wp_b64_decode("", 0, out), 0);
	assert_int_equal(wp_b64_decode("YWJ=", 4, out), -1);  /* "ab" spelled with a stray bit */
	assert_int_equal(wp_b64_decode("YR==", 4, out), -1);
	assert_int_equal(wp_b64_decode("YWI", 3, out), -1);   /* unpadded */
	assert_int_equal(wp_b64_decode("Y=I=", 4, out), -1);
	assert_int_equal(wp_b64_decode("YQ==YQ==", 8, out), -1); /* padding inside */
	assert_int_equal(wp_b64_decode("YW-j", 4, out), -1);  /* the URL-safe alphabet is another */
	assert_int_equal(wp_b64_decode("YW\nj", 4, out), -1);
}


/* ---- synthetic: our own CA, log and root (mksynthetic.py), for a GitHub publisher on a wheel and
 * a certificate that had expired when the log took the entry ---- */

#define SYN "synthetic/"
#define SYN_WHEEL "demo-1.0-py3-none-any.whl"

static void test_synthetic(void **state)
{
	struct wp_trust_root tr;
	struct wp_err err = WP_ERR_INIT;
	struct wp_prov_result res;
	size_t n, wn;
	char sha[WP_SHA256_HEX_LEN + 1];
	load_root(&tr, SYN "trusted_root.json");
	char *whl = need(SYN SYN_WHEEL, &wn);
	assert_int_equal(wp_sha256_hex_of(whl, wn, sha), 0);
	free(whl);

	char *t = need(SYN SYN_WHEEL ".provenance", &n);
	if (wp_provenance_verify(t, n, "p", SYN_WHEEL, sha, &tr, &res, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(res.n, 1);
	assert_string_equal(res.id[0].source_repo, "https://github.com/example/demo");
	assert_string_equal(res.id[0].publisher, "GitHub");
	struct wp_prov_policy p = { 0 };
	assert_int_equal(wp_prov_policy_add(&p, "demo=github:example/demo@release.yml", &err), 0);
	assert_int_equal(wp_prov_policy_add(&p, "demo2=github:example/demo@nightly.yml", &err), 0);
	assert_int_equal(wp_prov_policy_add(&p, "demo3=gitlab:example/demo", &err), 0);
	assert_int_equal(wp_prov_policy_add(&p, "demo4=github:example/other", &err), 0);
	assert_true(wp_prov_rule_matches(wp_prov_policy_find(&p, "demo"), &res.id[0]));
	assert_false(wp_prov_rule_matches(wp_prov_policy_find(&p, "demo2"), &res.id[0]));
	assert_false(wp_prov_rule_matches(wp_prov_policy_find(&p, "demo3"), &res.id[0]));
	assert_false(wp_prov_rule_matches(wp_prov_policy_find(&p, "demo4"), &res.id[0]));
	wp_prov_policy_release(&p);
	/* the production root knows neither this CA nor this log */
	struct wp_trust_root prod;
	load_root(&prod, "trusted_root.json");
	wp_err_clear(&err);
	assert_int_equal(wp_provenance_verify(t, n, "p", SYN_WHEEL, sha, &prod, &res, &err),
			 -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "does not chain to the trusted root"));
	wp_trust_root_release(&prod);
	free(t);

	/* every signature holds (the log's SET binds this later time), but the certificate had
	 * expired */
	t = need(SYN SYN_WHEEL ".provenance.expired", &n);
	wp_err_clear(&err);
	assert_int_equal(wp_provenance_verify(t, n, "p", SYN_WHEEL, sha, &tr, &res, &err),
			 -WPE_INTEGRITY);
	assert_non_null(
		strstr(err.msg,
		       "signing time 2026-01-01T01:00:00Z (the log's integratedTime) is outside the "
		       "certificate's validity (2026-01-01T00:00:00Z to 2026-01-01T00:10:00Z)"));
	free(t);
	wp_trust_root_release(&tr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_sdist_verifies),
		cmocka_unit_test(test_real_wheel_verifies),
		cmocka_unit_test(test_index_readers),
		cmocka_unit_test(test_synthetic),
		cmocka_unit_test(test_b64_strict),
		cmocka_unit_test_setup_teardown(test_tamper_statement, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tamper_signature, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tamper_certificate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tamper_inclusion_proof, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tamper_checkpoint, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tamper_log_entry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_signing_time_outside_validity, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_another_files_digest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_trusted_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_publisher_must_match, setup, teardown),
		cmocka_unit_test_setup_teardown(test_policy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_every_byte_tampered, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
