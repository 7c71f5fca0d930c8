/* Verified boot in the boot flow: policy loading, config files checked at
 * scan time on the bytes parsed, and staged entries checked before kexec
 * (src/trust/policy.c, verify.c, scan.c's check). Signatures are made here
 * in minisign's format with libsodium (tests/host/sig.sh and
 * tests/e2e/verify-*.sh use the real minisign). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "hash.h"
#include "io.h"
#include "kexec.h"
#include "manifest.h"
#include "policy.h"
#include "scan.h"
#include "verify.h"
#include "t.h"

static char tmpd[256];

static void put(const char *rel, const void *data, size_t len)
{
	char p[600];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", tmpd, rel);
	if ((f = fopen(p, "wb"))) {
		fwrite(data, 1, len, f);
		fclose(f);
	}
}

static void putstr(const char *rel, const char *s) { put(rel, s, strlen(s)); }

static void mk(const char *rel)
{
	char p[600];

	snprintf(p, sizeof(p), "%s/%s", tmpd, rel);
	mkdir(p, 0755);
}

static size_t slurp(const char *rel, uint8_t **out)
{
	char p[600];
	FILE *f;
	long n;

	snprintf(p, sizeof(p), "%s/%s", tmpd, rel);
	*out = NULL;
	if (!(f = fopen(p, "rb")))
		return 0;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	*out = malloc((size_t)n + 1);
	if (fread(*out, 1, (size_t)n, f) != (size_t)n)
		n = 0;
	fclose(f);
	return (size_t)n;
}

static void unlink_rel(const char *rel)
{
	char p[600];

	snprintf(p, sizeof(p), "%s/%s", tmpd, rel);
	unlink(p);
}

struct key {
	uint8_t id[8], pk[32], sk[64];
};

static void keygen(struct key *k, uint8_t seed)
{
	uint8_t s[32];

	memset(s, seed, sizeof(s));
	crypto_sign_seed_keypair(k->pk, k->sk, s);
	memset(k->id, seed, sizeof(k->id));
}

static void b64(const uint8_t *p, size_t n, char *out, size_t outsz)
{
	sodium_bin2base64(out, outsz, p, n, sodium_base64_VARIANT_ORIGINAL);
}

/* rel.pub as `minisign -G` writes it */
static void write_pub(const struct key *k, const char *rel)
{
	uint8_t raw[42];
	char b[128], text[256];

	memcpy(raw, "Ed", 2);
	memcpy(raw + 2, k->id, 8);
	memcpy(raw + 10, k->pk, 32);
	b64(raw, sizeof(raw), b, sizeof(b));
	snprintf(text, sizeof(text), "untrusted comment: minisign public key\n%s\n", b);
	putstr(rel, text);
}

/* rel.minisig: `ED` (BLAKE2b-512 prehashed) over the file's bytes */
static void sign(const struct key *k, const char *rel)
{
	uint8_t *data, h[64], raw[74], gs[64], gm[64 + 64];
	const char *tc = "lboot unit test";
	char b1[128], b2[128], text[512], sp[600];
	size_t n = slurp(rel, &data);

	crypto_generichash(h, 64, data, n, NULL, 0);
	free(data);
	memcpy(raw, "ED", 2);
	memcpy(raw + 2, k->id, 8);
	crypto_sign_detached(raw + 10, NULL, h, 64, k->sk);
	memcpy(gm, raw + 10, 64);
	memcpy(gm + 64, tc, strlen(tc));
	crypto_sign_detached(gs, NULL, gm, 64 + strlen(tc), k->sk);
	b64(raw, sizeof(raw), b1, sizeof(b1));
	b64(gs, sizeof(gs), b2, sizeof(b2));
	snprintf(text, sizeof(text), "untrusted comment: sig\n%s\ntrusted comment: %s\n%s\n",
		 b1, tc, b2);
	snprintf(sp, sizeof(sp), "%s.minisig", rel);
	putstr(sp, text);
}

/* rename a file under the test root */
static void rename_in(const char *from, const char *to)
{
	char a[600], b[600];

	snprintf(a, sizeof(a), "%s/%s", tmpd, from);
	snprintf(b, sizeof(b), "%s/%s", tmpd, to);
	if (rename(a, b))
		printf("# cannot rename %s\n", a);
}

static void write_policy(const char *text)
{
	putstr("etc/lboot/policy", text);
}

/* When set, the entry's first initrd is wrapped as iPXE's "initrd URL
 * PATH" would (the path and mode come from the entry's config) */
static const char *wrap_path;

/* Scan fs with the verifier's config check, then dry-run kexec entry `id`
 * with the verification: the result, and why. */
/* When set, called on the scanned entry before it is staged: what a
 * producer could do to an entry after the config check */
static void (*after_scan)(struct lb_entry *e);

static int try_id(struct lb_verifier *v, const char *id, const char *cmdline,
		  char *why, size_t whysz, char **log)
{
	char root[400];
	struct lb_fs fs = { .dir = root, .uuid = "1111-2222", .name = "/dev/vdt1" };
	struct lb_fsset set = { .v = &fs, .n = 1 };
	struct lb_entries l = LB_ENTRIES_INIT;
	size_t loglen = 0;
	FILE *lf = open_memstream(log, &loglen);
	int r = -ENOENT;

	snprintf(root, sizeof(root), "%s/disk", tmpd);
	v->log = lf;
	lb_scan_set_check(v->pol->mode ? lb_verify_config : NULL, v);
	lb_scan(&set, &l);
	lb_scan_set_check(NULL, NULL);
	for (size_t i = 0; i < l.n; i++) {
		if (!l.v[i].id || strcmp(l.v[i].id, id))
			continue;
		struct lb_kexec_req rq = {
			.set = &set, .entry = &l.v[i], .cmdline = cmdline, .dry_run = 1,
			.log = lf, .digest_mask = lb_verify_mask(v->pol),
			.check = lb_verify_stage, .check_arg = v,
		};
		why[0] = 0;
		if (wrap_path && l.v[i].n_initrd) {
			lb_setstr(&l.v[i].initrd_cpio[0].path, wrap_path);
			l.v[i].initrd_cpio[0].mode = 0600;
		}
		if (after_scan)
			after_scan(&l.v[i]);
		r = lb_kexec_load(&rq, why, whysz);
	}
	lb_entries_free(&l);
	fclose(lf);
	return r;
}

/* Dry-run kexec an entry no config file defines, as network boot makes one
 * from DHCP (a kernel URL and, from DHCPv6, boot-file parameters): no
 * producer marks it as checked; the verifier decides from what is staged. */
static const char *bare_kernel = "/vmlinuz"; /* the kernel try_bare boots */
static int bare_uki;                          /* and whether it is a UKI */

static int try_bare(struct lb_verifier *v, const char *cmdline, char *why, size_t whysz,
		    char **log)
{
	char root[400];
	struct lb_fs fs = { .dir = root, .uuid = "1111-2222", .name = "/dev/vdt1" };
	struct lb_fsset set = { .v = &fs, .n = 1 };
	struct lb_entries l = LB_ENTRIES_INIT;
	struct lb_entry *e = lb_entries_add(&l);
	size_t loglen = 0;
	FILE *lf = open_memstream(log, &loglen);
	int r;

	snprintf(root, sizeof(root), "%s/disk", tmpd);
	v->log = lf;
	lb_setstr(&e->kernel, bare_kernel);
	if (bare_uki)
		e->type = LB_ENTRY_UKI;
	lb_setstr(&e->title, "dhcp");
	lb_setstr(&e->fs, "1111-2222");
	if (cmdline)
		lb_setstr(&e->cmdline, cmdline);
	struct lb_kexec_req rq = {
		.set = &set, .entry = e, .dry_run = 1, .log = lf,
		.digest_mask = lb_verify_mask(v->pol),
		.check = lb_verify_stage, .check_arg = v,
	};
	why[0] = 0;
	r = lb_kexec_load(&rq, why, whysz);
	lb_entries_free(&l);
	fclose(lf);
	return r;
}

/* Dry-run kexec of an entry built by hand, as a producer (netboot, a
 * parser) hands it over, with the verification */
static int try_entry(struct lb_verifier *v, struct lb_entry *e, char *why, size_t whysz,
		     char **log)
{
	char root[400];
	struct lb_fs fs = { .dir = root, .uuid = "1111-2222", .name = "/dev/vdt1" };
	struct lb_fsset set = { .v = &fs, .n = 1 };
	size_t loglen = 0;
	FILE *lf = open_memstream(log, &loglen);
	int r;

	snprintf(root, sizeof(root), "%s/disk", tmpd);
	v->log = lf;
	struct lb_kexec_req rq = {
		.set = &set, .entry = e, .dry_run = 1, .log = lf,
		.digest_mask = lb_verify_mask(v->pol),
		.check = lb_verify_stage, .check_arg = v,
	};
	why[0] = 0;
	r = lb_kexec_load(&rq, why, whysz);
	fclose(lf);
	return r;
}

static void add_init_sh(struct lb_entry *e)
{
	lb_setstr(&e->cmdline, "root=/dev/x ro init=/bin/sh");
}

/* tests/files/uki/bz.efi (a UKI with a .cmdline and a bzImage .linux),
 * and the same with that section renamed (a UKI without one) */
static uint8_t *uki, *uki_nocmd;
static size_t uki_len;
static struct key *signer;

static void load_uki(void)
{
	char p[600];
	FILE *f;
	long n;

	snprintf(p, sizeof(p), "%s/uki/bz.efi", t_files());
	if (!(f = fopen(p, "rb")))
		return;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uki = malloc((size_t)n);
	uki_nocmd = malloc((size_t)n);
	if (uki && uki_nocmd && fread(uki, 1, (size_t)n, f) == (size_t)n) {
		uint8_t *c;

		uki_len = (size_t)n;
		memcpy(uki_nocmd, uki, uki_len);
		c = memmem(uki_nocmd, uki_len < 4096 ? uki_len : 4096, ".cmdline", 8);
		if (c)
			memcpy(c, ".cmdlinX", 8);
		else
			uki_len = 0;
	}
	fclose(f);
}

/* the disk answers the stage's read with another, validly signed UKI
 * that has no .cmdline */
static void swap_uki(struct lb_entry *e)
{
	put("disk/EFI/os/os.efi", uki_nocmd, uki_len);
	sign(signer, "disk/EFI/os/os.efi");
}

static void entry(const char *id, const char *kernel, const char *initrd, const char *opts)
{
	char rel[300], text[600];

	snprintf(rel, sizeof(rel), "disk/loader/entries/%s.conf", id);
	snprintf(text, sizeof(text), "title %s\nlinux /%s\ninitrd /%s\noptions %s\n",
		 id, kernel, initrd, opts);
	putstr(rel, text);
}

int main(void)
{
	struct key good, other, rev;
	struct lb_policy pol;
	struct lb_verifier v = { .pol = &pol };
	char why[1024], *log = NULL, root[400];

	if (sodium_init() < 0)
		return 1;
	snprintf(tmpd, sizeof(tmpd), "/tmp/lboot-test-verify.XXXXXX");
	if (!mkdtemp(tmpd))
		return 1;
	keygen(&good, 1);
	keygen(&other, 2);
	keygen(&rev, 3);
	mk("etc");
	mk("etc/lboot");
	mk("etc/lboot/trust");
	mk("etc/lboot/revoked");
	mk("disk");
	mk("disk/loader");
	mk("disk/loader/entries");
	write_pub(&good, "etc/lboot/trust/good.pub");
	write_pub(&rev, "etc/lboot/trust/rev.pub");
	write_pub(&rev, "etc/lboot/revoked/rev.pub");
	{
		static uint8_t bz[0x400];
		bz[0x1fe] = 0x55;
		bz[0x1ff] = 0xaa;
		memcpy(bz + 0x202, "HdrS", 4);
		put("disk/vmlinuz", bz, sizeof(bz));
		bz[0x300] = 1;
		put("disk/vmlinuz-other", bz, sizeof(bz));
	}
	putstr("disk/initrd.img", "an initrd");
	putstr("disk/initrd-old.img", "an old initrd");
	sign(&good, "disk/vmlinuz");
	sign(&other, "disk/vmlinuz-other");
	sign(&good, "disk/initrd.img");
	sign(&good, "disk/initrd-old.img");
	entry("good", "vmlinuz", "initrd.img", "root=/dev/x ro");
	sign(&good, "disk/loader/entries/good.conf");
	entry("other", "vmlinuz-other", "initrd.img", "root=/dev/x ro");
	sign(&good, "disk/loader/entries/other.conf");
	entry("unsigned", "vmlinuz", "initrd.img", "root=/dev/x ro");
	entry("edited", "vmlinuz", "initrd.img", "root=/dev/x ro");
	sign(&good, "disk/loader/entries/edited.conf");
	entry("edited", "vmlinuz", "initrd.img", "root=/dev/x ro init=/bin/sh");
	entry("revoked", "vmlinuz", "initrd.img", "root=/dev/x");
	sign(&rev, "disk/loader/entries/revoked.conf");
	snprintf(root, sizeof(root), "%s", tmpd);

	TEST("policy: missing file is off; a written one loads keys") {
		lb_policy_load("/nonexistent-lboot", &pol);
		CHECK_INT(pol.mode, LB_VERIFY_OFF);
		CHECK_STR(pol.err, "");
		lb_policy_free(&pol);
		write_policy("# test\nverify enforce\nallow-edit no\nallow-shell yes\nmanifest-floor 3\n"
			     "time-floor 2026-01-01T00:00:00Z\n");
		lb_policy_load(root, &pol);
		CHECK_INT(pol.mode, LB_VERIFY_ENFORCE);
		CHECK_STR(pol.err, "");
		CHECK_INT(pol.n_trusted, 2);
		CHECK_INT(pol.n_revoked, 1);
		CHECK_INT(pol.allow_edit, 0);
		CHECK_INT(pol.allow_shell, 1);
		CHECK_INT(pol.manifest_floor, 3);
		CHECK(lb_policy_now(&pol) >= 1767225600);
		CHECK_INT(lb_policy_raise(&pol, "warn"), 0);
		CHECK_INT(pol.mode, LB_VERIFY_ENFORCE);
		CHECK_INT(lb_policy_raise(&pol, "bogus"), -EINVAL);
		lb_policy_free(&pol);
	}
	TEST("policy: only stricter from the command line; a bad file fails closed") {
		write_policy("verify warn\n");
		lb_policy_load(root, &pol);
		CHECK_INT(pol.mode, LB_VERIFY_WARN);
		CHECK_INT(lb_policy_raise(&pol, "enforce"), 1);
		CHECK_INT(pol.mode, LB_VERIFY_ENFORCE);
		lb_policy_free(&pol);
		write_policy("verify sometimes\n");
		lb_policy_load(root, &pol);
		CHECK_INT(pol.mode, LB_VERIFY_ENFORCE);
		CHECK(strstr(pol.err, "verify 'sometimes'") != NULL);
		CHECK_INT(pol.n_trusted, 0);
		lb_policy_free(&pol);
		write_policy("verify off\ncolour blue\n");
		lb_policy_load(root, &pol);
		CHECK_INT(pol.mode, LB_VERIFY_ENFORCE);
		CHECK(strstr(pol.err, "unknown key 'colour'") != NULL);
		lb_policy_free(&pol);
	}

	write_policy("verify enforce\n");
	lb_policy_load(root, &pol);
	TEST("enforce: kernel, initrd and config signed boots") {
		CHECK_INT(try_id(&v, "good", NULL, why, sizeof(why), &log), 0);
		CHECK(strstr(log, "lboot: verified 'good': kernel, 1 initrd and command line by signatures (kernel: key 0101010101010101; command line: /loader/entries/good.conf on /dev/vdt1)") != NULL);
		CHECK(strstr(log, "would kexec 'good'") != NULL);
		free(log);
	}
	TEST("enforce: refusals name the file and the reason") {
		CHECK_INT(try_id(&v, "other", NULL, why, sizeof(why), &log), -EKEYREJECTED);
		CHECK_STR(why, "/vmlinuz-other: unknown key");
		CHECK(!strstr(log, "would kexec"));
		free(log);
		CHECK_INT(try_id(&v, "unsigned", NULL, why, sizeof(why), &log), -EKEYREJECTED);
		CHECK_STR(why, "/loader/entries/unsigned.conf on /dev/vdt1: no signature");
		free(log);
		CHECK_INT(try_id(&v, "edited", NULL, why, sizeof(why), &log), -EKEYREJECTED);
		CHECK_STR(why, "/loader/entries/edited.conf on /dev/vdt1: bad signature");
		free(log);
		CHECK_INT(try_id(&v, "revoked", NULL, why, sizeof(why), &log), -EKEYREJECTED);
		CHECK_STR(why, "/loader/entries/revoked.conf on /dev/vdt1: revoked key");
		free(log);
		/* an edited command line, not allowed by the policy */
		CHECK_INT(try_id(&v, "good", "root=/dev/x init=/bin/sh", why, sizeof(why), &log), -EKEYREJECTED);
		CHECK_STR(why, "command line: edited at the menu, and the policy does not allow edits");
		free(log);
	}
	TEST("enforce: a netboot entry's DHCPv6 command line is covered by no mark (issue 23, 1)") {
		/* what netboot made of a DHCPv6 boot-file-url + option 60: a
		 * validly signed kernel, the network's command line, and a
		 * mark claiming a checked (empty) config */
		struct lb_entry e = { 0 };

		lb_setstr(&e.kernel, "/vmlinuz");
		lb_setstr(&e.title, "vmlinuz");
		lb_setstr(&e.fs, "1111-2222");
		lb_setstr(&e.cmdline, "init=/bin/sh lockdown=none");
		e.cfg_checked = 1;
		e.cfg_rc = 0;
		lb_setstr(&e.cfg_file, "(no config: empty command line)");
		CHECK_INT(try_entry(&v, &e, why, sizeof(why), &log), -EKEYREJECTED);
		CHECK_STR(why, "command line: not the one the checked config gave (not covered by any signature)");
		CHECK(!strstr(log, "would kexec"));
		free(log);
		/* unmarked, as netboot now hands it over: refused, one line */
		e.cfg_checked = 0;
		CHECK_INT(try_entry(&v, &e, why, sizeof(why), &log), -EKEYREJECTED);
		CHECK_STR(why, "command line: no signature covers it (not from a signed config file, "
			  "a manifest or the UKI; e.g. DHCPv6 boot-file parameters)");
		free(log);
		/* an empty command line needs no signature */
		free(e.cmdline);
		e.cmdline = NULL;
		CHECK_INT(try_entry(&v, &e, why, sizeof(why), &log), 0);
		CHECK(strstr(log, "lboot: verified 'vmlinuz': kernel, 0 initrds and command line by signatures (kernel: key 0101010101010101; command line: empty)") != NULL);
		free(log);
		/* an edit the policy allows still boots */
		pol.allow_edit = 1;
		CHECK_INT(try_entry(&v, &e, why, sizeof(why), &log), 0);
		free(log);
		pol.allow_edit = 0;
		lb_entry_free(&e);
	}
	TEST("enforce: an entry a producer says holds network input is refused, whatever covers it (issue 23, 5)") {
		/* what netboot makes of a signed iPXE script that expanded
		 * ${hostname} into the command line: a signed kernel, the
		 * script's (valid) mark, and the provenance */
		struct lb_entry e = { 0 };

		lb_setstr(&e.kernel, "/vmlinuz");
		lb_setstr(&e.title, "vmlinuz");
		lb_setstr(&e.fs, "1111-2222");
		lb_setstr(&e.cmdline, "root=/dev/x ro hostname=evil init=/bin/sh");
		CHECK_INT(lb_entry_mark_checked(&e, 0, "http://srv/boot.ipxe"), 0);
		/* the mark alone covers it (the sealed line is this one) */
		CHECK_INT(try_entry(&v, &e, why, sizeof(why), &log), 0);
		free(log);
		lb_setstr(&e.uncovered, "iPXE script http://srv/boot.ipxe: the command line holds "
			  "bytes of a network setting (${next-server}, ${filename}, ${hostname}...), "
			  "which no signature covers");
		CHECK_INT(try_entry(&v, &e, why, sizeof(why), &log), -EKEYREJECTED);
		CHECK_STR(why, e.uncovered);
		CHECK(!strstr(log, "would kexec"));
		free(log);
		/* an allowed edit does not make it covered either */
		pol.allow_edit = 1;
		CHECK_INT(try_entry(&v, &e, why, sizeof(why), &log), -EKEYREJECTED);
		free(log);
		pol.allow_edit = 0;
		/* warn: boots, and says why */
		pol.mode = LB_VERIFY_WARN;
		CHECK_INT(try_entry(&v, &e, why, sizeof(why), &log), 0);
		CHECK(strstr(log, "lboot: verify (warn): 'vmlinuz': iPXE script http://srv/boot.ipxe: the command line holds") != NULL);
		free(log);
		pol.mode = LB_VERIFY_ENFORCE;
		lb_entry_free(&e);
	}
	TEST("enforce: a command line changed after the config check is refused") {
		after_scan = add_init_sh;
		CHECK_INT(try_id(&v, "good", NULL, why, sizeof(why), &log), -EKEYREJECTED);
		CHECK_STR(why, "command line: not the one the checked config gave (not covered by any signature)");
		CHECK(!strstr(log, "would kexec"));
		free(log);
		after_scan = NULL;
		CHECK_INT(try_id(&v, "good", NULL, why, sizeof(why), &log), 0);
		free(log);
	}
	TEST("enforce: a BLS `uki` entry without options: no scan-time command line (issue 23, 3)") {
		load_uki();
		signer = &good;
		CHECK(uki_len > 0);
		mk("disk/EFI");
		mk("disk/EFI/os");
		putstr("disk/loader/entries/viauki.conf", "title Via UKI\nuki /EFI/os/os.efi\n");
		sign(&good, "disk/loader/entries/viauki.conf");
		/* the UKI's own .cmdline, staged and signed: boots with it */
		put("disk/EFI/os/os.efi", uki, uki_len);
		sign(&good, "disk/EFI/os/os.efi");
		CHECK_INT(try_id(&v, "viauki", NULL, why, sizeof(why), &log), 0);
		CHECK(strstr(log, "cmdline=root=UUID=6a5f2b1c-0d7e-4c4f-9a51-2b3c4d5e6f70 ro quiet") != NULL);
		free(log);
		/* scanned: an unsigned UKI whose .cmdline the attacker wrote;
		 * staged: a signed UKI without .cmdline. The scan-time line
		 * must not reach the kernel */
		put("disk/EFI/os/os.efi", uki, uki_len);
		unlink_rel("disk/EFI/os/os.efi.minisig");
		after_scan = swap_uki;
		CHECK_INT(try_id(&v, "viauki", NULL, why, sizeof(why), &log), 0);
		CHECK(!strstr(log, "root=UUID=6a5f"));
		CHECK(strstr(log, "command line by signatures (kernel: key 0101010101010101; command line: empty)") != NULL);
		free(log);
		after_scan = NULL;
		unlink_rel("disk/loader/entries/viauki.conf");
		unlink_rel("disk/loader/entries/viauki.conf.minisig");
	}
	TEST("enforce: an initrd changed after signing is refused") {
		putstr("disk/initrd.img", "an initrd, changed");
		CHECK_INT(try_id(&v, "good", NULL, why, sizeof(why), &log), -EKEYREJECTED);
		CHECK_STR(why, "/initrd.img: bad signature");
		free(log);
		putstr("disk/initrd.img", "an initrd");
		CHECK_INT(try_id(&v, "good", NULL, why, sizeof(why), &log), 0);
		free(log);
	}
	TEST("enforce: a signed manifest binds kernel, initrds and command line") {
		struct lb_manifest m = { 0 };
		struct lb_digests d;
		uint8_t *data;
		char *text;
		size_t n, tl;

		snprintf(m.entry, sizeof(m.entry), "unsigned");
		m.version = 5;
		m.expires = 4102444800; /* 2100 */
		n = slurp("disk/vmlinuz", &data);
		lb_hash_buf(LB_HASH_BIT(LB_SHA256), data, n, &d);
		free(data);
		memcpy(m.kernel, d.d[LB_SHA256], 32);
		n = slurp("disk/initrd-old.img", &data);
		lb_hash_buf(LB_HASH_BIT(LB_SHA256), data, n, &d);
		free(data);
		memcpy(m.initrd[0], d.d[LB_SHA256], 32);
		m.n_initrds = 1;
		/* the command line as lboot passes it: systemd-boot's initrd=
		 * word for the entry's initrd first (bls.c) */
		snprintf(m.cmdline, sizeof(m.cmdline), "initrd=\\initrd-old.img root=/dev/x ro");
		m.cmdline_len = strlen(m.cmdline);
		CHECK_INT(lb_manifest_format(&m, &text, &tl), 0);
		put("disk/loader/entries/unsigned.manifest", text, tl);
		free(text);
		/* unsigned manifest: refused, even though the files are signed */
		CHECK_INT(try_id(&v, "unsigned", NULL, why, sizeof(why), &log), -EKEYREJECTED);
		CHECK_STR(why, "/loader/entries/unsigned.manifest: no signature");
		free(log);
		sign(&good, "disk/loader/entries/unsigned.manifest");
		/* the entry uses another (individually signed) initrd: mixed;
		 * its initrd= word names another file, so the command line
		 * differs first (the files' digests: unit/manifest, and
		 * e2e/verify-bls's mixed-manifest, same name, other bytes) */
		CHECK_INT(try_id(&v, "unsigned", NULL, why, sizeof(why), &log), -EKEYREJECTED);
		CHECK_STR(why, "command line: changed after signing (manifest /loader/entries/unsigned.manifest)");
		free(log);
		entry("unsigned", "vmlinuz", "initrd-old.img", "root=/dev/x ro");
		CHECK_INT(try_id(&v, "unsigned", NULL, why, sizeof(why), &log), 0);
		CHECK(strstr(log, "by manifest /loader/entries/unsigned.manifest v5, key 0101010101010101") != NULL);
		free(log);
		/* the unsigned conf's command line changed: the manifest says no */
		entry("unsigned", "vmlinuz", "initrd-old.img", "root=/dev/x ro single");
		CHECK_INT(try_id(&v, "unsigned", NULL, why, sizeof(why), &log), -EKEYREJECTED);
		CHECK_STR(why, "command line: changed after signing (manifest /loader/entries/unsigned.manifest)");
		free(log);
		entry("unsigned", "vmlinuz", "initrd-old.img", "root=/dev/x ro");
		/* rollback floor */
		pol.manifest_floor = 6;
		CHECK_INT(try_id(&v, "unsigned", NULL, why, sizeof(why), &log), -EKEYREJECTED);
		CHECK_STR(why, "/loader/entries/unsigned.manifest: version 5 below the floor 6");
		free(log);
		pol.manifest_floor = 0;
		/* expiry: the clock's floor beyond it */
		pol.time_floor = 4102444800;
		CHECK_INT(try_id(&v, "unsigned", NULL, why, sizeof(why), &log), -EKEYREJECTED);
		CHECK_STR(why, "/loader/entries/unsigned.manifest: expired (2100-01-01T00:00:00Z)");
		free(log);
		pol.time_floor = 0;
		/* require-manifest (finding 6): the entry with a manifest still
		 * boots; one without, signed file by file, no longer does */
		pol.require_manifest = 1;
		CHECK_INT(try_id(&v, "unsigned", NULL, why, sizeof(why), &log), 0);
		free(log);
		CHECK_INT(try_id(&v, "good", NULL, why, sizeof(why), &log), -EKEYREJECTED);
		CHECK_STR(why, "/vmlinuz: no manifest for this entry, and the policy requires one (require-manifest)");
		free(log);
		pol.require_manifest = 0;
		/* a cpio-wrapped initrd: the manifest covers the file's bytes,
		 * not the path and mode its header gives it, which come from
		 * the (here unsigned) config: refused */
		wrap_path = "/etc/x.conf";
		CHECK_INT(try_id(&v, "unsigned", NULL, why, sizeof(why), &log), -EKEYREJECTED);
		CHECK_STR(why, "/loader/entries/unsigned.conf on /dev/vdt1: no signature");
		free(log);
		wrap_path = NULL;
	}
	TEST("enforce: require-manifest: deleting the manifest does not fall back to per-file signatures (issue 23, 6)") {
		struct lb_policy p2;

		write_policy("verify enforce\nrequire-manifest yes\n");
		lb_policy_load(root, &p2);
		CHECK_STR(p2.err, "");
		CHECK_INT(p2.require_manifest, 1);
		lb_policy_free(&p2);
		write_policy("verify enforce\nrequire-manifest sometimes\n");
		lb_policy_load(root, &p2);
		CHECK(strstr(p2.err, "require-manifest 'sometimes': want yes or no") != NULL);
		lb_policy_free(&p2);
		write_policy("verify enforce\n");
		/* "good" is covered per file (kernel, initrd and config signed),
		 * with no manifest: boots without the switch, refused with it */
		CHECK_INT(try_id(&v, "good", NULL, why, sizeof(why), &log), 0);
		free(log);
		pol.require_manifest = 1;
		CHECK_INT(try_id(&v, "good", NULL, why, sizeof(why), &log), -EKEYREJECTED);
		CHECK_STR(why, "/vmlinuz: no manifest for this entry, and the policy requires one (require-manifest)");
		CHECK(strstr(log, "would kexec") == NULL);
		free(log);
		/* an entry with its signed manifest still boots */
		CHECK_INT(try_id(&v, "unsigned", NULL, why, sizeof(why), &log), 0);
		CHECK(strstr(log, "by manifest /loader/entries/unsigned.manifest v5") != NULL);
		free(log);
		/* the manifest deleted: refused, not per-file */
		rename_in("disk/loader/entries/unsigned.manifest", "disk/loader/entries/unsigned.manifest.away");
		CHECK_INT(try_id(&v, "unsigned", NULL, why, sizeof(why), &log), -EKEYREJECTED);
		CHECK_STR(why, "/vmlinuz: no manifest for this entry, and the policy requires one (require-manifest)");
		free(log);
		rename_in("disk/loader/entries/unsigned.manifest.away", "disk/loader/entries/unsigned.manifest");
		pol.require_manifest = 0;
	}
	TEST("enforce: a cpio-wrapped initrd: its signature covers its own bytes, the header comes from the signed config") {
		wrap_path = "/etc/x.conf";
		CHECK_INT(try_id(&v, "good", NULL, why, sizeof(why), &log), 0);
		CHECK(strstr(log, "lboot: verified 'good': kernel, 1 initrd and command line by signatures") != NULL);
		free(log);
		/* an edit the policy allows does not make an unsigned config's
		 * wrapping acceptable */
		pol.allow_edit = 1;
		CHECK_INT(try_id(&v, "unsigned", "root=/dev/y", why, sizeof(why), &log), -EKEYREJECTED);
		CHECK_STR(why, "/loader/entries/unsigned.conf on /dev/vdt1: no signature");
		free(log);
		wrap_path = NULL;
		CHECK_INT(try_id(&v, "unsigned", "root=/dev/y", why, sizeof(why), &log), 0);
		free(log);
		pol.allow_edit = 0;
	}
	TEST("enforce: a command line no signature covers is refused; an empty one needs none") {
		/* issue 23 finding 1: DHCPv6 boot-file parameters with a signed kernel */
		CHECK_INT(try_bare(&v, "console=ttyS0 init=/bin/sh", why, sizeof(why), &log),
			  -EKEYREJECTED);
		CHECK(strstr(why, "command line: no signature covers it") != NULL);
		CHECK(!strstr(log, "would kexec"));
		free(log);
		CHECK_INT(try_bare(&v, NULL, why, sizeof(why), &log), 0);
		CHECK(strstr(log, "would kexec 'dhcp'") != NULL);
		free(log);
	}
	TEST("enforce: a PE-signed UKI: its .sbat below the policy's sbat minimum is refused") {
		/* issue 23 finding 9: tests/files/uki/uki-signed.bin (sign-uki.sh),
		 * systemd-stub's .sbat says systemd,1 */
		uint8_t *img, *ca;
		size_t ulen, calen;
		if (lb_read_path("tests/files/uki/uki-signed.bin", 1 << 20, &img, &ulen) ||
		    lb_read_path("tests/files/uki/test-ca.der", 1 << 16, &ca, &calen)) {
			SKIP("no tests/files/uki/uki-signed.bin or test-ca.der");
			continue;
		}
		put("disk/uki.efi", img, ulen);
		free(img);
		pol.cas[0].der = ca;
		pol.cas[0].len = calen;
		pol.n_cas = 1;
		bare_kernel = "/uki.efi";
		bare_uki = 1;
		/* the fixture's certificates start on 2026-12-05: a clock before
		 * that is raised as the policy's time floor would */
		int64_t floor = pol.time_floor;
		pol.time_floor = 1796601600; /* 2026-12-07 */
		CHECK_INT(try_bare(&v, NULL, why, sizeof(why), &log), 0);
		CHECK(strstr(log, "would kexec 'dhcp'") != NULL);
		free(log);
		pol.sbat[0] = (struct lb_sbat_rule){ "systemd", 2 };
		pol.n_sbat = 1;
		CHECK_INT(try_bare(&v, NULL, why, sizeof(why), &log), -EKEYREJECTED);
		CHECK_STR(why, "/uki.efi: PE signature: SBAT: systemd generation 1 below the policy's minimum 2");
		CHECK(!strstr(log, "would kexec"));
		free(log);
		pol.sbat[0].gen = 1;
		pol.sbat[1] = (struct lb_sbat_rule){ "grub", 9 };
		pol.n_sbat = 2;
		CHECK_INT(try_bare(&v, NULL, why, sizeof(why), &log), 0);
		free(log);
		pol.n_sbat = 0;
		pol.n_cas = 0;
		free(ca);
		bare_kernel = "/vmlinuz";
		bare_uki = 0;
		pol.time_floor = floor;
	}
	TEST("warn: boots with the line; off: nothing checked") {
		pol.mode = LB_VERIFY_WARN;
		CHECK_INT(try_id(&v, "other", NULL, why, sizeof(why), &log), 0);
		CHECK(strstr(log, "lboot: verify (warn): 'other': /vmlinuz-other: unknown key; booting it anyway") != NULL);
		CHECK(strstr(log, "would kexec 'other'") != NULL);
		free(log);
		pol.mode = LB_VERIFY_OFF;
		CHECK_INT(try_id(&v, "other", NULL, why, sizeof(why), &log), 0);
		CHECK(!strstr(log, "verif"));
		free(log);
		pol.mode = LB_VERIFY_ENFORCE;
	}
	TEST("enforce: allow-edit lets an edited line boot, and says so") {
		pol.allow_edit = 1;
		CHECK_INT(try_id(&v, "good", "root=/dev/y", why, sizeof(why), &log), 0);
		CHECK(strstr(log, "command line: edited, allowed by the policy") != NULL);
		free(log);
		pol.allow_edit = 0;
	}
	lb_policy_free(&pol);
	free(uki);
	free(uki_nocmd);
	{
		char cmd[400];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpd);
		if (system(cmd))
			printf("# cannot remove %s\n", tmpd);
	}
	return t_done();
}
