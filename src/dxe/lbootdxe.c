/*
 * lbootdxe: lboot's replacement for BdsDxe. A DXE driver that installs the
 * BDS architectural protocol; when the DXE core has dispatched every driver
 * it calls our Entry, which finishes platform initialisation the way a BDS
 * does (EndOfDxe, SMM ready-to-lock, connect all controllers, root bridges
 * connected, ReadyToBoot) and then starts the Linux kernel stored in the
 * ROM's firmware volume, with the command line and the initramfs stored
 * next to it (GUIDs: guids.h; the ROM is built by `lboot mkrom`).
 *
 * Every step is reported on the serial console as "lbootdxe: ..." lines,
 * written straight to the UART (x86-64: a 16550 at COM1, I/O port 0x3F8;
 * arm64: a PL011 at 0x09000000; unless the ROM's console file names another
 * or none: mkrom --dxe-console; src/dxe/ARCH/cpu.h): with the
 * pruned driver set no terminal driver connects ConOut to the serial port,
 * so the UART is the one channel that always reaches it. A fatal error
 * prints "lbootdxe: FATAL: <what>: <EFI status>" and resets the machine 10 s
 * later, halting only when ResetSystem fails (never a silent
 * hang, never a return into the DXE core).
 *
 * Freestanding C: efi.h holds our own UEFI/PI definitions, ARCH/cpu.h the
 * per-architecture rest (calling convention, console, copy, halt).
 */
#include "efi.h"
#include "flash.h"
#include "guids.h"
#include "../firmware/slots.h"

/* ---- GUIDs of the UEFI / PI interfaces we use --------------------------- */
static const EFI_GUID bds_arch_guid = EFI_GUID_INIT(0x665E3FF6, 0x46CC, 0x11D4,
	0x9A, 0x38, 0x00, 0x90, 0x27, 0x3F, 0xC1, 0x4D);
static const EFI_GUID end_of_dxe_guid = EFI_GUID_INIT(0x02CE967A, 0xDD7E, 0x4FFC,
	0x9E, 0xE7, 0x81, 0x0C, 0xF0, 0x47, 0x08, 0x80);
static const EFI_GUID smm_ready_to_lock_guid = EFI_GUID_INIT(0x60FF8964, 0xE906,
	0x41D0, 0xAF, 0xED, 0xF2, 0x41, 0xE9, 0x74, 0xE0, 0x8E);
static const EFI_GUID dxe_services_guid = EFI_GUID_INIT(0x05AD34BA, 0x6F02, 0x4214,
	0x95, 0x2E, 0x4D, 0xA0, 0x39, 0x8E, 0x2B, 0xB9);
static const EFI_GUID root_bridges_connected_guid = EFI_GUID_INIT(0x24A2D66F,
	0xEEDD, 0x4086, 0x90, 0x42, 0xF2, 0x6E, 0x47, 0x97, 0xEE, 0x69);
static const EFI_GUID ready_to_boot_guid = EFI_GUID_INIT(0x7CE88FB3, 0x4BD7, 0x4679,
	0x87, 0xA8, 0xA8, 0xD8, 0xDE, 0xE5, 0x0D, 0x2B);
static const EFI_GUID fv2_guid = EFI_GUID_INIT(0x220E73B6, 0x6BDB, 0x4413,
	0x84, 0x05, 0xB9, 0x74, 0xB1, 0x08, 0x61, 0x9A);
static const EFI_GUID loaded_image_guid = EFI_GUID_INIT(0x5B1B31A1, 0x9562, 0x11D2,
	0x8E, 0x3F, 0x00, 0xA0, 0xC9, 0x69, 0x72, 0x3B);
static const EFI_GUID device_path_guid = EFI_GUID_INIT(0x09576E91, 0x6D3F, 0x11D2,
	0x8E, 0x39, 0x00, 0xA0, 0xC9, 0x69, 0x72, 0x3B);
static const EFI_GUID load_file2_guid = EFI_GUID_INIT(0x4006C0C1, 0xFCB3, 0x403E,
	0x99, 0x6D, 0x4A, 0x6C, 0x87, 0x24, 0xE0, 0x6D);
static const EFI_GUID linux_initrd_media_guid = EFI_GUID_INIT(0x5568E427, 0x68FC,
	0x4F3D, 0xAC, 0x74, 0xCA, 0x55, 0x52, 0x31, 0xCC, 0x68);

static const EFI_GUID kernel_file_guid = LBOOT_GUID_KERNEL_INIT;
static const EFI_GUID initrd_file_guid = LBOOT_GUID_INITRD_INIT;
static const EFI_GUID cmdline_file_guid = LBOOT_GUID_CMDLINE_INIT;
static const EFI_GUID slots_file_guid = LBOOT_GUID_SLOTS_INIT;
static const EFI_GUID console_file_guid = LBOOT_GUID_CONSOLE_INIT;

static EFI_SYSTEM_TABLE *st;

/* after a fatal error, the pause before the reset (the message stays on
 * screen that long) */
#define LBOOT_FATAL_RESET_S "10"
#define LBOOT_FATAL_RESET_US 10000000
static EFI_BOOT_SERVICES *bs;
static EFI_HANDLE self;

/* ---- compiler support (gcc may emit calls to these) --------------------- */
void *memcpy(void *dst, const void *src, UINTN n);
void *memset(void *dst, int c, UINTN n);
void *memcpy(void *dst, const void *src, UINTN n)
{
	lb_dxe_copy(dst, src, n);
	return dst;
}
void *memset(void *dst, int c, UINTN n)
{
	lb_dxe_fill(dst, c, n);
	return dst;
}

static int guid_eq(const EFI_GUID *a, const EFI_GUID *b)
{
	const UINT8 *x = (const UINT8 *)a, *y = (const UINT8 *)b;
	for (int i = 0; i < 16; i++)
		if (x[i] != y[i])
			return 0;
	return 1;
}

/* ---- serial console: ARCH/cpu.h's default unless the ROM says (mkrom
 * --dxe-console: the console file, LBOOT_GUID_CONSOLE) ---------------------- */
#define LB_DXE_STR_(x) #x
#define LB_DXE_STR(x) LB_DXE_STR_(x)
static UINT64 com = LB_DXE_CONSOLE_DEFAULT; /* 0: no output */

static void uart_init(void)
{
	lb_dxe_console_init(com);
}

static void put(const char *s)
{
	lb_dxe_console_puts(com, s);
}

static void put_hex(UINT64 v, int digits)
{
	char b[17];
	if (digits < 1 || digits > 16)
		digits = 16;
	for (int i = digits - 1; i >= 0; i--, v >>= 4)
		b[i] = "0123456789ABCDEF"[v & 15];
	b[digits] = 0;
	put(b);
}

static void put_dec(UINT64 v)
{
	char b[21];
	int i = 20;
	b[i] = 0;
	do {
		b[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v && i > 0);
	put(b + i);
}

static void put_guid(const EFI_GUID *g)
{
	put_hex(g->Data1, 8);
	put("-");
	put_hex(g->Data2, 4);
	put("-");
	put_hex(g->Data3, 4);
	put("-");
	put_hex(g->Data4[0], 2);
	put_hex(g->Data4[1], 2);
	put("-");
	for (int i = 2; i < 8; i++)
		put_hex(g->Data4[i], 2);
}

static const struct {
	EFI_STATUS status;
	const char *name;
} status_names[] = {
	{ EFI_SUCCESS, "EFI_SUCCESS" },
	{ EFI_LOAD_ERROR, "EFI_LOAD_ERROR" },
	{ EFI_INVALID_PARAMETER, "EFI_INVALID_PARAMETER" },
	{ EFI_UNSUPPORTED, "EFI_UNSUPPORTED" },
	{ EFI_BAD_BUFFER_SIZE, "EFI_BAD_BUFFER_SIZE" },
	{ EFI_BUFFER_TOO_SMALL, "EFI_BUFFER_TOO_SMALL" },
	{ EFI_NOT_READY, "EFI_NOT_READY" },
	{ EFI_DEVICE_ERROR, "EFI_DEVICE_ERROR" },
	{ EFI_WRITE_PROTECTED, "EFI_WRITE_PROTECTED" },
	{ EFI_OUT_OF_RESOURCES, "EFI_OUT_OF_RESOURCES" },
	{ EFI_VOLUME_CORRUPTED, "EFI_VOLUME_CORRUPTED" },
	{ EFI_NOT_FOUND, "EFI_NOT_FOUND" },
	{ EFI_ACCESS_DENIED, "EFI_ACCESS_DENIED" },
	{ EFI_SECURITY_VIOLATION, "EFI_SECURITY_VIOLATION" },
};

static void put_status(EFI_STATUS s)
{
	for (UINTN i = 0; i < sizeof(status_names) / sizeof(status_names[0]); i++) {
		if (status_names[i].status == s) {
			put(status_names[i].name);
			put(" (0x");
			put_hex(s, 16);
			put(")");
			return;
		}
	}
	put("status 0x");
	put_hex(s, 16);
}

static void step(const char *msg)
{
	put("lbootdxe: ");
	put(msg);
	put("\n");
}

static void step_status(const char *msg, EFI_STATUS s)
{
	put("lbootdxe: ");
	put(msg);
	put(": ");
	put_status(s);
	put("\n");
}

__attribute__((noreturn)) static void fatal(const char *what, EFI_STATUS s)
{
	put("lbootdxe: FATAL: ");
	put(what);
	put(": ");
	put_status(s);
	put("\n");
	put("lbootdxe: the ROM cannot boot Linux; rebuild it with `lboot mkrom`\n");
	/* A server left alone must not sit halted: reset, as a watchdog would,
	 * so that a BMC sees the loop (or switches flash banks) and a transient
	 * fault gets another try. */
	if (st->RuntimeServices && st->RuntimeServices->ResetSystem) {
		put("lbootdxe: resetting the machine in " LBOOT_FATAL_RESET_S " s\n");
		if (st->BootServices && st->BootServices->Stall)
			st->BootServices->Stall(LBOOT_FATAL_RESET_US);
		st->RuntimeServices->ResetSystem(EfiResetCold, s, 0, NULL);
	}
	put("lbootdxe: reset failed: halted\n");
	lb_dxe_halt();
}

/* ---- BDS steps ------------------------------------------------------------- */
static VOID EFIAPI empty_notify(EFI_EVENT e, VOID *ctx)
{
	(void)e;
	(void)ctx;
}

/* Signal an event group: create a member event, signal it, close it (the
 * other members' notification functions run at the signal). */
static EFI_STATUS signal_group(const EFI_GUID *group)
{
	EFI_EVENT ev;
	EFI_STATUS s = bs->CreateEventEx(EVT_NOTIFY_SIGNAL, TPL_CALLBACK,
					 empty_notify, NULL, group, &ev);
	if (EFI_ERROR(s))
		return s;
	s = bs->SignalEvent(ev);
	bs->CloseEvent(ev);
	return s;
}

static EFI_DXE_SERVICES *dxe_services(void)
{
	for (UINTN i = 0; i < st->NumberOfTableEntries; i++)
		if (guid_eq(&st->ConfigurationTable[i].VendorGuid, &dxe_services_guid))
			return st->ConfigurationTable[i].VendorTable;
	return NULL;
}

/* Connect every controller recursively, then let the DXE core dispatch
 * drivers that became dispatchable; repeat until nothing new loads. */
static void connect_all(void)
{
	EFI_DXE_SERVICES *ds = dxe_services();
	if (!ds)
		step("no DXE services table: connecting without Dispatch");
	for (int pass = 1; pass <= 8; pass++) {
		UINTN n = 0;
		EFI_HANDLE *h = NULL;
		EFI_STATUS s = bs->LocateHandleBuffer(AllHandles, NULL, NULL, &n, &h);
		if (EFI_ERROR(s)) {
			step_status("LocateHandleBuffer(AllHandles)", s);
			return;
		}
		for (UINTN i = 0; i < n; i++)
			bs->ConnectController(h[i], NULL, NULL, TRUE);
		bs->FreePool(h);
		put("lbootdxe: connect pass ");
		put_dec((UINT64)pass);
		put(": ");
		put_dec(n);
		put(" handles\n");
		if (!ds)
			return;
		s = ds->Dispatch();
		if (EFI_ERROR(s)) /* EFI_NOT_FOUND: no driver was dispatched */
			return;
	}
}

/* Read one section of one of our files from whichever firmware volume has
 * it. *buf is allocated by the FV driver (pool memory). */
static EFI_STATUS fv_read(const EFI_GUID *file, EFI_SECTION_TYPE type,
			  VOID **buf, UINTN *size)
{
	UINTN n = 0;
	EFI_HANDLE *h = NULL;
	EFI_STATUS s = bs->LocateHandleBuffer(ByProtocol, &fv2_guid, NULL, &n, &h);
	if (EFI_ERROR(s))
		return s;
	s = EFI_NOT_FOUND;
	for (UINTN i = 0; i < n; i++) {
		EFI_FIRMWARE_VOLUME2_PROTOCOL *fv;
		UINT32 auth = 0;
		if (EFI_ERROR(bs->HandleProtocol(h[i], &fv2_guid, (VOID **)&fv)))
			continue;
		*buf = NULL;
		*size = 0;
		s = fv->ReadSection(fv, file, type, 0, buf, size, &auth);
		if (!EFI_ERROR(s))
			break;
	}
	bs->FreePool(h);
	return s;
}

/* The part of the flash the firmware did not map (ARCH/cpu.h:
 * LB_DXE_FLASH_MAP_*; none on x86_64): added to the GCD as MMIO and mapped
 * write-through, once. 0: the flash can be read; -1: it cannot (reported;
 * the payload is then looked for through the FV protocol only). */
static int flash_map(void)
{
	static int state; /* 0: not tried, 1: mapped, -1: failed */
	EFI_DXE_SERVICES *ds;
	EFI_STATUS s;

	if (!LB_DXE_FLASH_MAP_LEN || state == 1)
		return 0;
	if (state < 0)
		return -1;
	state = -1;
	if (!(ds = dxe_services())) {
		step("no DXE services table: cannot map the flash");
		return -1;
	}
	s = ds->AddMemorySpace(EFI_GCD_MEMORY_TYPE_MMIO, LB_DXE_FLASH_MAP_BASE,
			       LB_DXE_FLASH_MAP_LEN, EFI_MEMORY_UC | EFI_MEMORY_WC |
			       EFI_MEMORY_WT | EFI_MEMORY_WB | EFI_MEMORY_XP);
	if (EFI_ERROR(s) && s != EFI_ACCESS_DENIED) { /* ACCESS_DENIED: already there */
		step_status("AddMemorySpace(flash)", s);
		return -1;
	}
	s = ds->SetMemorySpaceAttributes(LB_DXE_FLASH_MAP_BASE, LB_DXE_FLASH_MAP_LEN,
					 EFI_MEMORY_WT | EFI_MEMORY_XP);
	if (EFI_ERROR(s)) {
		step_status("SetMemorySpaceAttributes(flash)", s);
		return -1;
	}
	put("lbootdxe: flash 0x");
	put_hex(LB_DXE_FLASH_MAP_BASE, 8);
	put("-0x");
	put_hex(LB_DXE_FLASH_MAP_BASE + LB_DXE_FLASH_MAP_LEN, 8);
	put(" mapped\n");
	state = 1;
	return 0;
}

/* ---- payload slots (A/B; src/firmware/slots.h) ----------------------------
 * When the ROM has a slot table (in our DXE volume, read-only code), the
 * payload comes from the newest slot whose digest checks, never from
 * anywhere else; no slot that checks is fatal. */
static const unsigned char *slot_top;   /* the chosen slot's volume end */
static unsigned long long slot_vol;     /* its length */
static char slot_name;                  /* 'A', 'B'; 0: no slots */
static unsigned long long slots_below;  /* the lowest slot, below the top */

static void put_slot(int i, const struct lb_slot_hdr *h, int rc)
{
	char n[2] = { (char)('A' + i), 0 };

	put("lbootdxe: slot ");
	put(n);
	put(": ");
	if (rc == LB_SLOT_OK || rc == LB_SLOT_DIGEST) {
		put("version ");
		put_dec(h->version);
		if (h->label[0]) {
			put(" (");
			put(h->label);
			put(")");
		}
		put(", ");
	}
	put(lb_slot_why(rc));
	put("\n");
}

static void pick_slot(void)
{
	VOID *b = NULL;
	UINTN n = 0;
	struct lb_slot_table t;
	struct lb_slot_hdr h[2];
	const unsigned char *top = (const unsigned char *)(UINTN)LB_DXE_FLASH_TOP;
	int rc[2], i;

	if (EFI_ERROR(fv_read(&slots_file_guid, EFI_SECTION_RAW, &b, &n)))
		return; /* one payload volume (no --slots) */
	if (lb_slot_table_parse(b, n, LB_DXE_FLASH_SCAN, &t))
		fatal("the payload slot table (" LBOOT_GUID_SLOTS_STR ") is malformed",
		      EFI_VOLUME_CORRUPTED);
	if (flash_map())
		fatal("the payload slots need the flash mapped", EFI_UNSUPPORTED);
	i = lb_slot_pick(top, &t, h, rc);
	put_slot(0, &h[0], rc[0]);
	put_slot(1, &h[1], rc[1]);
	if (i < 0)
		fatal("no payload slot checks (see the slot lines above)", EFI_NOT_FOUND);
	slot_name = (char)('A' + i);
	slot_top = top - t.below[i] + LB_SLOT_HDR + h[i].vol_len;
	slot_vol = h[i].vol_len;
	slots_below = t.below[0] > t.below[1] ? t.below[0] : t.below[1];
	{
		char nm[2] = { slot_name, 0 };

		put("lbootdxe: booting slot ");
		put(nm);
		put(" (version ");
		put_dec(h[i].version);
		put(rc[!i] == LB_SLOT_OK ? (h[!i].version == h[i].version ?
		    "): the other slot checks too, the same version" :
		    "): the newer of two that check") :
		    "): the other slot does not check");
		put("\n");
	}
}

/* Our payload files (kernel, initramfs) are stored uncompressed in a
 * flash volume by `lboot mkrom`: read them in place from the memory-mapped
 * flash (it ends at LB_DXE_FLASH_TOP: 4 GiB on x86_64, the end of pflash
 * unit 0 on arm64; ARCH/cpu.h), without the DXE core's FV2
 * protocol (the DXE core never sees that volume). A ROM with the payload in
 * the DXE volume (older layout) is read through FV2 instead. *from gets
 * "flash" or "DXE volume". */
static EFI_STATUS payload_read(const EFI_GUID *file, EFI_SECTION_TYPE type,
			       VOID **buf, UINTN *size, const char **from)
{
	const unsigned char *d = NULL;
	unsigned long long n = 0;
	unsigned nvols = 0;
	int rc = -1;

	if (slot_name) {
		rc = lb_flash_find(slot_top, slot_vol, (const unsigned char *)file,
				   (unsigned char)type, &d, &n, &nvols);
		if (rc)
			return EFI_NOT_FOUND; /* never from anywhere else */
		*buf = (VOID *)d;
		*size = (UINTN)n;
		*from = slot_name == 'A' ? "slot A" : "slot B";
		return EFI_SUCCESS;
	}
	if (flash_map() == 0)
		rc = lb_flash_find((const unsigned char *)(UINTN)LB_DXE_FLASH_TOP,
				   LB_DXE_FLASH_SCAN, (const unsigned char *)file,
				   (unsigned char)type, &d, &n, &nvols);
	if (rc == 0) {
		*buf = (VOID *)d;
		*size = (UINTN)n;
		*from = "flash";
		return EFI_SUCCESS;
	}
	if (rc == -2)
		step("warning: a malformed flash volume or file on the way: "
		     "trying the firmware volume protocol");
	*from = "DXE volume";
	return fv_read(file, type, buf, size);
}

/*
 * The whole flash lboot's ROM occupies as runtime MMIO in the memory map
 * the OS gets. OVMF's flash driver describes only its own 4 MiB (variable
 * store and code); the payload volume below was not described, so Linux saw
 * a reserved range inside its flash mapping and the MTD driver could not
 * claim the flash (docs/firmware-update.md). Described the way OVMF's
 * driver does its part: added to the GCD as MMIO, allocated, runtime.
 */
static void mark_flash_runtime(void)
{
	EFI_DXE_SERVICES *ds;
	UINT64 top = LB_DXE_FLASH_TOP;
	UINT64 ext, a, marked = 0;
	const UINT64 rt = EFI_MEMORY_UC | EFI_MEMORY_RUNTIME;

	if (!LB_DXE_FLASH_RUNTIME) /* ARCH/cpu.h */
		return;
	ds = dxe_services();
	ext = lb_flash_extent((const unsigned char *)(UINTN)top, LB_DXE_FLASH_SCAN);
	if (slots_below > ext)
		ext = slots_below; /* the slots: below the chain of volumes */
	a = top - ext;
	if (!ds || !ext)
		return;
	while (a < top) {
		EFI_GCD_MEMORY_SPACE_DESCRIPTOR d;
		UINT64 end, len, base;
		EFI_STATUS s = ds->GetMemorySpaceDescriptor(a, &d);

		if (EFI_ERROR(s) || d.Length == 0 || d.BaseAddress > a) {
			step_status("GetMemorySpaceDescriptor(flash)", s);
			return;
		}
		end = d.BaseAddress + d.Length;
		if (end > top || end < a)
			end = top;
		len = end - a;
		if (d.GcdMemoryType == EFI_GCD_MEMORY_TYPE_NONEXISTENT) {
			base = a;
			s = ds->AddMemorySpace(EFI_GCD_MEMORY_TYPE_MMIO, a, len, rt);
			if (!EFI_ERROR(s))
				s = ds->AllocateMemorySpace(EFI_GCD_ALLOCATE_ADDRESS, EFI_GCD_MEMORY_TYPE_MMIO,
							    0, len, &base, self, NULL);
			if (!EFI_ERROR(s))
				s = ds->SetMemorySpaceAttributes(a, len, rt);
			if (EFI_ERROR(s)) {
				step_status("marking the flash runtime MMIO", s);
				return;
			}
			marked += len;
		} else if (d.GcdMemoryType == EFI_GCD_MEMORY_TYPE_MMIO && !(d.Attributes & EFI_MEMORY_RUNTIME)) {
			s = ds->SetMemorySpaceCapabilities(a, len, d.Capabilities | rt);
			if (!EFI_ERROR(s))
				s = ds->SetMemorySpaceAttributes(a, len, d.Attributes | rt);
			if (EFI_ERROR(s)) {
				step_status("marking the flash runtime MMIO", s);
				return;
			}
			marked += len;
		}
		a = end;
	}
	if (marked) {
		put("lbootdxe: flash ");
		put("0x");
		put_hex(top - ext, 8);
		put("-");
		put("0x");
		put_hex(top - 1, 8);
		put(": ");
		put_dec(marked);
		put(" bytes more described as runtime MMIO for the OS\n");
	}
}

/* ---- initrd through LoadFile2 on the LINUX_EFI_INITRD_MEDIA vendor path -- */
static VOID *initrd_buf;
static UINTN initrd_size;

static EFI_STATUS EFIAPI initrd_load_file(EFI_LOAD_FILE2_PROTOCOL *this,
	EFI_DEVICE_PATH_PROTOCOL *path, BOOLEAN boot_policy, UINTN *size, VOID *buf)
{
	(void)this;
	if (boot_policy)
		return EFI_UNSUPPORTED; /* LoadFile2 never does boot policy */
	if (!path || !size)
		return EFI_INVALID_PARAMETER;
	if (path->Type != END_DEVICE_PATH_TYPE)
		return EFI_NOT_FOUND;  /* only the whole initrd is served */
	if (!buf || *size < initrd_size) {
		*size = initrd_size;
		return EFI_BUFFER_TOO_SMALL;
	}
	memcpy(buf, initrd_buf, initrd_size);
	*size = initrd_size;
	return EFI_SUCCESS;
}

static EFI_LOAD_FILE2_PROTOCOL initrd_lf2 = { initrd_load_file };

static struct __attribute__((packed)) {
	VENDOR_DEVICE_PATH vendor;
	EFI_DEVICE_PATH_PROTOCOL end;
} initrd_dp;

static void set_node(EFI_DEVICE_PATH_PROTOCOL *n, UINT8 type, UINT8 sub, UINTN len)
{
	n->Type = type;
	n->SubType = sub;
	n->Length[0] = (UINT8)(len & 0xFF);
	n->Length[1] = (UINT8)(len >> 8);
}

static EFI_STATUS install_initrd(VOID *buf, UINTN size)
{
	EFI_HANDLE h = NULL;
	EFI_STATUS s;

	initrd_buf = buf;
	initrd_size = size;
	set_node(&initrd_dp.vendor.Header, MEDIA_DEVICE_PATH, MEDIA_VENDOR_DP,
		 sizeof(initrd_dp.vendor));
	initrd_dp.vendor.Guid = linux_initrd_media_guid;
	set_node(&initrd_dp.end, END_DEVICE_PATH_TYPE,
		 END_ENTIRE_DEVICE_PATH_SUBTYPE, sizeof(initrd_dp.end));
	s = bs->InstallProtocolInterface(&h, &device_path_guid,
					 EFI_NATIVE_INTERFACE, &initrd_dp);
	if (EFI_ERROR(s))
		return s;
	return bs->InstallProtocolInterface(&h, &load_file2_guid,
					    EFI_NATIVE_INTERFACE, &initrd_lf2);
}

/* ---- command line -------------------------------------------------------- */
static const char default_cmdline[] = LB_DXE_DEFAULT_CMDLINE;

/* Decode one UTF-8 sequence at s[0..n) to a UCS-2 code unit; returns its
 * length (>= 1). Invalid, overlong, surrogate and non-BMP sequences give
 * U+FFFD for their first byte (so decoding always makes progress). */
static UINTN utf8_decode(const UINT8 *s, UINTN n, CHAR16 *out)
{
	UINT32 c = s[0], min;
	UINTN len, i;

	if (c < 0x80) {
		*out = (CHAR16)c;
		return 1;
	}
	if ((c & 0xE0) == 0xC0) {
		len = 2; c &= 0x1F; min = 0x80;
	} else if ((c & 0xF0) == 0xE0) {
		len = 3; c &= 0x0F; min = 0x800;
	} else {
		*out = 0xFFFD;
		return 1;
	}
	if (len > n)
		goto bad;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			goto bad;
		c = (c << 6) | (s[i] & 0x3F);
	}
	if (c < min || (c >= 0xD800 && c <= 0xDFFF))
		goto bad;
	*out = (CHAR16)c;
	return len;
bad:
	*out = 0xFFFD;
	return 1;
}

/* Convert up to LBOOT_CMDLINE_MAX bytes of UTF-8 (stops at NUL, trailing
 * whitespace dropped, control characters become spaces) to a pool
 * allocated UCS-2 string. */
static EFI_STATUS make_cmdline(const char *src, UINTN len, CHAR16 **out,
			       UINT32 *out_bytes)
{
	const UINT8 *u = (const UINT8 *)src;
	CHAR16 *w;
	UINTN n = 0, i = 0, k = 0;
	EFI_STATUS s;

	if (len > LBOOT_CMDLINE_MAX)
		len = LBOOT_CMDLINE_MAX;
	while (n < len && u[n])
		n++;
	while (n > 0 && (u[n - 1] == '\n' || u[n - 1] == '\r' ||
			 u[n - 1] == ' ' || u[n - 1] == '\t'))
		n--;
	/* at most one UCS-2 unit per byte */
	s = bs->AllocatePool(EfiLoaderData, (n + 1) * sizeof(CHAR16), (VOID **)&w);
	if (EFI_ERROR(s))
		return s;
	while (i < n) {
		CHAR16 c;
		i += utf8_decode(u + i, n - i, &c);
		w[k++] = c < 0x20 || c == 0x7F ? ' ' : c;
	}
	w[k] = 0;
	*out = w;
	*out_bytes = (UINT32)((k + 1) * sizeof(CHAR16));
	return EFI_SUCCESS;
}

/* " lboot.slot=A": which slot lboot runs from (a payload update writes the
 * other one). */
static EFI_STATUS append_slot(CHAR16 **opts, UINT32 *bytes)
{
	static const char add[] = " lboot.slot=?";
	UINTN n = *bytes / sizeof(CHAR16) - 1, k;
	CHAR16 *w;
	EFI_STATUS s = bs->AllocatePool(EfiLoaderData, (n + sizeof(add)) * sizeof(CHAR16),
					(VOID **)&w);

	if (EFI_ERROR(s))
		return s;
	for (k = 0; k < n; k++)
		w[k] = (*opts)[k];
	for (k = 0; k + 1 < sizeof(add); k++)
		w[n + k] = add[k] == '?' ? (CHAR16)slot_name : (CHAR16)add[k];
	w[n + k] = 0;
	bs->FreePool(*opts);
	*opts = w;
	*bytes = (UINT32)((n + k + 1) * sizeof(CHAR16));
	return EFI_SUCCESS;
}

static void put_ascii_cmdline(const CHAR16 *w)
{
	char b[2] = { 0, 0 };
	for (; *w; w++) {
		b[0] = *w < 0x80 ? (char)*w : '?';
		put(b);
	}
}

/* ---- boot ------------------------------------------------------------------ */
static __attribute__((noreturn)) void boot_linux(void)
{
	VOID *kernel = NULL, *initrd = NULL, *cmdline = NULL;
	UINTN kernel_size = 0, initrd_sz = 0, cmdline_size = 0;
	CHAR16 *opts;
	UINT32 opts_bytes;
	const char *from = "";
	EFI_HANDLE kh = NULL;
	EFI_LOADED_IMAGE_PROTOCOL *li;
	EFI_STATUS s;
	static struct __attribute__((packed)) {
		MEMMAP_DEVICE_PATH mem;
		EFI_DEVICE_PATH_PROTOCOL end;
	} kernel_dp;

	pick_slot();
	put("lbootdxe: reading the kernel file ");
	put_guid(&kernel_file_guid);
	put("\n");
	s = payload_read(&kernel_file_guid, EFI_SECTION_PE32, &kernel, &kernel_size, &from);
	if (EFI_ERROR(s))
		fatal("kernel file " LBOOT_GUID_KERNEL_STR
		      " (PE32 section) not found in flash nor in any firmware volume", s);
	put("lbootdxe: kernel: ");
	put_dec(kernel_size);
	put(" bytes from ");
	put(from);
	put("\n");

	s = fv_read(&cmdline_file_guid, EFI_SECTION_RAW, &cmdline, &cmdline_size);
	if (EFI_ERROR(s)) {
		step("no command line file: using the built-in default");
		s = make_cmdline(default_cmdline, sizeof(default_cmdline) - 1,
				 &opts, &opts_bytes);
	} else {
		s = make_cmdline(cmdline, cmdline_size, &opts, &opts_bytes);
	}
	if (!EFI_ERROR(s) && slot_name)
		s = append_slot(&opts, &opts_bytes);
	if (EFI_ERROR(s))
		fatal("allocating the command line", s);
	put("lbootdxe: command line: ");
	put_ascii_cmdline(opts);
	put("\n");

	s = payload_read(&initrd_file_guid, EFI_SECTION_RAW, &initrd, &initrd_sz, &from);
	if (EFI_ERROR(s)) {
		step_status("no initramfs file: booting the kernel without one", s);
	} else {
		s = install_initrd(initrd, initrd_sz);
		if (EFI_ERROR(s))
			fatal("installing the initrd LoadFile2 protocol", s);
		put("lbootdxe: initramfs: ");
		put_dec(initrd_sz);
		put(" bytes from ");
		put(from);
		put(", served by LoadFile2 on LINUX_EFI_INITRD_MEDIA\n");
	}

	mark_flash_runtime();
	set_node(&kernel_dp.mem.Header, HARDWARE_DEVICE_PATH, HW_MEMMAP_DP,
		 sizeof(kernel_dp.mem));
	kernel_dp.mem.MemoryType = EfiBootServicesData;
	kernel_dp.mem.StartingAddress = (UINT64)(UINTN)kernel;
	kernel_dp.mem.EndingAddress = (UINT64)(UINTN)kernel + kernel_size - 1;
	set_node(&kernel_dp.end, END_DEVICE_PATH_TYPE,
		 END_ENTIRE_DEVICE_PATH_SUBTYPE, sizeof(kernel_dp.end));
	s = bs->LoadImage(FALSE, self, &kernel_dp.mem.Header, kernel, kernel_size, &kh);
	if (EFI_ERROR(s))
		fatal("LoadImage(kernel)", s);
	s = bs->HandleProtocol(kh, &loaded_image_guid, (VOID **)&li);
	if (EFI_ERROR(s))
		fatal("HandleProtocol(kernel, LoadedImage)", s);
	li->LoadOptions = opts;
	li->LoadOptionsSize = opts_bytes;

	if (!st->ConOut)
		step("warning: no ConOut in the system table (keep ConSplitterDxe): "
		     "the kernel's EFI stub may fault when it prints");
	step("starting the kernel");
	s = bs->StartImage(kh, NULL, NULL);
	fatal("StartImage(kernel) returned", s);
}

static VOID EFIAPI bds_entry(EFI_BDS_ARCH_PROTOCOL *this)
{
	EFI_HANDLE h = NULL;
	EFI_STATUS s;

	(void)this;
	step("BDS entry: all DXE drivers dispatched");
	s = signal_group(&end_of_dxe_guid);
	step_status("signalled EndOfDxe", s);
	s = bs->InstallProtocolInterface(&h, &smm_ready_to_lock_guid,
					 EFI_NATIVE_INTERFACE, NULL);
	step_status("installed DxeSmmReadyToLock", s);
	connect_all();
	s = signal_group(&root_bridges_connected_guid);
	step_status("signalled RootBridgesConnected", s);
	/* The BDS disarms the watchdog before the OS loader arms its own;
	 * the kernel's EFI stub exits boot services soon after. */
	bs->SetWatchdogTimer(0, 0, 0, NULL);
	s = signal_group(&ready_to_boot_guid);
	step_status("signalled ReadyToBoot", s);
	boot_linux();
}

static EFI_BDS_ARCH_PROTOCOL bds = { bds_entry };

/* The console port the ROM names (mkrom --dxe-console), read from our
 * DXE volume before the first line. 1 when the file is malformed (the
 * default console then). */
static int console_from_rom(void)
{
	VOID *b = NULL;
	UINTN n = 0;
	int bad = 0;

	if (EFI_ERROR(fv_read(&console_file_guid, EFI_SECTION_RAW, &b, &n)))
		return 0; /* none stored: the default */
	if (b && n == LB_DXE_CONSOLE_FILE_BYTES) {
		com = 0;
		for (UINTN i = n; i-- > 0;)
			com = com << 8 | ((const UINT8 *)b)[i];
	} else
		bad = 1;
	if (b)
		bs->FreePool(b);
	return bad;
}

EFI_STATUS EFIAPI efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab);
EFI_STATUS EFIAPI efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	EFI_HANDLE h = NULL;
	EFI_STATUS s;
	int bad;

	st = systab;
	bs = systab->BootServices;
	self = image;
	bad = console_from_rom();
	uart_init();
	/* bds.Entry is an absolute pointer in .data: the loader must have
	 * added our load address to it (the PE's .reloc: on arm64 made by
	 * `lboot pereloc`); bds_entry here is computed PC-relative */
	if (*(VOID *volatile *)&bds.Entry != (VOID *)bds_entry)
		fatal("base relocations not applied (bds.Entry)", EFI_LOAD_ERROR);
	if (bad)
		step("warning: the console file is not " LB_DXE_STR(LB_DXE_CONSOLE_FILE_BYTES)
		     " bytes: using " LB_DXE_CONSOLE_DEFAULT_NAME);
	s = bs->InstallProtocolInterface(&h, &bds_arch_guid, EFI_NATIVE_INTERFACE, &bds);
	step_status("driver loaded, BDS architectural protocol installed", s);
	return s;
}
