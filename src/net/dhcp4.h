/*
 * DHCPv4 messages for a PXE-style boot client (RFC 2131/2132, RFC 3396 long
 * options, RFC 4578 PXE options 93/94/97, RFC 5071 209/210), and IPv4+UDP
 * framing for a raw AF_PACKET socket, so the client runs before it has an
 * address. No I/O.
 *
 * Client messages carry 53, 55 (1,3,6,12,15,26,28,42,43,51,54,60,66,67,209,
 * 210),
 * 57 (1472), 60 (PXEClient:Arch:00007:UNDI:003016, or HTTPClient:Arch:
 * 00016:UNDI:003001 for HTTP boot, as UEFI firmware sends; 00011 and 00019
 * on arm64: arch.h), 61 (hardware type 1 + MAC), 93 (arch 7 / 16; 11 / 19
 * on arm64), 94 (UNDI 3.16), 97 (type 0 + UUID when known), 12 (host name
 * when given).
 *
 * Parsing checks every option length against its area (options field,
 * then file and sname when option 52 overloads them), concatenates split
 * options (RFC 3396), and keeps only printable strings.
 */
#ifndef LB_DHCP4_H
#define LB_DHCP4_H

#include <stddef.h>
#include <stdint.h>

#define LB_DHCP_DISCOVER 1
#define LB_DHCP_OFFER    2
#define LB_DHCP_REQUEST  3
#define LB_DHCP_DECLINE  4
#define LB_DHCP_ACK      5
#define LB_DHCP_NAK      6
#define LB_DHCP_RELEASE  7
#define LB_DHCP_INFORM   8

#define LB_DHCP4_SERVER_PORT 67
#define LB_DHCP4_CLIENT_PORT 68
#define LB_DHCP4_PROXY_PORT  4011
#define LB_DHCP4_PKT_MAX     1500

struct lb_dhcp4_client {
	uint8_t mac[6];
	uint32_t xid;
	uint16_t secs;
	int http;                 /* HTTP boot identifiers instead of PXE */
	uint16_t arch;            /* option 93; 0: LB_DHCP_ARCH_PXE or _HTTP (arch.h) */
	uint8_t uuid[16];         /* option 97 (SMBIOS byte order) */
	int have_uuid;
	const char *hostname;     /* option 12, NULL: none */
};

/*
 * Build a client message: type DISCOVER, REQUEST (selecting: requested_ip
 * and server_id set; renewing: ciaddr set) or INFORM. For a proxyDHCP
 * request to UDP 4011, type REQUEST with ciaddr = our address and no
 * requested_ip/server_id. Addresses in network byte order.
 */
int lb_dhcp4_build(const struct lb_dhcp4_client *c, int type, uint32_t ciaddr,
		   uint32_t requested_ip, uint32_t server_id, uint8_t *buf,
		   size_t cap, size_t *len);

#define LB_DHCP4_STR 256

struct lb_dhcp4_lease {
	int type;                 /* option 53 */
	uint32_t yiaddr, siaddr, giaddr, ciaddr;  /* network order */
	uint32_t mask, router, broadcast, server_id;
	uint32_t dns[4];
	unsigned ndns;
	uint32_t ntp[4];
	unsigned nntp;
	uint32_t lease_time, t1, t2;  /* seconds, 0: none */
	int have_mask, have_router, have_server_id, have_lease;
	char hostname[LB_DHCP4_STR];  /* 12 */
	char domain[LB_DHCP4_STR];    /* 15 */
	char sname[65];               /* BOOTP field (when not overloaded) */
	char file[129];               /* BOOTP field (when not overloaded) */
	char tftp_server[LB_DHCP4_STR]; /* 66 */
	char bootfile[LB_DHCP4_STR];  /* 67 */
	char pxe_conffile[LB_DHCP4_STR]; /* 209 */
	char pxe_prefix[LB_DHCP4_STR];   /* 210 */
	char vendor_class[LB_DHCP4_STR]; /* 60 echoed by the server */
	uint8_t vendor_opts[LB_DHCP4_STR]; /* 43 */
	size_t vendor_opts_len;
	int have_vendor_opts;
	uint8_t ipxe_opts[LB_DHCP4_STR]; /* 175 (iPXE encapsulated options) */
	size_t ipxe_opts_len;
	int have_ipxe_opts;
	uint16_t mtu;                 /* 26 (interface MTU, >= 68), 0: none */
	uint8_t overload;             /* 52 */
};

/*
 * Parse a server message (BOOTREPLY) for our xid and MAC. -EPROTO on a
 * malformed packet (an option overrunning its area, bad cookie...),
 * -ENOMSG when it is not for us (xid, MAC, op) or has no message type.
 */
int lb_dhcp4_parse(const uint8_t *p, size_t len, uint32_t xid, const uint8_t mac[6],
		   struct lb_dhcp4_lease *l);

/* A proxyDHCP offer: no address and option 60 "PXEClient"/"HTTPClient".
 * When it names no boot file (dnsmasq's proxy mode for UEFI clients), the
 * client asks the proxy again: a REQUEST with ciaddr to its UDP port 4011,
 * whose ACK carries the boot file and siaddr. */
int lb_dhcp4_is_proxy(const struct lb_dhcp4_lease *l);
/* The boot file to fetch: option 67 else the file field (NULL: none). */
const char *lb_dhcp4_bootfile(const struct lb_dhcp4_lease *l);

/* IPv4 + UDP framing (checksums computed). Addresses/ports in host order. */
int lb_ipv4_udp_build(uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport,
		      const uint8_t *payload, size_t plen, uint8_t *out,
		      size_t cap, size_t *len);
/* Validate an IPv4 packet carrying UDP: header length and checksum, total
 * length within len, no fragment, protocol 17, UDP length and checksum
 * (when not 0). -EPROTO invalid, -ENOMSG not UDP or a fragment. */
int lb_ipv4_udp_parse(const uint8_t *pkt, size_t len, uint32_t *src, uint32_t *dst,
		      uint16_t *sport, uint16_t *dport, const uint8_t **payload,
		      size_t *plen);

#endif
