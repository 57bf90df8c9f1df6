/* verify/wheel.h: is this .whl what it claims: a sound zip whose RECORD, WHEEL and METADATA hold.
 * Ownership: struct wp_wheel_info owns every string and array in it (wp_wheel_info_release);
 * the limits are borrowed. Nothing is extracted: members are hashed as they stream past. */
#ifndef WP_WHEEL_H
#define WP_WHEEL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "verify/wheellimits.h"

struct wp_wheel_info {
	char *name;             /* from METADATA, as written */
	char *version;          /* from METADATA */
	char *requires_python;  /* NULL when absent */
	char **requires_dist;   /* PEP 508 strings in file order */
	size_t n_requires_dist;
	char **provides_extra;
	size_t n_provides_extra;
	char **tags;            /* from WHEEL: "cp38-cp38-linux_x86_64" ... */
	size_t n_tags;
	bool root_is_purelib;
	char *wheel_version;
	char *dist_info;        /* "demo_pkg-1.0.dist-info" */
	long long n_members;    /* files and directories */
	long long unpacked_size;
	/* The GPU code of its shared objects (.so/.pyd/.dll), read from the bytes the RECORD check
	 * inflated (resolver/gpucode.h's text form): NULL when it has no shared object, "" when
	 * they carry no GPU code. gpu_problem: the fatbinary reader's complaint ("member 'x.so':
	 * ..."), or NULL. */
	char *gpu_code;
	char *gpu_problem;
};

/* Verify the wheel at path; its file name (name-version-...-platform.whl) must agree with the
 * .dist-info directory and METADATA. Failures of the file are -WPE_INTEGRITY naming the member,
 * the expected and the actual value; -WPE_IO when it cannot be read at all. */
int wp_wheel_verify(const char *path, const struct wp_wheel_limits *lim, struct wp_wheel_info *info,
		    struct wp_err *err);
/* Same for a file whose own name says nothing (a store object): filename is the wheel's name. */
int wp_wheel_verify_named(const char *path, const char *filename, const struct wp_wheel_limits *lim,
			  struct wp_wheel_info *info, struct wp_err *err);
void wp_wheel_info_release(struct wp_wheel_info *info);

struct wp_wheel_stream; /* verify/wheelstream.h */
/* wp_wheel_verify_named, taking each member's hash and size from what the stream saw where it
 * agrees with the central directory; the whole second pass otherwise. s may be NULL. */
int wp_wheel_verify_streamed(const char *path, const char *filename, struct wp_wheel_stream *s,
			     const struct wp_wheel_limits *lim, struct wp_wheel_info *info,
			     struct wp_err *err);

/* NULL when an archive member name is safe to create under a directory; else why it is not
 * ("is absolute", "has a '..' segment", ...). len counts every byte, so a NUL inside is seen. */
const char *wp_member_name_problem(const char *name, size_t len);

/* A printable, quoted-safe copy of up to n bytes of name into out (size outsz): bytes outside
 * printable ASCII become \xNN, and a long name is cut with "...". Returns out. */
char *wp_member_name_show(const char *name, size_t n, char *out, size_t outsz);

/* A wheel opened for installing: the same structure checks as wp_wheel_verify (central directory,
 * local headers, one .dist-info matching the file name, WHEEL and METADATA), then each member's
 * bytes inflated once by wp_wheel_reader_extract, hashed on the way to the caller's sink, and
 * RECORD checked against those hashes by wp_wheel_reader_check. Nothing is trusted until that
 * check passes. Ownership: the reader owns its members' names and the file descriptor until
 * wp_wheel_reader_close. Extracting distinct members from several threads at once is safe. */
struct wp_wheel_reader;

struct wp_wheel_entry {
	const char *name; /* the member's path in the archive (checked by wp_member_name_problem) */
	unsigned long long size;
	unsigned mode;        /* st_mode (type and bits) from a Unix-made zip, 0 otherwise */
	int is_dir;
};

/* The bytes of one member as they inflate; a nonzero return stops the extraction with it. */
typedef int wp_wheel_sink_fn(void *ctx, const void *p, size_t n, struct wp_err *err);

int wp_wheel_reader_open(const char *path, const char *filename, const struct wp_wheel_limits *lim,
			 struct wp_wheel_reader **out, struct wp_wheel_info *info,
			 struct wp_err *err);
size_t wp_wheel_reader_count(const struct wp_wheel_reader *r);
void wp_wheel_reader_entry(const struct wp_wheel_reader *r, size_t i, struct wp_wheel_entry *e);
/* Member i through sink (NULL: hashed only), checked against its CRC-32, sizes and the ratio
 * limit; -WPE_INTEGRITY naming the member otherwise. */
int wp_wheel_reader_extract(struct wp_wheel_reader *r, size_t i, wp_wheel_sink_fn *sink, void *ctx,
			    struct wp_err *err);
/* After every file member was extracted: RECORD lists each member with the hash and size its
 * bytes had, and nothing else (as wp_wheel_verify). */
int wp_wheel_reader_check(struct wp_wheel_reader *r, struct wp_err *err);
/* For a wheel whose members were extracted and checked before (an unpacked store written from
 * it): each member's hash and size taken from RECORD without reading the members. -WPE_INTEGRITY
 * when RECORD does not list every member with a sha256. */
int wp_wheel_reader_trust_record(struct wp_wheel_reader *r, struct wp_err *err);
/* The sha256 of member i's bytes, once extracted. */
void wp_wheel_reader_sha256(const struct wp_wheel_reader *r, size_t i, unsigned char out[32]);
void wp_wheel_reader_close(struct wp_wheel_reader *r);

#endif
