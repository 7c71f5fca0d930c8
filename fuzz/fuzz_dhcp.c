/* Fuzz the DHCPv4, DHCPv6 and IPv4/UDP parsers. The first byte picks the
 * parser; the xid, MAC and DUID are taken from the packet itself so that
 * the parse goes past the "is it for us" checks. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dhcp4.h"
#include "dhcp6.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 65536)
		return 0;
	uint8_t sel = data[0];
	const uint8_t *p = data + 1;
	size_t n = size - 1;

	switch (sel % 3) {
	case 0: {
		struct lb_dhcp4_lease l;
		uint8_t mac[6] = { 0 };
		uint32_t xid = 0;
		if (n >= 34) {
			xid = (uint32_t)p[4] << 24 | (uint32_t)p[5] << 16 | (uint32_t)p[6] << 8 | p[7];
			memcpy(mac, p + 28, 6);
		}
		if (!lb_dhcp4_parse(p, n, xid, mac, &l)) {
			const char *f = lb_dhcp4_bootfile(&l);
			if (f && strlen(f) >= LB_DHCP4_STR)
				abort();
			if (l.ndns > 4 || l.nntp > 4 || l.vendor_opts_len > sizeof(l.vendor_opts))
				abort();
			(void)lb_dhcp4_is_proxy(&l);
		}
		break;
	}
	case 1: {
		struct lb_dhcp6_client c = { 0 };
		struct lb_dhcp6_lease l;
		if (n >= 4)
			c.xid = (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
		/* our DUID-LL from a client id option (DUID type 3) at the start */
		if (n >= 18 && p[4] == 0 && p[5] == 1 && p[8] == 0 && p[9] == 3)
			memcpy(c.mac, p + 12, 6);
		c.iaid = sel >> 2;
		if (!lb_dhcp6_parse(p, n, &c, &l)) {
			if (l.ndns > 4 || l.server_id_len > sizeof(l.server_id) ||
			    strlen(l.bootfile_url) >= sizeof(l.bootfile_url))
				abort();
			uint8_t b[LB_DHCP6_PKT_MAX];
			size_t bl;
			if (l.server_id_len)
				(void)lb_dhcp6_build(&c, LB_DHCP6_REQUEST, &l, b, sizeof(b), &bl);
		}
		break;
	}
	case 2: {
		uint32_t s, d;
		uint16_t sp, dp;
		const uint8_t *pl;
		size_t pn;
		if (!lb_ipv4_udp_parse(p, n, &s, &d, &sp, &dp, &pl, &pn)) {
			if (pl < p || pl + pn > p + n)
				abort();
		}
		break;
	}
	}
	return 0;
}
