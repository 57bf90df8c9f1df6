/* resolver/condapick.h: the conda picking rule: subdir, Python and virtual packages first, then the
 * CUDA rule (DESIGN.md) on conda records, then newest version, newest fitting CUDA, build number,
 * fewest track_features, newest timestamp; with a reason for the pick and for every rejected
 * record. Pure: no I/O. Candidates are borrowed for the call. A wp_condapick_result owns its
 * strings (wp_condapick_result_release); parsed specs from wp_condapick_deps belong to the caller.
 *
 * Channel priority is the caller's: conda's strict priority means handing this one channel's
 * candidates at a time, highest priority first, and taking the first channel with a pick. */
#ifndef WP_CONDAPICK_H
#define WP_CONDAPICK_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "resolver/ask.h"
#include "resolver/matchspec.h"
#include "resolver/pick.h"
#include "resolver/target.h"
#include "resolver/variant.h"

/* One conda record, as the catalog's wp_file_row carries it (project = name). */
struct wp_conda_candidate {
	const char *name;
	const char *version;
	const char *build;          /* py3.8_cuda11.1_cudnn8.0.5_0 */
	long long build_number;
	const char *depends;        /* JSON array text, or NULL */
	const char *constrains;     /* JSON array text, or NULL */
	const char *track_features; /* space- or comma-separated, or NULL */
	const char *subdir;         /* linux-64, noarch ... (NULL: unknown, taken as fitting) */
	long long timestamp;        /* ms since the epoch; <= 0 unknown */
	const char *filename;       /* pytorch-1.8.0-py3.8_cuda11.1_cudnn8.0.5_0.tar.bz2 */
	const char *url;
	const char *md5, *sha256;
	const char *hash_conflict; /* the sha256 first seen, when the channel now gives another; or
				      NULL */
};

struct wp_condapick_request {
	const char *spec_text;              /* for messages: "pytorch 1.8.0" */
	const struct wp_matchspec *spec;    /* required; its name names the package */
	const char *require_variant; /* the set's variant label ("cu111", "cpu", "") or NULL */
	const char **avoid_variants;        /* labels already found unable to complete the set */
	size_t n_avoid;
	const char *allow_variant; /* a label the set took by an exact build string the user gave
				      ("py3.8_cpu_0" on a GPU target): its records pass the CUDA
				      rule too, as the root did; NULL: none */
	const struct wp_asks *asks; /* how the user asks for what a message advises; NULL: plain
				       words */
};

struct wp_condapick_result {
	long chosen;                  /* index into the candidates; -1 when nothing fits */
	struct wp_variant variant;    /* of the chosen record: cu111, cpu, or kind NONE */
	char *reason;                 /* why this one (owned) */
	char *message; /* when nothing fits: what exists and why each was rejected (owned) */
	struct wp_pick_reject *rejects; /* every other candidate, with its reason (owned) */
	size_t n_rejects, cap_rejects;
	/* >= 0 (chosen -1, message set): the record that fits has other bytes than were first seen
	 * for its name and no trusted record ranks with it; the pick stops (no substitution). -1
	 * otherwise. */
	long untrusted;
};

/* The target's conda subdir: t->conda_subdir, else derived from t->platform (manylinux_*_x86_64
 * -> linux-64, macosx_*_arm64 -> osx-arm64, win_amd64 -> win-64 ...); "" when unknown. */
void wp_condapick_subdir(const struct wp_target *t, char out[32]);

/* The CUDA rule for one record (what `list --conda` shows): a CUDA build when its depends name
 * cudatoolkit, cuda-version, pytorch-cuda or cuda-cudart with a version (its CUDA version is the
 * lowest those admit, the highest floor when several do: "cudatoolkit >=11.1,<11.2" -> 11.1,
 * "cuda-version >=12.0,<13" -> 12.0), or its build string says so (cuda11.1, cuda120), or it
 * depends on "pytorch-mutex * cuda" or __cuda (then of unknown version: major 0, label "cuda");
 * a CPU build when it depends on cpuonly or "pytorch-mutex * cpu", or its build string has a
 * "cpu" word; else kind NONE. Unreadable depends count as none. */
void wp_condapick_variant(const struct wp_conda_candidate *c, struct wp_variant *v);

/* Picks one record for req->spec among cands (one package name, one channel). A record fits when
 * the spec matches (name, version, build, build_number; its channel by the URL, its subdir), its
 * subdir is the target's or noarch, its python / python_abi depends admit the target's X.Y.0
 * (X.Y for python_abi; builds *_cpXY for CPython), its virtual packages exist on the target
 * (__cuda only with a CUDA target, at the target's CUDA version; __glibc at the target's glibc on
 * Linux; __linux, __unix, __osx, __win by subdir; __archspec any), its constrains on virtual
 * packages the target has hold, and the CUDA rule lets it run (a CUDA build not newer than the
 * target's CUDA; a CPU build only for a CPU target). Among those: the newest version, then the
 * target's kind of build before one with no variant, then the newest CUDA, then the higher
 * build_number, then fewer track_features, then the newer timestamp. (conda's own solver weighs
 * track_features before the version; wheelpick picks the version first, as DESIGN.md asks, and says
 * so.) Returns 0 with res->chosen set (or -1 and res->message); a negative -WPE_* only for a
 * missing request. res is overwritten; release it after either outcome. */
int wp_condapick(const struct wp_conda_candidate *cands, size_t n,
		 const struct wp_condapick_request *req, const struct wp_target *t,
		 struct wp_condapick_result *res, struct wp_err *err);
void wp_condapick_result_release(struct wp_condapick_result *res);

/* The record's depends as MatchSpecs, without virtual packages (__cuda, __glibc ...): what a
 * closure walk must still find. *out holds *n specs; free with wp_matchspecs_free. -WPE_PARSE
 * naming the record when its depends are unreadable. */
int wp_condapick_deps(const struct wp_conda_candidate *c, struct wp_matchspec **out, size_t *n,
		      struct wp_err *err);

/* Human form for messages: "CUDA 11.2, Python 3.8, linux-64". out is appended to. */
void wp_condapick_describe_target(const struct wp_target *t, struct wp_buf *out);

#endif
