/* cli/cmd_detect.c: `wheelpick detect`: this machine as a target, with warnings for known traps. */
#include "base/buf.h"
#include "cli/cli.h"
#include "env/detect.h"
#include "env/profile.h"
#include "ops/core/sources.h"
#include "ops/core/targets.h"
#include "resolver/pick.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

struct detect_opts {
	bool json;
};

const struct wp_opt wp_detect_table[] = {
	{ "json", 0, NULL, WP_OPT_FLAG, offsetof(struct detect_opts, json), NULL,
	  "machine-readable; save it and give it back with --target FILE" },
	WP_OPT_END,
};

int wp_cmd_detect(struct wp_cli *cli, int argc, char **argv, struct wp_err *err)
{
	struct detect_opts o = { 0 };
	struct wp_strlist pos = { 0 };
	struct wp_detect d;
	struct wp_detect_opts dopts = { .asks = &wp_cli_asks,
					.lib_dir = cli->session.nvidia_lib_dir,
					.envp = cli->session.envp };
	struct wp_target t;
	struct wp_buf b = WP_BUF_INIT;
	bool ran = false;
	int rc;
	if ((rc = wp_opts_parse(wp_detect_table, &o, argc, argv, &pos, err)))
		goto out;
	if (pos.n) {
		rc = wp_fail(err, -WPE_USAGE,
			     "unexpected argument '%s'; see 'wheelpick detect --help'", pos.v[0]);
		goto out;
	}
	ran = true;
	if ((rc = wp_detect_run(&d, &dopts, err)))
		goto out;
	if (o.json) {
		if ((rc = wp_detect_format_json(&d, &b))) {
			rc = wp_fail(err, rc, "cannot write the detection as JSON");
			goto out;
		}
		fwrite(b.data, 1, b.len, stdout);
		if (!b.len || b.data[b.len - 1] != '\n')
			putchar('\n');
		goto out;
	}
	wp_detect_to_target(&d, &t);
	if (d.driver_version[0])
		printf("driver:    NVIDIA %s (%s)\n", d.driver_version,
		       d.driver_source ? d.driver_source : "?");
	else if (d.driver_state == WP_DRIVER_NOT_LOADED)
		printf("driver:    installed, %s (%s)\n",
		       !strcmp(d.os, "Windows") ? "not answering" : "kernel module not loaded",
		       d.driver_failure[0] ? d.driver_failure : "?");
	else if (d.driver_state == WP_DRIVER_NONE_YET)
		printf("driver:    none yet (GPUs from the PCI bus)\n");
	else
		printf("driver:    none found\n");
	if (d.cuda_major)
		printf("cuda:      %d.%d is the newest the driver runs (from %s)\n", d.cuda_major,
		       d.cuda_minor, wp_cuda_source_name(d.cuda_source));
	for (int i = 0; i < d.n_gpus; i++) {
		if (d.gpus[i].cc_major >= 0 && d.gpu_source && !strcmp(d.gpu_source, "pci"))
			printf("gpu %d:     %s, sm_%d%d (from its PCI id)\n", i, d.gpus[i].name,
			       d.gpus[i].cc_major, d.gpus[i].cc_minor);
		else if (d.gpus[i].cc_major >= 0)
			printf("gpu %d:     %s, sm_%d%d\n", i, d.gpus[i].name, d.gpus[i].cc_major,
			       d.gpus[i].cc_minor);
		else
			printf("gpu %d:     %s, compute capability unknown\n", i, d.gpus[i].name);
	}
	for (size_t i = 0; i < d.n_toolkits; i++) {
		const struct wp_detect_toolkit *k = &d.toolkits[i];
		printf("toolkit:   CUDA %d.%d", k->major, k->minor);
		if (k->patch >= 0)
			printf(".%d", k->patch);
		printf(" (%s%s%s)\n", k->source, k->path && *k->path ? ", " : "",
		       k->path ? k->path : "");
	}
	for (size_t i = 0; i < d.n_pythons; i++) {
		const struct wp_detect_python *p = &d.pythons[i];
		printf("python:    %d.%d.%d%s %s (%s)%s\n", p->major, p->minor, p->micro,
		       wp_detect_python_free_threaded(p) ? "t (free-threaded)" : "", p->impl,
		       p->path, (int)i == d.default_python ? " default" : "");
	}
	if (d.glibc_major)
		printf("libc:      glibc %d.%d\n", d.glibc_major, d.glibc_minor);
	else if (d.musl_major)
		printf("libc:      musl %d.%d\n", d.musl_major, d.musl_minor);
	printf("system:    %s %s %s\n", d.os, d.os_release, d.machine);
	/* what PEP 825 variant wheels are matched against (the JSON has the same fields) */
	if (d.x86_64_level > 0)
		printf("cpu:       x86-64-v%d\n", d.x86_64_level);
	if (d.rocm_version[0])
		printf("rocm:      %s (/opt/rocm)\n", d.rocm_version);
	for (int i = 0; i < d.n_gfx; i++)
		printf("amd gpu %d: %s\n", i, d.gfx[i]);
	wp_target_describe(&t, &b);
	printf("target:    %s\n", b.data);
	for (size_t i = 0; i < d.n_warnings; i++)
		printf("warning:   %s\n", d.warnings[i]);
out:
	if (ran)
		wp_detect_release(&d);
	wp_buf_free(&b);
	wp_strlist_release(&pos);
	return rc;
}
