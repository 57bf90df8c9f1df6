/* verify/wheelstream.h: a wheel's members hashed while its bytes arrive, for
 * wp_wheel_verify_streamed (verify/wheel.h). Ownership: wp_wheel_stream_new returns a stream the
 * caller frees with wp_wheel_stream_free; it owns every member record and capture in it, and its
 * pool's threads. The limits are copied. One feeder at a time (the pool's threads are its own). */
#ifndef WP_WHEELSTREAM_H
#define WP_WHEELSTREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "verify/hash.h"
#include "verify/wheellimits.h"

/* One member as its local header and its data said, in file order. */
struct wp_wheel_smember {
	char *name;
	uint64_t offset;        /* of its local header */
	uint64_t csize, usize;  /* as the local header claims them */
	uint64_t actual;        /* uncompressed bytes its data produced */
	uint16_t method;
	bool is_dir;
	bool done;              /* all its data went past */
	bool bad; /* past a claim or a limit, or data that does not decode: not taken */
	bool captured;          /* a dist-info file the verifier parses: capture holds it */
	bool crc_checked;       /* crc holds the CRC-32 of its bytes (dist-info files only) */
	bool shared_object;     /* a .so/.pyd/.dll whose GPU code is read as its bytes pass */
	char *gpu_code; /* what was read (resolver/gpucode.h's text form; "" none); NULL unread */
	char *gpu_problem; /* the reader's complaint (a container it does not know); NULL none */
	uint32_t crc;
	unsigned char sha256[WP_SHA256_LEN];
	struct wp_buf capture;
};

struct wp_wheel_stream;

/* lim may be NULL (the defaults); it must be the one the verification uses. */
struct wp_wheel_stream *wp_wheel_stream_new(const struct wp_wheel_limits *lim);
/* The next n bytes of the file, in order. Never fails: what it cannot follow, it gives up on,
 * and the verifier then reads the file again. */
void wp_wheel_stream_feed(struct wp_wheel_stream *s, const void *p, size_t n);
/* The bytes fed are also written to the file at path, each before it is fed (a download's temp
 * file): the members' data is then read back from it and inflated and hashed on a pool of threads
 * (threads <= 0: one per core, at most 8), each thread following its member as the bytes arrive.
 * Stored members, and those of a small file, stay on the feeder. Call before the first feed;
 * -1 (and everything stays on the feeder) when called after it. */
int wp_wheel_stream_use_file(struct wp_wheel_stream *s, const char *path, int threads);
/* The same, reading back through a duplicate of fd (a file already whole: the verifier's own);
 * every member's CRC-32 is then computed too, so that the verdict is the full pass's. */
int wp_wheel_stream_use_fd(struct wp_wheel_stream *s, int fd, int threads);
/* The stream also takes the sha256 of the whole file, every byte fed (the store writer then hashes
 * nothing: wp_store_writer's tap_sha256): a stored member's bytes go into the file's digest and its
 * own in one pass (why both are needed: wheelstream.c). Call before the first feed; -1 after it. */
int wp_wheel_stream_hash_file(struct wp_wheel_stream *s);
/* The file's digest and how many bytes it covers (every byte fed since the start or the last
 * reset); -1 when the stream was not asked to take it, or already gave it. */
int wp_wheel_stream_file_sha256(struct wp_wheel_stream *s, unsigned char out[WP_SHA256_LEN],
				long long *len);
/* Which deflated members the pool takes: those of at least min_member compressed bytes, and every
 * one past byte after of the file (defaults 256 KiB and 1 MiB; the tests give it all with 0, 0). */
void wp_wheel_stream_pool_from(struct wp_wheel_stream *s, uint64_t min_member, uint64_t after);
/* No more bytes will come: wait for the pool's members (one cut short is left not done). Before
 * reading the members; wp_wheel_verify_streamed calls it. */
void wp_wheel_stream_settle(struct wp_wheel_stream *s);
/* The file starts over at byte 0. */
void wp_wheel_stream_reset(struct wp_wheel_stream *s);
void wp_wheel_stream_free(struct wp_wheel_stream *s);

/* Every member up to the central directory went past, and nothing was given up on. */
bool wp_wheel_stream_complete(const struct wp_wheel_stream *s);
/* The members, in file order (offsets increasing); still owned by the stream. */
struct wp_wheel_smember *wp_wheel_stream_take(struct wp_wheel_stream *s, size_t i);
const struct wp_wheel_smember *wp_wheel_stream_members(const struct wp_wheel_stream *s, size_t *n);

#endif
