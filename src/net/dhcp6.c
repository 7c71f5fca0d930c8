/* DHCPv6 client messages: see dhcp6.h. */
#include <errno.h>
#include <string.h>

#include "arch.h"
#include "dhcp6.h"

#define O_CLIENTID     1
#define O_SERVERID     2
#define O_IA_NA        3
#define O_IAADDR       5
#define O_ORO          6
#define O_PREFERENCE   7
#define O_ELAPSED      8
#define O_STATUS       13
#define O_RAPID_COMMIT 14
#define O_VENDOR_CLASS 16
#define O_DNS          23
#define O_NTP_SERVER   56
#define O_BOOTFILE_URL 59
#define O_BOOTFILE_PAR 60
#define O_CLIENT_ARCH  61

static void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static unsigned get16(const uint8_t *p) { return (unsigned)p[0] << 8 | p[1]; }
static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

struct wbuf {
	uint8_t *p;
	size_t cap, n;
	int err;
};

/* Start an option; returns its offset (the length is patched by end). */
static size_t opt_begin(struct wbuf *w, unsigned code)
{
	size_t at = w->n;

	if (w->err || w->cap - w->n < 4) {
		w->err = -ENOSPC;
		return at;
	}
	put16(w->p + w->n, code);
	w->n += 4;
	return at;
}

static void put(struct wbuf *w, const void *v, size_t len)
{
	if (!len)
		return;
	if (w->err || w->cap - w->n < len) {
		w->err = -ENOSPC;
		return;
	}
	memcpy(w->p + w->n, v, len);
	w->n += len;
}

static void opt_end(struct wbuf *w, size_t at)
{
	if (!w->err)
		put16(w->p + at + 2, (unsigned)(w->n - at - 4));
}

static void opt(struct wbuf *w, unsigned code, const void *v, size_t len)
{
	size_t at = opt_begin(w, code);
	put(w, v, len);
	opt_end(w, at);
}

int lb_dhcp6_duid(const struct lb_dhcp6_client *c, uint8_t *out, size_t cap, size_t *len)
{
	if (c->have_uuid) {
		if (cap < 18)
			return -ENOSPC;
		put16(out, 4);                  /* DUID-UUID (RFC 6355) */
		memcpy(out + 2, c->uuid, 16);
		*len = 18;
	} else {
		if (cap < 10)
			return -ENOSPC;
		put16(out, 3);                  /* DUID-LL */
		put16(out + 2, 1);              /* Ethernet */
		memcpy(out + 4, c->mac, 6);
		*len = 10;
	}
	return 0;
}

int lb_dhcp6_build(const struct lb_dhcp6_client *c, int type,
		   const struct lb_dhcp6_lease *l, uint8_t *buf, size_t cap, size_t *len)
{
	struct wbuf w = { buf, cap, 0, 0 };
	uint8_t duid[LB_DHCP6_DUID_MAX], v[16];
	size_t dl, at, vc;
	const char *cls = c->http ? "HTTPClient" : "PXEClient";
	uint16_t arch = c->arch ? c->arch : (c->http ? LB_DHCP_ARCH_HTTP : LB_DHCP_ARCH_PXE);
	int rc;

	if (type != LB_DHCP6_SOLICIT && type != LB_DHCP6_REQUEST)
		return -EINVAL;
	if (type == LB_DHCP6_REQUEST && (!l || !l->server_id_len))
		return -EINVAL;
	if (cap < 4)
		return -ENOSPC;
	buf[0] = (uint8_t)type;
	buf[1] = (uint8_t)(c->xid >> 16);
	buf[2] = (uint8_t)(c->xid >> 8);
	buf[3] = (uint8_t)c->xid;
	w.n = 4;
	if ((rc = lb_dhcp6_duid(c, duid, sizeof(duid), &dl)))
		return rc;
	opt(&w, O_CLIENTID, duid, dl);
	if (type == LB_DHCP6_REQUEST)
		opt(&w, O_SERVERID, l->server_id, l->server_id_len);
	put16(v, c->elapsed);
	opt(&w, O_ELAPSED, v, 2);
	put16(v, O_DNS);
	put16(v + 2, O_BOOTFILE_URL);
	put16(v + 4, O_BOOTFILE_PAR);
	put16(v + 6, O_NTP_SERVER);
	opt(&w, O_ORO, v, 8);
	at = opt_begin(&w, O_IA_NA);
	put32(v, c->iaid);
	put32(v + 4, 0);
	put32(v + 8, 0);
	put(&w, v, 12);
	if (type == LB_DHCP6_REQUEST && l->have_addr) {
		size_t a2 = opt_begin(&w, O_IAADDR);
		put(&w, l->addr, 16);
		put32(v, 0);
		put32(v + 4, 0);
		put(&w, v, 8);
		opt_end(&w, a2);
	}
	opt_end(&w, at);
	put16(v, arch);
	opt(&w, O_CLIENT_ARCH, v, 2);
	vc = opt_begin(&w, O_VENDOR_CLASS);
	put32(v, 343);                          /* Intel: PXE/HTTP boot */
	put16(v + 4, (unsigned)strlen(cls));
	put(&w, v, 6);
	put(&w, cls, strlen(cls));
	opt_end(&w, vc);
	if (type == LB_DHCP6_SOLICIT && c->rapid_commit)
		opt(&w, O_RAPID_COMMIT, NULL, 0);
	if (w.err)
		return w.err;
	*len = w.n;
	return 0;
}

static void set_str(char *dst, size_t cap, const uint8_t *s, size_t n)
{
	dst[0] = 0;
	if (n >= cap)
		return;
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] >= 0x7f)
			return;
	memcpy(dst, s, n);
	dst[n] = 0;
}

/* Walk options in [p, p+len): each header and length checked. */
#define FOR_OPTS(p, len, i, code, ol, v)                                     \
	for (size_t i = 0, code, ol; i < (len) &&                            \
	     ((len) - i >= 4 ? (code = get16((p) + i), ol = get16((p) + i + 2), \
				ol <= (len) - i - 4) : 0) &&                 \
	     ((v) = (p) + i + 4, 1); i += 4 + ol)

/* Check that options in an area parse to its end exactly. */
static int opts_ok(const uint8_t *p, size_t len)
{
	size_t i = 0;

	while (i < len) {
		if (len - i < 4 || get16(p + i + 2) > len - i - 4)
			return -EPROTO;
		i += 4 + get16(p + i + 2);
	}
	return 0;
}

static int status_of(const uint8_t *v, size_t ol, char *msg, size_t cap)
{
	if (ol < 2)
		return -EPROTO;
	if (msg)
		set_str(msg, cap, v + 2, ol - 2);
	return (int)get16(v);
}

static int parse_iaaddr(const uint8_t *v, size_t ol, struct lb_dhcp6_lease *l)
{
	const uint8_t *s;
	int st;

	if (ol < 24 || opts_ok(v + 24, ol - 24))
		return -EPROTO;
	FOR_OPTS(v + 24, ol - 24, i, code, sl, s) {
		if (code == O_STATUS) {
			if ((st = status_of(s, sl, NULL, 0)) < 0)
				return st;
			if (st)
				l->ia_status = st;
		}
	}
	if (l->have_addr)
		return 0;
	memcpy(l->addr, v, 16);
	l->preferred = get32(v + 16);
	l->valid = get32(v + 20);
	l->have_addr = 1;
	return 0;
}

static int parse_ia_na(const uint8_t *v, size_t ol, uint32_t iaid,
		       struct lb_dhcp6_lease *l)
{
	const uint8_t *s;
	int st, rc;

	if (ol < 12 || opts_ok(v + 12, ol - 12))
		return -EPROTO;
	if (get32(v) != iaid)
		return 0;               /* not our IA */
	l->t1 = get32(v + 4);
	l->t2 = get32(v + 8);
	FOR_OPTS(v + 12, ol - 12, i, code, sl, s) {
		if (code == O_IAADDR) {
			if ((rc = parse_iaaddr(s, sl, l)))
				return rc;
		} else if (code == O_STATUS) {
			if ((st = status_of(s, sl, NULL, 0)) < 0)
				return st;
			if (st)
				l->ia_status = st;
		}
	}
	return 0;
}

/* RFC 5908: suboptions 1 (server address) and 2 (multicast address)
 * taken, 3 (FQDN: no resolver here) skipped; a suboption overrunning
 * the option ends it (the rest of the lease is still good) */
static void ntp_server(const uint8_t *v, size_t ol, struct lb_dhcp6_lease *l)
{
	size_t k = 0;

	while (ol - k >= 4) {
		unsigned sc = get16(v + k);
		size_t sl = get16(v + k + 2);
		if (sl > ol - k - 4)
			return;
		if ((sc == 1 || sc == 2) && sl == 16 && l->nntp < 4)
			memcpy(l->ntp[l->nntp++], v + k + 4, 16);
		k += 4 + sl;
	}
}

int lb_dhcp6_parse(const uint8_t *p, size_t len, const struct lb_dhcp6_client *c,
		   struct lb_dhcp6_lease *out)
{
	struct lb_dhcp6_lease l;
	uint8_t duid[LB_DHCP6_DUID_MAX];
	size_t dl;
	const uint8_t *v;
	int have_cid = 0, have_sid = 0, rc;

	if (len < 4)
		return -EPROTO;
	if (len > 65535)
		return -EPROTO;
	if (p[0] != LB_DHCP6_ADVERTISE && p[0] != LB_DHCP6_REPLY)
		return -ENOMSG;
	if (((uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]) != (c->xid & 0xffffff))
		return -ENOMSG;
	if (opts_ok(p + 4, len - 4))
		return -EPROTO;
	if ((rc = lb_dhcp6_duid(c, duid, sizeof(duid), &dl)))
		return rc;
	memset(&l, 0, sizeof(l));
	l.type = p[0];
	l.preference = -1;
	FOR_OPTS(p + 4, len - 4, i, code, ol, v) {
		switch (code) {
		case O_CLIENTID:
			if (ol != dl || memcmp(v, duid, dl))
				return -ENOMSG;
			have_cid = 1;
			break;
		case O_SERVERID:
			if (!ol || ol > sizeof(l.server_id))
				return -EPROTO;
			if (!have_sid) {
				memcpy(l.server_id, v, ol);
				l.server_id_len = ol;
				have_sid = 1;
			}
			break;
		case O_PREFERENCE:
			if (ol != 1)
				return -EPROTO;
			l.preference = v[0];
			break;
		case O_STATUS:
			if ((rc = status_of(v, ol, l.status_msg, sizeof(l.status_msg))) < 0)
				return rc;
			l.status = rc;
			break;
		case O_IA_NA:
			if ((rc = parse_ia_na(v, ol, c->iaid, &l)))
				return rc;
			break;
		case O_DNS:
			if (ol % 16)
				return -EPROTO;
			for (size_t k = 0; k < ol && l.ndns < 4; k += 16)
				memcpy(l.dns[l.ndns++], v + k, 16);
			break;
		case O_NTP_SERVER:
			ntp_server(v, ol, &l);
			break;
		case O_BOOTFILE_URL:
			set_str(l.bootfile_url, sizeof(l.bootfile_url), v, ol);
			break;
		case O_BOOTFILE_PAR: {
			size_t k = 0, o = 0;
			l.bootfile_param[0] = 0;
			l.nparams = 0;
			while (k < ol) {
				size_t pl;
				if (ol - k < 2 || (pl = get16(v + k)) > ol - k - 2)
					return -EPROTO;
				k += 2;
				if (o + pl + 2 > sizeof(l.bootfile_param))
					return -EPROTO;
				for (size_t j = 0; j < pl; j++)
					if (v[k + j] < 0x20 || v[k + j] >= 0x7f)
						return -EPROTO;
				if (o)
					l.bootfile_param[o++] = ' ';
				memcpy(l.bootfile_param + o, v + k, pl);
				o += pl;
				l.bootfile_param[o] = 0;
				l.nparams++;
				k += pl;
			}
			break;
		}
		case O_RAPID_COMMIT:
			l.rapid_commit = 1;
			break;
		}
	}
	if (!have_cid || !have_sid)
		return -ENOMSG;
	*out = l;
	return 0;
}
