# wheelpick: one non-recursive Makefile. Objects go to $(BUILD); the binary is $(BUILD)/wheelpick.
BUILD    ?= build
CC       ?= cc
PKGS     := libcurl libxml-2.0 libarchive sqlite3 libcrypto yajl zlib msgpack
OPTFLAGS ?= -O2 -g
# -Wno-format-truncation: messages are deliberately bounded by snprintf into fixed buffers.
CFLAGS   += -std=c17 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter -Wno-format-truncation $(OPTFLAGS) -I. \
            $(shell pkg-config --cflags $(PKGS) 2>/dev/null) $(SONAMES)
# libcurl, libarchive, libxml2 and libcrypto are not linked: base/lazylib.c loads them on first
# use, by the SONAME of the library we compile against, so a command that needs none of them
# starts in a quarter of the time. The others are linked as usual.
LAZY_PKGS := libcurl libarchive libxml-2.0 libcrypto
# LAZY=0 links them normally instead (for distribution packagers, whose tools read NEEDED): the
# shims (*/lazy_*.c) are left out and wp_lazy_require does nothing.
LAZY     ?= 1
ifeq ($(LAZY),0)
LINK_PKGS := $(PKGS)
CFLAGS   += -DWP_LAZY=0
else
LINK_PKGS := $(filter-out $(LAZY_PKGS),$(PKGS))
endif
soname    = $(shell objdump -p $$($(CC) -print-file-name=$(1)) 2>/dev/null | awk '/SONAME/ {print $$2}')
SONAMES  := -DWP_SONAME_CURL='"$(call soname,libcurl.so)"' -DWP_SONAME_ARCHIVE='"$(call soname,libarchive.so)"' \
            -DWP_SONAME_XML='"$(call soname,libxml2.so)"' -DWP_SONAME_CRYPTO='"$(call soname,libcrypto.so)"'
LDLIBS   += $(shell pkg-config --libs $(LINK_PKGS) 2>/dev/null) -lpthread -ldl
# ISA-L (Intel's igzip) inflates a wheel's members as they are checked (verify/wheelstream.c):
# 1.7x zlib's speed on a torch-shaped wheel, and inflating is most of checking a deflated wheel.
# ISAL=0 builds with zlib alone (to compare, or where ISA-L is missing).
ISAL     ?= 1
ifeq ($(ISAL),1)
CFLAGS   += -DWP_ISAL=1
LDLIBS   += -lisal
else
CFLAGS   += -DWP_ISAL=0
endif
# Unit tests may call more of those libraries than wheelpick does (to inspect what it wrote), so
# they link them; the library's own shims then find the same copy already loaded.
TEST_LDLIBS := $(shell pkg-config --libs $(LAZY_PKGS) 2>/dev/null)

# Debian packages the build and the tests need (checked by `make deps`, installed when missing).
# binutils: objdump reads the SONAMEs of the lazily loaded libraries (gcc brings it; named anyway).
DEB_PKGS := gcc binutils make pkg-config libcurl4-openssl-dev libxml2-dev libarchive-dev libsqlite3-dev \
            libssl-dev libyajl-dev libmsgpack-dev libcmocka-dev zlib1g-dev zstd bzip2 nginx-light openssl python3 python3-pip python3-msgpack \
            clang sqlite3 valgrind curl man-db groff-base zsh fish python3-jsonschema python3-venv python3-installer nodejs libisal-dev
# tests/cli/t-conda-rattler.sh solves with rattler (conda's Rust library, as WebAssembly under node),
# installed from the npm registry into NODE_DIR by `make deps`. npm comes with NodeSource's nodejs;
# Debian's own npm package is installed only where there is no npm (it conflicts with NodeSource's).
NODE_DIR := $(BUILD)/node
RATTLER_NPM := @conda-org/rattler@0.3.5
# tests/server/ceph.sh: a throwaway Ceph cluster (monitor, memstore OSD, RADOS Gateway) for t-s3.sh
DEB_PKGS += ceph-mon ceph-osd radosgw

# The OS seam (base/os/): one implementation per target system, picked here, never by #ifdef.
OS_SRC   ?= base/os/posix.c
LIB_SRC  := $(sort $(wildcard base/*.c index/*.c resolver/*.c cache/*.c net/*.c verify/*.c env/*.c ops/*/*.c) $(OS_SRC))
ifeq ($(LAZY),0)
LIB_SRC  := $(filter-out %/lazy_curl.c %/lazy_xml.c %/lazy_archive.c %/lazy_crypto.c,$(LIB_SRC))
endif
CLI_SRC  := $(sort $(wildcard cli/*.c))
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
GEN_SRC  := $(BUILD)/gen/schema_sql.c $(BUILD)/gen/nvidia_tables.c

LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/schema_sql.o $(BUILD)/gen/nvidia_tables.o
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all deps test unit clitest demo asan tsan bench fuzz lint clean install
.PHONY: test-slow clitest-slow

# make install [PREFIX=/usr/local] [DESTDIR=]: the binary, its man page and shell completions.
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
# The man page and the completions are written by the binary from its option tables, so they list
# exactly what --help lists.
DOCS    := $(BUILD)/wheelpick.1 $(BUILD)/completions/wheelpick.bash $(BUILD)/completions/_wheelpick \
           $(BUILD)/completions/wheelpick.fish
all: $(BUILD)/wheelpick $(DOCS)

$(BUILD)/wheelpick.1: $(BUILD)/wheelpick
	$(BUILD)/wheelpick --generate-man > $@.tmp && mv $@.tmp $@

$(BUILD)/completions/wheelpick.bash $(BUILD)/completions/_wheelpick $(BUILD)/completions/wheelpick.fish: $(BUILD)/wheelpick
	@mkdir -p $(dir $@)
	$(BUILD)/wheelpick --generate-completion $(if $(filter %.bash,$@),bash,$(if $(filter %.fish,$@),fish,zsh)) > $@.tmp && mv $@.tmp $@

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

# schema.sql is compiled in as one C string, so the binary never looks for it on disk.
$(BUILD)/gen/schema_sql.c: schema.sql
	@mkdir -p $(dir $@)
	{ echo '/* generated from schema.sql by the Makefile; do not edit */'; \
	  echo 'const char wp_schema_sql[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' schema.sql; \
	  echo ';'; } > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/schema_sql.o: $(BUILD)/gen/schema_sql.c
	$(CC) $(CFLAGS) -c $< -o $@

# NVIDIA and PyTorch facts (resolver/data/*.tsv, sources in resolver/data/PROVENANCE.md) become C tables.
$(BUILD)/gen/nvidia_tables.c: resolver/data/gen.sh $(wildcard resolver/data/*.tsv)
	@mkdir -p $(dir $@)
	sh resolver/data/gen.sh resolver/data > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/nvidia_tables.o: $(BUILD)/gen/nvidia_tables.c
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/libwp.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/wheelpick: $(CLI_OBJ) $(BUILD)/libwp.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libwp.a $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libwp.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -MF $@.d $(LDFLAGS) -o $@ $< $(BUILD)/libwp.a $(LDLIBS) $(TEST_LDLIBS) -lcmocka

# test_parse_once counts the PEP 508 parser's entries, and the file-name and version parsers': the calls
# into them are wrapped
PARSE_WRAP := -Wl,--wrap=wp_requirement_parse,--wrap=wp_req_parse,--wrap=wp_reqs_add \
	-Wl,--wrap=wp_wheelname_parse,--wrap=wp_sdistname_parse,--wrap=wp_distname_split,--wrap=wp_version_parse
$(BUILD)/tests/test_parse_once: TEST_LDLIBS += $(PARSE_WRAP)

deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" != 0 ]; then echo "make deps: run as root to install:$$missing" >&2; exit 2; fi; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	@command -v npm >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends npm; } || \
	  { echo "make deps: npm is missing (apt-get install npm, as root)" >&2; exit 2; }
	@[ -f $(NODE_DIR)/node_modules/@conda-org/rattler/package.json ] || \
	  npm install --prefix $(NODE_DIR) --no-audit --no-fund --loglevel=error $(RATTLER_NPM)

RESULTS  := $(BUILD)/test-results
unit: $(UNIT_BIN)
	@WP_RESULTS=$(RESULTS) tests/run-unit.sh $(UNIT_BIN)

clitest: $(BUILD)/wheelpick
	@WP_RESULTS=$(RESULTS) WHEELPICK=$(abspath $(BUILD)/wheelpick) WP_CLI_SET=fast tests/cli/run.sh

# The command-line files that measure time (stalls, deadlines, kills, the disk full, valgrind),
# one at a time: `make test-slow` (tests/cli/run.sh's SERIAL).
clitest-slow: $(BUILD)/wheelpick
	@WP_RESULTS=$(RESULTS) WHEELPICK=$(abspath $(BUILD)/wheelpick) WP_CLI_SET=slow tests/cli/run.sh

# Every runner runs to the end (WP_DEFER_FAIL); the summary line decides the exit status. The
# runners see an empty environment but for what tests/clean-env.sh keeps (make's own flags passed on).
test: deps
	rm -rf $(RESULTS)
	$(MAKE) -j$$(nproc) all $(UNIT_BIN)
	@WP_DEFER_FAIL=1 tests/clean-env.sh MAKEFLAGS="$$MAKEFLAGS" $(MAKE) -s unit clitest fuzz-replay difftest lint oscheck
	@WP_RESULTS=$(RESULTS) tests/summary.sh

# make test's other half (CI runs both, .ci/run): its own results folder and closing line.
test-slow: deps
	rm -rf $(RESULTS)-slow
	$(MAKE) -j$$(nproc) all
	@WP_DEFER_FAIL=1 tests/clean-env.sh MAKEFLAGS="$$MAKEFLAGS" $(MAKE) -s RESULTS=$(RESULTS)-slow clitest-slow
	@WP_RESULTS=$(RESULTS)-slow tests/summary.sh

demo: deps
	$(MAKE) all
	@tests/demo.sh $(abspath $(BUILD)/wheelpick)

asan:
	rm -rf build-asan/test-results
	$(MAKE) BUILD=build-asan OPTFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	  LDFLAGS="-fsanitize=address,undefined" all
	@WP_DEFER_FAIL=1 ASAN_OPTIONS=detect_leaks=1 $(MAKE) -s BUILD=build-asan \
	  OPTFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	  LDFLAGS="-fsanitize=address,undefined" unit clitest clitest-slow
	@WP_RESULTS=build-asan/test-results tests/summary.sh

# ThreadSanitizer over the code that runs threads: metadata read ahead (ops/core/metadata.c), files
# checked as they arrive (ops/core/fetch.c), a wheel's members inflated on a pool of threads as they
# arrive (verify/wheelstream.c, through its unit test), base/parallel.c (its unit test), and conda batches written while the next is staged
# (cache/condastore.c, through its unit test's small batches). tests/tsan.supp names the one
# report it silences. t-install: wheels staged on every CPU (ops/install/install.c). test_job_fetch and
# test_job_conda: the wheel and conda jobs' fetches in-process (ops/core/fetch.c's checker threads).
TSAN_FLAGS := OPTFLAGS="-O1 -g -fsanitize=thread" LDFLAGS="-fsanitize=thread"
TSAN_ENV   := TSAN_OPTIONS="halt_on_error=1 exitcode=66 suppressions=$(abspath tests/tsan.supp)"
tsan:
	rm -rf build-tsan/test-results
	$(MAKE) BUILD=build-tsan $(TSAN_FLAGS) all build-tsan/tests/test_condastore build-tsan/tests/test_wheelstream build-tsan/tests/test_parallel \
	  build-tsan/tests/test_job_fetch build-tsan/tests/test_job_conda
	@WP_DEFER_FAIL=1 $(TSAN_ENV) $(MAKE) -s BUILD=build-tsan $(TSAN_FLAGS) unit \
	  UNIT_BIN="build-tsan/tests/test_condastore build-tsan/tests/test_wheelstream build-tsan/tests/test_parallel \
	  build-tsan/tests/test_job_fetch build-tsan/tests/test_job_conda"
	@WP_DEFER_FAIL=1 WP_CLI_ONLY="t-faults t-pick t-wheelhouse t-mirror t-pool t-install" $(TSAN_ENV) \
	  $(MAKE) -s BUILD=build-tsan $(TSAN_FLAGS) clitest
	@WP_RESULTS=build-tsan/test-results tests/summary.sh

bench:
	$(MAKE) BUILD=build-bench OPTFLAGS="-O2 -DNDEBUG" all
	@bench/run.sh $(abspath build-bench/wheelpick)

lint:
	@WP_RESULTS=$(RESULTS) WP_LIBWP=$(BUILD)/libwp.a tests/lint.sh

install: $(BUILD)/wheelpick $(DOCS)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	  $(DESTDIR)$(PREFIX)/share/zsh/site-functions $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 0755 $(BUILD)/wheelpick $(DESTDIR)$(BINDIR)/wheelpick
	install -m 0644 $(BUILD)/wheelpick.1 $(DESTDIR)$(MANDIR)/man1/wheelpick.1
	install -m 0644 $(BUILD)/completions/wheelpick.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/wheelpick
	install -m 0644 $(BUILD)/completions/_wheelpick $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_wheelpick
	install -m 0644 $(BUILD)/completions/wheelpick.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/wheelpick.fish

clean:
	rm -rf build build-asan build-bench build-fuzz build-win

# a unit test is rebuilt when a header it includes (tests/unit/*.h too) changes
-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(UNIT_BIN:=.d)

# Feature fragments (fuzzing, ...) add their own targets here.
-include $(sort $(wildcard mk/*.mk))
