/* lboot manifest: write, check and verify signed boot manifests. */
#include "lboot.h"

LB_APPLET(manifest, LB_HOST|LB_TARGET,
"usage: lboot manifest [-o FILE] --entry ID --kernel FILE [--initrd FILE]...\n"
"                      --cmdline TEXT --version N --expires DATE\n"
"       lboot manifest --check MANIFEST --trust KEY.pub... [--revoke KEY.pub]...\n"
"                      [--sig SIGFILE] [--now DATE] [--floor N]\n"
"                      --entry ID --kernel FILE [--initrd FILE]... --cmdline TEXT\n"
"       lboot manifest --verify FILE --trust KEY.pub... [--revoke KEY.pub]...\n"
"                      [--sig SIGFILE]\n"
"       lboot manifest --verify PE_FILE --trust-x509 CERT... [--now DATE]\n"
"                      [--revoke-pe SHA256]... [--revoke-x509 CERT]...\n"
"                      [--sbat COMPONENT,GENERATION]...\n"
"Write the manifest that binds a boot entry: its id, the SHA-256 of the\n"
"kernel (and its Authenticode digest when it is a PE image), the SHA-256 of\n"
"each initrd in boot order, the exact command line, a version and an expiry.\n"
"Sign it with `minisign -S -m FILE` (docs/verified-boot.md).\n"
"  -o, --output FILE  write there (atomically) instead of stdout\n"
"  --entry ID         the entry id (BLS file name without .conf, as\n"
"                     `lboot entries` shows it)\n"
"  --kernel FILE, --initrd FILE (repeatable, in order), --cmdline TEXT\n"
"  --version N        unsigned integer; lboot refuses versions below its floor\n"
"  --expires DATE     YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ (UTC)\n"
"--check: verify MANIFEST's signature (MANIFEST.minisig, or --sig) with the\n"
"trusted keys, then the files and command line against it, each file read\n"
"once into a sealed memfd. --now DATE (default: the clock) and --floor N\n"
"(default 0) are the expiry and version floors.\n"
"--verify: check FILE's minisign (FILE.minisig) or signify (FILE.sig, or\n"
"--sig) signature and print the trusted comment. With --trust-x509 CERT\n"
"(PEM or DER, repeatable): check PE_FILE's Authenticode signature (a\n"
"distribution-signed kernel, a UKI) against those CAs, certificates valid\n"
"at --now (default: the clock). --revoke-pe SHA256 (the Authenticode\n"
"SHA-256 of an image, in hex) and --revoke-x509 CERT refuse that image, or\n"
"any signature with that certificate, as the policy's revoke-pe/revoke-x509.\n"
"--sbat COMPONENT,GENERATION refuses a signed image whose .sbat section\n"
"names COMPONENT with a lower generation (the policy's sbat line).\n"
"Exit: 0 ok, 1 refused or failed (one line with the reason), 2 usage.\n")

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "authenticode.h"
#include "blob.h"
#include "hash.h"
#include "io.h"
#include "manifest.h"
#include "pe.h"
#include "pkcs7.h"
#include "sbat.h"
#include "sig.h"

#define MAX_KEYS    16
#define MAX_ARTIFACT ((size_t)1 << 30)

struct opts {
	const char *out, *entry, *kernel, *cmdline, *version, *expires;
	const char *check, *verify, *sig, *now, *floor;
	const char *initrd[LB_MANIFEST_MAX_INITRDS];
	size_t n_initrds;
	struct lb_pubkey trusted[MAX_KEYS], revoked[MAX_KEYS];
	uint8_t revoke_pe[MAX_KEYS][32], revoke_x509[MAX_KEYS][32];
	size_t n_revoke_pe, n_revoke_x509;
	size_t n_trusted, n_revoked;
	struct lb_x509_ca cas[MAX_KEYS];
	size_t n_cas;
	struct lb_sbat_rule sbat[MAX_KEYS];
	size_t n_sbat;
};

static int load_key(const char *path, struct lb_pubkey *k)
{
	uint8_t *buf;
	size_t len;
	int rc = lb_read_path(path, LB_SIG_MAX_FILE, &buf, &len);

	if (rc) {
		lb_err("%s: %s", path, rc == -EFBIG ? "too large" : strerror(-rc));
		return rc;
	}
	rc = lb_pubkey_parse(buf, len, k);
	free(buf);
	if (rc)
		lb_err("%s: not a minisign/signify public key: %s", path,
		       lb_sig_reason(rc));
	return rc;
}

/* read a file once into a sealed blob with its SHA-256 and BLAKE2b */
static int read_blob(const char *path, size_t cap, struct lb_blob *b)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0) {
		rc = -errno;
		lb_err("%s: %s", path, strerror(errno));
		return rc;
	}
	rc = lb_blob_from_fd(fd, cap, LB_HASH_BIT(LB_SHA256) |
			     LB_HASH_BIT(LB_BLAKE2B), b);
	close(fd);
	if (rc)
		lb_err("%s: %s", path, rc == -EFBIG ? "too large" : strerror(-rc));
	return rc;
}

/* the Authenticode SHA-256 when the blob is a PE image: 1, 0 when not PE */
static int pe_digest(struct lb_blob *b, uint8_t out[32])
{
	struct lb_digests d;
	const uint8_t *p;

	if (lb_blob_map(b, &p) || b->size < 64 || p[0] != 'M' || p[1] != 'Z')
		return 0;
	if (lb_authenticode(p, (size_t)b->size, LB_HASH_BIT(LB_SHA256), &d))
		return 0;
	memcpy(out, d.d[LB_SHA256], 32);
	return 1;
}

/* the signature beside FILE: --sig, FILE.minisig, FILE.sig */
static int load_sig(const char *file, const char *sigpath, struct lb_sig *s,
		    char *used, size_t usedsz)
{
	const char *ext[] = { ".minisig", ".sig" };
	uint8_t *buf = NULL;
	size_t len;
	int rc = -ENOENT;

	for (size_t i = 0; i < 2 && rc == -ENOENT; i++) {
		if (sigpath)
			snprintf(used, usedsz, "%s", sigpath);
		else
			snprintf(used, usedsz, "%s%s", file, ext[i]);
		rc = lb_read_path(used, LB_SIG_MAX_FILE, &buf, &len);
		if (sigpath)
			break;
	}
	if (rc == -ENOENT)
		return LB_SIG_NONE;
	if (rc == -EFBIG)
		return LB_SIG_TOO_BIG;
	if (rc)
		return rc;
	rc = lb_sig_parse(buf, len, s);
	free(buf);
	return rc;
}

/* verify FILE's detached signature; the blob holds FILE's bytes */
static int verify_sig(const struct opts *o, const char *file, struct lb_blob *b)
{
	struct lb_keyring kr = { o->trusted, o->n_trusted, o->revoked, o->n_revoked };
	struct lb_sig *s = malloc(sizeof(*s));
	const struct lb_pubkey *k = NULL;
	char sigpath[4200], id[17];
	const uint8_t *p = NULL;
	int rc;

	if (!s)
		return -ENOMEM;
	rc = load_sig(file, o->sig, s, sigpath, sizeof(sigpath));
	if (!rc && (rc = lb_blob_map(b, &p)) == 0)
		rc = lb_sig_verify(s, &kr, p, (size_t)b->size,
				   b->dig.d[LB_BLAKE2B], &k);
	if (rc) {
		lb_err("%s: refused: %s (%s)", file, lb_sig_reason(rc),
		       rc == LB_SIG_NONE ? "no .minisig or .sig beside it" : sigpath);
	} else {
		lb_keyid_hex(k->keyid, id);
		printf("%s: signature ok, key %s%s%s\n", file, id,
		       s->kind == LB_SIG_MINISIGN ? ", trusted comment: " : "",
		       s->kind == LB_SIG_MINISIGN ? s->trusted : "");
	}
	free(s);
	return rc;
}

static int do_write(const struct opts *o)
{
	struct lb_manifest *m = calloc(1, sizeof(*m));
	struct lb_blob b = { .fd = -1 };
	char *text = NULL;
	size_t len;
	int rc = -EINVAL;

	if (!m)
		return 1;
	if (strlen(o->entry) > LB_MANIFEST_MAX_ID) {
		lb_err("--entry: over %d bytes", LB_MANIFEST_MAX_ID);
		goto out;
	}
	strcpy(m->entry, o->entry);
	char *end;
	errno = 0;
	unsigned long long v = strtoull(o->version, &end, 10);
	if (!*o->version || *end || errno || o->version[0] == '-') {
		lb_err("--version: not an unsigned integer: %s", o->version);
		goto out;
	}
	m->version = v;
	if (lb_utc_parse(o->expires, strlen(o->expires), 1, &m->expires)) {
		lb_err("--expires: not YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ: %s", o->expires);
		goto out;
	}
	m->cmdline_len = strlen(o->cmdline);
	if (m->cmdline_len > LB_MANIFEST_MAX_CMDLINE) {
		lb_err("--cmdline: over %d bytes", LB_MANIFEST_MAX_CMDLINE);
		goto out;
	}
	memcpy(m->cmdline, o->cmdline, m->cmdline_len);
	if ((rc = read_blob(o->kernel, MAX_ARTIFACT, &b)))
		goto out;
	memcpy(m->kernel, b.dig.d[LB_SHA256], 32);
	m->has_authenticode = pe_digest(&b, m->kernel_authenticode);
	lb_blob_free(&b);
	for (size_t i = 0; i < o->n_initrds; i++) {
		if ((rc = read_blob(o->initrd[i], MAX_ARTIFACT, &b)))
			goto out;
		memcpy(m->initrd[i], b.dig.d[LB_SHA256], 32);
		lb_blob_free(&b);
	}
	m->n_initrds = o->n_initrds;
	if ((rc = lb_manifest_format(m, &text, &len))) {
		lb_err("cannot write a manifest for these values (an id with spaces, "
		       "a command line with control characters?)");
		goto out;
	}
	if (o->out)
		rc = lb_write_atomic(o->out, text, len, 0644);
	else
		rc = lb_write_all(1, text, len);
	if (rc)
		lb_err("%s: %s", o->out ? o->out : "stdout", strerror(-rc));
out:
	lb_blob_free(&b);
	free(text);
	free(m);
	return rc ? 1 : 0;
}

static int do_check(const struct opts *o)
{
	struct lb_manifest *m = calloc(1, sizeof(*m));
	uint8_t (*initrd)[32] = calloc(LB_MANIFEST_MAX_INITRDS, 32);
	uint8_t kernel[32], auth[32];
	struct lb_blob b = { .fd = -1 };
	struct lb_manifest_boot boot = { 0 };
	const uint8_t *p;
	const char *what = NULL;
	char err[256];
	int64_t now = time(NULL);
	uint64_t floor = 0;
	int rc = -EINVAL, has_auth;

	if (!m || !initrd)
		goto out;
	if (o->now && lb_utc_parse(o->now, strlen(o->now), 1, &now)) {
		lb_err("--now: not a date: %s", o->now);
		goto out;
	}
	if (o->floor) {
		char *end;
		errno = 0;
		floor = strtoull(o->floor, &end, 10);
		if (!*o->floor || *end || errno || o->floor[0] == '-') {
			lb_err("--floor: not an unsigned integer: %s", o->floor);
			goto out;
		}
	}
	/* the manifest: read once, signature checked, parsed from those bytes */
	if ((rc = read_blob(o->check, LB_MANIFEST_MAX_FILE, &b)))
		goto out;
	if ((rc = verify_sig(o, o->check, &b)))
		goto out;
	if ((rc = lb_blob_map(&b, &p)))
		goto out;
	if ((rc = lb_manifest_parse(p, (size_t)b.size, m, err, sizeof(err)))) {
		lb_err("%s: refused: %s: %s", o->check, lb_manifest_reason(rc), err);
		goto out;
	}
	lb_blob_free(&b);
	if ((rc = read_blob(o->kernel, MAX_ARTIFACT, &b)))
		goto out;
	memcpy(kernel, b.dig.d[LB_SHA256], 32);
	has_auth = pe_digest(&b, auth);
	lb_blob_free(&b);
	for (size_t i = 0; i < o->n_initrds; i++) {
		if ((rc = read_blob(o->initrd[i], MAX_ARTIFACT, &b)))
			goto out;
		memcpy(initrd[i], b.dig.d[LB_SHA256], 32);
		lb_blob_free(&b);
	}
	boot.entry = o->entry;
	boot.kernel = kernel;
	boot.kernel_authenticode = has_auth ? auth : NULL;
	boot.initrd = (const uint8_t(*)[32])initrd;
	boot.n_initrds = o->n_initrds;
	boot.cmdline = o->cmdline;
	rc = lb_manifest_check(m, &boot, now, floor, &what);
	if (rc) {
		char when[21];
		if (rc == LB_MANIFEST_EXPIRED) {
			lb_utc_format(m->expires, when);
			lb_err("%s: refused: expired (%s)", o->check, when);
		} else if (rc == LB_MANIFEST_ROLLBACK) {
			lb_err("%s: refused: version %llu below the floor %llu", o->check,
			       (unsigned long long)m->version, (unsigned long long)floor);
		} else if (rc == LB_MANIFEST_OTHER_ENTRY) {
			lb_err("%s: refused: manifest is for entry '%s'", o->check, m->entry);
		} else {
			lb_err("%s: refused: %s %s", o->check, what ? what : "?",
			       lb_manifest_reason(rc));
		}
		goto out;
	}
	printf("%s: entry %s version %llu matches\n", o->check, m->entry,
	       (unsigned long long)m->version);
out:
	lb_blob_free(&b);
	free(initrd);
	free(m);
	return rc ? 1 : 0;
}

/* the PE Authenticode signature of the blob against the --trust-x509 CAs */
static int verify_pe(const struct opts *o, const char *file, struct lb_blob *b)
{
	int64_t now = time(NULL);
	const uint8_t *p;
	char err[200];
	int rc;

	if (o->now && lb_utc_parse(o->now, strlen(o->now), 1, &now)) {
		lb_err("--now: not a date: %s", o->now);
		return -EINVAL;
	}
	if ((rc = lb_blob_map(b, &p)))
		return rc;
	rc = lb_pe_sig_verify_rv(p, (size_t)b->size, o->cas, o->n_cas,
				 &(struct lb_pe_revoked){ o->revoke_pe, o->n_revoke_pe,
							  o->revoke_x509, o->n_revoke_x509 },
				 now, err, sizeof(err));
	if (rc)
		lb_err("%s: refused: %s (%s)", file, lb_pe_sig_reason(rc), err);
	else if ((rc = lb_sbat_check(p, (size_t)b->size, o->sbat, o->n_sbat, err, sizeof(err))))
		lb_err("%s: refused: %s", file, err);
	else
		printf("%s: PE signature ok\n", file);
	return rc;
}

static int do_verify(const struct opts *o)
{
	struct lb_blob b = { .fd = -1 };
	int rc = read_blob(o->verify, MAX_ARTIFACT, &b);

	if (!rc && o->n_cas)
		rc = verify_pe(o, o->verify, &b);
	else if (!rc)
		rc = verify_sig(o, o->verify, &b);
	lb_blob_free(&b);
	return rc ? 1 : 0;
}

int manifest_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "entry", required_argument, NULL, 'e' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "initrd", required_argument, NULL, 'i' },
		{ "cmdline", required_argument, NULL, 'c' },
		{ "version", required_argument, NULL, 'V' },
		{ "expires", required_argument, NULL, 'x' },
		{ "check", required_argument, NULL, 'C' },
		{ "verify", required_argument, NULL, 'y' },
		{ "trust", required_argument, NULL, 't' },
		{ "revoke", required_argument, NULL, 'r' },
		{ "sig", required_argument, NULL, 's' },
		{ "now", required_argument, NULL, 'n' },
		{ "floor", required_argument, NULL, 'f' },
		{ "trust-x509", required_argument, NULL, 'X' },
		{ "revoke-pe", required_argument, NULL, 'P' },
		{ "revoke-x509", required_argument, NULL, 'R' },
		{ "sbat", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts *o = calloc(1, sizeof(*o));
	int c, rc = 2;

	if (!o)
		return 1;
	while ((c = getopt_long(argc, argv, "o:", lo, NULL)) != -1) {
		switch (c) {
		case 'o': o->out = optarg; break;
		case 'e': o->entry = optarg; break;
		case 'k': o->kernel = optarg; break;
		case 'c': o->cmdline = optarg; break;
		case 'V': o->version = optarg; break;
		case 'x': o->expires = optarg; break;
		case 'C': o->check = optarg; break;
		case 'y': o->verify = optarg; break;
		case 's': o->sig = optarg; break;
		case 'n': o->now = optarg; break;
		case 'f': o->floor = optarg; break;
		case 'i':
			if (o->n_initrds == LB_MANIFEST_MAX_INITRDS) {
				lb_err("at most %d --initrd", LB_MANIFEST_MAX_INITRDS);
				goto out;
			}
			o->initrd[o->n_initrds++] = optarg;
			break;
		case 'P':
			if (o->n_revoke_pe == MAX_KEYS ||
			    lb_unhex(optarg, strlen(optarg), o->revoke_pe[o->n_revoke_pe], 32)) {
				lb_err("--revoke-pe %s: want a SHA-256 in 64 hex digits (at most %d)",
				       optarg, MAX_KEYS);
				goto out;
			}
			o->n_revoke_pe++;
			break;
		case 'S':
			if (o->n_sbat == MAX_KEYS || lb_sbat_rule_parse(optarg, &o->sbat[o->n_sbat])) {
				lb_err("--sbat %s: want COMPONENT,GENERATION (at most %d)",
				       optarg, MAX_KEYS);
				goto out;
			}
			o->n_sbat++;
			break;
		case 'R':
		case 'X': {
			uint8_t *buf, *der;
			size_t len, dlen;
			int r;
			if ((c == 'X' ? o->n_cas : o->n_revoke_x509) == MAX_KEYS) {
				lb_err("at most %d certificates", MAX_KEYS);
				goto out;
			}
			if ((r = lb_read_path(optarg, 1u << 20, &buf, &len))) {
				lb_err("%s: %s", optarg, strerror(-r));
				rc = 1;
				goto out;
			}
			r = lb_x509_load(buf, len, &der, &dlen);
			free(buf);
			if (r) {
				lb_err("%s: not a PEM or DER certificate", optarg);
				rc = 1;
				goto out;
			}
			if (c == 'R') {
				struct lb_digests d;

				r = lb_hash_buf(LB_HASH_BIT(LB_SHA256), der, dlen, &d);
				free(der);
				if (r) {
					lb_err("%s: %s", optarg, strerror(-r));
					rc = 1;
					goto out;
				}
				memcpy(o->revoke_x509[o->n_revoke_x509++], d.d[LB_SHA256], 32);
				break;
			}
			o->cas[o->n_cas].der = der;
			o->cas[o->n_cas++].len = dlen;
			break;
		}
		case 't':
		case 'r':
			if ((c == 't' ? o->n_trusted : o->n_revoked) == MAX_KEYS) {
				lb_err("at most %d keys", MAX_KEYS);
				goto out;
			}
			if (load_key(optarg, c == 't' ? &o->trusted[o->n_trusted++] :
					     &o->revoked[o->n_revoked++])) {
				rc = 1;
				goto out;
			}
			break;
		default:
			lb_usage("manifest");
			goto out;
		}
	}
	if (optind != argc || (o->check && o->verify)) {
		lb_usage("manifest");
		goto out;
	}
	if (o->verify) {
		if (!o->n_trusted && !o->n_cas) {
			lb_err("--verify needs --trust KEY.pub or --trust-x509 CERT");
			goto out;
		}
		rc = do_verify(o);
		goto out;
	}
	if (!o->entry || !o->kernel || !o->cmdline) {
		lb_err("--entry, --kernel and --cmdline are needed");
		goto out;
	}
	if (o->check) {
		if (!o->n_trusted) {
			lb_err("--check needs --trust KEY.pub");
			goto out;
		}
		rc = do_check(o);
		goto out;
	}
	if (!o->version || !o->expires) {
		lb_err("--version and --expires are needed");
		goto out;
	}
	rc = do_write(o);
out:
	for (size_t i = 0; i < o->n_cas; i++)
		free((void *)o->cas[i].der);
	free(o);
	return rc;
}
