/* ops/install/internal.h: what ops/install/'s install.c, wheel.c, journal.c, store.c and envmodel.c
 * share: an environment's locations, a wheel's plan of files, the journal of one change, the store.
 * Not a public interface: everything here lives for one job. */
#ifndef WP_OPS_INSTALL_INTERNAL_H
#define WP_OPS_INSTALL_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/vec.h"
#include "env/python.h"
#include "verify/hash.h"
#include "verify/wheel.h"

/* One change to the environment, in the order it is applied. */
enum wp_ijournal_op {
	WP_IJ_MKDIR = 'M',
	WP_IJ_RENAME = 'R',
	WP_IJ_UNLINK = 'U',
	WP_IJ_RMDIR = 'D'
};

struct wp_ijournal_entry {
	char op;
	char *a, *b; /* mkdir/unlink/rmdir: a; rename: a (staged) -> b (final) */
};

WP_VEC_OF(ij_entries, struct wp_ijournal_entry);

struct wp_ijournal {
	char *staging_path; /* "<purelib>/.wheelpick-staging.journal": temps and folders, for
			       undoing */
	char *commit_path;  /* "<purelib>/.wheelpick-commit.journal": the changes, for finishing */
	struct ij_entries e;
};

struct wp_ienv;
void wp_ijournal_init(struct wp_ijournal *j, const char *purelib);
void wp_ijournal_add(struct wp_ijournal *j, char op, const char *a, const char *b);
void wp_ijournal_release(struct wp_ijournal *j);
/* An earlier run's journal: a commit journal is finished (roll forward), a staging journal alone
 * undone (roll back). *what says which ("" when there was none; the caller frees). A journal that
 * names a path outside env's roots, one not lexically plain, or a rename whose source is not a
 * staging temp of ours was not written by wheelpick: -WPE_INTEGRITY, and nothing is done. */
int wp_ijournal_recover(const struct wp_ienv *env, char **what, struct wp_err *err);
/* The staging journal, durable, before anything is created. */
int wp_ijournal_write_staging(struct wp_ijournal *j, struct wp_err *err);
/* Undo the staging (temps removed, folders made removed when empty) and drop the journal. */
void wp_ijournal_abort(struct wp_ijournal *j, const struct wp_ienv *env);
/* The commit journal, durable; from here on the change is finished even after a crash. */
int wp_ijournal_commit(struct wp_ijournal *j, struct wp_err *err);
/* Apply the renames, unlinks and rmdirs, sync, then drop both journals. Every change (here, in
 * wp_ijournal_abort and in wp_ijournal_recover) is made beneath the environment's root that holds
 * its path, through an open handle with no symlink followed (base/beneath.h). */
int wp_ijournal_apply(struct wp_ijournal *j, const struct wp_ienv *env, struct wp_err *err);
/* An existing folder opened beneath env's root that holds it, no symlink on the way: what a file
 * staged in it needs for its commit to go through. */
bool wp_ijournal_reachable(const struct wp_ienv *env, const char *dir);

/* An environment's places, from the interpreter. */
struct wp_ienv {
	struct wp_python py;
	int lock_fd;         /* purelib, flock'ed while the job runs */
	mode_t umask;
	char *root; /* --prefix/--target: DIR (resolved), the only folder changed; NULL: the default
		       scheme */
	/* the folders a change may touch, lexical and resolved (realpath): DIR alone under --prefix
	 * and
	 * --target, else sys.prefix and every scheme folder (as pip's UninstallPathSet permits) */
	char *roots[6], *real_roots[6];
	size_t n_roots;
	int root_fd[6];      /* the roots opened (wp_ienv_open), valid when fds_open */
	bool fds_open;
};

struct wp_installed_list;
/* What the environment holds now (ops/install/install.h's list), sorted by name. */
void wp_ienv_list(const struct wp_ienv *env, struct wp_installed_list *out);

int wp_ienv_open(struct wp_ienv *env, const char *python, enum wp_python_scheme scheme,
		 const char *const *envp, const char *dir, const struct wp_asks *asks,
		 char **recovered, struct wp_err *err);
void wp_ienv_close(struct wp_ienv *env);
/* An absolute, lexically plain path lies under one of env's roots (by text). */
bool wp_ienv_confines(const struct wp_ienv *env, const char *path);
/* open(2) and mkdir(2) of an absolute path beneath the root of env that holds it (the most
 * specific), no symlink followed (base/beneath.h); plain open/mkdir when env's roots are not open
 * (a test's environment). -1 with errno (EXDEV: under no root). */
int wp_ienv_open_file(const struct wp_ienv *env, const char *path, int flags, mode_t mode);
int wp_ienv_mkdir(const struct wp_ienv *env, const char *path, mode_t mode);
/* A hard link at the absolute path (beneath env's root, as above) to from, a file outside env (the
 * unpacked store): linkat(2) into the folder's handle, so a symlinked folder is never linked
 * through. */
int wp_ienv_link(const struct wp_ienv *env, const char *from, const char *path);
/* PEP 668: -WPE_USAGE when the default scheme's interpreter is externally managed, outside a venv,
 * unless allowed (--break-system-packages); what names the change ("install", "uninstall"). */
int wp_ienv_check_managed(const struct wp_ienv *env, enum wp_python_scheme scheme, bool allowed,
			  const char *what, struct wp_err *err);

/* Names the installer keeps for itself: its journals and their temps, the targets file, staging
 * temps (".wp-*.tmp"). True when any '/'-separated segment of rel is one: no wheel member,
 * launcher or RECORD row may land on one. */
bool wp_inst_reserved_name(const char *rel, size_t len);

/* A project found installed: its dist-info folder and the files its RECORD names (absolute). */
struct wp_old_dist {
	char *dist_info;     /* absolute */
	char *name, *version;
	struct wp_strlist files; /* owned strings (cast away) */
	struct wp_strlist dirs;  /* folders that may become empty, deepest first (owned) */
};

/* The installed dist-info of project (PEP 503 normalised) in purelib or platlib; 0 with
 * od->dist_info NULL when none. */
int wp_old_dist_find(const struct wp_ienv *env, const char *project, struct wp_old_dist *od,
		     struct wp_err *err);
void wp_old_dist_release(struct wp_old_dist *od);
/* The files of od into the journal as unlinks (those not in keep, a sorted list of paths the
 * new files take), then its folders as rmdirs. */
void wp_old_dist_plan_removal(const struct wp_old_dist *od, const struct wp_strlist *keep,
			      struct wp_ijournal *j);

/* One file the install writes. */
struct wp_iwheel_file {
	size_t member;       /* index in the reader, or (size_t)-1 for a generated file */
	char *dest;          /* absolute */
	char *tmp;           /* staged name beside dest (or in the dist-info's staging folder) */
	char *stage_dest; /* a new .dist-info's file: its name in that staging folder; NULL: dest */
	char *record_path;   /* as RECORD names it: relative to the lib folder, '/' separated */
	bool exec;           /* mode: executable bits */
	bool fix_shebang;    /* a .data/scripts file: "#!python" becomes the interpreter */
	bool entry_points;   /* dist-info/entry_points.txt: read while written */
	struct wp_buf content; /* generated files: their bytes */
	char hash[64];       /* "sha256=..." of what was written */
	long long size;
	char *gpu_code; /* a shared object staged by copy: its GPU code as it was written
			   (resolver/gpucode.h) */
};

WP_VEC_OF(iw_files, struct wp_iwheel_file);
WP_VEC_OF(iw_members, size_t);

struct wp_iwheel {
	char *path, *filename;
	char *project;       /* normalised */
	char *variant_label; /* PEP 825 label of its file name (parsed once, with project), or NULL
			      */
	bool requested;
	struct wp_wheel_reader *r;
	struct wp_wheel_info info;
	const char *lib;     /* purelib or platlib */
	char *dist_info_dest;
	char *dist_info_stage; /* a new .dist-info staged apart ("<lib>/.wp-...-di.tmp"), renamed
				* into place after its files, so that a run killed before its commit
				* leaves no .dist-info that pip or importlib would see; NULL when
				* the folder exists */
	struct iw_files files;
	struct iw_members drained; /* members a launcher of the same path replaced: read (RECORD
				    * checks every member) but not written */
	struct wp_buf entry_points; /* entry_points.txt as read */
	struct wp_old_dist old;
	char *sha256;        /* the wheel file's, when known (hex) */
	char *target;        /* the machine its requirement file was written for, or NULL */
	char *store; /* --link-mode hardlink|reflink: its unpacked store folder; NULL: copy */
	char *store_tmp;     /* that folder being filled (NULL when it was there already) */
	int link_mode;       /* enum wp_link_mode */
	bool link_fell_back; /* a link was refused and the file copied */
};

/* ---- the unpacked store (ops/install/store.c): a verified wheel's members kept once under the
 * cache folder, by the wheel's sha256, and linked (hard link or reflink) into environments ---- */

/* Point w at its store folder under root: when it is there, RECORD's hashes stand for the members
 * (they were checked when it was filled); else w->store_tmp is set for wp_istore_fill_member. */
int wp_istore_open(struct wp_iwheel *w, const char *root, struct wp_err *err);
/* Member i of w into w->store_tmp (a pool task). */
int wp_istore_fill_member(struct wp_iwheel *w, size_t i, mode_t umask, struct wp_err *err);
/* Every member is in: RECORD checked, the folder synced and renamed into place. */
int wp_istore_finish(struct wp_iwheel *w, struct wp_err *err);
/* Drop a half-filled store folder. */
void wp_istore_abort(struct wp_iwheel *w);
/* f's temp from the store, by w's link mode (a copy when the file system refuses). */
/* The temp is made beneath env's root handle (wp_ienv_link, wp_ienv_open_file): a hard link or a
 * clone never lands behind a symlinked folder. */
int wp_istore_place(struct wp_iwheel *w, const struct wp_ienv *env, struct wp_iwheel_file *f,
		    struct wp_err *err);

/* The files of w: every member mapped through the scheme, generated files left for later.
 * -WPE_INTEGRITY for a member whose path leaves its scheme or names an unknown scheme. */
int wp_iwheel_plan(struct wp_iwheel *w, const struct wp_ienv *env, unsigned long seq,
		   struct wp_err *err);
/* Read member i of w to its end and drop the bytes (w->drained). Thread-safe across members. */
int wp_iwheel_drain_member(struct wp_iwheel *w, size_t i, struct wp_err *err);
/* Stage file f of w (extract, fix, hash, write its temp). Thread-safe across files. */
int wp_iwheel_stage_file(struct wp_iwheel *w, const struct wp_ienv *env, struct wp_iwheel_file *f,
			 struct wp_err *err);
/* After every member is staged and RECORD checked: the launchers of entry_points.txt, INSTALLER,
 * REQUESTED, RECORD, staged too. */
int wp_iwheel_finish(struct wp_iwheel *w, const struct wp_ienv *env, unsigned long seq,
		     struct wp_err *err);
void wp_iwheel_release(struct wp_iwheel *w);

/* Write a file whole under tmp (O_EXCL, beneath env's root), mode 0666 or executable, under env's
 * umask. */
int wp_iwheel_write_tmp(const struct wp_ienv *env, const char *tmp, const void *p, size_t n,
			bool exec, struct wp_err *err);

/* The first field of each row of an installed RECORD (csv as pip reads it), each a new string
 * pushed onto out (the caller frees them); rows with an empty or NUL-holding path are skipped. */
void wp_inst_record_paths(const char *text, size_t len, struct wp_strlist *out);
/* The same, with each row's second field (its hash, "" when none) pushed onto hashes in step. */
void wp_inst_record_rows(const char *text, size_t len, struct wp_strlist *out,
			 struct wp_strlist *hashes);
/* An absolute path with "." and ".." segments and repeated '/' resolved by text alone (".." at the
 * root stays at the root), as a new string starting with '/'. */
char *wp_inst_lexical(const char *path);

/* <purelib>/.wheelpick-targets: "project\tthe target it was picked for" per line, for list
 * --installed. Not part of any project's RECORD; changed through the journal like them. */
char *wp_itargets_path(const struct wp_ienv *env);
/* Its text with the lines of the projects in drop (normalised names) left out, then add appended;
 * written under a temp name that the journal renames into place (*tmp), or, when nothing is left,
 * *tmp NULL: the journal removes the file instead. */
int wp_itargets_stage(const struct wp_ienv *env, const struct wp_strlist *drop, const char *add,
		      char **tmp, struct wp_err *err);

/* PEP 503 normalisation into a new string. */
char *wp_inst_normalize(const char *name);

#endif
