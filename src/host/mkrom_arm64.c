/*
 * lboot mkrom for AAVMF (arm64, QEMU virt): the layout of pflash unit 0.
 *
 * AAVMF_CODE.fd is 2 MiB of firmware padded to 64 MiB with zeros; QEMU virt
 * maps unit 0 at address 0 and unit 1 (the variable store) at 64 MiB. The
 * pruned firmware keeps its place (SEC at 0, FVMAIN_COMPACT at 0x1000 with
 * the LZMA-compressed DXE volume, as OVMF); the kernel and the initramfs go
 * uncompressed into a payload volume of their own in the padding, from
 * LB_MKROM_ARM64_PAYLOAD_AT to the end of unit 0, so that it ends where
 * lbootdxe's flash walk starts (src/dxe/arm64/cpu.h: LB_DXE_FLASH_TOP, and
 * LB_DXE_FLASH_MAP_BASE, the same 2 MiB: AAVMF maps only its own 2 MiB,
 * lbootdxe maps the rest). Unit 1 is AAVMF_VARS.fd unchanged. Everything
 * in unit 0 is read-only to the guest (readonly=on).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mkrom.h"
#include "io.h"

/* The machine of a PE32/PE32+ image (0x8664 X64, 0xAA64 AArch64), 0 if not PE. */
static unsigned pe_machine(const uint8_t *b, size_t n)
{
	uint32_t o;

	if (n < 0x40 || b[0] != 'M' || b[1] != 'Z')
		return 0;
	o = b[0x3c] | (uint32_t)b[0x3d] << 8 | (uint32_t)b[0x3e] << 16 | (uint32_t)b[0x3f] << 24;
	if (o > n - 6 || memcmp(b + o, "PE\0\0", 4))
		return 0;
	return b[o + 4] | (unsigned)b[o + 5] << 8;
}

int lb_mkrom_arch_of_pe(const uint8_t *b, size_t n)
{
	switch (pe_machine(b, n)) {
	case 0x8664: return LB_MKROM_ARCH_X86_64;
	case 0xAA64: return LB_MKROM_ARCH_ARM64;
	default: return LB_MKROM_ARCH_AUTO;
	}
}

const char *lb_mkrom_arch_name(int arch)
{
	return arch == LB_MKROM_ARCH_ARM64 ? "arm64" :
	       arch == LB_MKROM_ARCH_X86_64 ? "x86_64" : "unknown";
}

int lb_mkrom_parse_arch(const char *s, int *arch)
{
	if (!s)
		return -EINVAL;
	if (!strcmp(s, "auto"))
		*arch = LB_MKROM_ARCH_AUTO;
	else if (!strcmp(s, "x86_64") || !strcmp(s, "x64") || !strcmp(s, "amd64"))
		*arch = LB_MKROM_ARCH_X86_64;
	else if (!strcmp(s, "arm64") || !strcmp(s, "aarch64") || !strcmp(s, "aa64"))
		*arch = LB_MKROM_ARCH_ARM64;
	else
		return -EINVAL;
	return 0;
}

/* --dxe-console on arm64: "pl011" (QEMU virt's UART0, 0x09000000), "none"
 * (0), or "0xADDR" (the PL011's MMIO base, 4 KiB aligned, below 2^48). */
int lb_mkrom_parse_console_arm64(const char *s, uint64_t *base)
{
	unsigned long long v = 0;
	const char *p;

	if (!s)
		return -EINVAL;
	if (!strcmp(s, "pl011")) {
		*base = LB_MKROM_ARM64_PL011;
		return 0;
	}
	if (!strcmp(s, "none")) {
		*base = 0;
		return 0;
	}
	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || !s[2])
		return -EINVAL;
	for (p = s + 2; *p; p++) {
		int d = *p >= '0' && *p <= '9' ? *p - '0' :
			*p >= 'a' && *p <= 'f' ? *p - 'a' + 10 :
			*p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : -1;
		if (d < 0 || p - s > 2 + 12)
			return -EINVAL;
		v = v * 16 + (unsigned)d;
	}
	if (!v || (v & 0xFFF) || v >= (1ull << 48))
		return -EINVAL;
	*base = v;
	return 0;
}

/*
 * Unit 0: the serialized code image (rom, *rom_len: AAVMF's 64 MiB, or its
 * 2 MiB when a base comes unpadded) grows to LB_MKROM_ARM64_UNIT, and the
 * payload volume (lb_mkrom_payload_volume) fills [PAYLOAD_AT, UNIT). What
 * lies there must be padding (zeros or 0xFF): a base whose firmware reaches
 * into it is refused.
 */
int lb_mkrom_arm64_layout(uint8_t **rom, size_t *rom_len, uint32_t attrs,
			  const uint8_t *kf, size_t kfl, const uint8_t *inf, size_t ifl,
			  struct lb_mkrom_report *r, char *err, size_t errsz)
{
	const uint64_t at = LB_MKROM_ARM64_PAYLOAD_AT, unit = LB_MKROM_ARM64_UNIT;
	uint64_t need = kfl && ifl ? ((kfl + 7) & ~(size_t)7) + ifl : (uint64_t)kfl + ifl;
	uint8_t *vol = NULL, *b = *rom;
	size_t vol_len = 0;
	int rc;

	if (*rom_len > unit) {
		lb_seterr(err, errsz, "AAVMF code image of %zu bytes: more than pflash unit 0 "
			  "of QEMU virt (%llu bytes)", *rom_len, (unsigned long long)unit);
		return -EFBIG;
	}
	for (size_t i = at; i < *rom_len; i++) {
		if (b[i] != 0 && b[i] != 0xFF) {
			lb_seterr(err, errsz, "AAVMF code image: byte 0x%zx is not padding: the "
				  "payload volume goes at 0x%llx (after the 2 MiB of firmware that "
				  "AAVMF maps)", i, (unsigned long long)at);
			return -EINVAL;
		}
	}
	if (need + LB_MKROM_PAYLOAD_FV_HDR > unit - at) {
		lb_seterr(err, errsz, "kernel + initramfs (%llu bytes) does not fit: %llu bytes "
			  "over the payload volume of pflash unit 0 (%llu bytes)",
			  (unsigned long long)need,
			  (unsigned long long)(need + LB_MKROM_PAYLOAD_FV_HDR - (unit - at)),
			  (unsigned long long)(unit - at));
		return -ENOSPC;
	}
	rc = lb_mkrom_payload_volume(attrs, unit - at, unit, kf, kfl, inf, ifl, NULL, 0,
				     &vol, &vol_len);
	if (rc) {
		lb_seterr(err, errsz, "building the payload volume: %s", strerror(-rc));
		return rc;
	}
	if (*rom_len < unit) {
		uint8_t *nb = realloc(b, unit);
		if (!nb) {
			free(vol);
			lb_seterr(err, errsz, "out of memory");
			return -ENOMEM;
		}
		memset(nb + *rom_len, 0, unit - *rom_len);
		*rom = b = nb;
		*rom_len = unit;
	}
	memcpy(b + at, vol, vol_len);
	free(vol);
	r->payload_at = at;
	r->payload_vol = unit - at;
	r->payload_bytes = need;
	r->payload_free = unit - at - LB_MKROM_PAYLOAD_FV_HDR - need;
	return 0;
}
