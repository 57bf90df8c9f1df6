/* env/detect_driver.c: the NVIDIA driver and GPUs for detection: the kernel module's version
 * files, the PCI bus, NVML and libcuda, nvidia-smi's answers, and the state the driver is in. */
#include "env/detect_internal.h"
#include "base/buf.h"
#include "base/mem.h"
#include "base/str.h"
#include "base/vec.h"
#include "env/detect_hw.h"
#include "env/detect_nvlib.h"
#include "env/run.h"
#include "resolver/gpu.h"
#include "base/os/os.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool driver_like(struct wp_str w)
{
	int v[3];
	return w.n < 32 && w.n && w.p[0] != '0' && wp_dx_parse_version(w, v, 3) >= 2;
}

static void set_driver(struct wp_dx_ctx *c, struct wp_str w, const char *source)
{
	wp_dx_copy_clean(c->d->driver_version, sizeof(c->d->driver_version), w);
	c->d->driver_source = source;
}

/* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 ..." or
 * "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  Release Build ...":
 * the first version-looking word after "Kernel Module". */
static bool parse_nvrm(struct wp_str text, struct wp_str *out)
{
	while (text.n) {
		struct wp_str line = wp_str_cut(&text, '\n');
		if (!wp_dx_find(line, "NVRM").n)
			continue;
		struct wp_str rest = wp_dx_find(line, "Kernel Module");
		if (!rest.n)
			rest = line;
		for (struct wp_str w = wp_dx_next_word(&rest); w.n; w = wp_dx_next_word(&rest)) {
			if (driver_like(w)) {
				*out = w;
				return true;
			}
		}
	}
	return false;
}

void wp_dx_detect_driver_files(struct wp_dx_ctx *c)
{
	struct wp_buf b = WP_BUF_INIT;
	char *p = wp_dx_root_path(c, "/proc/driver/nvidia/version");
	struct wp_str w;
	if (wp_env_read_small(p, WP_DX_SMALL_FILE_MAX, &b) == 0 &&
	    parse_nvrm(WP_STRN(wp_buf_cstr(&b), b.len), &w)) {
		set_driver(c, w, "proc");
		goto out;
	}
	free(p);
	p = wp_dx_root_path(c, "/sys/module/nvidia/version");
	if (wp_env_read_small(p, WP_DX_SMALL_FILE_MAX, &b) == 0) {
		w = wp_str_trim(WP_STRN(wp_buf_cstr(&b), b.len));
		if (driver_like(w))
			set_driver(c, w, "sysfs");
	}
out:
	free(p);
	wp_buf_free(&b);
}

static bool dir_has_entries(const char *path)
{
	struct wp_os_dir *dir = wp_os_opendir(path);
	if (!dir)
		return false;
	bool found = false;
	const struct wp_os_dirent *e;
	while (!found && (e = wp_os_readdir(dir)))
		found = strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	wp_os_closedir(dir);
	return found;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* An NVIDIA display or 3D controller on the PCI bus (vendor 0x10de, class 0x03xxxx) is there
 * whether or not a driver is loaded: what the "no driver" warning needs to know, and the last rung
 * for the GPUs themselves (their device ids, in bus order). */
static bool nvidia_on_pci(struct wp_dx_ctx *c)
{
	char *path = wp_dx_root_path(c, "/sys/bus/pci/devices");
	struct wp_os_dir *dir = wp_os_opendir(path);
	struct wp_buf b = WP_BUF_INIT;
	const struct wp_os_dirent *e;
	struct wp_dx_strs names = { 0 };
	while (dir && (e = wp_os_readdir(dir)) && names.n < 4096)
		if (e->d_name[0] != '.')
			wp_vec_push(&names, wp_xstrdup(e->d_name));
	if (names.n)
		qsort(names.v, names.n, sizeof(*names.v), cmp_str);
	for (size_t i = 0; i < names.n && c->n_pci < WP_DETECT_MAX_GPUS; i++) {
		char *f = wp_xasprintf("%s/%s/vendor", path, names.v[i]);
		bool nv = wp_env_read_small(f, 64, &b) == 0 &&
			  wp_str_eq(wp_str_trim(WP_STRN(wp_buf_cstr(&b), b.len)), "0x10de");
		free(f);
		if (!nv)
			continue;
		f = wp_xasprintf("%s/%s/class", path, names.v[i]);
		bool gpu = wp_env_read_small(f, 64, &b) == 0 &&
			   wp_str_startswith(WP_STR(wp_buf_cstr(&b)), "0x03");
		free(f);
		if (!gpu)
			continue;
		f = wp_xasprintf("%s/%s/device", path, names.v[i]);
		unsigned id = 0;
		if (wp_env_read_small(f, 64, &b) == 0) {
			char *end = NULL;
			unsigned long v = strtoul(wp_buf_cstr(&b), &end, 16);
			id = end != wp_buf_cstr(&b) && v <= 0xffff ? (unsigned)v : 0;
		}
		free(f);
		c->pci_ids[c->n_pci++] = id;
	}
	for (size_t i = 0; i < names.n; i++)
		free(names.v[i]);
	wp_vec_free(&names);
	if (dir)
		wp_os_closedir(dir);
	wp_buf_free(&b);
	free(path);
	return c->n_pci > 0;
}

void wp_dx_detect_gpu_hardware(struct wp_dx_ctx *c)
{
	char *gpus = wp_dx_root_path(c, "/proc/driver/nvidia/gpus");
	char *dev = wp_dx_root_path(c, "/dev/nvidia0");
	struct wp_os_stat st;
	bool pci = nvidia_on_pci(c);
	c->d->gpu_hardware = dir_has_entries(gpus) || wp_os_stat(dev, &st) == 0 || pci;
	free(gpus);
	free(dev);
}

static void add_gpu(struct wp_dx_ctx *c, struct wp_str name, int cc_major, int cc_minor)
{
	struct wp_detect *d = c->d;
	if (d->n_gpus >= WP_DETECT_MAX_GPUS)
		return;
	struct wp_detect_gpu *g = &d->gpus[d->n_gpus++];
	wp_dx_copy_clean(g->name, sizeof(g->name), name);
	g->cc_major = cc_major;
	g->cc_minor = cc_minor;
}

/* NVML, the driver's own answer without starting a program: asked first. Not under a sysroot
 * unless a library folder is given: the library the loader finds would be the host's. */
void wp_dx_probe_nvml(struct wp_dx_ctx *c)
{
	struct wp_detect *d = c->d;
	if (!c->dlopen_ok)
		return;
	wp_dx_nvlib_ask(c, true, &c->nvml);
	if (!c->nvml.loaded || c->nvml.init_rc != 0)
		return;
	if (!d->driver_version[0] && driver_like(WP_STR(c->nvml.driver)))
		set_driver(c, WP_STR(c->nvml.driver), "nvml");
	if (c->nvml.cuda) {
		d->cuda_major = c->nvml.cuda / 1000;
		d->cuda_minor = c->nvml.cuda % 1000 / 10;
		d->cuda_source = WP_CUDA_SRC_NVML;
	}
	for (int i = 0; i < c->nvml.n_gpus; i++)
		add_gpu(c, WP_STR(c->nvml.gpus[i].name), c->nvml.gpus[i].cc_major,
			c->nvml.gpus[i].cc_minor);
	if (d->n_gpus)
		d->gpu_source = "nvml";
}

/* libcuda after nvidia-smi, for what is still missing. Its cuDriverGetVersion answers from the
 * user-space library alone, even with no kernel module loaded: the figure counts only once cuInit
 * worked (else it is kept for the advice: wp_detect's userspace_cuda_*). */
void wp_dx_probe_libcuda(struct wp_dx_ctx *c)
{
	struct wp_detect *d = c->d;
	/* nothing left to ask (cuInit can take a second on a real GPU) */
	bool answered = (c->nvml.loaded && c->nvml.init_rc == 0) || c->smi_answered;
	if (!c->dlopen_ok || (answered && d->cuda_major && d->n_gpus))
		return;
	wp_dx_nvlib_ask(c, false, &c->cuda);
	if (!c->cuda.loaded || c->cuda.init_rc != 0)
		return;
	if (c->cuda.cuda && !d->cuda_major) {
		d->cuda_major = c->cuda.cuda / 1000;
		d->cuda_minor = c->cuda.cuda % 1000 / 10;
		d->cuda_source = WP_CUDA_SRC_LIBCUDA;
	}
	if (!d->n_gpus) {
		for (int i = 0; i < c->cuda.n_gpus; i++)
			add_gpu(c, WP_STR(c->cuda.gpus[i].name), c->cuda.gpus[i].cc_major,
				c->cuda.gpus[i].cc_minor);
		if (d->n_gpus)
			d->gpu_source = "libcuda";
	}
}

/* The last rung: the GPUs on the PCI bus, named from NVIDIA's list of PCI device ids. */
static void gpus_from_pci(struct wp_dx_ctx *c)
{
	for (int i = 0; i < c->n_pci; i++) {
		int sm = 0;
		if (!c->pci_ids[i]) /* no device id to tell it by */
			continue;
		const char *name = wp_gpu_from_pci_id(c->pci_ids[i], &sm);
		char unknown[64];
		snprintf(unknown, sizeof(unknown), "NVIDIA GPU (PCI device 0x%04x)", c->pci_ids[i]);
		add_gpu(c, WP_STR(name ? name : unknown), name ? sm / 10 : -1, name ? sm % 10 : -1);
	}
	if (c->d->n_gpus)
		c->d->gpu_source = "pci";
}

static bool same(struct wp_str a, struct wp_str b)
{
	return a.n == b.n && !memcmp(a.p, b.p, a.n);
}

/* The word that ends just before p in s (after blanks), or an empty view. */
static struct wp_str word_before(struct wp_str s, const char *p)
{
	const char *e = p;
	while (e > s.p && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	const char *b = e;
	while (b > s.p && !wp_dx_is_space(b[-1]) && b[-1] != '|')
		b--;
	return WP_STRN(b, (size_t)(e - b));
}

/* The value after "<first> [second] Version:" anywhere in out, whatever the spacing (a blank
 * before the colon too): "CUDA Version: 12.4", and from driver 610 "CUDA UMD Version: 13.3"
 * (second "UMD"); "Driver Version: 550.54.15" or, from 610, "KMD Version: 610.57.04". */
static struct wp_str smi_field(struct wp_str out, const char *const *words, size_t nwords)
{
	for (struct wp_str s = wp_dx_find(out, "Version"); s.n;
	     s = wp_dx_find(WP_STRN(s.p + 7, s.n - 7), "Version")) {
		struct wp_str w = word_before(out, s.p);
		bool ok = false;
		for (size_t i = 0; i < nwords && !ok; i++) {
			struct wp_str want = WP_STR(words[i]);
			struct wp_str first = wp_str_cut(&want, ' ');
			if (want.n) /* two words: "CUDA UMD" */
				ok = same(w, want) && same(word_before(out, w.p), first);
			else
				ok = same(w, first);
		}
		struct wp_str rest = WP_STRN(s.p + 7, s.n - 7);
		while (rest.n && (*rest.p == ' ' || *rest.p == '\t')) {
			rest.p++;
			rest.n--;
		}
		if (ok && rest.n && *rest.p == ':')
			return wp_dx_version_prefix(WP_STRN(rest.p + 1, rest.n - 1));
	}
	return WP_STRN(out.p + out.n, 0);
}

/* "| NVIDIA-SMI 550.54.15   Driver Version: 550.54.15   CUDA Version: 12.4     |", from driver 610
 * "| NVIDIA-SMI 610.57.04   KMD Version: 610.57.04   CUDA UMD Version: 13.3     |" */
static void parse_smi_banner(struct wp_dx_ctx *c, const struct wp_run *j)
{
	static const char *const cuda_words[] = { "CUDA", "CUDA UMD" };
	static const char *const driver_words[] = { "Driver", "KMD" };
	struct wp_str out = WP_STRN(wp_buf_cstr(&j->out), j->out.len);
	struct wp_str s = smi_field(out, cuda_words, WP_ARRAY_LEN(cuda_words));
	int v[2];
	if (s.n && !c->d->cuda_major && wp_dx_parse_version(s, v, 2) == 2 && v[0] > 0 &&
	    v[0] < 100 && v[1] < 100) {
		c->d->cuda_major = v[0];
		c->d->cuda_minor = v[1];
		c->d->cuda_source = WP_CUDA_SRC_NVIDIA_SMI;
	}
	s = smi_field(out, driver_words, WP_ARRAY_LEN(driver_words));
	if (s.n && driver_like(s)) {
		c->smi_answered = true;
		if (!c->d->driver_version[0])
			set_driver(c, s, "nvidia-smi");
	}
}

/* "NVIDIA A100-SXM4-80GB, 8.0, 535.104.05" per GPU (with_cc), or "Tesla K80, 470.82.01".
 * Fields are cut from the right, so a comma in a name cannot shift them. */
static void parse_smi_query(struct wp_dx_ctx *c, const struct wp_run *j, bool with_cc)
{
	struct wp_str s = WP_STRN(wp_buf_cstr(&j->out), j->out.len);
	while (s.n) {
		struct wp_str drv = wp_str_trim(wp_str_cut(&s, '\n'));
		struct wp_str name = wp_str_rcut(&drv, ',');
		struct wp_str cc = WP_STRN("", 0);
		if (with_cc) {
			cc = name;
			name = wp_str_rcut(&cc, ',');
		}
		drv = wp_str_trim(drv);
		cc = wp_str_trim(cc);
		name = wp_str_trim(name);
		if (!name.n || !driver_like(drv))
			continue;
		int v[2] = { -1, -1 };
		if (!with_cc || wp_dx_parse_version(cc, v, 2) != 2)
			v[0] = v[1] = -1;
		add_gpu(c, name, v[0], v[1]);
		c->d->gpu_source = "nvidia-smi";
		c->smi_answered = true;
		if (!c->d->driver_version[0])
			set_driver(c, drv, "nvidia-smi");
	}
}

/* Which state the driver is in, from what answered: a kernel module's version file or a library or
 * program that reached the driver means loaded. User-space pieces with none of that (a container
 * or image with the driver's libraries but no module, or no GPU passed in) run nothing: no CUDA
 * figure is kept, and what each said becomes the message. GPUs nothing else listed come from the
 * PCI bus, and with no driver at all that is the machine a driver is still to be installed on. */
void wp_dx_decide_driver_state(struct wp_dx_ctx *c)
{
	struct wp_detect *d = c->d;
	bool loaded = (d->driver_source &&
		       (!strcmp(d->driver_source, "proc") || !strcmp(d->driver_source, "sysfs"))) ||
		      (c->nvml.loaded && c->nvml.init_rc == 0) || c->smi_answered ||
		      (c->cuda.loaded && c->cuda.init_rc == 0);
	bool userspace = c->nvml.loaded || c->cuda.loaded || c->smi_found;
	if (!d->n_gpus)
		gpus_from_pci(c);
	if (loaded) {
		d->driver_state = WP_DRIVER_LOADED;
		return;
	}
	if (!userspace) {
		d->driver_state = c->n_pci ? WP_DRIVER_NONE_YET : WP_DRIVER_NONE;
		return;
	}
	d->driver_state = WP_DRIVER_NOT_LOADED;
	d->cuda_major = d->cuda_minor = 0;
	d->cuda_source = WP_CUDA_SRC_NONE;
	if (c->cuda.cuda) {
		d->userspace_cuda_major = c->cuda.cuda / 1000;
		d->userspace_cuda_minor = c->cuda.cuda % 1000 / 10;
	}
	struct wp_buf b = WP_BUF_INIT;
	const char *name;
	if (c->nvml.loaded) {
		name = wp_nvml_error_name(c->nvml.init_rc);
		if (name)
			wp_buf_printf(&b, "nvmlInit_v2 gave %s", name);
		else
			wp_buf_printf(&b, "nvmlInit_v2 gave error %d", c->nvml.init_rc);
	}
	if (c->cuda.loaded) {
		name = wp_cu_error_name(c->cuda.init_rc);
		wp_buf_printf(&b, "%scuInit gave ", b.len ? "; " : "");
		if (name)
			wp_buf_printf(&b, "%s", name);
		else
			wp_buf_printf(&b, "error %d", c->cuda.init_rc);
	}
	if (c->smi_found && c->smi_status)
		wp_buf_printf(&b, "%snvidia-smi exited with status %d%s%s", b.len ? "; " : "",
			      c->smi_status, c->smi_line[0] ? ": " : "", c->smi_line);
	snprintf(d->driver_failure, sizeof(d->driver_failure), "%s", wp_buf_cstr(&b));
	wp_buf_free(&b);
}

void wp_dx_derive_cuda_from_driver(struct wp_dx_ctx *c)
{
	struct wp_detect *d = c->d;
	if (d->cuda_major || !d->driver_version[0])
		return;
	int major, minor;
	struct wp_driver drv;
	struct wp_err e = WP_ERR_INIT;
	/* Windows drivers have their own numbers in NVIDIA's table (CUDA 11.2: 460.82, not
	 * 460.27.03) */
	if (wp_driver_parse(d->driver_version, &drv, &e) == 0 &&
	    wp_driver_newest_cuda(&drv, c->windows, &major, &minor) == 0) {
		d->cuda_major = major;
		d->cuda_minor = minor;
		d->cuda_source = WP_CUDA_SRC_DRIVER_TABLE;
	}
}

void wp_dx_plan_smi(struct wp_dx_ctx *c, struct wp_dx_plan *pl, const char *smi)
{
	struct wp_detect *d = c->d;
	if (!smi)
		return;
	if (!d->cuda_major && wp_dx_job_add(pl->jobs, &pl->nj, wp_xstrdup(smi), true))
		pl->smi_banner = (int)pl->nj - 1;
	if ((!d->n_gpus || !d->driver_version[0]) &&
	    wp_dx_job_add(pl->jobs, &pl->nj, wp_xstrdup(smi), true)) {
		pl->smi_query = (int)pl->nj - 1;
		pl->jobs[pl->nj - 1].argv[1] = "--query-gpu=name,compute_cap,driver_version";
		pl->jobs[pl->nj - 1].argv[2] = "--format=csv,noheader";
	}
}

/* nvidia-smi's status and first line, for the message when the driver is not loaded */
static void smi_failure(struct wp_dx_ctx *c, const struct wp_run *j)
{
	struct wp_str s = WP_STRN(j->out.data ? j->out.data : "", j->out.len);
	struct wp_str line = WP_STRN("", 0);
	while (s.n && !line.n)
		line = wp_str_trim(wp_str_cut(&s, '\n'));
	c->smi_status = j->status;
	wp_dx_copy_clean(c->smi_line, sizeof(c->smi_line), line);
}

/* true when the driver is too old to know compute_cap: it refuses the whole query, and the
 * query has to be asked again without it */
bool wp_dx_collect_smi(struct wp_dx_ctx *c, const struct wp_dx_plan *pl)
{
	const struct wp_run *banner = pl->smi_banner >= 0 ? &pl->jobs[pl->smi_banner] : NULL;
	const struct wp_run *query = pl->smi_query >= 0 ? &pl->jobs[pl->smi_query] : NULL;
	if (banner) {
		parse_smi_banner(c, banner);
		if (banner->status != 0) {
			wp_dx_job_note(c, banner);
			smi_failure(c, banner);
		}
	}
	if (!query)
		return false;
	bool old = query->status > 0 &&
		   wp_dx_find(WP_STRN(wp_buf_cstr(&query->out), query->out.len), "compute_cap").n;
	if (old)
		return true;
	parse_smi_query(c, query, true);
	/* one note is enough when both failed the same way */
	if (query->status != 0 && (!banner || banner->status == 0)) {
		wp_dx_job_note(c, query);
		if (!c->smi_line[0])
			smi_failure(c, query);
	}
	return false;
}

void wp_dx_smi_old_query(struct wp_dx_ctx *c, const char *smi)
{
	struct wp_run jobs[1];
	size_t nj = 0;
	struct wp_run *j = wp_dx_job_add(jobs, &nj, wp_xstrdup(smi), true);
	j->argv[1] = "--query-gpu=name,driver_version";
	j->argv[2] = "--format=csv,noheader";
	wp_dx_run_jobs(jobs, nj, c->timeout_ms, c->output_max, c->envp);
	parse_smi_query(c, j, false);
	if (j->status != 0)
		wp_dx_job_note(c, j);
	wp_dx_job_release(j);
}
