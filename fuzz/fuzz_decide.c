/*
 * Fuzz verify's decision (src/trust/verify.c lb_verify_stage) on an entry,
 * the blobs the stage seals and a policy, all built from the input, the
 * way a disk or a network an attacker controls would hand them over: the
 * kernel's and initrd's bytes, their signatures (valid, by an untrusted
 * key, or bytes from the input), a manifest (formatted from the staged
 * digests or the input's text, signed or not), the entry's command line
 * and whatever trust fields a producer could set on it (cfg_checked,
 * cfg_rc, cfg_file, cfg_cmdline, or `uncovered`, the mark a producer sets
 * when network input went into the entry), a menu edit, and the policy's
 * mode, allow-edit, manifest floor and require-manifest.
 *
 * Besides crashes (ASan/UBSan), the harness checks the rule that decides
 * a command line (docs/verified-boot.md "The command line: only what
 * signs its bytes"): when enforce lets an entry boot without a manifest,
 * its kernel had a valid signature by the trusted key, and the staged
 * command line is empty, a UKI's own, an edit the policy allows, or
 * exactly the line a config check sealed for a validly signed config.
 * Under enforce, an entry marked `uncovered` never boots, and with
 * require-manifest nothing boots without a manifest. A verdict outside
 * that aborts.
 *
 * Input: byte 0 and 1 are flags (below), byte 2 the manifest floor (bits
 * 0-2), require-manifest (bit 3), the manifest version (bits 4-6), an
 * `uncovered` mark (bit 7),
 * then NUL-separated fields: the entry's command line, cfg_file,
 * cfg_cmdline, the menu edit, the manifest text, the kernel's extra bytes,
 * the initrd's bytes, the kernel's signature bytes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "entry.h"
#include "fs.h"
#include "hash.h"
#include "kexec.h"
#include "manifest.h"
#include "policy.h"
#include "verify.h"

/* byte 0 */
#define F_MODE        0x03u /* 0 off, 1 warn, 2/3 enforce */
#define F_ALLOW_EDIT  0x04u
#define F_KSIG_GOOD   0x08u /* kernel signed by the trusted key */
#define F_KSIG_OTHER  0x10u /* kernel signed by another key */
#define F_KSIG_INPUT  0x20u /* kernel's .minisig: the input's bytes */
#define F_CFG_CHECKED 0x40u
#define F_CFG_RC      0x80u /* cfg_rc: a failure */
/* byte 1 */
#define G_SEAL_SAME   0x01u /* cfg_cmdline: the entry's line */
#define G_SEAL_INPUT  0x02u /* cfg_cmdline: the input's field */
#define G_MANIFEST    0x04u /* a manifest: formatted from the staged digests */
#define G_MAN_TEXT    0x08u /* a manifest: the input's text */
#define G_MAN_SIGN    0x10u /* ... signed by the trusted key */
#define G_INITRD      0x20u /* an initrd */
#define G_INITRD_SIG  0x40u /* ... signed by the trusted key */
#define G_EDIT        0x80u /* a menu edit */

static char dir[64];
static char disk[128];
static struct lb_policy pol;
static uint8_t pk_good[32], sk_good[64], pk_other[32], sk_other[64];
static int ready;

static void put(const char *rel, const void *data, size_t len)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", disk, rel);
	if (!(f = fopen(p, "wb")))
		abort();
	if (len && fwrite(data, 1, len, f) != len)
		abort();
	fclose(f);
}

static void rm(const char *rel)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", disk, rel);
	unlink(p);
}

static void b64(const uint8_t *p, size_t n, char *out, size_t outsz)
{
	sodium_bin2base64(out, outsz, p, n, sodium_base64_VARIANT_ORIGINAL);
}

/* rel.minisig over data: minisign's prehashed ED format */
static void sign(const uint8_t *pk, const uint8_t *sk, uint8_t id, const char *rel,
		 const void *data, size_t n)
{
	uint8_t h[64], raw[74], gs[64], gm[64 + 16];
	char b1[128], b2[128], text[512], sp[200];
	const char *tc = "fuzz";

	(void)pk;
	crypto_generichash(h, 64, data, n, NULL, 0);
	memcpy(raw, "ED", 2);
	memset(raw + 2, id, 8);
	crypto_sign_detached(raw + 10, NULL, h, 64, sk);
	memcpy(gm, raw + 10, 64);
	memcpy(gm + 64, tc, strlen(tc));
	crypto_sign_detached(gs, NULL, gm, 64 + strlen(tc), sk);
	b64(raw, sizeof(raw), b1, sizeof(b1));
	b64(gs, sizeof(gs), b2, sizeof(b2));
	snprintf(text, sizeof(text), "untrusted comment: sig\n%s\ntrusted comment: %s\n%s\n",
		 b1, tc, b2);
	snprintf(sp, sizeof(sp), "%s.minisig", rel);
	put(sp, text, strlen(text));
}

static void setup(void)
{
	uint8_t seed[32], raw[42];
	char p[256], b[128], text[256];
	FILE *f;

	if (sodium_init() < 0)
		abort();
	snprintf(dir, sizeof(dir), "/tmp/lboot-fuzz-decide.XXXXXX");
	if (!mkdtemp(dir))
		abort();
	snprintf(disk, sizeof(disk), "%s/disk", dir);
	snprintf(p, sizeof(p), "%s/etc", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/etc/lboot", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/etc/lboot/trust", dir);
	mkdir(p, 0755);
	mkdir(disk, 0755);
	memset(seed, 1, sizeof(seed));
	crypto_sign_seed_keypair(pk_good, sk_good, seed);
	memset(seed, 2, sizeof(seed));
	crypto_sign_seed_keypair(pk_other, sk_other, seed);
	memcpy(raw, "Ed", 2);
	memset(raw + 2, 1, 8);
	memcpy(raw + 10, pk_good, 32);
	b64(raw, sizeof(raw), b, sizeof(b));
	snprintf(text, sizeof(text), "untrusted comment: minisign public key\n%s\n", b);
	snprintf(p, sizeof(p), "%s/etc/lboot/trust/good.pub", dir);
	if (!(f = fopen(p, "w")))
		abort();
	fputs(text, f);
	fclose(f);
	snprintf(p, sizeof(p), "%s/etc/lboot/policy", dir);
	if (!(f = fopen(p, "w")))
		abort();
	fputs("verify enforce\n", f);
	fclose(f);
	lb_policy_load(dir, &pol);
	if (pol.err[0] || pol.n_trusted != 1)
		abort();
	ready = 1;
}

/* next NUL-terminated field of the input (NULL past the end) */
static const uint8_t *field(const uint8_t **p, const uint8_t *end, size_t *n)
{
	const uint8_t *s = *p, *z;

	if (s >= end)
		return NULL;
	z = memchr(s, 0, (size_t)(end - s));
	*n = z ? (size_t)(z - s) : (size_t)(end - s);
	*p = z ? z + 1 : end;
	return s;
}

static char *strfield(const uint8_t **p, const uint8_t *end)
{
	size_t n = 0;
	const uint8_t *s = field(p, end, &n);

	return s ? strndup((const char *)s, n) : NULL;
}

static void sha256(const void *d, size_t n, uint8_t out[32])
{
	struct lb_digests dg;

	if (lb_hash_buf(LB_HASH_BIT(LB_SHA256), d, n, &dg))
		abort();
	memcpy(out, dg.d[LB_SHA256], 32);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t kernel[0x400 + 4096];
	const uint8_t *p = data + 3, *end = data + size, *kx, *ird, *ks, *mt;
	size_t kxn = 0, irdn = 0, ksn = 0, mtn = 0, kn;
	struct lb_fs fs = { .uuid = "F00D-0001", .name = "/dev/fuzz1" };
	struct lb_fsset set = { .v = &fs, .n = 1 };
	struct lb_entry e = { 0 };
	struct lb_stage st;
	struct lb_verifier v = { .pol = &pol };
	char why[1024] = "", *edit = NULL, *seal = NULL;
	unsigned f, g;
	int r, manifest = 0, ksig_good;

	if (size < 3 || size > 65536)
		return 0;
	if (!ready)
		setup();
	f = data[0];
	g = data[1];
	fs.dir = disk;
	pol.mode = (f & F_MODE) == 0 ? LB_VERIFY_OFF :
		   (f & F_MODE) == 1 ? LB_VERIFY_WARN : LB_VERIFY_ENFORCE;
	pol.allow_edit = !!(f & F_ALLOW_EDIT);
	pol.manifest_floor = data[2] & 0x07;
	pol.require_manifest = !!(data[2] & 0x08);

	e.cmdline = strfield(&p, end);
	e.cfg_file = strfield(&p, end);
	seal = strfield(&p, end);
	edit = strfield(&p, end);
	mt = field(&p, end, &mtn);
	kx = field(&p, end, &kxn);
	ird = field(&p, end, &irdn);
	ks = field(&p, end, &ksn);

	/* the kernel: a bzImage header and the input's bytes */
	memset(kernel, 0, 0x400);
	kernel[0x1fe] = 0x55;
	kernel[0x1ff] = 0xaa;
	memcpy(kernel + 0x202, "HdrS", 4);
	if (kxn > sizeof(kernel) - 0x400)
		kxn = sizeof(kernel) - 0x400;
	if (kxn)
		memcpy(kernel + 0x400, kx, kxn);
	kn = 0x400 + kxn;
	put("vmlinuz", kernel, kn);
	rm("vmlinuz.minisig");
	rm("vmlinuz.sig");
	ksig_good = 0;
	if (f & F_KSIG_INPUT)
		put("vmlinuz.minisig", ks ? ks : (const uint8_t *)"", ks ? ksn : 0);
	else if (f & F_KSIG_GOOD) {
		sign(pk_good, sk_good, 1, "vmlinuz", kernel, kn);
		ksig_good = 1;
	} else if (f & F_KSIG_OTHER)
		sign(pk_other, sk_other, 2, "vmlinuz", kernel, kn);

	rm("initrd.img");
	rm("initrd.img.minisig");
	if (g & G_INITRD) {
		put("initrd.img", ird ? ird : (const uint8_t *)"", ird ? irdn : 0);
		if (g & G_INITRD_SIG)
			sign(pk_good, sk_good, 1, "initrd.img", ird ? ird : (const uint8_t *)"",
			     ird ? irdn : 0);
		if (lb_entry_add_initrd(&e, "/initrd.img"))
			abort();
	}

	/* the manifest beside the kernel: /k.manifest */
	rm("k.manifest");
	rm("k.manifest.minisig");
	if (g & (G_MANIFEST | G_MAN_TEXT)) {
		char *text = NULL;
		size_t tl = 0;

		if (g & G_MAN_TEXT) {
			text = mt ? strndup((const char *)mt, mtn) : strdup("");
			tl = text ? strlen(text) : 0;
		} else {
			struct lb_manifest *m = calloc(1, sizeof(*m));
			const char *c = edit && (g & G_EDIT) ? edit : e.cmdline ? e.cmdline : "";

			if (!m)
				abort();
			snprintf(m->entry, sizeof(m->entry), "k");
			m->version = (data[2] >> 4) & 0x07;
			m->expires = 4102444800; /* 2100 */
			sha256(kernel, kn, m->kernel);
			if (g & G_INITRD) {
				sha256(ird ? ird : (const uint8_t *)"", ird ? irdn : 0, m->initrd[0]);
				m->n_initrds = 1;
			}
			if (strlen(c) <= LB_MANIFEST_MAX_CMDLINE && !strchr(c, '\n')) {
				memcpy(m->cmdline, c, strlen(c) + 1);
				m->cmdline_len = strlen(c);
			}
			if (lb_manifest_format(m, &text, &tl))
				text = NULL;
			free(m);
		}
		if (text) {
			put("k.manifest", text, tl);
			if (g & G_MAN_SIGN)
				sign(pk_good, sk_good, 1, "k.manifest", text, tl);
			manifest = 1;
			free(text);
		}
	}

	/* the entry, and the trust fields a producer could set on it */
	if (lb_setstr(&e.kernel, "/vmlinuz") || lb_setstr(&e.id, "k") ||
	    lb_setstr(&e.title, "k") || lb_setstr(&e.fs, "F00D-0001"))
		abort();
	if ((data[2] & 0x80) &&
	    lb_setstr(&e.uncovered, "iPXE script http://x/s.ipxe: the command line holds bytes of a network setting"))
		abort();
	e.cfg_checked = !!(f & F_CFG_CHECKED);
	e.cfg_rc = f & F_CFG_RC ? -EKEYREJECTED : 0;
	if (g & G_SEAL_SAME)
		e.cfg_cmdline = strdup(e.cmdline ? e.cmdline : "");
	else if (g & G_SEAL_INPUT) {
		e.cfg_cmdline = seal;
		seal = NULL;
	}

	r = lb_kexec_stage(&set, &e, g & G_EDIT ? (edit ? edit : "") : NULL,
			   lb_verify_mask_entry(&pol, &set, &e), &st, why, sizeof(why));
	if (!r) {
		r = lb_verify_stage(&v, &e, &st, why, sizeof(why));
		if (!r && pol.mode == LB_VERIFY_ENFORCE && !manifest) {
			const char *c = st.cmdline ? st.cmdline : "";
			int covered = !*c || (st.is_uki && st.cmdline_from_uki) ||
				      (st.cmdline_edited && pol.allow_edit) ||
				      (!st.cmdline_edited && e.cfg_checked && !e.cfg_rc &&
				       e.cfg_file && e.cfg_cmdline && !strcmp(e.cfg_cmdline, c));

			/* (a signature from the input could be a real one, copied:
			 * only the harness's own signing is known to be good) */
			if (!covered || (!ksig_good && !(f & F_KSIG_INPUT)))
				abort(); /* enforce let through what nothing covers */
		}
		if (!r && pol.mode == LB_VERIFY_ENFORCE && manifest && !(g & G_MAN_SIGN))
			abort(); /* an unsigned manifest covered an entry */
		if (!r && pol.mode == LB_VERIFY_ENFORCE && (e.uncovered || (pol.require_manifest && !manifest)))
			abort(); /* network input, or no manifest where one is required */
		lb_stage_free(&st);
	}
	free(edit);
	free(seal);
	lb_entry_free(&e);
	return 0;
}
