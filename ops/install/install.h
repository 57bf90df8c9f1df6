/* ops/install/install.h: `wheelpick install`, `uninstall` and `list --installed`: wheels into a
 * Python environment with no pip and no network. Verified first (each wheel's sha256 against the
 * requirement file, every member against RECORD), then atomic (a journal beside site-packages:
 * an interrupted run leaves the old environment, or the next run completes the new one).
 * Ownership: a job borrows its strings; a report owns what it holds (wp_install_report_release). */
#ifndef WP_OPS_INSTALL_INSTALL_H
#define WP_OPS_INSTALL_INSTALL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "env/python.h"
#include "ops/core/session.h"

enum wp_link_mode { WP_LINK_COPY, WP_LINK_HARDLINK, WP_LINK_REFLINK };

struct wp_install_job {
	const char *python;            /* NULL: $VIRTUAL_ENV/bin/python, else python3 */
	enum wp_python_scheme scheme;  /* --prefix / --target */
	const char *dir;               /* their folder */
	const char *const *sources; /* wheelhouses, bundle folders, bundles (.tar.zst, volumes),
				       .whl files */
	size_t n_sources;
	const char *const *requirements; /* -r FILE... */
	size_t n_requirements;
	const char *const *find_links; /* --find-links DIR... (for -r) */
	size_t n_find_links;
	bool compile;                  /* run compileall on the installed .py files */
	bool dry_run;                  /* check and plan, write nothing */
	bool no_deps;                  /* do not refuse a wheel whose Requires-Dist nothing meets */
	bool break_system_packages; /* install into an environment PEP 668 marks as externally
				       managed */
	bool force_reinstall; /* install a wheel again even when the same build is installed */
	int threads;                   /* 0: the number of CPUs */
	enum wp_link_mode link_mode; /* hardlink/reflink: through the unpacked store under
					store_root */
	const char *store_root;        /* the cache folder (needed for hardlink/reflink) */
	const int *gpu_sm; /* the GPUs whose kernels the wheels must carry (x10), or NULL */
	int n_gpus;
	int driver_cuda;               /* their driver's CUDA (x10), 0 unknown */
};

struct wp_install_item {
	char *name, *version;
	char *old_version;             /* the version replaced, or NULL */
	char *wheel;                   /* file name */
	long long files, bytes;
	bool satisfied; /* the same name, version and RECORD hashes were installed: nothing
			 * written (pip's "Requirement already satisfied") */
};

struct wp_install_report {
	char *executable;              /* the interpreter's sys.executable */
	char *requirements;            /* the requirement file used, or NULL */
	char *recovered; /* what an earlier interrupted run left and this one finished or undid */
	struct wp_install_item *v;
	size_t n, cap;
	long long files, bytes;        /* what was written (satisfied items aside) */
	size_t n_satisfied;
	bool link_fell_back;           /* a link mode was asked and the file system made us copy */
};

void wp_install_report_release(struct wp_install_report *rep);

int wp_install_run(const struct wp_session *s, const struct wp_install_job *job,
		   struct wp_install_report *rep, struct wp_err *err);
/* For a signal handler (async-signal-safe: unlink and rmdir only): removes what the install in
 * progress has staged, while it is still only staged; nothing once its commit has begun. */
void wp_install_on_interrupt(void);

/* What is installed in the interpreter's environment. */
struct wp_installed {
	char *name, *version;
	char *installer;               /* the INSTALLER file's first line, "" when none */
	char *dist_info;               /* its folder */
	char *variant; /* a variant wheel's label (variant.json), else a PyTorch-style local
			* label's (2.5.1+cu121: cu121), or NULL */
	char *target; /* the machine wheelpick picked it for (its requirement file says), or NULL */
	bool requested;
};

struct wp_installed_list {
	struct wp_installed *v;
	size_t n, cap;
	char *executable;
	char *recovered;
};

void wp_installed_list_release(struct wp_installed_list *l);
/* Sorted by name; finishes or undoes an interrupted install first. */
int wp_installed_list(const char *python, enum wp_python_scheme scheme, const char *dir,
		      const struct wp_asks *asks, const char *const *envp,
		      struct wp_installed_list *out, struct wp_err *err);

/* Remove each named project by its RECORD (the same journal, so an interrupted uninstall is
 * finished by the next run). -WPE_NOMATCH naming a project that is not installed (nothing is
 * removed then). A row is removed only when its folder, symlinks resolved, lies in the
 * environment (under DIR alone for --prefix/--target). An externally managed interpreter (PEP 668)
 * is refused as install refuses it unless break_system_packages. removed gets "name version" per
 * project (the caller releases it). */
int wp_uninstall_run(const struct wp_session *s, const char *python, enum wp_python_scheme scheme,
		     const char *dir, bool break_system_packages, const char *const *names,
		     size_t n, struct wp_installed_list *removed, struct wp_err *err);

#endif
