/* Verified boot checks on staged entries and config files. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "authenticode.h"
#include "manifest.h"
#include "pkcs7.h"
#include "sbat.h"
#include "sig.h"
#include "verify.h"

unsigned lb_verify_mask(const struct lb_policy *p)
{
	if (p->mode == LB_VERIFY_OFF)
		return 0;
	return LB_HASH_BIT(LB_SHA256) | LB_HASH_BIT(LB_BLAKE2B);
}

static int find_manifest_path(const struct lb_fs *fs, const struct lb_entry *e,
			      char *mpath, size_t mpsz, int n);

unsigned lb_verify_mask_entry(const struct lb_policy *p, const struct lb_fsset *set,
			      const struct lb_entry *e)
{
	const struct lb_fs *fs;
	char mpath[600];
	struct stat st;

	if (p->mode == LB_VERIFY_OFF)
		return 0;
	if (lb_is_url(e->kernel) || !set)
		return lb_verify_mask(p);
	fs = e->fs ? lb_fsset_by_ident(set, e->fs) : set->n == 1 ? &set->v[0] : NULL;
	if (!fs)
		return lb_verify_mask(p);
	/* a manifest binds SHA-256s; signatures beside files want BLAKE2b-512
	 * (minisign's ED): compute only the one that will be used, in the read */
	for (int i = 0; i < 3; i++)
		if (!find_manifest_path(fs, e, mpath, sizeof(mpath), i) &&
		    !lb_fs_stat(fs, mpath, &st))
			return LB_HASH_BIT(LB_SHA256);
	return LB_HASH_BIT(LB_BLAKE2B);
}

/* a digest of bytes the stage did not compute (mask chosen for another route) */
static const uint8_t *need_digest(const struct lb_digests *have, unsigned alg,
				  const uint8_t *bytes, size_t len, struct lb_digests *tmp)
{
	if (have->mask & LB_HASH_BIT(alg))
		return have->d[alg];
	if (lb_hash_buf(LB_HASH_BIT(alg), bytes, len, tmp))
		return NULL;
	return tmp->d[alg];
}

static struct lb_keyring keys(const struct lb_policy *p)
{
	struct lb_keyring k = {
		.trusted = p->trusted, .n_trusted = p->n_trusted,
		.revoked = p->revoked, .n_revoked = p->n_revoked,
	};
	return k;
}

/*
 * The detached signature of fs:path (path.minisig, else path.sig) over
 * bytes (len) whose BLAKE2b-512 is b2 (NULL: computed from the bytes when
 * needed). 0 or a sig.h reason; *kid (17 bytes) gets the key id used.
 */
static int check_file_sig(const struct lb_policy *p, const struct lb_fs *fs,
			  const char *path, const uint8_t *bytes, size_t len,
			  const uint8_t *b2, char *kid)
{
	static const char *const ext[] = { ".minisig", ".sig" };
	struct lb_keyring k = keys(p);
	const struct lb_pubkey *used = NULL;
	struct lb_digests d;
	int r = LB_SIG_NONE;

	for (size_t i = 0; i < 2; i++) {
		char sp[600];
		char *buf = NULL;
		size_t blen = 0;
		struct lb_sig *sig;

		if ((size_t)snprintf(sp, sizeof(sp), "%s%s", path, ext[i]) >= sizeof(sp))
			return LB_SIG_NONE;
		if (lb_is_url(path))  /* beside the URL: FILE.minisig on the server */
			r = lb_kexec_fetch_small(sp, LB_SIG_MAX_FILE, &buf, &blen, NULL, 0);
		else
			r = lb_fs_read(fs, sp, LB_SIG_MAX_FILE, &buf, &blen);
		if (r == -ENOENT)
			continue;
		if (r)
			return r == -EFBIG ? LB_SIG_TOO_BIG : LB_SIG_MALFORMED;
		if (!(sig = malloc(sizeof(*sig)))) {
			free(buf);
			return -ENOMEM;
		}
		r = lb_sig_parse((const uint8_t *)buf, blen, sig);
		free(buf);
		if (!r && sig->prehashed && !b2) {
			if (!lb_hash_buf(LB_HASH_BIT(LB_BLAKE2B), bytes, len, &d))
				b2 = d.d[LB_BLAKE2B];
		}
		if (!r)
			r = lb_sig_verify(sig, &k, bytes, len, b2, &used);
		if (!r && kid)
			lb_keyid_hex(used->keyid, kid);
		free(sig);
		return r;
	}
	return LB_SIG_NONE;
}

int lb_verify_url_config(const struct lb_verifier *v, const char *url,
			 const uint8_t *buf, size_t len)
{
	return check_file_sig(v->pol, NULL, url, buf, len, NULL, NULL);
}

int lb_verify_config(void *arg, const struct lb_fs *fs, const char *path,
		     const uint8_t *buf, size_t len)
{
	const struct lb_verifier *v = arg;

	return check_file_sig(v->pol, fs, path, buf, len, NULL, NULL);
}

static int refuse(char *why, size_t whysz, const char *file, const char *reason)
{
	snprintf(why, whysz, "%s: %s", file, reason);
	return -EKEYREJECTED;
}

/* the directory part of path, "" for the root */
static void dir_of(const char *path, char *out, size_t outsz)
{
	const char *s = strrchr(path, '/');
	size_t n = s ? (size_t)(s - path) : 0;

	if (n >= outsz)
		n = 0;
	memcpy(out, path, n);
	out[n] = 0;
}

/* candidate n (0..2) of the entry's manifest path; -ENOENT past the last */
static int find_manifest_path(const struct lb_fs *fs, const struct lb_entry *e,
			      char *mpath, size_t mpsz, int n)
{
	char kdir[512];
	const char *dir;

	(void)fs;
	if (!e->id || !*e->id || strchr(e->id, '/') || strlen(e->id) > 255 || n > 2 ||
	    (n > 0 && lb_is_url(e->kernel)))
		return -ENOENT;
	dir_of(e->kernel, kdir, sizeof(kdir));
	dir = n == 0 ? kdir : n == 1 ? "/loader/entries" : "/boot/loader/entries";
	if ((size_t)snprintf(mpath, mpsz, "%s/%s.manifest", dir, e->id) >= mpsz)
		return -ENAMETOOLONG;
	return 0;
}

/* Find the entry's manifest. 1 and its path/bytes when there is one,
 * 0 when none, negative when one exists but cannot be read. */
static int find_manifest(const struct lb_stage *st, const struct lb_entry *e,
			 char *mpath, size_t mpsz, char **buf, size_t *len)
{
	for (int i = 0; i < 3; i++) {
		int r = find_manifest_path(st->fs, e, mpath, mpsz, i);

		if (r == -ENOENT)
			break;
		if (r)
			continue;
		if (lb_is_url(mpath))
			r = lb_kexec_fetch_small(mpath, LB_MANIFEST_MAX_FILE, buf, len, NULL, 0);
		else
			r = lb_fs_read(st->fs, mpath, LB_MANIFEST_MAX_FILE, buf, len);
		if (r == -ENOENT || r == -ENOTDIR)
			continue;
		return r ? r : 1;
	}
	return 0;
}

/* the initrd bytes of part i (the initrd blob is mapped once) */
static int part_bytes(struct lb_stage *st, size_t i, const uint8_t **p)
{
	const uint8_t *m;
	int r = lb_blob_map(&st->initrd, &m);

	if (r)
		return r;
	*p = m + st->part[i].off;
	return 0;
}

static int check_manifest(const struct lb_verifier *v, const struct lb_entry *e,
			  struct lb_stage *st, const char *mpath, const uint8_t *mbuf,
			  size_t mlen, char *why, size_t whysz, char *how, size_t howsz)
{
	const struct lb_policy *p = v->pol;
	struct lb_manifest *m = malloc(sizeof(*m));
	uint8_t (*initrd)[32] = NULL;
	struct lb_manifest_boot b = { 0 };
	struct lb_digests ad;
	const char *what = NULL;
	uint8_t kern[32];
	char kid[17] = "", err[160] = "", reason[800];
	size_t n = 0;
	int r;

	if (!m)
		return refuse(why, whysz, mpath, "out of memory");
	r = check_file_sig(p, st->fs, mpath, mbuf, mlen, NULL, kid);
	if (r) {
		free(m);
		return refuse(why, whysz, mpath, lb_sig_reason(r));
	}
	if ((r = lb_manifest_parse(mbuf, mlen, m, err, sizeof(err)))) {
		snprintf(reason, sizeof(reason), "%s: %s", lb_manifest_reason(r), err);
		free(m);
		return refuse(why, whysz, mpath, reason);
	}
	b.entry = e->id;
	{
		const uint8_t *img;
		struct lb_digests tmp;
		if (lb_blob_map(&st->file, &img) ||
		    !(b.kernel = need_digest(&st->file.dig, LB_SHA256, img, st->file.size, &tmp))) {
			free(m);
			return refuse(why, whysz, e->kernel, "cannot hash");
		}
		memcpy(kern, b.kernel, 32);
		b.kernel = kern;
	}
	if (m->has_authenticode) {
		const uint8_t *img;
		if (lb_blob_map(&st->file, &img) ||
		    lb_authenticode(img, st->file.size, LB_HASH_BIT(LB_SHA256), &ad)) {
			free(m);
			return refuse(why, whysz, e->kernel, "not a PE image, the manifest has an Authenticode digest");
		}
		b.kernel_authenticode = ad.d[LB_SHA256];
	}
	if (!(initrd = calloc(LB_STAGE_MAX_PARTS, sizeof(*initrd)))) {
		free(m);
		return refuse(why, whysz, mpath, "out of memory");
	}
	for (size_t i = 0; i < st->n_parts; i++) {
		const uint8_t *bytes, *d = NULL;
		struct lb_digests tmp;

		if (!st->part[i].from_entry)
			continue;
		if (!part_bytes(st, i, &bytes))
			d = need_digest(&st->part[i].dig, LB_SHA256, bytes,
					(size_t)st->part[i].len, &tmp);
		if (!d) {
			free(initrd);
			free(m);
			return refuse(why, whysz, st->part[i].name, "cannot hash");
		}
		memcpy(initrd[n++], d, 32);
	}
	b.initrd = (const uint8_t (*)[32])initrd;
	b.n_initrds = n;
	/* an edit the policy allows is not held against the manifest */
	b.cmdline = st->cmdline_edited && p->allow_edit ? m->cmdline : st->cmdline;
	r = lb_manifest_check(m, &b, lb_policy_now(p), p->manifest_floor, &what);
	if (r) {
		const char *file = mpath;
		char fbuf[64];

		if (r == LB_MANIFEST_CHANGED && what) {
			if (!strcmp(what, "kernel"))
				file = e->kernel;
			else if (!strncmp(what, "initrd ", 7)) {
				unsigned long k = strtoul(what + 7, NULL, 10);
				size_t seen = 0;
				for (size_t i = 0; i < st->n_parts; i++)
					if (st->part[i].from_entry && ++seen == k)
						file = st->part[i].name;
			} else if (!strcmp(what, "cmdline")) {
				snprintf(fbuf, sizeof(fbuf), "command line");
				file = fbuf;
			}
			snprintf(reason, sizeof(reason), "changed after signing (manifest %s)", mpath);
		} else if (r == LB_MANIFEST_EXPIRED) {
			char t[21];
			lb_utc_format(m->expires, t);
			snprintf(reason, sizeof(reason), "expired (%s)", t);
		} else if (r == LB_MANIFEST_ROLLBACK) {
			char nv[40] = "";

			if (p->floor_nv_read && p->floor_nv_value == p->manifest_floor)
				snprintf(nv, sizeof(nv), " (NV counter 0x%08x)", p->manifest_floor_nv);
			snprintf(reason, sizeof(reason), "version %llu below the floor %llu%s",
				 (unsigned long long)m->version,
				 (unsigned long long)p->manifest_floor, nv);
		} else if (r == LB_MANIFEST_OTHER_ENTRY) {
			snprintf(reason, sizeof(reason), "manifest is for entry '%s'", m->entry);
		} else {
			snprintf(reason, sizeof(reason), "%s%s%s", lb_manifest_reason(r),
				 what ? ": " : "", what ? what : "");
		}
		free(initrd);
		free(m);
		return refuse(why, whysz, file, reason);
	}
	snprintf(how, howsz, "manifest %s v%llu, key %s", mpath,
		 (unsigned long long)m->version, kid);
	free(initrd);
	free(m);
	return 0;
}

/* the kernel (or UKI) file: its signature beside it, else a PE signature */
static int check_kernel(const struct lb_verifier *v, const struct lb_entry *e,
			struct lb_stage *st, char *why, size_t whysz, char *how, size_t howsz)
{
	const struct lb_policy *p = v->pol;
	const uint8_t *img;
	char kid[17] = "", err[200] = "";
	int r, rp;

	if ((r = lb_blob_map(&st->file, &img)))
		return refuse(why, whysz, e->kernel, strerror(-r));
	r = check_file_sig(p, st->fs, e->kernel, img, st->file.size,
			   st->file.dig.mask & LB_HASH_BIT(LB_BLAKE2B) ?
			   st->file.dig.d[LB_BLAKE2B] : NULL, kid);
	if (!r) {
		snprintf(how, howsz, "key %s", kid);
		return 0;
	}
	if (r != LB_SIG_NONE || !p->n_cas)
		return refuse(why, whysz, e->kernel, lb_sig_reason(r));
	rp = lb_pe_sig_verify_rv(img, st->file.size, p->cas, p->n_cas, &(struct lb_pe_revoked){
					 p->revoke_pe, p->n_revoke_pe, p->revoke_x509, p->n_revoke_x509 },
				 lb_policy_now(p), err, sizeof(err));
	if (!rp && (rp = lb_sbat_check(img, st->file.size, p->sbat, p->n_sbat, err, sizeof(err)))) {
		snprintf(why, whysz, "%s: PE signature: %s", e->kernel, err);
		return -EKEYREJECTED;
	}
	if (!rp) {
		snprintf(how, howsz, "PE signature");
		return 0;
	}
	if (rp == LB_PE_SIG_UNSIGNED)
		return refuse(why, whysz, e->kernel, "no signature");
	snprintf(why, whysz, "%s: PE signature: %s", e->kernel,
		 err[0] ? err : lb_pe_sig_reason(rp));
	return -EKEYREJECTED;
}

static int check_parts(const struct lb_verifier *v, struct lb_stage *st,
		       char *why, size_t whysz)
{
	for (size_t i = 0; i < st->n_parts; i++) {
		const struct lb_stage_part *pt = &st->part[i];
		const uint8_t *bytes;
		int r;

		if (!pt->from_entry)
			continue; /* UKI sections: the UKI's signature */
		if ((r = part_bytes(st, i, &bytes)))
			return refuse(why, whysz, pt->name, strerror(-r));
		r = check_file_sig(v->pol, st->fs, pt->name, bytes, (size_t)pt->len,
				   pt->dig.mask & LB_HASH_BIT(LB_BLAKE2B) ?
				   pt->dig.d[LB_BLAKE2B] : NULL, NULL);
		if (r)
			return refuse(why, whysz, pt->name, lb_sig_reason(r));
	}
	return 0;
}

static int check_cmdline(const struct lb_verifier *v, const struct lb_entry *e,
			 const struct lb_stage *st, char *why, size_t whysz)
{
	if (st->cmdline_edited)
		return v->pol->allow_edit ? 0 :
			refuse(why, whysz, "command line",
			       "edited at the menu, and the policy does not allow edits");
	if (st->is_uki && st->cmdline_from_uki)
		return 0; /* the staged UKI's own .cmdline, covered by its signature */
	if (e->cfg_checked && e->cfg_rc) /* a config file that failed its check */
		return refuse(why, whysz, e->cfg_file ? e->cfg_file : "config file",
			      lb_sig_reason(e->cfg_rc));
	if (!st->cmdline || !*st->cmdline)
		return 0; /* the staged command line is empty: nothing to cover */
	/* a command line from a config: only the bytes the config check
	 * sealed (entry.h cfg_cmdline), never a bare mark */
	if (!e->cfg_checked || !e->cfg_file)
		return refuse(why, whysz, "command line",
			      "no signature covers it (not from a signed config file, "
			      "a manifest or the UKI; e.g. DHCPv6 boot-file parameters)");
	if (!e->cfg_cmdline || strcmp(e->cfg_cmdline, st->cmdline))
		return refuse(why, whysz, "command line",
			      "not the one the checked config gave (not covered by any signature)");
	return 0;
}

/* iPXE's cpio wrapping: the path and mode in the header the kernel gets
 * come from the script, not from the file's signature or a manifest, so
 * that script must have been checked (a menu edit does not change them) */
static int check_wrap(const struct lb_entry *e, char *why, size_t whysz)
{
	for (size_t i = 0; i < e->n_initrd && i < LB_MAX_INITRDS; i++) {
		if (!e->initrd_cpio[i].path)
			continue;
		if (!e->cfg_checked || !e->cfg_file)
			return refuse(why, whysz, e->initrd[i],
				      "its cpio path and mode come from a config file that was not checked");
		if (e->cfg_rc)
			return refuse(why, whysz, e->cfg_file, lb_sig_reason(e->cfg_rc));
	}
	return 0;
}

int lb_verify_stage(void *arg, const struct lb_entry *e, struct lb_stage *st,
		    char *why, size_t whysz)
{
	const struct lb_verifier *v = arg;
	const struct lb_policy *p = v->pol;
	char mpath[600], how[700] = "", khow[200] = "";
	char *mbuf = NULL;
	size_t mlen = 0, n_entry = 0;
	int r;

	if (p->mode == LB_VERIFY_OFF) {
		snprintf(st->verdict, sizeof(st->verdict), "NOT verified (verify off)");
		return 0;
	}
	for (size_t i = 0; i < st->n_parts; i++)
		n_entry += st->part[i].from_entry;
	if (p->err[0]) {
		snprintf(why, whysz, "policy: %s", p->err);
		r = -EKEYREJECTED;
		goto verdict;
	}
	if (e->uncovered) {
		/* a producer said part of the entry is not covered (iPXE
		 * settings from the network): nothing else can cover it */
		snprintf(why, whysz, "%s", e->uncovered);
		r = -EKEYREJECTED;
		goto verdict;
	}
	r = find_manifest(st, e, mpath, sizeof(mpath), &mbuf, &mlen);
	if (r < 0) {
		r = refuse(why, whysz, mpath, strerror(-r));
	} else if (r == 1) {
		r = check_manifest(v, e, st, mpath, (const uint8_t *)mbuf, mlen,
				   why, whysz, how, sizeof(how));
		free(mbuf);
		if (!r)
			r = check_wrap(e, why, whysz);
	} else if (p->require_manifest && !lb_is_url(e->kernel)) {
		/* per-file signatures have no version floor and no expiry:
		 * deleting a manifest must not fall back to them */
		r = refuse(why, whysz, e->kernel,
			   "no manifest for this entry, and the policy requires one (require-manifest)");
	} else if (!(r = check_kernel(v, e, st, why, whysz, khow, sizeof(khow))) &&
		   !(r = check_parts(v, st, why, whysz)) &&
		   !(r = check_cmdline(v, e, st, why, whysz)) &&
		   !(r = check_wrap(e, why, whysz))) {
		int own = st->is_uki && st->cmdline_from_uki && !st->cmdline_edited;

		snprintf(how, sizeof(how), "signatures (kernel: %s%s%s)", khow,
			 own ? "" : "; command line: ",
			 st->cmdline_edited ? "edited, allowed by the policy" :
			 own ? "" : !st->cmdline || !*st->cmdline ? "empty" : e->cfg_file);
	}
verdict:
	if (!r) {
		snprintf(st->verdict, sizeof(st->verdict),
			 "verified '%.200s': kernel, %zu initrd%s and command line by %s",
			 e->title ? e->title : "", n_entry, n_entry == 1 ? "" : "s", how);
		if (v->log)
			fprintf(v->log, "lboot: %s\n", st->verdict);
		return 0;
	}
	if (p->mode == LB_VERIFY_WARN) {
		snprintf(st->verdict, sizeof(st->verdict), "NOT verified (verify warn) '%.200s': %s",
			 e->title ? e->title : "", why);
		if (v->log)
			fprintf(v->log, "lboot: verify (warn): '%s': %s; booting it anyway\n",
				e->title ? e->title : "", why);
		return 0;
	}
	snprintf(st->verdict, sizeof(st->verdict), "refused '%.200s': %s", e->title ? e->title : "",
		 why);
	return -EKEYREJECTED;
}
