/* bench/floor.c: the single-process floor under case 1's job on a deflated wheel: what any tool
 * that fetches and proves a wheel must at least do, written as plainly and as fast as this machine
 * allows, so that wheelpick's time can be read against it.
 *
 *   floor http://127.0.0.1:PORT/PATH OUT
 *
 * One HTTP/1.0 GET over a plain socket (no library to load), each block written to OUT and
 * through sha256 as it arrives (the file's hash); then every member inflated (ISA-L, the fastest
 * inflater here) and hashed on one thread per core, from the zip's own offsets, while another
 * thread fsyncs OUT.
 * Prints the file's sha256 and the number of members. No checks beyond what costs the same time
 * (the bytes are hashed; nothing is compared): a floor, not a verifier. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <isa-l/igzip_lib.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static const unsigned char *zip;
static size_t zip_len, cd_off, n_members, next_member;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static size_t *offs; /* each member's central directory entry */

static uint32_t le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint16_t le16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void *inflater(void *arg)
{
	(void)arg;
	enum { OUT = 256 << 10 };
	struct inflate_state *st = malloc(sizeof(*st));
	unsigned char *out = malloc(OUT);
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	unsigned char md[32];
	for (;;) {
		pthread_mutex_lock(&mu);
		size_t i = next_member++;
		pthread_mutex_unlock(&mu);
		if (i >= n_members)
			break;
		const unsigned char *e = zip + offs[i], *lh = zip + le32(e + 42);
		size_t cs = le32(e + 20);
		const unsigned char *data = lh + 30 + le16(lh + 26) + le16(lh + 28);
		EVP_DigestInit_ex(c, EVP_sha256(), NULL);
		if (le16(e + 10) == 8) {
			isal_inflate_init(st);
			st->next_in = (uint8_t *)data;
			st->avail_in = (uint32_t)cs;
			do {
				st->next_out = out;
				st->avail_out = OUT;
				if (isal_inflate(st) < 0)
					fprintf(stderr, "floor: member %zu does not inflate\n", i),
						exit(1);
				EVP_DigestUpdate(c, out, OUT - st->avail_out);
			} while (st->block_state != ISAL_BLOCK_FINISH);
		} else {
			EVP_DigestUpdate(c, data, cs);
		}
		EVP_DigestFinal_ex(c, md, NULL);
	}
	EVP_MD_CTX_free(c);
	free(out);
	free(st);
	return NULL;
}

static void *syncer(void *arg)
{
	if (fsync(*(int *)arg) < 0)
		die("fsync");
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 3 || strncmp(argv[1], "http://", 7) != 0)
		return fprintf(stderr, "usage: floor http://HOST:PORT/PATH OUT\n"), 2;
	char host[64];
	int port = 80;
	const char *h = argv[1] + 7, *path = strchr(h, '/');
	if (!path || (size_t)(path - h) >= sizeof(host))
		return 2;
	memcpy(host, h, (size_t)(path - h));
	host[path - h] = 0;
	char *colon = strchr(host, ':');
	if (colon)
		*colon = 0, port = (int)strtol(colon + 1, NULL, 10);
	int s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	inet_pton(AF_INET, host, &sa.sin_addr);
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("connect");
	char req[4096];
	int rn = snprintf(req, sizeof(req), "GET %s HTTP/1.0\r\nHost: %s\r\n\r\n", path, host);
	if (write(s, req, (size_t)rn) != rn)
		die("send");
	int fd = open(argv[2], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die(argv[2]);
	enum { BLOCK = 1 << 20 };
	unsigned char *buf = malloc(BLOCK);
	EVP_MD_CTX *fh = EVP_MD_CTX_new();
	EVP_DigestInit_ex(fh, EVP_sha256(), NULL);
	size_t have = 0;
	int in_body = 0;
	for (;;) {
		ssize_t k = read(s, buf + have, BLOCK - have);
		if (k < 0)
			die("recv");
		have += (size_t)k;
		if (!in_body) {
			unsigned char *end = memmem(buf, have, "\r\n\r\n", 4);
			if (!end && k)
				continue;
			if (!end || have < 12 || memcmp(buf, "HTTP/1.", 7) != 0 ||
			    memcmp(buf + 8, " 200", 4) != 0)
				return fprintf(stderr, "floor: not a 200 response\n"), 1;
			size_t hl = (size_t)(end + 4 - buf);
			memmove(buf, buf + hl, have - hl);
			have -= hl;
			in_body = 1;
		}
		if (have == BLOCK || (k == 0 && have)) {
			if (write(fd, buf, have) != (ssize_t)have)
				die("write");
			EVP_DigestUpdate(fh, buf, have);
			have = 0;
		}
		if (k == 0)
			break;
	}
	close(s);
	unsigned char md[32];
	EVP_DigestFinal_ex(fh, md, NULL);
	struct stat sb;
	fstat(fd, &sb);
	zip_len = (size_t)sb.st_size;
	zip = mmap(NULL, zip_len, PROT_READ, MAP_SHARED, fd, 0);
	if (zip == MAP_FAILED || zip_len < 22)
		die("mmap");
	size_t e = zip_len - 22;
	while (e && le32(zip + e) != 0x06054b50)
		e--;
	cd_off = le32(zip + e + 16);
	n_members = le16(zip + e + 10);
	offs = malloc(n_members * sizeof(*offs));
	for (size_t i = 0, p = cd_off; i < n_members; i++) {
		offs[i] = p;
		p += 46 + le16(zip + p + 28) + le16(zip + p + 30) + le16(zip + p + 32);
	}
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	pthread_t th[64], st;
	int nth = ncpu < 1 ? 1 : ncpu > 64 ? 64 : (int)ncpu;
	pthread_create(&st, NULL, syncer, &fd);
	for (int i = 0; i < nth; i++)
		pthread_create(&th[i], NULL, inflater, NULL);
	for (int i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	pthread_join(st, NULL);
	for (int i = 0; i < 32; i++)
		printf("%02x", md[i]);
	printf(" %zu\n", n_members);
	return 0;
}
