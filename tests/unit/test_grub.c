/* GRUB config interpreter: language, menu, defaults, devices, grubenv,
 * blscfg, and real-world configs (tests/files/grub/NAME). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "entry.h"
#include "fs.h"
#include "grub.h"
#include "grub_int.h"
#include "t.h"

static struct lb_entries L;

/* Parse a buffer with no filesystem. */
static int parse(const char *cfg)
{
	lb_entries_free(&L);
	return lb_grub_parse_buf(NULL, NULL, "t.cfg", cfg, strlen(cfg), &L);
}

static long find(const char *title)
{
	for (size_t i = 0; i < L.n; i++)
		if (L.v[i].title && !strcmp(L.v[i].title, title))
			return (long)i;
	return -1;
}

static const char *def_title(void)
{
	long d = lb_entries_default(&L);

	return d < 0 ? "(none)" : L.v[d].title;
}

static int has_msg(const char *sub)
{
	for (size_t i = 0; i < L.n_msgs; i++)
		if (strstr(L.msgs[i], sub))
			return 1;
	return 0;
}

static int n_default(void)
{
	int n = 0;

	for (size_t i = 0; i < L.n; i++)
		n += L.v[i].is_default != 0;
	return n;
}

/* --- filesystem sets from fixture directories --- */

static struct lb_fsset S;

struct fsdef {
	const char *sub, *uuid, *label, *grub;
};

static char *dupn(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* Filesystems SUB of tests/files/grub/NAME with the given identities
 * (grub NULL: GRUB device names unknown, as on the target). */
static void fsset(const char *name, const struct fsdef *d, int with_grub)
{
	lb_fsset_free(&S);
	for (size_t i = 0; d[i].sub; i++) {
		char dir[4200];
		struct lb_fs f = { 0 };

		snprintf(dir, sizeof(dir), "%s/grub/%s/%s", t_files(), name, d[i].sub);
		f.dir = strdup(dir);
		f.name = strdup(d[i].sub);
		f.uuid = dupn(d[i].uuid);
		f.label = dupn(d[i].label);
		f.grub = with_grub ? dupn(d[i].grub) : NULL;
		if (lb_fsset_add(&S, &f)) {
			printf("# cannot add %s\n", dir);
			exit(1);
		}
	}
}

/* The arguments the kernel takes from cmdline, as Linux's next_arg
 * (lib/cmdline.c, kernel/params.c) splits them: spaces end an argument
 * outside quotes, every '"' toggles quoting (there is no escape), a
 * leading quote and its closing one are dropped. */
static int kernel_args(const char *cmdline, char out[][256], int max)
{
	char buf[4096], *args = buf;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", cmdline);
	while (*args == ' ')
		args++;
	while (*args && n < max) {
		int in_quote = 0, quoted = 0;
		size_t i;
		char *start;

		if (*args == '"') {
			args++;
			in_quote = quoted = 1;
		}
		for (i = 0; args[i]; i++) {
			if (args[i] == ' ' && !in_quote)
				break;
			if (args[i] == '"')
				in_quote = !in_quote;
		}
		start = args;
		if (quoted && i && args[i - 1] == '"')
			args[i - 1] = 0;
		if (args[i])
			args[i++] = 0;
		snprintf(out[n++], 256, "%.255s", start);
		args += i;
		while (*args == ' ')
			args++;
	}
	return n;
}

static int parse_fs(size_t cfg_fs, const char *path)
{
	lb_entries_free(&L);
	return lb_grub_parse(&S, &S.v[cfg_fs], path, &L, NULL);
}

static void dump(void)
{
	for (size_t i = 0; i < L.n; i++) {
		struct lb_entry *e = &L.v[i];

		printf("# [%zu]%s%s %s | id=%s | %s:%s", i, e->is_default ? "*" : "",
		       e->hidden ? "H" : "", e->title, e->id, e->fs ? e->fs : "-",
		       e->kernel);
		for (size_t k = 0; k < e->n_initrd; k++)
			printf(" +%s", e->initrd[k]);
		printf(" | %s\n", e->cmdline ? e->cmdline : "");
	}
	for (size_t i = 0; i < L.n_msgs; i++)
		printf("#   msg: %s\n", L.msgs[i]);
}

#define CHECK_ENTRY(i, ti, idv, fsv, k, cl) do { \
	CHECK((size_t)(i) < L.n); \
	if ((size_t)(i) < L.n) { \
		CHECK_STR(L.v[i].title, ti); \
		CHECK_STR(L.v[i].id, idv); \
		const char *fsv_ = (fsv); \
		if (fsv_) CHECK_STR(L.v[i].fs, fsv_); \
		else CHECK(L.v[i].fs == NULL); \
		CHECK_STR(L.v[i].kernel, k); \
		if (cl) CHECK_STR(L.v[i].cmdline, cl); \
		else CHECK(L.v[i].cmdline == NULL); \
	} } while (0)

#define CHECK_INITRDS(i, ...) do { \
	const char *exp_[] = { __VA_ARGS__, NULL }; size_t ne_ = 0; \
	while (exp_[ne_]) ne_++; \
	CHECK((size_t)(i) < L.n); \
	if ((size_t)(i) < L.n) { \
		CHECK_INT(L.v[i].n_initrd, ne_); \
		for (size_t k_ = 0; k_ < ne_ && k_ < L.v[i].n_initrd; k_++) \
			CHECK_STR(L.v[i].initrd[k_], exp_[k_]); \
	} } while (0)

int main(void)
{
	TEST("grub plain menuentry, timeout, default index") {
		CHECK_INT(parse(
			"set default=1\n"
			"set timeout=7\n"
			"menuentry 'Alpha' {\n"
			"\tlinux /vmlinuz-a root=/dev/sda1 ro quiet\n"
			"\tinitrd /initrd-a.img\n"
			"}\n"
			"menuentry \"Beta\" --class gnu-linux {\n"
			"\tlinux\t/boot/vmlinuz-b root=UUID=1234\n"
			"\tinitrd /boot/ucode.img /boot/initrd-b.img\n"
			"}\n"), 0);
		CHECK_INT(L.n, 2);
		CHECK_INT(L.timeout, 7);
		CHECK_ENTRY(0, "Alpha", "Alpha", NULL, "/vmlinuz-a", "BOOT_IMAGE=/vmlinuz-a root=/dev/sda1 ro quiet");
		CHECK_INITRDS(0, "/initrd-a.img");
		CHECK_ENTRY(1, "Beta", "Beta", NULL, "/boot/vmlinuz-b", "BOOT_IMAGE=/boot/vmlinuz-b root=UUID=1234");
		CHECK_INITRDS(1, "/boot/ucode.img", "/boot/initrd-b.img");
		CHECK_STR(def_title(), "Beta");
		CHECK_INT(n_default(), 1);
		CHECK_STR(L.v[0].source, "t.cfg:3");
	}
	TEST("grub CRLF lines and a NUL: carriage returns dropped, a NUL ends its line") {
		static const char cfg[] = "set x=1\r\nmenuentry 'A\r' {\r\n"
			"  linux /vmlinuz-a v=$x\0 w=2\n  ignored\r\n"
			"  initrd /i\r\r\n}\r\n\0\0\n"
			"menuentry B { linux /b; }";

		lb_entries_free(&L);
		CHECK_INT(lb_grub_parse_buf(NULL, NULL, "t.cfg", cfg, sizeof(cfg) - 1, &L), 0);
		CHECK_INT(L.n, 2);
		if (L.n == 2) {
			CHECK_STR(L.v[0].title, "A");
			CHECK_STR(L.v[0].kernel, "/vmlinuz-a");
			CHECK_STR(L.v[0].cmdline, "BOOT_IMAGE=/vmlinuz-a v=1");
			CHECK_INT(L.v[0].n_initrd, 1);
			CHECK_STR(L.v[1].title, "B");
		}
	}
	TEST("grub no timeout, default by title and by id") {
		parse("menuentry A --id a-id { linux /a }\n"
		      "menuentry B --id=b-id { linux /b }\n"
		      "menuentry C { linux /c }\n"
		      "set default=C\n");
		CHECK_INT(L.timeout, -1);
		CHECK_STR(def_title(), "C");
		parse("menuentry A --id a-id { linux /a }\n"
		      "menuentry B --id=b-id { linux /b }\n"
		      "set default=\"b-id\"\n");
		CHECK_STR(def_title(), "B");
		CHECK_STR(L.v[1].id, "b-id");
	}
	TEST("grub unresolvable default falls back to 0") {
		parse("set default=nope\nmenuentry A { linux /a }\nmenuentry B { linux /b }\n");
		CHECK_STR(def_title(), "A");
		CHECK(has_msg("default 'nope' not found"));
		parse("set default=9\nmenuentry A { linux /a }\nmenuentry B { linux /b }\n");
		CHECK_STR(def_title(), "A");
		CHECK_INT(n_default(), 1);
	}
	TEST("grub quoting and expansion") {
		parse("set a='x y'\n"
		      "b=\"q\"\n"
		      "set opts=\"ro  quiet\"\n"
		      "menuentry \"T $a\" {\n"
		      "  linux /k one\\ two 'three four' \"$a\" $opts ${b}z \\$a '$a' \\\n"
		      "     cont\n"
		      "}\n");
		CHECK_INT(L.n, 1);
		CHECK_STR(L.v[0].title, "T x y");
		/* arguments with a space reach the kernel quoted, as GRUB's
		 * loader writes them (grub_create_loader_cmdline) */
		CHECK_STR(L.v[0].cmdline, "BOOT_IMAGE=/k \"one two\" \"three four\" \"x y\" ro quiet qz $a $a cont");
	}
	TEST("grub word splitting of unquoted variables") {
		parse("set k='root=/dev/x   rw'\n"
		      "menuentry A { set n=0; for w in $k; do n=\"$n+\"; done; linux /a $n }\n");
		CHECK_STR(L.v[0].cmdline, "BOOT_IMAGE=/a 0++");
		parse("set k='a b'\nmenuentry A { for w in \"$k\"; do linux /a \"[$w]\"; done }\n");
		CHECK_STR(L.v[0].cmdline, "BOOT_IMAGE=/a \"[a b]\"");
	}
	TEST("grub comments, semicolons, empty words") {
		parse("# comment\nset x=1 # trailing\n"
		      "menuentry 'A#b' { linux /a x#y; initrd /i # c\n}\n"
		      "menuentry '' { linux /e \"\" }\n");
		CHECK_INT(L.n, 2);
		CHECK_STR(L.v[0].title, "A#b");
		CHECK_STR(L.v[0].cmdline, "BOOT_IMAGE=/a x#y");
		CHECK_INITRDS(0, "/i");
		CHECK_STR(L.v[1].title, "");
	}
	TEST("grub if/elif/else and test operators") {
		parse("set v=3\n"
		      "if [ \"$v\" -gt 5 ]; then t=big\n"
		      "elif [ $v -eq 3 -a x = x ]; then t=three\n"
		      "else t=small; fi\n"
		      "if [ -z \"$undef\" ] && true; then :; fi\n"
		      "if test ! -n \"\" -o 1 = 2; then u=neg; fi\n"
		      "if [ \\( a = b \\) -o \\( c != d \\) ]; then w=paren; fi\n"
		      "if false; then z=no; elif nosuchcommand; then z=no2; else z=yes; fi\n"
		      "if [ 10 -lt 9 ]; then y=bad; else y=ok; fi\n"
		      "if [ abc \\< abd ]; then s=lt; fi\n"
		      "menuentry A { linux /a $t $u $w $z $y $s }\n");
		CHECK_STR(L.v[0].cmdline, "BOOT_IMAGE=/a three neg paren yes ok lt");
	}
	TEST("grub functions, positional parameters, return") {
		parse("function f {\n"
		      "  set r=\"$# $1 $2 $@\"\n"
		      "  if [ \"$1\" = stop ]; then return 3; fi\n"
		      "  set r2=after\n"
		      "}\n"
		      "f a 'b c'\n"
		      "f stop; st=$?\n"
		      "menuentry A { linux /a \"$r\" $r2 $st }\n");
		CHECK_STR(L.v[0].cmdline, "BOOT_IMAGE=/a \"1 stop  stop\" after 3");
	}
	TEST("grub loops: for, while, until, break, continue, bound") {
		parse("s=\n"
		      "for i in 1 2 3 4 5; do\n"
		      "  if [ $i = 2 ]; then continue; fi\n"
		      "  if [ $i = 4 ]; then break; fi\n"
		      "  s=\"$s$i\"\n"
		      "done\n"
		      "c=x\n"
		      "while [ \"$c\" != xxxx ]; do c=\"${c}x\"; done\n"
		      "until [ \"$c\" = xxxxxx ]; do c=\"${c}x\"; done\n"
		      "while true; do n=1; done\n"
		      "menuentry A { linux /a $s $c }\n");
		CHECK_STR(L.v[0].cmdline, "BOOT_IMAGE=/a 13 xxxxxx");
		CHECK(has_msg("loop stopped after"));
	}
	TEST("grub entries without linux are skipped with a message") {
		parse("menuentry 'Windows' { insmod chain; chainloader /EFI/ms/bootmgfw.efi }\n"
		      "menuentry 'UEFI' { fwsetup }\n"
		      "menuentry 'Linux' { linux /vmlinuz }\n");
		CHECK_INT(L.n, 1);
		CHECK_STR(def_title(), "Linux");
		CHECK(has_msg("t.cfg:1: entry 'Windows' skipped: chainloader"));
		CHECK(has_msg("t.cfg:2: entry 'UEFI' skipped: no linux command"));
	}
	TEST("grub syntax errors skip the command, the rest loads") {
		parse("menuentry 'Broken' {\n"
		      "  linux /broken\n"
		      "menuentry 'Good' { linux /good }\n"
		      "if [ x ]; then\n"
		      "fi fi\n"
		      "echo 'unterminated\n"
		      "menuentry 'Good2' { linux /good2 }\n"
		      "}\n"
		      "done\n");
		CHECK(find("Good") >= 0);
		CHECK(find("Good2") >= 0);
		CHECK(find("Broken") < 0);
		dump();
		CHECK(has_msg("(command at line 1 skipped)"));
		CHECK(has_msg("unterminated single quote"));
	}
	TEST("grub submenu default paths") {
		static const char cfg[] =
			"menuentry 'Top' --id top { linux /top }\n"
			"submenu 'Advanced' --id adv {\n"
			"  menuentry 'K1' --id k1 { linux /k1 }\n"
			"  menuentry 'K1 rescue' --id k1r { linux /k1 single }\n"
			"  menuentry 'K2' --id k2 { linux /k2 }\n"
			"}\n"
			"menuentry 'Last' { linux /last }\n";
		char buf[1024];
		const char *cases[][2] = {
			{ "1>2", "K2" }, { "adv>k1r", "K1 rescue" }, { "Advanced>K2", "K2" },
			{ "1>k1r", "K1 rescue" }, { "adv", "K1" }, { "1>7", "K1" },
			{ "2", "Last" }, { "top", "Top" }, { "3", "Top" }, { "adv>K1", "K1" },
		};
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			snprintf(buf, sizeof(buf), "set default=\"%s\"\n%s", cases[i][0], cfg);
			parse(buf);
			CHECK_INT(L.n, 5);
			if (strcmp(def_title(), cases[i][1]))
				printf("# default \"%s\" -> %s, expected %s\n", cases[i][0],
				       def_title(), cases[i][1]);
			CHECK_STR(def_title(), cases[i][1]);
			CHECK_INT(n_default(), 1);
		}
		CHECK_STR(L.v[2].id, "adv>k1r");
		CHECK_STR(L.v[4].id, "Last");
	}
	TEST("grub submenu bodies see only exported variables") {
		parse("set a=1\nset b=2\nexport b\n"
		      "submenu S { menuentry E { linux /e \"a=$a\" \"b=$b\" } }\n"
		      "menuentry T { linux /t \"a=$a\" }\n");
		CHECK_STR(L.v[0].cmdline, "BOOT_IMAGE=/e a= b=2");
		CHECK_STR(L.v[1].cmdline, "BOOT_IMAGE=/t a=1");
	}
	TEST("grub entry bodies run after the config, like at boot") {
		parse("set opt=early\n"
		      "menuentry A { linux /a $opt; set opt=changed }\n"
		      "menuentry B { linux /b $opt $1 $2 } extra\n"
		      "set opt=late\n");
		CHECK_STR(L.v[0].cmdline, "BOOT_IMAGE=/a late");
		/* text after a menuentry block is a syntax error in GRUB
		 * (grub-script-check): B is not in the menu */
		CHECK_INT(L.n, 1);
		CHECK(find("B") < 0);
		CHECK(has_msg("unexpected text after } (command at line 3 skipped)"));
	}
	TEST("grub hiddenentry") {
		parse("hiddenentry 'Hidden' --hotkey h { linux /h }\nmenuentry V { linux /v }\n");
		CHECK_INT(L.n, 2);
		CHECK_INT(L.v[0].hidden, 1);
		CHECK_INT(L.v[1].hidden, 0);
	}
	TEST("grub last initrd wins, linux resets initrd") {
		parse("menuentry A { linux /a; initrd /i1 /i2; initrd /i3 }\n"
		      "menuentry B { initrd /x; linux /b }\n");
		CHECK_INITRDS(0, "/i3");
		CHECK_INT(L.v[1].n_initrd, 0);
	}
	TEST("grub garbage does not crash") {
		static const char *junk[] = {
			"}}}{{{", "menuentry", "menuentry {", "if", "for", "for x in",
			"function", "function f", "${", "$", "\"", "'", "\\", "set =",
			"menuentry a { menuentry b { linux /x } }", "[ ( ( ( ]",
			"function f { f; }\nf\n", "eval eval eval", "submenu s { submenu t { } }",
			"set default='>>>'\nmenuentry '>' { linux /x }",
		};
		for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++) {
			CHECK_INT(parse(junk[i]), 0);
			CHECK(n_default() <= 1);
		}
		CHECK_INT(parse("function f { f; }\nf\n"), 0);
		CHECK(has_msg("recursion too deep"));
	}

	/* ---------------- real-world configs ---------------- */
	static const char DU[] = "7a3c5b1e-2f4d-4c8a-9e6b-1d2f3a4b5c6d";
	static const struct fsdef deb[] = {
		{ "esp", "8C1D-2E3F", NULL, "hd0,gpt1" },
		{ "root", "7a3c5b1e-2f4d-4c8a-9e6b-1d2f3a4b5c6d", NULL, "hd0,gpt2" },
		{ 0 } };
	for (int g = 1; g >= 0; g--) {
		char name[128];

		snprintf(name, sizeof(name), "grub debian12 (grub-mkconfig), grub names %s",
			 g ? "known" : "unknown");
		TEST(name) {
			fsset("debian12", deb, g);
			CHECK_INT(parse_fs(1, "/boot/grub/grub.cfg"), 0);
			dump();
			CHECK_INT(L.n, 5);
			CHECK_INT(L.timeout, 5);
			CHECK_ENTRY(0, "Debian GNU/Linux",
				    "gnulinux-simple-7a3c5b1e-2f4d-4c8a-9e6b-1d2f3a4b5c6d", DU,
				    "/boot/vmlinuz-6.1.0-18-amd64", "BOOT_IMAGE=/boot/vmlinuz-6.1.0-18-amd64 root=UUID=7a3c5b1e-2f4d-4c8a-9e6b-1d2f3a4b5c6d ro quiet");
			CHECK_INITRDS(0, "/boot/initrd.img-6.1.0-18-amd64");
			CHECK_ENTRY(2, "Debian GNU/Linux, with Linux 6.1.0-18-amd64 (recovery mode)",
				    "gnulinux-advanced-7a3c5b1e-2f4d-4c8a-9e6b-1d2f3a4b5c6d>"
				    "gnulinux-6.1.0-18-amd64-recovery-7a3c5b1e-2f4d-4c8a-9e6b-1d2f3a4b5c6d",
				    DU, "/boot/vmlinuz-6.1.0-18-amd64", "BOOT_IMAGE=/boot/vmlinuz-6.1.0-18-amd64 root=UUID=7a3c5b1e-2f4d-4c8a-9e6b-1d2f3a4b5c6d ro single");
			CHECK_ENTRY(3, "Debian GNU/Linux, with Linux 6.1.0-17-amd64",
				    "gnulinux-advanced-7a3c5b1e-2f4d-4c8a-9e6b-1d2f3a4b5c6d>"
				    "gnulinux-6.1.0-17-amd64-advanced-7a3c5b1e-2f4d-4c8a-9e6b-1d2f3a4b5c6d",
				    DU, "/boot/vmlinuz-6.1.0-17-amd64", "BOOT_IMAGE=/boot/vmlinuz-6.1.0-17-amd64 root=UUID=7a3c5b1e-2f4d-4c8a-9e6b-1d2f3a4b5c6d ro quiet");
			CHECK_INITRDS(3, "/boot/initrd.img-6.1.0-17-amd64");
			CHECK_STR(def_title(), "Debian GNU/Linux");
			CHECK_INT(n_default(), 1);
			CHECK(has_msg("entry 'UEFI Firmware Settings' skipped: no linux command"));
			CHECK(!has_msg("not found on") && !has_msg("not known"));
			CHECK_STR(L.v[0].source, "/boot/grub/grub.cfg:106");
		}
	}
	TEST("grub debian12 through the ESP stub (search.fs_uuid, configfile)") {
		fsset("debian12", deb, 0);
		CHECK_INT(parse_fs(0, "/EFI/debian/grub.cfg"), 0);
		CHECK_INT(L.n, 5);
		CHECK_STR(L.v[0].fs, DU);
		CHECK_STR(L.v[0].kernel, "/boot/vmlinuz-6.1.0-18-amd64");
		CHECK_STR(def_title(), "Debian GNU/Linux");
		CHECK_INT(L.timeout, 5);
	}
	TEST("grub debian12 GRUB_DEFAULT=saved: saved_entry id path into the submenu") {
		fsset("debian12-saved", deb, 1);
		CHECK_INT(parse_fs(1, "/boot/grub/grub.cfg"), 0);
		CHECK_INT(L.n, 5);
		CHECK_STR(def_title(), "Debian GNU/Linux, with Linux 6.1.0-17-amd64");
		CHECK_INT(lb_entries_default(&L), 3);
		CHECK_INT(n_default(), 1);
	}
	TEST("grub debian12 next_entry (grub-reboot) wins over saved_entry") {
		fsset("debian12-next", deb, 1);
		CHECK_INT(parse_fs(0, "/EFI/debian/grub.cfg"), 0);
		CHECK_STR(def_title(), "Debian GNU/Linux, with Linux 6.1.0-17-amd64 (recovery mode)");
		CHECK_STR(L.v[4].cmdline, "BOOT_IMAGE=/boot/vmlinuz-6.1.0-17-amd64 root=UUID=7a3c5b1e-2f4d-4c8a-9e6b-1d2f3a4b5c6d ro single");
		CHECK_INT(n_default(), 1);
	}

	static const char DB[] = "4b2d6f8a-0c1e-4a3b-8d5f-7e9a1b3c5d7f";
	static const struct fsdef debb[] = {
		{ "esp", "7E8F-9A0B", NULL, "hd0,gpt1" },
		{ "boot", "4b2d6f8a-0c1e-4a3b-8d5f-7e9a1b3c5d7f", NULL, "hd0,gpt2" },
		{ "root", "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a", NULL, "hd0,gpt3" },
		{ 0 } };
	TEST("grub debian12 /boot partition, GRUB_SAVEDEFAULT (grub-mkconfig)") {
		fsset("debian12-bootpart", debb, 0);
		CHECK_INT(parse_fs(0, "/EFI/debian/grub.cfg"), 0);
		dump();
		CHECK_INT(L.n, 5);
		CHECK_INT(L.timeout, 5);
		CHECK_ENTRY(0, "Debian GNU/Linux", "gnulinux-simple-9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a",
			    DB, "/vmlinuz-6.1.0-22-amd64",
			    "BOOT_IMAGE=/vmlinuz-6.1.0-22-amd64 root=UUID=9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a ro quiet");
		CHECK_INITRDS(0, "/initrd.img-6.1.0-22-amd64");
		CHECK_ENTRY(3, "Debian GNU/Linux, with Linux 6.1.0-21-amd64",
			    "gnulinux-advanced-9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a>"
			    "gnulinux-6.1.0-21-amd64-advanced-9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a",
			    DB, "/vmlinuz-6.1.0-21-amd64",
			    "BOOT_IMAGE=/vmlinuz-6.1.0-21-amd64 root=UUID=9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a ro quiet");
		CHECK_INITRDS(3, "/initrd.img-6.1.0-21-amd64");
		CHECK_STR(def_title(), "Debian GNU/Linux, with Linux 6.1.0-21-amd64");
		CHECK_INT(n_default(), 1);
		CHECK(!has_msg("not found on") && !has_msg("not known"));
	}

	static const char UB[] = "c6a1d2e3-4f5a-4b6c-8d7e-9f0a1b2c3d4e";
	static const struct fsdef ubu[] = {
		{ "esp", "2B4C-6D8E", NULL, "hd0,gpt1" },
		{ "root", "9f1e2d3c-4b5a-4697-8877-665544332211", NULL, "hd0,gpt3" },
		{ "boot", "c6a1d2e3-4f5a-4b6c-8d7e-9f0a1b2c3d4e", NULL, "hd0,gpt2" },
		{ 0 } };
	TEST("grub ubuntu2204: /boot partition found by search --fs-uuid from the ESP") {
		fsset("ubuntu2204", ubu, 0);
		CHECK_INT(parse_fs(0, "/EFI/ubuntu/grub.cfg"), 0);
		dump();
		CHECK_INT(L.n, 5);
		CHECK_INT(L.timeout, 0);
		CHECK_ENTRY(0, "Ubuntu", "gnulinux-simple-9f1e2d3c-4b5a-4697-8877-665544332211",
			    UB, "/vmlinuz-5.15.0-91-generic",
			    "BOOT_IMAGE=/vmlinuz-5.15.0-91-generic root=UUID=9f1e2d3c-4b5a-4697-8877-665544332211 ro quiet splash vt.handoff=7");
		CHECK_INITRDS(0, "/initrd.img-5.15.0-91-generic");
		CHECK_ENTRY(1, "Ubuntu, with Linux 5.15.0-91-generic",
			    "gnulinux-advanced-9f1e2d3c-4b5a-4697-8877-665544332211>"
			    "gnulinux-5.15.0-91-generic-advanced-9f1e2d3c-4b5a-4697-8877-665544332211",
			    UB, "/vmlinuz-5.15.0-91-generic",
			    "BOOT_IMAGE=/vmlinuz-5.15.0-91-generic root=UUID=9f1e2d3c-4b5a-4697-8877-665544332211 ro quiet splash vt.handoff=7");
		CHECK_ENTRY(4, "Ubuntu, with Linux 5.15.0-89-generic (recovery mode)",
			    "gnulinux-advanced-9f1e2d3c-4b5a-4697-8877-665544332211>"
			    "gnulinux-5.15.0-89-generic-recovery-9f1e2d3c-4b5a-4697-8877-665544332211",
			    UB, "/vmlinuz-5.15.0-89-generic",
			    "BOOT_IMAGE=/vmlinuz-5.15.0-89-generic root=UUID=9f1e2d3c-4b5a-4697-8877-665544332211 ro recovery nomodeset dis_ucode_ldr");
		CHECK_INITRDS(4, "/initrd.img-5.15.0-89-generic");
		CHECK_STR(def_title(), "Ubuntu");
		CHECK_INT(n_default(), 1);
		CHECK(!has_msg("not found on") && !has_msg("not known"));
	}
	static const char UR[] = "3e5f7a9c-1b2d-4e6f-8a0b-c2d4e6f8a0b2";
	static const struct fsdef ubu24[] = {
		{ "esp", "5C6D-7E8F", NULL, "hd0,gpt1" },
		{ "root", "3e5f7a9c-1b2d-4e6f-8a0b-c2d4e6f8a0b2", NULL, "hd0,gpt2" },
		{ 0 } };
	TEST("grub ubuntu2404: recordfail, memtest, fwsetup --is-supported") {
		fsset("ubuntu2404", ubu24, 1);
		CHECK_INT(parse_fs(0, "/EFI/ubuntu/grub.cfg"), 0);
		dump();
		CHECK_INT(L.n, 7);
		CHECK_INT(L.timeout, 30);
		CHECK_ENTRY(0, "Ubuntu", "gnulinux-simple-3e5f7a9c-1b2d-4e6f-8a0b-c2d4e6f8a0b2",
			    UR, "/boot/vmlinuz-6.8.0-35-generic",
			    "BOOT_IMAGE=/boot/vmlinuz-6.8.0-35-generic root=UUID=3e5f7a9c-1b2d-4e6f-8a0b-c2d4e6f8a0b2 ro quiet splash");
		CHECK_INITRDS(0, "/boot/initrd.img-6.8.0-35-generic");
		CHECK_ENTRY(5, "Memory test (memtest86+x64.efi)", "Memory test (memtest86+x64.efi)",
			    UR, "/boot/memtest86+x64.efi", "BOOT_IMAGE=/boot/memtest86+x64.efi");
		CHECK_ENTRY(6, "Memory test (memtest86+x64.efi, serial console)",
			    "Memory test (memtest86+x64.efi, serial console)",
			    UR, "/boot/memtest86+x64.efi", "BOOT_IMAGE=/boot/memtest86+x64.efi console=ttyS0,115200");
		CHECK(find("UEFI Firmware Settings") < 0);
		CHECK(find("Memory test (memtest86+ia32.bin)") < 0);
		CHECK_STR(def_title(), "Ubuntu");
	}

	static const char FB[] = "5d2e8f4a-7c1b-4e3d-9a6f-0b8c2d4e6f81";
	static const struct fsdef fed[] = {
		{ "esp", "3A4B-5C6D", NULL, "hd0,gpt1" },
		{ "boot", "5d2e8f4a-7c1b-4e3d-9a6f-0b8c2d4e6f81", NULL, "hd0,gpt2" },
		{ "root", "e2c4a6b8-d0f2-4a4c-9e8f-a1b3c5d7e9f0", "fedora", "hd0,gpt3" },
		{ 0 } };
	for (int g = 1; g >= 0; g--) {
		char name[128];

		snprintf(name, sizeof(name), "grub fedora39 blscfg, saved_entry pins a kernel%s",
			 g ? "" : ", grub names unknown");
		TEST(name) {
			fsset("fedora39", fed, g);
			CHECK_INT(parse_fs(0, "/EFI/fedora/grub.cfg"), 0);
			dump();
			CHECK_INT(L.n, 3);
			CHECK_INT(L.timeout, 1);
			CHECK_ENTRY(0, "Fedora Linux (6.7.4-200.fc39.x86_64) 39 (Workstation Edition)",
				    "6a9857a393724b7a981ebb5b8495b9ea-6.7.4-200.fc39.x86_64", FB,
				    "/vmlinuz-6.7.4-200.fc39.x86_64",
				    g ? "BOOT_IMAGE=(hd0,gpt2)/vmlinuz-6.7.4-200.fc39.x86_64 root=UUID=e2c4a6b8-d0f2-4a4c-9e8f-a1b3c5d7e9f0 ro rootflags=subvol=root rhgb quiet" :
				    "BOOT_IMAGE=(5d2e8f4a-7c1b-4e3d-9a6f-0b8c2d4e6f81)/vmlinuz-6.7.4-200.fc39.x86_64 root=UUID=e2c4a6b8-d0f2-4a4c-9e8f-a1b3c5d7e9f0 ro rootflags=subvol=root rhgb quiet");
			CHECK_INITRDS(0, "/initramfs-6.7.4-200.fc39.x86_64.img");
			CHECK_ENTRY(1, "Fedora Linux (6.5.6-300.fc39.x86_64) 39 (Workstation Edition)",
				    "6a9857a393724b7a981ebb5b8495b9ea-6.5.6-300.fc39.x86_64", FB,
				    "/vmlinuz-6.5.6-300.fc39.x86_64",
				    g ? "BOOT_IMAGE=(hd0,gpt2)/vmlinuz-6.5.6-300.fc39.x86_64 root=UUID=e2c4a6b8-d0f2-4a4c-9e8f-a1b3c5d7e9f0 ro rootflags=subvol=root rhgb quiet" :
				    "BOOT_IMAGE=(5d2e8f4a-7c1b-4e3d-9a6f-0b8c2d4e6f81)/vmlinuz-6.5.6-300.fc39.x86_64 root=UUID=e2c4a6b8-d0f2-4a4c-9e8f-a1b3c5d7e9f0 ro rootflags=subvol=root rhgb quiet");
			CHECK_STR(L.v[2].kernel, "/vmlinuz-0-rescue-6a9857a393724b7a981ebb5b8495b9ea");
			CHECK_STR(def_title(), "Fedora Linux (6.5.6-300.fc39.x86_64) 39 (Workstation Edition)");
			CHECK_INT(n_default(), 1);
			CHECK(L.v[0].source && strstr(L.v[0].source,
				"6a9857a393724b7a981ebb5b8495b9ea-6.7.4-200.fc39.x86_64.conf"));
		}
	}
	static const struct fsdef rh[] = {
		{ "boot", "0c7e3f58-2a9b-4d1e-b6c4-8f2a1d3e5b70", NULL, "hd0,msdos1" },
		{ "root", NULL, NULL, "lvm/rhel-root" },
		{ 0 } };
	TEST("grub rhel8 blscfg with $kernelopts from grubenv and $tuned_initrd") {
		fsset("rhel8", rh, 1);
		CHECK_INT(parse_fs(0, "/grub2/grub.cfg"), 0);
		dump();
		CHECK_INT(L.n, 2);
		CHECK_INT(L.timeout, 5);
		CHECK_ENTRY(0, "Red Hat Enterprise Linux (4.18.0-513.5.1.el8_9.x86_64) 8.9 (Ootpa)",
			    "2f1e8a4c6b3d4e5f8a9b0c1d2e3f4a5b-4.18.0-513.5.1.el8_9.x86_64",
			    "0c7e3f58-2a9b-4d1e-b6c4-8f2a1d3e5b70",
			    "/vmlinuz-4.18.0-513.5.1.el8_9.x86_64",
			    "BOOT_IMAGE=(hd0,msdos1)/vmlinuz-4.18.0-513.5.1.el8_9.x86_64 "
			    "root=/dev/mapper/rhel-root ro crashkernel=auto resume=/dev/mapper/rhel-swap "
			    "rd.lvm.lv=rhel/root rd.lvm.lv=rhel/swap rhgb quiet");
		CHECK_INITRDS(0, "/initramfs-4.18.0-513.5.1.el8_9.x86_64.img");
		CHECK_STR(def_title(), "Red Hat Enterprise Linux (4.18.0-513.5.1.el8_9.x86_64) 8.9 (Ootpa)");
		CHECK(!has_msg("not found on") && !has_msg("not known"));
		CHECK_INT(n_default(), 1);
	}
	static const struct fsdef nix[] = {
		{ "esp", "1A2B-3C4D", NULL, "hd0,gpt1" },
		{ "root", "aa11bb22-cc33-4d44-8e55-ff6677889900", "nixos", "hd0,gpt2" },
		{ 0 } };
	TEST("grub nixos: search --set=drive1, ($drive1)// paths, two initrds on a line") {
		fsset("nixos", nix, 0);
		CHECK_INT(parse_fs(0, "/grub/grub.cfg"), 0);
		dump();
		CHECK_INT(L.n, 3);
		CHECK_INT(L.timeout, 5);
		CHECK_ENTRY(0, "NixOS - Default", "NixOS - Default", "1A2B-3C4D",
			    "/kernels/5a7kbzq1k9v4dcm2kqyvx3i0l0b2f6xg-linux-6.6.30-bzImage",
			    "BOOT_IMAGE=(1A2B-3C4D)//kernels/5a7kbzq1k9v4dcm2kqyvx3i0l0b2f6xg-linux-6.6.30-bzImage init=/nix/store/mlj4fq8y7v2w0x3z5b1c9d7e5f3g1h0i-nixos-system-nixos-24.05.1234.abcdef0/init loglevel=4");
		CHECK_INITRDS(0, "/kernels/0p8mz1w6hq3j2c9r4l7a5s0d1f3g6h8k-initrd-linux-6.6.30-initrd",
			      "/kernels/9x2c4v6b8n0m1q3w5e7r9t1y3u5i7o9p-nixos-system-nixos-24.05.1234.abcdef0-secrets");
		CHECK_ENTRY(2, "NixOS - Configuration 41 (2024-05-20 - 24.05.1100.0fedcba)",
			    "NixOS - All configurations>NixOS - Configuration 41 (2024-05-20 - 24.05.1100.0fedcba)",
			    "1A2B-3C4D", "/kernels/b3d5f7h9j1l3n5p7r9t1v3x5z7b9d1f3-linux-6.6.28-bzImage",
			    "BOOT_IMAGE=(1A2B-3C4D)//kernels/b3d5f7h9j1l3n5p7r9t1v3x5z7b9d1f3-linux-6.6.28-bzImage init=/nix/store/q2w4e6r8t0y2u4i6o8p0a2s4d6f8g0h2-nixos-system-nixos-24.05.1100.0fedcba/init loglevel=4");
		CHECK_INITRDS(2, "/kernels/c4e6g8i0k2m4o6q8s0u2w4y6a8c0e2g4-initrd-linux-6.6.28-initrd");
		CHECK_STR(def_title(), "NixOS - Default");
		CHECK(!has_msg("not found on") && !has_msg("not known"));
	}
	static const char SU[] = "8e4b2c6a-0d1f-4a3b-9c5e-7f6a8b9c0d1e";
	static const struct fsdef suse[] = {
		{ "esp", "6E7F-8091", NULL, "hd0,gpt1" },
		{ "root", "8e4b2c6a-0d1f-4a3b-9c5e-7f6a8b9c0d1e", NULL, "hd0,gpt2" },
		{ 0 } };
	TEST("grub opensuse: saved_entry by title, hiddenentry from custom.cfg") {
		fsset("opensuse", suse, 1);
		/* through the ESP stub (`source`), $config_directory stays on the
		 * ESP, so 41_custom does not find custom.cfg, as in GRUB */
		CHECK_INT(parse_fs(0, "/EFI/opensuse/grub.cfg"), 0);
		CHECK_INT(L.n, 3);
		CHECK_STR(def_title(), "openSUSE Leap 15.5");
		CHECK_INT(L.timeout, 8);
		CHECK_INT(parse_fs(1, "/boot/grub2/grub.cfg"), 0);
		dump();
		CHECK_INT(L.n, 4);
		CHECK_INT(L.timeout, 8);
		CHECK_ENTRY(0, "openSUSE Leap 15.5", "gnulinux-simple-8e4b2c6a-0d1f-4a3b-9c5e-7f6a8b9c0d1e",
			    SU, "/boot/vmlinuz-5.14.21-150500.55.39-default",
			    "BOOT_IMAGE=/boot/vmlinuz-5.14.21-150500.55.39-default "
			    "root=UUID=8e4b2c6a-0d1f-4a3b-9c5e-7f6a8b9c0d1e splash=silent "
			    "resume=/dev/disk/by-uuid/4f7a1c3e-5b9d-4e2f-a6c8-0b1d3e5f7a9c "
			    "mitigations=auto quiet security=apparmor");
		CHECK_INITRDS(0, "/boot/initrd-5.14.21-150500.55.39-default");
		CHECK_INT(L.v[0].hidden, 0);
		if (L.n < 4)
			continue;
		CHECK_STR(L.v[3].title, "openSUSE Leap 15.5 (text mode)");
		CHECK_STR(L.v[3].id, "textmode");
		CHECK_INT(L.v[3].hidden, 1);
		CHECK_STR(L.v[3].kernel, "/boot/vmlinuz");
		CHECK_STR(def_title(), "openSUSE Leap 15.5");
		CHECK_INT(n_default(), 1);
	}
	static const struct fsdef blsp[] = { { "root", "1111-2222", NULL, NULL }, { 0 } };
	TEST("grub blscfg on a root fs with /boot as a directory") {
		static const char cfg[] = "set extra=quiet\nset default=m-1.0\nblscfg\n";

		fsset("bls-prefix", blsp, 0);
		lb_entries_free(&L);
		CHECK_INT(lb_grub_parse_buf(&S, &S.v[0], "inline.cfg", cfg, strlen(cfg), &L), 0);
		dump();
		CHECK_INT(L.n, 2);
		CHECK_ENTRY(0, "New", "m-2.0", "1111-2222", "/boot/vmlinuz-2.0", "BOOT_IMAGE=(1111-2222)/boot/vmlinuz-2.0 root=/dev/sda2");
		CHECK_INITRDS(0, "/boot/initrd-2.0");
		CHECK_ENTRY(1, "Old", "m-1.0", "1111-2222", "/boot/vmlinuz-1.0", "BOOT_IMAGE=(1111-2222)/boot/vmlinuz-1.0 root=/dev/sda2 quiet");
		CHECK_INITRDS(1, "/boot/initrd-1.0");
		CHECK_STR(def_title(), "Old");
		CHECK(!has_msg("not found on") && !has_msg("not known"));
		/* $blsdir naming a subvolume path that is not there; root=(dev) */
		static const char cfg2[] = "set blsdir=/root/boot/loader/entries\n"
					   "set root=(1111-2222)\nblscfg\n";
		lb_entries_free(&L);
		CHECK_INT(lb_grub_parse_buf(&S, &S.v[0], "inline.cfg", cfg2, strlen(cfg2), &L), 0);
		CHECK_INT(L.n, 2);
		CHECK_STR(def_title(), "New");
		CHECK(!has_msg("not found on") && !has_msg("not known"));
	}
	static const struct fsdef envd[] = { { "root", "3333-4444", NULL, "hd1,gpt5" }, { 0 } };
	TEST("grub load_env: escapes, -f, whitelist, missing file status") {
		static const char cfg[] =
			"load_env\n"
			"if load_env -f /nope; then bad=1; fi\n"
			"menuentry A { linux /a \"[$weird]\" $opts $bad }\n"
			"unset opts\n"
			"load_env -f (hd1,gpt5)/boot/grub/grubenv --skip-sig weird\n"
			"menuentry B { linux /b $opts }\n";

		fsset("envesc", envd, 1);
		lb_entries_free(&L);
		CHECK_INT(lb_grub_parse(&S, &S.v[0], "/boot/grub/x.cfg", &L, NULL), -ENOENT);
		CHECK_INT(lb_grub_parse_buf(&S, &S.v[0], "/boot/grub/x.cfg", cfg, strlen(cfg), &L), 0);
		dump();
		CHECK_INT(L.n, 2);
		/* the loader escapes the backslash */
		CHECK_STR(L.v[0].cmdline, "BOOT_IMAGE=/a [a\\\\b\nc]");
		/* a linux line without arguments: GRUB's BOOT_IMAGE= alone */
		CHECK_STR(L.v[1].cmdline, "BOOT_IMAGE=/b");
	}
	TEST("grub quoting: a label with a double quote cannot add kernel arguments") {
		/* the attacker's disk: labels that close the quote GRUB opens
		 * (`x" init=/bin/sh "`) or open one that swallows the rest */
		static const struct fsdef lab[] = {
			{ "root", "3333-4444", "x\" init=/bin/sh \"", "hd1,gpt5" }, { 0 } };
		static const struct fsdef lab2[] = {
			{ "root", "3333-4444", "a\"", "hd1,gpt5" }, { 0 } };
		static const char cfg[] =
			"menuentry A { probe --label --set=l $root; linux /k \"root=LABEL=$l\" ro lockdown=integrity }\n"
			"menuentry B { linux /k2 root=LABEL=plain 'two words' ro }\n"
			"menuentry C { probe --label --set=l $root; linux /k root=LABEL=$l ro lockdown=integrity }\n";
		char args[16][256];
		int na;

		fsset("envesc", lab, 1);
		lb_entries_free(&L);
		CHECK_INT(lb_grub_parse_buf(&S, &S.v[0], "q.cfg", cfg, strlen(cfg), &L), 0);
		dump();
		/* whatever is produced, the kernel never sees init=/bin/sh */
		for (size_t i = 0; i < L.n; i++) {
			na = kernel_args(L.v[i].cmdline ? L.v[i].cmdline : "", args, 16);
			for (int k = 0; k < na; k++)
				CHECK(strcmp(args[k], "init=/bin/sh") != 0);
		}
		/* A quotes the label as a careful config does: one GRUB word,
		 * which GRUB's loader writes as "root=LABEL=x\" init=/bin/sh \""
		 * and the kernel splits at the second quote */
		CHECK(find("A") < 0);
		CHECK(has_msg("entry 'A' skipped: a kernel argument holds a double quote"));
		CHECK(find("C") < 0);
		CHECK(has_msg("entry 'C' skipped: a kernel argument holds a double quote"));
		/* an argument with a space is still quoted for the kernel, and
		 * the kernel takes it as one */
		CHECK(find("B") >= 0);
		if (find("B") >= 0) {
			CHECK_STR(L.v[find("B")].cmdline, "BOOT_IMAGE=/k2 root=LABEL=plain \"two words\" ro");
			na = kernel_args(L.v[find("B")].cmdline, args, 16);
			CHECK_INT(na, 4);
			CHECK_STR(args[2], "two words");
		}
		fsset("envesc", lab2, 1);
		lb_entries_free(&L);
		CHECK_INT(lb_grub_parse_buf(&S, &S.v[0], "q.cfg", cfg, strlen(cfg), &L), 0);
		/* before: root=LABEL=a\" swallowed ro and lockdown=integrity */
		for (size_t i = 0; i < L.n; i++) {
			na = kernel_args(L.v[i].cmdline ? L.v[i].cmdline : "", args, 16);
			int lock = 0;
			for (int k = 0; k < na; k++)
				lock |= !strcmp(args[k], "lockdown=integrity");
			if (L.v[i].title && strcmp(L.v[i].title, "B"))
				CHECK(lock);
		}
		CHECK(find("A") < 0);
		CHECK(find("C") < 0);
	}
	TEST("grub devices: (dev)/path, $root, set root=(dev), unknown devices") {
		static const char cfg[] =
			"menuentry A { linux (hd1,gpt5)/k; initrd ($root)/i }\n"
			"menuentry B { set root=(hd1,5); linux /k2 }\n"
			"menuentry C { set root='hd9,gpt9'; linux /k3 }\n"
			"menuentry D { linux (3333-4444)/k4 }\n"
			"menuentry E { search --label --set=r nolabel; linux ($r)/k5 }\n"
			"menuentry F { search --file --set /boot/grub/grubenv; linux /k6 }\n"
			"menuentry G { probe -u --set=u $root; linux /k7 u=$u }\n";

		fsset("envesc", envd, 1);
		lb_entries_free(&L);
		CHECK_INT(lb_grub_parse_buf(&S, &S.v[0], "d.cfg", cfg, strlen(cfg), &L), 0);
		dump();
		CHECK_INT(L.n, 7);
		for (size_t i = 0; i < L.n; i++)
			CHECK_STR(L.v[i].fs, "3333-4444");
		CHECK_STR(L.v[0].kernel, "/k");
		CHECK_INITRDS(0, "/i");
		CHECK_STR(L.v[6].cmdline, "BOOT_IMAGE=/k7 u=3333-4444");
		CHECK(has_msg("d.cfg:3: entry 'C': GRUB device 'hd9,gpt9' not known, assuming 3333-4444"));
		CHECK(has_msg("d.cfg:1: entry 'A': kernel /k not found on 3333-4444"));
		lb_entries_free(&L);
		CHECK_INT(parse("menuentry A { linux (hd0,gpt2)/vmlinuz }\n"
				"menuentry B { set root=(md/0); linux /vmlinuz }\n"), 0);
		CHECK_STR(L.v[0].fs, "hd0,gpt2");
		CHECK_STR(L.v[1].fs, "md/0");
	}

	TEST("grub caps: entries, variables, expansion, recursion") {
		size_t cap = 1100 * 40, n = 0;
		char *big = malloc(cap);

		for (int i = 0; i < 1100; i++)
			n += (size_t)snprintf(big + n, cap - n, "menuentry e%d { linux /k%d }\n", i, i);
		lb_entries_free(&L);
		CHECK_INT(lb_grub_parse_buf(NULL, NULL, "big.cfg", big, n, &L), 0);
		CHECK_INT(L.n, 1024);
		CHECK(has_msg("too many menu entries"));
		CHECK_INT(n_default(), 1);
		free(big);
		/* doubling a variable hits the value/context caps, not memory */
		CHECK_INT(parse("menuentry A { linux /a }\nset a=0123456789abcdef\n"
				"for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30; do\n"
				"  set a=\"$a$a\"\n"
				"done\n"
				"while true; do set b=\"$a$a$a$a$a$a$a$a\"; done\n"
				"menuentry B { linux /b }\n"), 0);
		CHECK_INT(L.n, 1);
		CHECK(has_msg("evaluation stopped") || has_msg("loop stopped"));
		/* eval and source nesting */
		CHECK_INT(parse("function f { eval f; }\nf\nmenuentry A { linux /a }\n"), 0);
		CHECK_INT(L.n, 1);
		CHECK_INT(parse("set x=1\nx=2\n=3\nmenuentry A { linux /a $x }\n"), 0);
		CHECK_STR(L.v[0].cmdline, "BOOT_IMAGE=/a 2");
		/* one command expanding to too many words */
		CHECK_INT(parse("set w='a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a'\n"
				"set w=\"$w $w $w $w $w $w $w $w\"\nset w=\"$w $w $w $w $w $w $w $w\"\n"
				"menuentry A { linux /a $w $w $w $w $w $w $w $w }\n"), 0);
		CHECK_INT(L.n, 0);
		CHECK(has_msg("entry 'A' skipped"));
	}

	TEST("grub syntax agrees with grub-script-check (GRUB 2.06)") {
		/* verdicts of Debian 12's grub-script-check on each snippet */
		static const struct { const char *src; int ok; } syn[] = {
			{ "{ echo a; }\n", 0 }, { "echo a{b\n", 0 }, { "echo }\n", 0 },
			{ "echo {\n", 0 }, { "echo a}b\n", 0 }, { "menuentry a {\n", 0 },
			{ "echo a>b\n", 0 }, { "echo a|b\n", 0 }, { "echo a&b\n", 0 },
			{ "echo a<b\n", 0 }, { "if true; then echo; fi; fi\n", 0 },
			{ "fi\n", 0 }, { "then\n", 0 }, { "echo then fi\n", 1 },
			{ "function f { echo; }\n", 1 }, { "function f\n{ echo; }\n", 1 },
			{ "menuentry a\n{ echo; }\n", 0 }, { "for x in a b\ndo echo; done\n", 1 },
			{ "if true\nthen echo\nfi\n", 1 }, { "x { a } { b }\n", 0 },
			{ "x {\n a\n}\n", 1 }, { "echo ${a b}\n", 0 }, { "echo $\n", 0 },
			{ "echo 'a\nb'\n", 1 }, { "echo \"a\nb\"\n", 1 }, { "echo a\\\nb\n", 1 },
			{ "echo a #b\n", 1 }, { "echo a#b\n", 1 }, { "{\n", 0 }, { "}\n", 0 },
			{ "while true; do break; done\n", 1 }, { "until\n", 0 },
			{ "echo ${1}\n", 1 }, { "echo ${?}\n", 1 }, { "echo $?\n", 1 },
			{ "a=b\n", 1 }, { "if true; then; fi\n", 0 }, { "if true; then fi\n", 0 },
			{ "if ; then echo; fi\n", 0 }, { "while true; do done\n", 0 },
			{ "for x in; do echo; done\n", 1 }, { "for x; do echo; done\n", 0 },
			{ "menuentry a { }\n", 0 }, { "menuentry a {}\n", 0 },
			{ "function f { }\n", 0 }, { "if true; then echo; else fi\n", 0 },
			{ "if true; then echo; elif; then echo; fi\n", 0 }, { "echo a$\n", 0 },
			{ "echo $-\n", 0 }, { "echo $1a\n", 1 }, { "echo ${}\n", 0 },
			{ "echo ${a-b}\n", 0 }, { "echo ${a:b}\n", 0 }, { "echo \"$\"\n", 0 },
			{ "echo '$'\n", 1 }, { "echo \\$\n", 1 }, { "echo \"a$\"\n", 0 },
			{ "echo \"}\"\n", 1 }, { "echo ; ;\n", 0 }, { ";\n", 0 },
			{ "echo \\", 0 }, { "echo $#a\n", 1 }, { "echo $@\n", 1 },
			{ "echo $!\n", 0 }, { "echo \"${a b}\"\n", 0 }, { "echo \"$a-b\"\n", 1 },
			{ "menuentry a { echo; } b\n", 0 }, { "menuentry a { echo; }; echo\n", 1 },
			{ "echo \"{\"\n", 1 }, { "echo \\{\n", 1 }, { "echo $a{b}\n", 1 },
		};
		for (size_t i = 0; i < sizeof(syn) / sizeof(syn[0]); i++) {
			int bad;

			parse(syn[i].src);
			bad = has_msg("skipped)");
			if (bad == syn[i].ok)
				printf("# snippet %zu \"%s\": grub says %s\n", i, syn[i].src,
				       syn[i].ok ? "ok" : "syntax error");
			CHECK(bad != syn[i].ok);
		}
	}

	/* fidelity cases found by u-root's and petitboot's test data; real
	 * GRUB 2 (as RHEL builds it) is the reference */
	TEST("grub BOOT_IMAGE= is the kernel's path as written, quoted like any argument") {
		/* the disk names the kernel's path: a path holding a space
		 * stays one kernel argument (BOOT_IMAGE's value), it cannot add
		 * init=; a path holding a double quote is refused, as any
		 * argument is; ($root) and variables as GRUB expands them */
		char args[16][256];
		int na;

		parse("menuentry A { linux \"/k init=/bin/sh\" ro }\n"
		      "menuentry B { linux '/q\"x' ro }\n"
		      "menuentry C { set v=/boot; linux $v/vmlinuz }\n");
		dump();
		CHECK(find("A") >= 0);
		if (find("A") >= 0) {
			CHECK_STR(L.v[find("A")].cmdline, "BOOT_IMAGE=\"/k init=/bin/sh\" ro");
			na = kernel_args(L.v[find("A")].cmdline, args, 16);
			CHECK_INT(na, 2);
			/* one argument; the kernel's next_arg strips the quotes
			 * from the value of BOOT_IMAGE */
			CHECK_STR(args[0], "BOOT_IMAGE=\"/k init=/bin/sh\"");
			CHECK_STR(args[1], "ro");
		}
		CHECK(find("B") < 0);
		CHECK(has_msg("entry 'B' skipped: a kernel argument holds a double quote"));
		CHECK(find("C") >= 0);
		if (find("C") >= 0)
			CHECK_STR(L.v[find("C")].cmdline, "BOOT_IMAGE=/boot/vmlinuz");
	}
	TEST("grub \\xNN in words is kept as written, arguments with spaces are quoted") {
		parse("set v='a b'\n"
		      "menuentry A { linux /v inst.stage2=hd:LABEL=CentOS\\x207\\x20x86_64 "
		      "acpi_osi=\"Windows 2015\" a\\\\b \"\\x41\" \\xZZ \\x4 $v \"$v\" }\n");
		dump();
		CHECK_INT(L.n, 1);
		CHECK_STR(L.v[0].cmdline, "BOOT_IMAGE=/v inst.stage2=hd:LABEL=CentOS\\x207\\x20x86_64 "
			  "\"acpi_osi=Windows 2015\" a\\\\b \\x41 xZZ x4 a b \"a b\"");
		/* GRUB would write 'q"uote' as q\"uote, which the kernel
		 * reads as an open quote: lboot skips the entry (issue 23) */
		parse("menuentry A { linux /v 'q\"uote' ro }\n");
		CHECK_INT(L.n, 0);
		CHECK(has_msg("entry 'A' skipped: a kernel argument holds a double quote"));
		/* titles and other commands see the same words */
		parse("menuentry 'T\\x20' X\\x41 { linux /$2 }\n");
		CHECK_STR(L.v[0].title, "T\\x20");
		CHECK_STR(L.v[0].kernel, "/X\\x41");
	}
	static const struct fsdef c7[] = { { "media", NULL, "CentOS 7 x86_64", NULL }, { 0 } };
	TEST("grub centos7 install media: LABEL=CentOS\\x207\\x20x86_64 reaches the kernel") {
		fsset("centos7-media", c7, 0);
		CHECK_INT(parse_fs(0, "/EFI/BOOT/grub.cfg"), 0);
		dump();
		CHECK_INT(L.n, 4);
		CHECK_INT(L.timeout, 60);
		CHECK_ENTRY(0, "Install CentOS 7", "Install CentOS 7", "CentOS 7 x86_64",
			    "/images/pxeboot/vmlinuz",
			    "BOOT_IMAGE=/images/pxeboot/vmlinuz inst.stage2=hd:LABEL=CentOS\\x207\\x20x86_64 quiet");
		CHECK_INITRDS(0, "/images/pxeboot/initrd.img");
		CHECK_ENTRY(3, "Rescue a CentOS system",
			    "Troubleshooting -->>>Rescue a CentOS system", "CentOS 7 x86_64",
			    "/images/pxeboot/vmlinuz",
			    "BOOT_IMAGE=/images/pxeboot/vmlinuz inst.stage2=hd:LABEL=CentOS\\x207\\x20x86_64 rescue quiet");
		CHECK_STR(def_title(), "Test this media & install CentOS 7");
		CHECK(!has_msg("not found on") && !has_msg("not known"));
	}
	TEST("grub [ -s ] is false for a directory and an empty name") {
		static const char cfg[] =
			"if [ -s /boot/grub ]; then d=dir; fi\n"
			"if [ -s \"\" ]; then e=empty; fi\n"
			"if [ -s /boot/grub/grubenv ]; then f=file; fi\n"
			"if [ -s /boot/grub/nope ]; then n=none; fi\n"
			"if [ -d /boot/grub ]; then g=isdir; fi\n"
			"menuentry A { linux /a $d $e $f $n $g }\n";

		fsset("envesc", envd, 1);
		lb_entries_free(&L);
		CHECK_INT(lb_grub_parse_buf(&S, &S.v[0], "s.cfg", cfg, strlen(cfg), &L), 0);
		CHECK_INT(L.n, 1);
		CHECK_STR(L.v[0].cmdline, "BOOT_IMAGE=/a file isdir");
	}
	TEST("grub linux with a device and no path: the entry is reported and skipped") {
		parse("menuentry A { linux (hd0,1) quiet; initrd /i }\n"
		      "menuentry B { linux (hd0,gpt2)/ }\n"
		      "menuentry C { linux (hd0,1); linux /c x }\n"
		      "menuentry D { linux /d; linux (hd0,1) }\n");
		dump();
		CHECK_INT(L.n, 1);
		CHECK_STR(L.v[0].title, "C");
		CHECK_STR(L.v[0].kernel, "/c");
		CHECK(has_msg("entry 'A' skipped: linux names no kernel file"));
		CHECK(has_msg("entry 'B' skipped: linux names no kernel file"));
		CHECK(has_msg("entry 'D' skipped: linux names no kernel file"));
		for (size_t i = 0; i < L.n; i++)
			CHECK(strcmp(L.v[i].kernel, "/"));
	}
	TEST("grub initrd with more files than an entry holds: refused, never dropped") {
		char cfg[2048];
		int o;

		o = snprintf(cfg, sizeof(cfg), "menuentry Max { linux /k; initrd");
		for (int i = 0; i < LB_MAX_INITRDS; i++)
			o += snprintf(cfg + o, sizeof(cfg) - (size_t)o, " /i%d", i);
		o += snprintf(cfg + o, sizeof(cfg) - (size_t)o, " }\nmenuentry Over { linux /k; initrd");
		for (int i = 0; i <= LB_MAX_INITRDS; i++)
			o += snprintf(cfg + o, sizeof(cfg) - (size_t)o, " /i%d", i);
		o += snprintf(cfg + o, sizeof(cfg) - (size_t)o, " }\nmenuentry Again { linux /k; initrd");
		for (int i = 0; i <= LB_MAX_INITRDS; i++)
			o += snprintf(cfg + o, sizeof(cfg) - (size_t)o, " /i%d", i);
		snprintf(cfg + o, sizeof(cfg) - (size_t)o, "; initrd /one }\n");
		parse(cfg);
		dump();
		CHECK_INT(L.n, 2);
		CHECK_STR(L.v[0].title, "Max");
		CHECK_INT(L.v[0].n_initrd, LB_MAX_INITRDS);
		CHECK(find("Over") < 0);
		CHECK(has_msg("entry 'Over' skipped: initrd: more than"));
		/* a later initrd line that fits replaces the refused one */
		CHECK_STR(L.v[1].title, "Again");
		CHECK_INITRDS(1, "/one");
	}

	TEST("grub reports whether the config ran blscfg") {
		struct lb_grub_info info = { .ran_blscfg = 1 };

		/* the ESP stub's configfile runs the /boot config that runs it */
		fsset("fedora39", fed, 1);
		lb_entries_free(&L);
		CHECK_INT(lb_grub_parse(&S, &S.v[0], "/EFI/fedora/grub.cfg", &L, &info), 0);
		CHECK_INT(L.n, 3);
		CHECK_INT(info.ran_blscfg, 1);
		fsset("debian12", deb, 1);
		lb_entries_free(&L);
		CHECK_INT(lb_grub_parse(&S, &S.v[1], "/boot/grub/grub.cfg", &L, &info), 0);
		CHECK_INT(L.n, 5);
		CHECK_INT(info.ran_blscfg, 0);
		lb_entries_free(&L);
		info.ran_blscfg = 1;
		CHECK_INT(lb_grub_parse(&S, &S.v[0], "/nope.cfg", &L, &info), -ENOENT);
		CHECK_INT(info.ran_blscfg, 0);
		lb_grub_info_free(&info);
	}
	TEST("grub step budget: a script that loops stops after 20000 commands a phase") {
		/* nested loops would run 30 x 1000 x 2 commands: the budget
		 * bounds the time a hostile config holds the boot (and a fuzz
		 * execution) */
		parse("menuentry A { linux /a }\n"
		      "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30; do\n"
		      "  while true; do true; done\n"
		      "done\n"
		      "menuentry B { linux /b }\n");
		CHECK_INT(L.n, 1);
		CHECK(has_msg("evaluation stopped after 20000 commands"));
		/* the menu has a budget of its own: entry bodies that loop */
		parse("menuentry A { while true; do true; done; linux /a }\n"
		      "menuentry B { linux /b }\n");
		CHECK(find("B") >= 0);
	}
	TEST("grub command table: sorted, every name found, unknown names not") {
		size_t n;
		const struct g_cmd *t = g_cmd_table(&n);

		CHECK(n > 100);
		for (size_t i = 0; i < n; i++) {
			if (i)
				CHECK(strcmp(t[i - 1].name, t[i].name) < 0);
			CHECK(g_cmd_find(t[i].name) == &t[i]);
		}
		CHECK(g_cmd_find("nosuchcommand") == NULL);
		CHECK(g_cmd_find("") == NULL);
		CHECK(g_cmd_find("linu") == NULL);
		/* a loader that is not Linux: skipped with the reason */
		parse("menuentry M { multiboot /xen }\nmenuentry C { chainloader +1 }\n");
		CHECK_INT(L.n, 0);
		CHECK(has_msg("entry 'M' skipped: not a Linux kernel"));
		CHECK(has_msg("entry 'C' skipped: chainloader is not supported"));
	}
	static const struct fsdef inc[] = { { "root", "5555-6666", NULL, "hd1,gpt5" }, { 0 } };
	TEST("grub source, configfile, functions defining entries, include depth cap") {
		fsset("include", inc, 1);
		CHECK_INT(parse_fs(0, "/boot/grub/grub.cfg"), 0);
		dump();
		CHECK_INT(L.n, 2);
		CHECK_ENTRY(0, "From lib", "From lib", "5555-6666", "/boot/vmlinuz-lib",
			    "BOOT_IMAGE=/boot/vmlinuz-lib from=(hd1,gpt5)/boot/grub/sub/next.cfg");
		CHECK_ENTRY(1, "From next", "From next", "5555-6666", "/boot/vmlinuz-next",
			    "BOOT_IMAGE=/boot/vmlinuz-next dir=(hd1,gpt5)/boot/grub/sub n=xxxxxxxx");
		CHECK(has_msg("nesting too deep"));
		CHECK_STR(def_title(), "From lib");
	}
	lb_entries_free(&L);
	lb_fsset_free(&S);
	(void)parse_fs;
	(void)fsset;
	(void)dump;
	return t_done();
}
