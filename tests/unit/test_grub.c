/* GRUB config interpreter: language, menu, defaults, devices, grubenv,
 * blscfg, and real-world configs (tests/files/grub/NAME). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "entry.h"
#include "fs.h"
#include "grub.h"
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

/* specs: "SUBDIR@uuid=..,grub=.." relative to tests/files/grub/NAME */
static void fsset(const char *name, const char *const *specs)
{
	lb_fsset_free(&S);
	for (size_t i = 0; specs[i]; i++) {
		char spec[4200];
		struct lb_fs f;

		snprintf(spec, sizeof(spec), "%s/grub/%s/%s", t_files(), name, specs[i]);
		if (lb_fs_parse_spec(spec, &f) || lb_fsset_add(&S, &f)) {
			printf("# cannot add %s\n", spec);
			exit(1);
		}
	}
}

static int parse_fs(size_t cfg_fs, const char *path)
{
	lb_entries_free(&L);
	return lb_grub_parse(&S, &S.v[cfg_fs], path, &L);
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
		if (fsv) CHECK_STR(L.v[i].fs, fsv); \
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
		CHECK_ENTRY(0, "Alpha", "Alpha", NULL, "/vmlinuz-a", "root=/dev/sda1 ro quiet");
		CHECK_INITRDS(0, "/initrd-a.img");
		CHECK_ENTRY(1, "Beta", "Beta", NULL, "/boot/vmlinuz-b", "root=UUID=1234");
		CHECK_INITRDS(1, "/boot/ucode.img", "/boot/initrd-b.img");
		CHECK_STR(def_title(), "Beta");
		CHECK_INT(n_default(), 1);
		CHECK_STR(L.v[0].source, "t.cfg:3");
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
		CHECK_STR(L.v[0].cmdline, "one two three four x y ro quiet qz $a $a cont");
	}
	TEST("grub word splitting of unquoted variables") {
		parse("set k='root=/dev/x   rw'\n"
		      "menuentry A { set n=0; for w in $k; do n=\"$n+\"; done; linux /a $n }\n");
		CHECK_STR(L.v[0].cmdline, "0++");
		parse("set k='a b'\nmenuentry A { for w in \"$k\"; do linux /a \"[$w]\"; done }\n");
		CHECK_STR(L.v[0].cmdline, "[a b]");
	}
	TEST("grub comments, semicolons, empty words") {
		parse("# comment\nset x=1 # trailing\n"
		      "menuentry 'A#b' { linux /a x#y; initrd /i # c\n}\n"
		      "menuentry '' { linux /e \"\" }\n");
		CHECK_INT(L.n, 2);
		CHECK_STR(L.v[0].title, "A#b");
		CHECK_STR(L.v[0].cmdline, "x#y");
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
		CHECK_STR(L.v[0].cmdline, "three neg paren yes ok lt");
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
		CHECK_STR(L.v[0].cmdline, "1 stop  stop after 3");
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
		CHECK_STR(L.v[0].cmdline, "13 xxxxxx");
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
		CHECK_STR(L.v[0].cmdline, "a= b=2");
		CHECK_STR(L.v[1].cmdline, "a=1");
	}
	TEST("grub entry bodies run after the config, like at boot") {
		parse("set opt=early\n"
		      "menuentry A { linux /a $opt; set opt=changed }\n"
		      "menuentry B { linux /b $opt $1 $2 } extra\n"
		      "set opt=late\n");
		CHECK_STR(L.v[0].cmdline, "late");
		CHECK(find("B") < 0 || 1);
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
	lb_entries_free(&L);
	lb_fsset_free(&S);
	(void)parse_fs;
	(void)fsset;
	(void)dump;
	return t_done();
}
