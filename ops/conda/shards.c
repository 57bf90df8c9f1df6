/* ops/conda/shards.c: CEP 16 sharded repodata written beside a local channel's repodata.json. */
#include "ops/conda/shards.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/mem.h"
#include "base/msgpack.h"
#include "base/vec.h"
#include "base/zstd.h"
#include "verify/hash.h"
#include "base/os/os.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One record of repodata.json: its name, which section, and where. Sorted by name (then section
 * and position), the records of one package sit together: one pass makes every shard. */
struct ref {
	const char *name, *filename;
	const struct wp_json_val *rec;
	int conda;    /* 0: "packages" (.tar.bz2), 1: "packages.conda" */
	size_t pos;
};

static int ref_cmp(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	if (x->conda != y->conda)
		return x->conda - y->conda;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static void refs_of(const struct wp_json_val *section, int conda, struct ref **v, size_t *n,
		    size_t *cap)
{
	for (size_t i = 0; i < wp_json_len(section); i++) {
		const struct wp_json_val *rec = wp_json_at(section, i);
		const char *name = wp_json_get_str(rec, "name");
		if (!name)
			continue;
		wp_vec_push_fields(*v, *n, *cap,
				   ((struct ref){ name, wp_json_key_at(section, i), rec, conda,
						  i }));
	}
}

/* One section of a shard: refs[from..to) of that section, filename -> record. */
static void shard_section(struct wp_msgpack *m, const struct ref *refs, size_t from, size_t to,
			  int conda)
{
	size_t n = 0;
	for (size_t i = from; i < to; i++)
		n += refs[i].conda == conda;
	wp_msgpack_map(m, n);
	for (size_t i = from; i < to; i++)
		if (refs[i].conda == conda) {
			wp_msgpack_str(m, refs[i].filename);
			wp_msgpack_json(m, refs[i].rec, NULL);
		}
}

/* path gets data unless it already has it: a shard's name is its hash, so one that exists is it. */
static int write_once(const char *path, const struct wp_buf *b, struct wp_err *err)
{
	struct wp_os_stat sb;
	if (wp_os_stat(path, &sb) == 0 && WP_S_ISREG(sb.st_mode) && (size_t)sb.st_size == b->len)
		return 0;
	return wp_atomic_write(path, b->data, b->len, err);
}

/* The index's created_at: the caller's SOURCE_DATE_EPOCH when given (the reproducible-builds
 * convention; cli/ reads it, the session carries it), else the
 * newest record's timestamp (conda's milliseconds, or seconds), else the epoch: the same records
 * give the same index bytes whenever they are written, so a bundle is reproducible and a re-run
 * changes nothing. The clock would make every write differ. */
static time_t created_at(const struct ref *refs, size_t n, const long long *source_date)
{
	if (source_date && *source_date >= 0)
		return (time_t)*source_date;
	long long newest = 0;
	for (size_t i = 0; i < n; i++) {
		long long ts;
		if (wp_json_as_int(wp_json_get(refs[i].rec, "timestamp"), &ts) && ts > 0) {
			if (ts > 100000000000LL) /* milliseconds, as conda-build writes it */
				ts /= 1000;
			if (ts > newest && ts < 253402300800LL) /* before year 10000: strftime's
								   four digits */
				newest = ts;
		}
	}
	return (time_t)newest;
}

int wp_shards_write(const char *subdir_path, const char *subdir, const char *repodata, size_t len,
		    const long long *source_date, struct wp_err *err)
{
	const struct wp_json_opts jo = { .what = "repodata.json", .max_bytes = len + 1 };
	struct wp_json_val *root = NULL;
	struct ref *refs = NULL;
	size_t nrefs = 0, caprefs = 0, nnames = 0;
	struct wp_buf z = WP_BUF_INIT;
	unsigned char (*hashes)[WP_SHA256_LEN] = NULL;
	const char **names = NULL;
	char *dir = wp_xasprintf("%s/shards", subdir_path);
	int rc = wp_json_load(repodata, len, &jo, &root, err);
	if (rc)
		goto out;
	refs_of(wp_json_get_obj(root, "packages"), 0, &refs, &nrefs, &caprefs);
	refs_of(wp_json_get_obj(root, "packages.conda"), 1, &refs, &nrefs, &caprefs);
	if (nrefs > 1)
		qsort(refs, nrefs, sizeof(*refs), ref_cmp);
	if ((rc = wp_mkdir_p(dir, 0755, err)))
		goto out;
	hashes = wp_xcalloc(nrefs ? nrefs : 1, sizeof(*hashes));
	names = wp_xcalloc(nrefs ? nrefs : 1, sizeof(*names));
	for (size_t i = 0, j; i < nrefs && !rc; i = j, nnames++) {
		for (j = i + 1; j < nrefs && !strcmp(refs[j].name, refs[i].name); j++)
			;
		names[nnames] = refs[i].name;
		struct wp_msgpack *m = wp_msgpack_new();
		wp_msgpack_map(m, 3);
		wp_msgpack_str(m, "packages");
		shard_section(m, refs, i, j, 0);
		wp_msgpack_str(m, "packages.conda");
		shard_section(m, refs, i, j, 1);
		wp_msgpack_str(m, "removed");
		wp_msgpack_array(m, 0);
		size_t n;
		const void *data = wp_msgpack_data(m, &n);
		if (!(rc = wp_zstd_compress(data, n, &z, err))) {
			struct wp_hasher h;
			char hex[WP_SHA256_HEX_LEN + 1];
			if (!(rc = wp_hasher_init(&h, WP_HASH_SHA256, err))) {
				wp_hasher_update(&h, z.data, z.len);
				rc = wp_hasher_final_raw(&h, hashes[nnames], NULL, err);
				wp_hasher_release(&h);
			}
			if (!rc) {
				wp_hex_encode(hashes[nnames], WP_SHA256_LEN, hex);
				char *path = wp_xasprintf("%s/%s.msgpack.zst", dir, hex);
				rc = write_once(path, &z, err);
				free(path);
			}
		}
		wp_msgpack_free(m);
	}
	if (rc)
		goto out;
	/* the index last: every shard it names is in place before it */
	struct wp_msgpack *m = wp_msgpack_new();
	char created[32];
	time_t when = created_at(refs, nrefs, source_date);
	struct tm tm;
	strftime(created, sizeof(created), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&when, &tm));
	wp_msgpack_map(m, 3);
	wp_msgpack_str(m, "version");
	wp_msgpack_int(m, 1);
	wp_msgpack_str(m, "info");
	wp_msgpack_map(m, 4);
	wp_msgpack_str(m, "subdir");
	wp_msgpack_str(m, subdir);
	wp_msgpack_str(m, "base_url");
	wp_msgpack_str(m, "./");
	wp_msgpack_str(m, "shards_base_url");
	wp_msgpack_str(m, "./shards/");
	wp_msgpack_str(m, "created_at");
	wp_msgpack_str(m, created);
	wp_msgpack_str(m, "shards");
	wp_msgpack_map(m, nnames);
	for (size_t i = 0; i < nnames; i++) {
		wp_msgpack_str(m, names[i]);
		wp_msgpack_bin(m, hashes[i], WP_SHA256_LEN);
	}
	size_t n;
	const void *data = wp_msgpack_data(m, &n);
	if (!(rc = wp_zstd_compress(data, n, &z, err))) {
		char *path = wp_xasprintf("%s/repodata_shards.msgpack.zst", subdir_path);
		rc = wp_atomic_write(path, z.data, z.len, err);
		free(path);
	}
	wp_msgpack_free(m);
out:
	free(refs);
	free(names);
	free(hashes);
	wp_buf_free(&z);
	wp_json_tree_free(root);
	free(dir);
	return rc;
}
