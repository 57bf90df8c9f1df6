/* base/os/posix.c: the OS seam (base/os/os.h) on Linux: thin calls into the C library, with
 * Linux's fast paths (O_TMPFILE, FICLONE, copy_file_range, renameat2) kept here. */
#include "base/os/os.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/fs.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif

extern char **environ; /* wp_os_environ: cli/ reads it and hands it down as a value */

const char wp_os_path_list_sep = ':';
const char wp_os_exe_suffix[] = "";
const char wp_os_devnull[] = "/dev/null";
const bool wp_os_keeps_modes = true;
const enum wp_os_layout wp_os_layout = WP_OS_LAYOUT_XDG;

static int oflags(int f)
{
	int o = 0;
	switch (f & WP_O_ACCMODE) {
	case WP_O_WRONLY: o = O_WRONLY; break;
	case WP_O_RDWR: o = O_RDWR; break;
	default: o = O_RDONLY; break;
	}
	if (f & WP_O_CREAT) o |= O_CREAT;
	if (f & WP_O_EXCL) o |= O_EXCL;
	if (f & WP_O_TRUNC) o |= O_TRUNC;
	if (f & WP_O_APPEND) o |= O_APPEND;
	if (f & WP_O_NONBLOCK) o |= O_NONBLOCK;
	if (f & WP_O_DIRECTORY) o |= O_DIRECTORY;
	if (f & WP_O_NOFOLLOW) o |= O_NOFOLLOW;
	if (f & WP_O_CLOEXEC) o |= O_CLOEXEC;
	return o;
}

static int atfd(int fd)
{
	return fd == WP_AT_FDCWD ? AT_FDCWD : fd;
}

static int atflags(int f)
{
	return (f & WP_AT_SYMLINK_NOFOLLOW ? AT_SYMLINK_NOFOLLOW : 0) |
	       (f & WP_AT_REMOVEDIR ? AT_REMOVEDIR : 0) |
	       (f & WP_AT_SYMLINK_FOLLOW ? AT_SYMLINK_FOLLOW : 0);
}

static void from_stat(const struct stat *s, struct wp_os_stat *st)
{
	st->st_dev = (uint64_t)s->st_dev;
	st->st_ino = (uint64_t)s->st_ino;
	st->st_mode = (uint32_t)s->st_mode; /* Linux's bits are the seam's */
	st->st_nlink = (uint64_t)s->st_nlink;
	st->st_size = (int64_t)s->st_size;
	st->st_blocks = (int64_t)s->st_blocks;
	st->st_mtime_s = (int64_t)s->st_mtim.tv_sec;
	st->st_mtime_ns = s->st_mtim.tv_nsec;
}

/* The mode argument, read only when O_CREAT says it was passed. */
#define MODE_ARG(flags, mode)                        \
	do {                                         \
		va_list ap;                          \
		va_start(ap, flags);                 \
		if ((flags) & WP_O_CREAT)            \
			mode = va_arg(ap, unsigned); \
		va_end(ap);                          \
	} while (0)

int wp_os_open(const char *path, int flags, ...)
{
	unsigned mode = 0;
	MODE_ARG(flags, mode);
	return open(path, oflags(flags), (mode_t)mode);
}

int wp_os_openat(int dirfd, const char *path, int flags, ...)
{
	unsigned mode = 0;
	MODE_ARG(flags, mode);
	return openat(atfd(dirfd), path, oflags(flags), (mode_t)mode);
}

int wp_os_close(int fd)
{
	return close(fd);
}

int wp_os_dup(int fd)
{
	return fcntl(fd, F_DUPFD_CLOEXEC, 0);
}

ssize_t wp_os_read(int fd, void *buf, size_t n)
{
	return read(fd, buf, n);
}

ssize_t wp_os_write(int fd, const void *buf, size_t n)
{
	return write(fd, buf, n);
}

ssize_t wp_os_pread(int fd, void *buf, size_t n, int64_t off)
{
	return pread(fd, buf, n, (off_t)off);
}

ssize_t wp_os_pwrite(int fd, const void *buf, size_t n, int64_t off)
{
	return pwrite(fd, buf, n, (off_t)off);
}

int64_t wp_os_lseek(int fd, int64_t off, int whence)
{
	return lseek(fd, (off_t)off, whence);
}

int wp_os_fsync(int fd)
{
	return fsync(fd);
}

int wp_os_fdatasync(int fd)
{
	return fdatasync(fd);
}

int wp_os_syncfs(int fd)
{
	return syncfs(fd);
}

int wp_os_ftruncate(int fd, int64_t len)
{
	return ftruncate(fd, (off_t)len);
}

void wp_os_start_writeback(int fd, int64_t off, int64_t len)
{
	(void)sync_file_range(fd, (off_t)off, (off_t)len, SYNC_FILE_RANGE_WRITE);
}

int wp_os_set_nonblock(int fd, bool on)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0)
		return -1;
	return fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

int wp_os_stat(const char *path, struct wp_os_stat *st)
{
	struct stat s;
	if (stat(path, &s) < 0)
		return -1;
	from_stat(&s, st);
	return 0;
}

int wp_os_lstat(const char *path, struct wp_os_stat *st)
{
	struct stat s;
	if (lstat(path, &s) < 0)
		return -1;
	from_stat(&s, st);
	return 0;
}

int wp_os_fstat(int fd, struct wp_os_stat *st)
{
	struct stat s;
	if (fstat(fd, &s) < 0)
		return -1;
	from_stat(&s, st);
	return 0;
}

int wp_os_fstatat(int dirfd, const char *path, struct wp_os_stat *st, int flags)
{
	struct stat s;
	if (fstatat(atfd(dirfd), path, &s, atflags(flags)) < 0)
		return -1;
	from_stat(&s, st);
	return 0;
}

static int amode(int how)
{
	return (how & WP_R_OK ? R_OK : 0) | (how & WP_W_OK ? W_OK : 0) | (how & WP_X_OK ? X_OK : 0);
}

int wp_os_access(const char *path, int how)
{
	return access(path, how ? amode(how) : F_OK);
}

int wp_os_faccessat(int dirfd, const char *path, int how, int flags)
{
	return faccessat(atfd(dirfd), path, how ? amode(how) : F_OK, atflags(flags));
}

int wp_os_chmod(const char *path, unsigned mode)
{
	return chmod(path, (mode_t)mode);
}

unsigned wp_os_umask(unsigned mask)
{
	return (unsigned)umask((mode_t)mask);
}

int wp_os_fchmod(int fd, unsigned mode)
{
	return fchmod(fd, (mode_t)mode);
}

int wp_os_set_mtime(const char *path, int64_t sec, long nsec)
{
	struct timespec ts[2] = { { (time_t)sec, nsec }, { (time_t)sec, nsec } };
	return utimensat(AT_FDCWD, path, ts, 0);
}

int wp_os_mkdir(const char *path, unsigned mode)
{
	return mkdir(path, (mode_t)mode);
}

int wp_os_mkdirat(int dirfd, const char *path, unsigned mode)
{
	return mkdirat(atfd(dirfd), path, (mode_t)mode);
}

int wp_os_rmdir(const char *path)
{
	return rmdir(path);
}

int wp_os_unlink(const char *path)
{
	return unlink(path);
}

int wp_os_unlinkat(int dirfd, const char *path, int flags)
{
	return unlinkat(atfd(dirfd), path, atflags(flags));
}

int wp_os_rename(const char *from, const char *to)
{
	return rename(from, to);
}

int wp_os_renameat(int fromfd, const char *from, int tofd, const char *to)
{
	return renameat(atfd(fromfd), from, atfd(tofd), to);
}

int wp_os_rename_exchange(const char *a, const char *b)
{
	return renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
}

int wp_os_link(const char *from, const char *to)
{
	return link(from, to);
}

int wp_os_linkat(int fromfd, const char *from, int tofd, const char *to, int flags)
{
	return linkat(atfd(fromfd), from, atfd(tofd), to, atflags(flags));
}

int wp_os_symlink(const char *target, const char *path)
{
	return symlink(target, path);
}

int wp_os_symlinkat(const char *target, int dirfd, const char *path)
{
	return symlinkat(target, atfd(dirfd), path);
}

ssize_t wp_os_readlink(const char *path, char *buf, size_t n)
{
	return readlink(path, buf, n);
}

ssize_t wp_os_readlinkat(int dirfd, const char *path, char *buf, size_t n)
{
	return readlinkat(atfd(dirfd), path, buf, n);
}

char *wp_os_realpath(const char *path)
{
	return realpath(path, NULL);
}

char *wp_os_mkdtemp(char *tmpl)
{
	return mkdtemp(tmpl);
}

char *wp_os_getcwd(char *buf, size_t n)
{
	return getcwd(buf, n);
}

/* nftw has no context argument: the walk's own, per thread */
static _Thread_local struct walk {
	int (*fn)(void *ctx, const char *path, const struct wp_os_stat *st);
	void *ctx;
} walking;

static int walk_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)ftw;
	if (flag != FTW_F && flag != FTW_SL)
		return 0;
	struct wp_os_stat st;
	from_stat(sb, &st);
	return walking.fn(walking.ctx, path, &st);
}

int wp_os_walk(const char *root,
	       int (*fn)(void *ctx, const char *path, const struct wp_os_stat *st), void *ctx)
{
	struct walk saved = walking;
	walking = (struct walk){ fn, ctx };
	int rc = nftw(root, walk_one, 16, FTW_PHYS);
	walking = saved;
	return rc;
}

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

void wp_os_remove_tree(const char *path)
{
	/* FTW_DEPTH: a folder after what it holds; FTW_PHYS: a link is removed, not followed */
	nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* A folder being read: DIR, and the entry handed out last. */
struct wp_os_dir {
	DIR *d;
	struct wp_os_dirent ent;
};

static struct wp_os_dir *wrap_dir(DIR *d)
{
	if (!d)
		return NULL;
	struct wp_os_dir *w = malloc(sizeof(*w));
	if (!w) {
		closedir(d);
		errno = ENOMEM;
		return NULL;
	}
	w->d = d;
	return w;
}

struct wp_os_dir *wp_os_opendir(const char *path)
{
	return wrap_dir(opendir(path));
}

struct wp_os_dir *wp_os_fdopendir(int fd)
{
	return wrap_dir(fdopendir(fd));
}

const struct wp_os_dirent *wp_os_readdir(struct wp_os_dir *d)
{
	struct dirent *e = readdir(d->d);
	if (!e)
		return NULL;
	d->ent.d_name = e->d_name;
	return &d->ent;
}

void wp_os_rewinddir(struct wp_os_dir *d)
{
	rewinddir(d->d);
}

int wp_os_dirfd(struct wp_os_dir *d)
{
	return dirfd(d->d);
}

int wp_os_closedir(struct wp_os_dir *d)
{
	if (!d)
		return 0;
	int rc = closedir(d->d);
	free(d);
	return rc;
}

int wp_os_flock(int fd, int how)
{
	int op = how & WP_LOCK_UN ? LOCK_UN : how & WP_LOCK_EX ? LOCK_EX : LOCK_SH;
	return flock(fd, op | (how & WP_LOCK_NB ? LOCK_NB : 0));
}

int wp_os_clone(int in_fd, int out_fd)
{
	return ioctl(out_fd, FICLONE, in_fd);
}

ssize_t wp_os_copy_range(int in_fd, int64_t *in_off, int out_fd, size_t len)
{
	if (!in_off)
		return copy_file_range(in_fd, NULL, out_fd, NULL, len, 0);
	off_t o = (off_t)*in_off;
	ssize_t n = copy_file_range(in_fd, &o, out_fd, NULL, len, 0);
	*in_off = (int64_t)o;
	return n;
}

int wp_os_open_tmpfile(const char *dir, int flags, unsigned mode)
{
	return open(dir, O_TMPFILE | oflags(flags & ~(WP_O_CREAT | WP_O_EXCL | WP_O_DIRECTORY)),
		    (mode_t)mode);
}

int wp_os_link_tmpfile(int fd, const char *path)
{
	char proc[64];
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0)
		return 0;
	int e = errno;
	/* without /proc, AT_EMPTY_PATH does the same where the process may use it */
	if (e != EEXIST && linkat(fd, "", AT_FDCWD, path, AT_EMPTY_PATH) == 0)
		return 0;
	if (e == EEXIST)
		errno = EEXIST; /* another process was first; otherwise AT_EMPTY_PATH's reason */
	return -1;
}

ssize_t wp_os_getxattr(const char *path, const char *name, void *buf, size_t n)
{
	return getxattr(path, name, buf, n);
}

int wp_os_setxattr(const char *path, const char *name, const void *val, size_t n)
{
	return setxattr(path, name, val, n, 0);
}

int wp_os_fsetxattr(int fd, const char *name, const void *val, size_t n)
{
	return fsetxattr(fd, name, val, n, 0);
}

int wp_os_poll(struct wp_os_pollfd *p, size_t n, int timeout_ms)
{
	enum { MAX = 256 };
	struct pollfd q[MAX];
	if (n > MAX) {
		errno = EINVAL;
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		q[i] = (struct pollfd){ .fd = p[i].fd,
					.events = (short)((p[i].events & WP_POLLIN ? POLLIN : 0) |
							  (p[i].events & WP_POLLOUT ? POLLOUT :
										      0)) };
	int r = poll(q, (nfds_t)n, timeout_ms);
	for (size_t i = 0; i < n; i++) {
		short e = r > 0 ? q[i].revents : 0;
		p[i].revents = (short)((e & POLLIN ? WP_POLLIN : 0) |
				       (e & POLLOUT ? WP_POLLOUT : 0) |
				       (e & POLLERR ? WP_POLLERR : 0) |
				       (e & POLLHUP ? WP_POLLHUP : 0) |
				       (e & POLLNVAL ? WP_POLLERR : 0));
	}
	return r;
}

int wp_os_pipe(int fds[2])
{
	return pipe2(fds, O_CLOEXEC);
}

int wp_os_spawn(const struct wp_os_spawn *s, struct wp_os_proc *p)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	if (s->own_group) {
		posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
		posix_spawnattr_setpgroup(&at, 0);
	}
	if (s->stdin_fd >= 0)
		posix_spawn_file_actions_adddup2(&fa, s->stdin_fd, 0);
	if (s->stdout_fd >= 0)
		posix_spawn_file_actions_adddup2(&fa, s->stdout_fd, 1);
	if (s->stderr_fd >= 0)
		posix_spawn_file_actions_adddup2(&fa, s->stderr_fd, 2);
	static char *const no_env[] = { NULL };
	pid_t pid;
	int e = (s->search ? posix_spawnp : posix_spawn)(&pid, s->argv[0], &fa, &at,
							 (char *const *)s->argv,
							 s->envp ? (char *const *)s->envp : no_env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	p->pid = e ? 0 : (long)pid;
	p->handle = p->job = NULL;
	return e;
}

int wp_os_proc_exited(const struct wp_os_proc *p)
{
	for (;;) {
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		int w = waitid(P_PID, (id_t)p->pid, &si, WEXITED | WNOHANG | WNOWAIT);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		return si.si_pid == (pid_t)p->pid;
	}
}

void wp_os_proc_kill(const struct wp_os_proc *p)
{
	/* the whole group (the leader still a zombie, so its id cannot have been reused) */
	kill(-(pid_t)p->pid, SIGKILL);
}

int wp_os_proc_wait(struct wp_os_proc *p, int *status, int *sig)
{
	int st = 0, w;
	*status = -1;
	*sig = 0;
	while ((w = waitpid((pid_t)p->pid, &st, 0)) < 0 && errno == EINTR)
		;
	if (w != (pid_t)p->pid)
		return -1;
	if (WIFEXITED(st))
		*status = WEXITSTATUS(st);
	else if (WIFSIGNALED(st))
		*sig = WTERMSIG(st);
	return 0;
}

long wp_os_getpid(void)
{
	return (long)getpid();
}

bool wp_os_pid_alive(long pid)
{
	return kill((pid_t)pid, 0) == 0 || errno != ESRCH;
}

void *wp_os_dlopen(const char *name, char *why, size_t why_len)
{
	void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!h && why && why_len) {
		const char *m = dlerror();
		snprintf(why, why_len, "%s", m ? m : "unknown error");
	}
	return h;
}

void *wp_os_dlsym(void *h, const char *name)
{
	return dlsym(h, name);
}

int wp_os_dlclose(void *h)
{
	return dlclose(h);
}

void wp_os_populate(void *p, size_t len)
{
#ifdef MADV_POPULATE_WRITE
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)p + (uintptr_t)pg - 1) & ~((uintptr_t)pg - 1);
	uintptr_t b = ((uintptr_t)p + len) & ~((uintptr_t)pg - 1);
	if (pg > 0 && b > a)
		madvise((void *)a, b - a, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)len;
#endif
}

void *wp_os_map_read(int fd, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	return p == MAP_FAILED ? NULL : p;
}

void wp_os_unmap(void *p, size_t len)
{
	if (p)
		munmap(p, len);
}

int64_t wp_os_monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void wp_os_sleep_ms(unsigned ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000 * 1000 };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int wp_os_random(void *buf, size_t n)
{
	return getrandom(buf, n, GRND_NONBLOCK) == (ssize_t)n ? 0 : -1;
}

int wp_os_ncpu(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

long wp_os_max_open_files(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return 0;
	return (long)rl.rlim_cur;
}

int wp_os_uname(char *sys, size_t sys_len, char *release, size_t rel_len, char *machine,
		size_t mach_len)
{
	struct utsname u;
	if (uname(&u) < 0)
		return -1;
	snprintf(sys, sys_len, "%s", u.sysname);
	snprintf(release, rel_len, "%s", u.release);
	snprintf(machine, mach_len, "%s", u.machine);
	return 0;
}

const char *wp_os_libc_version(void)
{
#ifdef __GLIBC__
	return gnu_get_libc_version();
#else
	return NULL;
#endif
}

const char *wp_os_strerror(int errnum, char *buf, size_t n)
{
	/* GNU strerror_r: returns the message, which may not be buf. */
	return strerror_r(errnum, buf, n);
}

const char *const *wp_os_environ(void)
{
	return (const char *const *)environ;
}

void wp_os_utf8_args(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
}

void wp_os_on_interrupt(void (*fn)(int sig))
{
	struct sigaction sa = { 0 };
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

void wp_os_exit_now(int code)
{
	_exit(code);
}

void wp_os_raise_open_files(long max)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return;
	rlim_t want = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > (rlim_t)max ? (rlim_t)max :
										  rl.rlim_max;
	if (rl.rlim_cur < want) {
		rl.rlim_cur = want;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

bool wp_os_isatty(int fd)
{
	return isatty(fd) == 1;
}

int wp_os_term_width(int fd)
{
	struct winsize ws;
	if (isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0)
		return ws.ws_col;
	return 0;
}

void wp_os_term_init(void)
{
}

bool wp_os_is_sep(char c)
{
	return c == '/';
}

bool wp_os_path_is_abs(const char *path)
{
	return path && path[0] == '/';
}
