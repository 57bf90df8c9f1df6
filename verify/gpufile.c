/* verify/gpufile.c: a file's GPU code, read in blocks through the streaming fatbinary reader. */
#include "verify/gpufile.h"

#include <errno.h>
#include <stdlib.h>

#include "base/buf.h"
#include "base/fs.h"
#include "base/mem.h"
#include "verify/fatbin.h"
#include "base/os/os.h"

#define READ_BLOCK ((size_t)1 << 20)

int wp_gpu_code_of_file(const char *path, char **code, struct wp_err *err)
{
	*code = NULL;
	int fd = wp_os_open(path, WP_O_RDONLY | WP_O_CLOEXEC);
	if (fd < 0)
		return wp_fs_fail(err, errno, "cannot read", path);
	struct wp_fatbin_scan *s = wp_fatbin_scan_new();
	unsigned char *buf = wp_xmalloc(READ_BLOCK);
	ssize_t k;
	while ((k = wp_os_read(fd, buf, READ_BLOCK)) > 0 || (k < 0 && errno == EINTR))
		if (k > 0)
			wp_fatbin_scan_feed(s, buf, (size_t)k);
	int rerr = k < 0 ? errno : 0;
	wp_os_close(fd);
	free(buf);
	struct wp_fatbin fb = { 0 };
	struct wp_err fe = WP_ERR_INIT;
	int rc = wp_fatbin_scan_finish(s, path, &fb, &fe);
	wp_fatbin_scan_free(s);
	if (rerr) {
		wp_fatbin_free(&fb);
		return wp_fs_fail(err, rerr, "cannot read", path);
	}
	struct wp_buf sum = WP_BUF_INIT;
	wp_fatbin_summary(&fb, &sum);
	wp_fatbin_free(&fb);
	*code = wp_buf_detach(&sum, NULL);
	if (!*code)
		*code = wp_xstrdup("");
	return rc ? wp_fail(err, rc, "%s", fe.msg) : 0;
}
