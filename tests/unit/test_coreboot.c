/* src/firmware/coreboot.c: coreboot's table and TCPA log from memory the
 * firmware left (a synthetic physical memory here: the low table at 0x500
 * forwarding to the real one in "CBMEM", as coreboot 4.15 lays them out). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coreboot.h"
#include "hash.h"
#include "le.h"
#include "t.h"

#define MEM   0x220000u
#define CBT   0x200000u   /* the real table */
#define TCPA  0x208000u   /* the TCPA log */
static uint8_t mem[MEM];

static int rd(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)ctx;
	if (addr > MEM || len > MEM - addr)
		return -EFAULT;
	memcpy(buf, mem + addr, len);
	return 0;
}

static uint16_t ipsum(const uint8_t *p, size_t len)
{
	uint32_t s = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		s += le16(p + i);
	if (len & 1)
		s += p[len - 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* a table at at with the records rec (rlen bytes, n of them) */
static void table(uint32_t at, const uint8_t *rec, uint32_t rlen, uint32_t n)
{
	uint8_t *h = mem + at;

	memset(h, 0, 24);
	memcpy(h, "LBIO", 4);
	put_le32(h + 4, 24);
	put_le32(h + 12, rlen);
	put_le32(h + 20, n);
	memcpy(h + 24, rec, rlen);
	put_le32(h + 16, ipsum(h + 24, rlen));
	put_le32(h + 8, 0);
	put_le32(h + 8, ipsum(h, 24));
}

static void rec64(uint8_t *r, uint32_t tag, uint64_t v)
{
	put_le32(r, tag);
	put_le32(r + 4, 16);
	put_le64(r + 8, v);
}

static void entry(uint32_t i, uint32_t pcr, const char *type, uint8_t fill, uint32_t dl,
		  const char *name)
{
	uint8_t *e = mem + TCPA + 4 + i * LB_CB_TCPA_ENTRY;

	memset(e, 0, LB_CB_TCPA_ENTRY);
	put_le32(e, pcr);
	memcpy(e + 4, type, strlen(type));
	memset(e + 14, fill, dl);
	put_le32(e + 78, dl);
	memcpy(e + 82, name, strlen(name) < 50 ? strlen(name) : 50);
}

static void world(void)
{
	uint8_t r[32];

	memset(mem, 0, sizeof(mem));
	rec64(r, LB_CB_TAG_FORWARD, CBT);
	table(0x500, r, 16, 1);
	{
		uint8_t recs[64];

		put_le32(recs, 0x01);
		put_le32(recs + 4, 28);
		memset(recs + 8, 0, 20);
		rec64(recs + 28, LB_CB_TAG_TCPA_LOG, TCPA);
		table(CBT, recs, 44, 2);
	}
	put_le16(mem + TCPA, 50);
	put_le16(mem + TCPA + 2, 3);
	entry(0, 2, "SHA256", 0x11, 32, "FMAP: FMAP");
	entry(1, 2, "SHA256", 0x22, 32, "FMAP: COREBOOT CBFS: bootblock");
	entry(2, 3, "SHA256", 0x33, 32, "FMAP: COREBOOT CBFS: fallback/payload");
}

int main(void)
{
	static struct lb_cb_mevent ev[LB_CB_MAX_MEVENTS];
	char why[256];
	uint8_t *tbl;
	size_t n, len;
	uint64_t at;

	TEST("coreboot: the low table's forward to CBMEM, the TCPA log's entries") {
		world();
		CHECK_INT(lb_cb_table(rd, NULL, &tbl, &len, &at, why, sizeof(why)), 0);
		CHECK(at == CBT);
		CHECK_INT(len, 24 + 44);
		free(tbl);
		CHECK_INT(lb_cb_measurements(rd, NULL, ev, LB_CB_MAX_MEVENTS, &n, why, sizeof(why)), 0);
		CHECK_INT(n, 3);
		CHECK_INT(ev[0].pcr, 2);
		CHECK_INT(ev[0].alg, LB_SHA256);
		CHECK(ev[1].digest[0] == 0x22 && ev[1].digest[31] == 0x22 && ev[1].digest[32] == 0);
		CHECK_STR(ev[1].name, "FMAP: COREBOOT CBFS: bootblock");
		CHECK_INT(ev[2].pcr, 3);
	}
	TEST("coreboot: a table in 0xf0000-1 MiB is found when 0-4 KiB has none") {
		world();
		memcpy(mem + 0xf1230, mem + 0x500, 24 + 16);
		memset(mem + 0x500, 0, 40);
		CHECK_INT(lb_cb_table(rd, NULL, &tbl, &len, &at, why, sizeof(why)), 0);
		CHECK(at == CBT);
		free(tbl);
	}
	TEST("coreboot: a 50-byte name without its NUL, SHA1 and SHA512 digests") {
		world();
		entry(0, 0, "SHA1", 0x44, 20, "01234567890123456789012345678901234567890123456789");
		entry(1, 7, "SHA512", 0x55, 64, "x");
		CHECK_INT(lb_cb_measurements(rd, NULL, ev, LB_CB_MAX_MEVENTS, &n, why, sizeof(why)), 0);
		CHECK_INT(strlen(ev[0].name), 50);
		CHECK_INT(ev[0].alg, LB_SHA1);
		CHECK_INT(ev[1].alg, LB_SHA512);
		CHECK(ev[1].digest[63] == 0x55);
	}
	TEST("coreboot: no table, a wrong checksum, a forward loop: refused with a reason") {
		world();
		memset(mem + 0x500, 0, 40);
		CHECK_INT(lb_cb_table(rd, NULL, &tbl, &len, &at, why, sizeof(why)), -ENODEV);
		CHECK(strstr(why, "no coreboot table") != NULL);
		world();
		mem[0x500 + 30] ^= 1; /* the forward address: records' checksum wrong */
		CHECK_INT(lb_cb_table(rd, NULL, &tbl, &len, &at, why, sizeof(why)), -EBADMSG);
		CHECK(strstr(why, "checksum") != NULL);
		world();
		mem[CBT + 24 + 8] ^= 1; /* the real table's records changed */
		CHECK_INT(lb_cb_measurements(rd, NULL, ev, LB_CB_MAX_MEVENTS, &n, why, sizeof(why)), -EBADMSG);
		CHECK(strstr(why, "0x200000") != NULL);
		world();
		{
			uint8_t r[16];

			rec64(r, LB_CB_TAG_FORWARD, 0x500); /* forwards to itself */
			table(0x500, r, 16, 1);
		}
		CHECK_INT(lb_cb_table(rd, NULL, &tbl, &len, &at, why, sizeof(why)), -ELOOP);
		world();
		{
			uint8_t r[16];

			rec64(r, LB_CB_TAG_FORWARD, 0x1fffff000ull); /* outside memory */
			table(0x500, r, 16, 1);
		}
		CHECK_INT(lb_cb_table(rd, NULL, &tbl, &len, &at, why, sizeof(why)), -EFAULT);
	}
	TEST("coreboot: a record whose size leaves the table is not used") {
		uint8_t recs[64];

		world();
		put_le32(recs, 0x01);
		put_le32(recs + 4, 0x1000); /* past the table */
		rec64(recs + 28, LB_CB_TAG_TCPA_LOG, TCPA);
		table(CBT, recs, 44, 2);
		CHECK_INT(lb_cb_measurements(rd, NULL, ev, LB_CB_MAX_MEVENTS, &n, why, sizeof(why)), -ENOENT);
		CHECK(strstr(why, "no TCPA log record") != NULL);
	}
	TEST("coreboot: TCPA entries: too many, PCR 24, digest length, unknown type, unprintable name") {
		world();
		put_le16(mem + TCPA + 2, 51); /* > max_entries 50 */
		CHECK_INT(lb_cb_measurements(rd, NULL, ev, LB_CB_MAX_MEVENTS, &n, why, sizeof(why)), -E2BIG);
		world();
		put_le16(mem + TCPA, 0xffff);
		put_le16(mem + TCPA + 2, 300); /* > the cap */
		CHECK_INT(lb_cb_measurements(rd, NULL, ev, LB_CB_MAX_MEVENTS, &n, why, sizeof(why)), -E2BIG);
		world();
		CHECK_INT(lb_cb_measurements(rd, NULL, ev, 2, &n, why, sizeof(why)), -E2BIG);
		world();
		entry(1, 24, "SHA256", 1, 32, "x");
		CHECK_INT(lb_cb_measurements(rd, NULL, ev, LB_CB_MAX_MEVENTS, &n, why, sizeof(why)), -EBADMSG);
		CHECK(strstr(why, "entry 1: PCR 24") != NULL);
		world();
		entry(2, 2, "SHA256", 1, 64, "x");
		CHECK_INT(lb_cb_measurements(rd, NULL, ev, LB_CB_MAX_MEVENTS, &n, why, sizeof(why)), -EBADMSG);
		world();
		entry(2, 2, "MD5", 1, 16, "x");
		CHECK_INT(lb_cb_measurements(rd, NULL, ev, LB_CB_MAX_MEVENTS, &n, why, sizeof(why)), -EBADMSG);
		CHECK(strstr(why, "'MD5'") != NULL);
		world();
		entry(0, 2, "SHA256", 1, 32, "a\nb");
		CHECK_INT(lb_cb_measurements(rd, NULL, ev, LB_CB_MAX_MEVENTS, &n, why, sizeof(why)), -EBADMSG);
		CHECK(strstr(why, "0x0a is not printable") != NULL);
		/* a log cut short */
		world();
		CHECK_INT(lb_cb_tcpa_parse(mem + TCPA, 4 + 2 * LB_CB_TCPA_ENTRY, ev, 256, &n, why, sizeof(why)),
			  -EBADMSG);
		CHECK_INT(lb_cb_tcpa_parse(mem + TCPA, 3, ev, 256, &n, why, sizeof(why)), -EBADMSG);
	}
	TEST("coreboot console: appended as coreboot does, wraps, read back oldest first") {
		uint8_t con[8 + 16];
		char *t;
		size_t tl;

		memset(con, 0, sizeof(con));
		put_le32(con, 16);
		put_le32(con + 4, 0);
		CHECK_INT(lb_cb_console_append(con, sizeof(con), "coreboot\n", 9, why, sizeof(why)), 0);
		CHECK_INT(le32(con + 4), 9);
		CHECK_INT(lb_cb_console_text(con, sizeof(con), &t, &tl, why, sizeof(why)), 0);
		CHECK_STR(t, "coreboot\n");
		free(t);
		/* 9 more: wraps at 16, the flag set, the oldest bytes gone */
		CHECK_INT(lb_cb_console_append(con, sizeof(con), "lboot: x\n", 9, why, sizeof(why)), 0);
		CHECK(le32(con + 4) == (0x80000000u | 2));
		CHECK_INT(lb_cb_console_text(con, sizeof(con), &t, &tl, why, sizeof(why)), 0);
		CHECK_INT(tl, 16);
		CHECK_STR(t, "reboot\nlboot: x\n");
		free(t);
		/* a header that does not fit what is there: refused, nothing written */
		put_le32(con, 17);
		CHECK_INT(lb_cb_console_append(con, sizeof(con), "y", 1, why, sizeof(why)), -EBADMSG);
		put_le32(con, 16);
		put_le32(con + 4, 16);
		CHECK_INT(lb_cb_console_text(con, sizeof(con), &t, &tl, why, sizeof(why)), -EBADMSG);
		CHECK(strstr(why, "cursor 16") != NULL);
	}
	TEST("coreboot console: found through the table, written through a file as memory") {
		char path[] = "/tmp/lboot-cbcon-XXXXXX";
		uint8_t recs[80];
		uint64_t addr = 0;
		size_t clen = 0;
		int fd;

		world();
		put_le32(recs, 0x01);
		put_le32(recs + 4, 28);
		memset(recs + 8, 0, 20);
		rec64(recs + 28, LB_CB_TAG_TCPA_LOG, TCPA);
		rec64(recs + 44, LB_CB_TAG_CBMEM_CONSOLE, 0x210000);
		table(CBT, recs, 60, 3);
		put_le32(mem + 0x210000, 0x100);
		put_le32(mem + 0x210004, 5);
		memcpy(mem + 0x210008, "boot\n", 5);
		CHECK_INT(lb_cb_console_find(rd, NULL, &addr, &clen, why, sizeof(why)), 0);
		CHECK(addr == 0x210000 && clen == 8 + 0x100);
		fd = mkstemp(path);
		CHECK(fd >= 0 && write(fd, mem, MEM) == MEM);
		close(fd);
		CHECK_INT(lb_cb_console_write(path, "lboot\n", 6, &addr, why, sizeof(why)), 0);
		{
			uint8_t back[8 + 0x100];
			char *t;
			size_t tl;

			CHECK_INT(lb_cb_read_mem(path, 0x210000, back, sizeof(back)), 0);
			CHECK_INT(lb_cb_console_text(back, sizeof(back), &t, &tl, why, sizeof(why)), 0);
			CHECK_STR(t, "boot\nlboot\n");
			free(t);
		}
		unlink(path);
		/* a console whose size is past the cap */
		put_le32(mem + 0x210000, LB_CB_CONSOLE_MAX + 1);
		CHECK_INT(lb_cb_console_find(rd, NULL, &addr, &clen, why, sizeof(why)), -EBADMSG);
		world(); /* no console record */
		CHECK_INT(lb_cb_console_find(rd, NULL, &addr, &clen, why, sizeof(why)), -ENOENT);
	}
	TEST("coreboot: the reader maps a file as memory") {
		char path[] = "/tmp/lboot-cbmem-XXXXXX";
		int fd = mkstemp(path);

		world();
		CHECK(fd >= 0 && write(fd, mem, MEM) == MEM);
		close(fd);
		CHECK_INT(lb_cb_measurements(lb_cb_read_mem, path, ev, LB_CB_MAX_MEVENTS, &n, why, sizeof(why)), 0);
		CHECK_INT(n, 3);
		CHECK_INT(lb_cb_read_mem(path, MEM - 4, why, 8), -EIO);
		unlink(path);
	}
	return t_done();
}
