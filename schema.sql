-- schema.sql: the wheelpick catalog. Compiled into the binary; PRAGMA user_version is its version
-- (cache/catalog.c migrates older catalogs and refuses newer ones). Applied inside one transaction.

-- One row per crawled URL (a find-links page, a PEP 503/691 project page, a repodata.json).
CREATE TABLE IF NOT EXISTS sources (
	id             INTEGER PRIMARY KEY,
	url            TEXT NOT NULL UNIQUE,
	kind           TEXT NOT NULL,          -- findlinks | simple | simple-json | repodata
	etag           TEXT,
	last_modified  TEXT,
	fetched_at     INTEGER,                -- unix seconds of the last full refresh
	content_sha256 TEXT,                   -- of the bytes parsed, to skip unchanged pages without ETag
	n_files        INTEGER NOT NULL DEFAULT 0
);

-- One row per file a source lists. A refresh replaces a source's rows in one transaction.
CREATE TABLE IF NOT EXISTS files (
	id              INTEGER PRIMARY KEY,
	source_id       INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
	project         TEXT NOT NULL,         -- PEP 503 normalised (conda: the package name)
	version         TEXT NOT NULL,         -- as written in the file name / repodata
	variant         TEXT NOT NULL DEFAULT '', -- cu111, cpu, rocm4.0.1, cpu.cxx11.abi; '' = none
	kind            TEXT NOT NULL,         -- wheel | sdist | conda
	filename        TEXT NOT NULL,
	url             TEXT NOT NULL,         -- absolute
	sha256          TEXT,
	md5             TEXT,
	size            INTEGER,
	requires_python TEXT,
	yanked          TEXT,                  -- NULL: not yanked; '' yanked without a reason
	core_metadata   TEXT,                  -- PEP 658/714: 'true' or 'sha256=<hex>'
	tags            TEXT,                  -- wheel: 'pyt-abit-platt' exactly as in the file name
	build           TEXT,                  -- wheel build tag or conda build string
	build_number    INTEGER,
	subdir          TEXT,                  -- conda subdir
	depends         TEXT,                  -- conda: JSON array of MatchSpecs
	constrains      TEXT,
	track_features  TEXT,
	timestamp       INTEGER,
	hash_conflict   TEXT,                  -- trust on first use: the sha256 first seen, when this one differs
	UNIQUE (source_id, url)
);
CREATE INDEX IF NOT EXISTS files_by_project ON files(project, kind);
-- schema 2: no query looks files up by name, and the index cost 15% of a 300,000-record refresh
DROP INDEX IF EXISTS files_by_filename;

-- Trust on first use: the first sha256 seen for each file URL, kept across refreshes.
CREATE TABLE IF NOT EXISTS seen_hashes (
	url        TEXT PRIMARY KEY,
	sha256     TEXT NOT NULL,
	first_seen INTEGER NOT NULL
);

-- Dependency metadata read once (PEP 658 file, a Range read or the wheel) and kept.
CREATE TABLE IF NOT EXISTS metadata (
	url             TEXT PRIMARY KEY,
	requires_python TEXT,
	requires_dist   TEXT NOT NULL          -- one PEP 508 requirement per line
);
