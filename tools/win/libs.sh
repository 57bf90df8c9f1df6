# tools/win/libs.sh: sourced by build-prefix.sh; one function per library, each run in its unpacked
# Debian source tree, installing static libraries and headers into $P. Only what wheelpick uses
# is built (no programs, docs or tests); the quirks of cross-building each are noted where met.
# needs: P (the prefix, absolute), JOBS, the toolchain (toolchain.sh)

WIN_CFLAGS="-O2 -g0"

# A pkg-config file per library, with everything a static link needs in Libs (there is no shared
# copy to fall back on) and the "this is a static library" macros in Cflags, so a plain
# `pkg-config --cflags --libs` gives the right answer. ${pcfiledir} keeps the prefix relocatable.
# pc NAME VERSION "LIBS" ["CFLAGS"] ["REQUIRES"]
pc() {
	mkdir -p "$P/lib/pkgconfig"
	cat > "$P/lib/pkgconfig/$1.pc" <<PC
prefix=\${pcfiledir}/../..
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: $1
Description: $1 (static, x86_64-w64-mingw32, wheelpick's Windows prefix)
Version: $2
Requires: ${5:-}
Libs: -L\${libdir} $3
Cflags: -I\${includedir} ${4:-}
PC
}

ac_host() {  # an autoconf project, static only
	./configure --host="$WIN_HOST" --prefix="$P" --disable-shared --enable-static \
		CC="$WIN_CC" CFLAGS="$WIN_CFLAGS" CPPFLAGS="-I$P/include" LDFLAGS="-L$P/lib" "$@"
}

# Debian's +dfsg tarball drops win32/ (and its Makefile.gcc): the library's files compile alone.
build_zlib() {
	for f in adler32 compress crc32 deflate gzclose gzlib gzread gzwrite infback inffast inflate \
			inftrees trees uncompr zutil; do
		"$WIN_CC" $WIN_CFLAGS -c "$f.c" -o "$f.o"
	done
	"$WIN_AR" rcs libz.a *.o
	install -m 644 libz.a "$P/lib/"
	install -m 644 zlib.h zconf.h "$P/include/"
	pc zlib "$1" "-lz"
}

# bzip2's Makefile builds its programs and tests too: the seven library files compile alone.
build_bzip2() {
	for f in blocksort huffman crctable randtable compress decompress bzlib; do
		"$WIN_CC" $WIN_CFLAGS -D_FILE_OFFSET_BITS=64 -c "$f.c" -o "$f.o"
	done
	"$WIN_AR" rcs libbz2.a blocksort.o huffman.o crctable.o randtable.o compress.o decompress.o bzlib.o
	install -m 644 libbz2.a "$P/lib/" && install -m 644 bzlib.h "$P/include/"
	pc bzip2 "$1" "-lbz2"
}

build_xz() {
	ac_host --disable-xz --disable-xzdec --disable-lzmadec --disable-lzmainfo --disable-lzma-links \
		--disable-scripts --disable-doc --disable-nls --enable-threads=vista
	make -j"$JOBS" -C src/liblzma install
	pc liblzma "$1" "-llzma" "-DLZMA_API_STATIC"
}

# zstd's own Makefile, library only; Debian's +dfsg tarball drops nothing the library needs.
build_zstd() {
	make -C lib -j"$JOBS" CC="$WIN_CC" AR="$WIN_AR" CFLAGS="$WIN_CFLAGS" ZSTD_LEGACY_SUPPORT=0 \
		TARGET_SYSTEM=Windows_NT libzstd.a
	install -m 644 lib/libzstd.a "$P/lib/"
	install -m 644 lib/zstd.h lib/zstd_errors.h lib/zdict.h "$P/include/"
	pc libzstd "$1" "-lzstd"
}

# The Debian tree is SQLite's full source: the amalgamation is generated with the build machine's
# compiler and tclsh, then compiled for Windows with Debian's own options (debian/rules), but for
# SQLITE_ENABLE_UPDATE_DELETE_LIMIT (it changes the grammar, which the amalgamation has fixed).
build_sqlite3() {
	mkdir -p native && (cd native && ../configure --disable-tcl >/dev/null && make sqlite3.c)
	"$WIN_CC" $WIN_CFLAGS -fno-strict-aliasing -DSQLITE_SECURE_DELETE -DSQLITE_ENABLE_COLUMN_METADATA \
		-DSQLITE_ENABLE_FTS3 -DSQLITE_ENABLE_FTS3_PARENTHESIS -DSQLITE_ENABLE_RTREE=1 -DSQLITE_SOUNDEX=1 \
		-DSQLITE_ENABLE_UNLOCK_NOTIFY -DSQLITE_OMIT_LOOKASIDE=1 -DSQLITE_ENABLE_DBSTAT_VTAB \
		-DSQLITE_ALLOW_ROWID_IN_VIEW -DSQLITE_ENABLE_LOAD_EXTENSION -DSQLITE_LIKE_DOESNT_MATCH_BLOBS \
		-DSQLITE_THREADSAFE=1 -DSQLITE_USE_URI=1 -DSQLITE_MAX_SCHEMA_RETRY=25 \
		-DSQLITE_ENABLE_PREUPDATE_HOOK -DSQLITE_ENABLE_SESSION -DSQLITE_ENABLE_STMTVTAB \
		-DSQLITE_MAX_VARIABLE_NUMBER=250000 -c native/sqlite3.c -o sqlite3.o
	"$WIN_AR" rcs libsqlite3.a sqlite3.o
	install -m 644 libsqlite3.a "$P/lib/" && install -m 644 native/sqlite3.h native/sqlite3ext.h "$P/include/"
	pc sqlite3 "$1" "-lsqlite3"
}

# No iconv on Windows: libxml2 then reads UTF-8, UTF-16, ISO-8859-1 and ASCII itself.
build_libxml2() {
	autoreconf -fi  # Debian's patches touch Makefile.am; its configure is from another automake
	ac_host --without-python --without-iconv --without-icu --without-lzma --without-zlib \
		--without-http --without-ftp --without-debug --without-modules --with-threads
	make -j"$JOBS" libxml2.la
	make install-libLTLIBRARIES && make -C include install
	pc libxml-2.0 "$1" "-lxml2 -lws2_32" "-I\${includedir}/libxml2 -DLIBXML_STATIC"
}

# yajl's CMake wants MSVC: its dozen .c files compile alone; the version header is the one file
# CMake would have written.
build_yajl() {
	mkdir -p "$P/include/yajl"
	sed -e 's/\${YAJL_MAJOR}/2/' -e 's/\${YAJL_MINOR}/1/' -e 's/\${YAJL_MICRO}/0/' \
		src/api/yajl_version.h.cmake > "$P/include/yajl/yajl_version.h"
	install -m 644 src/api/yajl_common.h src/api/yajl_gen.h src/api/yajl_parse.h src/api/yajl_tree.h "$P/include/yajl/"
	for f in yajl yajl_alloc yajl_buf yajl_encode yajl_gen yajl_lex yajl_parser yajl_tree yajl_version; do
		"$WIN_CC" $WIN_CFLAGS -I"$P/include" -c "src/$f.c" -o "$f.o"
	done
	"$WIN_AR" rcs libyajl.a *.o
	install -m 644 libyajl.a "$P/lib/"
	pc yajl "$1" "-lyajl"
}

# msgpack-c's CMake likewise: five .c files, and the two headers CMake fills in (little-endian).
build_msgpack() {
	for h in sysdep pack_template; do
		sed -e 's/@MSGPACK_ENDIAN_BIG_BYTE@/0/' -e 's/@MSGPACK_ENDIAN_LITTLE_BYTE@/1/' \
			"cmake/$h.h.in" > "include/msgpack/$h.h"
	done
	for f in objectc unpack version vrefbuffer zone; do
		"$WIN_CC" $WIN_CFLAGS -Iinclude -c "src/$f.c" -o "$f.o"
	done
	"$WIN_AR" rcs libmsgpackc.a *.o
	install -m 644 libmsgpackc.a "$P/lib/"
	cp -R include/msgpack include/msgpack.h "$P/include/"
	pc msgpack "$1" "-lmsgpackc -lws2_32"
}

# Debian's tree carries the patches that make its GnuTLS and NSS flavours (the last two in
# debian/patches/series): reverted, back to upstream's build system, which autoreconf regenerates.
# Schannel for TLS (the Windows certificate store), SSPI, and Windows' own IDN (normaliz); Win32
# threads for the threaded resolver (configure would find mingw-w64's pthread.h and want winpthread).
build_curl() {
	for p in 99_nss.patch 90_gnutls.patch; do
		[ -f "debian/patches/$p" ] && patch -R -p1 -s < "debian/patches/$p"
	done
	autoreconf -fi >/dev/null 2>&1
	ac_host --with-schannel --enable-sspi --with-winidn --disable-pthreads --without-libidn2 \
		--without-libpsl --without-brotli --without-zstd --without-nghttp2 --without-ngtcp2 \
		--without-librtmp --without-libssh2 --without-libgsasl --disable-ldap --disable-ldaps \
		--disable-manual --disable-docs --with-zlib="$P" --enable-ipv6 --disable-dict --disable-gopher \
		--disable-ftp --disable-imap --disable-pop3 --disable-smtp --disable-telnet --disable-tftp --disable-rtsp \
		--disable-mqtt --disable-smb
	make -j"$JOBS" -C lib
	make -C lib install && make -C include install
	# curl-config's -pthread would pull in winpthread, which win32 threads do not need
	pc libcurl "$1" "$(sh ./curl-config --static-libs | sed -e "s|-L$P/lib||g" -e 's/-Wl,-B[a-z]*//g' \
		-e 's/-pthread//g')" "-DCURL_STATICLIB"
}

# libarchive: CMake. Its regex probe looks for a POSIX regex library Windows has none of (NONE),
# and its ZLIB_WINAPI probe is a try-run, which cmake 3.25 cannot do cross (it crashed): the answer,
# no (Debian's zlib is built without WINAPI), is given up front.
build_libarchive() {
	mkdir -p wbuild && cd wbuild
	cmake .. -G "Unix Makefiles" -DCMAKE_SYSTEM_NAME=Windows -DCMAKE_C_COMPILER="$WIN_CC" \
		-DCMAKE_RC_COMPILER="$WIN_HOST-windres" -DCMAKE_FIND_ROOT_PATH="$P" \
		-DCMAKE_FIND_ROOT_PATH_MODE_PROGRAM=NEVER -DCMAKE_FIND_ROOT_PATH_MODE_LIBRARY=ONLY \
		-DCMAKE_FIND_ROOT_PATH_MODE_INCLUDE=ONLY -DCMAKE_INSTALL_PREFIX="$P" -DCMAKE_BUILD_TYPE=Release \
		-DCMAKE_C_FLAGS="$WIN_CFLAGS -DLZMA_API_STATIC" -DBUILD_SHARED_LIBS=OFF \
		-DZLIB_WINAPI_EXITCODE=1 -DZLIB_WINAPI_EXITCODE__TRYRUN_OUTPUT= -DPOSIX_REGEX_LIB=NONE \
		-DENABLE_OPENSSL=OFF -DENABLE_MBEDTLS=OFF -DENABLE_NETTLE=OFF -DENABLE_CNG=ON \
		-DENABLE_LIBB2=OFF -DENABLE_LZ4=OFF -DENABLE_LZO=OFF -DENABLE_LIBXML2=OFF -DENABLE_EXPAT=OFF \
		-DENABLE_PCREPOSIX=OFF -DENABLE_ICONV=OFF -DENABLE_ACL=OFF -DENABLE_XATTR=OFF \
		-DENABLE_ZSTD=ON -DENABLE_LZMA=ON -DENABLE_BZip2=ON -DENABLE_ZLIB=ON \
		-DENABLE_TAR=OFF -DENABLE_CPIO=OFF -DENABLE_CAT=OFF -DENABLE_TEST=OFF -DENABLE_INSTALL=ON
	make -j"$JOBS" archive_static
	install -m 644 libarchive/libarchive.a "$P/lib/libarchive.a" 2>/dev/null ||
		install -m 644 libarchive/libarchive_static.a "$P/lib/libarchive.a"
	install -m 644 ../libarchive/archive.h ../libarchive/archive_entry.h "$P/include/"
	pc libarchive "$1" "-larchive -lbcrypt" "-DLIBARCHIVE_STATIC" "zlib bzip2 liblzma libzstd"
}

# libcrypto only (wheelpick hashes and checks signatures with it; TLS is Schannel's), no engines
# or providers as modules, so it is one static library. No openssl.cnf is read on its own
# (no-autoload-config): the configured OPENSSLDIR is a path on this machine, and a file found there
# on a user's machine must not change what a signature check accepts.
build_openssl() {
	./Configure mingw64 --cross-compile-prefix="$WIN_HOST-" --prefix="$P" --libdir=lib no-shared \
		no-module no-engine no-tests no-ui-console no-legacy no-dso no-autoload-config threads $WIN_CFLAGS
	make -j"$JOBS" build_generated >/dev/null
	make -j"$JOBS" libcrypto.a
	install -m 644 libcrypto.a "$P/lib/" && cp -R include/openssl "$P/include/"
	pc libcrypto "$1" "-lcrypto -lws2_32 -lgdi32 -lcrypt32 -ladvapi32 -luser32 -lbcrypt"
}
