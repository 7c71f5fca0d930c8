/*
 * DHCPv6 client messages for network boot (RFC 8415, RFC 5970 boot file
 * URL/parameters, RFC 4578-style client architecture 61). No I/O.
 *
 * Solicit and Request carry: client id (DUID-LL from the MAC, or DUID-UUID
 * when the machine UUID is known), elapsed time, ORO (23 DNS, 59 boot file
 * URL, 60 boot file parameters, 56 NTP server), IA_NA, 61 client architecture and 16
 * vendor class (enterprise 343, "PXEClient" or "HTTPClient"); Request adds
 * the server id and the IA_NA address offered.
 */
#ifndef LB_DHCP6_H
#define LB_DHCP6_H

#include <stddef.h>
#include <stdint.h>

#define LB_DHCP6_SOLICIT   1
#define LB_DHCP6_ADVERTISE 2
#define LB_DHCP6_REQUEST   3
#define LB_DHCP6_REPLY     7

#define LB_DHCP6_CLIENT_PORT 546
#define LB_DHCP6_SERVER_PORT 547
#define LB_DHCP6_DUID_MAX    130
#define LB_DHCP6_PKT_MAX     1500

struct lb_dhcp6_client {
	uint8_t mac[6];
	uint32_t xid;             /* low 24 bits used */
	uint32_t iaid;
	uint16_t elapsed;         /* hundredths of a second */
	int http;                 /* HTTPClient identifiers */
	uint16_t arch;            /* option 61; 0: LB_DHCP_ARCH_PXE or _HTTP (arch.h) */
	uint8_t uuid[16];
	int have_uuid;            /* DUID-UUID instead of DUID-LL */
	int rapid_commit;         /* Solicit asks for rapid commit (14) */
};

struct lb_dhcp6_lease {
	int type;
	uint8_t server_id[LB_DHCP6_DUID_MAX];
	size_t server_id_len;
	int preference;           /* -1: none */
	int status;               /* top-level status code, 0 when absent */
	char status_msg[128];
	int have_addr;
	uint8_t addr[16];
	uint32_t preferred, valid;
	uint32_t t1, t2;
	int ia_status;            /* IA_NA or IAADDR status code, 0 when absent */
	uint8_t dns[4][16];
	unsigned ndns;
	uint8_t ntp[4][16];       /* 56 (RFC 5908): server / multicast addresses */
	unsigned nntp;
	char bootfile_url[1024];  /* 59 */
	char bootfile_param[1024];/* 60: parameters joined with single spaces */
	unsigned nparams;
	int rapid_commit;
};

/* The client DUID (DUID-UUID type 4 or DUID-LL type 3) into out. */
int lb_dhcp6_duid(const struct lb_dhcp6_client *c, uint8_t *out, size_t cap, size_t *len);
/* Solicit, or Request for lease l (server id and address from it). */
int lb_dhcp6_build(const struct lb_dhcp6_client *c, int type,
		   const struct lb_dhcp6_lease *l, uint8_t *buf, size_t cap, size_t *len);
/*
 * Parse an Advertise or Reply for our xid and DUID. -ENOMSG: not for us
 * (type, xid, client id), -EPROTO: malformed (an option overrunning its
 * container, bad lengths), nesting bounded (IA_NA > IAADDR > status).
 */
int lb_dhcp6_parse(const uint8_t *p, size_t len, const struct lb_dhcp6_client *c,
		   struct lb_dhcp6_lease *l);

#endif
