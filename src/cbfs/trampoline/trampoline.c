/*
 * lboot's Linux trampoline for coreboot payloads (lboot cbfs add-payload).
 *
 * coreboot's payload loader (selfboot) copies the payload's segments and
 * jumps here, to LB_TRAMP_LOC, in 32-bit protected mode with flat segments,
 * paging off. The payload's segments have put the zero page (struct
 * boot_params, with the kernel's setup header, command line pointer, initrd
 * and code32_start already filled in by lboot) at LB_TRAMP_ZP. Here, the one
 * thing that can only be known at boot is added: the memory map, from
 * coreboot's table (LBIO) into the zero page's e820 table (coreboot's
 * own types 6 and 16 as reserved). Then Linux's
 * 32-bit boot protocol (Documentation/arch/x86/boot.rst): our own GDT with
 * __BOOT_CS 0x10 and __BOOT_DS 0x18, %esi = the zero page, %ebx %ebp %edi
 * = 0, interrupts off, jump to code32_start.
 *
 * The table is found where coreboot leaves it (the low table at 0-4 KiB or
 * 0xf0000-1 MiB, with a forward record to the real one in CBMEM), and is
 * checked before it is used: both IP checksums, every record's size inside
 * the table, at most 4 forwards, at most 128 e820 entries. If no valid
 * table with a memory map is found, one line goes to COM1 and the CPU halts:
 * Linux is never started with a memory map it did not get.
 *
 * Freestanding 32-bit code, linked at LB_TRAMP_LOC (trampoline.ld); no
 * libc, no calls out, nothing in .bss. Built by the Makefile into
 * build/cbfs/trampoline.h, which src/cbfs/payload.c embeds.
 */
#define LB_TRAMP_ZP 0x90000u

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;

#define LB_TAG_MEMORY  0x01u
#define LB_TAG_FORWARD 0x11u
#define E820_MAX       128u   /* E820_MAX_ENTRIES_ZEROPAGE */
#define ZP_E820_NR     0x1e8u
#define ZP_E820        0x2d0u
#define ZP_CODE32      0x214u
#define TABLE_MAX      (1u << 20)

static inline u32 rd32(u32 a) { return *(volatile u32 *)a; }
static inline u16 rd16(u32 a) { return *(volatile u16 *)a; }

static inline void outb(u16 port, u8 v) { __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port)); }
static inline u8 inb(u16 port)
{
	u8 v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static void say(const char *s)
{
	for (; *s; s++) {
		for (u32 i = 0; i < 100000 && !(inb(0x3fd) & 0x20); i++)
			;
		outb(0x3f8, (u8)*s);
	}
}

/* coreboot's compute_ip_checksum: ones' complement of the ones'-complement
 * sum of 16-bit words (a last odd byte is the low byte) */
static u16 ipsum(u32 a, u32 len)
{
	u32 sum = 0;
	u32 i;

	for (i = 0; i + 1 < len; i += 2)
		sum += rd16(a + i);
	if (len & 1)
		sum += *(volatile u8 *)(a + len - 1);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (u16)~sum;
}

/* a valid header at a: "LBIO", header_bytes 24, header and table checksums */
static int header_ok(u32 a)
{
	u32 tb;

	if (rd32(a) != 0x4f49424cu || rd32(a + 4) != 24 || ipsum(a, 24) != 0)
		return 0;
	tb = rd32(a + 12);
	if (tb > TABLE_MAX || a + 24 + tb < a)
		return 0;
	return ipsum(a + 24, tb) == (u16)rd32(a + 16);
}

static u32 find_low(u32 from, u32 to)
{
	for (u32 a = from; a < to; a += 16)
		if (header_ok(a))
			return a;
	return 0xffffffffu;
}

/* copy the memory map of the table at h into the zero page; 1 if done */
static int memory_map(u32 h, int depth)
{
	u32 t = h + 24, tb = rd32(h + 12), n = rd32(h + 20), off = 0;

	for (u32 i = 0; i < n && off + 8 <= tb; i++) {
		u32 tag = rd32(t + off), size = rd32(t + off + 4);

		if (size < 8 || size > tb - off)
			return 0;
		if (tag == LB_TAG_FORWARD && size >= 16) {
			u32 fwd = rd32(t + off + 8);

			if (rd32(t + off + 12) || depth >= 4 || !header_ok(fwd))
				return 0;
			return memory_map(fwd, depth + 1);
		}
		if (tag == LB_TAG_MEMORY) {
			u32 cnt = (size - 8) / 20, src = t + off + 8, dst = LB_TRAMP_ZP + ZP_E820;

			if (cnt > E820_MAX)
				cnt = E820_MAX;
			for (u32 w = 0; w < cnt * 5; w++) {
				u32 v = rd32(src + 4 * w);

				/* coreboot's own types (6 vendor reserved, 16 its
				 * tables) are reserved to Linux, as cbfstool's
				 * trampoline and U-Boot make them */
				if (w % 5 == 4 && (v == 6 || v == 16))
					v = 2;
				*(volatile u32 *)(dst + 4 * w) = v;
			}
			*(volatile u8 *)(LB_TRAMP_ZP + ZP_E820_NR) = (u8)cnt;
			return cnt != 0;
		}
		off += size;
	}
	return 0;
}

static const u64 gdt[4] __attribute__((aligned(8))) = {
	0, 0,
	0x00cf9a000000ffffull, /* 0x10: flat 4 GiB code, execute/read */
	0x00cf92000000ffffull, /* 0x18: flat 4 GiB data, read/write */
};
static const struct __attribute__((packed)) {
	u16 limit;
	u32 base;
} gdtr = { sizeof(gdt) - 1, (u32)gdt };

__attribute__((section(".text.entry"), noreturn)) void lb_trampoline(void)
{
	u32 h = find_low(0, 0x1000);

	if (h == 0xffffffffu)
		h = find_low(0xf0000, 0x100000);
	if (h == 0xffffffffu || !memory_map(h, 0)) {
		say("lboot trampoline: no valid coreboot table with a memory map below 1 MiB: "
		    "Linux not started\r\n");
		for (;;)
			__asm__ volatile("cli; hlt");
	}
	__asm__ volatile(
		"cli\n\t"
		"lgdt %0\n\t"
		"ljmp $0x10, $1f\n"
		"1:\n\t"
		"movl $0x18, %%eax\n\t"
		"movl %%eax, %%ds\n\t"
		"movl %%eax, %%es\n\t"
		"movl %%eax, %%ss\n\t"
		"movl %%eax, %%fs\n\t"
		"movl %%eax, %%gs\n\t"
		"xorl %%ebx, %%ebx\n\t"
		"xorl %%ebp, %%ebp\n\t"
		"xorl %%edi, %%edi\n\t"
		"jmp *%%ecx\n"
		:
		: "m"(gdtr), "S"(LB_TRAMP_ZP), "c"(rd32(LB_TRAMP_ZP + ZP_CODE32))
		: "eax", "memory");
	__builtin_unreachable();
}
