/*
 * rtnetlink messages (src/net/nlmsg.c): requests byte by byte against the
 * uapi layouts (nlmsghdr 16, ifinfomsg 16, ifaddrmsg 8, rtmsg 12, rtattr 4,
 * 4-byte alignment), reply parsing on crafted and truncated messages, and,
 * when the test may create a network namespace (root), the same code
 * against the running kernel (src/net/netif.c: list links, set up, MTU,
 * address, route, the kernel's extended-ack error text).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <unistd.h>

#include "netif.h"
#include "nlmsg.h"
#include "t.h"

static uint32_t ip(const char *s)
{
	struct in_addr a;
	inet_pton(AF_INET, s, &a);
	return a.s_addr;
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static uint16_t rd16(const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return v;
}

/* Find attribute type in [p, p+n): its payload and length, or NULL. */
static const uint8_t *attr(const uint8_t *p, size_t n, unsigned type, size_t *len)
{
	size_t o = 0;

	while (o + 4 <= n) {
		size_t al = rd16(p + o);
		if (al < 4 || al > n - o)
			return NULL;
		if ((rd16(p + o + 2) & 0x3fff) == type) {
			*len = al - 4;
			return p + o + 4;
		}
		o += (al + 3) & ~3u;
	}
	return NULL;
}

/* --- a message builder for replies ---------------------------------------- */

static uint8_t mb[4096];
static size_t mn;

static void m_begin(uint16_t type, uint16_t flags, uint32_t seq)
{
	memset(mb, 0, sizeof(mb));
	memcpy(mb + 4, &type, 2);
	memcpy(mb + 6, &flags, 2);
	memcpy(mb + 8, &seq, 4);
	mn = 16;
}

static void m_raw(const void *p, size_t n)
{
	memcpy(mb + mn, p, n);
	mn += (n + 3) & ~(size_t)3;
}

static void m_attr(uint16_t type, const void *p, size_t n)
{
	uint16_t l = (uint16_t)(4 + n);
	memcpy(mb + mn, &l, 2);
	memcpy(mb + mn + 2, &type, 2);
	memcpy(mb + mn + 4, p, n);
	mn += (4 + n + 3) & ~(size_t)3;
}

static void m_end(void)
{
	uint32_t l = (uint32_t)mn;
	memcpy(mb, &l, 4);
}

static void link_msg(int index, const char *name, int carrier)
{
	uint8_t ifi[16] = { 0 };
	uint16_t type = 1;
	uint32_t flags = 0x1003 | (carrier ? 0x10040 : 0), mtu = 1500;
	uint8_t mac[6] = { 0x52, 0x54, 0, 0x12, 0x34, 0x56 }, c = (uint8_t)carrier, op = 6;
	uint8_t li[12];
	uint16_t l = 9, t = 1;

	memcpy(ifi + 2, &type, 2);
	memcpy(ifi + 4, &index, 4);
	memcpy(ifi + 8, &flags, 4);
	m_begin(LB_RTM_NEWLINK, LB_NLM_F_MULTI, 7);
	m_raw(ifi, sizeof(ifi));
	m_attr(3, name, strlen(name) + 1);
	m_attr(4, &mtu, 4);
	m_attr(1, mac, 6);
	m_attr(16, &op, 1);
	m_attr(33, &c, 1);
	/* IFLA_LINKINFO { IFLA_INFO_KIND "veth" } */
	memset(li, 0, sizeof(li));
	memcpy(li, &l, 2);
	memcpy(li + 2, &t, 2);
	memcpy(li + 4, "veth", 5);
	m_attr(18 | 0x8000, li, 12);
	m_attr(56, "0000:00:03.0", 13);
	m_attr(57, "pci", 4);
	m_end();
}

static void test_requests(void)
{
	uint8_t b[LB_NL_REQ_MAX];
	size_t n, al;
	const uint8_t *a;

	TEST("nlmsg/req-getlink") {
		CHECK_INT(lb_nl_req_getlink(b, sizeof(b), 42, &n), 0);
		CHECK_INT(n, 16 + 16 + 8);
		CHECK_INT(rd32(b), n);
		CHECK_INT(rd16(b + 4), LB_RTM_GETLINK);
		CHECK_INT(rd16(b + 6), LB_NLM_F_REQUEST | LB_NLM_F_DUMP);
		CHECK_INT(rd32(b + 8), 42);
		CHECK_INT(b[16], 0);                     /* AF_UNSPEC */
		CHECK((a = attr(b + 32, n - 32, 29, &al)) && al == 4 && rd32(a) == 8);
	}
	TEST("nlmsg/req-setlink-up") {
		CHECK_INT(lb_nl_req_setlink(b, sizeof(b), 1, 3, 1, 0, &n), 0);
		CHECK_INT(n, 32);
		CHECK_INT(rd16(b + 4), LB_RTM_NEWLINK);
		CHECK_INT(rd16(b + 6), LB_NLM_F_REQUEST | LB_NLM_F_ACK);
		CHECK_INT(rd32(b + 16 + 4), 3);          /* ifi_index */
		CHECK_INT(rd32(b + 16 + 8), LB_IFF_UP);  /* ifi_flags */
		CHECK_INT(rd32(b + 16 + 12), LB_IFF_UP); /* ifi_change */
	}
	TEST("nlmsg/req-newvlan") {
		const uint8_t *li, *d;
		size_t lil, dl;

		CHECK_INT(lb_nl_req_newvlan(b, sizeof(b), 7, 3, "eth0.100", 100, &n), 0);
		CHECK_INT(rd32(b), n);
		CHECK_INT(rd16(b + 4), LB_RTM_NEWLINK);
		CHECK_INT(rd16(b + 6), LB_NLM_F_REQUEST | LB_NLM_F_ACK | LB_NLM_F_CREATE | LB_NLM_F_EXCL);
		CHECK_INT(rd32(b + 16 + 4), 0);          /* a new link: no index */
		CHECK((a = attr(b + 32, n - 32, 5, &al)) && al == 4 && rd32(a) == 3);   /* IFLA_LINK */
		CHECK((a = attr(b + 32, n - 32, 3, &al)) && al == 9 && !memcmp(a, "eth0.100", 9));
		CHECK((li = attr(b + 32, n - 32, 18, &lil)) != NULL);                   /* IFLA_LINKINFO */
		if (li) {
			CHECK((a = attr(li, lil, 1, &al)) && al == 5 && !memcmp(a, "vlan", 5));
			CHECK((d = attr(li, lil, 2, &dl)) != NULL);                     /* IFLA_INFO_DATA */
			if (d)
				CHECK((a = attr(d, dl, 1, &al)) && al == 2 && rd16(a) == 100);
		}
		CHECK_INT(lb_nl_req_newvlan(b, sizeof(b), 7, 3, "eth0.0", 0, &n), -EINVAL);
		CHECK_INT(lb_nl_req_newvlan(b, sizeof(b), 7, 3, "eth0.4095", 4095, &n), -EINVAL);
		CHECK_INT(lb_nl_req_newvlan(b, sizeof(b), 7, 0, "x.5", 5, &n), -EINVAL);
		CHECK_INT(lb_nl_req_newvlan(b, sizeof(b), 7, 3, "a-name-too-long.5", 5, &n), -EINVAL);
		CHECK_INT(lb_nl_req_newvlan(b, sizeof(b), 7, 3, "", 5, &n), -EINVAL);
		CHECK_INT(lb_nl_req_newvlan(b, 40, 7, 3, "eth0.5", 5, &n), -ENOSPC);
	}
	TEST("nlmsg/req-setlink-mtu") {
		CHECK_INT(lb_nl_req_setlink(b, sizeof(b), 1, 3, -1, 1400, &n), 0);
		CHECK_INT(n, 40);
		CHECK_INT(rd32(b + 16 + 12), 0);         /* flags untouched */
		CHECK((a = attr(b + 32, n - 32, 4, &al)) && al == 4 && rd32(a) == 1400);
		CHECK_INT(lb_nl_req_setlink(b, sizeof(b), 1, 3, -1, 67, &n), -EINVAL);
		CHECK_INT(lb_nl_req_setlink(b, sizeof(b), 1, 0, 1, 0, &n), -EINVAL);
	}
	TEST("nlmsg/req-addaddr") {
		CHECK_INT(lb_nl_req_addaddr(b, sizeof(b), 9, 2, ip("10.0.2.15"), 24,
					    ip("10.0.2.255"), 0, &n), 0);
		CHECK_INT(n, 16 + 8 + 3 * 8);
		CHECK_INT(rd16(b + 4), LB_RTM_NEWADDR);
		CHECK_INT(rd16(b + 6), LB_NLM_F_REQUEST | LB_NLM_F_ACK | LB_NLM_F_CREATE |
			  LB_NLM_F_REPLACE);
		CHECK_INT(b[16], 2);                     /* AF_INET */
		CHECK_INT(b[17], 24);
		CHECK_INT(b[18], 0x80);                  /* IFA_F_PERMANENT */
		CHECK_INT(rd32(b + 20), 2);
		CHECK((a = attr(b + 24, n - 24, 2, &al)) && al == 4 && rd32(a) == ip("10.0.2.15"));
		CHECK((a = attr(b + 24, n - 24, 1, &al)) && al == 4 && rd32(a) == ip("10.0.2.15"));
		CHECK((a = attr(b + 24, n - 24, 4, &al)) && al == 4 && rd32(a) == ip("10.0.2.255"));
		CHECK(!attr(b + 24, n - 24, 6, &al));
		CHECK_INT(lb_nl_req_addaddr(b, sizeof(b), 9, 2, ip("10.0.2.15"), 24, 0, 600, &n), 0);
		CHECK_INT(b[18], 0);
		CHECK((a = attr(b + 24, n - 24, 6, &al)) && al == 16 && rd32(a) == 600 &&
		      rd32(a + 4) == 600);
		CHECK(!attr(b + 24, n - 24, 4, &al));
		CHECK_INT(lb_nl_req_addaddr(b, sizeof(b), 9, 2, ip("10.0.2.15"), 33, 0, 0, &n), -EINVAL);
		CHECK_INT(lb_nl_req_addaddr(b, sizeof(b), 9, 2, 0, 24, 0, 0, &n), -EINVAL);
	}
	TEST("nlmsg/req-addaddr6") {
		uint8_t a6[16] = { 0xfd, 0, 0, 0x77, [15] = 0x17 }, z[16] = { 0 };
		CHECK_INT(lb_nl_req_addaddr6(b, sizeof(b), 9, 2, a6, 128, 0, 0, 1, &n), 0);
		CHECK_INT(n, 16 + 8 + 20);
		CHECK_INT(b[16], 10);                    /* AF_INET6 */
		CHECK_INT(b[17], 128);
		CHECK_INT(b[18], 0x80 | 0x02);           /* permanent, nodad */
		CHECK((a = attr(b + 24, n - 24, 1, &al)) && al == 16 && !memcmp(a, a6, 16));
		CHECK(!attr(b + 24, n - 24, 6, &al));
		CHECK_INT(lb_nl_req_addaddr6(b, sizeof(b), 9, 2, a6, 64, 3600, 1800, 0, &n), 0);
		CHECK_INT(b[18], 0);
		CHECK((a = attr(b + 24, n - 24, 6, &al)) && al == 16 && rd32(a) == 1800 &&
		      rd32(a + 4) == 3600);
		CHECK_INT(lb_nl_req_addaddr6(b, sizeof(b), 9, 2, z, 128, 0, 0, 1, &n), -EINVAL);
		CHECK_INT(lb_nl_req_addaddr6(b, sizeof(b), 9, 2, a6, 129, 0, 0, 1, &n), -EINVAL);
		CHECK_INT(lb_nl_req_addaddr6(b, sizeof(b), 9, 2, a6, 64, 100, 200, 0, &n), -EINVAL);
		CHECK_INT(lb_nl_req_addaddr6(b, 40, 9, 2, a6, 128, 0, 0, 1, &n), -ENOSPC);
	}
	TEST("nlmsg/req-addroute") {
		CHECK_INT(lb_nl_req_addroute(b, sizeof(b), 5, 2, 0, 0, ip("10.0.2.2"),
					     ip("10.0.2.15"), 0, &n), 0);
		CHECK_INT(n, 16 + 12 + 3 * 8);
		CHECK_INT(rd16(b + 4), LB_RTM_NEWROUTE);
		CHECK_INT(b[16], 2);      /* family */
		CHECK_INT(b[17], 0);      /* dst_len: default */
		CHECK_INT(b[20], 254);    /* main table */
		CHECK_INT(b[21], 16);     /* proto dhcp */
		CHECK_INT(b[22], 0);      /* scope universe */
		CHECK_INT(b[23], 1);      /* unicast */
		CHECK_INT(rd32(b + 24), 0);
		CHECK((a = attr(b + 28, n - 28, 5, &al)) && al == 4 && rd32(a) == ip("10.0.2.2"));
		CHECK((a = attr(b + 28, n - 28, 7, &al)) && al == 4 && rd32(a) == ip("10.0.2.15"));
		CHECK((a = attr(b + 28, n - 28, 4, &al)) && al == 4 && rd32(a) == 2);
		CHECK(!attr(b + 28, n - 28, 1, &al));
		CHECK_INT(lb_nl_req_addroute(b, sizeof(b), 5, 2, 0, 0, ip("192.168.1.1"), 0, 1, &n), 0);
		CHECK_INT(rd32(b + 24), 4);              /* RTNH_F_ONLINK */
		CHECK_INT(lb_nl_req_addroute(b, sizeof(b), 5, 2, ip("10.0.0.0"), 8, 0, 0, 0, &n), 0);
		CHECK_INT(b[17], 8);
		CHECK_INT(b[22], 253);                   /* a link route: scope link */
		CHECK((a = attr(b + 28, n - 28, 1, &al)) && rd32(a) == ip("10.0.0.0"));
		CHECK_INT(lb_nl_req_addroute(b, sizeof(b), 5, 2, ip("10.0.0.1"), 8, 0, 0, 0, &n), -EINVAL);
	}
	TEST("nlmsg/req-nospace") {
		for (size_t cap = 0; cap < 52; cap++) {
			n = 12345;
			CHECK_INT(lb_nl_req_addroute(b, cap, 5, 2, 0, 0, ip("10.0.2.2"), ip("10.0.2.15"),
						     0, &n), -ENOSPC);
			CHECK_INT(n, 12345);
		}
		CHECK_INT(lb_nl_req_addroute(b, 52, 5, 2, 0, 0, ip("10.0.2.2"), ip("10.0.2.15"), 0, &n), 0);
	}
	TEST("nlmsg/masks") {
		CHECK_INT(lb_ipv4_prefix(ip("255.255.255.0")), 24);
		CHECK_INT(lb_ipv4_prefix(ip("255.255.240.0")), 20);
		CHECK_INT(lb_ipv4_prefix(0), 0);
		CHECK_INT(lb_ipv4_prefix(ip("255.255.255.255")), 32);
		CHECK_INT(lb_ipv4_prefix(ip("255.0.255.0")), -EINVAL);
		CHECK_INT(lb_ipv4_prefix(ip("0.255.255.255")), -EINVAL);
		CHECK(lb_ipv4_mask(24) == ip("255.255.255.0"));
		CHECK(lb_ipv4_mask(0) == 0);
		CHECK(lb_ipv4_mask(32) == ip("255.255.255.255"));
		CHECK(lb_ipv4_mask(1) == ip("128.0.0.0"));
	}
}

static void test_parse(void)
{
	struct lb_nl_msg m;
	struct lb_nl_link l;
	size_t off;
	uint8_t two[8192];

	TEST("nlmsg/parse-link") {
		link_msg(2, "eth0", 1);
		off = 0;
		CHECK_INT(lb_nl_next(mb, mn, &off, &m), 1);
		CHECK_INT(off, mn);
		CHECK_INT(m.type, LB_RTM_NEWLINK);
		CHECK_INT(m.seq, 7);
		CHECK_INT(lb_nl_parse_link(&m, &l), 0);
		CHECK_INT(l.index, 2);
		CHECK_STR(l.name, "eth0");
		CHECK_INT(l.type, 1);
		CHECK_INT(l.mtu, 1500);
		CHECK_INT(l.hwaddr_len, 6);
		CHECK(l.hwaddr[0] == 0x52 && l.hwaddr[5] == 0x56);
		CHECK_INT(l.carrier, 1);
		CHECK_INT(l.operstate, 6);
		CHECK_STR(l.kind, "veth");
		CHECK_STR(l.parent, "0000:00:03.0");
		CHECK_STR(l.parent_bus, "pci");
		CHECK_INT(l.master, 0);
		CHECK(lb_nl_link_carrier(&l));
		CHECK_INT(lb_nl_next(mb, mn, &off, &m), 0);
	}
	TEST("nlmsg/parse-link-no-carrier") {
		link_msg(3, "eth1", 0);
		off = 0;
		CHECK_INT(lb_nl_next(mb, mn, &off, &m), 1);
		CHECK_INT(lb_nl_parse_link(&m, &l), 0);
		CHECK(!lb_nl_link_carrier(&l));
		l.carrier = -1;                 /* old kernels: IFF_LOWER_UP only */
		l.flags |= LB_IFF_LOWER_UP;
		CHECK(lb_nl_link_carrier(&l));
		l.flags &= ~(uint32_t)LB_IFF_UP; /* down: no carrier whatever it says */
		CHECK(!lb_nl_link_carrier(&l));
	}
	TEST("nlmsg/walk-two-and-done") {
		size_t n1, n;
		link_msg(2, "eth0", 1);
		memcpy(two, mb, mn);
		n1 = mn;
		link_msg(3, "eth1", 0);
		memcpy(two + n1, mb, mn);
		n = n1 + mn;
		m_begin(LB_NLMSG_DONE, LB_NLM_F_MULTI, 7);
		m_raw("\0\0\0\0", 4);
		m_end();
		memcpy(two + n, mb, mn);
		n += mn;
		off = 0;
		CHECK_INT(lb_nl_next(two, n, &off, &m), 1);
		CHECK_INT(lb_nl_parse_link(&m, &l), 0);
		CHECK_STR(l.name, "eth0");
		CHECK_INT(lb_nl_next(two, n, &off, &m), 1);
		CHECK_INT(lb_nl_parse_link(&m, &l), 0);
		CHECK_STR(l.name, "eth1");
		CHECK_INT(lb_nl_next(two, n, &off, &m), 1);
		CHECK_INT(m.type, LB_NLMSG_DONE);
		CHECK_INT(lb_nl_parse_link(&m, &l), -ENOMSG);
		CHECK_INT(lb_nl_next(two, n, &off, &m), 0);
	}
	TEST("nlmsg/walk-bad-lengths") {
		link_msg(2, "eth0", 1);
		off = 0;
		CHECK_INT(lb_nl_next(mb, 10, &off, &m), -EPROTO);       /* short header */
		off = 0;
		CHECK_INT(lb_nl_next(mb, mn - 1, &off, &m), -EPROTO);   /* len past the end */
		uint32_t small = 8;
		memcpy(mb, &small, 4);
		off = 0;
		CHECK_INT(lb_nl_next(mb, mn, &off, &m), -EPROTO);       /* len < header */
		/* an unaligned last message without padding is still whole */
		link_msg(2, "eth0", 1);
		uint32_t odd = (uint32_t)mn - 3;
		memcpy(mb, &odd, 4);
		off = 0;
		CHECK_INT(lb_nl_next(mb, odd, &off, &m), 1);
		CHECK_INT(off, odd);
		CHECK_INT(lb_nl_next(mb, odd, &off, &m), 0);
	}
	TEST("nlmsg/parse-link-malformed") {
		uint8_t ifi[16] = { 0 };
		int idx = 4;
		uint16_t big = 200;

		memcpy(ifi + 4, &idx, 4);
		/* a name without its NUL */
		m_begin(LB_RTM_NEWLINK, 0, 1);
		m_raw(ifi, 16);
		m_attr(3, "eth0", 4);
		m_end();
		off = 0;
		lb_nl_next(mb, mn, &off, &m);
		CHECK_INT(lb_nl_parse_link(&m, &l), -EPROTO);
		/* a name longer than IFNAMSIZ */
		m_begin(LB_RTM_NEWLINK, 0, 1);
		m_raw(ifi, 16);
		m_attr(3, "a-very-long-interface-name", 27);
		m_end();
		off = 0;
		lb_nl_next(mb, mn, &off, &m);
		CHECK_INT(lb_nl_parse_link(&m, &l), -EPROTO);
		/* MTU of the wrong size */
		m_begin(LB_RTM_NEWLINK, 0, 1);
		m_raw(ifi, 16);
		m_attr(3, "eth0", 5);
		m_attr(4, "\1\2", 2);
		m_end();
		off = 0;
		lb_nl_next(mb, mn, &off, &m);
		CHECK_INT(lb_nl_parse_link(&m, &l), -EPROTO);
		/* an attribute overrunning the message */
		m_begin(LB_RTM_NEWLINK, 0, 1);
		m_raw(ifi, 16);
		m_attr(3, "eth0", 5);
		m_attr(1, "\1\2\3\4\5\6", 6);
		memcpy(mb + mn - 12, &big, 2);
		m_end();
		off = 0;
		lb_nl_next(mb, mn, &off, &m);
		CHECK_INT(lb_nl_parse_link(&m, &l), -EPROTO);
		/* no name at all; index 0; a header shorter than ifinfomsg */
		m_begin(LB_RTM_NEWLINK, 0, 1);
		m_raw(ifi, 16);
		m_end();
		off = 0;
		lb_nl_next(mb, mn, &off, &m);
		CHECK_INT(lb_nl_parse_link(&m, &l), -EPROTO);
		memset(ifi, 0, sizeof(ifi));
		m_begin(LB_RTM_NEWLINK, 0, 1);
		m_raw(ifi, 16);
		m_attr(3, "eth0", 5);
		m_end();
		off = 0;
		lb_nl_next(mb, mn, &off, &m);
		CHECK_INT(lb_nl_parse_link(&m, &l), -EPROTO);
		m.len = 15;
		CHECK_INT(lb_nl_parse_link(&m, &l), -EPROTO);
		/* a hardware address longer than any */
		uint8_t hw[40] = { 0 };
		memcpy(ifi + 4, &idx, 4);
		m_begin(LB_RTM_NEWLINK, 0, 1);
		m_raw(ifi, 16);
		m_attr(3, "eth0", 5);
		m_attr(1, hw, sizeof(hw));
		m_end();
		off = 0;
		lb_nl_next(mb, mn, &off, &m);
		CHECK_INT(lb_nl_parse_link(&m, &l), -EPROTO);
	}
	TEST("nlmsg/parse-link-every-cut") {
		int good = 0, bad = 0;
		link_msg(2, "eth0", 1);
		uint8_t full[512];
		size_t fn = mn;
		memcpy(full, mb, fn);
		for (size_t cut = 16; cut <= fn; cut++) {
			uint8_t *p = malloc(cut);     /* exact size: ASan sees overreads */
			uint32_t l32 = (uint32_t)cut;
			memcpy(p, full, cut);
			memcpy(p, &l32, 4);
			off = 0;
			if (lb_nl_next(p, cut, &off, &m) == 1) {
				int r = lb_nl_parse_link(&m, &l);
				if (!r)
					good++;
				else if (r == -EPROTO)
					bad++;
				else
					CHECK(0);
			}
			free(p);
		}
		CHECK(bad > 0);
		CHECK(good > 0);
	}
	TEST("nlmsg/parse-error") {
		int e = 1;
		char msg[128];
		int32_t err = -17;
		uint8_t req[16] = { 0 };
		uint32_t rl = 40;

		/* an ACK, capped, no TLVs */
		int32_t zero = 0;
		m_begin(LB_NLMSG_ERROR, LB_NLM_F_CAPPED, 3);
		m_raw(&zero, 4);
		m_raw(req, 16);
		m_end();
		off = 0;
		lb_nl_next(mb, mn, &off, &m);
		CHECK_INT(lb_nl_parse_error(&m, &e, msg, sizeof(msg)), 0);
		CHECK_INT(e, 0);
		CHECK_STR(msg, "");
		/* -EEXIST, request echoed in full (40 bytes), then a message TLV */
		uint8_t echo[40] = { 0 };
		memcpy(echo, &rl, 4);
		m_begin(LB_NLMSG_ERROR, LB_NLM_F_ACK_TLVS, 3);
		m_raw(&err, 4);
		m_raw(echo, 40);
		m_attr(1, "Address already assigned", 25);
		m_end();
		off = 0;
		lb_nl_next(mb, mn, &off, &m);
		CHECK_INT(lb_nl_parse_error(&m, &e, msg, sizeof(msg)), 0);
		CHECK_INT(e, -17);
		CHECK_STR(msg, "Address already assigned");
		/* the same, capped */
		memcpy(echo, &(uint32_t){ 16 }, 4);
		m_begin(LB_NLMSG_ERROR, LB_NLM_F_ACK_TLVS | LB_NLM_F_CAPPED, 3);
		m_raw(&err, 4);
		m_raw(echo, 16);
		m_attr(1, "Invalid prefix", 15);
		m_end();
		off = 0;
		lb_nl_next(mb, mn, &off, &m);
		CHECK_INT(lb_nl_parse_error(&m, &e, msg, sizeof(msg)), 0);
		CHECK_STR(msg, "Invalid prefix");
		/* a control character in the message: dropped, errno kept */
		m_begin(LB_NLMSG_ERROR, LB_NLM_F_ACK_TLVS | LB_NLM_F_CAPPED, 3);
		m_raw(&err, 4);
		m_raw(echo, 16);
		m_attr(1, "bad\033[2J", 8);
		m_end();
		off = 0;
		lb_nl_next(mb, mn, &off, &m);
		CHECK_INT(lb_nl_parse_error(&m, &e, msg, sizeof(msg)), 0);
		CHECK_STR(msg, "");
		CHECK_INT(e, -17);
		/* echoed length past the message; positive error; too short */
		memcpy(echo, &(uint32_t){ 4000 }, 4);
		m_begin(LB_NLMSG_ERROR, LB_NLM_F_ACK_TLVS, 3);
		m_raw(&err, 4);
		m_raw(echo, 16);
		m_end();
		off = 0;
		lb_nl_next(mb, mn, &off, &m);
		CHECK_INT(lb_nl_parse_error(&m, &e, msg, sizeof(msg)), -EPROTO);
		int32_t pos = 5;
		m_begin(LB_NLMSG_ERROR, 0, 3);
		m_raw(&pos, 4);
		m_raw(req, 16);
		m_end();
		off = 0;
		lb_nl_next(mb, mn, &off, &m);
		CHECK_INT(lb_nl_parse_error(&m, &e, msg, sizeof(msg)), -EPROTO);
		m.len = 8;
		CHECK_INT(lb_nl_parse_error(&m, &e, msg, sizeof(msg)), -EPROTO);
	}
}

static void test_lease_text(void)
{
	struct lb_net_lease r;
	char b[256];

	TEST("netif/resolv-conf") {
		memset(&r, 0, sizeof(r));
		CHECK_INT(lb_net_resolv_conf(&r, b, sizeof(b)), -ENOENT);
		r.dhcp.ndns = 2;
		r.dhcp.dns[0] = ip("10.0.0.53");
		r.dhcp.dns[1] = ip("10.0.0.54");
		strcpy(r.dhcp.domain, "lab.example");
		int n = lb_net_resolv_conf(&r, b, sizeof(b));
		CHECK_INT(n, (int)strlen(b));
		CHECK_STR(b, "search lab.example\nnameserver 10.0.0.53\nnameserver 10.0.0.54\n");
		strcpy(r.dhcp.domain, "bad domain;x");     /* not a name: no search line */
		lb_net_resolv_conf(&r, b, sizeof(b));
		CHECK_STR(b, "nameserver 10.0.0.53\nnameserver 10.0.0.54\n");
		CHECK_INT(lb_net_resolv_conf(&r, b, 30), -ENOSPC);
	}
	TEST("netif/candidate") {
		struct lb_net_link l;
		memset(&l, 0, sizeof(l));
		l.nl.type = LB_ARPHRD_ETHER;
		l.nl.hwaddr_len = 6;
		strcpy(l.nl.name, "enp1s0");
		CHECK(lb_net_candidate(&l, NULL));
		CHECK(lb_net_candidate(&l, "enp*"));
		CHECK(!lb_net_candidate(&l, "eth*"));
		l.nl.master = 5;                 /* a bond or bridge port */
		CHECK(!lb_net_candidate(&l, NULL));
		l.nl.master = 0;
		strcpy(l.nl.kind, "ifb");
		CHECK(!lb_net_candidate(&l, NULL));
		strcpy(l.nl.kind, "veth");
		CHECK(lb_net_candidate(&l, NULL));
		l.nl.flags = LB_IFF_LOOPBACK;
		CHECK(!lb_net_candidate(&l, NULL));
		l.nl.flags = 0;
		l.nl.type = 772;
		CHECK(!lb_net_candidate(&l, NULL));
	}
}

/* The same code against the running kernel, in a network namespace of our
 * own (this process only: nothing else shares it). */
static void test_kernel(void)
{
	struct lb_net_link *v = NULL;
	size_t n = 0;
	char err[256];
	int lo = -1;

	TEST("netif/kernel") {
		if (unshare(CLONE_NEWNET)) {
			SKIP("no network namespace (%s): needs root", strerror(errno));
			continue;
		}
		CHECK_INT(lb_net_links(&v, &n, err, sizeof(err)), 0);
		for (size_t i = 0; i < n; i++)
			if (!strcmp(v[i].nl.name, "lo"))
				lo = v[i].nl.index;
		CHECK(lo > 0);
		CHECK(n >= 1);
		if (n)
			CHECK(!lb_net_candidate(&v[0], NULL));  /* loopback is not */
		free(v);
		v = NULL;
		if (lo <= 0)
			continue;
		CHECK_INT(lb_net_set_up(lo, 1, err, sizeof(err)), 0);
		CHECK_INT(lb_net_set_mtu(lo, 9000, err, sizeof(err)), 0);
		CHECK_INT(lb_net_add_addr(lo, ip("10.9.8.7"), 24, ip("10.9.8.255"), err, sizeof(err)), 0);
		/* the same again: replaced, not an error */
		CHECK_INT(lb_net_add_addr(lo, ip("10.9.8.7"), 24, ip("10.9.8.255"), err, sizeof(err)), 0);
		CHECK_INT(lb_net_add_default_route(lo, ip("10.9.8.1"), ip("10.9.8.7"), 24, err,
						   sizeof(err)), 0);
		/* a gateway outside the prefix: onlink */
		CHECK_INT(lb_net_add_default_route(lo, ip("192.0.2.1"), ip("10.9.8.7"), 24, err,
						   sizeof(err)), 0);
		uint8_t a6[16] = { 0xfd, 0, 0, 0x77, [15] = 0x17 };
		CHECK_INT(lb_net_add_addr6(lo, a6, 128, err, sizeof(err)), 0);
		CHECK_INT(lb_net_links(&v, &n, err, sizeof(err)), 0);
		for (size_t i = 0; i < n; i++) {
			if (v[i].nl.index != lo)
				continue;
			CHECK(v[i].nl.flags & LB_IFF_UP);
			CHECK(lb_nl_link_carrier(&v[i].nl));
			CHECK_INT(v[i].nl.mtu, 9000);
		}
		free(v);
		v = NULL;
		/* errors carry the kernel's errno (and words when it has some) */
		CHECK_INT(lb_net_set_up(99999, 1, err, sizeof(err)), -ENODEV);
		CHECK(strstr(err, "set link up: ") == err);
		CHECK_INT(lb_net_add_addr(99999, ip("10.1.1.1"), 24, 0, err, sizeof(err)), -ENODEV);
		printf("# kernel said: %s\n", err);
		CHECK(strstr(err, "add address: No such device") == err);
		CHECK_INT(lb_net_set_mtu(99999, 1400, err, sizeof(err)), -ENODEV);
		CHECK(lb_net_add_default_route(99999, ip("10.1.1.1"), ip("10.1.1.2"), 24, err,
					       sizeof(err)) < 0);
		CHECK(strstr(err, "add default route: ") == err);
		printf("# kernel said: %s\n", err);
	}
}

int main(void)
{
	test_requests();
	test_parse();
	test_lease_text();
	test_kernel();
	return t_done();
}
