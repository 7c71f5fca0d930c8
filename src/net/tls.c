/* HTTPS with BearSSL: trust anchors and a TLS 1.2 client transport (tls.h). */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bearssl/bearssl_ec.h>
#include <bearssl/bearssl_hash.h>
#include <bearssl/bearssl_pem.h>
#include <bearssl/bearssl_prf.h>
#include <bearssl/bearssl_rsa.h>
#include <bearssl/bearssl_ssl.h>
#include <bearssl/bearssl_x509.h>

#include "io.h"
#include "der.h"
#include "tls.h"

/* --- DER: one TLV (lengths checked against the container) ----------------- */




/* --- trust anchors ------------------------------------------------------- */

struct lb_tls_anchors {
	br_x509_trust_anchor *ta;       /* ta[i].dn.data: one malloc with the key */
	size_t n, cap;
};

struct lb_tls_anchors *lb_tls_anchors_new(void)
{
	return calloc(1, sizeof(struct lb_tls_anchors));
}

static void anchors_trim(struct lb_tls_anchors *a, size_t n)
{
	while (a->n > n)
		free(a->ta[--a->n].dn.data);
}

void lb_tls_anchors_free(struct lb_tls_anchors *a)
{
	if (!a)
		return;
	anchors_trim(a, 0);
	free(a->ta);
	free(a);
}

size_t lb_tls_anchors_count(const struct lb_tls_anchors *a)
{
	return a ? a->n : 0;
}

struct sink {
	uint8_t *p;
	size_t n, cap;
	int over;
};

static void sink_append(void *ctx, const void *buf, size_t len)
{
	struct sink *s = ctx;

	if (s->over || len > s->cap - s->n) {
		s->over = 1;
		return;
	}
	memcpy(s->p + s->n, buf, len);
	s->n += len;
}

/* One DER certificate (exactly len bytes) -> one more anchor. */
static int add_der_one(struct lb_tls_anchors *a, const uint8_t *der, size_t len)
{
	br_x509_decoder_context *dc = NULL;
	struct sink dn = { 0 };
	const br_x509_pkey *pk;
	br_x509_trust_anchor *ta;
	struct lb_der d = { der, len };
	uint8_t tag, *blob = NULL;
	struct lb_der whole;
	size_t klen;
	int rc = -EINVAL;

	if (!len || len > LB_TLS_CERT_MAX || lb_der_tlv(&d, &tag, NULL, &whole) || tag != 0x30 || d.n)
		return -EINVAL;
	if (a->n >= LB_TLS_MAX_ANCHORS)
		return -E2BIG;
	if (a->n == a->cap) {
		size_t nc = a->cap ? a->cap * 2 : 8;
		br_x509_trust_anchor *t = realloc(a->ta, nc * sizeof(*t));

		if (!t)
			return -ENOMEM;
		a->ta = t;
		a->cap = nc;
	}
	dn.cap = len;   /* the subject DN is inside the certificate */
	if (!(dn.p = malloc(dn.cap)) || !(dc = malloc(sizeof(*dc)))) {
		rc = -ENOMEM;
		goto out;
	}
	br_x509_decoder_init(dc, sink_append, &dn);
	br_x509_decoder_push(dc, der, len);
	pk = br_x509_decoder_get_pkey(dc);
	if (!pk || br_x509_decoder_last_error(dc) || dn.over || !dn.n)
		goto out;
	switch (pk->key_type) {
	case BR_KEYTYPE_RSA:
		klen = pk->key.rsa.nlen + pk->key.rsa.elen;
		break;
	case BR_KEYTYPE_EC:
		klen = pk->key.ec.qlen;
		break;
	default:
		goto out;
	}
	if (!(blob = malloc(dn.n + klen))) {
		rc = -ENOMEM;
		goto out;
	}
	ta = &a->ta[a->n];
	memset(ta, 0, sizeof(*ta));
	memcpy(blob, dn.p, dn.n);
	ta->dn.data = blob;
	ta->dn.len = dn.n;
	ta->flags = br_x509_decoder_isCA(dc) ? BR_X509_TA_CA : 0;
	ta->pkey.key_type = pk->key_type;
	if (pk->key_type == BR_KEYTYPE_RSA) {
		uint8_t *n = blob + dn.n, *e = n + pk->key.rsa.nlen;

		memcpy(n, pk->key.rsa.n, pk->key.rsa.nlen);
		memcpy(e, pk->key.rsa.e, pk->key.rsa.elen);
		ta->pkey.key.rsa.n = n;
		ta->pkey.key.rsa.nlen = pk->key.rsa.nlen;
		ta->pkey.key.rsa.e = e;
		ta->pkey.key.rsa.elen = pk->key.rsa.elen;
	} else {
		uint8_t *q = blob + dn.n;

		memcpy(q, pk->key.ec.q, pk->key.ec.qlen);
		ta->pkey.key.ec.curve = pk->key.ec.curve;
		ta->pkey.key.ec.q = q;
		ta->pkey.key.ec.qlen = pk->key.ec.qlen;
	}
	a->n++;
	rc = 0;
out:
	free(dc);
	free(dn.p);
	return rc;
}

static int add_pem(struct lb_tls_anchors *a, const uint8_t *in, size_t inlen)
{
	br_pem_decoder_context *pc;
	struct sink obj = { 0 };
	static const uint8_t nl = '\n';
	int in_obj = 0, is_cert = 0, fed_nl = 0, added = 0, rc = 0;
	uint8_t *text;
	const uint8_t *buf;
	size_t len = 0;

	/* BearSSL's decoder wants LF line ends: drop the CRs of CRLF files */
	if (!(text = malloc(inlen)))
		return -ENOMEM;
	for (size_t i = 0; i < inlen; i++)
		if (in[i] != '\r')
			text[len++] = in[i];
	buf = text;
	if (!(pc = malloc(sizeof(*pc))) || !(obj.p = malloc(LB_TLS_CERT_MAX))) {
		free(pc);
		free(text);
		return -ENOMEM;
	}
	obj.cap = LB_TLS_CERT_MAX;
	br_pem_decoder_init(pc);
	while (!rc) {
		if (!len) {
			/* BearSSL's decoder ends an object at the newline after
			 * the END line: a file without a last newline gets one */
			if (fed_nl)
				break;
			buf = &nl;
			len = 1;
			fed_nl = 1;
		}
		size_t k = br_pem_decoder_push(pc, buf, len);

		buf += k;
		len -= k;
		switch (br_pem_decoder_event(pc)) {
		case BR_PEM_BEGIN_OBJ: {
			const char *name = br_pem_decoder_name(pc);

			is_cert = !strcmp(name, "CERTIFICATE") || !strcmp(name, "X509 CERTIFICATE");
			obj.n = 0;
			obj.over = 0;
			in_obj = 1;
			br_pem_decoder_setdest(pc, is_cert ? sink_append : NULL, &obj);
			break;
		}
		case BR_PEM_END_OBJ:
			if (is_cert) {
				rc = obj.over ? -EINVAL : add_der_one(a, obj.p, obj.n);
				added += !rc;
			}
			in_obj = is_cert = 0;
			break;
		case BR_PEM_ERROR:
			rc = -EINVAL;
			break;
		default:
			if (!k)
				rc = -EINVAL;   /* no progress: never loop */
			break;
		}
	}
	free(pc);
	free(obj.p);
	free(text);
	if (!rc && (in_obj || !added))
		rc = -EINVAL;   /* a cut-off object, or no certificate at all */
	return rc ? rc : added;
}

static int add_der(struct lb_tls_anchors *a, const uint8_t *buf, size_t len)
{
	struct lb_der d = { buf, len };
	int added = 0;

	while (d.n) {
		const uint8_t *start = d.p;
		uint8_t tag;
		struct lb_der whole;
		int rc;

		if (lb_der_tlv(&d, &tag, NULL, &whole) || tag != 0x30)
			return -EINVAL;
		if ((rc = add_der_one(a, start, whole.n)))
			return rc;
		added++;
	}
	return added ? added : -EINVAL;
}

int lb_tls_anchors_add_mem(struct lb_tls_anchors *a, const uint8_t *buf, size_t len)
{
	size_t n0;
	int rc;

	if (!a || !buf || !len)
		return -EINVAL;
	if (len > LB_TLS_FILE_MAX)
		return -EFBIG;
	n0 = a->n;
	/* DER: a SEQUENCE with a long-form length (a certificate is more
	 * than 127 bytes); PEM is text */
	if (len >= 2 && buf[0] == 0x30 && (buf[1] & 0x80))
		rc = add_der(a, buf, len);
	else
		rc = add_pem(a, buf, len);
	if (rc < 0)
		anchors_trim(a, n0);
	return rc;
}

#define STR_(x) #x
#define STR(x) STR_(x)

static const char *load_reason(int rc)
{
	switch (rc) {
	case -EINVAL: return "no certificate, or one that does not decode (PEM or DER X.509)";
	case -E2BIG: return "more than " STR(LB_TLS_MAX_ANCHORS) " trust anchors";
	case -EFBIG: return "larger than 1 MiB";
	}
	return strerror(-rc);
}

static int add_file(struct lb_tls_anchors *a, const char *path, char *err, size_t errsz)
{
	uint8_t *buf;
	size_t len;
	int rc;

	if ((rc = lb_read_path(path, LB_TLS_FILE_MAX, &buf, &len))) {
		lb_seterr(err, errsz, "%s: %s", path, rc == -EFBIG ? load_reason(rc) :
			  rc == -EINVAL ? "not a regular file" : strerror(-rc));
		return rc;
	}
	rc = lb_tls_anchors_add_mem(a, buf, len);
	free(buf);
	if (rc < 0)
		lb_seterr(err, errsz, "%s: %s", path, load_reason(rc));
	return rc;
}

static int ca_name(const struct dirent *e)
{
	static const char *const sfx[] = { ".pem", ".crt", ".cer", ".der" };
	size_t l = strlen(e->d_name);

	if (e->d_name[0] == '.')
		return 0;
	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++)
		if (l > 4 && !strcasecmp(e->d_name + l - 4, sfx[i]))
			return 1;
	return 0;
}

int lb_tls_anchors_add_path(struct lb_tls_anchors *a, const char *path,
			    char *err, size_t errsz)
{
	struct dirent **list = NULL;
	struct stat st;
	size_t n0 = a->n;
	int n, rc = 0, added = 0, files = 0;

	if (stat(path, &st)) {
		rc = -errno;
		lb_seterr(err, errsz, "%s: %s", path, strerror(errno));
		return rc;
	}
	if (!S_ISDIR(st.st_mode))
		return add_file(a, path, err, errsz);
	if ((n = scandir(path, &list, ca_name, alphasort)) < 0) {
		rc = -errno;
		lb_seterr(err, errsz, "%s: %s", path, strerror(errno));
		return rc;
	}
	for (int i = 0; i < n && !rc; i++) {
		char *f;

		if (asprintf(&f, "%s/%s", path, list[i]->d_name) < 0) {
			rc = -ENOMEM;
			lb_seterr(err, errsz, "%s: out of memory", path);
			break;
		}
		if (stat(f, &st) || !S_ISREG(st.st_mode)) {
			free(f);        /* a subdirectory named x.pem, a dangling link */
			continue;
		}
		if (++files > LB_TLS_DIR_MAX) {
			rc = -E2BIG;
			lb_seterr(err, errsz, "%s: more than %d CA files", path, LB_TLS_DIR_MAX);
		} else {
			int r = add_file(a, f, err, errsz);

			if (r < 0)
				rc = r;
			else
				added += r;
		}
		free(f);
	}
	for (int i = 0; i < n; i++)
		free(list[i]);
	free(list);
	if (rc < 0) {
		anchors_trim(a, n0);
		return rc;
	}
	return added;
}

/* --- time ------------------------------------------------------------------ */

int64_t lb_tls_clock(int64_t floor)
{
	int64_t now = (int64_t)time(NULL);

	return now > floor ? now : floor;
}

int64_t lb_tls_build_date(const char *date)
{
	static const char mon[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	static const int cum[] = { 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334 };
	int m = -1, d, y;
	char ms[4], tail;
	int64_t days;

	if (!date || sscanf(date, "%3s %d %d%c", ms, &d, &y, &tail) != 3 || strlen(ms) != 3)
		return 0;
	for (int i = 0; i < 12; i++)
		if (!memcmp(mon + 3 * i, ms, 3))
			m = i;
	if (m < 0 || d < 1 || d > 31 || y < 1970 || y > 9999)
		return 0;
	/* days from 1970-01-01 (proleptic Gregorian) */
	days = (int64_t)(y - 1970) * 365 + ((y - 1969) / 4) - ((y - 1901) / 100) + ((y - 1601) / 400);
	days += cum[m] + d - 1;
	if (m > 1 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		days++;
	return days * 86400;
}

/* days since 1970-01-01 -> year, month, day (proleptic Gregorian; days >= 0).
 * Here rather than gmtime_r/strftime, which bring musl's time zone code. */
static void civil(int64_t days, int *y, int *m, int *d)
{
	int64_t z = days + 719468, era = z / 146097;
	int64_t doe = z - era * 146097;                                 /* [0, 146096] */
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);          /* [0, 365] */
	int64_t mp = (5 * doy + 2) / 153;                               /* March = 0 */

	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = (int)(yoe + era * 400 + (*m <= 2));
}

/* --- subjectAltName iPAddress (BearSSL 0.6 has no such check) ------------- */

int lb_tls_cert_ip_match(const uint8_t *der, size_t len, const uint8_t *ip, size_t iplen)
{
	/* id-ce-subjectAltName 2.5.29.17 */
	static const uint8_t oid_san[] = { 0x55, 0x1d, 0x11 };
	struct lb_der d = { der, len }, cert, tbs, x, exts, seq;
	uint8_t tag;
	int found = 0, seen = 0;

	if (lb_der_want(&d, 0x30, &cert, NULL) || d.n || lb_der_want(&cert, 0x30, &tbs, NULL))
		return -EINVAL;
	if (tbs.n && tbs.p[0] == 0xa0 && lb_der_tlv(&tbs, &tag, NULL, NULL))
		return -EINVAL;
	/* serial, signature, issuer, validity, subject, subjectPublicKeyInfo */
	if (lb_der_want(&tbs, 0x02, NULL, NULL) || lb_der_want(&tbs, 0x30, NULL, NULL) ||
	    lb_der_want(&tbs, 0x30, NULL, NULL) || lb_der_want(&tbs, 0x30, NULL, NULL) ||
	    lb_der_want(&tbs, 0x30, NULL, NULL) || lb_der_want(&tbs, 0x30, NULL, NULL))
		return -EINVAL;
	/* issuerUniqueID [1], subjectUniqueID [2], extensions [3] */
	while (tbs.n) {
		if (lb_der_tlv(&tbs, &tag, &x, NULL))
			return -EINVAL;
		if (tag != 0xa3)
			continue;
		if (lb_der_want(&x, 0x30, &exts, NULL) || x.n)
			return -EINVAL;
		while (exts.n) {
			struct lb_der ext, oid, val, names;

			if (lb_der_want(&exts, 0x30, &ext, NULL) || lb_der_want(&ext, 0x06, &oid, NULL))
				return -EINVAL;
			if (ext.n && ext.p[0] == 0x01 && lb_der_tlv(&ext, &tag, NULL, NULL))
				return -EINVAL;         /* critical */
			if (lb_der_want(&ext, 0x04, &val, NULL) || ext.n)
				return -EINVAL;
			if (oid.n != sizeof(oid_san) || memcmp(oid.p, oid_san, sizeof(oid_san)))
				continue;
			if (seen++ || lb_der_want(&val, 0x30, &names, NULL) || val.n)
				return -EINVAL;         /* twice, or not GeneralNames */
			while (names.n) {
				if (lb_der_tlv(&names, &tag, &seq, NULL))
					return -EINVAL;
				/* iPAddress [7] IMPLICIT OCTET STRING */
				if (tag == 0x87 && seq.n == iplen && iplen &&
				    !memcmp(seq.p, ip, iplen))
					found = 1;
			}
		}
	}
	return found;
}

/* --- the TLS client ------------------------------------------------------ */

/* BearSSL's X.509 engine, wrapped to keep the end-entity certificate and
 * check an IP-literal host against its iPAddress names. */
struct xwrap {
	const br_x509_class *vtable;
	br_x509_minimal_context mini;
	unsigned ncert;
	struct sink ee;                 /* the server's own certificate */
	uint8_t ip[16];
	size_t iplen;                   /* 0: a DNS name (BearSSL checks it) */
};

#define MINI(ctx) (&((struct xwrap *)(void *)(ctx))->mini.vtable)

static void xw_start_chain(const br_x509_class **ctx, const char *server_name)
{
	struct xwrap *x = (struct xwrap *)(void *)ctx;

	x->ncert = 0;
	free(x->ee.p);
	memset(&x->ee, 0, sizeof(x->ee));
	x->mini.vtable->start_chain(MINI(ctx), server_name);
}

static void xw_start_cert(const br_x509_class **ctx, uint32_t length)
{
	struct xwrap *x = (struct xwrap *)(void *)ctx;

	if (!x->ncert && x->iplen && !x->ee.p) {
		if (length <= LB_TLS_CERT_MAX && (x->ee.p = malloc(length)))
			x->ee.cap = length;
		else
			x->ee.over = 1;
	}
	x->mini.vtable->start_cert(MINI(ctx), length);
}

static void xw_append(const br_x509_class **ctx, const unsigned char *buf, size_t len)
{
	struct xwrap *x = (struct xwrap *)(void *)ctx;

	if (!x->ncert && x->iplen)
		sink_append(&x->ee, buf, len);
	x->mini.vtable->append(MINI(ctx), buf, len);
}

static void xw_end_cert(const br_x509_class **ctx)
{
	struct xwrap *x = (struct xwrap *)(void *)ctx;

	x->ncert++;
	x->mini.vtable->end_cert(MINI(ctx));
}

static unsigned xw_end_chain(const br_x509_class **ctx)
{
	struct xwrap *x = (struct xwrap *)(void *)ctx;
	unsigned err = x->mini.vtable->end_chain(MINI(ctx));

	if (err || !x->iplen)
		return err;
	/* the chain is trusted; now the name, as BearSSL does for DNS names */
	if (x->ee.over || !x->ee.p)
		return BR_ERR_X509_LIMIT_EXCEEDED;
	if (lb_tls_cert_ip_match(x->ee.p, x->ee.n, x->ip, x->iplen) != 1)
		return BR_ERR_X509_BAD_SERVER_NAME;
	return 0;
}

static const br_x509_pkey *xw_get_pkey(const br_x509_class *const *ctx, unsigned *usages)
{
	const struct xwrap *x = (const struct xwrap *)(const void *)ctx;

	return x->mini.vtable->get_pkey(&x->mini.vtable, usages);
}

static const br_x509_class xwrap_vtable = {
	sizeof(struct xwrap),
	xw_start_chain,
	xw_start_cert,
	xw_append,
	xw_end_cert,
	xw_end_chain,
	xw_get_pkey,
};

/* ECDHE only (forward secrecy), AEAD only; RSA or ECDSA server keys. */
static const uint16_t suites[] = {
	BR_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	BR_TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	BR_TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	BR_TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	BR_TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	BR_TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
};

struct tls {
	br_ssl_client_context cc;
	struct xwrap xw;
	int fd;
	unsigned timeout_ms;
	uint64_t hs_deadline;   /* during the handshake: all of it by then */
	int ioerr;              /* socket error behind BR_ERR_IO */
	/* half duplex: HTTP writes its request, then reads; records of up
	 * to 16 KiB in (servers send full ones), requests fit easily */
	unsigned char iobuf[BR_SSL_BUFSIZE_MONO];
};

static int wait_io(struct tls *c, short ev)
{
	uint64_t now = lb_now_ms();
	uint64_t end = c->hs_deadline ? c->hs_deadline : now + c->timeout_ms;
	struct pollfd p = { c->fd, ev, 0 };

	for (;;) {
		int r;

		now = lb_now_ms();
		r = poll(&p, 1, now >= end ? 0 : (int)(end - now));
		if (r > 0)
			return 0;
		if (r == 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
	}
}

/* a socket failure ends the session: every later call returns it */
static int io_fail(struct tls *c, int rc)
{
	c->ioerr = rc;
	return rc;
}

/* Drive the engine until one of the target states; 1 when the engine is
 * closed (cleanly or not: br_ssl_engine_last_error tells), -errno from the
 * socket. As BearSSL's br_sslio does, with bounded waits. */
static int run_until(struct tls *c, unsigned target)
{
	br_ssl_engine_context *eng = &c->cc.eng;

	if (c->ioerr)
		return c->ioerr;
	for (;;) {
		unsigned st = br_ssl_engine_current_state(eng);
		unsigned char *b;
		size_t len;
		ssize_t k;
		int rc;

		if (st & BR_SSL_CLOSED)
			return 1;
		if (st & BR_SSL_SENDREC) {
			b = br_ssl_engine_sendrec_buf(eng, &len);
			k = send(c->fd, b, len, MSG_NOSIGNAL);
			if (k > 0) {
				br_ssl_engine_sendrec_ack(eng, (size_t)k);
				continue;
			}
			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0 && errno != EAGAIN)
				return io_fail(c, -errno);
			if ((rc = wait_io(c, POLLOUT)))
				return io_fail(c, rc);
			continue;
		}
		if (st & target)
			return 0;
		if (st & BR_SSL_RECVAPP)
			/* half duplex: the server spoke while we had to write */
			return io_fail(c, -EPROTO);
		if (st & BR_SSL_RECVREC) {
			b = br_ssl_engine_recvrec_buf(eng, &len);
			k = read(c->fd, b, len);
			if (k > 0) {
				br_ssl_engine_recvrec_ack(eng, (size_t)k);
				continue;
			}
			if (k == 0)
				return io_fail(c, -EPIPE);
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				return io_fail(c, -errno);
			if ((rc = wait_io(c, POLLIN)))
				return io_fail(c, rc);
			continue;
		}
		br_ssl_engine_flush(eng, 0);
	}
}

static int reason_errno(int e);

/* the engine closed: after close_notify (0) or on a TLS-level failure */
static int closed_rc(struct tls *c)
{
	int e = br_ssl_engine_last_error(&c->cc.eng);

	return e == BR_ERR_OK ? 0 : reason_errno(e);
}

static ssize_t tls_read(void *ctx, void *buf, size_t len)
{
	struct tls *c = ctx;
	unsigned char *b;
	size_t n;
	int rc;

	if (!len)
		return 0;
	rc = run_until(c, BR_SSL_RECVAPP);
	if (rc < 0)
		return rc;
	if (rc == 1)
		/* 0 (end of file) only after the server's close_notify; a TCP
		 * close without it is -EPIPE (run_until) */
		return closed_rc(c);
	b = br_ssl_engine_recvapp_buf(&c->cc.eng, &n);
	if (n > len)
		n = len;
	memcpy(buf, b, n);
	br_ssl_engine_recvapp_ack(&c->cc.eng, n);
	return (ssize_t)n;
}

static ssize_t tls_write(void *ctx, const void *buf, size_t len)
{
	struct tls *c = ctx;
	const unsigned char *p = buf;
	size_t done = 0;
	int rc;

	while (done < len) {
		unsigned char *b;
		size_t n;

		if ((rc = run_until(c, BR_SSL_SENDAPP)))
			return rc < 0 ? rc : -EPIPE;
		b = br_ssl_engine_sendapp_buf(&c->cc.eng, &n);
		if (n > len - done)
			n = len - done;
		memcpy(b, p + done, n);
		br_ssl_engine_sendapp_ack(&c->cc.eng, n);
		done += n;
	}
	br_ssl_engine_flush(&c->cc.eng, 0);
	if ((rc = run_until(c, BR_SSL_SENDAPP | BR_SSL_RECVAPP | BR_SSL_RECVREC)))
		return rc < 0 ? rc : -EPIPE;
	return (ssize_t)len;
}

static void tls_free(struct tls *c)
{
	free(c->xw.ee.p);
	close(c->fd);
	explicit_bzero(c, sizeof(*c));  /* session keys */
	free(c);
}

static void tls_close(void *ctx)
{
	struct tls *c = ctx;
	br_ssl_engine_context *eng = &c->cc.eng;

	/* close_notify, if the socket takes it now; never wait for it */
	if (!(br_ssl_engine_current_state(eng) & BR_SSL_CLOSED)) {
		unsigned char *b;
		size_t len;

		br_ssl_engine_close(eng);
		b = br_ssl_engine_sendrec_buf(eng, &len);
		if (b && len)
			(void)!send(c->fd, b, len, MSG_NOSIGNAL | MSG_DONTWAIT);
	}
	tls_free(c);
}

const char *lb_tls_reason(int e)
{
	if (e >= BR_ERR_SEND_FATAL_ALERT && e < BR_ERR_SEND_FATAL_ALERT + 256)
		return "handshake failed: we sent a fatal alert";
	if (e >= BR_ERR_RECV_FATAL_ALERT && e < BR_ERR_RECV_FATAL_ALERT + 256) {
		switch (e - BR_ERR_RECV_FATAL_ALERT) {
		case 40: return "handshake failed: the server sent alert handshake_failure (no common cipher suite or curve?)";
		case 42: case 43: case 44: case 45: case 46:
			return "handshake failed: the server refused a certificate";
		case 70: return "handshake failed: the server sent alert protocol_version (no TLS 1.2?)";
		case 112: return "handshake failed: the server sent alert unrecognized_name (SNI)";
		}
		return "handshake failed: the server sent a fatal alert";
	}
	switch (e) {
	case BR_ERR_OK: return "ok";
	case BR_ERR_X509_NOT_TRUSTED: return "certificate not trusted (no chain to a trust anchor)";
	case BR_ERR_X509_BAD_SERVER_NAME: return "certificate name mismatch (the host is not among its names)";
	case BR_ERR_X509_EXPIRED: return "certificate expired or not yet valid";
	case BR_ERR_X509_TIME_UNKNOWN: return "certificate validity: no clock";
	case BR_ERR_X509_NOT_CA: return "certificate not trusted (an issuer in the chain is not a CA)";
	case BR_ERR_X509_DN_MISMATCH: return "certificate chain broken (issuer and subject names differ)";
	case BR_ERR_X509_BAD_SIGNATURE: return "certificate signature does not verify";
	case BR_ERR_X509_WEAK_PUBLIC_KEY: return "certificate key too weak";
	case BR_ERR_X509_FORBIDDEN_KEY_USAGE: return "certificate key usage forbids a TLS server";
	case BR_ERR_X509_CRITICAL_EXTENSION: return "certificate has an unknown critical extension";
	case BR_ERR_X509_EMPTY_CHAIN: return "handshake failed: the server sent no certificate";
	case BR_ERR_X509_UNSUPPORTED:
	case BR_ERR_X509_WRONG_KEY_TYPE: return "certificate algorithm not supported";
	case BR_ERR_X509_LIMIT_EXCEEDED: return "certificate too large";
	case BR_ERR_UNSUPPORTED_VERSION:
	case BR_ERR_BAD_VERSION: return "handshake failed: the server does not speak TLS 1.2";
	case BR_ERR_BAD_CIPHER_SUITE: return "handshake failed: no cipher suite in common (ECDHE with AES-GCM or ChaCha20-Poly1305)";
	case BR_ERR_BAD_SIGNATURE: return "handshake failed: the server's key exchange signature does not verify";
	case BR_ERR_WRONG_KEY_USAGE: return "handshake failed: the server key may not be used that way";
	case BR_ERR_INVALID_ALGORITHM: return "handshake failed: algorithm not supported";
	case BR_ERR_BAD_MAC: return "bad record MAC (data altered in transit)";
	case BR_ERR_NO_RANDOM: return "no random source for TLS";
	case BR_ERR_TOO_LARGE: return "record too large";
	case BR_ERR_BAD_SNI: return "handshake failed: bad server name";
	}
	if (e >= BR_ERR_X509_OK && e < BR_ERR_X509_OK + 32)
		return "certificate malformed";
	return "handshake failed: protocol error";
}

static int reason_errno(int e)
{
	switch (e) {
	case BR_ERR_X509_NOT_TRUSTED:
	case BR_ERR_X509_NOT_CA:
	case BR_ERR_X509_DN_MISMATCH:
		return -ENOKEY;
	case BR_ERR_X509_EXPIRED:
		return -EKEYEXPIRED;
	}
	if (e >= BR_ERR_X509_OK && e < BR_ERR_X509_OK + 32)
		return -EKEYREJECTED;
	if (e >= BR_ERR_RECV_FATAL_ALERT && e < BR_ERR_RECV_FATAL_ALERT + 256)
		return -ECONNREFUSED;
	if (e == BR_ERR_NO_RANDOM)
		return -EAGAIN;
	return -EPROTO;
}

int lb_tls_open(void *arg, int fd, const char *host, unsigned timeout_ms,
		struct lb_net_transport *t, char *err, size_t errsz)
{
	const struct lb_tls_config *cfg = arg;
	static const struct {
		int id;
		const br_hash_class *vt;
	} hashes[] = {
		{ br_sha1_ID, &br_sha1_vtable }, { br_sha224_ID, &br_sha224_vtable },
		{ br_sha256_ID, &br_sha256_vtable }, { br_sha384_ID, &br_sha384_vtable },
		{ br_sha512_ID, &br_sha512_vtable },
	};
	br_ssl_engine_context *eng;
	struct tls *c;
	int64_t now;
	int rc;

	if (!cfg || !cfg->anchors || !cfg->anchors->n) {
		close(fd);
		lb_seterr(err, errsz, "no trust anchors for https (%s, %s: lboot mkinitramfs --ca; lboot fetch --ca): "
			  "refusing an unchecked connection", LB_TLS_DEFAULT_DIR, LB_TLS_DEFAULT_FILE);
		return -ENOKEY;
	}
	if (!(c = calloc(1, sizeof(*c)))) {
		close(fd);
		lb_seterr(err, errsz, "out of memory");
		return -ENOMEM;
	}
	c->fd = fd;
	c->timeout_ms = timeout_ms ? timeout_ms : 10000;
	eng = &c->cc.eng;
	if (inet_pton(AF_INET, host, c->xw.ip) == 1)
		c->xw.iplen = 4;
	else if (inet_pton(AF_INET6, host, c->xw.ip) == 1)
		c->xw.iplen = 16;

	br_ssl_client_zero(&c->cc);
	br_ssl_engine_set_versions(eng, BR_TLS12, BR_TLS12);
	br_ssl_engine_set_suites(eng, suites, sizeof(suites) / sizeof(suites[0]));
	br_ssl_engine_set_ec(eng, br_ec_get_default());
	br_ssl_engine_set_ecdsa(eng, br_ecdsa_vrfy_asn1_get_default());
	br_ssl_engine_set_rsavrfy(eng, br_rsa_pkcs1_vrfy_get_default());
	br_x509_minimal_init(&c->xw.mini, &br_sha256_vtable, cfg->anchors->ta, cfg->anchors->n);
	for (size_t i = 0; i < sizeof(hashes) / sizeof(hashes[0]); i++) {
		br_ssl_engine_set_hash(eng, hashes[i].id, hashes[i].vt);
		br_x509_minimal_set_hash(&c->xw.mini, hashes[i].id, hashes[i].vt);
	}
	br_x509_minimal_set_rsa(&c->xw.mini, br_ssl_engine_get_rsavrfy(eng));
	br_x509_minimal_set_ecdsa(&c->xw.mini, br_ssl_engine_get_ec(eng),
				  br_ssl_engine_get_ecdsa(eng));
	now = lb_tls_clock(cfg->time_floor);
	if (now < 0)
		now = 0;
	/* BearSSL counts days from 1 January of year 0 (719528 to 1970) */
	br_x509_minimal_set_time(&c->xw.mini, (uint32_t)(now / 86400 + 719528),
				 (uint32_t)(now % 86400));
	c->xw.vtable = &xwrap_vtable;
	br_ssl_engine_set_x509(eng, &c->xw.vtable);
	br_ssl_engine_set_prf_sha256(eng, &br_tls12_sha256_prf);
	br_ssl_engine_set_prf_sha384(eng, &br_tls12_sha384_prf);
	br_ssl_engine_set_default_aes_gcm(eng);
	br_ssl_engine_set_default_chapol(eng);
	br_ssl_engine_set_buffer(eng, c->iobuf, sizeof(c->iobuf), 0);
	/* The kernel's CRNG (getrandom waits until it is seeded, which needs no
	 * /dev in an early initramfs); BearSSL adds RDRAND or /dev/urandom
	 * itself when it has them. */
	{
		unsigned char seed[32];
		ssize_t k;

		do
			k = getrandom(seed, sizeof(seed), 0);
		while (k < 0 && errno == EINTR);
		if (k == (ssize_t)sizeof(seed))
			br_ssl_engine_inject_entropy(eng, seed, sizeof(seed));
		explicit_bzero(seed, sizeof(seed));
	}
	/* SNI and BearSSL's name check for a DNS name; none for an address */
	if (!br_ssl_client_reset(&c->cc, c->xw.iplen ? NULL : host, 0)) {
		int e = br_ssl_engine_last_error(eng);

		lb_seterr(err, errsz, "%s", lb_tls_reason(e));
		rc = reason_errno(e);
		goto fail;
	}
	c->hs_deadline = lb_now_ms() + c->timeout_ms;
	rc = run_until(c, BR_SSL_SENDAPP);
	c->hs_deadline = 0;
	if (rc) {
		int e = br_ssl_engine_last_error(eng);

		if (rc < 0 || e == BR_ERR_OK) {
			if (rc > 0)
				rc = -EPIPE;    /* a close_notify during the handshake */
			if (rc == -ETIMEDOUT && c->timeout_ms % 1000)
				lb_seterr(err, errsz, "handshake failed: not done within %u ms "
					  "(the server does not answer)", c->timeout_ms);
			else if (rc == -ETIMEDOUT)
				lb_seterr(err, errsz, "handshake failed: not done within %u s "
					  "(the server does not answer)", c->timeout_ms / 1000);
			else if (rc == -EPIPE)
				lb_seterr(err, errsz, "handshake failed: the server closed the connection");
			else
				lb_seterr(err, errsz, "handshake failed: %s", strerror(-rc));
		} else {
			lb_seterr(err, errsz, "%s", lb_tls_reason(e));
			if (e == BR_ERR_X509_EXPIRED) {
				int y, m, d;

				civil(now / 86400, &y, &m, &d);
				lb_seterr(err, errsz, "%s (clock %04d-%02d-%02d %02d:%02d UTC)",
					  lb_tls_reason(e), y, m, d, (int)(now % 86400 / 3600),
					  (int)(now % 3600 / 60));
			} else if (e == BR_ERR_X509_BAD_SERVER_NAME) {
				lb_seterr(err, errsz, "certificate name mismatch (%s is not among its %s)",
					  host, c->xw.iplen ? "IP addresses" : "names");
			}
			rc = reason_errno(e);
		}
		goto fail;
	}
	t->ctx = c;
	t->read = tls_read;
	t->write = tls_write;
	t->close = tls_close;
	return 0;
fail:
	tls_free(c);
	return rc;
}
