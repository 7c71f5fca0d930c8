/*
 * coreboot's tables, read by lboot at run time when coreboot is the
 * firmware (docs/coreboot.md): the table (signature "LBIO") where coreboot
 * leaves it, its records, and the log of coreboot's own TPM measurements
 * (coreboot 4.x's TCPA log in CBMEM, record LB_TAG_TCPA_LOG).
 *
 * Layout (coreboot's commonlib/coreboot_tables.h and tcpa_log_serialized.h,
 * all little-endian):
 *   header   "LBIO", header_bytes (24), header_checksum, table_bytes,
 *            table_checksum, table_entries; the records follow it. Both
 *            checksums are the IP checksum (RFC 1071): over the header it
 *            sums to 0, over the records it equals table_checksum.
 *   record   tag, size (of the whole record, >= 8), data. FORWARD (0x11)
 *            holds the 64-bit address of the real table (the low table at
 *            0-4 KiB or 0xf0000-1 MiB points into CBMEM); TCPA_LOG (0x36)
 *            holds the 64-bit address of the log.
 *   TCPA log u16 max_entries, u16 num_entries, then entries of 132 bytes:
 *            u32 pcr, char digest_type[10] ("SHA256"), u8 digest[64],
 *            u32 digest_length, char name[50].
 *
 * Every byte comes from memory the firmware left and is treated as hostile:
 * both checksums, every record inside the table, at most 4 forwards, the
 * table at most 1 MiB, at most 256 log entries, each entry's PCR, algorithm,
 * digest length and name (printable ASCII) checked; one bad entry refuses
 * the whole log (why says which). Pure parsers over a reader callback (a
 * file in tests, /dev/mem in PID 1); 0 or a negative errno, never logs.
 */
#ifndef LB_COREBOOT_H
#define LB_COREBOOT_H

#include <stddef.h>
#include <stdint.h>

#define LB_CB_MAX_TABLE    (1u << 20)
#define LB_CB_MAX_FORWARDS 4
#define LB_CB_MAX_MEVENTS  256u
#define LB_CB_TAG_FORWARD  0x11u
#define LB_CB_TAG_TCPA_LOG 0x36u
#define LB_CB_TAG_CBMEM_CONSOLE 0x17u
#define LB_CB_CONSOLE_MAX  (16u << 20)  /* body bytes lboot handles (coreboot: 128 KiB) */
#define LB_CB_TCPA_ENTRY   132u
#define LB_CB_NAME_MAX     50u

/* Physical memory: len bytes at addr into buf; 0 or a negative errno. */
typedef int (*lb_cb_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

/* The table: found in [0, 4 KiB) then [0xf0000, 1 MiB) on 16-byte steps,
 * both checksums right, forwards followed. *tbl: a malloc'd copy of the
 * header and records (*len bytes), *addr where it was. -ENODEV: none
 * (not coreboot: every lb_cb_* that looks for the table says so). */
int lb_cb_table(lb_cb_read_fn rd, void *ctx, uint8_t **tbl, size_t *len, uint64_t *addr,
		char *why, size_t whysz);

/* The first record with tag in a table lb_cb_table returned (NULL: none);
 * *size: the record's size (>= 8, inside the table). */
const uint8_t *lb_cb_record(const uint8_t *tbl, size_t len, uint32_t tag, uint32_t *size);

/* One measurement coreboot made. */
struct lb_cb_mevent {
	uint32_t pcr;
	unsigned alg;                       /* hash.h enum lb_hash_alg */
	uint8_t digest[64];
	char name[LB_CB_NAME_MAX + 1];
};

/* The TCPA log's entries (b: the log's bytes, len of them). */
int lb_cb_tcpa_parse(const uint8_t *b, size_t len, struct lb_cb_mevent *ev, size_t max,
		     size_t *n, char *why, size_t whysz);

/* All of it: the table, its TCPA_LOG record, the log's entries.
 * -ENODEV: no table; -ENOENT: no TCPA log in it. */
int lb_cb_measurements(lb_cb_read_fn rd, void *ctx, struct lb_cb_mevent *ev, size_t max,
		       size_t *n, char *why, size_t whysz);

/*
 * coreboot's console in CBMEM (record CBMEM_CONSOLE, 0x17: its address):
 * u32 size (of the body), u32 cursor (bits 0-27 where the next byte goes,
 * bit 31 set once it wrapped: a ring buffer), then the body.
 * lb_cb_console_text: con (len bytes: header + body) as text in order (the
 * oldest byte first when it wrapped; a malloc'd copy, NUL-terminated).
 * lb_cb_console_append: s appended as coreboot's cbmemc_tx_byte does
 * (wrapping, setting the flag). Both check size and cursor against len.
 */
int lb_cb_console_text(const uint8_t *con, size_t len, char **text, size_t *tlen, char *why,
		       size_t whysz);
int lb_cb_console_append(uint8_t *con, size_t len, const char *s, size_t n, char *why, size_t whysz);
/* Where the console is: its address and its whole length (header + body). */
int lb_cb_console_find(lb_cb_read_fn rd, void *ctx, uint64_t *addr, size_t *len, char *why,
		       size_t whysz);
/* Append s to the console through a shared mapping of mem (NULL: /dev/mem;
 * a regular file in tests). *addr: where the console is. */
int lb_cb_console_write(const char *mem, const char *s, size_t n, uint64_t *addr, char *why,
			size_t whysz);

/* A reader for lb_cb_*: ctx is a path (NULL: /dev/mem, mapped a window at
 * a time; a regular file: read at the address as offset). */
int lb_cb_read_mem(void *ctx, uint64_t addr, void *buf, size_t len);

#endif
