# tests/windows/winlib.sh: sourced by tests/windows/t-*.sh after tests/lib.sh: wine's settings
# (tests/clean-env.sh keeps only the WP_* names run.sh set) and helpers for Windows programs.
: "${WP_WIN_BUILD:?run tests/windows/run.sh}" "${WP_WINEPREFIX:?run tests/windows/run.sh}"
# shellcheck shell=bash
export WINEPREFIX=$WP_WINEPREFIX WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" LC_ALL=C.UTF-8
WIN=$WP_WIN_BUILD

winpath() { winepath -w "$1" 2>/dev/null; }

# The DLLs every Windows install has; a static program imports nothing else (no zlib1.dll,
# libcurl-4.dll, libwinpthread-1.dll, libgcc_s_seh-1.dll).
SYSTEM_DLLS=" kernel32.dll msvcrt.dll ucrtbase.dll ntdll.dll advapi32.dll user32.dll gdi32.dll shell32.dll "
SYSTEM_DLLS+=" ole32.dll oleaut32.dll ws2_32.dll crypt32.dll bcrypt.dll secur32.dll normaliz.dll iphlpapi.dll "
SYSTEM_DLLS+=" wldap32.dll shlwapi.dll userenv.dll version.dll rpcrt4.dll dbghelp.dll "

# expect_system_dlls DESC EXE: every DLL the program imports is one of Windows' own
expect_system_dlls() {
	local dlls bad='' d
	dlls=$(x86_64-w64-mingw32-objdump -p "$2" | awk '/DLL Name:/ { print tolower($3) }')
	for d in $dlls; do
		case "$SYSTEM_DLLS" in *" $d "*) ;; api-ms-win-*) ;; *) bad="$bad $d" ;; esac
	done
	if [ -z "$dlls" ]; then fail "$1: no imports read from '$2'"; elif [ -n "$bad" ]; then
		fail "$1: '$2' imports non-system DLLs:$bad"; else pass "$1"; fi
}

# expect_subsystem DESC EXE "Windows CUI"|"Windows GUI"
expect_subsystem() {
	if x86_64-w64-mingw32-objdump -p "$2" | grep -q "^Subsystem.*($3)"; then pass "$1"; else
		fail "$1: '$2' is not a $3 program"; fi
}

# mkvenv DIR: what `python -m venv` makes on Windows, with the stand-in fakepython.exe as
# Scripts\python.exe (it answers wheelpick's interpreter probe as CPython 3.11 in a venv would)
mkvenv() {
	rm -rf "$1"
	mkdir -p "$1/Scripts" "$1/Lib/site-packages" "$1/Include"
	cp "$WIN/tests/fakepython.exe" "$1/Scripts/python.exe"
	printf 'home = C:\\Python311\r\ninclude-system-site-packages = false\r\nversion = 3.11.4\r\n' >"$1/pyvenv.cfg"
}
