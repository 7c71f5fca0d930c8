/* btrfs as lboot mounts it (the top-level subvolume, fs->subvol naming the
 * default one): GRUB's config found under the default subvolume, paths
 * with and without SUSE's btrfs_relative_path (temporary trees). */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "t.h"
#include "scan.h"

static char tmp[PATH_MAX];

static void mkfile(const char *root, const char *path, const char *text)
{
	char p[PATH_MAX + 256];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, path);
	for (char *s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = 0;
		mkdir(p, 0755);
		*s = '/';
	}
	if ((f = fopen(p, "wb"))) {
		fputs(text, f);
		fclose(f);
	}
}

static int rm1(const char *p, const struct stat *st, int f, struct FTW *w)
{
	(void)st; (void)f; (void)w;
	return remove(p);
}

static const struct lb_entry *by_title(const struct lb_entries *l, const char *t)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].title && !strcmp(l->v[i].title, t))
			return &l->v[i];
	return NULL;
}

int main(void)
{
	struct lb_fsset set = { 0 };
	struct lb_entries out = LB_ENTRIES_INIT;
	struct lb_fs fs;
	char spec[PATH_MAX + 200];
	const struct lb_entry *e;

	snprintf(tmp, sizeof(tmp), "/tmp/lboot-test-btrfs-XXXXXX");
	if (!mkdtemp(tmp))
		return 1;
	/* openSUSE: default subvolume @/.snapshots/1/snapshot holds /boot and
	 * grub.cfg, which sets btrfs_relative_path; an Ubuntu-style entry
	 * names the top-level path itself */
	mkfile(tmp, "@/.snapshots/1/snapshot/boot/vmlinuz-6.4", "k");
	mkfile(tmp, "@/.snapshots/1/snapshot/boot/initrd-6.4", "i");
	mkfile(tmp, "@/boot/vmlinuz-top", "k");
	mkfile(tmp, "@/.snapshots/1/snapshot/boot/grub2/grub.cfg",
	       "set btrfs_relative_path=\"y\"\nexport btrfs_relative_path\n"
	       "menuentry 'openSUSE Tumbleweed' {\n"
	       "  linux /boot/vmlinuz-6.4 root=UUID=9a8b rootflags=subvol=@/.snapshots/1/snapshot\n"
	       "  initrd /boot/initrd-6.4\n}\n"
	       "menuentry 'top level' {\n  set btrfs_relative_path=n\n"
	       "  linux /@/boot/vmlinuz-top quiet\n}\n"
	       "menuentry 'already inside' {\n"
	       "  linux /@/.snapshots/1/snapshot/boot/vmlinuz-6.4\n}\n");

	TEST("btrfs: grub.cfg under the default subvolume, relative paths") {
		snprintf(spec, sizeof(spec), "%s@uuid=9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d,type=btrfs,"
			 "grub=hd0,gpt2,subvol=/@/.snapshots/1/snapshot", tmp);
		CHECK_INT(lb_fs_parse_spec(spec, &fs), 0);
		CHECK_STR(fs.subvol, "/@/.snapshots/1/snapshot");
		CHECK_INT(lb_fsset_add(&set, &fs), 0);
		CHECK_INT(lb_scan(&set, &out), 0);
		CHECK_INT(out.n, 3);
		e = by_title(&out, "openSUSE Tumbleweed");
		CHECK(e != NULL);
		if (e) {
			CHECK_STR(e->kernel, "/@/.snapshots/1/snapshot/boot/vmlinuz-6.4");
			CHECK_INT(e->n_initrd, 1);
			if (e->n_initrd)
				CHECK_STR(e->initrd[0], "/@/.snapshots/1/snapshot/boot/initrd-6.4");
		}
		e = by_title(&out, "top level");
		CHECK(e != NULL);
		if (e)
			CHECK_STR(e->kernel, "/@/boot/vmlinuz-top");
		e = by_title(&out, "already inside");
		CHECK(e != NULL);
		if (e)
			CHECK_STR(e->kernel, "/@/.snapshots/1/snapshot/boot/vmlinuz-6.4");
		lb_entries_free(&out);
		lb_fsset_free(&set);
	}

	TEST("btrfs without a default subvolume: no relative prefix") {
		snprintf(spec, sizeof(spec), "%s@type=btrfs,grub=hd0,gpt2", tmp);
		CHECK_INT(lb_fs_parse_spec(spec, &fs), 0);
		CHECK_INT(lb_fsset_add(&set, &fs), 0);
		/* the config is not found at the top level of a plain directory
		 * tree (no subvolume roots there): nothing */
		CHECK_INT(lb_scan(&set, &out), 0);
		CHECK_INT(out.n, 0);
		lb_entries_free(&out);
		lb_fsset_free(&set);
	}

	TEST("relative path on a non-btrfs filesystem changes nothing") {
		char root2[PATH_MAX + 8];
		if ((size_t)snprintf(root2, sizeof(root2), "%s/@/.snapshots/1/snapshot", tmp) >= sizeof(root2))
			continue;
		snprintf(spec, sizeof(spec), "%s@type=ext4,grub=hd0,gpt1", root2);
		CHECK_INT(lb_fs_parse_spec(spec, &fs), 0);
		CHECK_INT(lb_fsset_add(&set, &fs), 0);
		CHECK_INT(lb_scan(&set, &out), 0);
		e = by_title(&out, "openSUSE Tumbleweed");
		CHECK(e != NULL);
		if (e)
			CHECK_STR(e->kernel, "/boot/vmlinuz-6.4");
		lb_entries_free(&out);
		lb_fsset_free(&set);
	}
	nftw(tmp, rm1, 16, FTW_DEPTH | FTW_PHYS);
	return t_done();
}
