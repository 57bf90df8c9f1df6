/* tests/windows/fakepython.c: a stand-in python.exe for the launcher's tests. It does what CPython
 * would do with the launcher's command line as far as a test can see: argv[1] must be a file
 * that ends in a zip archive holding __main__.py (the .exe the launcher was appended to), else
 * it fails as CPython would (exit 2, "can't find '__main__' module"); single-letter options
 * before it (-E -s -I -u...) are skipped as CPython would. It writes each
 * argument it received, as Windows parses them (CommandLineToArgvW), one per line as <ARG> in
 * UTF-8, to the file FAKEPY_OUT names; with FAKEPY_ECHO set it copies stdin to stdout and writes
 * "fakepython-stderr" to stderr; with FAKEPY_SLEEP=MS it sleeps that long and then writes the
 * file FAKEPY_DONE names (a test that kills the launcher meanwhile checks it never appears); it
 * exits with FAKEPY_EXIT (default 0). With FAKEPY_HOLD naming a file it keeps that file open
 * without FILE_SHARE_DELETE while it sleeps, as Windows holds a running program's .exe: a replace
 * or a removal of it fails meanwhile. Asked `-I -c SCRIPT default ""` (env/python.c's probe) it
 * answers as CPython in a virtual environment at its own place would (Scripts\python.exe under
 * the venv, pyvenv.cfg's "version" for its version): NUL-separated keys and values, the Windows
 * paths sysconfig gives there (Lib\site-packages, Scripts), os.name "nt". */
#include <windows.h>
#include <shellapi.h>

#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int has_main_zip(const wchar_t *path)
{
	FILE *f = _wfopen(path, L"rb");
	if (!f)
		return 0;
	static unsigned char buf[1 << 20];
	size_t n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	/* a zip's end record, and __main__.py among the names in its central directory */
	int eocd = 0, main = 0;
	for (size_t i = 0; i + 22 <= n; i++) {
		if (memcmp(buf + i, "PK\x05\x06", 4) == 0)
			eocd = 1;
		if (i + 46 + 11 <= n && memcmp(buf + i, "PK\x01\x02", 4) == 0 &&
		    memcmp(buf + i + 46, "__main__.py", 11) == 0)
			main = 1;
	}
	return eocd && main;
}

static void kv(const char *k, const wchar_t *v)
{
	char u[32768];
	if (WideCharToMultiByte(CP_UTF8, 0, v, -1, u, sizeof(u), NULL, NULL) <= 0)
		u[0] = 0;
	fwrite(k, 1, strlen(k) + 1, stdout);
	fwrite(u, 1, strlen(u) + 1, stdout);
}

/* env/python.c's probe, answered for the venv this program sits in (see the top). */
static int probe(const wchar_t *mode)
{
	if (wcscmp(mode, L"default")) {
		fprintf(stderr, "fakepython: only the default scheme is faked\n");
		return 1;
	}
	wchar_t exe[32768], venv[32768], p[32768];
	GetModuleFileNameW(NULL, exe, 32768);
	wcscpy(venv, exe);
	for (int up = 0; up < 2; up++) /* ...\venv\Scripts\python.exe -> ...\venv */
		*wcsrchr(venv, L'\\') = 0;
	char ver[64] = "3.11.4", line[512];
	swprintf(p, 32768, L"%ls\\pyvenv.cfg", venv);
	FILE *f = _wfopen(p, L"rb");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "version", 7) && strchr(line, '=')) {
			char *v = strchr(line, '=') + 1;
			while (*v == ' ')
				v++;
			v[strcspn(v, "\r\n")] = 0;
			snprintf(ver, sizeof(ver), "%s", v);
		}
	if (f)
		fclose(f);
	int major = 3, minor = 11;
	sscanf(ver, "%d.%d", &major, &minor);
	wchar_t w[32768];
	_setmode(_fileno(stdout), _O_BINARY);
#define W(k, ...) (swprintf(w, 32768, __VA_ARGS__), kv(k, w))
	kv("executable", exe);
	kv("prefix", venv);
	W("version", L"%hs", ver);
	W("major", L"%d", major);
	W("minor", L"%d", minor);
	kv("impl", L"cpython");
	kv("soabi", L"");
	W("cache_tag", L"cpython-%d%d", major, minor);
	kv("free_threaded", L"0");
	kv("platform", L"win_amd64");
	kv("venv", L"1");
	W("purelib", L"%ls\\Lib\\site-packages", venv);
	W("platlib", L"%ls\\Lib\\site-packages", venv);
	W("scripts", L"%ls\\Scripts", venv);
	kv("data", venv);
	W("include", L"%ls\\include\\site\\python%d.%d", venv, major, minor);
	W("stdlib", L"%ls\\Lib", venv);
	kv("m.implementation_name", L"cpython");
	W("m.implementation_version", L"%hs", ver);
	kv("m.os_name", L"nt");
	kv("m.platform_machine", L"AMD64");
	kv("m.platform_release", L"10");
	kv("m.platform_system", L"Windows");
	kv("m.platform_version", L"10.0.19045");
	W("m.python_full_version", L"%hs", ver);
	W("m.python_version", L"%d.%d", major, minor);
	kv("m.platform_python_implementation", L"CPython");
	kv("m.sys_platform", L"win32");
#undef W
	fflush(stdout);
	return 0;
}

int main(void)
{
	int argc = 0;
	wchar_t **argv = CommandLineToArgvW(GetCommandLineW(), &argc);
	if (!argv)
		return 90;
	if (argc >= 5 && !wcscmp(argv[1], L"-I") && !wcscmp(argv[2], L"-c"))
		return probe(argv[4]);
	wchar_t out[32768];
	if (GetEnvironmentVariableW(L"FAKEPY_OUT", out, 32768)) {
		FILE *f = _wfopen(out, L"wb");
		if (!f)
			return 91;
		for (int i = 0; i < argc; i++) {
			char u[32768];
			int n = WideCharToMultiByte(CP_UTF8, 0, argv[i], -1, u, sizeof(u), NULL,
						    NULL);
			if (n <= 0)
				return 92;
			fprintf(f, "<%s>\n", u);
		}
		fclose(f);
	}
	int script = 1;
	while (script < argc && argv[script][0] == L'-' && argv[script][1] && !argv[script][2] &&
	       wcschr(L"BEIOqsuv", argv[script][1]))
		script++;
	if (script >= argc || !has_main_zip(argv[script])) {
		fprintf(stderr, "fakepython: can't find '__main__' module in '%ls'\n",
			script < argc ? argv[script] : L"");
		return 2;
	}
	if (GetEnvironmentVariableW(L"FAKEPY_ECHO", out, 32768)) {
		_setmode(_fileno(stdin), _O_BINARY);  /* bytes in, the same bytes out */
		_setmode(_fileno(stdout), _O_BINARY);
		char b[4096];
		size_t n;
		while ((n = fread(b, 1, sizeof(b), stdin)) > 0)
			fwrite(b, 1, n, stdout);
		fflush(stdout);
		fprintf(stderr, "fakepython-stderr\n");
	}
	char code[32];
	HANDLE held = INVALID_HANDLE_VALUE;
	if (GetEnvironmentVariableW(L"FAKEPY_HOLD", out, 32768))
		held = CreateFileW(out, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_DELETE, NULL,
				  OPEN_EXISTING, 0, NULL);
	if (GetEnvironmentVariableA("FAKEPY_SLEEP", code, sizeof(code))) {
		Sleep((DWORD)strtoul(code, NULL, 10));
		if (GetEnvironmentVariableW(L"FAKEPY_DONE", out, 32768)) {
			FILE *f = _wfopen(out, L"wb");
			if (f)
				fclose(f);
		}
	}
	if (held != INVALID_HANDLE_VALUE)
		CloseHandle(held);
	return GetEnvironmentVariableA("FAKEPY_EXIT", code, sizeof(code)) ?
		       (int)strtol(code, NULL, 10) :
		       0;
}
