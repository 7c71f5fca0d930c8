/* rtnetlink requests and reply parsing: see nlmsg.h. */
#include <errno.h>
#include <string.h>

#include "nlmsg.h"

#define NLHDR      16         /* struct nlmsghdr */
#define IFINFO     16         /* struct ifinfomsg */
#define IFADDR     8          /* struct ifaddrmsg */
#define RTMSG      12         /* struct rtmsg */
#define ALIGN4(x)  (((x) + 3) & ~(size_t)3)

/* attribute numbers (uapi if_link.h, if_addr.h, rtnetlink.h) */
#define IFLA_ADDRESS   1
#define IFLA_IFNAME    3
#define IFLA_MTU       4
#define IFLA_MASTER    10
#define IFLA_OPERSTATE 16
#define IFLA_LINKINFO  18
#define IFLA_CARRIER   33
#define IFLA_PARENT_DEV_NAME     56
#define IFLA_PARENT_DEV_BUS_NAME 57
#define IFLA_INFO_KIND 1
#define IFLA_INFO_DATA 2
#define IFLA_LINK      5
#define IFLA_VLAN_ID   1
#define IFLA_EXT_MASK  29
#define RTEXT_FILTER_SKIP_STATS 8
#define IFA_ADDRESS    1
#define IFA_LOCAL      2
#define IFA_BROADCAST  4
#define IFA_CACHEINFO  6
#define IFA_F_PERMANENT 0x80
#define IFA_F_NODAD    0x02
#define AF_INET6_      10
#define RTA_DST        1
#define RTA_OIF        4
#define RTA_GATEWAY    5
#define RTA_PREFSRC    7
#define RT_TABLE_MAIN  254
#define RTPROT_DHCP    16
#define RT_SCOPE_UNIVERSE 0
#define RT_SCOPE_LINK  253
#define RTN_UNICAST    1
#define RTNH_F_ONLINK  4
#define NLMSGERR_ATTR_MSG 1
#define NLA_TYPE_MASK  0x3fff
#define AF_INET_       2
#define AF_UNSPEC_     0

static uint16_t get16(const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return v;
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

int lb_nl_next(const uint8_t *buf, size_t len, size_t *off, struct lb_nl_msg *m)
{
	size_t o = *off, ml;

	if (o >= len)
		return 0;
	if (len - o < NLHDR)
		return -EPROTO;
	ml = get32(buf + o);
	if (ml < NLHDR || ml > len - o)
		return -EPROTO;
	m->type = get16(buf + o + 4);
	m->flags = get16(buf + o + 6);
	m->seq = get32(buf + o + 8);
	m->pid = get32(buf + o + 12);
	m->data = buf + o + NLHDR;
	m->len = ml - NLHDR;
	/* the next message starts aligned; padding past the end is absent */
	o += ALIGN4(ml);
	*off = o > len ? len : o;
	return 1;
}

/* An attribute walker over [p, p+len): 1 with type/data/dlen, 0 at the end,
 * -EPROTO when an attribute overruns. */
struct attr_it {
	const uint8_t *p;
	size_t len, off;
};

static int attr_next(struct attr_it *it, unsigned *type, const uint8_t **data, size_t *dlen)
{
	size_t rest, al;

	if (it->off >= it->len)
		return 0;
	rest = it->len - it->off;
	if (rest < 4)
		return -EPROTO;
	al = get16(it->p + it->off);
	if (al < 4 || al > rest)
		return -EPROTO;
	*type = get16(it->p + it->off + 2) & NLA_TYPE_MASK;
	*data = it->p + it->off + 4;
	*dlen = al - 4;
	it->off += ALIGN4(al);
	if (it->off > it->len)
		it->off = it->len;
	return 1;
}

/* A NUL-terminated string attribute into dst: 0, -EPROTO without its NUL,
 * -ENAMETOOLONG when it does not fit (dst left ""). */
static int attr_str(const uint8_t *d, size_t n, char *dst, size_t cap)
{
	size_t l = strnlen((const char *)d, n);

	dst[0] = 0;
	if (l == n)
		return -EPROTO;
	if (l >= cap)
		return -ENAMETOOLONG;
	memcpy(dst, d, l);
	dst[l] = 0;
	return 0;
}

int lb_nl_parse_error(const struct lb_nl_msg *m, int *error, char *msg, size_t msgsz)
{
	int32_t e;
	size_t skip;
	struct attr_it it;
	unsigned t;
	const uint8_t *d;
	size_t dl;
	int rc;

	if (msgsz)
		msg[0] = 0;
	if (m->type != LB_NLMSG_ERROR)
		return -ENOMSG;
	if (m->len < 4 + NLHDR)
		return -EPROTO;
	memcpy(&e, m->data, 4);
	if (e > 0 || e < -4095)
		return -EPROTO;
	*error = e;
	if (!(m->flags & LB_NLM_F_ACK_TLVS) || !msgsz)
		return 0;
	/* the request is echoed in full unless capped (or for an ACK) */
	skip = 4 + NLHDR;
	if (e && !(m->flags & LB_NLM_F_CAPPED)) {
		size_t rl = get32(m->data + 4);
		if (rl < NLHDR || rl > m->len - 4)
			return -EPROTO;
		skip = 4 + ALIGN4(rl);
		if (skip > m->len)
			skip = m->len;
	}
	it.p = m->data + skip;
	it.len = m->len - skip;
	it.off = 0;
	while ((rc = attr_next(&it, &t, &d, &dl)) > 0) {
		if (t != NLMSGERR_ATTR_MSG)
			continue;
		if (attr_str(d, dl, msg, msgsz))
			msg[0] = 0;
		for (char *c = msg; *c; c++)
			if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f) {
				msg[0] = 0;
				break;
			}
	}
	return rc < 0 ? rc : 0;
}

static int parse_linkinfo(const uint8_t *p, size_t n, struct lb_nl_link *l)
{
	struct attr_it it = { p, n, 0 };
	unsigned t;
	const uint8_t *d;
	size_t dl;
	int rc;

	while ((rc = attr_next(&it, &t, &d, &dl)) > 0) {
		if (t == IFLA_INFO_KIND && attr_str(d, dl, l->kind, sizeof(l->kind)) == -EPROTO)
			return -EPROTO;
	}
	return rc;
}

int lb_nl_parse_link(const struct lb_nl_msg *m, struct lb_nl_link *out)
{
	struct lb_nl_link l;
	struct attr_it it;
	unsigned t;
	const uint8_t *d;
	size_t dl;
	int rc, have_name = 0;

	if (m->type != LB_RTM_NEWLINK)
		return -ENOMSG;
	if (m->len < IFINFO)
		return -EPROTO;
	memset(&l, 0, sizeof(l));
	l.carrier = -1;
	l.operstate = -1;
	l.type = get16(m->data + 2);
	memcpy(&l.index, m->data + 4, 4);
	l.flags = get32(m->data + 8);
	if (l.index <= 0)
		return -EPROTO;
	it.p = m->data + IFINFO;
	it.len = m->len - IFINFO;
	it.off = 0;
	while ((rc = attr_next(&it, &t, &d, &dl)) > 0) {
		switch (t) {
		case IFLA_ADDRESS:
			if (dl > sizeof(l.hwaddr))
				return -EPROTO;
			memcpy(l.hwaddr, d, dl);
			l.hwaddr_len = dl;
			break;
		case IFLA_IFNAME:
			if (attr_str(d, dl, l.name, sizeof(l.name)) || !l.name[0])
				return -EPROTO;
			have_name = 1;
			break;
		case IFLA_MTU:
			if (dl != 4)
				return -EPROTO;
			l.mtu = get32(d);
			break;
		case IFLA_MASTER:
			if (dl != 4)
				return -EPROTO;
			l.master = (int)get32(d);
			break;
		case IFLA_OPERSTATE:
			if (dl != 1)
				return -EPROTO;
			l.operstate = d[0];
			break;
		case IFLA_CARRIER:
			if (dl != 1)
				return -EPROTO;
			l.carrier = d[0] ? 1 : 0;
			break;
		case IFLA_LINKINFO:
			if ((rc = parse_linkinfo(d, dl, &l)) < 0)
				return rc;
			break;
		case IFLA_PARENT_DEV_NAME:
			if (attr_str(d, dl, l.parent, sizeof(l.parent)) == -EPROTO)
				return -EPROTO;
			break;
		case IFLA_PARENT_DEV_BUS_NAME:
			if (attr_str(d, dl, l.parent_bus, sizeof(l.parent_bus)) == -EPROTO)
				return -EPROTO;
			break;
		default:
			break;
		}
	}
	if (rc < 0)
		return rc;
	if (!have_name)
		return -EPROTO;
	*out = l;
	return 0;
}

int lb_nl_link_carrier(const struct lb_nl_link *l)
{
	if (!(l->flags & LB_IFF_UP))
		return 0;
	if (l->carrier >= 0)
		return l->carrier;
	return !!(l->flags & LB_IFF_LOWER_UP);
}

/* --- requests ---------------------------------------------------------- */

struct nb {
	uint8_t *p;
	size_t cap, n;
	int err;
};

static void nb_put(struct nb *b, const void *v, size_t len)
{
	size_t al = ALIGN4(len);

	if (b->err || al > b->cap - b->n) {
		b->err = -ENOSPC;
		return;
	}
	memcpy(b->p + b->n, v, len);
	memset(b->p + b->n + len, 0, al - len);
	b->n += al;
}

static void nb_attr(struct nb *b, uint16_t type, const void *v, size_t len)
{
	uint16_t al;

	if (b->err)
		return;
	if (len > LB_NL_REQ_MAX || ALIGN4(4 + len) > b->cap - b->n) {
		b->err = -ENOSPC;
		return;
	}
	al = (uint16_t)(4 + len);
	memcpy(b->p + b->n, &al, 2);
	memcpy(b->p + b->n + 2, &type, 2);
	memcpy(b->p + b->n + 4, v, len);
	memset(b->p + b->n + 4 + len, 0, ALIGN4(4 + len) - 4 - len);
	b->n += ALIGN4(4 + len);
}

static void nb_u32(struct nb *b, uint16_t type, uint32_t v)
{
	nb_attr(b, type, &v, 4);
}

static void nb_begin(struct nb *b, uint8_t *buf, size_t cap, uint16_t type, uint16_t flags,
		     uint32_t seq)
{
	uint8_t h[NLHDR];
	uint32_t z = 0;

	b->p = buf;
	b->cap = cap > LB_NL_REQ_MAX ? LB_NL_REQ_MAX : cap;
	b->n = 0;
	b->err = 0;
	memcpy(h, &z, 4);        /* length: at the end */
	memcpy(h + 4, &type, 2);
	memcpy(h + 6, &flags, 2);
	memcpy(h + 8, &seq, 4);
	memcpy(h + 12, &z, 4);   /* pid 0: the kernel fills in ours */
	nb_put(b, h, NLHDR);
}

static int nb_end(struct nb *b, size_t *len)
{
	uint32_t l;

	if (b->err)
		return b->err;
	l = (uint32_t)b->n;
	memcpy(b->p, &l, 4);
	*len = b->n;
	return 0;
}

int lb_nl_req_getlink(uint8_t *buf, size_t cap, uint32_t seq, size_t *len)
{
	struct nb b;
	uint8_t ifi[IFINFO] = { AF_UNSPEC_ };

	nb_begin(&b, buf, cap, LB_RTM_GETLINK, LB_NLM_F_REQUEST | LB_NLM_F_DUMP, seq);
	nb_put(&b, ifi, sizeof(ifi));
	nb_u32(&b, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
	return nb_end(&b, len);
}

int lb_nl_req_setlink(uint8_t *buf, size_t cap, uint32_t seq, int ifindex, int up,
		      uint32_t mtu, size_t *len)
{
	struct nb b;
	uint8_t ifi[IFINFO] = { AF_UNSPEC_ };
	uint32_t flags = up > 0 ? LB_IFF_UP : 0, change = up >= 0 ? LB_IFF_UP : 0;

	if (ifindex <= 0 || up > 1 || (mtu && mtu < 68))
		return -EINVAL;
	memcpy(ifi + 4, &ifindex, 4);
	memcpy(ifi + 8, &flags, 4);
	memcpy(ifi + 12, &change, 4);
	nb_begin(&b, buf, cap, LB_RTM_NEWLINK, LB_NLM_F_REQUEST | LB_NLM_F_ACK, seq);
	nb_put(&b, ifi, sizeof(ifi));
	if (mtu)
		nb_u32(&b, IFLA_MTU, mtu);
	return nb_end(&b, len);
}

/* a nested attribute: its header now, its length at nb_nest_end */
static size_t nb_nest_begin(struct nb *b, uint16_t type)
{
	static const uint8_t none;
	size_t at = b->n;

	nb_attr(b, type, &none, 0);
	return at;
}

static void nb_nest_end(struct nb *b, size_t at)
{
	uint16_t l = (uint16_t)(b->n - at);

	if (!b->err)
		memcpy(b->p + at, &l, 2);
}

int lb_nl_req_newvlan(uint8_t *buf, size_t cap, uint32_t seq, int parent, const char *name,
		      unsigned vid, size_t *len)
{
	struct nb b;
	uint8_t ifi[IFINFO] = { AF_UNSPEC_ };
	uint32_t link = (uint32_t)parent;
	uint16_t id = (uint16_t)vid;
	size_t li, da, nl = name ? strlen(name) : 0;

	if (parent <= 0 || !nl || nl >= LB_NL_IFNAMSIZ || vid < 1 || vid > 4094)
		return -EINVAL;
	nb_begin(&b, buf, cap, LB_RTM_NEWLINK,
		 LB_NLM_F_REQUEST | LB_NLM_F_ACK | LB_NLM_F_CREATE | LB_NLM_F_EXCL, seq);
	nb_put(&b, ifi, sizeof(ifi));
	nb_u32(&b, IFLA_LINK, link);
	nb_attr(&b, IFLA_IFNAME, name, nl + 1);
	li = nb_nest_begin(&b, IFLA_LINKINFO);
	nb_attr(&b, IFLA_INFO_KIND, "vlan", 5);
	da = nb_nest_begin(&b, IFLA_INFO_DATA);
	nb_attr(&b, IFLA_VLAN_ID, &id, 2);
	nb_nest_end(&b, da);
	nb_nest_end(&b, li);
	return nb_end(&b, len);
}

int lb_nl_req_addaddr(uint8_t *buf, size_t cap, uint32_t seq, int ifindex, uint32_t addr,
		      unsigned prefix, uint32_t brd, uint32_t valid_s, size_t *len)
{
	struct nb b;
	uint8_t ifa[IFADDR] = { AF_INET_, (uint8_t)prefix, 0, RT_SCOPE_UNIVERSE };
	uint32_t idx = (uint32_t)ifindex;

	if (ifindex <= 0 || prefix > 32 || !addr)
		return -EINVAL;
	if (!valid_s)
		ifa[2] = IFA_F_PERMANENT;
	memcpy(ifa + 4, &idx, 4);
	nb_begin(&b, buf, cap, LB_RTM_NEWADDR,
		 LB_NLM_F_REQUEST | LB_NLM_F_ACK | LB_NLM_F_CREATE | LB_NLM_F_REPLACE, seq);
	nb_put(&b, ifa, sizeof(ifa));
	nb_u32(&b, IFA_LOCAL, addr);
	nb_u32(&b, IFA_ADDRESS, addr);
	if (brd)
		nb_u32(&b, IFA_BROADCAST, brd);
	if (valid_s) {
		uint32_t ci[4] = { valid_s, valid_s, 0, 0 };  /* preferred, valid */
		nb_attr(&b, IFA_CACHEINFO, ci, sizeof(ci));
	}
	return nb_end(&b, len);
}

int lb_nl_req_addaddr6(uint8_t *buf, size_t cap, uint32_t seq, int ifindex,
		       const uint8_t addr[16], unsigned prefix, uint32_t valid_s,
		       uint32_t preferred_s, int nodad, size_t *len)
{
	struct nb b;
	uint8_t ifa[IFADDR] = { AF_INET6_, (uint8_t)prefix, 0, RT_SCOPE_UNIVERSE };
	uint32_t idx = (uint32_t)ifindex;
	static const uint8_t zero[16];

	if (ifindex <= 0 || prefix > 128 || !memcmp(addr, zero, 16) || preferred_s > valid_s ||
	    (!valid_s && preferred_s))
		return -EINVAL;
	ifa[2] = (uint8_t)((valid_s ? 0 : IFA_F_PERMANENT) | (nodad ? IFA_F_NODAD : 0));
	memcpy(ifa + 4, &idx, 4);
	nb_begin(&b, buf, cap, LB_RTM_NEWADDR,
		 LB_NLM_F_REQUEST | LB_NLM_F_ACK | LB_NLM_F_CREATE | LB_NLM_F_REPLACE, seq);
	nb_put(&b, ifa, sizeof(ifa));
	nb_attr(&b, IFA_ADDRESS, addr, 16);
	if (valid_s) {
		uint32_t ci[4] = { preferred_s, valid_s, 0, 0 };
		nb_attr(&b, IFA_CACHEINFO, ci, sizeof(ci));
	}
	return nb_end(&b, len);
}

int lb_nl_req_addroute(uint8_t *buf, size_t cap, uint32_t seq, int ifindex, uint32_t dst,
		       unsigned dst_len, uint32_t gw, uint32_t src, int onlink, size_t *len)
{
	struct nb b;
	uint8_t rtm[RTMSG] = { AF_INET_, (uint8_t)dst_len, 0, 0, RT_TABLE_MAIN, RTPROT_DHCP,
			       RT_SCOPE_UNIVERSE, RTN_UNICAST };
	uint32_t fl = onlink ? RTNH_F_ONLINK : 0;

	if (ifindex <= 0 || dst_len > 32 || (dst & ~lb_ipv4_mask(dst_len)))
		return -EINVAL;
	if (!gw)
		rtm[6] = RT_SCOPE_LINK;
	memcpy(rtm + 8, &fl, 4);
	nb_begin(&b, buf, cap, LB_RTM_NEWROUTE,
		 LB_NLM_F_REQUEST | LB_NLM_F_ACK | LB_NLM_F_CREATE | LB_NLM_F_REPLACE, seq);
	nb_put(&b, rtm, sizeof(rtm));
	if (dst_len)
		nb_u32(&b, RTA_DST, dst);
	if (gw)
		nb_u32(&b, RTA_GATEWAY, gw);
	if (src)
		nb_u32(&b, RTA_PREFSRC, src);
	nb_u32(&b, RTA_OIF, (uint32_t)ifindex);
	return nb_end(&b, len);
}

/* --- IPv4 masks ---------------------------------------------------------- */

static uint32_t to_be32(uint32_t h)
{
	uint8_t p[4] = { (uint8_t)(h >> 24), (uint8_t)(h >> 16), (uint8_t)(h >> 8), (uint8_t)h };
	return get32(p);
}

static uint32_t from_be32(uint32_t n)
{
	uint8_t p[4];

	memcpy(p, &n, 4);
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

uint32_t lb_ipv4_mask(unsigned prefix)
{
	if (prefix >= 32)
		return 0xffffffffu;
	return to_be32(prefix ? ~0u << (32 - prefix) : 0);
}

int lb_ipv4_prefix(uint32_t mask)
{
	uint32_t h = from_be32(mask);
	int n = 0;

	while (n < 32 && (h & (0x80000000u >> n)))
		n++;
	if (n < 32 && (h << n))
		return -EINVAL;
	return n;
}
