/*
 * lbootpei: a PEIM for the --tpm ROM that has the firmware measure its DXE
 * code by the bytes that hold it in flash instead of the 12 MiB memory copy.
 *
 * OVMF's SEC decompresses FVMAIN_COMPACT (one FFS file in flash: an LZMA
 * section holding PEIFV and DXEFV) into RAM, and PlatformPei announces the
 * DXE volume with the size built into it (PcdOvmfDxeMemFvSize, 12 MiB)
 * and no parent, so Tcg2Pei hashes all 12 MiB in every PCR bank, most of it
 * free space. EDK2's own rule for a volume that came out of a compressed
 * file is that the file is measured and the volume is not (Tcg2Pei skips
 * an FvInfo PPI that names its parent); this PEIM applies that rule:
 *   - on the DXE volume's FvInfo PPI (matched by its FvName, which mkrom
 *     writes into cfg below) it installs EFI_PEI_FIRMWARE_VOLUME_INFO_
 *     MEASUREMENT_EXCLUDED_PPI for that base and length, the PI interface
 *     by which a platform tells Tcg2Pei not to hash a volume;
 *   - at EndOfPei, before DxeIpl hands over to the DXE core, it has Tcg2Pei
 *     (EDKII_TCG_PPI.HashLogExtendEvent) hash, extend into PCR 0 in every
 *     active bank, and log the FVMAIN_COMPACT file read from flash, as an
 *     EV_EFI_PLATFORM_FIRMWARE_BLOB2 event naming its base and length. That
 *     file's bytes determine every byte of PEIFV and DXEFV (lbootdxe and
 *     the ROM command line among them).
 * The exclusion is installed as soon as the DXE volume is announced (before
 * Tcg2Pei runs, which is after memory); if there is no TCG PPI at EndOfPei
 * there is no TPM (or Tcg2Pei failed), and Tcg2Pei would not have measured
 * the volume either; that case gets one line.
 *
 * mkrom lists this PEIM in the PEI volume's apriori file so it runs before
 * PlatformPei; it executes in place in PEIFV (file and section alignment
 * 32; the PEI core relocates it where it lies).
 */
#include "../dxe/uart.h"

/* OVMF (OvmfPkgIa32X64, as Debian ships OVMF_CODE_4M.fd) runs PEI in 32-bit
 * mode: this PEIM is an IA32 PE32 image, built with gcc -m32 (cdecl is
 * EFIAPI on IA32; UINT64 members are 8-aligned explicitly below, as EDK2's
 * -malign-double builds lay them out). */
typedef unsigned char      UINT8;
typedef unsigned short     UINT16;
typedef unsigned int       UINT32;
typedef unsigned long long UINT64;
typedef long long          INT64;
typedef unsigned long      UINTN;
typedef void               VOID;
typedef UINTN              EFI_STATUS;
typedef UINT64             EFI_PHYSICAL_ADDRESS;
#define EFIAPI
#define NULL ((void *)0)
#define EFI_SUCCESS 0UL
#define EFI_ERROR(s) (((long)(s)) < 0)
typedef struct {
	UINT32 Data1;
	UINT16 Data2;
	UINT16 Data3;
	UINT8  Data4[8];
} EFI_GUID;
_Static_assert(sizeof(UINTN) == 4 && sizeof(void *) == 4, "lbootpei is IA32 (gcc -m32)");

/* ---- PI 1.x PEI types (only what is used) -------------------------------- */
typedef struct {
	UINTN Flags;
	const EFI_GUID *Guid;
	VOID *Ppi;
} PPI_DESC;

struct PEI_SERVICES;
typedef const struct PEI_SERVICES *const *PEI_SVC;
typedef EFI_STATUS (EFIAPI *NOTIFY_FN)(PEI_SVC s, VOID *desc, VOID *ppi);

typedef struct {
	UINTN Flags;
	const EFI_GUID *Guid;
	NOTIFY_FN Notify;
} NOTIFY_DESC;

struct PEI_SERVICES {
	UINT8 Hdr[24];
	EFI_STATUS (EFIAPI *InstallPpi)(PEI_SVC s, const PPI_DESC *d);
	VOID *ReInstallPpi;
	EFI_STATUS (EFIAPI *LocatePpi)(PEI_SVC s, const EFI_GUID *g, UINTN inst, VOID **desc,
				       VOID **ppi);
	EFI_STATUS (EFIAPI *NotifyPpi)(PEI_SVC s, const NOTIFY_DESC *d);
};

#define PPI_FLAG_PPI      0x00000010UL
#define PPI_FLAG_CALLBACK 0x00000020UL
#define PPI_FLAG_TERMINATE 0x80000000UL

typedef struct {
	EFI_GUID FvFormat;
	VOID *FvInfo;
	UINT32 FvInfoSize;
	EFI_GUID *ParentFvName;
	EFI_GUID *ParentFileName;
} FV_INFO_PPI;

typedef struct {
	UINT32 Count;
	UINT32 Pad; /* EFI_PHYSICAL_ADDRESS is 8-aligned */
	EFI_PHYSICAL_ADDRESS FvBase;
	UINT64 FvLength;
} __attribute__((aligned(8))) EXCLUDED_PPI;
_Static_assert(sizeof(EXCLUDED_PPI) == 24, "EDK2 layout: Count, pad, FvBase, FvLength");

#pragma pack(1)
typedef struct {
	UINT32 PCRIndex;
	UINT32 EventType;
	UINT8 Digest[20];
	UINT32 EventSize;
} TCG_PCR_EVENT_HDR;

typedef struct {
	UINT8 DescSize;
	UINT8 Desc[sizeof("FVMAIN_COMPACT FFS file of lboot --tpm ROM")];
	UINT64 BlobBase;
	UINT64 BlobLength;
} FV_HANDOFF_TABLE_POINTERS2;
#pragma pack()

typedef struct {
	EFI_STATUS (EFIAPI *HashLogExtendEvent)(VOID *This, UINT64 Flags, UINT8 *Data,
						UINTN Len, TCG_PCR_EVENT_HDR *Hdr, UINT8 *Event);
} TCG_PPI;

#define EV_EFI_PLATFORM_FIRMWARE_BLOB2 0x8000000AU

static const EFI_GUID fvinfo_guid = { 0x49edb1c1, 0xbf21, 0x4761,
	{ 0xbb, 0x12, 0xeb, 0x00, 0x31, 0xaa, 0xbb, 0x39 } };
static const EFI_GUID fvinfo2_guid = { 0xea7ca24b, 0xded5, 0x4dad,
	{ 0xa3, 0x89, 0xbf, 0x82, 0x7e, 0x8f, 0x9b, 0x38 } };
static const EFI_GUID excluded_guid = { 0x6e056ff9, 0xc695, 0x4364,
	{ 0x9e, 0x2c, 0x61, 0x26, 0xf5, 0xce, 0xea, 0xae } };
static const EFI_GUID tcg_guid = { 0x57a13b87, 0x133d, 0x4bf3,
	{ 0xbf, 0xf1, 0x1b, 0xca, 0xc7, 0x17, 0x6c, 0xf1 } };
static const EFI_GUID end_of_pei_guid = { 0x605ea650, 0xc65c, 0x42e1,
	{ 0xba, 0x80, 0x91, 0xa5, 0x2a, 0xb6, 0x18, 0xc6 } };

/* Written by lboot mkrom (src/host/mkrom.c, LB_PEI_CFG_MAGIC): the DXE
 * volume's FvName and the flash address of the volume (FVMAIN_COMPACT)
 * whose first file is measured. Zero: do nothing. */
struct lb_pei_cfg {
	UINT8 magic[16];
	EFI_GUID dxe_fv_name;
	UINT64 compact_fv;
} __attribute__((packed));
volatile struct lb_pei_cfg lb_pei_cfg __attribute__((used)) = {
	{ 'L', 'B', 'O', 'O', 'T', '-', 'P', 'E', 'I', '-', 'C', 'F', 'G', '-', 'v', '1' },
	{ 0, 0, 0, { 0 } }, 0
};

/* explicitly initialised: with -fno-zero-initialized-in-bss they stay in
 * .data (mk/pei.mk: no .bss in an image that executes in place) */
static PPI_DESC excl_desc = { 0 };
static EXCLUDED_PPI excl = { 0 };
static NOTIFY_DESC notify[3] = { { 0 } };
static UINT64 file_base = 0, file_len = 0;
static int measured = 0;

/* ---- serial: one line per outcome (COM1, as lbootdxe) -------------------- */
static void put(const char *s)
{
	lb_uart_puts(0x3F8, s);
}
static void put_hex(UINT64 v)
{
	char b[19];
	b[0] = '0';
	b[1] = 'x';
	for (int i = 0; i < 16; i++)
		b[2 + i] = "0123456789abcdef"[(v >> (60 - 4 * i)) & 15];
	b[18] = 0;
	put(b);
}

static int guid_eq(const volatile void *a, const void *b)
{
	const volatile UINT8 *x = a;
	const UINT8 *y = b;
	for (int i = 0; i < 16; i++)
		if (x[i] != y[i])
			return 0;
	return 1;
}

/* The first FFS file of the FV at fv: its base and length, checked against
 * the volume. Returns 0 when the header does not hold together. */
static int first_file(UINT64 fv, UINT64 *base, UINT64 *len)
{
	const volatile UINT8 *p = (const volatile UINT8 *)(UINTN)fv;
	UINT64 fvlen = 0;
	UINT32 sig = p[40] | p[41] << 8 | p[42] << 16 | (UINT32)p[43] << 24;
	UINT16 hlen = (UINT16)(p[48] | p[49] << 8);
	UINT16 ext = (UINT16)(p[52] | p[53] << 8);
	UINT64 off, flen;

	for (int i = 0; i < 8; i++)
		fvlen |= (UINT64)p[32 + i] << (8 * i);
	if (sig != 0x4856465fU /* "_FVH" */ || hlen < 56 || fvlen < hlen || fvlen > 0x1000000)
		return 0;
	off = hlen;
	if (ext) { /* the extended header, then the next 8-byte boundary */
		UINT32 esz;
		if (ext < hlen || (UINT64)ext + 20 > fvlen)
			return 0;
		esz = p[ext + 16] | p[ext + 17] << 8 | p[ext + 18] << 16 | (UINT32)p[ext + 19] << 24;
		if (esz < 20 || (UINT64)ext + esz > fvlen)
			return 0;
		off = ext + esz;
	}
	off = (off + 7) & ~7ULL;
	if (off + 24 > fvlen)
		return 0;
	flen = p[off + 20] | p[off + 21] << 8 | (UINT32)p[off + 22] << 16;
	if (p[off + 19] & 0x01) { /* FFS_ATTRIB_LARGE_FILE: 64-bit size after the header */
		if (off + 32 > fvlen)
			return 0;
		flen = 0;
		for (int i = 0; i < 8; i++)
			flen |= (UINT64)p[off + 24 + i] << (8 * i);
	}
	if (flen < 24 || flen > fvlen - off)
		return 0;
	*base = fv + off;
	*len = flen;
	return 1;
}

static EFI_STATUS EFIAPI on_fv_info(PEI_SVC s, VOID *desc, VOID *ppi)
{
	FV_INFO_PPI *fi = ppi;
	const volatile UINT8 *fv = fi->FvInfo;
	UINT16 ext;

	(void)desc;
	if (excl.Count || fi->FvInfoSize < 56)
		return EFI_SUCCESS;
	ext = (UINT16)(fv[52] | fv[53] << 8);
	if (!ext || (UINT32)ext + 16 > fi->FvInfoSize || !guid_eq(fv + ext, (const void *)&lb_pei_cfg.dxe_fv_name))
		return EFI_SUCCESS;
	/* the TCG PPI comes later (Tcg2Pei runs after memory): whether there
	 * is a TPM is known at EndOfPei, where the file is measured */
	excl.Count = 1;
	excl.FvBase = (UINT64)(UINTN)fi->FvInfo;
	excl.FvLength = fi->FvInfoSize;
	excl_desc.Flags = PPI_FLAG_PPI | PPI_FLAG_TERMINATE;
	excl_desc.Guid = &excluded_guid;
	excl_desc.Ppi = &excl;
	if (EFI_ERROR((*s)->InstallPpi(s, &excl_desc))) {
		excl.Count = 0;
		put("lbootpei: could not install the measurement-excluded PPI\n");
	}
	return EFI_SUCCESS;
}

static EFI_STATUS EFIAPI on_end_of_pei(PEI_SVC s, VOID *desc, VOID *ppi)
{
	TCG_PPI *tcg;
	TCG_PCR_EVENT_HDR hdr;
	FV_HANDOFF_TABLE_POINTERS2 ev;
	static const char d[] = "FVMAIN_COMPACT FFS file of lboot --tpm ROM";
	EFI_STATUS st;

	(void)desc;
	(void)ppi;
	if (!excl.Count || measured)
		return EFI_SUCCESS;
	measured = 1;
	if (EFI_ERROR((*s)->LocatePpi(s, &tcg_guid, 0, NULL, (VOID **)&tcg))) {
		put("lbootpei: no TCG PPI at EndOfPei (no TPM): nothing measured\n");
		return EFI_SUCCESS;
	}
	for (UINTN i = 0; i < sizeof(hdr); i++)
		((UINT8 *)&hdr)[i] = 0;
	hdr.PCRIndex = 0;
	hdr.EventType = EV_EFI_PLATFORM_FIRMWARE_BLOB2;
	hdr.EventSize = sizeof(ev);
	ev.DescSize = sizeof(ev.Desc);
	for (UINTN i = 0; i < sizeof(ev.Desc); i++)
		ev.Desc[i] = (UINT8)d[i];
	ev.BlobBase = file_base;
	ev.BlobLength = file_len;
	st = tcg->HashLogExtendEvent(tcg, 0, (UINT8 *)(UINTN)file_base, (UINTN)file_len, &hdr,
				     (UINT8 *)&ev);
	put(EFI_ERROR(st) ? "lbootpei: measuring FVMAIN_COMPACT failed: " :
			    "lbootpei: measured FVMAIN_COMPACT's file into PCR 0: ");
	put_hex(file_base);
	put(" + ");
	put_hex(file_len);
	put(" bytes, instead of the DXE volume's ");
	put_hex(excl.FvLength);
	put("\n");
	return EFI_SUCCESS;
}

EFI_STATUS EFIAPI lbootpei_main(VOID *file, PEI_SVC s);
EFI_STATUS EFIAPI lbootpei_main(VOID *file, PEI_SVC s)
{
	(void)file;
	if (!lb_pei_cfg.compact_fv)
		return EFI_SUCCESS;
	if (!first_file(lb_pei_cfg.compact_fv, &file_base, &file_len)) {
		put("lbootpei: no FFS file at the FVMAIN_COMPACT address: leaving the measuring to Tcg2Pei\n");
		return EFI_SUCCESS;
	}
	/* pointers set here, not in initialisers: no relocations to fix up */
	notify[0].Flags = PPI_FLAG_CALLBACK;
	notify[0].Guid = &fvinfo_guid;
	notify[0].Notify = on_fv_info;
	notify[1].Flags = PPI_FLAG_CALLBACK;
	notify[1].Guid = &fvinfo2_guid;
	notify[1].Notify = on_fv_info;
	notify[2].Flags = PPI_FLAG_CALLBACK | PPI_FLAG_TERMINATE;
	notify[2].Guid = &end_of_pei_guid;
	notify[2].Notify = on_end_of_pei;
	if (EFI_ERROR((*s)->NotifyPpi(s, notify)))
		put("lbootpei: NotifyPpi failed: leaving the measuring to Tcg2Pei\n");
	return EFI_SUCCESS;
}
