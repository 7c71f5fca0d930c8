/* DHCPv4 client messages and IPv4/UDP framing: see dhcp4.h. */
#include <errno.h>
#include <string.h>

#include "arch.h"
#include "dhcp4.h"

#define BOOTP_FIXED 236
#define COOKIE_LEN  4
#define OPT_AREA_MAX 1024   /* concatenated option cap (RFC 3396) */

static const uint8_t cookie[4] = { 99, 130, 83, 99 };
static const uint8_t prl[] = { 1, 3, 6, 12, 15, 26, 28, 42, 43, 51, 54, 60, 66, 67, 209, 210 };

static void put32(uint8_t *p, uint32_t v)   /* v already in network order */
{
	memcpy(p, &v, 4);
}

static uint32_t get32n(const uint8_t *p)    /* network order kept */
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static uint32_t get32h(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

struct wbuf {
	uint8_t *p;
	size_t cap, n;
	int err;
};

static void opt(struct wbuf *w, uint8_t code, const void *v, size_t len)
{
	if (w->err || len > 255 || w->cap - w->n < 2 + len) {
		w->err = -ENOSPC;
		return;
	}
	w->p[w->n++] = code;
	w->p[w->n++] = (uint8_t)len;
	memcpy(w->p + w->n, v, len);
	w->n += len;
}

int lb_dhcp4_build(const struct lb_dhcp4_client *c, int type, uint32_t ciaddr,
		   uint32_t requested_ip, uint32_t server_id, uint8_t *buf,
		   size_t cap, size_t *len)
{
	struct wbuf w = { buf, cap, 0, 0 };
	uint8_t t = (uint8_t)type, cid[7], arch[2], undi[3], uuid[17];
	uint16_t a = c->arch ? c->arch : (c->http ? LB_DHCP_ARCH_HTTP : LB_DHCP_ARCH_PXE);
	const char *vc = c->http ? LB_DHCP_VC_HTTP : LB_DHCP_VC_PXE;
	uint8_t maxsz[2] = { 1472 >> 8, 1472 & 0xff };

	if (type != LB_DHCP_DISCOVER && type != LB_DHCP_REQUEST &&
	    type != LB_DHCP_INFORM && type != LB_DHCP_RELEASE)
		return -EINVAL;
	if (cap < BOOTP_FIXED + COOKIE_LEN)
		return -ENOSPC;
	memset(buf, 0, BOOTP_FIXED);
	buf[0] = 1;             /* BOOTREQUEST */
	buf[1] = 1;             /* Ethernet */
	buf[2] = 6;
	buf[4] = (uint8_t)(c->xid >> 24);
	buf[5] = (uint8_t)(c->xid >> 16);
	buf[6] = (uint8_t)(c->xid >> 8);
	buf[7] = (uint8_t)c->xid;
	buf[8] = (uint8_t)(c->secs >> 8);
	buf[9] = (uint8_t)c->secs;
	if (!ciaddr)
		buf[10] = 0x80; /* broadcast: we have no address to receive on */
	put32(buf + 12, ciaddr);
	memcpy(buf + 28, c->mac, 6);
	memcpy(buf + BOOTP_FIXED, cookie, 4);
	w.n = BOOTP_FIXED + COOKIE_LEN;

	opt(&w, 53, &t, 1);
	cid[0] = 1;
	memcpy(cid + 1, c->mac, 6);
	opt(&w, 61, cid, sizeof(cid));
	if (type == LB_DHCP_REQUEST && requested_ip && !ciaddr)
		opt(&w, 50, &requested_ip, 4);
	if (type == LB_DHCP_REQUEST && server_id && !ciaddr)
		opt(&w, 54, &server_id, 4);
	opt(&w, 57, maxsz, 2);
	opt(&w, 55, prl, sizeof(prl));
	opt(&w, 60, vc, strlen(vc));
	arch[0] = (uint8_t)(a >> 8);
	arch[1] = (uint8_t)a;
	opt(&w, 93, arch, 2);
	undi[0] = 1;
	undi[1] = 3;
	undi[2] = c->http ? 1 : 16;
	opt(&w, 94, undi, 3);
	if (c->have_uuid) {
		uuid[0] = 0;
		memcpy(uuid + 1, c->uuid, 16);
		opt(&w, 97, uuid, sizeof(uuid));
	}
	if (c->hostname && *c->hostname) {
		size_t hl = strlen(c->hostname);
		opt(&w, 12, c->hostname, hl > 63 ? 63 : hl);
	}
	if (w.err || w.n >= cap)
		return -ENOSPC;
	buf[w.n++] = 255;
	/* pad to the BOOTP minimum of 300 bytes: some relays drop less */
	while (w.n < 300 && w.n < cap)
		buf[w.n++] = 0;
	*len = w.n;
	return 0;
}

struct area {
	const uint8_t *p;
	size_t len;
};

/* Check one option area: every length within it. */
static int area_check(const struct area *a)
{
	size_t i = 0;

	while (i < a->len) {
		uint8_t code = a->p[i];
		if (code == 0) {
			i++;
			continue;
		}
		if (code == 255)
			return 0;
		if (a->len - i < 2 || a->p[i + 1] > a->len - i - 2)
			return -EPROTO;
		i += 2 + (size_t)a->p[i + 1];
	}
	return 0;           /* no end option: tolerated */
}

/* Concatenate every instance of code across the areas (RFC 3396). */
static int get_opt(const struct area *areas, int na, uint8_t code, uint8_t *out,
		   size_t cap, size_t *len)
{
	size_t n = 0;
	int found = 0;

	for (int k = 0; k < na; k++) {
		const struct area *a = &areas[k];
		size_t i = 0;
		while (i < a->len) {
			uint8_t c = a->p[i];
			if (c == 0) {
				i++;
				continue;
			}
			if (c == 255)
				break;
			size_t l = a->p[i + 1];
			if (c == code) {
				if (l > cap - n)
					return -E2BIG;
				memcpy(out + n, a->p + i + 2, l);
				n += l;
				found = 1;
			}
			i += 2 + l;
		}
	}
	if (!found)
		return -ENOENT;
	*len = n;
	return 0;
}

/* A printable string (trailing NULs dropped); anything else: empty. */
static void set_str(char *dst, size_t cap, const uint8_t *s, size_t n)
{
	dst[0] = 0;
	while (n && !s[n - 1])
		n--;
	if (n >= cap)
		return;
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] >= 0x7f)
			return;
	memcpy(dst, s, n);
	dst[n] = 0;
}

static void get_str(const struct area *ar, int na, uint8_t code, char *dst, size_t cap)
{
	uint8_t v[OPT_AREA_MAX];
	size_t n;

	dst[0] = 0;
	if (!get_opt(ar, na, code, v, sizeof(v), &n))
		set_str(dst, cap, v, n);
}

static int get_addr(const struct area *ar, int na, uint8_t code, uint32_t *out)
{
	uint8_t v[OPT_AREA_MAX];
	size_t n;

	if (get_opt(ar, na, code, v, sizeof(v), &n) || n < 4 || n % 4)
		return 0;
	*out = get32n(v);
	return 1;
}

static unsigned get_addrs(const struct area *ar, int na, uint8_t code, uint32_t *out,
			  unsigned max)
{
	uint8_t v[OPT_AREA_MAX];
	size_t n;
	unsigned k = 0;

	if (get_opt(ar, na, code, v, sizeof(v), &n) || n % 4)
		return 0;
	for (size_t i = 0; i + 4 <= n && k < max; i += 4)
		out[k++] = get32n(v + i);
	return k;
}

static int get_u32(const struct area *ar, int na, uint8_t code, uint32_t *out)
{
	uint8_t v[OPT_AREA_MAX];
	size_t n;

	if (get_opt(ar, na, code, v, sizeof(v), &n) || n != 4)
		return 0;
	*out = get32h(v);
	return 1;
}

int lb_dhcp4_parse(const uint8_t *p, size_t len, uint32_t xid, const uint8_t mac[6],
		   struct lb_dhcp4_lease *out)
{
	struct lb_dhcp4_lease l;
	struct area ar[3];
	int na = 1, rc;
	uint8_t v[OPT_AREA_MAX];
	size_t n;

	if (len < BOOTP_FIXED + COOKIE_LEN)
		return -EPROTO;
	if (len > 65535)                    /* larger than any UDP payload */
		return -EPROTO;
	if (p[0] != 2 || p[1] != 1 || p[2] != 6)
		return -ENOMSG;
	if (get32h(p + 4) != xid || memcmp(p + 28, mac, 6))
		return -ENOMSG;
	if (memcmp(p + BOOTP_FIXED, cookie, 4))
		return -EPROTO;
	memset(&l, 0, sizeof(l));
	ar[0].p = p + BOOTP_FIXED + COOKIE_LEN;
	ar[0].len = len - BOOTP_FIXED - COOKIE_LEN;
	if ((rc = area_check(&ar[0])))
		return rc;
	if (!get_opt(ar, 1, 52, v, sizeof(v), &n)) {
		if (n != 1 || v[0] < 1 || v[0] > 3)
			return -EPROTO;
		l.overload = v[0];
	}
	if (l.overload & 1) {
		ar[na].p = p + 108;
		ar[na].len = 128;
		if ((rc = area_check(&ar[na++])))
			return rc;
	}
	if (l.overload & 2) {
		ar[na].p = p + 44;
		ar[na].len = 64;
		if ((rc = area_check(&ar[na++])))
			return rc;
	}
	if (get_opt(ar, na, 53, v, sizeof(v), &n) || n != 1)
		return -ENOMSG;
	l.type = v[0];
	l.ciaddr = get32n(p + 12);
	l.yiaddr = get32n(p + 16);
	l.siaddr = get32n(p + 20);
	l.giaddr = get32n(p + 24);
	if (!(l.overload & 2))
		set_str(l.sname, sizeof(l.sname), p + 44, strnlen((const char *)p + 44, 64));
	if (!(l.overload & 1))
		set_str(l.file, sizeof(l.file), p + 108, strnlen((const char *)p + 108, 128));
	l.have_mask = get_addr(ar, na, 1, &l.mask);
	l.have_router = get_addr(ar, na, 3, &l.router);
	get_addr(ar, na, 28, &l.broadcast);
	l.have_server_id = get_addr(ar, na, 54, &l.server_id);
	l.ndns = get_addrs(ar, na, 6, l.dns, 4);
	l.nntp = get_addrs(ar, na, 42, l.ntp, 4);
	l.have_lease = get_u32(ar, na, 51, &l.lease_time);
	if (!get_opt(ar, na, 26, v, sizeof(v), &n) && n == 2 && (v[0] << 8 | v[1]) >= 68)
		l.mtu = (uint16_t)(v[0] << 8 | v[1]);
	get_u32(ar, na, 58, &l.t1);
	get_u32(ar, na, 59, &l.t2);
	get_str(ar, na, 12, l.hostname, sizeof(l.hostname));
	get_str(ar, na, 15, l.domain, sizeof(l.domain));
	get_str(ar, na, 66, l.tftp_server, sizeof(l.tftp_server));
	get_str(ar, na, 67, l.bootfile, sizeof(l.bootfile));
	get_str(ar, na, 209, l.pxe_conffile, sizeof(l.pxe_conffile));
	get_str(ar, na, 210, l.pxe_prefix, sizeof(l.pxe_prefix));
	get_str(ar, na, 60, l.vendor_class, sizeof(l.vendor_class));
	if (!get_opt(ar, na, 43, v, sizeof(v), &n) && n <= sizeof(l.vendor_opts)) {
		memcpy(l.vendor_opts, v, n);
		l.vendor_opts_len = n;
		l.have_vendor_opts = 1;
	}
	if (!get_opt(ar, na, 175, v, sizeof(v), &n) && n <= sizeof(l.ipxe_opts)) {
		memcpy(l.ipxe_opts, v, n);
		l.ipxe_opts_len = n;
		l.have_ipxe_opts = 1;
	}
	*out = l;
	return 0;
}

int lb_dhcp4_is_proxy(const struct lb_dhcp4_lease *l)
{
	if (l->yiaddr)
		return 0;
	return !strncmp(l->vendor_class, "PXEClient", 9) ||
	       !strncmp(l->vendor_class, "HTTPClient", 10);
}

const char *lb_dhcp4_bootfile(const struct lb_dhcp4_lease *l)
{
	if (l->bootfile[0])
		return l->bootfile;
	if (l->file[0])
		return l->file;
	return NULL;
}

/* --- IPv4 + UDP ------------------------------------------------------- */

static uint32_t sum16(uint32_t s, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

static void put16h(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32h(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t pseudo(uint32_t src, uint32_t dst, size_t ulen)
{
	uint8_t ph[12];

	put32h(ph, src);
	put32h(ph + 4, dst);
	ph[8] = 0;
	ph[9] = 17;
	put16h(ph + 10, (unsigned)ulen);
	return sum16(0, ph, sizeof(ph));
}

int lb_ipv4_udp_build(uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport,
		      const uint8_t *payload, size_t plen, uint8_t *out,
		      size_t cap, size_t *len)
{
	size_t ulen = 8 + plen, tot = 20 + ulen;
	uint16_t c;

	if (plen > 65535 - 28 || cap < tot)
		return -ENOSPC;
	memset(out, 0, 28);
	out[0] = 0x45;
	put16h(out + 2, (unsigned)tot);
	out[8] = 64;
	out[9] = 17;
	put32h(out + 12, src);
	put32h(out + 16, dst);
	put16h(out + 10, (uint16_t)~fold(sum16(0, out, 20)));
	put16h(out + 20, sport);
	put16h(out + 22, dport);
	put16h(out + 24, (unsigned)ulen);
	memmove(out + 28, payload, plen);
	c = (uint16_t)~fold(sum16(pseudo(src, dst, ulen), out + 20, ulen));
	put16h(out + 26, c ? c : 0xffff);
	*len = tot;
	return 0;
}

int lb_ipv4_udp_parse(const uint8_t *pkt, size_t len, uint32_t *src, uint32_t *dst,
		      uint16_t *sport, uint16_t *dport, const uint8_t **payload,
		      size_t *plen)
{
	size_t ihl, tot, ulen;
	uint32_t s, d;

	if (len < 20 || (pkt[0] >> 4) != 4)
		return -EPROTO;
	ihl = (size_t)(pkt[0] & 15) * 4;
	tot = (size_t)pkt[2] << 8 | pkt[3];
	if (ihl < 20 || ihl > len || tot < ihl || tot > len)
		return -EPROTO;
	if (fold(sum16(0, pkt, ihl)) != 0xffff)
		return -EPROTO;
	if ((pkt[6] & 0x20) || ((pkt[6] & 0x1f) | pkt[7]))
		return -ENOMSG;         /* a fragment */
	if (pkt[9] != 17)
		return -ENOMSG;
	if (tot - ihl < 8)
		return -EPROTO;
	ulen = (size_t)pkt[ihl + 4] << 8 | pkt[ihl + 5];
	if (ulen < 8 || ulen > tot - ihl)
		return -EPROTO;
	s = get32h(pkt + 12);
	d = get32h(pkt + 16);
	if ((pkt[ihl + 6] | pkt[ihl + 7]) &&
	    fold(sum16(pseudo(s, d, ulen), pkt + ihl, ulen)) != 0xffff)
		return -EPROTO;
	*src = s;
	*dst = d;
	*sport = (uint16_t)(pkt[ihl] << 8 | pkt[ihl + 1]);
	*dport = (uint16_t)(pkt[ihl + 2] << 8 | pkt[ihl + 3]);
	*payload = pkt + ihl + 8;
	*plen = ulen - 8;
	return 0;
}
