/* src/firmware/slots.c: the payload slots lbootdxe chooses from (A/B):
 * headers written and parsed back, the choice (newest that checks, A on a
 * tie, the other when the newer is torn, empty or for another layout),
 * hostile tables and headers, and finding a slot in a whole flash image. */
#include <stdint.h>
#include <string.h>

#include "le.h"
#include "slots.h"
#include "t.h"

#define S (4 * 4096)
#define FLASH (4096 + 2 * S) /* [other][B][A] */

static uint8_t flash[FLASH], vol[2 * 4096];
static struct lb_slot_table t = { S, { S, 2 * S } };

static uint8_t *slot(int i)
{
	return flash + FLASH - t.below[i];
}

static void put_slot(int i, unsigned long long version, const char *label)
{
	memset(slot(i), 0xFF, S);
	memcpy(slot(i) + LB_SLOT_HDR, vol, sizeof(vol));
	lb_slot_header_put(slot(i), version, label, vol, sizeof(vol), &t);
}

static int pick(int rc[2])
{
	struct lb_slot_hdr h[2];

	return lb_slot_pick(flash + FLASH, &t, h, rc);
}

int main(void)
{
	struct lb_slot_hdr h;
	struct lb_slot_table tt;
	unsigned char tab[LB_SLOT_TABLE_LEN];
	unsigned long long off;
	int rc[2];

	memset(vol, 0xA5, sizeof(vol));
	memcpy(vol + 40, "_FVH", 4);
	memset(flash, 0xFF, sizeof(flash));
	TEST("slots: a header written is parsed back and checks") {
		put_slot(0, 7, "lboot v7");
		CHECK_INT(lb_slot_check(slot(0), &t, &h), LB_SLOT_OK);
		CHECK(h.version == 7 && h.vol_len == sizeof(vol));
		CHECK(!strcmp(h.label, "lboot v7"));
		CHECK(!memcmp(slot(0), "LBOOTSLT", 8));
	}
	TEST("slots: A checks, B erased: A, B empty") {
		CHECK_INT(pick(rc), 0);
		CHECK_INT(rc[0], LB_SLOT_OK);
		CHECK_INT(rc[1], LB_SLOT_EMPTY);
	}
	TEST("slots: B newer and checks: B") {
		put_slot(1, 8, "v8");
		CHECK_INT(pick(rc), 1);
		CHECK_INT(rc[1], LB_SLOT_OK);
	}
	TEST("slots: the same version in both: A") {
		put_slot(1, 7, "v7 again");
		CHECK_INT(pick(rc), 0);
	}
	TEST("slots: B newer but torn (one byte of its volume): A, B digest mismatch") {
		put_slot(1, 8, "v8");
		slot(1)[LB_SLOT_HDR + 4096] ^= 0x40;
		CHECK_INT(pick(rc), 0);
		CHECK_INT(rc[1], LB_SLOT_DIGEST);
	}
	TEST("slots: B's volume half erased (the write stopped): A") {
		put_slot(1, 8, "v8");
		memset(slot(1) + LB_SLOT_HDR + 4096, 0xFF, 4096);
		CHECK_INT(pick(rc), 0);
		CHECK_INT(rc[1], LB_SLOT_DIGEST);
	}
	TEST("slots: B's header erased (the first step of a write): A") {
		put_slot(1, 8, "v8");
		memset(slot(1), 0xFF, LB_SLOT_HDR);
		CHECK_INT(pick(rc), 0);
		CHECK_INT(rc[1], LB_SLOT_EMPTY);
	}
	TEST("slots: both torn: none") {
		put_slot(1, 8, "v8");
		slot(0)[LB_SLOT_HDR] ^= 1;
		slot(1)[LB_SLOT_HDR] ^= 1;
		CHECK_INT(pick(rc), -1);
		CHECK_INT(rc[0], LB_SLOT_DIGEST);
		CHECK_INT(rc[1], LB_SLOT_DIGEST);
		put_slot(0, 7, "v7");
	}
	TEST("slots: A torn, B older but checks: B") {
		put_slot(1, 3, "v3");
		slot(0)[LB_SLOT_HDR + 5] ^= 1;
		CHECK_INT(pick(rc), 1);
		put_slot(0, 7, "v7");
	}
	TEST("slots: a slot built for another table is not taken") {
		struct lb_slot_table other = { S, { S, 3 * S } };

		memset(slot(1), 0xFF, S);
		memcpy(slot(1) + LB_SLOT_HDR, vol, sizeof(vol));
		lb_slot_header_put(slot(1), 9, "other", vol, sizeof(vol), &other);
		CHECK_INT(pick(rc), 0);
		CHECK_INT(rc[1], LB_SLOT_OTHERTAB);
	}
	TEST("slots: hostile headers: volume length, label, format, trailing bytes") {
		put_slot(1, 9, "v9");
		put_le64(slot(1) + 24, S); /* more than the slot holds */
		CHECK_INT(lb_slot_parse(slot(1), &t, &h), LB_SLOT_BADHDR);
		put_le64(slot(1) + 24, S - LB_SLOT_HDR + 1);
		CHECK_INT(lb_slot_parse(slot(1), &t, &h), LB_SLOT_BADHDR);
		put_le64(slot(1) + 24, 0);
		CHECK_INT(lb_slot_parse(slot(1), &t, &h), LB_SLOT_BADHDR);
		put_slot(1, 9, "v9");
		memset(slot(1) + 64, 'x', 64); /* no NUL */
		CHECK_INT(lb_slot_parse(slot(1), &t, &h), LB_SLOT_BADHDR);
		put_slot(1, 9, "v9");
		slot(1)[66] = 0x07;
		CHECK_INT(lb_slot_parse(slot(1), &t, &h), LB_SLOT_BADHDR);
		put_slot(1, 9, "v9");
		put_le32(slot(1) + 8, 2);
		CHECK_INT(lb_slot_parse(slot(1), &t, &h), LB_SLOT_BADHDR);
		put_slot(1, 9, "v9");
		slot(1)[4000] = 1;
		CHECK_INT(lb_slot_parse(slot(1), &t, &h), LB_SLOT_BADHDR);
		put_slot(1, 9, "v9");
		CHECK_INT(lb_slot_parse(slot(1), &t, &h), LB_SLOT_OK);
	}
	TEST("slots: tables: overlapping, unaligned, beyond the flash, too small") {
		struct lb_slot_table bad[] = {
			{ S, { S, S + 4096 } },          /* overlap */
			{ S, { S + 1, 2 * S } },         /* unaligned */
			{ S + 1, { 2 * S, 4 * S } },     /* size unaligned */
			{ S, { S, FLASH + 4096 } },      /* beyond */
			{ 4096, { 4096, 8192 } },        /* no room for a volume */
			{ S, { S - 4096, 2 * S } },      /* starts less than a slot below the end */
		};
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			lb_slot_table_put(tab, &bad[i]);
			CHECK_INT(lb_slot_table_parse(tab, sizeof(tab), FLASH, &tt), -1);
		}
		lb_slot_table_put(tab, &t);
		CHECK_INT(lb_slot_table_parse(tab, sizeof(tab), FLASH, &tt), 0);
		CHECK_INT(lb_slot_table_parse(tab, sizeof(tab) - 1, FLASH, &tt), -1);
		tab[8] = 3;
		CHECK_INT(lb_slot_table_parse(tab, sizeof(tab), FLASH, &tt), -1);
	}
	TEST("slots: lb_slot_find: the newest slot that checks in a flash image") {
		put_slot(0, 7, "v7");
		put_slot(1, 9, "v9");
		CHECK_INT(lb_slot_find(flash, FLASH, &off, &tt, &h), 0);
		CHECK(off == FLASH - t.below[1] && h.version == 9);
		slot(1)[LB_SLOT_HDR + 1] ^= 1;
		CHECK_INT(lb_slot_find(flash, FLASH, &off, &tt, &h), 0);
		CHECK(off == FLASH - t.below[0] && h.version == 7);
		/* a valid slot copied elsewhere does not count: its table puts it
		 * where it was built */
		memcpy(flash, slot(0), 4096);
		memset(slot(0), 0xFF, S);
		CHECK_INT(lb_slot_find(flash, FLASH, &off, &tt, &h), -1);
	}
	return t_done();
}
