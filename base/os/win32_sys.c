/* base/os/win32_sys.c: the Windows seam's memory maps, clocks, randomness, the machine, and the
 * terminal. */

#include "base/os/win32_internal.h"

/* ---- memory maps ---- */

void *wp_os_map_read(int fd, size_t len)
{
	HANDLE m = CreateFileMappingW(wp_w32_fd_handle(fd), NULL, PAGE_READONLY, 0, 0, NULL);
	if (!m) {
		wp_w32_fail_last();
		return NULL;
	}
	void *p = MapViewOfFile(m, FILE_MAP_READ, 0, 0, len);
	DWORD e = GetLastError();
	CloseHandle(m); /* the view keeps the mapping */
	if (!p)
		errno = wp_w32_map_err(e);
	return p;
}

void wp_os_unmap(void *p, size_t len)
{
	(void)len;
	if (p)
		UnmapViewOfFile(p);
}

void wp_os_populate(void *p, size_t len)
{
	(void)p;
	(void)len;
}

/* ---- clocks, randomness, machine ---- */

int64_t wp_os_monotonic_ns(void)
{
	static LARGE_INTEGER freq;
	LARGE_INTEGER now;
	if (!freq.QuadPart)
		QueryPerformanceFrequency(&freq);
	QueryPerformanceCounter(&now);
	return (int64_t)(now.QuadPart / freq.QuadPart) * 1000000000 +
	       (int64_t)(now.QuadPart % freq.QuadPart) * 1000000000 / freq.QuadPart;
}

void wp_os_sleep_ms(unsigned ms)
{
	Sleep(ms);
}

int wp_os_random(void *buf, size_t n)
{
	return BCryptGenRandom(NULL, buf, (ULONG)n, BCRYPT_USE_SYSTEM_PREFERRED_RNG) == 0 ? 0 : -1;
}

int wp_os_ncpu(void)
{
	DWORD n = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
	return n ? (int)n : 1;
}

long wp_os_max_open_files(void)
{
	return 0; /* the C runtime's table grows as needed */
}

int wp_os_uname(char *sys, size_t sys_len, char *release, size_t rel_len, char *machine,
		size_t mach_len)
{
	/* RtlGetVersion: GetVersionEx lies to programs without a manifest */
	OSVERSIONINFOW v = { .dwOSVersionInfoSize = sizeof(v) };
	LONG(WINAPI * rtl)(OSVERSIONINFOW *) = (LONG(WINAPI *)(OSVERSIONINFOW *))wp_os_dlsym(
		GetModuleHandleW(L"ntdll.dll"), "RtlGetVersion");
	if (!rtl || rtl(&v) != 0)
		memset(&v, 0, sizeof(v));
	SYSTEM_INFO si;
	GetNativeSystemInfo(&si);
	snprintf(sys, sys_len, "Windows");
	snprintf(release, rel_len, "%lu.%lu.%lu", (unsigned long)v.dwMajorVersion,
		 (unsigned long)v.dwMinorVersion, (unsigned long)v.dwBuildNumber);
	/* Python's platform.machine() words */
	const char *m = si.wProcessorArchitecture == PROCESSOR_ARCHITECTURE_AMD64   ? "AMD64"
			: si.wProcessorArchitecture == PROCESSOR_ARCHITECTURE_ARM64 ? "ARM64"
			: si.wProcessorArchitecture == PROCESSOR_ARCHITECTURE_INTEL ? "x86"
										    : "unknown";
	/* wheelpick.exe is x64: on an ARM64 machine it runs emulated, and GetNativeSystemInfo then
	 * says AMD64; IsWow64Process2 (Windows 10 1709 on) names the machine itself */
	BOOL(WINAPI * wow2)(HANDLE, USHORT *, USHORT *) =
		(BOOL(WINAPI *)(HANDLE, USHORT *, USHORT *))wp_os_dlsym(
			GetModuleHandleW(L"kernel32.dll"), "IsWow64Process2");
	USHORT proc_machine = 0, native = 0;
	if (wow2 && wow2(GetCurrentProcess(), &proc_machine, &native)) {
		if (native == 0xAA64) /* IMAGE_FILE_MACHINE_ARM64 */
			m = "ARM64";
		else if (native == 0x8664) /* IMAGE_FILE_MACHINE_AMD64 */
			m = "AMD64";
	}
	snprintf(machine, mach_len, "%s", m);
	return 0;
}

const char *wp_os_libc_version(void)
{
	return NULL;
}

const char *wp_os_strerror(int errnum, char *buf, size_t n)
{
	if (strerror_s(buf, n, errnum) != 0)
		snprintf(buf, n, "error %d", errnum);
	return buf;
}

/* ---- terminal ---- */

bool wp_os_isatty(int fd)
{
	DWORD mode;
	return GetConsoleMode(wp_w32_fd_handle(fd), &mode) != 0;
}

int wp_os_term_width(int fd)
{
	CONSOLE_SCREEN_BUFFER_INFO info;
	if (!GetConsoleScreenBufferInfo(wp_w32_fd_handle(fd), &info))
		return 0;
	return info.srWindow.Right - info.srWindow.Left + 1;
}

void wp_os_term_init(void)
{
	SetConsoleOutputCP(CP_UTF8);
	HANDLE hs[2] = { GetStdHandle(STD_OUTPUT_HANDLE), GetStdHandle(STD_ERROR_HANDLE) };
	for (int i = 0; i < 2; i++) {
		DWORD mode;
		if (hs[i] != INVALID_HANDLE_VALUE && GetConsoleMode(hs[i], &mode))
			SetConsoleMode(hs[i], mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING);
	}
	/* the standard streams in binary mode: our bytes are UTF-8 and LF, as written */
	_setmode(0, _O_BINARY);
	_setmode(1, _O_BINARY);
	_setmode(2, _O_BINARY);
}
