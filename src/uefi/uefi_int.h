/* Internals shared by the uefi_*.c files (not an API). */
#ifndef LB_UEFI_INT_H
#define LB_UEFI_INT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "crc32.h"
#include "le.h"
#include "uefi.h"

#define FVH_SIGNATURE 0x4856465Fu /* "_FVH" */
#define FVH_MIN_HDR   0x40u       /* 0x38 + one block map entry + terminator... at least the terminator */
#define FVB2_ERASE_POLARITY 0x00000800u
#define FFS_HDR_SIZE  24u
#define FFS_HDR2_SIZE 32u
#define FFS_FIXED_CHECKSUM 0xAAu  /* PI FFS2/FFS3 */
#define FFS_FIXED_CHECKSUM_V1 0x5Au /* Framework (volume revision 1) */
#define FFS_MAX_SIZE  0xFFFFFFu
#define FILE_HEADER_CONSTRUCTION 0x01
#define FILE_HEADER_VALID 0x02
#define FILE_DATA_VALID 0x04
#define GUIDED_PROCESSING_REQUIRED 0x01
#define GUIDED_AUTH_STATUS_VALID 0x02

extern const uint8_t lb_guid_ffs2[16], lb_guid_ffs3[16], lb_guid_lzma[16],
	lb_guid_lzmaf86[16], lb_guid_crc32[16], lb_guid_vtf[16];

static inline size_t align_up(size_t v, size_t a) { return (v + a - 1) & ~(a - 1); }

static inline uint8_t sum8(const uint8_t *p, size_t n)
{
	uint8_t s = 0;
	while (n--)
		s = (uint8_t)(s + *p++);
	return s;
}

/* Growable output buffer. */
struct obuf {
	uint8_t *p;
	size_t len, cap;
};
int ob_reserve(struct obuf *o, size_t more);
int ob_put(struct obuf *o, const void *d, size_t n);
int ob_fill(struct obuf *o, uint8_t b, size_t n);

/* img->err (printf format); returns rc for `return seterr(...)`. */
int uefi_seterr(struct lb_uefi_image *img, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

struct lb_uefi_node *uefi_node_new(struct lb_uefi_image *img, struct lb_uefi_node *parent,
				   enum lb_uefi_kind kind);
void uefi_node_free(struct lb_uefi_node *n);
int uefi_node_detach(struct lb_uefi_node *n);
void uefi_mark_dirty(struct lb_uefi_node *n);
/* Parse an FFS file (bytes at p, exactly len long) as a child of vol. */
int uefi_parse_file_at(struct lb_uefi_image *img, struct lb_uefi_node *vol,
		       const uint8_t *p, size_t len, uint64_t abs, int depth,
		       struct lb_uefi_node **out);
/* Parse a section stream into children of parent. */
int uefi_parse_sections(struct lb_uefi_image *img, struct lb_uefi_node *parent,
			const uint8_t *p, size_t len, uint64_t abs, int depth);
/* Find the UI name in a file's sections (not inside nested volumes). */
void uefi_file_name(struct lb_uefi_node *file);
uint32_t uefi_file_align(uint8_t attrib);

/* Finish an FFS header (hsz 24 or 32 bytes, name/type/attributes already
 * set): size fields, checksums (`fixed`: the data checksum byte used without
 * FFS_ATTRIB_CHECKSUM), State (valid, for the erase byte). */
void uefi_ffs_header(uint8_t *hdr, size_t hsz, const uint8_t *body, size_t body_len,
		     uint8_t erase, uint8_t fixed);
/* Length of a section's headers (up to its data) read from its bytes, or 0. */
size_t uefi_sec_hdr_len(const uint8_t *p, size_t len);
/* Serialize one node (uefi_write.c). */
int uefi_ser_node(struct lb_uefi_image *img, struct lb_uefi_node *n, struct obuf *o);
int uefi_ser_stream(struct lb_uefi_image *img, struct lb_uefi_node *n, struct obuf *o);

/* Codecs (uefi_codec.c). All malloc'd output; max caps the result. */
int uefi_lzma_decode(const uint8_t *in, size_t len, int x86, size_t max,
		     uint8_t **out, size_t *out_len);
int uefi_lzma_encode(const uint8_t *in, size_t len, int x86, uint8_t **out, size_t *out_len);

#endif
