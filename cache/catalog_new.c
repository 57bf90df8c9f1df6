/* cache/catalog_new.c: a new catalog appears whole, with its schema, in WAL mode.
 *
 * Why: SQLite makes a new database in rollback-journal mode; switching it to WAL and writing the
 * schema are two more transactions, and a first `update` paid four fdatasyncs for them (journal,
 * folder, journal, database) before its own. Here the schema is written into a memory database,
 * its bytes are marked as a WAL database (file format bytes 18 and 19, which is all
 * `PRAGMA journal_mode=WAL` changes), written to an unnamed file in the catalog's folder, synced
 * once, linked in under the catalog's name, and the folder synced: two syncs. No other process
 * ever sees the file without its schema; one killed meanwhile leaves nothing behind (the unnamed
 * file goes with it); of two first updates at once, link() lets one make the file and the other
 * opens it. Where any step is not possible (no O_TMPFILE on the file system, no /proc), the
 * caller lets SQLite create the file as before. */
#include "cache/catalog_new.h"
#include "base/fs.h"
#include "base/os/os.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char wp_schema_sql[];

/* The bytes of an empty catalog at `version`, in WAL mode; sqlite3_free them. NULL on failure. */
static unsigned char *empty_catalog(int version, sqlite3_int64 *size)
{
	sqlite3 *db = NULL;
	unsigned char *bytes = NULL;
	char sql[64];
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", version);
	if (sqlite3_open_v2(":memory:", &db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY | SQLITE_OPEN_NOMUTEX,
			    NULL) == SQLITE_OK &&
	    sqlite3_exec(db, wp_schema_sql, NULL, NULL, NULL) == SQLITE_OK &&
	    sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK)
		bytes = sqlite3_serialize(db, "main", size, 0);
	sqlite3_close(db);
	/* a database file is at least its 100-byte header; bytes 18 and 19 are the write and read
	 * format versions: 1 legacy (rollback journal), 2 WAL */
	if (bytes && *size >= 100) {
		bytes[18] = bytes[19] = 2;
		return bytes;
	}
	sqlite3_free(bytes);
	return NULL;
}

static bool write_all(int fd, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t w = wp_os_write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

/* Gives the unnamed file fd the name path; 0, or an errno (EEXIST: another process was first). */
static int link_unnamed(int fd, const char *path)
{
	/* /proc/self/fd, else AT_EMPTY_PATH, where the system has them (base/os) */
	return wp_os_link_tmpfile(fd, path) == 0 ? 0 : errno;
}

bool wp_catalog_create_new(const char *path, int version, bool *made_here)
{
	struct wp_os_stat sb;
	if (made_here)
		*made_here = false;
	if (wp_os_lstat(path, &sb) == 0 || errno != ENOENT)
		return false;
	const char *base = wp_path_base(path), *slash = base == path ? NULL : base - 1; /* '\\' too
											   on
											   Windows
											 */
	char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	sqlite3_int64 size = 0;
	unsigned char *bytes = dir ? empty_catalog(version, &size) : NULL;
	int fd = bytes ? wp_os_open_tmpfile(dir, WP_O_RDWR | WP_O_CLOEXEC, 0644) : -1;
	bool made = false;
	if (fd >= 0 && write_all(fd, bytes, (size_t)size) && wp_os_fdatasync(fd) == 0) {
		int e = link_unnamed(fd, path);
		made = e == 0 || e == EEXIST;
		if (made_here)
			*made_here = e == 0;
		if (e == 0) {
			/* the name is durable once its folder is */
			int dfd = wp_os_open(dir, WP_O_RDONLY | WP_O_DIRECTORY | WP_O_CLOEXEC);
			if (dfd >= 0) {
				wp_os_fsync(dfd);
				wp_os_close(dfd);
			}
		}
	}
	if (fd >= 0)
		wp_os_close(fd);
	sqlite3_free(bytes);
	free(dir);
	return made;
}
