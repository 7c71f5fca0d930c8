/* lboot mkinitramfs: build the firmware initramfs (newc cpio, xz/gzip). */
#include "lboot.h"

LB_APPLET(mkinitramfs, LB_HOST,
"usage: lboot mkinitramfs -o OUT [--init BINARY] [--busybox[=PATH]]\n"
"         [--compress xz|gzip|none] [--mtime EPOCH] [--file SRC[:DST]]... [SRC[:DST]...]\n"
"         [--verify off|warn|enforce] [--trust KEY.pub]... [--revoke KEY.pub]...\n"
"         [--trust-x509 CERT]... [--allow-edit] [--allow-shell] [--require-manifest]\n"
"         [--manifest-floor N]\n"
"         [--manifest-floor-nv INDEX] [--tpm require|auto] [--ca FILE]...\n"
"         [--revoke-pe SHA256]... [--revoke-x509 CERT]...\n"
"         [--sbat COMPONENT,GENERATION]...\n"
"         [--order SPEC] [--option lboot.KEY=VALUE]...\n"
"         [--update-key KEY.pub]... [--firmware-version N] [--update-floor-nv INDEX]\n"
"Write a reproducible initramfs (newc cpio, compressed) to OUT, atomically.\n"
"Always: /dev /proc /sys /run /tmp /mnt /etc /bin /sbin, /dev/console (c 5 1),\n"
"/dev/null (c 1 3).\n"
"  -o, --output OUT    the image to write (never one of the inputs)\n"
"  --init BINARY       BINARY as /init (0755), /bin/lboot -> ../init\n"
"  --busybox[=PATH]    add PATH (default /bin/busybox, a static busybox) as\n"
"                      /bin/busybox and /bin/APPLET -> busybox for each applet\n"
"                      `PATH --list` prints, except names already taken\n"
"  --compress C        xz (default; CRC32 check, as the kernel needs), gzip, none\n"
"  --mtime EPOCH       mtime of every member (default $SOURCE_DATE_EPOCH or 0)\n"
"  --file SRC[:DST], SRC[:DST]\n"
"                      add a host file or directory (recursively; symlinks kept)\n"
"                      at DST (default /basename(SRC)); DST ending in / puts it\n"
"                      under DST; a directory with DST / merges into the root;\n"
"                      the last ':' splits SRC from DST\n"
"Verified boot (docs/verified-boot.md), stored as /etc/lboot/policy,\n"
"/etc/lboot/trust/KEYID.pub, /etc/lboot/revoked/KEYID.pub and\n"
"/etc/lboot/trust-x509/N.der; lboot.verify= on the kernel command line can\n"
"only make the policy stricter:\n"
"  --verify MODE       off (default without keys), warn (boot, and say what\n"
"                      failed), enforce (default with keys: boot only what a\n"
"                      trusted key or CA covers)\n"
"  --trust KEY.pub     a minisign (or signify) public key (repeatable)\n"
"  --revoke KEY.pub    a key whose signatures are refused (repeatable)\n"
"  --trust-x509 CERT   a CA (PEM or DER) for PE-signed kernels and UKIs\n"
"  --revoke-pe SHA256  refuse the PE image with this Authenticode SHA-256\n"
"                      (hex), whoever signed it (repeatable; dbx's role)\n"
"  --revoke-x509 CERT  refuse PE signatures with this certificate anywhere in\n"
"                      them, and never trust it as a CA (repeatable)\n"
"  --sbat COMPONENT,GENERATION\n"
"                      refuse PE-signed images whose .sbat section names\n"
"                      COMPONENT with a lower generation (repeatable;\n"
"                      shim's SbatLevel role)\n"
"  --allow-edit        enforce: allow editing a command line at the menu\n"
"  --allow-shell       enforce: allow the menu's shell\n"
"  --require-manifest  entries on a disk boot only with a signed manifest (no\n"
"                      per-file route: per-file signatures can be rolled back)\n"
"  --manifest-floor N  refuse manifests with a version below N\n"
"  --manifest-floor-nv INDEX\n"
"                      and below the value of the TPM NV counter INDEX\n"
"                      (0x01xxxxxx; `lboot tpm counter INDEX increment`\n"
"                      raises it); no TPM or no counter: nothing boots\n"
"  --tpm require       boot nothing that could not be measured into a TPM\n"
"  --ca FILE           HTTPS trust anchors for network boot (PEM bundle or\n"
"                      DER; repeatable), as /etc/lboot/tls/NN-NAME\n"
"Firmware updates (docs/firmware-update.md):\n"
"  --update-key KEY.pub  a minisign key that signs update images, as\n"
"                      /etc/lboot/update/KEYID.pub (repeatable; never trusted\n"
"                      for boot entries, as --trust keys never sign updates)\n"
"  --firmware-version N  this build's version: updates below it are refused\n"
"  --update-floor-nv INDEX\n"
"                      and updates below the TPM NV counter INDEX's value\n"
"Boot options built in (/etc/lboot/cmdline, read before the kernel command\n"
"line, which overrides them):\n"
"  --order SPEC        the boot order, as lboot.order=SPEC (README's options)\n"
"  --option lboot.KEY=VALUE\n"
"                      any lboot.* option of the kernel command line\n"
"                      (repeatable; one word, no blanks)\n"
"The build time (--mtime, else now) is stored as the clock's floor for\n"
"manifest expiry.\n"
"Members are sorted by path, owned by 0:0, inodes numbered in order: the same\n"
"inputs give the same bytes. Prints a summary line to stderr.\n"
"Exit: 0 ok, 1 failure, 2 usage.\n")

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cpio.h"
#include "hash.h"
#include "io.h"
#include "compress.h"
#include "manifest.h"
#include "mkinitramfs.h"
#include "pkcs7.h"
#include "order.h"
#include "policy.h"
#include "sbat.h"
#include "sig.h"
#include "tls.h"

#define MAX_POLICY_FILES 32

struct vopts {
	int set;                 /* any verified-boot option given */
	const char *mode;
	const char *trust[MAX_POLICY_FILES], *revoke[MAX_POLICY_FILES];
	const char *x509[MAX_POLICY_FILES], *ca[MAX_POLICY_FILES];
	size_t n_trust, n_revoke, n_x509, n_ca;
	int allow_edit, allow_shell, require_manifest;
	const char *floor;
	const char *floor_nv;    /* NV counter index */
	const char *upd_key[MAX_POLICY_FILES];
	size_t n_upd_key;
	const char *fw_version, *upd_floor_nv;
	const char *tpm;
	const char *opt[MAX_POLICY_FILES]; /* built-in lboot.* options */
	size_t n_opt;
	const char *revoke_pe[MAX_POLICY_FILES], *revoke_x509[MAX_POLICY_FILES];
	size_t n_revoke_pe, n_revoke_x509;
	const char *sbat[MAX_POLICY_FILES];
	size_t n_sbat;
	int usage;               /* an option's value was wrong (exit 2) */
	char dir[64];            /* the staging directory, "" when none */
	char *made[3 * MAX_POLICY_FILES + 8];
	size_t n_made;
};

static int add_path(const char **v, size_t *n, const char *p)
{
	if (*n >= MAX_POLICY_FILES)
		return -E2BIG;
	v[(*n)++] = p;
	return 0;
}

static int put(struct vopts *v, const char *rel, const void *p, size_t len)
{
	char *path;
	int r;

	if (v->n_made >= sizeof(v->made) / sizeof(v->made[0]) ||
	    asprintf(&path, "%s/%s", v->dir, rel) < 0)
		return -ENOMEM;
	v->made[v->n_made++] = path;
	if ((r = lb_write_atomic(path, p, len, 0644)))
		lb_err("%s: %s", path, strerror(-r));
	return r;
}

static int mkdirs(struct vopts *v, const char *const *rel, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *path;
		if (asprintf(&path, "%s/%s", v->dir, rel[i]) < 0)
			return -ENOMEM;
		if (mkdir(path, 0755) < 0) {
			lb_err("%s: %s", path, strerror(errno));
			free(path);
			return -errno;
		}
		v->made[v->n_made++] = path;
	}
	return 0;
}

/* the keys of paths, checked, as trust/KEYID.pub or revoked/KEYID.pub */
static int put_keys(struct vopts *v, const char *sub, const char *const *paths, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct lb_pubkey k;
		uint8_t *buf;
		size_t len;
		char kid[17], rel[96];
		int r = lb_read_path(paths[i], LB_SIG_MAX_FILE, &buf, &len);

		if (r) {
			lb_err("%s: %s", paths[i], r == -EFBIG ? "too large for a key" : strerror(-r));
			return r;
		}
		if ((r = lb_pubkey_parse(buf, len, &k))) {
			lb_err("%s: not a minisign/signify public key: %s", paths[i], lb_sig_reason(r));
			free(buf);
			return r;
		}
		lb_keyid_hex(k.keyid, kid);
		snprintf(rel, sizeof(rel), "etc/lboot/%s/%s.pub", sub, kid);
		r = put(v, rel, buf, len);
		free(buf);
		if (r)
			return r;
	}
	return 0;
}

static void policy_cleanup(struct vopts *v)
{
	while (v->n_made) {
		char *p = v->made[--v->n_made];
		if (unlink(p) < 0)
			rmdir(p);
		free(p);
	}
	if (v->dir[0])
		rmdir(v->dir);
	v->dir[0] = 0;
}

/* A certificate file (PEM or DER) as DER (malloc'd); one line on failure. */
static int read_x509(const char *path, uint8_t **der, size_t *dlen)
{
	uint8_t *buf;
	size_t len;
	int r;

	if ((r = lb_read_path(path, 1 << 20, &buf, &len))) {
		lb_err("%s: %s", path, strerror(-r));
		return r;
	}
	r = lb_x509_load(buf, len, der, dlen);
	free(buf);
	if (r)
		lb_err("%s: not a PEM or DER X.509 certificate", path);
	return r;
}

/* The policy's revoke-pe and revoke-x509 lines, appended at text + *n. */
static int revoke_lines(struct vopts *v, char *text, size_t size, int *n)
{
	uint8_t d32[32];
	char hex[65];
	int r;

	for (size_t i = 0; i < v->n_revoke_pe; i++) {
		if (lb_unhex(v->revoke_pe[i], strlen(v->revoke_pe[i]), d32, 32)) {
			lb_err("--revoke-pe %s: want a SHA-256 in 64 hex digits", v->revoke_pe[i]);
			v->usage = 1;
			return -EINVAL;
		}
		lb_hex(d32, 32, hex);
		*n += snprintf(text + *n, size - (size_t)*n, "revoke-pe %s\n", hex);
	}
	for (size_t i = 0; i < v->n_revoke_x509; i++) {
		struct lb_digests d;
		uint8_t *der;
		size_t dlen;

		if ((r = read_x509(v->revoke_x509[i], &der, &dlen)))
			return r;
		r = lb_hash_buf(LB_HASH_BIT(LB_SHA256), der, dlen, &d);
		free(der);
		if (r)
			return r;
		lb_hex(d.d[LB_SHA256], 32, hex);
		*n += snprintf(text + *n, size - (size_t)*n, "revoke-x509 %s\n", hex);
	}
	for (size_t i = 0; i < v->n_sbat; i++) {
		struct lb_sbat_rule rule;

		if (lb_sbat_rule_parse(v->sbat[i], &rule)) {
			lb_err("--sbat %s: want COMPONENT,GENERATION (a name, 1 to 9 digits)",
			       v->sbat[i]);
			v->usage = 1;
			return -EINVAL;
		}
		for (size_t j = 0; j < i; j++) {
			struct lb_sbat_rule other;

			if (!lb_sbat_rule_parse(v->sbat[j], &other) && !strcmp(other.name, rule.name)) {
				lb_err("--sbat %s: component given twice", rule.name);
				v->usage = 1;
				return -EINVAL;
			}
		}
		*n += snprintf(text + *n, size - (size_t)*n, "sbat %s %u\n", rule.name,
			       (unsigned)rule.gen);
	}
	return 0;
}

/* Write the policy files into a staging directory merged into the root. */
static int policy_stage(struct vopts *v, uint32_t mtime)
{
	static const char *const dirs[] = { "etc", "etc/lboot", "etc/lboot/trust",
		"etc/lboot/revoked", "etc/lboot/trust-x509", "etc/lboot/tls", "etc/lboot/update" };
	enum lb_verify_mode mode = v->n_trust || v->n_x509 ? LB_VERIFY_ENFORCE : LB_VERIFY_OFF;
	char text[512 + 3 * MAX_POLICY_FILES * 80], t[21];
	const char *tmp = getenv("TMPDIR");
	int64_t floor_t = mtime ? (int64_t)mtime : (int64_t)time(NULL);
	unsigned long long fl = 0, fnv = 0;
	char *end;
	int n, r;

	if (v->mode && lb_verify_mode_parse(v->mode, &mode)) {
		lb_err("--verify %s: want off, warn or enforce", v->mode);
		v->usage = 1;
		return -EINVAL;
	}
	if (mode == LB_VERIFY_ENFORCE && !v->n_trust && !v->n_x509) {
		lb_err("--verify enforce without --trust or --trust-x509: nothing could boot");
		v->usage = 1;
		return -EINVAL;
	}
	if (v->floor) {
		errno = 0;
		fl = strtoull(v->floor, &end, 10);
		if (errno || *end || !*v->floor || *v->floor == '-') {
			lb_err("--manifest-floor %s: not a number", v->floor);
			v->usage = 1;
			return -EINVAL;
		}
	}
	if (v->floor_nv) {
		errno = 0;
		fnv = strtoull(v->floor_nv, &end, 0);
		if (errno || *end || (fnv >> 24) != 0x01) {
			lb_err("--manifest-floor-nv %s: want an NV index 0x01xxxxxx", v->floor_nv);
			v->usage = 1;
			return -EINVAL;
		}
	}
	snprintf(v->dir, sizeof(v->dir), "%s/lboot-policy.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(v->dir)) {
		lb_err("%s: %s", v->dir, strerror(errno));
		v->dir[0] = 0;
		return -errno;
	}
	if ((r = mkdirs(v, dirs, sizeof(dirs) / sizeof(dirs[0]))))
		return r;
	lb_utc_format(floor_t, t);
	n = snprintf(text, sizeof(text),
		     "# lboot verified-boot policy (lboot mkinitramfs)\n"
		     "verify %s\nallow-edit %s\nallow-shell %s\nmanifest-floor %llu\ntime-floor %s\n"
		     "tpm %s\n",
		     lb_verify_mode_name(mode), v->allow_edit ? "yes" : "no",
		     v->allow_shell ? "yes" : "no", fl, t, v->tpm ? v->tpm : "auto");
	if (fnv)
		n += snprintf(text + n, sizeof(text) - (size_t)n, "manifest-floor-nv 0x%08llx\n", fnv);
	if (v->require_manifest)
		n += snprintf(text + n, sizeof(text) - (size_t)n, "require-manifest yes\n");
	if (v->fw_version) {
		unsigned long long fv;

		errno = 0;
		fv = strtoull(v->fw_version, &end, 10);
		if (errno || *end || !*v->fw_version || *v->fw_version == '-') {
			lb_err("--firmware-version %s: not a number", v->fw_version);
			v->usage = 1;
			return -EINVAL;
		}
		n += snprintf(text + n, sizeof(text) - (size_t)n, "firmware-version %llu\n", fv);
	}
	if (v->upd_floor_nv) {
		unsigned long long x;

		errno = 0;
		x = strtoull(v->upd_floor_nv, &end, 0);
		if (errno || *end || (x >> 24) != 0x01) {
			lb_err("--update-floor-nv %s: want an NV index 0x01xxxxxx", v->upd_floor_nv);
			v->usage = 1;
			return -EINVAL;
		}
		n += snprintf(text + n, sizeof(text) - (size_t)n, "update-floor-nv 0x%08llx\n", x);
	}
	if ((r = revoke_lines(v, text, sizeof(text), &n)))
		return r;
	if ((r = put(v, "etc/lboot/policy", text, (size_t)n)))
		return r;
	if (v->n_opt) {
		char line[4096];
		size_t o = 0;

		for (size_t i = 0; i < v->n_opt; i++) {
			int k = snprintf(line + o, sizeof(line) - o, "%s%s", i ? " " : "", v->opt[i]);

			if (k < 0 || (size_t)k >= sizeof(line) - o - 1) {
				lb_err("--option: more than %zu bytes in all", sizeof(line) - 2);
				v->usage = 1;
				return -E2BIG;
			}
			o += (size_t)k;
		}
		line[o++] = '\n';
		if ((r = put(v, "etc/lboot/cmdline", line, o)))
			return r;
	}
	if ((r = put_keys(v, "trust", v->trust, v->n_trust)) ||
	    (r = put_keys(v, "revoked", v->revoke, v->n_revoke)) ||
	    (r = put_keys(v, "update", v->upd_key, v->n_upd_key)))
		return r;
	for (size_t i = 0; i < v->n_x509; i++) {
		uint8_t *der;
		size_t dlen;
		char rel[64];

		if ((r = read_x509(v->x509[i], &der, &dlen)))
			return r;
		snprintf(rel, sizeof(rel), "etc/lboot/trust-x509/%02zu.der", i);
		r = put(v, rel, der, dlen);
		free(der);
		if (r)
			return r;
	}
	for (size_t i = 0; i < v->n_ca; i++) {
		struct lb_tls_anchors *a = lb_tls_anchors_new();
		const char *base = strrchr(v->ca[i], '/');
		char e[256] = "", rel[128];
		uint8_t *buf;
		size_t len;

		if (!a)
			return -ENOMEM;
		r = lb_tls_anchors_add_path(a, v->ca[i], e, sizeof(e));
		lb_tls_anchors_free(a);
		if (r < 0) {
			lb_err("--ca %s", e);
			return r;
		}
		if ((r = lb_read_path(v->ca[i], LB_TLS_FILE_MAX, &buf, &len))) {
			lb_err("%s: %s", v->ca[i], strerror(-r));
			return r;
		}
		base = base ? base + 1 : v->ca[i];
		/* the loader takes .pem .crt .cer .der: keep a known extension */
		{
			size_t bl = strlen(base);
			const char *ext = bl > 4 ? base + bl - 4 : "";
			int known = !strcmp(ext, ".pem") || !strcmp(ext, ".crt") ||
				    !strcmp(ext, ".cer") || !strcmp(ext, ".der");
			snprintf(rel, sizeof(rel), "etc/lboot/tls/%02zu-%.60s%s", i, base,
				 known && bl <= 60 ? "" : ".pem");
		}
		r = put(v, rel, buf, len);
		free(buf);
		if (r)
			return r;
	}
	fprintf(stderr, "lboot mkinitramfs: verified boot %s, %zu trusted key%s, %zu revoked, %zu CA%s\n",
		lb_verify_mode_name(mode), v->n_trust, v->n_trust == 1 ? "" : "s",
		v->n_revoke, v->n_x509, v->n_x509 == 1 ? "" : "s");
	return 0;
}

static int parse_epoch(const char *s, uint32_t *out)
{
	char *end;
	unsigned long long v;

	if (!*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > UINT32_MAX)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

static int add_spec(struct lb_initramfs_file **v, size_t *n, char *spec)
{
	struct lb_initramfs_file *nv = realloc(*v, (*n + 1) * sizeof(**v));
	char *colon = strrchr(spec, ':');

	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*n].src = spec;
	nv[*n].dst = NULL;
	if (colon) {
		*colon = 0;
		nv[*n].dst = colon + 1;
		if (!spec[0] || !colon[1])
			return -EINVAL;
	}
	if (!spec[0])
		return -EINVAL;
	(*n)++;
	return 0;
}

int mkinitramfs_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "init", required_argument, NULL, 'i' },
		{ "busybox", optional_argument, NULL, 'b' },
		{ "compress", required_argument, NULL, 'c' },
		{ "mtime", required_argument, NULL, 'm' },
		{ "file", required_argument, NULL, 'f' },
		{ "verify", required_argument, NULL, 'V' },
		{ "trust", required_argument, NULL, 'T' },
		{ "revoke", required_argument, NULL, 'R' },
		{ "trust-x509", required_argument, NULL, 'X' },
		{ "allow-edit", no_argument, NULL, 'E' },
		{ "allow-shell", no_argument, NULL, 'S' },
		{ "require-manifest", no_argument, NULL, 'M' },
		{ "manifest-floor", required_argument, NULL, 'F' },
		{ "manifest-floor-nv", required_argument, NULL, 'N' },
		{ "tpm", required_argument, NULL, 'P' },
		{ "ca", required_argument, NULL, 'A' },
		{ "order", required_argument, NULL, 'O' },
		{ "option", required_argument, NULL, 'Q' },
		{ "revoke-pe", required_argument, NULL, 'D' },
		{ "revoke-x509", required_argument, NULL, 'W' },
		{ "sbat", required_argument, NULL, 'B' },
		{ "update-key", required_argument, NULL, 'U' },
		{ "firmware-version", required_argument, NULL, 'Y' },
		{ "update-floor-nv", required_argument, NULL, 'Z' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct lb_initramfs_opts o = { 0 };
	struct lb_initramfs_file *files = NULL;
	struct lb_initramfs *img = NULL;
	struct lb_cpio_buf cpio = { .max = (size_t)3 << 30 };
	struct lb_cpio_writer w;
	enum lb_comp comp = LB_COMP_XZ;
	const char *out = NULL, *sde;
	uint8_t *z = NULL;
	size_t n_files = 0, zlen = 0;
	char err[512] = "";
	struct stat st;
	struct vopts vo = { 0 };
	char *spec_alloc = NULL;
	int c, rc, ret = 1;

	if ((sde = getenv("SOURCE_DATE_EPOCH")) && *sde &&
	    parse_epoch(sde, &o.mtime) < 0) {
		lb_err("SOURCE_DATE_EPOCH '%s': not a 32-bit epoch", sde);
		return 2;
	}
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'i':
			o.init = optarg;
			break;
		case 'b':
			o.busybox = optarg ? optarg : "/bin/busybox";
			break;
		case 'c':
			if (lb_comp_parse(optarg, &comp) < 0) {
				lb_err("--compress %s: use xz, gzip or none", optarg);
				goto usage;
			}
			break;
		case 'm':
			if (parse_epoch(optarg, &o.mtime) < 0) {
				lb_err("--mtime %s: not a 32-bit epoch", optarg);
				goto usage;
			}
			break;
		case 'f':
			if (add_spec(&files, &n_files, optarg) < 0) {
				lb_err("--file %s: want SRC or SRC:DST", optarg);
				goto usage;
			}
			break;
		case 'V':
			vo.set = 1;
			vo.mode = optarg;
			break;
		case 'T':
		case 'R':
		case 'X':
			vo.set = 1;
			if (add_path(c == 'T' ? vo.trust : c == 'R' ? vo.revoke : vo.x509,
				     c == 'T' ? &vo.n_trust : c == 'R' ? &vo.n_revoke : &vo.n_x509,
				     optarg)) {
				lb_err("at most %d of each of --trust, --revoke, --trust-x509",
				       MAX_POLICY_FILES);
				goto usage;
			}
			break;
		case 'M':
			vo.set = 1;
			vo.require_manifest = 1;
			break;
		case 'U':
			vo.set = 1;
			if (add_path(vo.upd_key, &vo.n_upd_key, optarg)) {
				lb_err("at most %d --update-key", MAX_POLICY_FILES);
				goto usage;
			}
			break;
		case 'Y':
			vo.set = 1;
			vo.fw_version = optarg;
			break;
		case 'Z':
			vo.set = 1;
			vo.upd_floor_nv = optarg;
			break;
		case 'B':
			vo.set = 1;
			if (add_path(vo.sbat, &vo.n_sbat, optarg)) {
				lb_err("at most %d --sbat", MAX_POLICY_FILES);
				goto usage;
			}
			break;
		case 'D':
		case 'W':
			vo.set = 1;
			if (add_path(c == 'D' ? vo.revoke_pe : vo.revoke_x509,
				     c == 'D' ? &vo.n_revoke_pe : &vo.n_revoke_x509, optarg)) {
				lb_err("at most %d of each of --revoke-pe, --revoke-x509",
				       MAX_POLICY_FILES);
				goto usage;
			}
			break;
		case 'E':
		case 'S':
			vo.set = 1;
			*(c == 'E' ? &vo.allow_edit : &vo.allow_shell) = 1;
			break;
		case 'F':
			vo.set = 1;
			vo.floor = optarg;
			break;
		case 'N':
			vo.set = 1;
			vo.floor_nv = optarg;
			break;
		case 'A':
			if (add_path(vo.ca, &vo.n_ca, optarg)) {
				lb_err("at most %d --ca files", MAX_POLICY_FILES);
				goto usage;
			}
			vo.set = 1;
			break;
		case 'P':
			if (strcmp(optarg, "require") && strcmp(optarg, "auto")) {
				lb_err("--tpm %s: want require or auto", optarg);
				goto usage;
			}
			vo.set = 1;
			vo.tpm = optarg;
			break;
		case 'O':
		case 'Q': {
			static char orders[MAX_POLICY_FILES][LB_ORDER_MAX + 16];
			const char *v = optarg;

			if (c == 'O') {
				struct lb_fsset none = { 0 };

				if (strlen(optarg) >= LB_ORDER_MAX ||
				    lb_order_sort(&none, optarg, "/nonexistent") == -EINVAL) {
					lb_err("--order %s: an unknown token (the README's lboot.order= lists them)",
					       optarg);
					goto usage;
				}
				if (vo.n_opt >= MAX_POLICY_FILES)
					goto toomany;
				snprintf(orders[vo.n_opt], sizeof(orders[0]), "lboot.order=%s", optarg);
				v = orders[vo.n_opt];
			} else if (strncmp(optarg, "lboot.", 6) || !strchr(optarg, '=') ||
				   strpbrk(optarg, " \t\n\"")) {
				lb_err("--option %s: want lboot.KEY=VALUE, one word", optarg);
				goto usage;
			}
			if (add_path(vo.opt, &vo.n_opt, v)) {
toomany:
				lb_err("at most %d --option/--order", MAX_POLICY_FILES);
				goto usage;
			}
			vo.set = 1;
			break;
		}
		case 'h':
			fputs(lb_applet_mkinitramfs.usage, stdout);
			free(files);
			return 0;
		default:
			goto usage;
		}
	}
	for (int i = optind; i < argc; i++)
		if (add_spec(&files, &n_files, argv[i]) < 0) {
			lb_err("%s: want SRC or SRC:DST", argv[i]);
			goto usage;
		}
	if (!out) {
		lb_err("missing -o OUT");
		goto usage;
	}
	if (stat(out, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			lb_err("%s: is a directory", out);
			goto out;
		}
		o.avoid.set = 1;
		o.avoid.dev = st.st_dev;
		o.avoid.ino = st.st_ino;
	}
	if (vo.set) {
		char *spec;

		if ((rc = policy_stage(&vo, o.mtime))) {
			ret = vo.usage ? 2 : 1;
			goto out;
		}
		if (asprintf(&spec, "%s:/", vo.dir) < 0 ||
		    add_spec(&files, &n_files, spec) < 0)
			goto out;
		spec_alloc = spec;
	}
	o.files = files;
	o.n_files = n_files;
	if ((rc = lb_initramfs_build(&o, &img, err, sizeof(err))) < 0) {
		lb_err("%s", err);
		if (rc == -EEXIST && strstr(err, "is the output file"))
			lb_err("%s: refusing to overwrite an input", out);
		goto out;
	}
	lb_cpio_writer_init(&w, lb_cpio_buf_write, &cpio);
	if ((rc = lb_initramfs_write(img, &w)) < 0) {
		lb_err("%s: cannot build the archive: %s", out, strerror(-rc));
		goto out;
	}
	if ((rc = lb_compress(comp, cpio.p, cpio.len, &z, &zlen)) < 0) {
		lb_err("%s: %s compression failed: %s", out, lb_comp_name(comp),
		       strerror(-rc));
		goto out;
	}
	if ((rc = lb_write_atomic(out, z, zlen, 0644)) < 0) {
		lb_err("%s: cannot write: %s", out, strerror(-rc));
		goto out;
	}
	fprintf(stderr, "lboot mkinitramfs: %s: %zu entries, %zu bytes cpio, %zu bytes %s\n",
		out, lb_initramfs_count(img), cpio.len, zlen, lb_comp_name(comp));
	ret = 0;
out:
	policy_cleanup(&vo);
	free(spec_alloc);
	free(z);
	lb_cpio_buf_free(&cpio);
	lb_initramfs_free(img);
	free(files);
	return ret;
usage:
	lb_usage("mkinitramfs");
	free(files);
	return 2;
}
