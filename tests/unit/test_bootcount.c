/* Automatic Boot Assessment and the systemd-boot variables: counters in
 * file names (systemd-boot's series), renaming in a directory, the
 * default chosen by LoaderEntryOneShot / LoaderEntryDefault / lboot.default=saved
 * from a directory standing in for efivarfs, and bad entries sorted last. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bls.h"
#include "bootcount.h"
#include "bootstate.h"
#include "efivar.h"
#include "efivars.h"
#include "init.h"

#define LB_VERSION_STR LB_VERSION
#include "t.h"

static void add(struct lb_entries *l, const char *id, const char *source, const char *title)
{
	struct lb_entry *e = lb_entries_add(l);

	if (!e)
		return;
	e->id = strdup(id);
	e->source = strdup(source);
	e->title = strdup(title);
}

static int touch(const char *dir, const char *name)
{
	char p[512];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int exists(const char *dir, const char *name)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return access(p, F_OK) == 0;
}

int main(void)
{
	TEST("bootcount_parse") {
		static const struct {
			const char *f, *suf;
			int rc, left, done;
			size_t prefix;
		} t[] = {
			{ "foo+3.conf", ".conf", 0, 3, 0, 3 },
			{ "foo+4-0.conf", ".conf", 0, 4, 0, 3 },
			{ "foo+0-3.CONF", ".conf", 0, 0, 3, 3 },
			{ "a+b+2-1.efi", ".efi", 0, 2, 1, 3 },
			{ "fedora-6.5+3-1.conf", ".conf", 0, 3, 1, 10 },
			{ "foo.conf", ".conf", -ENOENT, 0, 0, 0 },
			{ "foo+x.conf", ".conf", -ENOENT, 0, 0, 0 },
			{ "foo+1-.conf", ".conf", -ENOENT, 0, 0, 0 },
			{ "foo+1-2x.conf", ".conf", -ENOENT, 0, 0, 0 },
			{ "foo+1.conf.bak", ".conf", -ENOENT, 0, 0, 0 },
			{ "foo+3.conf", ".efi", -ENOENT, 0, 0, 0 },
			{ "foo+2147483648.conf", ".conf", -ENOENT, 0, 0, 0 },
			{ "foo+2147483647-2147483647.conf", ".conf", 0, 2147483647, 2147483647, 3 },
		};
		for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
			struct lb_bootcount bc = { 0 };
			int r = lb_bootcount_parse(t[i].f, t[i].suf, &bc);

			CHECK_INT(r, t[i].rc);
			if (r || t[i].rc)
				continue;
			CHECK_INT(bc.left, t[i].left);
			CHECK_INT(bc.done, t[i].done);
			CHECK_INT(bc.prefix, t[i].prefix);
		}
	}
	TEST("bootcount_series") {
		/* systemd-boot's comment: foobar+3.efi -> +2-1 -> +1-2 -> +0-3
		 * and +4-0 -> +3-1 -> ... -> +0-4, then +0 stays */
		char a[64] = "foobar+3.efi", b[64];
		static const char *const want[] = { "foobar+2-1.efi", "foobar+1-2.efi",
						    "foobar+0-3.efi", "foobar+0-4.efi" };
		for (size_t i = 0; i < 4; i++) {
			CHECK_INT(lb_bootcount_next(a, ".efi", b, sizeof(b)), 0);
			CHECK_STR(b, want[i]);
			strcpy(a, b);
		}
		CHECK_INT(lb_bootcount_next("x+2-0.CONF", ".conf", b, sizeof(b)), 0);
		CHECK_STR(b, "x+1-1.conf");
		CHECK_INT(lb_bootcount_next("x.conf", ".conf", b, sizeof(b)), -ENOENT);
		CHECK_INT(lb_bootcount_next("x+2-0.conf", ".conf", b, 10), -ENOSPC);
		CHECK_INT(lb_bootcount_next("x+1-2147483647.conf", ".conf", b, sizeof(b)), 0);
		CHECK_STR(b, "x+0-2147483647.conf");
	}
	TEST("bootcount_id_match") {
		CHECK(lb_bootcount_id_match("foo+3-0.conf", "Foo+3-0.conf", ".conf", "Foo"));
		CHECK(lb_bootcount_id_match("foo.conf", "Foo+3-0.conf", ".conf", "Foo"));
		CHECK(lb_bootcount_id_match("FOO", "Foo+3-0.conf", ".conf", "Foo"));
		CHECK(lb_bootcount_id_match("fo*", "Foo+3-0.conf", ".conf", "Foo"));
		CHECK(!lb_bootcount_id_match("bar.conf", "Foo+3-0.conf", ".conf", "Foo"));
		CHECK(!lb_bootcount_id_match("foo+2-1.conf", "Foo+3-0.conf", ".conf", "Foo"));
		CHECK(lb_bootcount_id_match("arch.efi", "arch.efi", ".efi", "arch"));
		CHECK(lb_bootcount_id_match("gnulinux-x", NULL, NULL, "gnulinux-x"));
		CHECK(!lb_bootcount_id_match("", "a.conf", ".conf", "a"));
		CHECK(!lb_bootcount_id_match(NULL, "a.conf", ".conf", "a"));
		char id[64];
		CHECK_INT(lb_bootcount_sdboot_id("Fedora+3-0.conf", id, sizeof(id)), 0);
		CHECK_STR(id, "fedora+3-0.conf");
		CHECK_INT(lb_bootcount_sdboot_id("Fedora+3-0.conf", id, 15), -ENOSPC);
	}
	TEST("bootstate_entry_file") {
		struct lb_entry e = { 0 };
		char p[256], id[128];
		const char *suf = NULL;

		e.source = "/loader/entries/A+2-0.conf:3";
		e.id = "A";
		CHECK_INT(lb_bootstate_entry_file(&e, p, sizeof(p), &suf), 0);
		CHECK_STR(p, "/loader/entries/A+2-0.conf");
		CHECK_STR(suf, ".conf");
		CHECK_INT(lb_bootstate_entry_id(&e, id, sizeof(id)), 0);
		CHECK_STR(id, "a+2-0.conf");
		e.source = "/EFI/Linux/arch.efi:0";
		CHECK_INT(lb_bootstate_entry_file(&e, p, sizeof(p), &suf), 0);
		CHECK_STR(suf, ".efi");
		e.source = "/boot/grub/grub.cfg:12";
		CHECK_INT(lb_bootstate_entry_file(&e, p, sizeof(p), &suf), -ENOENT);
		e.id = "gnulinux-simple";
		CHECK_INT(lb_bootstate_entry_id(&e, id, sizeof(id)), 0);
		CHECK_STR(id, "gnulinux-simple");
		e.source = "x.conf:1a";
		CHECK_INT(lb_bootstate_entry_file(&e, p, sizeof(p), &suf), -ENOENT);
		e.source = NULL;
		CHECK_INT(lb_bootstate_entry_file(&e, p, sizeof(p), &suf), -ENOENT);
	}
	TEST("bootstate_count_rename") {
		char d[] = "/tmp/lb-count-XXXXXX", sub[64], np[256];

		if (!mkdtemp(d)) {
			CHECK(!"mkdtemp");
			continue;
		}
		snprintf(sub, sizeof(sub), "%s/loader", d);
		mkdir(sub, 0755);
		snprintf(sub, sizeof(sub), "%s/loader/entries", d);
		mkdir(sub, 0755);
		CHECK_INT(touch(sub, "a+2-0.conf"), 0);
		CHECK_INT(lb_bootstate_count(d, "/loader/entries/a+2-0.conf", ".conf", np, sizeof(np)), 0);
		CHECK_STR(np, "/loader/entries/a+1-1.conf");
		CHECK(!exists(sub, "a+2-0.conf") && exists(sub, "a+1-1.conf"));
		CHECK_INT(lb_bootstate_count(d, "/loader/entries/a+1-1.conf", ".conf", np, sizeof(np)), 0);
		CHECK(exists(sub, "a+0-2.conf"));
		/* never over an existing file */
		CHECK_INT(touch(sub, "b+1.conf"), 0);
		CHECK_INT(touch(sub, "b+0-1.conf"), 0);
		CHECK_INT(lb_bootstate_count(d, "/loader/entries/b+1.conf", ".conf", np, sizeof(np)), -EEXIST);
		CHECK(exists(sub, "b+1.conf"));
		CHECK_INT(lb_bootstate_count(d, "/loader/entries/c.conf", ".conf", np, sizeof(np)), -ENOENT);
		CHECK_INT(lb_bootstate_count(d, "/loader/../x+1.conf", ".conf", np, sizeof(np)), -EINVAL);
		CHECK_INT(lb_bootstate_count(d, "/loader/entries/gone+1.conf", ".conf", np, sizeof(np)), -ENOENT);
		{
			char cmd[128];
			snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
			CHECK_INT(system(cmd), 0);
		}
	}
	TEST("bootstate_select_vars") {
		char d[] = "/tmp/lb-vars-XXXXXX", s[64];
		struct lb_entries l = LB_ENTRIES_INIT;
		FILE *log = fopen("/dev/null", "w");

		if (!mkdtemp(d) || !log) {
			CHECK(!"mkdtemp");
			continue;
		}
		add(&l, "new", "/loader/entries/new+3-0.conf:2", "New");
		add(&l, "old", "/loader/entries/old.conf:2", "Old");
		add(&l, "gnulinux-x", "/boot/grub/grub.cfg:7", "GRUB's");
		lb_entries_set_default(&l, 0);
		lb_efivars_set_dir(d);
		/* nothing set: nothing chosen */
		CHECK_INT(lb_bootstate_select(&l, "", 1, 0, log), 0);
		CHECK_INT(lb_entries_default(&l), 0);
		/* LoaderEntryDefault (systemd-boot id with .conf) */
		CHECK_INT(lb_efivar_set_str("LoaderEntryDefault", LB_EFIVAR_GUID_LOADER, 7, "old.conf"), 0);
		CHECK_INT(lb_bootstate_select(&l, "", 1, 0, log), 1);
		CHECK_INT(lb_entries_default(&l), 1);
		/* the one-shot wins, and a dry run does not delete it */
		CHECK_INT(lb_efivar_set_str("LoaderEntryOneShot", LB_EFIVAR_GUID_LOADER, 7, "new.conf"), 0);
		CHECK_INT(lb_bootstate_select(&l, "old", 1, 1, log), 1);
		CHECK_INT(lb_entries_default(&l), 0);
		CHECK_INT(lb_efivar_get_str("LoaderEntryOneShot", LB_EFIVAR_GUID_LOADER, s, sizeof(s)), 0);
		/* a real boot deletes it: the next round is LoaderEntryDefault's */
		CHECK_INT(lb_bootstate_select(&l, "", 1, 0, log), 1);
		CHECK_INT(lb_entries_default(&l), 0);
		CHECK_INT(lb_efivar_get_str("LoaderEntryOneShot", LB_EFIVAR_GUID_LOADER, s, sizeof(s)), -ENOENT);
		CHECK_INT(lb_bootstate_select(&l, "", 1, 0, log), 1);
		CHECK_INT(lb_entries_default(&l), 1);
		/* a one-shot naming nothing is deleted too; the default var then */
		CHECK_INT(lb_efivar_set_str("LoaderEntryOneShot", LB_EFIVAR_GUID_LOADER, 7, "nope.conf"), 0);
		lb_entries_set_default(&l, 2);
		CHECK_INT(lb_bootstate_select(&l, "", 1, 0, log), 1);
		CHECK_INT(lb_entries_default(&l), 1);
		CHECK_INT(lb_efivar_get_str("LoaderEntryOneShot", LB_EFIVAR_GUID_LOADER, s, sizeof(s)), -ENOENT);
		/* without EFI (use_efi 0): the variables are not looked at */
		CHECK_INT(lb_bootstate_select(&l, "gnulinux-x", 0, 0, log), 1);
		CHECK_INT(lb_entries_default(&l), 2);
		CHECK_INT(lb_bootstate_select(&l, "nothing", 0, 0, log), 0);
		CHECK_INT(lb_entries_default(&l), 2);
		/* lboot.default=saved: LbootEntryLastBooted, below LoaderEntryDefault */
		CHECK_INT(lb_efivar_set_str(LB_BOOTSTATE_LAST_BOOTED, LB_EFIVAR_GUID_LBOOT, 7, "gnulinux-x"), 0);
		lb_entries_set_default(&l, 0);
		CHECK_INT(lb_bootstate_select(&l, "saved", 1, 0, log), 1);
		CHECK_INT(lb_entries_default(&l), 1); /* LoaderEntryDefault=old.conf */
		CHECK_INT(lb_efivar_del("LoaderEntryDefault", LB_EFIVAR_GUID_LOADER), 0);
		lb_entries_set_default(&l, 0);
		CHECK_INT(lb_bootstate_select(&l, "saved", 1, 0, log), 1);
		CHECK_INT(lb_entries_default(&l), 2);
		CHECK_INT(lb_efivar_del(LB_BOOTSTATE_LAST_BOOTED, LB_EFIVAR_GUID_LBOOT), 0);
		lb_entries_set_default(&l, 0);
		CHECK_INT(lb_bootstate_select(&l, "saved", 1, 0, log), 0);
		CHECK_INT(lb_entries_default(&l), 0);
		/* hidden entries are never chosen */
		l.v[1].hidden = 1;
		CHECK_INT(lb_bootstate_find(&l, "old.conf"), -1);
		CHECK_INT(lb_bootstate_find(&l, "NEW+3-0.CONF"), 0);
		lb_efivars_set_dir(NULL);
		lb_entries_free(&l);
		fclose(log);
		rmdir(d);
	}
	TEST("bootstate_select_log_sanitized") {
		/* the OS wrote the value: escape sequences are not replayed on
		 * the console */
		char d[] = "/tmp/lb-san-XXXXXX", logbuf[1024] = "";
		struct lb_entries l = LB_ENTRIES_INIT;
		FILE *log;

		if (!mkdtemp(d) || !(log = fmemopen(logbuf, sizeof(logbuf) - 1, "w"))) {
			CHECK(!"mkdtemp");
			continue;
		}
		add(&l, "a", "/loader/entries/a.conf:1", "A");
		lb_entries_set_default(&l, 0);
		lb_efivars_set_dir(d);
		CHECK_INT(lb_efivar_set_str("LoaderEntryOneShot", LB_EFIVAR_GUID_LOADER, 7, "x\x1b[2J\r"), 0);
		CHECK_INT(lb_bootstate_select(&l, "", 1, 0, log), 0);
		fclose(log);
		CHECK(strstr(logbuf, "LoaderEntryOneShot=x?[2J?: matches no entry (deleted)") != NULL);
		CHECK(!strchr(logbuf, '\x1b'));
		lb_efivars_set_dir(NULL);
		lb_entries_free(&l);
		rmdir(d);
	}
	TEST("bootstate_handover_vars") {
		/* the variables written before kexec, in a directory standing in
		 * for efivarfs (no disk, no firmware here: no partition UUID, no
		 * firmware info); a value already there is not written again */
		char d[] = "/tmp/lb-hand-XXXXXX", s[128], logbuf[4096];
		struct lb_entry e = { 0 };
		uint8_t f[16];
		size_t n;
		FILE *log;

		if (!mkdtemp(d)) {
			CHECK(!"mkdtemp");
			continue;
		}
		lb_efivars_set_dir(d);
		e.id = "fed";
		e.title = "Fedora";
		e.source = "/loader/entries/Fed+3-0.conf:2";
		CHECK_INT(lb_efivar_set_str("LoaderBootCountPath", LB_EFIVAR_GUID_LOADER, 7,
					    "\\loader\\entries\\old+1-1.conf"), 0);
		CHECK_INT(lb_efivar_set_str("LoaderDevicePartUUID", LB_EFIVAR_GUID_LOADER, 7, "X"), 0);
		memset(logbuf, 0, sizeof(logbuf));
		log = fmemopen(logbuf, sizeof(logbuf) - 1, "w");
		lb_bootstate_handover(NULL, NULL, &e, "saved", 1234, log);
		fclose(log);
		CHECK_INT(lb_efivar_get_str("LoaderInfo", LB_EFIVAR_GUID_LOADER, s, sizeof(s)), 0);
		CHECK_STR(s, "lboot " LB_VERSION_STR);
		CHECK_INT(lb_efivar_get_str("LoaderEntrySelected", LB_EFIVAR_GUID_LOADER, s, sizeof(s)), 0);
		CHECK_STR(s, "fed+3-0.conf");
		CHECK_INT(lb_efivar_get_str("LoaderTimeInitUSec", LB_EFIVAR_GUID_LOADER, s, sizeof(s)), 0);
		CHECK_STR(s, "1234000");
		CHECK_INT(lb_efivar_get_str("LoaderTimeExecUSec", LB_EFIVAR_GUID_LOADER, s, sizeof(s)), 0);
		CHECK(strtoull(s, NULL, 10) > 0);
		CHECK_INT(lb_efivar_get("LoaderFeatures", LB_EFIVAR_GUID_LOADER, NULL, f, sizeof(f), &n), 0);
		CHECK_INT(n, 8);
		CHECK(n == 8 && !memcmp(f, "\x3c\x01\0\0\0\0\0\0", 8));
		/* stale ones from an earlier boot are gone */
		CHECK_INT(lb_efivar_get_str("LoaderBootCountPath", LB_EFIVAR_GUID_LOADER, s, sizeof(s)), -ENOENT);
		CHECK_INT(lb_efivar_get_str("LoaderDevicePartUUID", LB_EFIVAR_GUID_LOADER, s, sizeof(s)), -ENOENT);
		CHECK_INT(lb_efivar_get_str(LB_BOOTSTATE_LAST_BOOTED, LB_EFIVAR_GUID_LBOOT, s, sizeof(s)), 0);
		CHECK_STR(s, "fed+3-0.conf");
		/* 6, and the two firmware ones on a host whose EFI system table
		 * lboot can read */
		CHECK(strstr(logbuf, strstr(logbuf, "EFI system table:") ?
			      "LoaderEntrySelected=fed+3-0.conf LoaderDevicePartUUID=- (6 EFI variables written)" :
			      "LoaderEntrySelected=fed+3-0.conf LoaderDevicePartUUID=- (8 EFI variables written)") != NULL);
		if (t_failed_now)
			printf("# log: %s\n", logbuf);
		/* the same boot again: only the exec time changes */
		memset(logbuf, 0, sizeof(logbuf));
		log = fmemopen(logbuf, sizeof(logbuf) - 1, "w");
		lb_bootstate_handover(NULL, NULL, &e, "saved", 1234, log);
		fclose(log);
		CHECK(strstr(logbuf, "(1 EFI variable written)") != NULL);
		if (t_failed_now)
			printf("# log: %s\n", logbuf);
		lb_efivars_set_dir(NULL);
		{
			char cmd[128];
			snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
			CHECK_INT(system(cmd), 0);
		}
	}
	TEST("bootstate_loader_entries") {
		/* LoaderEntries: every entry's id in menu order, UCS-2LE each
		 * with its NUL (systemd-boot's layout; logind checks
		 * `systemctl reboot --boot-loader-entry=ID` against it); what
		 * does not fit is left out and counted */
		struct lb_entry v[3] = { { 0 } };
		struct lb_entries l = LB_ENTRIES_INIT;
		static const uint8_t want[] = "a\0\0\0B\0 \0t\0\0\0g\0>\0x\0\0";
		uint8_t out[LB_EFIVAR_MAX], got[64];
		size_t n, left;

		v[0].id = "a";
		v[1].title = "B t";          /* no id: the title, as LoaderEntrySelected */
		v[2].id = "g>x";             /* a GRUB submenu path */
		l.v = v;
		l.n = 3;
		CHECK_INT(lb_bootstate_entries_var(&l, out, sizeof(out), &n, &left), 0);
		CHECK_INT(n, sizeof(want)); /* the literal's own NUL ends "g>x" */
		CHECK(n == sizeof(want) && !memcmp(out, want, n));
		CHECK_INT(left, 0);
		/* 10 bytes: "a" (4) fits, "B t" (8) and "g>x" (8) do not */
		CHECK_INT(lb_bootstate_entries_var(&l, out, 10, &n, &left), 0);
		CHECK_INT(n, 4);
		CHECK_INT(left, 2);
		/* no entry with an id at all */
		l.n = 0;
		CHECK_INT(lb_bootstate_entries_var(&l, out, sizeof(out), &n, &left), -ENOENT);
		/* the hand-over writes it */
		{
			char d[] = "/tmp/lb-ents-XXXXXX", logbuf[2048];
			FILE *log;

			if (!mkdtemp(d)) {
				CHECK(!"mkdtemp");
				continue;
			}
			lb_efivars_set_dir(d);
			l.n = 3;
			log = fmemopen(logbuf, sizeof(logbuf) - 1, "w");
			lb_bootstate_handover(NULL, &l, &v[2], NULL, 1, log);
			fclose(log);
			CHECK_INT(lb_efivar_get("LoaderEntries", LB_EFIVAR_GUID_LOADER, NULL, got,
						sizeof(got), &n), 0);
			CHECK(n == sizeof(want) && !memcmp(got, want, n));
			lb_efivars_set_dir(NULL);
			{
				char cmd[128];
				snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
				CHECK_INT(system(cmd), 0);
			}
		}
	}
	TEST("bootcount_bad_sorted_last") {
		/* +0-N entries ("bad") sort after all others, as systemd-boot */
		struct lb_entry a = { 0 }, b = { 0 };
		a.id = "fedora-6.9";
		b.id = "fedora-6.1";
		CHECK(lb_bls_compare(&a, 0, &b, 0) < 0);
		CHECK(lb_bls_compare(&a, 1, &b, 0) > 0);
		CHECK(lb_bls_compare(&b, 0, &a, 1) < 0);
	}
	return t_done();
}
