# tools/win/toolchain.sh: sourced; the mingw-w64 cross toolchain (x86_64, win32 threads) for the
# Windows builds. Debian ships two thread models behind one name (update-alternatives); a private
# bin/ of links pins win32 threads, so no build picks winpthread by accident.
# needs: WIN_ROOT (a folder under build/)
WIN_HOST=x86_64-w64-mingw32
WIN_BIN=$WIN_ROOT/bin
mkdir -p "$WIN_BIN"
for t in gcc cpp gcc-ar gcc-nm gcc-ranlib; do
	src=$(command -v "$WIN_HOST-$t-win32") || { echo "win: $WIN_HOST-$t-win32 is missing (make deps)" >&2; exit 2; }
	ln -sf "$src" "$WIN_BIN/$WIN_HOST-$t"
done
ln -sf "$WIN_BIN/$WIN_HOST-gcc" "$WIN_BIN/$WIN_HOST-cc"
for t in ar ranlib nm strip windres objdump dlltool ld; do
	command -v "$WIN_HOST-$t" >/dev/null || { echo "win: $WIN_HOST-$t is missing (make deps)" >&2; exit 2; }
done
PATH=$WIN_BIN:$PATH
export PATH
WIN_CC=$WIN_HOST-gcc
WIN_AR=$WIN_HOST-ar
WIN_RANLIB=$WIN_HOST-ranlib
# The toolchain's identity goes into the prefix's stamp: a new compiler rebuilds the prefix.
win_toolchain_id() {
	"$WIN_CC" --version | head -n 1
	dpkg-query -W -f='${Package} ${Version}\n' mingw-w64-x86-64-dev binutils-mingw-w64-x86-64 2>/dev/null || true
}
