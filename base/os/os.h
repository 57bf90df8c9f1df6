/* base/os/os.h: the OS seam: every direct call to the operating system goes through here.
 *
 * One API, two implementations chosen by the Makefile (never by #ifdef in a caller): posix.c
 * (Linux, with its fast paths: O_TMPFILE, FICLONE, copy_file_range, renameat2) and win32_*.c
 * (Windows: UTF-16 at the API, MoveFileExW, FlushFileBuffers, LockFileEx, CreateProcessW...).
 *
 * Conventions. The calls are POSIX-shaped, so that a caller's errno tests (ENOENT, EEXIST, EXDEV,
 * EINTR) keep working unchanged: a file descriptor or 0 on success, -1 with errno set on failure
 * (Windows errors are mapped to the nearest errno). The wp_err-returning layer for users' messages
 * is base/fs.c, on top of this. Paths are UTF-8 everywhere; '/' separates on every system, and on
 * Windows '\\', drive letters ("C:/x"), UNC ("//server/share") and long paths (the \\?\ prefix is
 * added at the API) are accepted too. Flags and mode bits are the seam's own (WP_O_*, WP_S_*), so a
 * caller needs no OS header. */
#ifndef WP_BASE_OS_OS_H
#define WP_BASE_OS_OS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h> /* ssize_t, mode_t: both systems' C libraries have them */

/* ---- open flags (translated by each implementation) ---- */
#define WP_O_RDONLY    0x0000
#define WP_O_WRONLY    0x0001
#define WP_O_RDWR      0x0002
#define WP_O_ACCMODE   0x0003
#define WP_O_CREAT     0x0010
#define WP_O_EXCL      0x0020
#define WP_O_TRUNC     0x0040
#define WP_O_APPEND    0x0080
#define WP_O_NONBLOCK  0x0100
#define WP_O_DIRECTORY 0x0200
#define WP_O_NOFOLLOW  0x0400
#define WP_O_CLOEXEC   0x0800

/* ---- *at() ---- */
#define WP_AT_FDCWD            (-100)
#define WP_AT_SYMLINK_NOFOLLOW 0x1
#define WP_AT_REMOVEDIR        0x2
#define WP_AT_SYMLINK_FOLLOW   0x4

/* ---- file types and permission bits: the traditional octal values (Linux's own) ---- */
#define WP_S_IFMT   0170000u
#define WP_S_IFSOCK 0140000u
#define WP_S_IFLNK  0120000u
#define WP_S_IFREG  0100000u
#define WP_S_IFBLK  0060000u
#define WP_S_IFDIR  0040000u
#define WP_S_IFCHR  0020000u
#define WP_S_IFIFO  0010000u
#define WP_S_ISUID  04000u
#define WP_S_ISGID  02000u
#define WP_S_ISVTX  01000u
#define WP_S_IRWXU  00700u
#define WP_S_IXUSR  00100u
#define WP_S_IWGRP  00020u
#define WP_S_IXGRP  00010u
#define WP_S_IWOTH  00002u
#define WP_S_IXOTH  00001u
#define WP_S_ISREG(m)  (((m) & WP_S_IFMT) == WP_S_IFREG)
#define WP_S_ISDIR(m)  (((m) & WP_S_IFMT) == WP_S_IFDIR)
#define WP_S_ISLNK(m)  (((m) & WP_S_IFMT) == WP_S_IFLNK)
#define WP_S_ISFIFO(m) (((m) & WP_S_IFMT) == WP_S_IFIFO)
#define WP_S_ISCHR(m)  (((m) & WP_S_IFMT) == WP_S_IFCHR)
#define WP_S_ISBLK(m)  (((m) & WP_S_IFMT) == WP_S_IFBLK)
#define WP_S_ISSOCK(m) (((m) & WP_S_IFMT) == WP_S_IFSOCK)

/* access() */
#define WP_F_OK 0
#define WP_X_OK 1
#define WP_W_OK 2
#define WP_R_OK 4

/* flock() */
#define WP_LOCK_SH 1
#define WP_LOCK_EX 2
#define WP_LOCK_NB 4
#define WP_LOCK_UN 8

/* What stat says of a file. On Windows dev/ino are the volume serial and the file index (so
 * "same file" tests work), nlink the link count, blocks the size in 512-byte units. */
struct wp_os_stat {
	uint64_t st_dev, st_ino;
	uint32_t st_mode; /* WP_S_IF* | permission bits */
	uint64_t st_nlink;
	int64_t st_size;
	int64_t st_blocks;
	int64_t st_mtime_s; /* last modification, seconds and nanoseconds since 1970 */
	long st_mtime_ns;
};

/* ---- files ---- */
/* As open(2): the mode (an unsigned) follows when flags has WP_O_CREAT. */
int wp_os_open(const char *path, int flags, ...);
int wp_os_openat(int dirfd, const char *path, int flags, ...);
int wp_os_close(int fd);
int wp_os_dup(int fd); /* close-on-exec (F_DUPFD_CLOEXEC) */
ssize_t wp_os_read(int fd, void *buf, size_t n);
ssize_t wp_os_write(int fd, const void *buf, size_t n);
ssize_t wp_os_pread(int fd, void *buf, size_t n, int64_t off);
ssize_t wp_os_pwrite(int fd, const void *buf, size_t n, int64_t off);
int64_t wp_os_lseek(int fd, int64_t off, int whence); /* SEEK_SET, SEEK_CUR, SEEK_END (stdio.h) */
int wp_os_fsync(int fd);     /* data and metadata to the disk (FlushFileBuffers) */
int wp_os_fdatasync(int fd); /* data (and the size) to the disk */
int wp_os_ftruncate(int fd, int64_t len);
/* Everything written to fd's file system, to the disk (syncfs; Windows: flushing a volume needs
 * an administrator, so each file's own FlushFileBuffers is what counts there: nothing to do). */
int wp_os_syncfs(int fd);
/* Start writing [off, off+len) of fd back to the disk without waiting (len 0: to the end), so a
 * later fsync has less to wait for (sync_file_range WRITE); nothing where there is no such call. */
void wp_os_start_writeback(int fd, int64_t off, int64_t len);
int wp_os_set_nonblock(int fd, bool on);
int wp_os_stat(const char *path, struct wp_os_stat *st);
int wp_os_lstat(const char *path, struct wp_os_stat *st);
int wp_os_fstat(int fd, struct wp_os_stat *st);
int wp_os_fstatat(int dirfd, const char *path, struct wp_os_stat *st, int flags);
int wp_os_access(const char *path, int how);
int wp_os_faccessat(int dirfd, const char *path, int how, int flags);
int wp_os_chmod(const char *path, unsigned mode);
/* umask(2): the new mask set, the old returned (Windows: nothing to mask, 0). */
unsigned wp_os_umask(unsigned mask);
int wp_os_fchmod(int fd, unsigned mode);
/* The modification time set to sec.nsec (and the access time with it). */
int wp_os_set_mtime(const char *path, int64_t sec, long nsec);

/* ---- names ---- */
int wp_os_mkdir(const char *path, unsigned mode);
int wp_os_mkdirat(int dirfd, const char *path, unsigned mode);
int wp_os_rmdir(const char *path);
int wp_os_unlink(const char *path);
int wp_os_unlinkat(int dirfd, const char *path, int flags);
/* Atomic replace: to, if it exists, is replaced in one step (Windows: MoveFileExW with
 * MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH). */
int wp_os_rename(const char *from, const char *to);
int wp_os_renameat(int fromfd, const char *from, int tofd, const char *to);
/* Swap two existing names in one step (Linux renameat2 RENAME_EXCHANGE); -1 with errno
 * EOPNOTSUPP or ENOSYS where the system or file system cannot, and the caller falls back. */
int wp_os_rename_exchange(const char *a, const char *b);
int wp_os_link(const char *from, const char *to); /* hard link (CreateHardLinkW) */
int wp_os_linkat(int fromfd, const char *from, int tofd, const char *to, int flags);
int wp_os_symlink(const char *target, const char *path);
int wp_os_symlinkat(const char *target, int dirfd, const char *path);
ssize_t wp_os_readlink(const char *path, char *buf, size_t n);
ssize_t wp_os_readlinkat(int dirfd, const char *path, char *buf, size_t n);
/* realpath(3): a new string, or NULL with errno. */
char *wp_os_realpath(const char *path);
/* mkdtemp(3): the XXXXXX at the end of tmpl replaced; tmpl or NULL with errno. */
char *wp_os_mkdtemp(char *tmpl);
/* The current folder into buf (getcwd); buf, or NULL with errno (ERANGE: too small). */
char *wp_os_getcwd(char *buf, size_t n);
/* fn for each entry under root that is not a folder (nftw's order, FTW_PHYS: a link is given
 * with its own lstat, never followed; an entry that cannot be stat'ed is left out). fn returns 0
 * to go on, anything else to stop with that value. -1 with errno when root cannot be read. */
int wp_os_walk(const char *root,
	       int (*fn)(void *ctx, const char *path, const struct wp_os_stat *st), void *ctx);
/* Removes path and everything under it, links removed and never followed; best effort. */
void wp_os_remove_tree(const char *path);

/* ---- folders ---- */
struct wp_os_dir; /* opaque */
struct wp_os_dirent {
	const char *d_name; /* valid until the next wp_os_readdir */
};
struct wp_os_dir *wp_os_opendir(const char *path);
/* The folder open at fd; fd is the folder's from now on (closed by wp_os_closedir). */
struct wp_os_dir *wp_os_fdopendir(int fd);
/* The next entry ("." and ".." included, as readdir gives them), NULL at the end. */
const struct wp_os_dirent *wp_os_readdir(struct wp_os_dir *d);
int wp_os_dirfd(struct wp_os_dir *d);
/* Back to the first entry. */
void wp_os_rewinddir(struct wp_os_dir *d);
int wp_os_closedir(struct wp_os_dir *d);

/* ---- locks ---- */
/* flock(2) (Windows: LockFileEx over the whole file). */
int wp_os_flock(int fd, int how);

/* ---- fast paths (each reports EOPNOTSUPP/ENOSYS where it does not exist; callers fall back)
 * ---- */
/* The whole of in shared into out by reference (FICLONE; on Windows none yet). */
int wp_os_clone(int in_fd, int out_fd);
/* copy_file_range(2) from in (at *in_off, advanced, or its offset when NULL) to out's offset. */
ssize_t wp_os_copy_range(int in_fd, int64_t *in_off, int out_fd, size_t len);
/* An unnamed file in dir (O_TMPFILE), to be named later by wp_os_link_tmpfile. */
int wp_os_open_tmpfile(const char *dir, int flags, unsigned mode);
/* A name for the unnamed file fd (linkat through /proc/self/fd, else AT_EMPTY_PATH). */
int wp_os_link_tmpfile(int fd, const char *path);
/* Extended attributes (user.*); ENOTSUP where the file system has none. */
ssize_t wp_os_getxattr(const char *path, const char *name, void *buf, size_t n);
int wp_os_setxattr(const char *path, const char *name, const void *val, size_t n);
int wp_os_fsetxattr(int fd, const char *name, const void *val, size_t n);

/* ---- pipes, polling ---- */
#define WP_POLLIN  0x1
#define WP_POLLOUT 0x4
#define WP_POLLERR 0x8
#define WP_POLLHUP 0x10
struct wp_os_pollfd {
	int fd;
	short events, revents;
};
int wp_os_poll(struct wp_os_pollfd *p, size_t n, int timeout_ms);
int wp_os_pipe(int fds[2]); /* close-on-exec both */

/* ---- processes ---- */
/* A child process. On Windows it also holds the process and job handles. */
struct wp_os_proc {
	long pid;
	void *handle, *job;
};
struct wp_os_spawn {
	const char *const *argv; /* argv[0] a path, or a name looked up on PATH when search */
	bool search;
	int stdin_fd, stdout_fd, stderr_fd; /* -1: ours inherited */
	/* a process group of its own (Windows: a job), so wp_os_proc_kill reaches what it
	 * started */
	bool own_group;
	/* the child's environment, "NAME=value" strings: what the caller was handed (below cli/ the
	 * process's own is never taken silently); NULL: an empty one */
	const char *const *envp;
};
/* Started, or an errno value (posix_spawn's convention: the exec's own failure shows here too).
 * On Windows the command line is quoted as the MSVCRT parses it, the environment as a UTF-16
 * block. */
int wp_os_spawn(const struct wp_os_spawn *s, struct wp_os_proc *p);
/* 1 when p has exited (not yet reaped), 0 while it runs, -1 with errno. */
int wp_os_proc_exited(const struct wp_os_proc *p);
/* Kill p and its group (SIGKILL / TerminateJobObject). */
void wp_os_proc_kill(const struct wp_os_proc *p);
/* Wait for p and reap it: *status its exit status or -1, *sig the signal that ended it or 0. */
int wp_os_proc_wait(struct wp_os_proc *p, int *status, int *sig);
long wp_os_getpid(void);
/* Whether a process with this id exists (kill(pid, 0) != ESRCH). */
bool wp_os_pid_alive(long pid);

/* ---- dynamic loading ---- */
/* dlopen(RTLD_NOW | RTLD_LOCAL) / LoadLibraryW; NULL with why (may be NULL) saying why. */
void *wp_os_dlopen(const char *name, char *why, size_t why_len);
void *wp_os_dlsym(void *h, const char *name);
int wp_os_dlclose(void *h);

/* ---- memory maps ---- */
/* len bytes of fd mapped read-only (shared); NULL with errno. */
void *wp_os_map_read(int fd, size_t len);
void wp_os_unmap(void *p, size_t len);
/* Have the pages of [p, p+len) (our own heap) backed now, writable, in one call where the system
 * can (MADV_POPULATE_WRITE); nothing elsewhere. */
void wp_os_populate(void *p, size_t len);

/* ---- clocks, randomness, machine ---- */
int64_t wp_os_monotonic_ns(void);
void wp_os_sleep_ms(unsigned ms);
/* n random bytes without blocking; -1 when the system has none yet (early boot). */
int wp_os_random(void *buf, size_t n);
int wp_os_ncpu(void);
/* The soft limit on open files, or 0 for none/unknown. */
long wp_os_max_open_files(void);
/* uname: the system's name ("Linux", "Windows"), release and machine ("x86_64"); 0 or -1. */
int wp_os_uname(char *sys, size_t sys_len, char *release, size_t rel_len, char *machine,
		size_t mach_len);
/* The C library's version ("2.36" for glibc), or NULL where there is no such thing to say. */
const char *wp_os_libc_version(void);
/* strerror_r into buf; the message (which may not be buf). */
const char *wp_os_strerror(int errnum, char *buf, size_t n);

/* ---- the process ---- */
#define WP_OS_STDIN  0
#define WP_OS_STDOUT 1
#define WP_OS_STDERR 2
/* The process environment as NAME=value strings, NULL-terminated (UTF-8 on Windows too: made from
 * GetEnvironmentStringsW once). cli/ alone reads it and hands it down as a value (base/envp.h). */
const char *const *wp_os_environ(void);
/* argv in UTF-8: on Windows made again from GetCommandLineW (CommandLineToArgvW), since the C
 * runtime's argv is in the ANSI code page; elsewhere left as it is. Called first thing in main. */
void wp_os_utf8_args(int *argc, char ***argv);
/* fn(sig) on an interrupt: SIGINT, SIGTERM, SIGHUP (Windows: Ctrl-C, Ctrl-Break, the console
 * closed, as 2, 15 and 1). fn may only write and wp_os_exit_now. */
void wp_os_on_interrupt(void (*fn)(int sig));
/* _exit: at once, no atexit handlers, no stdio flushed. */
_Noreturn void wp_os_exit_now(int code);
/* The soft limit on open files raised toward the hard limit, at most to max; best effort. */
void wp_os_raise_open_files(long max);

/* ---- terminal ---- */
bool wp_os_isatty(int fd);
/* The terminal's width in columns, or 0 when fd is no terminal or it cannot say. */
int wp_os_term_width(int fd);
/* Once, before printing: on Windows the console is switched to UTF-8 output and VT escape codes
 * (ENABLE_VIRTUAL_TERMINAL_PROCESSING); nothing to do elsewhere. */
void wp_os_term_init(void);

/* ---- paths ---- */
/* A separator on this system: '/' everywhere, '\\' too on Windows. */
bool wp_os_is_sep(char c);
/* An absolute path: "/x" everywhere; "C:/x", "C:\\x", UNC "\\\\s\\share" on Windows. */
bool wp_os_path_is_abs(const char *path);
/* What separates PATH's entries (':' or ';') and what a program's file name ends with ("" or
 * ".exe"). */
extern const char wp_os_path_list_sep;
extern const char wp_os_exe_suffix[];
/* The null device ("/dev/null", "NUL"). */
extern const char wp_os_devnull[];
/* Whether the file system keeps a file's mode bits (the executable bit): not on Windows, where
 * wp_os_stat makes them up from the name (.exe, .bat, ... are executable). */
extern const bool wp_os_keeps_modes;
/* Where this system's programs keep their settings and caches, as pip, uv and platformdirs read
 * it: the XDG layout (HOME, XDG_CACHE_HOME, XDG_CONFIG_HOME, /etc; pip.conf), or Windows'
 * (LOCALAPPDATA, APPDATA, ProgramData, USERPROFILE; pip.ini). */
enum wp_os_layout { WP_OS_LAYOUT_XDG, WP_OS_LAYOUT_WINDOWS };
extern const enum wp_os_layout wp_os_layout;

#endif
