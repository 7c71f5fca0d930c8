/*
 * A Linux payload for coreboot (cbfs.h: lb_cbfs_linux_payload): the
 * payload format coreboot's selfboot loads (struct cbfs_payload_segment,
 * big-endian, then each segment's bytes), holding an x86 bzImage, its
 * initrd and command line, laid out where cbfstool's add-payload lays them:
 *
 *   DATA  0x90000   the zero page (struct boot_params): the kernel's own
 *                   setup header, loader 0xff, code32_start, initrd,
 *                   command line pointer; the e820 map is added at boot
 *   CODE  kbase     the kernel's protected-mode part (after its setup
 *                   sectors): 16 MiB aligned as the kernel asks when it is
 *                   relocatable, else its preferred address
 *   CODE  0x40000   lboot's trampoline (trampoline/trampoline.c): coreboot
 *                   table -> e820, GDT, Linux's 32-bit entry
 *   DATA  0x91000   the command line, NUL-terminated
 *   DATA  ibase     the initrd, past the kernel's whole init_size
 *   ENTRY 0x40000
 *
 * Unlike cbfstool, the zero page carries the kernel's whole setup header
 * (as the boot protocol asks of a loader), the initrd is placed past what
 * the kernel decompresses into (init_size) and below initrd_addr_max, and
 * the command line is checked against the kernel's cmdline_size; every
 * field read from the bzImage is checked first. Segments are stored,
 * LZMA or LZ4 (the LZ4 frame cbfstool writes, lz4.c; coreboot's selfboot
 * decodes it with ulz4fn into the segment's memsz).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cbfs.h"
#include "cbfs/trampoline.h" /* build/: lb_cbfs_trampoline[], generated */
#include "io.h"
#include "le.h"
#include "uefi/uefi.h"

#define TRAMP_LOC   0x40000u
#define ZP_LOC      0x90000u
#define CMDLINE_LOC 0x91000u
#define CMDLINE_MAX 0x1000u   /* 0x91000-0x92000 */
#define ZP_SIZE     0x1000u
#define SEG_SIZE    28u

struct seg {
	uint32_t type;
	uint64_t load;
	const uint8_t *d;
	size_t len;
};

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

int lb_cbfs_linux_payload(const struct lb_cbfs_linux *in, uint8_t **out, size_t *outlen, char *why,
			  size_t whysz)
{
	const uint8_t *bz = in->kernel;
	size_t klen = in->klen, setup, hend, clen = in->cmdline ? strlen(in->cmdline) + 1 : 0;
	uint8_t zp[ZP_SIZE];
	uint32_t ver, kalign, cmax, imax;
	uint64_t kbase, kend, ibase = 0;
	struct seg s[6];
	size_t n = 0;
	uint8_t *p = NULL;

	*out = NULL;
	*outlen = 0;
	if (klen < 0x268 || le16(bz + 0x1fe) != 0xaa55 || memcmp(bz + 0x202, "HdrS", 4))
		return lb_whyf(why, whysz, -EINVAL,
			    "not an x86 bzImage (no boot sector signature 0xaa55 at 0x1fe and 'HdrS' at 0x202)");
	ver = le16(bz + 0x206);
	if (ver < 0x20a)
		return lb_whyf(why, whysz, -EINVAL, "boot protocol %u.%02u: 2.10 or later is needed",
			    ver >> 8, ver & 0xff);
	if (!(bz[0x211] & 1))
		return lb_whyf(why, whysz, -EINVAL, "a zImage (not loaded high): a bzImage is needed");
	setup = ((size_t)(bz[0x1f1] ? bz[0x1f1] : 4) + 1) * 512;
	if (setup >= klen)
		return lb_whyf(why, whysz, -EINVAL, "setup sectors (%zu bytes) reach past the file's %zu bytes",
			    setup, klen);
	hend = 0x202u + bz[0x201];
	if (hend > 0x290 || hend > klen)
		return lb_whyf(why, whysz, -EINVAL, "setup header ends at 0x%zx, past 0x290 or the file", hend);

	kalign = le32(bz + 0x230);
	if (bz[0x234]) {
		if (!kalign || (kalign & (kalign - 1)) || kalign > (1u << 30))
			return lb_whyf(why, whysz, -EINVAL, "kernel_alignment 0x%x is not a power of two up to 1 GiB",
				    kalign);
		kbase = align_up(16u << 20, kalign < 4096 ? 4096 : kalign);
	} else {
		kbase = le64(bz + 0x258);
		if (kbase >> 32 || kbase < 0x100000)
			return lb_whyf(why, whysz, -EINVAL,
				    "not relocatable and its preferred address 0x%llx is not between 1 MiB and 4 GiB",
				    (unsigned long long)kbase);
	}
	kend = kbase + ((klen - setup) > le32(bz + 0x260) ? (klen - setup) : le32(bz + 0x260));
	if (kend > 0xffffffffull)
		return lb_whyf(why, whysz, -E2BIG, "the kernel would end at 0x%llx, past 4 GiB",
			    (unsigned long long)kend);
	cmax = le32(bz + 0x238) + 1;
	if (cmax > CMDLINE_MAX || cmax < 2)
		cmax = CMDLINE_MAX;
	if (clen > cmax)
		return lb_whyf(why, whysz, -E2BIG, "the command line is %zu bytes; this kernel takes at most %u",
			    clen - 1, cmax - 1);
	if (in->ilen) {
		imax = le32(bz + 0x22c);
		ibase = align_up(kend, 1u << 20);
		if (ibase + in->ilen - 1 > imax)
			return lb_whyf(why, whysz, -E2BIG,
				    "the initrd (%zu bytes at 0x%llx) would end past the kernel's initrd_addr_max 0x%x",
				    in->ilen, (unsigned long long)ibase, imax);
	}

	memset(zp, 0, sizeof(zp));
	memcpy(zp + 0x1f1, bz + 0x1f1, hend - 0x1f1);
	/* screen_info as cbfstool writes it: VGA text mode 3, 80x25 */
	zp[0x06] = 3;
	zp[0x07] = 80;
	zp[0x0e] = 25;
	zp[0x0f] = 1;
	zp[0x10] = 16;
	zp[0x210] = 0xff;                            /* type_of_loader: undefined */
	put_le32(zp + 0x214, (uint32_t)kbase);       /* code32_start */
	put_le32(zp + 0x218, (uint32_t)ibase);       /* ramdisk_image */
	put_le32(zp + 0x21c, (uint32_t)in->ilen);    /* ramdisk_size */
	put_le32(zp + 0x228, clen ? CMDLINE_LOC : 0); /* cmd_line_ptr */

	s[n++] = (struct seg){ LB_CBFS_SEG_DATA, ZP_LOC, zp, sizeof(zp) };
	s[n++] = (struct seg){ LB_CBFS_SEG_CODE, kbase, bz + setup, klen - setup };
	s[n++] = (struct seg){ LB_CBFS_SEG_CODE, TRAMP_LOC, lb_cbfs_trampoline, sizeof(lb_cbfs_trampoline) };
	if (clen)
		s[n++] = (struct seg){ LB_CBFS_SEG_DATA, CMDLINE_LOC, (const uint8_t *)in->cmdline, clen };
	if (in->ilen)
		s[n++] = (struct seg){ LB_CBFS_SEG_DATA, ibase, in->initrd, in->ilen };
	s[n++] = (struct seg){ LB_CBFS_SEG_ENTRY, TRAMP_LOC, NULL, 0 };

	if (in->comp != LB_CBFS_COMP_NONE && in->comp != LB_CBFS_COMP_LZMA &&
	    in->comp != LB_CBFS_COMP_LZ4)
		return lb_whyf(why, whysz, -ENOTSUP, "lboot writes payload segments stored, LZMA or LZ4");
	uint8_t *z[6] = { 0 };
	size_t zl[6], total = n * SEG_SIZE, off = total;
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i++) {
		zl[i] = s[i].len;
		if (s[i].len && in->comp == LB_CBFS_COMP_LZMA &&
		    (rc = lb_uefi_lzma_encode(s[i].d, s[i].len, &z[i], &zl[i])))
			lb_whyf(why, whysz, rc, "segment %zu: LZMA: %s", i, strerror(-rc));
		if (s[i].len && in->comp == LB_CBFS_COMP_LZ4 &&
		    (rc = lb_lz4f_encode(s[i].d, s[i].len, &z[i], &zl[i])))
			lb_whyf(why, whysz, rc, "segment %zu: LZ4: %s", i, strerror(-rc));
		/* coreboot's selfboot cuts a segment's stored length to its
		 * memory size ("cleaned up filesize"): one that LZMA or LZ4
		 * does not shrink (the command line) is stored as it is, as
		 * cbfstool does */
		if (!rc && z[i] && zl[i] >= s[i].len) {
			free(z[i]);
			z[i] = NULL;
			zl[i] = s[i].len;
		}
		/* what is written must read back: decoded into exactly the
		 * segment's memory size, as selfboot decodes it */
		if (!rc && z[i]) {
			uint8_t *back = NULL;
			size_t blen = 0;
			int r = lb_cbfs_decompress(in->comp, z[i], zl[i], s[i].len, &back, &blen);

			if (r || blen != s[i].len || memcmp(back, s[i].d, blen))
				rc = lb_whyf(why, whysz, r ? r : -EIO,
					  "segment %zu: the %s data does not read back as the bytes put there",
					  i, lb_cbfs_comp_name(in->comp));
			free(back);
		}
		total += zl[i];
	}
	if (!rc && total > UINT32_MAX)
		rc = lb_whyf(why, whysz, -E2BIG, "the payload would be %zu bytes: past 4 GiB", total);
	if (!rc && !(p = malloc(total)))
		rc = lb_whyf(why, whysz, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n && !rc; i++) {
		uint8_t *h = p + i * SEG_SIZE;

		put_be32(h, s[i].type);
		put_be32(h + 4, z[i] ? in->comp : 0);
		put_be32(h + 8, s[i].len ? (uint32_t)off : 0);
		put_be32(h + 12, (uint32_t)(s[i].load >> 32));
		put_be32(h + 16, (uint32_t)s[i].load);
		put_be32(h + 20, (uint32_t)zl[i]);
		put_be32(h + 24, (uint32_t)s[i].len);
		if (zl[i])
			memcpy(p + off, z[i] ? z[i] : s[i].d, zl[i]);
		off += zl[i];
	}
	for (size_t i = 0; i < n; i++)
		free(z[i]);
	if (rc)
		return rc;
	*out = p;
	*outlen = off;
	return 0;
}
