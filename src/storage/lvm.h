/*
 * LVM2 on-disk format, read only, no I/O: the physical volume label (one of
 * the first four sectors), the metadata area header and its circular text
 * buffer, and a strict parser of the metadata text (the `vgcfgbackup`
 * syntax) into a volume group with its PVs and LVs, and the device-mapper
 * table of a logical volume (linear and striped segments).
 *
 * Every size is capped (text, nesting, counts, name lengths) and every
 * extent and sector computation checked for overflow and against the PV's
 * size; anything out of line is -EBADMSG, never a best guess.
 */
#ifndef LB_LVM_H
#define LB_LVM_H

#include <stddef.h>
#include <stdint.h>

#define LB_LVM_LABEL_BYTES 2048u      /* the label is in sectors 0..3 */
#define LB_LVM_MDA_HDR_BYTES 512u
#define LB_LVM_MDA_MAX (8u << 20)     /* metadata areas read at most */
#define LB_LVM_TEXT_MAX (1u << 20)    /* metadata text at most */
#define LB_LVM_MAX_PV 256
#define LB_LVM_MAX_LV 1024
#define LB_LVM_MAX_SEG 256            /* segments per LV */
#define LB_LVM_MAX_STRIPES 64
#define LB_LVM_NAME_MAX 128           /* VG/LV/PV key names, incl. NUL */

struct lb_lvm_label {
	char pv_id[39];        /* "xxxxxx-xxxx-xxxx-xxxx-xxxx-xxxx-xxxxxx" */
	uint64_t dev_size;     /* bytes, as pvcreate saw the device */
	uint64_t data_offset;  /* bytes: first data area (pe_start) */
	size_t n_mda;          /* metadata areas (0..2) */
	struct { uint64_t offset, size; } mda[2]; /* bytes from the PV start */
};

/* Find and check the label in the first len bytes of a device (at least
 * LB_LVM_LABEL_BYTES to see all four sectors). Returns 0, -ENOENT (no
 * label), -EBADMSG (label CRC or fields bad), -EINVAL. */
int lb_lvm_label(const uint8_t *buf, size_t len, struct lb_lvm_label *out);

struct lb_lvm_raw {
	uint64_t offset;    /* of the text, from the metadata area start */
	uint64_t size;      /* text bytes (without the NUL LVM counts) */
	uint32_t checksum;  /* LVM's CRC of the text */
};

/* Check a metadata area header (hdr: len bytes read at the area's start,
 * mda_off/mda_size from the label) and say where the current text is.
 * Returns 0, -ENOENT (no metadata committed, or area marked ignored),
 * -EBADMSG, -EINVAL. */
int lb_lvm_mda_header(const uint8_t *hdr, size_t len, uint64_t mda_off,
		      uint64_t mda_size, struct lb_lvm_raw *out);

/* The text of raw from the area (mda: len bytes from its start; the text
 * may wrap round the end of the area to just after the header), its
 * checksum checked. *text is malloc'd, NUL-terminated. -ERANGE when mda
 * does not hold the bytes needed. */
int lb_lvm_mda_text(const uint8_t *mda, size_t len, uint64_t mda_size,
		    const struct lb_lvm_raw *raw, char **text, size_t *tlen);

struct lb_lvm_pv {
	char name[LB_LVM_NAME_MAX]; /* key in the metadata: "pv0" */
	char id[39];
	uint64_t dev_size, pe_start, pe_count; /* sectors, sectors, extents */
};

struct lb_lvm_stripe {
	size_t pv;        /* index into vg->pv */
	uint64_t extent;  /* first extent on that PV */
};

struct lb_lvm_seg {
	uint64_t start_extent, extent_count;
	char type[32];        /* "striped" (linear is striped with one stripe) */
	unsigned stripe_count;
	uint64_t stripe_size; /* sectors; 0 with one stripe */
	struct lb_lvm_stripe *stripes; /* stripe_count of them ("striped") */
};

struct lb_lvm_lv {
	char name[LB_LVM_NAME_MAX];
	char id[39];
	int visible;      /* status has "VISIBLE" */
	size_t n_seg;
	struct lb_lvm_seg *seg;
};

struct lb_lvm_vg {
	char name[LB_LVM_NAME_MAX];
	char id[39];
	uint64_t seqno;
	uint64_t extent_size; /* sectors */
	size_t n_pv, n_lv;
	struct lb_lvm_pv *pv;
	struct lb_lvm_lv *lv;
};

/* Parse metadata text (len bytes, NUL not needed). Returns 0 and fills
 * *vg (free with lb_lvm_vg_free), -EBADMSG (syntax, caps, inconsistent
 * volume group), -ENOMEM, -EINVAL. Segment types other than "striped" are
 * kept (type names them) but have no stripes. */
int lb_lvm_parse(const char *text, size_t len, struct lb_lvm_vg *vg);
void lb_lvm_vg_free(struct lb_lvm_vg *vg);

/* Find a PV of vg by id (dashes ignored); -1 if none. */
long lb_lvm_find_pv(const struct lb_lvm_vg *vg, const char *id);

struct lb_dm_target {
	uint64_t start, length; /* sectors of the mapped device */
	char type[16];          /* "linear", "striped" */
	char params[LB_LVM_MAX_STRIPES * 42 + 32];
};

/* The device-mapper table of lv: pvdev[i] is "MAJOR:MINOR" of the device
 * holding vg->pv[i], or NULL when that PV is missing. *t is malloc'd
 * (lv->n_seg targets). -ENODEV: a PV the LV uses is missing; -EOPNOTSUPP:
 * a segment type other than striped; -EBADMSG; -ENOMEM. */
int lb_lvm_table(const struct lb_lvm_vg *vg, const struct lb_lvm_lv *lv,
		 const char *const *pvdev, struct lb_dm_target **t, size_t *n);

#endif
