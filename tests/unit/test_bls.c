/* BLS type 1 entries, loader.conf, ordering, boot counting. */
#include <errno.h>
#include <limits.h>

#include "t.h"
#include "bls.h"

static struct lb_fs fs_of(const char *sub, char *buf, size_t n)
{
	struct lb_fs fs = { 0 };

	snprintf(buf, n, "%s/%s", t_files(), sub);
	fs.dir = buf;
	fs.name = buf;
	fs.uuid = (char *)"1234-ABCD";
	return fs;
}

static int has_msg(const struct lb_entries *l, const char *needle)
{
	for (size_t i = 0; i < l->n_msgs; i++)
		if (strstr(l->msgs[i], needle))
			return 1;
	return 0;
}

static void dump(const struct lb_entries *l)
{
	for (size_t i = 0; i < l->n; i++)
		printf("#  %zu%s %s | %s | %s\n", i, l->v[i].is_default ? "*" : "",
		       l->v[i].id, l->v[i].title, l->v[i].kernel);
	for (size_t i = 0; i < l->n_msgs; i++)
		printf("#  msg: %s\n", l->msgs[i]);
}

int main(void)
{
	char dir[PATH_MAX];

	TEST("bls parse entry keys") {
		static const char conf[] =
			"# comment\n"
			"title   Fedora Linux (6.5) \n"
			"version 6.5.6-300.fc39.x86_64\n"
			"machine-id 0123\n"
			"sort-key fedora\n"
			"linux\t/vmlinuz-6.5\n"
			"initrd /ucode.img\n"
			"initrd /initramfs-6.5.img\n"
			"options root=UUID=x ro\n"
			"options  quiet   rhgb\n"
			"devicetree /dtb/x.dtb\n"
			"unknown-key whatever\n"
			"\n";
		struct lb_entries m = LB_ENTRIES_INIT;
		struct lb_entry e;
		int left = 99;

		CHECK_INT(lb_bls_parse_entry("fed-6.5+3-1.conf", "x/fed-6.5+3-1.conf",
					     conf, sizeof(conf) - 1, &e, &left, &m), 0);
		CHECK_STR(e.id, "fed-6.5");
		CHECK_INT(left, 3);
		CHECK_STR(e.title, "Fedora Linux (6.5)");
		CHECK_STR(e.version, "6.5.6-300.fc39.x86_64");
		CHECK_STR(e.machine_id, "0123");
		CHECK_STR(e.sort_key, "fedora");
		CHECK_STR(e.kernel, "/vmlinuz-6.5");
		CHECK_INT(e.n_initrd, 2);
		CHECK_STR(e.initrd[0], "/ucode.img");
		CHECK_STR(e.initrd[1], "/initramfs-6.5.img");
		CHECK_STR(e.cmdline, "root=UUID=x ro quiet   rhgb");
		CHECK_STR(e.devicetree, "/dtb/x.dtb");
		CHECK_STR(e.source, "x/fed-6.5+3-1.conf:6");
		CHECK_INT(e.type, LB_ENTRY_LINUX);
		CHECK_INT(e.hidden, 0);
		lb_entry_free(&e);
		lb_entries_free(&m);
	}
	TEST("bls boot counting names") {
		static const struct { const char *f, *id; int left; } t[] = {
			{ "a+0-3.conf", "a", 0 }, { "a+5.conf", "a", 5 },
			{ "a-1+2-0.conf", "a-1", 2 }, { "a.conf", "a", -1 },
			{ "a+x.conf", "a+x", -1 }, { "a+1-.conf", "a+1-", -1 },
			{ "6.1-2.conf", "6.1-2", -1 }, { "+1.conf", "+1", -1 },
		};
		for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
			struct lb_entries m = LB_ENTRIES_INIT;
			struct lb_entry e;
			int left;

			CHECK_INT(lb_bls_parse_entry(t[i].f, t[i].f, "linux /k\n", 9,
						     &e, &left, &m), 0);
			CHECK_STR(e.id, t[i].id);
			CHECK_STR(e.title, t[i].id); /* title falls back to id */
			CHECK_INT(left, t[i].left);
			lb_entry_free(&e);
			lb_entries_free(&m);
		}
	}
	TEST("bls efi/uki/arch/no linux") {
		struct lb_entries m = LB_ENTRIES_INIT;
		struct lb_entry e;
		int left;

		CHECK_INT(lb_bls_parse_entry("w.conf", "w.conf", "efi /EFI/x.efi\n", 15,
					     &e, &left, &m), -ENOENT);
		CHECK(has_msg(&m, "EFI program"));
		CHECK_INT(lb_bls_parse_entry("n.conf", "n.conf", "title x\n", 8,
					     &e, &left, &m), -ENOENT);
		CHECK(has_msg(&m, "no 'linux'"));
		CHECK_INT(lb_bls_parse_entry("u.conf", "u.conf",
					     "uki /EFI/Linux/a.efi\noptions x=1\n", 32,
					     &e, &left, &m), 0);
		CHECK_INT(e.type, LB_ENTRY_UKI);
		CHECK_STR(e.kernel, "/EFI/Linux/a.efi");
		CHECK_STR(e.cmdline, "x=1");
		lb_entry_free(&e);
		CHECK_INT(lb_bls_parse_entry("r.conf", "r.conf",
					     "linux /k\narchitecture AA64\n", 27,
					     &e, &left, &m), 0);
		CHECK_INT(e.hidden, 1);
		lb_entry_free(&e);
		CHECK_INT(lb_bls_parse_entry("x.conf", "x.conf",
					     "linux /k\narchitecture X64\n", 26,
					     &e, &left, &m), 0);
		CHECK_INT(e.hidden, 0);
		lb_entry_free(&e);
		lb_entries_free(&m);
	}
	TEST("bls kernel-install output (real) via load_dir") {
		struct lb_fs fs = fs_of("bls/kernel-install", dir, sizeof(dir));
		struct lb_entries l = LB_ENTRIES_INIT;

		CHECK_INT(lb_bls_load_dir(&fs, "/loader/entries", &l), 0);
		CHECK_INT(l.n, 2);
		if (l.n == 2) {
			/* same sort-key and machine-id: version descending */
			CHECK_STR(l.v[0].version, "6.1.0-18-amd64");
			CHECK_STR(l.v[1].version, "6.1.0-13-amd64");
			CHECK_STR(l.v[0].title, "Debian GNU/Linux 12 (bookworm)");
			CHECK_STR(l.v[0].kernel, "/0123456789abcdef0123456789abcdef/6.1.0-18-amd64/linux");
			CHECK_STR(l.v[0].initrd[0], "/0123456789abcdef0123456789abcdef/6.1.0-18-amd64/initrd.img");
			CHECK_STR(l.v[0].fs, "1234-ABCD");
			CHECK(strstr(l.v[0].cmdline, "systemd.machine_id=0123456789abcdef0123456789abcdef") != NULL);
			CHECK_INT(lb_entries_default(&l), -1); /* raw: no default */
		}
		CHECK_INT(lb_bls_load_dir(&fs, "/nope", &l), -ENOENT);
		lb_entries_free(&l);
		/* the last file skipped (no linux) must not fail the directory */
		{
			struct lb_fs a = fs_of("bls/arch-esp", dir, sizeof(dir));
			CHECK_INT(lb_bls_load_dir(&a, "/loader/entries", &l), 0);
			CHECK_INT(l.n, 4); /* windows.conf (efi) sorts last, skipped */
		}
		lb_entries_free(&l);
	}
	TEST("bls scan kernel-install ESP: default newest") {
		struct lb_fs fs = fs_of("bls/kernel-install", dir, sizeof(dir));
		struct lb_entries l = LB_ENTRIES_INIT;

		CHECK_INT(lb_bls_scan(&fs, "", &l), 0);
		CHECK_INT(l.n, 2);
		CHECK_INT(lb_entries_default(&l), 0);
		CHECK_INT(l.timeout, -1);
		/* equal titles made distinct with the version (systemd-boot) */
		if (l.n == 2) {
			CHECK_STR(l.v[0].title, "Debian GNU/Linux 12 (bookworm) (6.1.0-18-amd64)");
			CHECK_STR(l.v[1].title, "Debian GNU/Linux 12 (bookworm) (6.1.0-13-amd64)");
			/* what systemd-boot 252 hands the kernel: initrd= and the
			 * entry's path made an EFI path, then the options */
			CHECK_STR(l.v[0].cmdline,
				  "initrd=\\0123456789abcdef0123456789abcdef\\6.1.0-18-amd64\\initrd.img "
				  "root=UUID=6a5f2b1c-0d7e-4c4f-9a51-2b3c4d5e6f70 ro quiet "
				  "systemd.machine_id=0123456789abcdef0123456789abcdef");
			/* the file itself, as before */
			CHECK_STR(l.v[0].initrd[0], "/0123456789abcdef0123456789abcdef/6.1.0-18-amd64/initrd.img");
		}
		lb_entries_free(&l);
	}
	TEST("bls scan Fedora /boot: file name version order") {
		struct lb_fs fs = fs_of("bls/fedora-boot", dir, sizeof(dir));
		struct lb_entries l = LB_ENTRIES_INIT;
		static const char *const want[] = {
			"6.10.0-0.rc1.fc41.x86_64", "6.8.10-100.fc39.x86_64",
			"6.8.9-100.fc39.x86_64", "6.5.6-300.fc39.x86_64",
			"0-rescue-8a1b2c3d4e5f60718293a4b5c6d7e8f9",
		};

		CHECK_INT(lb_bls_scan(&fs, "", &l), 0);
		CHECK_INT(l.n, 5);
		for (size_t i = 0; i < l.n && i < 5; i++)
			CHECK_STR(l.v[i].version, want[i]);
		CHECK_INT(lb_entries_default(&l), 0);
		if (l.n)
			CHECK_STR(l.v[0].kernel, "/vmlinuz-6.10.0-0.rc1.fc41.x86_64");
		if (t_failed_now)
			dump(&l);
		lb_entries_free(&l);
	}
	TEST("bls sort-key, machine-id, version, then file name") {
		struct lb_fs fs = fs_of("bls/sortkey", dir, sizeof(dir));
		struct lb_entries l = LB_ENTRIES_INIT;
		static const char *const want[] = {
			"zzz-arch", "fedora-old", "fedora-6.10", "fedora-6.1",
			"nokey-10", "nokey-1",
		};

		CHECK_INT(lb_bls_scan(&fs, "", &l), 0);
		CHECK_INT(l.n, 6);
		for (size_t i = 0; i < l.n && i < 6; i++)
			CHECK_STR(l.v[i].id, want[i]);
		if (t_failed_now)
			dump(&l);
		lb_entries_free(&l);
	}
	TEST("bls Arch ESP: loader.conf glob default, timeout, initrds") {
		struct lb_fs fs = fs_of("bls/arch-esp", dir, sizeof(dir));
		struct lb_entries l = LB_ENTRIES_INIT;
		long d;

		CHECK_INT(lb_bls_scan(&fs, "", &l), 0);
		CHECK_INT(l.n, 4); /* arch-lts arch-fallback arch-arm arch; no windows */
		if (l.n == 4) {
			CHECK_STR(l.v[0].id, "arch-lts");
			CHECK_STR(l.v[1].id, "arch-fallback");
			CHECK_STR(l.v[2].id, "arch-arm");
			CHECK_INT(l.v[2].hidden, 1);
			CHECK_STR(l.v[3].id, "arch");
			/* systemd-boot's initrd= words first, one per initrd */
			CHECK_STR(l.v[3].cmdline, "initrd=\\intel-ucode.img initrd=\\initramfs-linux.img "
				  "root=PARTUUID=4a1e9b4c-6c0a-4b2a-9c7e-1f2e3d4c5b6a rw quiet");
			CHECK_INT(l.v[3].n_initrd, 2);
			CHECK_STR(l.v[3].initrd[0], "/intel-ucode.img");
			CHECK_STR(l.v[3].initrd[1], "/initramfs-linux.img");
		}
		d = lb_entries_default(&l);
		CHECK(d >= 0 && !strcmp(l.v[d].id, "arch-lts"));
		CHECK_INT(l.timeout, 4);
		CHECK(has_msg(&l, "windows.conf: skipped"));
		CHECK(has_msg(&l, "architecture 'aa64'"));
		if (t_failed_now)
			dump(&l);
		lb_entries_free(&l);
	}
	TEST("bls boot counting: bad entries last, @saved = first") {
		struct lb_fs fs = fs_of("bls/counting", dir, sizeof(dir));
		struct lb_entries l = LB_ENTRIES_INIT;

		CHECK_INT(lb_bls_scan(&fs, "", &l), 0);
		CHECK_INT(l.n, 3);
		if (l.n == 3) {
			CHECK_STR(l.v[0].id, "os-6.2");
			CHECK_STR(l.v[1].id, "os-6.1");
			CHECK_STR(l.v[2].id, "os-6.3"); /* +0-3: no tries left */
			CHECK_INT(l.v[0].is_default, 1);
		}
		CHECK_INT(l.timeout, 0); /* menu-hidden */
		if (t_failed_now)
			dump(&l);
		lb_entries_free(&l);
	}
	TEST("bls systemd-boot initrd= words") {
		static const struct {
			const char *initrd[3];
			const char *options;
			const char *want; /* the command line after, NULL: none */
			int type, refused;
		} t[] = {
			{ { "/a/b/initrd.img" }, "root=x ro", "initrd=\\a\\b\\initrd.img root=x ro", LB_ENTRY_LINUX, 0 },
			/* no leading '/'; runs of '/' and '\' one '\' */
			{ { "a//b/\\c", "/d" }, NULL, "initrd=\\a\\b\\c initrd=\\d", LB_ENTRY_LINUX, 0 },
			{ { "/x.img", "/y.img", "/z.img" }, "q", "initrd=\\x.img initrd=\\y.img initrd=\\z.img q", LB_ENTRY_LINUX, 0 },
			{ { NULL }, "root=x", "root=x", LB_ENTRY_LINUX, 0 },
			{ { NULL }, NULL, NULL, LB_ENTRY_LINUX, 0 },
			{ { "/u.img" }, "root=x", "root=x", LB_ENTRY_UKI, 0 }, /* not for a UKI */
			{ { "/caf\xc3\xa9/i.img" }, "r", "initrd=\\caf\xc3\xa9\\i.img r", LB_ENTRY_LINUX, 0 },
			{ { "/\xe2\x82\xac.img" }, "r", "initrd=\\\xe2\x82\xac.img r", LB_ENTRY_LINUX, 0 },
			{ { "/k'1.img" }, "r", "initrd=\\k'1.img r", LB_ENTRY_LINUX, 0 },
			/* refused: the word would split, quote, or not be what
			 * systemd-boot passes (it drops bytes that are not UTF-8;
			 * UCS-2 has no room beyond U+FFFF) */
			{ { "/ok.img", "/a b.img" }, "r", "r", LB_ENTRY_LINUX, 1 },
			{ { "/a\tb" }, "r", "r", LB_ENTRY_LINUX, 1 },
			{ { "/a\"b" }, NULL, NULL, LB_ENTRY_LINUX, 1 },
			{ { "/a\x7f" }, "r", "r", LB_ENTRY_LINUX, 1 },
			{ { "/a\xff.img" }, "r", "r", LB_ENTRY_LINUX, 1 },
			{ { "/a\xc3" }, "r", "r", LB_ENTRY_LINUX, 1 },          /* cut short */
			{ { "/a\xc0\xaf" }, "r", "r", LB_ENTRY_LINUX, 1 },      /* overlong '/' */
			{ { "/a\xed\xa0\x80" }, "r", "r", LB_ENTRY_LINUX, 1 },  /* surrogate */
			{ { "/a\xf0\x9f\x98\x80" }, "r", "r", LB_ENTRY_LINUX, 1 },
		};

		for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
			struct lb_entry e = { 0 };
			const char *bad = "unset";

			e.type = t[i].type;
			for (size_t j = 0; j < 3 && t[i].initrd[j]; j++)
				CHECK_INT(lb_entry_add_initrd(&e, t[i].initrd[j]), 0);
			e.cmdline = t[i].options ? strdup(t[i].options) : NULL;
			CHECK_INT(lb_bls_sdboot_cmdline(&e, &bad), t[i].refused ? -EINVAL : 0);
			if (t[i].refused)
				CHECK(bad && e.n_initrd && !strcmp(bad, e.initrd[e.n_initrd - 1]));
			else
				CHECK(bad == NULL);
			if (t[i].want)
				CHECK_STR(e.cmdline, t[i].want);
			else
				CHECK(e.cmdline == NULL);
			if (t_failed_now)
				printf("#  case %zu: %s\n", i, e.cmdline ? e.cmdline : "(null)");
			lb_entry_free(&e);
		}
	}
	TEST("bls scan: an entry whose initrd= word would not be one word is dropped") {
		struct lb_fs fs = fs_of("bls/badinitrd", dir, sizeof(dir));
		struct lb_entries l = LB_ENTRIES_INIT;

		CHECK_INT(lb_bls_scan(&fs, "", &l), 0);
		CHECK_INT(l.n, 1);
		if (l.n == 1) {
			CHECK_STR(l.v[0].id, "good");
			CHECK_STR(l.v[0].cmdline, "initrd=\\i.img root=x");
			CHECK_INT(l.v[0].is_default, 1);
		}
		CHECK(has_msg(&l, "bad.conf:2: skipped: initrd '/a b.img' has a blank"));
		if (t_failed_now)
			dump(&l);
		lb_entries_free(&l);
	}
	TEST("bls os-release values") {
		static const char o[] =
			"NAME=\"Foo OS\"\nPRETTY_NAME='Foo \"OS\" 1'\n"
			"ID=foo # c\nVERSION_ID=1.2\nX=\"a\\\"b\\\\c\"\n  BAD\nID=bar\n";
		char *v;

		v = lb_osrel_get(o, sizeof(o) - 1, "NAME");
		CHECK_STR(v, "Foo OS");
		free(v);
		v = lb_osrel_get(o, sizeof(o) - 1, "PRETTY_NAME");
		CHECK_STR(v, "Foo \"OS\" 1");
		free(v);
		v = lb_osrel_get(o, sizeof(o) - 1, "ID"); /* last one wins */
		CHECK_STR(v, "bar");
		free(v);
		v = lb_osrel_get(o, sizeof(o) - 1, "X");
		CHECK_STR(v, "a\"b\\c");
		free(v);
		CHECK(lb_osrel_get(o, sizeof(o) - 1, "VERSION") == NULL);
	}
	return t_done();
}
