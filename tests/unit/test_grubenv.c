/* GRUB's save_env: recorded by the interpreter (Debian's grub.cfg clearing
 * next_entry after grub-reboot), and the environment block rewritten as
 * the real grub-editenv writes it (the oracle, when installed). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grub.h"
#include "grubenv.h"
#include "t.h"

static char tmpd[128];

static size_t slurp(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "rb");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, cap, f);
		fclose(f);
	}
	return n;
}

static int sh(const char *fmt, const char *a)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), fmt, a, a);
	return system(cmd);
}

static void put_block(const char *path, const char *var)
{
	char b[LB_GRUBENV_SIZE];
	FILE *f = fopen(path, "wb");
	int n = snprintf(b, sizeof(b), "# GRUB Environment Block\n%s\n", var);

	memset(b + n, '#', sizeof(b) - (size_t)n);
	if (f) {
		fwrite(b, 1, sizeof(b), f);
		fclose(f);
	}
}

/*
 * The write happens inside the scanned filesystem only, to the file that
 * was read: an attacker's disk with `boot -> /somewhere` (an absolute
 * symlink mid-path) must not make lboot write a file of the firmware's own
 * tree, even when that file has the inode number of the one read (two
 * tmpfs start their inode numbers alike, as two ext4 do). Each fs is a
 * tmpfs in a private mount namespace (root only).
 */
static void test_apply_confined(void)
{
	char scan[200], outer[200], p[600], buf[LB_GRUBENV_SIZE + 1];
	struct lb_fs fs = { .name = "/dev/test", .fstype = "ext4" };
	struct lb_grub_save sv = { .fs = &fs, .n = 1 };
	struct stat in, out;
	int have = 0;

	sv.name[0] = "next_entry";
	sv.value[0] = "";
	snprintf(scan, sizeof(scan), "%s/scan", tmpd);
	snprintf(outer, sizeof(outer), "%s/outer", tmpd);
	fs.dir = scan;
	if (getuid() == 0 && !unshare(CLONE_NEWNS) &&
	    !mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) &&
	    !mkdir(scan, 0755) && !mkdir(outer, 0755) &&
	    !mount("t", scan, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "nr_inodes=10000") &&
	    !mount("t", outer, "tmpfs", 0, "nr_inodes=10000"))
		have = 1;
	TEST("apply: a plain grubenv on the scanned fs is written") {
		if (!have) {
			SKIP("needs root and mount namespaces");
			break;
		}
		snprintf(p, sizeof(p), "%s/grub", scan);
		mkdir(p, 0755);
		snprintf(p, sizeof(p), "%s/grub/grubenv", scan);
		put_block(p, "next_entry=2");
		snprintf(sv.path, sizeof(sv.path), "/grub/grubenv");
		mount(NULL, scan, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
		CHECK_INT(lb_grubenv_apply(&sv, stdout), 0);
		CHECK_INT(slurp(p, buf, sizeof(buf)), LB_GRUBENV_SIZE);
		buf[LB_GRUBENV_SIZE] = 0;
		CHECK(strstr(buf, "\nnext_entry=\n") != NULL);
	}
	TEST("apply: an absolute symlink mid-path does not lead the write out of the fs") {
		char target[300], victim[400];
		if (!have) {
			SKIP("needs root and mount namespaces");
			break;
		}
		mount(NULL, scan, NULL, MS_REMOUNT | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
		/* on the scanned fs: boot -> OUTER/g (absolute), and the same
		 * name inside the fs, OUTER/g/grubenv, which is what a lookup
		 * inside the root finds */
		snprintf(target, sizeof(target), "%s/g", outer);
		snprintf(p, sizeof(p), "%s/boot", scan);
		CHECK(symlink(target, p) == 0);
		snprintf(p, sizeof(p), "%s%s", scan, target);
		snprintf(buf, sizeof(buf), "mkdir -p '%s'", p);
		CHECK(system(buf) == 0);
		snprintf(p, sizeof(p), "%s%s/grubenv", scan, target);
		put_block(p, "next_entry=2");
		CHECK(stat(p, &in) == 0);
		/* the firmware's file, on another device, given the same inode
		 * number: files made on the fresh tmpfs until one has it */
		snprintf(victim, sizeof(victim), "%s/grubenv", target);
		mkdir(target, 0755);
		for (int i = 0; i < 5000; i++) {
			char f[400];
			snprintf(f, sizeof(f), "%s/f%d", outer, i);
			close(open(f, O_CREAT | O_WRONLY, 0644));
			if (stat(f, &out) || out.st_ino + 1 >= in.st_ino)
				break;
		}
		put_block(victim, "next_entry=firmware");
		CHECK(stat(victim, &out) == 0);
		if (out.st_ino != in.st_ino || out.st_dev == in.st_dev) {
			SKIP("could not give the outer file inode %lu", (unsigned long)in.st_ino);
			break;
		}
		snprintf(sv.path, sizeof(sv.path), "/boot/grubenv");
		mount(NULL, scan, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
		CHECK(lb_grubenv_apply(&sv, stdout) < 0);
		CHECK_INT(slurp(victim, buf, sizeof(buf)), LB_GRUBENV_SIZE);
		buf[LB_GRUBENV_SIZE] = 0;
		CHECK(strstr(buf, "\nnext_entry=firmware\n") != NULL);
		CHECK_INT(slurp(p, buf, sizeof(buf)), LB_GRUBENV_SIZE);
		buf[LB_GRUBENV_SIZE] = 0;
		CHECK(strstr(buf, "\nnext_entry=2\n") != NULL);
	}
	TEST("apply: a symlink inside the fs is not written through") {
		if (!have) {
			SKIP("needs root and mount namespaces");
			break;
		}
		mount(NULL, scan, NULL, MS_REMOUNT | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
		snprintf(p, sizeof(p), "%s/grub/grubenv", scan);
		put_block(p, "next_entry=2");
		snprintf(p, sizeof(p), "%s/g2", scan);
		CHECK(symlink("grub", p) == 0);
		snprintf(sv.path, sizeof(sv.path), "/g2/grubenv");
		mount(NULL, scan, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
		CHECK_INT(lb_grubenv_apply(&sv, stdout), -ELOOP);
		snprintf(p, sizeof(p), "%s/grub/grubenv", scan);
		CHECK_INT(slurp(p, buf, sizeof(buf)), LB_GRUBENV_SIZE);
		buf[LB_GRUBENV_SIZE] = 0;
		CHECK(strstr(buf, "\nnext_entry=2\n") != NULL);
	}
	if (have) {
		umount2(scan, MNT_DETACH);
		umount2(outer, MNT_DETACH);
	}
}

int main(void)
{
	char envf[256], boot[256], cfg[300];

	snprintf(tmpd, sizeof(tmpd), "/tmp/lboot-test-grubenv.XXXXXX");
	if (!mkdtemp(tmpd))
		return 1;
	snprintf(envf, sizeof(envf), "%s/grubenv", tmpd);

	TEST("update: values set, unknown ones appended, padding to 1024, as grub-editenv writes") {
		char old[LB_GRUBENV_SIZE + 1], want[LB_GRUBENV_SIZE + 1], out[LB_GRUBENV_SIZE];
		struct lb_grub_save s = { .n = 2 };
		size_t n;

		if (system("command -v grub-editenv >/dev/null 2>&1")) {
			SKIP("grub-editenv (grub-common) not installed");
		} else {
			CHECK_INT(sh("grub-editenv %s create && grub-editenv %s set next_entry=2 saved_entry='Debian GNU/Linux'", envf), 0);
			n = slurp(envf, old, sizeof(old));
			CHECK_INT(n, LB_GRUBENV_SIZE);
			s.name[0] = "next_entry";
			s.value[0] = "";
			s.name[1] = "boot_once";
			s.value[1] = "true";
			CHECK_INT(lb_grubenv_update(old, n, &s, out), 0);
			CHECK_INT(sh("grub-editenv %s set next_entry= && grub-editenv %s set boot_once=true", envf), 0);
			CHECK_INT(slurp(envf, want, sizeof(want)), LB_GRUBENV_SIZE);
			CHECK(!memcmp(out, want, LB_GRUBENV_SIZE));
			/* the same again changes nothing: no write */
			CHECK_INT(lb_grubenv_update(want, LB_GRUBENV_SIZE, &s, out), 1);
		}
	}
	TEST("update: escapes, refusals") {
		char old[LB_GRUBENV_SIZE], out[LB_GRUBENV_SIZE];
		struct lb_grub_save s = { .n = 1, .name = { "x" }, .value = { "a\\b\nc" } };
		static const char sig[] = "# GRUB Environment Block\n";

		memset(old, '#', sizeof(old));
		memcpy(old, sig, sizeof(sig) - 1);
		CHECK_INT(lb_grubenv_update(old, sizeof(old), &s, out), 0);
		CHECK(!memcmp(out + sizeof(sig) - 1, "x=a\\\\b\\\nc\n#", 11));
		CHECK_INT(lb_grubenv_update(old, sizeof(old) - 1, &s, out), -EINVAL);
		old[0] = 'X';
		CHECK_INT(lb_grubenv_update(old, sizeof(old), &s, out), -EINVAL);
		old[0] = '#';
		{
			static char big[2000];
			memset(big, 'v', sizeof(big) - 1);
			s.value[0] = big;
			CHECK_INT(lb_grubenv_update(old, sizeof(old), &s, out), -ENOSPC);
		}
	}
	TEST("interpreter: Debian's next_entry block records save_env with the cleared value") {
		struct lb_fs fs = { .dir = tmpd, .name = "/dev/vdx1", .uuid = "abcd" };
		struct lb_fsset set = { .v = &fs, .n = 1 };
		struct lb_entries l = LB_ENTRIES_INIT;
		struct lb_grub_info info = { 0 };
		static const char text[] =
			"if [ -s $prefix/grubenv ]; then\n  load_env\nfi\n"
			"if [ \"${next_entry}\" ] ; then\n   set default=\"${next_entry}\"\n"
			"   set next_entry=\n   save_env next_entry\n   set boot_once=true\nelse\n"
			"   set default=\"0\"\nfi\n"
			"menuentry 'A' { linux /vmlinuz a }\nmenuentry 'B' { linux /vmlinuz b }\n"
			"menuentry 'C' { linux /vmlinuz c }\n";
		char e[LB_GRUBENV_SIZE];
		static const char sig[] = "# GRUB Environment Block\n";
		FILE *f;

		snprintf(boot, sizeof(boot), "%s/boot", tmpd);
		mkdir(boot, 0755);
		snprintf(cfg, sizeof(cfg), "%s/boot/grub", tmpd);
		mkdir(cfg, 0755);
		snprintf(cfg, sizeof(cfg), "%s/boot/grub/grub.cfg", tmpd);
		f = fopen(cfg, "w");
		if (f) {
			fputs(text, f);
			fclose(f);
		}
		memset(e, '#', sizeof(e));
		memcpy(e, sig, sizeof(sig) - 1);
		memcpy(e + sizeof(sig) - 1, "next_entry=2\n", 13);
		snprintf(cfg, sizeof(cfg), "%s/boot/grub/grubenv", tmpd);
		f = fopen(cfg, "w");
		if (f) {
			fwrite(e, 1, sizeof(e), f);
			fclose(f);
		}
		CHECK_INT(lb_grub_parse(&set, &fs, "/boot/grub/grub.cfg", &l, &info), 0);
		CHECK_INT(l.n, 3);
		CHECK_INT(lb_entries_default(&l), 2);
		CHECK_INT(info.n_save, 1);
		if (info.n_save == 1) {
			CHECK_STR(info.save[0].path, "/boot/grub/grubenv");
			CHECK(info.save[0].fs == &fs);
			CHECK_INT(info.save[0].n, 1);
			CHECK_STR(info.save[0].name[0], "next_entry");
			CHECK_STR(info.save[0].value[0], "");
		}
		lb_grub_info_free(&info);
		lb_entries_free(&l);
	}
	test_apply_confined();
	{
		char cmd[200];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpd);
		if (system(cmd))
			printf("# cannot remove %s\n", tmpd);
	}
	return t_done();
}
