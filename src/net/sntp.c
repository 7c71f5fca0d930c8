/* SNTP client packets: see sntp.h. */
#include <errno.h>
#include <string.h>

#include "sntp.h"

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

void lb_sntp_request(uint8_t out[LB_SNTP_LEN], uint64_t nonce)
{
	memset(out, 0, LB_SNTP_LEN);
	out[0] = 0 << 6 | 4 << 3 | 3;   /* LI 0, VN 4, mode 3 (client) */
	put64(out + 40, nonce);
}

int lb_sntp_parse(const uint8_t *buf, size_t len, uint64_t nonce,
		  struct lb_sntp_reply *r, const char **why)
{
	struct lb_sntp_reply x;
	const char *w_;

	if (!why)
		why = &w_;
	if (len < LB_SNTP_LEN || len > LB_SNTP_PKT_MAX) {
		*why = len < LB_SNTP_LEN ? "reply shorter than 48 bytes" : "reply too long";
		return -EMSGSIZE;
	}
	memset(&x, 0, sizeof(x));
	x.li = buf[0] >> 6;
	x.version = buf[0] >> 3 & 7;
	x.mode = buf[0] & 7;
	x.stratum = buf[1];
	x.poll = (int8_t)buf[2];
	x.precision = (int8_t)buf[3];
	x.root_delay = get32(buf + 4);
	x.root_dispersion = get32(buf + 8);
	x.ref_id = get32(buf + 12);
	x.ref = get64(buf + 16);
	x.orig = get64(buf + 24);
	x.recv = get64(buf + 32);
	x.xmit = get64(buf + 40);
	if (x.mode != 4) {
		*why = "not a server reply (mode is not 4)";
		return -EPROTO;
	}
	if (x.version != 3 && x.version != 4) {
		*why = "unsupported NTP version";
		return -EPROTO;
	}
	if (x.orig != nonce) {
		*why = "reply does not echo our request (origin timestamp)";
		return -ESTALE;
	}
	if (x.stratum == 0) {
		/* a kiss code is 4 ASCII letters/digits (RATE, DENY, RSTR);
		 * anything else is a server with no time (chrony, ntpd before
		 * they synchronize: stratum 0, LI 3, reference id 0) */
		int kod = 1;
		for (int i = 0; i < 4; i++) {
			uint8_t c = buf[12 + i];
			if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			      (i && !c)))
				kod = 0;
		}
		if (!kod) {
			*why = "server not synchronized (stratum 0)";
			return -EAGAIN;
		}
		memcpy(r->kiss, buf + 12, 4);
		r->kiss[4] = 0;
		*why = "kiss-o'-death";
		return -ECONNREFUSED;
	}
	if (x.stratum > 15) {
		*why = "server not synchronized (stratum 16 or more)";
		return -EAGAIN;
	}
	if (x.li == 3) {
		*why = "server not synchronized (leap indicator 3)";
		return -EAGAIN;
	}
	if (!x.xmit) {
		*why = "transmit timestamp is zero";
		return -EAGAIN;
	}
	*why = "";
	*r = x;
	return 0;
}

int64_t lb_sntp_unix(uint64_t ts, int64_t pivot, uint32_t *nsec)
{
	/* the 32-bit NTP seconds of the pivot, then the signed distance from
	 * it: closest era, +-68 years */
	uint32_t ps = (uint32_t)((uint64_t)pivot + LB_NTP_UNIX_DIFF);
	int32_t d = (int32_t)((uint32_t)(ts >> 32) - ps);

	if (nsec)
		*nsec = (uint32_t)(((ts & 0xffffffffu) * 1000000000ull) >> 32);
	return (int64_t)((uint64_t)pivot + (uint64_t)(int64_t)d);
}

uint64_t lb_sntp_from_unix(int64_t sec, uint32_t nsec)
{
	uint32_t s = (uint32_t)((uint64_t)sec + LB_NTP_UNIX_DIFF);
	uint64_t f = ((uint64_t)nsec << 32) / 1000000000ull;

	return (uint64_t)s << 32 | (f & 0xffffffffu);
}
