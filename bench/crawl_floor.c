/* bench/crawl_floor.c: the floor under `wheelpick update` of one find-links page into a fresh
 * catalog (issue 42 item 5): what any tool that stores the same rows durably must at least do,
 * written plainly, so that wheelpick's crawl can be read against it.
 *
 *   crawl_floor PAGE SCHEMA_SQL DB
 *
 * One read of PAGE; a plain scan for href="..." (the page is machine-written; no HTML parser);
 * each link's file name split into project, version, tags and its folder's variant, its URL made
 * absolute; then, into a new SQLite database DB made with wheelpick's own schema.sql (so the same
 * tables and indexes take each row), one source row and one files row per link, inserted with one
 * prepared statement in one transaction, in WAL with synchronous=NORMAL, as wheelpick writes.
 * The source row keeps the page's sha256 (content_sha256, which tells the next crawl whether the
 * page changed), hashed with libcrypto's EVP as wheelpick hashes it (linked here, loaded lazily
 * there). The version's sort key is stood in for by the version's bytes (the same size, none of
 * the parsing). Prints the number of rows. No checks beyond what costs the same time. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <openssl/evp.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	struct stat sb;
	if (fd < 0 || fstat(fd, &sb) < 0)
		return NULL;
	char *p = malloc((size_t)sb.st_size + 1);
	size_t got = 0;
	while (p && got < (size_t)sb.st_size) {
		ssize_t n = read(fd, p + got, (size_t)sb.st_size - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (p)
		p[got] = 0;
	*len = got;
	return p;
}

static int die(sqlite3 *db, const char *what)
{
	fprintf(stderr, "crawl_floor: %s: %s\n", what, db ? sqlite3_errmsg(db) : "?");
	return 1;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: crawl_floor PAGE SCHEMA_SQL DB\n");
		return 2;
	}
	size_t len, slen;
	char *page = slurp(argv[1], &len), *schema = slurp(argv[2], &slen);
	if (!page || !schema) {
		perror("crawl_floor: read");
		return 1;
	}
	char base[4096];
	const char *slash = strrchr(argv[1], '/');
	snprintf(base, sizeof(base), "file://%.*s/", slash ? (int)(slash - argv[1]) : 1,
		 slash ? argv[1] : ".");
	sqlite3 *db = NULL;
	sqlite3_stmt *ins = NULL, *src = NULL;
	if (sqlite3_open_v2(argv[3], &db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
			    NULL) ||
	    sqlite3_exec(db,
			 "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA cache_size=-65536",
			 NULL, NULL, NULL) ||
	    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) ||
	    sqlite3_exec(db, schema, NULL, NULL, NULL) ||
	    sqlite3_exec(db, "PRAGMA user_version = 7; COMMIT", NULL, NULL, NULL))
		return die(db, "create");
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) ||
	    sqlite3_prepare_v2(db,
			       "INSERT INTO sources (url, kind, n_files, content_sha256, fetched_at)"
			       " VALUES (?1, 'findlinks', 0, ?2, unixepoch()) RETURNING id",
			       -1, &src, NULL) ||
	    sqlite3_prepare_v2(db,
			       "INSERT INTO files (source_id, project, version, variant, kind, filename, url, tags, vkey)"
			       " VALUES (?1, ?2, ?3, ?4, 'wheel', ?5, ?6, ?7, ?8)",
			       -1, &ins, NULL))
		return die(db, "prepare");
	unsigned char md[32];
	char hex[65];
	unsigned int mdlen = 0;
	if (!EVP_Digest(page, len, md, &mdlen, EVP_sha256(), NULL))
		return die(NULL, "sha256");
	for (unsigned int i = 0; i < mdlen; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	char url[8192];
	snprintf(url, sizeof(url), "file://%s", argv[1]);
	sqlite3_bind_text(src, 1, url, -1, SQLITE_STATIC);
	sqlite3_bind_text(src, 2, hex, -1, SQLITE_STATIC);
	if (sqlite3_step(src) != SQLITE_ROW)
		return die(db, "source");
	sqlite3_int64 sid = sqlite3_column_int64(src, 0);
	sqlite3_finalize(src);
	size_t rows = 0;
	for (char *p = page; (p = strstr(p, "href=\"")); ) {
		p += 6;
		char *end = strchr(p, '"');
		if (!end)
			break;
		size_t hl = (size_t)(end - p);
		char *name = memrchr(p, '/', hl);
		name = name ? name + 1 : p;
		size_t nl = (size_t)(end - name);
		char *d1 = memchr(name, '-', nl);
		char *d2 = d1 ? memchr(d1 + 1, '-', (size_t)(end - d1 - 1)) : NULL;
		if (!d2 || nl < 5 || memcmp(end - 4, ".whl", 4)) {
			p = end;
			continue;
		}
		char proj[256], ver[256], tags[256], variant[64] = "";
		size_t pl = (size_t)(d1 - name) < sizeof(proj) ? (size_t)(d1 - name) :
								 sizeof(proj) - 1;
		for (size_t i = 0; i < pl; i++)
			proj[i] = name[i] == '_' || name[i] == '.' ? '-' : (char)(name[i] | 0x20);
		proj[pl] = 0;
		snprintf(ver, sizeof(ver), "%.*s", (int)(d2 - d1 - 1), d1 + 1);
		snprintf(tags, sizeof(tags), "%.*s", (int)(end - 4 - d2 - 1), d2 + 1);
		if (name > p) /* the folder names the build: cu111/, cpu/ */
			snprintf(variant, sizeof(variant), "%.*s", (int)(name - 1 - p), p);
		char *plus = strchr(ver, '+');
		if (plus)
			snprintf(variant, sizeof(variant), "%s", plus + 1);
		snprintf(url, sizeof(url), "%s%.*s", base, (int)hl, p);
		sqlite3_bind_int64(ins, 1, sid);
		sqlite3_bind_text(ins, 2, proj, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 3, ver, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 4, variant, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 5, name, (int)nl, SQLITE_STATIC);
		sqlite3_bind_text(ins, 6, url, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 7, tags, -1, SQLITE_STATIC);
		sqlite3_bind_blob(ins, 8, ver, (int)strlen(ver), SQLITE_STATIC);
		if (sqlite3_step(ins) != SQLITE_DONE)
			return die(db, "insert");
		sqlite3_reset(ins);
		rows++;
		p = end;
	}
	sqlite3_finalize(ins);
	char sql[128];
	snprintf(sql, sizeof(sql), "UPDATE sources SET n_files = %zu WHERE id = %lld; COMMIT", rows,
		 (long long)sid);
	if (sqlite3_exec(db, sql, NULL, NULL, NULL))
		return die(db, "commit");
	sqlite3_close(db);
	printf("%zu\n", rows);
	free(page);
	free(schema);
	return 0;
}
