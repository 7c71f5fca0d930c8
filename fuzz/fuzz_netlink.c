/* Fuzz the rtnetlink reply parser (src/net/nlmsg.c): a datagram as the
 * kernel would send it, walked message by message; each is parsed as a
 * link and as an error/ACK, whatever its type says. Seeds: real kernel
 * replies (link dumps with veth, bridge, VLAN, dummy links; an extended
 * ack error) captured on Linux 6.x. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nlmsg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lb_nl_msg m;
	struct lb_nl_link l;
	size_t off = 0;
	char msg[128];
	int e, r, k = 0;

	if (size > LB_NL_MSG_MAX)
		return 0;
	while ((r = lb_nl_next(data, size, &off, &m)) > 0) {
		if (m.data < data || m.data + m.len > data + size || off > size)
			abort();
		if (++k > 100000)
			abort();                 /* every message advances */
		uint16_t t = m.type;
		m.type = LB_RTM_NEWLINK;
		if (!lb_nl_parse_link(&m, &l)) {
			if (strnlen(l.name, sizeof(l.name)) >= sizeof(l.name) || !l.name[0] ||
			    l.hwaddr_len > sizeof(l.hwaddr) || l.index <= 0 ||
			    strnlen(l.kind, sizeof(l.kind)) >= sizeof(l.kind) ||
			    strnlen(l.parent, sizeof(l.parent)) >= sizeof(l.parent))
				abort();
			(void)lb_nl_link_carrier(&l);
		}
		m.type = LB_NLMSG_ERROR;
		if (!lb_nl_parse_error(&m, &e, msg, sizeof(msg))) {
			if (e > 0 || e < -4095 || strnlen(msg, sizeof(msg)) >= sizeof(msg))
				abort();
		}
		m.type = t;
	}
	return 0;
}
