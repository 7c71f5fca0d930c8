/* newc cpio reader/writer, compression, initramfs builder and walker. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpio.h"
#include "compress.h"
#include "mkinitramfs.h"
#include "t.h"

static struct lb_cpio_buf new_buf(void)
{
	struct lb_cpio_buf b = { .max = 64u << 20 };
	return b;
}

/* Read all members; returns the count or the first error. */
static int count_all(const void *buf, size_t len)
{
	struct lb_cpio_reader r;
	struct lb_cpio_entry e;
	int rc, n = 0;

	lb_cpio_reader_init(&r, buf, len, 0);
	while ((rc = lb_cpio_next(&r, &e)) > 0)
		n++;
	return rc < 0 ? rc : n;
}

static void put_field(uint8_t *hdr, int field, uint32_t v)
{
	char tmp[9];
	snprintf(tmp, sizeof(tmp), "%08X", v);
	memcpy(hdr + 6 + 8 * field, tmp, 8);
}

/* A small archive: dir, file, symlink, char device. */
static void make_small(struct lb_cpio_buf *b)
{
	struct lb_cpio_writer w;
	struct lb_cpio_entry e[] = {
		{ .name = "d", .ino = 1, .mode = S_IFDIR | 0755, .nlink = 2 },
		{ .name = "d/f", .ino = 2, .mode = S_IFREG | 0644, .nlink = 1,
		  .filesize = 5, .data = (const uint8_t *)"hello" },
		{ .name = "d/l", .ino = 3, .mode = S_IFLNK | 0777, .nlink = 1,
		  .filesize = 1, .data = (const uint8_t *)"f" },
		{ .name = "console", .ino = 4, .mode = S_IFCHR | 0600, .nlink = 1,
		  .rdevmajor = 5, .rdevminor = 1 },
	};

	*b = new_buf();
	lb_cpio_writer_init(&w, lb_cpio_buf_write, b);
	for (size_t i = 0; i < sizeof(e) / sizeof(e[0]); i++)
		lb_cpio_write_entry(&w, &e[i]);
	lb_cpio_write_trailer(&w, 512);
}

static int mkfile(const char *path, const char *s, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	if (fd < 0)
		return -1;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s)) {
		close(fd);
		return -1;
	}
	fchmod(fd, mode);
	return close(fd);
}

struct names {
	char v[64][64];
	int n;
};

static int collect(void *ctx, const struct lb_cpio_entry *e)
{
	struct names *n = ctx;
	if (n->n < 64)
		snprintf(n->v[n->n++], 64, "%s", e->name);
	return 0;
}

int main(void)
{
	TEST("cpio exact byte layout") {
		struct lb_cpio_buf b = new_buf();
		struct lb_cpio_writer w;
		struct lb_cpio_entry e = {
			.name = "a", .ino = 1, .mode = S_IFREG | 0644, .nlink = 1,
			.mtime = 0x12345678, .filesize = 3, .data = (const uint8_t *)"hi\n",
			.devmajor = 0xab, .rdevminor = 0xcd,
		};
		const char *hdr =
			"070701" "00000001" "000081A4" "00000000" "00000000"
			"00000001" "12345678" "00000003" "000000AB" "00000000"
			"00000000" "000000CD" "00000002" "00000000";
		const char *trl =
			"070701" "00000000" "00000000" "00000000" "00000000"
			"00000001" "00000000" "00000000" "00000000" "00000000"
			"00000000" "00000000" "0000000B" "00000000";
		lb_cpio_writer_init(&w, lb_cpio_buf_write, &b);
		CHECK_INT(lb_cpio_write_entry(&w, &e), 0);
		CHECK_INT(b.len, 116); /* 110 + "a\0" = 112, data 3 + pad 1 */
		CHECK(!memcmp(b.p, hdr, 110));
		CHECK(!memcmp(b.p + 110, "a\0hi\n\0", 6));
		CHECK_INT(lb_cpio_write_trailer(&w, 512), 0);
		CHECK_INT(b.len, 512);
		CHECK_INT(w.off, 512);
		CHECK(!memcmp(b.p + 116, trl, 110));
		CHECK(!memcmp(b.p + 226, "TRAILER!!!\0", 11));
		int zero = 1;
		for (size_t i = 237; i < 512; i++)
			zero &= !b.p[i];
		CHECK(zero);
		lb_cpio_buf_free(&b);
	}
	TEST("cpio alignment and padding") {
		struct lb_cpio_buf b = new_buf();
		struct lb_cpio_writer w;
		char name[16];
		lb_cpio_writer_init(&w, lb_cpio_buf_write, &b);
		for (int nl = 1; nl <= 8; nl++)
			for (int sz = 0; sz <= 7; sz++) {
				struct lb_cpio_entry e = { .name = name, .mode = S_IFREG | 0600,
					.filesize = (uint32_t)sz, .data = (const uint8_t *)"abcdefgh" };
				memset(name, 'a' + sz, (size_t)nl);
				name[nl] = 0;
				CHECK(w.off % 4 == 0);
				CHECK_INT(lb_cpio_write_entry(&w, &e), 0);
				CHECK(w.off % 4 == 0);
			}
		CHECK_INT(lb_cpio_write_trailer(&w, 0), 0);
		CHECK(b.len % 4 == 0 && b.len % 512 != 0);
		struct lb_cpio_reader r;
		struct lb_cpio_entry e;
		int n = 0, bad = 0;
		lb_cpio_reader_init(&r, b.p, b.len, 0);
		while (lb_cpio_next(&r, &e) > 0) {
			int nl = n / 8 + 1, sz = n % 8;
			bad |= e.offset % 4 != 0 || (int)strlen(e.name) != nl ||
			       (int)e.filesize != sz || memcmp(e.data, "abcdefgh", (size_t)sz) ||
			       (size_t)(e.data - b.p) % 4 != 0;
			n++;
		}
		CHECK_INT(n, 64);
		CHECK(!bad);
		CHECK_INT(r.off, b.len);
		lb_cpio_buf_free(&b);
	}
	TEST("cpio round trip") {
		struct lb_cpio_buf b;
		struct lb_cpio_reader r;
		struct lb_cpio_entry e;
		make_small(&b);
		lb_cpio_reader_init(&r, b.p, b.len, 0);
		CHECK_INT(lb_cpio_next(&r, &e), 1);
		CHECK_STR(e.name, "d");
		CHECK_INT(e.mode, S_IFDIR | 0755);
		CHECK_INT(e.nlink, 2);
		CHECK_INT(lb_cpio_next(&r, &e), 1);
		CHECK_STR(e.name, "d/f");
		CHECK_INT(e.filesize, 5);
		CHECK(!memcmp(e.data, "hello", 5));
		CHECK_INT(e.ino, 2);
		CHECK_INT(lb_cpio_next(&r, &e), 1);
		CHECK_STR(e.name, "d/l");
		CHECK_INT(e.mode & S_IFMT, S_IFLNK);
		CHECK(e.filesize == 1 && e.data[0] == 'f');
		CHECK_INT(lb_cpio_next(&r, &e), 1);
		CHECK_STR(e.name, "console");
		CHECK_INT(e.rdevmajor, 5);
		CHECK_INT(e.rdevminor, 1);
		CHECK_INT(lb_cpio_next(&r, &e), 0);
		CHECK_INT(r.archives, 1);
		CHECK_INT(r.off, b.len);
		CHECK_INT(lb_cpio_next(&r, &e), 0);
		lb_cpio_buf_free(&b);
	}
	TEST("cpio rejects truncation at every length") {
		struct lb_cpio_buf b;
		int bad = 0;
		make_small(&b);
		/* the trailer's name ends at some offset < 512; up to its padded end
		 * every cut must be an error, after it all four members read */
		size_t end = 0;
		struct lb_cpio_reader r;
		struct lb_cpio_entry e;
		lb_cpio_reader_init(&r, b.p, b.len, 0);
		while (lb_cpio_next(&r, &e) > 0)
			end = r.off;
		end += LB_CPIO_HDR_LEN + 11;
		end += (4 - end % 4) % 4;
		for (size_t cut = 1; cut < b.len; cut++) {
			uint8_t *p = malloc(cut);
			memcpy(p, b.p, cut);
			int rc = count_all(p, cut);
			if (cut < end ? rc != -EBADMSG : rc != 4) {
				printf("# cut %zu: %d\n", cut, rc);
				bad = 1;
			}
			free(p);
		}
		CHECK(!bad);
		CHECK_INT(count_all(b.p, 0), 0);
		lb_cpio_buf_free(&b);
	}
	TEST("cpio rejects corrupt headers") {
		struct lb_cpio_buf b;
		make_small(&b);
		uint8_t *p = malloc(b.len);
		/* second member "d/f" starts at 112+4=116? compute from a reader */
		struct lb_cpio_reader r;
		struct lb_cpio_entry e;
		lb_cpio_reader_init(&r, b.p, b.len, 0);
		lb_cpio_next(&r, &e);
		lb_cpio_next(&r, &e);
		size_t f = e.offset;   /* header of d/f */
		CHECK_INT(f, 112);
#define CORRUPT(stmt, want) do { memcpy(p, b.p, b.len); stmt; \
		CHECK_INT(count_all(p, b.len), want); } while (0)
		CORRUPT(p[0] = 'X', -EINVAL);                       /* magic */
		CORRUPT(memcpy(p + f, "070703", 6), -EINVAL);
		CORRUPT(memcpy(p + f, "070707", 6), -EINVAL);       /* odc */
		CORRUPT(p[f + 6 + 8 + 3] = 'G', -EINVAL);           /* hex digit */
		CORRUPT(p[f + 6 + 8 * 6 + 7] = ' ', -EINVAL);
		CORRUPT(put_field(p + f, 11, 0), -EINVAL);          /* namesize 0 */
		CORRUPT((put_field(p + f, 11, 1), p[f + 110] = 0), -EINVAL); /* "" */
		CORRUPT(put_field(p + f, 11, 5000), -EINVAL);       /* > 4096 */
		CORRUPT(put_field(p + f, 11, 3), -EINVAL);          /* no NUL */
		CORRUPT(p[f + 110 + 1] = 0, -EINVAL);               /* embedded NUL */
		CORRUPT(put_field(p + f, 6, 0x7fffffff), -EBADMSG); /* size */
		CORRUPT(put_field(p + f, 6, 0xffffffff), -EBADMSG);
		CORRUPT(put_field(p + f, 1, 0644), -EINVAL);        /* no type */
		CORRUPT(put_field(p + f, 1, 0170644), -EINVAL);     /* bad type */
		CORRUPT(put_field(p, 6, 4), -EINVAL);               /* dir size */
		CORRUPT(put_field(p + f, 1, S_IFLNK | 0777), 4);    /* 5-byte link ok */
		CORRUPT((put_field(p + f, 1, S_IFLNK | 0777), put_field(p + f, 6, 0)),
			-EINVAL);                                   /* empty link */
		CORRUPT(memcpy(p + f, "070702", 6), -EBADMSG);      /* check 0 */
		CORRUPT((memcpy(p + f, "070702", 6),
			 put_field(p + f, 12, 'h' + 'e' + 'l' + 'l' + 'o')), 4);
		free(p);
		/* a second archive must start 4-aligned */
		size_t L = b.len;
		CHECK_INT(L, 1024);
		uint8_t *two = calloc(1, 2 * L + 8);
		memcpy(two, b.p, L);
		memcpy(two + L + 1, b.p, L);
		CHECK_INT(count_all(two, 2 * L + 1), -EBADMSG);
		memmove(two + L + 4, two + L + 1, L);
		memset(two + L, 0, 4);
		CHECK_INT(count_all(two, 2 * L + 4), 8);
		/* non-cpio data after a trailer ends the sequence there */
		struct lb_cpio_reader r2;
		two[L + 2] = 0xfd;
		lb_cpio_reader_init(&r2, two, 2 * L + 4, 0);
		while (lb_cpio_next(&r2, &e) > 0)
			;
		CHECK_INT(lb_cpio_next(&r2, &e), 0);
		CHECK_INT(r2.off, L + 2);
		CHECK_INT(r2.archives, 1);
		free(two);
		lb_cpio_buf_free(&b);
	}
	TEST("cpio reader errors are sticky and bounded") {
		struct lb_cpio_reader r;
		struct lb_cpio_entry e;
		const char junk[] = "0707010000";
		lb_cpio_reader_init(&r, junk, sizeof(junk) - 1, 0);
		CHECK_INT(lb_cpio_next(&r, &e), -EBADMSG);
		CHECK_INT(lb_cpio_next(&r, &e), -EBADMSG);
		lb_cpio_reader_init(&r, "0x", 2, 0);
		CHECK_INT(lb_cpio_next(&r, &e), -EINVAL);
		lb_cpio_reader_init(&r, "07", 2, 0);
		CHECK_INT(lb_cpio_next(&r, &e), -EBADMSG);
		/* non-cpio after zeros: 0, pointing at it */
		lb_cpio_reader_init(&r, "\0\0\0\0\xfd" "7zXZ", 9, 0);
		CHECK_INT(lb_cpio_next(&r, &e), -EINVAL);
		lb_cpio_reader_init(&r, "\0\0\0\0", 4, 0);
		CHECK_INT(lb_cpio_next(&r, &e), 0);
	}
	TEST("cpio writer rejects bad entries") {
		struct lb_cpio_buf b = new_buf();
		struct lb_cpio_writer w;
		char longname[LB_CPIO_MAX_NAME + 1];
		memset(longname, 'x', sizeof(longname) - 1);
		longname[sizeof(longname) - 1] = 0;
		lb_cpio_writer_init(&w, lb_cpio_buf_write, &b);
		struct lb_cpio_entry e = { .name = "", .mode = S_IFREG };
		CHECK_INT(lb_cpio_write_entry(&w, &e), -EINVAL);
		e.name = longname;
		CHECK_INT(lb_cpio_write_entry(&w, &e), -EINVAL);
		longname[LB_CPIO_MAX_NAME - 1] = 0; /* 4095 chars + NUL: fits */
		CHECK_INT(lb_cpio_write_entry(&w, &e), 0);
		e.name = "x";
		e.filesize = 3;
		CHECK_INT(lb_cpio_write_entry(&w, &e), -EINVAL); /* no data */
		e.mode = S_IFDIR | 0755;
		e.data = (const uint8_t *)"abc";
		CHECK_INT(lb_cpio_write_entry(&w, &e), -EINVAL);
		struct lb_cpio_buf small = { .max = 100 };
		lb_cpio_writer_init(&w, lb_cpio_buf_write, &small);
		e.mode = S_IFREG;
		CHECK_INT(lb_cpio_write_entry(&w, &e), -EFBIG);
		lb_cpio_buf_free(&small);
		lb_cpio_buf_free(&b);
	}
	TEST("cpio safe paths") {
		char out[16];
		CHECK_INT(lb_cpio_safe_path("a/./b//c/", out, sizeof(out)), 0);
		CHECK_STR(out, "a/b/c");
		CHECK_INT(lb_cpio_safe_path(".", out, sizeof(out)), 0);
		CHECK_STR(out, "");
		CHECK_INT(lb_cpio_safe_path("./init", out, sizeof(out)), 0);
		CHECK_STR(out, "init");
		CHECK_INT(lb_cpio_safe_path("/etc/passwd", out, sizeof(out)), -EINVAL);
		CHECK_INT(lb_cpio_safe_path("a/../../x", out, sizeof(out)), -EINVAL);
		CHECK_INT(lb_cpio_safe_path("..", out, sizeof(out)), -EINVAL);
		CHECK_INT(lb_cpio_safe_path("a/..b", out, sizeof(out)), 0);
		CHECK_STR(out, "a/..b");
		CHECK_INT(lb_cpio_safe_path("0123456789abcdef", out, sizeof(out)), -ENAMETOOLONG);
		CHECK_INT(lb_cpio_safe_path("0123456789abcde", out, sizeof(out)), 0);
	}
	TEST("compress xz crc32 and gzip round trip") {
		static uint8_t in[200000];
		for (size_t i = 0; i < sizeof(in); i++)
			in[i] = (uint8_t)(i * 7 / 13);
		enum lb_comp cs[] = { LB_COMP_XZ, LB_COMP_GZIP, LB_COMP_NONE };
		for (size_t k = 0; k < 3; k++) {
			uint8_t *z, *out, *z2;
			size_t zlen, olen, used, z2len;
			CHECK_INT(lb_compress(cs[k], in, sizeof(in), &z, &zlen), 0);
			CHECK(cs[k] == LB_COMP_NONE ? zlen == sizeof(in) : zlen < sizeof(in) / 4);
			if (cs[k] == LB_COMP_XZ) {
				CHECK(!memcmp(z, "\xfd" "7zXZ\0\0\x01", 8)); /* flags: CRC32 */
				CHECK(!memcmp(z + zlen - 2, "YZ", 2));
			}
			CHECK_INT(lb_compress(cs[k], in, sizeof(in), &z2, &z2len), 0);
			CHECK(zlen == z2len && !memcmp(z, z2, zlen)); /* deterministic */
			free(z2);
			if (cs[k] == LB_COMP_NONE) {
				CHECK_INT(lb_decompress(z, zlen, 1 << 20, &out, &olen, &used), -EINVAL);
				free(z);
				continue;
			}
			CHECK_INT(lb_comp_detect(z, zlen), cs[k]);
			/* with trailing data: consumed stops at the stream end */
			uint8_t *zz = malloc(zlen + 8);
			memcpy(zz, z, zlen);
			memcpy(zz + zlen, "07070100", 8);
			CHECK_INT(lb_decompress(zz, zlen + 8, 1 << 20, &out, &olen, &used), 0);
			CHECK_INT(olen, sizeof(in));
			CHECK_INT(used, zlen);
			CHECK(!memcmp(out, in, sizeof(in)));
			free(out);
			CHECK_INT(lb_decompress(z, zlen, sizeof(in), &out, &olen, &used), 0);
			free(out);
			CHECK_INT(lb_decompress(z, zlen, sizeof(in) - 1, &out, &olen, &used), -EFBIG);
			CHECK_INT(lb_decompress(z, zlen / 2, 1 << 20, &out, &olen, &used), -EBADMSG);
			zz[zlen / 2] ^= 0x55;
			CHECK_INT(lb_decompress(zz, zlen, 1 << 20, &out, &olen, &used), -EBADMSG);
			free(zz);
			free(z);
		}
		uint8_t *out;
		size_t olen, used;
		CHECK_INT(lb_decompress("\x28\xb5\x2f\xfd....", 8, 100, &out, &olen, &used),
			  -EOPNOTSUPP);
		CHECK_INT(lb_decompress("hello", 5, 100, &out, &olen, &used), -EINVAL);
		enum lb_comp c;
		CHECK_INT(lb_comp_parse("gzip", &c), 0);
		CHECK_INT(c, LB_COMP_GZIP);
		CHECK_INT(lb_comp_parse("zstd", &c), -EINVAL);
	}
	TEST("initramfs tree rules") {
		struct lb_initramfs *r;
		CHECK_INT(lb_initramfs_new(&r, 0), 0);
		CHECK_INT(lb_initramfs_add_file(r, "/a/b/c", 0644, "x", 1), 0);
		CHECK(lb_initramfs_has(r, "a") && lb_initramfs_has(r, "/a/b"));
		CHECK_INT(lb_initramfs_count(r), 3);
		CHECK_INT(lb_initramfs_add_dir(r, "a/b", 0700), 0);      /* merge */
		CHECK_INT(lb_initramfs_add_dir(r, "a/b/c", 0700), -EEXIST);
		CHECK_INT(lb_initramfs_add_symlink(r, "a/b/c", "x"), -EEXIST);
		CHECK_INT(lb_initramfs_add_file(r, "a/b/c/d", 0644, "x", 1), -ENOTDIR);
		CHECK_INT(lb_initramfs_add_file(r, "a/../x", 0644, "x", 1), -EINVAL);
		CHECK_INT(lb_initramfs_add_file(r, "/", 0644, "x", 1), -EINVAL);
		CHECK_INT(lb_initramfs_add_symlink(r, "l", ""), -EINVAL);
		CHECK_INT(lb_initramfs_add_node(r, "n", S_IFREG, 0, 0, 0), -EINVAL);
		CHECK_INT(lb_initramfs_add_dir(r, "a/c", 0755), 0);
		CHECK_INT(lb_initramfs_add_node(r, "a-b", S_IFIFO, 0600, 0, 0), 0);
		struct lb_cpio_buf b = new_buf();
		struct lb_cpio_writer w;
		lb_cpio_writer_init(&w, lb_cpio_buf_write, &b);
		CHECK_INT(lb_initramfs_write(r, &w), 0);
		const char *want[] = { "a", "a-b", "a/b", "a/b/c", "a/c" };
		const uint32_t nlink[] = { 4, 1, 2, 1, 2 };
		struct lb_cpio_reader rd;
		struct lb_cpio_entry e;
		int i = 0, bad = 0;
		lb_cpio_reader_init(&rd, b.p, b.len, 0);
		while (lb_cpio_next(&rd, &e) > 0) {
			bad |= i >= 5 || strcmp(e.name, want[i]) || e.ino != (uint32_t)i + 1 ||
			       e.nlink != nlink[i] || e.uid || e.gid || e.mtime;
			i++;
		}
		CHECK_INT(i, 5);
		CHECK(!bad);
		CHECK_INT(b.len % 512, 0);
		lb_cpio_buf_free(&b);
		lb_initramfs_free(r);
	}

	char tmpl[] = "/tmp/lboot-cpio-XXXXXX";
	char *d = mkdtemp(tmpl), p[512], init[512], tree[512];
	snprintf(init, sizeof(init), "%s/init.bin", d);
	mkfile(init, "\x7f" "ELF fake init", 0700);
	snprintf(tree, sizeof(tree), "%s/tree", d);
	mkdir(tree, 0750);
	snprintf(p, sizeof(p), "%s/tree/sub", d);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/tree/sub/conf", d);
	mkfile(p, "key=value\n", 0640);
	snprintf(p, sizeof(p), "%s/tree/link", d);
	symlink("sub/conf", p);
	snprintf(p, sizeof(p), "%s/single", d);
	mkfile(p, "one\n", 0600);

	TEST("initramfs build is reproducible and complete") {
		struct lb_initramfs_file files[] = {
			{ tree, "/etc/tree" }, { p, NULL }, { p, "/usr/share/" },
		};
		struct lb_initramfs_opts o = {
			.init = init, .files = files, .n_files = 3, .mtime = 1700000000,
		};
		struct lb_cpio_buf b1 = new_buf(), b2 = new_buf();
		char err[256] = "";
		for (int k = 0; k < 2; k++) {
			struct lb_initramfs *r = NULL;
			struct lb_cpio_writer w;
			CHECK_INT(lb_initramfs_build(&o, &r, err, sizeof(err)), 0);
			if (!r)
				break;
			lb_cpio_writer_init(&w, lb_cpio_buf_write, k ? &b2 : &b1);
			CHECK_INT(lb_initramfs_write(r, &w), 0);
			lb_initramfs_free(r);
		}
		CHECK(b1.len == b2.len && b1.len && !memcmp(b1.p, b2.p, b1.len));
		struct names n = { .n = 0 };
		CHECK_INT(lb_initramfs_walk(b1.p, b1.len, 1 << 20, collect, &n, NULL), 0);
		const char *want[] = {
			"bin", "bin/lboot", "dev", "dev/console", "dev/null", "etc",
			"etc/tree", "etc/tree/link", "etc/tree/sub", "etc/tree/sub/conf",
			"init", "mnt", "proc", "run", "sbin", "single", "sys", "tmp",
			"usr", "usr/share", "usr/share/single",
		};
		CHECK_INT(n.n, 21);
		for (int i = 0; i < n.n && i < 21; i++)
			CHECK_STR(n.v[i], want[i]);
		/* spot-check fields */
		struct lb_cpio_reader rd;
		struct lb_cpio_entry e;
		int seen = 0;
		lb_cpio_reader_init(&rd, b1.p, b1.len, 0);
		while (lb_cpio_next(&rd, &e) > 0) {
			CHECK_INT(e.mtime, 1700000000);
			if (!strcmp(e.name, "init")) {
				CHECK_INT(e.mode, S_IFREG | 0755);
				CHECK(e.filesize == 14 && !memcmp(e.data, "\x7f" "ELF", 4));
				seen++;
			} else if (!strcmp(e.name, "bin/lboot")) {
				CHECK(e.filesize == 7 && !memcmp(e.data, "../init", 7));
				seen++;
			} else if (!strcmp(e.name, "dev/console")) {
				CHECK_INT(e.mode, S_IFCHR | 0600);
				CHECK(e.rdevmajor == 5 && e.rdevminor == 1);
				seen++;
			} else if (!strcmp(e.name, "etc/tree")) {
				CHECK_INT(e.mode, S_IFDIR | 0750);
				CHECK_INT(e.nlink, 3);
				seen++;
			} else if (!strcmp(e.name, "etc/tree/sub/conf")) {
				CHECK_INT(e.mode, S_IFREG | 0640);
				seen++;
			} else if (!strcmp(e.name, "etc/tree/link")) {
				CHECK(e.filesize == 8 && !memcmp(e.data, "sub/conf", 8));
				seen++;
			}
		}
		CHECK_INT(seen, 6);
		lb_cpio_buf_free(&b1);
		lb_cpio_buf_free(&b2);
	}
	TEST("initramfs build refuses its output as input") {
		struct stat st;
		struct lb_initramfs *r = NULL;
		char err[256] = "";
		stat(init, &st);
		struct lb_initramfs_opts o = { .init = init,
			.avoid = { 1, st.st_dev, st.st_ino } };
		CHECK_INT(lb_initramfs_build(&o, &r, err, sizeof(err)), -EEXIST);
		CHECK(strstr(err, "init.bin") != NULL);
		struct lb_initramfs_file f = { d, "/x" };
		struct lb_initramfs_opts o2 = { .files = &f, .n_files = 1,
			.avoid = { 1, st.st_dev, st.st_ino } };
		CHECK_INT(lb_initramfs_build(&o2, &r, err, sizeof(err)), -EEXIST);
		struct lb_initramfs_file f3 = { init, "/dev/console" };
		struct lb_initramfs_opts o3 = { .files = &f3, .n_files = 1 };
		CHECK_INT(lb_initramfs_build(&o3, &r, err, sizeof(err)), -EEXIST);
		CHECK(strstr(err, "already") != NULL);
		struct lb_initramfs_opts o4 = { .init = "/nonexistent/x" };
		CHECK_INT(lb_initramfs_build(&o4, &r, err, sizeof(err)), -ENOENT);
	}
	TEST("initramfs walk: concatenated, compressed, padded") {
		struct lb_cpio_buf a, all = new_buf();
		uint8_t *z;
		size_t zlen;
		make_small(&a);
		lb_cpio_buf_write(&all, a.p, a.len);               /* plain */
		CHECK_INT(lb_compress(LB_COMP_XZ, a.p, a.len, &z, &zlen), 0);
		lb_cpio_buf_write(&all, z, zlen);                  /* xz */
		free(z);
		lb_cpio_buf_write(&all, "\0\0\0", 3);              /* padding */
		CHECK_INT(lb_compress(LB_COMP_GZIP, a.p, a.len, &z, &zlen), 0);
		lb_cpio_buf_write(&all, z, zlen);                  /* gzip */
		free(z);
		size_t pad = (4 - all.len % 4) % 4;
		static const uint8_t zeros[8];
		lb_cpio_buf_write(&all, zeros, pad + 4);
		lb_cpio_buf_write(&all, a.p, a.len);               /* plain again */
		struct names n = { .n = 0 };
		CHECK_INT(lb_initramfs_walk(all.p, all.len, 1 << 20, collect, &n, NULL), 0);
		CHECK_INT(n.n, 16);
		CHECK_STR(n.v[4], "d");
		CHECK_STR(n.v[15], "console");
		n.n = 0;
		CHECK_INT(lb_initramfs_walk(all.p, all.len, 1000, collect, &n, NULL), -EFBIG);
		size_t where = 0;
		all.p[all.len - 1] = 'x';
		CHECK_INT(lb_initramfs_walk(all.p, all.len, 1 << 20, collect, &n, &where),
			  -EINVAL);
		CHECK_INT(where, all.len - 1);
		lb_cpio_buf_free(&a);
		lb_cpio_buf_free(&all);
	}

	snprintf(p, sizeof(p), "rm -rf '%s'", d);
	if (system(p) != 0)
		printf("# could not remove %s\n", d);
	return t_done();
}
