/* GRUB's save_env: recorded by the interpreter (Debian's grub.cfg clearing
 * next_entry after grub-reboot), and the environment block rewritten as
 * the real grub-editenv writes it (the oracle, when installed). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	{
		char cmd[200];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpd);
		if (system(cmd))
			printf("# cannot remove %s\n", tmpd);
	}
	return t_done();
}
