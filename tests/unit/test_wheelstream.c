/* tests/unit/test_wheelstream.c: a wheel checked from the bytes streamed past must get exactly the
 * verdict of the full second pass, for every fixture wheel, good and bad, however the bytes are
 * cut. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/unit/tmpdir.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/mem.h"
#include "verify/hash.h"
#include "verify/sha256pair.h"
#include "verify/wheel.h"
#include "verify/wheelstream.h"

struct fx {
	char dir[64];
};

static int fx_setup(void **state)
{
	struct fx *fx = wp_xcalloc(1, sizeof(*fx));
	if (test_tmpdir_make(fx->dir, sizeof(fx->dir), "wstream") < 0)
		return -1;
	char *cmd = wp_xasprintf("python3 tests/fixtures/mkwheels.py '%s' >/dev/null", fx->dir);
	int rc = system(cmd);
	free(cmd);
	/* two shapes mkwheels.py does not make: members stored, and members written to a pipe (each
	 * followed by a data descriptor, which the stream hands to the second pass) */
	cmd = wp_xasprintf(
		"python3 - '%s' <<'EOF'\n"
		"import base64, hashlib, io, sys, zipfile\n"
		"def wheel(path, name, method, pipe):\n"
		"    files = {name + '/__init__.py': b'VALUE = 42\\n', name + '/data.bin': bytes(range(256)) * 40,\n"
		"             name + '-1.0.dist-info/METADATA': ('Metadata-Version: 2.1\\nName: %%s\\nVersion: 1.0\\n' %% name).encode(),\n"
		"             name + '-1.0.dist-info/WHEEL': b'Wheel-Version: 1.0\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n'}\n"
		"    rec = ''.join('%%s,sha256=%%s,%%d\\n' %% (n, base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b'=').decode(), len(d)) for n, d in files.items())\n"
		"    files[name + '-1.0.dist-info/RECORD'] = (rec + name + '-1.0.dist-info/RECORD,,\\n').encode()\n"
		"    raw = io.BytesIO()\n"
		"    class Pipe(io.RawIOBase):\n"
		"        def writable(self): return True\n"
		"        def write(self, b): return raw.write(b)\n"
		"    with zipfile.ZipFile(Pipe() if pipe else raw, 'w', method) as z:\n"
		"        for n, d in files.items():\n"
		"            z.writestr(n, d)\n"
		"    open(path, 'wb').write(raw.getvalue())\n"
		"d = sys.argv[1]\n"
		"wheel(d + '/stored_pkg-1.0-py3-none-any.whl', 'stored_pkg', zipfile.ZIP_STORED, False)\n"
		"wheel(d + '/piped_pkg-1.0-py3-none-any.whl', 'piped_pkg', zipfile.ZIP_DEFLATED, True)\n"
		"import random\n"
		"def many(path, name, edit=None, big=False):\n"
		"    r = random.Random(7)\n"
		"    words = [bytes(r.choice(b'abcdefghij_ ()') for _ in range(r.randint(2, 9))) for _ in range(300)]\n"
		"    files = {}\n"
		"    for i in range(120):\n"
		"        files['%%s/m%%03d.py' %% (name, i)] = b' '.join(r.choice(words) for _ in range(r.randint(10, 9000)))\n"
		"    files[name + '/lib.so'] = b''.join(r.choice(words) + r.randbytes(r.randint(0, 8)) for _ in range(150000))\n"
		"    if big: files[name + '/data.bin'] = r.randbytes(5 << 20)\n"
		"    files[name + '-1.0.dist-info/METADATA'] = ('Metadata-Version: 2.1\\nName: %%s\\nVersion: 1.0\\n' %% name).encode()\n"
		"    files[name + '-1.0.dist-info/WHEEL'] = b'Wheel-Version: 1.0\\nRoot-Is-Purelib: false\\nTag: py3-none-any\\n'\n"
		"    rec = ''.join('%%s,sha256=%%s,%%d\\n' %% (n, base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b'=').decode(), len(d)) for n, d in files.items())\n"
		"    files[name + '-1.0.dist-info/RECORD'] = (rec + name + '-1.0.dist-info/RECORD,,\\n').encode()\n"
		"    raw = io.BytesIO()\n"
		"    with zipfile.ZipFile(raw, 'w', zipfile.ZIP_DEFLATED) as z:\n"
		"        for n, dd in files.items():\n"
		"            z.writestr(n, dd, zipfile.ZIP_STORED if n.endswith('.bin') else zipfile.ZIP_DEFLATED)\n"
		"    b = bytearray(raw.getvalue())\n"
		"    if edit: edit(b)\n"
		"    open(path, 'wb').write(bytes(b))\n"
		"def flip(at):\n"
		"    def e(b): b[int(len(b) * at)] ^= 0x55\n"
		"    return e\n"
		"import os\n"
		"os.mkdir(d + '/many')\n"
		"many(d + '/many/many_pkg-1.0-py3-none-any.whl', 'many_pkg')\n"
		"for k, at in enumerate((0.2, 0.5, 0.8, 0.9)):\n"
		"    many(d + '/many/flip%%d_pkg-1.0-py3-none-any.whl' %% k, 'flip%%d_pkg' %% k, flip(at))\n"
		"os.mkdir(d + '/big')\n"
		"def crc(b):\n"
		"    z = zipfile.ZipFile(io.BytesIO(bytes(b)))\n"
		"    i = [x for x in z.infolist() if x.filename.endswith('m007.py')][0]\n"
		"    c = (i.CRC ^ 1).to_bytes(4, 'little')\n"
		"    b[i.header_offset + 14:i.header_offset + 18] = c\n"
		"    cd = b.rfind(b'PK\\x01\\x02' + b[b.find(b'PK\\x01\\x02') + 4:b.find(b'PK\\x01\\x02') + 6], 0, len(b))\n"
		"    at = b.find(i.filename.encode(), b.find(b'PK\\x01\\x02')) - 46\n"
		"    b[at + 16:at + 20] = c\n"
		"many(d + '/big/big_pkg-1.0-py3-none-any.whl', 'big_pkg', big=True)\n"
		"many(d + '/big/bigflip_pkg-1.0-py3-none-any.whl', 'bigflip_pkg', flip(0.05), big=True)\n"
		"many(d + '/big/bigcrc_pkg-1.0-py3-none-any.whl', 'bigcrc_pkg', crc, big=True)\n"
		"EOF",
		fx->dir);
	if (!rc)
		rc = system(cmd);
	free(cmd);
	*state = fx;
	return rc == 0 ? 0 : -1;
}

static int fx_teardown(void **state)
{
	struct fx *fx = *state;
	int rc = test_tmpdir_remove(fx->dir);
	free(fx);
	return rc;
}

static struct wp_wheel_stream *streamed(const struct wp_buf *b, size_t cut)
{
	struct wp_wheel_stream *s = wp_wheel_stream_new(NULL);
	for (size_t off = 0; off < b->len; off += cut)
		wp_wheel_stream_feed(s, b->data + off, b->len - off < cut ? b->len - off : cut);
	return s;
}

/* Every fixture, cut in pieces of 1, 7, 4096 bytes and whole: the same code and message. */
static void test_same_verdict(void **state)
{
	struct fx *fx = *state;
	static const size_t cuts[] = { 1, 7, 4096, (size_t)1 << 30 };
	DIR *d = opendir(fx->dir);
	struct dirent *e;
	int n = 0, fast = 0;
	assert_non_null(d);
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 4 || strcmp(e->d_name + len - 4, ".whl") != 0)
			continue;
		char *path = wp_xasprintf("%s/%s", fx->dir, e->d_name);
		struct wp_buf b = WP_BUF_INIT;
		struct wp_err err = WP_ERR_INIT, err2 = WP_ERR_INIT;
		assert_int_equal(wp_file_read_capped(path, 64 << 20, &b, &err), 0);
		int want = wp_wheel_verify_named(path, e->d_name, NULL, NULL, &err);
		for (size_t c = 0; c < WP_ARRAY_LEN(cuts); c++) {
			struct wp_wheel_stream *s = streamed(&b, cuts[c]);
			struct wp_wheel_info info;
			wp_err_clear(&err2);
			int got = wp_wheel_verify_streamed(path, e->d_name, s, NULL, &info, &err2);
			if (got != want || strcmp(err.msg, err2.msg) != 0)
				print_message("%s (cut %zu): full pass %d '%s', streamed %d '%s'\n",
					      e->d_name, cuts[c], want, err.msg, got, err2.msg);
			assert_int_equal(got, want);
			assert_string_equal(err2.msg, err.msg);
			if (!got)
				wp_wheel_info_release(&info);
			if (c == 0 && !want && wp_wheel_stream_complete(s))
				fast++;
			wp_wheel_stream_free(s);
		}
		n++;
		wp_buf_free(&b);
		free(path);
	}
	closedir(d);
	assert_true(n > 20);
	assert_true(fast >= 2); /* the good fixtures were taken from the stream */
}

/* A member followed by a data descriptor stops the stream: the second pass decides. */
static void test_data_descriptor_falls_back(void **state)
{
	struct fx *fx = *state;
	char *path = wp_xasprintf("%s/piped_pkg-1.0-py3-none-any.whl", fx->dir);
	struct wp_buf b = WP_BUF_INIT;
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_file_read_capped(path, 64 << 20, &b, &err), 0);
	struct wp_wheel_stream *s = streamed(&b, 4096);
	assert_false(wp_wheel_stream_complete(s));
	assert_int_equal(wp_wheel_verify_streamed(path, "piped_pkg-1.0-py3-none-any.whl", s, NULL,
						  NULL, &err),
			 0);
	wp_wheel_stream_free(s);
	wp_buf_free(&b);
	free(path);
}

/* A good wheel streamed whole: every member followed, none bad; a restart forgets the first try. */
static void test_good_stream_and_reset(void **state)
{
	struct fx *fx = *state;
	char *path = wp_xasprintf("%s/demo_pkg-1.0-py3-none-any.whl", fx->dir);
	struct wp_buf b = WP_BUF_INIT;
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_file_read_capped(path, 64 << 20, &b, &err), 0);
	struct wp_wheel_stream *s = wp_wheel_stream_new(NULL);
	wp_wheel_stream_feed(s, "garbage that is no zip at all", 29);
	assert_false(wp_wheel_stream_complete(s));
	wp_wheel_stream_reset(s);
	wp_wheel_stream_feed(s, b.data, b.len);
	assert_true(wp_wheel_stream_complete(s));
	size_t n = 0;
	const struct wp_wheel_smember *m = wp_wheel_stream_members(s, &n);
	assert_int_equal(n, 5);
	for (size_t i = 0; i < n; i++) {
		assert_true(m[i].done);
		assert_false(m[i].bad);
		assert_int_equal(m[i].actual, m[i].usize);
	}
	assert_int_equal(wp_wheel_verify_streamed(path, "demo_pkg-1.0-py3-none-any.whl", s, NULL,
						  NULL, &err),
			 0);
	wp_wheel_stream_free(s);
	wp_buf_free(&b);
	free(path);
}

/* Bytes that differ from the file's in one member's data: the streamed hash is what RECORD is
 * held to, so the flipped byte is caught (exit 4), not hidden by the file on disk. */
static void test_stream_bytes_are_checked(void **state)
{
	struct fx *fx = *state;
	char *path = wp_xasprintf("%s/stored_pkg-1.0-py3-none-any.whl", fx->dir);
	struct wp_buf b = WP_BUF_INIT;
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_file_read_capped(path, 64 << 20, &b, &err), 0);
	assert_int_equal(wp_wheel_verify_named(path, "stored_pkg-1.0-py3-none-any.whl", NULL, NULL,
					       &err),
			 0);
	char *at = memmem(b.data, b.len, "VALUE", 5); /* in stored_pkg/__init__.py, stored */
	assert_non_null(at);
	at[0] = 'W';
	struct wp_wheel_stream *s = streamed(&b, 4096);
	assert_true(wp_wheel_stream_complete(s));
	int rc = wp_wheel_verify_streamed(path, "stored_pkg-1.0-py3-none-any.whl", s, NULL, NULL,
					  &err);
	assert_int_equal(rc, -WPE_INTEGRITY);
	assert_non_null(strstr(err.msg, "member 'stored_pkg/__init__.py': sha256 mismatch"));
	wp_wheel_stream_free(s);
	wp_buf_free(&b);
	free(path);
}

/* The bytes written to a file piece by piece and fed after each piece, as the store writer does,
 * with every deflated member given to a pool of threads that read them back from that file. */
static struct wp_wheel_stream *pooled(const struct wp_buf *b, size_t cut, size_t stop,
				      const char *tmp, int threads)
{
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	struct wp_wheel_stream *s = wp_wheel_stream_new(NULL);
	assert_int_equal(wp_wheel_stream_use_file(s, tmp, threads), 0);
	wp_wheel_stream_pool_from(s, 0, 0);
	for (size_t off = 0; off < stop; off += cut) {
		size_t k = stop - off < cut ? stop - off : cut;
		assert_int_equal(write(fd, b->data + off, k), (ssize_t)k);
		wp_wheel_stream_feed(s, b->data + off, k);
	}
	close(fd);
	return s;
}

/* One folder's wheels through the pool (1, 2 and 4 threads; pieces of 7, 4096, 64 KiB and whole):
 * the serial stream's verdict word for word, and the full pass's code (its message too, but where
 * a member's bytes were changed: the full pass names libarchive's CRC-32, the streams RECORD's
 * sha256, which holds those bytes in their place). Counts the wheels, the flipped ones and the good
 * ones taken from the pool's hashes. */
static void pool_dir(const char *dir, const char *tmp, int *n, int *flips, int *fast)
{
	static const size_t cuts[] = { 7, 4096, 65536, (size_t)1 << 30 };
	static const int threads[] = { 1, 2, 4 };
	DIR *d = opendir(dir);
	struct dirent *e;
	assert_non_null(d);
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 4 || strcmp(e->d_name + len - 4, ".whl") != 0)
			continue;
		char *path = wp_xasprintf("%s/%s", dir, e->d_name);
		struct wp_buf b = WP_BUF_INIT;
		struct wp_err err = WP_ERR_INIT, serr = WP_ERR_INIT, err2 = WP_ERR_INIT;
		assert_int_equal(wp_file_read_capped(path, 64 << 20, &b, &err), 0);
		int full = wp_wheel_verify_named(path, e->d_name, NULL, NULL, &err);
		struct wp_wheel_stream *ser = streamed(&b, 65536);
		int want = wp_wheel_verify_streamed(path, e->d_name, ser, NULL, NULL, &serr);
		wp_wheel_stream_free(ser);
		bool flipped = !strncmp(e->d_name, "flip", 4);
		*flips += flipped;
		assert_int_equal(want, full);
		if (!flipped)
			assert_string_equal(serr.msg, err.msg);
		for (size_t c = 0; c < WP_ARRAY_LEN(cuts); c++) {
			for (size_t t = 0; t < WP_ARRAY_LEN(threads); t++) {
				if (b.len > (1 << 20) && cuts[c] == 7)
					continue; /* a MiB in 7-byte pieces proves nothing more,
						     slowly */
				struct wp_wheel_stream *s = pooled(&b, cuts[c], b.len, tmp,
								   threads[t]);
				wp_err_clear(&err2);
				int got = wp_wheel_verify_streamed(tmp, e->d_name, s, NULL, NULL,
								   &err2);
				if (got != want || strcmp(serr.msg, err2.msg) != 0)
					print_message("%s (cut %zu, %d threads): serial stream %d '%s', pooled %d '%s'\n",
						      e->d_name, cuts[c], threads[t], want,
						      serr.msg, got, err2.msg);
				assert_int_equal(got, want);
				assert_string_equal(err2.msg, serr.msg);
				if (!want && wp_wheel_stream_complete(s)) {
					size_t nm = 0;
					const struct wp_wheel_smember
						*m = wp_wheel_stream_members(s, &nm);
					for (size_t i = 0; i < nm; i++)
						assert_true(m[i].done && !m[i].bad);
					(*fast)++;
				}
				wp_wheel_stream_free(s);
			}
		}
		(*n)++;
		wp_buf_free(&b);
		free(path);
	}
	closedir(d);
}

static void test_pool_same_verdict(void **state)
{
	struct fx *fx = *state;
	char *tmp = wp_xasprintf("%s/feed.tmp", fx->dir), *many = wp_xasprintf("%s/many", fx->dir);
	int n = 0, flips = 0, fast = 0;
	pool_dir(fx->dir, tmp, &n, &flips, &fast);
	assert_true(n > 20);
	pool_dir(many, tmp, &n, &flips, &fast);
	assert_int_equal(flips, 4);
	assert_true(fast >= 3 * 12); /* demo_pkg, stored_pkg, many_pkg ... each in 12 ways */
	unlink(tmp);
	free(tmp);
	free(many);
}

/* A download cut short, one restarted (a reset mid-member, then the whole file), and a stream freed
 * while its threads wait for bytes: nothing hangs, and the verdicts are the full pass's. */
static void test_pool_cut_short_and_reset(void **state)
{
	struct fx *fx = *state;
	char *path = wp_xasprintf("%s/many/many_pkg-1.0-py3-none-any.whl", fx->dir);
	char *tmp = wp_xasprintf("%s/cut.tmp", fx->dir);
	const char *name = "many_pkg-1.0-py3-none-any.whl";
	struct wp_buf b = WP_BUF_INIT;
	struct wp_err err = WP_ERR_INIT;
	assert_int_equal(wp_file_read_capped(path, 64 << 20, &b, &err), 0);
	assert_true(b.len > (1 << 20));
	/* cut short at a third: the rest never comes; the file on disk is then whole again (as a
	 * resumed download leaves it), and the second pass proves it */
	struct wp_wheel_stream *s = pooled(&b, 4096, b.len / 3, tmp, 2);
	assert_false(wp_wheel_stream_complete(s));
	int fd = open(tmp, O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, b.data + b.len / 3, b.len - b.len / 3),
			 (ssize_t)(b.len - b.len / 3));
	close(fd);
	assert_int_equal(wp_wheel_verify_streamed(tmp, name, s, NULL, NULL, &err), 0);
	wp_wheel_stream_free(s);
	/* restarted half way: what the pool did for the first try is dropped */
	s = pooled(&b, 65536, b.len / 2, tmp, 2);
	wp_wheel_stream_reset(s);
	fd = open(tmp, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	for (size_t off = 0; off < b.len; off += 65536) {
		size_t k = b.len - off < 65536 ? b.len - off : 65536;
		assert_int_equal(write(fd, b.data + off, k), (ssize_t)k);
		wp_wheel_stream_feed(s, b.data + off, k);
	}
	close(fd);
	assert_true(wp_wheel_stream_complete(s));
	wp_wheel_stream_settle(s);
	size_t nm = 0;
	const struct wp_wheel_smember *m = wp_wheel_stream_members(s, &nm);
	assert_int_equal(nm, 124);
	for (size_t i = 0; i < nm; i++)
		assert_true(m[i].done && !m[i].bad && m[i].actual == m[i].usize);
	assert_int_equal(wp_wheel_verify_streamed(tmp, name, s, NULL, NULL, &err), 0);
	wp_wheel_stream_free(s);
	/* freed while its threads wait for bytes that never come */
	s = pooled(&b, 4096, b.len / 2, tmp, 4);
	wp_wheel_stream_free(s);
	unlink(tmp);
	free(tmp);
	free(path);
	wp_buf_free(&b);
}

/* A wheel over 4 MiB checked with no download stream: the verifier streams it itself through a
 * pool, and takes the same verdicts as the full pass (a CRC-32 that its header and directory both
 * state wrongly, with bytes RECORD holds right, is still refused, as libarchive refuses it). */
static void test_verify_own_pool(void **state)
{
	struct fx *fx = *state;
	static const char *const names[] = { "big_pkg", "bigflip_pkg", "bigcrc_pkg" };
	for (size_t i = 0; i < WP_ARRAY_LEN(names); i++) {
		char *fn = wp_xasprintf("%s-1.0-py3-none-any.whl", names[i]);
		char *path = wp_xasprintf("%s/big/%s", fx->dir, fn);
		struct wp_err err = WP_ERR_INIT;
		struct wp_wheel_info info;
		struct stat sb;
		assert_int_equal(stat(path, &sb), 0);
		assert_true(sb.st_size > (4 << 20));
		int rc = wp_wheel_verify_named(path, fn, NULL, &info, &err);
		if (i == 0) {
			assert_int_equal(rc, 0);
			assert_int_equal(info.n_members, 125);
			wp_wheel_info_release(&info);
		} else {
			assert_int_equal(rc, -WPE_INTEGRITY);
			print_message("%s: %s\n", fn, err.msg);
			assert_non_null(strstr(err.msg, i == 1 ? "cannot be read" : "CRC"));
		}
		free(path);
		free(fn);
	}
}

/* The GPU code of a wheel's shared objects comes out the same from the full pass, the serial stream
 * and the pool (the members big enough to be pooled: ptx_compute80.so's is ~1 MB), and is the
 * corpus's (tests/fixtures/gpu-code/index.tsv's registered columns). */
static void test_gpu_code_three_ways(void **state)
{
	struct fx *fx = *state;
	char *dir = wp_xasprintf("%s/gpu", fx->dir), *tmp = wp_xasprintf("%s/gpu.part", fx->dir);
	char *cmd = wp_xasprintf("python3 tests/fixtures/mkgpuwheels.py '%s' >/dev/null", dir);
	assert_int_equal(system(cmd), 0);
	static const struct { const char *wheel, *code; } cases[] = {
		{ "gx_ptx_compute80_so-1.0-cp311-cp311-linux_x86_64.whl", "compute_80@7.8" },
		{ "gx_three_tus_so-1.0-cp311-cp311-linux_x86_64.whl",
		  "sm_75,sm_86,compute_86@7.8" },
		{ "gx_two_objects-1.0-cp311-cp311-linux_x86_64.whl", "sm_80 sm_90" },
		{ "gx_c13_torch_cu130_pattern_so-1.0-cp311-cp311-linux_x86_64.whl",
		  "sm_75,sm_80,sm_86,sm_90,sm_100,sm_120,compute_120@9.0" },
		{ "gx_plain_c_no_cuda_so-1.0-cp311-cp311-linux_x86_64.whl", "" },
		{ "gx_pure-1.0-cp311-cp311-linux_x86_64.whl", NULL },
	};
	for (size_t i = 0; i < WP_ARRAY_LEN(cases); i++) {
		char *path = wp_xasprintf("%s/%s", dir, cases[i].wheel);
		struct wp_buf b = WP_BUF_INIT;
		assert_int_equal(wp_file_read_capped(path, 64 << 20, &b, NULL), 0);
		for (int way = 0; way < 3; way++) {
			struct wp_wheel_stream *s = way == 0 ? NULL :
						    way == 1 ? streamed(&b, 4096) :
							       pooled(&b, 4096, b.len, tmp, 2);
			struct wp_wheel_info info;
			struct wp_err err = WP_ERR_INIT;
			assert_int_equal(wp_wheel_verify_streamed(way == 2 ? tmp : path,
								  cases[i].wheel, s, NULL, &info,
								  &err),
					 0);
			if (!cases[i].code)
				assert_null(info.gpu_code);
			else if (!info.gpu_code || strcmp(info.gpu_code, cases[i].code))
				fail_msg("%s (way %d): GPU code '%s', wanted '%s'", cases[i].wheel,
					 way, info.gpu_code ? info.gpu_code : "(null)",
					 cases[i].code);
			assert_null(info.gpu_problem);
			wp_wheel_info_release(&info);
			wp_wheel_stream_free(s);
		}
		wp_buf_free(&b);
		free(path);
	}
	free(cmd);
	free(tmp);
	free(dir);
}

/* The file's digest the stream takes (wp_wheel_stream_hash_file) is the sha256 of every byte fed,
 * for every fixture (stored members in two digests at once, deflated ones, data descriptors and
 * bad wheels the stream gives up on), however the bytes are cut, and after a reset; with SHA-NI's
 * two lanes and through OpenSSL's path (CPUs without SHA-NI). */
static void test_file_digest(void **state)
{
	struct fx *fx = *state;
	static const size_t cuts[] = { 1, 7, 100, 4096, (size_t)1 << 30 };
	DIR *d = opendir(fx->dir);
	struct dirent *e;
	int n = 0;
	assert_non_null(d);
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 4 || strcmp(e->d_name + len - 4, ".whl") != 0)
			continue;
		char *path = wp_xasprintf("%s/%s", fx->dir, e->d_name);
		struct wp_buf b = WP_BUF_INIT;
		struct wp_err err = WP_ERR_INIT;
		char want[WP_SHA256_HEX_LEN + 1], got[WP_SHA256_HEX_LEN + 1];
		unsigned char dg[WP_SHA256_LEN];
		assert_int_equal(wp_file_read_capped(path, 64 << 20, &b, &err), 0);
		assert_int_equal(wp_sha256_hex_of(b.data, b.len, want), 0);
		for (size_t c = 0; c < 2 * sizeof(cuts) / sizeof(*cuts); c++) {
			wp_sha256_allow_native(c < sizeof(cuts) / sizeof(*cuts));
			struct wp_wheel_stream *s = wp_wheel_stream_new(NULL);
			assert_int_equal(wp_wheel_stream_hash_file(s), 0);
			if (c == 2) { /* a start that is thrown away */
				wp_wheel_stream_feed(s, b.data, b.len / 2);
				wp_wheel_stream_reset(s);
			}
			size_t cut = cuts[c % (sizeof(cuts) / sizeof(*cuts))];
			for (size_t off = 0; off < b.len; off += cut)
				wp_wheel_stream_feed(s, b.data + off,
						     b.len - off < cut ? b.len - off : cut);
			assert_int_equal(wp_wheel_stream_hash_file(s), -1); /* too late: bytes went
									       past */
			long long covered = -1;
			assert_int_equal(wp_wheel_stream_file_sha256(s, dg, &covered), 0);
			assert_int_equal(covered, (long long)b.len);
			wp_hex_encode(dg, sizeof(dg), got);
			if (strcmp(got, want))
				fail_msg("%s cut %zu (%s): file digest %s, wanted %s", e->d_name,
					 cut, wp_sha256_native() ? "SHA-NI" : "OpenSSL", got, want);
			assert_int_equal(wp_wheel_stream_file_sha256(s, dg, &covered), -1); /* given
											       once
											     */
			/* the members' own digests took the same path: the verdict is the full
			 * pass's */
			assert_int_equal(wp_wheel_verify_streamed(path, e->d_name, s, NULL, NULL,
								  &err) == 0,
					 wp_wheel_verify_named(path, e->d_name, NULL, NULL, &err) ==
						 0);
			wp_wheel_stream_free(s);
		}
		wp_sha256_allow_native(true);
		wp_buf_free(&b);
		free(path);
		n++;
	}
	closedir(d);
	assert_true(n >= 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_verdict),
		cmocka_unit_test(test_good_stream_and_reset),
		cmocka_unit_test(test_stream_bytes_are_checked),
		cmocka_unit_test(test_data_descriptor_falls_back),
		cmocka_unit_test(test_pool_same_verdict),
		cmocka_unit_test(test_pool_cut_short_and_reset),
		cmocka_unit_test(test_verify_own_pool),
		cmocka_unit_test(test_gpu_code_three_ways),
		cmocka_unit_test(test_file_digest),
	};
	return cmocka_run_group_tests(tests, fx_setup, fx_teardown);
}
