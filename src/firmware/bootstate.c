/* The boot state the OS expects, in EFI variables (bootstate.h,
 * docs/boot-state.md). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"
#include "bootcount.h"
#include "bootstate.h"
#include "cmos.h"
#include "efivar.h"
#include "efivars.h"
#include "hash.h"
#include "io.h"
#include "probe.h"
#include "version.h"

#define LOADER LB_EFIVAR_GUID_LOADER

#define LB_RENAME_NOREPLACE 1u

/* systemd's EFI_LOADER_FEATURE_* (src/fundamental/efivars-fundamental.h) */
#define FEAT_ENTRY_DEFAULT (UINT64_C(1) << 2)
#define FEAT_ENTRY_ONESHOT (UINT64_C(1) << 3)
#define FEAT_BOOT_COUNTING (UINT64_C(1) << 4)
#define FEAT_XBOOTLDR      (UINT64_C(1) << 5)
#define FEAT_SORT_KEY      (UINT64_C(1) << 8)

#define ESP_GUID      "c12a7328-f81f-11d2-ba4b-00a0c93ec93b"
#define XBOOTLDR_GUID "bc13c2ff-59e6-4262-a352-b275fd6f7172"

/*
 * After ExitBootServices only non-volatile variables can be written
 * (UEFI 2.10, 8.2: volatile runtime variables are read-only then), so
 * what systemd-boot sets volatile before the OS starts lboot, running in
 * Linux, writes non-volatile, and rewrites (or deletes) on every boot.
 */
#define ATTR LB_EFIVAR_NV_BS_RT

int lb_bootstate_entry_file(const struct lb_entry *e, char *path, size_t n,
			    const char **suffix)
{
	const char *s = e->source, *colon, *base;
	size_t len;

	if (!s || !(colon = strrchr(s, ':')) || colon == s)
		return -ENOENT;
	for (const char *p = colon + 1; *p; p++)
		if (*p < '0' || *p > '9')
			return -ENOENT;
	len = (size_t)(colon - s);
	if (len >= n)
		return -ENAMETOOLONG;
	memcpy(path, s, len);
	path[len] = 0;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	len = strlen(base);
	if (len > 5 && !strcasecmp(base + len - 5, ".conf"))
		*suffix = ".conf";
	else if (len > 4 && !strcasecmp(base + len - 4, ".efi"))
		*suffix = ".efi";
	else
		return -ENOENT;
	return 0;
}

long lb_bootstate_find(const struct lb_entries *l, const char *pattern)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct lb_entry *e = &l->v[i];
		const char *suffix = NULL, *base = NULL;
		char path[4096];

		if (e->hidden)
			continue;
		if (!lb_bootstate_entry_file(e, path, sizeof(path), &suffix)) {
			base = strrchr(path, '/');
			base = base ? base + 1 : path;
		}
		if (lb_bootcount_id_match(pattern, base, suffix, e->id))
			return (long)i;
	}
	return -1;
}

int lb_bootstate_entry_id(const struct lb_entry *e, char *out, size_t n)
{
	const char *suffix, *base;
	char path[4096];

	if (!lb_bootstate_entry_file(e, path, sizeof(path), &suffix)) {
		base = strrchr(path, '/');
		return lb_bootcount_sdboot_id(base ? base + 1 : path, out, n);
	}
	base = e->id ? e->id : e->title;
	if (!base || strlen(base) >= n)
		return -ENOENT;
	strcpy(out, base);
	return 0;
}

static const char *title_of(const struct lb_entry *e)
{
	return e->title ? e->title : e->id ? e->id : "?";
}

/* a variable's value as the console shows it: control characters (the OS
 * wrote it, it may hold escape sequences) as '?' */
static const char *shown(const char *v, char *out, size_t n)
{
	size_t i = 0;

	for (; v[i] && i + 1 < n; i++)
		out[i] = (unsigned char)v[i] < 0x20 || v[i] == 0x7f ? '?' : v[i];
	out[i] = 0;
	return out;
}

/* the default from one variable: 1 chosen, 0 unset or no match */
static int from_var(struct lb_entries *l, const char *name, const char *guid,
		    int oneshot, int dry_run, const char *what, FILE *log)
{
	char v[512], sv[512];
	long i;
	int r = lb_efivar_get_str(name, guid, v, sizeof(v));

	if (r == -ENOENT)
		return 0;
	if (r) {
		fprintf(log, "lboot: EFI variable %s: %s; ignored\n", name, strerror(-r));
		return 0;
	}
	if (oneshot && !dry_run && (r = lb_efivar_del(name, guid)))
		fprintf(log, "lboot: EFI variable %s: deleting: %s\n", name, strerror(-r));
	i = v[0] ? lb_bootstate_find(l, v) : -1;
	if (i < 0) {
		fprintf(log, "lboot: %s=%s: matches no entry%s\n", what, shown(v, sv, sizeof(sv)),
			oneshot ? (dry_run ? " (dry run: not deleted)" : " (deleted)") : "");
		return 0;
	}
	lb_entries_set_default(l, (size_t)i);
	fprintf(log, "lboot: default '%s' chosen by %s=%s%s\n", title_of(&l->v[i]), what,
		shown(v, sv, sizeof(sv)),
		oneshot ? (dry_run ? " (one-shot; dry run: not deleted)" : " (one-shot: deleted)") : "");
	return 1;
}

/* --- under coreboot: CMOS options (cmos.h, docs/coreboot.md) ------------ */

uint32_t lb_bootstate_id_hash(const char *id)
{
	struct lb_digests d;

	if (lb_hash_buf(LB_HASH_BIT(LB_SHA256), id, strlen(id), &d))
		return 0;
	return (uint32_t)d.d[LB_SHA256][0] << 24 | (uint32_t)d.d[LB_SHA256][1] << 16 |
	       (uint32_t)d.d[LB_SHA256][2] << 8 | d.d[LB_SHA256][3];
}

/* A string option of lboot's: 0 (out set, maybe empty), -ENOENT (not in
 * the layout), -EBADMSG (a control character: said, ignored). */
static int cmos_str(const char *name, char *out, FILE *log)
{
	const struct lb_cmos_entry *e = lb_cmos_option(&lb_cmos_boot->lay, name, 's', 8,
						       LB_CMOS_SIZE * 8);

	if (!e)
		return -ENOENT;
	lb_cmos_get_str(lb_cmos_boot->img, e, out);
	for (const char *p = out; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			fprintf(log, "lboot: CMOS option %s holds a control character: ignored\n", name);
			return -EBADMSG;
		}
	return 0;
}

/* the default from lboot_oneshot or lboot_default: 1 chosen, else 0 */
static int from_cmos(struct lb_entries *l, const char *name, int oneshot, int dry_run, FILE *log)
{
	char v[LB_CMOS_SIZE + 1], why[256];
	const char *fate = "";
	long i;
	int r;

	/* "-" is unset too: nvramtool cannot write an empty string */
	if (cmos_str(name, v, log) || !v[0] || !strcmp(v, "-"))
		return 0;
	if (oneshot && !dry_run) { /* cleared before it is used: once means once */
		lb_cmos_set_str(lb_cmos_boot->img, lb_cmos_find(&lb_cmos_boot->lay, name), "");
		if ((r = lb_cmos_commit(lb_cmos_boot, why, sizeof(why)))) {
			fprintf(log, "lboot: CMOS option %s: clearing: %s; not used\n", name, why);
			return 0;
		}
	}
	if (oneshot)
		fate = dry_run ? " (one-shot; dry run: not cleared)" : " (one-shot: cleared)";
	i = lb_bootstate_find(l, v);
	if (i < 0) {
		fprintf(log, "lboot: CMOS option %s=%s: matches no entry%s\n", name, v, fate);
		return 0;
	}
	lb_entries_set_default(l, (size_t)i);
	fprintf(log, "lboot: default '%s' chosen by CMOS option %s=%s%s\n", title_of(&l->v[i]), name,
		v, fate);
	return 1;
}

/* lboot.default=saved under coreboot: the entry whose id hashes to
 * lboot_last. 1 chosen, else 0. */
static int saved_cmos(struct lb_entries *l, FILE *log)
{
	const struct lb_cmos_entry *e = lb_cmos_option(&lb_cmos_boot->lay, "lboot_last", 'h', 32, 32);
	char id[512];
	uint32_t h;

	if (!e) {
		fprintf(log, "lboot: lboot.default=saved: coreboot's CMOS option table has no 32-bit lboot_last; keeping the configured default\n");
		return 0;
	}
	if (!(h = (uint32_t)lb_cmos_get(lb_cmos_boot->img, e)))
		return 0;
	for (size_t i = 0; i < l->n; i++)
		if (!l->v[i].hidden && !lb_bootstate_entry_id(&l->v[i], id, sizeof(id)) &&
		    lb_bootstate_id_hash(id) == h) {
			lb_entries_set_default(l, i);
			fprintf(log, "lboot: default '%s' chosen by lboot.default=saved: CMOS option lboot_last=0x%08x (SHA-256 of '%s')\n",
				title_of(&l->v[i]), h, id);
			return 1;
		}
	fprintf(log, "lboot: lboot.default=saved: CMOS option lboot_last=0x%08x matches no entry; keeping the configured default\n", h);
	return 0;
}

int lb_bootstate_select(struct lb_entries *l, const char *sel, int use_efi,
			int dry_run, FILE *log)
{
	int saved = sel && !strcmp(sel, "saved"), efi = 0, r = -ENOENT;
	int cmos = use_efi && lb_cmos_boot;

	if (!l->n)
		return 0;
	if (use_efi && (r = lb_efivars_open()) && r != -ENOENT)
		fprintf(log, "lboot: efivarfs: %s: EFI variables not read\n", strerror(-r));
	if (use_efi && !r) {
		efi = 1;
		cmos = 0;
		if (from_var(l, "LoaderEntryOneShot", LOADER, 1, dry_run,
			     "EFI variable LoaderEntryOneShot", log) ||
		    from_var(l, "LoaderEntryDefault", LOADER, 0, dry_run,
			     "EFI variable LoaderEntryDefault", log))
			return 1;
	}
	if (cmos && !lb_cmos_cks_ok(&lb_cmos_boot->lay, lb_cmos_boot->img)) {
		fprintf(log, "lboot: CMOS: the checksum of coreboot's options is wrong: boot state not read\n");
		cmos = 0;
	} else if (cmos && (from_cmos(l, "lboot_oneshot", 1, dry_run, log) ||
			    from_cmos(l, "lboot_default", 0, dry_run, log))) {
		return 1;
	}
	if (saved) {
		if (cmos)
			return saved_cmos(l, log);
		if (!efi) {
			fprintf(log, "lboot: lboot.default=saved: no EFI variables or CMOS options here; keeping the configured default\n");
			return 0;
		}
		if (from_var(l, LB_BOOTSTATE_LAST_BOOTED, LB_EFIVAR_GUID_LBOOT, 0, dry_run,
			     "lboot.default=saved: EFI variable " LB_BOOTSTATE_LAST_BOOTED, log))
			return 1;
		return 0;
	}
	if (sel && *sel) {
		if (!lb_entries_select_default(l, sel))
			return 1;
		fprintf(log, "lboot: lboot.default=%s: no such entry, keeping the configured default\n",
			sel);
	}
	return 0;
}

/* --- before kexec ------------------------------------------------------- */

int lb_bootstate_count(const char *dir, const char *path, const char *suffix,
		       char *newpath, size_t n)
{
	char full[4400], next[512];
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	size_t dl = slash ? (size_t)(slash - path) : 0;
	int dfd, r = 0;

	if (strstr(path, "/../") || !strncmp(path, "../", 3) || !*base)
		return -EINVAL;
	if ((r = lb_bootcount_next(base, suffix, next, sizeof(next))))
		return r;
	if ((size_t)snprintf(full, sizeof(full), "%s/%.*s", dir, (int)dl, path) >= sizeof(full) ||
	    (size_t)snprintf(newpath, n, "%.*s%s", (int)(base - path), path, next) >= n)
		return -ENAMETOOLONG;
	dfd = open(full, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	/* never over an existing file (RENAME_NOREPLACE; checked by hand where
	 * the filesystem or kernel lacks it) */
	if (syscall(LB_SYS_RENAMEAT2, dfd, base, dfd, next, LB_RENAME_NOREPLACE) < 0) {
		r = -errno;
		if (r == -EINVAL || r == -ENOSYS) {
			r = 0;
			if (!faccessat(dfd, next, F_OK, AT_SYMLINK_NOFOLLOW))
				r = -EEXIST;
			else if (renameat(dfd, base, dfd, next) < 0)
				r = -errno;
		}
	}
	if (!r && fsync(dfd) < 0)
		r = -errno;
	close(dfd);
	return r;
}

/* The partition of fs on its disk: kind 1 ESP, 2 XBOOTLDR, 0 other; and
 * the ESP of that disk (GPT unique GUID) into esp. 0 or negative errno. */
static int part_info(const struct lb_fs *fs, int *kind, char esp[37])
{
	char link[PATH_MAX], p[PATH_MAX + 32], *slash, *disk;
	const char *name;
	unsigned long partno;
	struct lb_ptable *pt = NULL;
	uint8_t *buf = NULL;
	uint64_t lbs = 512;
	size_t got = 0, want = LB_PROBE_BYTES;
	int fd = -1, r;

	*kind = 0;
	esp[0] = 0;
	if (!fs->name || strncmp(fs->name, "/dev/", 5))
		return -ENOENT;
	name = fs->name + 5;
	snprintf(p, sizeof(p), "/sys/class/block/%s/partition", name);
	{
		char t[32];
		if ((r = lb_read_attr(p, t, sizeof(t))))
			return r;
		partno = strtoul(t, NULL, 10);
	}
	snprintf(p, sizeof(p), "/sys/class/block/%s", name);
	if (!realpath(p, link) || !(slash = strrchr(link, '/')))
		return -ENOENT;
	*slash = 0;
	disk = strrchr(link, '/');
	if (!disk)
		return -ENOENT;
	disk++;
	snprintf(p, sizeof(p), "/sys/class/block/%s/queue/logical_block_size", disk);
	{
		char t[32];
		if (!lb_read_attr(p, t, sizeof(t)))
			lbs = strtoull(t, NULL, 10);
		if (lbs < 512 || lbs > 65536 || (lbs & (lbs - 1)))
			lbs = 512;
	}
	snprintf(p, sizeof(p), "/dev/%s", disk);
	if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	if (!(pt = malloc(sizeof(*pt)))) {
		r = -ENOMEM;
		goto out;
	}
	for (int pass = 0; pass < 2; pass++) {
		free(buf);
		if (!(buf = malloc(want))) {
			r = -ENOMEM;
			goto out;
		}
		if ((r = lb_pread_full(fd, buf, want, 0, &got)))
			goto out;
		r = lb_probe_ptable(buf, got, (unsigned)lbs, pt);
		if (r != -ERANGE)
			break;
		want = lb_probe_gpt_need(buf, got, (unsigned)lbs);
		if (!want)
			break;
	}
	if (r)
		goto out;
	for (size_t i = 0; i < pt->n; i++) {
		const struct lb_part *q = &pt->v[i];
		int k = pt->kind == LB_PT_GPT ?
			(!strcmp(q->type_guid, ESP_GUID) ? 1 : !strcmp(q->type_guid, XBOOTLDR_GUID) ? 2 : 0) :
			(q->mbr_type == 0xef ? 1 : q->mbr_type == 0xea ? 2 : 0);
		if (q->num == partno)
			*kind = k;
		if (k == 1 && !esp[0] && pt->kind == LB_PT_GPT)
			memcpy(esp, q->uuid, 37);
	}
out:
	free(buf);
	free(pt);
	if (fd >= 0)
		close(fd);
	return r;
}

/* Boot counting for e on fs (kind from part_info): bcpath gets the
 * LoaderBootCountPath value. 1 renamed, 0 nothing to count, <0 failed. */
static int count(const struct lb_fs *fs, const struct lb_entry *e, int kind,
		 char *bcpath, size_t n, FILE *log)
{
	const char *suffix, *dev = fs->name ? fs->name : "?";
	struct lb_bootcount bc;
	char path[4096], newpath[4096], *base;
	int r;

	if (lb_bootstate_entry_file(e, path, sizeof(path), &suffix))
		return 0;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (lb_bootcount_parse(base, suffix, &bc))
		return 0;
	if (!kind || !fs->fstype || strcmp(fs->fstype, "vfat") || !fs->dir) {
		fprintf(log, "lboot: boot counting: %s on %s: not on a vfat ESP or XBOOTLDR partition (where systemd-boot counts): not counted\n",
			path, dev);
		return 0;
	}
	/* read-write for this one rename, as systemd-boot's SetInfo */
	if (mount(NULL, fs->dir, NULL, MS_REMOUNT | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
		r = -errno;
		fprintf(log, "lboot: boot counting: %s on %s: remounting read-write: %s\n", path, dev,
			strerror(-r));
		return r;
	}
	r = lb_bootstate_count(fs->dir, path, suffix, newpath, sizeof(newpath));
	sync();
	if (mount(NULL, fs->dir, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  NULL) < 0)
		fprintf(log, "lboot: %s: remounting read-only again: %s\n", dev, strerror(errno));
	if (r) {
		fprintf(log, "lboot: boot counting: renaming %s on %s: %s\n", path, dev, strerror(-r));
		return r;
	}
	fprintf(log, "lboot: boot counting: %s renamed to %s on %s (%d tries left)\n", path,
		newpath, dev, bc.left > 0 ? bc.left - 1 : 0);
	/* "\loader\entries\NAME": the path on the partition, as systemd-boot */
	if (strlen(newpath) + 2 > n)
		return 1;
	snprintf(bcpath, n, "%s%s", newpath[0] == '/' ? "" : "/", newpath);
	for (char *c = bcpath; *c; c++)
		if (*c == '/')
			*c = '\\';
	return 1;
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/*
 * What systemd-boot reads from the EFI system table: its header revision
 * (LoaderFirmwareType "UEFI 2.70"), FirmwareVendor and FirmwareRevision
 * (LoaderFirmwareInfo "EDK II 1.00"). The firmware kernel knows the table's
 * address (boot_params.efi_info, as the EFI stub left it) and the vendor
 * string's (/sys/firmware/efi/fw_vendor); both lie in EFI runtime memory,
 * which is not System RAM, so /dev/mem reads it under STRICT_DEVMEM.
 */
static int firmware_info(char *info, size_t in, char *type, size_t tn)
{
	uint8_t bp[0x1e0], st[40], ven[256];
	char t[64], v[128];
	uint64_t systab, fwv;
	int fd, r;

	fd = open("/sys/kernel/boot_params/data", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = lb_pread_full(fd, bp, sizeof(bp), 0, NULL);
	close(fd);
	if (r)
		return r;
	systab = rd32(bp + 0x1c4) | (uint64_t)rd32(bp + 0x1d8) << 32;
	if (!systab || (r = lb_read_attr("/sys/firmware/efi/fw_vendor", t, sizeof(t))))
		return r ? r : -ENOENT;
	fwv = strtoull(t, NULL, 0);
	if ((fd = open("/dev/mem", O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	r = lb_pread_full(fd, st, sizeof(st), systab, NULL);
	if (!r && (rd32(st) != 0x20494249u || rd32(st + 4) != 0x54535953u)) /* "IBI SYST" */
		r = -EBADMSG;
	memset(ven, 0, sizeof(ven));
	if (!r && fwv && lb_pread_full(fd, ven, sizeof(ven), fwv, NULL))
		memset(ven, 0, sizeof(ven));
	close(fd);
	if (r)
		return r;
	if (lb_ucs2_to_utf8(ven, sizeof(ven), v, sizeof(v)) || !v[0])
		snprintf(v, sizeof(v), "unknown");
	snprintf(type, tn, "UEFI %u.%02u", rd32(st + 8) >> 16, rd32(st + 8) & 0xffff);
	snprintf(info, in, "%s %u.%02u", v, rd32(st + 32) >> 16, rd32(st + 32) & 0xffff);
	return 0;
}

struct setter {
	int n_set, n_failed;
	FILE *log;
};

static void del(struct setter *s, const char *name);

/* set name to the wn bytes of want unless it holds them already */
static void set_raw(struct setter *s, const char *name, const char *guid, const uint8_t *want,
		    size_t wn)
{
	uint8_t have[LB_EFIVAR_MAX];
	size_t hn;
	uint32_t attr;
	int r;

	if (!lb_efivar_get(name, guid, &attr, have, sizeof(have), &hn) && attr == ATTR &&
	    hn == wn && !memcmp(have, want, wn))
		return; /* spare the NVRAM a write */
	if ((r = lb_efivar_set(name, guid, ATTR, want, wn))) {
		s->n_failed++;
		fprintf(s->log, "lboot: EFI variable %s: setting: %s\n", name, strerror(-r));
		return;
	}
	s->n_set++;
}

/* set name=value (UTF-8 string) unless it holds that already */
static void set_str(struct setter *s, const char *name, const char *guid, const char *value)
{
	uint8_t want[LB_EFIVAR_MAX];
	size_t wn;
	int r;

	if ((r = lb_utf8_to_ucs2(value, want, sizeof(want), &wn))) {
		s->n_failed++;
		fprintf(s->log, "lboot: EFI variable %s: setting: %s\n", name, strerror(-r));
		return;
	}
	set_raw(s, name, guid, want, wn);
}

int lb_bootstate_entries_var(const struct lb_entries *l, uint8_t *out, size_t outsz,
			     size_t *outlen, size_t *left_out)
{
	char id[512];
	size_t n = 0, k;

	*left_out = 0;
	for (size_t i = 0; i < l->n; i++) {
		if (lb_bootstate_entry_id(&l->v[i], id, sizeof(id)) ||
		    lb_utf8_to_ucs2(id, out + n, outsz - n, &k)) {
			(*left_out)++;
			continue;
		}
		n += k;
	}
	*outlen = n;
	return n ? 0 : -ENOENT;
}

/* LoaderEntries, as systemd-boot writes it (`bootctl list` reads it; ids
 * come from the disk's configs, like LoaderEntrySelected's) */
static void set_entries(struct setter *s, const struct lb_entries *l)
{
	uint8_t want[LB_EFIVAR_MAX];
	size_t wn, left;

	if (lb_bootstate_entries_var(l, want, sizeof(want), &wn, &left)) {
		del(s, "LoaderEntries");
		return;
	}
	if (left)
		fprintf(s->log, "lboot: EFI variable LoaderEntries: %zu of %zu entry ids left out "
			"(longer than the variable holds, or not UCS-2)\n", left, l->n);
	set_raw(s, "LoaderEntries", LOADER, want, wn);
}

static void del(struct setter *s, const char *name)
{
	int r = lb_efivar_del(name, LOADER);

	if (r) {
		s->n_failed++;
		fprintf(s->log, "lboot: EFI variable %s: deleting: %s\n", name, strerror(-r));
	}
}

static uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* lboot.default=saved under coreboot: lboot_last = the hash of e's id */
static void handover_cmos(const struct lb_entry *e, const char *sel, FILE *log)
{
	const struct lb_cmos_entry *ce;
	char id[512], why[256];
	uint32_t h;
	int r;

	if (!lb_cmos_boot || !sel || strcmp(sel, "saved") || lb_bootstate_entry_id(e, id, sizeof(id)))
		return;
	if (!(ce = lb_cmos_option(&lb_cmos_boot->lay, "lboot_last", 'h', 32, 32)))
		return; /* said when the default was chosen */
	if (!lb_cmos_cks_ok(&lb_cmos_boot->lay, lb_cmos_boot->img)) {
		fprintf(log, "lboot: CMOS: the checksum of coreboot's options is wrong: lboot_last not written\n");
		return;
	}
	h = lb_bootstate_id_hash(id);
	if (lb_cmos_get(lb_cmos_boot->img, ce) == h)
		return; /* spare a write */
	lb_cmos_set(lb_cmos_boot->img, ce, h);
	if ((r = lb_cmos_commit(lb_cmos_boot, why, sizeof(why))))
		fprintf(log, "lboot: CMOS option lboot_last: %s\n", why);
	else
		fprintf(log, "lboot: boot state: CMOS option lboot_last=0x%08x (SHA-256 of '%s')\n", h, id);
}

void lb_bootstate_handover(const struct lb_fsset *set, const struct lb_entries *l,
			   const struct lb_entry *e, const char *sel, long start_ms, FILE *log)
{
	struct setter s = { .log = log };
	const struct lb_fs *fs = e->fs && set ? lb_fsset_by_ident(set, e->fs) : NULL;
	char id[512], esp[37] = "", uuid[40] = "", bcpath[4200] = "", info[200], type[64], num[32];
	uint64_t feat = FEAT_ENTRY_DEFAULT | FEAT_ENTRY_ONESHOT | FEAT_BOOT_COUNTING |
			FEAT_XBOOTLDR | FEAT_SORT_KEY;
	uint8_t fb[8];
	int kind = 0, r;

	r = lb_efivars_open();
	if (r == -ENOENT) { /* not booted by EFI: under coreboot, lboot_last */
		handover_cmos(e, sel, log);
		return;
	}
	if (r) {
		fprintf(log, "lboot: efivarfs: %s: no boot state for the OS\n", strerror(-r));
		return;
	}
	if (fs)
		part_info(fs, &kind, esp);
	/* boot counting first: the try counts once lboot commits to the jump */
	if (fs && count(fs, e, kind, bcpath, sizeof(bcpath), log) == 1)
		set_str(&s, "LoaderBootCountPath", LOADER, bcpath);
	else
		del(&s, "LoaderBootCountPath"); /* not last boot's: bless-boot would rename it */

	set_str(&s, "LoaderInfo", LOADER, "lboot " LB_VERSION);
	if (l)
		set_entries(&s, l);
	if (!lb_bootstate_entry_id(e, id, sizeof(id)))
		set_str(&s, "LoaderEntrySelected", LOADER, id);
	else
		del(&s, "LoaderEntrySelected");
	/* the ESP systemd-boot would have been loaded from: the entry's own
	 * partition when it is one, else the ESP of the entry's disk */
	if (kind == 1 && fs->partuuid)
		snprintf(uuid, sizeof(uuid), "%s", fs->partuuid);
	else if (esp[0])
		snprintf(uuid, sizeof(uuid), "%s", esp);
	for (char *c = uuid; *c; c++)
		*c = (char)toupper((unsigned char)*c);
	if (uuid[0])
		set_str(&s, "LoaderDevicePartUUID", LOADER, uuid);
	else
		del(&s, "LoaderDevicePartUUID");
	/* microseconds since the firmware kernel started (CLOCK_MONOTONIC):
	 * at lboot's start and now, at the hand-over */
	snprintf(num, sizeof(num), "%llu", (unsigned long long)(start_ms > 0 ? start_ms : 0) * 1000ull);
	set_str(&s, "LoaderTimeInitUSec", LOADER, num);
	snprintf(num, sizeof(num), "%llu", (unsigned long long)now_usec());
	set_str(&s, "LoaderTimeExecUSec", LOADER, num);
	if (!(r = firmware_info(info, sizeof(info), type, sizeof(type)))) {
		set_str(&s, "LoaderFirmwareInfo", LOADER, info);
		set_str(&s, "LoaderFirmwareType", LOADER, type);
	} else {
		fprintf(log, "lboot: EFI system table: %s: LoaderFirmwareInfo/Type not set\n",
			strerror(-r));
	}
	for (int i = 0; i < 8; i++)
		fb[i] = (uint8_t)(feat >> (8 * i));
	{
		uint8_t have[16];
		size_t hn;
		uint32_t a;
		if (lb_efivar_get("LoaderFeatures", LOADER, &a, have, sizeof(have), &hn) ||
		    a != ATTR || hn != 8 || memcmp(have, fb, 8)) {
			if ((r = lb_efivar_set("LoaderFeatures", LOADER, ATTR, fb, 8))) {
				s.n_failed++;
				fprintf(log, "lboot: EFI variable LoaderFeatures: setting: %s\n",
					strerror(-r));
			} else {
				s.n_set++;
			}
		}
	}
	if (sel && !strcmp(sel, "saved") && !lb_bootstate_entry_id(e, id, sizeof(id)))
		set_str(&s, LB_BOOTSTATE_LAST_BOOTED, LB_EFIVAR_GUID_LBOOT, id);
	fprintf(log, "lboot: boot state for the OS: LoaderEntrySelected=%s LoaderDevicePartUUID=%s (%d EFI variable%s written%s)\n",
		lb_bootstate_entry_id(e, id, sizeof(id)) ? "-" : id, uuid[0] ? uuid : "-",
		s.n_set, s.n_set == 1 ? "" : "s", s.n_failed ? ", some failed" : "");
	fflush(log);
}
