/* Finding lboot's payload in the memory-mapped flash (see flash.h). */
#include "flash.h"
#include "../lib/le.h"

#define FVH_SIG        0x4856465Fu /* "_FVH" */
#define FVB2_ERASE_POLARITY 0x00000800u
#define FFS_ATTR_LARGE 0x01
#define FFS_STATE_DATA_VALID 0x04
#define FFS_STATE_BAD  0x38 /* MARKED_FOR_UPDATE | DELETED | HEADER_INVALID */

/* EFI_FIRMWARE_FILE_SYSTEM2_GUID, EFI_FIRMWARE_FILE_SYSTEM3_GUID */
static const unsigned char ffs2[16] = { 0x78, 0xE5, 0x8C, 0x8C, 0x3D, 0x8A, 0x1C, 0x4F,
	0x99, 0x35, 0x89, 0x61, 0x85, 0xC3, 0x2D, 0xD3 };
static const unsigned char ffs3[16] = { 0x7A, 0xC0, 0x73, 0x54, 0xCB, 0x3D, 0xCA, 0x4D,
	0xBD, 0x6F, 0x1E, 0x96, 0x89, 0xE7, 0x34, 0x9A };

static int same16(const unsigned char *a, const unsigned char *b)
{
	for (int i = 0; i < 16; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

/* Is there a volume header at p whose volume is exactly len bytes long?
 * 1: an FFS2/FFS3 volume (files to look at), 2: another file system (the
 * variable store: a link of the chain, nothing to read in it), 0: no. */
static int is_volume(const unsigned char *p, unsigned long long len)
{
	unsigned hlen;
	unsigned sum = 0;

	if (le32(p + 40) != FVH_SIG || le64(p + 32) != len)
		return 0;
	hlen = (unsigned)le16(p + 48);
	if (hlen < 56 + 8 || (hlen & 1) || hlen > len)
		return 0;
	for (unsigned i = 0; i < hlen; i += 2)
		sum += (unsigned)le16(p + i);
	if ((sum & 0xFFFF) != 0)
		return 0;
	return same16(p + 16, ffs2) || same16(p + 16, ffs3) ? 1 : 2;
}

/* Sections of one file body [d, d + n): the first of type t. */
static int find_section(const unsigned char *d, unsigned long long n, unsigned char t,
			const unsigned char **data, unsigned long long *size)
{
	unsigned long long off = 0;

	while (off + 4 <= n) {
		unsigned long long sz = le24(d + off), hl = 4;
		if (sz == 0xFFFFFF) {
			if (off + 8 > n)
				return -2;
			sz = le32(d + off + 4);
			hl = 8;
		}
		if (sz < hl || sz > n - off)
			return -2;
		if (d[off + 3] == t) {
			*data = d + off + hl;
			*size = sz - hl;
			return 0;
		}
		off += (sz + 3) & ~3ull;
	}
	return -1;
}

/* Files of the volume [v, v + len). */
static int find_in_volume(const unsigned char *v, unsigned long long len,
			  const unsigned char guid[16], unsigned char t,
			  const unsigned char **data, unsigned long long *size)
{
	unsigned long long off = le16(v + 48), ext = le16(v + 52);
	unsigned char erased = (le32(v + 44) & FVB2_ERASE_POLARITY) ? 0xFF : 0x00;

	if (ext) {
		unsigned long long es;
		if (ext < off || ext + 20 > len)
			return -2;
		es = le32(v + ext + 16);
		if (es < 20 || es > len - ext)
			return -2;
		off = ext + es;
	}
	for (;;) {
		unsigned long long sz, hl = 24;
		unsigned char state, sum = 0;
		int blank = 1;

		off = (off + 7) & ~7ull;
		if (off + 24 > len)
			return -1;
		const unsigned char *f = v + off;
		for (int i = 0; i < 24 && blank; i++)
			blank = f[i] == erased;
		if (blank)
			return -1; /* free space: the end of the files */
		sz = le24(f + 20);
		if (f[19] & FFS_ATTR_LARGE) {
			if (off + 32 > len)
				return -2;
			sz = le64(f + 24);
			hl = 32;
		}
		if (sz < hl || sz > len - off)
			return -2;
		for (unsigned long long i = 0; i < hl; i++)
			if (i != 17 && i != 23) /* file checksum, state */
				sum = (unsigned char)(sum + f[i]);
		if (sum != 0)
			return -2;
		state = erased ? (unsigned char)~f[23] : f[23];
		if ((state & FFS_STATE_DATA_VALID) && !(state & FFS_STATE_BAD) &&
		    same16(f, guid))
			return find_section(f + hl, sz - hl, t, data, size);
		off += sz;
	}
}

int lb_flash_find(const unsigned char *top, unsigned long long max_scan,
		  const unsigned char guid[16], unsigned char sect_type,
		  const unsigned char **data, unsigned long long *size,
		  unsigned *nvols)
{
	unsigned long long end = 0; /* offset below top where the next volume ends */
	unsigned n = 0;
	int rc = -1;

	while (n < LB_FLASH_MAX_VOLS) {
		unsigned long long start;
		int found = 0;

		for (start = end + LB_FLASH_ALIGN; start <= max_scan; start += LB_FLASH_ALIGN) {
			if ((found = is_volume(top - start, start - end)))
				break;
		}
		if (!found)
			break;
		n++;
		if (found == 1) {
			rc = find_in_volume(top - start, start - end, guid, sect_type, data, size);
			if (rc != -1)
				break;
		}
		end = start;
	}
	if (nvols)
		*nvols = n;
	return rc;
}

unsigned long long lb_flash_extent(const unsigned char *top, unsigned long long max_scan)
{
	unsigned long long end = 0;

	for (unsigned n = 0; n < LB_FLASH_MAX_VOLS; n++) {
		unsigned long long start;
		int found = 0;

		for (start = end + LB_FLASH_ALIGN; start <= max_scan; start += LB_FLASH_ALIGN)
			if ((found = is_volume(top - start, start - end)))
				break;
		if (!found)
			break;
		end = start;
	}
	return end;
}
