/* x86-64: kexec_load(2) of a staged bzImage with our own layout and
 * trampoline (src/kexec/kexecload_arm64.c: arm64 has none yet). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arch.h"
#include "io.h"
#include "kexec.h"
#include "kexecload.h"

#define LB_KEXEC_ARCH_X86_64 (62u << 16)

#define PG 4096ull
#define PG_UP(x) (((x) + PG - 1) & ~(PG - 1))

/* boot_params offsets (arch/x86/include/uapi/asm/bootparam.h) */
#define BP_SCREEN_INFO   0x000
#define BP_SCREEN_LEN    0x040
#define BP_EXT_MEM_K     0x002   /* screen_info.ext_mem_k, u16 */
#define BP_ACPI_RSDP     0x070
#define BP_EXT_RAMDISK_IMAGE 0x0c0
#define BP_EXT_RAMDISK_SIZE  0x0c4
#define BP_EXT_CMD_LINE_PTR  0x0c8
#define BP_EFI_SIG       0x1c0
#define BP_EFI_SYSTAB    0x1c4
#define BP_EFI_DESC_SIZE 0x1c8
#define BP_EFI_DESC_VER  0x1cc
#define BP_EFI_MEMMAP    0x1d0
#define BP_EFI_MEMMAP_SIZE 0x1d4
#define BP_EFI_SYSTAB_HI 0x1d8
#define BP_EFI_MEMMAP_HI 0x1dc
#define BP_ALT_MEM_K     0x1e0
#define BP_E820_ENTRIES  0x1e8
#define BP_EDD_ENTRIES   0x1e9
#define BP_EDD_MBR_ENTRIES 0x1ea
#define BP_SECURE_BOOT   0x1ec
#define BP_HDR           0x1f1
#define BP_HDR_END       0x290   /* edd_mbr_sig_buffer */
#define BP_EDD_MBR       0x290
#define BP_EDD_MBR_LEN   (16 * 4)
#define BP_E820_TABLE    0x2d0
#define BP_EDDBUF        0xd00
#define BP_EDDBUF_LEN    (6 * 82)
#define BP_SIZE          4096

/* setup header fields (offsets in the bzImage and in boot_params alike) */
#define H_SETUP_SECTS    0x1f1
#define H_BOOT_FLAG      0x1fe
#define H_JUMP           0x200
#define H_MAGIC          0x202
#define H_VERSION        0x206
#define H_TYPE_OF_LOADER 0x210
#define H_LOADFLAGS      0x211
#define H_RAMDISK_IMAGE  0x218
#define H_RAMDISK_SIZE   0x21c
#define H_HEAP_END       0x224
#define H_CMD_LINE_PTR   0x228
#define H_KERNEL_ALIGN   0x230
#define H_RELOCATABLE    0x234
#define H_XLOADFLAGS     0x236
#define H_CMDLINE_SIZE   0x238
#define H_SUBARCH        0x23c
#define H_SETUP_DATA     0x250
#define H_INIT_SIZE      0x260
#define H_END            0x26c   /* end of the 2.15 header we read */

#define LOADED_HIGH   0x01
#define QUIET_FLAG    0x20
#define KEEP_SEGMENTS 0x40
#define CAN_USE_HEAP  0x80
#define XLF_KERNEL_64 0x01
#define XLF_CAN_BE_LOADED_ABOVE_4G 0x02
#define XLF_EFI_KEXEC 0x10

#define SETUP_E820_EXT 1
#define SETUP_EFI      4
#define SETUP_RNG_SEED 9
#define SD_HDR 16                 /* u64 next, u32 type, u32 len */
#define EFI_SETUP_DATA_LEN (12 * 8) /* struct efi_setup_data */
#define E820_ENTRY 20

/* where segments go: what kexec_file_load uses (kexec-bzimage64.c) */
#define MIN_KERNEL_ADDR 0x100000ull
#define MIN_DATA_ADDR   0x1000000ull
#define LOW_4G          0x100000000ull

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t rd64(const uint8_t *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }
static void wr16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void wr32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}
static void wr64(uint8_t *p, uint64_t v)
{
	wr32(p, (uint32_t)v);
	wr32(p + 4, (uint32_t)(v >> 32));
}

/*
 * The trampoline (the first 0x40 bytes of segment 0), entered by the
 * kernel's relocate_kernel in 64-bit mode on its identity page tables,
 * interrupts off, with its GDT invalidated (machine_kexec). It does what
 * the 64-bit boot protocol asks of a boot loader (boot.rst, "64-bit BOOT
 * PROTOCOL") and nothing else: no digest check.
 *
 *  00 fa                    cli                     interrupts stay off
 *  01 fc                    cld
 *  02 0f 01 15 37 00 00 00  lgdt  0x40(page)        our GDT (below)
 *  09 b8 18 00 00 00        mov   $0x18, %eax       __BOOT_DS
 *  0e 8e d8                 mov   %eax, %ds
 *  10 8e c0                 mov   %eax, %es
 *  12 8e d0                 mov   %eax, %ss
 *  14 8e e0                 mov   %eax, %fs
 *  16 8e e8                 mov   %eax, %gs
 *  18 48 8b 25 31 00 00 00  mov   0x50(page), %rsp  a stack: the page's end
 *  1f 48 8d 05 05 00 00 00  lea   0x2b(page), %rax
 *  26 6a 10                 push  $0x10             __BOOT_CS
 *  28 50                    push  %rax
 *  29 48 cb                 lretq                   reload %cs = 0x10
 *  2b 48 8b 35 26 00 00 00  mov   0x58(page), %rsi  boot_params
 *  32 31 db                 xor   %ebx, %ebx        boot CPU (as purgatory)
 *  34 31 ed                 xor   %ebp, %ebp
 *  36 31 ff                 xor   %edi, %edi
 *  38 ff 25 22 00 00 00     jmp   *0x60(page)       kernel startup_64 (load + 0x200)
 *
 * Data: 0x40 GDTR (limit 0x1f, base = page + 0x80); 0x50 rsp; 0x58 rsi;
 * 0x60 rip; 0x80 GDT: null, null, 0x10 flat 64-bit code
 * (0x00af9a000000ffff), 0x18 flat data (0x00cf92000000ffff): the
 * descriptors boot.rst documents and kexec-tools' purgatory loads.
 * The stack grows down from the end of the page.
 */
static const uint8_t tramp_code[] = {
	0xfa, 0xfc, 0x0f, 0x01, 0x15, 0x37, 0x00, 0x00, 0x00,
	0xb8, 0x18, 0x00, 0x00, 0x00,
	0x8e, 0xd8, 0x8e, 0xc0, 0x8e, 0xd0, 0x8e, 0xe0, 0x8e, 0xe8,
	0x48, 0x8b, 0x25, 0x31, 0x00, 0x00, 0x00,
	0x48, 0x8d, 0x05, 0x05, 0x00, 0x00, 0x00,
	0x6a, 0x10, 0x50, 0x48, 0xcb,
	0x48, 0x8b, 0x35, 0x26, 0x00, 0x00, 0x00,
	0x31, 0xdb, 0x31, 0xed, 0x31, 0xff,
	0xff, 0x25, 0x22, 0x00, 0x00, 0x00,
};

static void tramp_fill(uint8_t *t, uint64_t at, uint64_t rsi, uint64_t rip)
{
	memset(t, 0, LB_KL_TRAMP_SIZE);
	memcpy(t, tramp_code, sizeof(tramp_code));
	wr16(t + LB_KL_T_GDTR, 4 * 8 - 1);
	wr64(t + LB_KL_T_GDTR + 2, at + LB_KL_T_GDT);
	wr64(t + LB_KL_T_RSP, at + LB_KL_TRAMP_SIZE);
	wr64(t + LB_KL_T_RSI, rsi);
	wr64(t + LB_KL_T_RIP, rip);
	wr64(t + LB_KL_T_GDT + 0x10, 0x00af9a000000ffffull);
	wr64(t + LB_KL_T_GDT + 0x18, 0x00cf92000000ffffull);
}

/* --- placing segments ---------------------------------------------------- */

struct taken {
	uint64_t start[LB_KL_MAX_SEGS], end[LB_KL_MAX_SEGS];
	size_t n;
};

static int overlaps(const struct taken *t, uint64_t s, uint64_t e)
{
	for (size_t i = 0; i < t->n; i++)
		if (s < t->end[i] && t->start[i] < e)
			return 1;
	return 0;
}

/*
 * The highest address a, align | a, lo <= a, a + len <= hi, inside one RAM
 * range and clear of what is taken (top-down, as kexec_file_load does).
 */
static int place(const struct lb_kl_env *env, const struct taken *t, uint64_t len,
		 uint64_t align, uint64_t lo, uint64_t hi, uint64_t *out)
{
	int found = 0;
	uint64_t best = 0;

	if (!len || !align || (align & (align - 1)))
		return -EINVAL;
	for (size_t i = 0; i < env->n_ram; i++) {
		uint64_t rs = env->ram[i].start > lo ? env->ram[i].start : lo;
		uint64_t re = env->ram[i].end < hi ? env->ram[i].end : hi;
		uint64_t a;

		if (re <= rs || re - rs < len)
			continue;
		a = (re - len) & ~(align - 1);
		while (a >= rs) {
			size_t k;
			uint64_t lowest = a;

			if (!overlaps(t, a, a + len)) {
				if (!found || a > best)
					best = a;
				found = 1;
				break;
			}
			/* below the lowest taken block that is in the way */
			for (k = 0; k < t->n; k++)
				if (a < t->end[k] && t->start[k] < a + len && t->start[k] < lowest)
					lowest = t->start[k];
			if (lowest < len || lowest - len < rs)
				break;
			a = (lowest - len) & ~(align - 1);
		}
	}
	if (!found)
		return -ENOMEM;
	*out = best;
	return 0;
}

static void take(struct taken *t, uint64_t s, uint64_t len)
{
	t->start[t->n] = s;
	t->end[t->n] = s + len;
	t->n++;
}

/* below 4 GiB first; above only when allowed */
static int place_pref_low(const struct lb_kl_env *env, const struct taken *t,
			  uint64_t len, uint64_t align, uint64_t lo, int high_ok,
			  uint64_t *out)
{
	int r = place(env, t, len, align, lo, LOW_4G, out);

	if (r == -ENOMEM && high_ok)
		r = place(env, t, len, align, LOW_4G, UINT64_MAX, out);
	return r;
}

/* --- boot_params --------------------------------------------------------- */

void lb_kl_plan_free(struct lb_kl_plan *p)
{
	free(p->buf);
	memset(p, 0, sizeof(*p));
}

/* What lb_kl_build reads from the bzImage's setup header. */
struct bz {
	unsigned xlf, loadflags;
	uint64_t kern16;    /* bytes before the protected-mode kernel */
	uint64_t align, kmem; /* kernel_alignment; init_size, page aligned */
};

/* The kernel's bzImage64_probe and bzImage64_load checks, on the image
 * and on what it is given. */
static int bz_check(const uint8_t *k, size_t klen, size_t clen, size_t initrd_len,
		    struct bz *h, char *why, size_t whysz)
{
	unsigned setup_sects, version;
	uint64_t init_size, cmdline_size;

	if (klen < 2 * 512 || klen < H_END)
		return lb_whyf(why, whysz, -ENOEXEC, "too short to be a bzImage (ENOEXEC)");
	if (memcmp(k + H_MAGIC, "HdrS", 4) || rd16(k + H_BOOT_FLAG) != 0xaa55)
		return lb_whyf(why, whysz, -ENOEXEC, "not a bzImage (ENOEXEC)");
	version = rd16(k + H_VERSION);
	if (version < 0x020c)
		return lb_whyf(why, whysz, -ENOEXEC,
			     "boot protocol %u.%02u, the 64-bit entry needs 2.12 (ENOEXEC)",
			     version >> 8, version & 0xff);
	h->loadflags = k[H_LOADFLAGS];
	if (!(h->loadflags & LOADED_HIGH))
		return lb_whyf(why, whysz, -ENOEXEC, "zImage, not a bzImage (ENOEXEC)");
	h->xlf = rd16(k + H_XLOADFLAGS);
	if (!(h->xlf & XLF_KERNEL_64))
		return lb_whyf(why, whysz, -ENOEXEC, "no 64-bit entry: XLF_KERNEL_64 not set (ENOEXEC)");
	setup_sects = k[H_SETUP_SECTS] ? k[H_SETUP_SECTS] : 4;
	h->kern16 = ((uint64_t)setup_sects + 1) * 512;
	if (klen <= h->kern16)
		return lb_whyf(why, whysz, -ENOEXEC, "bzImage truncated (ENOEXEC)");
	h->align = rd32(k + H_KERNEL_ALIGN);
	if (!k[H_RELOCATABLE] || h->align < PG || (h->align & (h->align - 1)))
		return lb_whyf(why, whysz, -ENOEXEC,
			     "not relocatable or kernel_alignment %#" PRIx64 " unusable (ENOEXEC)",
			     h->align);
	init_size = rd32(k + H_INIT_SIZE);
	h->kmem = PG_UP(init_size);
	if (init_size < klen - h->kern16)
		return lb_whyf(why, whysz, -ENOEXEC,
			     "init_size %" PRIu64 " smaller than the kernel's %" PRIu64 " bytes (ENOEXEC)",
			     init_size, (uint64_t)(klen - h->kern16));
	cmdline_size = rd32(k + H_CMDLINE_SIZE);
	if (clen > cmdline_size)
		return lb_whyf(why, whysz, -E2BIG,
			     "command line: %zu bytes, the kernel takes at most %" PRIu64 " (E2BIG)",
			     clen, cmdline_size);
	if (initrd_len > UINT64_MAX - PG)
		return lb_whyf(why, whysz, -EINVAL, "initrd too large");
	return 0;
}

/* Segment 0's layout: trampoline, boot_params, cmdline, EFI map, setup_data. */
struct seg0 {
	size_t n_e820, n_ext;  /* e820 entries; those past boot_params' table */
	int efi;               /* EFI state passed on */
	size_t efimap_len, off_cmd, off_efimap, off_sd, total;
	uint64_t addr;         /* where it goes */
};

static void seg0_layout(const struct lb_kl_env *env, const struct bz *h, size_t clen,
			struct seg0 *L)
{
	L->n_e820 = env->n_e820 < LB_KL_MAX_RANGES ? env->n_e820 : LB_KL_MAX_RANGES;
	L->n_ext = L->n_e820 > LB_KL_E820_ZP ? L->n_e820 - LB_KL_E820_ZP : 0;
	L->efi = env->efi && env->n_efimd && (h->xlf & XLF_EFI_KEXEC);
	L->efimap_len = L->efi ? env->n_efimd * LB_KL_EFI_DESC : 0;
	L->off_cmd = LB_KL_TRAMP_SIZE + BP_SIZE;
	L->off_efimap = L->off_cmd + ((clen + 1 + 15) & ~(size_t)15);
	L->off_sd = L->off_efimap + ((L->efimap_len + 15) & ~(size_t)15);
	L->total = L->off_sd + (L->n_ext ? SD_HDR + L->n_ext * E820_ENTRY + 8 : 0) +
		   (L->efi ? SD_HDR + EFI_SETUP_DATA_LEN : 0) +
		   (env->have_rng ? SD_HDR + sizeof(env->rng) : 0);
	L->total = (size_t)PG_UP(L->total);
}

/*
 * Where the kernel, the initrd and segment 0 go.
 * The kernel: the highest kernel_alignment'd place with init_size of
 * room (below 4 GiB first; it is relocatable), top-down as
 * kexec_file_load places it (bzImage64_load), not at pref_address:
 * that is where the running kernel, built the same way, has its own
 * image. Harmless on hardware; under QEMU's TCG every write into a
 * page that held translated code takes the slow path, and the target
 * decompressing itself over the firmware kernel's text cost 0.9 s
 * from the jump to its first line (docs/kexec-load.md).
 */
static int place_all(const struct lb_kl_env *env, const struct bz *h, size_t initrd_len,
		     struct seg0 *L, uint64_t *kaddr, uint64_t *iaddr, char *why, size_t whysz)
{
	struct taken t = { .n = 0 };
	int above4g = !!(h->xlf & XLF_CAN_BE_LOADED_ABOVE_4G);
	int r;

	if ((r = place_pref_low(env, &t, h->kmem, h->align, MIN_KERNEL_ADDR, above4g, kaddr)))
		return lb_whyf(why, whysz, r, "no room for the kernel's %" PRIu64 " bytes (init_size) in RAM (ENOMEM)",
			     h->kmem);
	take(&t, *kaddr, h->kmem);
	if (initrd_len) {
		if ((r = place_pref_low(env, &t, PG_UP(initrd_len), PG, MIN_DATA_ADDR,
					above4g, iaddr)))
			return lb_whyf(why, whysz, r, "no room for the initrd's %zu bytes in RAM (ENOMEM)",
				     initrd_len);
		take(&t, *iaddr, PG_UP(initrd_len));
	}
	/* below 4 GiB: cmd_line_ptr, efi_memmap and the GDT base stay 32-bit
	 * for any reader */
	if ((r = place(env, &t, L->total, PG, MIN_DATA_ADDR, LOW_4G, &L->addr)) &&
	    (r = place(env, &t, L->total, PG, 0x3000, LOW_4G, &L->addr)))
		return lb_whyf(why, whysz, r, "no room for boot_params below 4 GiB (ENOMEM)");
	take(&t, L->addr, L->total);
	return 0;
}

/* boot_params: the setup header, what the running kernel keeps for the
 * next one, the loader's fields. */
static void fill_boot_params(uint8_t *bp, const uint8_t *k, size_t klen,
			     const struct lb_kl_env *env, const struct bz *h)
{
	size_t hdr_len;

	/* the setup header, as the kernel copies it: up to the end the
	 * jump at 0x200 says, never past the header's room */
	hdr_len = (size_t)0x202 + k[H_JUMP + 1] - BP_HDR;
	if (BP_HDR + hdr_len > BP_HDR_END)
		hdr_len = BP_HDR_END - BP_HDR;
	if (BP_HDR + hdr_len > klen)
		hdr_len = klen - BP_HDR;
	memcpy(bp + BP_HDR, k + BP_HDR, hdr_len);

	/* what the running kernel was given and keeps for the next one */
	if (env->have_bp) {
		memcpy(bp + BP_SCREEN_INFO, env->bp + BP_SCREEN_INFO, BP_SCREEN_LEN);
		wr32(bp + H_SUBARCH, rd32(env->bp + H_SUBARCH));
		memcpy(bp + BP_EDDBUF, env->bp + BP_EDDBUF, BP_EDDBUF_LEN);
		bp[BP_EDD_ENTRIES] = env->bp[BP_EDD_ENTRIES] <= 6 ? env->bp[BP_EDD_ENTRIES] : 0;
		memcpy(bp + BP_EDD_MBR, env->bp + BP_EDD_MBR, BP_EDD_MBR_LEN);
		bp[BP_EDD_MBR_ENTRIES] = env->bp[BP_EDD_MBR_ENTRIES] <= 16 ?
					 env->bp[BP_EDD_MBR_ENTRIES] : 0;
	}
	wr64(bp + BP_ACPI_RSDP, env->acpi_rsdp);

	/* loader: kexec (0xD0, as kexec_file_load); the 16-bit setup code
	 * does not run, so no heap and no segment games */
	bp[H_TYPE_OF_LOADER] = 0xd0;
	bp[H_LOADFLAGS] = (uint8_t)(h->loadflags & ~(QUIET_FLAG | KEEP_SEGMENTS | CAN_USE_HEAP));
	wr16(bp + H_HEAP_END, 0);
}

/* e820 (the first LB_KL_E820_ZP in boot_params, the rest for setup_data),
 * and the memory above 1 MiB in KiB (ext_mem_k, alt_mem_k). */
static void fill_e820(uint8_t *buf, uint8_t *bp, const struct lb_kl_env *env,
		      const struct seg0 *L)
{
	uint64_t ext_mem = 0;

	for (size_t i = 0; i < L->n_e820; i++) {
		const struct lb_kl_range *e = &env->e820[i];
		uint8_t *d;

		if (i < LB_KL_E820_ZP)
			d = bp + BP_E820_TABLE + i * E820_ENTRY;
		else
			d = buf + L->off_sd + SD_HDR + (i - LB_KL_E820_ZP) * E820_ENTRY;
		wr64(d, e->start);
		wr64(d + 8, e->end - e->start);
		wr32(d + 16, e->type);
		if (e->type == LB_E820_RAM && e->start <= 0x100000 && e->end - 1 > 0x100000)
			ext_mem = ((e->end - 1) >> 10) - (0x100000 >> 10);
	}
	bp[BP_E820_ENTRIES] = (uint8_t)(L->n_e820 < LB_KL_E820_ZP ? L->n_e820 : LB_KL_E820_ZP);
	wr16(bp + BP_EXT_MEM_K, (uint16_t)(ext_mem > 0xfc00 ? 0xfc00 : ext_mem));
	wr32(bp + BP_ALT_MEM_K, (uint32_t)(ext_mem > 0xffffffffull ? 0xffffffffull : ext_mem));
}

/* The EFI fields of boot_params and the EFI memory map. */
static void fill_efi(uint8_t *buf, uint8_t *bp, const struct lb_kl_env *env,
		     const struct seg0 *L)
{
	memcpy(bp + BP_EFI_SIG, "EL64", 4);
	wr32(bp + BP_EFI_SYSTAB, (uint32_t)env->efi_systab);
	wr32(bp + BP_EFI_SYSTAB_HI, (uint32_t)(env->efi_systab >> 32));
	wr32(bp + BP_EFI_DESC_SIZE, LB_KL_EFI_DESC);
	wr32(bp + BP_EFI_DESC_VER, 1);
	wr32(bp + BP_EFI_MEMMAP, (uint32_t)(L->addr + L->off_efimap));
	wr32(bp + BP_EFI_MEMMAP_HI, (uint32_t)((L->addr + L->off_efimap) >> 32));
	wr32(bp + BP_EFI_MEMMAP_SIZE, (uint32_t)L->efimap_len);
	if (env->have_bp)
		bp[BP_SECURE_BOOT] = env->bp[BP_SECURE_BOOT];
	for (size_t i = 0; i < env->n_efimd; i++) {
		uint8_t *d = buf + L->off_efimap + i * LB_KL_EFI_DESC;

		wr32(d, env->efimd[i].type);
		wr64(d + 8, env->efimd[i].phys);
		wr64(d + 16, env->efimd[i].virt);
		wr64(d + 24, env->efimd[i].pages);
		wr64(d + 32, env->efimd[i].attr);
	}
}

/* The setup_data chain (extra e820 entries, EFI, an RNG seed); each
 * entry's next points at the previous. */
static int fill_setup_data(uint8_t *buf, uint8_t *bp, const struct lb_kl_env *env,
			   const struct seg0 *L, char *why, size_t whysz)
{
	uint64_t sd_prev = 0;
	size_t o = L->off_sd;

	if (L->n_ext) {
		wr64(buf + o, sd_prev);
		wr32(buf + o + 8, SETUP_E820_EXT);
		wr32(buf + o + 12, (uint32_t)(L->n_ext * E820_ENTRY));
		sd_prev = L->addr + o;
		o += SD_HDR + L->n_ext * E820_ENTRY;
		o = (o + 7) & ~(size_t)7;
	}
	if (L->efi) {
		uint8_t *es;

		fill_efi(buf, bp, env, L);
		wr64(buf + o, sd_prev);
		wr32(buf + o + 8, SETUP_EFI);
		wr32(buf + o + 12, EFI_SETUP_DATA_LEN);
		es = buf + o + SD_HDR;
		wr64(es, env->efi_fw_vendor);
		wr64(es + 8, env->efi_runtime);  /* __unused since 4.x: older kernels read it */
		wr64(es + 16, env->efi_tables);
		wr64(es + 24, env->efi_smbios);
		sd_prev = L->addr + o;
		o += SD_HDR + EFI_SETUP_DATA_LEN;
	}
	if (env->have_rng) {
		wr64(buf + o, sd_prev);
		wr32(buf + o + 8, SETUP_RNG_SEED);
		wr32(buf + o + 12, sizeof(env->rng));
		memcpy(buf + o + SD_HDR, env->rng, sizeof(env->rng));
		sd_prev = L->addr + o;
		o += SD_HDR + sizeof(env->rng);
	}
	if (o > L->total) /* cannot happen: total counted the same pieces */
		return lb_whyf(why, whysz, -EINVAL, "setup_data overflow");
	wr64(bp + H_SETUP_DATA, sd_prev);
	return 0;
}

/*
 * The segments after segment 0.
 * The kernel's room is reserved above (nothing else is placed in it),
 * but only its two ends become segments: its bytes, and the top
 * LB_KL_TAIL(bufsz) where the decompressor copies itself and keeps its
 * stack, heap and boot page tables (head_64.S: rbx = load + init_size
 * - ZO__end) while it still runs on the page tables kexec built: those
 * are never in a segment's range, so never there. The middle is
 * written only after it switched to its own page tables. A segment is
 * memory the kernel allocates, zeroes at load and copies (three times
 * a page in 6.1's swap_pages) at the jump: for Debian's kernel
 * (init_size 66 MB, 8 MB of bytes) this is 22.7 MB instead of 66.7.
 */
static void plan_segments(struct lb_kl_plan *p, const uint8_t *k, size_t klen,
			  const struct bz *h, const void *initrd, size_t initrd_len)
{
	uint64_t kaddr = p->kernel_addr, kbytes, tail;

	kbytes = PG_UP(klen - h->kern16);
	tail = LB_KL_TAIL(kbytes);
	if (kbytes + tail >= h->kmem) {
		p->seg[1] = (struct lb_kl_seg){ k + h->kern16, klen - h->kern16, kaddr, h->kmem };
		tail = 0;
	} else {
		p->seg[1] = (struct lb_kl_seg){ k + h->kern16, klen - h->kern16, kaddr, kbytes };
	}
	p->n_seg = 2;
	if (initrd_len)
		p->seg[p->n_seg++] = (struct lb_kl_seg){ initrd, initrd_len, p->initrd_addr,
							 PG_UP(initrd_len) };
	if (tail)
		p->seg[p->n_seg++] = (struct lb_kl_seg){ NULL, 0, kaddr + h->kmem - tail, tail };
}

int lb_kl_build(const uint8_t *k, size_t klen, const void *initrd,
		size_t initrd_len, const char *cmdline,
		const struct lb_kl_env *env, struct lb_kl_plan *p,
		char *why, size_t whysz)
{
	struct bz h = { 0 };
	struct seg0 L = { 0 };
	uint64_t kaddr, iaddr = 0, bp_addr, seg0;
	uint8_t *buf, *bp;
	size_t clen;
	int r;

	memset(p, 0, sizeof(*p));
	if (!k || !env || !cmdline || (initrd_len && !initrd))
		return lb_whyf(why, whysz, -EINVAL, "bad arguments");
	clen = strlen(cmdline);
	if ((r = bz_check(k, klen, clen, initrd_len, &h, why, whysz)))
		return r;
	seg0_layout(env, &h, clen, &L);
	if (!(buf = calloc(1, L.total)))
		return lb_whyf(why, whysz, -ENOMEM, "out of memory (ENOMEM)");
	if ((r = place_all(env, &h, initrd_len, &L, &kaddr, &iaddr, why, whysz))) {
		free(buf);
		return r;
	}
	seg0 = L.addr;
	bp_addr = seg0 + LB_KL_TRAMP_SIZE;
	bp = buf + LB_KL_TRAMP_SIZE;
	fill_boot_params(bp, k, klen, env, &h);

	/* command line */
	memcpy(buf + L.off_cmd, cmdline, clen + 1);
	wr32(bp + H_CMD_LINE_PTR, (uint32_t)(seg0 + L.off_cmd));
	wr32(bp + BP_EXT_CMD_LINE_PTR, (uint32_t)((seg0 + L.off_cmd) >> 32));

	/* initrd */
	if (initrd_len) {
		wr32(bp + H_RAMDISK_IMAGE, (uint32_t)iaddr);
		wr32(bp + BP_EXT_RAMDISK_IMAGE, (uint32_t)(iaddr >> 32));
		wr32(bp + H_RAMDISK_SIZE, (uint32_t)initrd_len);
		wr32(bp + BP_EXT_RAMDISK_SIZE, (uint32_t)((uint64_t)initrd_len >> 32));
	}
	fill_e820(buf, bp, env, &L);
	if ((r = fill_setup_data(buf, bp, env, &L, why, whysz))) {
		free(buf);
		return r;
	}
	tramp_fill(buf, seg0, bp_addr, kaddr + 0x200);

	p->buf = buf;
	p->buf_len = L.total;
	p->entry = seg0;
	p->params_addr = bp_addr;
	p->kernel_addr = kaddr;
	p->initrd_addr = iaddr;
	p->seg[0] = (struct lb_kl_seg){ buf, L.total, seg0, L.total };
	p->kernel_room = h.kmem;
	plan_segments(p, k, klen, &h, initrd, initrd_len);
	return 0;
}

/* --- the running system ------------------------------------------------- */

int lb_kl_e820_type(const char *n)
{
	static const struct { const char *name; int type; } t[] = {
		{ "System RAM", LB_E820_RAM },
		{ "Reserved", LB_E820_RESERVED },
		{ "reserved", LB_E820_RESERVED },
		{ "ACPI Tables", LB_E820_ACPI },
		{ "ACPI Non-volatile Storage", LB_E820_NVS },
		{ "Unusable memory", LB_E820_UNUSABLE },
		{ "Persistent Memory (legacy)", LB_E820_PRAM },
		{ "Persistent Memory", LB_E820_PMEM },
		{ "Soft Reserved", (int)LB_E820_SOFT_RESERVED },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(n, t[i].name))
			return t[i].type;
	return -ENOENT;
}

static int add_range(struct lb_kl_range *v, size_t *n, size_t max, uint64_t s,
		     uint64_t e, uint32_t type)
{
	if (e <= s)
		return 0;
	if (*n && v[*n - 1].type == type && v[*n - 1].end == s) {
		v[*n - 1].end = e;
		return 0;
	}
	if (*n >= max)
		return -E2BIG;
	v[*n].start = s;
	v[*n].end = e;
	v[*n].type = type;
	(*n)++;
	return 0;
}

/* "START-END : NAME" with hex inclusive bounds; depth from the indent */
static int iomem_line(const char *l, unsigned *depth, uint64_t *s, uint64_t *e,
		      const char **name)
{
	char *end;
	unsigned d = 0;

	while (*l == ' ') {
		d++;
		l++;
	}
	errno = 0;
	*s = strtoull(l, &end, 16);
	if (errno || end == l || *end != '-')
		return -EINVAL;
	l = end + 1;
	*e = strtoull(l, &end, 16);
	if (errno || end == l || strncmp(end, " : ", 3) || *e < *s || *e == UINT64_MAX)
		return -EINVAL;
	*depth = d / 2;
	*name = end + 3;
	return 0;
}

int lb_kl_parse_iomem(const char *text, struct lb_kl_range *e820, size_t *n_e820,
		      struct lb_kl_range *ram, size_t *n_ram, size_t max)
{
	struct lb_kl_range hole[64];
	size_t n_hole = 0, ne = 0, nr = 0;
	const char *l = text;
	int r;

	while (l && *l) {
		const char *nl = strchr(l, '\n'), *name;
		char line[256], nm[128];
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		unsigned depth;
		uint64_t s, e;
		int type;

		if (len < sizeof(line)) {
			memcpy(line, l, len);
			line[len] = 0;
			if (!iomem_line(line, &depth, &s, &e, &name)) {
				snprintf(nm, sizeof(nm), "%s", name);
				if (depth == 0 && (type = lb_kl_e820_type(nm)) > 0) {
					if ((r = add_range(e820, &ne, max, s, e + 1, (uint32_t)type)))
						return r;
					if (type == LB_E820_RAM &&
					    (r = add_range(ram, &nr, max, s, e + 1, LB_E820_RAM)))
						return r;
				} else if (depth == 1 && (!strcmp(nm, "Crash kernel") ||
							  !strncmp(nm, "Kernel ", 7)) &&
					   n_hole < sizeof(hole) / sizeof(hole[0])) {
					hole[n_hole].start = s;
					hole[n_hole].end = e + 1;
					n_hole++;
				}
			}
		}
		l = nl ? nl + 1 : NULL;
	}
	/* a crash kernel reservation is nobody's to overwrite; the running
	 * kernel's image (Kernel code, rodata, data, bss) is kept clear too:
	 * kexec could swap pages there, but under QEMU's TCG every write into
	 * pages that held translated code is slow (docs/kexec-load.md) */
	for (size_t h = 0; h < n_hole; h++)
		for (size_t i = 0; i < nr; i++) {
			struct lb_kl_range *x = &ram[i];

			if (hole[h].end <= x->start || x->end <= hole[h].start)
				continue;
			if (hole[h].start > x->start && hole[h].end < x->end) {
				if (nr >= max)
					return -E2BIG;
				memmove(x + 2, x + 1, (nr - i - 1) * sizeof(*x));
				x[1] = (struct lb_kl_range){ hole[h].end, x->end, LB_E820_RAM };
				x->end = hole[h].start;
				nr++;
				i++;
			} else if (hole[h].start <= x->start) {
				x->start = hole[h].end < x->end ? hole[h].end : x->end;
			} else {
				x->end = hole[h].start;
			}
		}
	*n_e820 = ne;
	*n_ram = nr;
	return 0;
}

static int read_text(const char *path, char **out, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0, cap = 4096;
	char *b, *nb;

	if (fd < 0)
		return -errno;
	if (!(b = malloc(cap))) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t k;

		if (cap - n < 2) {
			if (cap >= max) {
				free(b);
				close(fd);
				return -EFBIG;
			}
			cap *= 2;
			if (!(nb = realloc(b, cap))) {
				free(b);
				close(fd);
				return -ENOMEM;
			}
			b = nb;
		}
		k = read(fd, b + n, cap - n - 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int r = -errno;
			free(b);
			close(fd);
			return r;
		}
		if (!k)
			break;
		n += (size_t)k;
	}
	close(fd);
	b[n] = 0;
	*out = b;
	return 0;
}

static int read_u64(const char *path, uint64_t *v)
{
	char *t, *end;
	int r;

	if ((r = read_text(path, &t, 256)))
		return r;
	errno = 0;
	*v = strtoull(t, &end, 0);
	r = errno || end == t ? -EINVAL : 0;
	free(t);
	return r;
}

/* "KEY=0x..." in /sys/firmware/efi/systab */
static int systab_get(const char *text, const char *key, uint64_t *v)
{
	size_t kl = strlen(key);

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, key, kl) && l[kl] == '=') {
			char *end;

			errno = 0;
			*v = strtoull(l + kl + 1, &end, 0);
			return errno || end == l + kl + 1 ? -EINVAL : 0;
		}
	return -ENOENT;
}

/* /sys/firmware/memmap/N/{start,end,type}, in address order */
static int read_firmware_memmap(struct lb_kl_env *env)
{
	struct lb_kl_range *v = env->e820;
	DIR *d = opendir("/sys/firmware/memmap");
	struct dirent *de;
	size_t n = 0;
	int r = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char p[300], *type;
		uint64_t s, e;
		int t;

		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "/sys/firmware/memmap/%s/start", de->d_name);
		if (read_u64(p, &s))
			continue;
		snprintf(p, sizeof(p), "/sys/firmware/memmap/%s/end", de->d_name);
		if (read_u64(p, &e) || e < s || e == UINT64_MAX)
			continue;
		snprintf(p, sizeof(p), "/sys/firmware/memmap/%s/type", de->d_name);
		if (read_text(p, &type, 256))
			continue;
		type[strcspn(type, "\n")] = 0;
		t = lb_kl_e820_type(type);
		free(type);
		if (t < 0)
			t = LB_E820_RESERVED;
		if (n >= LB_KL_MAX_RANGES) {
			r = -E2BIG;
			break;
		}
		v[n++] = (struct lb_kl_range){ s, e + 1, (uint32_t)t };
	}
	closedir(d);
	if (r)
		return r;
	if (!n)
		return -ENOENT;
	/* sort by start (insertion: a few dozen entries) */
	for (size_t i = 1; i < n; i++) {
		struct lb_kl_range x = v[i];
		size_t j = i;

		while (j && v[j - 1].start > x.start) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
	env->n_e820 = n;
	return 0;
}

static int read_runtime_map(struct lb_kl_env *env)
{
	size_t n = 0;

	for (;;) {
		struct lb_kl_efimd *m = &env->efimd[n];
		char p[96];
		uint64_t type;

		snprintf(p, sizeof(p), "/sys/firmware/efi/runtime-map/%zu/type", n);
		if (read_u64(p, &type))
			break;
		if (n >= LB_KL_MAX_EFI)
			return -E2BIG;
		m->type = (uint32_t)type;
#define RM(field, name)                                                           \
		snprintf(p, sizeof(p), "/sys/firmware/efi/runtime-map/%zu/" name, n); \
		if (read_u64(p, &m->field))                                       \
			return -EINVAL;
		RM(phys, "phys_addr")
		RM(virt, "virt_addr")
		RM(pages, "num_pages")
		RM(attr, "attribute")
#undef RM
		n++;
	}
	env->n_efimd = n;
	return n ? 0 : -ENOENT;
}

int lb_kl_env_read(struct lb_kl_env *env, char *why, size_t whysz)
{
	struct lb_kl_range e820_io[LB_KL_MAX_RANGES];
	size_t n_io = 0;
	char *t = NULL;
	int fd, r;

	memset(env, 0, sizeof(*env));
	fd = open("/sys/kernel/boot_params/data", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		size_t got = 0;

		env->have_bp = !lb_pread_full(fd, env->bp, sizeof(env->bp), 0, &got) &&
			       got == sizeof(env->bp);
		close(fd);
	}
	/* where segments may go, and the e820 when there is no memmap */
	if ((r = read_text("/proc/iomem", &t, 1 << 20)))
		return lb_whyf(why, whysz, r, "/proc/iomem: %s", strerror(-r));
	r = lb_kl_parse_iomem(t, e820_io, &n_io, env->ram, &env->n_ram, LB_KL_MAX_RANGES);
	free(t);
	if (r)
		return lb_whyf(why, whysz, r, "/proc/iomem: %s", strerror(-r));
	if (!env->n_ram || (env->n_ram == 1 && !env->ram[0].start && env->ram[0].end == 1))
		return lb_whyf(why, whysz, -EPERM, "/proc/iomem: no RAM shown (not root?)");
	if (read_firmware_memmap(env)) {
		memcpy(env->e820, e820_io, n_io * sizeof(e820_io[0]));
		env->n_e820 = n_io;
	}

	/* ACPI: what the running kernel was given, else the EFI tables */
	if (env->have_bp)
		env->acpi_rsdp = rd64(env->bp + BP_ACPI_RSDP);
	t = NULL;
	if (!read_text("/sys/firmware/efi/systab", &t, 1 << 16)) {
		if (!env->acpi_rsdp && systab_get(t, "ACPI20", &env->acpi_rsdp))
			systab_get(t, "ACPI", &env->acpi_rsdp);
		if (systab_get(t, "SMBIOS", &env->efi_smbios))
			env->efi_smbios = 0;
		free(t);
		/* 64-bit EFI with runtime services and a runtime map */
		if (env->have_bp && !memcmp(env->bp + BP_EFI_SIG, "EL64", 4) &&
		    rd32(env->bp + BP_EFI_MEMMAP_SIZE) &&
		    !read_u64("/sys/firmware/efi/fw_vendor", &env->efi_fw_vendor) &&
		    !read_u64("/sys/firmware/efi/runtime", &env->efi_runtime) &&
		    !read_u64("/sys/firmware/efi/config_table", &env->efi_tables) &&
		    !read_runtime_map(env)) {
			env->efi = 1;
			env->efi_systab = rd32(env->bp + BP_EFI_SYSTAB) |
					  (uint64_t)rd32(env->bp + BP_EFI_SYSTAB_HI) << 32;
		}
	}
	env->have_rng = getrandom(env->rng, sizeof(env->rng), GRND_NONBLOCK) ==
			(ssize_t)sizeof(env->rng);
	return 0;
}

/* --- the load ------------------------------------------------------------ */

static int map_fd(int fd, uint64_t size, const uint8_t **p)
{
	void *m;

	if (size > SIZE_MAX)
		return -EFBIG;
	m = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	*p = m;
	return 0;
}

int lb_kexec_load_segments(const struct lb_stage *st, char *why, size_t whysz)
{
	const struct lb_blob *kb = st->is_uki ? &st->linux_ : &st->file;
	const uint8_t *k = NULL, *ird = NULL;
	struct lb_kl_env *env;
	struct lb_kl_plan p;
	char w[256];
	int r;

	if (kb->fd < 0 || !kb->size)
		return lb_whyf(why, whysz, -EINVAL, "kexec_load: no kernel staged");
	if (!(env = malloc(sizeof(*env))))
		return lb_whyf(why, whysz, -ENOMEM, "kexec_load: out of memory (ENOMEM)");
	if ((r = lb_kl_env_read(env, w, sizeof(w)))) {
		lb_whyf(why, whysz, r, "kexec_load: %s", w);
		goto out_env;
	}
	if ((r = map_fd(kb->fd, kb->size, &k))) {
		lb_whyf(why, whysz, r, "kexec_load: map kernel: %s", strerror(-r));
		goto out_env;
	}
	if (st->initrd.fd >= 0 && st->initrd.size &&
	    (r = map_fd(st->initrd.fd, st->initrd.size, &ird))) {
		lb_whyf(why, whysz, r, "kexec_load: map initrd: %s", strerror(-r));
		goto out_k;
	}
	if ((r = lb_kl_build(k, (size_t)kb->size, ird, ird ? (size_t)st->initrd.size : 0,
			     st->cmdline ? st->cmdline : "", env, &p, w, sizeof(w)))) {
		lb_whyf(why, whysz, r, "kexec_load: %s", w);
		goto out_i;
	}
	{
		/* struct kexec_segment: buf, bufsz, mem, memsz */
		struct { const void *buf; size_t bufsz; uintptr_t mem; size_t memsz; } seg[LB_KL_MAX_SEGS];

		for (size_t i = 0; i < p.n_seg; i++) {
			seg[i].buf = p.seg[i].buf;
			seg[i].bufsz = p.seg[i].bufsz;
			seg[i].mem = (uintptr_t)p.seg[i].mem;
			seg[i].memsz = (size_t)p.seg[i].memsz;
		}
		if (syscall(LB_SYS_KEXEC_LOAD, (unsigned long)p.entry, (unsigned long)p.n_seg,
			    seg, (unsigned long)LB_KEXEC_ARCH_X86_64) < 0) {
			r = -errno;
			lb_whyf(why, whysz, r, "kexec_load: %s%s", strerror(-r),
			      r == -EPERM ? " (lockdown or kexec_load_disabled?)" :
			      r == -ENOSYS ? " (no CONFIG_KEXEC)" : "");
		}
	}
	lb_kl_plan_free(&p);
out_i:
	if (ird)
		munmap((void *)ird, (size_t)st->initrd.size);
out_k:
	munmap((void *)k, (size_t)kb->size);
out_env:
	free(env);
	return r;
}
