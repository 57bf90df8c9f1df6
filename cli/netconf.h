/* cli/netconf.h: the run's network settings, built once here from the environment (a value) and the
 * command line's TLS options, and handed down: net/'s struct wp_net_conf for every transfer, and
 * S3's struct wp_s3_conf. Nothing below cli/ reads a variable for them.
 * Ownership: struct wp_cli_net owns every string it points to (wp_cli_net_release). */
#ifndef WP_CLI_NETCONF_H
#define WP_CLI_NETCONF_H

#include "net/auth.h"
#include "net/s3.h"
#include "net/transfer.h"
#include "ops/core/indexconf.h"

struct wp_cli_net {
	struct wp_net_conf net;    /* indexes, pages, files */
	struct wp_net_conf s3net;  /* S3 requests: the same, with AWS_CA_BUNDLE in the CA order */
	struct wp_s3_conf s3;
	struct wp_net_creds creds; /* the run's credentials (net/auth.h): net.creds and s3net.creds
				      read them; the indexes' configuration and the jobs' sources
				      add to it */
	char bad[320];             /* a setting that is garbage: every transfer fails naming it */
	const char *env_ca;        /* WHEELPICK_CA_BUNDLE */
	const char *aws_ca;        /* AWS_CA_BUNDLE */
	bool cert_flag;            /* --cert given: it wins for S3 too */
	bool timeout_env; /* WHEELPICK_TIMEOUT set (even to garbage): pip's timeout does not apply
			   */
	char **owned;              /* copies of what a command's configuration gave */
	size_t n_owned;
	const char **trusted;
	size_t n_trusted;
};

/* The settings the environment gives (envp may be NULL): WHEELPICK_TIMEOUT,
 * WHEELPICK_RETRY_BASE_MS, the CA bundle (WHEELPICK_CA_BUNDLE, SSL_CERT_FILE, CURL_CA_BUNDLE,
 * REQUESTS_CA_BUNDLE), NETRC, and for S3 the AWS_* variables and WHEELPICK_S3_LIST_PAGE. advice:
 * how to give a private CA, in cli/'s words. Garbage is not refused here but by the first transfer
 * (bad), as net/ did. */
void wp_cli_net_init(struct wp_cli_net *n, const char *const *envp, const char *advice);
/* What pip's and uv's configuration and the command line add (icfg from wp_index_config_resolve):
 * the CA bundle (--cert, PIP_CERT, pip.conf's cert), the client certificate, trusted hosts, and
 * pip's or uv's timeout when WHEELPICK_TIMEOUT is unset. Copied. */
void wp_cli_net_apply(struct wp_cli_net *n, const struct wp_index_config *icfg);
void wp_cli_net_release(struct wp_cli_net *n);

#endif
