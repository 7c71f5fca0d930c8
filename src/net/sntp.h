/*
 * SNTP client packets (RFC 4330, RFC 5905 client mode 3). No I/O.
 *
 * The request is 48 bytes: LI 0, version 4, mode 3 (client), everything
 * zero but the transmit timestamp, which carries a random 64-bit nonce
 * rather than our clock (the clock is what we do not know; chrony and
 * ntpd echo it as the reply's origin timestamp all the same, and a reply
 * that does not echo it is not an answer to us: RFC 5905 "bogus" check).
 *
 * A reply is checked before anything in it is believed (lb_sntp_parse):
 * at least 48 bytes (extension fields and a MAC may follow: ignored, but
 * a reply longer than LB_SNTP_PKT_MAX is refused), mode 4 (server),
 * version 3 or 4, the origin timestamp equal to our nonce, stratum 0 is a
 * kiss-o'-death when the reference id is a kiss code (4 ASCII capitals or
 * digits, NUL-padded: reply->kiss), else a server without time; stratum
 * 1..15 (16 and above: unsynchronized), leap indicator not 3 (clock not
 * synchronized), transmit timestamp non-zero.
 *
 * NTP timestamps count seconds from 1900 in 32 bits: era 0 ends in 2036.
 * lb_sntp_unix() takes the era that puts the time closest to a pivot the
 * caller knows is near (the build date): right for 68 years either side.
 */
#ifndef LB_SNTP_H
#define LB_SNTP_H

#include <stddef.h>
#include <stdint.h>

#define LB_SNTP_LEN      48
#define LB_SNTP_PKT_MAX  1024         /* 48 + extension fields + MAC */
#define LB_SNTP_PORT     123
#define LB_NTP_UNIX_DIFF 2208988800ull /* 1900-01-01 to 1970-01-01, seconds */

struct lb_sntp_reply {
	unsigned li, version, mode, stratum;
	int poll, precision;
	uint32_t root_delay, root_dispersion, ref_id;
	uint64_t ref, orig, recv, xmit; /* NTP 32.32 fixed point */
	char kiss[5];                  /* stratum 0: the kiss code, NUL-ended */
};

/* The client request with nonce as its transmit timestamp. */
void lb_sntp_request(uint8_t out[LB_SNTP_LEN], uint64_t nonce);

/*
 * Check a reply to the request that carried nonce. 0 with *r filled, or:
 * -EMSGSIZE (shorter than 48 or longer than LB_SNTP_PKT_MAX), -EPROTO
 * (not mode 4, version not 3/4), -ESTALE (origin is not our nonce: not
 * our answer, keep waiting), -ECONNREFUSED (kiss-o'-death: r->kiss set),
 * -EAGAIN (leap indicator 3, stratum 0 without a kiss code, stratum 16+
 * or zero transmit timestamp: the server is not synchronized). *why gets a few words for every failure.
 * *r is written only on success, except r->kiss for -ECONNREFUSED.
 */
int lb_sntp_parse(const uint8_t *buf, size_t len, uint64_t nonce,
		  struct lb_sntp_reply *r, const char **why);

/* NTP 32.32 timestamp to Unix seconds and nanoseconds, in the NTP era
 * that puts it closest to pivot (Unix seconds). */
int64_t lb_sntp_unix(uint64_t ts, int64_t pivot, uint32_t *nsec);

/* Unix seconds (+ nanoseconds) to a 32.32 NTP timestamp (era dropped). */
uint64_t lb_sntp_from_unix(int64_t sec, uint32_t nsec);

#endif
