/* Fuzz the TFTP client state machine: the input is 4 bytes of options
 * (blksize, windowsize, tsize flag, max size) and then a stream of server
 * packets, each with a 2-byte big-endian length (0: a timeout; 0xffff: the
 * next 2 bytes are a count K and the packet after them is fed K times with
 * its block number counting up, so block-number rollover is reachable from
 * a small input). Checks the
 * machine's promises: data lands contiguously, never past max_size or
 * tsize, never larger than blksize. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tftp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lb_tftp t;
	struct lb_tftp_ev ev;
	struct lb_tftp_opts o = { 0 };
	uint8_t out[600];
	size_t i = 4, n;
	uint64_t expect = 0;

	if (size < 4 || size > (1u << 20))
		return 0;
	o.blksize = (unsigned)data[0] * 8;
	o.windowsize = data[1] % 20;
	o.tsize = data[2] & 1;
	o.timeout = (data[2] >> 1) & 7;
	o.max_size = (uint64_t)data[3] * 1024;
	o.retries = 3;
	if (lb_tftp_init(&t, "pxelinux.cfg/default", &o))
		return 0;
	if (lb_tftp_rrq(&t, out, sizeof(out), &n))
		abort();
	while (i + 2 <= size) {
		size_t len = (size_t)data[i] << 8 | data[i + 1], rep = 1;
		int rc = 0;
		i += 2;
		if (len == 0xffff) {
			if (size - i < 4)
				break;
			rep = (size_t)data[i] << 8 | data[i + 1];
			len = (size_t)data[i + 2] << 8 | data[i + 3];
			i += 4;
			if (!len)
				continue;
		}
		if (len > size - i)
			len = size - i;
		if (!len) {
			rc = lb_tftp_timeout(&t, out, sizeof(out), &n);
			if (rc < 0)
				break;
			continue;
		}
		/* exact-size copy so ASan sees reads past the packet */
		uint8_t *pkt = malloc(len);
		memcpy(pkt, data + i, len);
		i += len;
		for (size_t k = 0; k < rep; k++) {
			if (len >= 4 && k) {
				unsigned b = ((unsigned)pkt[2] << 8 | pkt[3]) + 1;
				pkt[2] = (uint8_t)(b >> 8);
				pkt[3] = (uint8_t)b;
			}
			rc = lb_tftp_feed(&t, pkt, len, &ev);
			if (ev.datalen) {
				if (ev.offset != expect || ev.datalen > t.blksize ||
				    ev.data < pkt || ev.data + ev.datalen > pkt + len)
					abort();
				expect += ev.datalen;
			}
			if (ev.replylen > sizeof(ev.reply))
				abort();
			if (expect != t.received || t.received > t.req.max_size ||
			    (t.have_tsize && t.received > t.tsize))
				abort();
			if (rc < 0 || rc == 1)
				break;
		}
		free(pkt);
		if (rc < 0 || rc == 1)
			break;
	}
	return 0;
}
