/* The kexec fast path's layout (src/kexec/kexecload_x86_64.c): the boot_params it
 * builds from real bzImages (Debian's kernel in /boot, out/bzImage),
 * checked against what the kernel itself checks and reads (setup header
 * version, loadflags, xloadflags 64-bit entry, alignment, init_size), the
 * segments, the setup_data chain, the trampoline (disassembled with
 * objdump when it is installed), and the /proc/iomem parser. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io.h"
#include "kexecload.h"
#include "t.h"

static uint16_t r16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t r32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t r64(const uint8_t *p) { return r32(p) | (uint64_t)r32(p + 4) << 32; }

#define MiB (1ull << 20)

/* a PC: low RAM, the BIOS hole, RAM to 1 GiB, ACPI at its top */
static void env_pc(struct lb_kl_env *env, uint64_t ram_lo, uint64_t ram_hi)
{
	memset(env, 0, sizeof(*env));
	env->e820[0] = (struct lb_kl_range){ 0, 0x9fc00, LB_E820_RAM };
	env->e820[1] = (struct lb_kl_range){ 0x9fc00, 0xa0000, LB_E820_RESERVED };
	env->e820[2] = (struct lb_kl_range){ 0xf0000, 0x100000, LB_E820_RESERVED };
	env->e820[3] = (struct lb_kl_range){ 0x100000, ram_hi, LB_E820_RAM };
	env->e820[4] = (struct lb_kl_range){ ram_hi, ram_hi + 0x20000, LB_E820_ACPI };
	env->n_e820 = 5;
	env->ram[0] = (struct lb_kl_range){ 0x1000, 0x9f000, LB_E820_RAM };
	env->ram[1] = (struct lb_kl_range){ ram_lo, ram_hi, LB_E820_RAM };
	env->n_ram = 2;
	env->have_bp = 1;
	for (int i = 0; i < 0x40; i++)
		env->bp[i] = (uint8_t)(0xa0 + i);       /* screen_info */
	env->bp[0x1ef] = 0xff;                          /* a sentinel not to copy */
	env->acpi_rsdp = 0xf5a40;
	memset(env->rng, 0x5a, sizeof(env->rng));
	env->have_rng = 1;
}

static void env_efi(struct lb_kl_env *env)
{
	env->efi = 1;
	env->efi_systab = 0x3f5ee018;
	env->efi_fw_vendor = 0x3f5ee098;
	env->efi_runtime = 0x3f5eeb98;
	env->efi_tables = 0x3f5ed118;
	env->efi_smbios = 0x3f520000;
	for (int i = 0; i < 3; i++)
		env->efimd[i] = (struct lb_kl_efimd){ 5 + (i & 1), 0x3f500000 + i * 0x10000,
						      0xfffffffeffc00000ull + i * 0x10000, 16,
						      0x800000000000000full };
	env->n_efimd = 3;
	env->bp[0x1ec] = 3; /* secure_boot */
}

static int load(const char *path, uint8_t **buf, size_t *len)
{
	return lb_read_path(path, 128u << 20, buf, len);
}

/* the kernel in /boot (Debian's, as the e2e target) */
static const char *debian_kernel(char *out, size_t n)
{
	DIR *d = opendir("/boot");
	struct dirent *de;

	out[0] = 0;
	while (d && (de = readdir(d)))
		if (!strncmp(de->d_name, "vmlinuz-", 8) && strstr(de->d_name, "amd64"))
			snprintf(out, n, "/boot/%.200s", de->d_name);
	if (d)
		closedir(d);
	return out[0] ? out : NULL;
}

static int in_ranges(const struct lb_kl_env *env, uint64_t s, uint64_t len)
{
	for (size_t i = 0; i < env->n_ram; i++)
		if (s >= env->ram[i].start && s + len <= env->ram[i].end)
			return 1;
	return 0;
}

/* everything a kernel's startup_64 and setup code read, checked */
static void check_plan(const uint8_t *k, size_t klen, const struct lb_kl_env *env,
		       const struct lb_kl_plan *p, const char *cmdline, size_t initrd_len)
{
	const uint8_t *bp = p->buf + LB_KL_TRAMP_SIZE, *t = p->buf;
	unsigned setup_sects = k[0x1f1] ? k[0x1f1] : 4;
	uint64_t kern16 = (setup_sects + 1) * 512ull, align = r32(k + 0x230);
	uint64_t cmd, sd;
	int n_sd = 0, seen_efi = 0, seen_rng = 0, seen_ext = 0;

	/* the setup header, as the kernel checks it (bzImage64_probe) */
	CHECK(!memcmp(bp + 0x202, "HdrS", 4));
	CHECK(r16(bp + 0x1fe) == 0xaa55);
	CHECK(r16(bp + 0x206) >= 0x020c);
	CHECK(bp[0x211] & 0x01);                  /* LOADED_HIGH */
	CHECK(!(bp[0x211] & (0x20 | 0x40 | 0x80))); /* no QUIET, KEEP_SEGMENTS, CAN_USE_HEAP */
	CHECK(r16(bp + 0x236) & 0x01);            /* XLF_KERNEL_64 */
	CHECK_INT(bp[0x210], 0xd0);               /* type_of_loader: kexec */
	CHECK_INT(bp[0x1ef], 0);                  /* sentinel: a clean zero page */
	/* fields copied from the image unchanged */
	CHECK_INT(r32(bp + 0x230), r32(k + 0x230));
	CHECK_INT(r32(bp + 0x260), r32(k + 0x260));
	CHECK_INT(r32(bp + 0x238), r32(k + 0x238));
	CHECK_INT(r64(bp + 0x258), r64(k + 0x258));

	/* segments: page aligned, in RAM, apart */
	{
		/* the kernel's room: its bytes, then the top of init_size
		 * (where the decompressor runs on kexec's page tables) as a
		 * segment of its own when that leaves a gap */
		uint64_t room = (r32(k + 0x260) + 4095ull) & ~4095ull;
		uint64_t kb = (klen - kern16 + 4095) & ~4095ull, tl = LB_KL_TAIL(kb);
		size_t nseg = (initrd_len ? 3 : 2) + (kb + tl < room);

		CHECK_INT(p->n_seg, nseg);
		CHECK_INT(p->kernel_room, room);
		if (kb + tl < room) {
			const struct lb_kl_seg *ts = &p->seg[nseg - 1];

			CHECK_INT(p->seg[1].memsz, kb);
			CHECK(ts->buf == NULL && ts->bufsz == 0);
			CHECK_INT(ts->mem + ts->memsz, p->kernel_addr + room);
			CHECK(ts->memsz >= kb + (4ull << 20));
		} else {
			CHECK_INT(p->seg[1].memsz, room);
		}
		/* nothing else inside the room */
		for (size_t i = 0; i < p->n_seg; i++)
			if (i != 1 && !(kb + tl < room && i == nseg - 1))
				CHECK(p->seg[i].mem + p->seg[i].memsz <= p->kernel_addr ||
				      p->seg[i].mem >= p->kernel_addr + room);
	}
	for (size_t i = 0; i < p->n_seg; i++) {
		CHECK(!(p->seg[i].mem & 4095));
		CHECK(!(p->seg[i].memsz & 4095));
		CHECK(p->seg[i].bufsz <= p->seg[i].memsz);
		CHECK(in_ranges(env, p->seg[i].mem, p->seg[i].memsz));
		for (size_t j = 0; j < i; j++)
			CHECK(p->seg[i].mem + p->seg[i].memsz <= p->seg[j].mem ||
			      p->seg[j].mem + p->seg[j].memsz <= p->seg[i].mem);
	}
	/* the kernel: its protected-mode part, at an aligned address, with
	 * init_size of room (where it decompresses) */
	CHECK(p->seg[1].buf == k + kern16);
	CHECK_INT(p->seg[1].bufsz, klen - kern16);
	CHECK_INT(p->seg[1].mem, p->kernel_addr);
	CHECK(!(p->kernel_addr & (align - 1)));
	CHECK(p->kernel_addr >= 0x100000);
	/* boot_params, the command line */
	CHECK_INT(p->seg[0].mem, p->entry);
	CHECK_INT(p->params_addr, p->entry + LB_KL_TRAMP_SIZE);
	CHECK(p->entry + p->seg[0].memsz <= (1ull << 32));
	cmd = r32(bp + 0x228) | (uint64_t)r32(bp + 0xc8) << 32;
	CHECK(cmd > p->params_addr && cmd < p->entry + p->buf_len);
	if (cmd > p->entry && cmd < p->entry + p->buf_len) {
		const char *c = (const char *)p->buf + (cmd - p->entry);

		CHECK_STR(c, cmdline);
		CHECK(strlen(c) <= r32(k + 0x238));
	}
	/* the initrd */
	if (initrd_len) {
		CHECK_INT(r32(bp + 0x218) | (uint64_t)r32(bp + 0xc0) << 32, p->seg[2].mem);
		CHECK_INT(r32(bp + 0x21c) | (uint64_t)r32(bp + 0xc4) << 32, initrd_len);
		CHECK_INT(p->initrd_addr, p->seg[2].mem);
		CHECK(p->seg[2].mem >= 16 * MiB);
	} else {
		CHECK_INT(r32(bp + 0x218), 0);
		CHECK_INT(r32(bp + 0x21c), 0);
	}
	/* what the running kernel had */
	CHECK(!memcmp(bp, env->bp, 2) && !memcmp(bp + 4, env->bp + 4, 0x3c));
	CHECK_INT(r64(bp + 0x70), env->acpi_rsdp);
	/* e820 */
	CHECK_INT(bp[0x1e8], env->n_e820 < 128 ? env->n_e820 : 128);
	for (size_t i = 0; i < env->n_e820 && i < 128; i++) {
		const uint8_t *e = bp + 0x2d0 + 20 * i;

		CHECK_INT(r64(e), env->e820[i].start);
		CHECK_INT(r64(e + 8), env->e820[i].end - env->e820[i].start);
		CHECK_INT(r32(e + 16), env->e820[i].type);
	}
	/* the setup_data chain: every node inside segment 0 */
	for (sd = r64(bp + 0x250); sd && n_sd < 8; n_sd++) {
		const uint8_t *d;
		uint32_t type, len;

		CHECK(sd >= p->params_addr + 4096 && sd + 16 <= p->entry + p->buf_len);
		if (!(sd >= p->params_addr + 4096 && sd + 16 <= p->entry + p->buf_len))
			break;
		d = p->buf + (sd - p->entry);
		type = r32(d + 8);
		len = r32(d + 12);
		CHECK(sd + 16 + len <= p->entry + p->buf_len);
		if (type == 4) { /* SETUP_EFI */
			seen_efi++;
			CHECK_INT(len, 96);
			CHECK_INT(r64(d + 16), env->efi_fw_vendor);
			CHECK_INT(r64(d + 16 + 16), env->efi_tables);
			CHECK_INT(r64(d + 16 + 24), env->efi_smbios);
		} else if (type == 9) { /* SETUP_RNG_SEED */
			seen_rng++;
			CHECK_INT(len, 32);
			CHECK(!memcmp(d + 16, env->rng, 32));
		} else if (type == 1) { /* SETUP_E820_EXT */
			seen_ext++;
			CHECK_INT(len, (env->n_e820 - 128) * 20);
			CHECK_INT(r64(d + 16), env->e820[128].start);
		}
		sd = r64(d);
	}
	CHECK(!sd);
	CHECK_INT(seen_rng, env->have_rng);
	CHECK_INT(seen_ext, env->n_e820 > 128);
	if (env->efi && (r16(k + 0x236) & 0x10)) { /* XLF_EFI_KEXEC */
		uint64_t mm = r32(bp + 0x1d0) | (uint64_t)r32(bp + 0x1dc) << 32;

		CHECK_INT(seen_efi, 1);
		CHECK(!memcmp(bp + 0x1c0, "EL64", 4));
		CHECK_INT(r32(bp + 0x1c4) | (uint64_t)r32(bp + 0x1d8) << 32, env->efi_systab);
		CHECK_INT(r32(bp + 0x1c8), 40);
		CHECK_INT(r32(bp + 0x1d4), env->n_efimd * 40);
		CHECK(mm > p->params_addr && mm + env->n_efimd * 40 <= p->entry + p->buf_len);
		if (mm > p->params_addr && mm + env->n_efimd * 40 <= p->entry + p->buf_len) {
			const uint8_t *md = p->buf + (mm - p->entry);

			for (size_t i = 0; i < env->n_efimd; i++, md += 40) {
				CHECK_INT(r32(md), env->efimd[i].type);
				CHECK_INT(r64(md + 8), env->efimd[i].phys);
				CHECK_INT(r64(md + 16), env->efimd[i].virt);
				CHECK_INT(r64(md + 24), env->efimd[i].pages);
				CHECK_INT(r64(md + 32), env->efimd[i].attr);
			}
		}
		CHECK_INT(bp[0x1ec], 3);
	} else {
		CHECK_INT(seen_efi, 0);
		CHECK_INT(r32(bp + 0x1c0), 0);
	}
	/* the trampoline's registers and GDT */
	CHECK_INT(t[0], 0xfa);
	CHECK_INT(r16(t + LB_KL_T_GDTR), 31);
	CHECK_INT(r64(t + LB_KL_T_GDTR + 2), p->entry + LB_KL_T_GDT);
	CHECK_INT(r64(t + LB_KL_T_RSP), p->entry + 4096);
	CHECK_INT(r64(t + LB_KL_T_RSI), p->params_addr);
	CHECK_INT(r64(t + LB_KL_T_RIP), p->kernel_addr + 0x200);
	CHECK_INT(r64(t + LB_KL_T_GDT), 0);
	CHECK_INT(r64(t + LB_KL_T_GDT + 0x10), 0x00af9a000000ffffull);
	CHECK_INT(r64(t + LB_KL_T_GDT + 0x18), 0x00cf92000000ffffull);
}

static void real_kernel(const char *name, const char *path)
{
	static const char cmd[] = "console=ttyS0,115200 root=/dev/vda1 quiet";
	struct lb_kl_env *env = malloc(sizeof(*env));
	static uint8_t initrd[12345];
	struct lb_kl_plan p;
	uint8_t *k = NULL, *k2;
	size_t klen = 0;
	char why[256], tn[96];
	int r;

	snprintf(tn, sizeof(tn), "kexecload/%s: boot_params of %s", name, path ? path : "-");
	TEST(tn) {
		if (!path || access(path, R_OK)) {
			SKIP("%s not readable", path ? path : "kernel");
			continue;
		}
		CHECK(env);
		if (!env || (r = load(path, &k, &klen))) {
			CHECK(!"read kernel");
			continue;
		}
		/* with an initrd, BIOS-like: top-down, as kexec_file_load
		 * (the highest aligned place with init_size of room, not
		 * pref_address, where the running kernel is) */
		env_pc(env, 1 * MiB, 1024 * MiB);
		r = lb_kl_build(k, klen, initrd, sizeof(initrd), cmd, env, &p, why, sizeof(why));
		CHECK_INT(r, 0);
		if (!r) {
			uint64_t al = r32(k + 0x230), room = (r32(k + 0x260) + 4095ull) & ~4095ull;

			CHECK_INT(p.kernel_addr, (1024 * MiB - room) & ~(al - 1));
			check_plan(k, klen, env, &p, cmd, sizeof(initrd));
			lb_kl_plan_free(&p);
		}
		/* EFI runtime state, no initrd, pref_address not in RAM: the
		 * highest kernel_alignment'd place */
		env_pc(env, 64 * MiB, 1024 * MiB);
		env_efi(env);
		env->have_rng = 0;
		r = lb_kl_build(k, klen, NULL, 0, "", env, &p, why, sizeof(why));
		CHECK_INT(r, 0);
		if (!r) {
			CHECK(p.kernel_addr >= 64 * MiB);
			CHECK(p.kernel_addr != r64(k + 0x258));
			check_plan(k, klen, env, &p, "", 0);
			lb_kl_plan_free(&p);
		}
		/* more than 128 e820 entries: the rest in SETUP_E820_EXT */
		env_pc(env, 1 * MiB, 1024 * MiB);
		for (size_t i = 5; i < 200; i++)
			env->e820[i] = (struct lb_kl_range){ (8ull << 32) + i * 2 * MiB,
							     (8ull << 32) + i * 2 * MiB + MiB,
							     (uint32_t)(i & 1 ? LB_E820_RAM : LB_E820_RESERVED) };
		env->n_e820 = 200;
		r = lb_kl_build(k, klen, initrd, sizeof(initrd), cmd, env, &p, why, sizeof(why));
		CHECK_INT(r, 0);
		if (!r) {
			check_plan(k, klen, env, &p, cmd, sizeof(initrd));
			lb_kl_plan_free(&p);
		}

		/* refusals: what the kernel's bzImage64_probe refuses, and more */
		env_pc(env, 1 * MiB, 1024 * MiB);
		if (!(k2 = malloc(klen))) {
			CHECK(!"malloc");
			continue;
		}
#define REFUSE(expect, mutate, l, c) do {                                      \
		memcpy(k2, k, klen);                                               \
		mutate;                                                            \
		why[0] = 0;                                                        \
		CHECK_INT(lb_kl_build(k2, l, initrd, sizeof(initrd), c, env, &p, why, \
				      sizeof(why)), expect);                       \
		CHECK(why[0]);                                                     \
		lb_kl_plan_free(&p);                                               \
	} while (0)
		REFUSE(-ENOEXEC, k2[0x206] = 0x0b, klen, cmd);                /* 2.11 */
		REFUSE(-ENOEXEC, k2[0x236] &= (uint8_t)~1, klen, cmd);        /* no XLF_KERNEL_64 */
		REFUSE(-ENOEXEC, k2[0x211] &= (uint8_t)~1, klen, cmd);        /* zImage */
		REFUSE(-ENOEXEC, k2[0x202] = 'X', klen, cmd);                 /* no HdrS */
		REFUSE(-ENOEXEC, k2[0x1fe] = 0, klen, cmd);                   /* no 0xaa55 */
		REFUSE(-ENOEXEC, (void)0, (k[0x1f1] + 1) * 512u, cmd);        /* setup only */
		REFUSE(-ENOEXEC, (void)0, 600, cmd);                          /* too short */
		REFUSE(-ENOEXEC, memset(k2 + 0x260, 0, 4), klen, cmd);        /* init_size 0 */
		REFUSE(-ENOEXEC, k2[0x231] = 0x30, klen, cmd);                /* alignment not 2^n */
		REFUSE(-E2BIG, memset(k2 + 0x238, 0, 4); k2[0x238] = 10, klen, cmd);
		env_pc(env, 1 * MiB, 4 * MiB);                                /* no room */
		REFUSE(-ENOMEM, (void)0, klen, cmd);
		free(k2);
	}
	free(k);
	free(env);
}

int main(void)
{
	char deb[256];
	const char *out = getenv("LBOOT_OUT");
	char fw[512];

	TEST("kexecload/mode: lboot.kexec= values") {
		CHECK_INT(lb_kexec_mode_parse("file"), LB_KEXEC_FILE);
		CHECK_INT(lb_kexec_mode_parse("load"), LB_KEXEC_LOAD);
		CHECK_INT(lb_kexec_mode_parse("auto"), LB_KEXEC_AUTO);
		CHECK_INT(lb_kexec_mode_parse(""), -EINVAL);
		CHECK_INT(lb_kexec_mode_parse("Load"), -EINVAL);
		CHECK_INT(lb_kexec_mode_parse("loads"), -EINVAL);
		CHECK_INT(lb_kexec_mode_parse(NULL), -EINVAL);
		CHECK_STR(lb_kexec_mode_name(LB_KEXEC_LOAD), "load");
		CHECK_STR(lb_kexec_mode_name(LB_KEXEC_FILE), "file");
		CHECK_STR(lb_kexec_mode_name(LB_KEXEC_AUTO), "auto");
	}

	TEST("kexecload/iomem: e820 and RAM from /proc/iomem text") {
		static const char io[] =
			"00000000-00000fff : Reserved\n"
			"00001000-0009fbff : System RAM\n"
			"0009fc00-0009ffff : Reserved\n"
			"000a0000-000bffff : PCI Bus 0000:00\n"
			"000f0000-000fffff : Reserved\n"
			"  000f0000-000fffff : System ROM\n"
			"00100000-3f77cfff : System RAM\n"
			"  01000000-01ffffff : Kernel code\n"
			"  20000000-27ffffff : Crash kernel\n"
			"3f77d000-3f77dfff : ACPI Tables\n"
			"3f77e000-3f7fffff : ACPI Non-volatile Storage\n"
			"3f800000-3ffdffff : System RAM\n"
			"3ffe0000-3fffffff : Reserved\n"
			"b0000000-bfffffff : PCI MMCONFIG 0000 [bus 00-ff]\n"
			"100000000-13fffffff : System RAM\n"
			"garbage line\n"
			"fffffffffffffffe-ffffffffffffffff : Reserved\n";
		struct lb_kl_range e[32], ram[32];
		size_t ne = 0, nr = 0;

		CHECK_INT(lb_kl_parse_iomem(io, e, &ne, ram, &nr, 32), 0);
		CHECK_INT(ne, 10);
		CHECK_INT(e[0].start, 0);
		CHECK_INT(e[0].end, 0x1000);
		CHECK_INT(e[0].type, LB_E820_RESERVED);
		CHECK_INT(e[1].type, LB_E820_RAM);
		CHECK_INT(e[4].start, 0x100000);
		CHECK_INT(e[4].end, 0x3f77d000);
		CHECK_INT(e[5].type, LB_E820_ACPI);
		CHECK_INT(e[6].type, LB_E820_NVS);
		CHECK_INT(e[7].start, 0x3f800000);
		CHECK_INT(e[9].start, 0x100000000ull);
		CHECK_INT(e[9].end, 0x140000000ull);
		/* RAM: the crash kernel and the running kernel's image cut out */
		CHECK_INT(nr, 6);
		CHECK_INT(ram[0].start, 0x1000);
		CHECK_INT(ram[1].start, 0x100000);
		CHECK_INT(ram[1].end, 0x1000000);
		CHECK_INT(ram[2].start, 0x2000000);
		CHECK_INT(ram[2].end, 0x20000000);
		CHECK_INT(ram[3].start, 0x28000000);
		CHECK_INT(ram[3].end, 0x3f77d000);
		CHECK_INT(ram[5].end, 0x140000000ull);
		CHECK_INT(lb_kl_parse_iomem(io, e, &ne, ram, &nr, 3), -E2BIG);
		CHECK_INT(lb_kl_e820_type("Persistent Memory (legacy)"), LB_E820_PRAM);
		CHECK_INT(lb_kl_e820_type("PCI Bus 0000:00"), -ENOENT);
	}

	real_kernel("debian", debian_kernel(deb, sizeof(deb)));
	snprintf(fw, sizeof(fw), "%s/bzImage", out ? out : "out");
	real_kernel("firmware", fw);

	TEST("kexecload/trampoline: the bytes are the documented instructions") {
		static const char *const want[] = {
			"cli", "cld", "lgdt", "mov    $0x18,%eax", "mov    %eax,%ds",
			"mov    %eax,%es", "mov    %eax,%ss", "mov    %eax,%fs", "mov    %eax,%gs",
			"mov    0x31(%rip),%rsp", "lea    0x5(%rip),%rax", "push   $0x10",
			"push   %rax", "lretq", "mov    0x26(%rip),%rsi", "xor    %ebx,%ebx",
			"xor    %ebp,%ebp", "xor    %edi,%edi", "jmp    *0x22(%rip)",
		};
		struct lb_kl_env *env = calloc(1, sizeof(*env));
		static uint8_t k[64 << 10];
		struct lb_kl_plan p;
		char tmp[] = "/tmp/kexecload-tramp-XXXXXX", cmdl[256], line[256];
		size_t w = 0;
		FILE *f;
		int fd;

		if (access("/usr/bin/objdump", X_OK)) {
			SKIP("objdump not installed (binutils)");
			free(env);
			continue;
		}
		/* a minimal 64-bit bzImage header */
		k[0x1f1] = 4;
		k[0x1fe] = 0x55, k[0x1ff] = 0xaa, k[0x201] = 0x6a;
		memcpy(k + 0x202, "HdrS", 4);
		k[0x206] = 0x0f, k[0x207] = 0x02;
		k[0x211] = 1;
		k[0x232] = 0x20;            /* kernel_alignment 2 MiB */
		k[0x234] = 1;
		k[0x236] = 3;
		k[0x239] = 8;               /* cmdline_size 2048 */
		k[0x259] = 0, k[0x25a] = 0; /* pref_address 0 */
		k[0x262] = 0x10;            /* init_size 1 MiB */
		CHECK(env);
		if (!env)
			continue;
		env_pc(env, 1 * MiB, 256 * MiB);
		CHECK_INT(lb_kl_build(k, sizeof(k), NULL, 0, "x", env, &p, line, sizeof(line)), 0);
		fd = mkstemp(tmp);
		CHECK(fd >= 0);
		if (fd >= 0) {
			CHECK_INT(lb_write_all(fd, p.buf, 0x3e), 0);
			close(fd);
			snprintf(cmdl, sizeof(cmdl),
				 "objdump -D -b binary -m i386:x86-64 %s 2>/dev/null", tmp);
			f = popen(cmdl, "r");
			while (f && fgets(line, sizeof(line), f))
				if (w < sizeof(want) / sizeof(want[0]) && strstr(line, want[w]))
					w++;
			if (f)
				pclose(f);
			unlink(tmp);
			CHECK_INT(w, sizeof(want) / sizeof(want[0]));
		}
		lb_kl_plan_free(&p);
		free(env);
	}

	TEST("kexecload/env: the running system (/proc/iomem, /sys)") {
		struct lb_kl_env *env = malloc(sizeof(*env));
		char why[256];
		int r;

		if (!env) {
			CHECK(!"malloc");
			continue;
		}
		if (geteuid()) {
			SKIP("not root: /proc/iomem shows no addresses");
			free(env);
			continue;
		}
		r = lb_kl_env_read(env, why, sizeof(why));
		CHECK_INT(r, 0);
		if (!r) {
			CHECK(env->n_ram > 0);
			/* where segments may go: inside the target's RAM */
			for (size_t i = 0; i < env->n_ram; i++) {
				int in = 0;

				for (size_t j = 0; j < env->n_e820; j++)
					in |= env->e820[j].type == LB_E820_RAM &&
					      env->e820[j].start <= env->ram[i].start &&
					      env->ram[i].end <= env->e820[j].end;
				CHECK(in);
			}
			for (size_t i = 1; i < env->n_e820; i++)
				CHECK(env->e820[i - 1].start <= env->e820[i].start);
		} else {
			printf("# %s\n", why);
		}
		free(env);
	}
	return t_done();
}
