/* syslinux/extlinux/isolinux/pxelinux configs: real Debian installer menus,
 * Alpine and Arch configs, and the keyword semantics one by one. */
#include <errno.h>
#include <limits.h>

#include "t.h"
#include "syslinux.h"

static int has_msg(const struct lb_entries *l, const char *needle)
{
	for (size_t i = 0; i < l->n_msgs; i++)
		if (strstr(l->msgs[i], needle))
			return 1;
	return 0;
}

static void dump(const struct lb_entries *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct lb_entry *e = &l->v[i];
		printf("#  %zu%s%s %s | %s | %s | %s | %s\n", i, e->is_default ? "*" : "",
		       e->hidden ? "h" : "", e->id, e->title, e->kernel,
		       e->n_initrd ? e->initrd[0] : "-", e->cmdline ? e->cmdline : "-");
	}
	for (size_t i = 0; i < l->n_msgs; i++)
		printf("#  msg: %s\n", l->msgs[i]);
}

static const struct lb_entry *by_id(const struct lb_entries *l, const char *id)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].id, id))
			return &l->v[i];
	return NULL;
}

static const struct lb_entry *def(const struct lb_entries *l)
{
	long d = lb_entries_default(l);
	return d >= 0 ? &l->v[d] : NULL;
}

/* In-memory files for include/config tests. */
struct mem { const char *path, *text; };
static const struct mem *mem_files;

static int mem_read(void *ctx, const char *path, char **buf, size_t *len)
{
	(void)ctx;
	for (const struct mem *m = mem_files; m && m->path; m++)
		if (!strcmp(m->path, path)) {
			*buf = strdup(m->text);
			*len = strlen(m->text);
			return *buf ? 0 : -ENOMEM;
		}
	return -ENOENT;
}

static int parse_mem(const char *cwd, const char *text, struct lb_entries *l)
{
	struct lb_syslinux_opts o = { cwd, mem_read, NULL, "FS" };
	return lb_syslinux_parse(&o, "/cfg", text, strlen(text), l);
}

static int parse_tree(const char *sub, const char *path, const char *cwd,
		      struct lb_entries *l)
{
	char dir[PATH_MAX];
	struct lb_fs fs = { 0 };
	int r;

	snprintf(dir, sizeof(dir), "%s/%s", t_files(), sub);
	fs.dir = dir;
	fs.name = dir;
	fs.label = (char *)"NETBOOT";
	if (!cwd)
		return lb_syslinux_parse_fs(&fs, path, l);
	/* pxelinux-like: working dir given (the TFTP root) */
	{
		char *buf;
		size_t len;
		struct lb_syslinux_opts o = { cwd, NULL, &fs, "NETBOOT" };
		extern int test_fs_read(void *, const char *, char **, size_t *);

		o.read = test_fs_read;
		if ((r = lb_fs_read(&fs, path, 1 << 20, &buf, &len)))
			return r;
		r = lb_syslinux_parse(&o, path, buf, len, l);
		free(buf);
	}
	return r;
}

int test_fs_read(void *ctx, const char *path, char **buf, size_t *len)
{
	return lb_fs_read(ctx, path, 1 << 20, buf, len);
}

int main(void)
{
	TEST("syslinux debian-installer text netboot menus (real files)") {
		struct lb_entries l = LB_ENTRIES_INIT;
		const struct lb_entry *e;

		CHECK_INT(parse_tree("syslinux/debian-installer/text",
				     "/pxelinux.cfg/default", "/", &l), 0);
		e = by_id(&l, "install");
		CHECK(e != NULL);
		if (e) {
			CHECK_STR(e->title, "Install");
			CHECK_STR(e->kernel, "/debian-installer/amd64/linux");
			CHECK_INT(e->n_initrd, 1);
			CHECK_STR(e->initrd[0], "/debian-installer/amd64/initrd.gz");
			/* ldlinux: BOOT_IMAGE= first, initrd= kept where it stands */
			CHECK_STR(e->cmdline, "BOOT_IMAGE=debian-installer/amd64/linux vga=788 initrd=debian-installer/amd64/initrd.gz --- quiet ");
			CHECK_STR(e->fs, "NETBOOT");
			CHECK_STR(e->source, "/debian-installer/amd64/boot-screens/txt.cfg:1");
		}
		e = by_id(&l, "expert");
		CHECK(e && !strcmp(e->title, "Advanced options > Expert install"));
		CHECK(e && !strcmp(e->cmdline, "BOOT_IMAGE=debian-installer/amd64/linux priority=low vga=788 initrd=debian-installer/amd64/initrd.gz --- "));
		e = by_id(&l, "rescue");
		CHECK(e && !strcmp(e->title, "Advanced options > Rescue mode"));
		CHECK(e && !strcmp(e->cmdline, "BOOT_IMAGE=debian-installer/amd64/linux vga=788 initrd=debian-installer/amd64/initrd.gz rescue/enable=true --- quiet "));
		e = by_id(&l, "auto");
		CHECK(e && !strcmp(e->title, "Advanced options > Automated install"));
		e = by_id(&l, "installdark");
		CHECK(e && !strcmp(e->title, "Accessible dark contrast installer menu > Install"));
		CHECK(e && !strcmp(e->cmdline, "BOOT_IMAGE=debian-installer/amd64/linux vga=788 initrd=debian-installer/amd64/initrd.gz theme=dark --- quiet "));
		e = by_id(&l, "expertdark");
		CHECK(e && !strcmp(e->title, "Accessible dark contrast installer menu > Advanced options > Expert install"));
		/* install, expert, rescue, auto, installdark, expertdark,
		 * rescuedark, autodark; 'Back..', 'Help' are no entries */
		CHECK_INT(l.n, 8);
		CHECK(by_id(&l, "mainmenu") == NULL && by_id(&l, "help") == NULL);
		/* DEFAULT is vesamenu.c32 (a menu), the top level has no MENU
		 * DEFAULT (drk.cfg's is inside a submenu): first entry */
		CHECK(def(&l) && !strcmp(def(&l)->id, "install"));
		CHECK_INT(l.timeout, -1); /* timeout 0 with a menu: waits */
		CHECK(has_msg(&l, "include /debian-installer/amd64/boot-screens/gtk.cfg"));
		CHECK(has_msg(&l, "label help: loads config"));
		if (t_failed_now)
			dump(&l);
		lb_entries_free(&l);
	}
	TEST("syslinux debian-installer gtk: ONTIMEOUT speech install") {
		struct lb_entries l = LB_ENTRIES_INIT;
		const struct lb_entry *e;

		CHECK_INT(parse_tree("syslinux/debian-installer/gtk",
				     "/pxelinux.cfg/default", "/", &l), 0);
		e = by_id(&l, "installspk");
		CHECK(e && !strcmp(e->title, "Install with speech synthesis"));
		/* spk.cfg: timeout 300 + ontimeout <that command line> */
		CHECK(def(&l) == e);
		CHECK_INT(l.timeout, 30);
		e = by_id(&l, "expertspk");
		/* adspk.cfg is included inside the "advanced" submenu */
		CHECK(e && !strcmp(e->title, "Advanced options > Speech-enabled advanced options > Expert speech install"));
		if (t_failed_now)
			dump(&l);
		lb_entries_free(&l);
	}
	TEST("syslinux Alpine extlinux.conf") {
		struct lb_entries l = LB_ENTRIES_INIT;

		CHECK_INT(parse_tree("syslinux/alpine", "/boot/extlinux.conf", NULL, &l), 0);
		CHECK_INT(l.n, 1);
		if (l.n) {
			CHECK_STR(l.v[0].title, "Linux lts");
			CHECK_STR(l.v[0].kernel, "/boot/vmlinuz-lts");
			CHECK_STR(l.v[0].initrd[0], "/boot/initramfs-lts");
			CHECK_INT(l.v[0].is_default, 1);
			CHECK(strstr(l.v[0].cmdline, "modules=sd-mod,usb-storage,ext4") != NULL);
		}
		CHECK_INT(l.timeout, 3);
		lb_entries_free(&l);
	}
	TEST("syslinux Arch syslinux.cfg (../ paths, COM32 skipped)") {
		struct lb_entries l = LB_ENTRIES_INIT;

		CHECK_INT(parse_tree("syslinux/arch", "/boot/syslinux/syslinux.cfg", NULL, &l), 0);
		CHECK_INT(l.n, 2);
		if (l.n == 2) {
			CHECK_STR(l.v[0].id, "arch");
			CHECK_STR(l.v[0].kernel, "/boot/syslinux/../vmlinuz-linux");
			CHECK_STR(l.v[0].initrd[0], "/boot/syslinux/../initramfs-linux.img");
			CHECK_STR(l.v[0].cmdline, "BOOT_IMAGE=../vmlinuz-linux root=/dev/sda3 rw initrd=../initramfs-linux.img");
			CHECK_INT(l.v[0].is_default, 1);
			CHECK_STR(l.v[1].title, "Arch Linux Fallback");
		}
		CHECK(has_msg(&l, "hdt.c32 is not a Linux kernel"));
		CHECK_INT(l.timeout, 5);
		lb_entries_free(&l);
	}
	TEST("syslinux append inheritance, append -, initrd= and INITRD") {
		struct lb_entries l = LB_ENTRIES_INIT;

		CHECK_INT(parse_mem("/isolinux",
			"APPEND console=ttyS0\n"
			"label a\n kernel vmlinuz\n"
			"label b\n kernel /vmlinuz\n append -\n"
			"label c\n linux ::boot/vmlinuz\n append x=1 initrd=i1.gz,/i2.gz y=2\n"
			"label d\n kernel vmlinuz\n initrd one.img,two.img\n append initrd=three.img z\n", &l), 0);
		CHECK_INT(l.n, 4);
		if (l.n == 4) {
			CHECK_STR(l.v[0].kernel, "/isolinux/vmlinuz");
			/* the global APPEND in force when the label ends */
			CHECK_STR(l.v[0].cmdline, "BOOT_IMAGE=vmlinuz console=ttyS0");
			/* "BOOT_IMAGE=%s %s" with no arguments: the space stays */
			CHECK_STR(l.v[1].cmdline, "BOOT_IMAGE=/vmlinuz ");
			CHECK_STR(l.v[1].kernel, "/vmlinuz");
			CHECK_STR(l.v[2].kernel, "/boot/vmlinuz");
			CHECK_STR(l.v[2].cmdline, "BOOT_IMAGE=::boot/vmlinuz x=1 initrd=i1.gz,/i2.gz y=2");
			CHECK_INT(l.v[2].n_initrd, 2);
			CHECK_STR(l.v[2].initrd[0], "/isolinux/i1.gz");
			CHECK_STR(l.v[2].initrd[1], "/i2.gz");
			/* APPEND's initrd= comes first in the line; ldlinux loads
			 * the first initrd= list only */
			CHECK_INT(l.v[3].n_initrd, 1);
			CHECK_STR(l.v[3].initrd[0], "/isolinux/three.img");
			CHECK_STR(l.v[3].cmdline, "BOOT_IMAGE=vmlinuz initrd=three.img z initrd=one.img,two.img");
			CHECK_INT(l.v[0].is_default, 1); /* no DEFAULT: first */
			CHECK_STR(l.v[0].fs, "FS");
		}
		CHECK_INT(l.timeout, 0); /* no prompt, no menu: boots at once */
		if (t_failed_now)
			dump(&l);
		lb_entries_free(&l);
	}
	TEST("syslinux default label, localboot, linux.c32, hide, text") {
		struct lb_entries l = LB_ENTRIES_INIT;

		CHECK_INT(parse_mem("/",
			"DEFAULT second\nPROMPT 1\nTIMEOUT 15\n"
			"label local\n localboot 0x80\n"
			"label first\n menu label ^First\n kernel k1\n"
			"   text help\n  kernel notakernel\n  endtext\n"
			"label second\n kernel k2\n menu hide\n"
			"label viac32\n com32 linux.c32\n append /vmlinuz initrd=/i.img quiet\n"
			"label chain\n com32 chain.c32\n append hd0\n"
			"label flop\n kernel memtest.bin\n", &l), 0);
		CHECK_INT(l.n, 3);
		if (l.n == 3) {
			CHECK_STR(l.v[0].title, "First");
			CHECK_STR(l.v[0].kernel, "/k1");
			CHECK_INT(l.v[1].hidden, 1);
			CHECK_INT(l.v[1].is_default, 1);
			CHECK_STR(l.v[2].kernel, "/vmlinuz");
			CHECK_STR(l.v[2].initrd[0], "/i.img");
			CHECK_STR(l.v[2].cmdline, "quiet");
		}
		CHECK(has_msg(&l, "label local: localboot"));
		CHECK(has_msg(&l, "chain.c32 is not a Linux kernel"));
		CHECK(has_msg(&l, "memtest.bin is not a Linux kernel"));
		CHECK_INT(l.timeout, 2);
		if (t_failed_now)
			dump(&l);
		lb_entries_free(&l);
	}
	TEST("syslinux IPAPPEND/SYSAPPEND: global inherited by labels, a label's own wins") {
		struct lb_entries l = LB_ENTRIES_INIT;

		/* as readconfig.c: a keyword after LABEL belongs to that label
		 * (until the next LABEL), so a global one comes first */
		CHECK_INT(parse_mem("/",
			"IPAPPEND 1\n"
			"label a\n kernel /k\n"
			"label b\n kernel /k\n ipappend 2\n SYSAPPEND 0x4\n"
			"label c\n kernel /k\n sysappend 03\n"
			"label d\n kernel /k\n", &l), 0);
		CHECK_INT(l.n, 4);
		if (l.n == 4) {
			CHECK_INT(l.v[0].sysappend, 1);  /* the global one */
			CHECK_INT(l.v[1].sysappend, 4);  /* its own, the last, hex */
			CHECK_INT(l.v[2].sysappend, 3);  /* octal 03 (strtoul base 0) */
			CHECK_INT(l.v[3].sysappend, 1);  /* the global again */
			CHECK_STR(l.v[0].cmdline, "BOOT_IMAGE=/k ");
		}
		lb_entries_free(&l);
	}
	TEST("syslinux APPEND keeps its blanks; the first initrd= list is loaded") {
		struct lb_entries l = LB_ENTRIES_INIT;

		CHECK_INT(parse_mem("/",
			"label a\n kernel /k\n append  x=1   y=2  \r\n"
			"label b\n kernel /k\n append rd.xinitrd=no initrd=/a,/b z initrd=/c\n", &l), 0);
		CHECK_INT(l.n, 2);
		if (l.n == 2) {
			CHECK_STR(l.v[0].cmdline, "BOOT_IMAGE=/k x=1   y=2  ");
			/* ldlinux finds "initrd=" with strstr: inside a word too */
			CHECK_INT(l.v[1].n_initrd, 1);
			CHECK_STR(l.v[1].initrd[0], "/no");
		}
		lb_entries_free(&l);
	}
	TEST("syslinux default command line, menu default, ui") {
		struct lb_entries l = LB_ENTRIES_INIT;

		CHECK_INT(parse_mem("/",
			"DEFAULT /vmlinuz root=/dev/sda1\n"
			"label a\n kernel /other\n", &l), 0);
		CHECK_INT(l.n, 2);
		if (l.n == 2) {
			CHECK_INT(l.v[1].is_default, 1);
			CHECK_STR(l.v[1].kernel, "/vmlinuz");
			CHECK_STR(l.v[1].cmdline, "BOOT_IMAGE=/vmlinuz root=/dev/sda1");
		}
		lb_entries_free(&l);
		CHECK_INT(parse_mem("/",
			"UI menu.c32\nDEFAULT a\n"
			"label a\n kernel /a\n"
			"menu begin sub\n label s\n kernel /s\n menu default\nmenu end\n"
			"label b\n kernel /b\n menu default\n", &l), 0);
		CHECK_INT(l.n, 3);
		CHECK(def(&l) && !strcmp(def(&l)->id, "b"));
		CHECK(by_id(&l, "s") && !strcmp(by_id(&l, "s")->title, "sub > s"));
		CHECK_INT(l.timeout, -1);
		lb_entries_free(&l);
	}
	TEST("syslinux DEFAULT naming a localboot label") {
		struct lb_entries l = LB_ENTRIES_INIT;

		CHECK_INT(parse_mem("/",
			"DEFAULT local\nlabel linux\n kernel /vmlinuz\n"
			"label local\n localboot 0\n", &l), 0);
		CHECK_INT(l.n, 1);
		CHECK(def(&l) && !strcmp(def(&l)->id, "linux"));
		CHECK(has_msg(&l, "default label local boots nothing"));
		lb_entries_free(&l);
	}
	TEST("syslinux IMPLICIT 0: a DEFAULT naming no label boots no kernel of that name") {
		struct lb_entries l = LB_ENTRIES_INIT;

		/* u-root's test data: DEFAULT boot with no label boot */
		CHECK_INT(parse_mem("/",
			"IMPLICIT 0\nDEFAULT boot\nlabel linux\n kernel /vmlinuz\n"
			"label other\n kernel /other\n", &l), 0);
		dump(&l);
		CHECK_INT(l.n, 2);
		CHECK(!by_id(&l, "boot"));
		for (size_t i = 0; i < l.n; i++)
			CHECK(strcmp(l.v[i].kernel, "/boot") && strcmp(l.v[i].kernel, "boot"));
		CHECK(def(&l) && !strcmp(def(&l)->id, "linux"));
		CHECK(has_msg(&l, "default boot names no label and IMPLICIT 0"));
		lb_entries_free(&l);
		/* a label still boots; IMPLICIT 1 (the default) runs the kernel */
		CHECK_INT(parse_mem("/",
			"IMPLICIT 0\nDEFAULT other\nlabel linux\n kernel /vmlinuz\n"
			"label other\n kernel /other\n", &l), 0);
		CHECK(def(&l) && !strcmp(def(&l)->id, "other"));
		lb_entries_free(&l);
		CHECK_INT(parse_mem("/",
			"IMPLICIT 1\nDEFAULT boot\nlabel linux\n kernel /vmlinuz\n", &l), 0);
		CHECK_INT(l.n, 2);
		CHECK(def(&l) && !strcmp(def(&l)->kernel, "/boot"));
		lb_entries_free(&l);
	}
	TEST("syslinux include, config switch, depth caps") {
		static const struct mem files[] = {
			{ "/isolinux/inc.cfg", "label inc\n kernel vmlinuz-inc\n" },
			{ "/isolinux/loop.cfg", "include loop.cfg\nlabel x\n kernel /x\n" },
			{ "/other/new.cfg", "label n\n kernel vmlinuz-new\ndefault n\n" },
			{ "/isolinux/sw.cfg", "config sw.cfg\n" },
			{ "/isolinux/two.cfg", "include two.cfg\ninclude two.cfg\n" },
			{ NULL, NULL },
		};
		struct lb_entries l = LB_ENTRIES_INIT;

		mem_files = files;
		CHECK_INT(parse_mem("/isolinux",
			"label a\n kernel /a\ninclude inc.cfg\ninclude missing.cfg\n", &l), 0);
		CHECK_INT(l.n, 2);
		CHECK(by_id(&l, "inc") && !strcmp(by_id(&l, "inc")->kernel, "/isolinux/vmlinuz-inc"));
		CHECK(has_msg(&l, "include /isolinux/missing.cfg"));
		lb_entries_free(&l);
		CHECK_INT(parse_mem("/isolinux", "include loop.cfg\n", &l), 0);
		CHECK(has_msg(&l, "nested too deep"));
		CHECK(l.n >= 1);
		lb_entries_free(&l);
		/* CONFIG FILE DIR: restart there, earlier labels dropped */
		CHECK_INT(parse_mem("/isolinux",
			"label old\n kernel /old\n"
			"menu end\nconfig /other/new.cfg /other\n", &l), 0);
		CHECK_INT(l.n, 1);
		if (l.n) {
			CHECK_STR(l.v[0].id, "n");
			CHECK_STR(l.v[0].kernel, "/other/vmlinuz-new");
			CHECK_STR(l.v[0].source, "/other/new.cfg:1");
		}
		lb_entries_free(&l);
		CHECK_INT(parse_mem("/isolinux", "include two.cfg\n", &l), 0);
		CHECK(has_msg(&l, "too many files"));
		lb_entries_free(&l);
		CHECK_INT(parse_mem("/isolinux", "config sw.cfg\n", &l), 0);
		CHECK(has_msg(&l, "too many switches"));
		CHECK_INT(l.n, 0);
		lb_entries_free(&l);
		mem_files = NULL;
	}
	TEST("syslinux odd input") {
		struct lb_entries l = LB_ENTRIES_INIT;
		static const char nul[] = "label a\0b\n kernel /k\0x\n";

		CHECK_INT(parse_mem("/", "", &l), 0);
		CHECK_INT(l.n, 0);
		CHECK_INT(parse_mem("/", "menu end\nmenu end\nkernel /x\nlabel\nlabel y\n", &l), 0);
		CHECK_INT(l.n, 0);
		{
			struct lb_syslinux_opts o = { NULL, NULL, NULL, NULL };
			CHECK_INT(lb_syslinux_parse(&o, "n", nul, sizeof(nul) - 1, &l), 0);
			CHECK_INT(l.n, 1);
		}
		lb_entries_free(&l);
	}
	return t_done();
}
