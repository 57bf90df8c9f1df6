/* cli/netconf.c: the run's network settings from the environment value and the command line. */
#include "cli/netconf.h"

#include "base/envp.h"
#include "base/mem.h"
#include "base/str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* $name as a whole number in [lo, hi] into *out; unset or empty: false and *out untouched. Garbage
 * is said once (in n->bad, when it is still empty), not a default silently taken: a user who set
 * WHEELPICK_TIMEOUT=5m meant something. */
static bool env_num(struct wp_cli_net *n, const char *const *envp, const char *name, long long lo,
		    long long hi, long long example, long long *out)
{
	const char *s = wp_envp_get(envp, name);
	long long v;
	if (!s || !*s)
		return false;
	if (!wp_str_to_ll(wp_str_trim(WP_STR(s)), &v) || v < lo || v > hi) {
		char shown[80];
		size_t k = 0;
		for (const char *p = s; *p && k < 64; p++)
			shown[k++] = (*p >= 0x20 && *p < 0x7f) ? *p : '?';
		shown[k] = 0;
		if (!n->bad[0])
			snprintf(n->bad, sizeof(n->bad),
				 "%s='%s%s' is not a whole number from %lld to %lld; unset it or give "
				 "e.g. %lld",
				 name, shown, strlen(s) > k ? "..." : "", lo, hi, example);
		return false;
	}
	*out = v;
	return true;
}

static const char *keep(struct wp_cli_net *n, const char *s)
{
	if (!s)
		return NULL;
	n->owned = wp_xrealloc(n->owned, (n->n_owned + 1) * sizeof(*n->owned));
	return n->owned[n->n_owned++] = wp_xstrdup(s);
}

/* S3's settings follow net's, with its own CA order: --cert, WHEELPICK_CA_BUNDLE, AWS_CA_BUNDLE
 * (the AWS tools' variable), then what the indexes use (pip's cert, SSL_CERT_FILE, ...). */
static void derive_s3(struct wp_cli_net *n)
{
	n->s3net = n->net;
	if (!n->cert_flag && n->env_ca) {
		n->s3net.ca_file = n->env_ca;
		n->s3net.ca_origin = "WHEELPICK_CA_BUNDLE";
	} else if (!n->cert_flag && n->aws_ca) {
		n->s3net.ca_file = n->aws_ca;
		n->s3net.ca_origin = "AWS_CA_BUNDLE";
	}
	n->s3.net = &n->s3net;
}

void wp_cli_net_init(struct wp_cli_net *n, const char *const *envp, const char *advice)
{
	static const char *const cas[] = { "SSL_CERT_FILE", "CURL_CA_BUNDLE",
					   "REQUESTS_CA_BUNDLE" };
	memset(n, 0, sizeof(*n));
	long long v;
	n->timeout_env = wp_envp_get(envp, "WHEELPICK_TIMEOUT") != NULL;
	if (env_num(n, envp, "WHEELPICK_TIMEOUT", 1, 86400, 30, &v))
		n->net.timeout_s = (long)v;
	if (env_num(n, envp, "WHEELPICK_RETRY_BASE_MS", 0, WP_NET_RETRY_CAP_MS, 200, &v)) {
		n->net.retry_base_ms = (long)v;
		n->net.retry_base_set = true;
	}
	n->net.bad = n->bad;
	n->net.creds = &n->creds;
	n->net.ca_advice = advice;
	n->net.netrc = wp_envp_get(envp, "NETRC");
	n->env_ca = wp_envp_get(envp, "WHEELPICK_CA_BUNDLE");
	n->aws_ca = wp_envp_get(envp, "AWS_CA_BUNDLE");
	if (n->env_ca) {
		n->net.ca_file = n->env_ca;
		n->net.ca_origin = "WHEELPICK_CA_BUNDLE"; /* ours is checked before libcurl's vague
							     words */
	}
	for (size_t i = 0; !n->net.ca_file && i < sizeof(cas) / sizeof(cas[0]); i++)
		n->net.ca_file = wp_envp_get(envp, cas[i]);
	n->s3 = (struct wp_s3_conf){
		.access_key_id = wp_envp_get(envp, "AWS_ACCESS_KEY_ID"),
		.secret_access_key = wp_envp_get(envp, "AWS_SECRET_ACCESS_KEY"),
		.session_token = wp_envp_get(envp, "AWS_SESSION_TOKEN"),
		.region = wp_envp_get(envp, "AWS_REGION"),
		.endpoint_url = wp_envp_get(envp, "AWS_ENDPOINT_URL_S3"),
		.list_page = wp_envp_get(envp, "WHEELPICK_S3_LIST_PAGE"),
	};
	if (!n->s3.region)
		n->s3.region = wp_envp_get(envp, "AWS_DEFAULT_REGION");
	if (!n->s3.endpoint_url)
		n->s3.endpoint_url = wp_envp_get(envp, "AWS_ENDPOINT_URL");
	derive_s3(n);
}

void wp_cli_net_apply(struct wp_cli_net *n, const struct wp_index_config *icfg)
{
	if (icfg->cert) {
		/* indexconf has already put WHEELPICK_CA_BUNDLE before pip's cert, and --cert
		 * before both */
		n->net.ca_file = keep(n, icfg->cert);
		n->net.ca_origin = keep(n,
					icfg->cert_origin ? icfg->cert_origin : "pip.conf's cert");
		n->cert_flag = icfg->cert_origin && !strcmp(icfg->cert_origin, "--cert");
	}
	if (icfg->client_cert)
		n->net.client_cert = keep(n, icfg->client_cert);
	if (icfg->trusted_host.n) {
		n->trusted = wp_xrealloc(n->trusted, (n->n_trusted + icfg->trusted_host.n) *
							     sizeof(*n->trusted));
		for (size_t i = 0; i < icfg->trusted_host.n; i++)
			n->trusted[n->n_trusted++] = keep(n, icfg->trusted_host.v[i]);
		n->net.trusted_hosts = n->trusted;
		n->net.n_trusted_hosts = n->n_trusted;
	}
	/* pip's timeout (or uv's) when wheelpick's own is not set */
	if (icfg->timeout_s > 0 && !n->timeout_env)
		n->net.timeout_s = icfg->timeout_s;
	derive_s3(n);
}

void wp_cli_net_release(struct wp_cli_net *n)
{
	for (size_t i = 0; i < n->n_owned; i++)
		free(n->owned[i]);
	free(n->owned);
	free(n->trusted);
	wp_net_creds_release(&n->creds);
	memset(n, 0, sizeof(*n));
}
