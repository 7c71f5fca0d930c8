/* Fuzz the TPM 2.0 response parsers: every parser, and the commands that
 * loop (PCR_Read, GetRandom, NV_Read) through a transport that answers
 * with the input, on the same bytes; whatever they accept must be within
 * the caps. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpm2.h"

struct fake {
	const uint8_t *p;
	size_t n, calls;
};

static int xfer(void *ctx, const uint8_t *cmd, size_t clen, uint8_t *rsp,
		size_t rcap, size_t *rlen)
{
	struct fake *f = ctx;

	if (f->n > rcap || ++f->calls > 64)
		return -5;
	memcpy(rsp, f->p, f->n);
	*rlen = f->n;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t val[LB_TPM2_NUM_PCRS][LB_TPM2_MAX_DIGEST];
	static struct lb_tpm2 t;
	static struct lb_tpm2_blob a, b;
	struct lb_tpm2_pcrsel bk[LB_TPM2_MAX_BANKS];
	struct lb_tpm2_prop props[64];
	struct lb_tpm2_nvpub pub;
	struct fake f = { data, size, 0 };
	uint8_t out[256];
	size_t n, len;
	uint32_t got, h;
	uint64_t v;
	int more, rc;
	char name[96];

	if (size > LB_TPM2_BUF)
		return 0;
	rc = lb_tpm2_parse_empty(data, size, 0);
	lb_tpm2_rc_str(rc > 0 ? (uint32_t)rc : 0, name, sizeof(name));
	(void)lb_tpm2_parse_empty(data, size, 1);
	if (!lb_tpm2_parse_banks(data, size, bk, LB_TPM2_MAX_BANKS, &n)) {
		if (n > LB_TPM2_MAX_BANKS)
			abort();
		for (size_t i = 0; i < n; i++)
			if (!bk[i].mask || bk[i].mask > 0xffffff)
				abort();
	}
	if (!lb_tpm2_parse_props(data, size, props, 64, &n, &more) && (n > 64 || more > 1))
		abort();
	if (!lb_tpm2_parse_pcr_read(data, size, LB_TPM2_ALG_SHA256, 0xffffff, &got, val, NULL) &&
	    got > 0xffffff)
		abort();
	if (!lb_tpm2_parse_2b(data, size, 0, out, 64, &len) && len > 64)
		abort();
	if (!lb_tpm2_parse_2b(data, size, 1, out, 128, &len) && len > 128)
		abort();
	if (!lb_tpm2_parse_create(data, size, &a, &b) &&
	    (a.len > LB_TPM2_BLOB_MAX || b.len > LB_TPM2_BLOB_MAX || !a.len || !b.len))
		abort();
	(void)lb_tpm2_parse_handle(data, size, 0, &h);
	(void)lb_tpm2_parse_handle(data, size, 1, &h);
	(void)lb_tpm2_parse_start_session(data, size, &h);
	if (!lb_tpm2_parse_nv_public(data, size, &pub) && pub.policy_len > LB_TPM2_MAX_DIGEST)
		abort();
	if (!lb_tpm2_parse_hash(data, size, out, 64, &len) && len > 64)
		abort();

	/* whole commands through the transport */
	lb_tpm2_init(&t, xfer, &f);
	(void)lb_tpm2_pcr_read(&t, LB_TPM2_ALG_SHA1, 0xffffff, val, &n, NULL);
	f.calls = 0;
	(void)lb_tpm2_get_random(&t, out, 200);
	f.calls = 0;
	(void)lb_tpm2_nv_read(&t, LB_TPM2_RH_OWNER, NULL, 0x01500000, 0, out, 256);
	f.calls = 0;
	(void)lb_tpm2_nv_read_counter(&t, LB_TPM2_RH_OWNER, NULL, 0x01500000, &v);
	f.calls = 0;
	(void)lb_tpm2_get_banks(&t, bk, 2, &n);
	f.calls = 0;
	(void)lb_tpm2_policy_get_digest(&t, 0x03000000, out, 16, &len);
	return 0;
}
