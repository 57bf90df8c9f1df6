/* tests/fuzz/replay.c: runs a fuzz harness without libFuzzer: feeds every file named (or in a
 * directory named) to it. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#if defined(__SANITIZE_ADDRESS__)
#define WP_REPLAY_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WP_REPLAY_LSAN 1
#endif
#endif
#ifdef WP_REPLAY_LSAN
#include <sanitizer/lsan_interface.h>
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Checking for leaks after every input names the input that leaked, but costs ten times the
 * replay; by default LSan checks once at exit, and the runner replays again with
 * WP_REPLAY_LEAK_EACH=1 to name the input when that check fails. */
static int leak_each;

/* Prints "ok PATH" on stdout after each input, so the runner knows which one failed when
 * the process dies. */
static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: cannot open '%s': %s\n", path, strerror(errno));
		return -1;
	}
	size_t cap = 4096, len = 0;
	uint8_t *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
		len += got;
		if (len == cap) {
			uint8_t *nb = realloc(buf, cap * 2);
			if (!nb)
				free(buf);
			buf = nb;
			cap *= 2;
		}
	}
	int bad = !buf || ferror(f);
	fclose(f);
	if (bad) {
		fprintf(stderr, "replay: cannot read '%s'\n", path);
		free(buf);
		return -1;
	}
	/* an exactly-sized copy, so a read past the input's end is caught */
	uint8_t *exact = malloc(len ? len : 1);
	if (!exact) {
		free(buf);
		return -1;
	}
	if (len)
		memcpy(exact, buf, len);
	free(buf);
	fprintf(stderr, "replay: running '%s' (%zu bytes)\n", path, len);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
#ifdef WP_REPLAY_LSAN
	if (leak_each && __lsan_do_recoverable_leak_check()) {
		fprintf(stderr, "replay: '%s' leaked\n", path);
		return -1;
	}
#endif
	printf("ok %s\n", path);
	fflush(stdout);
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "replay: cannot open '%s': %s\n", dir, strerror(errno));
		return -1;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			char **nn = realloc(names, cap * sizeof(*names));
			if (!nn)
				abort();
			names = nn;
		}
		size_t need = strlen(dir) + strlen(e->d_name) + 2;
		names[n] = malloc(need);
		if (!names[n])
			abort();
		snprintf(names[n], need, "%s/%s", dir, e->d_name);
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct stat sb;
		if (stat(names[i], &sb) == 0 && S_ISREG(sb.st_mode))
			rc = replay_file(names[i]);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	const char *each = getenv("WP_REPLAY_LEAK_EACH");
	leak_each = each && *each && strcmp(each, "0") != 0;
	for (int i = 1; i < argc; i++) {
		struct stat sb;
		if (stat(argv[i], &sb) != 0) {
			fprintf(stderr, "replay: cannot open '%s': %s\n", argv[i], strerror(errno));
			return 1;
		}
		if ((S_ISDIR(sb.st_mode) ? replay_dir(argv[i]) : replay_file(argv[i])) != 0)
			return 1;
	}
	return 0;
}
