/* The signed boot manifest (see manifest.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "hash.h"
#include "manifest.h"

enum key { K_ENTRY, K_VERSION, K_EXPIRES, K_KERNEL, K_AUTH, K_INITRD,
	   K_CMDLINE, K_N };

static const char *const keys[K_N] = {
	[K_ENTRY] = "entry", [K_VERSION] = "version", [K_EXPIRES] = "expires",
	[K_KERNEL] = "kernel", [K_AUTH] = "kernel-authenticode",
	[K_INITRD] = "initrd", [K_CMDLINE] = "cmdline",
};

/* days since 1970-01-01 of a proleptic Gregorian date (Hinnant's
 * days_from_civil) */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	const int64_t era = (y >= 0 ? y : y - 399) / 400;
	const unsigned yoe = (unsigned)(y - era * 400);
	const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

static int digits(const char *s, size_t n, unsigned *v)
{
	*v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		*v = *v * 10 + (unsigned)(s[i] - '0');
	}
	return 0;
}

int lb_utc_parse(const char *s, size_t len, int date_only_ok, int64_t *t)
{
	static const unsigned mdays[12] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	unsigned y, mo, d, h = 0, mi = 0, se = 0;

	if (len != 20 && !(date_only_ok && len == 10))
		return -EINVAL;
	if (digits(s, 4, &y) || s[4] != '-' || digits(s + 5, 2, &mo) ||
	    s[7] != '-' || digits(s + 8, 2, &d))
		return -EINVAL;
	if (len == 20 && (s[10] != 'T' || digits(s + 11, 2, &h) || s[13] != ':' ||
			  digits(s + 14, 2, &mi) || s[16] != ':' ||
			  digits(s + 17, 2, &se) || s[19] != 'Z'))
		return -EINVAL;
	if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] ||
	    h > 23 || mi > 59 || se > 59)
		return -EINVAL;
	if (mo == 2 && d == 29 && !(y % 4 == 0 && (y % 100 || y % 400 == 0)))
		return -EINVAL;
	*t = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
	return 0;
}

void lb_utc_format(int64_t t, char out[21])
{
	int64_t z = (t >= 0 ? t : 0) / 86400, s = (t >= 0 ? t : 0) % 86400;

	/* Hinnant's civil_from_days */
	z += 719468;
	const int64_t era = z / 146097;
	const unsigned doe = (unsigned)(z - era * 146097);
	const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	const unsigned mp = (5 * doy + 2) / 153;
	const unsigned d = doy - (153 * mp + 2) / 5 + 1;
	const unsigned m = mp < 10 ? mp + 3 : mp - 9;
	const int64_t y = (int64_t)yoe + era * 400 + (m <= 2);

	char tmp[80];

	snprintf(tmp, sizeof(tmp), "%04u-%02u-%02uT%02u:%02u:%02uZ",
		 (unsigned)(y % 10000), m % 100, d % 100, (unsigned)(s / 3600),
		 (unsigned)(s / 60 % 60), (unsigned)(s % 60));
	memcpy(out, tmp, 20);
	out[20] = 0;
}

static int parse_u64(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;

	if (!n || n > 20 || (n > 1 && s[0] == '0'))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		if (x > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return -EINVAL;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	*v = x;
	return 0;
}

/* "sha256:" + 64 lower-case hex digits */
static int parse_digest(const char *s, size_t n, uint8_t d[32])
{
	if (n != 7 + 64 || memcmp(s, "sha256:", 7))
		return -EINVAL;
	for (size_t i = 7; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return -EINVAL;
	return lb_unhex(s + 7, 64, d, 32);
}

static int id_ok(const char *s, size_t n)
{
	if (!n || n > LB_MANIFEST_MAX_ID)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] <= ' ' || s[i] > '~')
			return 0;
	return 1;
}

int lb_manifest_parse(const uint8_t *buf, size_t len, struct lb_manifest *out,
		      char *err, size_t errsz)
{
	struct lb_manifest *m;
	const char *p = (const char *)buf, *end = p + len;
	unsigned seen = 0;
	int last = -1, lineno = 0, rc = LB_MANIFEST_MALFORMED;

	if (!buf || !len) {
		lb_seterr(err, errsz, "empty");
		return LB_MANIFEST_MALFORMED;
	}
	if (len > LB_MANIFEST_MAX_FILE) {
		lb_seterr(err, errsz, "over %d bytes", LB_MANIFEST_MAX_FILE);
		return LB_MANIFEST_TOO_BIG;
	}
	if (!(m = calloc(1, sizeof(*m))))
		return -ENOMEM;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *sp, *v;
		size_t n, kl, vl;
		int k;

		lineno++;
		if (!nl) {
			lb_seterr(err, errsz, "line %d: no newline at the end", lineno);
			goto out;
		}
		n = (size_t)(nl - p);
		for (size_t i = 0; i < n; i++) {
			unsigned char c = (unsigned char)p[i];
			if (c < ' ' || c == 0x7f) {
				lb_seterr(err, errsz, "line %d: control character", lineno);
				goto out;
			}
		}
		if (lineno == 1) {
			if (n != strlen(LB_MANIFEST_MAGIC) ||
			    memcmp(p, LB_MANIFEST_MAGIC, n)) {
				lb_seterr(err, errsz, "line 1: not \"%s\"", LB_MANIFEST_MAGIC);
				goto out;
			}
			p = nl + 1;
			continue;
		}
		sp = memchr(p, ' ', n);
		if (!sp) {
			lb_seterr(err, errsz, "line %d: no value", lineno);
			goto out;
		}
		kl = (size_t)(sp - p);
		v = sp + 1;
		vl = n - kl - 1;
		for (k = 0; k < K_N; k++)
			if (strlen(keys[k]) == kl && !memcmp(keys[k], p, kl))
				break;
		if (k == K_N) {
			lb_seterr(err, errsz, "line %d: unknown key '%.*s'", lineno,
			       (int)(kl > 40 ? 40 : kl), p);
			goto out;
		}
		if ((seen & (1u << k)) && k != K_INITRD) {
			lb_seterr(err, errsz, "line %d: duplicate key '%s'", lineno, keys[k]);
			goto out;
		}
		if (k < last) {
			lb_seterr(err, errsz, "line %d: key '%s' out of order", lineno, keys[k]);
			goto out;
		}
		seen |= 1u << k;
		last = k;
		switch (k) {
		case K_ENTRY:
			if (!id_ok(v, vl)) {
				lb_seterr(err, errsz, "line %d: bad entry id", lineno);
				goto out;
			}
			memcpy(m->entry, v, vl);
			m->entry[vl] = 0;
			break;
		case K_VERSION:
			if (parse_u64(v, vl, &m->version)) {
				lb_seterr(err, errsz, "line %d: bad version", lineno);
				goto out;
			}
			break;
		case K_EXPIRES:
			if (lb_utc_parse(v, vl, 0, &m->expires)) {
				lb_seterr(err, errsz, "line %d: bad expiry (YYYY-MM-DDTHH:MM:SSZ)", lineno);
				goto out;
			}
			break;
		case K_KERNEL:
		case K_AUTH:
		case K_INITRD: {
			uint8_t *d = k == K_KERNEL ? m->kernel :
				     k == K_AUTH ? m->kernel_authenticode : NULL;
			if (k == K_INITRD) {
				if (m->n_initrds == LB_MANIFEST_MAX_INITRDS) {
					lb_seterr(err, errsz, "line %d: over %d initrds",
					       lineno, LB_MANIFEST_MAX_INITRDS);
					rc = LB_MANIFEST_TOO_BIG;
					goto out;
				}
				d = m->initrd[m->n_initrds++];
			}
			if (parse_digest(v, vl, d)) {
				lb_seterr(err, errsz, "line %d: bad digest (sha256:<64 lower-case hex>)",
				       lineno);
				goto out;
			}
			if (k == K_AUTH)
				m->has_authenticode = 1;
			break;
		}
		case K_CMDLINE:
			if (vl > LB_MANIFEST_MAX_CMDLINE) {
				lb_seterr(err, errsz, "line %d: command line over %d bytes",
				       lineno, LB_MANIFEST_MAX_CMDLINE);
				rc = LB_MANIFEST_TOO_BIG;
				goto out;
			}
			memcpy(m->cmdline, v, vl);
			m->cmdline[vl] = 0;
			m->cmdline_len = vl;
			break;
		}
		p = nl + 1;
	}
	for (int k = 0; k < K_N; k++) {
		if (k == K_AUTH || k == K_INITRD || (seen & (1u << k)))
			continue;
		lb_seterr(err, errsz, "missing key '%s'", keys[k]);
		goto out;
	}
	*out = *m;
	rc = 0;
out:
	free(m);
	return rc;
}

int lb_manifest_format(const struct lb_manifest *m, char **out, size_t *len)
{
	size_t cap = 512 + 80 * LB_MANIFEST_MAX_INITRDS + LB_MANIFEST_MAX_CMDLINE, n;
	char hex[65], when[21], *b;
	int w;

	if (!id_ok(m->entry, strlen(m->entry)) ||
	    m->n_initrds > LB_MANIFEST_MAX_INITRDS ||
	    m->cmdline_len > LB_MANIFEST_MAX_CMDLINE ||
	    memchr(m->cmdline, 0, m->cmdline_len) || m->expires < 0 ||
	    m->expires >= (int64_t)253402300800) /* 10000-01-01 */
		return -EINVAL;
	for (size_t i = 0; i < m->cmdline_len; i++)
		if ((unsigned char)m->cmdline[i] < ' ' || m->cmdline[i] == 0x7f)
			return -EINVAL;
	if (!(b = malloc(cap)))
		return -ENOMEM;
	lb_utc_format(m->expires, when);
	lb_hex(m->kernel, 32, hex);
	n = (size_t)snprintf(b, cap, "%s\nentry %s\nversion %llu\nexpires %s\nkernel sha256:%s\n",
			     LB_MANIFEST_MAGIC, m->entry,
			     (unsigned long long)m->version, when, hex);
	if (m->has_authenticode) {
		lb_hex(m->kernel_authenticode, 32, hex);
		n += (size_t)snprintf(b + n, cap - n, "kernel-authenticode sha256:%s\n", hex);
	}
	for (size_t i = 0; i < m->n_initrds; i++) {
		lb_hex(m->initrd[i], 32, hex);
		n += (size_t)snprintf(b + n, cap - n, "initrd sha256:%s\n", hex);
	}
	w = snprintf(b + n, cap - n, "cmdline %.*s\n", (int)m->cmdline_len, m->cmdline);
	if (w < 0 || (size_t)w >= cap - n) {
		free(b);
		return -EINVAL;
	}
	n += (size_t)w;
	*out = b;
	*len = n;
	return 0;
}

int lb_manifest_check(const struct lb_manifest *m,
		      const struct lb_manifest_boot *b, int64_t now,
		      uint64_t version_floor, const char **what)
{
	static char initrd_what[32];
	const char *w = NULL;
	int rc = 0;

	if (!b->entry || strcmp(b->entry, m->entry)) {
		w = "entry";
		rc = LB_MANIFEST_OTHER_ENTRY;
	} else if (m->version < version_floor) {
		w = "version";
		rc = LB_MANIFEST_ROLLBACK;
	} else if (now >= m->expires) {
		w = "expires";
		rc = LB_MANIFEST_EXPIRED;
	} else if (!b->kernel || memcmp(b->kernel, m->kernel, 32)) {
		w = "kernel";
		rc = LB_MANIFEST_CHANGED;
	} else if (m->has_authenticode &&
		   (!b->kernel_authenticode ||
		    memcmp(b->kernel_authenticode, m->kernel_authenticode, 32))) {
		w = "kernel";
		rc = LB_MANIFEST_CHANGED;
	} else if (b->n_initrds != m->n_initrds) {
		w = "initrds";
		rc = LB_MANIFEST_CHANGED;
	} else if (!b->cmdline || strlen(b->cmdline) != m->cmdline_len ||
		   memcmp(b->cmdline, m->cmdline, m->cmdline_len)) {
		w = "cmdline";
		rc = LB_MANIFEST_CHANGED;
	} else {
		for (size_t i = 0; i < m->n_initrds; i++) {
			if (memcmp(b->initrd[i], m->initrd[i], 32)) {
				snprintf(initrd_what, sizeof(initrd_what), "initrd %zu", i + 1);
				w = initrd_what;
				rc = LB_MANIFEST_CHANGED;
				break;
			}
		}
	}
	if (what)
		*what = w;
	return rc;
}

const char *lb_manifest_reason(int rc)
{
	switch (rc) {
	case 0: return "ok";
	case LB_MANIFEST_CHANGED: return "changed after signing";
	case LB_MANIFEST_OTHER_ENTRY: return "manifest is for another entry";
	case LB_MANIFEST_EXPIRED: return "expired";
	case LB_MANIFEST_ROLLBACK: return "version below the floor";
	case LB_MANIFEST_MALFORMED: return "malformed manifest";
	case LB_MANIFEST_TOO_BIG: return "manifest too large";
	case -ENOMEM: return "out of memory";
	default: return "error";
	}
}
