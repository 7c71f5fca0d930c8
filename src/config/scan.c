/*
 * Which boot configs of a filesystem count, and how they combine.
 *
 * On each filesystem, in this order (each a "group" of entries):
 *  1. systemd-boot / BLS at the partition root: when /loader/loader.conf,
 *     /loader/entries, /EFI/Linux or /EFI/systemd/systemd-bootx64.efi exists
 *     (an ESP or XBOOTLDR partition; /loader/entries alone does not count
 *     when the GRUB config of this filesystem runs `blscfg`, as the
 *     interpreter reports (not a mention in a comment): a separate
 *     Fedora/RHEL /boot, whose entries GRUB lists itself): type 1 entries + type 2 UKIs sorted
 *     together, loader.conf default/timeout (lb_bls_scan with root "").
 *  2. GRUB: /boot/grub/grub.cfg, /grub/grub.cfg, /boot/grub2/grub.cfg,
 *     /grub2/grub.cfg (the real configs; the first that exists; on a btrfs,
 *     mounted at its top level, also under the default subvolume and then
 *     under each top-level subvolume: /@/boot/grub/grub.cfg), else the
 *     distribution ESP stubs /EFI/NAME/grub.cfg (which `search` for the real
 *     config and `configfile` it: lb_grub_parse follows them over all
 *     filesystems), each stub in name order.
 *  3. /boot/loader/entries on a root filesystem (kernel-install without a
 *     separate /boot): lb_bls_scan with root "/boot" -- unless a GRUB config
 *     of this filesystem runs `blscfg`, which already lists those entries.
 *  4. SYSLINUX family: the first of /boot/extlinux/extlinux.conf,
 *     /extlinux/extlinux.conf, /boot/extlinux.conf, /extlinux.conf,
 *     /boot/syslinux/syslinux.cfg, /syslinux/syslinux.cfg, /syslinux.cfg,
 *     /boot/isolinux/isolinux.cfg, /isolinux/isolinux.cfg (the config
 *     directory is the working directory).
 * Combining: groups are appended in that order, filesystems in the given
 * order. The first group that has entries supplies the default and the
 * timeout (the bootloader found first is taken to be the one the machine
 * boots); later groups' defaults are cleared. An entry of a later group
 * identical to an earlier one (same type, fs, kernel, initrds and command
 * line words, BOOT_IMAGE= and initrd= notes and blanks aside) is dropped: an ESP stub and the /boot partition it points to yield
 * the same GRUB menu once. Entries within one group are never merged.
 * Limitation: loader.conf on an ESP does not steer entries of a separate
 * XBOOTLDR filesystem (each is sorted on its own).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bls.h"
#include "grub.h"
#include "progress.h"
#include "scan.h"
#include "syslinux.h"

static int exists(const struct lb_fs *fs, const char *path)
{
	struct stat st;

	return !lb_fs_stat(fs, path, &st);
}

static int isdir(const struct lb_fs *fs, const char *path)
{
	struct stat st;

	return !lb_fs_stat(fs, path, &st) && S_ISDIR(st.st_mode);
}

static int isfile(const struct lb_fs *fs, const char *path)
{
	struct stat st;

	return !lb_fs_stat(fs, path, &st) && S_ISREG(st.st_mode);
}

static int streq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* the next word of a command line that is not a boot loader's own note
 * (BOOT_IMAGE=, syslinux's initrd= lists: the kernel ignores both);
 * *len 0 at the end */
static const char *arg_word(const char **p, size_t *len)
{
	const char *w;

	for (;;) {
		while (**p == ' ' || **p == '\t')
			(*p)++;
		w = *p;
		while (**p && **p != ' ' && **p != '\t')
			(*p)++;
		*len = (size_t)(*p - w);
		if (!*len || (strncmp(w, "BOOT_IMAGE=", 11) && strncmp(w, "initrd=", 7)))
			return w;
	}
}

/* the same kernel arguments: word by word, blanks and the loaders' notes
 * aside (GRUB and isolinux on one ISO give the same entry two ways) */
static int same_args(const char *a, const char *b)
{
	size_t la, lb;

	a = a ? a : "";
	b = b ? b : "";
	for (;;) {
		const char *wa = arg_word(&a, &la), *wb = arg_word(&b, &lb);

		if (la != lb || memcmp(wa, wb, la))
			return 0;
		if (!la)
			return 1;
	}
}

static int same_entry(const struct lb_entry *a, const struct lb_entry *b)
{
	if (a->type != b->type || !streq(a->fs, b->fs) ||
	    !streq(a->kernel, b->kernel) || a->n_initrd != b->n_initrd ||
	    !same_args(a->cmdline, b->cmdline))
		return 0;
	for (size_t i = 0; i < a->n_initrd; i++)
		if (!streq(a->initrd[i], b->initrd[i]))
			return 0;
	return 1;
}

/* Append group g to out (consumes g). */
static int merge(struct lb_entries *out, struct lb_entries *g)
{
	int have = lb_entries_default(out) >= 0;
	size_t base = out->n;
	long d;

	for (size_t i = 0; i < g->n;) {
		int dup = 0;

		for (size_t j = 0; j < base && !dup; j++)
			dup = same_entry(&g->v[i], &out->v[j]);
		if (dup)
			lb_entries_remove(g, i);
		else
			i++;
	}
	if (have || !g->n) {
		for (size_t i = 0; i < g->n; i++)
			g->v[i].is_default = 0;
		g->timeout = -1;
	} else {
		d = lb_entries_default(g);
		if (d < 0 || g->v[d].hidden) {
			d = 0;
			for (size_t i = 0; i < g->n; i++)
				if (!g->v[i].hidden) {
					d = (long)i;
					break;
				}
		}
		lb_entries_set_default(g, (size_t)d);
		out->timeout = g->timeout;
		g->timeout = -1;
	}
	return lb_entries_append(out, g);
}

/* Run one parser into a fresh group and merge it; only -ENOMEM is fatal,
 * other failures become messages. */
static int group_done(struct lb_entries *out, struct lb_entries *g, int r,
		      const char *what)
{
	if (r == -ENOMEM) {
		lb_entries_free(g);
		return r;
	}
	if (r)
		lb_entries_msg(g, "%s: %s", what, strerror(-r));
	return merge(out, g);
}

static const char *const grub_paths[] = {
	"/boot/grub/grub.cfg", "/grub/grub.cfg",
	"/boot/grub2/grub.cfg", "/grub2/grub.cfg",
};

static const char *const syslinux_paths[] = {
	"/boot/extlinux/extlinux.conf", "/extlinux/extlinux.conf",
	"/boot/extlinux.conf", "/extlinux.conf",
	"/boot/syslinux/syslinux.cfg", "/syslinux/syslinux.cfg",
	"/syslinux.cfg",
	"/boot/isolinux/isolinux.cfg", "/isolinux/isolinux.cfg",
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* --- config files read per group (verified boot) --------------------- */

#define MAX_READS 256

struct read_rec {
	char *path;  /* "PATH on DEVICE" */
	size_t plen; /* length of PATH */
	int rc;
};

static struct {
	lb_scan_check_fn fn;
	void *arg;
	struct read_rec v[MAX_READS];
	size_t n;
	int overflow;
} rd;

static lb_scan_save_fn save_fn;
static void *save_arg;

void lb_scan_set_save(lb_scan_save_fn fn, void *arg)
{
	save_fn = fn;
	save_arg = arg;
}

static void saves_done(struct lb_grub_info *info)
{
	for (size_t i = 0; save_fn && i < info->n_save; i++)
		save_fn(save_arg, &info->save[i]);
	lb_grub_info_free(info);
}

void lb_scan_set_check(lb_scan_check_fn fn, void *arg)
{
	rd.fn = fn;
	rd.arg = arg;
}

static void on_read(void *arg, const struct lb_fs *fs, const char *path,
		    const uint8_t *buf, size_t len)
{
	struct read_rec *r;
	const char *dev = fs->name ? fs->name : lb_fs_ident(fs);

	if (rd.n >= MAX_READS) {
		rd.overflow = 1;
		return;
	}
	r = &rd.v[rd.n];
	if (asprintf(&r->path, "%s on %s", path, dev ? dev : "?") < 0) {
		rd.overflow = 1;
		return;
	}
	r->plen = strlen(path);
	lb_fs_read_hook = NULL; /* the check reads signature files */
	r->rc = rd.fn(rd.arg, fs, path, buf, len);
	lb_fs_read_hook = on_read;
	rd.n++;
}

static void reads_start(void)
{
	if (!rd.fn)
		return;
	rd.n = 0;
	rd.overflow = 0;
	lb_fs_read_hook = on_read;
	lb_fs_read_hook_arg = NULL;
}

static void reads_clear(void)
{
	for (size_t i = 0; i < rd.n; i++)
		free(rd.v[i].path);
	rd.n = 0;
	lb_fs_read_hook = NULL;
}

static int ends_with(const char *s, size_t n, const char *suf)
{
	size_t k = strlen(suf);

	return n >= k && !memcmp(s + n - k, suf, k);
}

/* a file that does not define entry e: loader.conf, another BLS entry */
static int not_a_dep(const struct read_rec *r, const struct lb_entry *e)
{
	const char *src = e->source ? e->source : "";
	const char *colon = strrchr(src, ':');
	size_t slen = colon ? (size_t)(colon - src) : strlen(src);

	if (ends_with(r->path, r->plen, "/loader/loader.conf"))
		return 1;
	if (strstr(r->path, "/loader/entries/") && ends_with(r->path, r->plen, ".conf"))
		return !(slen == r->plen && !memcmp(src, r->path, slen));
	return 0;
}

/* give each entry of g what the recorded reads say of it; then forget them */
static void reads_apply(struct lb_entries *g)
{
	if (!rd.fn)
		return;
	lb_fs_read_hook = NULL;
	for (size_t i = 0; i < g->n; i++) {
		struct lb_entry *e = &g->v[i];
		const struct read_rec *first = NULL, *bad = NULL;

		int rc = 0;

		for (size_t j = 0; j < rd.n; j++) {
			if (not_a_dep(&rd.v[j], e))
				continue;
			if (!first)
				first = &rd.v[j];
			if (rd.v[j].rc && !bad)
				bad = &rd.v[j];
		}
		if (rd.overflow) {
			rc = -E2BIG;
			bad = NULL;
		} else if (bad) {
			rc = bad->rc;
		}
		/* no file read for it: marked, but names none (verify.c then
		 * covers no command line by it) */
		lb_entry_mark_checked(e, rc, bad || first ? (bad ? bad : first)->path : NULL);
	}
	reads_clear();
}

/* btrfs, mounted at its top level: GRUB's config under the default
 * subvolume (fs->subvol), else under a top-level subvolume (a directory
 * whose inode is a subvolume root, 256), in name order. */
static const char *btrfs_grub_cfg(const struct lb_fs *fs, char *buf, size_t sz)
{
	char **names = NULL;
	size_t n = 0;
	const char *found = NULL;

	if (fs->subvol && fs->subvol[0] == '/' && strlen(fs->subvol) < 1024) {
		for (size_t i = 0; i < N(grub_paths); i++) {
			snprintf(buf, sz, "%s%s", fs->subvol, grub_paths[i]);
			if (isfile(fs, buf))
				return buf;
		}
	}
	if (lb_fs_list(fs, "/", &names, &n))
		return NULL;
	for (size_t k = 0; k < n && k < 64 && !found; k++) {
		struct stat st;

		if (strlen(names[k]) > 255 || (size_t)snprintf(buf, sz, "/%s", names[k]) >= sz ||
		    lb_fs_stat(fs, buf, &st) || !S_ISDIR(st.st_mode) || st.st_ino != 256)
			continue;
		for (size_t i = 0; i < N(grub_paths) && !found; i++) {
			snprintf(buf, sz, "/%s%s", names[k], grub_paths[i]);
			if (isfile(fs, buf))
				found = buf;
		}
	}
	lb_fs_list_free(names, n);
	return found;
}

int lb_scan_fs(const struct lb_fsset *all, const struct lb_fs *fs,
	       struct lb_entries *out)
{
	struct lb_entries g = LB_ENTRIES_INIT, gg = LB_ENTRIES_INIT;
	struct lb_grub_info info = { 0 };
	const char *grub_cfg = NULL;
	char subcfg[1400];
	int r, rg = 0, blscfg;

	/* the real GRUB config: the first of grub_paths that exists; when it
	 * runs blscfg it owns the BLS entries of this filesystem, so it is
	 * evaluated first (its group is merged after the BLS one) */
	for (size_t i = 0; i < N(grub_paths) && !grub_cfg; i++)
		if (isfile(fs, grub_paths[i]))
			grub_cfg = grub_paths[i];
	if (!grub_cfg && fs->fstype && !strcmp(fs->fstype, "btrfs"))
		grub_cfg = btrfs_grub_cfg(fs, subcfg, sizeof(subcfg));
	if (grub_cfg) {
		reads_start();
		rg = lb_grub_parse(all, fs, grub_cfg, &gg, &info);
		reads_apply(&gg);
		saves_done(&info);
	}
	if (grub_cfg && rg == -ENOMEM) {
		lb_entries_free(&gg);
		return rg;
	}
	blscfg = info.ran_blscfg;
	/* 1. systemd-boot / BLS at the partition root */
	if (exists(fs, "/loader/loader.conf") ||
	    (isdir(fs, "/loader/entries") && !blscfg) ||
	    isdir(fs, "/EFI/Linux") ||
	    exists(fs, "/EFI/systemd/systemd-bootx64.efi")) {
		reads_start();
		r = lb_bls_scan(fs, "", &g);
		reads_apply(&g);
		if ((r = group_done(out, &g, r, "/loader"))) {
			lb_entries_free(&gg);
			return r;
		}
	}
	/* 2. GRUB */
	if (grub_cfg && (r = group_done(out, &gg, rg, grub_cfg)))
		return r;
	if (!grub_cfg && isdir(fs, "/EFI")) {
		char **names = NULL;
		size_t n = 0;

		if (!lb_fs_list(fs, "/EFI", &names, &n)) {
			for (size_t i = 0; i < n; i++) {
				char path[320];

				if (strlen(names[i]) > 255 ||
				    !strcmp(names[i], "Linux"))
					continue;
				strcpy(path, "/EFI/");
				strcat(path, names[i]);
				strcat(path, "/grub.cfg");
				if (!isfile(fs, path))
					continue;
				reads_start();
				r = lb_grub_parse(all, fs, path, &g, &info);
				reads_apply(&g);
				saves_done(&info);
				blscfg |= info.ran_blscfg;
				if ((r = group_done(out, &g, r, path))) {
					lb_fs_list_free(names, n);
					return r;
				}
			}
			lb_fs_list_free(names, n);
		}
	}
	/* 3. BLS entries in /boot of a root filesystem */
	if (isdir(fs, "/boot/loader/entries") && !blscfg) {
		reads_start();
		r = lb_bls_scan(fs, "/boot", &g);
		reads_apply(&g);
		if ((r = group_done(out, &g, r, "/boot/loader")))
			return r;
	}
	/* 4. SYSLINUX family */
	for (size_t i = 0; i < N(syslinux_paths); i++) {
		if (!isfile(fs, syslinux_paths[i]))
			continue;
		reads_start();
		r = lb_syslinux_parse_fs(fs, syslinux_paths[i], &g);
		reads_apply(&g);
		if ((r = group_done(out, &g, r, syslinux_paths[i])))
			return r;
		break;
	}
	return 0;
}

int lb_scan(const struct lb_fsset *all, struct lb_entries *out)
{
	for (size_t i = 0; i < all->n; i++) {
		struct lb_entries g = LB_ENTRIES_INIT;
		int r;

		lb_progress(LB_PHASE_SCAN, all->v[i].name); /* PID 1's watch */
		r = lb_scan_fs(all, &all->v[i], &g);

		if (r) {
			lb_entries_free(&g);
			return r;
		}
		if ((r = merge(out, &g)))
			return r;
	}
	return 0;
}
