/* Boot order by policy (src/storage/order.c) over a fake sysfs: internal
 * before removable, then the hardware path, never the /dev name;
 * lboot.order= tokens. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "order.h"
#include "t.h"

static char tmpd[128];

static void mkp(const char *rel)
{
	char p[600], cmd[700];

	snprintf(p, sizeof(p), "%s/%s", tmpd, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", p);
	if (system(cmd))
		printf("# mkdir %s failed\n", p);
}

static void put(const char *rel, const char *s)
{
	char p[600];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", tmpd, rel);
	if ((f = fopen(p, "w"))) {
		fputs(s, f);
		fclose(f);
	}
}

/* a disk DEV at devices/PATH/block/DEV with partition DEV PART (name) */
static void disk(const char *path, const char *dev, const char *part, int removable)
{
	char rel[400], link[400], tgt[500];

	snprintf(rel, sizeof(rel), "devices/%s/block/%s/%s", path, dev, part);
	mkp(rel);
	snprintf(rel, sizeof(rel), "devices/%s/block/%s/%s/partition", path, dev, part);
	put(rel, "1\n");
	snprintf(rel, sizeof(rel), "devices/%s/block/%s/removable", path, dev);
	put(rel, removable ? "1\n" : "0\n");
	snprintf(link, sizeof(link), "%s/class/block/%s", tmpd, part);
	snprintf(tgt, sizeof(tgt), "../../devices/%s/block/%s/%s", path, dev, part);
	if (symlink(tgt, link))
		printf("# symlink %s failed\n", link);
}

static struct lb_fs F(const char *name, const char *uuid)
{
	struct lb_fs f = { .name = (char *)name, .uuid = (char *)uuid };
	return f;
}

static void names(const struct lb_fsset *s, char *out, size_t n)
{
	out[0] = 0;
	for (size_t i = 0; i < s->n; i++) {
		size_t l = strlen(out);
		snprintf(out + l, n - l, "%s%s", i ? " " : "", s->v[i].name + 5);
	}
}

int main(void)
{
	char sys[200], got[256];
	struct lb_fs v[5];
	struct lb_fsset set = { .v = v, .n = 5 };

	snprintf(tmpd, sizeof(tmpd), "/tmp/lboot-test-order.XXXXXX");
	if (!mkdtemp(tmpd))
		return 1;
	mkp("class/block");
	snprintf(sys, sizeof(sys), "%s/class/block", tmpd);
	/* sda: a USB stick (named first by the kernel), sdb: a SATA disk,
	 * nvme0n1: NVMe at 00:05, vda: virtio at 00:03, sr0: optical */
	disk("pci0000:00/0000:00:1d.0/usb1/1-1/1-1:1.0/host6/target6:0:0/6:0:0:0", "sda", "sda1", 1);
	disk("pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0", "sdb", "sdb1", 0);
	disk("pci0000:00/0000:00:05.0/nvme/nvme0", "nvme0n1", "nvme0n1p1", 0);
	disk("pci0000:00/0000:00:03.0/virtio1", "vda", "vda1", 0);
	disk("pci0000:00/0000:00:1f.2/ata2/host1/target1:0:0/1:0:0:0", "sr0", "sr0p1", 1);

	TEST("classes from sysfs") {
		int rem;
		char path[512];
		struct lb_fs f = F("/dev/sda1", NULL);

		CHECK_STR(lb_order_class(sys, &f, &rem, path, sizeof(path)), "usb");
		CHECK_INT(rem, 1);
		CHECK(strstr(path, "/usb1/1-1/") && !strstr(path, "/block/"));
		f = F("/dev/sdb1", NULL);
		CHECK_STR(lb_order_class(sys, &f, &rem, path, sizeof(path)), "ata");
		CHECK_INT(rem, 0);
		f = F("/dev/nvme0n1p1", NULL);
		CHECK_STR(lb_order_class(sys, &f, &rem, path, sizeof(path)), "nvme");
		f = F("/dev/vda1", NULL);
		CHECK_STR(lb_order_class(sys, &f, &rem, path, sizeof(path)), "virtio");
		f = F("/dev/nope1", NULL);
		CHECK_STR(lb_order_class(sys, &f, &rem, path, sizeof(path)), "other");
		CHECK_STR(path, "");
	}
	TEST("default: internal by hardware path, then removable; names do not decide") {
		v[0] = F("/dev/sda1", "u-usb");
		v[1] = F("/dev/sdb1", "u-sata");
		v[2] = F("/dev/nvme0n1p1", "u-nvme");
		v[3] = F("/dev/sr0p1", "u-cd");
		v[4] = F("/dev/vda1", "u-virtio");
		CHECK_INT(lb_order_sort(&set, NULL, sys), 0);
		names(&set, got, sizeof(got));
		/* 00:03 virtio, 00:05 nvme, 00:1f.2 ata1; then 00:1d usb, 00:1f.2 ata2 cd */
		CHECK_STR(got, "vda1 nvme0n1p1 sdb1 sda1 sr0p1");
	}
	TEST("lboot.order tokens") {
		CHECK_INT(lb_order_sort(&set, "usb,nvme", sys), 0);
		names(&set, got, sizeof(got));
		CHECK_STR(got, "sda1 nvme0n1p1 vda1 sdb1 sr0p1");
		CHECK_INT(lb_order_sort(&set, "uuid=U-SATA,removable", sys), 0);
		names(&set, got, sizeof(got));
		CHECK_STR(got, "sdb1 sda1 sr0p1 vda1 nvme0n1p1");
		CHECK_INT(lb_order_sort(&set, "net,cd", sys), 1);
		names(&set, got, sizeof(got));
		CHECK_STR(got, "sr0p1 vda1 nvme0n1p1 sdb1 sda1");
		CHECK_INT(lb_order_sort(&set, "usb,floppy", sys), -EINVAL);
		names(&set, got, sizeof(got));
		CHECK_STR(got, "vda1 nvme0n1p1 sdb1 sda1 sr0p1");
	}
	{
		char cmd[200];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpd);
		if (system(cmd))
			printf("# cannot remove %s\n", tmpd);
	}
	return t_done();
}
