/* base/os/win32_proc.c: the Windows seam's processes: pipes, polling, spawning, DLLs, and this
 * process's environment, arguments and Ctrl-C. */

#include "base/os/win32_internal.h"

/* ---- pipes, polling ---- */

int wp_os_pipe(int fds2[2])
{
	HANDLE r, w;
	if (!CreatePipe(&r, &w, NULL, 1 << 16))
		return wp_w32_fail_last();
	fds2[0] = _open_osfhandle((intptr_t)r, _O_RDONLY | _O_BINARY);
	fds2[1] = _open_osfhandle((intptr_t)w, _O_BINARY);
	if (fds2[0] < 0 || fds2[1] < 0) {
		if (fds2[0] >= 0)
			_close(fds2[0]);
		else
			CloseHandle(r);
		if (fds2[1] >= 0)
			_close(fds2[1]);
		else
			CloseHandle(w);
		return wp_w32_fail(EMFILE);
	}
	return 0;
}

/* Windows cannot wait on an anonymous pipe: ask each fd, sleeping a little between rounds. */
int wp_os_poll(struct wp_os_pollfd *p, size_t n, int timeout_ms)
{
	int64_t end = timeout_ms < 0 ? INT64_MAX : wp_os_monotonic_ns() / 1000000 + timeout_ms;
	for (unsigned nap = 1;; nap = nap < 16 ? nap * 2 : 16) {
		int ready = 0;
		for (size_t i = 0; i < n; i++) {
			HANDLE h = wp_w32_fd_handle(p[i].fd);
			p[i].revents = 0;
			if (h == INVALID_HANDLE_VALUE) {
				p[i].revents = WP_POLLERR;
			} else if (GetFileType(h) == FILE_TYPE_PIPE) {
				DWORD avail = 0;
				if (!PeekNamedPipe(h, NULL, 0, NULL, &avail, NULL))
					p[i].revents = (short)(p[i].events & WP_POLLIN ?
								       WP_POLLHUP | WP_POLLIN :
								       WP_POLLERR);
				else if ((p[i].events & WP_POLLIN) && avail)
					p[i].revents = WP_POLLIN;
				else if (p[i].events & WP_POLLOUT)
					p[i].revents = WP_POLLOUT; /* a non-blocking pipe write
								      takes what fits */
			} else {
				p[i].revents = (short)(p[i].events & (WP_POLLIN | WP_POLLOUT));
			}
			ready += p[i].revents != 0;
		}
		if (ready)
			return ready;
		int64_t left = end - wp_os_monotonic_ns() / 1000000;
		if (left <= 0)
			return 0;
		Sleep(left < nap ? (DWORD)left : nap);
	}
}

/* ---- processes ---- */

/* argv as one command line, quoted as the MSVCRT (and CommandLineToArgvW) parse it back: an
 * argument with a space, tab or quote is put in quotes; backslashes are literal except before a
 * quote, where each is doubled and the quote escaped. */
static wchar_t *command_line(const char *const *argv)
{
	size_t cap = 64, len = 0;
	char *s = malloc(cap);
	if (!s)
		return NULL;
#define PUT(c)                                          \
	do {                                            \
		if (len + 2 > cap) {                    \
			char *t_ = realloc(s, cap *= 2); \
			if (!t_) {                      \
				free(s);                \
				return NULL;            \
			}                               \
			s = t_;                         \
		}                                       \
		s[len++] = (c);                         \
	} while (0)
	for (size_t i = 0; argv[i]; i++) {
		const char *a = argv[i];
		if (i)
			PUT(' ');
		if (*a && !strpbrk(a, " \t\n\v\"")) {
			for (; *a; a++)
				PUT(*a);
			continue;
		}
		PUT('"');
		for (;; a++) {
			size_t bs = 0;
			while (*a == '\\') {
				a++;
				bs++;
			}
			if (!*a) {
				for (size_t k = 0; k < 2 * bs; k++)
					PUT('\\');
				break;
			}
			if (*a == '"') {
				for (size_t k = 0; k < 2 * bs + 1; k++)
					PUT('\\');
			} else {
				for (size_t k = 0; k < bs; k++)
					PUT('\\');
			}
			PUT(*a);
		}
		PUT('"');
	}
#undef PUT
	s[len] = 0;
	wchar_t *w = wp_w32_utf16(s);
	free(s);
	return w;
}

/* envp as CreateProcessW's UTF-16 block: each "NAME=value" and its NUL, then one more NUL (an
 * empty block is two). NULL when out of memory or a string is not UTF-8. */
static wchar_t *environment_block(const char *const *envp)
{
	size_t cap = 2, len = 0;
	wchar_t *b = malloc(cap * sizeof(*b));
	for (size_t i = 0; b && envp && envp[i]; i++) {
		wchar_t *w = wp_w32_utf16(envp[i]);
		if (!w) {
			free(b);
			return NULL;
		}
		size_t n = wcslen(w) + 1;
		if (len + n + 1 > cap) {
			while (len + n + 1 > cap)
				cap *= 2;
			wchar_t *t = realloc(b, cap * sizeof(*b));
			if (!t) {
				free(w);
				free(b);
				return NULL;
			}
			b = t;
		}
		memcpy(b + len, w, n * sizeof(*b));
		len += n;
		free(w);
	}
	if (b) {
		b[len++] = 0;
		if (len == 1)
			b[len++] = 0;
	}
	return b;
}

static HANDLE inheritable(int fd, DWORD std)
{
	HANDLE h = fd >= 0 ? wp_w32_fd_handle(fd) : GetStdHandle(std), d = NULL;
	if (h == INVALID_HANDLE_VALUE || !h)
		return NULL;
	if (!DuplicateHandle(GetCurrentProcess(), h, GetCurrentProcess(), &d, 0, TRUE,
			     DUPLICATE_SAME_ACCESS))
		return NULL;
	return d;
}

int wp_os_spawn(const struct wp_os_spawn *s, struct wp_os_proc *p)
{
	memset(p, 0, sizeof(*p));
	wchar_t *cmd = command_line(s->argv);
	wchar_t *app = NULL;
	wchar_t *env = environment_block(s->envp);
	if (!cmd || !env) {
		free(cmd);
		free(env);
		return ENOMEM;
	}
	if (!s->search) {
		app = wp_w32_wpath(s->argv[0]);
		if (!app) {
			free(cmd);
			free(env);
			return errno;
		}
	}
	HANDLE hs[3] = { inheritable(s->stdin_fd, STD_INPUT_HANDLE),
			 inheritable(s->stdout_fd, STD_OUTPUT_HANDLE),
			 inheritable(s->stderr_fd, STD_ERROR_HANDLE) };
	HANDLE list[3];
	DWORD nlist = 0;
	for (int i = 0; i < 3; i++)
		if (hs[i])
			list[nlist++] = hs[i];
	/* only these three handles reach the child, not every inheritable handle we hold */
	SIZE_T asz = 0;
	InitializeProcThreadAttributeList(NULL, 1, 0, &asz);
	LPPROC_THREAD_ATTRIBUTE_LIST attrs = malloc(asz);
	STARTUPINFOEXW si;
	memset(&si, 0, sizeof(si));
	si.StartupInfo.cb = sizeof(si);
	si.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
	si.StartupInfo.hStdInput = hs[0];
	si.StartupInfo.hStdOutput = hs[1];
	si.StartupInfo.hStdError = hs[2];
	DWORD flags = CREATE_UNICODE_ENVIRONMENT | CREATE_SUSPENDED;
	if (attrs && InitializeProcThreadAttributeList(attrs, 1, 0, &asz) && nlist &&
	    UpdateProcThreadAttribute(attrs, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, list,
				      nlist * sizeof(HANDLE), NULL, NULL)) {
		si.lpAttributeList = attrs;
		flags |= EXTENDED_STARTUPINFO_PRESENT;
	}
	if (s->own_group)
		flags |= CREATE_NEW_PROCESS_GROUP;
	PROCESS_INFORMATION pi;
	BOOL ok = CreateProcessW(app, cmd, NULL, NULL, nlist > 0, flags, env, NULL, &si.StartupInfo,
				 &pi);
	DWORD err = GetLastError();
	if (si.lpAttributeList)
		DeleteProcThreadAttributeList(attrs);
	free(attrs);
	for (int i = 0; i < 3; i++)
		if (hs[i])
			CloseHandle(hs[i]);
	free(cmd);
	free(env);
	free(app);
	if (!ok)
		return wp_w32_map_err(err);
	if (s->own_group) {
		/* a job holds what it starts too, so a kill reaches a wrapper's children */
		p->job = CreateJobObjectW(NULL, NULL);
		if (p->job && !AssignProcessToJobObject(p->job, pi.hProcess)) {
			CloseHandle(p->job);
			p->job = NULL;
		}
	}
	ResumeThread(pi.hThread);
	CloseHandle(pi.hThread);
	p->pid = (long)pi.dwProcessId;
	p->handle = pi.hProcess;
	return 0;
}

int wp_os_proc_exited(const struct wp_os_proc *p)
{
	DWORD r = WaitForSingleObject(p->handle, 0);
	if (r == WAIT_FAILED)
		return wp_w32_fail_last();
	return r == WAIT_OBJECT_0;
}

void wp_os_proc_kill(const struct wp_os_proc *p)
{
	if (p->job)
		TerminateJobObject(p->job, 1);
	else if (p->handle && WaitForSingleObject(p->handle, 0) != WAIT_OBJECT_0)
		TerminateProcess(p->handle, 1);
}

int wp_os_proc_wait(struct wp_os_proc *p, int *status, int *sig)
{
	DWORD code = 0;
	*status = -1;
	*sig = 0;
	if (!p->handle || WaitForSingleObject(p->handle, INFINITE) != WAIT_OBJECT_0 ||
	    !GetExitCodeProcess(p->handle, &code))
		return wp_w32_fail_last();
	if (code >= 0xC0000000u)
		*sig = 11; /* an NTSTATUS crash (access violation...): reported as a crash, as
			      SIGSEGV is */
	else
		*status = (int)code;
	CloseHandle(p->handle);
	if (p->job)
		CloseHandle(p->job);
	p->handle = p->job = NULL;
	return 0;
}

long wp_os_getpid(void)
{
	return (long)GetCurrentProcessId();
}

bool wp_os_pid_alive(long pid)
{
	HANDLE h = OpenProcess(SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION, FALSE, (DWORD)pid);
	if (!h)
		return GetLastError() != ERROR_INVALID_PARAMETER; /* denied: it exists */
	bool alive = WaitForSingleObject(h, 0) == WAIT_TIMEOUT;
	CloseHandle(h);
	return alive;
}

/* ---- dynamic loading ---- */

void *wp_os_dlopen(const char *name, char *why, size_t why_len)
{
	wchar_t *w = wp_w32_utf16(name);
	HMODULE h = NULL;
	if (w) {
		for (wchar_t *p = w; *p; p++)
			if (*p == L'/')
				*p = L'\\';
		h = LoadLibraryW(w);
	}
	DWORD e = GetLastError();
	free(w);
	if (!h && why && why_len &&
	    !FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, e, 0,
			    why, (DWORD)why_len, NULL))
		snprintf(why, why_len, "error %lu", (unsigned long)e);
	if (!h && why && why_len) {
		size_t n = strlen(why);
		while (n && (why[n - 1] == '\n' || why[n - 1] == '\r' || why[n - 1] == '.'))
			why[--n] = 0;
	}
	return (void *)h;
}

void *wp_os_dlsym(void *h, const char *name)
{
	FARPROC f = GetProcAddress((HMODULE)h, name);
	void *v;
	memcpy(&v, &f, sizeof(v)); /* a function pointer handed out as dlsym's void * */
	return v;
}

int wp_os_dlclose(void *h)
{
	return FreeLibrary((HMODULE)h) ? 0 : -1;
}

/* ---- the process ---- */

/* The variables in UTF-8, made once and kept for the process. cli/ reads them only through here
 * (base/envp.h's wp_envp_get); the C runtime's own copy is in the ANSI code page. */
static char **env;

const char *const *wp_os_environ(void)
{
	static INIT_ONCE once = INIT_ONCE_STATIC_INIT;
	BOOL pending = FALSE;
	if (InitOnceBeginInitialize(&once, 0, &pending, NULL) && pending) {
		wchar_t *block = GetEnvironmentStringsW();
		size_t n = 0;
		for (const wchar_t *p = block; p && *p; p += wcslen(p) + 1)
			n++;
		env = calloc(n + 1, sizeof(*env));
		size_t k = 0;
		for (const wchar_t *p = block; env && p && *p; p += wcslen(p) + 1)
			if (*p != L'=') /* "=C:=C:\x": cmd.exe's per-drive folders, not variables */
				if ((env[k] = wp_w32_utf8(p)))
					k++;
		if (block)
			FreeEnvironmentStringsW(block);
		InitOnceComplete(&once, 0, NULL);
	}
	static const char *const none[] = { NULL };
	return env ? (const char *const *)env : none;
}

void wp_os_utf8_args(int *argc, char ***argv)
{
	int n = 0;
	wchar_t **w = CommandLineToArgvW(GetCommandLineW(), &n);
	char **v = w ? calloc((size_t)n + 1, sizeof(*v)) : NULL;
	if (!v) {
		if (w)
			LocalFree(w);
		return;
	}
	for (int i = 0; i < n; i++)
		if (!(v[i] = wp_w32_utf8(w[i]))) {
			LocalFree(w);
			return; /* the runtime's argv, then: kept for the process, as argv is */
		}
	LocalFree(w);
	*argc = n;
	*argv = v;
}

static void (*interrupt_fn)(int sig);

static BOOL WINAPI on_ctrl(DWORD type)
{
	/* called on a thread of its own; the handler ends the process */
	int sig = type == CTRL_C_EVENT ? 2 : type == CTRL_CLOSE_EVENT ? 1 : 15;
	if (interrupt_fn)
		interrupt_fn(sig);
	return FALSE;
}

void wp_os_on_interrupt(void (*fn)(int sig))
{
	interrupt_fn = fn;
	SetConsoleCtrlHandler(on_ctrl, TRUE);
}

void wp_os_exit_now(int code)
{
	_exit(code);
}

void wp_os_raise_open_files(long max)
{
	(void)max; /* the C runtime's table has no soft limit to raise */
}
