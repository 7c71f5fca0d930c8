#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include "entry.h"
#include "fs.h"
#include "kexec.h"
#include "scan.h"
#include "t.h"

static char root[512];

/* write root/REL (printf-style name) with content */
static void put(const char *content, const char *fmt, ...)
{
	char rel[1024], p[5200];
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	if ((f = fopen(p, "w"))) {
		fputs(content, f);
		fclose(f);
	} else {
		printf("# cannot create %s\n", p);
	}
}

static void mk(int kind, const char *target, const char *fmt, ...)
{
	char rel[1024], p[5200];
	va_list ap;
	int r;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	r = kind == 'd' ? mkdir(p, 0755) : kind == 'l' ? symlink(target, p) : mkfifo(p, 0644);
	if (r < 0)
		printf("# cannot create %s: %s\n", p, strerror(errno));
}

/* A path resolved inside the root: the file's content, or the error. */
struct rcase {
	const char *path;
	const char *want; /* content, or NULL */
	int err;          /* when want is NULL */
};

static int check_case(const struct lb_fs *fs, const struct rcase *c, const char *how)
{
	char *buf = NULL;
	size_t len;
	int r = lb_fs_read(fs, c->path, 4096, &buf, &len);

	if (c->want ? (r || strcmp(buf, c->want)) : r != c->err) {
		printf("# %s: %s: got %d '%s', want %d '%s'\n", how, c->path, r,
		       r ? "" : buf, c->want ? 0 : c->err, c->want ? c->want : "");
		free(buf);
		return 0;
	}
	free(buf);
	return 1;
}

static int hook_calls;

static void count_hook(void *arg, const struct lb_fs *f, const char *p,
		       const uint8_t *buf, size_t len)
{
	hook_calls++;
}

int main(void)
{
	char tmpl[] = "/tmp/lboot-fs-XXXXXX";
	char *d = mkdtemp(tmpl), path[4200];

	/* a lookup that blocks (a FIFO opened for reading) fails the program */
	alarm(60);

	snprintf(path, sizeof(path), "%s/a", d);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/a/f.txt", d);
	FILE *f = fopen(path, "w");
	fputs("hello\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/a/esc", d);
	symlink("/etc/passwd", path);
	snprintf(path, sizeof(path), "%s/a/up", d);
	symlink("../../../../../etc/hostname", path);

	struct lb_fs fs;
	TEST("fs spec parse") {
		char spec[4200];
		snprintf(spec, sizeof(spec), "%s@uuid=ABCD-1234,label=ESP", d);
		CHECK_INT(lb_fs_parse_spec(spec, &fs), 0);
		CHECK_STR(fs.dir, d);
		CHECK_STR(fs.uuid, "ABCD-1234");
		CHECK_STR(fs.label, "ESP");
		CHECK_STR(lb_fs_ident(&fs), "ABCD-1234");
	}
	TEST("fs spec grub name keeps its comma") {
		struct lb_fs g;
		CHECK_INT(lb_fs_parse_spec("/x@grub=hd0,gpt2,label=ROOT", &g), 0);
		CHECK_STR(g.grub, "hd0,gpt2");
		CHECK_STR(g.label, "ROOT");
		lb_fs_free(&g);
		CHECK_INT(lb_fs_parse_spec("/x@label=a,b", &g), 0);
		CHECK_STR(g.label, "a,b");
		lb_fs_free(&g);
	}
	TEST("fs spec rejects unknown key") {
		struct lb_fs g;
		CHECK_INT(lb_fs_parse_spec("/x@bogus=1", &g), -EINVAL);
	}
	TEST("fs read inside root") {
		char *buf; size_t len;
		CHECK_INT(lb_fs_read(&fs, "/a/f.txt", 100, &buf, &len), 0);
		CHECK_INT(len, 6);
		CHECK_STR(buf, "hello\n");
		free(buf);
		CHECK_INT(lb_fs_read(&fs, "a/../a/./f.txt", 100, &buf, &len), 0);
		free(buf);
		CHECK_INT(lb_fs_read(&fs, "/../../a/f.txt", 100, &buf, &len), 0);
		free(buf);
	}
	TEST("fs read caps size") {
		char *buf; size_t len;
		CHECK_INT(lb_fs_read(&fs, "/a/f.txt", 3, &buf, &len), -EFBIG);
	}
	TEST("fs symlinks stay inside root") {
		char *buf; size_t len;
		CHECK(lb_fs_read(&fs, "/a/esc", 100000, &buf, &len) < 0);
		CHECK(lb_fs_read(&fs, "/a/up", 100000, &buf, &len) < 0);
	}
	TEST("fs list sorted") {
		char **names; size_t n;
		CHECK_INT(lb_fs_list(&fs, "/a", &names, &n), 0);
		CHECK_INT(n, 3);
		CHECK_STR(names[0], "esc");
		CHECK_STR(names[1], "f.txt");
		lb_fs_list_free(names, n);
	}

	/* --- symlinks and `..` inside the root, openat2 and the walk ---- */
	snprintf(root, sizeof(root), "%.400s/r", d);
	mkdir(root, 0755);
	struct lb_fs rfs = { .dir = root, .name = "r" };
	mk('d', 0, "etc");
	put("inside passwd\n", "etc/passwd");
	put("inside hostname\n", "etc/hostname");
	mk('d', 0, "a");
	mk('d', 0, "a/b");
	mk('d', 0, "a/b/c");
	put("a-f\n", "a/f.txt");
	put("a-x\n", "a/x");
	put("a-b-x\n", "a/b/x");
	put("a-b-c-g\n", "a/b/c/g.txt");
	mk('l', "/etc/passwd", "a/abs");                /* absolute: from the root */
	mk('l', "../../../../../etc/hostname", "a/up"); /* ..: clamped at the root */
	mk('l', "../../../..", "a/updir");              /* a directory in the middle */
	mk('l', "/", "a/slash");
	mk('l', "/../../..", "a/slashup");
	mk('l', "b/c/g.txt", "a/rel");
	mk('l', "b/c", "a/tobc");
	mk('l', "tobc/../x", "a/phys"); /* `..` after a symlink: a/b/x, not a/x */
	mk('l', "loop2", "a/loop1");
	mk('l', "loop1", "a/loop2");
	mk('l', "self", "a/self");
	mk('l', "f.txt/", "a/slashfile");
	mk('l', "nothing", "a/dangling");
	mk('l', "../etc", "a/etcdir");
	/* 40 symlinks in a row are followed (as the kernel), 41 are not */
	mk('d', 0, "chain");
	for (int i = 0; i < 39; i++) {
		char t[16];
		snprintf(t, sizeof(t), "n%d", i + 1);
		mk('l', t, "chain/n%d", i);
	}
	mk('l', "../a/f.txt", "chain/n39");
	mk('l', "n0", "chain/m");
	/* a symlink at every depth, relative and absolute, escaping */
	{
		char rel[256] = "", dir[256] = "deep";
		mk('d', 0, "deep");
		for (int k = 1; k <= 6; k++) {
			char up[256] = "";
			for (int j = 0; j < k + 3; j++)
				strcat(up, "../");
			strcat(up, "etc/hostname");
			mk('l', up, "%s/rel", dir);
			mk('l', "/etc/passwd", "%s/abs", dir);
			mk('l', "/../../../etc", "%s/absdir", dir);
			snprintf(rel, sizeof(rel), "%.200s/d%d", dir, k);
			mk('d', 0, "%s", rel);
			memcpy(dir, rel, sizeof(dir));
		}
	}
	mk('f', 0, "a/fifo");
	const struct rcase rcases[] = {
		{ "/a/f.txt", "a-f\n", 0 },
		{ "/a/abs", "inside passwd\n", 0 },
		{ "/a/up", "inside hostname\n", 0 },
		{ "/a/updir/etc/hostname", "inside hostname\n", 0 },
		{ "/a/updir/a/updir/a/f.txt", "a-f\n", 0 },
		{ "/a/slash/etc/passwd", "inside passwd\n", 0 },
		{ "/a/slashup/etc/passwd", "inside passwd\n", 0 },
		{ "/a/etcdir/hostname", "inside hostname\n", 0 },
		{ "/a/rel", "a-b-c-g\n", 0 },
		{ "/a/tobc/g.txt", "a-b-c-g\n", 0 },
		{ "/a/phys", "a-b-x\n", 0 },
		{ "/a/loop1", NULL, -ELOOP },
		{ "/a/self", NULL, -ELOOP },
		{ "/a/loop1/x", NULL, -ELOOP },
		{ "/a/slashfile", NULL, -ENOTDIR },
		{ "/a/dangling", NULL, -ENOENT },
		{ "/a/f.txt/x", NULL, -ENOTDIR },
		{ "/a/fifo/x", NULL, -ENOTDIR },
		{ "/a/fifo", NULL, -EINVAL },
		{ "/a/b", NULL, -EISDIR },
		{ "/a/tobc", NULL, -EISDIR },
		{ "/chain/n0", "a-f\n", 0 },
		{ "/chain/m", NULL, -ELOOP },
		{ "/deep/rel", "inside hostname\n", 0 },
		{ "/deep/d1/d2/d3/rel", "inside hostname\n", 0 },
		{ "/deep/d1/d2/d3/d4/d5/rel", "inside hostname\n", 0 },
		{ "/deep/d1/d2/abs", "inside passwd\n", 0 },
		{ "/deep/d1/d2/d3/d4/d5/absdir/hostname", "inside hostname\n", 0 },
		{ "/deep/d1/d2/d3/d4/d5/absdir/passwd", "inside passwd\n", 0 },
		{ "/../a/up", "inside hostname\n", 0 },
	};
	long probe = syscall(SYS_openat2, -1, "", NULL, 0);
	int have_openat2 = !(probe < 0 && errno == ENOSYS);

	TEST("fs symlinks and .. resolve inside the root (openat2)") {
		if (!have_openat2)
			printf("# this kernel has no openat2: both runs take the walk\n");
		lb_fs_no_openat2 = 0;
		for (size_t i = 0; i < sizeof(rcases) / sizeof(rcases[0]); i++)
			CHECK(check_case(&rfs, &rcases[i], "openat2"));
	}
	TEST("fs symlinks and .. resolve inside the root (walk without openat2)") {
		lb_fs_no_openat2 = 1;
		for (size_t i = 0; i < sizeof(rcases) / sizeof(rcases[0]); i++)
			CHECK(check_case(&rfs, &rcases[i], "walk"));
		lb_fs_no_openat2 = 0;
	}
	TEST("fs stat, list and open agree on both paths") {
		const char *paths[] = { "/a/updir", "/a/slash", "/a/tobc", "/a/fifo",
					"/a/loop1", "/chain/m", "/a/updir/a/b/../b/c",
					"/deep/d1/d2/absdir", "/a/nothing", "/" };
		for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
			struct stat s1, s2;
			char **n1 = NULL, **n2 = NULL;
			size_t k1 = 0, k2 = 0;
			int r1, r2, l1, l2, o1, o2;

			lb_fs_no_openat2 = 0;
			r1 = lb_fs_stat(&rfs, paths[i], &s1);
			l1 = lb_fs_list(&rfs, paths[i], &n1, &k1);
			o1 = lb_fs_open(&rfs, paths[i]);
			lb_fs_no_openat2 = 1;
			r2 = lb_fs_stat(&rfs, paths[i], &s2);
			l2 = lb_fs_list(&rfs, paths[i], &n2, &k2);
			o2 = lb_fs_open(&rfs, paths[i]);
			lb_fs_no_openat2 = 0;
			CHECK_INT(r1, r2);
			if (!r1 && !r2)
				CHECK(s1.st_ino == s2.st_ino && s1.st_dev == s2.st_dev);
			CHECK_INT(l1, l2);
			CHECK_INT(k1, k2);
			for (size_t j = 0; j < k1 && j < k2; j++)
				CHECK_STR(n1[j], n2[j]);
			CHECK_INT(o1 < 0 ? o1 : 0, o2 < 0 ? o2 : 0);
			if (o1 >= 0)
				close(o1);
			if (o2 >= 0)
				close(o2);
			if (!l1)
				lb_fs_list_free(n1, k1);
			if (!l2)
				lb_fs_list_free(n2, k2);
		}
		/* the root's own identity: "/" is fs->dir itself */
		struct stat s, t;
		CHECK_INT(lb_fs_stat(&rfs, "/a/slashup", &s), 0);
		CHECK_INT(stat(root, &t), 0);
		CHECK(s.st_ino == t.st_ino);
	}

	/* --- FIFOs, sockets and device nodes never block nor get opened --- */
	TEST("fs a FIFO is looked up, never opened") {
		for (int w = 0; w < 2; w++) {
			struct stat st;
			char *buf, **names;
			size_t len, n;

			lb_fs_no_openat2 = w;
			CHECK_INT(lb_fs_open(&rfs, "/a/fifo"), -EINVAL);
			CHECK_INT(lb_fs_read(&rfs, "/a/fifo", 100, &buf, &len), -EINVAL);
			CHECK_INT(lb_fs_list(&rfs, "/a/fifo", &names, &n), -ENOTDIR);
			CHECK_INT(lb_fs_stat(&rfs, "/a/fifo", &st), 0);
			CHECK(S_ISFIFO(st.st_mode));
			CHECK_INT(lb_fs_open(&rfs, "/a/b"), -EISDIR);
			CHECK_INT(lb_fs_list(&rfs, "/a/f.txt", &names, &n), -ENOTDIR);
		}
		lb_fs_no_openat2 = 0;
	}
	TEST("fs a socket and a device node are refused") {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		int s = socket(AF_UNIX, SOCK_STREAM, 0), dev;

		snprintf(sa.sun_path, sizeof(sa.sun_path), "%.80s/a/sock", root);
		CHECK(s >= 0 && !bind(s, (struct sockaddr *)&sa, sizeof(sa)));
		snprintf(path, sizeof(path), "%s/a/null", root);
		dev = mknod(path, S_IFCHR | 0666, makedev(1, 3));
		for (int w = 0; w < 2; w++) {
			lb_fs_no_openat2 = w;
			CHECK_INT(lb_fs_open(&rfs, "/a/sock"), -EINVAL);
			if (!dev)
				CHECK_INT(lb_fs_open(&rfs, "/a/null"), -EINVAL);
		}
		lb_fs_no_openat2 = 0;
		if (s >= 0)
			close(s);
		if (dev)
			printf("# mknod: %s: the device node case was not run\n", strerror(errno));
	}

	/* every config place of a scanned filesystem holding a FIFO */
	{
		char h[512];
		snprintf(h, sizeof(h), "%.400s/h", d);
		mkdir(h, 0755);
		snprintf(root, sizeof(root), "%.400s", h);
		mk('d', 0, "loader");
		mk('d', 0, "loader/entries");
		mk('d', 0, "EFI");
		mk('d', 0, "EFI/Linux");
		mk('d', 0, "boot");
		mk('d', 0, "boot/grub");
		mk('f', 0, "loader/loader.conf");
		mk('f', 0, "loader/entries/a-fifo.conf");
		mk('f', 0, "EFI/Linux/x.efi");
		mk('f', 0, "boot/grub/fifo.cfg");
		mk('f', 0, "boot/grub/fifo2.cfg");
		mk('f', 0, "initrd-fifo");
		/* a bzImage as far as the dry run looks */
		uint8_t k[0x400] = { 0 };
		k[0x1fe] = 0x55, k[0x1ff] = 0xaa;
		memcpy(k + 0x202, "HdrS", 4);
		snprintf(path, sizeof(path), "%.400s/vmlinuz", h);
		FILE *kf = fopen(path, "w");
		if (kf) {
			fwrite(k, 1, sizeof(k), kf);
			fclose(kf);
		}
		put("title good\nlinux /vmlinuz\noptions good=1\n", "loader/entries/b-good.conf");
		put("title fifo initrd\nlinux /vmlinuz\ninitrd /initrd-fifo\n", "loader/entries/c-initrd.conf");
		put("source /boot/grub/fifo.cfg\nconfigfile /boot/grub/fifo2.cfg\n"
		    "menuentry grubgood { linux /vmlinuz g=1 }\n", "boot/grub/grub.cfg");
	}
	TEST("FIFOs at every config path: one message each, the scan goes on") {
		for (int w = 0; w < 2; w++) {
			struct lb_fs hfs = { .dir = root, .name = "/dev/h1", .uuid = "H" };
			struct lb_fsset set = { &hfs, 1 };
			struct lb_entries l = LB_ENTRIES_INIT;
			int fifo_msgs[5] = { 0 }, good = 0, gg = 0;
			const struct lb_entry *initrd_e = NULL;

			lb_fs_no_openat2 = w;
			CHECK_INT(lb_scan(&set, &l), 0);
			for (size_t i = 0; i < l.n_msgs; i++) {
				const char *m = l.msgs[i];
				printf("# %s\n", m);
				fifo_msgs[0] += !!strstr(m, "loader/loader.conf");
				fifo_msgs[1] += !!strstr(m, "a-fifo.conf");
				fifo_msgs[2] += !!strstr(m, "x.efi");
				fifo_msgs[3] += !!strstr(m, "fifo.cfg");
				fifo_msgs[4] += !!strstr(m, "fifo2.cfg");
			}
			for (int j = 0; j < 5; j++)
				CHECK_INT(fifo_msgs[j], 1);
			for (size_t i = 0; i < l.n; i++) {
				good += l.v[i].title && !strcmp(l.v[i].title, "good");
				gg += l.v[i].title && !strcmp(l.v[i].title, "grubgood");
				if (l.v[i].title && !strcmp(l.v[i].title, "fifo initrd"))
					initrd_e = &l.v[i];
			}
			CHECK_INT(good, 1);
			CHECK_INT(gg, 1);
			CHECK(initrd_e != NULL);
			if (initrd_e) {
				struct lb_kexec_req rq = { .set = &set, .entry = initrd_e, .dry_run = 1 };
				char why[256] = "";
				CHECK_INT(lb_kexec_load(&rq, why, sizeof(why)), -EINVAL);
				CHECK(strstr(why, "/initrd-fifo") != NULL);
			}
			lb_entries_free(&l);
		}
		lb_fs_no_openat2 = 0;
	}
	TEST("fs memo: a snapshot of reads, stats, lists and failures, copies each time") {
		char *buf = NULL, **names = NULL;
		size_t len = 0, n = 0;
		struct stat st;
		FILE *w;

		hook_calls = 0;
		lb_fs_read_hook = count_hook;
		CHECK_INT(lb_fs_memo(1), 0);
		CHECK_INT(lb_fs_read(&fs, "/a/f.txt", 100, &buf, &len), 0);
		CHECK_STR(buf, "hello\n");
		buf[0] = 'X'; /* the caller's copy */
		free(buf);
		CHECK_INT(lb_fs_stat(&fs, "/a/f.txt", &st), 0);
		CHECK_INT(st.st_size, 6);
		CHECK_INT(lb_fs_read(&fs, "/a/new.txt", 100, &buf, &len), -ENOENT);
		CHECK_INT(lb_fs_list(&fs, "/a", &names, &n), 0);
		CHECK_INT(n, 3);
		lb_fs_list_free(names, n);
		/* the tree changes under it: the memo does not see it */
		snprintf(path, sizeof(path), "%s/a/f.txt", d);
		w = fopen(path, "w");
		fputs("changed!\n", w);
		fclose(w);
		snprintf(path, sizeof(path), "%s/a/new.txt", d);
		w = fopen(path, "w");
		fclose(w);
		CHECK_INT(lb_fs_read(&fs, "/a/f.txt", 100, &buf, &len), 0);
		CHECK_STR(buf, "hello\n");
		CHECK_INT(len, 6);
		free(buf);
		CHECK_INT(lb_fs_read(&fs, "/a/f.txt", 3, &buf, &len), -EFBIG); /* its own limit */
		CHECK_INT(lb_fs_stat(&fs, "/a/f.txt", &st), 0);
		CHECK_INT(st.st_size, 6);
		CHECK_INT(lb_fs_read(&fs, "/a/new.txt", 100, &buf, &len), -ENOENT);
		CHECK_INT(lb_fs_list(&fs, "/a", &names, &n), 0);
		CHECK_INT(n, 3);
		lb_fs_list_free(names, n);
		CHECK_INT(lb_fs_list(&fs, "/a/f.txt", &names, &n), -ENOTDIR);
		CHECK_INT(hook_calls, 2); /* every read returned, memo or not */
		/* off: the tree as it is */
		CHECK_INT(lb_fs_memo(0), 0);
		CHECK_INT(lb_fs_read(&fs, "/a/f.txt", 100, &buf, &len), 0);
		CHECK_STR(buf, "changed!\n");
		free(buf);
		CHECK_INT(lb_fs_read(&fs, "/a/new.txt", 100, &buf, &len), 0);
		free(buf);
		CHECK_INT(lb_fs_list(&fs, "/a", &names, &n), 0);
		CHECK_INT(n, 4);
		lb_fs_list_free(names, n);
		lb_fs_read_hook = NULL;
		/* more distinct lookups than it keeps: each still answered */
		CHECK_INT(lb_fs_memo(1), 0);
		int bad = 0;

		for (int i = 0; i < 5000; i++) {
			char p[64];

			snprintf(p, sizeof(p), "/a/none%d", i % 2500);
			bad += lb_fs_stat(&fs, p, &st) != -ENOENT;
		}
		CHECK_INT(bad, 0);
		CHECK_INT(lb_fs_stat(&fs, "/a/f.txt", &st), 0);
		CHECK_INT(st.st_size, 9);
		CHECK_INT(lb_fs_memo(0), 0);
	}
	TEST("fs identity: a UUID, label or name that names two filesystems resolves to none (issue 23, 3)") {
		/* an ISO labelled like the FAT's serial, a FAT, and a disk
		 * whose label is another's device name */
		struct lb_fs v[4] = {
			{ .dir = "/run/a", .name = "/dev/sr0", .uuid = "2024-01-01-00-00-00-00",
			  .label = "ABCD-1234", .fstype = "iso9660" },
			{ .dir = "/run/b", .name = "/dev/vda1", .uuid = "ABCD-1234", .fstype = "vfat" },
			{ .dir = "/run/c", .name = "/dev/vdb1", .uuid = "u-3", .label = "/dev/vda1" },
			{ .dir = "/run/d", .name = "/dev/vdc1", .label = "data" },
		};
		struct lb_fsset set = { v, 4 };
		struct lb_entry e = { .fs = "ABCD-1234", .kernel = "/vmlinuz", .title = "t" };
		struct lb_kexec_req rq = { .set = &set, .entry = &e, .dry_run = 1 };
		char why[300];

		/* a UUID equal to another's label: neither wins */
		CHECK(lb_fsset_by_ident(&set, "ABCD-1234") == NULL);
		/* UUIDs compare without case, labels exactly */
		CHECK(lb_fsset_by_ident(&set, "abcd-1234") == &v[1]);
		CHECK_INT((int)lb_fsset_count_ident(&set, "ABCD-1234"), 2);
		/* a label equal to a device name: neither wins */
		CHECK(lb_fsset_by_ident(&set, "/dev/vda1") == NULL);
		/* what names one still resolves; GRUB's search keeps its order */
		CHECK(lb_fsset_by_ident(&set, "2024-01-01-00-00-00-00") == &v[0]);
		CHECK(lb_fsset_by_ident(&set, "/dev/sr0") == &v[0]);
		CHECK(lb_fsset_by_ident(&set, "data") == &v[3]);
		CHECK(lb_fsset_by_ident(&set, "u-3") == &v[2]);
		CHECK(lb_fsset_by_uuid(&set, "ABCD-1234") == &v[1]);
		/* the FAT's identity is confusable: its entries name its device */
		CHECK_INT((int)lb_fsset_mark_ambiguous(&set), 1);
		CHECK_INT(v[1].ambiguous, 1);
		CHECK_INT(v[0].ambiguous + v[2].ambiguous + v[3].ambiguous, 0);
		CHECK_STR(lb_fs_ident(&v[1]), "/dev/vda1");
		/* ... and an entry that names the confusable string is refused,
		 * with one line that says why */
		CHECK_INT(lb_kexec_load(&rq, why, sizeof(why)), -ENODEV);
		CHECK_STR(why, "ABCD-1234: names more than one filesystem (as UUID, label or device): ambiguous, refused");
		/* a label alone equal to another's label (no UUIDs): both marked */
		struct lb_fs w[2] = {
			{ .dir = "/run/e", .name = "/dev/vdd1", .label = "ESP" },
			{ .dir = "/run/f", .name = "/dev/vde1", .label = "ESP" },
		};
		struct lb_fsset set2 = { w, 2 };
		CHECK_INT((int)lb_fsset_mark_ambiguous(&set2), 2);
		CHECK(lb_fsset_by_ident(&set2, "ESP") == NULL);
		CHECK(lb_fsset_by_ident(&set2, "/dev/vde1") == &w[1]);
	}
	TEST("entries default and remove") {
		struct lb_entries l = LB_ENTRIES_INIT;
		struct lb_entry *e = lb_entries_add(&l);
		lb_setstr(&e->title, "one");
		e = lb_entries_add(&l);
		lb_setstr(&e->title, "two");
		lb_entry_add_initrd(e, "/a");
		lb_entries_set_default(&l, 1);
		CHECK_INT(lb_entries_default(&l), 1);
		lb_entries_remove(&l, 0);
		CHECK_INT(l.n, 1);
		CHECK_STR(l.v[0].title, "two");
		CHECK_INT(lb_entries_default(&l), 0);
		lb_entries_free(&l);
	}
	lb_fs_free(&fs);
	snprintf(path, sizeof(path), "rm -rf %s", d);
	system(path);
	return t_done();
}
