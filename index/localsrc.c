/* index/localsrc.c: file:// pages and folders read from disk. */
#include "index/localsrc.h"

#include "base/mem.h"
#include "base/vec.h"
#include "base/url.h"
#include "base/os/os.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

bool wp_local_is_file_url(const char *url)
{
	return !strncasecmp(url, "file://", 7);
}

char *wp_local_url(const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	struct wp_buf b = WP_BUF_INIT;
	/* a drive's path gets the '/' that makes file:///C:/x */
	wp_buf_addstr(&b, path[0] == '/' ? "file://" : "file:///");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("/:-._~", *p)) {
			wp_buf_addch(&b, (char)*p);
		} else {
			char esc[3] = { '%', hex[*p >> 4], hex[*p & 15] };
			wp_buf_add(&b, esc, 3);
		}
	}
	return wp_buf_detach(&b, NULL);
}

int wp_local_path(const char *url, char **path, struct wp_err *err)
{
	const char *p = url + 7;
	*path = NULL;
	if (!wp_local_is_file_url(url))
		return wp_fail(err, -WPE_USAGE, "'%s' is not a file:// URL", url);
	if (!strncasecmp(p, "localhost/", 10))
		p += 9;
	size_t n = strcspn(p, "?#");
	/* wp_url_decode refuses a %00, so the path is what the OS will open */
	if (*p != '/' || wp_url_decode(p, n, path, NULL) < 0) {
		return wp_fail(err, -WPE_USAGE, "'%s' is not a local file URL (file:///PATH)", url);
	}
	/* file:///C:/x names C:/x where a drive makes a path absolute (Windows); elsewhere "C:/x"
	 * is no absolute path and /C:/x stays as it is */
	char *q = *path;
	int d = q[1] | 0x20;
	if (d >= 'a' && d <= 'z' && q[2] == ':' && wp_os_path_is_abs(q + 1))
		memmove(q, q + 1, strlen(q));
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files of a folder, sorted (the page is then the same bytes for the same folder, and an
 * unchanged folder is recognised as unchanged), as a find-links page of absolute links. */
static int list_folder(const char *url, const char *path, struct wp_buf *body, struct wp_err *err)
{
	struct wp_os_dir *d = wp_os_opendir(path);
	if (!d)
		return wp_fail(err, -WPE_NET, "cannot read the folder '%s': %s", url,
			       strerror(errno));
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	const struct wp_os_dirent *e;
	/* the links are the folder's URL and a name, without the URL's query or fragment */
	char *base = wp_xstrndup(url, strcspn(url, "?#"));
	while ((e = wp_os_readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		struct wp_os_stat st;
		if (wp_os_fstatat(wp_os_dirfd(d), e->d_name, &st, 0) < 0 || !WP_S_ISREG(st.st_mode))
			continue;
		wp_vec_push_fields(names, n, cap, wp_xstrdup(e->d_name));
	}
	wp_os_closedir(d);
	if (n) /* qsort may not be given NULL, even for nothing */
		qsort(names, n, sizeof(*names), cmp_names);
	struct wp_buf href = WP_BUF_INIT, html = WP_BUF_INIT;
	if (wp_buf_addstr(body, "<!DOCTYPE html>\n<html><body>\n") < 0)
		rc = -WPE_TOO_BIG;
	for (size_t i = 0; i < n && !rc; i++) {
		/* percent-encoded: the href holds nothing HTML would need escaped */
		if (wp_url_join_segment_buf(base, names[i], &href) < 0) {
			rc = -WPE_TOO_BIG;
			break;
		}
		/* the link and its text, with the one character a percent-encoded segment keeps
		 * that HTML reads specially ('&') escaped */
		wp_buf_reset(&html);
		for (const char *h = wp_buf_cstr(&href); *h && !rc; h++)
			rc = *h == '&' ? wp_buf_addstr(&html, "&amp;") : wp_buf_addch(&html, *h);
		const char *h = wp_buf_cstr(&html);
		if (rc ||
		    wp_buf_printf(body, "<a href=\"%s\">%s</a><br>\n", h, strrchr(h, '/') + 1) < 0)
			rc = -WPE_TOO_BIG;
	}
	if (!rc && wp_buf_addstr(body, "</body></html>\n") < 0)
		rc = -WPE_TOO_BIG;
	if (rc)
		wp_fail(err, rc, "the folder '%s' lists more than %zu bytes of files", url,
			body->max);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	wp_buf_free(&href);
	wp_buf_free(&html);
	free(base);
	return rc;
}

/* The regular file that holds the page at url: *fd open on it, *file its path (the path, or a
 * folder's index.html); or, for a folder that lists its files, *fd -1, *is_folder set and *file
 * the folder's path. */
static int open_page(const char *url, char **file, int *fd, struct wp_os_stat *st,
		     bool *is_folder, struct wp_err *err)
{
	char *path = NULL;
	int rc;
	*is_folder = false;
	*fd = -1;
	*file = NULL;
	if ((rc = wp_local_path(url, &path, err)))
		return rc;
	/* WP_O_NONBLOCK: a FIFO opens at once and is refused below, instead of waiting for a
	 * writer */
	if ((*fd = wp_os_open(path, WP_O_RDONLY | WP_O_CLOEXEC | WP_O_NONBLOCK)) < 0 ||
	    wp_os_fstat(*fd, st) < 0) {
		rc = wp_fail(err, -WPE_NET, "cannot read '%s': %s", url, strerror(errno));
		goto out;
	}
	if (WP_S_ISDIR(st->st_mode)) {
		/* a project's folder in a PEP 503 tree on disk (DIR/simple/torch/): its index.html,
		 * as pip reads a file:// index; any other folder lists its files */
		size_t ul = strcspn(url, "?#");
		char *page = ul && url[ul - 1] == '/' ? wp_xasprintf("%s/index.html", path) : NULL;
		int pfd = page ? wp_os_open(page, WP_O_RDONLY | WP_O_CLOEXEC | WP_O_NONBLOCK) : -1;
		struct wp_os_stat pst;
		wp_os_close(*fd);
		*fd = -1;
		if (pfd >= 0 && wp_os_fstat(pfd, &pst) == 0 && WP_S_ISREG(pst.st_mode)) {
			*fd = pfd;
			*st = pst;
			free(path);
			path = page;
		} else {
			free(page);
			if (pfd >= 0)
				wp_os_close(pfd);
			*is_folder = true;
			*file = path;
			return 0;
		}
	}
	if (!WP_S_ISREG(st->st_mode)) {
		rc = wp_fail(err, -WPE_NET, "cannot read '%s': not a regular file", url);
		goto out;
	}
	*file = path;
	return 0;
out:
	if (*fd >= 0)
		wp_os_close(*fd);
	*fd = -1;
	free(path);
	return rc;
}

int wp_local_page_file(const char *url, char **file, bool *is_folder, unsigned long long *size,
		       struct wp_err *err)
{
	struct wp_os_stat st;
	int fd;
	int rc = open_page(url, file, &fd, &st, is_folder, err);
	if (rc)
		return rc;
	*size = 0;
	if (fd >= 0) {
		*size = (unsigned long long)st.st_size;
		wp_os_close(fd);
	}
	return 0;
}

int wp_local_read_page(const char *url, struct wp_buf *body, bool *is_folder, struct wp_err *err)
{
	char *file = NULL;
	int fd, rc;
	struct wp_os_stat st;
	if ((rc = open_page(url, &file, &fd, &st, is_folder, err)))
		return rc;
	if (*is_folder) {
		rc = list_folder(url, file, body, err);
		goto out;
	}
	if (body->max && (unsigned long long)st.st_size > body->max) {
		rc = wp_fail(err, -WPE_TOO_BIG, "'%s' is larger than %zu bytes", url, body->max);
		goto out;
	}
	int r = wp_buf_read_fd(body, fd);
	if (r == -1)
		rc = wp_fail(err, -WPE_NET, "cannot read '%s': %s", url, strerror(errno));
	else if (r == -2)
		rc = wp_fail(err, -WPE_TOO_BIG, "'%s' is larger than %zu bytes", url, body->max);
out:
	if (fd >= 0)
		wp_os_close(fd);
	free(file);
	return rc;
}
