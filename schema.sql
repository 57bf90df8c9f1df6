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

-- One row per wheel or sdist a source lists (conda records are in conda_chunks). A refresh
-- replaces a source's rows in one transaction.
CREATE TABLE IF NOT EXISTS files (
	id              INTEGER PRIMARY KEY,
	source_id       INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
	project         TEXT NOT NULL,         -- PEP 503 normalised (conda: the package name)
	version         TEXT NOT NULL,         -- as written in the file name / repodata
	variant         TEXT NOT NULL DEFAULT '', -- cu111, cpu, rocm4.0.1, cpu.cxx11.abi; a PEP 825 label
	                                       -- (cuda12.8, null: schema 6); '' = none
	kind            TEXT NOT NULL,         -- wheel | sdist | variants (schema 6: a PEP 825
	                                       -- {name}-{version}-variants.json the page lists; never a
	                                       -- candidate) (schema 1-2: conda too)
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
	vkey            BLOB,                  -- schema 7: the version's sort key (resolver/version.h
	                                       -- wp_version_key: memcmp order is PEP 440's); NULL when the
	                                       -- version is no PEP 440 version, and for conda rows
	UNIQUE (source_id, url)
);
-- schema 7: a pick reads a project's rows newest first and stops when it has its answer (a
-- catalog with 100 copies of the 2021 page holds 77,700 torch rows; reading and parsing them all
-- was 90% of a warm pick), and an == pin reads one key range. The sources that list a project are
-- found by seeking files_by_kind, not by reading its rows. (migrate() adds vkey to an older
-- catalog before this runs.)
DROP INDEX IF EXISTS files_by_project;
CREATE INDEX IF NOT EXISTS files_by_kind ON files(project, kind, source_id);
CREATE INDEX IF NOT EXISTS files_by_version ON files(project, vkey);
-- A pick reads only the sources its project may come from (the first index that lists it): per
-- source, newest first, merged (cache/catalog.c). Without it a pick over 10 copies of the 100x page
-- read and skipped 44,100 rows of the other 9. No schema bump: migrate() adds it to a schema 7
-- catalog that lacks it, and a reader that cannot write reads through files_by_version as before.
CREATE INDEX IF NOT EXISTS files_by_source_version ON files(project, source_id, vkey);
-- schema 2: no query looks files up by name, and the index cost 15% of a 300,000-record refresh
DROP INDEX IF EXISTS files_by_filename;

-- Trust on first use (schema 5): the first sha256 seen for each file, kept across refreshes and
-- sources. Keyed by what the file is (cache/catalog.c tofu_key: project, canonical version, build,
-- tags, kind, and the variant its folder gives an unlabeled build), not by where it was found: the
-- same name re-published in another folder, under a query string, another spelling or on another
-- host is held to the first bytes. (Schemas 1-4 keyed seen_hashes by URL, which that sidestepped.)
CREATE TABLE IF NOT EXISTS seen_files (
	key        TEXT PRIMARY KEY,
	sha256     TEXT NOT NULL,
	url        TEXT NOT NULL,              -- where it was first seen (`trust URL-PATTERN` matches it)
	first_seen INTEGER NOT NULL
) WITHOUT ROWID;

-- Dependency metadata read once (PEP 658 file, a Range read or the wheel) and kept.
CREATE TABLE IF NOT EXISTS metadata (
	url             TEXT PRIMARY KEY,
	requires_python TEXT,
	requires_dist   TEXT NOT NULL,         -- one PEP 508 requirement per line
	checked         INTEGER NOT NULL DEFAULT 0 -- schema 5: 1 once it is the wheel's own METADATA (read
	                                       -- from the proven wheel, or compared with it); a PEP 658
	                                       -- file or a Range read is 0 until the wheel is fetched
);

-- schema 3: conda records, packed (cache/condapack.h). A channel lists hundreds of thousands of
-- files and one row per file, with its URL in two indexes and in seen_hashes, made storing a
-- 300,000-record repodata take 9 s. One row per package per written batch instead; every
-- wp_file_row field is in the blob.
CREATE TABLE IF NOT EXISTS conda_chunks (
	id        INTEGER PRIMARY KEY,
	source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
	project   TEXT NOT NULL,               -- the package name
	n_files   INTEGER NOT NULL,
	conflicts INTEGER NOT NULL,            -- records with a hash_conflict, for `trust`
	records   BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS conda_chunks_by_project ON conda_chunks(project);
CREATE INDEX IF NOT EXISTS conda_chunks_by_source ON conda_chunks(source_id);

-- Trust on first use for conda files (schema 5): per package and subdir (the channel folder's
-- name, linux-64 or noarch, since conda file names do not name the platform), the sha256 first
-- seen for each file name, packed and sorted, so that a refresh checks a package with one lookup.
-- Any channel URL (a mirror, another spelling) is held to the first bytes. (Schemas 3-4 keyed
-- conda_seen by the folder's URL.)
CREATE TABLE IF NOT EXISTS conda_seen_files (
	subdir  TEXT NOT NULL,
	project TEXT NOT NULL,
	hashes  BLOB NOT NULL,
	PRIMARY KEY (subdir, project)
);

-- schema 6: PEP 825 variant metadata, the bytes of each {name}-{version}-variants.json read (the
-- labels and their properties), keyed by URL like metadata. The link itself is a files row of kind
-- 'variants', replaced with its page; the body is kept across refreshes and read again when the
-- page gives another sha256 (PEP 825: the file may grow when a variant is added).
CREATE TABLE IF NOT EXISTS variants_json (
	url        TEXT PRIMARY KEY,
	sha256     TEXT NOT NULL,              -- of body
	body       TEXT NOT NULL,
	fetched_at INTEGER NOT NULL
);

-- PEP 740 provenance (no schema bump: cache/provstore.c creates it in a schema 7 catalog on its
-- first write): the URL of each file's provenance, as its page gave it (PEP 691 "provenance", HTML
-- data-provenance). A table of its own so the files insert a refresh runs per row is unchanged.
CREATE TABLE IF NOT EXISTS file_provenance (
	url        TEXT PRIMARY KEY,           -- the file's absolute URL (files.url)
	provenance TEXT NOT NULL               -- absolute URL of its provenance JSON
) WITHOUT ROWID;
