/*
 * The kexec fast path: kexec_load(2) with segments lboot lays out itself
 * (x86_64 64-bit boot protocol, Documentation/x86/boot.rst), and a small
 * trampoline of ours instead of the kernel's purgatory: no SHA-256 pass
 * over the segments at load time or after the jump.
 *
 * It verifies nothing itself. The bytes loaded are the staged memfds
 * (kexec.h: struct lb_stage) that verification and measurement already
 * looked at. kexec_file_load stays the fallback, and the only path where
 * the kernel has to check signatures itself (KEXEC_SIG, lockdown: there
 * kexec_load fails with EPERM).
 *
 * What the target gets, as kexec_file_load gives it
 * (arch/x86/kernel/kexec-bzimage64.c, 6.1):
 *   - boot_params (the "zero page") from the bzImage's setup header, with
 *     screen_info, EDD, hardware_subarch, secure_boot from the running
 *     kernel's boot_params (/sys/kernel/boot_params/data);
 *   - e820 from /sys/firmware/memmap (else /proc/iomem), > 128 entries in a
 *     SETUP_E820_EXT setup_data;
 *   - acpi_rsdp_addr: the running kernel's, else ACPI20=/ACPI= of
 *     /sys/firmware/efi/systab;
 *   - booted by 64-bit EFI with runtime services: efi_info (systab,
 *     "EL64"), an EFI memory map of the runtime regions with the virtual
 *     addresses the running kernel gave them (/sys/firmware/efi/runtime-map)
 *     and a SETUP_EFI setup_data (fw_vendor, runtime, config tables,
 *     SMBIOS), so the target maps them at the same place and keeps EFI
 *     runtime services (no second SetVirtualAddressMap);
 *   - a SETUP_RNG_SEED of 32 bytes (getrandom, when the pool is ready);
 *   - the command line after boot_params, the initrd (one staged buffer).
 * Segments go into "System RAM" of /proc/iomem (what is left of it: the
 * kernel's own efi_mem_reserve'd tables are not), never over each other.
 */
#ifndef LB_KEXECLOAD_H
#define LB_KEXECLOAD_H

#include <stddef.h>
#include <stdint.h>

struct lb_stage;

/* lboot.kexec= */
enum lb_kexec_mode {
	LB_KEXEC_AUTO = 0,  /* kexec_load, and kexec_file_load if that fails */
	LB_KEXEC_FILE = 1,  /* kexec_file_load only */
	LB_KEXEC_LOAD = 2,  /* kexec_load only */
};

/* The value of lboot.kexec= ("file", "load", "auto"): the mode, or
 * -EINVAL. */
int lb_kexec_mode_parse(const char *v);
const char *lb_kexec_mode_name(int mode);

/* e820 types (asm/e820/types.h) */
#define LB_E820_RAM      1
#define LB_E820_RESERVED 2
#define LB_E820_ACPI     3
#define LB_E820_NVS      4
#define LB_E820_UNUSABLE 5
#define LB_E820_PMEM     7
#define LB_E820_PRAM     12
#define LB_E820_SOFT_RESERVED 0xefffffffu

#define LB_KL_MAX_RANGES 512   /* e820 entries / RAM ranges we take */
#define LB_KL_MAX_EFI    256   /* runtime map entries */
#define LB_KL_E820_ZP    128   /* e820 entries in the zero page */
#define LB_KL_EFI_DESC   40    /* sizeof(efi_memory_desc_t) */

struct lb_kl_range {
	uint64_t start, end;   /* [start, end): end exclusive */
	uint32_t type;         /* e820 type */
};

struct lb_kl_efimd {
	uint32_t type;
	uint64_t phys, virt, pages, attr;
};

/* The running system, as the layout needs it (read by lb_kl_env_read, or
 * made up by tests). */
struct lb_kl_env {
	uint8_t bp[4096];            /* the running kernel's boot_params */
	int have_bp;
	struct lb_kl_range e820[LB_KL_MAX_RANGES]; /* for the target */
	size_t n_e820;
	struct lb_kl_range ram[LB_KL_MAX_RANGES];  /* where segments may go */
	size_t n_ram;
	uint64_t acpi_rsdp;          /* 0: the target finds it itself */
	int efi;                     /* pass EFI runtime state */
	uint64_t efi_systab, efi_fw_vendor, efi_runtime, efi_tables, efi_smbios;
	struct lb_kl_efimd efimd[LB_KL_MAX_EFI];
	size_t n_efimd;
	uint8_t rng[32];
	int have_rng;
};

/* One kexec_segment. */
struct lb_kl_seg {
	const void *buf;
	size_t bufsz;
	uint64_t mem, memsz;   /* page aligned */
};

/* Segment 0: the trampoline page, then boot_params, the command line, the
 * EFI memory map and the setup_data chain (one buffer); 1: the kernel's
 * protected-mode part; 2: the initrd (when there is one). */
#define LB_KL_TRAMP_SIZE 4096u
#define LB_KL_MAX_SEGS   4
/* The top of the kernel's init_size room that is a segment of its own
 * (segment 3, or 2 without an initrd) when its bytes plus this leave a gap:
 * the compressed kernel's size, plus 6 MiB for its bss, heap (4 MiB for a
 * bzip2 kernel), stack and boot page tables. */
#define LB_KL_TAIL(kbytes) ((kbytes) + ((uint64_t)6 << 20))

struct lb_kl_plan {
	struct lb_kl_seg seg[LB_KL_MAX_SEGS];
	size_t n_seg;
	uint64_t entry;        /* the trampoline's physical address */
	uint64_t params_addr;  /* boot_params */
	uint64_t kernel_addr;  /* protected-mode kernel (entry at +0x200) */
	uint64_t kernel_room;  /* bytes reserved there: init_size, page aligned */
	uint64_t initrd_addr;
	uint8_t *buf;          /* segment 0's bytes (malloc'd) */
	size_t buf_len;
};

/* Offsets in the trampoline page (lb_kl_build fills them in). */
#define LB_KL_T_GDTR 0x40   /* u16 limit, u64 base */
#define LB_KL_T_RSP  0x50
#define LB_KL_T_RSI  0x58
#define LB_KL_T_RIP  0x60
#define LB_KL_T_GDT  0x80

/*
 * Lay out kernel (a bzImage of klen bytes), an initrd of initrd_len bytes
 * (0: none) and cmdline for env into p. On failure returns a negative errno
 * and a reason in why, holding nothing: -ENOEXEC (not a bzImage the 64-bit
 * entry can start: protocol < 2.12, no XLF_KERNEL_64, not LOADED_HIGH,
 * truncated, init_size smaller than the image), -E2BIG (command line
 * longer than cmdline_size), -ENOMEM (no room in RAM for a segment),
 * -EINVAL.
 */
int lb_kl_build(const uint8_t *kernel, size_t klen, const void *initrd,
		size_t initrd_len, const char *cmdline,
		const struct lb_kl_env *env, struct lb_kl_plan *p,
		char *why, size_t whysz);
void lb_kl_plan_free(struct lb_kl_plan *p);

/* Read env from /sys and /proc (root: /proc/iomem shows addresses only to
 * root). Returns 0 or a negative errno with a reason in why. */
int lb_kl_env_read(struct lb_kl_env *env, char *why, size_t whysz);

/* Parsers of the text lb_kl_env_read reads (exposed for tests). */
int lb_kl_parse_iomem(const char *text, struct lb_kl_range *e820, size_t *n_e820,
		      struct lb_kl_range *ram, size_t *n_ram, size_t max);
int lb_kl_e820_type(const char *name);

/*
 * The fast path for a staged entry: map the staged memfds read-only, read
 * the environment, lay out, kexec_load(2). Returns 0 (the image is loaded:
 * reboot(LINUX_REBOOT_CMD_KEXEC) starts it) or a negative errno with
 * "kexec_load: REASON" in why (-EPERM: refused, e.g. lockdown; -ENOSYS:
 * no CONFIG_KEXEC).
 */
int lb_kexec_load_segments(const struct lb_stage *st, char *why, size_t whysz);

#endif
