# mk/windows.mk: `make windows`: build-win/wheelpick.exe, cross-built with Debian's mingw-w64 (issue 38).
#   - the OS seam is base/os/win32_*.c (WIN_OS_SRC) instead of base/os/posix.c (picked here, never
#     by #ifdef);
#     base/os/win32_libc.h is force-included for the C library calls mingw's runtime lacks, and
#     base/os/win32inc/ is where <regex.h> comes from (base/os/win32_regex.c: mingw has none);
#   - static: the libraries come from the prefix tools/win/build-prefix.sh builds from Debian's
#     source packages (WIN_PREFIX, its include/ and lib/); nothing is loaded lazily (WP_LAZY=0),
#     no ISA-L (zlib inflates); the .exe needs only Windows' own DLLs (checked after the link);
#   - main() turns the command line into UTF-8 itself (wp_os_utf8_args: GetCommandLineW), so no
#     -municode / wmain;
#   - -Wno-format: our printf-like functions say format(printf), which GCC reads as Microsoft's
#     printf on this target (no %zu); the calls run mingw's C99 printf (__USE_MINGW_ANSI_STDIO),
#     and the Linux build checks every format.
# `make windows-syntax` compiles every source file with -fsyntax-only, the prefix's headers where
# it has them, and lists what fails: the check to run while the prefix is still being built.
WIN_BUILD  ?= build-win
WIN_CC     ?= $(WIN_PREFIX_CC)
WIN_ROOT   ?= build/win-prefix
WIN_PREFIX ?= $(WIN_ROOT)/x86_64
WIN_CFLAGS := -std=c17 -D_GNU_SOURCE -D__USE_MINGW_ANSI_STDIO=1 -D_WIN32_WINNT=0x0A00 -DWP_LAZY=0 -DWP_ISAL=0 \
              -DCURL_STATICLIB -DLIBXML_STATIC -DLIBARCHIVE_STATIC -DYAJL_STATIC \
              -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter -Wno-format-truncation -Wno-format $(OPTFLAGS) -I. \
              -I$(WIN_PREFIX)/include -I$(WIN_PREFIX)/include/libxml2 -Ibase/os/win32inc -include base/os/win32_libc.h
# A library after those it needs; then the Windows system libraries (Schannel, CNG, sockets).
WIN_LDLIBS := -L$(WIN_PREFIX)/lib -lcurl -larchive -lxml2 -lsqlite3 -lyajl -lmsgpackc -lcrypto -lzstd -llzma -lbz2 -lz \
              -lbcrypt -lcrypt32 -lsecur32 -lncrypt -lws2_32 -liphlpapi -lwldap32 -lnormaliz -ladvapi32 -luser32 -lgdi32 \
              -lpthread
# The OS seam on Windows, one concern a file (base/os/win32_internal.h is what they share).
WIN_OS_SRC := base/os/win32_path.c base/os/win32_fs.c base/os/win32_names.c base/os/win32_proc.c \
              base/os/win32_sys.c base/os/win32_libc.c
WIN_SRC    := $(filter-out base/os/posix.c %/lazy_curl.c %/lazy_xml.c %/lazy_archive.c %/lazy_crypto.c \
                ops/install/launchers_none.c,$(LIB_SRC)) \
              $(WIN_OS_SRC) base/os/win32_regex.c $(CLI_SRC)
WIN_OBJ    := $(WIN_SRC:%.c=$(WIN_BUILD)/%.o) $(WIN_BUILD)/gen/schema_sql.o $(WIN_BUILD)/gen/nvidia_tables.o \
              $(WIN_BUILD)/gen/launchers.o
# The DLLs a static wheelpick.exe may import: Windows' own.
WIN_SYSTEM_DLLS := kernel32 user32 gdi32 advapi32 bcrypt crypt32 secur32 ncrypt ws2_32 iphlpapi wldap32 normaliz msvcrt \
                   shell32 ole32 rpcrt4 ntdll

.PHONY: windows windows-syntax
windows: $(WIN_BUILD)/wheelpick.exe

$(WIN_BUILD)/wheelpick.exe: $(WIN_OBJ) $(WIN_PREFIX)/.stamp
	$(WIN_CC) -static -o $@.tmp $(WIN_OBJ) $(WIN_LDLIBS)
	@bad=$$(x86_64-w64-mingw32-objdump -p $@.tmp | sed -n 's/^\tDLL Name: //p' | tr A-Z a-z | sed 's/\.dll$$//' | \
		grep -vxE '$(subst $() ,|,$(strip $(WIN_SYSTEM_DLLS)))|api-ms-win-.*' || true); \
	if [ -n "$$bad" ]; then echo "windows: $@ imports DLLs that are not Windows' own: $$bad"; rm -f $@.tmp; exit 1; fi
	mv $@.tmp $@

$(WIN_BUILD)/%.o: %.c | $(WIN_PREFIX)/.stamp
	@mkdir -p $(dir $@)
	$(WIN_CC) $(WIN_CFLAGS) -MMD -MP -c $< -o $@

$(WIN_BUILD)/gen/%.o: $(BUILD)/gen/%.c | $(WIN_PREFIX)/.stamp
	@mkdir -p $(dir $@)
	$(WIN_CC) $(WIN_CFLAGS) -c $< -o $@

# The entry-point launchers inside wheelpick.exe (ops/install/launchers.h), so that the .exe alone
# installs into a Windows environment: build/win/launcher-*.exe (mk/win-prefix.mk) as C arrays.
$(WIN_BUILD)/gen/launchers.c: $(WIN_OUT)/launcher-console.exe $(WIN_OUT)/launcher-gui.exe
	@mkdir -p $(dir $@)
	{ echo '/* generated from $(WIN_OUT)/launcher-*.exe by mk/windows.mk; do not edit */'; \
	  echo '#include "ops/install/launchers.h"'; \
	  for k in console gui; do \
	    echo "const unsigned char wp_launcher_$$k[] = {"; \
	    od -An -v -tx1 $(WIN_OUT)/launcher-$$k.exe | sed -e 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	    echo '};'; \
	    echo "const size_t wp_launcher_$${k}_len = sizeof(wp_launcher_$$k);"; \
	  done; } >$@.tmp && mv $@.tmp $@
$(WIN_BUILD)/gen/launchers.o: $(WIN_BUILD)/gen/launchers.c | $(WIN_PREFIX)/.stamp
	$(WIN_CC) $(WIN_CFLAGS) -c $< -o $@

windows-syntax: $(GEN_SRC)
	@ok=0; bad=0; for f in $(WIN_SRC) $(GEN_SRC); do \
	  if out=$$($(WIN_CC) $(WIN_CFLAGS) -fsyntax-only $$f 2>&1); then ok=$$((ok + 1)); \
	  else bad=$$((bad + 1)); echo "$$f: $$(echo "$$out" | grep -m1 -E 'error' | sed 's/^[^ ]* //')"; fi; \
	done; echo "windows-syntax: $$ok compile, $$bad do not"; [ $$bad = 0 ]

-include $(WIN_OBJ:.o=.d)

# The seam itself, checked the same way on both systems (tests/os/seam_check.c: files, atomic
# replace, links, *at(), locks, a child with awkward arguments through a pipe, clocks): `make
# seam-check` against posix.c here, `make windows-seam-check` against win32_*.c under wine (a wine
# prefix of its own under $(WIN_BUILD), so the user's ~/.wine is not touched). Needs no library prefix.
.PHONY: seam-check windows-seam-check
seam-check: $(BUILD)/tests/seam_check
	$(BUILD)/tests/seam_check $(BUILD)

SEAM_CHECK_SRC := tests/os/seam_check.c base/fs.c base/buf.c base/mem.c base/err.c
$(BUILD)/tests/seam_check: $(SEAM_CHECK_SRC) base/os/posix.c base/os/os.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $(SEAM_CHECK_SRC) base/os/posix.c -ldl

windows-seam-check: $(WIN_BUILD)/seam_check.exe
	WINEPREFIX=$(abspath $(WIN_BUILD))/wineprefix WINEDEBUG=-all wine $(WIN_BUILD)/seam_check.exe $(WIN_BUILD)

$(WIN_BUILD)/seam_check.exe: $(SEAM_CHECK_SRC) $(WIN_OS_SRC) base/os/os.h base/os/win32_internal.h \
		base/os/win32_libc.h
	@mkdir -p $(dir $@)
	$(WIN_CC) $(filter-out -I$(WIN_PREFIX)/%,$(WIN_CFLAGS)) -static -o $@ $(SEAM_CHECK_SRC) $(WIN_OS_SRC) -lbcrypt

# The Windows build's <regex.h> (base/os/win32_regex.c) against glibc's, here: every pattern on
# every text of tests/os/regex_diff.c must compile and match alike.
.PHONY: windows-regex-check
windows-regex-check: $(BUILD)/tests/regex_diff
	$(BUILD)/tests/regex_diff

$(BUILD)/tests/regex_diff: tests/os/regex_diff.c tests/os/regex_ours.c base/os/win32_regex.c base/os/win32inc/regex.h
	@mkdir -p $(dir $@)
	$(CC) -std=c17 -Wall -Wextra -Werror -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -I. -o $@ \
		tests/os/regex_diff.c tests/os/regex_ours.c base/os/win32_regex.c

# make test runs both checks that need neither wine nor the prefix (oscheck: the seam over posix.c,
# the Windows <regex.h> against glibc's) and counts them for tests/summary.sh.
.PHONY: oscheck
oscheck: $(BUILD)/tests/seam_check $(BUILD)/tests/regex_diff
	@mkdir -p $(RESULTS); p=0; f=0; \
	if $(BUILD)/tests/seam_check $(BUILD) >$(RESULTS)/oscheck.log 2>&1; then p=$$((p + 1)); else f=$$((f + 1)); fi; \
	if $(BUILD)/tests/regex_diff >>$(RESULTS)/oscheck.log 2>&1; then p=$$((p + 1)); else f=$$((f + 1)); fi; \
	echo "$$p $$f 0" >$(RESULTS)/oscheck.count; tail -n 3 $(RESULTS)/oscheck.log; \
	[ $$f = 0 ] || [ "$${WP_DEFER_FAIL:-0}" = 1 ]
