/*
 * TPM 2.0 command marshalling and response unmarshalling. Byte layouts from
 * TCG TPM 2.0 Library Part 2 (structures) and Part 3 (commands); every
 * number on the wire is big-endian. A response is trusted for nothing: its
 * size field must equal the bytes received, every TPM2B must fit in what is
 * left and under our cap, lists are capped, and the parameters must be
 * consumed exactly.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tpm2.h"

/* --- writer -------------------------------------------------------------- */

struct wr {
	uint8_t *b;
	size_t cap, n;
	int err;
};

static void wbytes(struct wr *w, const void *p, size_t len)
{
	if (w->err || len > w->cap - w->n) {
		w->err = 1;
		return;
	}
	if (len)
		memcpy(w->b + w->n, p, len);
	w->n += len;
}

static void w8(struct wr *w, uint8_t v)
{
	wbytes(w, &v, 1);
}

static void w16(struct wr *w, uint16_t v)
{
	uint8_t b[2] = { v >> 8, v };
	wbytes(w, b, 2);
}

static void w32(struct wr *w, uint32_t v)
{
	uint8_t b[4] = { v >> 24, v >> 16, v >> 8, v };
	wbytes(w, b, 4);
}

static void w2b(struct wr *w, const void *p, size_t len)
{
	if (len > 0xffff) {
		w->err = 1;
		return;
	}
	w16(w, len);
	wbytes(w, p, len);
}

static void patch32(struct wr *w, size_t at, uint32_t v)
{
	if (w->err || at + 4 > w->n)
		return;
	w->b[at] = v >> 24;
	w->b[at + 1] = v >> 16;
	w->b[at + 2] = v >> 8;
	w->b[at + 3] = v;
}

static void patch16(struct wr *w, size_t at, uint16_t v)
{
	if (w->err || at + 2 > w->n)
		return;
	w->b[at] = v >> 8;
	w->b[at + 1] = v;
}

static void cmd_begin(struct lb_tpm2 *t, struct wr *w, int sessions, uint32_t cc)
{
	w->b = t->cmd;
	w->cap = sizeof(t->cmd);
	w->n = 0;
	w->err = 0;
	t->last_cc = cc;
	w16(w, sessions ? LB_TPM2_ST_SESSIONS : LB_TPM2_ST_NO_SESSIONS);
	w32(w, 0); /* size, patched in cmd_send */
	w32(w, cc);
}

/* The authorisation area of a command with one authorised handle: written
 * after the handles, before the parameters. */
static void cmd_auth(struct wr *w, const struct lb_tpm2_auth *a)
{
	size_t at = w->n;

	w32(w, 0);
	w32(w, a ? a->handle : LB_TPM2_RS_PW);
	w2b(w, NULL, 0); /* nonceCaller: empty for password and plain policy sessions */
	w8(w, a ? a->attrs : 0);
	w2b(w, a ? a->hmac : NULL, a ? a->len : 0);
	patch32(w, at, w->n - at - 4);
}

static void pcrsel(struct wr *w, const struct lb_tpm2_pcrsel *sel, size_t n)
{
	w32(w, n);
	for (size_t i = 0; i < n; i++) {
		w16(w, sel[i].alg);
		w8(w, 3);
		w8(w, sel[i].mask);
		w8(w, sel[i].mask >> 8);
		w8(w, sel[i].mask >> 16);
	}
}

static int cmd_send(struct lb_tpm2 *t, struct wr *w)
{
	int rc;

	if (w->err)
		return -EMSGSIZE;
	patch32(w, 2, w->n);
	t->clen = w->n;
	t->rlen = 0;
	rc = t->xfer(t->ctx, t->cmd, w->n, t->rsp, sizeof(t->rsp), &t->rlen);
	if (rc < 0)
		return rc;
	if (t->rlen > sizeof(t->rsp))
		return -EBADMSG;
	return 0;
}

/* --- reader -------------------------------------------------------------- */

struct rd {
	const uint8_t *p;
	size_t n, off;
	int bad;
};

static int need(struct rd *r, size_t len)
{
	if (r->bad || len > r->n - r->off) {
		r->bad = 1;
		return 0;
	}
	return 1;
}

static uint8_t r8(struct rd *r)
{
	if (!need(r, 1))
		return 0;
	return r->p[r->off++];
}

static uint16_t r16(struct rd *r)
{
	if (!need(r, 2))
		return 0;
	uint16_t v = (uint16_t)r->p[r->off] << 8 | r->p[r->off + 1];
	r->off += 2;
	return v;
}

static uint32_t r32(struct rd *r)
{
	if (!need(r, 4))
		return 0;
	const uint8_t *p = r->p + r->off;
	r->off += 4;
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A TPM2B of at most max bytes; *p points into the reply. */
static const uint8_t *r2b(struct rd *r, size_t max, size_t *len)
{
	size_t n = r16(r);
	const uint8_t *p;

	if (r->bad || n > max || !need(r, n)) {
		r->bad = 1;
		*len = 0;
		return NULL;
	}
	p = r->p + r->off;
	r->off += n;
	*len = n;
	return p;
}

static void rskip2b(struct rd *r, size_t max)
{
	size_t len;
	(void)r2b(r, max, &len);
}

/*
 * Check a reply's header and open its parameters: nh handles into handles[],
 * then the parameter area (with a parameterSize when the command carried
 * sessions) in *params. The authorisation area that follows (one session
 * reply per session sent: we always send one) must fill the rest exactly.
 */
static int rsp_open(const uint8_t *buf, size_t len, size_t nh, int sessions,
		    uint32_t *handles, struct rd *params)
{
	struct rd r = { buf, len, 0, 0 };
	uint16_t tag;
	uint32_t size, rc;

	tag = r16(&r);
	size = r32(&r);
	rc = r32(&r);
	if (r.bad || size != len)
		return -EBADMSG;
	if (rc) {
		/* Response codes use bits 0..11; anything above is not a
		 * TPM 2.0 response code (TSS layers live there). */
		if (rc > 0xfff || tag != LB_TPM2_ST_NO_SESSIONS || len != 10)
			return -EBADMSG;
		return (int)rc;
	}
	if (tag != (sessions ? LB_TPM2_ST_SESSIONS : LB_TPM2_ST_NO_SESSIONS))
		return -EBADMSG;
	for (size_t i = 0; i < nh; i++)
		handles[i] = r32(&r);
	if (!sessions) {
		if (r.bad)
			return -EBADMSG;
		*params = (struct rd){ buf + r.off, len - r.off, 0, 0 };
		return 0;
	}
	size = r32(&r);
	if (!need(&r, size))
		return -EBADMSG;
	*params = (struct rd){ buf + r.off, size, 0, 0 };
	r.off += size;
	/* one session reply: nonceTPM, attributes, hmac */
	rskip2b(&r, LB_TPM2_MAX_DIGEST);
	(void)r8(&r);
	rskip2b(&r, LB_TPM2_MAX_DIGEST);
	if (r.bad || r.off != r.n)
		return -EBADMSG;
	return 0;
}

static int rsp_close(const struct rd *r)
{
	return r->bad || r->off != r->n ? -EBADMSG : 0;
}

/* --- names --------------------------------------------------------------- */

static const struct {
	uint16_t alg, size;
	const char *name;
} algs[] = {
	{ LB_TPM2_ALG_SHA1, 20, "sha1" },
	{ LB_TPM2_ALG_SHA256, 32, "sha256" },
	{ LB_TPM2_ALG_SHA384, 48, "sha384" },
	{ LB_TPM2_ALG_SHA512, 64, "sha512" },
	{ LB_TPM2_ALG_SM3_256, 32, "sm3_256" },
	{ LB_TPM2_ALG_SHA3_256, 32, "sha3_256" },
	{ LB_TPM2_ALG_SHA3_384, 48, "sha3_384" },
	{ LB_TPM2_ALG_SHA3_512, 64, "sha3_512" },
};

size_t lb_tpm2_alg_size(uint16_t alg)
{
	for (size_t i = 0; i < sizeof(algs) / sizeof(algs[0]); i++)
		if (algs[i].alg == alg)
			return algs[i].size;
	return 0;
}

const char *lb_tpm2_alg_name(uint16_t alg)
{
	for (size_t i = 0; i < sizeof(algs) / sizeof(algs[0]); i++)
		if (algs[i].alg == alg)
			return algs[i].name;
	return NULL;
}

uint16_t lb_tpm2_alg_by_name(const char *name)
{
	for (size_t i = 0; i < sizeof(algs) / sizeof(algs[0]); i++)
		if (!strcmp(algs[i].name, name))
			return algs[i].alg;
	return 0;
}

/* Part 2, 6.6.3 (TPM_RC): format-zero errors (RC_VER1 + n). */
static const char *const rc_ver1[0x60] = {
	[0x00] = "INITIALIZE", [0x01] = "FAILURE", [0x03] = "SEQUENCE",
	[0x0B] = "PRIVATE", [0x19] = "HMAC", [0x20] = "DISABLED",
	[0x21] = "EXCLUSIVE", [0x24] = "AUTH_TYPE", [0x25] = "AUTH_MISSING",
	[0x26] = "POLICY", [0x27] = "PCR", [0x28] = "PCR_CHANGED",
	[0x2D] = "UPGRADE", [0x2E] = "TOO_MANY_CONTEXTS", [0x2F] = "AUTH_UNAVAILABLE",
	[0x30] = "REBOOT", [0x31] = "UNBALANCED", [0x42] = "COMMAND_SIZE",
	[0x43] = "COMMAND_CODE", [0x44] = "AUTHSIZE", [0x45] = "AUTH_CONTEXT",
	[0x46] = "NV_RANGE", [0x47] = "NV_SIZE", [0x48] = "NV_LOCKED",
	[0x49] = "NV_AUTHORIZATION", [0x4A] = "NV_UNINITIALIZED", [0x4B] = "NV_SPACE",
	[0x4C] = "NV_DEFINED", [0x50] = "BAD_CONTEXT", [0x51] = "CPHASH",
	[0x52] = "PARENT", [0x53] = "NEEDS_TEST", [0x54] = "NO_RESULT",
	[0x55] = "SENSITIVE",
};

/* format-one errors (RC_FMT1 + n) */
static const char *const rc_fmt1[0x40] = {
	[0x01] = "ASYMMETRIC", [0x02] = "ATTRIBUTES", [0x03] = "HASH",
	[0x04] = "VALUE", [0x05] = "HIERARCHY", [0x07] = "KEY_SIZE", [0x08] = "MGF",
	[0x09] = "MODE", [0x0A] = "TYPE", [0x0B] = "HANDLE", [0x0C] = "KDF",
	[0x0D] = "RANGE", [0x0E] = "AUTH_FAIL", [0x0F] = "NONCE", [0x10] = "PP",
	[0x12] = "SCHEME", [0x15] = "SIZE", [0x16] = "SYMMETRIC", [0x17] = "TAG",
	[0x18] = "SELECTOR", [0x1A] = "INSUFFICIENT", [0x1B] = "SIGNATURE",
	[0x1C] = "KEY", [0x1D] = "POLICY_FAIL", [0x1F] = "INTEGRITY",
	[0x20] = "TICKET", [0x21] = "RESERVED_BITS", [0x22] = "BAD_AUTH",
	[0x23] = "EXPIRED", [0x24] = "POLICY_CC", [0x25] = "BINDING",
	[0x26] = "CURVE", [0x27] = "ECC_POINT",
};

/* warnings (RC_WARN + n) */
static const char *const rc_warn[0x30] = {
	[0x01] = "CONTEXT_GAP", [0x02] = "OBJECT_MEMORY", [0x03] = "SESSION_MEMORY",
	[0x04] = "MEMORY", [0x05] = "SESSION_HANDLES", [0x06] = "OBJECT_HANDLES",
	[0x07] = "LOCALITY", [0x08] = "YIELDED", [0x09] = "CANCELED",
	[0x0A] = "TESTING", [0x10] = "REFERENCE_H0", [0x11] = "REFERENCE_H1",
	[0x12] = "REFERENCE_H2", [0x13] = "REFERENCE_H3", [0x14] = "REFERENCE_H4",
	[0x15] = "REFERENCE_H5", [0x16] = "REFERENCE_H6", [0x18] = "REFERENCE_S0",
	[0x19] = "REFERENCE_S1", [0x1A] = "REFERENCE_S2", [0x1B] = "REFERENCE_S3",
	[0x1C] = "REFERENCE_S4", [0x1D] = "REFERENCE_S5", [0x1E] = "REFERENCE_S6",
	[0x20] = "NV_RATE", [0x21] = "LOCKOUT", [0x22] = "RETRY",
	[0x23] = "NV_UNAVAILABLE",
};

const char *lb_tpm2_rc_str(uint32_t rc, char *buf, size_t n)
{
	const char *name = NULL;

	if (!n)
		return buf;
	if (rc == 0) {
		snprintf(buf, n, "TPM_RC_SUCCESS");
	} else if (rc > 0xfff) {
		snprintf(buf, n, "0x%08x (not a TPM 2.0 response code)", rc);
	} else if (rc & 0x080) {
		/* format one: error number in bits 0..5, then a parameter
		 * (bit 6 set: number in bits 8..11), a session (bit 11 set:
		 * bits 8..10) or a handle (bits 8..10) */
		unsigned num = (rc >> 8) & 7;

		name = rc_fmt1[rc & 0x3f];
		if (!name)
			snprintf(buf, n, "TPM_RC 0x%03x (unknown format-one error)", rc);
		else if (rc & 0x040)
			snprintf(buf, n, "TPM_RC_%s (parameter %u)", name, (rc >> 8) & 0xf);
		else if (rc & 0x800)
			snprintf(buf, n, "TPM_RC_%s (session %u)", name, num);
		else if (num)
			snprintf(buf, n, "TPM_RC_%s (handle %u)", name, num);
		else
			snprintf(buf, n, "TPM_RC_%s", name);
	} else if (!(rc & 0x100)) {
		snprintf(buf, n, "0x%03x (a TPM 1.2 response code)", rc);
	} else if (rc & 0x400) {
		snprintf(buf, n, "0x%03x (vendor-defined)", rc);
	} else if (rc & 0x800) {
		name = (rc & 0x7f) < 0x30 ? rc_warn[rc & 0x7f] : NULL;
		if (name)
			snprintf(buf, n, "TPM_RC_%s (warning)", name);
		else
			snprintf(buf, n, "TPM_RC 0x%03x (unknown warning)", rc);
	} else {
		name = (rc & 0x7f) < 0x60 ? rc_ver1[rc & 0x7f] : NULL;
		if (name)
			snprintf(buf, n, "TPM_RC_%s", name);
		else
			snprintf(buf, n, "TPM_RC 0x%03x (unknown error)", rc);
	}
	return buf;
}

static const struct {
	uint32_t cc;
	const char *name;
} ccs[] = {
	{ LB_TPM2_CC_NV_UndefineSpace, "NV_UndefineSpace" },
	{ LB_TPM2_CC_HierarchyChangeAuth, "HierarchyChangeAuth" },
	{ LB_TPM2_CC_NV_DefineSpace, "NV_DefineSpace" },
	{ LB_TPM2_CC_CreatePrimary, "CreatePrimary" },
	{ LB_TPM2_CC_NV_Increment, "NV_Increment" },
	{ LB_TPM2_CC_NV_Write, "NV_Write" },
	{ LB_TPM2_CC_Startup, "Startup" },
	{ LB_TPM2_CC_NV_Read, "NV_Read" },
	{ LB_TPM2_CC_Create, "Create" },
	{ LB_TPM2_CC_Load, "Load" },
	{ LB_TPM2_CC_Unseal, "Unseal" },
	{ LB_TPM2_CC_FlushContext, "FlushContext" },
	{ LB_TPM2_CC_NV_ReadPublic, "NV_ReadPublic" },
	{ LB_TPM2_CC_PolicyCommandCode, "PolicyCommandCode" },
	{ LB_TPM2_CC_StartAuthSession, "StartAuthSession" },
	{ LB_TPM2_CC_GetCapability, "GetCapability" },
	{ LB_TPM2_CC_GetRandom, "GetRandom" },
	{ LB_TPM2_CC_Hash, "Hash" },
	{ LB_TPM2_CC_PCR_Read, "PCR_Read" },
	{ LB_TPM2_CC_PolicyPCR, "PolicyPCR" },
	{ LB_TPM2_CC_PCR_Extend, "PCR_Extend" },
	{ LB_TPM2_CC_PolicyGetDigest, "PolicyGetDigest" },
};

const char *lb_tpm2_cc_name(uint32_t cc)
{
	for (size_t i = 0; i < sizeof(ccs) / sizeof(ccs[0]); i++)
		if (ccs[i].cc == cc)
			return ccs[i].name;
	return NULL;
}

/* --- response parsers ---------------------------------------------------- */

int lb_tpm2_parse_empty(const uint8_t *buf, size_t len, int sessions)
{
	struct rd p;
	int rc = rsp_open(buf, len, 0, sessions, NULL, &p);

	return rc ? rc : rsp_close(&p);
}

#define MAX_LIST_BANKS 16

/* TPML_PCR_SELECTION into sel[] (at most max entries, else bad). */
static size_t rpcrsel(struct rd *r, struct lb_tpm2_pcrsel *sel, size_t max)
{
	uint32_t count = r32(r);

	if (count > max) {
		r->bad = 1;
		return 0;
	}
	for (uint32_t i = 0; i < count && !r->bad; i++) {
		uint8_t sz;

		sel[i].alg = r16(r);
		sz = r8(r);
		sel[i].mask = 0;
		if (sz > 4) { /* PCR_SELECT_MAX is 3 for 24 PCRs */
			r->bad = 1;
			return 0;
		}
		for (unsigned k = 0; k < sz; k++)
			sel[i].mask |= (uint32_t)r8(r) << (8 * k);
	}
	return r->bad ? 0 : count;
}

int lb_tpm2_parse_banks(const uint8_t *buf, size_t len,
			struct lb_tpm2_pcrsel *banks, size_t max, size_t *n)
{
	struct lb_tpm2_pcrsel all[MAX_LIST_BANKS];
	struct rd p;
	size_t cnt, k = 0;
	uint8_t more;
	int rc = rsp_open(buf, len, 0, 0, NULL, &p);

	if (rc)
		return rc;
	more = r8(&p);
	if (r32(&p) != LB_TPM2_CAP_PCRS || more > 1)
		return -EBADMSG;
	cnt = rpcrsel(&p, all, MAX_LIST_BANKS);
	rc = rsp_close(&p);
	if (rc)
		return rc;
	for (size_t i = 0; i < cnt; i++) {
		if (!(all[i].mask & 0xffffff))
			continue;
		for (size_t j = 0; j < k; j++)
			if (banks[j].alg == all[i].alg)
				return -EBADMSG; /* a bank twice */
		if (k == max)
			return -ENOSPC;
		banks[k] = all[i];
		banks[k].mask &= 0xffffff;
		k++;
	}
	*n = k;
	return 0;
}

#define MAX_PROPS 64

int lb_tpm2_parse_props(const uint8_t *buf, size_t len, struct lb_tpm2_prop *out,
			size_t max, size_t *n, int *more)
{
	struct rd p;
	uint32_t count;
	uint8_t m;
	int rc = rsp_open(buf, len, 0, 0, NULL, &p);

	if (rc)
		return rc;
	m = r8(&p);
	if (r32(&p) != LB_TPM2_CAP_TPM_PROPERTIES || m > 1)
		return -EBADMSG;
	count = r32(&p);
	if (count > max || count > MAX_PROPS)
		return -EBADMSG;
	for (uint32_t i = 0; i < count; i++) {
		out[i].property = r32(&p);
		out[i].value = r32(&p);
	}
	rc = rsp_close(&p);
	if (rc)
		return rc;
	*n = count;
	*more = m;
	return 0;
}

int lb_tpm2_parse_pcr_read(const uint8_t *buf, size_t len, uint16_t alg,
			   uint32_t want, uint32_t *got,
			   uint8_t val[LB_TPM2_NUM_PCRS][LB_TPM2_MAX_DIGEST],
			   uint32_t *counter)
{
	struct lb_tpm2_pcrsel sel[1];
	size_t dsize = lb_tpm2_alg_size(alg), nsel, k = 0;
	const uint8_t *d[8];
	uint32_t cnt, ctr, mask = 0;
	struct rd p;
	int rc = rsp_open(buf, len, 0, 0, NULL, &p);

	if (rc)
		return rc;
	if (!dsize)
		return -EINVAL;
	ctr = r32(&p);
	nsel = rpcrsel(&p, sel, 1);
	if (p.bad)
		return -EBADMSG;
	if (nsel == 1) {
		if (sel[0].alg != alg || (sel[0].mask & ~want))
			return -EBADMSG;
		mask = sel[0].mask;
	}
	cnt = r32(&p);
	if (cnt > 8 || cnt != (uint32_t)__builtin_popcount(mask))
		return -EBADMSG;
	for (uint32_t i = 0; i < cnt; i++) {
		size_t l;
		d[i] = r2b(&p, LB_TPM2_MAX_DIGEST, &l);
		if (p.bad || l != dsize)
			return -EBADMSG;
	}
	rc = rsp_close(&p);
	if (rc)
		return rc;
	for (unsigned i = 0; i < LB_TPM2_NUM_PCRS; i++)
		if (mask & (1u << i))
			memcpy(val[i], d[k++], dsize);
	*got = mask;
	if (counter)
		*counter = ctr;
	return 0;
}

int lb_tpm2_parse_2b(const uint8_t *buf, size_t len, int sessions,
		     uint8_t *out, size_t cap, size_t *outlen)
{
	struct rd p;
	const uint8_t *d;
	size_t l;
	int rc = rsp_open(buf, len, 0, sessions, NULL, &p);

	if (rc)
		return rc;
	d = r2b(&p, cap, &l);
	rc = rsp_close(&p);
	if (rc)
		return rc;
	if (l)
		memcpy(out, d, l);
	*outlen = l;
	return 0;
}

static void rticket(struct rd *r)
{
	(void)r16(r); /* tag */
	(void)r32(r); /* hierarchy */
	rskip2b(r, LB_TPM2_MAX_DIGEST);
}

static void rblob(struct rd *r, struct lb_tpm2_blob *b)
{
	size_t l;
	const uint8_t *d = r2b(r, sizeof(b->b), &l);

	if (!r->bad && b) {
		if (l)
			memcpy(b->b, d, l);
		b->len = l;
	}
}

int lb_tpm2_parse_create(const uint8_t *buf, size_t len,
			 struct lb_tpm2_blob *priv, struct lb_tpm2_blob *pub)
{
	struct lb_tpm2_blob a, b;
	struct rd p;
	int rc = rsp_open(buf, len, 0, 1, NULL, &p);

	if (rc)
		return rc;
	rblob(&p, &a);
	rblob(&p, &b);
	rskip2b(&p, LB_TPM2_BUF);       /* creationData */
	rskip2b(&p, LB_TPM2_MAX_DIGEST); /* creationHash */
	rticket(&p);
	rc = rsp_close(&p);
	if (rc)
		return rc;
	if (!a.len || !b.len)
		return -EBADMSG;
	*priv = a;
	*pub = b;
	return 0;
}

/* CreatePrimary (sessions, its reply's parameters skipped but checked) or
 * Load (sessions, name) replies: one handle. */
int lb_tpm2_parse_handle(const uint8_t *buf, size_t len, int primary,
			 uint32_t *handle)
{
	struct rd p;
	uint32_t h;
	int rc = rsp_open(buf, len, 1, 1, &h, &p);

	if (rc)
		return rc;
	if (primary) {
		rskip2b(&p, LB_TPM2_BLOB_MAX);  /* outPublic */
		rskip2b(&p, LB_TPM2_BUF);       /* creationData */
		rskip2b(&p, LB_TPM2_MAX_DIGEST); /* creationHash */
		rticket(&p);
	}
	rskip2b(&p, 2 + LB_TPM2_MAX_DIGEST);     /* name */
	rc = rsp_close(&p);
	if (rc)
		return rc;
	/* transient objects live in 0x80xxxxxx */
	if ((h >> 24) != 0x80)
		return -EBADMSG;
	*handle = h;
	return 0;
}

int lb_tpm2_parse_start_session(const uint8_t *buf, size_t len, uint32_t *session)
{
	struct rd p;
	uint32_t h;
	int rc = rsp_open(buf, len, 1, 0, &h, &p);

	if (rc)
		return rc;
	rskip2b(&p, LB_TPM2_MAX_DIGEST); /* nonceTPM */
	rc = rsp_close(&p);
	if (rc)
		return rc;
	/* HMAC sessions 0x02xxxxxx, policy sessions 0x03xxxxxx */
	if ((h >> 24) != 0x02 && (h >> 24) != 0x03)
		return -EBADMSG;
	*session = h;
	return 0;
}

int lb_tpm2_parse_nv_public(const uint8_t *buf, size_t len,
			    struct lb_tpm2_nvpub *pub)
{
	struct lb_tpm2_nvpub v;
	struct rd p, in;
	const uint8_t *a, *pol;
	size_t alen;
	int rc = rsp_open(buf, len, 0, 0, NULL, &p);

	if (rc)
		return rc;
	a = r2b(&p, 128, &alen);
	rskip2b(&p, 2 + LB_TPM2_MAX_DIGEST); /* nvName */
	rc = rsp_close(&p);
	if (rc)
		return rc;
	in = (struct rd){ a, alen, 0, 0 };
	v.index = r32(&in);
	v.name_alg = r16(&in);
	v.attrs = r32(&in);
	pol = r2b(&in, LB_TPM2_MAX_DIGEST, &v.policy_len);
	v.size = r16(&in);
	rc = rsp_close(&in);
	if (rc)
		return rc;
	if (v.policy_len)
		memcpy(v.policy, pol, v.policy_len);
	*pub = v;
	return 0;
}

int lb_tpm2_parse_hash(const uint8_t *buf, size_t len, uint8_t *out, size_t cap,
		       size_t *outlen)
{
	struct rd p;
	const uint8_t *d;
	size_t l;
	int rc = rsp_open(buf, len, 0, 0, NULL, &p);

	if (rc)
		return rc;
	d = r2b(&p, cap < LB_TPM2_MAX_DIGEST ? cap : LB_TPM2_MAX_DIGEST, &l);
	rticket(&p);
	rc = rsp_close(&p);
	if (rc)
		return rc;
	if (l)
		memcpy(out, d, l);
	*outlen = l;
	return 0;
}

/* --- commands ------------------------------------------------------------ */

void lb_tpm2_init(struct lb_tpm2 *t, lb_tpm2_xfer_fn xfer, void *ctx)
{
	memset(t, 0, sizeof(*t));
	t->xfer = xfer;
	t->ctx = ctx;
}

/* Send the command in w; on success the reply is in t->rsp/t->rlen. */
#define SEND(t, w) do { int rc_ = cmd_send(t, w); if (rc_) return rc_; } while (0)

int lb_tpm2_startup(struct lb_tpm2 *t, uint16_t type)
{
	struct wr w;

	cmd_begin(t, &w, 0, LB_TPM2_CC_Startup);
	w16(&w, type);
	SEND(t, &w);
	return lb_tpm2_parse_empty(t->rsp, t->rlen, 0);
}

static void get_cap(struct lb_tpm2 *t, struct wr *w, uint32_t cap, uint32_t prop,
		    uint32_t count)
{
	cmd_begin(t, w, 0, LB_TPM2_CC_GetCapability);
	w32(w, cap);
	w32(w, prop);
	w32(w, count);
}

int lb_tpm2_get_banks(struct lb_tpm2 *t, struct lb_tpm2_pcrsel *banks,
		      size_t max, size_t *n)
{
	struct wr w;

	get_cap(t, &w, LB_TPM2_CAP_PCRS, 0, 1);
	SEND(t, &w);
	return lb_tpm2_parse_banks(t->rsp, t->rlen, banks, max, n);
}

int lb_tpm2_get_props(struct lb_tpm2 *t, uint32_t first, struct lb_tpm2_prop *out,
		      size_t max, size_t *n)
{
	struct wr w;
	int more;

	if (max > MAX_PROPS)
		max = MAX_PROPS;
	get_cap(t, &w, LB_TPM2_CAP_TPM_PROPERTIES, first, max);
	SEND(t, &w);
	return lb_tpm2_parse_props(t->rsp, t->rlen, out, max, n, &more);
}

int lb_tpm2_pcr_extend(struct lb_tpm2 *t, uint32_t pcr,
		       const struct lb_tpm2_digest *d, size_t n)
{
	struct wr w;

	if (pcr >= LB_TPM2_NUM_PCRS || !n || n > LB_TPM2_MAX_BANKS)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!lb_tpm2_alg_size(d[i].alg) || d[i].size != lb_tpm2_alg_size(d[i].alg))
			return -EINVAL;
	cmd_begin(t, &w, 1, LB_TPM2_CC_PCR_Extend);
	w32(&w, pcr);
	cmd_auth(&w, NULL);
	w32(&w, n);
	for (size_t i = 0; i < n; i++) {
		w16(&w, d[i].alg);
		wbytes(&w, d[i].d, d[i].size);
	}
	SEND(t, &w);
	return lb_tpm2_parse_empty(t->rsp, t->rlen, 1);
}

int lb_tpm2_pcr_read(struct lb_tpm2 *t, uint16_t alg, uint32_t mask,
		     uint8_t val[LB_TPM2_NUM_PCRS][LB_TPM2_MAX_DIGEST],
		     size_t *size, uint32_t *counter)
{
	uint32_t left = mask & 0xffffff, got, ctr = 0, first = 0;
	int tries = 0;

	if (!lb_tpm2_alg_size(alg) || !left || left != mask)
		return -EINVAL;
	while (left) {
		struct lb_tpm2_pcrsel sel = { alg, left };
		struct wr w;
		int rc;

		cmd_begin(t, &w, 0, LB_TPM2_CC_PCR_Read);
		pcrsel(&w, &sel, 1);
		SEND(t, &w);
		rc = lb_tpm2_parse_pcr_read(t->rsp, t->rlen, alg, left, &got, val, &ctr);
		if (rc)
			return rc;
		if (!got)
			return -EBADMSG; /* no progress: a TPM that does not have them */
		if (left == (mask & 0xffffff)) {
			first = ctr;
		} else if (ctr != first) {
			/* a PCR changed between two reads: the values would not
			 * be of one moment; start again (a few times) */
			if (++tries > 3)
				return -EAGAIN;
			left = mask & 0xffffff;
			continue;
		}
		left &= ~got;
	}
	*size = lb_tpm2_alg_size(alg);
	if (counter)
		*counter = ctr;
	return 0;
}

int lb_tpm2_get_random(struct lb_tpm2 *t, uint8_t *buf, size_t n)
{
	while (n) {
		struct wr w;
		size_t got;
		int rc;
		uint16_t ask = n > LB_TPM2_MAX_DIGEST ? LB_TPM2_MAX_DIGEST : n;

		cmd_begin(t, &w, 0, LB_TPM2_CC_GetRandom);
		w16(&w, ask);
		SEND(t, &w);
		rc = lb_tpm2_parse_2b(t->rsp, t->rlen, 0, buf, ask, &got);
		if (rc)
			return rc;
		if (!got)
			return -EBADMSG;
		buf += got;
		n -= got;
	}
	return 0;
}

int lb_tpm2_hash(struct lb_tpm2 *t, uint16_t alg, const void *data, size_t len,
		 uint8_t *out, size_t *outlen)
{
	struct wr w;
	size_t l;
	int rc;

	if (len > 1024 || !lb_tpm2_alg_size(alg))
		return -EINVAL;
	cmd_begin(t, &w, 0, LB_TPM2_CC_Hash);
	w2b(&w, data, len);
	w16(&w, alg);
	w32(&w, LB_TPM2_RH_NULL);
	SEND(t, &w);
	rc = lb_tpm2_parse_hash(t->rsp, t->rlen, out, LB_TPM2_MAX_DIGEST, &l);
	if (rc)
		return rc;
	if (l != lb_tpm2_alg_size(alg))
		return -EBADMSG;
	*outlen = l;
	return 0;
}

int lb_tpm2_start_session(struct lb_tpm2 *t, uint8_t type, const uint8_t *nonce,
			  size_t nlen, uint32_t *session)
{
	struct wr w;

	if (nlen < 16 || nlen > 32)
		return -EINVAL;
	cmd_begin(t, &w, 0, LB_TPM2_CC_StartAuthSession);
	w32(&w, LB_TPM2_RH_NULL);   /* tpmKey: unsalted */
	w32(&w, LB_TPM2_RH_NULL);   /* bind: unbound */
	w2b(&w, nonce, nlen);       /* nonceCaller */
	w2b(&w, NULL, 0);           /* encryptedSalt */
	w8(&w, type);
	w16(&w, LB_TPM2_ALG_NULL);  /* symmetric: none */
	w16(&w, LB_TPM2_ALG_SHA256); /* authHash */
	SEND(t, &w);
	return lb_tpm2_parse_start_session(t->rsp, t->rlen, session);
}

int lb_tpm2_policy_pcr(struct lb_tpm2 *t, uint32_t session,
		       const struct lb_tpm2_pcrsel *sel, size_t n)
{
	struct wr w;

	if (n > LB_TPM2_MAX_BANKS)
		return -EINVAL;
	cmd_begin(t, &w, 0, LB_TPM2_CC_PolicyPCR);
	w32(&w, session);
	w2b(&w, NULL, 0); /* pcrDigest: empty = the TPM's current values */
	pcrsel(&w, sel, n);
	SEND(t, &w);
	return lb_tpm2_parse_empty(t->rsp, t->rlen, 0);
}

int lb_tpm2_policy_command_code(struct lb_tpm2 *t, uint32_t session, uint32_t cc)
{
	struct wr w;

	cmd_begin(t, &w, 0, LB_TPM2_CC_PolicyCommandCode);
	w32(&w, session);
	w32(&w, cc);
	SEND(t, &w);
	return lb_tpm2_parse_empty(t->rsp, t->rlen, 0);
}

int lb_tpm2_policy_get_digest(struct lb_tpm2 *t, uint32_t session, uint8_t *out,
			      size_t cap, size_t *len)
{
	struct wr w;

	cmd_begin(t, &w, 0, LB_TPM2_CC_PolicyGetDigest);
	w32(&w, session);
	SEND(t, &w);
	return lb_tpm2_parse_2b(t->rsp, t->rlen, 0, out,
				cap < LB_TPM2_MAX_DIGEST ? cap : LB_TPM2_MAX_DIGEST, len);
}

int lb_tpm2_flush(struct lb_tpm2 *t, uint32_t handle)
{
	struct wr w;

	cmd_begin(t, &w, 0, LB_TPM2_CC_FlushContext);
	w32(&w, handle); /* a parameter, not a handle */
	SEND(t, &w);
	return lb_tpm2_parse_empty(t->rsp, t->rlen, 0);
}

/* TPM2B_SENSITIVE_CREATE: userAuth (empty) and data. */
static void sensitive_create(struct wr *w, const uint8_t *data, size_t dlen)
{
	size_t at = w->n;

	w16(w, 0);
	w2b(w, NULL, 0);
	w2b(w, data, dlen);
	patch16(w, at, w->n - at - 2);
}

int lb_tpm2_create_primary(struct lb_tpm2 *t, uint32_t hierarchy,
			   const struct lb_tpm2_auth *auth, uint32_t *handle)
{
	struct wr w;
	size_t at;

	cmd_begin(t, &w, 1, LB_TPM2_CC_CreatePrimary);
	w32(&w, hierarchy);
	cmd_auth(&w, auth);
	sensitive_create(&w, NULL, 0);
	/* TPM2B_PUBLIC */
	at = w.n;
	w16(&w, 0);
	w16(&w, LB_TPM2_ALG_ECC);
	w16(&w, LB_TPM2_ALG_SHA256);
	/* fixedTPM fixedParent sensitiveDataOrigin userWithAuth noDA
	 * restricted decrypt */
	w32(&w, 0x00030472);
	w2b(&w, NULL, 0);           /* authPolicy */
	w16(&w, LB_TPM2_ALG_AES);   /* symmetric: AES-128-CFB */
	w16(&w, 128);
	w16(&w, LB_TPM2_ALG_CFB);
	w16(&w, LB_TPM2_ALG_NULL);  /* scheme */
	w16(&w, 0x0003);            /* TPM_ECC_NIST_P256 */
	w16(&w, LB_TPM2_ALG_NULL);  /* kdf */
	w2b(&w, NULL, 0);           /* unique.x */
	w2b(&w, NULL, 0);           /* unique.y */
	patch16(&w, at, w.n - at - 2);
	w2b(&w, NULL, 0);           /* outsideInfo */
	w32(&w, 0);                 /* creationPCR: none */
	SEND(t, &w);
	return lb_tpm2_parse_handle(t->rsp, t->rlen, 1, handle);
}

int lb_tpm2_create_sealed(struct lb_tpm2 *t, uint32_t parent,
			  const struct lb_tpm2_auth *auth, const uint8_t *policy,
			  size_t plen, const uint8_t *data, size_t dlen,
			  struct lb_tpm2_blob *priv, struct lb_tpm2_blob *pub)
{
	struct wr w;
	size_t at;

	if (plen > LB_TPM2_MAX_DIGEST || !dlen || dlen > 128)
		return -EINVAL;
	cmd_begin(t, &w, 1, LB_TPM2_CC_Create);
	w32(&w, parent);
	cmd_auth(&w, auth);
	sensitive_create(&w, data, dlen);
	at = w.n;
	w16(&w, 0);
	w16(&w, LB_TPM2_ALG_KEYEDHASH);
	w16(&w, LB_TPM2_ALG_SHA256);
	/* fixedTPM fixedParent noDA; no userWithAuth: the policy only */
	w32(&w, 0x00000412);
	w2b(&w, policy, plen);
	w16(&w, LB_TPM2_ALG_NULL);  /* keyedHash scheme: sealed data */
	w2b(&w, NULL, 0);           /* unique */
	patch16(&w, at, w.n - at - 2);
	w2b(&w, NULL, 0);
	w32(&w, 0);
	SEND(t, &w);
	return lb_tpm2_parse_create(t->rsp, t->rlen, priv, pub);
}

int lb_tpm2_load(struct lb_tpm2 *t, uint32_t parent, const struct lb_tpm2_auth *auth,
		 const struct lb_tpm2_blob *priv, const struct lb_tpm2_blob *pub,
		 uint32_t *handle)
{
	struct wr w;

	if (priv->len > sizeof(priv->b) || pub->len > sizeof(pub->b))
		return -EINVAL;
	cmd_begin(t, &w, 1, LB_TPM2_CC_Load);
	w32(&w, parent);
	cmd_auth(&w, auth);
	w2b(&w, priv->b, priv->len);
	w2b(&w, pub->b, pub->len);
	SEND(t, &w);
	return lb_tpm2_parse_handle(t->rsp, t->rlen, 0, handle);
}

int lb_tpm2_unseal(struct lb_tpm2 *t, uint32_t item, const struct lb_tpm2_auth *auth,
		   uint8_t *out, size_t cap, size_t *len)
{
	struct wr w;

	cmd_begin(t, &w, 1, LB_TPM2_CC_Unseal);
	w32(&w, item);
	cmd_auth(&w, auth);
	SEND(t, &w);
	return lb_tpm2_parse_2b(t->rsp, t->rlen, 1, out, cap < 128 ? cap : 128, len);
}

int lb_tpm2_nv_define(struct lb_tpm2 *t, uint32_t hierarchy,
		      const struct lb_tpm2_auth *auth, uint32_t index, uint32_t attrs,
		      uint16_t size, const uint8_t *nvauth, size_t nvauth_len)
{
	struct wr w;
	size_t at;

	if (nvauth_len > LB_TPM2_MAX_DIGEST)
		return -EINVAL;
	cmd_begin(t, &w, 1, LB_TPM2_CC_NV_DefineSpace);
	w32(&w, hierarchy);
	cmd_auth(&w, auth);
	w2b(&w, nvauth, nvauth_len);
	at = w.n;
	w16(&w, 0);
	w32(&w, index);
	w16(&w, LB_TPM2_ALG_SHA256);
	w32(&w, attrs);
	w2b(&w, NULL, 0);   /* authPolicy */
	w16(&w, size);
	patch16(&w, at, w.n - at - 2);
	SEND(t, &w);
	return lb_tpm2_parse_empty(t->rsp, t->rlen, 1);
}

static void nv_handles(struct wr *w, uint32_t authh, uint32_t index,
		       const struct lb_tpm2_auth *auth)
{
	w32(w, authh);
	w32(w, index);
	cmd_auth(w, auth);
}

int lb_tpm2_nv_undefine(struct lb_tpm2 *t, uint32_t hierarchy,
			const struct lb_tpm2_auth *auth, uint32_t index)
{
	struct wr w;

	cmd_begin(t, &w, 1, LB_TPM2_CC_NV_UndefineSpace);
	nv_handles(&w, hierarchy, index, auth);
	SEND(t, &w);
	return lb_tpm2_parse_empty(t->rsp, t->rlen, 1);
}

#define NV_CHUNK 512

int lb_tpm2_nv_write(struct lb_tpm2 *t, uint32_t authh, const struct lb_tpm2_auth *auth,
		     uint32_t index, uint16_t off, const uint8_t *data, size_t len)
{
	if (len > 0xffffu - off)
		return -EINVAL;
	do {
		size_t k = len > NV_CHUNK ? NV_CHUNK : len;
		struct wr w;
		int rc;

		cmd_begin(t, &w, 1, LB_TPM2_CC_NV_Write);
		nv_handles(&w, authh, index, auth);
		w2b(&w, data, k);
		w16(&w, off);
		SEND(t, &w);
		rc = lb_tpm2_parse_empty(t->rsp, t->rlen, 1);
		if (rc)
			return rc;
		data += k;
		len -= k;
		off += k;
	} while (len);
	return 0;
}

int lb_tpm2_nv_read(struct lb_tpm2 *t, uint32_t authh, const struct lb_tpm2_auth *auth,
		    uint32_t index, uint16_t off, uint8_t *out, size_t len)
{
	if (len > 0xffffu - off)
		return -EINVAL;
	while (len) {
		size_t k = len > NV_CHUNK ? NV_CHUNK : len, got;
		struct wr w;
		int rc;

		cmd_begin(t, &w, 1, LB_TPM2_CC_NV_Read);
		nv_handles(&w, authh, index, auth);
		w16(&w, k);
		w16(&w, off);
		SEND(t, &w);
		rc = lb_tpm2_parse_2b(t->rsp, t->rlen, 1, out, k, &got);
		if (rc)
			return rc;
		if (got != k)
			return -EBADMSG;
		out += k;
		len -= k;
		off += k;
	}
	return 0;
}

int lb_tpm2_nv_read_public(struct lb_tpm2 *t, uint32_t index,
			   struct lb_tpm2_nvpub *pub)
{
	struct wr w;
	int rc;

	cmd_begin(t, &w, 0, LB_TPM2_CC_NV_ReadPublic);
	w32(&w, index);
	SEND(t, &w);
	rc = lb_tpm2_parse_nv_public(t->rsp, t->rlen, pub);
	if (!rc && pub->index != index)
		return -EBADMSG;
	return rc;
}

int lb_tpm2_nv_increment(struct lb_tpm2 *t, uint32_t authh,
			 const struct lb_tpm2_auth *auth, uint32_t index)
{
	struct wr w;

	cmd_begin(t, &w, 1, LB_TPM2_CC_NV_Increment);
	nv_handles(&w, authh, index, auth);
	SEND(t, &w);
	return lb_tpm2_parse_empty(t->rsp, t->rlen, 1);
}

int lb_tpm2_nv_read_counter(struct lb_tpm2 *t, uint32_t authh,
			    const struct lb_tpm2_auth *auth, uint32_t index,
			    uint64_t *value)
{
	uint8_t b[8];
	uint64_t v = 0;
	int rc = lb_tpm2_nv_read(t, authh, auth, index, 0, b, 8);

	if (rc)
		return rc;
	for (int i = 0; i < 8; i++)
		v = v << 8 | b[i];
	*value = v;
	return 0;
}

int lb_tpm2_hierarchy_change_auth(struct lb_tpm2 *t, uint32_t hierarchy,
				  const struct lb_tpm2_auth *auth,
				  const uint8_t *newauth, size_t len)
{
	struct wr w;

	if (len > LB_TPM2_MAX_DIGEST)
		return -EINVAL;
	cmd_begin(t, &w, 1, LB_TPM2_CC_HierarchyChangeAuth);
	w32(&w, hierarchy);
	cmd_auth(&w, auth);
	w2b(&w, newauth, len);
	SEND(t, &w);
	return lb_tpm2_parse_empty(t->rsp, t->rlen, 1);
}
