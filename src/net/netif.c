/* Network bring-up: rtnetlink links and a DHCPv4 client. See netif.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <netinet/in.h>
#include <netpacket/packet.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "io.h"
#include "netif.h"
#include "netio.h"
#include "pxelinux.h"

#define LINKS_MAX     256
#define NL_TIMEOUT_MS 2000
#define CARRIER_POLL_MS 100
#define COLLECT_MS    1000     /* more offers after one without a boot file */
#define REQ_SENDS_MAX 3        /* REQUEST sends before DISCOVER again */
#define REBOOT_SENDS_MAX 2     /* INIT-REBOOT REQUEST sends */
#define ETH_P_IP_     0x0800
#define PACKET_OUTGOING_ 4
#define TP_STATUS_CSUMNOTREADY_ (1u << 3)
#define TP_STATUS_VLAN_VALID_   (1u << 4)
#define SO_ATTACH_FILTER_ 26
#define SO_BINDTODEVICE_  25
#define RX_MAX        4096

struct sockaddr_nl_ {
	sa_family_t nl_family;
	unsigned short nl_pad;
	uint32_t nl_pid;
	uint32_t nl_groups;
};

struct tpacket_auxdata_ {
	uint32_t tp_status, tp_len, tp_snaplen;
	uint16_t tp_mac, tp_net, tp_vlan_tci, tp_vlan_tpid;
};

struct sock_filter_ {
	uint16_t code;
	uint8_t jt, jf;
	uint32_t k;
};

struct sock_fprog_ {
	unsigned short len;
	struct sock_filter_ *filter;
};

const char *lb_ipv4_str(uint32_t a, char buf[16])
{
	struct in_addr in = { a };

	if (!inet_ntop(AF_INET, &in, buf, 16))
		snprintf(buf, 16, "?");
	return buf;
}

static int domain_ok(const char *s)
{
	if (!*s || strlen(s) > 253)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '.' || *s == '_'))
			return 0;
	return 1;
}

int lb_net_resolv_conf(const struct lb_net_lease *r, char *buf, size_t cap)
{
	size_t k = 0;
	char a[16];
	int n;

	if (!r->dhcp.ndns)
		return -ENOENT;
	if (!cap)
		return -ENOSPC;
	buf[0] = 0;
	if (domain_ok(r->dhcp.domain)) {
		n = snprintf(buf, cap, "search %s\n", r->dhcp.domain);
		if (n < 0 || (size_t)n >= cap)
			return -ENOSPC;
		k = (size_t)n;
	}
	for (unsigned i = 0; i < r->dhcp.ndns && i < 4; i++) {
		n = snprintf(buf + k, cap - k, "nameserver %s\n", lb_ipv4_str(r->dhcp.dns[i], a));
		if (n < 0 || (size_t)n >= cap - k)
			return -ENOSPC;
		k += (size_t)n;
	}
	return (int)k;
}

/* --- rtnetlink I/O --------------------------------------------------------- */

static uint32_t nl_seq;

static int nl_open(void)
{
	struct sockaddr_nl_ sa = { .nl_family = AF_NETLINK };
	int fd, one = 1;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, LB_NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int e = -errno;
		close(fd);
		return e;
	}
	/* the kernel's own words in errors; no echo of our request */
	setsockopt(fd, LB_SOL_NETLINK, LB_NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, LB_SOL_NETLINK, LB_NETLINK_CAP_ACK, &one, sizeof(one));
	return fd;
}

/* One datagram from the kernel (not from another process) within the
 * deadline. Returns its length, or negative errno. */
static ssize_t nl_recv(int fd, uint8_t *buf, size_t cap, uint64_t deadline)
{
	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		struct sockaddr_nl_ from;
		socklen_t fl = sizeof(from);
		uint64_t now = lb_now_ms();
		ssize_t n;
		int r;

		if (now >= deadline)
			return -ETIMEDOUT;
		r = poll(&pfd, 1, (int)(deadline - now));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (!r)
			return -ETIMEDOUT;
		n = recvfrom(fd, buf, cap, MSG_TRUNC | MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return -errno;
		if ((size_t)n > cap)
			return -EMSGSIZE;
		if (fl < sizeof(from) || from.nl_family != AF_NETLINK || from.nl_pid != 0)
			continue;
		return n;
	}
}

static int nl_send(int fd, const uint8_t *req, size_t len)
{
	struct sockaddr_nl_ to = { .nl_family = AF_NETLINK };

	for (;;) {
		ssize_t n = sendto(fd, req, len, 0, (struct sockaddr *)&to, sizeof(to));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		return (size_t)n == len ? 0 : -EIO;
	}
}

/* Send a request that asks for an ACK, wait for it. */
static int nl_transact(const uint8_t *req, size_t len, uint32_t seq, char *kmsg, size_t kmsgsz)
{
	uint8_t *buf;
	int fd, rc;
	uint64_t deadline = lb_now_ms() + NL_TIMEOUT_MS;

	kmsg[0] = 0;
	if ((fd = nl_open()) < 0)
		return fd;
	if (!(buf = malloc(LB_NL_MSG_MAX))) {
		close(fd);
		return -ENOMEM;
	}
	if ((rc = nl_send(fd, req, len)))
		goto out;
	for (;;) {
		ssize_t n = nl_recv(fd, buf, LB_NL_MSG_MAX, deadline);
		struct lb_nl_msg m;
		size_t off = 0;
		int r, e;

		if (n < 0) {
			rc = (int)n;
			goto out;
		}
		while ((r = lb_nl_next(buf, (size_t)n, &off, &m)) > 0) {
			if (m.seq != seq || m.type != LB_NLMSG_ERROR)
				continue;
			if ((rc = lb_nl_parse_error(&m, &e, kmsg, kmsgsz)))
				goto out;
			rc = e;
			goto out;
		}
		if (r < 0) {
			rc = r;
			goto out;
		}
	}
out:
	free(buf);
	close(fd);
	return rc;
}

static int op_err(int rc, const char *what, const char *kmsg, char *err, size_t errsz)
{
	if (kmsg[0])
		lb_seterr(err, errsz, "%s: %s (%s)", what, strerror(-rc), kmsg);
	else
		lb_seterr(err, errsz, "%s: %s", what, strerror(-rc));
	return rc;
}

int lb_net_set_up(int ifindex, int up, char *err, size_t errsz)
{
	uint8_t req[LB_NL_REQ_MAX];
	char kmsg[160];
	size_t len;
	uint32_t seq = ++nl_seq;
	int rc;

	if ((rc = lb_nl_req_setlink(req, sizeof(req), seq, ifindex, up ? 1 : 0, 0, &len)))
		return op_err(rc, "set link up", "", err, errsz);
	if ((rc = nl_transact(req, len, seq, kmsg, sizeof(kmsg))))
		return op_err(rc, up ? "set link up" : "set link down", kmsg, err, errsz);
	return 0;
}

int lb_net_set_mtu(int ifindex, uint32_t mtu, char *err, size_t errsz)
{
	uint8_t req[LB_NL_REQ_MAX];
	char kmsg[160];
	size_t len;
	uint32_t seq = ++nl_seq;
	int rc;

	if ((rc = lb_nl_req_setlink(req, sizeof(req), seq, ifindex, -1, mtu, &len)))
		return op_err(rc, "set MTU", "", err, errsz);
	if ((rc = nl_transact(req, len, seq, kmsg, sizeof(kmsg))))
		return op_err(rc, "set MTU", kmsg, err, errsz);
	return 0;
}

int lb_net_add_addr(int ifindex, uint32_t addr, unsigned prefix, uint32_t brd,
		    char *err, size_t errsz)
{
	uint8_t req[LB_NL_REQ_MAX];
	char kmsg[160];
	size_t len;
	uint32_t seq = ++nl_seq;
	int rc;

	if ((rc = lb_nl_req_addaddr(req, sizeof(req), seq, ifindex, addr, prefix, brd, 0, &len)))
		return op_err(rc, "add address", "", err, errsz);
	if ((rc = nl_transact(req, len, seq, kmsg, sizeof(kmsg))))
		return op_err(rc, "add address", kmsg, err, errsz);
	return 0;
}

int lb_net_add_default_route(int ifindex, uint32_t gw, uint32_t src, unsigned prefix,
			     char *err, size_t errsz)
{
	uint8_t req[LB_NL_REQ_MAX];
	char kmsg[160];
	size_t len;
	uint32_t seq = ++nl_seq, m = lb_ipv4_mask(prefix);
	int onlink = !src || (gw & m) != (src & m), rc;

	if ((rc = lb_nl_req_addroute(req, sizeof(req), seq, ifindex, 0, 0, gw, src, onlink, &len)))
		return op_err(rc, "add default route", "", err, errsz);
	if ((rc = nl_transact(req, len, seq, kmsg, sizeof(kmsg))))
		return op_err(rc, "add default route", kmsg, err, errsz);
	return 0;
}

/* --- links ------------------------------------------------------------------ */

static int link_cmp(const void *a, const void *b)
{
	const struct lb_net_link *x = a, *y = b;

	if (x->devpath[0] && !y->devpath[0])
		return -1;
	if (!x->devpath[0] && y->devpath[0])
		return 1;
	if (x->devpath[0]) {
		int c = strcmp(x->devpath, y->devpath);
		if (c)
			return c;
	}
	return (x->nl.index > y->nl.index) - (x->nl.index < y->nl.index);
}

static void link_devpath(struct lb_net_link *l)
{
	char p[64], r[PATH_MAX];

	l->devpath[0] = 0;
	if (snprintf(p, sizeof(p), "/sys/class/net/%s/device", l->nl.name) >= (int)sizeof(p))
		return;
	if (!realpath(p, r) || strlen(r) >= sizeof(l->devpath))
		return;
	strcpy(l->devpath, r);
}

/* Dump every link (no sysfs, no sorting). */
static int dump_links(struct lb_net_link **out, size_t *nout, char *err, size_t errsz)
{
	struct lb_net_link *v = NULL;
	uint8_t req[LB_NL_REQ_MAX], *buf = NULL;
	size_t len, n = 0;
	int fd = -1, rc, tries = 0;

again:
	n = 0;
	if (fd >= 0)
		close(fd);
	if ((fd = nl_open()) < 0) {
		rc = fd;
		lb_seterr(err, errsz, "netlink: %s", strerror(-rc));
		goto fail;
	}
	if (!buf && !(buf = malloc(LB_NL_MSG_MAX))) {
		rc = -ENOMEM;
		lb_seterr(err, errsz, "out of memory");
		goto fail;
	}
	if (!v && !(v = calloc(LINKS_MAX, sizeof(*v)))) {
		rc = -ENOMEM;
		lb_seterr(err, errsz, "out of memory");
		goto fail;
	}
	uint32_t seq = ++nl_seq;
	uint64_t deadline = lb_now_ms() + NL_TIMEOUT_MS;
	int intr = 0;
	lb_nl_req_getlink(req, sizeof(req), seq, &len);
	if ((rc = nl_send(fd, req, len))) {
		lb_seterr(err, errsz, "netlink: list links: %s", strerror(-rc));
		goto fail;
	}
	for (;;) {
		ssize_t k = nl_recv(fd, buf, LB_NL_MSG_MAX, deadline);
		struct lb_nl_msg m;
		size_t off = 0;
		int r, e;

		if (k < 0) {
			rc = (int)k;
			lb_seterr(err, errsz, "netlink: list links: %s", strerror(-rc));
			goto fail;
		}
		while ((r = lb_nl_next(buf, (size_t)k, &off, &m)) > 0) {
			if (m.seq != seq)
				continue;
			if (m.flags & LB_NLM_F_DUMP_INTR)
				intr = 1;
			if (m.type == LB_NLMSG_DONE)
				goto done;
			if (m.type == LB_NLMSG_ERROR) {
				char km[160];
				if (!(rc = lb_nl_parse_error(&m, &e, km, sizeof(km))))
					rc = e ? e : -EPROTO;
				lb_seterr(err, errsz, "netlink: list links: %s", strerror(-rc));
				goto fail;
			}
			if (m.type != LB_RTM_NEWLINK)
				continue;
			if (n == LINKS_MAX) {
				rc = -E2BIG;
				lb_seterr(err, errsz, "netlink: more than %d links", LINKS_MAX);
				goto fail;
			}
			if ((rc = lb_nl_parse_link(&m, &v[n].nl))) {
				lb_seterr(err, errsz, "netlink: malformed link message");
				goto fail;
			}
			n++;
		}
		if (r < 0) {
			rc = r;
			lb_seterr(err, errsz, "netlink: malformed reply");
			goto fail;
		}
	}
done:
	if (intr && ++tries < 3)     /* links changed during the dump */
		goto again;
	close(fd);
	free(buf);
	*out = v;
	*nout = n;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	free(v);
	return rc;
}

int lb_net_links(struct lb_net_link **out, size_t *n, char *err, size_t errsz)
{
	int rc = dump_links(out, n, err, errsz);

	if (rc)
		return rc;
	for (size_t i = 0; i < *n; i++)
		link_devpath(&(*out)[i]);
	qsort(*out, *n, sizeof(**out), link_cmp);
	return 0;
}

int lb_net_candidate(const struct lb_net_link *l, const char *pattern)
{
	if (l->nl.type != LB_ARPHRD_ETHER || (l->nl.flags & LB_IFF_LOOPBACK))
		return 0;
	if (l->nl.master || l->nl.hwaddr_len != 6)
		return 0;
	/* Ethernet-typed but never on a LAN: traffic-shaping and dummy links */
	if (!strcmp(l->nl.kind, "ifb") || !strcmp(l->nl.kind, "dummy"))
		return 0;
	if (pattern && *pattern && fnmatch(pattern, l->nl.name, 0))
		return 0;
	return 1;
}

/* --- DHCPv4 over AF_PACKET ---------------------------------------------------- */

enum { S_CARRIER, S_REBOOT, S_SELECT, S_REQUEST, S_DONE, S_DEAD };

struct dl {
	struct lb_net_link link;
	int state;
	int fd;
	struct lb_dhcp4_client c;
	uint64_t t_start;          /* first DISCOVER/REQUEST, for secs */
	uint64_t next_tx, collect_until;
	unsigned sends, interval_ms, discovers;
	uint32_t server;           /* chosen offer's server id */
	struct lb_dhcp4_lease offer, ack;
	int have_offer;
	struct lb_dhcp4_lease proxy;
	int have_proxy;
	uint32_t ack_from;
	/* DHCPv6 */
	int v6;
	struct lb_dhcp6_client c6;
	struct lb_dhcp6_lease adv, reply;
	uint8_t from6[16];
	unsigned rt_ms;
};

static uint32_t rnd32(void)
{
	uint32_t v;
	static uint32_t x;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) == sizeof(v))
		return v;
	/* no entropy yet: xorshift seeded from the clock and pid */
	if (!x)
		x = (uint32_t)lb_now_ms() ^ (uint32_t)getpid() << 16 ^ 0x9e3779b9u;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return x;
}

/* RFC 2131 4.1: 4 s, 8 s, ... 64 s, each -1..+1 s at random. */
static unsigned backoff(struct dl *d)
{
	unsigned b = d->interval_ms ? d->interval_ms : 4000;

	d->interval_ms = b >= 64000 ? 64000 : b * 2;
	return b - 1000 + rnd32() % 2001;
}

static int packet_open(int ifindex)
{
	/* IPv4, UDP, not a fragment, destination port 68 (offsets from the
	 * IP header: a SOCK_DGRAM packet socket has no link header) */
	static struct sock_filter_ prog[] = {
		{ 0x30, 0, 0, 9 },          /* ldb [9] protocol */
		{ 0x15, 0, 6, 17 },         /* jeq #17 ? next : drop */
		{ 0x28, 0, 0, 6 },          /* ldh [6] flags/fragment */
		{ 0x45, 4, 0, 0x1fff },     /* jset #0x1fff ? drop : next */
		{ 0xb1, 0, 0, 0 },          /* ldxb 4*([0]&0xf) */
		{ 0x48, 0, 0, 2 },          /* ldh [x+2] destination port */
		{ 0x15, 0, 1, 68 },         /* jeq #68 ? accept : drop */
		{ 0x06, 0, 0, 0x40000 },    /* accept */
		{ 0x06, 0, 0, 0 },          /* drop */
	};
	struct sock_fprog_ fp = { sizeof(prog) / sizeof(prog[0]), prog };
	struct sockaddr_ll sa;
	int fd, one = 1, e;

	fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, htons(ETH_P_IP_));
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER_, &fp, sizeof(fp)) ||
	    setsockopt(fd, SOL_PACKET, PACKET_AUXDATA, &one, sizeof(one)))
		goto fail;
	memset(&sa, 0, sizeof(sa));
	sa.sll_family = AF_PACKET;
	sa.sll_protocol = htons(ETH_P_IP_);
	sa.sll_ifindex = ifindex;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		goto fail;
	return fd;
fail:
	e = -errno;
	close(fd);
	return e;
}

static int dhcp_send(struct dl *d, int type, uint32_t reqip, uint32_t server)
{
	uint8_t p[LB_DHCP4_PKT_MAX], f[LB_DHCP4_PKT_MAX];
	size_t pl, fl;
	struct sockaddr_ll sa;
	uint64_t el = lb_now_ms() - d->t_start;
	int rc;

	d->c.secs = el / 1000 > 65535 ? 65535 : (uint16_t)(el / 1000);
	if ((rc = lb_dhcp4_build(&d->c, type, 0, reqip, server, p, sizeof(p), &pl)))
		return rc;
	if ((rc = lb_ipv4_udp_build(0, 0xffffffffu, LB_DHCP4_CLIENT_PORT, LB_DHCP4_SERVER_PORT,
				    p, pl, f, sizeof(f), &fl)))
		return rc;
	memset(&sa, 0, sizeof(sa));
	sa.sll_family = AF_PACKET;
	sa.sll_protocol = htons(ETH_P_IP_);
	sa.sll_ifindex = d->link.nl.index;
	sa.sll_halen = 6;
	memset(sa.sll_addr, 0xff, 6);
	if (sendto(d->fd, f, fl, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	return 0;
}

/* One DHCP message from the link's socket: 1 with *l and *src, 0 when
 * nothing (more) is queued or the frame was not for us, negative errno. */
static int dhcp_recv(struct dl *d, struct lb_dhcp4_lease *l, uint32_t *src_out)
{
	uint8_t buf[RX_MAX];
	union {
		struct cmsghdr h;
		uint8_t b[CMSG_SPACE(sizeof(struct tpacket_auxdata_))];
	} cb;
	struct sockaddr_ll from;
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr mh = { 0 };
	struct tpacket_auxdata_ aux = { 0 };
	const uint8_t *pl;
	size_t plen;
	uint32_t src, dst;
	uint16_t sport, dport;
	ssize_t n;

	mh.msg_name = &from;
	mh.msg_namelen = sizeof(from);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cb.b;
	mh.msg_controllen = sizeof(cb.b);
	n = recvmsg(d->fd, &mh, MSG_DONTWAIT);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -errno;
	if ((mh.msg_flags & MSG_TRUNC) || from.sll_pkttype == PACKET_OUTGOING_)
		return -EAGAIN;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_PACKET && c->cmsg_type == PACKET_AUXDATA &&
		    c->cmsg_len >= CMSG_LEN(sizeof(aux)))
			memcpy(&aux, CMSG_DATA(c), sizeof(aux));
	if ((aux.tp_status & TP_STATUS_VLAN_VALID_) && (aux.tp_vlan_tci & 0xfff))
		return -EAGAIN;     /* a tagged frame of some VLAN: not our network */
	if ((aux.tp_status & TP_STATUS_CSUMNOTREADY_) && n >= 20) {
		/* checksum left to offload (veth, virtio): not in the bytes yet */
		size_t ihl = (size_t)(buf[0] & 15) * 4;
		if (ihl >= 20 && (size_t)n >= ihl + 8)
			buf[ihl + 6] = buf[ihl + 7] = 0;
	}
	if (lb_ipv4_udp_parse(buf, (size_t)n, &src, &dst, &sport, &dport, &pl, &plen))
		return -EAGAIN;
	if (dport != LB_DHCP4_CLIENT_PORT || sport != LB_DHCP4_SERVER_PORT)
		return -EAGAIN;
	if (lb_dhcp4_parse(pl, plen, d->c.xid, d->c.mac, l))
		return -EAGAIN;
	*src_out = htonl(src);
	return 1;
}

static void logf_(const struct lb_net_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void logf_(const struct lb_net_opts *o, const char *fmt, ...)
{
	va_list ap;

	if (!o->log)
		return;
	va_start(ap, fmt);
	fputs("lboot: net", o->log);
	vfprintf(o->log, fmt, ap);
	fputc('\n', o->log);
	fflush(o->log);
	va_end(ap);
}

static void read_uuid(struct lb_dhcp4_client *c)
{
	char s[64];
	int fd = open("/sys/class/dmi/id/product_uuid", O_RDONLY | O_CLOEXEC);
	ssize_t n;
	uint8_t u[16];
	int zero = 1, ff = 1;

	if (fd < 0)
		return;
	n = read(fd, s, sizeof(s) - 1);
	close(fd);
	if (n < 36)
		return;
	s[36] = 0;
	if (lb_pxelinux_uuid_parse(s, 1, u))
		return;
	for (int i = 0; i < 16; i++) {
		zero &= u[i] == 0;
		ff &= u[i] == 0xff;
	}
	if (zero || ff)      /* unset in firmware: worse than none */
		return;
	memcpy(c->uuid, u, 16);
	c->have_uuid = 1;
}

static void start_discover(struct dl *d, uint64_t now)
{
	d->state = S_SELECT;
	d->c.xid = rnd32();
	d->have_offer = 0;
	d->have_proxy = 0;
	d->collect_until = 0;
	d->sends = 0;
	d->interval_ms = 0;
	d->next_tx = now;
	if (!d->t_start)
		d->t_start = now;
}

static void start_request(struct dl *d, uint64_t now)
{
	d->state = S_REQUEST;
	d->sends = 0;
	d->interval_ms = 0;
	d->next_tx = now;
}

/* Is a better offer (one with a boot file over one without)? */
static int offer_better(const struct lb_dhcp4_lease *n, const struct lb_dhcp4_lease *cur)
{
	return lb_dhcp4_bootfile(n) && !lb_dhcp4_bootfile(cur);
}

/* Handle one message on link d. Returns 1 when d got its lease. */
static int dhcp_input(const struct lb_net_opts *o, struct dl *d, const struct lb_dhcp4_lease *l,
		      uint32_t src, uint64_t now)
{
	char a[16], b[16];
	uint32_t from = l->have_server_id ? l->server_id : src;

	switch (d->state) {
	case S_SELECT:
		if (l->type != LB_DHCP_OFFER)
			return 0;
		if (lb_dhcp4_is_proxy(l)) {
			if (!d->have_proxy) {
				d->proxy = *l;
				d->proxy.server_id = from;
				d->have_proxy = 1;
				if (d->have_offer && d->collect_until)
					start_request(d, now);
				logf_(o, " %s: proxyDHCP offer from %s%s%s", d->link.nl.name,
				      lb_ipv4_str(from, a), lb_dhcp4_bootfile(l) ? ", boot file " : "",
				      lb_dhcp4_bootfile(l) ? lb_dhcp4_bootfile(l) : "");
			}
			return 0;
		}
		if (!l->yiaddr)
			return 0;
		if (!d->have_offer || offer_better(l, &d->offer)) {
			d->offer = *l;
			d->offer.server_id = from;
			d->offer.have_server_id = 1;
			d->have_offer = 1;
			logf_(o, " %s: offer %s from %s", d->link.nl.name, lb_ipv4_str(l->yiaddr, a),
			      lb_ipv4_str(from, b));
		}
		if (lb_dhcp4_bootfile(&d->offer) || d->have_proxy) {
			start_request(d, now);
		} else if (!d->collect_until) {
			d->collect_until = now + COLLECT_MS;
		}
		return 0;
	case S_REQUEST:
	case S_REBOOT:
		if (d->state == S_REQUEST && from != d->server)
			return 0;
		if (l->type == LB_DHCP_NAK) {
			logf_(o, " %s: NAK from %s for %s, back to DISCOVER", d->link.nl.name,
			      lb_ipv4_str(from, a),
			      lb_ipv4_str(d->state == S_REQUEST ? d->offer.yiaddr : o->request_ip, b));
			start_discover(d, now);
			return 0;
		}
		if (l->type != LB_DHCP_ACK || !l->yiaddr)
			return 0;
		d->ack = *l;
		d->ack_from = from;
		d->state = S_DONE;
		return 1;
	}
	return 0;
}

static void dhcp_timer(const struct lb_net_opts *o, struct dl *d, uint64_t now)
{
	int rc = 0;

	if (d->state == S_SELECT && d->collect_until && now >= d->collect_until && d->have_offer) {
		start_request(d, now);
	}
	if (now < d->next_tx)
		return;
	switch (d->state) {
	case S_REBOOT:
		if (d->sends >= REBOOT_SENDS_MAX) {
			start_discover(d, now);
			rc = dhcp_send(d, LB_DHCP_DISCOVER, 0, 0);
			d->discovers++;
			break;
		}
		rc = dhcp_send(d, LB_DHCP_REQUEST, o->request_ip, 0);
		break;
	case S_SELECT:
		rc = dhcp_send(d, LB_DHCP_DISCOVER, 0, 0);
		d->discovers++;
		break;
	case S_REQUEST:
		if (d->sends >= REQ_SENDS_MAX) {
			logf_(o, " %s: no answer to REQUEST, back to DISCOVER", d->link.nl.name);
			start_discover(d, now);
			rc = dhcp_send(d, LB_DHCP_DISCOVER, 0, 0);
			d->discovers++;
			break;
		}
		d->server = d->offer.server_id;
		rc = dhcp_send(d, LB_DHCP_REQUEST, d->offer.yiaddr, d->offer.server_id);
		break;
	default:
		return;
	}
	if (rc) {
		char e[64];
		snprintf(e, sizeof(e), "%s", strerror(-rc));
		logf_(o, " %s: send: %s", d->link.nl.name, e);
	}
	d->sends++;
	d->next_tx = now + backoff(d);
}

/* --- DHCPv6 over a UDP socket on the link-local address ------------------------ */

#define SOL_IRT_MS  1000       /* RFC 8415 7.6: SOL_TIMEOUT, REQ_TIMEOUT */
#define SOL_MRT_MS  3600000
#define REQ_MRT_MS  30000
#define REQ_MAX_RC  10
#define TENTATIVE_RETRY_MS 100

static int udp6_open(const char *ifname)
{
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6, .sin6_port = htons(LB_DHCP6_CLIENT_PORT) };
	int fd, one = 1, e;

	fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE_, ifname, (socklen_t)strlen(ifname)) ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		e = -errno;
		close(fd);
		return e;
	}
	return fd;
}

/* RFC 8415 15: RT = 2 RTprev (first: IRT) + RAND * RTprev, RAND in
 * -0.1..+0.1, capped by MRT (then RT = MRT + RAND * MRT). */
static unsigned rt_next(struct dl *d, unsigned mrt)
{
	unsigned rt = d->rt_ms ? d->rt_ms * 2 : SOL_IRT_MS;
	int r;

	if (rt > mrt)
		rt = mrt;
	r = (int)(rnd32() % 201) - 100;          /* per mille: -0.1..+0.1 */
	rt = (unsigned)((long)rt + (long)rt * r / 1000);
	d->rt_ms = rt;
	return rt;
}

static void start_solicit(struct dl *d, uint64_t now)
{
	d->state = S_SELECT;
	d->c6.xid = rnd32() & 0xffffff;
	d->sends = 0;
	d->rt_ms = 0;
	d->next_tx = now;
	if (!d->t_start)
		d->t_start = now;
}

/* 0 sent, 1 not yet (no usable link-local address: DAD running), -errno */
static int dhcp6_send(struct dl *d, int type)
{
	struct sockaddr_in6 to = { .sin6_family = AF_INET6, .sin6_port = htons(LB_DHCP6_SERVER_PORT),
				   .sin6_scope_id = (uint32_t)d->link.nl.index };
	uint8_t p[LB_DHCP6_PKT_MAX];
	size_t pl;
	uint64_t el = (lb_now_ms() - d->t_start) / 10;
	int rc;

	inet_pton(AF_INET6, "ff02::1:2", &to.sin6_addr);
	d->c6.elapsed = el > 0xffff ? 0xffff : (uint16_t)el;
	if ((rc = lb_dhcp6_build(&d->c6, type, type == LB_DHCP6_REQUEST ? &d->adv : NULL, p,
				 sizeof(p), &pl)))
		return rc;
	if (sendto(d->fd, p, pl, 0, (struct sockaddr *)&to, sizeof(to)) < 0)
		return errno == EADDRNOTAVAIL ? 1 : -errno;
	return 0;
}

static void dhcp6_timer(const struct lb_net_opts *o, struct dl *d, uint64_t now)
{
	int rc = 0;

	if (now < d->next_tx)
		return;
	if (d->state == S_REQUEST && d->sends >= REQ_MAX_RC) {
		logf_(o, " %s: no answer to DHCPv6 Request, back to Solicit", d->link.nl.name);
		start_solicit(d, now);
	}
	if (d->state != S_SELECT && d->state != S_REQUEST)
		return;
	rc = dhcp6_send(d, d->state == S_SELECT ? LB_DHCP6_SOLICIT : LB_DHCP6_REQUEST);
	if (rc == 1) {             /* link-local address still tentative */
		d->next_tx = now + TENTATIVE_RETRY_MS;
		return;
	}
	if (rc < 0) {
		char e[64];
		snprintf(e, sizeof(e), "%s", strerror(-rc));
		logf_(o, " %s: send: %s", d->link.nl.name, e);
	}
	if (d->state == S_SELECT)
		d->discovers++;
	d->sends++;
	d->next_tx = now + rt_next(d, d->state == S_SELECT ? SOL_MRT_MS : REQ_MRT_MS);
}

static int dhcp6_recv(struct dl *d, struct lb_dhcp6_lease *l)
{
	uint8_t buf[RX_MAX];
	struct sockaddr_in6 from;
	socklen_t fl = sizeof(from);
	ssize_t n;

	n = recvfrom(d->fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC, (struct sockaddr *)&from, &fl);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -errno;
	if ((size_t)n > sizeof(buf) || fl < sizeof(from) || ntohs(from.sin6_port) != LB_DHCP6_SERVER_PORT)
		return -EAGAIN;
	if (lb_dhcp6_parse(buf, (size_t)n, &d->c6, l))
		return -EAGAIN;
	memcpy(d->from6, &from.sin6_addr, 16);
	return 1;
}

static const char *ip6_str(const uint8_t a[16], char *buf, size_t cap)
{
	if (!inet_ntop(AF_INET6, a, buf, (socklen_t)cap))
		snprintf(buf, cap, "?");
	return buf;
}

/* A usable answer: success, and an address or a boot file URL. */
static int v6_usable(const struct lb_dhcp6_lease *l)
{
	return !l->status && ((l->have_addr && !l->ia_status) || l->bootfile_url[0]);
}

static int dhcp6_input(const struct lb_net_opts *o, struct dl *d, const struct lb_dhcp6_lease *l,
		       uint64_t now)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];

	switch (d->state) {
	case S_SELECT:
		if (l->type != LB_DHCP6_ADVERTISE || !v6_usable(l))
			return 0;
		/* the first usable Advertise is taken (no wait for others) */
		d->adv = *l;
		logf_(o, " %s: DHCPv6 advertise %s from %s", d->link.nl.name,
		      l->have_addr ? ip6_str(l->addr, a, sizeof(a)) : "(no address)",
		      ip6_str(d->from6, b, sizeof(b)));
		d->state = S_REQUEST;
		d->sends = 0;
		d->rt_ms = 0;
		d->next_tx = now;
		return 0;
	case S_REQUEST:
		if (l->type != LB_DHCP6_REPLY || l->server_id_len != d->adv.server_id_len ||
		    memcmp(l->server_id, d->adv.server_id, l->server_id_len))
			return 0;
		if (!v6_usable(l)) {
			logf_(o, " %s: DHCPv6 reply with status %d/%d%s%s, back to Solicit",
			      d->link.nl.name, l->status, l->ia_status, l->status_msg[0] ? ": " : "",
			      l->status_msg);
			start_solicit(d, now);
			return 0;
		}
		d->reply = *l;
		d->state = S_DONE;
		return 1;
	}
	return 0;
}

int lb_net_add_addr6(int ifindex, const uint8_t addr[16], unsigned prefix, char *err, size_t errsz)
{
	uint8_t req[LB_NL_REQ_MAX];
	char kmsg[160];
	size_t len;
	uint32_t seq = ++nl_seq;
	int rc;

	if ((rc = lb_nl_req_addaddr6(req, sizeof(req), seq, ifindex, addr, prefix, 0, 0, 1, &len)))
		return op_err(rc, "add address", "", err, errsz);
	if ((rc = nl_transact(req, len, seq, kmsg, sizeof(kmsg))))
		return op_err(rc, "add address", kmsg, err, errsz);
	return 0;
}

static void make_lease6(struct dl *d, uint64_t t0, struct lb_net6_lease *r)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->ifname, sizeof(r->ifname), "%s", d->link.nl.name);
	r->ifindex = d->link.nl.index;
	memcpy(r->mac, d->c6.mac, 6);
	memcpy(r->server, d->from6, 16);
	r->dhcp = d->reply;
	r->have_addr = d->reply.have_addr && !d->reply.ia_status;
	if (r->have_addr)
		memcpy(r->addr, d->reply.addr, 16);
	r->ms = (unsigned)(lb_now_ms() - t0);
}

static unsigned classful(uint32_t a)
{
	uint8_t f = (uint8_t)(ntohl(a) >> 24);

	return f < 128 ? 8 : f < 192 ? 16 : 24;
}

/* What a proxyDHCP answer (offer, or ACK from UDP 4011) supplies when the
 * address server named no boot file. */
static void merge_boot(struct lb_dhcp4_lease *a, const struct lb_dhcp4_lease *px)
{
	memcpy(a->bootfile, px->bootfile, sizeof(px->bootfile));
	memcpy(a->file, px->file, sizeof(px->file));
	memcpy(a->sname, px->sname, sizeof(px->sname));
	memcpy(a->tftp_server, px->tftp_server, sizeof(px->tftp_server));
	if (px->pxe_conffile[0])
		memcpy(a->pxe_conffile, px->pxe_conffile, sizeof(px->pxe_conffile));
	if (px->pxe_prefix[0])
		memcpy(a->pxe_prefix, px->pxe_prefix, sizeof(px->pxe_prefix));
	memcpy(a->vendor_class, px->vendor_class, sizeof(px->vendor_class));
	a->siaddr = px->siaddr ? px->siaddr : px->server_id;
}

/* next_server, boot_server and bootfile from r->dhcp. */
static void derive_boot(struct lb_net_lease *r)
{
	const char *bf = lb_dhcp4_bootfile(&r->dhcp);
	struct in_addr in;

	r->next_server = 0;
	if (r->dhcp.siaddr)
		r->next_server = r->dhcp.siaddr;
	else if (r->dhcp.tftp_server[0] && inet_pton(AF_INET, r->dhcp.tftp_server, &in) == 1)
		r->next_server = in.s_addr;
	if (r->dhcp.tftp_server[0])
		snprintf(r->boot_server, sizeof(r->boot_server), "%s", r->dhcp.tftp_server);
	else
		lb_ipv4_str(r->dhcp.siaddr ? r->dhcp.siaddr : r->server, r->boot_server);
	r->bootfile[0] = 0;
	if (bf)
		snprintf(r->bootfile, sizeof(r->bootfile), "%s", bf);
}

/* The lease record from link d's ACK (and its proxy offer). */
static void make_lease(struct dl *d, uint64_t t0, struct lb_net_lease *r)
{
	const struct lb_dhcp4_lease *a = &d->ack;
	int p;

	memset(r, 0, sizeof(*r));
	snprintf(r->ifname, sizeof(r->ifname), "%s", d->link.nl.name);
	r->ifindex = d->link.nl.index;
	memcpy(r->mac, d->c.mac, 6);
	r->dhcp = *a;
	if (d->have_proxy && !lb_dhcp4_bootfile(a) && lb_dhcp4_bootfile(&d->proxy))
		merge_boot(&r->dhcp, &d->proxy);
	r->addr = a->yiaddr;
	p = a->have_mask ? lb_ipv4_prefix(a->mask) : -1;
	r->prefix = p >= 0 ? (unsigned)p : classful(a->yiaddr);
	r->mask = lb_ipv4_mask(r->prefix);
	r->broadcast = a->broadcast ? a->broadcast : (r->addr | ~r->mask);
	if (r->prefix >= 31)
		r->broadcast = 0;
	r->router = a->have_router ? a->router : 0;
	r->server = d->ack_from;
	r->mtu = a->mtu;
	derive_boot(r);
	memcpy(r->uuid, d->c.uuid, 16);
	r->have_uuid = d->c.have_uuid;
	r->ms = (unsigned)(lb_now_ms() - t0);
}

/*
 * proxyDHCP that named no boot file in its offer (dnsmasq for UEFI
 * clients): REQUEST with ciaddr to its UDP port 4011 from our new address,
 * resent after 1, 2, 4 s within the deadline; its ACK carries the boot
 * file. 0 with *ack, or negative errno.
 */
static int proxy_request(struct dl *d, const struct lb_net_lease *r, uint64_t deadline,
			 struct lb_dhcp4_lease *ack)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(LB_DHCP4_CLIENT_PORT),
				  .sin_addr = { r->addr } };
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(LB_DHCP4_PROXY_PORT),
				  .sin_addr = { d->proxy.server_id } };
	uint8_t p[LB_DHCP4_PKT_MAX], in[RX_MAX];
	size_t pl;
	unsigned wait = 1000;
	int fd, one = 1, rc;

	if (!d->proxy.server_id)
		return -EDESTADDRREQ;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE_, r->ifname, (socklen_t)strlen(r->ifname));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		sa.sin_port = 0;        /* port 68 taken: the proxy answers any port */
		if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
			rc = -errno;
			goto out;
		}
	}
	d->c.xid = rnd32();
	if ((rc = lb_dhcp4_build(&d->c, LB_DHCP_REQUEST, r->addr, 0, 0, p, sizeof(p), &pl)))
		goto out;
	for (;;) {
		uint64_t now = lb_now_ms(), until;
		if (now >= deadline) {
			rc = -ETIMEDOUT;
			goto out;
		}
		if (sendto(fd, p, pl, 0, (struct sockaddr *)&to, sizeof(to)) < 0) {
			rc = -errno;
			goto out;
		}
		until = now + wait < deadline ? now + wait : deadline;
		wait = wait >= 4000 ? 4000 : wait * 2;
		while ((now = lb_now_ms()) < until) {
			struct pollfd pfd = { fd, POLLIN, 0 };
			struct lb_dhcp4_lease l;
			ssize_t n;
			if (poll(&pfd, 1, (int)(until - now)) <= 0)
				continue;
			n = recv(fd, in, sizeof(in), MSG_DONTWAIT);
			if (n <= 0)
				continue;
			if (lb_dhcp4_parse(in, (size_t)n, d->c.xid, d->c.mac, &l) ||
			    l.type != LB_DHCP_ACK)
				continue;
			*ack = l;
			rc = 0;
			goto out;
		}
	}
out:
	close(fd);
	return rc;
}

static int apply_lease(const struct lb_net_opts *o, const struct lb_net_lease *r,
		       const struct lb_net_link *l, char *err, size_t errsz)
{
	char e[200], a[16], b[16];
	int rc;

	if (r->mtu && r->mtu != l->nl.mtu && (rc = lb_net_set_mtu(r->ifindex, r->mtu, e, sizeof(e)))) {
		/* a NIC that cannot take the MTU still works with its own */
		logf_(o, " %s: MTU %u not applied: %s", r->ifname, r->mtu, e);
	}
	if ((rc = lb_net_add_addr(r->ifindex, r->addr, r->prefix, r->broadcast, e, sizeof(e)))) {
		lb_seterr(err, errsz, "%s: %s/%u: %s", r->ifname, lb_ipv4_str(r->addr, a), r->prefix, e);
		return rc;
	}
	if (r->router && (rc = lb_net_add_default_route(r->ifindex, r->router, r->addr, r->prefix,
						       e, sizeof(e)))) {
		lb_seterr(err, errsz, "%s: via %s: %s", r->ifname, lb_ipv4_str(r->router, b), e);
		return rc;
	}
	return 0;
}

static void log_lease(const struct lb_net_opts *o, const struct lb_net_lease *r)
{
	char a[16], s[16], g[16], d[16];
	char extra[160] = "";
	size_t k = 0;

	if (!o->log)
		return;
	if (r->bootfile[0])
		logf_(o, " %s: DHCP lease %s/%u from %s, boot file %s on %s", r->ifname,
		      lb_ipv4_str(r->addr, a), r->prefix, lb_ipv4_str(r->server, s), r->bootfile,
		      r->boot_server);
	else
		logf_(o, " %s: DHCP lease %s/%u from %s, no boot file", r->ifname,
		      lb_ipv4_str(r->addr, a), r->prefix, lb_ipv4_str(r->server, s));
	if (r->mtu)
		k += (size_t)snprintf(extra + k, sizeof(extra) - k, ", mtu %u", r->mtu);
	if (r->dhcp.ndns && k < sizeof(extra))
		k += (size_t)snprintf(extra + k, sizeof(extra) - k, ", dns %s",
				      lb_ipv4_str(r->dhcp.dns[0], d));
	if (!o->no_apply)
		logf_(o, " %s: address %s/%u, router %s%s", r->ifname, a, r->prefix,
		      r->router ? lb_ipv4_str(r->router, g) : "none", extra);
}

/*
 * lboot.vlan=ID: an 802.1Q link NAME.ID on every candidate (made unless it
 * exists, its parent brought up), and the list re-read; the VLAN links are
 * then the only candidates (vlan_candidate).
 */
static int vlan_setup(const struct lb_net_opts *o, struct lb_net_link **links, size_t *nl,
		      char *err, size_t errsz)
{
	int made = 0, rc;

	for (size_t i = 0; i < *nl; i++) {
		struct lb_net_link *l = &(*links)[i];
		uint8_t req[LB_NL_REQ_MAX];
		char name[LB_NL_IFNAMSIZ], kmsg[160], e[200];
		uint32_t seq = ++nl_seq;
		size_t len;

		if (!lb_net_candidate(l, o->iface) || !strcmp(l->nl.kind, "vlan"))
			continue;
		if ((size_t)snprintf(name, sizeof(name), "%s.%u", l->nl.name, o->vlan) >= sizeof(name))
			snprintf(name, sizeof(name), "vlan%d.%u", l->nl.index, o->vlan);
		if (!(l->nl.flags & LB_IFF_UP) && lb_net_set_up(l->nl.index, 1, e, sizeof(e))) {
			logf_(o, " %s: %s, skipped", l->nl.name, e);
			continue;
		}
		if ((rc = lb_nl_req_newvlan(req, sizeof(req), seq, l->nl.index, name, o->vlan, &len)))
			return op_err(rc, "VLAN link", "", err, errsz);
		rc = nl_transact(req, len, seq, kmsg, sizeof(kmsg));
		if (rc && rc != -EEXIST) {
			logf_(o, " %s: VLAN %u: %s%s%s, skipped", l->nl.name, o->vlan, strerror(-rc),
			      kmsg[0] ? ": " : "", kmsg);
			continue;
		}
		logf_(o, " %s: VLAN %u on %s", name, o->vlan, l->nl.name);
		made++;
	}
	if (!made) {
		lb_seterr(err, errsz, "VLAN %u: no link to put it on", o->vlan);
		return -ENODEV;
	}
	free(*links);
	*links = NULL;
	*nl = 0;
	return lb_net_links(links, nl, err, errsz);
}

static int vlan_candidate(const struct lb_net_opts *o, const struct lb_net_link *l)
{
	const char *dot = strrchr(l->nl.name, '.');

	if (!o->vlan)
		return lb_net_candidate(l, o->iface);
	/* NAME.ID made above: matched by kind and id suffix, not the pattern
	 * (which names the parents) */
	return l->nl.type == LB_ARPHRD_ETHER && !strcmp(l->nl.kind, "vlan") && dot &&
	       (unsigned)atoi(dot + 1) == o->vlan && !l->nl.master;
}

/* One DHCP run over the candidate links (net_run): the links' clients,
 * their poll set and the run's clocks. */
struct run {
	const struct lb_net_opts *o;
	int v6;
	struct dl *v;           /* the candidate links, n of them */
	struct pollfd *pf;
	size_t n;
	unsigned timeout, carrier_ms;
	uint64_t t0, deadline, carrier_deadline, next_poll;
	int any_carrier;        /* some link had carrier */
	char names[256];        /* the candidates, for messages */
};

/* The candidate links of the run, each with its DHCP client, brought up. */
static void run_add_links(struct run *r, const struct lb_net_link *links, size_t nl)
{
	const struct lb_net_opts *o = r->o;
	struct lb_dhcp4_client proto = { 0 };
	struct lb_dhcp6_client proto6 = { 0 };
	size_t nn = 0;

	proto.http = o->http;
	proto.hostname = o->hostname;
	if (!o->no_uuid)
		read_uuid(&proto);
	proto6.http = o->http;
	memcpy(proto6.uuid, proto.uuid, 16);
	proto6.have_uuid = proto.have_uuid;
	for (size_t i = 0; i < nl; i++) {
		if (!vlan_candidate(o, &links[i]))
			continue;
		struct dl *d = &r->v[r->n++];
		char e[200];
		d->link = links[i];
		d->fd = -1;
		d->state = S_CARRIER;
		d->c = proto;
		memcpy(d->c.mac, d->link.nl.hwaddr, 6);
		d->v6 = r->v6;
		d->c6 = proto6;
		memcpy(d->c6.mac, d->link.nl.hwaddr, 6);
		d->c6.iaid = (uint32_t)d->link.nl.index;
		if (!(d->link.nl.flags & LB_IFF_UP) && lb_net_set_up(d->link.nl.index, 1, e, sizeof(e))) {
			logf_(o, " %s: %s, skipped", d->link.nl.name, e);
			d->state = S_DEAD;
		}
		if (nn < sizeof(r->names))
			nn += (size_t)snprintf(r->names + nn, sizeof(r->names) - nn, "%s%s",
					       nn ? ", " : "", d->link.nl.name);
	}
}

/* Carrier: one link dump per tick while a link waits for it; a link with
 * carrier gets its socket and starts DHCP, one past the carrier bound is
 * dropped. */
static int run_poll_carrier(struct run *r, uint64_t now, char *err, size_t errsz)
{
	const struct lb_net_opts *o = r->o;
	struct lb_net_link *cur = NULL;
	size_t nc = 0;
	char e[200];
	int rc;

	if ((rc = dump_links(&cur, &nc, e, sizeof(e)))) {
		lb_seterr(err, errsz, "%s", e);
		return rc;
	}
	for (size_t i = 0; i < r->n; i++) {
		struct dl *d = &r->v[i];
		if (d->state != S_CARRIER)
			continue;
		for (size_t j = 0; j < nc; j++) {
			if (cur[j].nl.index != d->link.nl.index ||
			    !lb_nl_link_carrier(&cur[j].nl))
				continue;
			d->link.nl.flags = cur[j].nl.flags;
			d->link.nl.mtu = cur[j].nl.mtu;
			d->fd = r->v6 ? udp6_open(d->link.nl.name) :
					packet_open(d->link.nl.index);
			if (d->fd < 0) {
				logf_(o, " %s: socket: %s, skipped",
				      d->link.nl.name, strerror(-d->fd));
				d->state = S_DEAD;
				break;
			}
			r->any_carrier = 1;
			logf_(o, " %s: carrier after %.1f s", d->link.nl.name,
			      (now - r->t0) / 1000.0);
			if (r->v6) {
				start_solicit(d, now);
			} else if (o->request_ip) {
				d->state = S_REBOOT;
				d->c.xid = rnd32();
				d->t_start = d->next_tx = now;
			} else {
				start_discover(d, now);
			}
			break;
		}
		if (d->state == S_CARRIER && now >= r->carrier_deadline) {
			logf_(o, " %s: no carrier after %.1f s, skipped",
			      d->link.nl.name, r->carrier_ms / 1000.0);
			d->state = S_DEAD;
		}
	}
	free(cur);
	r->next_poll = now + CARRIER_POLL_MS;
	return 0;
}

static int run_waiting(const struct run *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].state == S_CARRIER)
			return 1;
	return 0;
}

static int dl_active(const struct dl *d)
{
	return d->state == S_SELECT || d->state == S_REQUEST || d->state == S_REBOOT;
}

/* Run the clients' timers, fill the poll set (*np entries) and bring *wake
 * forward to the next timer; 1 when some client is still talking. */
static int run_timers(struct run *r, uint64_t now, uint64_t *wake, int *np)
{
	int active = 0;

	*np = 0;
	for (size_t i = 0; i < r->n; i++) {
		struct dl *d = &r->v[i];
		if (d->state == S_CARRIER) {
			if (r->next_poll < *wake)
				*wake = r->next_poll;
			continue;
		}
		if (!dl_active(d))
			continue;
		active = 1;
		if (d->v6)
			dhcp6_timer(r->o, d, now);
		else
			dhcp_timer(r->o, d, now);
		if (d->next_tx < *wake)
			*wake = d->next_tx;
		if (d->state == S_SELECT && d->collect_until && d->collect_until < *wake)
			*wake = d->collect_until;
		r->pf[*np].fd = d->fd;
		r->pf[*np].events = POLLIN;
		r->pf[*np].revents = 0;
		(*np)++;
	}
	return active;
}

/* Read what arrived, a bounded burst per link, in link order: the index of
 * the first link with a lease in this round, or -1. */
static int run_read(struct run *r, uint64_t now)
{
	for (size_t i = 0; i < r->n; i++) {
		struct dl *d = &r->v[i];
		if (!dl_active(d))
			continue;
		for (int k = 0; k < 64 && d->v6; k++) {
			struct lb_dhcp6_lease l6;
			int g = dhcp6_recv(d, &l6);
			if (g == -EAGAIN)
				continue;
			if (g <= 0)
				break;
			if (dhcp6_input(r->o, d, &l6, now))
				return (int)i;
		}
		for (int k = 0; k < 64 && !d->v6; k++) {
			struct lb_dhcp4_lease l;
			uint32_t src = 0;
			int g = dhcp_recv(d, &l, &src);
			if (g == -EAGAIN)
				continue;
			if (g <= 0)
				break;
			if (dhcp_input(r->o, d, &l, src, now))
				return (int)i;
		}
	}
	return -1;
}

/* Until a link has a lease (its index), the deadline or nothing left to
 * wait for (-1), or an error (rc < 0 in *rc, -1). */
static int run_loop(struct run *r, int *rc, char *err, size_t errsz)
{
	for (;;) {
		uint64_t now = lb_now_ms(), wake = r->deadline;
		int np, active, p, winner;

		if (now >= r->deadline)
			return -1;
		if (run_waiting(r) && now >= r->next_poll &&
		    (*rc = run_poll_carrier(r, now, err, errsz)))
			return -1;
		active = run_timers(r, now, &wake, &np);
		if (!run_waiting(r) && !active)
			return -1;
		now = lb_now_ms();
		p = poll(r->pf, (nfds_t)np, wake > now ? (int)(wake - now) : 0);
		if (p < 0 && errno != EINTR) {
			*rc = -errno;
			lb_seterr(err, errsz, "poll: %s", strerror(errno));
			return -1;
		}
		if (p <= 0)
			continue;
		if ((winner = run_read(r, lb_now_ms())) >= 0)
			return winner;
	}
}

/* Why no link got a lease: no carrier anywhere, or no answer. */
static int run_failed(const struct run *r, char *err, size_t errsz)
{
	char tried[256] = "";
	size_t k = 0;
	unsigned disc = 0;

	if (!r->any_carrier) {
		lb_seterr(err, errsz, "no carrier on %s within %.1f s", r->names,
			  r->carrier_ms / 1000.0);
		return -ENETDOWN;
	}
	for (size_t i = 0; i < r->n; i++) {
		if (!r->v[i].t_start || k >= sizeof(tried))
			continue;
		k += (size_t)snprintf(tried + k, sizeof(tried) - k, "%s%s",
				      k ? ", " : "", r->v[i].link.nl.name);
		disc += r->v[i].discovers;
	}
	lb_seterr(err, errsz, "no DHCP%s answer on %s within %.1f s (%u %s)",
		  r->v6 ? "v6" : "", tried, r->timeout / 1000.0, disc,
		  r->v6 ? "Solicits" : "DISCOVERs");
	return -ETIMEDOUT;
}

/* The DHCPv6 winner's lease, its address applied unless no_apply. */
static int run_lease6(const struct run *r, struct dl *d, struct lb_net6_lease *out6,
		      char *err, size_t errsz)
{
	char a[INET6_ADDRSTRLEN], sv[INET6_ADDRSTRLEN], e[200];
	int rc;

	make_lease6(d, r->t0, out6);
	if (out6->have_addr && !r->o->no_apply &&
	    (rc = lb_net_add_addr6(out6->ifindex, out6->addr, 128, e, sizeof(e)))) {
		lb_seterr(err, errsz, "%s: %s/128: %s", out6->ifname,
			  ip6_str(out6->addr, a, sizeof(a)), e);
		return rc;
	}
	logf_(r->o, " %s: DHCPv6 lease %s from %s, %s%s", out6->ifname,
	      out6->have_addr ? ip6_str(out6->addr, a, sizeof(a)) : "(no address)",
	      ip6_str(out6->server, sv, sizeof(sv)),
	      out6->dhcp.bootfile_url[0] ? "boot file URL " : "no boot file URL",
	      out6->dhcp.bootfile_url);
	return 0;
}

/* The DHCPv4 winner's lease applied, and the boot file a proxyDHCP
 * server names when the lease has none. */
static int run_lease4(const struct run *r, struct dl *winner, struct lb_net_lease *out,
		      char *err, size_t errsz)
{
	const struct lb_net_opts *o = r->o;
	int rc;

	make_lease(winner, r->t0, out);
	if (!o->no_apply && (rc = apply_lease(o, out, &winner->link, err, errsz)))
		return rc;
	if (!out->bootfile[0] && winner->have_proxy) {
		struct dl *d = winner;
		struct lb_dhcp4_lease pa;
		char a[16];
		if (o->no_apply) {
			logf_(o, " %s: proxyDHCP %s named no boot file; asking it on port %d needs "
			      "the address applied", d->link.nl.name,
			      lb_ipv4_str(d->proxy.server_id, a), LB_DHCP4_PROXY_PORT);
		} else if ((rc = proxy_request(d, out, r->deadline, &pa))) {
			logf_(o, " %s: proxyDHCP %s port %d: %s", d->link.nl.name,
			      lb_ipv4_str(d->proxy.server_id, a), LB_DHCP4_PROXY_PORT,
			      rc == -ETIMEDOUT ? "no answer" : strerror(-rc));
		} else {
			merge_boot(&out->dhcp, &pa);
			derive_boot(out);
		}
	}
	out->ms = (unsigned)(lb_now_ms() - r->t0);
	log_lease(o, out);
	return 0;
}

static int net_run(const struct lb_net_opts *o, int v6, struct lb_net_lease *out,
		   struct lb_net6_lease *out6, char *err, size_t errsz)
{
	struct lb_net_link *links = NULL;
	struct run r = { .o = o, .v6 = v6 };
	size_t nl = 0;
	int rc, winner;

	r.timeout = o->timeout_ms ? o->timeout_ms : 30000;
	r.carrier_ms = o->carrier_ms ? o->carrier_ms : 5000;
	r.t0 = lb_now_ms();
	r.deadline = r.t0 + r.timeout;
	if (r.carrier_ms > r.timeout)
		r.carrier_ms = r.timeout;
	r.carrier_deadline = r.t0 + r.carrier_ms;
	if ((rc = lb_net_links(&links, &nl, err, errsz)))
		return rc;
	if (o->vlan && (rc = vlan_setup(o, &links, &nl, err, errsz)))
		goto out;
	if (!(r.v = calloc(nl ? nl : 1, sizeof(*r.v))) ||
	    !(r.pf = calloc(nl ? nl : 1, sizeof(*r.pf)))) {
		rc = -ENOMEM;
		lb_seterr(err, errsz, "out of memory");
		goto out;
	}
	run_add_links(&r, links, nl);
	if (!r.n) {
		rc = -ENODEV;
		lb_seterr(err, errsz, o->iface ? "no Ethernet link matches \"%s\"" :
			  "no Ethernet link%s", o->iface ? o->iface : "");
		goto out;
	}
	logf_(o, ": DHCPv%d on %s (up to %.1f s)", v6 ? 6 : 4, r.names, r.timeout / 1000.0);
	rc = 0;
	winner = run_loop(&r, &rc, err, errsz);
	if (rc)
		goto out;
	if (winner < 0)
		rc = run_failed(&r, err, errsz);
	else if (v6)
		rc = run_lease6(&r, &r.v[winner], out6, err, errsz);
	else
		rc = run_lease4(&r, &r.v[winner], out, err, errsz);
out:
	for (size_t i = 0; i < r.n; i++)
		if (r.v[i].fd >= 0)
			close(r.v[i].fd);
	free(r.pf);
	free(r.v);
	free(links);
	return rc;
}

int lb_net_up(const struct lb_net_opts *o, struct lb_net_lease *out, char *err, size_t errsz)
{
	return net_run(o, 0, out, NULL, err, errsz);
}

int lb_net_up6(const struct lb_net_opts *o, struct lb_net6_lease *out, char *err, size_t errsz)
{
	return net_run(o, 1, NULL, out, err, errsz);
}
