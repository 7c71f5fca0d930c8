/*
 * UEFI firmware images: parse into a tree, find, edit, serialize back.
 * (A C peer of fiano's utk / UEFITool.) Host-only library: libc + liblzma,
 * plus tiano.h for EFI_COMPRESSION_SECTION type 1.
 *
 * Understood layouts:
 *   image   -> Intel flash descriptor regions (only BIOS parsed/edited, the
 *              others kept byte for byte) or a bare BIOS image scanned for
 *              firmware volumes (_FVH at +0x28); gaps are padding nodes.
 *   volume  -> EFI_FIRMWARE_VOLUME_HEADER (+ ext header). FFS2/FFS3 volumes
 *              hold files; any other file system (NVRAM stores...) is a
 *              leaf kept opaque, byte for byte.
 *   file    -> EFI_FFS_FILE_HEADER / HEADER2; sectioned types hold sections,
 *              RAW and PAD files are leaves. Trailing free space is a FREE
 *              node.
 *   section -> common header / HEADER2. Containers: COMPRESSION (none,
 *              EFI 1.1 / Tiano), GUID_DEFINED (LZMA, LZMA-F86, CRC32; other
 *              GUIDs are opaque leaves), DISPOSABLE, FIRMWARE_VOLUME_IMAGE
 *              (nested volume). Nesting to LB_UEFI_MAX_DEPTH.
 *
 * Every length and offset is checked; recursion depth, node count and
 * decompressed sizes are capped. All functions return 0 or a negative errno
 * (-EBADMSG malformed, -E2BIG caps exceeded, -ENOMEM, -ENOENT, -ENOSPC,
 * -EINVAL, -ENOTSUP) and never log; a one-line explanation (naming the
 * offset/GUID and the reason) is left in img->err (or the `why` buffer of
 * lb_uefi_parse).
 *
 * Editing model: nodes keep pointers to their original bytes. Edits mark
 * the node and its ancestors modified; lb_uefi_serialize() emits unmodified
 * subtrees byte for byte and rebuilds modified ones: files are laid out
 * again at 8-byte alignment (pad files regenerated for data alignment, the
 * volume top file kept at the end), sizes and every checksum recomputed
 * (FV header, FFS header/data, CRC32 sections), compressed sections
 * recompressed with their original algorithm (LZMA headers carry the real
 * uncompressed size). A volume nested inside a section grows as needed
 * (FvLength and block map updated); a top-level volume keeps its size and
 * serialization fails with -ENOSPC, img->err = "volume GUID: does not fit:
 * N bytes over". The image size never changes.
 *
 * Typical LinuxBoot use (lboot mkrom):
 *   struct lb_uefi_image *img; char why[LB_UEFI_ERRLEN];
 *   lb_uefi_parse(buf, len, 0, &img, why, sizeof(why));
 *   lb_uefi_keep_only(img, keep, n_keep, &n_removed);      // utk remove_dxes_except
 *   lb_uefi_ffs_build(&spec, &ffs, &ffs_len);              // PE32 + UI + depex
 *   lb_uefi_insert(img, lb_uefi_dxe_volume(img), ffs, ffs_len, NULL);
 *   lb_uefi_serialize(img, &out, &out_len);                // img->err on failure
 *   lb_uefi_free(img);
 */
#ifndef LB_UEFI_H
#define LB_UEFI_H

#include <stddef.h>
#include <stdint.h>

/* ---- limits --------------------------------------------------------------- */
#define LB_UEFI_MAX_IMAGE   (256u << 20) /* input image */
#define LB_UEFI_MAX_DEPTH   24           /* nesting of nodes */
#define LB_UEFI_MAX_NODES   200000u      /* nodes per image */
#define LB_UEFI_MAX_DECOMP  (64u << 20)  /* one decompressed section */
#define LB_UEFI_MAX_TOTAL   (512u << 20) /* all decompressed data of an image */
#define LB_UEFI_ERRLEN      256

/* ---- constants (PI spec) ----------------------------------------------------- */
/* EFI_FV_FILETYPE_* */
#define LB_FV_FILETYPE_RAW                   0x01
#define LB_FV_FILETYPE_FREEFORM              0x02
#define LB_FV_FILETYPE_SECURITY_CORE         0x03
#define LB_FV_FILETYPE_PEI_CORE              0x04
#define LB_FV_FILETYPE_DXE_CORE              0x05
#define LB_FV_FILETYPE_PEIM                  0x06
#define LB_FV_FILETYPE_DRIVER                0x07
#define LB_FV_FILETYPE_COMBINED_PEIM_DRIVER  0x08
#define LB_FV_FILETYPE_APPLICATION           0x09
#define LB_FV_FILETYPE_MM                    0x0A
#define LB_FV_FILETYPE_FIRMWARE_VOLUME_IMAGE 0x0B
#define LB_FV_FILETYPE_COMBINED_MM_DXE       0x0C
#define LB_FV_FILETYPE_MM_CORE               0x0D
#define LB_FV_FILETYPE_MM_STANDALONE         0x0E
#define LB_FV_FILETYPE_MM_CORE_STANDALONE    0x0F
#define LB_FV_FILETYPE_PAD                   0xF0

/* EFI_SECTION_* */
#define LB_SECTION_COMPRESSION           0x01
#define LB_SECTION_GUID_DEFINED          0x02
#define LB_SECTION_DISPOSABLE            0x03
#define LB_SECTION_PE32                  0x10
#define LB_SECTION_PIC                   0x11
#define LB_SECTION_TE                    0x12
#define LB_SECTION_DXE_DEPEX             0x13
#define LB_SECTION_VERSION               0x14
#define LB_SECTION_USER_INTERFACE        0x15
#define LB_SECTION_COMPATIBILITY16       0x16
#define LB_SECTION_FIRMWARE_VOLUME_IMAGE 0x17
#define LB_SECTION_FREEFORM_SUBTYPE_GUID 0x18
#define LB_SECTION_RAW                   0x19
#define LB_SECTION_PEI_DEPEX             0x1B
#define LB_SECTION_MM_DEPEX              0x1C

/* FFS attributes */
#define LB_FFS_ATTRIB_LARGE_FILE     0x01
#define LB_FFS_ATTRIB_DATA_ALIGNMENT_2 0x02
#define LB_FFS_ATTRIB_FIXED          0x04
#define LB_FFS_ATTRIB_DATA_ALIGNMENT 0x38
#define LB_FFS_ATTRIB_CHECKSUM       0x40

/* ---- the tree -------------------------------------------------------------------- */
enum lb_uefi_kind {
	LB_UEFI_IMAGE = 0, /* the root */
	LB_UEFI_REGION,    /* flash descriptor region; type = region index (0 desc, 1 BIOS, 2 ME, 3 GbE, 4 PDR, ...) */
	LB_UEFI_VOLUME,    /* firmware volume */
	LB_UEFI_FILE,      /* FFS file; type = EFI_FV_FILETYPE_* */
	LB_UEFI_SECTION,   /* type = EFI_SECTION_* */
	LB_UEFI_PADDING,   /* bytes outside any volume / unparsed, kept as is */
	LB_UEFI_FREE,      /* free space at the end of a volume */
};

/* How a container section's data is encoded (node->comp). */
enum lb_uefi_comp {
	LB_COMP_NONE = 0,   /* not a compressed container */
	LB_COMP_STORED,     /* COMPRESSION section, type 0 (not compressed) */
	LB_COMP_EFI11,      /* COMPRESSION section, type 1, EFI 1.1 */
	LB_COMP_TIANO,      /* COMPRESSION section, type 1, Tiano */
	LB_COMP_LZMA,       /* GUID_DEFINED EE4E5898-3914-4259-9D6E-DC7BD79403CF */
	LB_COMP_LZMAF86,    /* GUID_DEFINED D42AE6BD-1352-4BFB-909A-CA72A6EAE889 */
	LB_COMP_CRC32,      /* GUID_DEFINED FC1BCDB0-7D31-49AA-936A-A4600D9DD083 */
	LB_COMP_PLAIN,      /* DISPOSABLE, or GUID_DEFINED without PROCESSING_REQUIRED */
};

/*
 * A node. Public fields are read-only for callers; change the tree only
 * through the functions below.
 */
struct lb_uefi_node {
	enum lb_uefi_kind kind;
	unsigned type;          /* file type / section type / region index */
	uint8_t guid[16];       /* file name; volume FvName (ext header) else its
	                           FileSystemGuid; GUID_DEFINED / FREEFORM_SUBTYPE GUID */
	int has_guid;
	char *name;             /* files: UI name (UTF-8) from the UI section; sections
	                           of type USER_INTERFACE: the name; else NULL */
	uint64_t offset;        /* absolute offset in the image; LB_UEFI_NO_OFFSET for
	                           nodes inside decompressed data or new nodes */
	uint64_t size;          /* size (headers included) as parsed or as built */
	struct lb_uefi_node *parent;
	struct lb_uefi_node **child;
	size_t n_child;

	/* kind-specific, read-only */
	uint8_t fs_guid[16];    /* volume: FileSystemGuid */
	uint32_t attributes;    /* volume: FV attributes; file: FFS attributes;
	                           section GUID_DEFINED: its Attributes */
	uint8_t erase;          /* volume: erase byte (0xFF polarity 1, else 0x00) */
	uint8_t state;          /* file: State bits, polarity-normalized (0x07 = valid) */
	int is_ffs;             /* volume: FFS2/FFS3 (else opaque) */
	int fixed;              /* volume: size cannot change (top level) */
	enum lb_uefi_comp comp; /* container sections */
	uint32_t align;         /* file: required data alignment in bytes (1 = none) */

	/* private to the library */
	const uint8_t *raw;     /* original bytes (into the image or a parent's buffer) */
	size_t raw_len;
	size_t hdr_len;         /* header bytes at raw (volume: up to the first file;
	                           file: FFS header; section: up to its data) */
	uint8_t *own;           /* owned buffer: decompressed data / built bytes */
	size_t own_len;
	int dirty;              /* modified: must be rebuilt */
	int opaque;             /* leaf that must be emitted as raw even if asked */
};

#define LB_UEFI_NO_OFFSET UINT64_MAX

struct lb_uefi_image {
	struct lb_uefi_node *root;
	uint8_t *data;          /* private copy of the input */
	size_t len;
	int has_descriptor;     /* Intel flash descriptor image */
	unsigned flags;         /* parse flags */
	size_t n_nodes;
	size_t total_decomp;
	char err[LB_UEFI_ERRLEN];
};

/* Parse flags (img->flags; may also be changed before lb_uefi_serialize). */
#define LB_UEFI_LENIENT 1u   /* checksum mismatches do not fail the parse */
#define LB_UEFI_MOVE_XIP 2u  /* let serialization move execute-in-place files
                                (SEC, PEI core, PEIMs): by default a rebuild that
                                would change their offset fails with -ENOTSUP,
                                since they are linked at their flash address */

/*
 * Parse len bytes (copied; the caller keeps data). On failure *out is not
 * set and why (if non-NULL) receives the reason, e.g.
 * "file 7C04A583-... at 0x1234: header checksum 0x12, expected 0x34".
 */
int lb_uefi_parse(const uint8_t *data, size_t len, unsigned flags,
		  struct lb_uefi_image **out, char *why, size_t why_len);
void lb_uefi_free(struct lb_uefi_image *img);

/* GUIDs in registry format "8C8CE578-8A3D-4F1C-9935-896185C32DD3". */
int lb_guid_parse(const char *s, uint8_t g[16]); /* 0 or -EINVAL */
void lb_guid_str(const uint8_t g[16], char out[37]);

/*
 * Collect up to max nodes matching sel, in tree order: sel is a GUID
 * (matched against node->guid) or a UI name (files whose UI name equals
 * sel). kinds: bit mask (1u << LB_UEFI_FILE | ...), 0 = any kind.
 * Returns the number of matches (may exceed max; only max are stored).
 */
size_t lb_uefi_find(struct lb_uefi_image *img, const char *sel, unsigned kinds,
		    struct lb_uefi_node **out, size_t max);
/* First FFS file matching sel (GUID or UI name), or NULL. */
struct lb_uefi_node *lb_uefi_find_file(struct lb_uefi_image *img, const char *sel);
/* First FFS volume named sel (FvName GUID), or the first FFS volume inside a
 * file matching sel (GUID or UI name); NULL if none. */
struct lb_uefi_node *lb_uefi_find_volume(struct lb_uefi_image *img, const char *sel);
/* The FFS volume that holds the DXE_CORE file, or NULL. */
struct lb_uefi_node *lb_uefi_dxe_volume(struct lb_uefi_image *img);
/* The volume that holds PEI_CORE (NULL: none). */
struct lb_uefi_node *lb_uefi_pei_volume(struct lb_uefi_image *img);
/* The volume a node lives in (NULL for nodes outside volumes). */
struct lb_uefi_node *lb_uefi_volume_of(struct lb_uefi_node *n);

/* Remove an FFS file (and its subtree) from its volume. */
int lb_uefi_remove(struct lb_uefi_image *img, struct lb_uefi_node *file);

/*
 * Insert an FFS file (complete raw bytes: header + data; validated, checksums
 * must be right; its State byte is normalized to the volume's polarity) at
 * the end of an FFS volume's files (before a volume top file). -EEXIST if
 * the volume already holds a file with that GUID. *added (may be NULL)
 * receives the new node.
 */
int lb_uefi_insert(struct lb_uefi_image *img, struct lb_uefi_node *volume,
		   const uint8_t *ffs, size_t len, struct lb_uefi_node **added);

/* Replace the body of the (first) PE32 or TE section of a file with pe. */
/* Replace a file by another FFS file of the same name at the same place. */
int lb_uefi_replace_file(struct lb_uefi_image *img, struct lb_uefi_node *file,
			 const uint8_t *ffs, size_t len);
int lb_uefi_replace_pe32(struct lb_uefi_image *img, struct lb_uefi_node *file,
			 const uint8_t *pe, size_t len);

/*
 * utk's remove_dxes_except: remove every DXE file (types DRIVER,
 * COMBINED_PEIM_DRIVER, APPLICATION, COMBINED_MM_DXE, MM, MM_STANDALONE) of the DXE volume
 * (lb_uefi_dxe_volume) whose GUID or UI name is not in keep[]. DXE_CORE,
 * firmware volume images, FREEFORM/RAW files (apriori lists) and PEI files are
 * kept. *n_removed (may be NULL) gets the count.
 */
int lb_uefi_keep_only(struct lb_uefi_image *img, const char *const *keep,
		      size_t n_keep, size_t *n_removed);

/* What lb_uefi_ffs_build makes. */
struct lb_uefi_ffs_spec {
	uint8_t guid[16];
	uint8_t type;              /* LB_FV_FILETYPE_* */
	const char *name;          /* UI section (UTF-8, ASCII expected); NULL = none */
	const char *version;       /* VERSION section string; NULL = none */
	const uint8_t *pe32;       /* PE32 section body; NULL = none */
	size_t pe32_len;
	const uint8_t *depex;      /* dependency expression (DXE/PEI/MM depex section by
	                              file type); NULL = none */
	size_t depex_len;
	const uint8_t *raw;        /* RAW file: the whole file body; FREEFORM (or any
	                              sectioned type): a RAW section body; NULL = none */
	size_t raw_len;
	uint32_t align;            /* data alignment in bytes (power of two <= 16M); 0/1 none */
	int checksum;              /* set FFS_ATTRIB_CHECKSUM and a real data checksum */
	uint8_t erase;             /* State byte convention: 0 or 0xFF = erase polarity 1
	                              (lb_uefi_insert rewrites State for its volume anyway) */
};

/* A dependency expression that is always TRUE (TRUE, END). */
extern const uint8_t lb_uefi_depex_true[2];

/*
 * Build a complete FFS file: sections in the order DEPEX, PE32, UI, VERSION,
 * RAW (each 4-byte aligned); HEADER2 when larger than 16 MiB. malloc'd.
 */
int lb_uefi_ffs_build(const struct lb_uefi_ffs_spec *spec, uint8_t **out, size_t *len);

/* Serialize the whole image (same size as the input). malloc'd. */
int lb_uefi_serialize(struct lb_uefi_image *img, uint8_t **out, size_t *len);

/*
 * Bytes of one node as they would be written now (original bytes when not
 * modified), malloc'd. body: only the data after the node's header (file
 * data, section data; for containers the decoded data).
 */
int lb_uefi_node_bytes(struct lb_uefi_image *img, struct lb_uefi_node *n, int body,
		       uint8_t **out, size_t *len);

/* Names for listings: "volume", "file"...; "DRIVER", "PE32"... (never NULL). */
const char *lb_uefi_kind_name(enum lb_uefi_kind k);
const char *lb_uefi_type_name(const struct lb_uefi_node *n);

/* LZMA as EDK2 and coreboot write it (5 property bytes, 64-bit little-endian
 * size, raw LZMA1): decode to a malloc'd buffer of at most max bytes. */
int lb_uefi_lzma_decode(const uint8_t *in, size_t len, size_t max, uint8_t **out,
			size_t *out_len);
/* ... and encode in that format (no end marker; the header holds the size). */
int lb_uefi_lzma_encode(const uint8_t *in, size_t len, uint8_t **out, size_t *out_len);

#endif
