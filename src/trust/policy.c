/* The verified-boot policy of the firmware initramfs. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io.h"
#include "manifest.h"
#include "hash.h"
#include "policy.h"

#define MAX_POLICY_FILE 65536 /* 256 revoke-pe + 256 revoke-x509 + 64 sbat lines fit */

const char *lb_verify_mode_name(enum lb_verify_mode m)
{
	return m == LB_VERIFY_ENFORCE ? "enforce" : m == LB_VERIFY_WARN ? "warn" : "off";
}

int lb_verify_mode_parse(const char *s, enum lb_verify_mode *m)
{
	if (!strcmp(s, "off"))
		*m = LB_VERIFY_OFF;
	else if (!strcmp(s, "warn"))
		*m = LB_VERIFY_WARN;
	else if (!strcmp(s, "enforce"))
		*m = LB_VERIFY_ENFORCE;
	else
		return -EINVAL;
	return 0;
}

int lb_policy_raise(struct lb_policy *p, const char *value)
{
	enum lb_verify_mode m;

	if (lb_verify_mode_parse(value, &m))
		return -EINVAL;
	if (m <= p->mode)
		return 0;
	p->mode = m;
	return 1;
}

int64_t lb_policy_now(const struct lb_policy *p)
{
	int64_t now = (int64_t)time(NULL);

	return now > p->time_floor ? now : p->time_floor;
}

static void invalid(struct lb_policy *p, const char *fmt, const char *a, const char *b)
{
	if (!p->err[0])
		snprintf(p->err, sizeof(p->err), fmt, a, b);
	p->mode = LB_VERIFY_ENFORCE;
}

int lb_policy_nv_counter(struct lb_tpm2 *t, uint32_t index, uint64_t *v, char *why, size_t whysz)
{
	struct lb_tpm2_nvpub pub;
	int rc;

	if (!t)
		return lb_whyf(why, whysz, -ENODEV, "no usable TPM to read the floor from");
	rc = lb_tpm2_nv_read_public(t, index, &pub);
	if (!rc && ((pub.attrs >> 4) & 0xf) != 1)
		rc = -EMEDIUMTYPE;
	else if (!rc && !(pub.attrs & LB_TPM2_NV_WRITTEN))
		rc = -ENODATA;
	if (!rc)
		rc = lb_tpm2_nv_read_counter(t, (pub.attrs & LB_TPM2_NV_AUTHREAD) ?
					     index : LB_TPM2_RH_OWNER, NULL, index, v);
	if (rc) {
		char rcs[96];

		if (rc == -EMEDIUMTYPE)
			lb_whyf(why, whysz, rc, "not an NV counter");
		else if (rc == -ENODATA)
			lb_whyf(why, whysz, rc, "the counter was never incremented");
		else if (rc > 0 && (rc & 0x80) && (rc & 0x3f) == 0x0b)
			lb_whyf(why, whysz, rc, "no such NV index in the TPM");
		else if (rc > 0)
			lb_whyf(why, whysz, rc, "TPM: %s", lb_tpm2_rc_str((uint32_t)rc, rcs, sizeof(rcs)));
		else if (rc == -EBADMSG)
			lb_whyf(why, whysz, rc, "malformed response from the TPM");
		else
			lb_whyf(why, whysz, rc, "%s", strerror(-rc));
	}
	return rc;
}

int lb_policy_floor_nv(struct lb_policy *p, struct lb_tpm2 *t)
{
	char idx[16], why[128];
	uint64_t v;
	int rc;

	if (!p->manifest_floor_nv)
		return 0;
	snprintf(idx, sizeof(idx), "0x%08x", p->manifest_floor_nv);
	if ((rc = lb_policy_nv_counter(t, p->manifest_floor_nv, &v, why, sizeof(why)))) {
		invalid(p, "manifest-floor-nv %s: %s", idx, why);
		return rc;
	}
	p->floor_nv_value = v;
	p->floor_nv_read = 1;
	if (v > p->manifest_floor)
		p->manifest_floor = v;
	return 0;
}

static int yesno(const char *v, int *out)
{
	if (!strcmp(v, "yes"))
		*out = 1;
	else if (!strcmp(v, "no"))
		*out = 0;
	else
		return -EINVAL;
	return 0;
}

/* revoke-pe / revoke-x509 HEX: one more entry of list (n of them). */
static void add_revoked_digest(struct lb_policy *p, const char *path, const char *line,
			       const char *v, uint8_t (*list)[32], size_t *n)
{
	if (*n >= LB_POLICY_MAX_REVOKE)
		invalid(p, "%s: too many %s lines", path, line);
	else if (lb_unhex(v, strlen(v), list[*n], 32))
		invalid(p, "%s: '%s': want a SHA-256 in 64 hex digits", path, v);
	else
		(*n)++;
}

/* sbat COMPONENT GENERATION: a minimum generation, once per component */
static void add_sbat(struct lb_policy *p, const char *path, const char *v)
{
	struct lb_sbat_rule r;

	if (lb_sbat_rule_parse(v, &r) || strchr(v, ',')) {
		invalid(p, "%s: sbat '%s': want COMPONENT GENERATION (a name, 1 to 9 digits)", path, v);
		return;
	}
	for (size_t i = 0; i < p->n_sbat; i++)
		if (!strcmp(p->sbat[i].name, r.name)) {
			invalid(p, "%s: sbat '%s': component listed twice", path, r.name);
			return;
		}
	if (p->n_sbat >= LB_POLICY_MAX_SBAT)
		invalid(p, "%s: too many %s lines", path, "sbat");
	else
		p->sbat[p->n_sbat++] = r;
}

/* an NV index of the owner's range, written 0x01xxxxxx */
static int nv_index(const char *v, uint32_t *out)
{
	unsigned long long x;
	char *end;

	errno = 0;
	x = strtoull(v, &end, 16);
	if (errno || *end || strncmp(v, "0x", 2) || (x >> 24) != 0x01)
		return -EINVAL;
	*out = (uint32_t)x;
	return 0;
}

static void parse_policy(struct lb_policy *p, char *text, const char *path)
{
	char *save = NULL;

	for (char *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *v = strchr(line, ' ');
		char *end;

		if (!*line || *line == '#')
			continue;
		if (!v) {
			invalid(p, "%s: '%s': want KEY VALUE", path, line);
			continue;
		}
		*v++ = 0;
		if (!strcmp(line, "verify")) {
			enum lb_verify_mode m;
			if (lb_verify_mode_parse(v, &m))
				invalid(p, "%s: verify '%s': want off, warn or enforce", path, v);
			else if (m > p->mode)
				p->mode = m;
		} else if (!strcmp(line, "allow-edit")) {
			if (yesno(v, &p->allow_edit))
				invalid(p, "%s: allow-edit '%s': want yes or no", path, v);
		} else if (!strcmp(line, "tpm")) {
			if (!strcmp(v, "require"))
				p->tpm_require = 1;
			else if (strcmp(v, "auto"))
				invalid(p, "%s: tpm '%s': want require or auto", path, v);
		} else if (!strcmp(line, "require-manifest")) {
			if (yesno(v, &p->require_manifest))
				invalid(p, "%s: require-manifest '%s': want yes or no", path, v);
		} else if (!strcmp(line, "allow-shell")) {
			if (yesno(v, &p->allow_shell))
				invalid(p, "%s: allow-shell '%s': want yes or no", path, v);
		} else if (!strcmp(line, "manifest-floor")) {
			errno = 0;
			p->manifest_floor = strtoull(v, &end, 10);
			if (errno || *end || !*v || *v == '-')
				invalid(p, "%s: manifest-floor '%s': not a number", path, v);
		} else if (!strcmp(line, "manifest-floor-nv")) {
			if (nv_index(v, &p->manifest_floor_nv))
				invalid(p, "%s: manifest-floor-nv '%s': want an NV index 0x01xxxxxx", path, v);
		} else if (!strcmp(line, "firmware-version")) {
			errno = 0;
			p->fw_version = strtoull(v, &end, 10);
			if (errno || *end || !*v || *v == '-')
				invalid(p, "%s: firmware-version '%s': not a number", path, v);
		} else if (!strcmp(line, "update-floor-nv")) {
			if (nv_index(v, &p->update_floor_nv))
				invalid(p, "%s: update-floor-nv '%s': want an NV index 0x01xxxxxx", path, v);
		} else if (!strcmp(line, "revoke-pe")) {
			add_revoked_digest(p, path, line, v, p->revoke_pe, &p->n_revoke_pe);
		} else if (!strcmp(line, "revoke-x509")) {
			add_revoked_digest(p, path, line, v, p->revoke_x509, &p->n_revoke_x509);
		} else if (!strcmp(line, "sbat")) {
			add_sbat(p, path, v);
		} else if (!strcmp(line, "time-floor")) {
			if (lb_utc_parse(v, strlen(v), 0, &p->time_floor))
				invalid(p, "%s: time-floor '%s': want YYYY-MM-DDTHH:MM:SSZ", path, v);
		} else {
			invalid(p, "%s: unknown key '%s'", path, line);
		}
	}
}

/* every regular *.suffix file of dir, sorted; loaded by add() */
static void load_dir(struct lb_policy *p, const char *dir, const char *suffix,
		     int (*add)(struct lb_policy *, const char *, const uint8_t *, size_t))
{
	struct dirent **names = NULL;
	int n = scandir(dir, &names, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		const char *nm = names[i]->d_name;
		size_t l = strlen(nm), sl = strlen(suffix);
		char path[384];
		uint8_t *buf;
		size_t len;
		int r;

		if (nm[0] == '.' || l <= sl || strcmp(nm + l - sl, suffix))
			goto next;
		snprintf(path, sizeof(path), "%s/%s", dir, nm);
		if ((r = lb_read_path(path, 1 << 16, &buf, &len))) {
			invalid(p, "%s: %s", path, strerror(-r));
			goto next;
		}
		add(p, path, buf, len);
		free(buf);
next:
		free(names[i]);
	}
	free(names);
}

static int add_key(struct lb_pubkey *v, size_t *n, struct lb_policy *p,
		   const char *path, const uint8_t *buf, size_t len)
{
	int r;

	if (*n >= LB_POLICY_MAX_KEYS) {
		invalid(p, "%s: more than %s keys", path, "32");
		return -E2BIG;
	}
	if ((r = lb_pubkey_parse(buf, len, &v[*n]))) {
		invalid(p, "%s: not a minisign/signify public key: %s", path, lb_sig_reason(r));
		return r;
	}
	(*n)++;
	return 0;
}

static int add_trusted(struct lb_policy *p, const char *path, const uint8_t *buf, size_t len)
{
	return add_key(p->trusted, &p->n_trusted, p, path, buf, len);
}

static int add_revoked(struct lb_policy *p, const char *path, const uint8_t *buf, size_t len)
{
	return add_key(p->revoked, &p->n_revoked, p, path, buf, len);
}

static int add_update_key(struct lb_policy *p, const char *path, const uint8_t *buf, size_t len)
{
	return add_key(p->update_keys, &p->n_update_keys, p, path, buf, len);
}

static int add_ca(struct lb_policy *p, const char *path, const uint8_t *buf, size_t len)
{
	uint8_t *der;
	size_t dlen;
	int r;

	if (p->n_cas >= LB_POLICY_MAX_CAS) {
		invalid(p, "%s: more than %s CAs", path, "16");
		return -E2BIG;
	}
	if ((r = lb_x509_load(buf, len, &der, &dlen))) {
		invalid(p, "%s: not an X.509 certificate: %s", path, strerror(-r));
		return r;
	}
	p->cas[p->n_cas].der = der;
	p->cas[p->n_cas].len = dlen;
	p->n_cas++;
	return 0;
}

void lb_policy_load(const char *root, struct lb_policy *p)
{
	char path[384];
	uint8_t *buf;
	size_t len;
	int r;

	memset(p, 0, sizeof(*p));
	if (!root || !strcmp(root, "/"))
		root = "";
	snprintf(path, sizeof(path), "%s/etc/lboot/policy", root);
	r = lb_read_path(path, MAX_POLICY_FILE, &buf, &len);
	if (r == -ENOENT)
		return;
	if (r) {
		invalid(p, "%s: %s", path, r == -EFBIG ? "too large" : strerror(-r));
		return;
	}
	parse_policy(p, (char *)buf, path);
	free(buf);
	snprintf(path, sizeof(path), "%s/etc/lboot/trust", root);
	load_dir(p, path, ".pub", add_trusted);
	snprintf(path, sizeof(path), "%s/etc/lboot/revoked", root);
	load_dir(p, path, ".pub", add_revoked);
	snprintf(path, sizeof(path), "%s/etc/lboot/trust-x509", root);
	load_dir(p, path, ".der", add_ca);
	snprintf(path, sizeof(path), "%s/etc/lboot/update", root);
	load_dir(p, path, ".pub", add_update_key);
	if (p->err[0]) {
		/* fail closed: no key counts when any part is wrong */
		p->n_trusted = 0;
		p->n_update_keys = 0;
		for (size_t i = 0; i < p->n_cas; i++)
			free((void *)p->cas[i].der);
		p->n_cas = 0;
	}
}

void lb_policy_free(struct lb_policy *p)
{
	for (size_t i = 0; i < p->n_cas; i++)
		free((void *)p->cas[i].der);
	memset(p, 0, sizeof(*p));
}
