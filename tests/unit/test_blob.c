/* Read-once blobs: digests equal coreutils', the memfd is sealed, the bytes
 * kept are the bytes read even if the source changes, caps, streaming. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "blob.h"
#include "io.h"
#include "t.h"

static int tool_hex(const char *tool, const char *file, char *out)
{
	char cmd[4200];
	FILE *p;
	int ok;

	snprintf(cmd, sizeof(cmd), "%s '%s' 2>/dev/null", tool, file);
	if (!(p = popen(cmd, "r")))
		return -1;
	ok = fscanf(p, "%200s", out) == 1;
	pclose(p);
	return ok ? 0 : -1;
}

static int mktmp(char *path, size_t n)
{
	snprintf(path, n, "/tmp/lboot-test-blob-XXXXXX");
	return mkstemp(path);
}

int main(void)
{
	const unsigned mask = LB_HASH_BIT(LB_SHA256) | LB_HASH_BIT(LB_BLAKE2B);
	char path[64], hex[129], want[201];
	uint8_t *data = malloc(3u << 20);
	int fd;

	if (!data)
		return 1;
	for (size_t i = 0; i < (3u << 20); i++)
		data[i] = (uint8_t)(i * 2654435761u >> 13);
	fd = mktmp(path, sizeof(path));
	if (fd < 0 || lb_write_all(fd, data, (3u << 20) - 7)) {
		printf("not ok blob/setup\n");
		return 1;
	}
	close(fd);
	const size_t flen = (3u << 20) - 7; /* not a multiple of the read size */

	TEST("blob/from-fd-digests-vs-coreutils") {
		struct lb_blob b;
		int in = open(path, O_RDONLY | O_CLOEXEC);
		CHECK(in >= 0);
		CHECK_INT(lb_blob_from_fd(in, 16u << 20, mask, &b), 0);
		close(in);
		CHECK_INT(b.size, flen);
		CHECK(b.sealed);
		lb_hex(b.dig.d[LB_SHA256], 32, hex);
		CHECK_INT(tool_hex("sha256sum", path, want), 0);
		CHECK_STR(hex, want);
		lb_hex(b.dig.d[LB_BLAKE2B], 64, hex);
		CHECK_INT(tool_hex("b2sum", path, want), 0);
		CHECK_STR(hex, want);
		lb_blob_free(&b);
	}
	TEST("blob/sealed") {
		struct lb_blob b;
		int in = open(path, O_RDONLY | O_CLOEXEC);
		const uint8_t *m;
		CHECK_INT(lb_blob_from_fd(in, 16u << 20, mask, &b), 0);
		close(in);
		errno = 0;
		CHECK(write(b.fd, "x", 1) < 0 && errno == EPERM);
		errno = 0;
		CHECK(pwrite(b.fd, "x", 1, 0) < 0 && errno == EPERM);
		errno = 0;
		CHECK(ftruncate(b.fd, 10) < 0 && errno == EPERM);
		errno = 0;
		CHECK(ftruncate(b.fd, (off_t)flen + 4096) < 0 && errno == EPERM);
		errno = 0;
		CHECK(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, b.fd, 0) == MAP_FAILED &&
		      errno == EPERM);
		errno = 0;
		CHECK(fcntl(b.fd, 1033 /* F_ADD_SEALS */, 0) < 0 && errno == EPERM);
		/* and further writes through the API are refused */
		CHECK_INT(lb_blob_write(&b, "x", 1), -EBADF);
		CHECK_INT(lb_blob_map(&b, &m), 0);
		CHECK(!memcmp(m, data, flen));
		lb_blob_free(&b);
		lb_blob_free(&b); /* twice is harmless */
	}
	TEST("blob/source-changes-afterwards") {
		struct lb_blob b;
		const uint8_t *m;
		uint8_t got[4096];
		int in = open(path, O_RDONLY | O_CLOEXEC);
		CHECK_INT(lb_blob_from_fd(in, 16u << 20, mask, &b), 0);
		close(in);
		/* rewrite the source file's start and end in place */
		int w = open(path, O_WRONLY | O_CLOEXEC);
		CHECK(w >= 0);
		memset(got, 0xee, sizeof(got));
		CHECK_INT(pwrite(w, got, sizeof(got), 0), sizeof(got));
		CHECK_INT(pwrite(w, got, sizeof(got), (off_t)flen - sizeof(got)), sizeof(got));
		close(w);
		CHECK_INT(lb_blob_map(&b, &m), 0);
		CHECK(!memcmp(m, data, flen));
		CHECK_INT(pread(b.fd, got, sizeof(got), 0), sizeof(got));
		CHECK(!memcmp(got, data, sizeof(got)));
		struct lb_digests d;
		lb_hash_buf(mask, data, flen, &d);
		CHECK(!memcmp(d.d[LB_SHA256], b.dig.d[LB_SHA256], 32));
		lb_blob_free(&b);
		/* restore the file for the next tests */
		w = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		CHECK(w >= 0 && lb_write_all(w, data, flen) == 0);
		close(w);
	}
	TEST("blob/cap") {
		struct lb_blob b;
		int in = open(path, O_RDONLY | O_CLOEXEC);
		CHECK_INT(lb_blob_from_fd(in, flen - 1, mask, &b), -EFBIG);
		CHECK_INT(b.fd, -1);
		CHECK_INT(lseek(in, 0, SEEK_SET), 0);
		CHECK_INT(lb_blob_from_fd(in, flen, mask, &b), 0); /* exactly the cap */
		lb_blob_free(&b);
		close(in);
		CHECK_INT(lb_blob_begin(&b, 10, mask), 0);
		CHECK_INT(lb_blob_write(&b, "0123456789", 10), 0);
		CHECK_INT(lb_blob_write(&b, "x", 1), -EFBIG);
		CHECK_INT(lb_blob_write(&b, "x", (size_t)-1), -EFBIG);
		lb_blob_free(&b);
	}
	TEST("blob/stream-pieces") {
		/* a pipe fed in odd pieces (as a socket would) */
		struct lb_blob b, s;
		CHECK_INT(lb_blob_begin(&s, 16u << 20, LB_HASH_ALL), 0);
		for (size_t off = 0; off < flen;) {
			size_t n = 1 + (off * 31 % 70001);
			if (n > flen - off)
				n = flen - off;
			CHECK_INT(lb_blob_write(&s, data + off, n), 0);
			off += n;
		}
		CHECK_INT(lb_blob_end(&s), 0);
		CHECK_INT(lb_blob_end(&s), -EBADF);
		int p[2];
		CHECK(pipe(p) == 0);
		pid_t pid = fork();
		if (pid == 0) {
			close(p[0]);
			lb_write_all(p[1], data, flen);
			_exit(0);
		}
		close(p[1]);
		CHECK_INT(lb_blob_from_fd(p[0], 16u << 20, LB_HASH_ALL, &b), 0);
		close(p[0]);
		while (wait(NULL) < 0 && errno == EINTR)
			;
		CHECK_INT(b.size, flen);
		CHECK(!memcmp(&b.dig, &s.dig, sizeof(b.dig)));
		lb_blob_free(&b);
		lb_blob_free(&s);
	}
	TEST("blob/patch-in-place-then-rehash") {
		struct lb_blob b;
		struct lb_digests d;
		unsigned pm = LB_HASH_BIT(LB_SHA256) | LB_HASH_BIT(LB_SHA1);
		char got[16];

		CHECK_INT(lb_blob_begin(&b, 1 << 20, pm), 0);
		CHECK_INT(lb_blob_write(&b, "0000-payload", 12), 0);
		/* only inside what was written, only before the end */
		CHECK_INT(lb_blob_patch(&b, 10, "xyz", 3), -EINVAL);
		CHECK_INT(lb_blob_patch(&b, 13, "", 0), -EINVAL);
		CHECK_INT(lb_blob_patch(&b, 0, "HDR!", 4), 0);
		CHECK(b.patched);
		CHECK_INT(lb_blob_end(&b), 0);
		CHECK_INT(lb_blob_patch(&b, 0, "X", 1), -EBADF);
		CHECK_INT(pread(b.fd, got, sizeof(got), 0), 12);
		CHECK(!memcmp(got, "HDR!-payload", 12));
		/* the streamed digests saw "0000": stale until rehashed */
		lb_hash_buf(pm, "HDR!-payload", 12, &d);
		CHECK(memcmp(b.dig.d[LB_SHA256], d.d[LB_SHA256], 32) != 0);
		CHECK_INT(lb_blob_rehash(&b), 0);
		CHECK(!b.patched);
		CHECK_INT(b.dig.mask, pm);
		CHECK(!memcmp(b.dig.d[LB_SHA256], d.d[LB_SHA256], 32));
		CHECK(!memcmp(b.dig.d[LB_SHA1], d.d[LB_SHA1], 20));
		lb_blob_free(&b);
	}
	TEST("blob/empty") {
		struct lb_blob b;
		const uint8_t *m = NULL;
		CHECK_INT(lb_blob_begin(&b, 0, mask), 0);
		CHECK_INT(lb_blob_write(&b, "", 0), 0);
		CHECK_INT(lb_blob_map(&b, &m), -EBADF); /* not sealed yet */
		CHECK_INT(lb_blob_end(&b), 0);
		CHECK_INT(lb_blob_map(&b, &m), 0);
		CHECK(m != NULL);
		lb_hex(b.dig.d[LB_SHA256], 32, hex);
		CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
		lb_blob_free(&b);
	}
	TEST("blob/bad-mask") {
		struct lb_blob b;
		CHECK_INT(lb_blob_begin(&b, 10, 1u << 20), -EINVAL);
		CHECK_INT(b.fd, -1);
		lb_blob_free(&b);
	}
	TEST("blob/no-digests") {
		struct lb_blob b;
		CHECK_INT(lb_blob_begin(&b, 10, 0), 0);
		CHECK_INT(lb_blob_write(&b, "abc", 3), 0);
		CHECK_INT(lb_blob_end(&b), 0);
		CHECK_INT(b.dig.mask, 0);
		CHECK_INT(b.size, 3);
		lb_blob_free(&b);
	}
	TEST("blob/read-error") {
		struct lb_blob b;
		int dfd = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		CHECK_INT(lb_blob_from_fd(dfd, 10, mask, &b), -EISDIR);
		close(dfd);
	}
	unlink(path);
	free(data);
	return t_done();
}
