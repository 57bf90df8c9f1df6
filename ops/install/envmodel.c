/* ops/install/envmodel.c: the environment model: an environment opened for a change (its
 * interpreter asked, locked, an earlier interrupted change finished or undone), what is installed
 * there, and removal by RECORD (`uninstall`). */
#include "base/beneath.h"
#include "base/fs.h"
#include "base/os/os.h"
#include "base/mem.h"
#include "base/str.h"
#include "ops/install/install.h"
#include "ops/install/internal.h"
#include "resolver/variant.h"
#include "verify/recordcsv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RECORD_MAX ((size_t)256 << 20)

static void set_roots(struct wp_ienv *env);

int wp_ienv_open(struct wp_ienv *env, const char *python, enum wp_python_scheme scheme,
		 const char *const *envp, const char *dir, const struct wp_asks *asks,
		 char **recovered, struct wp_err *err)
{
	char *alloc = NULL;
	int rc = 0;
	memset(env, 0, sizeof(*env));
	env->lock_fd = -1;
	*recovered = NULL;
	struct wp_os_stat psb;
	if (!python) {
		/* cli/ names the active virtual environment's interpreter when there is one; else
		 * the one on PATH, by the name it has there (Windows' installers make
		 * python.exe) */
		python = wp_os_layout == WP_OS_LAYOUT_WINDOWS ? "python" : "python3";
	} else if (wp_os_stat(python, &psb) == 0 && WP_S_ISDIR(psb.st_mode)) {
		/* a virtual environment's folder, as uv takes it: its bin/python, or a Windows
		 * one's Scripts/python.exe (the layout is the environment's, whichever system
		 * wheelpick runs on) */
		alloc = wp_xasprintf("%s/Scripts/python.exe", python);
		if (wp_os_stat(alloc, &psb) != 0 || !WP_S_ISREG(psb.st_mode)) {
			free(alloc);
			alloc = wp_xasprintf("%s/bin/python", python);
		}
		python = alloc;
	}
	char *absdir = NULL;
	if (dir) {
		if ((rc = wp_mkdir_p(dir, 0777, err)))
			goto out;
		absdir = wp_os_realpath(dir);
		if (!absdir) {
			rc = wp_fs_fail(err, errno, "cannot open", dir);
			goto out;
		}
	}
	rc = wp_python_probe_as(python, scheme, absdir, asks, envp, &env->py, err);
	if (!rc && absdir) {
		/* --prefix and --target write under DIR and nowhere else, whatever sysconfig
		 * says */
		const char *const roots[] = { env->py.purelib, env->py.platlib, env->py.scripts,
					      env->py.data, env->py.include };
		size_t dl = strlen(absdir);
		for (size_t i = 0; i < 5 && !rc; i++)
			if (strncmp(roots[i], absdir, dl) || (roots[i][dl] && roots[i][dl] != '/'))
				rc = wp_fail(err, -WPE_ENV,
					     "the interpreter '%s' maps a scheme of '%s' to '%s', outside it; "
					     "nothing was installed",
					     python, absdir, roots[i]);
	}
	if (rc) {
		free(absdir);
		goto out;
	}
	env->root = absdir;
	mode_t um = wp_os_umask(022);
	wp_os_umask(um);
	env->umask = um;
	if ((rc = wp_mkdir_p(env->py.purelib, 0777, err)))
		goto out;
	set_roots(env); /* after purelib is made: each root resolved and opened once */
	for (size_t i = 0; i < env->n_roots; i++)
		env->root_fd[i] = wp_os_open(env->real_roots[i] ? env->real_roots[i] :
								  env->roots[i],
					     WP_O_RDONLY | WP_O_DIRECTORY | WP_O_CLOEXEC);
	env->fds_open = true;
	env->lock_fd = wp_os_open(env->py.purelib, WP_O_RDONLY | WP_O_DIRECTORY | WP_O_CLOEXEC);
	if (env->lock_fd < 0) {
		rc = wp_fs_fail(err, errno, "cannot open", env->py.purelib);
		goto out;
	}
	if (wp_flock_wait(env->lock_fd, 120000) < 0) {
		rc = wp_fail(err, -WPE_IO,
			     "another wheelpick is changing '%s'; wait for it to finish",
			     env->py.purelib);
		goto out;
	}
	rc = wp_ijournal_recover(env, recovered, err);
out:
	free(alloc);
	if (rc)
		wp_ienv_close(env);
	return rc;
}

void wp_ienv_close(struct wp_ienv *env)
{
	if (env->lock_fd >= 0)
		wp_os_close(env->lock_fd);
	env->lock_fd = -1;
	for (size_t i = 0; i < env->n_roots; i++) {
		if (env->fds_open && env->root_fd[i] >= 0)
			wp_os_close(env->root_fd[i]);
		free(env->roots[i]);
		free(env->real_roots[i]);
	}
	env->fds_open = false;
	env->n_roots = 0;
	free(env->root);
	env->root = NULL;
	wp_python_release(&env->py);
}

static bool under(const char *path, const char *root);

bool wp_ienv_confines(const struct wp_ienv *env, const char *path)
{
	for (size_t i = 0; i < env->n_roots; i++)
		if (under(path, env->roots[i]))
			return true;
	return false;
}

/* path's folder, with every symlink in it resolved, lies under one of env's resolved roots: what a
 * removal needs (pip's UninstallPathSet resolves a row's folders the same way). A missing folder
 * is not confined (there is nothing to remove in it). */
static bool confines_real(const struct wp_ienv *env, const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash || !slash[1])
		return false;
	char *dir = slash == path ? wp_xstrdup("/") : wp_xstrndup(path, (size_t)(slash - path));
	char *real = wp_os_realpath(dir);
	bool ok = false;
	if (real) {
		char *file = wp_xasprintf("%s/%s", strcmp(real, "/") ? real : "", slash + 1);
		for (size_t i = 0; i < env->n_roots && !ok; i++)
			ok = env->real_roots[i] && under(file, env->real_roots[i]);
		free(file);
	}
	free(real);
	free(dir);
	return ok;
}

/* The root of env that holds path (the longest), its rel part; -1 when none is open. */
static int root_of(const struct wp_ienv *env, const char *path, const char **rel)
{
	int best = -1;
	size_t bl = 0;
	for (size_t i = 0; i < env->n_roots; i++) {
		const char *x = wp_beneath_rel(path, env->roots[i]);
		size_t l = strlen(env->roots[i]);
		if (x && l > bl && env->root_fd[i] >= 0) {
			best = (int)i;
			bl = l;
			*rel = x;
		}
	}
	return best < 0 ? -1 : env->root_fd[best];
}

int wp_ienv_open_file(const struct wp_ienv *env, const char *path, int flags, mode_t mode)
{
	const char *rel = NULL;
	if (!env->fds_open)
		return wp_os_open(path, flags | WP_O_NOFOLLOW, mode);
	int rfd = root_of(env, path, &rel);
	if (rfd < 0) {
		errno = EXDEV;
		return -1;
	}
	return wp_beneath_open(rfd, rel, flags, mode);
}

int wp_ienv_mkdir(const struct wp_ienv *env, const char *path, mode_t mode)
{
	const char *rel = NULL;
	if (!env->fds_open)
		return wp_os_mkdir(path, mode);
	int rfd = root_of(env, path, &rel);
	if (rfd < 0) {
		errno = EXDEV;
		return -1;
	}
	return wp_beneath_mkdir(rfd, rel, mode);
}

int wp_ienv_link(const struct wp_ienv *env, const char *from, const char *path)
{
	const char *rel = NULL;
	if (!env->fds_open)
		return wp_os_linkat(WP_AT_FDCWD, from, WP_AT_FDCWD, path, 0);
	int rfd = root_of(env, path, &rel);
	if (rfd < 0) {
		errno = EXDEV;
		return -1;
	}
	return wp_beneath_link(WP_AT_FDCWD, from, rfd, rel);
}

int wp_ienv_check_managed(const struct wp_ienv *env, enum wp_python_scheme scheme, bool allowed,
			  const char *what, struct wp_err *err)
{
	if (scheme != WP_SCHEME_DEFAULT || env->py.in_venv || allowed || !env->py.stdlib ||
	    !env->py.stdlib[0])
		return 0;
	char *marker = wp_xasprintf("%s/EXTERNALLY-MANAGED", env->py.stdlib);
	bool managed = wp_os_access(marker, WP_F_OK) == 0;
	free(marker);
	if (!managed)
		return 0;
	return wp_fail(err, -WPE_USAGE,
		       "the environment of '%s' is externally managed (PEP 668: its distribution "
		       "installs its packages), so wheelpick does not %s there; make a virtual environment (python3 "
		       "-m venv DIR) and give --python DIR, or --break-system-packages",
		       env->py.executable, what);
}

/* The folders a change may touch: DIR alone for --prefix/--target (whatever the interpreter's own
 * prefix is), else the interpreter's prefix and scheme folders. */
static void set_roots(struct wp_ienv *env)
{
	const char *v[6] = { env->py.prefix,  env->py.purelib, env->py.platlib,
			     env->py.scripts, env->py.data,    env->py.include };
	size_t n = 6;
	if (env->root) {
		v[0] = env->root;
		n = 1;
	}
	for (size_t i = 0; i < n; i++) {
		if (!v[i] || !wp_os_path_is_abs(v[i]))
			continue;
		env->roots[env->n_roots] = wp_inst_lexical(v[i]);
		env->real_roots[env->n_roots] = wp_os_realpath(v[i]);
		env->n_roots++;
	}
}

/* "a/b/../c" made lexically plain: ".." takes off the segment before it, "." goes. A Windows
 * drive ("C:/x", as the seam gives paths there) stays in front and ".." never takes it off. */
char *wp_inst_lexical(const char *path)
{
	struct wp_buf out = WP_BUF_INIT;
	size_t drive = 0;
	if (((path[0] >= 'a' && path[0] <= 'z') || (path[0] >= 'A' && path[0] <= 'Z')) &&
	    path[1] == ':' && path[2] == '/')
		drive = 2;
	wp_buf_add(&out, path, drive);
	struct wp_str s = WP_STR(path + drive);
	while (s.n) {
		struct wp_str seg = wp_str_cut(&s, '/');
		if (!seg.n || wp_str_eq(seg, "."))
			continue;
		if (wp_str_eq(seg, "..")) {
			while (out.len > drive && out.data[out.len - 1] != '/')
				out.len--;
			if (out.len > drive)
				out.len--;
			out.data[out.len] = 0;
			continue;
		}
		wp_buf_addch(&out, '/');
		wp_buf_add(&out, seg.p, seg.n);
	}
	if (out.len == drive)
		wp_buf_addch(&out, '/');
	return wp_buf_detach(&out, NULL);
}

static bool under(const char *path, const char *root)
{
	size_t n = strlen(root);
	while (n > 1 && root[n - 1] == '/')
		n--;
	return !strncmp(path, root, n) && path[n] == '/';
}

/* The first field of each RECORD row (csv, as pip reads it), and its second when asked; a row
 * with a broken quote (one the wheel check refuses) names nothing. */
void wp_inst_record_rows(const char *text, size_t len, struct wp_strlist *out,
			 struct wp_strlist *hashes)
{
	struct wp_buf f[3] = { WP_BUF_INIT, WP_BUF_INIT, WP_BUF_INIT }, extra = WP_BUF_INIT;
	struct wp_str s = WP_STRN(text, len);
	while (s.n) {
		int nf = wp_record_row(&s, f, &extra);
		if (nf < 1 || !f[0].len || memchr(f[0].data, 0, f[0].len))
			continue;
		wp_strlist_push(out, wp_buf_detach(&f[0], NULL));
		if (hashes)
			wp_strlist_push(hashes, wp_xstrdup(nf >= 2 ? wp_buf_cstr(&f[1]) : ""));
	}
	for (int k = 0; k < 3; k++)
		wp_buf_free(&f[k]);
	wp_buf_free(&extra);
}

void wp_inst_record_paths(const char *text, size_t len, struct wp_strlist *out)
{
	wp_inst_record_rows(text, len, out, NULL);
}

static const char *const *lib_dirs(const struct wp_ienv *env, size_t *n)
{
	static __thread const char *v[2];
	v[0] = env->py.purelib;
	v[1] = env->py.platlib;
	*n = strcmp(v[0], v[1]) ? 2 : 1;
	return v;
}

/* "Foo_Bar-1.0.dist-info" -> name and version parts. */
static bool dist_info_name(const char *d, char **name, char **version)
{
	size_t n = strlen(d), sl = strlen(".dist-info");
	if (n <= sl || strcmp(d + n - sl, ".dist-info"))
		return false;
	const char *dash = memchr(d, '-', n - sl);
	if (!dash)
		return false;
	*name = wp_xstrndup(d, (size_t)(dash - d));
	*version = wp_xstrndup(dash + 1, n - sl - (size_t)(dash - d) - 1);
	return true;
}

static void free_list(struct wp_strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free((char *)l->v[i]);
	wp_strlist_release(l);
}

void wp_old_dist_release(struct wp_old_dist *od)
{
	free(od->dist_info);
	free(od->name);
	free(od->version);
	free_list(&od->files);
	free_list(&od->dirs);
	memset(od, 0, sizeof(*od));
}

static int cmp_depth(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	size_t dx = 0, dy = 0;
	for (const char *p = x; *p; p++)
		dx += *p == '/';
	for (const char *p = y; *p; p++)
		dy += *p == '/';
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x, y);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sort l and drop repeats (freeing them): n log n, where a RECORD of 100,000 rows in as many
 * folders made a search per row quadratic. */
static void sort_unique(struct wp_strlist *l, int (*cmp)(const void *, const void *))
{
	if (!l->n)
		return;
	qsort(l->v, l->n, sizeof(*l->v), cmp_str);
	size_t o = 0;
	for (size_t i = 0; i < l->n; i++) {
		if (o && !strcmp(l->v[o - 1], l->v[i]))
			free((char *)l->v[i]);
		else
			l->v[o++] = l->v[i];
	}
	l->n = o;
	if (cmp != cmp_str)
		qsort(l->v, l->n, sizeof(*l->v), cmp);
}

/* The resolved folder of each RECORD row's file is asked once: rows come folder by folder. */
struct real_cache {
	char *dir;
	bool ok;
};

static bool row_removable(const struct wp_ienv *env, const char *abs, struct real_cache *rc)
{
	const char *slash = strrchr(abs, '/');
	size_t dl = (size_t)(slash - abs);
	if (!rc->dir || strlen(rc->dir) != dl || strncmp(rc->dir, abs, dl)) {
		free(rc->dir);
		rc->dir = wp_xstrndup(abs, dl);
		char *probe = wp_xasprintf("%s/x", rc->dir);
		rc->ok = confines_real(env, probe);
		free(probe);
	}
	return rc->ok;
}

static int load_old(const struct wp_ienv *env, const char *lib, const char *entry,
		    struct wp_old_dist *od, struct wp_err *err)
{
	struct wp_buf rec = WP_BUF_INIT;
	struct wp_strlist rel = { 0 }, abs_rows = { 0 };
	struct real_cache cache = { 0 };
	bool found = false;
	int rc = 0;
	od->dist_info = wp_xasprintf("%s/%s", lib, entry);
	char *rp = wp_xasprintf("%s/RECORD", od->dist_info);
	rc = wp_file_read_if_exists(rp, RECORD_MAX, &rec, &found, err);
	free(rp);
	if (rc)
		goto out;
	if (!found) {
		rc = wp_fail(err, -WPE_USAGE,
			     "'%s' has no RECORD: wheelpick cannot tell its files; remove it "
			     "with the tool that installed it",
			     od->dist_info);
		goto out;
	}
	wp_inst_record_paths(wp_buf_cstr(&rec), rec.len, &rel);
	for (size_t i = 0; i < rel.n; i++) {
		char *joined = wp_os_path_is_abs(rel.v[i]) ? wp_xstrdup(rel.v[i]) :
						    wp_xasprintf("%s/%s", lib, rel.v[i]);
		wp_strlist_push(&abs_rows, wp_inst_lexical(joined));
		free(joined);
	}
	/* folder by folder, so that each folder is resolved once */
	sort_unique(&abs_rows, cmp_str);
	for (size_t i = 0; i < abs_rows.n; i++) {
		char *abs = (char *)abs_rows.v[i];
		abs_rows.v[i] = NULL;
		const char *slash = strrchr(abs, '/');
		/* files outside the environment are not ours to remove (pip skips them too): by
		 * text, then with the symlinks in their folders resolved (a linked folder's files
		 * live elsewhere); nor the installer's own files, whatever a RECORD on disk says */
		if (!wp_ienv_confines(env, abs) ||
		    wp_inst_reserved_name(slash + 1, strlen(slash + 1)) ||
		    !row_removable(env, abs, &cache)) {
			free(abs);
			continue;
		}
		size_t n = strlen(abs);
		wp_strlist_push(&od->dirs, wp_xstrndup(abs, (size_t)(slash - abs)));
		if (n > 3 && !strcmp(abs + n - 3, ".py") && env->py.cache_tag[0]) {
			static const char *const opt[] = { "", ".opt-1", ".opt-2" };
			char *cache_dir = wp_xasprintf("%.*s/__pycache__", (int)(slash - abs), abs);
			for (size_t k = 0; k < 3; k++)
				wp_strlist_push(&od->files,
						wp_xasprintf("%s/%.*s.%s%s.pyc", cache_dir,
							     (int)(n - 3 -
								   (size_t)(slash + 1 - abs)),
							     slash + 1, env->py.cache_tag, opt[k]));
			wp_strlist_push(&od->dirs, cache_dir);
		}
		wp_strlist_push(&od->files, abs);
	}
	wp_strlist_push(&od->dirs, wp_xstrdup(od->dist_info));
	sort_unique(&od->files, cmp_str);
	sort_unique(&od->dirs, cmp_depth);
out:
	free(cache.dir);
	free_list(&abs_rows);
	free_list(&rel);
	wp_buf_free(&rec);
	return rc;
}

int wp_old_dist_find(const struct wp_ienv *env, const char *project, struct wp_old_dist *od,
		     struct wp_err *err)
{
	size_t nl;
	const char *const *libs = lib_dirs(env, &nl);
	int rc = 0;
	memset(od, 0, sizeof(*od));
	for (size_t l = 0; l < nl && !od->dist_info && !rc; l++) {
		struct wp_os_dir *d = wp_os_opendir(libs[l]);
		const struct wp_os_dirent *de;
		while (d && (de = wp_os_readdir(d)) && !od->dist_info) {
			char *name, *version;
			if (!dist_info_name(de->d_name, &name, &version))
				continue;
			char *norm = wp_inst_normalize(name);
			if (!strcmp(norm, project)) {
				od->name = name;
				od->version = version;
				name = version = NULL;
				rc = load_old(env, libs[l], de->d_name, od, err);
			}
			free(norm);
			free(name);
			free(version);
		}
		if (d)
			wp_os_closedir(d);
	}
	if (rc)
		wp_old_dist_release(od);
	return rc;
}

void wp_old_dist_plan_removal(const struct wp_old_dist *od, const struct wp_strlist *keep,
			      struct wp_ijournal *j)
{
	for (size_t i = 0; i < od->files.n; i++) {
		if (keep && bsearch(&od->files.v[i], keep->v, keep->n, sizeof(*keep->v), cmp_str))
			continue;
		struct wp_os_stat sb;
		if (wp_os_lstat(od->files.v[i], &sb) == 0 && !WP_S_ISDIR(sb.st_mode))
			wp_ijournal_add(j, WP_IJ_UNLINK, od->files.v[i], NULL);
	}
	for (size_t i = 0; i < od->dirs.n; i++)
		wp_ijournal_add(j, WP_IJ_RMDIR, od->dirs.v[i], NULL);
}

/* ---- what each project was picked for ---- */

char *wp_itargets_path(const struct wp_ienv *env)
{
	return wp_xasprintf("%s/.wheelpick-targets", env->py.purelib);
}

/* The target recorded for project (normalised), or NULL (the caller frees). */
static char *targets_get(const char *text, const char *project)
{
	size_t pl = strlen(project);
	for (const char *l = text; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		if (n > pl && !strncmp(l, project, pl) && l[pl] == '\t')
			return wp_xstrndup(l + pl + 1, n - pl - 1);
		l = nl ? nl + 1 : NULL;
	}
	return NULL;
}

int wp_itargets_stage(const struct wp_ienv *env, const struct wp_strlist *drop, const char *add,
		      char **tmp, struct wp_err *err)
{
	char *path = wp_itargets_path(env);
	struct wp_buf old = WP_BUF_INIT, out = WP_BUF_INIT;
	bool found = false;
	int rc = wp_file_read_if_exists(path, 16 << 20, &old, &found, err);
	*tmp = NULL;
	if (rc)
		goto out;
	for (const char *l = wp_buf_cstr(&old); *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		const char *tab = memchr(l, '\t', n);
		bool keep = tab != NULL;
		for (size_t i = 0; keep && i < drop->n; i++)
			keep = !((size_t)(tab - l) == strlen(drop->v[i]) &&
				 !strncmp(l, drop->v[i], (size_t)(tab - l)));
		if (keep) {
			wp_buf_add(&out, l, n);
			wp_buf_addch(&out, '\n');
		}
		if (!nl)
			break;
		l = nl + 1;
	}
	if (add)
		wp_buf_addstr(&out, add);
	if (!out.len)
		goto out;
	/* by project: the same projects give the same file, whichever run wrote which line last (a
	 * run that finds some projects already installed rewrites only the others' lines) */
	struct wp_strlist lines = { 0 };
	char *text = wp_buf_detach(&out, NULL), *save = NULL;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		wp_strlist_push(&lines, l);
	if (lines.n)
		qsort(lines.v, lines.n, sizeof(*lines.v), cmp_str);
	out = (struct wp_buf)WP_BUF_INIT;
	for (size_t i = 0; i < lines.n; i++)
		wp_buf_printf(&out, "%s\n", lines.v[i]);
	wp_strlist_release(&lines);
	free(text);
	if (!out.len)
		goto out;
	*tmp = wp_xasprintf("%s.tmp.%ld", path, wp_os_getpid());
	wp_os_unlink(*tmp);
	rc = wp_iwheel_write_tmp(env, *tmp, out.data ? out.data : "", out.len, false, err);
out:
	wp_buf_free(&old);
	wp_buf_free(&out);
	free(path);
	return rc;
}

/* ---- list --installed ---- */

void wp_installed_list_release(struct wp_installed_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].version);
		free(l->v[i].installer);
		free(l->v[i].dist_info);
		free(l->v[i].variant);
		free(l->v[i].target);
	}
	free(l->v);
	free(l->executable);
	free(l->recovered);
	memset(l, 0, sizeof(*l));
}

static char *header(const char *text, const char *key)
{
	size_t kl = strlen(key);
	for (const char *p = text; p && *p && *p != '\n';) {
		if (!strncasecmp(p, key, kl) && p[kl] == ':') {
			const char *v = p + kl + 1;
			while (*v == ' ' || *v == '\t')
				v++;
			size_t n = strcspn(v, "\r\n");
			return wp_xstrndup(v, n);
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

/* The label of a variant wheel's variant.json: the one key of its "variants" object. */
static char *variant_label(const char *json)
{
	const char *v = strstr(json, "\"variants\"");
	if (!v || !(v = strchr(v, '{')) || !(v = strchr(v, '"')))
		return NULL;
	const char *e = strchr(v + 1, '"');
	return e ? wp_xstrndup(v + 1, (size_t)(e - v - 1)) : NULL;
}

static int cmp_installed(const void *a, const void *b)
{
	const struct wp_installed *x = a, *y = b;
	return strcasecmp(x->name, y->name);
}

void wp_ienv_list(const struct wp_ienv *env, struct wp_installed_list *out)
{
	size_t nl;
	const char *const *libs = lib_dirs(env, &nl);
	struct wp_buf targets = WP_BUF_INIT;
	char *tpath = wp_itargets_path(env);
	bool tfound = false;
	wp_file_read_if_exists(tpath, 16 << 20, &targets, &tfound, NULL);
	free(tpath);
	for (size_t l = 0; l < nl; l++) {
		struct wp_os_dir *d = wp_os_opendir(libs[l]);
		const struct wp_os_dirent *de;
		while (d && (de = wp_os_readdir(d))) {
			char *name, *version;
			if (!dist_info_name(de->d_name, &name, &version))
				continue;
			struct wp_installed *it = wp_vec_add(out);
			char *norm = wp_inst_normalize(name);
			it->target = targets_get(wp_buf_cstr(&targets), norm);
			free(norm);
			it->dist_info = wp_xasprintf("%s/%s", libs[l], de->d_name);
			struct wp_buf b = WP_BUF_INIT;
			char *p = wp_xasprintf("%s/METADATA", it->dist_info);
			if (!wp_file_read_capped(p, 16 << 20, &b, NULL)) {
				it->name = header(wp_buf_cstr(&b), "Name");
				it->version = header(wp_buf_cstr(&b), "Version");
			}
			free(p);
			wp_buf_free(&b);
			if (!it->name)
				it->name = name, name = NULL;
			if (!it->version)
				it->version = version, version = NULL;
			free(name);
			free(version);
			p = wp_xasprintf("%s/INSTALLER", it->dist_info);
			it->installer = wp_file_read_capped(p, 4096, &b, NULL) ?
						wp_xstrdup("") :
						wp_xstrndup(wp_buf_cstr(&b),
							    strcspn(wp_buf_cstr(&b), "\r\n"));
			free(p);
			wp_buf_free(&b);
			p = wp_xasprintf("%s/REQUESTED", it->dist_info);
			it->requested = wp_os_access(p, WP_F_OK) == 0;
			free(p);
			p = wp_xasprintf("%s/variant.json", it->dist_info);
			if (!wp_file_read_capped(p, 1 << 20, &b, NULL))
				it->variant = variant_label(wp_buf_cstr(&b));
			free(p);
			wp_buf_free(&b);
			/* no variant.json: a PyTorch-style local label (2.5.1+cu121) names the
			 * build */
			const char *plus = it->version ? strchr(it->version, '+') : NULL;
			struct wp_variant var;
			if (!it->variant && plus && wp_variant_from_label(plus, &var) == 1)
				it->variant = wp_xstrdup(var.label);
		}
		if (d)
			wp_os_closedir(d);
	}
	wp_buf_free(&targets);
	if (out->n) /* qsort's array may not be NULL, even for none */
		qsort(out->v, out->n, sizeof(*out->v), cmp_installed);
}

int wp_installed_list(const char *python, enum wp_python_scheme scheme, const char *dir,
		      const struct wp_asks *asks, const char *const *envp,
		      struct wp_installed_list *out, struct wp_err *err)
{
	struct wp_ienv env;
	memset(out, 0, sizeof(*out));
	int rc = wp_ienv_open(&env, python, scheme, envp, dir, asks, &out->recovered, err);
	if (rc)
		return rc;
	out->executable = wp_xstrdup(env.py.executable);
	wp_ienv_list(&env, out);
	wp_ienv_close(&env);
	return 0;
}

/* ---- uninstall ---- */

int wp_uninstall_run(const struct wp_session *s, const char *python, enum wp_python_scheme scheme,
		     const char *dir, bool break_system_packages, const char *const *names,
		     size_t n, struct wp_installed_list *removed, struct wp_err *err)
{
	struct wp_ienv env;
	struct wp_ijournal j;
	struct wp_old_dist *olds = wp_xcalloc(n ? n : 1, sizeof(*olds));
	int rc;
	memset(removed, 0, sizeof(*removed));
	if ((rc = wp_ienv_open(&env, python, scheme, s->envp, dir, s->asks, &removed->recovered,
			       err))) {
		free(olds);
		return rc;
	}
	removed->executable = wp_xstrdup(env.py.executable);
	wp_ijournal_init(&j, env.py.purelib);
	rc = wp_ienv_check_managed(&env, scheme, break_system_packages, "uninstall", err);
	for (size_t i = 0; i < n && !rc; i++) {
		char *project = wp_inst_normalize(names[i]);
		rc = wp_old_dist_find(&env, project, &olds[i], err);
		if (!rc && !olds[i].dist_info)
			rc = wp_fail(err, -WPE_NOMATCH,
				     "'%s' is not installed in '%s' (nothing was removed)",
				     names[i], env.py.prefix);
		free(project);
	}
	struct wp_strlist drop = { 0 };
	char *ttmp = NULL;
	for (size_t i = 0; i < n && !rc; i++)
		wp_strlist_push(&drop, wp_inst_normalize(names[i]));
	if (!rc && !(rc = wp_itargets_stage(&env, &drop, NULL, &ttmp, err))) {
		char *tpath = wp_itargets_path(&env);
		struct wp_os_stat tsb;
		if (ttmp)
			wp_ijournal_add(&j, WP_IJ_RENAME, ttmp, tpath);
		else if (wp_os_lstat(tpath, &tsb) == 0)
			wp_ijournal_add(&j, WP_IJ_UNLINK, tpath, NULL);
		free(tpath);
	}
	for (size_t i = 0; i < drop.n; i++)
		free((char *)drop.v[i]);
	wp_strlist_release(&drop);
	free(ttmp);
	for (size_t i = 0; i < n && !rc; i++) {
		wp_old_dist_plan_removal(&olds[i], NULL, &j);
		struct wp_installed *it = wp_vec_add(removed);
		it->name = wp_xstrdup(olds[i].name);
		it->version = wp_xstrdup(olds[i].version);
		it->dist_info = wp_xstrdup(olds[i].dist_info);
		it->installer = wp_xstrdup("");
	}
	if (!rc && !(rc = wp_ijournal_commit(&j, err)))
		rc = wp_ijournal_apply(&j, &env, err);
	(void)s;
	for (size_t i = 0; i < n; i++)
		wp_old_dist_release(&olds[i]);
	free(olds);
	wp_ijournal_release(&j);
	wp_ienv_close(&env);
	return rc;
}
