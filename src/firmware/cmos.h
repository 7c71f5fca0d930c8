/*
 * coreboot's CMOS options (docs/coreboot.md): the battery-backed RTC RAM,
 * laid out by the board's option table (cmos.layout, built into
 * cmos_layout.bin in CBFS and copied by coreboot into its table as record
 * CMOS_OPTION_TABLE, 0xc8). nvramtool reads and writes options by name;
 * lboot does the same for its boot state under coreboot (bootstate.h,
 * timefloor.h): lboot_oneshot, lboot_default, lboot_last, lboot_timefloor.
 *
 * The table (coreboot's commonlib/coreboot_tables.h, little-endian u32s):
 *   header   tag 0xc8, size (the whole table), header_length; then records:
 *   entry    0xc9: size, bit, length (bits), config ('e' enum, 'h' hex,
 *            's' string, 'r' reserved), config_id, name (NUL-terminated)
 *   enum     0xca: size, config_id, value, text
 *   defaults 0xcb (skipped)
 *   checksum 0xcc: size, range_start, range_end (last bit), location, type
 *            (1: the PC BIOS sum: the bytes' 16-bit sum, big-endian at
 *            location); coreboot also puts it beside the table as its own
 *            record.
 * Bits count from bit 0 of byte 0; a value's bit i is bit (bit+i)%8 of
 * byte (bit+i)/8 (little-endian); string byte i is byte bit/8+i.
 *
 * The layout comes from firmware memory or a ROM (hostile): every record
 * inside the table and at least its fixed size, names NUL-terminated and
 * printable, at most 256 entries and 256 enums, every entry inside 256
 * bytes and not on the clock's 14 bytes (unless reserved), strings and
 * multi-byte numbers whole bytes (numbers wider than 64 bits are in real
 * layouts: they cannot be read or written), at most one checksum
 * with its range and location inside, byte-aligned and apart. Pure: the
 * image is a 256-byte array; reading and writing the real CMOS is
 * lb_cmos_load/lb_cmos_commit through /dev/port (index 0x70/0x71, bytes
 * 128-255 through 0x72/0x73, as coreboot's cmos_read) or a file (a CMOS
 * dump as nvramtool -D reads, offset = index).
 */
#ifndef LB_CMOS_H
#define LB_CMOS_H

#include <stddef.h>
#include <stdint.h>

#include "coreboot.h"

#define LB_CB_TAG_CMOS_OPTION_TABLE 0xc8u
#define LB_CMOS_TAG_ENTRY    0xc9u
#define LB_CMOS_TAG_ENUM     0xcau
#define LB_CMOS_TAG_DEFAULTS 0xcbu
#define LB_CMOS_TAG_CHECKSUM 0xccu
#define LB_CMOS_SIZE      256u
#define LB_CMOS_RTC_BYTES 14u    /* the clock's registers: never options */
#define LB_CMOS_MAX_ENTRIES 256u
#define LB_CMOS_MAX_ENUMS   256u
#define LB_CMOS_NAME_MAX    32u

struct lb_cmos_entry {
	uint32_t bit, length, config_id;
	char config;                      /* 'e', 'h', 's', 'r' */
	char name[LB_CMOS_NAME_MAX + 1];
};

struct lb_cmos_enum {
	uint32_t config_id, value;
	char text[LB_CMOS_NAME_MAX + 1];
};

struct lb_cmos_layout {
	struct lb_cmos_entry e[LB_CMOS_MAX_ENTRIES];
	struct lb_cmos_enum en[LB_CMOS_MAX_ENUMS];
	size_t n, n_enum;
	int has_cks;
	unsigned cks_start, cks_end, cks_loc;  /* bytes; end inclusive */
};

/* The option table (b: its len bytes, from tag 0xc8 on) into lay. */
int lb_cmos_layout_parse(const uint8_t *b, size_t len, struct lb_cmos_layout *lay, char *why,
			 size_t whysz);

const struct lb_cmos_entry *lb_cmos_find(const struct lb_cmos_layout *lay, const char *name);
/* The option name when it has type ('s', 'h', 'e') and min to max bits,
 * else NULL: what a user of one option (lboot_last: 'h', 32 bits) needs. */
const struct lb_cmos_entry *lb_cmos_option(const struct lb_cmos_layout *lay, const char *name,
					   char type, uint32_t min, uint32_t max);
/* The enum text of value v for e ('e' entries), or NULL. */
const char *lb_cmos_enum_text(const struct lb_cmos_layout *lay, const struct lb_cmos_entry *e,
			      uint64_t v);

/* On an image (LB_CMOS_SIZE bytes). Numbers: 'e' and 'h' entries of at
 * most 64 bits (lb_cmos_get reads the first 64 of a wider one). */
uint64_t lb_cmos_get(const uint8_t *img, const struct lb_cmos_entry *e);
/* -ERANGE: v does not fit e's bits; -E2BIG: e is wider than 64 bits. */
int lb_cmos_set(uint8_t *img, const struct lb_cmos_entry *e, uint64_t v);
/* A string entry's bytes up to the first NUL (out: at least length/8 + 1). */
void lb_cmos_get_str(const uint8_t *img, const struct lb_cmos_entry *e, char *out);
/* -E2BIG: s longer than the entry (a full-length string has no NUL). */
int lb_cmos_set_str(uint8_t *img, const struct lb_cmos_entry *e, const char *s);

/* The checksum over the layout's range, and whether the image holds it
 * (1 also when the layout has none). */
uint16_t lb_cmos_cks_compute(const struct lb_cmos_layout *lay, const uint8_t *img);
int lb_cmos_cks_ok(const struct lb_cmos_layout *lay, const uint8_t *img);
void lb_cmos_cks_set(const struct lb_cmos_layout *lay, uint8_t *img);

/* The CMOS itself: path NULL is /dev/port (the hardware), else a dump of
 * it (as nvramtool -b writes and -D reads: offset = index), replaced
 * atomically by a commit. */
struct lb_cmos {
	struct lb_cmos_layout lay;
	uint8_t img[LB_CMOS_SIZE], was[LB_CMOS_SIZE];
	unsigned size;                    /* bytes used: 128 or 256 */
	const char *path;                 /* NULL: /dev/port; else a dump */
	size_t file_len;
};
/* The bytes past the clock's into c->img and c->was (size: 128 when the
 * layout uses no byte past 127, else 256). */
int lb_cmos_load(struct lb_cmos *c, char *why, size_t whysz);
/* The checksum set, then the bytes that differ from c->was written (the
 * checksum last) and read back. */
int lb_cmos_commit(struct lb_cmos *c, char *why, size_t whysz);

/*
 * Per architecture (src/firmware/cmos_port_ARCH.c): the hardware. x86-64:
 * /dev/port (index 0x70/0x71, 0x72/0x73 past byte 127); arm64 has no PC
 * CMOS and fails with -ENODEV. lb_cmos_port_open: an fd for
 * lb_cmos_port_xfer, or a negative errno; lb_cmos_port_xfer: byte i read
 * into *v (wr 0) or *v written; lb_cmos_port_name: what messages call it.
 */
int lb_cmos_port_open(void);
int lb_cmos_port_xfer(int fd, unsigned i, uint8_t *v, int wr);
extern const char lb_cmos_port_name[];

/*
 * The running coreboot's CMOS: its table (coreboot.h, read through rd),
 * the option table in it, the CMOS loaded from /dev/port. -ENODEV: not
 * coreboot (no table); -ENOENT: no option table (why says).
 */
int lb_cmos_open(struct lb_cmos *c, lb_cb_read_fn rd, void *ctx, char *why, size_t whysz);

/* The running coreboot's CMOS, opened once by PID 1 (NULL otherwise, and in
 * tests unless set): the boot state's home under coreboot (bootstate.h,
 * timefloor.h). */
extern struct lb_cmos *lb_cmos_boot;

#endif
