/* src/firmware/cmos.c: coreboot's CMOS option table and options, and the
 * boot state lboot keeps there under coreboot (bootstate.c, timefloor.c).
 * The layout is built here as coreboot's build (nvramtool -L) lays it out;
 * tests/host/cmos.sh checks against nvramtool itself. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bootstate.h"
#include "cmos.h"
#include "efivars.h"
#include "entry.h"
#include "le.h"
#include "timefloor.h"
#include "t.h"

static uint8_t tb[8192];
static size_t tl;

static void begin(void)
{
	memset(tb, 0, sizeof(tb));
	put_le32(tb, LB_CB_TAG_CMOS_OPTION_TABLE);
	put_le32(tb + 8, 12);
	tl = 12;
	put_le32(tb + 4, (uint32_t)tl);
}

static void entry(uint32_t bit, uint32_t len, char cfg, uint32_t id, const char *name)
{
	size_t n = strlen(name) + 1, rs = 24 + ((n + 3) & ~(size_t)3);

	put_le32(tb + tl, LB_CMOS_TAG_ENTRY);
	put_le32(tb + tl + 4, (uint32_t)rs);
	put_le32(tb + tl + 8, bit);
	put_le32(tb + tl + 12, len);
	put_le32(tb + tl + 16, (uint32_t)(unsigned char)cfg);
	put_le32(tb + tl + 20, id);
	memcpy(tb + tl + 24, name, n);
	tl += rs;
	put_le32(tb + 4, (uint32_t)tl);
}

static void enumv(uint32_t id, uint32_t v, const char *text)
{
	size_t n = strlen(text) + 1, rs = 16 + ((n + 3) & ~(size_t)3);

	put_le32(tb + tl, LB_CMOS_TAG_ENUM);
	put_le32(tb + tl + 4, (uint32_t)rs);
	put_le32(tb + tl + 8, id);
	put_le32(tb + tl + 12, v);
	memcpy(tb + tl + 16, text, n);
	tl += rs;
	put_le32(tb + 4, (uint32_t)tl);
}

static void cks(uint32_t s, uint32_t e, uint32_t loc, uint32_t type)
{
	put_le32(tb + tl, LB_CMOS_TAG_CHECKSUM);
	put_le32(tb + tl + 4, 24);
	put_le32(tb + tl + 8, s);
	put_le32(tb + tl + 12, e);
	put_le32(tb + tl + 16, loc);
	put_le32(tb + tl + 20, type);
	tl += 24;
	put_le32(tb + 4, (uint32_t)tl);
}

static char g_why[256];

/* a layout of one entry, or of one checksum record: the parser's answer
 * (its reason in g_why) */
static int one(struct lb_cmos_layout *lay, uint32_t bit, uint32_t len, char cfg, const char *name)
{
	begin();
	entry(bit, len, cfg, 0, name);
	return lb_cmos_layout_parse(tb, tl, lay, g_why, sizeof(g_why));
}

static int one_cks(struct lb_cmos_layout *lay, uint32_t s, uint32_t e, uint32_t loc, uint32_t type)
{
	begin();
	cks(s, e, loc, type);
	return lb_cmos_layout_parse(tb, tl, lay, g_why, sizeof(g_why));
}

/* lboot's q35 layout (coreboot/q35-cmos.layout) */
static void q35(void)
{
	begin();
	entry(0, 384, 'r', 0, "reserved_memory");
	entry(384, 1, 'e', 4, "boot_option");
	entry(388, 4, 'h', 0, "reboot_counter");
	entry(448, 1, 'e', 1, "power_on_after_fail");
	entry(452, 4, 'e', 6, "debug_level");
	entry(464, 256, 's', 0, "lboot_oneshot");
	entry(720, 192, 's', 0, "lboot_default");
	entry(912, 32, 'h', 0, "lboot_last");
	entry(944, 32, 'h', 0, "lboot_timefloor");
	entry(1008, 16, 'h', 0, "check_sum");
	enumv(1, 0, "Disable");
	enumv(1, 1, "Enable");
	enumv(6, 7, "Debug");
	enumv(6, 8, "Spew");
	cks(448, 1007, 1008, 1);
}

static void add(struct lb_entries *l, const char *id, const char *src, const char *title)
{
	struct lb_entry *e = lb_entries_add(l);

	if (!e)
		return;
	e->id = strdup(id);
	e->source = strdup(src);
	e->title = strdup(title);
}

/* c: lboot's q35 layout over a zeroed 128-byte dump at path (mkstemp'd) */
static int zero_dump(struct lb_cmos *c, char *path)
{
	uint8_t z[128] = { 0 };
	char why[256];
	int fd = mkstemp(path), rc;

	if (fd < 0)
		return -errno;
	rc = write(fd, z, sizeof(z)) == (ssize_t)sizeof(z) ? 0 : -EIO;
	close(fd);
	q35();
	if (rc || (rc = lb_cmos_layout_parse(tb, tl, &c->lay, why, sizeof(why))))
		return rc;
	c->path = path;
	return lb_cmos_load(c, why, sizeof(why));
}

int main(void)
{
	static struct lb_cmos c;
	char why[256], s[64];

	TEST("cmos: lboot's q35 layout: entries, enums, checksum") {
		q35();
		CHECK_INT(lb_cmos_layout_parse(tb, tl, &c.lay, why, sizeof(why)), 0);
		CHECK_INT((int)c.lay.n, 10);
		CHECK_INT((int)c.lay.n_enum, 4);
		CHECK_INT(c.lay.has_cks, 1);
		CHECK_INT((int)c.lay.cks_start, 56);
		CHECK_INT((int)c.lay.cks_end, 125);
		CHECK_INT((int)c.lay.cks_loc, 126);
		CHECK(lb_cmos_find(&c.lay, "lboot_last") && lb_cmos_find(&c.lay, "lboot_last")->bit == 912);
		CHECK(!lb_cmos_find(&c.lay, "lboot"));
	}
	TEST("cmos: numbers at odd bits, strings, the checksum") {
		uint8_t img[LB_CMOS_SIZE] = { 0 };
		const struct lb_cmos_entry *dl = lb_cmos_find(&c.lay, "debug_level"),
					   *pf = lb_cmos_find(&c.lay, "power_on_after_fail"),
					   *os = lb_cmos_find(&c.lay, "lboot_oneshot"),
					   *la = lb_cmos_find(&c.lay, "lboot_last");

		img[56] = 0xff;
		CHECK_INT(lb_cmos_set(img, dl, 8), 0);
		CHECK_INT(img[56], 0x8f); /* bits 4-7 of byte 56, the others kept */
		CHECK_INT((int)lb_cmos_get(img, dl), 8);
		CHECK_INT(lb_cmos_set(img, dl, 16), -ERANGE); /* 5 bits into 4 */
		CHECK_INT(lb_cmos_set(img, pf, 0), 0);
		CHECK_INT(img[56], 0x8e);
		CHECK_STR(lb_cmos_enum_text(&c.lay, dl, 8), "Spew");
		CHECK(!lb_cmos_enum_text(&c.lay, dl, 3));
		CHECK_INT(lb_cmos_set(img, la, 0xdeadbeef), 0);
		CHECK_INT(img[114], 0xef); /* little-endian, as nvramtool */
		CHECK_INT(img[117], 0xde);
		CHECK_INT(lb_cmos_set_str(img, os, "b.conf"), 0);
		CHECK(!memcmp(img + 58, "b.conf\0", 7));
		lb_cmos_get_str(img, os, s);
		CHECK_STR(s, "b.conf");
		CHECK_INT(lb_cmos_set_str(img, os, "0123456789abcdef0123456789abcdefX"), -E2BIG);
		CHECK_INT(lb_cmos_set_str(img, os, "0123456789abcdef0123456789abcdef"), 0); /* no NUL */
		lb_cmos_get_str(img, os, s);
		CHECK_STR(s, "0123456789abcdef0123456789abcdef");
		CHECK_INT(lb_cmos_cks_ok(&c.lay, img), 0);
		lb_cmos_cks_set(&c.lay, img);
		CHECK_INT(lb_cmos_cks_ok(&c.lay, img), 1);
		{
			unsigned sum = 0;
			for (int i = 56; i <= 125; i++)
				sum += img[i];
			CHECK_INT(img[126] << 8 | img[127], (int)(sum & 0xffff)); /* big-endian */
		}
		img[50] ^= 1; /* the century byte: outside the range */
		CHECK_INT(lb_cmos_cks_ok(&c.lay, img), 1);
		img[100] ^= 1;
		CHECK_INT(lb_cmos_cks_ok(&c.lay, img), 0);
	}
	TEST("cmos: hostile layouts are refused with a reason") {
		struct lb_cmos_layout *lay = &c.lay;

		q35();
		put_le32(tb + 4, (uint32_t)tl + 4); /* the table past its bytes */
		CHECK_INT(lb_cmos_layout_parse(tb, tl, lay, why, sizeof(why)), -EBADMSG);
		CHECK_INT(one(lay, 100, 8, 'h', "on_the_clock"), -EBADMSG);
		CHECK(strstr(g_why, "clock") != NULL);
		CHECK_INT(one(lay, 2040, 16, 'h', "past_the_end"), -EBADMSG);
		CHECK_INT(one(lay, 0xffffffffu, 16, 'h', "wraps"), -EBADMSG);
		CHECK_INT(one(lay, 460, 16, 's', "unaligned_string"), -EBADMSG);
		CHECK_INT(one(lay, 464, 72, 'h', "too_wide"), 0);
		{
			uint8_t img[LB_CMOS_SIZE] = { 0 };
			CHECK_INT(lb_cmos_set(img, &lay->e[0], 1), -E2BIG);
		}
		CHECK_INT(one(lay, 460, 8, 'h', "over_a_byte"), -EBADMSG);
		CHECK_INT(one(lay, 464, 8, 'x', "unknown_type"), -EBADMSG);
		begin();
		entry(464, 8, 'h', 0, "same");
		entry(472, 8, 'h', 0, "same");
		CHECK_INT(lb_cmos_layout_parse(tb, tl, lay, why, sizeof(why)), -EBADMSG);
		CHECK_INT(one(lay, 464, 8, 'h', "bad\x1bname"), -EBADMSG);
		begin();
		entry(464, 8, 'h', 0, "x");
		memset(tb + 12 + 24, 'a', 4); /* the name has no NUL in its record */
		CHECK_INT(lb_cmos_layout_parse(tb, tl, lay, why, sizeof(why)), -EBADMSG);
		CHECK_INT(one_cks(lay, 448, 1007, 1000, 1), -EBADMSG); /* the checksum inside its range */
		CHECK_INT(one_cks(lay, 448, 1007, 1008, 2), -EBADMSG); /* not the PC checksum */
		CHECK_INT(one_cks(lay, 448, 1007, 2040, 1), -EBADMSG); /* its second byte past 256 */
		CHECK_INT(one_cks(lay, 448, 1007, 1008, 1), 0);
		begin();
		cks(448, 1007, 1008, 1);
		cks(448, 1007, 1008, 1);
		CHECK_INT(lb_cmos_layout_parse(tb, tl, lay, why, sizeof(why)), -EBADMSG);
		begin();
		for (int i = 0; i < (int)LB_CMOS_MAX_ENTRIES + 1 && tl < sizeof(tb) - 64; i++) {
			char n[16];
			snprintf(n, sizeof(n), "o%d", i);
			entry(1024 + (uint32_t)i, 1, 'h', 0, n);
		}
		CHECK_INT(lb_cmos_layout_parse(tb, tl, lay, why, sizeof(why)), -E2BIG);
		begin();
		put_le32(tb + 12, 0x77); /* a record of 4 bytes */
		put_le32(tb + 16, 4);
		put_le32(tb + 4, 20);
		CHECK_INT(lb_cmos_layout_parse(tb, 20, lay, why, sizeof(why)), -EBADMSG);
		CHECK_INT(lb_cmos_layout_parse(tb, 8, lay, why, sizeof(why)), -EBADMSG);
	}
	TEST("cmos: a dump: loaded, committed atomically with its checksum") {
		char path[] = "/tmp/lb-cmos-XXXXXX";
		uint8_t back[128];
		FILE *f;

		CHECK_INT(zero_dump(&c, path), 0);
		CHECK_INT((int)c.size, 128);
		CHECK_INT(lb_cmos_set_str(c.img, lb_cmos_find(&c.lay, "lboot_default"), "x*"), 0);
		CHECK_INT(lb_cmos_commit(&c, why, sizeof(why)), 0);
		f = fopen(path, "rb");
		CHECK(f && fread(back, 1, sizeof(back), f) == sizeof(back));
		if (f)
			fclose(f);
		CHECK(!memcmp(back + 90, "x*", 3));
		CHECK_INT(back[126] << 8 | back[127], 'x' + '*');
		truncate(path, 100); /* not a dump of 128 bytes */
		CHECK_INT(lb_cmos_load(&c, why, sizeof(why)), -EINVAL);
		unlink(path);
	}
	TEST("cmos: the boot state: one-shot (cleared), default, saved, the floor") {
		char path[] = "/tmp/lb-cmos-XXXXXX";
		struct lb_entries l = LB_ENTRIES_INIT;
		FILE *log = fopen("/dev/null", "w");
		const struct lb_cmos_entry *os, *df, *la, *tf;
		int64_t stored;
		int bad;

		CHECK_INT(zero_dump(&c, path), 0);
		os = lb_cmos_find(&c.lay, "lboot_oneshot");
		df = lb_cmos_find(&c.lay, "lboot_default");
		la = lb_cmos_find(&c.lay, "lboot_last");
		tf = lb_cmos_find(&c.lay, "lboot_timefloor");
		lb_efivars_set_dir("/nonexistent/efivars"); /* no EFI variables */
		lb_cmos_boot = &c;
		add(&l, "a", "/loader/entries/a.conf:1", "A");
		add(&l, "b", "/loader/entries/b.conf:1", "B");
		add(&l, "c", "/loader/entries/c.conf:1", "C");
		lb_entries_set_default(&l, 0);
		/* nothing set */
		CHECK_INT(lb_bootstate_select(&l, "", 1, 0, log), 0);
		CHECK_INT(lb_entries_default(&l), 0);
		/* the default, then a one-shot over it: cleared in the dump */
		lb_cmos_set_str(c.img, df, "c.conf");
		lb_cmos_set_str(c.img, os, "b*");
		CHECK_INT(lb_cmos_commit(&c, why, sizeof(why)), 0);
		CHECK_INT(lb_bootstate_select(&l, "", 1, 1, log), 1); /* dry run: kept */
		CHECK_INT(lb_entries_default(&l), 1);
		lb_cmos_get_str(c.img, os, s);
		CHECK_STR(s, "b*");
		CHECK_INT(lb_bootstate_select(&l, "", 1, 0, log), 1);
		CHECK_INT(lb_entries_default(&l), 1);
		{
			struct lb_cmos d = c;
			CHECK_INT(lb_cmos_load(&d, why, sizeof(why)), 0); /* on "disk" */
			lb_cmos_get_str(d.img, os, s);
			CHECK_STR(s, "");
			CHECK_INT(lb_cmos_cks_ok(&d.lay, d.img), 1);
		}
		CHECK_INT(lb_bootstate_select(&l, "", 1, 0, log), 1);
		CHECK_INT(lb_entries_default(&l), 2); /* lboot_default again */
		/* not for a caller that is not PID 1 */
		lb_entries_set_default(&l, 0);
		CHECK_INT(lb_bootstate_select(&l, "", 0, 0, log), 0);
		/* a bad checksum: nothing read */
		c.img[120] ^= 0x40;
		CHECK_INT(lb_bootstate_select(&l, "", 1, 0, log), 0);
		c.img[120] ^= 0x40;
		/* a control character: ignored */
		lb_cmos_set_str(c.img, df, "c\x1b[2J");
		lb_cmos_cks_set(&c.lay, c.img);
		CHECK_INT(lb_bootstate_select(&l, "", 1, 0, log), 0);
		lb_cmos_set_str(c.img, df, "-"); /* unset, as nvramtool can write it */
		lb_cmos_cks_set(&c.lay, c.img);
		CHECK_INT(lb_bootstate_select(&l, "", 1, 0, log), 0);
		lb_cmos_set_str(c.img, df, "");
		/* saved: the hand-over writes the hash of b's id, the next
		 * boot's saved default finds b by it */
		CHECK_INT(lb_cmos_commit(&c, why, sizeof(why)), 0);
		CHECK_INT(lb_bootstate_select(&l, "saved", 1, 0, log), 0);
		lb_bootstate_handover(NULL, &l, &l.v[1], "saved", 1, log);
		/* printf b.conf | sha256sum: 8b329cbb... */
		CHECK_INT((int)(lb_cmos_get(c.img, la) == lb_bootstate_id_hash("b.conf")), 1);
		CHECK_INT((int)(lb_bootstate_id_hash("b.conf") == 0x8b329cbbu), 1);
		lb_entries_set_default(&l, 0);
		CHECK_INT(lb_bootstate_select(&l, "saved", 1, 0, log), 1);
		CHECK_INT(lb_entries_default(&l), 1);
		/* a hash that matches nothing */
		lb_cmos_set(c.img, la, 0x12345678);
		CHECK_INT(lb_cmos_commit(&c, why, sizeof(why)), 0);
		lb_entries_set_default(&l, 0);
		CHECK_INT(lb_bootstate_select(&l, "saved", 1, 0, log), 0);
		CHECK_INT(lb_entries_default(&l), 0);
		/* the clock's floor in whole hours */
		CHECK_STR(lb_timefloor_where(), "CMOS option lboot_timefloor");
		CHECK_INT((int)lb_timefloor_load(1000, &stored, &bad), 1000);
		CHECK_INT(lb_timefloor_save(1796342400ll + 1800), 0);
		CHECK_INT((int)lb_cmos_get(c.img, tf), 1796342400 / 3600);
		CHECK(lb_timefloor_load(1000, &stored, &bad) == 1796342400ll);
		CHECK_INT(bad, 0);
		c.img[100] ^= 1; /* the checksum no longer holds: the build date */
		CHECK(lb_timefloor_load(1000, &stored, &bad) == 1000);
		CHECK_INT(bad, 1);
		CHECK_INT(lb_timefloor_save(1796342400ll + 7200), -EBADMSG);
		lb_cmos_boot = NULL;
		CHECK(lb_timefloor_where() == NULL);
		CHECK_INT(lb_timefloor_save(1796342400ll + 7200), -ENOENT);
		lb_entries_free(&l);
		fclose(log);
		unlink(path);
	}
	return t_done();
}
