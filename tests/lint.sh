#!/usr/bin/env bash
# tests/lint.sh: bans calls that have no bound or no error report (make lint).
set -u
cd "$(dirname "$0")/.."
bad=$(grep -nE '\b(strcpy|strcat|sprintf|vsprintf|gets|atoi|atol|atoll|strtok)\s*\(' \
	$(git ls-files '*.c' '*.h' 2>/dev/null || find . -name '*.c' -o -name '*.h') | grep -v '^tests/fuzz/' || true)
results=${WP_RESULTS:-build/test-results}
mkdir -p "$results" 2>/dev/null
if [ -n "$bad" ]; then
	echo "lint: banned calls (use snprintf, wp_buf, strtol with checks, strtok_r):"
	echo "$bad"
	echo "0 1 0" >"$results/lint.count"
	[ "${WP_DEFER_FAIL:-0}" = 1 ] && exit 0
	exit 1
fi
echo "1 0 0" >"$results/lint.count"
echo "lint: no banned calls"

# A clone of the project alone must pass: no test names the team's data folder beside the checkout
# (its small real files are vendored under tests/fixtures/real/ with PROVENANCE.md); bench/ may.
# (The data set's folder name is put together here so this rule is not itself a mention of it;
# fixtures cite its files as team-data:PATH, which nothing opens.)
team=shar; team=${team}ed
outside=$(git grep -nE "\\.\\./$team|/work/$team|WP_${team^^}_DATA|$team/data/" -- 'tests/*.c' 'tests/*.h' 'tests/*.py' \
	'tests/*.sh' 'tests/*.md' 'tests/*.tsv' 'mk/*.mk' Makefile ':!tests/lint.sh' ':!tests/diff/*' 2>/dev/null || true)
if [ -n "$outside" ]; then
	echo "lint: tests that reach outside the repository for data (vendor it under tests/fixtures/real/):"
	echo "$outside"
	echo "0 1 0" >"$results/vendored.count"
	[ "${WP_DEFER_FAIL:-0}" = 1 ] || exit 1
else
	echo "1 0 0" >"$results/vendored.count"
	echo "lint: no test reads data from outside the repository"
fi

# CI runs the README's test commands: every `make test*` line of .ci/run is in README's set-up block.
ci_missing=""
for t in $(sed -n 's/^make \(test[a-z-]*\)$/\1/p' .ci/run 2>/dev/null); do
	sed -n '/^## Set up/,/^## /p' README.md | grep -q "^make $t " || ci_missing="$ci_missing make $t"
done
if [ -n "$ci_missing" ]; then
	echo "lint: .ci/run runs test commands README's set-up block does not show:$ci_missing"
	echo "0 1 0" >"$results/ci.count"
	[ "${WP_DEFER_FAIL:-0}" = 1 ] || exit 1
else
	echo "1 0 0" >"$results/ci.count"
	echo "lint: README shows each test command .ci/run runs"
fi

# The layers (ARCHITECTURE.md): each folder includes only the folders below it, so the include
# graph has no cycle. cli -> ops -> {env, cache, index, verify, net, resolver} -> base (cache and index
# stand on verify, everything on resolver but net).
allowed() {
	case $1 in
	base) echo "base" ;;
	resolver) echo "base resolver" ;;
	index) echo "base resolver verify index" ;;
	net) echo "base net" ;;
	verify) echo "base resolver verify" ;;
	cache) echo "base resolver verify cache" ;;
	env) echo "base resolver env" ;;
	ops) echo "base resolver index net verify cache env ops" ;;
	cli) echo "base resolver index net verify cache env ops cli" ;;
	*) echo "" ;;
	esac
}
# The rooms of ops/ (ARCHITECTURE.md), each on the ones below it: the shared machinery of every job
# (core), the wheel job and its outputs (wheel), the conda job (conda), what publishes either
# (publish), the verifiers of all of it (verify); install stands on core alone.
allowed_rooms() {
	case $1 in
	core) echo "core" ;;
	wheel) echo "core wheel" ;;
	conda) echo "core wheel conda" ;;
	publish) echo "core wheel conda publish" ;;
	verify) echo "core wheel conda publish verify" ;;
	install) echo "core install" ;;
	*) echo "" ;;
	esac
}
# A third-party library's headers belong to one layer each, so swapping or faking it touches one folder.
lib_folders() {
	case $1 in
	curl) echo "net" ;;
	sqlite3) echo "cache" ;;
	libxml) echo "index" ;;
	openssl) echo "verify" ;;
	zlib) echo "verify" ;;
	archive) echo "base verify index ops" ;;
	yajl) echo "base" ;;
	msgpack) echo "base" ;;
	esac
}
layer_bad=""
for f in $(git ls-files 'base/*.[ch]' 'resolver/*.[ch]' 'index/*.[ch]' 'net/*.[ch]' 'verify/*.[ch]' 'cache/*.[ch]' 'env/*.[ch]' 'ops/*.[ch]' 'cli/*.[ch]'); do
	dir=${f%%/*}
	ok=" $(allowed "$dir") "
	while IFS= read -r inc; do
		to=${inc%%/*}
		case "$ok" in *" $to "*) ;; *) layer_bad="$layer_bad$f includes $inc ($dir may include: $(allowed "$dir"))"$'\n' ;; esac
		# inside ops/, the rooms are layers of their own
		if [ "$dir" = ops ] && [ "$to" = ops ]; then
			room=${f#ops/}; room=${room%%/*}; to_room=${inc#ops/}; to_room=${to_room%%/*}
			rooms=" $(allowed_rooms "$room") "
			case "$rooms" in *" $to_room "*) ;; *) layer_bad="$layer_bad$f includes $inc (ops/$room may include the rooms: $(allowed_rooms "$room"))"$'\n' ;; esac
		fi
	done < <(sed -n 's/^#include "\([a-z_]*\/[^"]*\)".*/\1/p' "$f")
	while IFS= read -r inc; do
		lib=${inc%%[/.]*}
		case $lib in sqlite3 | zlib | msgpack) ;; archive_entry) lib=archive ;; esac
		folders=$(lib_folders "$lib")
		[ -z "$folders" ] && continue
		case " $folders " in *" $dir "*) ;; *) layer_bad="$layer_bad$f includes <$inc> (only $folders may)"$'\n' ;; esac
	done < <(sed -n 's/^#include <\(curl\/[^>]*\|sqlite3.h\|libxml\/[^>]*\|openssl\/[^>]*\|zlib.h\|msgpack.h\|archive[^>]*\|yajl\/[^>]*\)>.*/\1/p' "$f")
done
if [ -n "$layer_bad" ]; then
	echo "lint: includes that point up or across the layers:"
	printf '%s' "$layer_bad"
	echo "0 1 0" >"$results/layers.count"
	[ "${WP_DEFER_FAIL:-0}" = 1 ] && exit 0
	exit 1
fi
echo "1 0 0" >"$results/layers.count"
echo "lint: every include points down the layers"

# No include circles. Headers: within a folder no .h includes another that includes it back (tsort
# finds any loop among them). Modules: no X.c/X.h includes Y.h while Y.c/Y.h includes X.h; share
# the type through the lower file or a small header of its own (cache/catalogdb.h,
# verify/wheellimits.h, resolver/name.h, env/detectdata.h, net/transfer.h, ops/conda/picks.h,
# ops/verify/report.h). No circle is known today; one that must wait is listed here, with its reason.
known_circles=" "
circle_bad=""
declare -A incl=()
for f in $(git ls-files 'base/*.[ch]' 'resolver/*.[ch]' 'index/*.[ch]' 'net/*.[ch]' 'verify/*.[ch]' 'cache/*.[ch]' 'env/*.[ch]' 'ops/*.[ch]' 'cli/*.[ch]'); do
	m=${f%.*}
	for i in $(sed -n 's/^#include "\([a-z_]*\/[^"]*\)\.h".*/\1/p' "$f"); do
		[ "$i" = "$m" ] || incl["$m>$i"]=1
	done
done
for k in "${!incl[@]}"; do
	a=${k%%>*} b=${k#*>}
	# a header with no .c of its own (index/htmlpath.h beside html.c) is its includer's, not a module
	if [[ "$a" < "$b" ]] && [ -n "${incl[$b>$a]:-}" ] && [ -f "$a.c" ] && [ -f "$b.c" ]; then
		case "$known_circles" in *" $a<->$b "*) ;; *) circle_bad="$circle_bad$a and $b include each other's headers"$'\n' ;; esac
	fi
done
for dir in base resolver index net verify cache env ops/core ops/wheel ops/conda ops/publish ops/verify ops/install cli; do
	loop=$(for h in $(git ls-files "$dir/*.h"); do
		sed -n "s|^#include \"\\($dir/[^\"/]*\\.h\\)\".*|$h \\1|p" "$h"
	done | tsort 2>&1 >/dev/null | sed -n 's/^tsort: //p' | grep -v 'input contains a loop' || true)
	[ -n "$loop" ] && circle_bad="$circle_bad$dir/: headers in a loop: $(echo $loop)"$'\n'
done
if [ -n "$circle_bad" ]; then
	echo "lint: include circles:"
	printf '%s' "$circle_bad"
	echo "0 1 0" >"$results/circles.count"
	[ "${WP_DEFER_FAIL:-0}" = 1 ] && exit 0
	exit 1
fi
echo "1 0 0" >"$results/circles.count"
echo "lint: no include circles"

# Below cli/ and ops/, no command-line words: a string in base/ resolver/ index/ net/ verify/
# cache/ env/ that names one of wheelpick's long options (read from cli/'s option tables) fails.
# Advice names a reason (resolver/ask.h) and cli/ gives the words ("--cuda cpu"). Allowed: the
# requirements-file options resolver/reqfile.c reads (pip's syntax, which shares names with ours).
flag_allowed=(
	"resolver/reqfile.c: trusted-host index-url extra-index-url find-links no-index pre require-hashes"
)
flags=$(sed -n 's/.*{ *"\([a-z0-9-]*\)", *\([0-9]*\|'"'"'.'"'"'\), *\(NULL\|"\([^"]*\)"\), *WP_OPT_.*/\1|\4/p' cli/*.c | tr '|' '\n' | grep . | sort -u | paste -sd'|')
flag_bad=$(perl -e '
	my ($flags, @allowed) = split /\n/, shift;
	my %ok;
	for (@allowed) { my ($f, $l) = /^(\S+): (.*)$/ or next; $ok{"$f --$_"} = 1 for split " ", $l; }
	for my $f (@ARGV) {
		open(my $fh, "<", $f) or next; local $/; my $src = <$fh>; close $fh;
		my $out = "";   # comments blanked (newlines kept), strings and code as they are
		while ($src =~ /\G(?:(\/\*.*?\*\/)|(\/\/[^\n]*)|("(?:\\.|[^"\\\n])*")|(\x27(?:\\.|[^\x27\\\n])*\x27)|([^\/"\x27]+|.))/gsc) {
			if (defined $1) { (my $c = $1) =~ s/[^\n]//g; $out .= $c; } elsif (!defined $2) { $out .= $&; }
		}
		my $n = 0;
		for my $line (split /\n/, $out, -1) {
			$n++;
			while ($line =~ /"((?:\\.|[^"\\])*)"/g) {
				my $s = $1;
				while ($s =~ /--($flags)(?![a-z0-9-])/g) {
					print "$f:$n: --$1 in \"$s\"\n" unless $ok{"$f --$1"};
				}
			}
		}
	}' "$flags"$'\n'"$(printf '%s\n' "${flag_allowed[@]}")" \
	$(git ls-files 'base/*.[ch]' 'resolver/*.[ch]' 'index/*.[ch]' 'net/*.[ch]' 'verify/*.[ch]' 'cache/*.[ch]' 'env/*.[ch]'))
if [ -z "$flags" ] || [ -n "$flag_bad" ]; then
	echo "lint: command-line words below cli/ and ops/ (name a reason, resolver/ask.h, and let cli/ word it):"
	[ -z "$flags" ] && echo "no option names found in cli/'s tables"
	echo "$flag_bad"
	echo "0 1 0" >"$results/flagwords.count"
	[ "${WP_DEFER_FAIL:-0}" = 1 ] && exit 0
	exit 1
fi
# ... nor a command of ours ("run 'wheelpick update'"): the command names are read from cli/commands.c
cmds=$(sed -n 's/^\t{ "\([a-z-]*\)", wp_cmd_.*/\1/p' cli/commands.c | paste -sd'|')
[ -n "$cmds" ] || { echo "lint: no command names found in cli/commands.c"; exit 1; }
cmd_bad=$(grep -nE "\"[^\"]*wheelpick ($cmds)\b" $(git ls-files 'base/*.[ch]' 'resolver/*.[ch]' 'index/*.[ch]' 'net/*.[ch]' \
	'verify/*.[ch]' 'cache/*.[ch]' 'env/*.[ch]') || true)
if [ -n "$cmd_bad" ]; then
	echo "lint: a command of wheelpick's named below cli/ and ops/ (name a reason: resolver/ask.h):"
	printf '%s\n' "$cmd_bad"
	exit 1
fi
echo "1 0 0" >"$results/flagwords.count"
echo "lint: no command-line words below cli/ and ops/"

# Configuration is a value built in cli/ and handed down (issue 37): below cli/ nothing reads the
# process environment (getenv, secure_getenv, environ) or changes it (setenv, putenv, unsetenv,
# clearenv): take the value from the session, base/envp.h, or an argument. cli/ reads it, and
# hands it down; nothing outside the tests changes it (a setenv for a lower layer to read back is
# a global in disguise).
# The OS seam (base/os/) is where the process's environment is read, as every other OS call is;
# it hands it out only through wp_os_environ(), which only cli/ may call.
env_bad=$(grep -nE '(^|[^>._A-Za-z0-9])((secure_getenv|getenv|setenv|unsetenv|putenv|clearenv)[[:space:]]*\(|environ([^A-Za-z0-9_]|$))' \
	$(git ls-files 'base/*.[ch]' 'index/*.[ch]' 'resolver/*.[ch]' 'cache/*.[ch]' 'net/*.[ch]' 'verify/*.[ch]' \
		'env/*.[ch]' 'ops/*.[ch]' | grep -v '^base/os/') | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/?\*|//)' || true)
env_bad="$env_bad$(grep -nE '\bwp_os_environ[[:space:]]*\(' $(git ls-files 'base/*.[ch]' 'index/*.[ch]' 'resolver/*.[ch]' \
	'cache/*.[ch]' 'net/*.[ch]' 'verify/*.[ch]' 'env/*.[ch]' 'ops/*.[ch]' | grep -v '^base/os/') || true)"
# cli/ reads a variable with wp_envp_get(wp_os_environ(), NAME), never the C library's getenv:
# on Windows that one gives the ANSI code page and matches names by case.
env_set=$(grep -nE '(^|[^>._A-Za-z0-9])(setenv|unsetenv|putenv|clearenv|getenv|secure_getenv)[[:space:]]*\(' \
	$(git ls-files 'cli/*.[ch]') | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/?\*|//)' || true)
if [ -n "$env_bad$env_set" ]; then
	echo "lint: the process environment read or set below cli/, or set or read by getenv in cli/ (hand the value down: the session, base/envp.h, an argument; cli/: wp_envp_get(wp_os_environ(), NAME)):"
	printf '%s\n%s\n' "$env_bad" "$env_set" | sed '/^$/d; s/^/  /'
	echo "0 1 0" >"$results/environ.count"
	[ "${WP_DEFER_FAIL:-0}" = 1 ] && exit 0
	exit 1
fi
echo "1 0 0" >"$results/environ.count"
echo "lint: no read or write of the process environment below cli/, and no write or getenv in cli/"

# Every global symbol of libwp.a is wp_-prefixed, so a program linking it meets no clash and a
# reader knows a name as the project's (issue 37). The lazy-loading shims (*/lazy_*.c) are exempt:
# they define libcurl's, libarchive's, libxml2's and libcrypto's own names on purpose. Reads the
# built library ($WP_LIBWP, else build/libwp.a); skipped, and said so, when it is not built yet.
libwp=${WP_LIBWP:-build/libwp.a}
if [ ! -f "$libwp" ] || ! command -v nm >/dev/null 2>&1; then
	echo "lint: global symbols without wp_ skipped ($libwp not built, or no nm): run make all first"
else
	sym_bad=$(nm -A -g --defined-only "$libwp" 2>/dev/null |
		awk '$2 ~ /^[TDBRCVWG]$/ && $3 !~ /^wp_/ { n = split($1, p, ":"); m = p[n - 1];
			if (m !~ /^lazy_.*\.o$/) print "  " m ": " $3 }' | sort -u)
	if [ -n "$sym_bad" ]; then
		echo "lint: global symbols of $libwp without the wp_ prefix (rename to wp_..., or make static):"
		echo "$sym_bad"
		echo "0 1 0" >"$results/symbols.count"
		[ "${WP_DEFER_FAIL:-0}" = 1 ] && exit 0
		exit 1
	fi
	echo "1 0 0" >"$results/symbols.count"
	echo "lint: every global symbol of $libwp has the wp_ prefix"
fi

# No settable global below cli/ (issue 37): what a layer under cli/ needs comes as a value (the
# session, struct wp_net_conf, an argument), never from a variable someone set beforehand. Fails on
# a writable object of file or function scope in base/ index/ resolver/ cache/ net/ verify/ env/
# ops/: found by nm in the objects libwp.a is made of ($WP_LIBWP's folder, PATH.o for PATH.c:
# .data, .bss and the writable .data.rel.local; not .data.rel.ro, which is const, nor .tbss/.tdata,
# a _Thread_local cache), and by a grep of the sources for a file-scope "static" that is not const,
# inline or _Thread_local (it sees what this build does not compile, base/os/win32_*.c). Allowed:
# the list below, "FILE NAME reason" a line; the lazy loaders' function pointers (*/lazy_*.c's
# wp_lazy_slot_*: resolved once by base/lazylib.c). Add to it only with the reason a value cannot do.
globals_allowed=$(cat <<'ALLOWED'
base/lazylib.c load_lock serialises the one-time dlopen of a lazily loaded library
base/lazylib.c wp_lazy_archive a lazily loaded library: filled once, under load_lock, on first use
base/lazylib.c wp_lazy_crypto a lazily loaded library: filled once, under load_lock, on first use
base/lazylib.c wp_lazy_curl a lazily loaded library: filled once, under load_lock, on first use
base/lazylib.c wp_lazy_xml a lazily loaded library: filled once, under load_lock, on first use
net/xfer.c curl_once libcurl requires its global init once a process (pthread_once)
net/xfer.c curl_init_rc that one init's result, written inside curl_once
cache/catalog.c done warm_heap's once flag (atomic): a process-wide malloc tuning, no setting
verify/sha256pair.c known whether the CPU has SHA-NI: asked once, atomic
verify/wheelstream.c cached the CPU count: asked once, atomic
ops/install/install.c abortable_now what the interrupt handler undoes: a signal handler reaches nothing else
verify/sha256pair.c native_off NOT MOVED: a test switch (wp_sha256_allow_native) that forces the portable SHA-256; the program never sets it
base/os/win32_fs.c fdinfo the OS seam on Windows: the fd table a POSIX fd maps to (a process has one)
base/os/win32_fs.c fds_lock the OS seam on Windows: that table's lock
base/os/win32_proc.c env the OS seam on Windows: the process environment as POSIX shows it (a process has one)
base/os/win32_proc.c interrupt_fn the OS seam on Windows: the Ctrl-C handler (a process has one)
base/os/win32_libc.c memstream the OS seam on Windows: open_memstream's open streams
base/os/win32_libc.c memstreams_lock the OS seam on Windows: their lock
ALLOWED
)
below_cli_src=$(git ls-files 'base/*.[ch]' 'index/*.[ch]' 'resolver/*.[ch]' 'cache/*.[ch]' 'net/*.[ch]' 'verify/*.[ch]' \
	'env/*.[ch]' 'ops/*.[ch]')
globals_found=$(
	if [ -f "$libwp" ] && command -v nm >/dev/null 2>&1; then
		objdir=$(dirname "$libwp")
		objs=$(for f in $below_cli_src; do
			case $f in *.c) [ -f "$objdir/${f%.c}.o" ] && echo "$objdir/${f%.c}.o" ;; esac
		done)
		# one nm for them all: "Symbols from OBJ:" heads each object's rows
		nm -f sysv --defined-only $objs 2>/dev/null | awk -F'|' -v pre="$objdir/" '
			/^Symbols from / { f = $0; sub(/^Symbols from /, "", f); sub(/:$/, "", f); sub("^" pre, "", f);
				sub(/\.o$/, ".c", f); next }
			{ for (i = 1; i <= NF; i++) gsub(/^[ \t]+|[ \t]+$/, "", $i) }
			$4 == "OBJECT" && ($7 == ".data" || $7 == ".bss" || $7 ~ /^\.(data|bss)\./ || $7 == "*COM*") &&
			$7 !~ /^\.data\.rel\.ro/ { n = $1; sub(/\.[0-9]+$/, "", n); print f " " n " (nm: " $7 ")" }'
	fi
	# file scope, in the sources: "static T name..." that is neither const, inline, _Thread_local
	# nor a function (its name followed by "(", a function pointer "(*name)" aside)
	perl -ne 'if (/^static\s+(?!const\b|inline\b|_Thread_local\b|__thread\b|_Noreturn\b|__attribute__)/) {
			my $l = $_; chomp $l; my $n;
			if ($l =~ /^static\s+[\w\s\*]*?\(\s*\*\s*(\w+)\s*\)/) { $n = $1 }
			elsif ($l =~ /^static\s+[\w\s\*]*?\b(\w+)\s*\(/) { $n = undef }
			elsif ($l =~ /^static\s+(?:struct|union|enum)\s+(\w+)\s*\{/) { $n = $1 }
			elsif ($l =~ /\b(\w+)\s*(?:\[[^\]]*\]\s*)*(?:[=;,]|$)/) { $n = $1 }
			print "$ARGV $n (line $.: $l)\n" if defined $n;
		}
		close ARGV if eof' $below_cli_src)
globals_bad=$(printf '%s\n' "$globals_found" | awk -v allowed="$globals_allowed" '
	BEGIN { n = split(allowed, a, "\n"); for (i = 1; i <= n; i++) { split(a[i], w, " "); ok[w[1] " " w[2]] = 1 } }
	NF >= 2 && !ok[$1 " " $2] && !($1 ~ /(^|\/)lazy_[a-z_]+\.c$/ && $2 ~ /^wp_lazy_slot_/) { print "  " $0 }' | sort -u)
# an allowed entry that names nothing any more goes from the list (checked when nm could look)
if [ -f "$libwp" ] && command -v nm >/dev/null 2>&1; then
	globals_stale=$(printf '%s\n' "$globals_allowed" | while read -r f n _; do
		printf '%s\n' "$globals_found" | grep -q "^$f $n " || echo "  $f $n (allowed in tests/lint.sh, no longer there: take it off)"
	done)
	globals_bad="$globals_bad${globals_stale:+${globals_bad:+
}$globals_stale}"
fi
if [ -n "$globals_bad" ]; then
	echo "lint: settable globals below cli/ (hand the value down: the session, struct wp_net_conf, an argument; or allow it in tests/lint.sh with its reason):"
	printf '%s\n' "$globals_bad"
	echo "0 1 0" >"$results/globals.count"
	[ "${WP_DEFER_FAIL:-0}" = 1 ] && exit 0
	exit 1
fi
echo "1 0 0" >"$results/globals.count"
[ -f "$libwp" ] || echo "lint: settable globals checked in the sources only ($libwp not built: run make all first for nm)"
echo "lint: no settable global below cli/ but the $(printf '%s\n' "$globals_allowed" | wc -l) allowed in tests/lint.sh"

# The OS seam (issue 38): base/os/ owns every direct call to the operating system, so the Windows
# build (base/os/win32_*.c) and the Linux one (base/os/posix.c) differ in one folder, picked by the
# Makefile. Outside it: no #if on an OS (_WIN32, __linux__, __APPLE__, __GLIBC__...), no OS header
# (<unistd.h>, <fcntl.h>, <sys/...>, <dlfcn.h>, <windows.h>...) and no call the seam wraps (open,
# rename, fsync, flock, posix_spawn, dlopen, mmap, poll, isatty...). Comments and strings are not
# read. The files below still make such calls, each at most as many times as listed (calls and
# headers together): they are the layers not moved yet (reason: not migrated yet, issue 38);
# move them onto base/os/os.h and lower the count; a new file, or one more call, fails.
os_allowed=()
os_calls='open|openat|creat|close|read|write|pread|pwrite|lseek|fsync|fdatasync|ftruncate|stat|lstat|fstat|fstatat|access|faccessat|chmod|fchmod|utimensat|futimens|mkdir|mkdirat|rmdir|unlink|unlinkat|rename|renameat|renameat2|link|linkat|symlink|symlinkat|readlink|readlinkat|realpath|mkdtemp|mkstemp|opendir|fdopendir|readdir|closedir|dirfd|nftw|flock|fcntl|ioctl|posix_spawn|posix_spawnp|fork|vfork|execv|execve|execvp|waitpid|waitid|kill|killpg|dlopen|dlsym|dlclose|dlerror|mmap|munmap|madvise|poll|select|isatty|pipe|pipe2|dup2|dup3|getpid|getrlimit|setrlimit|sysconf|uname|clock_gettime|nanosleep|usleep|getrandom|copy_file_range|sync_file_range|sendfile|getxattr|setxattr|fsetxattr|fgetxattr|statvfs|fstatvfs|chdir|fchdir|getcwd|umask|rewinddir|syncfs|sync|chown|fchown|lchown|truncate|utime|utimes|sigaction|sigprocmask|pthread_sigmask|CreateFileW|LoadLibraryW'
os_bad=$(perl -e '
	my ($calls, @allowed) = split /\n/, shift;
	my %limit;
	for (@allowed) { my ($f, $n) = /^(\S+) (\d+)/ or next; $limit{$f} = $n; }
	for my $f (@ARGV) {
		open(my $fh, "<", $f) or next; local $/; my $src = <$fh>; close $fh;
		my $out = "";   # comments and strings blanked, newlines kept
		while ($src =~ /\G(?:(\/\*.*?\*\/)|(\/\/[^\n]*)|("(?:\\.|[^"\\\n])*")|(\x27(?:\\.|[^\x27\\\n])*\x27)|([^\/"\x27]+|.))/gsc) {
			if (defined $1) { (my $c = $1) =~ s/[^\n]//g; $out .= $c; } elsif (defined $3 || defined $4) { $out .= "\"\""; }
			elsif (!defined $2) { $out .= $&; }
		}
		my ($n, $lines) = (0, "");
		my $ln = 0;
		for my $line (split /\n/, $out, -1) {
			$ln++;
			if ($line =~ /^\s*#\s*(?:if|ifdef|ifndef|elif)\b.*\b(_WIN32|_WIN64|__linux__|__linux|__APPLE__|__GLIBC__|__MINGW32__|__MINGW64__|_MSC_VER|__unix__|__FreeBSD__|__CYGWIN__)\b/) {
				print "$f:$ln: #if on an OS ($1): put the difference in base/os/\n";
				next;
			}
			my $k = 0;
			$k++ if $line =~ /^\s*#\s*include\s*<(unistd|fcntl|dirent|poll|ftw|dlfcn|spawn|termios|pwd|grp|windows|winbase|io|direct|bcrypt|sys\/[a-z_]+|linux\/[a-z_]+|gnu\/[a-z_-]+)\.h>/;
			$k++ while $line =~ /(?<![\w.>])(?:$calls)\s*\(/g;
			$n += $k;
			$lines .= "$f:$ln\n" if $k;
		}
		my $lim = $limit{$f} // 0;
		print "$f: $n direct OS call(s) or header(s) (allowed: $lim); first at ${\ (split /\n/, $lines)[0]}\n" if $n > $lim;
	}' "$os_calls"$'\n'"$(printf '%s\n' "${os_allowed[@]}")" \
	$(git ls-files 'base/*.[ch]' 'resolver/*.[ch]' 'index/*.[ch]' 'net/*.[ch]' 'verify/*.[ch]' 'cache/*.[ch]' 'env/*.[ch]' \
		'ops/*.[ch]' 'cli/*.[ch]' ':!base/os/*'))
if [ -n "$os_bad" ]; then
	echo "lint: direct OS calls, OS headers or #if on an OS outside base/os/ (call base/os/os.h):"
	printf '%s\n' "$os_bad"
	echo "0 1 0" >"$results/osseam.count"
	[ "${WP_DEFER_FAIL:-0}" = 1 ] && exit 0
	exit 1
fi
echo "1 0 0" >"$results/osseam.count"
echo "lint: no direct OS call outside base/os/"

# Lines over 100 columns (a tab to the next multiple of 8, as .editorconfig says) in the tracked
# .c and .h files: no more than tools/wrap-long-lines.sh left (issue 37). What it leaves is what
# clang-format will not split: string literals kept whole so a message can be found with grep,
# unbreakable words in comments, macro tables. A new long line fails: re-wrap it with
# `tools/wrap-long-lines.sh FILE` (only the long lines change). When a change shortens some, lower
# long_max to the count printed, so the ceiling follows the tree down.
long_max=1033
long_n=$(tools/wrap-long-lines.sh --count)
if [ -z "$long_n" ] || [ "$long_n" -gt "$long_max" ]; then
	echo "lint: ${long_n:-?} lines over 100 columns in the C sources, more than the $long_max allowed" \
		"(re-wrap with tools/wrap-long-lines.sh FILE; tools/wrap-long-lines.sh --list shows them)"
	echo "0 1 0" >"$results/longlines.count"
	[ "${WP_DEFER_FAIL:-0}" = 1 ] && exit 0
	exit 1
fi
echo "1 0 0" >"$results/longlines.count"
echo "lint: $long_n lines over 100 columns in the C sources (at most $long_max)"
