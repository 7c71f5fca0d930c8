/*
 * Network bring-up for the boot flow and `lboot net`: links over rtnetlink
 * (src/net/nlmsg.c), and a DHCPv4 client (src/net/dhcp4.c) that runs on
 * every Ethernet link with carrier at once; the first lease wins and is
 * applied (address/prefix, MTU, default route). Host and target; libc only;
 * no <linux/...h>.
 *
 * DHCP runs over an AF_PACKET datagram socket per link (IPv4+UDP framed by
 * dhcp4.c, a classic BPF filter for UDP port 68), not a UDP socket: it
 * needs no address, sees replies however the server addresses them
 * (broadcast, or unicast to the offered address when a server or relay
 * ignores the BROADCAST flag, which a UDP socket on an unnumbered link
 * drops), and copes with partial checksums (veth, virtio offload) through
 * PACKET_AUXDATA. The BROADCAST flag is set anyway.
 *
 * Timing (RFC 2131 4.1): retransmissions after 4, 8, 16, 32, 64 s, each
 * randomised by -1..+1 s, all within the caller's total timeout. An offer
 * naming a boot file is taken at once; otherwise offers are collected for
 * up to 1 s more, and one with a boot file wins over one without. REQUEST
 * is resent like DISCOVER and, after 3 sends without an answer, the link
 * goes back to DISCOVER; a NAK sends it back to DISCOVER at once (new xid).
 * ProxyDHCP: an offer without an address but with option 60 PXEClient/
 * HTTPClient is kept; an address offer then needs no wait for more. When
 * the ACK names no boot file, the proxy's offer supplies it, or, when the
 * offer named none either (dnsmasq for UEFI clients), a REQUEST to the
 * proxy's UDP port 4011 from the applied address does (not with
 * no_apply), resent after 1, 2, 4 s within the total timeout.
 * With o->request_ip the client starts in INIT-REBOOT (REQUEST for that
 * address, no server id; RFC 2131 3.2) and falls back to DISCOVER on a NAK
 * or after 2 sends.
 *
 * Links: every link of ARPHRD_ETHER type that is not loopback, not
 * enslaved (bond/bridge port) and not of kind ifb or dummy, matching o->iface (a shell pattern) when
 * given, in a stable order: links with a device sorted by their sysfs
 * device path (PCI topology: /sys/devices/pci0000:00/0000:00:03.0/...),
 * then links without one (veth, ...) by ifindex. The order decides which
 * lease wins when two arrive in the same poll round, and the order of the
 * log lines; it never makes one link wait for another.
 *
 * Log lines (o->log, one per step), e.g.
 *   lboot: net eth0: up, carrier after 0.1 s
 *   lboot: net eth1: no carrier after 5.0 s, skipped
 *   lboot: net eth0: DHCP lease 10.0.2.15/24 from 10.0.2.2, boot file
 *          pxelinux.0 on 10.0.2.2  (one line)
 */
#ifndef LB_NETIF_H
#define LB_NETIF_H

#include <stdint.h>
#include <stdio.h>

#include "dhcp4.h"
#include "dhcp6.h"
#include "nlmsg.h"

struct lb_net_link {
	struct lb_nl_link nl;     /* name, index, type, flags, MAC, carrier, mtu, kind */
	char devpath[192];        /* realpath of /sys/class/net/NAME/device, "" none */
};

/* Every link, sorted as described above (all types; see lb_net_candidate).
 * *out is malloc'd (free it). 0 or negative errno with err set. */
int lb_net_links(struct lb_net_link **out, size_t *n, char *err, size_t errsz);
/* Is this a link DHCP runs on (Ethernet, not loopback, not enslaved,
 * matching pattern when not NULL)? */
int lb_net_candidate(const struct lb_net_link *l, const char *pattern);

/* Single rtnetlink operations, each waiting for the kernel's ACK; err gets
 * "kernel message" or strerror on failure. Addresses in network order. */
int lb_net_set_up(int ifindex, int up, char *err, size_t errsz);
int lb_net_set_mtu(int ifindex, uint32_t mtu, char *err, size_t errsz);
int lb_net_add_addr(int ifindex, uint32_t addr, unsigned prefix, uint32_t brd,
		    char *err, size_t errsz);
/* Default route via gw (onlink when gw is outside addr/prefix). */
int lb_net_add_default_route(int ifindex, uint32_t gw, uint32_t src, unsigned prefix,
			     char *err, size_t errsz);

struct lb_net_opts {
	const char *iface;        /* shell pattern ("eth*", "enp1s0"); NULL: all */
	unsigned timeout_ms;      /* the whole bring-up; 0: 30 s */
	unsigned carrier_ms;      /* wait for carrier per link; 0: 5 s */
	int http;                 /* HTTPClient identifiers (UEFI HTTP boot) */
	const char *hostname;     /* option 12, NULL: none */
	uint32_t request_ip;      /* INIT-REBOOT for this address first; 0: none */
	int no_uuid;              /* do not send option 97 from DMI */
	int no_apply;             /* do not configure the winning link */
	unsigned vlan;            /* 1..4094: DHCP on NAME.VLAN (802.1Q links made
				   * on each candidate) instead; 0: untagged */
	FILE *log;                /* one line per step; NULL: quiet */
};

struct lb_net_lease {
	char ifname[LB_NL_IFNAMSIZ];
	int ifindex;
	uint8_t mac[6];
	uint32_t addr, mask, router, broadcast;   /* network order */
	unsigned prefix;
	uint32_t server;          /* DHCP server (option 54, else the sender) */
	uint32_t next_server;     /* siaddr, else option 66 when an IPv4 literal, else 0 */
	char boot_server[LB_DHCP4_STR]; /* host to fetch the boot file from: option
				   * 66, else siaddr, else server (dotted) */
	char bootfile[LB_DHCP4_STR]; /* option 67, else the file field; "" none */
	uint32_t mtu;             /* option 26 applied, 0: none */
	uint8_t uuid[16];         /* option 97 sent (SMBIOS order) */
	int have_uuid;
	unsigned ms;              /* from start to the ACK */
	struct lb_dhcp4_lease dhcp; /* the ACK: dns, domain, hostname, 209/210,
				   * 175, lease time, vendor class, ... */
	int dhcp6;                /* bootfile from DHCPv6 (netboot.c fills these) */
	char dhcp6_param[1024];   /* its option 60 parameters */
	uint8_t ntp6[4][16];      /* DHCPv6 option 56 NTP servers (RFC 5908) */
	unsigned nntp6;
};

/*
 * Bring links up, run DHCP on every candidate with carrier, apply the first
 * lease (unless o->no_apply) and return it. 0, or negative errno with one
 * line in err: -ENODEV (no candidate link), -ENETDOWN (no carrier on any),
 * -ETIMEDOUT (no lease within the bound), or a netlink/socket error.
 */
int lb_net_up(const struct lb_net_opts *o, struct lb_net_lease *out, char *err, size_t errsz);

/*
 * DHCPv6 (RFC 8415, RFC 5970 boot file URL) the same way: every candidate
 * link with carrier at once, a UDP socket on [::]:546 bound to the link,
 * Solicit to ff02::1:2 from the link-local address (retried every 100 ms
 * while that address is still tentative: DAD), Advertise, Request, Reply;
 * retransmission per RFC 8415 15 (1 s doubling, +-10%), within the same
 * total timeout. The first usable Advertise (success, with an address or
 * a boot file URL) is taken without waiting for others. The IA_NA address
 * is applied as /128 without DAD (the on-link prefix and the default route
 * come from router advertisements, which the kernel handles).
 */
struct lb_net6_lease {
	char ifname[LB_NL_IFNAMSIZ];
	int ifindex;
	uint8_t mac[6];
	uint8_t server[16];       /* the server's (link-local) address */
	int have_addr;            /* an IA_NA address (applied as /128) */
	uint8_t addr[16];
	unsigned ms;
	struct lb_dhcp6_lease dhcp; /* 59 boot file URL, 60 parameters, DNS,
				   * lifetimes, status */
};
int lb_net_up6(const struct lb_net_opts *o, struct lb_net6_lease *out, char *err, size_t errsz);
int lb_net_add_addr6(int ifindex, const uint8_t addr[16], unsigned prefix, char *err,
		     size_t errsz);

/* resolv.conf text for the lease ("search DOMAIN" when option 15 is a
 * plain domain name, one "nameserver A" per option 6 address). Returns the
 * length, -ENOSPC when cap is too small, -ENOENT with no DNS server. */
int lb_net_resolv_conf(const struct lb_net_lease *r, char *buf, size_t cap);

/* "10.0.2.15" into buf (16 bytes). */
const char *lb_ipv4_str(uint32_t a, char buf[16]);

#endif
