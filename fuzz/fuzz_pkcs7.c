/*
 * Fuzz the Authenticode signature path: the certificate table walk, our DER
 * walk of ContentInfo/SignedData/SignerInfo/SpcIndirectDataContent and the
 * certificates, and BearSSL's X.509 decoding. Input starting with 'M' is a
 * whole PE image; anything else is a raw PKCS#7 SignedData placed in the
 * certificate table of a minimal PE32+ image built here. The first
 * certificate found in the input also serves as the trusted CA, so the
 * chain engine runs on fuzzed certificates.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pkcs7.h"

#define HDR 0x200

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { put16(p, (uint16_t)v); put16(p + 2, (uint16_t)(v >> 16)); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lb_x509_ca ca = { data, size };
	char err[200];
	uint8_t *img;
	size_t len;

	if (size > (1u << 20))
		return 0;
	if (size && data[0] == 'M') {
		(void)lb_pe_sig_verify(data, size, &ca, 1, 1800000000, err, sizeof(err));
		return 0;
	}
	len = HDR + 8 + size;
	if (!(img = calloc(1, len)))
		return 0;
	img[0] = 'M';
	img[1] = 'Z';
	put32(img + 0x3c, 0x40);
	memcpy(img + 0x40, "PE\0\0", 4);
	put16(img + 0x44, 0x8664);          /* machine */
	put16(img + 0x44 + 2, 0);           /* sections */
	put16(img + 0x44 + 16, 240);        /* SizeOfOptionalHeader */
	uint8_t *opt = img + 0x58;
	put16(opt, 0x20b);
	put32(opt + 60, HDR);               /* SizeOfHeaders */
	put32(opt + 108, 16);               /* NumberOfRvaAndSizes */
	put32(opt + 112 + 4 * 8, HDR);      /* certificate table */
	put32(opt + 112 + 4 * 8 + 4, (uint32_t)(8 + size));
	put32(img + HDR, (uint32_t)(8 + size));
	put16(img + HDR + 4, 0x200);
	put16(img + HDR + 6, 2);            /* WIN_CERT_TYPE_PKCS_SIGNED_DATA */
	memcpy(img + HDR + 8, data, size);
	(void)lb_pe_sig_verify(img, len, &ca, 1, 1800000000, err, sizeof(err));
	/* and with a CA cut out of the input, wherever a certificate starts */
	for (size_t i = 0; i + 4 < size; i++) {
		if (data[i] == 0x30 && data[i + 1] == 0x82) {
			size_t l = (size_t)data[i + 2] << 8 | data[i + 3];
			if (l + 4 <= size - i && l > 200) {
				struct lb_x509_ca c2 = { data + i, l + 4 };
				(void)lb_pe_sig_verify(img, len, &c2, 1, 1800000000,
						       err, sizeof(err));
				break;
			}
		}
	}
	free(img);
	return 0;
}
