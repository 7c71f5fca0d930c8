/* Fuzz the measure module's inputs: an ACPI TPM2 table, a firmware log to
 * append to (what is built must parse back with the firmware's events and
 * ours), a kernel or UKI image (sections, .sdmagic), a command line. The
 * first byte picks the input; the TPM is a scripted one that accepts every
 * extend. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "tcglog.h"

static void be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static int xfer(void *ctx, const uint8_t *cmd, size_t clen, uint8_t *rsp, size_t rcap,
		size_t *rlen)
{
	static const uint16_t banks[] = { LB_TPM2_ALG_SHA1, LB_TPM2_ALG_SHA256,
					  LB_TPM2_ALG_SHA384, LB_TPM2_ALG_SHA512 };
	uint32_t cc = (uint32_t)cmd[6] << 24 | cmd[7] << 16 | cmd[8] << 8 | cmd[9];
	size_t n = 10;

	(void)ctx;
	if (clen < 10 || rcap < 64)
		abort();
	rsp[0] = 0x80;
	rsp[1] = 0x01;
	be32(rsp + 6, 0);
	if (cc == LB_TPM2_CC_GetCapability) {
		rsp[n++] = 0;
		be32(rsp + n, LB_TPM2_CAP_PCRS);
		be32(rsp + n + 4, 4);
		n += 8;
		for (size_t i = 0; i < 4; i++) {
			rsp[n++] = banks[i] >> 8;
			rsp[n++] = (uint8_t)banks[i];
			rsp[n++] = 3;
			rsp[n++] = 0xff;
			rsp[n++] = 0xff;
			rsp[n++] = 0xff;
		}
	} else {
		rsp[1] = 0x02;
		memset(rsp + n, 0, 9);
		rsp[n + 6] = 1;
		n += 9;
	}
	be32(rsp + 2, n);
	*rlen = n;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct lb_measure m;
	struct lb_tcglog in, out;
	uint8_t *log = NULL, *u;
	size_t len, n;
	uint64_t lasa;
	uint32_t laml;
	char *s;

	if (size < 1 || size > (1u << 20))
		return 0;
	if (lb_measure_attach(&m, xfer, NULL, NULL, 0))
		abort();
	switch (data[0] & 3) {
	case 0:
		(void)lb_measure_acpi_tpm2(data + 1, size - 1, &lasa, &laml);
		break;
	case 1:
		if (lb_measure_separator(&m, 8) || lb_measure_string(&m, "fuzz"))
			abort();
		if (lb_measure_log_build(&m, data + 1, size - 1, 0, &log, &len))
			break;
		if (lb_tcglog_open(&out, log, len))
			abort();
		if (lb_tcglog_open(&in, data + 1, size - 1) == 0) {
			if (out.n_events != in.n_events + 2 || memcmp(log, data + 1, in.end))
				abort();
		} else if (out.n_events != 2) {
			abort();
		}
		free(log);
		break;
	case 2: {
		/* all or nothing: a boot whose image fails to measure leaves
		 * only the caps (13 separators) behind, never part of the boot */
		struct lb_measure_boot b = { data + 1, size - 1, "/vmlinuz", 1, "x", NULL, "verified" };
		size_t before;
		int rc;

		(void)lb_measure_uki(&m, data + 1, size - 1, &n);
		(void)lb_measure_kernel_pe(&m, data + 1, size - 1, "/vmlinuz");
		before = m.n_ev;
		rc = lb_measure_boot(&m, &b, &n, NULL, 0);
		if (m.n_pending || m.staging || (rc && m.n_ev != before + 13))
			abort();
		break;
	}
	case 3:
		if (!(s = malloc(size)) || !(u = malloc(2 * size + 2)))
			abort();
		memcpy(s, data + 1, size - 1);
		s[size - 1] = 0;
		if (lb_measure_ucs2(s, u, 2 * size + 2, &len) == 0 &&
		    (len % 2 || len > 2 * strlen(s) + 2 || u[len - 1] || u[len - 2]))
			abort();
		(void)lb_measure_cmdline(&m, s);
		free(u);
		free(s);
		break;
	}
	lb_measure_close(&m);
	return 0;
}
