/* env/run.c: programs run (wp_os_spawn) under a time limit and an output ceiling (env/ only). */
#include "env/run.h"
#include "base/os/os.h"

#include <errno.h>
#include <string.h>

#define MAX_AT_ONCE 64

static long long now_ms(void)
{
	return (long long)(wp_os_monotonic_ns() / 1000000);
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
	return e == ENOENT || e == EACCES || e == ENOEXEC || e == ENOTDIR || e == ELOOP ||
	       e == ENAMETOOLONG || e == ETXTBSY || e == EPERM || e == EISDIR;
}

static void run_start(struct wp_run *r, int devnull)
{
	int p[2] = { -1, -1 }, in[2] = { -1, -1 };
	if (devnull < 0 || wp_os_pipe(p) < 0)
		return;
	if (r->stdin_text && r->stdin_len && wp_os_pipe(in) < 0) {
		wp_os_close(p[0]);
		wp_os_close(p[1]);
		return;
	}
	/* own process group, so a timeout also kills what a wrapper script started */
	struct wp_os_spawn sp = {
		.argv = r->argv,
		.search = r->search,
		.stdin_fd = in[0] >= 0 ? in[0] : devnull,
		.stdout_fd = p[1],
		.stderr_fd = r->merge_stderr ? p[1] : !r->inherit_stderr ? devnull : -1,
		.own_group = true,
		.envp = r->envp,
	};
	struct wp_os_proc proc;
	int e = wp_os_spawn(&sp, &proc);
	wp_os_close(p[1]);
	if (in[0] >= 0)
		wp_os_close(in[0]);
	if (e) {
		wp_os_close(p[0]);
		if (in[1] >= 0)
			wp_os_close(in[1]);
		r->spawn_errno = e;
		if (exec_failed(e)) { /* what a fork and a failed exec said: it ran and exited 127
				       */
			r->started = r->done = true;
			r->status = 127;
		}
		return;
	}
	r->proc = proc;
	r->fd = p[0];
	r->in_fd = in[1];
	if (r->in_fd >= 0)
		wp_os_set_nonblock(r->in_fd, true);
	r->started = true;
}

static void run_read(struct wp_run *r)
{
	char tmp[8192];
	ssize_t n = wp_os_read(r->fd, tmp, sizeof(tmp));
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
	wp_os_close(r->fd);
	r->fd = -1;
}

static void run_write(struct wp_run *r)
{
	ssize_t k = wp_os_write(r->in_fd, r->stdin_text + r->sent, r->stdin_len - r->sent);
	if (k > 0)
		r->sent += (size_t)k;
	if (k < 0 && errno != EAGAIN && errno != EINTR)
		r->sent = r->stdin_len; /* it stopped reading: the rest is not wanted */
	if (r->sent >= r->stdin_len) {
		wp_os_close(r->in_fd);
		r->in_fd = -1;
	}
}

/* Reap r, waiting no later than its deadline; then kill its group (the leader is still a zombie,
 * so the group id cannot have been reused). */
static void run_finish(struct wp_run *r)
{
	if (r->in_fd >= 0) {
		wp_os_close(r->in_fd);
		r->in_fd = -1;
	}
	if (r->fd >= 0) {
		wp_os_close(r->fd);
		r->fd = -1;
		r->timed_out = true;
	}
	if (!r->proc.pid)
		return;
	while (!r->timed_out && !r->truncated) {
		if (wp_os_proc_exited(&r->proc) != 0)
			break;
		if (now_ms() >= r->deadline) {
			r->timed_out = true;
			break;
		}
		wp_os_sleep_ms(2);
	}
	wp_os_proc_kill(&r->proc);
	int status, sig;
	if (wp_os_proc_wait(&r->proc, &status, &sig) == 0 && !r->timed_out) {
		if (status >= 0)
			r->status = status;
		else if (sig)
			r->signal = sig;
	}
}

void wp_run_all(struct wp_run *runs, size_t n, size_t at_once, int timeout_ms)
{
	if (!at_once) {
		int ncpu = wp_os_ncpu();
		at_once = ncpu > 4 ? (size_t)ncpu : 4;
	}
	if (at_once > MAX_AT_ONCE)
		at_once = MAX_AT_ONCE;
	long long budget_end = now_ms() + 3LL * timeout_ms;
	int devnull = wp_os_open(wp_os_devnull, WP_O_RDWR | WP_O_CLOEXEC);
	struct wp_os_pollfd pfd[2 * MAX_AT_ONCE];
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
			pfd[np] = (struct wp_os_pollfd){ .fd = r->fd, .events = WP_POLLIN };
			idx[np++] = i;
			if (r->in_fd >= 0) {
				pfd[np] = (struct wp_os_pollfd){ .fd = r->in_fd,
								 .events = WP_POLLOUT };
				idx[np++] = i;
			}
			wake = r->deadline < wake ? r->deadline : wake;
		}
		if (!np && (next == n || now_ms() >= budget_end))
			break;
		if (!np)
			continue;
		long long left = wake - now_ms();
		int k = wp_os_poll(pfd, np, left > 0 ? (int)left : 0);
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
		wp_os_close(devnull);
}
