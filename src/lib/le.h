/*
 * Little-endian loads and stores on byte pointers (no alignment needed),
 * the one set for every on-disk and on-flash format: GPT, filesystems,
 * PE/COFF, UEFI firmware volumes, EFI/Tiano compression, lbootdxe.
 *
 * No includes and only C's own integer types, so that the freestanding DXE
 * driver (src/dxe, built with -nostdinc) shares it with the host and target
 * code; unsigned short/int/long long are the 16/32/64-bit types on every
 * target lboot builds for (checked below).
 */
#ifndef LB_LE_H
#define LB_LE_H

_Static_assert(sizeof(unsigned short) == 2 && sizeof(unsigned int) == 4 &&
	       sizeof(unsigned long long) == 8, "le.h: unexpected integer sizes");

static inline unsigned short le16(const void *v)
{
	const unsigned char *p = v;
	return (unsigned short)(p[0] | p[1] << 8);
}

static inline unsigned int le24(const void *v)
{
	const unsigned char *p = v;
	return (unsigned int)p[0] | (unsigned int)p[1] << 8 | (unsigned int)p[2] << 16;
}

static inline unsigned int le32(const void *v)
{
	const unsigned char *p = v;
	return (unsigned int)p[0] | (unsigned int)p[1] << 8 | (unsigned int)p[2] << 16 |
	       (unsigned int)p[3] << 24;
}

static inline unsigned long long le64(const void *v)
{
	const unsigned char *p = v;
	return le32(p) | (unsigned long long)le32(p + 4) << 32;
}

static inline void put_le16(void *v, unsigned short x)
{
	unsigned char *p = v;
	p[0] = (unsigned char)x;
	p[1] = (unsigned char)(x >> 8);
}

static inline void put_le24(void *v, unsigned int x)
{
	unsigned char *p = v;
	p[0] = (unsigned char)x;
	p[1] = (unsigned char)(x >> 8);
	p[2] = (unsigned char)(x >> 16);
}

static inline void put_le32(void *v, unsigned int x)
{
	unsigned char *p = v;
	put_le16(p, (unsigned short)x);
	put_le16(p + 2, (unsigned short)(x >> 16));
}

static inline void put_le64(void *v, unsigned long long x)
{
	unsigned char *p = v;
	put_le32(p, (unsigned int)x);
	put_le32(p + 4, (unsigned int)(x >> 32));
}

/* big-endian: XFS, coreboot's CBFS headers, attributes and payload segments */
static inline unsigned short be16(const void *v)
{
	const unsigned char *p = v;
	return (unsigned short)(p[0] << 8 | p[1]);
}

static inline unsigned int be32(const void *v)
{
	const unsigned char *p = v;
	return (unsigned int)p[0] << 24 | (unsigned int)p[1] << 16 | (unsigned int)p[2] << 8 |
	       (unsigned int)p[3];
}

static inline unsigned long long be64(const void *v)
{
	const unsigned char *p = v;
	return (unsigned long long)be32(p) << 32 | be32(p + 4);
}

static inline void put_be32(void *v, unsigned int x)
{
	unsigned char *p = v;
	p[0] = (unsigned char)(x >> 24);
	p[1] = (unsigned char)(x >> 16);
	p[2] = (unsigned char)(x >> 8);
	p[3] = (unsigned char)x;
}

#endif
