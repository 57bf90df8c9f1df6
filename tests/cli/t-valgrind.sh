#!/usr/bin/env bash
# tests/cli/t-valgrind.sh: the main commands under valgrind memcheck: no invalid access, no definite leak.
. "$(dirname "$0")/../lib.sh"
# valgrind is in the Makefile's DEB_PKGS: missing, it is a failure, not a skip (WP_NO_VALGRIND=1
# leaves this file out on purpose)
if [ -n "${WP_NO_VALGRIND:-}" ]; then
	echo "checks: 0 passed, 0 failed (WP_NO_VALGRIND)"; exit 0
fi
command -v valgrind >/dev/null || { fail "valgrind is missing (make deps installs it)"; done_testing; exit 1; }
case "$("$WHEELPICK" --version 2>&1; ldd "$WHEELPICK" 2>/dev/null)" in
*libasan*) echo "checks: 0 passed, 0 failed (an ASan build: valgrind does not apply)"; exit 0 ;;
esac
make_sample
vg() { valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
	--show-leak-kinds=definite "$WHEELPICK" "$@"; }
T="--cuda 11.2 --python 3.8 --platform linux_x86_64"
expect_exit 0 "update" vg update --index "$FINDLINKS"
expect_exit 0 "list --json" vg list torch --json
expect_exit 0 "list grid marked" vg list torch $T
expect_exit 0 "pick with dependencies" vg torchvision==0.9.0 $T --dry-run --json --explain --allow-full-downloads
expect_exit 1 "nothing fits" vg torch==1.8.0 --cuda 9.2 --python 3.8 --platform linux_x86_64 --dry-run
expect_exit 0 "pick -d" vg torch==1.8.0 $T -d "$TMP/wh"
expect_exit 0 "verify" vg verify "$TMP/wh"
expect_exit 0 "mirror" vg mirror "$TMP/mir" torch==1.8.0 $T
expect_exit 2 "usage error" vg torch --cuda nope
# install: the threads, the journal, the store (tests/cli/t-install.sh has the rest)
"$PYTHON" "$ROOT/tests/fixtures/mkwheels.py" install "$TMP/iwh" "manylinux_2_17_$(uname -m)" \
	"$("$PYTHON" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')"
"$PYTHON" -m venv --without-pip "$TMP/venv"
expect_exit 0 "install" vg install "$TMP/iwh" --python "$TMP/venv/bin/python"
expect_exit 0 "install again by hard link" vg install "$TMP/iwh" --link-mode hardlink --python "$TMP/venv/bin/python"
expect_exit 0 "list --installed" vg list --installed --python "$TMP/venv/bin/python"
expect_exit 0 "uninstall" vg uninstall alpha beta gamma --python "$TMP/venv/bin/python"
done_testing
