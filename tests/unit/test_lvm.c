/* LVM2 label, metadata area and metadata text against what the real lvm2
 * (2.03.16, Debian 12) wrote: pvcreate/vgcreate/lvcreate/lvextend on loop
 * devices, the first KiB of each PV (fuzz/corpus/lvm/pv-*.bin) and
 * vgcfgbackup files. The expected tables are what `lvs --segments -o
 * seg_pe_ranges` and `pvs -o pe_start` reported for the same VG. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc32.h"
#include "le.h"
#include "lvm.h"
#include "t.h"

static uint8_t *load(const char *name, size_t *len)
{
	char path[4096];
	FILE *f;
	uint8_t *b;
	long n;

	snprintf(path, sizeof(path), "%s/../../fuzz/corpus/lvm/%s", t_files(), name);
	if (!(f = fopen(path, "rb"))) {
		printf("# cannot open %s\n", path);
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	b = malloc((size_t)n + 1);
	if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	fclose(f);
	if (b)
		b[n] = 0;
	*len = (size_t)n;
	return b;
}

/* label, header, text of a PV head; the text malloc'd */
static int pv_text(const uint8_t *b, size_t n, struct lb_lvm_label *lab,
		   char **text, size_t *tlen)
{
	struct lb_lvm_raw raw;
	int r;

	if ((r = lb_lvm_label(b, n, lab)))
		return r;
	if (lab->mda[0].offset > n)
		return -ERANGE;
	if ((r = lb_lvm_mda_header(b + lab->mda[0].offset, n - lab->mda[0].offset,
				   lab->mda[0].offset, lab->mda[0].size, &raw)))
		return r;
	return lb_lvm_mda_text(b + lab->mda[0].offset, n - lab->mda[0].offset,
			       lab->mda[0].size, &raw, text, tlen);
}

static uint32_t lvm_crc(const void *p, size_t n)
{
	return ~lb_crc32(~0xf597a6cfu, p, n);
}

int main(void)
{
	struct lb_lvm_label lab;
	struct lb_lvm_vg vg;
	char *text = NULL;
	size_t n, tlen;
	uint8_t *b;

	TEST("pv label and metadata area (vgboot pv0)") {
		b = load("pv-vgboot.bin", &n);
		CHECK(b != NULL);
		if (!b)
			continue;
		CHECK_INT(pv_text(b, n, &lab, &text, &tlen), 0);
		CHECK_STR(lab.pv_id, "DXsYbN-PJVW-3QOB-VSbH-UZoQ-Nlti-5QOdQn");
		CHECK_INT(lab.dev_size, 64 << 20);
		CHECK_INT(lab.data_offset, 1 << 20);
		CHECK_INT(lab.n_mda, 1);
		CHECK_INT(lab.mda[0].offset, 4096);
		CHECK_INT(lab.mda[0].size, 1044480);
		CHECK_INT(tlen, 1715);
		CHECK(text && !strncmp(text, "vgboot {\nid = \"ee4o5O-", 22));
		/* the label is found in any of the first four sectors only */
		CHECK_INT(lb_lvm_label(b, 1023, &lab), -ENOENT);
		b[512 + 100] ^= 1; /* inside the CRC'd part of the label */
		CHECK_INT(lb_lvm_label(b, n, &lab), -EBADMSG);
		b[512 + 100] ^= 1;
		b[4096 + 60] ^= 1; /* metadata header flags */
		CHECK_INT(pv_text(b, n, &lab, &text, &tlen) == -EBADMSG ? 0 : 1, 0);
		b[4096 + 60] ^= 1;
		free(b);
	}

	TEST("volume group from the on-disk text: PVs, LVs, segments, tables") {
		const char *devs[2] = { "8:0", "8:16" };
		struct lb_dm_target *t = NULL;
		size_t nt = 0;

		if (!text) {
			CHECK(text != NULL);
			continue;
		}
		CHECK_INT(lb_lvm_parse(text, tlen, &vg), 0);
		CHECK_STR(vg.name, "vgboot");
		CHECK_STR(vg.id, "ee4o5O-rTyQ-Ld0Y-2oVM-JwAL-7fe3-ZkjS5k");
		CHECK_INT(vg.seqno, 5);
		CHECK_INT(vg.extent_size, 8192);
		CHECK_INT(vg.n_pv, 2);
		CHECK_INT(vg.n_lv, 2);
		if (vg.n_pv != 2 || vg.n_lv != 2) {
			lb_lvm_vg_free(&vg);
			continue;
		}
		CHECK_STR(vg.pv[1].name, "pv1");
		CHECK_STR(vg.pv[1].id, "YJ7HSx-1uml-sdoG-8ar0-MSWo-ZFC5-qxqnz1");
		CHECK_INT(vg.pv[0].pe_start, 2048);
		CHECK_INT(vg.pv[0].pe_count, 15);
		CHECK_INT(lb_lvm_find_pv(&vg, "YJ7HSx1umlsdoG8ar0MSWoZFC5qxqnz1"), 1);
		CHECK_INT(lb_lvm_find_pv(&vg, "YJ7HSx-1uml-sdoG-8ar0-MSWo-ZFC5-qxqnz2"), -1);
		CHECK_STR(vg.lv[0].name, "boot");
		CHECK(vg.lv[0].visible);
		CHECK_INT(vg.lv[0].n_seg, 3);
		/* lvs: boot 0 /dev/loop0:0-3, 4 /dev/loop0:6-7, 6 /dev/loop1:2-3 */
		CHECK_INT(lb_lvm_table(&vg, &vg.lv[0], devs, &t, &nt), 0);
		CHECK_INT(nt, 3);
		if (nt == 3 && t) {
			CHECK_INT(t[0].start, 0);
			CHECK_INT(t[0].length, 4 * 8192);
			CHECK_STR(t[0].type, "linear");
			CHECK_STR(t[0].params, "8:0 2048");
			CHECK_INT(t[1].start, 4 * 8192);
			CHECK_STR(t[1].params, "8:0 51200");
			CHECK_INT(t[2].start, 6 * 8192);
			CHECK_INT(t[2].length, 2 * 8192);
			CHECK_STR(t[2].params, "8:16 18432");
		}
		free(t);
		/* data: 2 stripes of 64 KiB, pv0:4-5 pv1:0-1 */
		CHECK_INT(lb_lvm_table(&vg, &vg.lv[1], devs, &t, &nt), 0);
		CHECK_INT(nt, 1);
		if (nt == 1 && t) {
			CHECK_STR(t[0].type, "striped");
			CHECK_INT(t[0].length, 4 * 8192);
			CHECK_STR(t[0].params, "2 128 8:0 34816 8:16 2048");
		}
		free(t);
		/* a missing PV: the LVs on it cannot be mapped */
		devs[1] = NULL;
		CHECK_INT(lb_lvm_table(&vg, &vg.lv[0], devs, &t, &nt), -ENODEV);
		CHECK_INT(lb_lvm_table(&vg, &vg.lv[1], devs, &t, &nt), -ENODEV);
		lb_lvm_vg_free(&vg);
	}

	TEST("the text wrapped round the end of the metadata area") {
		/* as LVM writes it when the circular buffer wraps: the tail of
		 * the text at the start of the area, just after its header */
		size_t mda_size = 4096, first = 1000;
		uint8_t *mda = calloc(1, mda_size);
		struct lb_lvm_raw raw;
		char *t2 = NULL;
		size_t l2 = 0;

		if (!mda || !text || tlen > mda_size - 512 - 100) {
			CHECK(0);
			free(mda);
			continue;
		}
		memcpy(mda + 4, " LVM2 x[5A%r0N*>", 16);
		put_le32(mda + 20, 1);
		put_le64(mda + 24, 4096);
		put_le64(mda + 32, mda_size);
		put_le64(mda + 40, mda_size - first);
		put_le64(mda + 48, tlen);
		put_le32(mda + 56, lvm_crc(text, tlen));
		put_le32(mda, lvm_crc(mda + 4, 508));
		memcpy(mda + mda_size - first, text, first);
		memcpy(mda + 512, text + first, tlen - first);
		CHECK_INT(lb_lvm_mda_header(mda, 512, 4096, mda_size, &raw), 0);
		CHECK_INT(lb_lvm_mda_text(mda, mda_size, mda_size, &raw, &t2, &l2), 0);
		CHECK_INT(l2, tlen);
		CHECK(t2 && !memcmp(t2, text, tlen));
		free(t2);
		/* the area read short */
		CHECK_INT(lb_lvm_mda_text(mda, 600, mda_size, &raw, &t2, &l2), -ERANGE);
		/* header in another place than the label says */
		CHECK_INT(lb_lvm_mda_header(mda, 512, 8192, mda_size, &raw), -EBADMSG);
		/* a flipped byte of the text: checksum */
		mda[520] ^= 0x20;
		CHECK_INT(lb_lvm_mda_text(mda, mda_size, mda_size, &raw, &t2, &l2), -EBADMSG);
		free(mda);
	}
	free(text);
	text = NULL;

	TEST("second PV of the same VG has the same metadata") {
		b = load("pv-vgboot-pv1.bin", &n);
		CHECK(b != NULL);
		if (!b)
			continue;
		CHECK_INT(pv_text(b, n, &lab, &text, &tlen), 0);
		CHECK_STR(lab.pv_id, "YJ7HSx-1uml-sdoG-8ar0-MSWo-ZFC5-qxqnz1");
		if (text) {
			CHECK_INT(lb_lvm_parse(text, tlen, &vg), 0);
			CHECK_INT(vg.seqno, 5);
			lb_lvm_vg_free(&vg);
		}
		free(text);
		text = NULL;
		free(b);
	}

	TEST("rhel-style VG: root and swap; vgcfgbackup files with comments") {
		b = load("pv-rhel.bin", &n);
		CHECK(b != NULL);
		if (b && !pv_text(b, n, &lab, &text, &tlen)) {
			CHECK_INT(lb_lvm_parse(text, tlen, &vg), 0);
			CHECK_STR(vg.name, "rhel");
			CHECK_INT(vg.n_lv, 2);
			if (vg.n_lv == 2) {
				CHECK_STR(vg.lv[0].name, "root");
				CHECK_STR(vg.lv[1].name, "swap");
			}
			lb_lvm_vg_free(&vg);
		} else {
			CHECK(0);
		}
		free(text);
		text = NULL;
		free(b);
		b = load("rhel-vgcfgbackup.txt", &n);
		CHECK(b != NULL);
		if (b) {
			CHECK_INT(lb_lvm_parse((char *)b, n, &vg), 0);
			CHECK_STR(vg.name, "rhel");
			lb_lvm_vg_free(&vg);
		}
		free(b);
		b = load("vgboot-vgcfgbackup.txt", &n);
		CHECK(b != NULL);
		if (b) {
			CHECK_INT(lb_lvm_parse((char *)b, n, &vg), 0);
			CHECK_INT(vg.n_lv, 2);
			CHECK_INT(vg.n_lv == 2 ? vg.lv[1].seg[0].stripe_count : 0, 2);
			CHECK_INT(vg.n_lv == 2 ? vg.lv[1].seg[0].stripe_size : 0, 128);
			lb_lvm_vg_free(&vg);
		}
		free(b);
	}

	TEST("strict text: syntax, references, caps") {
		static const char base[] =
			"vg {\nid = \"ee4o5O-rTyQ-Ld0Y-2oVM-JwAL-7fe3-ZkjS5k\"\nseqno = 1\n"
			"extent_size = 8192\nphysical_volumes {\npv0 {\n"
			"id = \"DXsYbN-PJVW-3QOB-VSbH-UZoQ-Nlti-5QOdQn\"\n"
			"dev_size = 131072\npe_start = 2048\npe_count = 15\n}\n}\n"
			"logical_volumes {\nlv {\nid = \"G5u1ql-hExI-J6T8-tjY2-UlHv-ymuP-ASTgW5\"\n"
			"status = [\"READ\", \"VISIBLE\"]\nsegment_count = 1\n"
			"segment1 {\nstart_extent = 0\nextent_count = %s\ntype = \"%s\"\n"
			"stripe_count = 1\nstripes = [\"%s\", %s]\n}\n}\n}\n}\n";
		static const struct {
			const char *count, *type, *pv, *ext;
			int want;
		} cases[] = {
			{ "4", "striped", "pv0", "0", 0 },
			{ "4", "striped", "pv0", "11", 0 },     /* last extents of the PV */
			{ "4", "striped", "pv0", "12", -EBADMSG }, /* past the PV */
			{ "4", "striped", "pv9", "0", -EBADMSG },  /* unknown PV */
			{ "0", "striped", "pv0", "0", -EBADMSG },  /* empty segment */
			{ "4", "striped", "pv0", "-1", -EBADMSG },
			{ "99999999999999999999", "striped", "pv0", "0", -EBADMSG },
			{ "4", "raid1", "pv0", "0", 0 },        /* kept, not mapped */
		};
		char buf[2048];
		const char *devs[1] = { "253:0" };

		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			struct lb_dm_target *t = NULL;
			size_t nt;
			int r;

			snprintf(buf, sizeof(buf), base, cases[i].count, cases[i].type,
				 cases[i].pv, cases[i].ext);
			r = lb_lvm_parse(buf, strlen(buf), &vg);
			if (r != cases[i].want)
				printf("# case %zu: %d\n", i, r);
			CHECK_INT(r, cases[i].want);
			if (r)
				continue;
			r = lb_lvm_table(&vg, &vg.lv[0], devs, &t, &nt);
			CHECK_INT(r, strcmp(cases[i].type, "striped") ? -EOPNOTSUPP : 0);
			free(t);
			lb_lvm_vg_free(&vg);
		}
		static const char *const bad[] = {
			"",                                  /* no VG */
			"vg { id = \"x\" }",                 /* bad id */
			"vg {",                              /* unterminated */
			"vg { } vg2 { }",                    /* two VGs */
			"vg { a = 1 a = 2 }",                /* duplicate key */
			"vg { a = [[1]] }",                  /* nested list */
			"vg { a = \"unterminated }",
			"vg { a = 12ab }",
			"}",
			"vg { a = 1 } version = 2",
		};
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			CHECK_INT(lb_lvm_parse(bad[i], strlen(bad[i]), &vg), -EBADMSG);
		/* nesting deeper than the cap */
		{
			char deep[256] = "";
			for (int k = 0; k < 12; k++)
				strcat(deep, "a{");
			for (int k = 0; k < 12; k++)
				strcat(deep, "}");
			CHECK_INT(lb_lvm_parse(deep, strlen(deep), &vg), -EBADMSG);
		}
		/* a NUL inside the text */
		CHECK_INT(lb_lvm_parse("vg {\0}", 6, &vg), -EBADMSG);
	}
	return t_done();
}
