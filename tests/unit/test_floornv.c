/* `manifest-floor-nv INDEX`: the policy line, and the floor read from a
 * scripted TPM (NV_ReadPublic, NV_Read replies as TPM 2.0 Part 3 lays them
 * out); every failure fails closed with the reason. The real TPM path:
 * tests/e2e/measure-totp.sh (swtpm). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "t.h"
#include "policy.h"
#include "tpm2.h"

static char root[64];

static void write_policy(const char *text)
{
	char p[128];
	FILE *f;

	snprintf(p, sizeof(p), "%s/etc/lboot/policy", root);
	f = fopen(p, "w");
	fputs(text, f);
	fclose(f);
}

struct script {
	uint32_t attrs;      /* NV_ReadPublic: the index's attributes */
	uint32_t rc_pub;     /* its response code */
	uint64_t value;      /* NV_Read: the counter */
	int calls;
};

static size_t put32(uint8_t *b, uint32_t v)
{
	b[0] = v >> 24; b[1] = v >> 16; b[2] = v >> 8; b[3] = v;
	return 4;
}

static int xfer(void *ctx, const uint8_t *cmd, size_t clen, uint8_t *rsp, size_t rcap,
		size_t *rlen)
{
	struct script *s = ctx;
	uint32_t cc = (uint32_t)cmd[6] << 24 | cmd[7] << 16 | cmd[8] << 8 | cmd[9];
	size_t n = 10;

	s->calls++;
	memset(rsp, 0, 128);
	if (cc == LB_TPM2_CC_NV_ReadPublic && s->rc_pub) {
		rsp[0] = 0x80; rsp[1] = 0x01;
		put32(rsp + 6, s->rc_pub);
	} else if (cc == LB_TPM2_CC_NV_ReadPublic) {
		rsp[0] = 0x80; rsp[1] = 0x01;
		rsp[n++] = 0; rsp[n++] = 14;                /* TPM2B_NV_PUBLIC */
		n += put32(rsp + n, 0x01500020);
		rsp[n++] = 0; rsp[n++] = 0x0b;              /* sha256 */
		n += put32(rsp + n, s->attrs);
		rsp[n++] = 0; rsp[n++] = 0;                 /* authPolicy */
		rsp[n++] = 0; rsp[n++] = 8;                 /* dataSize */
		rsp[n++] = 0; rsp[n++] = 34;                /* TPM2B_NAME */
		rsp[n++] = 0; rsp[n++] = 0x0b;
		n += 32;
	} else if (cc == LB_TPM2_CC_NV_Read) {
		rsp[0] = 0x80; rsp[1] = 0x02;
		n += put32(rsp + n, 10);                    /* parameterSize */
		rsp[n++] = 0; rsp[n++] = 8;
		n += put32(rsp + n, (uint32_t)(s->value >> 32));
		n += put32(rsp + n, (uint32_t)s->value);
		rsp[n++] = 0; rsp[n++] = 0; rsp[n++] = 1;   /* nonce, attrs */
		rsp[n++] = 0; rsp[n++] = 0;                 /* hmac */
	} else {
		return -EIO;
	}
	put32(rsp + 2, (uint32_t)n);
	*rlen = n;
	return 0;
}

int main(void)
{
	static struct lb_policy pol;
	static struct lb_tpm2 t;
	struct script s;
	char cmd[160];

	snprintf(root, sizeof(root), "/tmp/lboot-floornv.XXXXXX");
	if (!mkdtemp(root))
		return 1;
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/etc/lboot", root);
	if (system(cmd))
		return 1;
	lb_tpm2_init(&t, xfer, &s);

	TEST("floornv: the policy line") {
		write_policy("verify warn\nmanifest-floor 2\nmanifest-floor-nv 0x01500020\n");
		lb_policy_load(root, &pol);
		CHECK_STR(pol.err, "");
		CHECK_INT(pol.mode, LB_VERIFY_WARN);
		CHECK_INT(pol.manifest_floor_nv, 0x01500020);
		CHECK_INT(pol.manifest_floor, 2);
		lb_policy_free(&pol);
		write_policy("verify warn\nmanifest-floor-nv 0x02000001\n");
		lb_policy_load(root, &pol);
		CHECK(strstr(pol.err, "manifest-floor-nv '0x02000001'") != NULL);
		CHECK_INT(pol.mode, LB_VERIFY_ENFORCE);
		lb_policy_free(&pol);
		write_policy("verify warn\nmanifest-floor-nv 22020128\n");
		lb_policy_load(root, &pol);
		CHECK(pol.err[0]);
		lb_policy_free(&pol);
	}
	TEST("policy: revoke-pe and revoke-x509 lines") {
		write_policy("verify enforce\n"
			     "revoke-pe 00112233445566778899AABBCCDDEEFF00112233445566778899aabbccddeeff\n"
			     "revoke-x509 ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100\n"
			     "revoke-pe 0000000000000000000000000000000000000000000000000000000000000001\n");
		lb_policy_load(root, &pol);
		CHECK_STR(pol.err, "");
		CHECK_INT(pol.n_revoke_pe, 2);
		CHECK_INT(pol.n_revoke_x509, 1);
		CHECK_INT(pol.revoke_pe[0][0], 0x00);
		CHECK_INT(pol.revoke_pe[0][10], 0xaa);
		CHECK_INT(pol.revoke_pe[1][31], 0x01);
		CHECK_INT(pol.revoke_x509[0][0], 0xff);
		lb_policy_free(&pol);
		/* the most revoke lines the policy takes fit in the file it reads */
		{
			static char big[64 << 10];
			size_t o = (size_t)snprintf(big, sizeof(big), "verify enforce\n");
			for (int i = 0; i < LB_POLICY_MAX_REVOKE; i++)
				o += (size_t)snprintf(big + o, sizeof(big) - o,
						      "revoke-pe %064x\nrevoke-x509 %064x\n", i, i);
			write_policy(big);
			lb_policy_load(root, &pol);
			CHECK_STR(pol.err, "");
			CHECK_INT(pol.n_revoke_pe, LB_POLICY_MAX_REVOKE);
			CHECK_INT(pol.n_revoke_x509, LB_POLICY_MAX_REVOKE);
			lb_policy_free(&pol);
		}
		/* a short or non-hex digest makes the policy invalid: enforced, nothing trusted */
		write_policy("verify warn\nrevoke-pe 0011\n");
		lb_policy_load(root, &pol);
		CHECK(strstr(pol.err, "64 hex digits") != NULL);
		CHECK_INT(pol.mode, LB_VERIFY_ENFORCE);
		lb_policy_free(&pol);
		write_policy("verify warn\nrevoke-x509 zz112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n");
		lb_policy_load(root, &pol);
		CHECK(pol.err[0]);
		lb_policy_free(&pol);
	}
	TEST("floornv: no line, nothing read") {
		write_policy("verify warn\n");
		lb_policy_load(root, &pol);
		s = (struct script){ 0 };
		CHECK_INT(lb_policy_floor_nv(&pol, &t), 0);
		CHECK_INT(s.calls, 0);
		CHECK_INT(lb_policy_floor_nv(&pol, NULL), 0);
		lb_policy_free(&pol);
	}
	TEST("floornv: the counter raises the floor, never lowers it") {
		write_policy("verify warn\nmanifest-floor 2\nmanifest-floor-nv 0x01500020\n");
		lb_policy_load(root, &pol);
		s = (struct script){ .attrs = LB_TPM2_NV_COUNTER | LB_TPM2_NV_WRITTEN |
				     LB_TPM2_NV_AUTHREAD | LB_TPM2_NV_OWNERREAD, .value = 7 };
		CHECK_INT(lb_policy_floor_nv(&pol, &t), 0);
		CHECK_STR(pol.err, "");
		CHECK_INT(pol.manifest_floor, 7);
		CHECK_INT(pol.floor_nv_value, 7);
		CHECK_INT(pol.mode, LB_VERIFY_WARN);
		s.value = 1;
		CHECK_INT(lb_policy_floor_nv(&pol, &t), 0);
		CHECK_INT(pol.manifest_floor, 7);
		lb_policy_free(&pol);
	}
	TEST("floornv: fails closed") {
		static const struct { uint32_t attrs, rc; const char *why; } v[] = {
			{ LB_TPM2_NV_WRITTEN | LB_TPM2_NV_AUTHREAD, 0, "not an NV counter" },
			{ LB_TPM2_NV_COUNTER | LB_TPM2_NV_AUTHREAD, 0, "never incremented" },
			{ 0, 0x18b, "no such NV index in the TPM" },
			{ 0, 0x101, "TPM: TPM_RC_FAILURE" },
		};
		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
			write_policy("verify warn\nmanifest-floor-nv 0x01500020\n");
			lb_policy_load(root, &pol);
			s = (struct script){ .attrs = v[i].attrs, .rc_pub = v[i].rc, .value = 9 };
			CHECK(lb_policy_floor_nv(&pol, &t) != 0);
			CHECK(strstr(pol.err, "manifest-floor-nv 0x01500020: ") != NULL);
			CHECK(strstr(pol.err, v[i].why) != NULL);
			CHECK_INT(pol.mode, LB_VERIFY_ENFORCE);
			CHECK_INT(pol.manifest_floor, 0);
			lb_policy_free(&pol);
		}
		write_policy("verify warn\nmanifest-floor-nv 0x01500020\n");
		lb_policy_load(root, &pol);
		CHECK_INT(lb_policy_floor_nv(&pol, NULL), -ENODEV);
		CHECK_STR(pol.err, "manifest-floor-nv 0x01500020: no usable TPM to read the floor from");
		CHECK_INT(pol.mode, LB_VERIFY_ENFORCE);
		lb_policy_free(&pol);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	if (system(cmd))
		return 1;
	return t_done();
}
