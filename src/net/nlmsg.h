/*
 * rtnetlink messages (NETLINK_ROUTE) without libnl or <linux/...h>: the
 * requests network bring-up sends (link dump, link up / MTU, IPv4 address,
 * default route) and a checked walk over the kernel's replies. No I/O.
 *
 * Replies are kernel bytes but are parsed as untrusted: every message and
 * attribute length is checked against its container, nesting is one level
 * (IFLA_LINKINFO), strings are copied only when NUL-terminated within their
 * attribute and shorter than their field, and nothing else is trusted.
 *
 * Addresses are IPv4 in network byte order (as struct in_addr holds them).
 */
#ifndef LB_NLMSG_H
#define LB_NLMSG_H

#include <stddef.h>
#include <stdint.h>

/* netlink */
#define LB_NETLINK_ROUTE  0
#define LB_NLMSG_NOOP     1
#define LB_NLMSG_ERROR    2
#define LB_NLMSG_DONE     3
#define LB_NLMSG_OVERRUN  4
#define LB_NLM_F_REQUEST  0x001
#define LB_NLM_F_MULTI    0x002
#define LB_NLM_F_ACK      0x004
#define LB_NLM_F_DUMP_INTR 0x010
#define LB_NLM_F_ROOT     0x100
#define LB_NLM_F_MATCH    0x200
#define LB_NLM_F_DUMP     (LB_NLM_F_ROOT | LB_NLM_F_MATCH)
#define LB_NLM_F_REPLACE  0x100
#define LB_NLM_F_EXCL     0x200
#define LB_NLM_F_CREATE   0x400
#define LB_NLM_F_CAPPED   0x100   /* in an NLMSG_ERROR: request not echoed */
#define LB_NLM_F_ACK_TLVS 0x200   /* in an NLMSG_ERROR: extended ack follows */
#define LB_NETLINK_EXT_ACK 11     /* SOL_NETLINK options */
#define LB_NETLINK_CAP_ACK 10
#define LB_SOL_NETLINK    270

/* rtnetlink message types */
#define LB_RTM_NEWLINK    16
#define LB_RTM_GETLINK    18
#define LB_RTM_NEWADDR    20
#define LB_RTM_NEWROUTE   24

/* link flags (ifinfomsg.ifi_flags) */
#define LB_IFF_UP         0x1
#define LB_IFF_BROADCAST  0x2
#define LB_IFF_LOOPBACK   0x8
#define LB_IFF_POINTOPOINT 0x10
#define LB_IFF_RUNNING    0x40
#define LB_IFF_NOARP      0x80
#define LB_IFF_LOWER_UP   0x10000

#define LB_ARPHRD_ETHER   1
#define LB_ARPHRD_LOOPBACK 772

#define LB_NL_MSG_MAX     65536   /* one reply datagram, at most */
#define LB_NL_REQ_MAX     256     /* every request built here fits */

struct lb_nl_msg {
	uint16_t type, flags;
	uint32_t seq, pid;
	const uint8_t *data;      /* payload after the 16-byte header */
	size_t len;               /* payload length */
};

/*
 * The next message of a datagram: *off starts at 0. Returns 1 with *m set,
 * 0 at the end, -EPROTO when a header or its length does not fit (the rest
 * of the datagram is then unusable).
 */
int lb_nl_next(const uint8_t *buf, size_t len, size_t *off, struct lb_nl_msg *m);

/*
 * An NLMSG_ERROR message: *error = the kernel's errno as a negative number
 * (0: an ACK). With extended ack (NETLINK_EXT_ACK), the kernel's message
 * ("Invalid prefix for given prefix length"...) goes to msg when it is
 * printable text, else msg is "". -EPROTO when malformed.
 */
int lb_nl_parse_error(const struct lb_nl_msg *m, int *error, char *msg, size_t msgsz);

#define LB_NL_IFNAMSIZ 16
#define LB_NL_HWADDR_MAX 32

struct lb_nl_link {
	int index;
	uint16_t type;            /* ARPHRD_* */
	uint32_t flags;           /* IFF_* */
	char name[LB_NL_IFNAMSIZ];
	uint8_t hwaddr[LB_NL_HWADDR_MAX];
	size_t hwaddr_len;
	int carrier;              /* IFLA_CARRIER: 1, 0; -1 absent (flags has LOWER_UP) */
	int operstate;            /* IFLA_OPERSTATE (6 = up); -1 absent */
	uint32_t mtu;             /* 0 absent */
	int master;               /* IFLA_MASTER ifindex (enslaved), 0 none */
	char kind[16];            /* IFLA_LINKINFO / IFLA_INFO_KIND ("veth"...), "" */
	char parent[64];          /* IFLA_PARENT_DEV_NAME ("0000:00:03.0", "virtio0"), "" */
	char parent_bus[16];      /* IFLA_PARENT_DEV_BUS_NAME ("pci", "virtio"), "" */
};

/*
 * One RTM_NEWLINK message (a dump entry or an event). -EPROTO when
 * malformed (an attribute overrunning the message, a fixed-size attribute
 * of the wrong size, a name without its NUL), -ENOMSG when not RTM_NEWLINK.
 */
int lb_nl_parse_link(const struct lb_nl_msg *m, struct lb_nl_link *l);

/* Is the link's carrier up (IFLA_CARRIER, else IFF_LOWER_UP)? */
int lb_nl_link_carrier(const struct lb_nl_link *l);

/*
 * Requests. Each writes one complete message into buf (cap bytes; at most
 * LB_NL_REQ_MAX) and its length into *len; -ENOSPC when it does not fit,
 * -EINVAL on bad arguments. All but the dump ask for an ACK.
 */
/* RTM_GETLINK dump of every link. */
int lb_nl_req_getlink(uint8_t *buf, size_t cap, uint32_t seq, size_t *len);
/* RTM_NEWLINK on an existing link: up (1) or down (0) or unchanged (-1),
 * and the MTU when mtu != 0. */
int lb_nl_req_setlink(uint8_t *buf, size_t cap, uint32_t seq, int ifindex, int up,
		      uint32_t mtu, size_t *len);
/* RTM_NEWLINK creating an 802.1Q VLAN link NAME with id vid (1..4094) on
 * the link parent (what `ip link add link P name N type vlan id V` sends). */
int lb_nl_req_newvlan(uint8_t *buf, size_t cap, uint32_t seq, int parent, const char *name,
		      unsigned vid, size_t *len);
/* RTM_NEWADDR (create or replace): addr/prefix on the link, with the
 * broadcast address brd when nonzero; valid_s/preferred_s lifetimes in
 * seconds (0: forever). */
int lb_nl_req_addaddr(uint8_t *buf, size_t cap, uint32_t seq, int ifindex, uint32_t addr,
		      unsigned prefix, uint32_t brd, uint32_t valid_s, size_t *len);
/* RTM_NEWADDR for IPv6 (create or replace): addr/prefix with the valid
 * and preferred lifetimes in seconds (0: forever), without duplicate
 * address detection when nodad (a DHCPv6 server vouches for the address). */
int lb_nl_req_addaddr6(uint8_t *buf, size_t cap, uint32_t seq, int ifindex,
		       const uint8_t addr[16], unsigned prefix, uint32_t valid_s,
		       uint32_t preferred_s, int nodad, size_t *len);
/* RTM_NEWROUTE (create or replace) in the main table, protocol dhcp:
 * dst/dst_len (0/0: the default route) via gateway gw (0: a link route)
 * out of ifindex, with preferred source src when nonzero. onlink: the
 * gateway is on the link even if no prefix covers it (a /32 lease). */
int lb_nl_req_addroute(uint8_t *buf, size_t cap, uint32_t seq, int ifindex, uint32_t dst,
		       unsigned dst_len, uint32_t gw, uint32_t src, int onlink, size_t *len);

/* Prefix length of a netmask (network order): 0..32, -EINVAL when the mask
 * is not contiguous ones then zeros. */
int lb_ipv4_prefix(uint32_t mask);
/* The netmask (network order) of a prefix length 0..32. */
uint32_t lb_ipv4_mask(unsigned prefix);

#endif
