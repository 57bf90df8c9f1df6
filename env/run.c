/* env/run.c: programs run with posix_spawn under a time limit and an output ceiling (env/ only). */
#include "env/run.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_AT_ONCE 64

/* what a run with no environment given gets: nothing (below cli/ the process's own is not read) */
static char *const no_env[] = { NULL };

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void wp_run_init(struct wp_run *r, size_t out_max)
{
	memset(r, 0, sizeof(*r));
	r->out = (struct wp_buf)WP_BUF_INIT_MAX(out_max);
	r->fd = r->in_fd = -1;
	r->status = -1;
}

/* A spawn that failed in the child's exec, as a shell says it: status 127. */
static bool exec_failed(int e)
{
	return e == ENOENT || e == EACCES || e == ENOEXEC || e == ENOTDIR || e == ELOOP || e == ENAMETOOLONG ||
	       e == ETXTBSY || e == EPERM || e == EISDIR;
}

static void run_start(struct wp_run *r, int devnull)
{
	int p[2] = { -1, -1 }, in[2] = { -1, -1 };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	if (devnull < 0 || pipe2(p, O_CLOEXEC) < 0)
		return;
	if (r->stdin_text && r->stdin_len && pipe2(in, O_CLOEXEC) < 0) {
		close(p[0]);
		close(p[1]);
		return;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	/* own process group, so a timeout also kills what a wrapper script started */
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawn_file_actions_adddup2(&fa, in[0] >= 0 ? in[0] : devnull, 0);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	if (r->merge_stderr)
		posix_spawn_file_actions_adddup2(&fa, p[1], 2);
	else if (!r->inherit_stderr)
		posix_spawn_file_actions_adddup2(&fa, devnull, 2);
	pid_t pid;
	int e = (r->search ? posix_spawnp : posix_spawn)(&pid, r->argv[0], &fa, &at, (char *const *)r->argv,
							 r->envp ? (char *const *)r->envp : no_env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(p[1]);
	if (in[0] >= 0)
		close(in[0]);
	if (e) {
		close(p[0]);
		if (in[1] >= 0)
			close(in[1]);
		r->spawn_errno = e;
		if (exec_failed(e)) { /* what a fork and a failed exec said: it ran and exited 127 */
			r->started = r->done = true;
			r->status = 127;
		}
		return;
	}
	r->pid = pid;
	r->fd = p[0];
	r->in_fd = in[1];
	if (r->in_fd >= 0)
		fcntl(r->in_fd, F_SETFL, O_NONBLOCK);
	r->started = true;
}

static void run_read(struct wp_run *r)
{
	char tmp[8192];
	ssize_t n = read(r->fd, tmp, sizeof(tmp));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n > 0) {
		size_t room = r->out.max ? r->out.max - r->out.len : (size_t)n;
		wp_buf_add(&r->out, tmp, (size_t)n < room ? (size_t)n : room);
		if ((size_t)n <= room || r->drain)
			return;
		/* enough to parse; the rest would only be thrown away */
		r->truncated = true;
	}
	close(r->fd);
	r->fd = -1;
}

static void run_write(struct wp_run *r)
{
	ssize_t k = write(r->in_fd, r->stdin_text + r->sent, r->stdin_len - r->sent);
	if (k > 0)
		r->sent += (size_t)k;
	if (k < 0 && errno != EAGAIN && errno != EINTR)
		r->sent = r->stdin_len; /* it stopped reading: the rest is not wanted */
	if (r->sent >= r->stdin_len) {
		close(r->in_fd);
		r->in_fd = -1;
	}
}

/* Reap r, waiting no later than its deadline; then kill its group (the leader is still a zombie,
 * so the group id cannot have been reused). */
static void run_finish(struct wp_run *r)
{
	if (r->in_fd >= 0) {
		close(r->in_fd);
		r->in_fd = -1;
	}
	if (r->fd >= 0) {
		close(r->fd);
		r->fd = -1;
		r->timed_out = true;
	}
	if (!r->pid)
		return;
	while (!r->timed_out && !r->truncated) {
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		int w = waitid(P_PID, (id_t)r->pid, &si, WEXITED | WNOHANG | WNOWAIT);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 || si.si_pid == r->pid)
			break;
		if (now_ms() >= r->deadline) {
			r->timed_out = true;
			break;
		}
		struct timespec ts = { 0, 2 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	kill(-r->pid, SIGKILL);
	int st = 0, w;
	while ((w = waitpid(r->pid, &st, 0)) < 0 && errno == EINTR)
		;
	if (w == r->pid && !r->timed_out && WIFEXITED(st))
		r->status = WEXITSTATUS(st);
	else if (w == r->pid && !r->timed_out && WIFSIGNALED(st))
		r->signal = WTERMSIG(st);
}

void wp_run_all(struct wp_run *runs, size_t n, size_t at_once, int timeout_ms)
{
	if (!at_once) {
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		at_once = ncpu > 4 ? (size_t)ncpu : 4;
	}
	if (at_once > MAX_AT_ONCE)
		at_once = MAX_AT_ONCE;
	long long budget_end = now_ms() + 3LL * timeout_ms;
	int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	struct pollfd pfd[2 * MAX_AT_ONCE];
	size_t idx[2 * MAX_AT_ONCE];
	size_t next = 0, running = 0;
	for (;;) {
		long long now = now_ms();
		for (; running < at_once && next < n && now < budget_end; next++) {
			run_start(&runs[next], devnull);
			runs[next].deadline = now + timeout_ms;
			running += runs[next].started && !runs[next].done;
		}
		size_t np = 0;
		long long wake = budget_end;
		for (size_t i = 0; i < next; i++) {
			struct wp_run *r = &runs[i];
			if (!r->started || r->done)
				continue;
			if (r->fd < 0 || now >= r->deadline) {
				run_finish(r);
				r->done = true;
				running--;
				continue;
			}
			pfd[np] = (struct pollfd){ .fd = r->fd, .events = POLLIN };
			idx[np++] = i;
			if (r->in_fd >= 0) {
				pfd[np] = (struct pollfd){ .fd = r->in_fd, .events = POLLOUT };
				idx[np++] = i;
			}
			wake = r->deadline < wake ? r->deadline : wake;
		}
		if (!np && (next == n || now_ms() >= budget_end))
			break;
		if (!np)
			continue;
		long long left = wake - now_ms();
		int k = poll(pfd, np, left > 0 ? (int)left : 0);
		for (size_t q = 0; k > 0 && q < np; q++) {
			struct wp_run *r = &runs[idx[q]];
			if (!pfd[q].revents)
				continue;
			if (pfd[q].fd == r->in_fd)
				run_write(r);
			else if (pfd[q].fd == r->fd)
				run_read(r);
		}
	}
	for (size_t i = next; i < n; i++)
		runs[i].skipped = true;
	if (devnull >= 0)
		close(devnull);
}
