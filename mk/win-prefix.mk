# mk/win-prefix.mk: the Windows build's foundations (issue 38): the static library prefix
# (`make win-prefix`, tools/win/build-prefix.sh), the entry-point launchers (tools/win/launcher.c)
# and the Windows tests under wine (`make test-windows`, tests/windows/run.sh).
# The cross compiler, win32 threads (Debian's x86_64-w64-mingw32-gcc may point at either model).
WIN_PREFIX_CC   := x86_64-w64-mingw32-gcc-win32
WIN_PREFIX_ROOT := build/win-prefix
WIN_PREFIX      := $(WIN_PREFIX_ROOT)/x86_64
# Compile and link against the prefix (static: everything in Libs, the *_STATIC macros in Cflags);
# the same pkg-config names as on Linux. Expanded when used, after the prefix is built.
WIN_PKG_CONFIG  := PKG_CONFIG_LIBDIR=$(abspath $(WIN_PREFIX))/lib/pkgconfig PKG_CONFIG_PATH= pkg-config
WIN_PKGS        := libcurl libxml-2.0 libarchive sqlite3 libcrypto yajl zlib msgpack
WIN_LIB_CFLAGS   = $(shell $(WIN_PKG_CONFIG) --cflags $(WIN_PKGS))
WIN_LIB_LDLIBS   = -static $(shell $(WIN_PKG_CONFIG) --libs $(WIN_PKGS))
WIN_OUT         := build/win

# Debian packages for the Windows build and its tests (make deps): the toolchain, wine, and what
# building the prefix from Debian's sources needs (dpkg-source, autotools, cmake, tclsh for
# SQLite's amalgamation, perl for OpenSSL's Configure).
DEB_PKGS += gcc-mingw-w64-x86-64-win32 binutils-mingw-w64-x86-64 mingw-w64-x86-64-dev wine wine64 \
            dpkg-dev autoconf automake libtool cmake tcl perl patch xz-utils

.PHONY: win-prefix win-test-programs test-windows FORCE_WIN_PREFIX
# The script decides whether anything changed (its stamp), so it always runs; the stamp file's
# time changes only when the prefix was rebuilt, and what links against it follows that.
$(WIN_PREFIX)/.stamp: FORCE_WIN_PREFIX
	tools/win/build-prefix.sh $(WIN_PREFIX_ROOT)
win-prefix: $(WIN_PREFIX)/.stamp

WIN_WARN := -std=c17 -Wall -Wextra -Werror -Wno-unused-parameter
$(WIN_OUT)/launcher-console.exe: tools/win/launcher.c
	@mkdir -p $(dir $@)
	$(WIN_PREFIX_CC) $(WIN_WARN) -Os -s -municode -o $@ $<
$(WIN_OUT)/launcher-gui.exe: tools/win/launcher.c
	@mkdir -p $(dir $@)
	$(WIN_PREFIX_CC) $(WIN_WARN) -Os -s -municode -mwindows -o $@ $<
$(WIN_OUT)/tests/fakepython.exe: tests/windows/fakepython.c
	@mkdir -p $(dir $@)
	$(WIN_PREFIX_CC) $(WIN_WARN) -O2 -o $@ $< -lshell32
$(WIN_OUT)/tests/smoke.exe: tests/windows/smoke.c $(WIN_PREFIX)/.stamp
	@mkdir -p $(dir $@)
	$(WIN_PREFIX_CC) $(WIN_WARN) -O2 $(WIN_LIB_CFLAGS) -o $@ $< $(WIN_LIB_LDLIBS) -lbcrypt

# detect's fixture machines (tests/windows/t-detect.sh): nvidia-smi.exe, py.exe and python.exe
# are copies of one program; nvml.dll and nvcuda.dll are the Linux tests' fake libraries
$(WIN_OUT)/tests/detect/fakeprog.exe: tests/fixtures/detect/fake_winprog.c
	@mkdir -p $(dir $@)
	$(WIN_PREFIX_CC) $(WIN_WARN) -O2 -o $@ $<
$(WIN_OUT)/tests/detect/nvml.dll: tests/fixtures/detect/fake_nvml.c
	@mkdir -p $(dir $@)
	$(WIN_PREFIX_CC) $(WIN_WARN) -O2 -shared -o $@ $<
$(WIN_OUT)/tests/detect/nvcuda.dll: tests/fixtures/detect/fake_libcuda.c
	@mkdir -p $(dir $@)
	$(WIN_PREFIX_CC) $(WIN_WARN) -O2 -shared -o $@ $<

win-test-programs: $(WIN_OUT)/launcher-console.exe $(WIN_OUT)/launcher-gui.exe $(WIN_OUT)/tests/fakepython.exe \
                   $(WIN_OUT)/tests/smoke.exe $(WIN_OUT)/tests/detect/fakeprog.exe $(WIN_OUT)/tests/detect/nvml.dll \
                   $(WIN_OUT)/tests/detect/nvcuda.dll

# A missing toolchain or wine fails here (run.sh counts it), never skips.
test-windows: win-test-programs windows
	@WP_RESULTS=$(RESULTS) WP_WIN_BUILD=$(abspath $(WIN_OUT)) tests/clean-env.sh tests/windows/run.sh
