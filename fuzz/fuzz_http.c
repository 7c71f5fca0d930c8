/* Fuzz the HTTP response-head parser and body decoder (input fed in pieces
 * whose size comes from the first byte), and the URL parser/resolver (two
 * lines: base and reference; the result must parse again). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"

static struct lb_http_resp r;

static void urls(const uint8_t *p, size_t n)
{
	char a[LB_URL_MAX + 1], b[LB_URL_MAX + 1], out[LB_URL_MAX];
	const uint8_t *nl = memchr(p, '\n', n);
	size_t al = nl ? (size_t)(nl - p) : n, bl = nl ? n - al - 1 : 0;
	struct lb_url u;

	if (al > LB_URL_MAX || bl > LB_URL_MAX)
		return;
	memcpy(a, p, al);
	a[al] = 0;
	memcpy(b, nl ? nl + 1 : p, bl);
	b[bl] = 0;
	if (strlen(a) != al || strlen(b) != bl)
		return;
	if (!lb_url_parse(a, &u)) {
		char pathbuf[LB_URL_MAX], req[LB_URL_MAX + 512];
		size_t rl;
		if (lb_url_format(&u, out, sizeof(out)) == 0 && lb_url_parse(out, &u))
			abort();
		(void)lb_url_path_decode(&u, pathbuf, sizeof(pathbuf));
		(void)lb_http_request(&u, 1, req, sizeof(req), &rl);
	}
	if (!lb_url_resolve(a, b, out, sizeof(out)) && lb_url_parse(out, &u))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t step, i = 1, used;
	int rc = 0;

	if (size < 1 || size > (1u << 20))
		return 0;
	if (data[0] == 'U') {
		urls(data + 1, size - 1);
		return 0;
	}
	step = (size_t)(data[0] & 0x3f) + 1;
	lb_http_head_init(&r);
	while (i < size) {
		size_t n = size - i < step ? size - i : step;
		rc = lb_http_head_feed(&r, data + i, n, &used);
		if (used > n)
			abort();
		i += used;
		if (rc)
			break;
	}
	if (rc != 1)
		return 0;
	struct lb_http_body b;
	uint64_t total = 0;
	lb_http_body_init(&b, &r, (data[0] & 0x40) ? 4096 : 0);
	while (i < size) {
		size_t n = size - i < step ? size - i : step;
		const uint8_t *d;
		size_t dl;
		rc = lb_http_body_feed(&b, data + i, n, &used, &d, &dl);
		if (rc < 0)
			break;
		if (used > n || dl > used || (dl && (d < data + i || d + dl > data + i + n)))
			abort();
		total += dl;
		i += used;
		if (rc == 1)
			break;
		if (!used && !dl)
			abort();        /* no progress: would loop forever */
	}
	if (total != b.total || ((data[0] & 0x40) && total > 4096))
		abort();
	(void)lb_http_body_eof(&b);
	return 0;
}
