/* lb_scan / lb_scan_fs: which configs count on a filesystem and how groups
 * and filesystems combine (temporary trees built here). */
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
	f = fopen(p, "wb");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void cpfile(const char *src, const char *root, const char *path)
{
	char p[PATH_MAX + 256];
	FILE *in = fopen(src, "rb"), *out;
	char buf[8192];
	size_t n;

	mkfile(root, path, "");
	snprintf(p, sizeof(p), "%s/%s", root, path);
	out = fopen(p, "wb");
	while (in && out && (n = fread(buf, 1, sizeof(buf), in)))
		fwrite(buf, 1, n, out);
	if (in)
		fclose(in);
	if (out)
		fclose(out);
}

static int rm1(const char *p, const struct stat *st, int f, struct FTW *w)
{
	(void)st; (void)f; (void)w;
	return remove(p);
}

static struct lb_fs mkfs(const char *sub, const char *uuid, const char *grub)
{
	struct lb_fs fs = { 0 };
	char p[PATH_MAX + 64];

	snprintf(p, sizeof(p), "%s/%s", tmp, sub);
	mkdir(p, 0755);
	fs.dir = strdup(p);
	fs.name = strdup(sub);
	fs.uuid = uuid ? strdup(uuid) : NULL;
	fs.grub = grub ? strdup(grub) : NULL;
	return fs;
}

static void dump(const struct lb_entries *l)
{
	for (size_t i = 0; i < l->n; i++)
		printf("#  %zu%s %s | %s | %s | %s\n", i, l->v[i].is_default ? "*" : "",
		       l->v[i].id ? l->v[i].id : "-", l->v[i].title, l->v[i].fs,
		       l->v[i].kernel);
	for (size_t i = 0; i < l->n_msgs; i++)
		printf("#  msg: %s\n", l->msgs[i]);
}

static int n_default(const struct lb_entries *l)
{
	int n = 0;

	for (size_t i = 0; i < l->n; i++)
		n += !!l->v[i].is_default;
	return n;
}

static const char fedora_entry[] =
	"title Fedora Linux (6.5.6-300.fc39.x86_64) 39\n"
	"version 6.5.6-300.fc39.x86_64\n"
	"linux /vmlinuz-6.5.6-300.fc39.x86_64\n"
	"initrd /initramfs-6.5.6-300.fc39.x86_64.img\n"
	"options root=UUID=r00t ro rhgb quiet\n";

int main(void)
{
	char uki[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "/tmp/lboot-test-scan.XXXXXX");
	if (!mkdtemp(tmp)) {
		printf("not ok scan mkdtemp\n");
		return 1;
	}
	snprintf(uki, sizeof(uki), "%s/uki/debian.efi", t_files());

	TEST("scan ESP: systemd-boot type 1 + UKIs sorted together") {
		struct lb_fsset set = { 0 };
		struct lb_entries l = LB_ENTRIES_INIT;
		struct lb_fs fs = mkfs("esp1", "AAAA-0001", NULL);

		mkfile(fs.dir, "loader/loader.conf", "timeout 3\ndefault debian*\n");
		mkfile(fs.dir, "loader/entries/arch.conf",
		       "title Arch\nsort-key arch\nlinux /vmlinuz\n");
		mkfile(fs.dir, "vmlinuz", "k");
		cpfile(uki, fs.dir, "EFI/Linux/debian-6.1.0-18.efi");
		cpfile(uki, fs.dir, "EFI/Linux/debian-old+0-2.efi");
		mkfile(fs.dir, "EFI/Linux/broken.efi", "MZ nope");
		/* a type 1 entry naming a UKI, without options */
		cpfile(uki, fs.dir, "EFI/other/os.efi");
		mkfile(fs.dir, "loader/entries/viauki.conf",
		       "title Via UKI\nsort-key zzz\nuki /EFI/other/os.efi\n");
		lb_fsset_add(&set, &fs);
		CHECK_INT(lb_scan(&set, &l), 0);
		CHECK_INT(l.n, 4);
		if (l.n == 4) {
			CHECK_STR(l.v[2].id, "viauki");
			CHECK_INT(l.v[2].type, LB_ENTRY_UKI);
			/* no scan-time copy of the UKI's .cmdline: the stage takes the
			 * staged UKI's own (issue 23, finding 3) */
			CHECK(l.v[2].cmdline == NULL);
			CHECK_STR(l.v[0].id, "arch");
			CHECK_STR(l.v[0].kernel, "/vmlinuz");
			CHECK_STR(l.v[1].id, "debian-6.1.0-18");
			CHECK_INT(l.v[1].type, LB_ENTRY_UKI);
			CHECK_STR(l.v[1].kernel, "/EFI/Linux/debian-6.1.0-18.efi");
			CHECK_INT(l.v[1].is_default, 1);
			CHECK_STR(l.v[3].id, "debian-old"); /* bad: last */
			CHECK_STR(l.v[1].fs, "AAAA-0001");
		}
		CHECK_INT(n_default(&l), 1);
		CHECK_INT(l.timeout, 3);
		if (t_failed_now)
			dump(&l);
		lb_entries_free(&l);
		lb_fsset_free(&set);
	}
	TEST("scan root fs: /boot/loader/entries alone, /boot prefix") {
		struct lb_fsset set = { 0 };
		struct lb_entries l = LB_ENTRIES_INIT;
		struct lb_fs fs = mkfs("root2", "r00t", NULL);

		mkfile(fs.dir, "boot/loader/entries/f.conf", fedora_entry);
		mkfile(fs.dir, "boot/vmlinuz-6.5.6-300.fc39.x86_64", "k");
		mkfile(fs.dir, "boot/initramfs-6.5.6-300.fc39.x86_64.img", "i");
		lb_fsset_add(&set, &fs);
		CHECK_INT(lb_scan(&set, &l), 0);
		CHECK_INT(l.n, 1);
		if (l.n) {
			CHECK_STR(l.v[0].kernel, "/boot/vmlinuz-6.5.6-300.fc39.x86_64");
			CHECK_STR(l.v[0].initrd[0], "/boot/initramfs-6.5.6-300.fc39.x86_64.img");
			CHECK_INT(l.v[0].is_default, 1);
		}
		lb_entries_free(&l);
		lb_fsset_free(&set);
	}
	TEST("scan two filesystems: ESP grub stub -> /boot grub.cfg, once") {
		struct lb_fsset set = { 0 };
		struct lb_entries l = LB_ENTRIES_INIT;
		struct lb_fs esp = mkfs("esp3", "AAAA-0003", "hd0,gpt1");
		struct lb_fs boot = mkfs("boot3", "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0",
					 "hd0,gpt2");

		mkfile(esp.dir, "EFI/fedora/grub.cfg",
		       "search --no-floppy --fs-uuid --set=dev 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0\n"
		       "set prefix=($dev)/grub2\n"
		       "export $prefix\n"
		       "configfile $prefix/grub.cfg\n");
		mkfile(boot.dir, "grub2/grub.cfg",
		       "set timeout=7\n"
		       "search --no-floppy --fs-uuid --set=root 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0\n"
		       "menuentry 'Fedora Linux 39' --id fedora {\n"
		       "  linux /vmlinuz-6.5 root=UUID=r00t ro\n"
		       "  initrd /initramfs-6.5.img\n"
		       "}\n"
		       "menuentry 'Fedora rescue' --id rescue {\n"
		       "  linux /vmlinuz-0-rescue root=UUID=r00t ro\n"
		       "}\n");
		mkfile(boot.dir, "vmlinuz-6.5", "k");
		lb_fsset_add(&set, &esp);
		lb_fsset_add(&set, &boot);
		CHECK_INT(lb_scan(&set, &l), 0);
		CHECK_INT(l.n, 2);
		if (l.n == 2) {
			CHECK_STR(l.v[0].title, "Fedora Linux 39");
			CHECK_STR(l.v[0].fs, "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0");
			CHECK_STR(l.v[0].kernel, "/vmlinuz-6.5");
			CHECK_INT(l.v[0].is_default, 1);
		}
		CHECK_INT(n_default(&l), 1);
		CHECK_INT(l.timeout, 7);
		if (t_failed_now)
			dump(&l);
		lb_entries_free(&l);
		lb_fsset_free(&set);
	}
	TEST("scan GRUB blscfg: BLS entries not listed twice") {
		struct lb_fsset set = { 0 };
		struct lb_entries l = LB_ENTRIES_INIT;
		struct lb_fs fs = mkfs("root4", "r00t4", "hd0,gpt2");

		mkfile(fs.dir, "boot/grub2/grub.cfg",
		       "set default=0\ninsmod blscfg\nblscfg\n");
		mkfile(fs.dir, "boot/loader/entries/f.conf", fedora_entry);
		mkfile(fs.dir, "boot/vmlinuz-6.5.6-300.fc39.x86_64", "k");
		lb_fsset_add(&set, &fs);
		CHECK_INT(lb_scan(&set, &l), 0);
		CHECK_INT(l.n, 1);
		CHECK_INT(n_default(&l), 1);
		if (l.n)
			CHECK(strstr(l.v[0].kernel, "vmlinuz-6.5.6-300.fc39.x86_64") != NULL);
		if (t_failed_now)
			dump(&l);
		lb_entries_free(&l);
		lb_fsset_free(&set);
	}
	TEST("scan GRUB blscfg: what the config runs counts, not a mention in a comment") {
		struct lb_fsset set = { 0 };
		struct lb_entries l = LB_ENTRIES_INIT;
		struct lb_fs fs = mkfs("root5", "r00t5", "hd0,gpt2");

		/* no blscfg run: the BLS entries are listed on their own */
		mkfile(fs.dir, "boot/grub2/grub.cfg",
		       "# this system does not use blscfg\n"
		       "if false; then insmod blscfg; blscfg; fi\n"
		       "menuentry Own { linux /boot/vmlinuz-own }\n");
		mkfile(fs.dir, "boot/loader/entries/f.conf", fedora_entry);
		mkfile(fs.dir, "boot/vmlinuz-6.5.6-300.fc39.x86_64", "k");
		mkfile(fs.dir, "boot/vmlinuz-own", "k");
		lb_fsset_add(&set, &fs);
		CHECK_INT(lb_scan(&set, &l), 0);
		CHECK_INT(l.n, 2);
		if (l.n == 2) {
			CHECK_STR(l.v[0].title, "Own");
			CHECK(strstr(l.v[1].kernel, "vmlinuz-6.5.6-300.fc39.x86_64") != NULL);
		}
		if (t_failed_now)
			dump(&l);
		lb_entries_free(&l);
		lb_fsset_free(&set);
	}
	TEST("scan ISO-like: GRUB + isolinux on one fs, GRUB default") {
		struct lb_fsset set = { 0 };
		struct lb_entries l = LB_ENTRIES_INIT;
		struct lb_fs fs = mkfs("iso5", "2023-06-10-10-18-39-00", NULL);

		mkfile(fs.dir, "boot/grub/grub.cfg",
		       "set timeout=5\n"
		       "menuentry 'Graphical install' {\n"
		       "  linux /install.amd/vmlinuz vga=788 --- quiet\n"
		       "  initrd /install.amd/gtk/initrd.gz\n}\n");
		mkfile(fs.dir, "isolinux/isolinux.cfg",
		       "default vesamenu.c32\n"
		       "label install\n menu label ^Install\n kernel /install.amd/vmlinuz\n"
		       " append vga=788 initrd=/install.amd/initrd.gz --- quiet\n"
		       "label gtk\n menu label ^Graphical install\n kernel /install.amd/vmlinuz\n"
		       " append vga=788 initrd=/install.amd/gtk/initrd.gz --- quiet\n");
		lb_fsset_add(&set, &fs);
		CHECK_INT(lb_scan(&set, &l), 0);
		/* the isolinux "gtk" label equals the GRUB entry: dropped */
		CHECK_INT(l.n, 2);
		if (l.n == 2) {
			CHECK_STR(l.v[0].title, "Graphical install");
			CHECK_INT(l.v[0].is_default, 1);
			CHECK_STR(l.v[1].title, "Install");
			CHECK_STR(l.v[1].source, "/isolinux/isolinux.cfg:2");
		}
		CHECK_INT(n_default(&l), 1);
		CHECK_INT(l.timeout, 5);
		if (t_failed_now)
			dump(&l);
		lb_entries_free(&l);
		lb_fsset_free(&set);
	}
	TEST("scan loader.conf default matches ids without boot counter") {
		struct lb_fsset set = { 0 };
		struct lb_entries l = LB_ENTRIES_INIT;
		struct lb_fs fs = mkfs("esp7", "AAAA-0007", NULL);
		long d;

		mkfile(fs.dir, "loader/loader.conf", "default  B.conf \n");
		mkfile(fs.dir, "loader/entries/a+1-2.conf", "linux /k\n");
		mkfile(fs.dir, "loader/entries/b+3.conf", "linux /k\n");
		mkfile(fs.dir, "loader/entries/c.conf", "linux /k\n");
		mkfile(fs.dir, "k", "k");
		lb_fsset_add(&set, &fs);
		CHECK_INT(lb_scan(&set, &l), 0);
		CHECK_INT(l.n, 3);
		d = lb_entries_default(&l);
		CHECK(d >= 0 && !strcmp(l.v[d].id, "b"));
		CHECK_INT(n_default(&l), 1);
		if (t_failed_now)
			dump(&l);
		lb_entries_free(&l);
		lb_fsset_free(&set);
	}
	TEST("scan nothing bootable") {
		struct lb_fsset set = { 0 };
		struct lb_entries l = LB_ENTRIES_INIT;
		struct lb_fs fs = mkfs("empty6", NULL, NULL);

		mkfile(fs.dir, "etc/fstab", "");
		lb_fsset_add(&set, &fs);
		CHECK_INT(lb_scan(&set, &l), 0);
		CHECK_INT(l.n, 0);
		CHECK_INT(l.timeout, -1);
		lb_entries_free(&l);
		lb_fsset_free(&set);
	}
	nftw(tmp, rm1, 16, FTW_DEPTH | FTW_PHYS);
	return t_done();
}
