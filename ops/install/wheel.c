/* ops/install/wheel.c: one wheel into an environment, as the wheel spec and pip lay it out:
 * Root-Is-Purelib, the .data/ schemes, "#!python" rewritten, executable bits, console and GUI
 * launchers (pip's form on POSIX), and a RECORD of every file with INSTALLER and REQUESTED. */
#include "base/fs.h"
#include "base/mem.h"
#include "base/str.h"
#include "ops/install/internal.h"
#include "ops/install/launchers.h"
#include "resolver/wheelname.h"
#include "verify/fatbin.h"
#include "verify/zipwrite.h"
#include "base/os/os.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCRIPT_MAX ((size_t)256 << 20) /* a .data/scripts file read whole to fix its shebang */

char *wp_inst_normalize(const char *name)
{
	struct wp_buf b = WP_BUF_INIT;
	wp_project_name_normalize(name, strlen(name), &b);
	return wp_buf_detach(&b, NULL);
}

bool wp_inst_reserved_name(const char *rel, size_t len)
{
	struct wp_str s = WP_STRN(rel, len);
	while (s.n) {
		struct wp_str seg = wp_str_cut(&s, '/');
		if (seg.n >= 11 && !strncmp(seg.p, ".wheelpick-", 11))
			return true; /* the journals, their temps, the targets file */
		if (seg.n > 7 && !strncmp(seg.p, ".wp-", 4) &&
		    !strncmp(seg.p + seg.n - 4, ".tmp", 4))
			return true; /* a staging temp */
		for (size_t i = 1; i + 8 <= seg.n && seg.p[0] == '~'; i++)
			if (!memcmp(seg.p + i, ".wp-old-", 8))
				return true; /* a file in use moved aside (journal.c) */
	}
	return false;
}

/* os.path.relpath(to, from) for absolute, normalised paths. */
static char *relpath(const char *to, const char *from)
{
	size_t common = 0, i = 0;
	for (;; i++) {
		char a = to[i], b = from[i];
		if ((a == '/' || !a) && (b == '/' || !b))
			common = i;
		if (a != b || !a || !b)
			break;
	}
	struct wp_buf out = WP_BUF_INIT;
	for (const char *p = from + common; *p; p++)
		if (*p == '/' && p[1])
			wp_buf_addstr(&out, out.len ? "/.." : "..");
	const char *rest = to + common;
	if (*rest == '/')
		rest++;
	if (*rest) {
		if (out.len)
			wp_buf_addch(&out, '/');
		wp_buf_addstr(&out, rest);
	}
	if (!out.len)
		wp_buf_addch(&out, '.');
	return wp_buf_detach(&out, NULL);
}

static struct wp_iwheel_file *add_file(struct wp_iwheel *w, const char *dest, const char *lib,
				       unsigned long seq)
{
	struct wp_iwheel_file *f = wp_vec_add(&w->files);
	f->member = (size_t)-1;
	f->dest = wp_xstrdup(dest);
	const char *slash = strrchr(dest, '/');
	f->tmp = wp_xasprintf("%.*s/.wp-%ld-%lu-%zu.tmp", (int)(slash - dest), dest, wp_os_getpid(),
			      seq, w->files.n);
	f->record_path = relpath(dest, lib);
	f->content = (struct wp_buf)WP_BUF_INIT;
	return f;
}

/* Python's shlex.quote, which pypa/installer applies to the interpreter of the /bin/sh form:
 * a word of [A-Za-z0-9_@%+=:,./-] as it is, anything else in single quotes ('"'"' for a quote),
 * so a path with a space, '$' or '"' reaches exec as one word. */
static void sh_quote(const char *s, struct wp_buf *b)
{
	bool plain = *s != 0;
	for (const char *p = s; *p && plain; p++)
		plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			(*p >= '0' && *p <= '9') || strchr("_@%+=:,./-", *p);
	if (plain) {
		wp_buf_addstr(b, s);
		return;
	}
	wp_buf_addstr(b, "'");
	for (const char *p = s; *p; p++) {
		if (*p == '\'')
			wp_buf_addstr(b, "'\"'\"'");
		else
			wp_buf_add(b, p, 1);
	}
	wp_buf_addstr(b, "'");
}

/* pypa/installer's _build_shebang (distlib's rule): "#!EXE" when EXE has no space and the line
 * fits the kernel's 127 bytes, else a /bin/sh line that execs the quoted EXE and that Python
 * reads as a string, so the script runs from any path. */
static void shebang(const char *exe, struct wp_buf *b)
{
	if (!strchr(exe, ' ') && strlen(exe) + 3 <= 127) {
		wp_buf_printf(b, "#!%s\n", exe);
		return;
	}
	wp_buf_addstr(b, "#!/bin/sh\n'''exec' ");
	sh_quote(exe, b);
	wp_buf_addstr(b, " \"$0\" \"$@\"\n' '''\n");
}

/* The script an entry point runs (distlib's SCRIPT_TEMPLATE, as pip and pypa/installer write
 * it). */
static void script_body(const char *module, const char *attr, struct wp_buf *b)
{
	size_t il = strcspn(attr, ".");
	wp_buf_printf(b,
		      "# -*- coding: utf-8 -*-\n"
		      "import re\n"
		      "import sys\n"
		      "from %s import %.*s\n"
		      "if __name__ == '__main__':\n"
		      "    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\n"
		      "    sys.exit(%s())\n",
		      module, (int)il, attr, attr);
}

/* A console or GUI launcher as pypa/installer's Script.generate writes it for posix: the
 * shebang, then the import. */
static void launcher(const char *exe, const char *module, const char *attr, struct wp_buf *b)
{
	shebang(exe, b);
	script_body(module, attr, b);
}

/* The same for a Windows environment, as pip (distlib's ScriptMaker) writes NAME.exe: the
 * launcher for the subsystem (console or windows), "#!EXE" (in double quotes when it has a space,
 * distlib's enquote_executable) and a zip holding __main__.py, the script. The launcher runs EXE
 * with the .exe itself as the script, and Python runs the zip's __main__.py. */
static void launcher_exe(const char *exe, const char *module, const char *attr, bool gui,
			 struct wp_buf *b)
{
	if (gui)
		wp_buf_add(b, wp_launcher_gui, wp_launcher_gui_len);
	else
		wp_buf_add(b, wp_launcher_console, wp_launcher_console_len);
	bool quote = strchr(exe, ' ') && exe[0] != '"';
	wp_buf_printf(b, quote ? "#!\"%s\"\n" : "#!%s\n", exe);
	struct wp_buf body = WP_BUF_INIT;
	script_body(module, attr, &body);
	wp_zip_one_stored("__main__.py", body.data, body.len, b);
	wp_buf_free(&body);
}

static bool ident_ok(struct wp_str s, bool dots)
{
	if (!s.n)
		return false;
	for (size_t i = 0; i < s.n; i++) {
		char c = s.p[i];
		if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || (dots && c == '.') || (unsigned char)c >= 0x80))
			return false;
	}
	return s.p[0] != '.' && s.p[s.n - 1] != '.';
}

/* "pip3", "pip3.11" (digits, at most one dot after "pip"): a versioned name pip replaces. */
static bool versioned(const char *name, const char *base, char sep)
{
	size_t bl = strlen(base);
	if (strncmp(name, base, bl))
		return false;
	const char *p = name + bl;
	if (!*p)
		return true;
	if (sep == '-') {
		/* easy_install-X.Y */
		if (*p++ != '-' || !(*p >= '0' && *p <= '9'))
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
		if (*p++ != '.' || !(*p >= '0' && *p <= '9'))
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
		return !*p;
	}
	if (!(*p >= '0' && *p <= '9'))
		return false;
	while (*p >= '0' && *p <= '9')
		p++;
	if (!*p)
		return true;
	if (*p++ != '.' || !(*p >= '0' && *p <= '9'))
		return false;
	while (*p >= '0' && *p <= '9')
		p++;
	return !*p;
}

struct ep {
	char *name, *module, *attr;
};

WP_VEC_OF(eps, struct ep);

static void ep_add(struct eps *v, const char *name, const char *module, const char *attr)
{
	wp_vec_push(v, (struct ep){ wp_xstrdup(name), wp_xstrdup(module), wp_xstrdup(attr) });
}

/* pip's special names: pip gets pip, pipX and pipX.Y (its own pipN entries dropped), easy_install
 * gets easy_install and easy_install-X.Y, for the target's Python (pip's wheel.py does this). */
static void ep_versioned(struct eps *v, const char *base, int major, int minor)
{
	bool easy = !strcmp(base, "easy_install");
	size_t found = (size_t)-1;
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->v[i].name, base))
			found = i;
	if (found == (size_t)-1)
		return;
	struct ep keep = v->v[found];
	size_t o = 0;
	for (size_t i = 0; i < v->n; i++) {
		if (i != found && versioned(v->v[i].name, base, easy ? '-' : 0)) {
			free(v->v[i].name);
			free(v->v[i].module);
			free(v->v[i].attr);
			continue;
		}
		if (i != found)
			v->v[o++] = v->v[i];
	}
	v->n = o;
	char name[64];
	ep_add(v, base, keep.module, keep.attr);
	if (!easy) {
		snprintf(name, sizeof(name), "pip%d", major);
		ep_add(v, name, keep.module, keep.attr);
	}
	snprintf(name, sizeof(name), easy ? "easy_install-%d.%d" : "pip%d.%d", major, minor);
	ep_add(v, name, keep.module, keep.attr);
	free(keep.name);
	free(keep.module);
	free(keep.attr);
}

/* [console_scripts] and [gui_scripts] of entry_points.txt: a launcher each in scripts. */
static int plan_entry_points(struct wp_iwheel *w, const struct wp_ienv *env, unsigned long seq,
			     struct wp_err *err)
{
	struct wp_str s = WP_STRN(wp_buf_cstr(&w->entry_points), w->entry_points.len);
	struct eps console = { 0 }, gui = { 0 }, *in = NULL;
	int rc = 0;
	while (s.n && !rc) {
		struct wp_str line = wp_str_trim(wp_str_cut(&s, '\n'));
		if (!line.n || line.p[0] == '#' || line.p[0] == ';')
			continue;
		if (line.p[0] == '[') {
			in = wp_str_eq(line, "[console_scripts]") ? &console :
			     wp_str_eq(line, "[gui_scripts]")     ? &gui :
								    NULL;
			continue;
		}
		if (!in)
			continue;
		struct wp_str val = line;
		struct wp_str name = wp_str_trim(wp_str_cut(&val, '='));
		val = wp_str_trim(val);
		struct wp_str ex = val;
		struct wp_str callable = wp_str_trim(wp_str_cut(&ex, '[')); /* extras do not change
									       the launcher */
		struct wp_str attr = callable;
		struct wp_str module = wp_str_trim(wp_str_cut(&attr, ':'));
		attr = wp_str_trim(attr);
		char nb[160];
		bool ctl = false;
		for (size_t i = 0; i < name.n; i++)
			ctl = ctl || (unsigned char)name.p[i] < 0x20 || name.p[i] == 0x7f;
		if (ctl || (name.n && wp_inst_reserved_name(name.p, name.n))) {
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "'%s': the entry point named '%s' %s; nothing was installed",
				     w->filename,
				     wp_member_name_show(name.p, name.n, nb, sizeof(nb)),
				     ctl ? "holds a control character (a launcher's file name never may)" :
					   "takes a name the installer keeps for itself");
			break;
		}
		if (!name.n || memchr(name.p, '/', name.n) || wp_str_eq(name, ".") ||
		    wp_str_eq(name, "..") || !ident_ok(module, true) || !ident_ok(attr, true)) {
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "'%s': entry point '%s' is not 'name = module:function'",
				     w->filename,
				     wp_member_name_show(line.p, line.n, nb, sizeof(nb)));
			break;
		}
		char *nm = wp_xstrndup(name.p, name.n), *mod = wp_xstrndup(module.p, module.n),
		     *at = wp_xstrndup(attr.p, attr.n);
		ep_add(in, nm, mod, at);
		free(nm);
		free(mod);
		free(at);
	}
	if (!rc) {
		ep_versioned(&console, "pip", env->py.target.py_major, env->py.target.py_minor);
		ep_versioned(&console, "easy_install", env->py.target.py_major,
			     env->py.target.py_minor);
	}
	struct eps *both[2] = { &console, &gui };
	if (!rc && env->py.windows && (console.n || gui.n) &&
	    (!wp_launcher_console_len || !wp_launcher_gui_len))
		rc = wp_fail(err, -WPE_USAGE,
			     "'%s' is a Windows interpreter and this wheelpick has no Windows "
			     "entry-point launchers to write; install with wheelpick.exe on "
			     "Windows",
			     env->py.executable);
	for (size_t k = 0; k < 2; k++) {
		for (size_t i = 0; i < both[k]->n; i++) {
			struct ep *e = &both[k]->v[i];
			if (!rc) {
				char *dest = wp_xasprintf("%s/%s%s", env->py.scripts, e->name,
							  env->py.windows ? ".exe" : "");
				/* a .data/scripts file or an earlier entry point of the same name:
				 * the launcher written last replaces it, and RECORD lists the path
				 * once (as pip) */
				struct wp_iwheel_file *f = NULL;
				for (size_t m = 0; m < w->files.n && !f; m++)
					if (!strcmp(w->files.v[m].dest, dest))
						f = &w->files.v[m];
				if (f) {
					if (f->member != (size_t)-1)
						wp_vec_push(&w->drained, f->member);
					f->member = (size_t)-1;
					f->fix_shebang = f->entry_points = false;
					wp_buf_reset(&f->content);
				} else {
					f = add_file(w, dest, w->lib, seq);
				}
				f->exec = true;
				if (env->py.windows)
					launcher_exe(env->py.executable, e->module, e->attr, k == 1,
						     &f->content);
				else
					launcher(env->py.executable, e->module, e->attr,
						 &f->content);
				free(dest);
			}
			free(e->name);
			free(e->module);
			free(e->attr);
		}
		wp_vec_free(both[k]);
	}
	return rc;
}

/* dest inside purelib or platlib, in a *.dist-info folder that is not w's own (a planted RECORD
 * would steer a later uninstall or upgrade of that project), or, for a member reached through
 * .data/, in any (w's own files there are the installer's to write). */
static bool other_dist_info(const struct wp_iwheel *w, const struct wp_python *py, const char *dest,
			    bool via_data)
{
	const char *libs[2] = { py->purelib, py->platlib };
	for (size_t i = 0; i < 2; i++) {
		size_t n = strlen(libs[i]);
		if (strncmp(dest, libs[i], n) || dest[n] != '/')
			continue;
		const char *seg = dest + n + 1;
		size_t sl = strcspn(seg, "/");
		if (sl < 10 || strncmp(seg + sl - 10, ".dist-info", 10))
			continue;
		if (via_data || sl != strlen(w->info.dist_info) ||
		    strncmp(seg, w->info.dist_info, sl))
			return true;
	}
	return false;
}

static int ep_sink(void *ctx, const void *p, size_t n, struct wp_err *err)
{
	struct wp_buf *b = ctx;
	if (wp_buf_add(b, p, n) < 0)
		return wp_fail(err, -WPE_INTEGRITY, "a file is larger than %zu bytes", b->max);
	return 0;
}

int wp_iwheel_plan(struct wp_iwheel *w, const struct wp_ienv *env, unsigned long seq,
		   struct wp_err *err)
{
	const struct wp_python *py = &env->py;
	char nb[160];
	size_t dl = strlen(w->info.dist_info) - strlen(".dist-info");
	char *data_prefix = wp_xasprintf("%.*s.data/", (int)dl, w->info.dist_info);
	char *record = wp_xasprintf("%s/RECORD", w->info.dist_info);
	char *eps = wp_xasprintf("%s/entry_points.txt", w->info.dist_info);
	size_t dpl = strlen(data_prefix);
	int rc = 0;
	w->lib = w->info.root_is_purelib ? py->purelib : py->platlib;
	w->dist_info_dest = wp_xasprintf("%s/%s", w->lib, w->info.dist_info);
	w->entry_points = (struct wp_buf)WP_BUF_INIT_MAX(16 << 20);
	for (size_t i = 0; i < wp_wheel_reader_count(w->r) && !rc; i++) {
		struct wp_wheel_entry e;
		wp_wheel_reader_entry(w->r, i, &e);
		if (e.is_dir || !strcmp(e.name, record))
			continue;
		/* what the installer writes itself, not what the wheel says about its installer */
		size_t dil = strlen(w->info.dist_info);
		if (!strncmp(e.name, w->info.dist_info, dil) && e.name[dil] == '/' &&
		    (!strcmp(e.name + dil + 1, "INSTALLER") ||
		     !strcmp(e.name + dil + 1, "REQUESTED")))
			continue;
		const char *root = w->lib, *rel = e.name;
		char *headers = NULL;
		bool script = false;
		if (!strncmp(e.name, data_prefix, dpl)) {
			const char *scheme = e.name + dpl, *slash = strchr(scheme, '/');
			size_t sl = slash ? (size_t)(slash - scheme) : strlen(scheme);
			rel = slash ? slash + 1 : "";
			if (sl == 7 && !strncmp(scheme, "purelib", 7))
				root = py->purelib;
			else if (sl == 7 && !strncmp(scheme, "platlib", 7))
				root = py->platlib;
			else if (sl == 7 && !strncmp(scheme, "scripts", 7))
				root = py->scripts, script = true;
			else if (sl == 4 && !strncmp(scheme, "data", 4))
				root = py->data;
			else if (sl == 7 && !strncmp(scheme, "headers", 7))
				root = headers = wp_xasprintf("%s/%s", py->include, w->info.name);
			else {
				rc = wp_fail(err, -WPE_INTEGRITY,
					     "'%s': member '%s' names the scheme '%.*s', which is not "
					     "one of purelib, platlib, scripts, headers, data",
					     w->filename,
					     wp_member_name_show(e.name, strlen(e.name), nb,
								 sizeof(nb)),
					     (int)sl, scheme);
				break;
			}
			if (!*rel || wp_member_name_problem(rel, strlen(rel))) {
				rc = wp_fail(err, -WPE_INTEGRITY,
					     "'%s': member '%s' leaves its scheme", w->filename,
					     wp_member_name_show(e.name, strlen(e.name), nb,
								 sizeof(nb)));
				free(headers);
				break;
			}
		}
		if (wp_member_name_problem(rel, strlen(rel))) {
			rc = wp_fail(err, -WPE_INTEGRITY, "'%s': member '%s' leaves its scheme",
				     w->filename,
				     wp_member_name_show(e.name, strlen(e.name), nb, sizeof(nb)));
			free(headers);
			break;
		}
		char *dest = wp_xasprintf("%s/%s", root, rel);
		struct wp_os_stat sb;
		const char *why = wp_inst_reserved_name(rel, strlen(rel)) ?
					  "takes a name the installer keeps for itself" :
				  other_dist_info(w, py, dest, rel != e.name) ?
					  "lands in another project's .dist-info folder" :
				  !wp_ienv_confines(env, dest) ? "leaves the environment" :
								 NULL;
		if (why) {
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "'%s': member '%s' %s; nothing was installed", w->filename,
				     wp_member_name_show(e.name, strlen(e.name), nb, sizeof(nb)),
				     why);
		} else if (wp_os_lstat(dest, &sb) == 0 && WP_S_ISDIR(sb.st_mode)) {
			rc = wp_fail(err, -WPE_USAGE,
				     "'%s' is a folder, and '%s' would put a file there; remove it first",
				     dest, w->filename);
		} else {
			struct wp_iwheel_file *f = add_file(w, dest, w->lib, seq);
			f->member = i;
			f->exec = WP_S_ISREG(e.mode) && (e.mode & 0111);
			f->fix_shebang = script;
			if (!strcmp(e.name, eps)) {
				rc = wp_wheel_reader_extract(w->r, i, ep_sink, &w->entry_points,
							     err);
				f->entry_points = true;
			}
		}
		free(dest);
		free(headers);
	}
	if (!rc && w->entry_points.len)
		rc = plan_entry_points(w, env, seq, err);
	if (!rc) {
		char *p = wp_xasprintf("%s/INSTALLER", w->dist_info_dest);
		struct wp_iwheel_file *f = add_file(w, p, w->lib, seq);
		wp_buf_addstr(&f->content, "wheelpick\n");
		free(p);
		if (w->requested) {
			p = wp_xasprintf("%s/REQUESTED", w->dist_info_dest);
			add_file(w, p, w->lib, seq);
			free(p);
		}
		p = wp_xasprintf("%s/RECORD", w->dist_info_dest);
		add_file(w, p, w->lib, seq); /* last: its content comes from every other file's */
		free(p);
	}
	free(data_prefix);
	free(record);
	free(eps);
	return rc;
}

int wp_iwheel_write_tmp(const struct wp_ienv *env, const char *tmp, const void *p, size_t n,
			bool exec, struct wp_err *err)
{
	mode_t um = env->umask;
	int fd = wp_ienv_open_file(env, tmp, WP_O_WRONLY | WP_O_CREAT | WP_O_EXCL | WP_O_CLOEXEC,
				   0666);
	if (fd < 0)
		return wp_fs_fail(err, errno, "cannot create", tmp);
	int rc = wp_fd_write_all(fd, p, n, tmp, err);
	if (!rc && exec && wp_os_fchmod(fd, (0777 & ~um) | 0111) < 0)
		rc = wp_fs_fail(err, errno, "cannot set the mode of", tmp);
	if (wp_os_close(fd) < 0 && !rc)
		rc = wp_fs_fail(err, errno, "cannot write", tmp);
	return rc;
}

static int null_sink(void *ctx, const void *p, size_t n, struct wp_err *err)
{
	(void)ctx, (void)p, (void)n, (void)err;
	return 0;
}

int wp_iwheel_drain_member(struct wp_iwheel *w, size_t i, struct wp_err *err)
{
	return wp_wheel_reader_extract(w->r, i, null_sink, NULL, err);
}

struct fd_sink {
	int fd;
	const char *path;
	long long n;
	struct wp_fatbin_scan *fb; /* a shared object's GPU code, read as its bytes are written */
};

static int fd_sink(void *ctx, const void *p, size_t n, struct wp_err *err)
{
	struct fd_sink *s = ctx;
	int rc = wp_fd_write_all(s->fd, p, n, s->path, err);
	if (!rc)
		s->n += (long long)n;
	if (!rc && s->fb)
		wp_fatbin_scan_feed(s->fb, p, n);
	return rc;
}

static void record_hash(const unsigned char sha[WP_SHA256_LEN], char out[64])
{
	char b64[48];
	wp_b64url_encode(sha, WP_SHA256_LEN, b64);
	snprintf(out, 64, "sha256=%s", b64);
}

static int hash_buf(const void *p, size_t n, char out[64], struct wp_err *err)
{
	struct wp_hasher h;
	unsigned char sha[WP_SHA256_LEN];
	int rc = wp_hasher_init(&h, WP_HASH_SHA256, err);
	if (rc)
		return rc;
	wp_hasher_update(&h, p, n);
	rc = wp_hasher_final_raw(&h, sha, NULL, err);
	wp_hasher_release(&h);
	if (!rc)
		record_hash(sha, out);
	return rc;
}

int wp_iwheel_stage_file(struct wp_iwheel *w, const struct wp_ienv *env, struct wp_iwheel_file *f,
			 struct wp_err *err)
{
	if (f->member == (size_t)-1)
		return 0; /* generated: wp_iwheel_finish */
	if (w->store && !f->fix_shebang)
		return wp_istore_place(w, env, f, err);
	int rc = 0;
	if (f->fix_shebang) {
		struct wp_buf b = WP_BUF_INIT_MAX(SCRIPT_MAX);
		if (!(rc = wp_wheel_reader_extract(w->r, f->member, ep_sink, &b, err))) {
			const char *p = wp_buf_cstr(&b);
			size_t n = b.len;
			struct wp_buf out = WP_BUF_INIT;
			if (n >= 8 && !memcmp(p, "#!python", 8)) {
				/* pip's fix_script: the whole first line becomes the interpreter's;
				 * where pip's plain "#!EXE" could not run (a space, past 127 bytes)
				 * the /bin/sh form does, as for launchers */
				const char *nl = memchr(p, '\n', n);
				size_t skip = nl ? (size_t)(nl - p) + 1 : n;
				if (env->py.windows) /* pip's own line there: no sh to run */
					wp_buf_printf(&out, "#!%s\r\n", env->py.executable);
				else
					shebang(env->py.executable, &out);
				wp_buf_add(&out, p + skip, n - skip);
				p = out.data;
				n = out.len;
			} else {
				unsigned char sha[WP_SHA256_LEN];
				wp_wheel_reader_sha256(w->r, f->member, sha);
				(void)sha;
			}
			if (!(rc = hash_buf(p, n, f->hash, err)))
				rc = wp_iwheel_write_tmp(env, f->tmp, p, n, f->exec, err);
			f->size = (long long)n;
			wp_buf_free(&out);
		}
		wp_buf_free(&b);
		return rc;
	}
	struct fd_sink s = { wp_ienv_open_file(env, f->tmp,
					       WP_O_WRONLY | WP_O_CREAT | WP_O_EXCL | WP_O_CLOEXEC,
					       0666),
			     f->tmp, 0, NULL };
	if (s.fd < 0)
		return wp_fs_fail(err, errno, "cannot create", f->tmp);
	if (f->record_path && wp_fatbin_wanted(f->record_path))
		s.fb = wp_fatbin_scan_new();
	rc = wp_wheel_reader_extract(w->r, f->member, fd_sink, &s, err);
	if (s.fb) {
		struct wp_fatbin fb = { 0 };
		struct wp_buf sum = WP_BUF_INIT;
		struct wp_err fe = WP_ERR_INIT;
		(void)wp_fatbin_scan_finish(s.fb, f->record_path, &fb, &fe); /* what it could read
										counts */
		wp_fatbin_summary(&fb, &sum);
		free(f->gpu_code);
		f->gpu_code = wp_xstrdup(wp_buf_cstr(&sum));
		wp_buf_free(&sum);
		wp_fatbin_free(&fb);
		wp_fatbin_scan_free(s.fb);
	}
	if (!rc && f->exec && wp_os_fchmod(s.fd, (0777 & ~env->umask) | 0111) < 0)
		rc = wp_fs_fail(err, errno, "cannot set the mode of", f->tmp);
	if (wp_os_close(s.fd) < 0 && !rc)
		rc = wp_fs_fail(err, errno, "cannot write", f->tmp);
	if (!rc) {
		unsigned char sha[WP_SHA256_LEN];
		wp_wheel_reader_sha256(w->r, f->member, sha);
		record_hash(sha, f->hash);
		f->size = s.n;
	}
	return rc;
}

/* RECORD as pip writes it: csv rows sorted, CRLF line ends, RECORD itself with no hash. */
static void csv_field(struct wp_buf *b, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		wp_buf_addstr(b, s);
		return;
	}
	wp_buf_addch(b, '"');
	for (; *s; s++) {
		if (*s == '"')
			wp_buf_addch(b, '"');
		wp_buf_addch(b, *s);
	}
	wp_buf_addch(b, '"');
}

static int cmp_rows(const void *a, const void *b)
{
	const struct wp_iwheel_file *x = *(struct wp_iwheel_file *const *)a,
				    *y = *(struct wp_iwheel_file *const *)b;
	return strcmp(x->record_path, y->record_path);
}

int wp_iwheel_finish(struct wp_iwheel *w, const struct wp_ienv *env, unsigned long seq,
		     struct wp_err *err)
{
	int rc = 0;
	struct wp_iwheel_file *record = &w->files.v[w->files.n - 1];
	struct wp_iwheel_file **rows = wp_xmalloc(w->files.n * sizeof(*rows));
	for (size_t i = 0; i < w->files.n && !rc; i++) {
		struct wp_iwheel_file *f = &w->files.v[i];
		rows[i] = f;
		if (f->member != (size_t)-1 || f == record)
			continue;
		if (!(rc = hash_buf(f->content.data ? f->content.data : "", f->content.len, f->hash,
				    err)))
			rc = wp_iwheel_write_tmp(env, f->tmp,
						 f->content.data ? f->content.data : "",
						 f->content.len, f->exec, err);
		f->size = (long long)f->content.len;
	}
	if (!rc) {
		if (w->files.n) /* qsort's array may not be NULL, even for none */
			qsort(rows, w->files.n, sizeof(*rows), cmp_rows);
		struct wp_buf *b = &record->content;
		for (size_t i = 0; i < w->files.n; i++) {
			csv_field(b, rows[i]->record_path);
			if (rows[i] == record)
				wp_buf_addstr(b, ",,\r\n");
			else
				wp_buf_printf(b, ",%s,%lld\r\n", rows[i]->hash, rows[i]->size);
		}
		rc = wp_iwheel_write_tmp(env, record->tmp, b->data, b->len, false, err);
	}
	free(rows);
	(void)seq;
	return rc;
}

void wp_iwheel_release(struct wp_iwheel *w)
{
	for (size_t i = 0; i < w->files.n; i++) {
		free(w->files.v[i].dest);
		free(w->files.v[i].tmp);
		free(w->files.v[i].stage_dest);
		free(w->files.v[i].record_path);
		free(w->files.v[i].gpu_code);
		wp_buf_free(&w->files.v[i].content);
	}
	wp_vec_free(&w->files);
	wp_vec_free(&w->drained);
	if (w->r)
		wp_wheel_reader_close(w->r);
	wp_wheel_info_release(&w->info);
	wp_buf_free(&w->entry_points);
	wp_old_dist_release(&w->old);
	free(w->path);
	free(w->filename);
	free(w->project);
	free(w->variant_label);
	free(w->dist_info_dest);
	free(w->dist_info_stage);
	wp_istore_abort(w);
	free(w->store);
	free(w->sha256);
	free(w->target);
	memset(w, 0, sizeof(*w));
}
