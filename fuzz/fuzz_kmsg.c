/* Fuzz the /dev/kmsg record parser (its text must lie inside the input),
 * the record builder and the boot log's ring (whole lines, within its
 * capacity). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kmsg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char out[LB_KMSG_TEXT_MAX + 32], log[512];
	struct lb_kmsg_rec r;
	const char *in = (const char *)data;
	size_t n, ln = 0;

	if (size > (1u << 20))
		return 0;
	if (!lb_kmsg_parse(in, size, &r)) {
		if (r.text < in || r.text + r.tlen >= in + size || r.text[r.tlen] != '\n' ||
		    r.level > 7)
			abort();
		lb_bootlog_add(log, sizeof(log), &ln, r.level, r.text, r.tlen);
		if (ln > sizeof(log) || (ln && log[ln - 1] != '\n'))
			abort();
	}
	n = lb_kmsg_record(out, sizeof(out), in, size);
	if (n >= sizeof(out) || (n && (out[0] != '<' || out[n] != 0)))
		abort();
	/* the input as lines into the ring */
	for (size_t i = 0, s = 0; i <= size; i++)
		if (i == size || data[i] == '\n') {
			lb_bootlog_add(log, sizeof(log), &ln, (s < size ? data[s] : 0) & 7u, in + s, i - s);
			if (ln > sizeof(log) || log[ln - 1] != '\n')
				abort();
			s = i + 1;
		}
	return 0;
}
