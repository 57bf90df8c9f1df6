/* tests/windows/fakepython.c: a stand-in python.exe for the launcher's tests. It does what CPython
 * would do with the launcher's command line as far as a test can see: argv[1] must be a file
 * that ends in a zip archive holding __main__.py (the .exe the launcher was appended to), else
 * it fails as CPython would (exit 2, "can't find '__main__' module"); single-letter options
 * before it (-E -s -I -u...) are skipped as CPython would. It writes each
 * argument it received, as Windows parses them (CommandLineToArgvW), one per line as <ARG> in
 * UTF-8, to the file FAKEPY_OUT names; with FAKEPY_ECHO set it copies stdin to stdout and writes
 * "fakepython-stderr" to stderr; with FAKEPY_SLEEP=MS it sleeps that long and then writes the
 * file FAKEPY_DONE names (a test that kills the launcher meanwhile checks it never appears); it
 * exits with FAKEPY_EXIT (default 0). */
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

int main(void)
{
	int argc = 0;
	wchar_t **argv = CommandLineToArgvW(GetCommandLineW(), &argc);
	if (!argv)
		return 90;
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
	if (GetEnvironmentVariableA("FAKEPY_SLEEP", code, sizeof(code))) {
		Sleep((DWORD)strtoul(code, NULL, 10));
		if (GetEnvironmentVariableW(L"FAKEPY_DONE", out, 32768)) {
			FILE *f = _wfopen(out, L"wb");
			if (f)
				fclose(f);
		}
	}
	return GetEnvironmentVariableA("FAKEPY_EXIT", code, sizeof(code)) ?
		       (int)strtol(code, NULL, 10) :
		       0;
}
