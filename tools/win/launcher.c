/* tools/win/launcher.c: the .exe in front of a Windows entry point (Scripts\NAME.exe), as pip's
 * are: this program, then a "#!PYTHON" line, then a zip archive holding __main__.py. It runs
 *   "PYTHON" [shebang options] "<this .exe>" <the user's arguments>
 * so Python runs the zip appended to it; the standard handles pass through, Ctrl-C goes to the
 * child (which decides), and the child's exit code becomes ours. Built twice: the console
 * subsystem (console_scripts) and, with -mwindows, the windows subsystem (gui_scripts).
 * The Win32 API only (and two string functions), so the C runtime's own argument parsing and
 * handle set-up play no part.
 * Exit codes of its own (the child never ran): 101 no script appended, 102 no interpreter named,
 * 103 the interpreter could not be started. */
#include <windows.h>

#define LAUNCHER_FAIL_SCRIPT 101
#define LAUNCHER_FAIL_SHEBANG 102
#define LAUNCHER_FAIL_START 103
/* The zip's end record is in the last 22 + 65535 bytes; the shebang line just before the zip
 * (a long path, quoted, with options) fits in 32 KiB. */
#define TAIL_MAX (22 + 65535)
#define SHEBANG_MAX 32768

static void say(const wchar_t *what, const wchar_t *detail)
{
	HANDLE err = GetStdHandle(STD_ERROR_HANDLE);
	if (err == NULL || err == INVALID_HANDLE_VALUE)
		return;  /* a GUI entry point started from Explorer: nobody to tell */
	const wchar_t *parts[] = { L"launcher: ", what, detail ? L" '" : L"", detail ? detail : L"",
				   detail ? L"'" : L"", L"\r\n" };
	for (unsigned i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		char buf[4 * 1024];
		int n = WideCharToMultiByte(CP_UTF8, 0, parts[i], -1, buf, sizeof(buf), NULL, NULL);
		DWORD done;
		if (n > 1)
			WriteFile(err, buf, (DWORD)n - 1, &done, NULL);
	}
}

static wchar_t *self_path(void)
{
	for (DWORD cap = MAX_PATH;; cap *= 2) {
		wchar_t *p = HeapAlloc(GetProcessHeap(), 0, cap * sizeof(wchar_t));
		if (!p)
			return NULL;
		DWORD n = GetModuleFileNameW(NULL, p, cap);
		if (n > 0 && n < cap)
			return p;
		HeapFree(GetProcessHeap(), 0, p);
		if (n == 0 || cap >= 32768 * 2)
			return NULL;
	}
}

static DWORD le32(const unsigned char *p)
{
	return (DWORD)p[0] | (DWORD)p[1] << 8 | (DWORD)p[2] << 16 | (DWORD)p[3] << 24;
}

/* The shebang line (UTF-8, as pip writes it) that ends where the appended zip begins, as UTF-16. */
static wchar_t *read_shebang(const wchar_t *exe)
{
	wchar_t *out = NULL;
	unsigned char *tail = NULL;
	HANDLE f = CreateFileW(exe, GENERIC_READ,
			       FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
			       OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
	LARGE_INTEGER size;
	if (f == INVALID_HANDLE_VALUE || !GetFileSizeEx(f, &size))
		goto out;
	LONGLONG want = size.QuadPart < TAIL_MAX + SHEBANG_MAX ? size.QuadPart :
								 TAIL_MAX + SHEBANG_MAX;
	LARGE_INTEGER at = { .QuadPart = size.QuadPart - want };
	DWORD got = 0;
	tail = HeapAlloc(GetProcessHeap(), 0, (SIZE_T)want + 1);
	if (!tail || !SetFilePointerEx(f, at, NULL, FILE_BEGIN) ||
	    !ReadFile(f, tail, (DWORD)want, &got, NULL) || got != (DWORD)want)
		goto out;
	/* the last end-of-central-directory record: 22 bytes, a comment of the length it names */
	LONGLONG eocd = -1;
	for (LONGLONG i = want - 22; i >= 0 && i >= want - TAIL_MAX; i--) {
		if (le32(tail + i) == 0x06054b50 &&
		    i + 22 + (tail[i + 20] | tail[i + 21] << 8) == want) {
			eocd = i;
			break;
		}
	}
	if (eocd < 0)
		goto out;
	/* where the zip starts: its central directory's size and offset are relative to that
	 * start */
	LONGLONG start = eocd - (LONGLONG)le32(tail + eocd + 12) - (LONGLONG)le32(tail + eocd + 16);
	if (start < 2)
		goto out;
	LONGLONG end = start;  /* the line ends with \n or \r\n, just before the zip */
	if (tail[end - 1] == '\n')
		end--;
	if (end > 0 && tail[end - 1] == '\r')
		end--;
	/* the launcher's own bytes come before it, not a line break: the line starts at the last
	 * "#!" with no line break after it (as distlib's launcher finds it) */
	LONGLONG line = end - 2;
	while (line >= 0 && end - line <= SHEBANG_MAX && tail[line] != '\n' && tail[line] != '\r' &&
	       !(tail[line] == '#' && tail[line + 1] == '!'))
		line--;
	if (line < 0 || end - line > SHEBANG_MAX || tail[line] != '#')
		goto out;
	line += 2;
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, (char *)tail + line,
				    (int)(end - line), NULL, 0);
	if (n <= 0 || !(out = HeapAlloc(GetProcessHeap(), 0, ((SIZE_T)n + 1) * sizeof(wchar_t))))
		goto out;
	MultiByteToWideChar(CP_UTF8, 0, (char *)tail + line, (int)(end - line), out, n);
	out[n] = 0;
out:
	if (tail)
		HeapFree(GetProcessHeap(), 0, tail);
	if (f != INVALID_HANDLE_VALUE)
		CloseHandle(f);
	return out;
}

/* A growing UTF-16 string. */
struct cmd { wchar_t *s; size_t len, cap; int oom; };

static void put(struct cmd *c, const wchar_t *s, size_t n)
{
	if (c->oom)
		return;
	if (c->len + n + 1 > c->cap) {
		size_t cap = (c->len + n + 1) * 2;
		wchar_t *s2 = c->s ? HeapReAlloc(GetProcessHeap(), 0, c->s, cap * sizeof(wchar_t))
				   : HeapAlloc(GetProcessHeap(), 0, cap * sizeof(wchar_t));
		if (!s2) {
			c->oom = 1;
			return;
		}
		c->s = s2;
		c->cap = cap;
	}
	for (size_t i = 0; i < n; i++)
		c->s[c->len++] = s[i];
	c->s[c->len] = 0;
}

/* One argument, quoted so that CommandLineToArgvW and the C runtimes' parsers give it back
 * unchanged: inside quotes, backslashes are literal except before a quote, so a run of them
 * before a quote (or before the closing quote) is doubled, and the quote itself escaped. */
static void put_arg(struct cmd *c, const wchar_t *a)
{
	if (c->len)
		put(c, L" ", 1);
	if (a[0] && !wcspbrk(a, L" \t\n\v\""))
		return put(c, a, wcslen(a));
	put(c, L"\"", 1);
	for (const wchar_t *p = a;; p++) {
		size_t slashes = 0;
		while (*p == L'\\') {
			p++;
			slashes++;
		}
		size_t reps = *p == 0 ? slashes * 2 : *p == L'"' ? slashes * 2 + 1 : slashes;
		for (size_t i = 0; i < reps; i++)
			put(c, L"\\", 1);
		if (*p == 0)
			break;
		put(c, p, 1);
	}
	put(c, L"\"", 1);
}

/* The interpreter: the shebang's first word, quoted or not; a relative one is taken from this
 * .exe's folder (a relocatable environment). The rest of the line: options to it, as written. */
static wchar_t *interpreter(wchar_t *shebang, const wchar_t *exe, const wchar_t **rest)
{
	wchar_t *p = shebang, *name;
	while (*p == L' ' || *p == L'\t')
		p++;
	if (*p == L'"') {
		name = ++p;
		while (*p && *p != L'"')
			p++;
	} else {
		name = p;
		while (*p && *p != L' ' && *p != L'\t')
			p++;
	}
	if (*p)
		*p++ = 0;
	while (*p == L' ' || *p == L'\t')
		p++;
	*rest = p;
	if (!*name)
		return NULL;
	int absolute = name[0] == L'\\' || name[0] == L'/' || (name[0] && name[1] == L':');
	if (absolute)
		return name;
	const wchar_t *slash = exe;
	for (const wchar_t *q = exe; *q; q++)
		if (*q == L'\\' || *q == L'/')
			slash = q + 1;
	size_t dir = (size_t)(slash - exe), n = wcslen(name);
	wchar_t *full = HeapAlloc(GetProcessHeap(), 0, (dir + n + 1) * sizeof(wchar_t));
	if (!full)
		return NULL;
	CopyMemory(full, exe, dir * sizeof(wchar_t));
	CopyMemory(full + dir, name, (n + 1) * sizeof(wchar_t));
	return full;
}

/* Ctrl-C and Ctrl-Break reach every process on the console: the child handles them (Python's
 * KeyboardInterrupt), and we stay to pass its exit code on. */
static BOOL WINAPI ignore_ctrl(DWORD type)
{
	return type == CTRL_C_EVENT || type == CTRL_BREAK_EVENT;
}

static HANDLE inheritable(DWORD which)
{
	HANDLE h = GetStdHandle(which), dup = NULL;
	if (h == NULL || h == INVALID_HANDLE_VALUE)
		return NULL;
	if (!DuplicateHandle(GetCurrentProcess(), h, GetCurrentProcess(), &dup, 0, TRUE,
			     DUPLICATE_SAME_ACCESS))
		return NULL;
	return dup;
}

int wmain(void)
{
	wchar_t *exe = self_path();
	wchar_t *shebang = exe ? read_shebang(exe) : NULL;
	if (!shebang) {
		say(L"no '#!python' line and zip archive appended to", exe);
		return LAUNCHER_FAIL_SCRIPT;
	}
	const wchar_t *opts = L"";
	wchar_t *python = interpreter(shebang, exe, &opts);
	if (!python) {
		say(L"the '#!' line names no interpreter in", exe);
		return LAUNCHER_FAIL_SHEBANG;
	}
	int argc = 0;
	wchar_t **argv = CommandLineToArgvW(GetCommandLineW(), &argc);
	struct cmd c = { 0 };
	put_arg(&c, python);
	if (*opts) {  /* options from the shebang line are passed as written there */
		put(&c, L" ", 1);
		put(&c, opts, wcslen(opts));
	}
	put_arg(&c, exe);
	for (int i = 1; argv && i < argc; i++)
		put_arg(&c, argv[i]);
	if (c.oom || !argv) {
		say(L"out of memory building the command line for", python);
		return LAUNCHER_FAIL_START;
	}

	SetConsoleCtrlHandler(ignore_ctrl, TRUE);
	/* The child dies with us (a killed launcher leaves no orphan interpreter behind); its own
	 * children may break away. Not fatal when it fails (already in a job that forbids
	 * nesting). */
	HANDLE job = CreateJobObjectW(NULL, NULL);
	JOBOBJECT_EXTENDED_LIMIT_INFORMATION lim = { 0 };
	lim.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE |
					       JOB_OBJECT_LIMIT_SILENT_BREAKAWAY_OK;
	if (job)
		SetInformationJobObject(job, JobObjectExtendedLimitInformation, &lim, sizeof(lim));

	STARTUPINFOW si = { .cb = sizeof(si) };
	GetStartupInfoW(&si);
	si.lpReserved = NULL;
	si.lpReserved2 = NULL;
	si.cbReserved2 = 0;
	HANDLE in = inheritable(STD_INPUT_HANDLE), out = inheritable(STD_OUTPUT_HANDLE),
	       err = inheritable(STD_ERROR_HANDLE);
	if (in || out || err) {
		si.dwFlags |= STARTF_USESTDHANDLES;
		si.hStdInput = in;
		si.hStdOutput = out;
		si.hStdError = err;
	}
	PROCESS_INFORMATION pi;
	if (!CreateProcessW(python, c.s, NULL, NULL, TRUE, CREATE_SUSPENDED, NULL, NULL, &si,
			    &pi)) {
		say(L"cannot start the interpreter", python);
		return LAUNCHER_FAIL_START;
	}
	if (job)
		AssignProcessToJobObject(job, pi.hProcess);
	ResumeThread(pi.hThread);
	CloseHandle(pi.hThread);
	/* our copies of the handles: the child holds its own, so a pipe's reader sees its end */
	if (in)
		CloseHandle(in);
	if (out)
		CloseHandle(out);
	if (err)
		CloseHandle(err);
	WaitForSingleObject(pi.hProcess, INFINITE);
	DWORD code = 1;
	GetExitCodeProcess(pi.hProcess, &code);
	return (int)code;
}
