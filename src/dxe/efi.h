/*
 * The UEFI / PI types and protocols lbootdxe uses, written from the UEFI 2.x
 * and PI 1.x specifications. Freestanding: no libc, no gnu-efi, no EDK2.
 * Only the members we call are typed; the others are kept as opaque
 * pointers so that the table layouts stay exact.
 */
#ifndef LBOOT_DXE_EFI_H
#define LBOOT_DXE_EFI_H

#include "cpu.h" /* EFIAPI and the rest per architecture: x86_64/, arm64/ */

typedef unsigned char      UINT8;
typedef unsigned short     UINT16;
typedef unsigned int       UINT32;
typedef unsigned long long UINT64;
typedef long long          INT64;
typedef UINT64             UINTN;
typedef UINT8              BOOLEAN;
typedef unsigned short     CHAR16; /* built with -fshort-wchar */
typedef char               CHAR8;
typedef void               VOID;
typedef UINTN              EFI_STATUS;
typedef VOID              *EFI_HANDLE;
typedef VOID              *EFI_EVENT;
typedef UINTN              EFI_TPL;
typedef UINT64             EFI_PHYSICAL_ADDRESS;

#define TRUE  ((BOOLEAN)1)
#define FALSE ((BOOLEAN)0)
#ifndef NULL
#define NULL ((void *)0)
#endif

_Static_assert(sizeof(CHAR16) == 2, "CHAR16 must be 2 bytes");
_Static_assert(sizeof(UINTN) == sizeof(void *), "64-bit only (X64, AArch64)");

typedef struct {
	UINT32 Data1;
	UINT16 Data2;
	UINT16 Data3;
	UINT8  Data4[8];
} EFI_GUID;

/* Status codes (UEFI 2.x appendix D). */
#define EFI_ERROR_BIT (1ULL << 63)
#define EFIERR(n) (EFI_ERROR_BIT | (n))
#define EFI_ERROR(s) (((INT64)(s)) < 0)
#define EFI_SUCCESS            0ULL
#define EFI_LOAD_ERROR         EFIERR(1)
#define EFI_INVALID_PARAMETER  EFIERR(2)
#define EFI_UNSUPPORTED        EFIERR(3)
#define EFI_BAD_BUFFER_SIZE    EFIERR(4)
#define EFI_BUFFER_TOO_SMALL   EFIERR(5)
#define EFI_NOT_READY          EFIERR(6)
#define EFI_DEVICE_ERROR       EFIERR(7)
#define EFI_WRITE_PROTECTED    EFIERR(8)
#define EFI_OUT_OF_RESOURCES   EFIERR(9)
#define EFI_VOLUME_CORRUPTED   EFIERR(10)
#define EFI_NOT_FOUND          EFIERR(14)
#define EFI_ACCESS_DENIED      EFIERR(15)
#define EFI_SECURITY_VIOLATION EFIERR(26)

typedef struct {
	UINT64 Signature;
	UINT32 Revision;
	UINT32 HeaderSize;
	UINT32 CRC32;
	UINT32 Reserved;
} EFI_TABLE_HEADER;

/* Device paths */
typedef struct {
	UINT8 Type;
	UINT8 SubType;
	UINT8 Length[2];
} EFI_DEVICE_PATH_PROTOCOL;

#define HARDWARE_DEVICE_PATH   0x01
#define HW_MEMMAP_DP           0x03
#define MEDIA_DEVICE_PATH      0x04
#define MEDIA_VENDOR_DP        0x03
#define END_DEVICE_PATH_TYPE   0x7F
#define END_ENTIRE_DEVICE_PATH_SUBTYPE 0xFF

typedef struct __attribute__((packed)) {
	EFI_DEVICE_PATH_PROTOCOL Header;
	UINT32 MemoryType;
	UINT64 StartingAddress;
	UINT64 EndingAddress;
} MEMMAP_DEVICE_PATH;

typedef struct __attribute__((packed)) {
	EFI_DEVICE_PATH_PROTOCOL Header;
	EFI_GUID Guid;
} VENDOR_DEVICE_PATH;

/* Simple text output (only OutputString is used). */
struct _EFI_SIMPLE_TEXT_OUTPUT_PROTOCOL;
typedef EFI_STATUS (EFIAPI *EFI_TEXT_STRING)(
	struct _EFI_SIMPLE_TEXT_OUTPUT_PROTOCOL *This, CHAR16 *String);
typedef struct _EFI_SIMPLE_TEXT_OUTPUT_PROTOCOL {
	VOID *Reset;
	EFI_TEXT_STRING OutputString;
	/* TestString, QueryMode, SetMode, SetAttribute, ClearScreen,
	 * SetCursorPosition, EnableCursor, Mode follow. */
} EFI_SIMPLE_TEXT_OUTPUT_PROTOCOL;

/* Memory / allocation */
typedef enum {
	EfiReservedMemoryType,
	EfiLoaderCode,
	EfiLoaderData,
	EfiBootServicesCode,
	EfiBootServicesData,
	EfiRuntimeServicesCode,
	EfiRuntimeServicesData,
	EfiConventionalMemory,
	EfiMaxMemoryType = 0x7FFFFFFF /* keep it 32 bits */
} EFI_MEMORY_TYPE;

typedef enum {
	AllHandles,
	ByRegisterNotify,
	ByProtocol,
	EFI_LOCATE_SEARCH_TYPE_MAX = 0x7FFFFFFF
} EFI_LOCATE_SEARCH_TYPE;

typedef enum {
	EFI_NATIVE_INTERFACE,
	EFI_INTERFACE_TYPE_MAX = 0x7FFFFFFF
} EFI_INTERFACE_TYPE;

#define EVT_NOTIFY_SIGNAL 0x00000200
#define TPL_APPLICATION   4
#define TPL_CALLBACK      8

typedef VOID (EFIAPI *EFI_EVENT_NOTIFY)(EFI_EVENT Event, VOID *Context);

typedef struct {
	EFI_TABLE_HEADER Hdr;
	/* Task priority */
	VOID *RaiseTPL;
	VOID *RestoreTPL;
	/* Memory */
	VOID *AllocatePages;
	VOID *FreePages;
	VOID *GetMemoryMap;
	EFI_STATUS (EFIAPI *AllocatePool)(EFI_MEMORY_TYPE PoolType, UINTN Size,
					  VOID **Buffer);
	EFI_STATUS (EFIAPI *FreePool)(VOID *Buffer);
	/* Events and timers */
	VOID *CreateEvent;
	VOID *SetTimer;
	VOID *WaitForEvent;
	EFI_STATUS (EFIAPI *SignalEvent)(EFI_EVENT Event);
	EFI_STATUS (EFIAPI *CloseEvent)(EFI_EVENT Event);
	VOID *CheckEvent;
	/* Protocol handlers */
	EFI_STATUS (EFIAPI *InstallProtocolInterface)(EFI_HANDLE *Handle,
		const EFI_GUID *Protocol, EFI_INTERFACE_TYPE InterfaceType,
		VOID *Interface);
	VOID *ReinstallProtocolInterface;
	VOID *UninstallProtocolInterface;
	EFI_STATUS (EFIAPI *HandleProtocol)(EFI_HANDLE Handle,
		const EFI_GUID *Protocol, VOID **Interface);
	VOID *Reserved;
	VOID *RegisterProtocolNotify;
	VOID *LocateHandle;
	VOID *LocateDevicePath;
	VOID *InstallConfigurationTable;
	/* Images */
	EFI_STATUS (EFIAPI *LoadImage)(BOOLEAN BootPolicy,
		EFI_HANDLE ParentImageHandle, EFI_DEVICE_PATH_PROTOCOL *DevicePath,
		VOID *SourceBuffer, UINTN SourceSize, EFI_HANDLE *ImageHandle);
	EFI_STATUS (EFIAPI *StartImage)(EFI_HANDLE ImageHandle,
		UINTN *ExitDataSize, CHAR16 **ExitData);
	VOID *Exit;
	VOID *UnloadImage;
	VOID *ExitBootServices;
	/* Miscellaneous */
	VOID *GetNextMonotonicCount;
	EFI_STATUS (EFIAPI *Stall)(UINTN Microseconds);
	EFI_STATUS (EFIAPI *SetWatchdogTimer)(UINTN Timeout, UINT64 WatchdogCode,
		UINTN DataSize, CHAR16 *WatchdogData);
	/* Driver support */
	EFI_STATUS (EFIAPI *ConnectController)(EFI_HANDLE ControllerHandle,
		EFI_HANDLE *DriverImageHandle,
		EFI_DEVICE_PATH_PROTOCOL *RemainingDevicePath, BOOLEAN Recursive);
	VOID *DisconnectController;
	/* Open and close protocol */
	VOID *OpenProtocol;
	VOID *CloseProtocol;
	VOID *OpenProtocolInformation;
	/* Library */
	VOID *ProtocolsPerHandle;
	EFI_STATUS (EFIAPI *LocateHandleBuffer)(EFI_LOCATE_SEARCH_TYPE SearchType,
		const EFI_GUID *Protocol, VOID *SearchKey, UINTN *NoHandles,
		EFI_HANDLE **Buffer);
	EFI_STATUS (EFIAPI *LocateProtocol)(const EFI_GUID *Protocol,
		VOID *Registration, VOID **Interface);
	VOID *InstallMultipleProtocolInterfaces;
	VOID *UninstallMultipleProtocolInterfaces;
	/* CRC */
	VOID *CalculateCrc32;
	/* Memory utilities */
	VOID *CopyMem;
	VOID *SetMem;
	/* UEFI 2.0 */
	EFI_STATUS (EFIAPI *CreateEventEx)(UINT32 Type, EFI_TPL NotifyTpl,
		EFI_EVENT_NOTIFY NotifyFunction, const VOID *NotifyContext,
		const EFI_GUID *EventGroup, EFI_EVENT *Event);
} EFI_BOOT_SERVICES;

typedef struct {
	EFI_GUID VendorGuid;
	VOID *VendorTable;
} EFI_CONFIGURATION_TABLE;

typedef enum {
	EfiResetCold,
	EfiResetWarm,
	EfiResetShutdown,
	EfiResetPlatformSpecific
} EFI_RESET_TYPE;

/* UEFI 2.x runtime services: ResetSystem is the only member we call. */
typedef struct {
	EFI_TABLE_HEADER Hdr;
	VOID *GetTime;
	VOID *SetTime;
	VOID *GetWakeupTime;
	VOID *SetWakeupTime;
	VOID *SetVirtualAddressMap;
	VOID *ConvertPointer;
	VOID *GetVariable;
	VOID *GetNextVariableName;
	VOID *SetVariable;
	VOID *GetNextHighMonotonicCount;
	VOID (EFIAPI *ResetSystem)(EFI_RESET_TYPE ResetType, EFI_STATUS ResetStatus,
		UINTN DataSize, VOID *ResetData);
} EFI_RUNTIME_SERVICES;

typedef struct {
	EFI_TABLE_HEADER Hdr;
	CHAR16 *FirmwareVendor;
	UINT32 FirmwareRevision;
	EFI_HANDLE ConsoleInHandle;
	VOID *ConIn;
	EFI_HANDLE ConsoleOutHandle;
	EFI_SIMPLE_TEXT_OUTPUT_PROTOCOL *ConOut;
	EFI_HANDLE StandardErrorHandle;
	EFI_SIMPLE_TEXT_OUTPUT_PROTOCOL *StdErr;
	EFI_RUNTIME_SERVICES *RuntimeServices;
	EFI_BOOT_SERVICES *BootServices;
	UINTN NumberOfTableEntries;
	EFI_CONFIGURATION_TABLE *ConfigurationTable;
} EFI_SYSTEM_TABLE;

/* PI: the GCD memory space (DXE services). */
#define EFI_GCD_MEMORY_TYPE_NONEXISTENT 0
#define EFI_GCD_MEMORY_TYPE_MMIO        3
#define EFI_GCD_ALLOCATE_ADDRESS        2
#define EFI_MEMORY_UC                   0x0000000000000001ULL
#define EFI_MEMORY_WC                   0x0000000000000002ULL
#define EFI_MEMORY_WT                   0x0000000000000004ULL
#define EFI_MEMORY_WB                   0x0000000000000008ULL
#define EFI_MEMORY_XP                   0x0000000000004000ULL
#define EFI_MEMORY_RUNTIME              0x8000000000000000ULL
typedef struct {
	UINT64 BaseAddress;
	UINT64 Length;
	UINT64 Capabilities;
	UINT64 Attributes;
	UINT32 GcdMemoryType;
	EFI_HANDLE ImageHandle;
	EFI_HANDLE DeviceHandle;
} EFI_GCD_MEMORY_SPACE_DESCRIPTOR;

/* PI: DXE services table (Dispatch and the memory space calls: the flash
 * as runtime MMIO; on arm64 the mapping of the flash, src/dxe/arm64/cpu.h). */
typedef struct {
	EFI_TABLE_HEADER Hdr;
	EFI_STATUS (EFIAPI *AddMemorySpace)(UINT32 type, UINT64 base, UINT64 len, UINT64 caps);
	EFI_STATUS (EFIAPI *AllocateMemorySpace)(UINT32 how, UINT32 type, UINTN align, UINT64 len,
						  UINT64 *base, EFI_HANDLE image, EFI_HANDLE dev);
	VOID *FreeMemorySpace;
	VOID *RemoveMemorySpace;
	EFI_STATUS (EFIAPI *GetMemorySpaceDescriptor)(UINT64 base, EFI_GCD_MEMORY_SPACE_DESCRIPTOR *d);
	EFI_STATUS (EFIAPI *SetMemorySpaceAttributes)(UINT64 base, UINT64 len, UINT64 attrs);
	VOID *GetMemorySpaceMap;
	VOID *AddIoSpace;
	VOID *AllocateIoSpace;
	VOID *FreeIoSpace;
	VOID *RemoveIoSpace;
	VOID *GetIoSpaceDescriptor;
	VOID *GetIoSpaceMap;
	EFI_STATUS (EFIAPI *Dispatch)(VOID);
	VOID *Schedule;
	VOID *Trust;
	VOID *ProcessFirmwareVolume;
	EFI_STATUS (EFIAPI *SetMemorySpaceCapabilities)(UINT64 base, UINT64 len, UINT64 caps);
} EFI_DXE_SERVICES;

/* PI: BDS architectural protocol. */
struct _EFI_BDS_ARCH_PROTOCOL;
typedef VOID (EFIAPI *EFI_BDS_ENTRY)(struct _EFI_BDS_ARCH_PROTOCOL *This);
typedef struct _EFI_BDS_ARCH_PROTOCOL {
	EFI_BDS_ENTRY Entry;
} EFI_BDS_ARCH_PROTOCOL;

/* PI: firmware volume 2 protocol. */
typedef UINT8  EFI_FV_FILETYPE;
typedef UINT8  EFI_SECTION_TYPE;
typedef UINT32 EFI_FV_FILE_ATTRIBUTES;
#define EFI_SECTION_PE32 0x10
#define EFI_SECTION_RAW  0x19

struct _EFI_FIRMWARE_VOLUME2_PROTOCOL;
typedef struct _EFI_FIRMWARE_VOLUME2_PROTOCOL {
	VOID *GetVolumeAttributes;
	VOID *SetVolumeAttributes;
	EFI_STATUS (EFIAPI *ReadFile)(struct _EFI_FIRMWARE_VOLUME2_PROTOCOL *This,
		const EFI_GUID *NameGuid, VOID **Buffer, UINTN *BufferSize,
		EFI_FV_FILETYPE *FoundType, EFI_FV_FILE_ATTRIBUTES *FileAttributes,
		UINT32 *AuthenticationStatus);
	EFI_STATUS (EFIAPI *ReadSection)(struct _EFI_FIRMWARE_VOLUME2_PROTOCOL *This,
		const EFI_GUID *NameGuid, EFI_SECTION_TYPE SectionType,
		UINTN SectionInstance, VOID **Buffer, UINTN *BufferSize,
		UINT32 *AuthenticationStatus);
	VOID *WriteFile;
	VOID *GetNextFile;
	UINT32 KeySize;
	EFI_HANDLE ParentHandle;
	VOID *GetInfo;
	VOID *SetInfo;
} EFI_FIRMWARE_VOLUME2_PROTOCOL;

/* UEFI: loaded image protocol. */
typedef struct {
	UINT32 Revision;
	EFI_HANDLE ParentHandle;
	EFI_SYSTEM_TABLE *SystemTable;
	EFI_HANDLE DeviceHandle;
	EFI_DEVICE_PATH_PROTOCOL *FilePath;
	VOID *Reserved;
	UINT32 LoadOptionsSize;
	VOID *LoadOptions;
	VOID *ImageBase;
	UINT64 ImageSize;
	EFI_MEMORY_TYPE ImageCodeType;
	EFI_MEMORY_TYPE ImageDataType;
	VOID *Unload;
} EFI_LOADED_IMAGE_PROTOCOL;

/* UEFI: load file 2 protocol. */
struct _EFI_LOAD_FILE2_PROTOCOL;
typedef struct _EFI_LOAD_FILE2_PROTOCOL {
	EFI_STATUS (EFIAPI *LoadFile)(struct _EFI_LOAD_FILE2_PROTOCOL *This,
		EFI_DEVICE_PATH_PROTOCOL *FilePath, BOOLEAN BootPolicy,
		UINTN *BufferSize, VOID *Buffer);
} EFI_LOAD_FILE2_PROTOCOL;

#define EFI_GUID_INIT(a, b, c, d0, d1, d2, d3, d4, d5, d6, d7) \
	{ a, b, c, { d0, d1, d2, d3, d4, d5, d6, d7 } }

#endif
