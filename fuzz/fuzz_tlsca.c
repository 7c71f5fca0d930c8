/*
 * Fuzz the trust-anchor loader (CA files are untrusted input: PEM bundles
 * through BearSSL's PEM decoder, DER through our TLV split and BearSSL's
 * X.509 decoder, all-or-nothing rollback) and our subjectAltName iPAddress
 * walk over a certificate's DER (the server's certificate, in lb_tls_open).
 */
#include <stdint.h>
#include <stdlib.h>

#include "tls.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t v4[4] = { 127, 0, 0, 1 }, v6[16] = { [15] = 1 };
	struct lb_tls_anchors *a;

	if (size > (1u << 20))
		return 0;
	if ((a = lb_tls_anchors_new())) {
		/* twice: the second add must find the first one's state intact */
		int n = lb_tls_anchors_add_mem(a, data, size);
		size_t c = lb_tls_anchors_count(a);

		if ((n > 0 && c != (size_t)n) || (n <= 0 && c != 0))
			abort();
		n = lb_tls_anchors_add_mem(a, data, size);
		if (n > 0 ? lb_tls_anchors_count(a) != c + (size_t)n : lb_tls_anchors_count(a) != c)
			abort();
		lb_tls_anchors_free(a);
	}
	(void)lb_tls_cert_ip_match(data, size, v4, sizeof(v4));
	(void)lb_tls_cert_ip_match(data, size, v6, sizeof(v6));
	return 0;
}
