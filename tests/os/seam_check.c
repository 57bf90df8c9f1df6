/* tests/os/seam_check.c: base/os/os.h checked the same way on Linux (posix.c) and on Windows under
 * wine (win32_*.c): files, atomic replace, links, folders, *at() calls, locks, a child process with
 * awkward arguments through a pipe, clocks, paths; and base/fs.c on top of it, with this system's
 * own separator. No cmocka: the .exe links the seam and base/fs.c's few neighbours alone.
 * usage: seam_check [DIR]   (a scratch folder is made under DIR, default ".", and removed) */
#include "base/fs.h"
#include "base/os/os.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int checks, failed;

#define CHECK(cond)                                                                      \
	do {                                                                             \
		checks++;                                                                \
		if (!(cond)) {                                                           \
			failed++;                                                        \
			fprintf(stderr, "seam_check:%d: failed: %s (errno %d)\n", __LINE__, #cond, errno); \
		}                                                                        \
	} while (0)

/* Arguments that the Windows command line must quote and give back as they were. */
static const char *const awkward[] = { "plain",       "two words", "",     "q\"uote", "trail\\",
				       "back\\\\\"x", "tab\there", "ü-名", NULL };

static int child(int argc, char **argv)
{
	/* argv[2...] back, one a line, then exit 7 */
	for (int i = 2; i < argc; i++) {
		wp_os_write(WP_OS_STDOUT, argv[i], strlen(argv[i]));
		wp_os_write(WP_OS_STDOUT, "\n", 1);
	}
	return 7;
}

static char *join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *s = malloc(n);
	snprintf(s, n, "%s/%s", a, b);
	return s;
}

static bool write_file(const char *path, const char *text)
{
	int fd = wp_os_open(path, WP_O_WRONLY | WP_O_CREAT | WP_O_TRUNC | WP_O_CLOEXEC, 0644);
	if (fd < 0)
		return false;
	bool ok = wp_os_write(fd, text, strlen(text)) == (ssize_t)strlen(text) &&
		  wp_os_fsync(fd) == 0;
	return wp_os_close(fd) == 0 && ok;
}

static bool has_text(const char *path, const char *text)
{
	char buf[256];
	int fd = wp_os_open(path, WP_O_RDONLY | WP_O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = wp_os_read(fd, buf, sizeof(buf) - 1);
	wp_os_close(fd);
	return n >= 0 && (buf[n] = 0, !strcmp(buf, text));
}

static void files(const char *dir)
{
	char *a = join(dir, "a.txt"), *b = join(dir, "b.txt"), *c = join(dir, "ü-名.txt");
	struct wp_os_stat sa, sb;
	CHECK(write_file(a, "old"));
	CHECK(write_file(b, "new!"));
	/* O_EXCL on an existing name */
	errno = 0;
	CHECK(wp_os_open(a, WP_O_WRONLY | WP_O_CREAT | WP_O_EXCL, 0644) < 0 && errno == EEXIST);
	CHECK(wp_os_stat(b, &sb) == 0 && WP_S_ISREG(sb.st_mode) && sb.st_size == 4);
	/* the atomic replace: b over a, which exists */
	CHECK(wp_os_rename(b, a) == 0);
	CHECK(has_text(a, "new!"));
	errno = 0;
	CHECK(wp_os_stat(b, &sb) < 0 && errno == ENOENT);
	/* a hard link: one file, two names */
	CHECK(wp_os_link(a, c) == 0);
	CHECK(wp_os_stat(a, &sa) == 0 && wp_os_stat(c, &sb) == 0);
	CHECK(sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino && sa.st_nlink == 2);
	/* pread at an offset, and the size after ftruncate */
	int fd = wp_os_open(a, WP_O_RDWR | WP_O_CLOEXEC);
	char two[3] = { 0 };
	CHECK(fd >= 0 && wp_os_pread(fd, two, 2, 2) == 2 && !strcmp(two, "w!"));
	/* as pread(2): the position is where it was, so a read goes on from the start */
	CHECK(wp_os_read(fd, two, 2) == 2 && !strcmp(two, "ne"));
	CHECK(wp_os_ftruncate(fd, 1) == 0 && wp_os_fstat(fd, &sa) == 0 && sa.st_size == 1);
	/* a lock another open file cannot take while it is held */
	int fd2 = wp_os_open(a, WP_O_RDONLY | WP_O_CLOEXEC);
	CHECK(wp_os_flock(fd, WP_LOCK_EX | WP_LOCK_NB) == 0);
	errno = 0;
	CHECK(fd2 >= 0 && wp_os_flock(fd2, WP_LOCK_EX | WP_LOCK_NB) < 0 && errno == EWOULDBLOCK);
	/* advisory, as flock: the locked file still reads through another fd */
	char one[2] = { 0 };
	CHECK(wp_os_pread(fd2, one, 1, 0) == 1 && one[0] == 'n');
	CHECK(wp_os_flock(fd, WP_LOCK_UN) == 0 && wp_os_flock(fd2, WP_LOCK_EX | WP_LOCK_NB) == 0);
	wp_os_close(fd);
	wp_os_close(fd2);
	errno = 0;
	CHECK(wp_os_unlink(b) < 0 && errno == ENOENT);
	free(a);
	free(b);
	free(c);
}

static void folders(const char *dir)
{
	char *sub = join(dir, "sub");
	CHECK(wp_os_mkdir(sub, 0755) == 0);
	errno = 0;
	CHECK(wp_os_mkdir(sub, 0755) < 0 && errno == EEXIST);
	int dfd = wp_os_open(sub, WP_O_RDONLY | WP_O_DIRECTORY | WP_O_CLOEXEC);
	CHECK(dfd >= 0);
	/* the *at() calls, relative to the folder's fd */
	int fd = wp_os_openat(dfd, "x", WP_O_WRONLY | WP_O_CREAT | WP_O_EXCL | WP_O_CLOEXEC, 0644);
	CHECK(fd >= 0 && wp_os_write(fd, "xy", 2) == 2);
	wp_os_close(fd);
	struct wp_os_stat st;
	CHECK(wp_os_fstatat(dfd, "x", &st, WP_AT_SYMLINK_NOFOLLOW) == 0 && st.st_size == 2);
	CHECK(wp_os_renameat(dfd, "x", dfd, "y") == 0 && wp_os_fstatat(dfd, "y", &st, 0) == 0);
	CHECK(wp_os_mkdirat(dfd, "deeper", 0755) == 0);
	/* a file is not a folder */
	errno = 0;
	char *y = join(sub, "y");
	CHECK(wp_os_open(y, WP_O_RDONLY | WP_O_DIRECTORY) < 0 && errno == ENOTDIR);
	/* the names, as readdir gives them */
	struct wp_os_dir *d = wp_os_opendir(dir);
	const struct wp_os_dirent *e;
	int seen = 0;
	while (d && (e = wp_os_readdir(d)))
		seen |= (!strcmp(e->d_name, "a.txt") ? 1 : 0) |
			(!strcmp(e->d_name, "ü-名.txt") ? 2 : 0) |
			(!strcmp(e->d_name, "sub") ? 4 : 0);
	CHECK(d && seen == 7);
	wp_os_closedir(d);
	CHECK(wp_os_unlinkat(dfd, "y", 0) == 0 &&
	      wp_os_unlinkat(dfd, "deeper", WP_AT_REMOVEDIR) == 0);
	wp_os_close(dfd);
	CHECK(wp_os_rmdir(sub) == 0);
	/* realpath: absolute, and the folder itself */
	char *real = wp_os_realpath(dir);
	CHECK(real && wp_os_path_is_abs(real) && wp_os_stat(real, &st) == 0 &&
	      WP_S_ISDIR(st.st_mode));
	free(real);
	free(y);
	free(sub);
}

static void processes(const char *self)
{
	const char *argv[16] = { self, "--child" };
	size_t n = 2;
	for (size_t i = 0; awkward[i]; i++)
		argv[n++] = awkward[i];
	argv[n] = NULL;
	int p[2];
	CHECK(wp_os_pipe(p) == 0);
	struct wp_os_spawn s = { .argv = argv,
				 .stdin_fd = -1,
				 .stdout_fd = p[1],
				 .stderr_fd = -1,
				 .own_group = true,
				 .envp = wp_os_environ() };
	struct wp_os_proc proc;
	CHECK(wp_os_spawn(&s, &proc) == 0);
	wp_os_close(p[1]);
	char out[1024];
	size_t got = 0;
	int64_t end = wp_os_monotonic_ns() + 20 * 1000000000LL;
	for (;;) {
		struct wp_os_pollfd pf = { .fd = p[0], .events = WP_POLLIN };
		if (wp_os_poll(&pf, 1, 1000) < 0 || wp_os_monotonic_ns() > end)
			break;
		if (!pf.revents)
			continue;
		ssize_t k = wp_os_read(p[0], out + got, sizeof(out) - 1 - got);
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	wp_os_close(p[0]);
	out[got] = 0;
	int status = -1, sig = 0;
	CHECK(wp_os_proc_wait(&proc, &status, &sig) == 0 && status == 7 && sig == 0);
	char want[1024] = "";
	size_t wn = 0;
	for (size_t i = 0; awkward[i]; i++)
		wn += (size_t)snprintf(want + wn, sizeof(want) - wn, "%s\n", awkward[i]);
	CHECK(!strcmp(out, want));
	if (strcmp(out, want))
		fprintf(stderr, "seam_check: the child said:\n%s\nwanted:\n%s\n", out, want);
	/* a program that is not there: an errno, no process */
	const char *none[] = { "/no/such/program-wp", NULL };
	struct wp_os_spawn s2 = { .argv = none, .stdin_fd = -1, .stdout_fd = -1, .stderr_fd = -1 };
	CHECK(wp_os_spawn(&s2, &proc) == ENOENT);
}

/* base/fs.c over the seam, paths spelled with this system's separator ('\\' on Windows) */
static void fs_layer(const char *dir)
{
	char sep = wp_os_is_sep('\\') ? '\\' : '/';
	char deep[512], file[600];
	snprintf(deep, sizeof(deep), "%s%ca%cb%cc", dir, sep, sep, sep);
	snprintf(file, sizeof(file), "%s%cf.txt", deep, sep);
	struct wp_err err = WP_ERR_INIT;
	CHECK(wp_mkdir_p(deep, 0755, &err) == 0);
	CHECK(wp_atomic_write(file, "one", 3, &err) == 0);
	CHECK(wp_atomic_write(file, "two!", 4, &err) == 0); /* over the old one */
	struct wp_buf b;
	CHECK(wp_file_read_capped(file, 64, &b, &err) == 0 && b.len == 4 &&
	      !memcmp(b.data, "two!", 4));
	wp_buf_free(&b);
	/* nothing left beside it: the temp names were renamed or swept */
	struct wp_os_dir *d = wp_os_opendir(deep);
	const struct wp_os_dirent *e;
	int others = 0;
	while (d && (e = wp_os_readdir(d)))
		others += strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
			  strcmp(e->d_name, "f.txt");
	wp_os_closedir(d);
	CHECK(d && others == 0);
	/* a path past Windows' MAX_PATH (260): the \\?\ prefix at the API takes it */
	char lng[1024];
	int k = snprintf(lng, sizeof(lng), "%s", dir);
	for (int i = 0; i < 8; i++)
		k += snprintf(lng + k, sizeof(lng) - (size_t)k, "%c%s%d", sep,
			      "a-folder-name-of-forty-characters-long--", i);
	CHECK(k > 300 && wp_mkdir_p(lng, 0755, &err) == 0);
	snprintf(lng + k, sizeof(lng) - (size_t)k, "%cf.txt", sep);
	CHECK(wp_atomic_write(lng, "long", 4, &err) == 0 && has_text(lng, "long"));
	char copy[640];
	snprintf(copy, sizeof(copy), "%s%cg.txt", deep, sep);
	CHECK(wp_link_or_copy(file, copy, &err) == 0 && has_text(copy, "two!"));
	if (err.code)
		fprintf(stderr, "seam_check: %s\n", err.msg);
	wp_err_clear(&err);
}

static void machine(void)
{
	int64_t t0 = wp_os_monotonic_ns();
	wp_os_sleep_ms(20);
	CHECK(wp_os_monotonic_ns() - t0 >= 15 * 1000000LL);
	unsigned char r[16] = { 0 }, zero[16] = { 0 };
	CHECK(wp_os_random(r, sizeof(r)) == 0 && memcmp(r, zero, sizeof(r)) != 0);
	CHECK(wp_os_ncpu() >= 1);
	CHECK(wp_os_pid_alive(wp_os_getpid()));
	char sys[65], rel[65], mach[65];
	CHECK(wp_os_uname(sys, sizeof(sys), rel, sizeof(rel), mach, sizeof(mach)) == 0 && sys[0] &&
	      mach[0]);
	char why[256] = "";
	CHECK(wp_os_dlopen("no-such-library-wp.so", why, sizeof(why)) == NULL && why[0]);
	CHECK(wp_os_path_is_abs("/x") && !wp_os_path_is_abs("x/y") && wp_os_is_sep('/'));
	const char *const *env = wp_os_environ();
	CHECK(env && env[0]);
}

int main(int argc, char **argv)
{
	wp_os_utf8_args(&argc, &argv);
	wp_os_term_init(); /* as main() does: on Windows the standard streams in binary mode */
	if (argc > 1 && !strcmp(argv[1], "--child"))
		return child(argc, argv);
	char *tmpl = join(argc > 1 ? argv[1] : ".", "seam.XXXXXX");
	char *dir = wp_os_mkdtemp(tmpl);
	CHECK(dir != NULL);
	if (!dir)
		return 1;
	files(dir);
	folders(dir);
	processes(argv[0]);
	fs_layer(dir);
	machine();
	wp_os_remove_tree(dir);
	struct wp_os_stat st;
	errno = 0;
	CHECK(wp_os_lstat(dir, &st) < 0 && errno == ENOENT);
	free(tmpl);
	printf("seam_check: %d checks, %d failed\n", checks, failed);
	return failed ? 1 : 0;
}
