/* lboot mkrom: build a LinuxBoot ROM from an EDK2 image (see mkrom.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io.h"
#include "mkrom.h"
#include "uefi/uefi.h"
#include "dxe/guids.h"

/* BdsDxe (MdeModulePkg/Universal/BdsDxe): replaced by lbootdxe. */
#define BDSDXE_GUID "6D33944A-EC75-4855-A54D-809C75241F6C"
/* EFI_SYSTEM_NV_DATA_FV_GUID: the NVRAM volume of a combined OVMF.fd. */
#define NVRAM_FS_GUID "FFF12B8D-7696-4C8B-A985-2747075B4F50"

/*
 * What OVMF needs to measure the boot into a TPM 2.0 (`--tpm`, mkrom.h).
 * Tcg2Pei measures the S-CRTM version and the firmware volumes (PCR 0) and
 * starts the log; Tcg2Dxe owns the log and the TCG2 protocol (PCR 1 boot
 * variables, PCR 7 Secure Boot variables, at ReadyToBoot PCR 4's "Calling
 * EFI Application from Boot Option" and the separators, at
 * ExitBootServices PCR 5); SecurityStubDxe's DxeTpm2MeasureBootLib
 * measures LoadImage of the kernel (PCR 4); Tcg2PlatformDxe gives the
 * platform hierarchy a random password at DxeSmmReadyToLock.
 */
struct tpm_file {
	const char *guid, *name;
	int required;   /* a base without it cannot measure the boot */
};
static const struct tpm_file ovmf_tpm_files[] = {
	{ "F12F698A-E506-4A1B-B32E-6920E55DA1C4", "TpmMmioSevDecryptPei", 0 },
	{ "8AD3148F-945F-46B4-8ACD-71469EA73945", "Tcg2ConfigPei", 1 },
	/* TPM 1.2, idle with a TPM 2.0: kept because removing it would move
	 * Tcg2Pei and Tcg2PlatformPei, which execute in place */
	{ "2BE1E4A6-6505-43B3-9FFC-A3C8330E0432", "TcgPei", 0 },
	{ "A0C98B77-CBA5-4BB8-993B-4AF6CE33ECE4", "Tcg2Pei", 1 },
	{ "47727552-A54B-4A84-8CC1-BFF23E239636", "Tcg2PlatformPei", 0 },
	{ "FDFF263D-5F68-4591-87BA-B768F445A9AF", "Tcg2Dxe", 1 },
	{ "5CAB08D5-AD8F-4D8B-B828-D17A8D9FE977", "Tcg2PlatformDxe", 1 },
	/* Tcg2Dxe's depex: HII string, database and config routing */
	{ "348C4D62-BFBD-4882-9ECE-C80BB1C4783B", "HiiDatabase", 1 },
};
/*
 * AAVMF (ArmVirtQemu): Tcg2ConfigPei (its own, which finds the TPM in the
 * device tree) and Tcg2Pei stay in the PEI volume as they are; what --tpm
 * adds to the keep list is Tcg2Dxe, which takes over the log Tcg2Pei
 * started (PCR 0) and gives the kernel's EFI stub the TCG2 protocol (PCR 9,
 * the event log for Linux), with HiiDatabase for its depex. AAVMF has no
 * Tcg2PlatformDxe (the platform hierarchy is left to the OS there).
 */
static const struct tpm_file aavmf_tpm_files[] = {
	{ "BF7F2B0C-9F2F-4889-AB5C-12460022BE87", "Tcg2ConfigPei", 1 },
	{ "A0C98B77-CBA5-4BB8-993B-4AF6CE33ECE4", "Tcg2Pei", 1 },
	{ "FDFF263D-5F68-4591-87BA-B768F445A9AF", "Tcg2Dxe", 1 },
	{ "348C4D62-BFBD-4882-9ECE-C80BB1C4783B", "HiiDatabase", 1 },
};
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static const struct tpm_file *tpm_files_of(int arch, size_t *n)
{
	if (arch == LB_MKROM_ARCH_ARM64) {
		*n = N_OF(aavmf_tpm_files);
		return aavmf_tpm_files;
	}
	*n = N_OF(ovmf_tpm_files);
	return ovmf_tpm_files;
}

static int is_tpm_file(const struct tpm_file *t, size_t n, const char *guid)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].guid, guid))
			return 1;
	return 0;
}

void lb_mkrom_strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* ---- host files ------------------------------------------------------------ */
struct ident {
	dev_t dev;
	ino_t ino;
	int set;
};

static int read_file(const char *path, size_t max, uint8_t **out, size_t *len,
		     struct ident *id, char *err, size_t errsz)
{
	struct stat st;
	uint8_t *buf = NULL;
	size_t got = 0;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		lb_seterr(err, errsz, "%s: %s", path, strerror(-rc));
		return rc;
	}
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		lb_seterr(err, errsz, "%s: %s", path, strerror(-rc));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = -EINVAL;
		lb_seterr(err, errsz, "%s: not a regular file", path);
		goto fail;
	}
	if ((rc = lb_read_fd(fd, max, &buf, &got))) {
		if (rc == -EFBIG)
			lb_seterr(err, errsz, "%s: %lld bytes, more than the %zu allowed", path,
			       (long long)st.st_size, max);
		else
			lb_seterr(err, errsz, "%s: read: %s", path,
			       rc == -EIO ? "file shrank" : strerror(-rc));
		buf = NULL;
		goto fail;
	}
	buf[got] = 0;
	if (id) {
		id->dev = st.st_dev;
		id->ino = st.st_ino;
		id->set = 1;
	}
	close(fd);
	*out = buf;
	*len = got;
	return 0;
fail:
	free(buf);
	close(fd);
	return rc;
}

/* Write path atomically (temporary file in the same directory + rename). */
static int write_atomic(const char *path, const uint8_t *data, size_t len,
			char *err, size_t errsz)
{
	int rc = lb_write_atomic(path, data, len, 0644);

	if (rc)
		lb_seterr(err, errsz, "%s: write: %s", path, strerror(-rc));
	return rc;
}

/* The output must not be one of the inputs. */
static int same_file(const char *path, const struct ident *id, size_t n)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (id[i].set && id[i].dev == st.st_dev && id[i].ino == st.st_ino)
			return 1;
	return 0;
}

/* ---- keep list --------------------------------------------------------- */
static int strv_push(char ***v, size_t *n, const uint8_t g[16])
{
	char **nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	if (!(nv[*n] = malloc(37)))
		return -ENOMEM;
	lb_guid_str(g, nv[(*n)++]);
	return 0;
}

int lb_mkrom_parse_list(const char *text, size_t len, char ***keep, size_t *n_keep,
			char ***remove, size_t *n_remove, char *err, size_t errsz)
{
	char **kv = NULL, **rv = NULL;
	size_t nk = 0, nr = 0, lineno = 0, pos = 0;
	int rc;

	while (pos < len) {
		size_t end = pos, a, b;
		char buf[64];
		uint8_t g[16];
		int is_remove = 0;

		while (end < len && text[end] != '\n')
			end++;
		lineno++;
		a = pos;
		b = end;
		for (size_t i = a; i < b; i++)
			if (text[i] == '#') {
				b = i;
				break;
			}
		while (a < b && (text[a] == ' ' || text[a] == '\t' || text[a] == '\r'))
			a++;
		while (b > a && (text[b - 1] == ' ' || text[b - 1] == '\t' ||
				 text[b - 1] == '\r'))
			b--;
		pos = end < len ? end + 1 : end;
		if (a == b)
			continue;
		if (memchr(text + a, 0, b - a)) {
			rc = -EINVAL;
			lb_seterr(err, errsz, "line %zu: NUL byte", lineno);
			goto fail;
		}
		if (b - a > 7 && !memcmp(text + a, "remove", 6) &&
		    (text[a + 6] == ' ' || text[a + 6] == '\t')) {
			if (!remove) {
				rc = -EINVAL;
				lb_seterr(err, errsz, "line %zu: 'remove' lines are not "
				       "accepted here", lineno);
				goto fail;
			}
			is_remove = 1;
			a += 6;
			while (a < b && (text[a] == ' ' || text[a] == '\t'))
				a++;
		}
		if (b - a >= sizeof(buf) || lb_guid_parse((memcpy(buf, text + a, b - a),
							  buf[b - a] = 0, buf), g) < 0) {
			rc = -EINVAL;
			lb_seterr(err, errsz, "line %zu: not a GUID (want one "
			       "XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX or 'remove GUID' "
			       "per line)", lineno);
			goto fail;
		}
		if (nk + nr >= LB_MKROM_MAX_KEEP) {
			rc = -E2BIG;
			lb_seterr(err, errsz, "line %zu: more than %d GUIDs", lineno,
			       LB_MKROM_MAX_KEEP);
			goto fail;
		}
		rc = is_remove ? strv_push(&rv, &nr, g) : strv_push(&kv, &nk, g);
		if (rc) {
			lb_seterr(err, errsz, "out of memory");
			goto fail;
		}
	}
	*keep = kv;
	*n_keep = nk;
	if (remove) {
		*remove = rv;
		*n_remove = nr;
	}
	return 0;
fail:
	lb_mkrom_strv_free(kv, nk);
	lb_mkrom_strv_free(rv, nr);
	return rc;
}

int lb_mkrom_parse_keep(const char *text, size_t len, char ***guids, size_t *n,
			char *err, size_t errsz)
{
	return lb_mkrom_parse_list(text, len, guids, n, NULL, NULL, err, errsz);
}

/* ---- image inspection ---------------------------------------------------- */
static int is_dxe_type(unsigned t)
{
	return t == LB_FV_FILETYPE_DRIVER || t == LB_FV_FILETYPE_COMBINED_PEIM_DRIVER ||
	       t == LB_FV_FILETYPE_APPLICATION || t == LB_FV_FILETYPE_COMBINED_MM_DXE ||
	       t == LB_FV_FILETYPE_MM || t == LB_FV_FILETYPE_MM_STANDALONE;
}

/* The DXE files (drivers, applications) of the DXE volume. */
static int list_dxe(struct lb_uefi_image *img, struct lb_mkrom_file **out, size_t *n)
{
	struct lb_uefi_node *vol = lb_uefi_dxe_volume(img);
	struct lb_mkrom_file *v = NULL;
	size_t nv = 0;

	if (!vol)
		return -ENOENT;
	for (size_t i = 0; i < vol->n_child; i++) {
		struct lb_uefi_node *f = vol->child[i];
		if (f->kind != LB_UEFI_FILE || !is_dxe_type(f->type))
			continue;
		struct lb_mkrom_file *nvv = realloc(v, (nv + 1) * sizeof(*v));
		if (!nvv)
			goto nomem;
		v = nvv;
		memset(&v[nv], 0, sizeof(v[nv]));
		lb_guid_str(f->guid, v[nv].guid);
		v[nv].name = strdup(f->name ? f->name : "");
		if (!v[nv].name)
			goto nomem;
		v[nv].type = lb_uefi_type_name(f);
		v[nv].size = f->size;
		nv++;
	}
	*out = v;
	*n = nv;
	return 0;
nomem:
	for (size_t i = 0; i < nv; i++)
		free(v[i].name);
	free(v);
	return -ENOMEM;
}

static void files_free(struct lb_mkrom_file *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

/*
 * Where the DXE volume lives: the compressed section around it (its size,
 * as stored) and the top-level flash volume holding that section (its free
 * space at the end).
 */
static int measure(struct lb_uefi_image *img, uint64_t *comp, uint64_t *free_bytes)
{
	struct lb_uefi_node *vol = lb_uefi_dxe_volume(img), *sec = NULL, *top = NULL;

	if (!vol)
		return -ENOENT;
	for (struct lb_uefi_node *p = vol->parent; p; p = p->parent) {
		if (!sec && p->kind == LB_UEFI_SECTION && p->comp != LB_COMP_NONE &&
		    p->comp != LB_COMP_PLAIN && p->comp != LB_COMP_CRC32)
			sec = p;
		if (p->kind == LB_UEFI_VOLUME)
			top = p;
	}
	if (!top)
		top = vol;
	*comp = sec ? sec->size : vol->size;
	*free_bytes = 0;
	for (size_t i = 0; i < top->n_child; i++)
		if (top->child[i]->kind == LB_UEFI_FREE)
			*free_bytes += top->child[i]->size;
	return 0;
}

/* A combined image carries its NVRAM volume; a CODE image needs VARS.
 * Top-level volumes are children of the root or of a flash region. */
static int has_nvram(struct lb_uefi_image *img)
{
	uint8_t g[16];

	if (lb_guid_parse(NVRAM_FS_GUID, g) < 0)
		return 0;
	for (size_t i = 0; i < img->root->n_child; i++) {
		struct lb_uefi_node *n = img->root->child[i];
		if (n->kind == LB_UEFI_VOLUME && !memcmp(n->fs_guid, g, 16))
			return 1;
		if (n->kind != LB_UEFI_REGION)
			continue;
		for (size_t j = 0; j < n->n_child; j++)
			if (n->child[j]->kind == LB_UEFI_VOLUME &&
			    !memcmp(n->child[j]->fs_guid, g, 16))
				return 1;
	}
	return 0;
}

static char *vars_template(const char *base)
{
	const char *slash = strrchr(base, '/');
	const char *name = slash ? slash + 1 : base;
	const char *code = NULL;
	char *s;

	for (const char *p = strstr(name, "CODE"); p; p = strstr(p + 1, "CODE"))
		code = p;
	if (!code)
		return NULL;
	s = strdup(base);
	if (s)
		memcpy(s + (code - base), "VARS", 4);
	return s;
}

static char *default_vars_out(const char *out)
{
	size_t n = strlen(out);
	char *s;

	if (n > 4 && !strcmp(out + n - 4, ".rom"))
		n -= 4;
	s = malloc(n + sizeof("-vars.fd"));
	if (!s)
		return NULL;
	memcpy(s, out, n);
	memcpy(s + n, "-vars.fd", sizeof("-vars.fd"));
	return s;
}

/*
 * Where the kernel and the initramfs go: the top-level flash volume that
 * holds the compressed section around the DXE volume (OVMF's FVMAIN_COMPACT),
 * stored uncompressed next to that section. SEC then LZMA-decodes only the
 * (small) pruned PEI and DXE volumes, and lbootdxe reads the payload straight
 * from the memory-mapped flash. A DXE volume that is itself a flash volume
 * (no compression around it) takes them too.
 */
static struct lb_uefi_node *payload_volume(struct lb_uefi_image *img)
{
	struct lb_uefi_node *vol = lb_uefi_dxe_volume(img), *top = vol;

	for (struct lb_uefi_node *p = vol ? vol->parent : NULL; p; p = p->parent)
		if (p->kind == LB_UEFI_VOLUME)
			top = p;
	return top;
}

static int add_file(struct lb_uefi_image *img, struct lb_uefi_node *vol,
		    const struct lb_uefi_ffs_spec *spec, const char *what,
		    char *err, size_t errsz)
{
	uint8_t *ffs = NULL;
	size_t len = 0;
	int rc;

	rc = lb_uefi_ffs_build(spec, &ffs, &len);
	if (rc) {
		lb_seterr(err, errsz, "building the %s FFS file: %s", what, strerror(-rc));
		return rc;
	}
	rc = vol ? lb_uefi_insert(img, vol, ffs, len, NULL) : -ENOENT;
	if (rc)
		lb_seterr(err, errsz, "inserting the %s file: %s%s%s", what, strerror(-rc),
		       img->err[0] ? ": " : "", img->err);
	free(ffs);
	return rc;
}

/* ---- the payload: where it fits ------------------------------------------ */
#define PAYLOAD_FV_HDR LB_MKROM_PAYLOAD_FV_HDR
#define LB_FLASH_BLOCK 0x1000u
#define FFS2_GUID "8C8CE578-8A3D-4F1C-9935-896185C32DD3"

static uint64_t align8(uint64_t v)
{
	return (v + 7) & ~7ull;
}

/* Bytes that two files take in a volume, the second 8-byte aligned. */
static uint64_t files_span(size_t a, size_t b)
{
	return a && b ? align8(a) + b : (uint64_t)a + b;
}

/* Room for new files in an FFS volume: from its free space's first 8-byte
 * aligned offset to its end (the payload volume has no volume top file). */
static uint64_t volume_room(struct lb_uefi_node *vol)
{
	if (!vol)
		return 0;
	for (size_t i = 0; i < vol->n_child; i++) {
		struct lb_uefi_node *f = vol->child[i];
		uint64_t rel;

		if (f->kind != LB_UEFI_FREE || f->offset == LB_UEFI_NO_OFFSET ||
		    f->offset < vol->offset)
			continue;
		rel = f->offset - vol->offset;
		if (align8(rel) >= vol->size || f->offset + f->size != vol->offset + vol->size)
			continue;
		return vol->size - align8(rel);
	}
	return 0;
}

/* The kernel (APPLICATION: PE32 + UI) and initramfs (FREEFORM: RAW) files. */
static int payload_files(const uint8_t *kernel, size_t klen, const uint8_t *initrd,
			 size_t ilen, uint8_t **kf, size_t *kfl, uint8_t **inf, size_t *ifl,
			 char *err, size_t errsz)
{
	struct lb_uefi_ffs_spec s;
	int rc;

	if (kernel) {
		memset(&s, 0, sizeof(s));
		lb_guid_parse(LBOOT_GUID_KERNEL_STR, s.guid);
		s.type = LB_FV_FILETYPE_APPLICATION;
		s.name = "LbootKernel";
		s.pe32 = kernel;
		s.pe32_len = klen;
		if ((rc = lb_uefi_ffs_build(&s, kf, kfl))) {
			lb_seterr(err, errsz, "building the kernel FFS file: %s", strerror(-rc));
			return rc;
		}
	}
	if (initrd) {
		memset(&s, 0, sizeof(s));
		lb_guid_parse(LBOOT_GUID_INITRD_STR, s.guid);
		s.type = LB_FV_FILETYPE_FREEFORM;
		s.raw = initrd;
		s.raw_len = ilen;
		if ((rc = lb_uefi_ffs_build(&s, inf, ifl))) {
			lb_seterr(err, errsz, "building the initramfs FFS file: %s", strerror(-rc));
			return rc;
		}
	}
	return 0;
}

static int add_ffs(struct lb_uefi_image *img, struct lb_uefi_node *vol, const uint8_t *ffs,
		   size_t len, const char *what, char *err, size_t errsz)
{
	int rc = vol ? lb_uefi_insert(img, vol, ffs, len, NULL) : -ENOENT;

	if (rc)
		lb_seterr(err, errsz, "inserting the %s file: %s%s%s", what, strerror(-rc),
		       img->err[0] ? ": " : "", img->err);
	return rc;
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

/*
 * pflash unit 1 of x86's larger layout (and arm64's unit 0 tail): a payload volume of vol bytes (FFS2,
 * erase polarity 1, attributes as the base's flash volume, 4 KiB blocks)
 * holding the kernel and initramfs files, then the variable store.
 */
int lb_mkrom_payload_volume(uint32_t attrs, uint64_t vol, uint64_t max, const uint8_t *kf,
			    size_t kfl, const uint8_t *inf, size_t ifl, const uint8_t *vars,
			    size_t vars_len, uint8_t **out, size_t *len)
{
	uint64_t off = PAYLOAD_FV_HDR;
	unsigned sum = 0;
	uint8_t *b;

	if (vol < PAYLOAD_FV_HDR || files_span(kfl, ifl) > vol - PAYLOAD_FV_HDR ||
	    vol % LB_FLASH_BLOCK || vol > max || vars_len > LB_MKROM_MAX_FLASH)
		return -ENOSPC;
	if (!(b = malloc(vol + vars_len)))
		return -ENOMEM;
	memset(b, 0xFF, vol);
	memset(b, 0, PAYLOAD_FV_HDR);
	lb_guid_parse(FFS2_GUID, b + 16);
	put_le(b + 32, vol, 8);
	memcpy(b + 40, "_FVH", 4);
	put_le(b + 44, attrs | 0x800u /* EFI_FVB2_ERASE_POLARITY */, 4);
	put_le(b + 48, PAYLOAD_FV_HDR, 2);
	b[55] = 2; /* revision */
	put_le(b + 56, vol / LB_FLASH_BLOCK, 4);
	put_le(b + 60, LB_FLASH_BLOCK, 4);
	for (unsigned i = 0; i < PAYLOAD_FV_HDR; i += 2)
		sum += b[i] | (unsigned)b[i + 1] << 8;
	put_le(b + 50, (0x10000u - (sum & 0xFFFF)) & 0xFFFF, 2);
	if (kf) {
		memcpy(b + off, kf, kfl);
		off = align8(off + kfl);
	}
	if (inf)
		memcpy(b + off, inf, ifl);
	if (vars_len)
		memcpy(b + vol, vars, vars_len);
	*out = b;
	*len = vol + vars_len;
	return 0;
}

int lb_mkrom_slot(uint32_t attrs, const struct lb_slot_table *t, uint64_t version,
		  const char *label, const uint8_t *kf, size_t kfl, const uint8_t *inf,
		  size_t ifl, uint8_t **out, uint64_t *vol_len)
{
	uint64_t vol = (PAYLOAD_FV_HDR + files_span(kfl, ifl) + LB_FLASH_BLOCK - 1) &
		       ~(uint64_t)(LB_FLASH_BLOCK - 1);
	uint8_t *v = NULL, *b;
	size_t n = 0;
	int rc;

	if (t->size < LB_SLOT_HDR || vol > t->size - LB_SLOT_HDR)
		return -ENOSPC;
	rc = lb_mkrom_payload_volume(attrs, vol, vol, kf, kfl, inf, ifl, NULL, 0, &v, &n);
	if (rc)
		return rc;
	if (!(b = malloc(t->size))) {
		free(v);
		return -ENOMEM;
	}
	memset(b, 0xFF, t->size);
	memcpy(b + LB_SLOT_HDR, v, n);
	lb_slot_header_put(b, version, label, v, n, t);
	free(v);
	*out = b;
	*vol_len = n;
	return 0;
}

int lb_mkrom_parse_console(const char *s, int *port)
{
	static const struct { const char *name; int port; } named[] = {
		{ "com1", 0x3F8 }, { "com2", 0x2F8 }, { "com3", 0x3E8 },
		{ "com4", 0x2E8 }, { "none", 0 },
	};
	unsigned long v = 0;
	const char *p;

	if (!s)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (!strcasecmp(s, named[i].name)) {
			*port = named[i].port;
			return 0;
		}
	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || !s[2])
		return -EINVAL;
	for (p = s + 2; *p; p++) {
		int d = *p >= '0' && *p <= '9' ? *p - '0' :
			*p >= 'a' && *p <= 'f' ? *p - 'a' + 10 :
			*p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : -1;
		if (d < 0 || v > 0xFFFF)
			return -EINVAL;
		v = v * 16 + (unsigned)d;
	}
	if (!v || v > 0xFFF8)
		return -EINVAL;
	*port = (int)v;
	return 0;
}

int lb_mkrom_parse_size(const char *s, uint64_t *out)
{
	unsigned long long v = 0;
	const char *p = s;

	if (!s)
		return -EINVAL;
	if (!strcmp(s, "auto")) {
		*out = 0;
		return 0;
	}
	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > LB_MKROM_MAX_FLASH)
			return -ERANGE;
		v = v * 10 + (unsigned)(*p - '0');
	}
	if (!strcmp(p, "M") || !strcmp(p, "MiB")) {
		if (v > LB_MKROM_MAX_FLASH / LB_MKROM_MIB)
			return -ERANGE;
		v *= LB_MKROM_MIB;
	} else if (*p) {
		return -EINVAL;
	}
	if (v > LB_MKROM_MAX_FLASH)
		return -ERANGE;
	if (!v || v % LB_MKROM_MIB)
		return -EINVAL;
	*out = v;
	return 0;
}

void lb_mkrom_report_free(struct lb_mkrom_report *r)
{
	files_free(r->removed, r->n_removed);
	files_free(r->kept, r->n_kept);
	files_free(r->removed_other, r->n_removed_other);
	files_free(r->tpm, r->n_tpm);
	lb_mkrom_strv_free(r->keep_missing, r->n_keep_missing);
	lb_mkrom_strv_free(r->remove_missing, r->n_remove_missing);
	free(r->vars_out);
	memset(r, 0, sizeof(*r));
}

/* ---- lbootpei: the --tpm ROM measures FVMAIN_COMPACT, not 12 MiB -------- */
#define PEI_APRIORI_GUID "1B45CC0A-156A-428A-AF62-49864DA0E6E6"
#define LB_PEI_CFG_MAGIC "LBOOT-PEI-CFG-v1"

/* Insert lbootpei (src/pei/lbootpei.c) into the PEI volume and list it
 * first in the volume's apriori file, so that it runs before PlatformPei
 * announces the DXE volume. Its config block gets the DXE volume's FvName
 * and the flash address of the top-level volume whose first file holds
 * the compressed PEI and DXE volumes. Every other PEI file must keep its
 * offset (they execute in place): checked on the volume's new bytes. */
static int add_pei(struct lb_uefi_image *img, const uint8_t *pe, size_t pe_len,
		   size_t unit0_len, struct lb_mkrom_report *r, char *err, size_t errsz)
{
	struct lb_uefi_node *pv = lb_uefi_pei_volume(img), *dv = lb_uefi_dxe_volume(img);
	struct lb_uefi_node *top, *apr;
	uint8_t *peb = NULL, *old = NULL, *now = NULL, *body = NULL, *list = NULL, *ffs = NULL;
	size_t old_len = 0, now_len = 0, body_len = 0, ffs_len = 0;
	const uint8_t *m;
	struct lb_uefi_ffs_spec sp;
	uint8_t me[16];
	uint64_t addr;
	int rc = -EINVAL;

	if (!pv || !dv) {
		lb_seterr(err, errsz, "--tpm: no PEI or DXE volume for lbootpei");
		return -ENOENT;
	}
	for (top = dv; top->parent && top->parent->parent; top = top->parent)
		;
	if (top->kind != LB_UEFI_VOLUME || top->offset == LB_UEFI_NO_OFFSET ||
	    top->offset >= unit0_len || !top->n_child) {
		lb_seterr(err, errsz, "--tpm: the DXE volume is not inside a flash volume of the code image");
		return -ENOENT;
	}
	addr = 0x100000000ull - unit0_len + top->offset;
	m = pe_len >= 40 ? memmem(pe, pe_len, LB_PEI_CFG_MAGIC, 16) : NULL;
	if (!m || (size_t)(m - pe) + 40 > pe_len ||
	    memmem(m + 1, pe_len - (size_t)(m - pe) - 1, LB_PEI_CFG_MAGIC, 16)) {
		lb_seterr(err, errsz, "lbootpei: no single %s block (not lbootpei.efi?)", LB_PEI_CFG_MAGIC);
		return -EINVAL;
	}
	if (!(peb = malloc(pe_len)))
		return -ENOMEM;
	memcpy(peb, pe, pe_len);
	memcpy(peb + (m - pe) + 16, dv->guid, 16);
	for (int i = 0; i < 8; i++)
		peb[(m - pe) + 32 + i] = (uint8_t)(addr >> (8 * i));

	apr = NULL;
	for (size_t i = 0; i < pv->n_child; i++) {
		char g[37];
		lb_guid_str(pv->child[i]->guid, g);
		if (pv->child[i]->kind == LB_UEFI_FILE && !strcmp(g, PEI_APRIORI_GUID))
			apr = pv->child[i];
	}
	if (!apr || apr->n_child < 1 || apr->child[0]->type != LB_SECTION_RAW) {
		lb_seterr(err, errsz, "--tpm: the PEI volume has no apriori file with a RAW section");
		rc = -ENOENT;
		goto out;
	}
	if ((rc = lb_uefi_node_bytes(img, pv, 0, &old, &old_len)) ||
	    (rc = lb_uefi_node_bytes(img, apr->child[0], 1, &body, &body_len)))
		goto oom;
	if (body_len % 16 || body_len > 1024) {
		lb_seterr(err, errsz, "--tpm: the PEI apriori file holds %zu bytes, not a GUID list", body_len);
		rc = -EINVAL;
		goto out;
	}
	/* the PEIM */
	lb_guid_parse(LBOOT_GUID_PEI_STR, me);
	memset(&sp, 0, sizeof(sp));
	memcpy(sp.guid, me, 16);
	sp.type = LB_FV_FILETYPE_PEIM;
	sp.name = "LbootPei";
	sp.pe32 = peb;
	sp.pe32_len = pe_len;
	sp.depex = lb_uefi_depex_true;
	sp.depex_len = 2;
	sp.align = 32;
	if ((rc = add_file(img, pv, &sp, "PEIM", err, errsz)))
		goto out;
	/* the apriori file: lbootpei first, then the list as it was */
	if (!(list = malloc(body_len + 16)))
		goto oom;
	memcpy(list, me, 16);
	memcpy(list + 16, body, body_len);
	memset(&sp, 0, sizeof(sp));
	lb_guid_parse(PEI_APRIORI_GUID, sp.guid);
	sp.type = LB_FV_FILETYPE_FREEFORM;
	sp.raw = list;
	sp.raw_len = body_len + 16;
	if ((rc = lb_uefi_ffs_build(&sp, &ffs, &ffs_len)) ||
	    (rc = lb_uefi_replace_file(img, apr, ffs, ffs_len))) {
		lb_seterr(err, errsz, "--tpm: rewriting the PEI apriori file: %s%s%s", strerror(-rc),
			  img->err[0] ? ": " : "", img->err);
		goto out;
	}
	/* nothing that was there moved */
	if ((rc = lb_uefi_node_bytes(img, pv, 0, &now, &now_len)))
		goto oom;
	for (size_t i = 0; i < pv->n_child; i++) {
		struct lb_uefi_node *f = pv->child[i];
		uint8_t *fb = NULL;
		size_t fl = 0;
		const uint8_t *at;
		char g[37];

		lb_guid_str(f->guid, g);
		if (f->kind != LB_UEFI_FILE || f->type == LB_FV_FILETYPE_PAD ||
		    !strcmp(g, PEI_APRIORI_GUID) || !memcmp(f->guid, me, 16))
			continue;
		if ((rc = lb_uefi_node_bytes(img, f, 0, &fb, &fl)))
			goto oom;
		at = memmem(old, old_len, fb, fl);
		rc = !at || (size_t)(at - old) + fl > now_len || memcmp(now + (at - old), fb, fl);
		free(fb);
		if (rc) {
			lb_seterr(err, errsz, "--tpm: adding lbootpei would move PEI file %s %s, "
				  "which executes in place", g, f->name ? f->name : "");
			rc = -EINVAL;
			goto out;
		}
	}
	r->pei_size = pe_len;
	r->pei_measured_at = addr;
	rc = 0;
	goto out;
oom:
	if (!rc)
		rc = -ENOMEM;
	lb_seterr(err, errsz, "--tpm: lbootpei: %s", strerror(-rc));
out:
	free(peb);
	free(old);
	free(now);
	free(body);
	free(list);
	free(ffs);
	return rc;
}

/* The architecture of an image: its DXE core's PE machine. */
static int base_arch(struct lb_uefi_image *img)
{
	struct lb_uefi_node *vol = lb_uefi_dxe_volume(img);

	for (size_t i = 0; vol && i < vol->n_child; i++) {
		struct lb_uefi_node *f = vol->child[i];

		if (f->kind != LB_UEFI_FILE || f->type != LB_FV_FILETYPE_DXE_CORE)
			continue;
		for (size_t j = 0; j < f->n_child; j++) {
			struct lb_uefi_node *sec = f->child[j];
			uint8_t *b = NULL;
			size_t n = 0;
			int arch;

			if (sec->kind != LB_UEFI_SECTION || sec->type != LB_SECTION_PE32 ||
			    lb_uefi_node_bytes(img, sec, 1, &b, &n))
				continue;
			arch = lb_mkrom_arch_of_pe(b, n);
			free(b);
			return arch;
		}
	}
	return LB_MKROM_ARCH_AUTO;
}

/*
 * --slots: unit 1 is slot B, slot A (each half of the payload area, vol
 * bytes), then the store; the payload goes in slot A, slot B stays erased.
 * The slot table (where they are, below the flash's end) is a file in the
 * DXE volume: the code image is serialized again with it (its size does
 * not change). *code is parsed again from the new image.
 */
static int slot_layout(const struct lb_mkrom_opts *o, struct lb_uefi_image **code,
		       uint8_t **rom, size_t *rom_len, uint64_t vol, const uint8_t *kffs,
		       size_t kffs_len, const uint8_t *iffs, size_t iffs_len,
		       const uint8_t *vars, size_t vars_len, uint8_t **unit1, size_t *unit1_len,
		       struct lb_mkrom_report *r, char *err, size_t errsz)
{
	struct lb_slot_table t;
	struct lb_uefi_ffs_spec sp;
	uint8_t tab[LB_SLOT_TABLE_LEN], *slot = NULL, *nrom = NULL, *u;
	uint32_t attrs = payload_volume(*code)->attributes;
	size_t nlen = 0;
	uint64_t above = (uint64_t)*rom_len + vars_len;
	char why[256];
	int rc;

	t.size = vol / 2 & ~(uint64_t)(LB_FLASH_BLOCK - 1);
	t.below[0] = above + t.size;
	t.below[1] = above + 2 * t.size;
	lb_slot_table_put(tab, &t);
	memset(&sp, 0, sizeof(sp));
	lb_guid_parse(LBOOT_GUID_SLOTS_STR, sp.guid);
	sp.type = LB_FV_FILETYPE_FREEFORM;
	sp.raw = tab;
	sp.raw_len = sizeof(tab);
	if ((rc = add_file(*code, lb_uefi_dxe_volume(*code), &sp, "slot table", err, errsz)))
		return rc;
	rc = lb_uefi_serialize(*code, &nrom, &nlen);
	if (rc || nlen != *rom_len) {
		lb_seterr(err, errsz, "the code image with the slot table: %s",
			  rc ? strerror(-rc) : "its size changed");
		free(nrom);
		return rc ? rc : -EINVAL;
	}
	lb_uefi_free(*code);
	*code = NULL;
	if ((rc = lb_uefi_parse(nrom, nlen, 0, code, why, sizeof(why)))) {
		lb_seterr(err, errsz, "the code image with the slot table does not parse back: %s", why);
		free(nrom);
		return rc;
	}
	free(*rom);
	*rom = nrom;
	rc = lb_mkrom_slot(attrs, &t, o->payload_version, o->payload_label, kffs, kffs_len,
			   iffs, iffs_len, &slot, &r->slot_vol);
	if (rc) {
		lb_seterr(err, errsz, "building payload slot A: %s", strerror(-rc));
		return rc;
	}
	if (!(u = malloc(vol + vars_len))) {
		free(slot);
		return -ENOMEM;
	}
	memset(u, 0xFF, vol);
	r->slot_size = t.size;
	r->slot_off[1] = vol - 2 * t.size;
	r->slot_off[0] = vol - t.size;
	memcpy(u + r->slot_off[0], slot, t.size);
	memcpy(u + vol, vars, vars_len);
	free(slot);
	*unit1 = u;
	*unit1_len = vol + vars_len;
	return 0;
}

int lb_mkrom_build(const struct lb_mkrom_opts *o, struct lb_mkrom_report *r,
		   char *err, size_t errsz)
{
	const char *base = o->base ? o->base : o->arch == LB_MKROM_ARCH_ARM64 ?
			   LB_MKROM_ARM64_BASE : LB_MKROM_DEFAULT_BASE;
	const char *dxe_path = o->dxe;
	int arch;
	struct ident ids[7] = { { 0 } };
	uint8_t *base_buf = NULL, *dxe = NULL, *kernel = NULL, *initrd = NULL;
	uint8_t *keep_buf = NULL, *rom = NULL, *vars_buf = NULL, *pei = NULL;
	size_t base_len = 0, dxe_len = 0, kernel_len = 0, initrd_len = 0;
	size_t keep_len = 0, rom_len = 0, vars_len = 0, pei_len = 0;
	char **keep = NULL, **remove = NULL;
	size_t n_keep = 0, n_remove = 0;
	struct lb_mkrom_file *before = NULL, *after = NULL;
	size_t n_before = 0, n_after = 0;
	struct lb_uefi_image *img = NULL, *check = NULL, *code = NULL;
	uint8_t *kffs = NULL, *iffs = NULL, *rom2 = NULL, *unit1 = NULL;
	size_t kffs_len = 0, iffs_len = 0, rom2_len = 0, unit1_len = 0;
	uint64_t need, room, base_total;
	int nvram, o_console = 0;
	char why[LB_UEFI_ERRLEN] = "";
	char *vars_in = NULL, *vars_out = NULL;
	const struct tpm_file *tpm_files = ovmf_tpm_files;
	size_t n_tpm_files = N_OF(ovmf_tpm_files);
	int rc;

	memset(r, 0, sizeof(*r));
	if (!o->out) {
		lb_seterr(err, errsz, "the output is required");
		return -EINVAL;
	}
	if (o->cmdline && strlen(o->cmdline) > LBOOT_CMDLINE_MAX) {
		lb_seterr(err, errsz, "command line: %zu bytes, more than %d",
		       strlen(o->cmdline), LBOOT_CMDLINE_MAX);
		return -E2BIG;
	}

	/* inputs */
	rc = read_file(base, LB_UEFI_MAX_IMAGE, &base_buf, &base_len, &ids[0], err, errsz);
	if (rc)
		goto out;
	if (o->kernel && (rc = read_file(o->kernel, LB_MKROM_MAX_PAYLOAD, &kernel,
					 &kernel_len, &ids[2], err, errsz)))
		goto out;
	if (o->initrd && (rc = read_file(o->initrd, LB_MKROM_MAX_PAYLOAD, &initrd,
					 &initrd_len, &ids[3], err, errsz)))
		goto out;
	if (o->keep) {
		rc = read_file(o->keep, 1u << 20, &keep_buf, &keep_len, &ids[4], err, errsz);
		if (rc)
			goto out;
		rc = lb_mkrom_parse_list((const char *)keep_buf, keep_len, &keep, &n_keep,
					 &remove, &n_remove, why, sizeof(why));
		if (rc) {
			lb_seterr(err, errsz, "%s: %s", o->keep, why);
			goto out;
		}
		for (size_t i = 0; i < n_keep; i++) {
			if (!strcmp(keep[i], BDSDXE_GUID)) {
				rc = -EINVAL;
				lb_seterr(err, errsz, "%s: keeps BdsDxe (%s), which lbootdxe "
				       "replaces: remove that line", o->keep, BDSDXE_GUID);
				goto out;
			}
		}
	}
	if (kernel && (kernel_len < 2 || kernel[0] != 'M' || kernel[1] != 'Z')) {
		rc = -EINVAL;
		lb_seterr(err, errsz, "%s: not an EFI-stub kernel (no MZ/PE header)", o->kernel);
		goto out;
	}

	/* parse and inspect the base */
	rc = lb_uefi_parse(base_buf, base_len, 0, &img, why, sizeof(why));
	if (rc) {
		lb_seterr(err, errsz, "%s: %s", base, why[0] ? why : strerror(-rc));
		goto out;
	}
	/* the architecture: the base's, which --arch and lbootdxe must match */
	arch = base_arch(img);
	if (arch == LB_MKROM_ARCH_AUTO) {
		rc = -EINVAL;
		lb_seterr(err, errsz, "%s: no DXE core with an X64 or AArch64 PE32 section", base);
		goto out;
	}
	if (o->arch != LB_MKROM_ARCH_AUTO && o->arch != arch) {
		rc = -EINVAL;
		lb_seterr(err, errsz, "%s: an %s image, not %s (--arch)", base,
			  lb_mkrom_arch_name(arch), lb_mkrom_arch_name(o->arch));
		goto out;
	}
	r->arch = arch;
	if (!dxe_path)
		dxe_path = arch == LB_MKROM_ARCH_ARM64 ? LB_MKROM_ARM64_DXE : "build/dxe/lbootdxe.efi";
	rc = read_file(dxe_path, LB_MKROM_MAX_PAYLOAD, &dxe, &dxe_len, &ids[1], err, errsz);
	if (rc)
		goto out;
	if (dxe_len < 2 || dxe[0] != 'M' || dxe[1] != 'Z') {
		rc = -EINVAL;
		lb_seterr(err, errsz, "%s: not a PE image (no MZ header)", dxe_path);
		goto out;
	}
	/* a PE of the other architecture (an image whose machine we do not
	 * know is not checked) */
	if (lb_mkrom_arch_of_pe(dxe, dxe_len) != LB_MKROM_ARCH_AUTO &&
	    lb_mkrom_arch_of_pe(dxe, dxe_len) != arch) {
		rc = -EINVAL;
		lb_seterr(err, errsz, "%s: not an %s driver, and %s is an %s image", dxe_path,
			  lb_mkrom_arch_name(arch), base, lb_mkrom_arch_name(arch));
		goto out;
	}
	if (arch == LB_MKROM_ARCH_ARM64 && (o->flash_size || (o->tpm && o->pei_given))) {
		rc = -EINVAL;
		lb_seterr(err, errsz, "%s: %s is not for arm64 (%s)", base,
			  o->flash_size ? "--size" : "--pei",
			  o->flash_size ? "the layout is fixed: pflash unit 0 and unit 1 of "
			  "QEMU virt, 64 MiB each" : "AAVMF's Tcg2Pei measures only AAVMF's "
			  "own 2 MiB, not the payload volume: no lbootpei needed");
		goto out;
	}
	tpm_files = tpm_files_of(arch, &n_tpm_files);
	/* lbootpei: x86 only (the default path is ignored for arm64) */
	if (o->tpm && o->pei && arch != LB_MKROM_ARCH_ARM64 &&
	    (rc = read_file(o->pei, 1u << 20, &pei, &pei_len, &ids[6], err, errsz)))
		goto out;
	rc = list_dxe(img, &before, &n_before);
	if (rc == 0)
		rc = measure(img, &r->comp_before, &r->free_before);
	if (rc) {
		lb_seterr(err, errsz, "%s: %s", base, rc == -ENOENT ?
		       "no DXE volume (no firmware volume holds a DXE_CORE file)" :
		       strerror(-rc));
		goto out;
	}
	if (o->tpm) {
		size_t k = 0;

		for (size_t i = 0; i < n_tpm_files; i++) {
			if (tpm_files[i].required && !lb_uefi_find_file(img, tpm_files[i].guid)) {
				rc = -ENOENT;
				lb_seterr(err, errsz, "%s: --tpm: no %s (%s): this firmware cannot "
				       "measure the boot", base, tpm_files[i].name, tpm_files[i].guid);
				goto out;
			}
		}
		/* 'remove' lines naming a TPM module do not apply */
		for (size_t i = 0; i < n_remove; i++) {
			if (is_tpm_file(tpm_files, n_tpm_files, remove[i])) {
				free(remove[i]);
				r->n_tpm_unremoved++;
			} else {
				remove[k++] = remove[i];
			}
		}
		n_remove = k;
		/* the TPM DXE drivers join the keep list (without one, every
		 * driver but BdsDxe is kept anyway) */
		for (size_t i = 0; o->keep && i < n_tpm_files; i++) {
			struct lb_uefi_node *f = lb_uefi_find_file(img, tpm_files[i].guid);
			uint8_t g[16];
			size_t j;

			if (!f || !is_dxe_type(f->type))
				continue;
			for (j = 0; j < n_keep && strcmp(keep[j], tpm_files[i].guid); j++)
				;
			if (j < n_keep)
				continue;
			if (lb_guid_parse(tpm_files[i].guid, g) ||
			    (rc = strv_push(&keep, &n_keep, g))) {
				rc = rc ? rc : -EINVAL;
				lb_seterr(err, errsz, "out of memory");
				goto out;
			}
		}
	}
	for (size_t i = 0; i < n_keep; i++) {
		size_t j;
		for (j = 0; j < n_before && strcmp(before[j].guid, keep[i]); j++)
			;
		if (j < n_before)
			continue;
		char **nv = realloc(r->keep_missing, (r->n_keep_missing + 1) * sizeof(char *));
		if (!nv || !(nv[r->n_keep_missing] = strdup(keep[i]))) {
			if (nv)
				r->keep_missing = nv;
			rc = -ENOMEM;
			lb_seterr(err, errsz, "out of memory");
			goto out;
		}
		r->keep_missing = nv;
		r->n_keep_missing++;
	}

	/* remove */
	if (o->keep) {
		rc = lb_uefi_keep_only(img, (const char *const *)keep, n_keep, NULL);
		if (rc) {
			lb_seterr(err, errsz, "%s: removing drivers: %s%s%s", base,
			       strerror(-rc), img->err[0] ? ": " : "", img->err);
			goto out;
		}
	}
	for (;;) { /* BdsDxe, by GUID (any copies) */
		struct lb_uefi_node *bds = lb_uefi_find_file(img, BDSDXE_GUID);
		if (!bds)
			break;
		rc = lb_uefi_remove(img, bds);
		if (rc) {
			lb_seterr(err, errsz, "%s: removing BdsDxe: %s", base, strerror(-rc));
			goto out;
		}
	}
	/* 'remove GUID' lines: files anywhere in the image (the PEI volume's
	 * TPM modules: with no TPM they spend 1.5 s in TIS timeouts) */
	for (size_t i = 0; i < n_remove; i++) {
		struct lb_uefi_node *f;
		int found = 0;

		while ((f = lb_uefi_find_file(img, remove[i]))) {
			struct lb_mkrom_file *nv;

			if (f->type == LB_FV_FILETYPE_SECURITY_CORE ||
			    f->type == LB_FV_FILETYPE_PEI_CORE ||
			    f->type == LB_FV_FILETYPE_DXE_CORE ||
			    f->type == LB_FV_FILETYPE_FIRMWARE_VOLUME_IMAGE) {
				rc = -EINVAL;
				lb_seterr(err, errsz, "%s: refusing to remove %s (%s %s): the "
				       "ROM could not boot", o->keep, remove[i],
				       lb_uefi_type_name(f), f->name ? f->name : "");
				goto out;
			}
			nv = realloc(r->removed_other, (r->n_removed_other + 1) * sizeof(*nv));
			if (!nv) {
				rc = -ENOMEM;
				lb_seterr(err, errsz, "out of memory");
				goto out;
			}
			r->removed_other = nv;
			nv += r->n_removed_other;
			memset(nv, 0, sizeof(*nv));
			memcpy(nv->guid, remove[i], sizeof(nv->guid));
			nv->type = lb_uefi_type_name(f);
			nv->size = f->size;
			if (!(nv->name = strdup(f->name ? f->name : ""))) {
				rc = -ENOMEM;
				lb_seterr(err, errsz, "out of memory");
				goto out;
			}
			r->n_removed_other++;
			rc = lb_uefi_remove(img, f);
			if (rc) {
				lb_seterr(err, errsz, "%s: removing %s: %s", base, remove[i],
				       strerror(-rc));
				goto out;
			}
			found = 1;
		}
		if (!found) {
			char **nv = realloc(r->remove_missing,
					    (r->n_remove_missing + 1) * sizeof(char *));
			if (!nv || !(nv[r->n_remove_missing] = strdup(remove[i]))) {
				if (nv)
					r->remove_missing = nv;
				rc = -ENOMEM;
				lb_seterr(err, errsz, "out of memory");
				goto out;
			}
			r->remove_missing = nv;
			r->n_remove_missing++;
		}
	}
	rc = list_dxe(img, &after, &n_after);
	if (rc) {
		lb_seterr(err, errsz, "%s: %s", base, strerror(-rc));
		goto out;
	}
	for (size_t i = 0; i < n_before; i++) {
		int kept = 0;
		for (size_t j = 0; j < n_after && !kept; j++)
			kept = !strcmp(before[i].guid, after[j].guid);
		struct lb_mkrom_file **v = kept ? &r->kept : &r->removed;
		size_t *nv = kept ? &r->n_kept : &r->n_removed;
		struct lb_mkrom_file *nn = realloc(*v, (*nv + 1) * sizeof(**v));
		if (!nn) {
			rc = -ENOMEM;
			lb_seterr(err, errsz, "out of memory");
			goto out;
		}
		*v = nn;
		nn[*nv] = before[i];
		before[i].name = NULL; /* moved */
		(*nv)++;
	}

	/* our files must not be there already (a ROM as the base) */
	{
		static const char *const ours[] = { LBOOT_GUID_DXE_STR, LBOOT_GUID_KERNEL_STR,
			LBOOT_GUID_INITRD_STR, LBOOT_GUID_CMDLINE_STR, LBOOT_GUID_CONSOLE_STR };
		for (size_t i = 0; i < sizeof(ours) / sizeof(ours[0]); i++) {
			if (lb_uefi_find_file(img, ours[i])) {
				rc = -EEXIST;
				lb_seterr(err, errsz, "%s: already holds lboot file %s (use a "
				       "stock image as the base)", base, ours[i]);
				goto out;
			}
		}
	}

	/* insert lbootdxe and the command line into the DXE volume */
	{
		struct lb_uefi_ffs_spec s;

		memset(&s, 0, sizeof(s));
		lb_guid_parse(LBOOT_GUID_DXE_STR, s.guid);
		s.type = LB_FV_FILETYPE_DRIVER;
		s.name = "LbootDxe";
		s.pe32 = dxe;
		s.pe32_len = dxe_len;
		s.depex = lb_uefi_depex_true;
		s.depex_len = 2;
		rc = add_file(img, lb_uefi_dxe_volume(img), &s, "DXE driver", err, errsz);
		if (rc)
			goto out;
		r->dxe_size = dxe_len;
		if (o->cmdline) {
			memset(&s, 0, sizeof(s));
			lb_guid_parse(LBOOT_GUID_CMDLINE_STR, s.guid);
			s.type = LB_FV_FILETYPE_FREEFORM;
			s.raw = (const uint8_t *)o->cmdline;
			s.raw_len = strlen(o->cmdline);
			rc = add_file(img, lb_uefi_dxe_volume(img), &s, "command line", err, errsz);
			if (rc)
				goto out;
			r->cmdline_len = s.raw_len;
		}
		if (o->dxe_console_set) {
			/* x86: the 16550's I/O port, 2 bytes; arm64: the PL011's
			 * MMIO base, 8 bytes (src/dxe/ARCH/cpu.h) */
			uint8_t port[8];
			uint64_t v = (uint64_t)o->dxe_console;
			int port_ok = 0;

			if (arch == LB_MKROM_ARCH_ARM64)
				port_ok = o->dxe_console_arg &&
					  !lb_mkrom_parse_console_arm64(o->dxe_console_arg, &v);
			else
				port_ok = !o->dxe_console_arg ||
					  !lb_mkrom_parse_console(o->dxe_console_arg, &o_console);
			if (!port_ok) {
				rc = -EINVAL;
				lb_seterr(err, errsz, "--dxe-console %s: not a console of %s (%s)",
					  o->dxe_console_arg ? o->dxe_console_arg : "(none)",
					  lb_mkrom_arch_name(arch), arch == LB_MKROM_ARCH_ARM64 ?
					  "pl011, none or a PL011 base 0xADDR" :
					  "com1-com4, none or an I/O port 0xPORT");
				goto out;
			}
			if (arch != LB_MKROM_ARCH_ARM64 && o->dxe_console_arg)
				v = (uint64_t)o_console;
			put_le(port, v, 8);
			r->console = v;
			memset(&s, 0, sizeof(s));
			lb_guid_parse(LBOOT_GUID_CONSOLE_STR, s.guid);
			s.type = LB_FV_FILETYPE_FREEFORM;
			s.raw = port;
			s.raw_len = arch == LB_MKROM_ARCH_ARM64 ? 8 : 2;
			rc = add_file(img, lb_uefi_dxe_volume(img), &s, "console port", err, errsz);
			if (rc)
				goto out;
			r->console_stored = 1;
		}
	}
	if (pei && (rc = add_pei(img, pei, pei_len, base_len, r, err, errsz)))
		goto out;
	/* the payload files (inserted below, where they fit) */
	if ((rc = payload_files(kernel, kernel_len, initrd, initrd_len, &kffs, &kffs_len,
				&iffs, &iffs_len, err, errsz)))
		goto out;
	r->kernel_size = kernel_len;
	r->initrd_size = initrd_len;
	need = files_span(kffs_len, iffs_len);
	r->payload_bytes = need;

	/* the code image without the payload: its size, and the room left in
	 * its flash volume */
	rc = lb_uefi_serialize(img, &rom, &rom_len);
	if (rc) {
		lb_seterr(err, errsz, "%s: serialize: %s%s%s%s", base, strerror(-rc),
		       img->err[0] ? ": " : "", img->err, rc == -ENOSPC ?
		       " (lbootdxe and the command line alone)" : "");
		goto out;
	}
	rc = lb_uefi_parse(rom, rom_len, 0, &code, why, sizeof(why));
	if (rc) {
		lb_seterr(err, errsz, "the new ROM does not parse back: %s", why);
		goto out;
	}
	room = volume_room(payload_volume(code));

	/* variable store template (split CODE images) */
	nvram = has_nvram(img);
	if (!nvram) {
		vars_in = o->vars ? strdup(o->vars) : vars_template(base);
		if (!vars_in) {
			rc = -EINVAL;
			lb_seterr(err, errsz, "%s: a split CODE image needs a variable store "
			       "template: pass --vars", base);
			goto out;
		}
		rc = read_file(vars_in, 64u << 20, &vars_buf, &vars_len, &ids[5], err, errsz);
		if (rc)
			goto out;
		vars_out = o->vars_out ? strdup(o->vars_out) : default_vars_out(o->out);
		if (!vars_out) {
			rc = -ENOMEM;
			lb_seterr(err, errsz, "out of memory");
			goto out;
		}
		if (same_file(vars_out, ids, 7) || !strcmp(vars_out, o->out)) {
			rc = -EEXIST;
			lb_seterr(err, errsz, "%s: would overwrite an input or the ROM", vars_out);
			goto out;
		}
	}

	/* arm64: the payload volume in unit 0's padding (mkrom_arm64.c) */
	if (arch == LB_MKROM_ARCH_ARM64 && o->slots) {
		rc = -EINVAL;
		lb_seterr(err, errsz, "--slots: x86_64 (OVMF) only so far");
		goto out;
	}
	if (arch == LB_MKROM_ARCH_ARM64) {
		rc = lb_mkrom_arm64_layout(&rom, &rom_len, payload_volume(code)->attributes,
					   kffs, kffs_len, iffs, iffs_len, r, err, errsz);
		if (rc)
			goto out;
		r->flash_size = rom_len + vars_len;
		goto laid_out;
	}

	/* layout: the payload in the code image (the base's own size), or in a
	 * payload volume at the bottom of unit 1 (a larger flash) */
	base_total = (uint64_t)rom_len + vars_len;
	if (o->flash_size && nvram && o->flash_size != base_total) {
		rc = -EINVAL;
		lb_seterr(err, errsz, "%s carries its own variable store: its flash is %llu "
		       "bytes, not %llu (a larger flash needs a split CODE image such as "
		       LB_MKROM_DEFAULT_BASE ")", base, (unsigned long long)base_total,
		       (unsigned long long)o->flash_size);
		goto out;
	}
	if (o->flash_size && o->flash_size < base_total) {
		rc = -EINVAL;
		lb_seterr(err, errsz, "flash size %llu bytes: smaller than the base's code "
		       "and variable store (%llu bytes)", (unsigned long long)o->flash_size,
		       (unsigned long long)base_total);
		goto out;
	}
	if (o->slots && (nvram || (o->flash_size && o->flash_size == base_total))) {
		rc = -EINVAL;
		lb_seterr(err, errsz, "--slots: the payload slots need a flash larger than the "
		       "base's own %llu bytes (--size 8M or 16M) and a split CODE image",
		       (unsigned long long)base_total);
		goto out;
	}
	if (!o->slots && (!o->flash_size || o->flash_size == base_total)) {
		uint64_t over = need > room ? need - room : 0;

		if (!over && need) {
			if ((kffs && (rc = add_ffs(code, payload_volume(code), kffs, kffs_len,
						   "kernel", err, errsz))) ||
			    (iffs && (rc = add_ffs(code, payload_volume(code), iffs, iffs_len,
						   "initramfs", err, errsz))))
				goto out;
			rc = lb_uefi_serialize(code, &rom2, &rom2_len);
			if (rc == -ENOSPC) {
				over = 8; /* alignment the estimate missed */
			} else if (rc) {
				lb_seterr(err, errsz, "%s: serialize: %s%s%s", base, strerror(-rc),
				       code->err[0] ? ": " : "", code->err);
				goto out;
			} else {
				free(rom);
				rom = rom2;
				rom_len = rom2_len;
				rom2 = NULL;
			}
		}
		if (over && (o->flash_size || nvram)) {
			rc = -ENOSPC;
			lb_seterr(err, errsz, "kernel + initramfs (%llu bytes) does not fit: %llu "
			       "bytes over the room of the %llu-byte layout (%llu bytes)%s",
			       (unsigned long long)need, (unsigned long long)over,
			       (unsigned long long)base_total, (unsigned long long)room,
			       nvram ? "" : "; --size 8M or 16M puts them in a payload "
			       "volume in pflash unit 1");
			goto out;
		}
		r->grown_over = over;
		r->flash_size = nvram ? 0 : base_total;
		if (!over)
			goto laid_out;
	}
	{
		static const uint64_t autos[] = { 8u * LB_MKROM_MIB, 16u * LB_MKROM_MIB };
		uint64_t size = 0, vol = 0;
		int fits = 0;

		for (size_t i = 0; i < 2 && !fits; i++) {
			size = o->flash_size ? o->flash_size : autos[i];
			if (size <= base_total)
				continue;
			vol = size - base_total;
			if (vol % LB_FLASH_BLOCK) {
				rc = -EINVAL;
				lb_seterr(err, errsz, "flash size %llu bytes: the payload volume "
				       "(%llu bytes) is not a multiple of %u", (unsigned long long)size,
				       (unsigned long long)vol, LB_FLASH_BLOCK);
				goto out;
			}
			if (o->slots)
				fits = LB_SLOT_HDR + ((need + PAYLOAD_FV_HDR + LB_FLASH_BLOCK - 1) &
					~(uint64_t)(LB_FLASH_BLOCK - 1)) <= (vol / 2 & ~(uint64_t)(LB_FLASH_BLOCK - 1));
			else
				fits = need + PAYLOAD_FV_HDR <= vol;
			if (o->flash_size)
				break;
		}
		if (!fits && o->slots) {
			rc = -ENOSPC;
			lb_seterr(err, errsz, "kernel + initramfs (%llu bytes) do not fit a payload "
			       "slot of the %llu MiB flash (two slots of %llu bytes, each with a "
			       "%u-byte header)", (unsigned long long)need,
			       (unsigned long long)(size / LB_MKROM_MIB),
			       (unsigned long long)(vol / 2 & ~(uint64_t)(LB_FLASH_BLOCK - 1)), LB_SLOT_HDR);
			goto out;
		}
		if (!fits) {
			rc = -ENOSPC;
			lb_seterr(err, errsz, "kernel + initramfs (%llu bytes) does not fit: %llu "
			       "bytes over the payload volume of the %llu MiB flash (%llu bytes%s)",
			       (unsigned long long)need,
			       (unsigned long long)(need + PAYLOAD_FV_HDR - vol),
			       (unsigned long long)(size / LB_MKROM_MIB), (unsigned long long)vol,
			       size >= LB_MKROM_MAX_FLASH ? "; 16 MiB is the most QEMU maps" : "");
			goto out;
		}
		if (o->slots)
			rc = slot_layout(o, &code, &rom, &rom_len, vol, kffs, kffs_len, iffs, iffs_len,
					 vars_buf, vars_len, &unit1, &unit1_len, r, err, errsz);
		else
			rc = lb_mkrom_payload_volume(payload_volume(code)->attributes, vol,
						     LB_MKROM_MAX_FLASH, kffs, kffs_len, iffs,
						     iffs_len, vars_buf, vars_len, &unit1, &unit1_len);
		if (rc && o->slots)
			goto out;
		if (rc) {
			lb_seterr(err, errsz, "building the payload volume: %s", strerror(-rc));
			goto out;
		}
		r->flash_size = size;
		r->payload_unit1 = 1;
		r->payload_vol = vol;
		r->payload_free = o->slots ? r->slot_size - LB_SLOT_HDR - r->slot_vol :
			vol - PAYLOAD_FV_HDR - need;
	}
laid_out:

	/* check and measure what will be written */
	rc = lb_uefi_parse(rom, rom_len, 0, &check, why, sizeof(why));
	if (rc) {
		lb_seterr(err, errsz, "the new ROM does not parse back: %s", why);
		goto out;
	}
	if (!lb_uefi_find_file(check, LBOOT_GUID_DXE_STR) ||
	    lb_uefi_find_file(check, BDSDXE_GUID) ||
	    (!r->payload_unit1 && kernel && !lb_uefi_find_file(check, LBOOT_GUID_KERNEL_STR)) ||
	    (!r->payload_unit1 && initrd && !lb_uefi_find_file(check, LBOOT_GUID_INITRD_STR))) {
		rc = -EBADMSG;
		lb_seterr(err, errsz, "the new ROM does not hold what was inserted");
		goto out;
	}
	rc = measure(check, &r->comp_after, &r->free_after);
	if (rc) {
		lb_seterr(err, errsz, "the new ROM has no DXE volume");
		goto out;
	}
	for (size_t i = 0; o->tpm && i < n_tpm_files; i++) {
		struct lb_uefi_node *f = lb_uefi_find_file(check, tpm_files[i].guid);
		struct lb_mkrom_file *nv;

		if (!f) {
			if (!tpm_files[i].required)
				continue;
			rc = -EBADMSG;
			lb_seterr(err, errsz, "--tpm: the new ROM lost %s (%s)", tpm_files[i].name,
			       tpm_files[i].guid);
			goto out;
		}
		if (!(nv = realloc(r->tpm, (r->n_tpm + 1) * sizeof(*nv)))) {
			rc = -ENOMEM;
			lb_seterr(err, errsz, "out of memory");
			goto out;
		}
		r->tpm = nv;
		nv += r->n_tpm;
		memset(nv, 0, sizeof(*nv));
		memcpy(nv->guid, tpm_files[i].guid, sizeof(nv->guid));
		nv->type = lb_uefi_type_name(f);
		nv->size = f->size;
		if (!(nv->name = strdup(f->name ? f->name : tpm_files[i].name))) {
			rc = -ENOMEM;
			lb_seterr(err, errsz, "out of memory");
			goto out;
		}
		r->n_tpm++;
	}
	if (unit1) {
		struct lb_uefi_image *u = NULL;

		if (o->slots) {
			struct lb_slot_hdr sh;
			uint64_t total = (uint64_t)unit1_len + rom_len;
			struct lb_slot_table st = { r->slot_size, { total - r->slot_off[0],
								    total - r->slot_off[1] } };
			int src = lb_slot_check(unit1 + r->slot_off[0], &st, &sh);
			if (src) {
				rc = -EBADMSG;
				lb_seterr(err, errsz, "payload slot A does not check: %s", lb_slot_why(src));
				goto out;
			}
			rc = lb_uefi_parse(unit1 + r->slot_off[0] + LB_SLOT_HDR, r->slot_vol, 0, &u,
					   why, sizeof(why));
		} else
			rc = lb_uefi_parse(unit1, unit1_len, 0, &u, why, sizeof(why));
		if (rc == 0 && ((kernel && !lb_uefi_find_file(u, LBOOT_GUID_KERNEL_STR)) ||
				(initrd && !lb_uefi_find_file(u, LBOOT_GUID_INITRD_STR))))
			rc = -EBADMSG;
		lb_uefi_free(u);
		if (rc) {
			lb_seterr(err, errsz, "the payload volume does not parse back: %s",
			       rc == -EBADMSG ? "a payload file is missing" : why);
			goto out;
		}
	}
	r->image_size = rom_len;
	r->unit1_size = unit1 ? unit1_len : vars_len;

	/* outputs */
	if (same_file(o->out, ids, 7)) {
		rc = -EEXIST;
		lb_seterr(err, errsz, "%s: is one of the inputs; refusing to overwrite it",
		       o->out);
		goto out;
	}
	rc = write_atomic(o->out, rom, rom_len, err, errsz);
	if (rc)
		goto out;
	if (vars_out) {
		rc = unit1 ? write_atomic(vars_out, unit1, unit1_len, err, errsz) :
			     write_atomic(vars_out, vars_buf, vars_len, err, errsz);
		if (rc)
			goto out;
		r->vars_out = vars_out;
		vars_out = NULL;
	}
out:
	if (rc)
		lb_mkrom_report_free(r);
	files_free(before, n_before);
	files_free(after, n_after);
	lb_mkrom_strv_free(keep, n_keep);
	lb_mkrom_strv_free(remove, n_remove);
	lb_uefi_free(img);
	lb_uefi_free(check);
	lb_uefi_free(code);
	free(kffs);
	free(iffs);
	free(rom2);
	free(unit1);
	free(base_buf);
	free(dxe);
	free(kernel);
	free(initrd);
	free(keep_buf);
	free(pei);
	free(rom);
	free(vars_buf);
	free(vars_in);
	free(vars_out);
	return rc;
}
