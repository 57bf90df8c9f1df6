/* cli/cmd_tags.c: `wheelpick tags`: the wheel tags a target accepts, best first (like pip debug
 * -v). */
#include "base/json.h"
#include "cli/cli.h"
#include "cli/pick_opts.h"
#include "cli/print.h"
#include "ops/core/sources.h"
#include "ops/core/targets.h"
#include "resolver/pick.h"
#include "resolver/tags.h"

#include <stddef.h>
#include <stdio.h>

struct tags_opts {
	const char *python, *platform, *target;
	bool json;
};

const struct wp_opt wp_tags_table[] = {
	{ "python", 0, "python-version", WP_OPT_STR, offsetof(struct tags_opts, python), "X.Y|auto",
	  "target Python" },
	{ "platform", 0, NULL, WP_OPT_STR, offsetof(struct tags_opts, platform), "TAG|auto",
	  "the target's most specific platform tag" },
	{ "target", 0, NULL, WP_OPT_STR, offsetof(struct tags_opts, target), "FILE",
	  "a saved 'detect --json' profile" },
	{ "json", 0, NULL, WP_OPT_FLAG, offsetof(struct tags_opts, json), NULL,
	  "the target and its tags, best first, as JSON on stdout" },
	WP_OPT_END,
};

int wp_cmd_tags(struct wp_cli *cli, int argc, char **argv, struct wp_err *err)
{
	struct tags_opts o = { 0 };
	struct wp_strlist pos = { 0 };
	struct wp_target t;
	struct wp_tagset ts = WP_TAGSET_INIT;
	int rc;
	if ((rc = wp_opts_parse(wp_tags_table, &o, argc, argv, &pos, err)))
		goto out;
	if (pos.n) {
		rc = wp_fail(err, -WPE_USAGE,
			     "unexpected argument '%s'; see 'wheelpick tags --help'", pos.v[0]);
		goto out;
	}
	if (o.platform) {
		struct wp_strlist one = { 0 };
		wp_strlist_push(&one, o.platform);
		rc = wp_pick_opts_check_platforms(&one, false, err);
		wp_strlist_release(&one);
		if (rc)
			goto out;
	}
	struct wp_target_words w = {
		.python = o.python, .platform = o.platform, .cuda = "cpu", .target_file = o.target
	};
	if ((rc = wp_target_from_words(&cli->session, &w, &t, err)))
		goto out;
	if ((rc = wp_tagset_build(&ts, &t, err)))
		goto out;
	if (o.json) {
		struct wp_json j;
		struct wp_buf d = WP_BUF_INIT;
		wp_target_describe(&t, &d);
		wp_json_init(&j);
		wp_json_obj(&j);
		wp_json_kstr(&j, "target", d.data);
		wp_json_key(&j, "tags");
		wp_json_arr(&j);
		for (size_t i = 0; i < ts.n; i++)
			wp_json_str(&j, ts.tags[i]);
		wp_json_arr_end(&j);
		wp_json_obj_end(&j);
		wp_print_json_out(&j);
		wp_buf_free(&d);
	} else {
		for (size_t i = 0; i < ts.n; i++)
			printf("%s\n", ts.tags[i]);
	}
out:
	wp_tagset_release(&ts);
	wp_strlist_release(&pos);
	return rc;
}
