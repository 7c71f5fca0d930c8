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

void lb_mkrom_report_free(struct lb_mkrom_report *r)
{
	files_free(r->removed, r->n_removed);
	files_free(r->kept, r->n_kept);
	files_free(r->removed_other, r->n_removed_other);
	lb_mkrom_strv_free(r->keep_missing, r->n_keep_missing);
	lb_mkrom_strv_free(r->remove_missing, r->n_remove_missing);
	free(r->vars_out);
	memset(r, 0, sizeof(*r));
}

int lb_mkrom_build(const struct lb_mkrom_opts *o, struct lb_mkrom_report *r,
		   char *err, size_t errsz)
{
	const char *base = o->base ? o->base : LB_MKROM_DEFAULT_BASE;
	struct ident ids[6] = { { 0 } };
	uint8_t *base_buf = NULL, *dxe = NULL, *kernel = NULL, *initrd = NULL;
	uint8_t *keep_buf = NULL, *rom = NULL, *vars_buf = NULL;
	size_t base_len = 0, dxe_len = 0, kernel_len = 0, initrd_len = 0;
	size_t keep_len = 0, rom_len = 0, vars_len = 0;
	char **keep = NULL, **remove = NULL;
	size_t n_keep = 0, n_remove = 0;
	struct lb_mkrom_file *before = NULL, *after = NULL;
	size_t n_before = 0, n_after = 0;
	struct lb_uefi_image *img = NULL, *check = NULL;
	char why[LB_UEFI_ERRLEN] = "";
	char *vars_in = NULL, *vars_out = NULL;
	uint8_t g[16];
	int rc;

	memset(r, 0, sizeof(*r));
	if (!o->dxe || !o->out) {
		lb_seterr(err, errsz, "the DXE driver and the output are required");
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
	rc = read_file(o->dxe, LB_MKROM_MAX_PAYLOAD, &dxe, &dxe_len, &ids[1], err, errsz);
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
	if (dxe_len < 2 || dxe[0] != 'M' || dxe[1] != 'Z') {
		rc = -EINVAL;
		lb_seterr(err, errsz, "%s: not a PE image (no MZ header)", o->dxe);
		goto out;
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
	rc = list_dxe(img, &before, &n_before);
	if (rc == 0)
		rc = measure(img, &r->comp_before, &r->free_before);
	if (rc) {
		lb_seterr(err, errsz, "%s: %s", base, rc == -ENOENT ?
		       "no DXE volume (no firmware volume holds a DXE_CORE file)" :
		       strerror(-rc));
		goto out;
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
			LBOOT_GUID_INITRD_STR, LBOOT_GUID_CMDLINE_STR };
		for (size_t i = 0; i < sizeof(ours) / sizeof(ours[0]); i++) {
			if (lb_uefi_find_file(img, ours[i])) {
				rc = -EEXIST;
				lb_seterr(err, errsz, "%s: already holds lboot file %s (use a "
				       "stock image as the base)", base, ours[i]);
				goto out;
			}
		}
	}

	/* insert */
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

		if (kernel) {
			memset(&s, 0, sizeof(s));
			lb_guid_parse(LBOOT_GUID_KERNEL_STR, s.guid);
			s.type = LB_FV_FILETYPE_APPLICATION;
			s.name = "LbootKernel";
			s.pe32 = kernel;
			s.pe32_len = kernel_len;
			rc = add_file(img, payload_volume(img), &s, "kernel", err, errsz);
			if (rc)
				goto out;
			r->kernel_size = kernel_len;
		}
		if (initrd) {
			memset(&s, 0, sizeof(s));
			lb_guid_parse(LBOOT_GUID_INITRD_STR, s.guid);
			s.type = LB_FV_FILETYPE_FREEFORM;
			s.raw = initrd;
			s.raw_len = initrd_len;
			rc = add_file(img, payload_volume(img), &s, "initramfs", err, errsz);
			if (rc)
				goto out;
			r->initrd_size = initrd_len;
		}
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
	}

	/* serialize, check, measure */
	rc = lb_uefi_serialize(img, &rom, &rom_len);
	if (rc == -ENOSPC) {
		lb_seterr(err, errsz, "%s: the ROM does not fit: %s (kernel %zu + "
		       "initramfs %zu bytes; %llu bytes were free in the base)", base,
		       img->err[0] ? img->err : "no space", kernel_len, initrd_len,
		       (unsigned long long)r->free_before);
		goto out;
	}
	if (rc) {
		lb_seterr(err, errsz, "%s: serialize: %s%s%s", base, strerror(-rc),
		       img->err[0] ? ": " : "", img->err);
		goto out;
	}
	rc = lb_uefi_parse(rom, rom_len, 0, &check, why, sizeof(why));
	if (rc) {
		lb_seterr(err, errsz, "the new ROM does not parse back: %s", why);
		goto out;
	}
	if (lb_guid_parse(LBOOT_GUID_DXE_STR, g) < 0 ||
	    !lb_uefi_find_file(check, LBOOT_GUID_DXE_STR) ||
	    (kernel && !lb_uefi_find_file(check, LBOOT_GUID_KERNEL_STR)) ||
	    lb_uefi_find_file(check, BDSDXE_GUID)) {
		rc = -EBADMSG;
		lb_seterr(err, errsz, "the new ROM does not hold what was inserted");
		goto out;
	}
	rc = measure(check, &r->comp_after, &r->free_after);
	if (rc) {
		lb_seterr(err, errsz, "the new ROM has no DXE volume");
		goto out;
	}
	r->image_size = rom_len;

	/* variable store */
	if (!has_nvram(img)) {
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
		if (same_file(vars_out, ids, 6) || !strcmp(vars_out, o->out)) {
			rc = -EEXIST;
			lb_seterr(err, errsz, "%s: would overwrite an input or the ROM", vars_out);
			goto out;
		}
	}

	/* outputs */
	if (same_file(o->out, ids, 6)) {
		rc = -EEXIST;
		lb_seterr(err, errsz, "%s: is one of the inputs; refusing to overwrite it",
		       o->out);
		goto out;
	}
	rc = write_atomic(o->out, rom, rom_len, err, errsz);
	if (rc)
		goto out;
	if (vars_out) {
		rc = write_atomic(vars_out, vars_buf, vars_len, err, errsz);
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
	free(base_buf);
	free(dxe);
	free(kernel);
	free(initrd);
	free(keep_buf);
	free(rom);
	free(vars_buf);
	free(vars_in);
	free(vars_out);
	return rc;
}
