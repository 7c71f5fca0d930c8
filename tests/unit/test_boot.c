/* Boot path pieces that run without devices or root: device name order,
 * sysfs enumeration on a fake tree, lboot.* option parsing, default
 * selection, initrd concatenation and kexec dry runs on a directory fs. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <limits.h>
#include <time.h>
#include <unistd.h>

#include "discover.h"
#include "init.h"
#include "hash.h"
#include "kexec.h"
#include "menu.h"
#include "t.h"

static char tmpd[256];

static void put(const char *rel, const void *data, size_t len)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", tmpd, rel);
	f = fopen(p, "wb");
	if (f) {
		fwrite(data, 1, len, f);
		fclose(f);
	}
}

static void putstr(const char *rel, const char *s)
{
	put(rel, s, strlen(s));
}

static void mk(const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", tmpd, rel);
	mkdir(p, 0755);
}

static void rm_rf(const char *d)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
	if (system(cmd))
		printf("# cannot remove %s\n", d);
}

/* a fake block device: DIR/NAME with size, dev, [partition] */
static void fakedev(const char *dir, const char *name, const char *size,
		    const char *part)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	mk(p);
	snprintf(p, sizeof(p), "%s/%s/size", dir, name);
	putstr(p, size);
	snprintf(p, sizeof(p), "%s/%s/dev", dir, name);
	putstr(p, "254:0\n");
	if (part) {
		snprintf(p, sizeof(p), "%s/%s/partition", dir, name);
		putstr(p, part);
	}
}

/* sysfs/class/block/NAME -> ../../devices/DISK[/NAME] like the kernel */
static void link_dev(const char *name, const char *target)
{
	char p[512], t[512];

	snprintf(p, sizeof(p), "%s/sys/%s", tmpd, name);
	snprintf(t, sizeof(t), "../devices/%s", target);
	if (symlink(t, p))
		printf("# symlink %s failed\n", p);
}


/* an HTTP server on 127.0.0.1 that promises 4 MiB and closes after 2 MiB;
 * its port in *port, its pid returned */
static pid_t short_http(unsigned *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	int s = socket(AF_INET, SOCK_STREAM, 0);
	pid_t pid;

	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 1) ||
	    getsockname(s, (struct sockaddr *)&a, &al))
		return -1;
	*port = ntohs(a.sin_port);
	if ((pid = fork()) == 0) {
		static char buf[65536];
		const char *h = "HTTP/1.1 200 OK\r\nContent-Length: 4194304\r\n\r\n";
		int c = accept(s, NULL, NULL);

		if (c < 0)
			_exit(1);
		(void)!read(c, buf, sizeof(buf));
		(void)!write(c, h, strlen(h));
		for (int i = 0; i < 32; i++)
			if (write(c, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
				_exit(1);
		_exit(0);
	}
	close(s);
	return pid;
}

/* an HTTP server on 127.0.0.1 that answers n requests with body, with a
 * Content-Length or (chunked) without; its pid returned */
static pid_t body_http(unsigned *port, const char *body, size_t len, int chunked, int n)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	int s = socket(AF_INET, SOCK_STREAM, 0);
	pid_t pid;

	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 4) ||
	    getsockname(s, (struct sockaddr *)&a, &al))
		return -1;
	*port = ntohs(a.sin_port);
	if ((pid = fork()) == 0) {
		char req[4096], h[160];

		for (int i = 0; i < n; i++) {
			int c = accept(s, NULL, NULL);

			if (c < 0)
				_exit(1);
			(void)!read(c, req, sizeof(req));
			if (chunked) {
				snprintf(h, sizeof(h), "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
					 "Connection: close\r\n\r\n%zx\r\n", len);
				(void)!write(c, h, strlen(h));
				(void)!write(c, body, len);
				(void)!write(c, "\r\n0\r\n\r\n", 7);
			} else {
				snprintf(h, sizeof(h), "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n"
					 "Connection: close\r\n\r\n", len);
				(void)!write(c, h, strlen(h));
				(void)!write(c, body, len);
			}
			close(c);
		}
		_exit(0);
	}
	close(s);
	return pid;
}

/* the newc header iPXE puts before "abc" wrapped as /etc/x.conf mode=0600
 * (src/core/cpio.c: every field 8 hex digits, mode 0100600, nlink 1, size
 * 3, namesize 12; name, NUL, zeros to 4 bytes: 124 bytes) */
static const char x_conf_hdr[] =
	"070701" "00000000" "00008180" "00000000" "00000000" "00000001" "00000000"
	"00000003" "00000000" "00000000" "00000000" "00000000" "0000000c" "00000000"
	"/etc/x.conf\0\0\0";

/* the menu's 'u' with a fake update source: nfiles files, what check
 * and write answer, and how often each was asked */
struct upd_fake {
	int nfiles, check_rc, write_rc;
	int checks, writes;
	size_t check_i, write_i;
};

struct reseal_fake {
	int rc, runs;
};

static int reseal_run(void *arg, char *text, size_t cap)
{
	struct reseal_fake *f = arg;

	f->runs++;
	if (f->rc)
		snprintf(text, cap, "lboot: TOTP not resealed: NV_Write: TPM_RC_NV_LOCKED; "
			 "the old sealed secret is unchanged");
	else
		snprintf(text, cap, "lboot: TOTP resealed to sha256 PCRs 0,2 in NV 0x01500010; "
			 "add the new secret to the authenticator app:\notpauth://totp/x\n"
			 "TOTP 123456 (valid 17 s)\n");
	return f->rc;
}

static size_t upd_find(void *arg, char (*names)[LB_MENU_UPD_NAME], size_t max)
{
	struct upd_fake *f = arg;
	static const char *const v[] = { "/dev/vdz1:/EFI/lboot/update.lbu", "https://fw.example/u.lbu" };
	size_t n = 0;

	for (; n < (size_t)f->nfiles && n < max && n < 2; n++)
		snprintf(names[n], LB_MENU_UPD_NAME, "%s", v[n]);
	return n;
}

static int upd_run(void *arg, size_t i, int wr, char *line, size_t linesz)
{
	struct upd_fake *f = arg;

	if (!wr) {
		f->checks++;
		f->check_i = i;
		if (f->check_rc == 1)
			snprintf(line, linesz, "version 2 is the running firmware's: nothing to do");
		else if (f->check_rc)
			snprintf(line, linesz, "refused: the signature: bad signature");
		else
			snprintf(line, linesz, "version 2 (v2) may be written to /dev/mtd0");
		return f->check_rc;
	}
	f->writes++;
	f->write_i = i;
	if (f->write_rc)
		snprintf(line, linesz, "refused: writing the block at 0x12000: %s", strerror(-f->write_rc));
	else
		snprintf(line, linesz, "version 2 (v2) written");
	return f->write_rc;
}

int main(void)
{
	snprintf(tmpd, sizeof(tmpd), "/tmp/lboot-test-boot.XXXXXX");
	if (!mkdtemp(tmpd))
		return 1;

	TEST("device name order") {
		CHECK(lb_devname_cmp("sda", "sdb") < 0);
		CHECK(lb_devname_cmp("sdz", "sdaa") < 0);
		CHECK(lb_devname_cmp("vda2", "vda10") < 0);
		CHECK(lb_devname_cmp("nvme0n1", "nvme1n1") < 0);
		CHECK(lb_devname_cmp("nvme0n1p9", "nvme0n1p10") < 0);
		CHECK(lb_devname_cmp("vda", "vda") == 0);
		CHECK(lb_devname_cmp("vda", "vda1") < 0);
		CHECK(lb_devname_cmp("vdb", "vda") > 0);
		CHECK(lb_devname_cmp("sr01", "sr1") == 0);
	}

	TEST("sysfs enumeration: disks by name, partitions by number") {
		char sys[300];
		struct lb_blkdev *v = NULL;
		size_t n = 0;

		mk("sys");
		mk("devices");
		snprintf(sys, sizeof(sys), "devices");
		/* built in an order the result must not depend on */
		fakedev(sys, "vdb", "2048\n", NULL);
		fakedev(sys, "vdb/vdb10", "100\n", "10\n");
		fakedev(sys, "vdb/vdb2", "100\n", "2\n");
		fakedev(sys, "vda", "4096\n", NULL);
		fakedev(sys, "vda/vda1", "100\n", "1\n");
		fakedev(sys, "ram0", "8192\n", NULL);
		fakedev(sys, "loop0", "0\n", NULL);
		fakedev(sys, "sr0", "0\n", NULL);
		fakedev(sys, "sr1", "2048\n", NULL);
		fakedev(sys, "vdc", "64\n", NULL);
		link_dev("vdb10", "vdb/vdb10");
		link_dev("vdb2", "vdb/vdb2");
		link_dev("vdb", "vdb");
		link_dev("vdc", "vdc");
		link_dev("vda1", "vda/vda1");
		link_dev("vda", "vda");
		link_dev("ram0", "ram0");
		link_dev("loop0", "loop0");
		link_dev("sr0", "sr0");
		link_dev("sr1", "sr1");
		snprintf(sys, sizeof(sys), "%s/sys", tmpd);
		CHECK_INT(lb_discover_list(sys, &v, &n), 0);
		CHECK_INT(n, 7);
		if (n == 7) {
			static const char *names[] = { "sr1", "vda", "vda1", "vdb", "vdb2", "vdb10", "vdc" };
			static const unsigned idx[] = { 0, 0, 0, 1, 1, 1, 2 }, part[] = { 0, 0, 1, 0, 2, 10, 0 };
			v++; /* checked below */
			CHECK_INT(v[-1].is_cd, 1);
			CHECK_INT(v[0].is_cd, 0);
			for (size_t i = 0; i < 6; i++) {
				CHECK_STR(v[i].name, names[i + 1]);
				CHECK_INT(v[i].disk_idx, idx[i + 1]);
				CHECK_INT(v[i].partno, part[i + 1]);
			}
			CHECK_STR(v[4].disk, "vdb");
			CHECK_INT(v[0].has_parts, 1);
			CHECK_INT(v[5].has_parts, 0);
			CHECK_INT(v[0].size, 4096);
			CHECK_INT(v[0].dev_major, 254);
			v--;
		}
		free(v);
		/* a stable set with disks returns at once after stable_ms */
		CHECK_INT(lb_discover_wait(sys, 5000, 200), 7);
		{
			/* a USB mass-storage interface whose disk is not there yet
			 * keeps the wait going to its bound; once its disk shows
			 * up under it, the wait ends after stable_ms */
			char p[PATH_MAX], cmd[PATH_MAX + 32];
			struct timespec a, b;
			long ms;

			snprintf(p, sizeof(p), "%s/bus/usb/drivers/usb-storage/1-1:1.0/host0/target0:0:0/0:0:0:0", sys);
			snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", p);
			CHECK_INT(system(cmd), 0);
			clock_gettime(CLOCK_MONOTONIC, &a);
			CHECK_INT(lb_discover_wait(sys, 700, 100), 7);
			clock_gettime(CLOCK_MONOTONIC, &b);
			ms = (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
			CHECK(ms >= 650);
			snprintf(cmd, sizeof(cmd), "mkdir -p '%s/block/sdb'", p);
			CHECK_INT(system(cmd), 0);
			clock_gettime(CLOCK_MONOTONIC, &a);
			CHECK_INT(lb_discover_wait(sys, 5000, 100), 7);
			clock_gettime(CLOCK_MONOTONIC, &b);
			ms = (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
			CHECK(ms < 4000);
			/* an NVMe controller still resetting counts as on its way */
			snprintf(cmd, sizeof(cmd), "mkdir -p '%s/class/nvme/nvme0' && echo resetting > '%s/class/nvme/nvme0/state'", sys, sys);
			CHECK_INT(system(cmd), 0);
			clock_gettime(CLOCK_MONOTONIC, &a);
			lb_discover_wait(sys, 500, 100);
			clock_gettime(CLOCK_MONOTONIC, &b);
			ms = (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
			CHECK(ms >= 450);
			snprintf(cmd, sizeof(cmd), "rm -rf '%s/bus' '%s/class'", sys, sys);
			CHECK_INT(system(cmd), 0);
		}
		snprintf(sys, sizeof(sys), "%s/nonexistent", tmpd);
		CHECK_INT(lb_discover_list(sys, &v, &n), -ENOENT);
		/* no disks at all: waits for the bound, not longer */
		CHECK_INT(lb_discover_wait(sys, 300, 100), 0);
	}

	TEST("lboot.* command line options") {
		struct lb_boot_opts o;

		lb_boot_opts_init(&o);
		CHECK_INT(o.timeout, -1);
		CHECK_INT(o.wait, LB_DEFAULT_WAIT);
		CHECK_INT(lb_boot_parse_cmdline("console=ttyS0 lboot.timeout=0 quiet lboot.wait=12 "
						"lboot.default=\"my entry\" lboot.debug\n", &o), 4);
		CHECK_INT(o.timeout, 0);
		CHECK_INT(o.wait, 12);
		CHECK_STR(o.default_sel, "my entry");
		CHECK_INT(o.debug, 1);
		CHECK_INT(o.settle_ms, 0);
		CHECK_INT(lb_boot_parse_cmdline("lboot.settle=1500 lboot.settle=x", &o), 1);
		CHECK_INT(o.settle_ms, 1500);
		lb_boot_opts_init(&o);
		CHECK_INT(lb_boot_parse_cmdline("lboot.timeout=-1 lboot.timeout=x lboot.wait= "
						"lboot.timeout=99999999999 lboot.timeoutx=3", &o), 0);
		CHECK_INT(o.timeout, -1);
		CHECK_INT(lb_boot_parse_cmdline("", &o), 0);
		CHECK_INT(lb_boot_parse_cmdline(NULL, &o), 0);
		/* lboot.boot=net: network boot always, before the disks */
		lb_boot_opts_init(&o);
		CHECK_INT(lb_boot_parse_cmdline("lboot.boot=net lboot.boot=disk lboot.boot=", &o), 1);
		CHECK_STR(o.net, "on");
		CHECK_STR(o.order, "net");
		lb_boot_opts_init(&o);
		CHECK_INT(lb_boot_parse_cmdline("lboot.order=usb,nvme lboot.boot=net", &o), 2);
		CHECK_STR(o.order, "net,usb,nvme");
		CHECK_INT(lb_boot_parse_cmdline("lboot.boot=net", &o), 1);
		CHECK_STR(o.order, "net,usb,nvme");
		CHECK_INT(lb_boot_parse_cmdline("lboot.vlan=0 lboot.vlan=4095 lboot.vlan=x lboot.vlan=", &o), 0);
		CHECK_INT(o.vlan, 0);
		CHECK_INT(lb_boot_parse_cmdline("lboot.vlan=100", &o), 1);
		CHECK_INT(o.vlan, 100);
	}
	TEST("boot/cmdline/ntp") {
		struct lb_boot_opts o;
		lb_boot_opts_init(&o);
		CHECK_INT(lb_boot_parse_cmdline("lboot.ntp=ntp.example.org lboot.ntp= lboot.ntp=1.2.3.4:0", &o), 0);
		CHECK_STR(o.ntp, "");
		CHECK_INT(lb_boot_parse_cmdline("lboot.ntp=off", &o), 1);
		CHECK_STR(o.ntp, "off");
		CHECK_INT(lb_boot_parse_cmdline("lboot.ntp=192.168.77.1", &o), 1);
		CHECK_STR(o.ntp, "192.168.77.1");
		CHECK_INT(lb_boot_parse_cmdline("lboot.ntp=[fd00:77::1]:1123", &o), 1);
		CHECK_STR(o.ntp, "[fd00:77::1]:1123");
	}

	TEST("lboot.default by id, title, index") {
		struct lb_entries l = LB_ENTRIES_INIT;
		const char *ids[] = { "a", "b", "c" }, *titles[] = { "Alpha", "Beta", "Gamma" };

		for (int i = 0; i < 3; i++) {
			struct lb_entry *e = lb_entries_add(&l);
			CHECK(e != NULL);
			if (e) {
				lb_setstr(&e->id, ids[i]);
				lb_setstr(&e->title, titles[i]);
			}
		}
		lb_entries_set_default(&l, 0);
		CHECK_INT(lb_entries_select_default(&l, "c"), 0);
		CHECK_INT(lb_entries_default(&l), 2);
		CHECK_INT(lb_entries_select_default(&l, "Beta"), 0);
		CHECK_INT(lb_entries_default(&l), 1);
		CHECK_INT(lb_entries_select_default(&l, "0"), 0);
		CHECK_INT(lb_entries_default(&l), 0);
		CHECK_INT(lb_entries_select_default(&l, "3"), -ENOENT);
		CHECK_INT(lb_entries_select_default(&l, "zz"), -ENOENT);
		CHECK_INT(lb_entries_default(&l), 0);
		lb_entries_free(&l);
	}

	/* a filesystem directory with a fake bzImage and initrds */
	char root[300];
	snprintf(root, sizeof(root), "%s/fs", tmpd);
	mk("fs");
	mk("fs/boot");
	{
		static uint8_t bz[0x400];
		bz[0x1fe] = 0x55;
		bz[0x1ff] = 0xaa;
		memcpy(bz + 0x202, "HdrS", 4);
		put("fs/boot/vmlinuz", bz, sizeof(bz));
	}
	putstr("fs/boot/i1", "12345");
	putstr("fs/boot/i2", "abc");
	putstr("fs/boot/i3", "wxyz");
	putstr("fs/boot/text", "not a kernel at all, just some text long enough\n");
	struct lb_fs fs = { .dir = root, .uuid = "1234-ABCD", .name = "/dev/vdz1" };
	struct lb_fsset set = { .v = &fs, .n = 1 };

	TEST("stage: initrds read once into one sealed memfd, padded to 4 bytes between pieces, each hashed") {
		struct lb_entry e = { .title = "T", .kernel = "/boot/vmlinuz", .fs = "1234-ABCD",
				      .initrd = { "/boot/i1", "boot/i2", "/boot/i3" }, .n_initrd = 3 };
		struct lb_stage st;
		struct lb_digests d;
		char why[256] = "";
		uint8_t buf[64];
		unsigned mask = LB_HASH_BIT(LB_SHA256) | LB_HASH_BIT(LB_BLAKE2B);

		CHECK_INT(lb_kexec_stage(&set, &e, NULL, mask, &st, why, sizeof(why)), 0);
		CHECK_INT(st.initrd.size, 16); /* i3 is 4 bytes: no padding either way */
		CHECK_INT(pread(st.initrd.fd, buf, sizeof(buf), 0), 16);
		CHECK(!memcmp(buf, "12345\0\0\0abc\0wxyz", 16));
		CHECK_INT(st.n_parts, 3);
		CHECK_INT(st.part[1].off, 8);
		CHECK_INT(st.part[1].len, 3);
		CHECK(st.part[1].from_entry);
		lb_hash_buf(mask, "abc", 3, &d);
		CHECK(!memcmp(st.part[1].dig.d[LB_SHA256], d.d[LB_SHA256], 32));
		CHECK(!memcmp(st.part[1].dig.d[LB_BLAKE2B], d.d[LB_BLAKE2B], 64));
		lb_hash_buf(mask, "12345\0\0\0abc\0wxyz", 16, &d);
		CHECK(!memcmp(st.initrd.dig.d[LB_SHA256], d.d[LB_SHA256], 32));
		CHECK_STR(st.initrds, "/boot/i1,boot/i2,/boot/i3");
		CHECK_STR(st.cmdline, "");
		/* sealed: the bytes checked are the bytes kexec gets */
		CHECK(pwrite(st.initrd.fd, "X", 1, 0) < 0 && errno == EPERM);
		CHECK(pwrite(st.file.fd, "X", 1, 0) < 0 && errno == EPERM);
		lb_stage_free(&st);
		/* the last piece is not padded (what systemd-boot hands over) */
		e.n_initrd = 2;
		CHECK_INT(lb_kexec_stage(&set, &e, NULL, 0, &st, why, sizeof(why)), 0);
		CHECK_INT(st.initrd.size, 11);
		CHECK_INT(st.initrd.dig.mask, 0);
		lb_stage_free(&st);
		e.n_initrd = 3;
		e.initrd[1] = "/boot/nope";
		CHECK_INT(lb_kexec_stage(&set, &e, NULL, mask, &st, why, sizeof(why)), -ENOENT);
		CHECK_STR(why, "/boot/nope: no such file (ENOENT)");
		CHECK_INT(st.file.fd, -1);
		CHECK_INT(st.initrd.fd, -1);
	}

	TEST("stage: an iPXE cpio-wrapped initrd gets its newc header before its bytes, as iPXE lays it out") {
		struct lb_entry e = { .title = "T", .kernel = "/boot/vmlinuz", .fs = "1234-ABCD",
				      .initrd = { "/boot/i1", "/boot/i2", "/boot/i3" }, .n_initrd = 3 };
		unsigned mask = LB_HASH_BIT(LB_SHA256) | LB_HASH_BIT(LB_BLAKE2B);
		uint8_t want[140], got[400];
		char why[256] = "", url[64];
		struct lb_digests d;
		struct lb_stage st;
		size_t hl = sizeof(x_conf_hdr) - 1;

		CHECK_INT(hl, 124);
		/* "12345", 3 zeros, header, "abc", 1 zero, "wxyz" */
		memset(want, 0, sizeof(want));
		memcpy(want, "12345", 5);
		memcpy(want + 8, x_conf_hdr, hl);
		memcpy(want + 132, "abc", 3);
		memcpy(want + 136, "wxyz", 4);
		e.initrd_cpio[1].path = "/etc/x.conf";
		e.initrd_cpio[1].mode = 0600;
		CHECK_INT(lb_kexec_stage(&set, &e, NULL, mask, &st, why, sizeof(why)), 0);
		CHECK_INT(st.initrd.size, 140);
		CHECK_INT(pread(st.initrd.fd, got, sizeof(got), 0), 140);
		CHECK(!memcmp(got, want, 140));
		/* the piece (what its signature covers) is the file's own bytes */
		CHECK_INT(st.part[1].off, 132);
		CHECK_INT(st.part[1].len, 3);
		lb_hash_buf(mask, "abc", 3, &d);
		CHECK(!memcmp(st.part[1].dig.d[LB_SHA256], d.d[LB_SHA256], 32));
		CHECK(!memcmp(st.part[1].dig.d[LB_BLAKE2B], d.d[LB_BLAKE2B], 64));
		/* the initrd's digest (PCR 9) is over the buffer the kernel gets */
		lb_hash_buf(mask, want, 140, &d);
		CHECK(!memcmp(st.initrd.dig.d[LB_SHA256], d.d[LB_SHA256], 32));
		CHECK(!st.initrd.patched);
		lb_stage_free(&st);

		/* over HTTP, with and without Content-Length (chunked): the same
		 * bytes and digests; without, the header is patched in place */
		for (int chunked = 0; chunked < 2; chunked++) {
			unsigned port = 0;
			pid_t pid = body_http(&port, "abc", 3, chunked, 1);

			CHECK(pid > 0);
			if (pid <= 0)
				break;
			snprintf(url, sizeof(url), "http://127.0.0.1:%u/x.conf", port);
			e.initrd[1] = url;
			CHECK_INT(lb_kexec_stage(&set, &e, NULL, mask, &st, why, sizeof(why)), 0);
			waitpid(pid, NULL, 0);
			CHECK_INT(st.initrd.size, 140);
			memset(got, 0xee, sizeof(got));
			CHECK_INT(pread(st.initrd.fd, got, sizeof(got), 0), 140);
			CHECK(!memcmp(got, want, 140));
			CHECK(!memcmp(st.initrd.dig.d[LB_SHA256], d.d[LB_SHA256], 32));
			CHECK(!memcmp(st.initrd.dig.d[LB_BLAKE2B], d.d[LB_BLAKE2B], 64));
			CHECK_INT(st.part[1].off, 132);
			CHECK(pwrite(st.initrd.fd, "X", 1, 8) < 0 && errno == EPERM);
			lb_stage_free(&st);
		}
		e.initrd[1] = "/boot/i2";

		/* mkdir=-1: one header per directory level, then the file */
		e.initrd_cpio[1].path = "/a/b/c";
		e.initrd_cpio[1].mode = 0644;
		e.initrd_cpio[1].mkdir = UINT_MAX;
		CHECK_INT(lb_kexec_stage(&set, &e, NULL, 0, &st, why, sizeof(why)), 0);
		/* "/a": 110 + 2 + NUL -> 116; "/a/b": 116; "/a/b/c": 120 */
		CHECK_INT(pread(st.initrd.fd, got, sizeof(got), 0), 8 + 116 + 116 + 120 + 3 + 1 + 4);
		CHECK(!memcmp(got + 8 + 14, "000041ed", 8) && !memcmp(got + 8 + 110, "/a\0", 3));
		CHECK(!memcmp(got + 124 + 14, "000041ed", 8) && !memcmp(got + 124 + 110, "/a/b\0", 5));
		CHECK(!memcmp(got + 240 + 14, "000081a4", 8) && !memcmp(got + 240 + 54, "00000003", 8) &&
		      !memcmp(got + 240 + 110, "/a/b/c\0", 7));
		CHECK(!memcmp(got + 360, "abc\0wxyz", 8));
		CHECK_INT(st.part[1].off, 360);
		lb_stage_free(&st);

		/* a path the header cannot hold: one line naming the file */
		{
			static char longp[5000];
			memset(longp, 'p', sizeof(longp) - 1);
			longp[0] = '/';
			e.initrd_cpio[1].path = longp;
			CHECK_INT(lb_kexec_stage(&set, &e, NULL, mask, &st, why, sizeof(why)), -ENAMETOOLONG);
			CHECK_STR(why, "/boot/i2: cpio path of 4999 bytes: at most 4096 fit");
			CHECK_INT(st.initrd.fd, -1);
		}
		e.initrd_cpio[1].path = NULL;
	}

	TEST("a download cut short: the error names its URL once, after the progress line") {
		struct lb_entry e = { 0 };
		struct lb_stage st;
		char why[512], url[64], cap[300], got[4096] = "";
		unsigned port = 0;
		pid_t pid = short_http(&port);
		int keep, fd, n;

		CHECK(pid > 0);
		if (pid <= 0)
			continue;
		snprintf(url, sizeof(url), "http://127.0.0.1:%u/vmlinuz", port);
		snprintf(cap, sizeof(cap), "%s/progress.txt", tmpd);
		e.title = "net";
		e.kernel = url;
		/* the progress line goes to stdout: caught in a file */
		fflush(stdout);
		keep = dup(1);
		fd = open(cap, O_RDWR | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 1);
		CHECK(lb_kexec_stage(&set, &e, NULL, 0, &st, why, sizeof(why)) < 0);
		fflush(stdout);
		dup2(keep, 1);
		close(keep);
		n = (int)pread(fd, got, sizeof(got) - 1, 0);
		close(fd);
		waitpid(pid, NULL, 0);
		got[n > 0 ? n : 0] = 0;
		CHECK(n > 0 && strstr(got, "lboot: fetched ") && strstr(got, " of 4096 KiB"));
		CHECK(n > 0 && got[n - 1] == '\n');
		CHECK(!strncmp(why, url, strlen(url)));
		CHECK(!strstr(why + 1, url));
		printf("# %s\n", why);
	}

	TEST("kexec dry run and failures name file and cause") {
		struct lb_entry e = { 0 };
		struct lb_kexec_req rq = { .set = &set, .entry = &e, .dry_run = 1 };
		char why[256], *out = NULL;
		size_t outlen = 0;
		FILE *log = open_memstream(&out, &outlen);

		rq.log = log;
		e.title = "T";
		e.kernel = "/boot/vmlinuz";
		e.fs = "1234-abcd"; /* uuids match case-insensitively */
		e.cmdline = "root=/dev/x quiet";
		e.initrd[0] = "/boot/i1";
		e.initrd[1] = "/boot/i2";
		e.n_initrd = 2;
		CHECK_INT(lb_kexec_load(&rq, why, sizeof(why)), 0);
		rq.cmdline = "edited=1";
		e.n_initrd = 0;
		CHECK_INT(lb_kexec_load(&rq, why, sizeof(why)), 0);
		fflush(log);
		CHECK_STR(out, "lboot: would kexec 'T' kernel=/boot/vmlinuz initrd=/boot/i1,/boot/i2 cmdline=root=/dev/x quiet\n"
			       "lboot: would kexec 'T' kernel=/boot/vmlinuz initrd=none cmdline=edited=1\n");
		rq.cmdline = NULL;

		e.kernel = "/boot/missing";
		CHECK_INT(lb_kexec_load(&rq, why, sizeof(why)), -ENOENT);
		CHECK_STR(why, "/boot/missing: no such file (ENOENT)");
		e.kernel = "/boot/text";
		CHECK_INT(lb_kexec_load(&rq, why, sizeof(why)), -ENOEXEC);
		CHECK_STR(why, "/boot/text: not a bzImage (ENOEXEC)");
		e.kernel = "/boot";
		CHECK_INT(lb_kexec_load(&rq, why, sizeof(why)), -EISDIR);
		e.kernel = "/boot/vmlinuz";
		e.initrd[0] = "/boot/../../../etc/passwd"; /* cannot leave the fs */
		e.n_initrd = 1;
		CHECK_INT(lb_kexec_load(&rq, why, sizeof(why)), -ENOENT);
		CHECK_STR(why, "/boot/../../../etc/passwd: no such file (ENOENT)");
		e.n_initrd = 0;
		e.fs = "OTHER";
		CHECK_INT(lb_kexec_load(&rq, why, sizeof(why)), -ENODEV);
		CHECK_STR(why, "OTHER: filesystem not found (ENODEV)");
		CHECK_STR(lb_entry_device(&set, &e), "OTHER");
		e.fs = "1234-ABCD";
		CHECK_STR(lb_entry_device(&set, &e), "/dev/vdz1");
		fclose(log);
		free(out);
	}

	TEST("kexec: command line length against the kernel's setup header cmdline_size") {
		static uint8_t bz[0x400];
		static char line[5000];
		struct lb_entry e = { .title = "T", .kernel = "/boot/vmlinuz", .fs = "1234-ABCD" };
		struct lb_kexec_req rq = { .set = &set, .entry = &e, .dry_run = 1, .cmdline = line };
		char why[256] = "";

		/* the fake bzImage has boot protocol 0: 255 bytes at most */
		memset(line, 'x', 255);
		CHECK_INT(lb_kexec_load(&rq, why, sizeof(why)), 0);
		line[255] = 'x';
		CHECK_INT(lb_kexec_load(&rq, why, sizeof(why)), -E2BIG);
		CHECK_STR(why, "command line: 256 bytes, the kernel takes at most 255 (E2BIG)");
		/* protocol 2.06+: cmdline_size at 0x238 (x86_64 kernels: 2047) */
		bz[0x1fe] = 0x55;
		bz[0x1ff] = 0xaa;
		memcpy(bz + 0x202, "HdrS", 4);
		bz[0x206] = 0x0f;
		bz[0x207] = 0x02;
		bz[0x238] = 0xff;
		bz[0x239] = 0x07;
		put("fs/boot/vmlinuz-2047", bz, sizeof(bz));
		e.kernel = "/boot/vmlinuz-2047";
		memset(line, 'x', 2047);
		CHECK_INT(lb_kexec_load(&rq, why, sizeof(why)), 0);
		line[2047] = 'y';
		CHECK_INT(lb_kexec_load(&rq, why, sizeof(why)), -E2BIG);
		CHECK_STR(why, "command line: 2048 bytes, the kernel takes at most 2047 (E2BIG)");
		/* more than the old fixed 4096 when the kernel says so */
		bz[0x239] = 0x20; /* 0x20ff = 8447 */
		put("fs/boot/vmlinuz-big", bz, sizeof(bz));
		e.kernel = "/boot/vmlinuz-big";
		memset(line, 'z', 4999);
		CHECK_INT(lb_kexec_load(&rq, why, sizeof(why)), 0);
	}

	TEST("UKI whose .linux is not a bzImage") {
		char d[600];
		snprintf(d, sizeof(d), "%s/uki", t_files());
		struct lb_fs ufs = { .dir = d, .name = "/dev/uki" };
		struct lb_fsset uset = { .v = &ufs, .n = 1 };
		struct lb_entry e = { .type = LB_ENTRY_UKI, .title = "U", .kernel = "/debian.efi", .fs = "/dev/uki" };
		struct lb_kexec_req rq = { .set = &uset, .entry = &e, .dry_run = 1 };
		char why[256];

		CHECK_INT(lb_kexec_load(&rq, why, sizeof(why)), -ENOEXEC);
		CHECK_STR(why, "/debian.efi: UKI .linux section is not a bzImage (ENOEXEC)");
		e.kernel = "/make-uki.sh";
		CHECK_INT(lb_kexec_load(&rq, why, sizeof(why)), -ENOEXEC);
		CHECK_STR(why, "/make-uki.sh: not a PE unified kernel image (ENOEXEC)");
	}

	TEST("menu keys over a byte stream") {
		static const struct {
			const char *keys;
			int timeout;
			enum lb_menu_action action;
			size_t index;
			const char *cmdline;
		} cases[] = {
			{ "\r", -1, LB_MENU_BOOT, 1, NULL },           /* Enter: the default */
			{ "2\r", -1, LB_MENU_BOOT, 1, NULL },
			{ "1\r", -1, LB_MENU_BOOT, 0, NULL },
			{ "9\r1\r", -1, LB_MENU_BOOT, 0, NULL },      /* no entry 9: asks again */
			{ "3\x7f" "1\r", -1, LB_MENU_BOOT, 0, NULL },    /* backspace */
			{ "x?r", -1, LB_MENU_RESCAN, 0, NULL },
			{ "b", -1, LB_MENU_REBOOT, 0, NULL },
			{ "p", -1, LB_MENU_POWEROFF, 0, NULL },
			{ "enew line\r", -1, LB_MENU_BOOT, 1, "new line" },
			{ "1eab\x7f" "c\r", -1, LB_MENU_BOOT, 0, "ac" },
			{ "e\r", -1, LB_MENU_BOOT, 1, NULL },          /* empty keeps it */
			{ "e\x03" "1\r", -1, LB_MENU_BOOT, 0, NULL }, /* ^C cancels the edit */
			{ "\x1b[A\r", -1, LB_MENU_BOOT, 0, NULL },    /* Up: the entry above the default */
			{ "\x1b[D\r", -1, LB_MENU_BOOT, 1, NULL },    /* Left: ignored */
			{ "", 1, LB_MENU_AUTO, 1, NULL },              /* countdown expires */
			{ "r", 3, LB_MENU_RESCAN, 0, NULL },           /* a key stops it and counts */
			{ "", -1, LB_MENU_EOF, 0, NULL },
			{ "", 5, LB_MENU_AUTO, 1, NULL },              /* closed input: no wait */
		};
		struct lb_entries l = LB_ENTRIES_INIT;
		const char *titles[] = { "one", "two" };

		for (int i = 0; i < 2; i++) {
			struct lb_entry *e = lb_entries_add(&l);
			if (e) {
				lb_setstr(&e->title, titles[i]);
				lb_setstr(&e->kernel, "/k");
				lb_setstr(&e->cmdline, "old");
				lb_setstr(&e->fs, "1234-ABCD");
			}
		}
		lb_entries_set_default(&l, 1);
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			int in[2], outp[2];
			struct lb_menu_result res;
			char shown[8192];
			ssize_t n;

			if (pipe(in) || pipe(outp)) {
				CHECK(0);
				break;
			}
			struct lb_menu m = { .in = in[0], .out = outp[1], .shell = "/nonexistent" };
			if (write(in[1], cases[i].keys, strlen(cases[i].keys)) < 0)
				CHECK(0);
			if (!cases[i].keys[0] && cases[i].timeout != 1) {
				close(in[1]);
				in[1] = -1;
			}
			fcntl(outp[0], F_SETFL, O_NONBLOCK);
			fcntl(outp[1], F_SETPIPE_SZ, 1 << 20);
			CHECK_INT(lb_menu_run(&m, &l, &set, cases[i].timeout, &res), 0);
			CHECK_INT(res.action, cases[i].action);
			if (res.action == LB_MENU_BOOT) {
				CHECK_INT(res.index, cases[i].index);
				if (cases[i].cmdline)
					CHECK_STR(res.cmdline, cases[i].cmdline);
				else
					CHECK(res.cmdline == NULL);
			}
			free(res.cmdline);
			n = read(outp[0], shown, sizeof(shown) - 1);
			shown[n > 0 ? n : 0] = 0;
			CHECK(strstr(shown, "* 2) two (/dev/vdz1) [default]\n") != NULL);
			CHECK(strstr(shown, "   1) one (/dev/vdz1)\n") != NULL);
			CHECK(strstr(shown, "s: shell") == NULL); /* no shell in this image */
			if (cases[i].timeout < 0 && cases[i].action != LB_MENU_EOF)
				CHECK(strstr(shown, "lboot> ") != NULL);
			if (cases[i].timeout > 0)
				CHECK(strstr(shown, "booting 'two' in 1 s") || strstr(shown, "booting 'two' in 3 s") ||
				      strstr(shown, "booting 'two' in 5 s"));
			if (in[1] >= 0)
				close(in[1]);
			close(in[0]);
			close(outp[0]);
			close(outp[1]);
		}
		lb_entries_free(&l);

		/* no entries: only the prompt commands */
		struct lb_entries none = LB_ENTRIES_INIT;
		int in[2], outp[2];
		struct lb_menu_result res;
		char shown[4096];
		ssize_t n;
		if (!pipe(in) && !pipe(outp)) {
			struct lb_menu m = { .in = in[0], .out = outp[1] };
			if (write(in[1], "\r9\rp", 5) < 0)
				CHECK(0);
			CHECK_INT(lb_menu_run(&m, &none, &set, 5, &res), 0);
			CHECK_INT(res.action, LB_MENU_POWEROFF);
			n = read(outp[0], shown, sizeof(shown) - 1);
			shown[n > 0 ? n : 0] = 0;
			CHECK(strstr(shown, "(no bootable entries)") != NULL);
			CHECK(strstr(shown, "no entries to boot") != NULL);
			CHECK(strstr(shown, "press any key") == NULL);
			close(in[0]); close(in[1]); close(outp[0]); close(outp[1]);
		}
	}

	TEST("menu: 'u' checks an update file, writes only after y") {
		static const struct {
			const char *keys;
			int nfiles, check_rc, write_rc;
			enum lb_menu_action action;
			int checks, writes;          /* calls of run() */
			const char *shown;           /* in the output */
		} cases[] = {
			/* n, Enter, anything but y: not written */
			{ "un\rp", 1, 0, 0, LB_MENU_POWEROFF, 1, 0, "lboot: not written\n" },
			{ "u\rp", 1, 0, 0, LB_MENU_POWEROFF, 1, 0, "lboot: not written\n" },
			{ "uyes please\rp", 1, 0, 0, LB_MENU_POWEROFF, 1, 0, "lboot: not written\n" },
			{ "u\x03p", 1, 0, 0, LB_MENU_POWEROFF, 1, 0, "^C\n" },
			/* y: written, the machine restarts */
			{ "uy\r", 1, 0, 0, LB_MENU_REBOOT, 1, 1,
			  "lboot: update /dev/vdz1:/EFI/lboot/update.lbu: version 2 (v2) written\n" },
			{ "uY\r", 1, 0, 0, LB_MENU_REBOOT, 1, 1, "written\n" },
			/* the write failed: back to the menu */
			{ "uy\rp", 1, 0, -EIO, LB_MENU_POWEROFF, 1, 1, "Input/output error\n" },
			/* refused, or the running version: no question, y is just a key */
			{ "uyp", 1, -EKEYREJECTED, 0, LB_MENU_POWEROFF, 1, 0,
			  "lboot: update /dev/vdz1:/EFI/lboot/update.lbu: refused: the signature: bad signature\n" },
			{ "uyp", 1, 1, 0, LB_MENU_POWEROFF, 1, 0,
			  "version 2 is the running firmware's: nothing to do\n" },
			/* nothing found */
			{ "up", 0, 0, 0, LB_MENU_POWEROFF, 0, 0,
			  "lboot: no update file found (/EFI/lboot/update.lbu on each filesystem)\n" },
			/* two files: pick the second, or a bad number */
			{ "u2\ry\r", 2, 0, 0, LB_MENU_REBOOT, 1, 1, "lboot: checking https://fw.example/u.lbu\n" },
			{ "u\rn\rp", 2, 0, 0, LB_MENU_POWEROFF, 1, 0, "lboot: checking /dev/vdz1:/EFI/lboot/update.lbu\n" },
			{ "u7\rp", 2, 0, 0, LB_MENU_POWEROFF, 0, 0, "lboot: no such file\n" },
			/* the input closes while it asks */
			{ "u", 1, 0, 0, LB_MENU_EOF, 1, 0, "(y/N)> " },
		};
		struct upd_fake fk;
		struct lb_menu_update mu = { .find = upd_find, .run = upd_run, .arg = &fk,
					     .looked = "/EFI/lboot/update.lbu on each filesystem" };
		struct lb_entries l = LB_ENTRIES_INIT;
		struct lb_entry *e = lb_entries_add(&l);

		if (e) {
			lb_setstr(&e->title, "one");
			lb_setstr(&e->kernel, "/k");
			lb_setstr(&e->fs, "1234-ABCD");
		}
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			int in[2], outp[2];
			struct lb_menu_result res;
			char shown[16384];
			ssize_t n;

			if (pipe(in) || pipe(outp)) {
				CHECK(0);
				break;
			}
			memset(&fk, 0, sizeof(fk));
			fk.nfiles = cases[i].nfiles;
			fk.check_rc = cases[i].check_rc;
			fk.write_rc = cases[i].write_rc;
			struct lb_menu m = { .in = in[0], .out = outp[1], .update = &mu };
			if (write(in[1], cases[i].keys, strlen(cases[i].keys)) < 0)
				CHECK(0);
			close(in[1]);
			fcntl(outp[0], F_SETFL, O_NONBLOCK);
			fcntl(outp[1], F_SETPIPE_SZ, 1 << 20);
			CHECK_INT(lb_menu_run(&m, &l, &set, -1, &res), 0);
			CHECK_INT(res.action, cases[i].action);
			CHECK_INT(fk.checks, cases[i].checks);
			CHECK_INT(fk.writes, cases[i].writes);
			/* the check always comes first, for the same file */
			if (fk.writes)
				CHECK_INT(fk.write_i, fk.check_i);
			n = read(outp[0], shown, sizeof(shown) - 1);
			shown[n > 0 ? n : 0] = 0;
			CHECK(strstr(shown, "u: update firmware, ") != NULL);
			CHECK(strstr(shown, cases[i].shown) != NULL);
			if (cases[i].checks && !cases[i].check_rc)
				CHECK(strstr(shown, "may be written to /dev/mtd0\n") != NULL);
			if (cases[i].check_rc)
				CHECK(strstr(shown, "(y/N)") == NULL);
			if (!strstr(shown, cases[i].shown))
				printf("# case %zu shown:\n%s\n", i, shown);
			close(in[0]);
			close(outp[0]);
			close(outp[1]);
		}
		/* without m.update: no 'u' in the help, the key does nothing */
		int in[2], outp[2];
		struct lb_menu_result res;
		char shown[4096];
		if (!pipe(in) && !pipe(outp)) {
			struct lb_menu m = { .in = in[0], .out = outp[1] };
			if (write(in[1], "up", 2) < 0)
				CHECK(0);
			memset(&fk, 0, sizeof(fk));
			CHECK_INT(lb_menu_run(&m, &l, &set, -1, &res), 0);
			CHECK_INT(res.action, LB_MENU_POWEROFF);
			ssize_t n = read(outp[0], shown, sizeof(shown) - 1);
			shown[n > 0 ? n : 0] = 0;
			CHECK(strstr(shown, "update") == NULL);
			close(in[0]); close(in[1]); close(outp[0]); close(outp[1]);
		}
		lb_entries_free(&l);
	}

	TEST("menu: 't' reseals the TOTP only after y") {
		static const struct {
			const char *keys;
			int rc;
			enum lb_menu_action action;
			int runs;
			const char *shown;
		} cases[] = {
			/* n, Enter, ^C, anything but y: nothing resealed */
			{ "tn\rp", 0, LB_MENU_POWEROFF, 0,
			  "lboot: TOTP not resealed (the sealed secret is unchanged)\n" },
			{ "t\rp", 0, LB_MENU_POWEROFF, 0, "(the sealed secret is unchanged)\n" },
			{ "t\x03p", 0, LB_MENU_POWEROFF, 0, "^C\nlboot: TOTP not resealed" },
			{ "tyes please\rp", 0, LB_MENU_POWEROFF, 0, "lboot: TOTP not resealed" },
			/* y: resealed, what the callback shows, back to the menu */
			{ "ty\rp", 0, LB_MENU_POWEROFF, 1,
			  "add the new secret to the authenticator app:\notpauth://totp/x\n"
			  "TOTP 123456 (valid 17 s)\n" },
			{ "tY\rp", 0, LB_MENU_POWEROFF, 1, "lboot: TOTP resealed to sha256 PCRs 0,2" },
			/* a TPM failure: its one line, then the menu again */
			{ "ty\rp", -EIO, LB_MENU_POWEROFF, 1,
			  "TPM_RC_NV_LOCKED; the old sealed secret is unchanged\n" },
			/* the input closes while it asks */
			{ "t", 0, LB_MENU_EOF, 0, "reseal the TOTP? (y/N)> " },
		};
		struct reseal_fake fk;
		struct lb_menu_reseal mr = { .what = "sha256 PCRs 0,2 in NV 0x01500010",
					     .run = reseal_run, .arg = &fk };
		struct lb_entries l = LB_ENTRIES_INIT;
		struct lb_entry *e = lb_entries_add(&l);

		if (e) {
			lb_setstr(&e->title, "one");
			lb_setstr(&e->kernel, "/k");
			lb_setstr(&e->fs, "1234-ABCD");
		}
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			int in[2], outp[2];
			struct lb_menu_result res;
			char shown[16384];
			ssize_t n;

			if (pipe(in) || pipe(outp)) {
				CHECK(0);
				break;
			}
			memset(&fk, 0, sizeof(fk));
			fk.rc = cases[i].rc;
			struct lb_menu m = { .in = in[0], .out = outp[1], .reseal = &mr };
			if (write(in[1], cases[i].keys, strlen(cases[i].keys)) < 0)
				CHECK(0);
			close(in[1]);
			fcntl(outp[0], F_SETFL, O_NONBLOCK);
			fcntl(outp[1], F_SETPIPE_SZ, 1 << 20);
			CHECK_INT(lb_menu_run(&m, &l, &set, -1, &res), 0);
			CHECK_INT(res.action, cases[i].action);
			CHECK_INT(fk.runs, cases[i].runs);
			n = read(outp[0], shown, sizeof(shown) - 1);
			shown[n > 0 ? n : 0] = 0;
			CHECK(strstr(shown, "t: reseal TOTP, ") != NULL);
			/* it says what resealing trusts before it asks */
			CHECK(strstr(shown, "lboot: reseal the TOTP to the measurements of this boot "
					    "(sha256 PCRs 0,2 in NV 0x01500010)\n") != NULL);
			CHECK(strstr(shown, "this trusts the firmware running now") != NULL);
			CHECK(strstr(shown, cases[i].shown) != NULL);
			if (!strstr(shown, cases[i].shown))
				printf("# case %zu shown:\n%s\n", i, shown);
			close(in[0]);
			close(outp[0]);
			close(outp[1]);
		}
		/* without m.reseal: no 't' in the help, the key does nothing */
		int in[2], outp[2];
		struct lb_menu_result res;
		char shown[4096];
		if (!pipe(in) && !pipe(outp)) {
			struct lb_menu m = { .in = in[0], .out = outp[1] };
			if (write(in[1], "typ", 3) < 0)
				CHECK(0);
			memset(&fk, 0, sizeof(fk));
			CHECK_INT(lb_menu_run(&m, &l, &set, -1, &res), 0);
			CHECK_INT(res.action, LB_MENU_POWEROFF);
			CHECK_INT(fk.runs, 0);
			ssize_t n = read(outp[0], shown, sizeof(shown) - 1);
			shown[n > 0 ? n : 0] = 0;
			CHECK(strstr(shown, "TOTP") == NULL);
			close(in[0]); close(in[1]); close(outp[0]); close(outp[1]);
		}
		lb_entries_free(&l);
	}

	rm_rf(tmpd);
	return t_done();
}
