/* tests/windows/smoke.c: proves the static Windows prefix (tools/win/build-prefix.sh): one .exe
 * that uses every library in it, run under wine by tests/windows/run.sh. Each check prints "ok
 * NAME" or "FAIL NAME: why"; the exit status is the number of failures. usage: smoke.exe HTTP_URL
 * EXPECTED_BODY TEMP_DIR */
#include <winsock2.h> /* before windows.h, as curl.h wants it */
#include <windows.h>
#include <bcrypt.h>

#include <archive.h>
#include <archive_entry.h>
#include <curl/curl.h>
#include <libxml/HTMLparser.h>
#include <libxml/xpath.h>
#include <msgpack.h>
#include <openssl/evp.h>
#include <sqlite3.h>
#include <yajl/yajl_tree.h>
#include <zlib.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static void check(int ok, const char *name, const char *why)
{
	if (ok) {
		printf("ok %s\n", name);
	} else {
		printf("FAIL %s: %s\n", name, why);
		failures++;
	}
	fflush(stdout);
}

struct body { char data[4096]; size_t len; };

static size_t body_write(char *p, size_t size, size_t n, void *u)
{
	struct body *b = u;
	size_t len = size * n;
	if (len > sizeof(b->data) - 1 - b->len)
		return 0;
	memcpy(b->data + b->len, p, len);
	b->len += len;
	b->data[b->len] = 0;
	return len;
}

static void test_curl(const char *url, const char *expect)
{
	struct body b = { .len = 0 };
	const curl_version_info_data *vi = curl_version_info(CURLVERSION_NOW);
	check(vi->ssl_version && strstr(vi->ssl_version, "Schannel"), "curl-schannel",
	      vi->ssl_version ? vi->ssl_version : "no TLS backend");
	CURL *c = curl_easy_init();
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, body_write);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "gzip");  /* zlib inside curl */
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
	CURLcode rc = curl_easy_perform(c);
	long status = 0;
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_cleanup(c);
	check(rc == CURLE_OK && status == 200, "curl-get", curl_easy_strerror(rc));
	check(b.len && strstr(b.data, expect) != NULL, "curl-body", b.data);
}

static void test_sqlite(const char *dir)
{
	char path[MAX_PATH];
	snprintf(path, sizeof(path), "%s\\smoke.db", dir);
	DeleteFileA(path);
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int ok = sqlite3_open(path, &db) == SQLITE_OK &&
		 sqlite3_prepare_v2(db, "PRAGMA journal_mode=WAL", -1, &st, NULL) == SQLITE_OK &&
		 sqlite3_step(st) == SQLITE_ROW &&
		 strcmp((const char *)sqlite3_column_text(st, 0), "wal") == 0;
	sqlite3_finalize(st);
	check(ok, "sqlite-wal", db ? sqlite3_errmsg(db) : "open");
	ok = sqlite3_exec(db,
			  "CREATE TABLE t(k TEXT PRIMARY KEY, v INTEGER);"
			  "INSERT INTO t VALUES('a', 1), ('b', 41);",
			  NULL, NULL, NULL) == SQLITE_OK &&
	     sqlite3_prepare_v2(db, "SELECT sum(v) FROM t", -1, &st, NULL) == SQLITE_OK &&
	     sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 42;
	sqlite3_finalize(st);
	check(ok, "sqlite-query", sqlite3_errmsg(db));
	snprintf(path, sizeof(path), "%s\\smoke.db-wal", dir);
	check(GetFileAttributesA(path) != INVALID_FILE_ATTRIBUTES, "sqlite-wal-file", path);
	sqlite3_close(db);
}

/* a pax tar with one member through FILTER, in memory, then read back with every filter enabled */
static void test_archive(int filter, const char *name)
{
	static char buf[1 << 16];
	size_t used = 0;
	const char text[] = "hello from libarchive\n";
	struct archive *w = archive_write_new();
	archive_write_set_format_pax_restricted(w);
	archive_write_add_filter(w, filter);
	int ok = archive_write_open_memory(w, buf, sizeof(buf), &used) == ARCHIVE_OK;
	struct archive_entry *e = archive_entry_new();
	archive_entry_set_pathname(e, "pkg/hello.txt");
	archive_entry_set_size(e, sizeof(text) - 1);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	ok = ok && archive_write_header(w, e) == ARCHIVE_OK &&
	     archive_write_data(w, text, sizeof(text) - 1) == (la_ssize_t)(sizeof(text) - 1) &&
	     archive_write_close(w) == ARCHIVE_OK;
	archive_entry_free(e);
	char why[256];
	snprintf(why, sizeof(why), "write: %s",
		 archive_error_string(w) ? archive_error_string(w) : "?");
	archive_write_free(w);
	check(ok, name, why);
	struct archive *r = archive_read_new();
	archive_read_support_filter_all(r);
	archive_read_support_format_tar(r);
	char got[64] = "";
	ok = archive_read_open_memory(r, buf, used) == ARCHIVE_OK &&
	     archive_read_next_header(r, &e) == ARCHIVE_OK &&
	     strcmp(archive_entry_pathname(e), "pkg/hello.txt") == 0 &&
	     archive_read_data(r, got, sizeof(got) - 1) == (la_ssize_t)(sizeof(text) - 1) &&
	     strcmp(got, text) == 0 && archive_filter_code(r, 0) == filter;
	snprintf(why, sizeof(why), "read back: %s",
		 archive_error_string(r) ? archive_error_string(r) : got);
	archive_read_free(r);
	check(ok, name, why);
}

static const char abc_sha256[] = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

static void hex(const unsigned char *d, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void test_sha256(void)
{
	unsigned char d[32];
	char h[65] = "";
	BCRYPT_ALG_HANDLE alg = NULL;
	NTSTATUS st = BCryptOpenAlgorithmProvider(&alg, BCRYPT_SHA256_ALGORITHM, NULL, 0);
	if (BCRYPT_SUCCESS(st))
		st = BCryptHash(alg, NULL, 0, (PUCHAR)"abc", 3, d, sizeof(d));
	if (alg)
		BCryptCloseAlgorithmProvider(alg, 0);
	if (BCRYPT_SUCCESS(st))
		hex(d, sizeof(d), h);
	check(strcmp(h, abc_sha256) == 0, "sha256-bcrypt", h);
	unsigned int n = 0;
	h[0] = 0;
	if (EVP_Digest("abc", 3, d, &n, EVP_sha256(), NULL) == 1 && n == 32)
		hex(d, n, h);
	check(strcmp(h, abc_sha256) == 0, "sha256-libcrypto", h);
}

static void test_zlib(void)
{
	const char src[] = "zlib zlib zlib zlib zlib zlib zlib zlib";
	unsigned char z[128], back[128];
	uLongf zn = sizeof(z), bn = sizeof(back);
	int ok = compress(z, &zn, (const Bytef *)src, sizeof(src)) == Z_OK &&
		 uncompress(back, &bn, z, zn) == Z_OK && bn == sizeof(src) &&
		 memcmp(back, src, bn) == 0;
	check(ok, "zlib", zlibVersion());
}

static void test_xml(void)
{
	const char html
		[] = "<html><body><a href=\"torch-1.8.0%2Bcu111-cp38-cp38-win_amd64.whl#sha256=ab\">"
		     "torch</a></body></html>";
	htmlDocPtr doc = htmlReadMemory(html, sizeof(html) - 1, "http://127.0.0.1/", "utf-8",
					HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
						HTML_PARSE_NONET);
	xmlXPathContextPtr ctx = doc ? xmlXPathNewContext(doc) : NULL;
	xmlXPathObjectPtr res = ctx ? xmlXPathEvalExpression((const xmlChar *)"string(//a/@href)",
							     ctx) :
				      NULL;
	int ok = res && res->stringval &&
		 strncmp((const char *)res->stringval, "torch-1.8.0%2Bcu111", 19) == 0;
	check(ok, "libxml2-html", res && res->stringval ? (const char *)res->stringval : "no href");
	xmlXPathFreeObject(res);
	xmlXPathFreeContext(ctx);
	xmlFreeDoc(doc);
}

static void test_yajl(void)
{
	char err[128] = "";
	yajl_val v = yajl_tree_parse("{\"name\": \"torch\", \"n\": [1, 2, 3]}", err, sizeof(err));
	const char *path[] = { "name", NULL };
	yajl_val name = v ? yajl_tree_get(v, path, yajl_t_string) : NULL;
	check(name && strcmp(name->u.string, "torch") == 0, "yajl", err);
	yajl_tree_free(v);
}

static void test_msgpack(void)
{
	msgpack_sbuffer sb;
	msgpack_sbuffer_init(&sb);
	msgpack_packer pk;
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, 1);
	msgpack_pack_str(&pk, 4);
	msgpack_pack_str_body(&pk, "size", 4);
	msgpack_pack_uint64(&pk, 5000000000ULL);
	msgpack_unpacked up;
	msgpack_unpacked_init(&up);
	int ok = msgpack_unpack_next(&up, sb.data, sb.size, NULL) == MSGPACK_UNPACK_SUCCESS &&
		 up.data.type == MSGPACK_OBJECT_MAP && up.data.via.map.size == 1 &&
		 up.data.via.map.ptr[0].val.via.u64 == 5000000000ULL;
	msgpack_unpacked_destroy(&up);
	msgpack_sbuffer_destroy(&sb);
	check(ok, "msgpack", "round trip");
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: smoke.exe HTTP_URL EXPECTED_BODY TEMP_DIR\n");
		return 100;
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	test_curl(argv[1], argv[2]);
	curl_global_cleanup();
	test_sqlite(argv[3]);
	test_archive(ARCHIVE_FILTER_GZIP, "archive-tar-gz");
	test_archive(ARCHIVE_FILTER_ZSTD, "archive-tar-zst");
	test_archive(ARCHIVE_FILTER_BZIP2, "archive-tar-bz2");
	test_archive(ARCHIVE_FILTER_XZ, "archive-tar-xz");
	test_sha256();
	test_zlib();
	test_xml();
	test_yajl();
	test_msgpack();
	printf("%d failure(s)\n", failures);
	return failures;
}
