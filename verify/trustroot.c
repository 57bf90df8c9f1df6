/* verify/trustroot.c: Sigstore's trusted_root.json read into CA chains and log keys. */
#include "verify/trustroot.h"
#include "verify/hash.h"
#include "base/json.h"
#include "base/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "2021-03-07T03:20:29Z" or with fractional seconds ("...59.999Z", truncated) as Unix
 * seconds; UTC only. Days from the civil date by Howard Hinnant's algorithm: no timegm,
 * no TZ. */
int wp_prov_time_parse(const char *s, long long *out)
{
	int y, mo, d, h, mi, sec, used = 0;
	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &used) != 6 ||
	    used != 19)
		return -1;
	const char *t = s + used;
	if (*t == '.')
		for (t++; *t >= '0' && *t <= '9'; t++)
			;
	if (strcmp(t, "Z") != 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 ||
	    sec > 60)
		return -1;
	long long yy = y - (mo <= 2);
	long long era = (yy >= 0 ? yy : yy - 399) / 400;
	long long yoe = yy - era * 400;
	long long doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	long long days = era * 146097 + doe - 719468;
	*out = days * 86400 + h * 3600 + mi * 60 + sec;
	return 0;
}

/* A base64 field into a fresh allocation; NULL when absent or not canonical base64. */
static unsigned char *b64_dup(const char *s, size_t *len)
{
	if (!s || !*s)
		return NULL;
	size_t n = strlen(s);
	unsigned char *out = wp_xmalloc(n / 4 * 3 + 1);
	long got = wp_b64_decode(s, n, out);
	if (got <= 0) {
		free(out);
		return NULL;
	}
	*len = (size_t)got;
	return out;
}

/* validFor {start, end}: start required, end optional (0: open). */
static int valid_for(const struct wp_json_val *v, long long *start, long long *end)
{
	const char *s = wp_json_get_str(v, "start");
	const char *e = wp_json_get_str(v, "end");
	*end = 0;
	if (!s || wp_prov_time_parse(s, start) < 0)
		return -1;
	if (e && wp_prov_time_parse(e, end) < 0)
		return -1;
	return 0;
}

static int load_ca(struct wp_trust_ca *ca, const struct wp_json_val *v)
{
	const struct wp_json_val *certs = wp_json_get_arr(v, "certChain", "certificates");
	size_t n = wp_json_len(certs);
	if (!n || n > WP_TRUST_MAX_CHAIN)
		return -1;
	for (size_t i = 0; i < n; i++) {
		ca->der[i] = b64_dup(wp_json_get_str(wp_json_at(certs, i), "rawBytes"),
				     &ca->len[i]);
		if (!ca->der[i])
			return -1;
		ca->n = i + 1;
	}
	return valid_for(wp_json_get(v, "validFor"), &ca->start, &ca->end);
}

static int load_tlog(struct wp_trust_tlog *t, const struct wp_json_val *v)
{
	unsigned char *id = NULL;
	size_t idlen = 0;
	int rc = -1;
	t->spki = b64_dup(wp_json_get_str(v, "publicKey", "rawBytes"), &t->spki_len);
	id = b64_dup(wp_json_get_str(v, "logId", "keyId"), &idlen);
	if (!t->spki || !id || idlen != sizeof(t->id))
		goto out;
	memcpy(t->id, id, sizeof(t->id));
	rc = valid_for(wp_json_get(v, "publicKey", "validFor"), &t->start, &t->end);
out:
	free(id);
	return rc;
}

int wp_trust_root_load(struct wp_trust_root *tr, const char *text, size_t len, const char *what,
		       struct wp_err *err)
{
	memset(tr, 0, sizeof(*tr));
	struct wp_json_opts o = { .what = what,
				  .noun = "trusted root",
				  .kind = "a Sigstore trusted_root.json",
				  .code = -WPE_INTEGRITY,
				  .max_bytes = WP_TRUST_ROOT_MAX_BYTES };
	struct wp_json_val *root = NULL;
	int rc = wp_json_load(text, len, &o, &root, err);
	if (rc)
		return rc;
	const char *mt = wp_json_get_str(root, "mediaType");
	const struct wp_json_val *cas = wp_json_get_arr(root, "certificateAuthorities");
	const struct wp_json_val *tlogs = wp_json_get_arr(root, "tlogs");
	if (!mt || strncmp(mt, "application/vnd.dev.sigstore.trustedroot", 40) != 0) {
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "trusted root '%s' is not a Sigstore trusted_root.json (mediaType)",
			     what);
		goto out;
	}
	if (!wp_json_len(cas) || !wp_json_len(tlogs) || wp_json_len(cas) > WP_TRUST_MAX_CA ||
	    wp_json_len(tlogs) > WP_TRUST_MAX_TLOG) {
		rc = wp_fail(err, -WPE_INTEGRITY,
			     "trusted root '%s' names no certificate authority or no transparency log (or more than %d)",
			     what, WP_TRUST_MAX_CA);
		goto out;
	}
	for (size_t i = 0; i < wp_json_len(cas); i++, tr->nca++)
		if (load_ca(&tr->ca[i], wp_json_at(cas, i)) < 0) {
			tr->nca++;
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "trusted root '%s': certificate authority %zu has no readable certChain or validFor",
				     what, i);
			goto out;
		}
	for (size_t i = 0; i < wp_json_len(tlogs); i++, tr->ntlog++)
		if (load_tlog(&tr->tlog[i], wp_json_at(tlogs, i)) < 0) {
			tr->ntlog++;
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "trusted root '%s': transparency log %zu has no readable publicKey, logId or validFor",
				     what, i);
			goto out;
		}
out:
	wp_json_tree_free(root);
	if (rc)
		wp_trust_root_release(tr);
	return rc;
}

void wp_trust_root_release(struct wp_trust_root *tr)
{
	for (size_t i = 0; i < tr->nca && i < WP_TRUST_MAX_CA; i++)
		for (size_t k = 0; k < WP_TRUST_MAX_CHAIN; k++)
			free(tr->ca[i].der[k]);
	for (size_t i = 0; i < tr->ntlog && i < WP_TRUST_MAX_TLOG; i++)
		free(tr->tlog[i].spki);
	memset(tr, 0, sizeof(*tr));
}
