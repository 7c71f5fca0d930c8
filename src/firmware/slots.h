/*
 * Payload slots (A/B) in the boot flash (docs/firmware-update.md).
 *
 * The firmware kernel and initramfs change far more often than SEC, PEI and
 * DXE. `lboot mkrom --slots` gives them two slots in the flash; lbootdxe
 * boots the newest slot whose digest checks and falls back to the other, and
 * a payload update writes only the slot that is not running. Killing the
 * machine at any moment of a payload update leaves the running slot as it
 * was: the machine boots, the old payload or the new one.
 *
 * The slot table: a FREEFORM file (LBOOT_GUID_SLOTS, RAW section) in the
 * DXE volume, in the code that never changes with the payload (read-only
 * pflash unit 0 in QEMU; a protected range on a server):
 *   0   8  "LBSLOTS1"
 *   8   4  number of slots, 2
 *   12  4  zero
 *   16  8  each slot's size (a multiple of 4096)
 *   24  8  slot A: its start, in bytes below the end of the flash
 *   32  8  slot B: the same
 * A slot:
 *   0   8  "LBOOTSLT"
 *   8   4  format, 1
 *   12  4  zero
 *   16  8  version (the payload's firmware-version)
 *   24  8  length of the payload volume after this 4096-byte header
 *   32  32 SHA-256 of the payload volume
 *   64  64 label: printable ASCII, NUL-padded, at least one NUL
 *   128 40 the slot table this slot was built for (bytes 0-39 above)
 *   168    zeros up to 4096, then the payload volume (a firmware volume
 *          holding the kernel and initramfs files, mkrom's payload volume)
 * An erased slot (0xFF) is "empty". An update writes a slot with its first
 * erase block (the header) erased first and written last.
 *
 * Plain C with only le.h and BearSSL's hash header: built into lbootdxe
 * (with Debian's BearSSL sources compiled freestanding, mk/dxe.mk), lboot
 * and the host tools (with Debian's libbearssl.a).
 */
#ifndef LB_SLOTS_H
#define LB_SLOTS_H

#define LB_SLOT_HDR        4096u
#define LB_SLOT_TABLE_LEN  40u
#define LB_SLOT_FORMAT     1u
#define LB_SLOT_LABEL      64u

struct lb_slot_table {
	unsigned long long size;     /* each slot's bytes */
	unsigned long long below[2]; /* A, B: start, bytes below the flash end */
};

struct lb_slot_hdr {
	unsigned long long version;
	unsigned long long vol_len;
	unsigned char sha256[32];
	char label[LB_SLOT_LABEL + 1];
	struct lb_slot_table table;
};

/* what lb_slot_check found (negative) */
enum {
	LB_SLOT_OK = 0,
	LB_SLOT_EMPTY = -1,     /* erased: no header */
	LB_SLOT_BADHDR = -2,    /* a header that does not parse */
	LB_SLOT_OTHERTAB = -3,  /* built for another slot table (layout) */
	LB_SLOT_DIGEST = -4,    /* the payload's SHA-256 does not match */
};

/* One line for a result of lb_slot_check. */
const char *lb_slot_why(int rc);

/* Parse a slot table (n bytes); 0, or -1 when malformed. Checks that both
 * slots lie within max bytes below the end and do not overlap. */
int lb_slot_table_parse(const unsigned char *b, unsigned long long n,
			unsigned long long max, struct lb_slot_table *t);
void lb_slot_table_put(unsigned char b[LB_SLOT_TABLE_LEN], const struct lb_slot_table *t);

/* Parse the header of a slot of t->size bytes at slot (no digest). */
int lb_slot_parse(const unsigned char *slot, const struct lb_slot_table *t,
		  struct lb_slot_hdr *h);

/* Parse and check the digest of the slot's payload volume. */
int lb_slot_check(const unsigned char *slot, const struct lb_slot_table *t,
		  struct lb_slot_hdr *h);

/* Which slot to boot: the newest slot that checks (A on a tie); -1: none.
 * rc[i] gets each slot's result (checked only as far as needed: a slot
 * that cannot win is not hashed, its rc is its header's). top is the end of
 * the mapped flash. */
int lb_slot_pick(const unsigned char *top, const struct lb_slot_table *t,
		 struct lb_slot_hdr h[2], int rc[2]);

/* Write the header of a slot holding vol (vol_len bytes, the payload
 * volume) at hdr: version, label (may be NULL), SHA-256 of vol, t. */
void lb_slot_header_put(unsigned char hdr[LB_SLOT_HDR], unsigned long long version,
			const char *label, const unsigned char *vol,
			unsigned long long vol_len, const struct lb_slot_table *t);

/* The slot table of a whole flash image (len bytes) as its slot headers
 * carry it: the first header (digest not checked) whose own table puts it
 * where it is. 0, or -1 when no slot header is found. */
int lb_slot_table_in(const unsigned char *img, unsigned long long len, struct lb_slot_table *t);

/* Find the newest slot that checks in a whole flash image (len bytes):
 * a slot header at a 4 KiB-aligned offset whose own slot table puts it
 * there. 0 and *off, *t, *h; -1 when none checks. */
int lb_slot_find(const unsigned char *img, unsigned long long len, unsigned long long *off,
		 struct lb_slot_table *t, struct lb_slot_hdr *h);

#endif
