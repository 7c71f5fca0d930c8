/* Fuzz the TCG2 event log parser and replay: whatever it accepts must stay
 * inside the input, and a record built for it must append and parse back. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tcglog.h"

/* Not a hash: a cheap mixing so the replay runs every path. */
static int mix(void *ctx, uint16_t alg, const uint8_t *data, size_t len, uint8_t *out)
{
	size_t size = lb_tpm2_alg_size(alg);

	if (!size)
		return -ENOTSUP; /* an algorithm only the log's header knows */
	if (len != 2 * size)
		abort();
	for (size_t i = 0; i < size; i++)
		out[i] = data[i] ^ (uint8_t)(data[size + i] * 31 + i);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct lb_tcglog_pcrs pcrs;
	struct lb_tcglog log, again;
	struct lb_tcglog_event ev;
	struct lb_tpm2_digest d[LB_TCGLOG_MAX_ALGS];
	uint8_t rec[1024], *area;
	size_t off, n = 0, len, used;

	if (size > (1u << 20))
		return 0;
	if (lb_tcglog_open(&log, data, size))
		return 0;
	if (log.first > size || log.end > size || log.first > log.end || !log.n_alg ||
	    log.n_alg > LB_TCGLOG_MAX_ALGS)
		abort();
	off = log.first;
	while (lb_tcglog_next(&log, &off, &ev) == 1) {
		if (ev.off + ev.len > size || ev.data < data || ev.data + ev.size > data + size ||
		    ev.n_dig > log.n_alg || ev.pcr >= LB_TPM2_NUM_PCRS)
			abort();
		for (size_t i = 0; i < ev.n_dig; i++)
			if (ev.dig[i].d < data || ev.dig[i].d + ev.dig[i].size > data + size)
				abort();
		n++;
	}
	if (n != log.n_events || off != log.end)
		abort();
	if (lb_tcglog_replay(&log, mix, NULL, &pcrs))
		abort(); /* an accepted log replays */
	for (size_t i = 0; i < log.n_alg; i++) {
		d[i].alg = log.alg[i].id;
		d[i].size = log.alg[i].size;
		memset(d[i].d, 0x5a, d[i].size);
	}
	if (lb_tcglog_build(&log, 8, LB_EV_IPL, d, log.n_alg, "lboot", 5, rec, sizeof(rec), &len))
		abort();
	area = malloc(log.end + len);
	if (!area)
		return 0;
	memcpy(area, data, log.end);
	used = log.end;
	if (lb_tcglog_append(area, log.end + len, &used, rec, len) || used != log.end + len)
		abort();
	if (lb_tcglog_open(&again, area, used) || again.n_events != log.n_events + 1)
		abort();
	free(area);
	return 0;
}
