/* ops/install/journal.c: the journal that makes an install or uninstall all or nothing.
 *
 * Every file is first staged under a temp name beside its destination (same folder, so the final
 * rename is atomic); the staging journal, written durably before anything is created, lists those
 * temps and the folders made for them, so that a run killed while staging is undone by the next
 * one. Once every temp is written, synced and every wheel's RECORD checked, the commit journal
 * (renames, then the old files to remove) is written durably: from then on the change is the new
 * environment, and a run killed while applying it is finished by the next one (renames whose temp
 * is gone were done; removals of what is gone were done). Both live in purelib, found by every
 * later install, uninstall or list --installed of that environment. Records: an op byte, then
 * NUL-terminated paths (one, or two for a rename). */
#include "base/beneath.h"
#include "base/fs.h"
#include "base/mem.h"
#include "ops/install/internal.h"
#include "base/os/os.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JOURNAL_MAGIC "wheelpick journal 1\n"
#define JOURNAL_MAX ((size_t)1 << 30)

void wp_ijournal_init(struct wp_ijournal *j, const char *purelib)
{
	memset(j, 0, sizeof(*j));
	j->staging_path = wp_xasprintf("%s/.wheelpick-staging.journal", purelib);
	j->commit_path = wp_xasprintf("%s/.wheelpick-commit.journal", purelib);
}

void wp_ijournal_add(struct wp_ijournal *j, char op, const char *a, const char *b)
{
	struct wp_ijournal_entry *e = wp_vec_add(&j->e);
	e->op = op;
	e->a = wp_xstrdup(a);
	e->b = b ? wp_xstrdup(b) : NULL;
}

void wp_ijournal_release(struct wp_ijournal *j)
{
	for (size_t i = 0; i < j->e.n; i++) {
		free(j->e.v[i].a);
		free(j->e.v[i].b);
	}
	wp_vec_free(&j->e);
	free(j->staging_path);
	free(j->commit_path);
	memset(j, 0, sizeof(*j));
}

static void encode(const struct wp_ijournal *j, bool staging, struct wp_buf *b)
{
	wp_buf_addstr(b, JOURNAL_MAGIC);
	for (size_t i = 0; i < j->e.n; i++) {
		const struct wp_ijournal_entry *e = &j->e.v[i];
		if (staging ? e->op != WP_IJ_MKDIR && e->op != WP_IJ_RENAME : e->op == WP_IJ_MKDIR)
			continue;
		wp_buf_addch(b, e->op);
		wp_buf_add(b, e->a, strlen(e->a) + 1);
		if (e->op == WP_IJ_RENAME)
			wp_buf_add(b, e->b, strlen(e->b) + 1);
	}
}

static int decode(const struct wp_buf *b, struct wp_ijournal *j)
{
	size_t ml = strlen(JOURNAL_MAGIC);
	if (b->len < ml || memcmp(b->data, JOURNAL_MAGIC, ml))
		return -1;
	for (size_t i = ml; i < b->len;) {
		char op = b->data[i++];
		if (op != WP_IJ_MKDIR && op != WP_IJ_RENAME && op != WP_IJ_UNLINK &&
		    op != WP_IJ_RMDIR)
			return -1;
		const char *a = b->data + i;
		size_t al = strnlen(a, b->len - i);
		if (i + al >= b->len)
			return -1;
		i += al + 1;
		const char *bb = NULL;
		if (op == WP_IJ_RENAME) {
			bb = b->data + i;
			size_t bl = strnlen(bb, b->len - i);
			if (i + bl >= b->len)
				return -1;
			i += bl + 1;
		}
		if (!wp_os_path_is_abs(a) || (bb && !wp_os_path_is_abs(bb)))
			return -1;
		wp_ijournal_add(j, op, a, bb);
	}
	return 0;
}

static void sync_fs_of(const char *path)
{
	int fd = wp_os_open(path, WP_O_RDONLY | WP_O_CLOEXEC);
	if (fd >= 0) {
		wp_os_syncfs(fd);
		wp_os_close(fd);
	}
}

/* The environment's roots, opened: every change below is made beneath one of them, the most
 * specific that holds its path, with no symlink followed out of it (base/beneath.h). */
struct roots {
	const struct wp_ienv *env;
	int fd[6];
};

static void roots_open(struct roots *r, const struct wp_ienv *env)
{
	r->env = env;
	for (size_t i = 0; i < 6; i++) /* by its real path: a root made since wp_ienv_open (include)
					  too */
		r->fd[i] = i < env->n_roots ?
				   wp_os_open(env->real_roots[i] ? env->real_roots[i] :
								   env->roots[i],
					      WP_O_RDONLY | WP_O_DIRECTORY | WP_O_CLOEXEC) :
				   -1;
}

static void roots_close(struct roots *r)
{
	for (size_t i = 0; i < 6; i++)
		if (r->fd[i] >= 0)
			wp_os_close(r->fd[i]);
}

/* path's folder opened beneath its root; *leaf its last component. -1 (errno EXDEV: under no
 * root; ELOOP/ENOTDIR: a symlink on the way) when it cannot be. */
static int parent_of(const struct roots *r, const char *path, int *dir_fd, const char **leaf)
{
	int best = -1;
	size_t bl = 0;
	const char *rel = NULL;
	for (size_t i = 0; i < r->env->n_roots; i++) {
		const char *x = wp_beneath_rel(path, r->env->roots[i]);
		size_t l = strlen(r->env->roots[i]);
		if (x && r->fd[i] >= 0 && l > bl) {
			best = (int)i;
			bl = l;
			rel = x;
		}
	}
	if (best < 0) {
		errno = EXDEV;
		return -1;
	}
	return wp_beneath_parent(r->fd[best], rel, dir_fd, leaf);
}

static int at_unlink(const struct roots *r, const char *path, int flags)
{
	int d;
	const char *leaf;
	if (parent_of(r, path, &d, &leaf) < 0)
		return -1;
	int rc = wp_os_unlinkat(d, leaf, flags), e = errno;
	wp_os_close(d);
	errno = e;
	return rc;
}

static int at_rename(const struct roots *r, const char *from, const char *to)
{
	int fd, td;
	const char *fl, *tl;
	if (parent_of(r, from, &fd, &fl) < 0)
		return -1;
	if (parent_of(r, to, &td, &tl) < 0) {
		int e = errno;
		wp_os_close(fd);
		errno = e;
		return -1;
	}
	int rc = wp_os_renameat(fd, fl, td, tl), e = errno;
	wp_os_close(fd);
	wp_os_close(td);
	errno = e;
	return rc;
}

bool wp_ijournal_reachable(const struct wp_ienv *env, const char *dir)
{
	struct roots r;
	int d;
	const char *leaf;
	roots_open(&r, env);
	char *probe = wp_xasprintf("%s/x", dir);
	bool ok = parent_of(&r, probe, &d, &leaf) == 0;
	if (ok)
		wp_os_close(d);
	free(probe);
	roots_close(&r);
	return ok;
}

static void roll_back(struct wp_ijournal *j, const struct wp_ienv *env)
{
	struct roots r;
	roots_open(&r, env);
	for (size_t i = 0; i < j->e.n; i++)
		if (j->e.v[i].op == WP_IJ_RENAME)
			at_unlink(&r, j->e.v[i].a, 0);
	for (size_t i = j->e.n; i-- > 0;)
		if (j->e.v[i].op == WP_IJ_MKDIR)
			at_unlink(&r, j->e.v[i].a, WP_AT_REMOVEDIR);
	roots_close(&r);
}

/* Windows refuses to replace or remove a file that is in use (a running program's .exe, a loaded
 * .pyd: EACCES, EBUSY), though it may still be renamed. Such a file is moved aside, to
 * "~NAME.wp-old-PID-N" in its own folder (N: the journal entry), after its name is added to
 * <purelib>/.wheelpick-aside, and removed once nothing holds it: at the end of this run
 * (sweep_aside), else by a later one.
 * Elsewhere the rename fails as the replace did, and the replace's error is what is reported. */
static int move_aside(const struct roots *r, const char *path, size_t seq)
{
	const char *slash = strrchr(path, '/');
	struct wp_os_stat sb;
	if (!slash || wp_os_lstat(path, &sb) < 0 || WP_S_ISDIR(sb.st_mode))
		return -1;
	char *aside = wp_xasprintf("%.*s/~%s.wp-old-%ld-%zu", (int)(slash - path), path, slash + 1,
				   wp_os_getpid(), seq);
	char *list = wp_xasprintf("%s/.wheelpick-aside", r->env->py.purelib);
	int fd = wp_ienv_open_file(r->env, list, WP_O_WRONLY | WP_O_CREAT | WP_O_APPEND |
							  WP_O_CLOEXEC, 0666);
	int rc = -1;
	if (fd >= 0) {
		/* listed before it exists: a run killed after the rename still finds it */
		struct wp_buf line = WP_BUF_INIT;
		wp_buf_printf(&line, "%s\n", aside);
		bool ok = wp_os_write(fd, line.data, line.len) == (ssize_t)line.len;
		wp_buf_free(&line);
		if (wp_os_close(fd) == 0 && ok)
			rc = at_rename(r, path, aside);
	}
	free(list);
	free(aside);
	return rc;
}

/* A file in use moved aside (move_aside), then the change made again. */
static bool in_use(int e)
{
	return e == EACCES || e == EBUSY || e == EPERM;
}

/* A removal whose folder is now a symlink (swapped in since it was planned) is skipped: nothing is
 * removed through a link, as the plan itself removes nothing whose real folder is elsewhere. */
static int roll_forward(struct wp_ijournal *j, const struct wp_ienv *env, struct wp_err *err)
{
	struct roots r;
	int rc = 0;
	roots_open(&r, env);
	for (size_t i = 0; i < j->e.n && !rc; i++) {
		const struct wp_ijournal_entry *e = &j->e.v[i];
		if (e->op == WP_IJ_RENAME) {
			if (at_rename(&r, e->a, e->b) < 0 && errno != ENOENT) {
				int why = errno;
				if (!in_use(why) || move_aside(&r, e->b, i) < 0 ||
				    at_rename(&r, e->a, e->b) < 0)
					rc = wp_fs_fail(err, why, "cannot put in place", e->b);
			}
		} else if (e->op == WP_IJ_UNLINK) {
			if (at_unlink(&r, e->a, 0) < 0 && errno != ENOENT && errno != ELOOP &&
			    errno != ENOTDIR) {
				int why = errno;
				if (!in_use(why) || move_aside(&r, e->a, i) < 0)
					rc = wp_fs_fail(err, why, "cannot remove", e->a);
			}
		} else if (e->op == WP_IJ_RMDIR) {
			at_unlink(&r, e->a, WP_AT_REMOVEDIR); /* a folder something else still uses
								 stays */
		}
	}
	roots_close(&r);
	return rc;
}

/* The files moved aside (move_aside) removed where nothing holds them any more; the list keeps
 * the others for a later run. A line that is not such a file of this environment is dropped
 * unread: the list names nothing else wheelpick would remove. */
static void sweep_aside(const struct wp_ienv *env)
{
	char *list = wp_xasprintf("%s/.wheelpick-aside", env->py.purelib);
	struct wp_buf b = WP_BUF_INIT, keep = WP_BUF_INIT;
	bool found = false;
	if (wp_file_read_if_exists(list, 16 << 20, &b, &found, NULL) || !found)
		goto out;
	struct roots r;
	roots_open(&r, env);
	char *text = wp_buf_detach(&b, NULL), *save = NULL;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		const char *base = strrchr(l, '/');
		char *plain = wp_inst_lexical(l);
		bool ours = base && base[1] == '~' && strstr(base, ".wp-old-") &&
			    !strcmp(plain, l) && wp_ienv_confines(env, l);
		free(plain);
		if (ours && at_unlink(&r, l, 0) < 0 && errno != ENOENT)
			wp_buf_printf(&keep, "%s\n", l);
	}
	free(text);
	roots_close(&r);
	if (keep.len)
		wp_atomic_write(list, keep.data, keep.len, NULL);
	else
		wp_os_unlink(list);
out:
	wp_buf_free(&b);
	wp_buf_free(&keep);
	free(list);
}

/* A run killed while writing a journal (or the targets file an uninstall stages) leaves its temp
 * (the journal itself is never half written). The caller holds the environment's lock, so no temp
 * of ours is being written now, whatever its age or process: every one goes. */
static void sweep_journal_temps(const char *purelib)
{
	struct wp_os_dir *d = wp_os_opendir(purelib);
	const struct wp_os_dirent *de;
	while (d && (de = wp_os_readdir(d))) {
		if (strncmp(de->d_name, ".wheelpick-staging.journal.tmp.", 31) &&
		    strncmp(de->d_name, ".wheelpick-commit.journal.tmp.", 30) &&
		    strncmp(de->d_name, ".wheelpick-targets.tmp.", 23))
			continue;
		char *p = wp_xasprintf("%s/%s", purelib, de->d_name);
		wp_os_unlink(p);
		free(p);
	}
	if (d)
		wp_os_closedir(d);
}

/* A staging temp's base name, as add_file, the store and wp_itargets_stage make them. */
static bool staging_temp(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t n = strlen(base);
	if (n > 7 && !strncmp(base, ".wp-", 4) && !strcmp(base + n - 4, ".tmp"))
		return true;
	return !strncmp(base, ".wheelpick-targets.tmp.", 23) && base[23];
}

/* Every path of j as this environment's journal has them: plain, under its roots, renames from
 * our temps, nothing onto the journals. NULL when so, else the offending path. */
static const char *foreign_path(const struct wp_ijournal *j, const struct wp_ienv *env)
{
	for (size_t i = 0; i < j->e.n; i++) {
		const struct wp_ijournal_entry *e = &j->e.v[i];
		const char *p[2] = { e->a, e->b };
		for (size_t k = 0; k < 2; k++) {
			if (!p[k])
				continue;
			char *plain = wp_inst_lexical(p[k]);
			bool ok = !strcmp(plain, p[k]) && wp_ienv_confines(env, p[k]) &&
				  strcmp(p[k], j->commit_path) && strcmp(p[k], j->staging_path);
			free(plain);
			if (!ok)
				return p[k];
		}
		if (e->op == WP_IJ_RENAME && !staging_temp(e->a))
			return e->a;
	}
	return NULL;
}

static int refuse_foreign(const struct wp_ijournal *j, const char *path, const struct wp_ienv *env,
			  struct wp_err *err)
{
	const char *bad = foreign_path(j, env);
	char shown[200];
	if (!bad)
		return 0;
	return wp_fail(err, -WPE_INTEGRITY,
		       "'%s' names '%s', which no change wheelpick makes to this environment "
		       "would: it was not written by wheelpick, and nothing was done (remove it and check what it "
		       "names)",
		       path, wp_member_name_show(bad, strlen(bad), shown, sizeof(shown)));
}

int wp_ijournal_recover(const struct wp_ienv *env, char **what, struct wp_err *err)
{
	const char *purelib = env->py.purelib;
	struct wp_ijournal j;
	struct wp_buf b = WP_BUF_INIT;
	bool found = false;
	int rc = 0;
	*what = NULL;
	wp_ijournal_init(&j, purelib);
	if ((rc = wp_file_read_if_exists(j.commit_path, JOURNAL_MAX, &b, &found, err)))
		goto out;
	if (found) {
		if (decode(&b, &j)) {
			rc = wp_fail(err, -WPE_INTEGRITY,
				     "'%s' is damaged; an interrupted install cannot be finished "
				     "(remove it and reinstall what it names)",
				     j.commit_path);
			goto out;
		}
		if ((rc = refuse_foreign(&j, j.commit_path, env, err)))
			goto out;
		if ((rc = roll_forward(&j, env, err)))
			goto out;
		sync_fs_of(purelib);
		wp_os_unlink(j.staging_path);
		wp_os_unlink(j.commit_path);
		wp_fs_sync_dir(purelib, NULL);
		*what = wp_xstrdup("finished the change an interrupted run had committed");
		goto out;
	}
	wp_buf_free(&b);
	if ((rc = wp_file_read_if_exists(j.staging_path, JOURNAL_MAX, &b, &found, err)) || !found)
		goto out;
	if (!decode(&b, &j)) {
		if ((rc = refuse_foreign(&j, j.staging_path, env, err)))
			goto out;
		roll_back(&j, env);
	}
	wp_os_unlink(j.staging_path);
	wp_fs_sync_dir(purelib, NULL);
	*what = wp_xstrdup(
		"removed what an interrupted run had staged; the environment is as it was");
out:
	if (!rc) {
		sweep_journal_temps(purelib); /* after: a journal being finished may name one of
						 them */
		sweep_aside(env);
	}
	wp_buf_free(&b);
	wp_ijournal_release(&j);
	return rc;
}

int wp_ijournal_write_staging(struct wp_ijournal *j, struct wp_err *err)
{
	struct wp_buf b = WP_BUF_INIT;
	encode(j, true, &b);
	int rc = wp_atomic_write(j->staging_path, b.data, b.len, err);
	wp_buf_free(&b);
	return rc;
}

void wp_ijournal_abort(struct wp_ijournal *j, const struct wp_ienv *env)
{
	roll_back(j, env);
	wp_os_unlink(j->staging_path);
}

int wp_ijournal_commit(struct wp_ijournal *j, struct wp_err *err)
{
	struct wp_buf b = WP_BUF_INIT;
	char *dir = wp_xstrdup(j->commit_path);
	*strrchr(dir, '/') = 0;
	sync_fs_of(dir); /* every temp durable before the journal says they are the environment */
	encode(j, false, &b);
	int rc = wp_atomic_write(j->commit_path, b.data, b.len, err);
	wp_buf_free(&b);
	free(dir);
	return rc;
}

int wp_ijournal_apply(struct wp_ijournal *j, const struct wp_ienv *env, struct wp_err *err)
{
	char *dir = wp_xstrdup(j->commit_path);
	*strrchr(dir, '/') = 0;
	int rc = roll_forward(j, env, err);
	if (!rc) {
		sync_fs_of(dir);
		wp_os_unlink(j->staging_path);
		wp_os_unlink(j->commit_path);
		wp_fs_sync_dir(dir, NULL);
		sweep_aside(env);
	}
	free(dir);
	return rc;
}
