/* resolver/fileinfo.h: what a file name (and the folder it sits in) says about a file: project,
 * version, kind, tags and variant. The one place the variant rule for files lives, shared by the
 * crawler and the resolver tests. A wp_fileinfo owns its strings (wp_fileinfo_release). */
#ifndef WP_FILEINFO_H
#define WP_FILEINFO_H

#include "base/err.h"

struct wp_fileinfo {
	const char *kind; /* static: "wheel", "sdist", or "variants" (PEP 825
			     {name}-{version}-variants.json) */
	char *project;     /* PEP 503 normalised */
	char *version;     /* as written */
	char *tags;        /* wheel: "pyt-abit-platt" as in the name; NULL for sdists */
	char *build;       /* wheel build tag, or NULL */
	char variant[48]; /* "cu111", "cpu", "rocm4.0.1" ...; a PEP 825 label ("cuda12.8", "null");
			     "" for none */
};

/* The variant comes from the version's local label when it names one (+cu111), else for an
 * unlabeled file from dir (cu102/torch-1.8.0-...); a label that is no variant (+ubuntu.1) and
 * a pure wheel (platform "any") carry none. -WPE_PARSE when the name is neither a wheel nor an
 * sdist; fi then holds nothing. */
int wp_fileinfo_from_name(const char *filename, const char *dir, struct wp_fileinfo *fi,
			  struct wp_err *err);
void wp_fileinfo_release(struct wp_fileinfo *fi);

#endif

/* A conda build string's variant: py3.8_cuda11.1_cudnn8.0.5_0 -> cu111, cuda120_py312h... ->
 * cu120, py3.9_cpu_0 -> cpu; "" when the build names none. out has 48 bytes. */
void wp_conda_variant(const char *build, char out[48]);
