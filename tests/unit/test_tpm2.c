/*
 * TPM 2.0 marshalling against byte layouts: commands marked "tools" are the
 * bytes Debian's tpm2-tools sent to swtpm for the same command
 * (tests/files/tpm/tss-capture.txt, made by capture-tss.sh); the others
 * are written out from TCG TPM 2.0 Library Part 3 field by field (the
 * comments give the fields). Then the response parsers on malformed
 * replies, and response code names.
 */
#include <errno.h>

#include "t.h"
#include "tpm2.h"

#define Z32 "0000000000000000000000000000000000000000000000000000000000000000"
#define Z31 "00000000000000000000000000000000000000000000000000000000000000"
#define Z20 "0000000000000000000000000000000000000000"

static size_t unhex(const char *s, uint8_t *out, size_t cap)
{
	size_t n = 0;

	for (; s[0] && s[1] && n < cap; s += 2) {
		unsigned v;
		sscanf(s, "%2x", &v);
		out[n++] = v;
	}
	return n;
}

static void tohex(const uint8_t *p, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
	out[2 * n] = 0;
}

/* A TPM that records the command and answers with canned replies. */
struct fake {
	const char *rsp[4];
	size_t i;
	char cmd[4][2 * LB_TPM2_BUF + 1];
};

static int fake_xfer(void *ctx, const uint8_t *cmd, size_t clen, uint8_t *rsp,
		     size_t rcap, size_t *rlen)
{
	struct fake *f = ctx;

	if (f->i >= 4 || !f->rsp[f->i])
		return -EIO;
	tohex(cmd, clen, f->cmd[f->i]);
	*rlen = unhex(f->rsp[f->i], rsp, rcap);
	f->i++;
	return 0;
}

static const uint8_t nonce16[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };

enum op {
	STARTUP, GETRANDOM8, EXTEND, FLUSH, NVPUB, PCRREAD, HASH, SESSION, POLICYPCR,
	POLICYDIGEST, NVDEFINE, NVINCREMENT, NVREAD, CHANGEAUTH, PRIMARY, LOAD,
	UNSEAL, CREATE, BANKS, GETCAP_PROPS, CMDCODE, NVWRITE, NVUNDEFINE,
};

static const struct {
	const char *name;
	enum op op;
	const char *cmd, *rsp;
	int rc;
} cases[] = {
	/* tools: tpm2_startup -c */
	{ "startup", STARTUP, "80010000000c000001440000", "80010000000a00000000", 0 },
	{ "startup already done", STARTUP, "80010000000c000001440000",
	  "80010000000a00000100", LB_TPM2_RC_INITIALIZE },
	/* tools: tpm2_getrandom 8 */
	{ "getrandom", GETRANDOM8, "80010000000c0000017b0008",
	  "8001000000140000000000080d08c2046dcd835e", 0 },
	/* tools: tpm2_pcrextend 8:sha1=00..01,sha256=00..02 (password session) */
	{ "pcr_extend", EXTEND,
	  "8002000000570000018200000008000000094000000900000000000000000200040000"
	  "000000000000000000000000000000000001000b" "00000000000000000000000000000000"
	  "00000000000000000000000000000002", "80020000001300000000000000000000010000", 0 },
	/* tools: tpm2_flushcontext (of a session) */
	{ "flush", FLUSH, "80010000000e0000016502000000", "80010000000a00000000", 0 },
	/* tools: tpm2_nvreadpublic 0x01500020 */
	{ "nv_read_public", NVPUB, "80010000000e0000016901500020",
	  "80010000003e00000000000e01500020000b22060016000000080022000b8495372987ee1b58"
	  "f8543925e43eb3702ae6a6d7dd3dad8eaba5e0341a2e74be", 0 },
	/* PCR_Read: TPML_PCR_SELECTION {1, {sha256, 3, 11 00 00}} (PCRs 0, 4);
	 * reply: updateCounter 0x14, the selection, TPML_DIGEST {2, 2B, 2B} */
	{ "pcr_read", PCRREAD, "8001000000140000017e00000001000b03110000",
	  "800100000060000000000000001400000001000b0311000000000002" "0020" Z32 "0020" Z32, 0 },
	/* Hash: data 2B "abc", sha256, TPM_RH_NULL; reply outHash, TPMT_TK_HASHCHECK */
	{ "hash", HASH, "8001000000150000017d0003616263000b40000007",
	  "800100000034000000000020ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410"
	  "ff61f20015ad802440000007" "0000", 0 },
	/* StartAuthSession: tpmKey NULL, bind NULL, nonceCaller 2B, salt 2B 0,
	 * TPM_SE_TRIAL, symmetric TPM_ALG_NULL, authHash sha256 */
	{ "start_session", SESSION,
	  "80010000002b000001764000000740000007" "0010000102030405060708090a0b0c0d0e0f"
	  "0000" "03" "0010" "000b",
	  "8001" "00000020" "00000000" "03000000" "0010" "00112233445566778899aabbccddeeff", 0 },
	/* PolicyPCR: session, pcrDigest 2B 0, {1, {sha256, 3, 01 01 00}} (PCRs 0, 8) */
	{ "policy_pcr", POLICYPCR, "80010000001a0000017f030000000000" "00000001000b03010100",
	  "80010000000a00000000", 0 },
	{ "policy_get_digest", POLICYDIGEST, "80010000000e0000018903000000",
	  "80010000002c00000000" "0020" "11111111111111111111111111111111"
	  "11111111111111111111111111111111", 0 },
	/* NV_DefineSpace: TPM_RH_OWNER, password auth, auth 2B 0, TPM2B_NV_PUBLIC
	 * {14, index, sha256, attrs, policy 2B 0, size 8} - the same public
	 * area tools' tpm2_nvdefine -a "nt=counter|ownerwrite|ownerread|
	 * authwrite|authread|no_da" sent */
	{ "nv_define", NVDEFINE,
	  "80020000002d0000012a40000001000000094000000900000000000000000e01500020000b"
	  "0206001600000008", "80020000001300000000000000000000010000", 0 },
	{ "nv_define exists", NVDEFINE,
	  "80020000002d0000012a40000001000000094000000900000000000000000e01500020000b"
	  "0206001600000008", "80010000000a0000014c", LB_TPM2_RC_NV_DEFINED },
	/* NV_Increment: handles owner, index; password auth */
	{ "nv_increment", NVINCREMENT,
	  "80020000001f00000134400000010150002000000009400000090000000000",
	  "80020000001300000000000000000000010000", 0 },
	/* NV_Read: handles owner, index; size 8, offset 0; reply paramSize,
	 * 2B data, session reply */
	{ "nv_read", NVREAD,
	  "800200000023" "0000014e400000010150002000000009400000090000000000" "00080000",
	  "80020000001d" "00000000" "0000000a" "0008" "0000000000000001" "0000010000", 0 },
	/* HierarchyChangeAuth: platform, password auth, newAuth 2B */
	{ "hierarchy_change_auth", CHANGEAUTH,
	  "80020000002d000001294000000c000000094000000900000000000010"
	  "30313233343536373839616263646566", "80020000001300000000000000000000010000", 0 },
	/* CreatePrimary: owner, password auth; TPM2B_SENSITIVE_CREATE {4, 2B 0,
	 * 2B 0}; TPM2B_PUBLIC {26, ECC, sha256, 0x30472, policy 0, AES 128 CFB,
	 * scheme NULL, NIST P256, kdf NULL, x 0, y 0}; outsideInfo 0; no PCRs */
	{ "create_primary", PRIMARY,
	  "800200000043000001314000000100000009400000090000000000" "0004" "0000" "0000"
	  "001a" "0023" "000b" "00030472" "0000" "0006" "0080" "0043" "0010" "0003" "0010"
	  "0000" "0000" "0000" "00000000",
	  "80020000002b00000000" "80000000" "00000014" "0004deadbeef" "0000" "0000"
	  "8021400000010000" "0000" "0000010000", 0 },
	/* Load: parent, password auth, inPrivate 2B, inPublic 2B; reply handle
	 * and name */
	{ "load", LOAD, "80020000002300000157800000000000000940000009000000000000"
	  "02aabb0002ccdd",
	  "80020000003b00000000" "80000001" "00000024" "0022000b" Z32 "0000010000", 0 },
	/* Unseal with a policy session (no nonce, continueSession clear) */
	{ "unseal", UNSEAL, "80020000001b0000015e8000000100000009030000000000000000",
	  "80020000001b00000000" "00000008" "0006733363726574" "0000000000", 0 },
	{ "unseal policy fail", UNSEAL, "80020000001b0000015e8000000100000009030000000000000000",
	  "80010000000a0000099d", 0x99d },
	/* Create: parent, password auth; sensitive {8, 2B 0, 2B "abcd"};
	 * public {46, KEYEDHASH, sha256, 0x412, policy 2B 32, scheme NULL,
	 * unique 0}; outsideInfo 0; no PCRs */
	{ "create_sealed", CREATE,
	  "80020000005b000001538000000000000009400000090000000000" "0008" "0000"
	  "000461626364" "002e" "0008" "000b" "00000412" "0020"
	  "1111111111111111111111111111111111111111111111111111111111111111" "0010" "0000"
	  "0000" "00000000",
	  "80020000002800000000" "00000015" "0003010203" "00020405" "0000" "0000"
	  "8021400000010000" "0000010000", 0 },
	/* tools: tpm2_getcap pcrs (they ask 0x7f properties, we ask 1) */
	{ "get_banks", BANKS, "8001000000160000017a000000050000000000000001",
	  "80010000002b00000000000000000500000004000403ffffff000b03ffffff000c03ffffff000d03ffffff", 0 },
	{ "get_props", GETCAP_PROPS, "8001000000160000017a000000060000010500000004",
	  "8001000000330000000000000000060000000400000105" "49424d00" "00000106" "53572020"
	  "00000107" "2054504d" "00000108" "00000000", 0 },
	/* NV_Write: handles owner, index; password auth; data 2B "abc", offset 5 */
	{ "nv_write", NVWRITE,
	  "800200000026000001374000000101500020000000094000000900000000000003616263" "0005",
	  "80020000001300000000000000000000010000", 0 },
	/* NV_UndefineSpace: handles owner, index; password auth */
	{ "nv_undefine", NVUNDEFINE,
	  "80020000001f00000122400000010150002000000009400000090000000000",
	  "80020000001300000000000000000000010000", 0 },
	{ "policy_command_code", CMDCODE, "800100000012" "0000016c" "03000000" "0000015e",
	  "80010000000a00000000", 0 },
};

static int run(struct lb_tpm2 *t, enum op op, int *checked)
{
	static uint8_t val[LB_TPM2_NUM_PCRS][LB_TPM2_MAX_DIGEST];
	uint8_t out[128];
	size_t len;
	uint32_t h = 0;
	int rc;

	*checked = 1;
	switch (op) {
	case STARTUP:
		return lb_tpm2_startup(t, LB_TPM2_SU_CLEAR);
	case GETRANDOM8:
		rc = lb_tpm2_get_random(t, out, 8);
		*checked = rc || !memcmp(out, "\x0d\x08\xc2\x04\x6d\xcd\x83\x5e", 8);
		return rc;
	case EXTEND: {
		struct lb_tpm2_digest d[2] = { { LB_TPM2_ALG_SHA1, 20, { 0 } },
					       { LB_TPM2_ALG_SHA256, 32, { 0 } } };
		d[0].d[19] = 1;
		d[1].d[31] = 2;
		return lb_tpm2_pcr_extend(t, 8, d, 2);
	}
	case FLUSH:
		return lb_tpm2_flush(t, 0x02000000);
	case NVPUB: {
		struct lb_tpm2_nvpub p;
		rc = lb_tpm2_nv_read_public(t, 0x01500020, &p);
		*checked = rc || (p.attrs == 0x22060016 && p.size == 8 &&
				  p.name_alg == LB_TPM2_ALG_SHA256 && !p.policy_len);
		return rc;
	}
	case PCRREAD:
		val[4][0] = 0x55;
		rc = lb_tpm2_pcr_read(t, LB_TPM2_ALG_SHA256, 0x11, val, &len, &h);
		*checked = rc || (len == 32 && h == 0x14 && val[4][0] == 0);
		return rc;
	case HASH:
		rc = lb_tpm2_hash(t, LB_TPM2_ALG_SHA256, "abc", 3, out, &len);
		*checked = rc || (len == 32 && out[0] == 0xba && out[31] == 0xad);
		return rc;
	case SESSION:
		rc = lb_tpm2_start_session(t, LB_TPM2_SE_TRIAL, nonce16, 16, &h);
		*checked = rc || h == 0x03000000;
		return rc;
	case POLICYPCR: {
		struct lb_tpm2_pcrsel s = { LB_TPM2_ALG_SHA256, 0x101 };
		return lb_tpm2_policy_pcr(t, 0x03000000, &s, 1);
	}
	case POLICYDIGEST:
		rc = lb_tpm2_policy_get_digest(t, 0x03000000, out, sizeof(out), &len);
		*checked = rc || (len == 32 && out[0] == 0x11);
		return rc;
	case NVDEFINE:
		return lb_tpm2_nv_define(t, LB_TPM2_RH_OWNER, NULL, 0x01500020,
					 LB_TPM2_NV_COUNTER | LB_TPM2_NV_OWNERWRITE |
					 LB_TPM2_NV_OWNERREAD | LB_TPM2_NV_AUTHWRITE |
					 LB_TPM2_NV_AUTHREAD | LB_TPM2_NV_NO_DA, 8, NULL, 0);
	case NVINCREMENT:
		return lb_tpm2_nv_increment(t, LB_TPM2_RH_OWNER, NULL, 0x01500020);
	case NVREAD: {
		uint64_t v = 0;
		rc = lb_tpm2_nv_read_counter(t, LB_TPM2_RH_OWNER, NULL, 0x01500020, &v);
		*checked = rc || v == 1;
		return rc;
	}
	case CHANGEAUTH:
		return lb_tpm2_hierarchy_change_auth(t, LB_TPM2_RH_PLATFORM, NULL,
						     (const uint8_t *)"0123456789abcdef", 16);
	case PRIMARY:
		rc = lb_tpm2_create_primary(t, LB_TPM2_RH_OWNER, NULL, &h);
		*checked = rc || h == 0x80000000;
		return rc;
	case LOAD: {
		static struct lb_tpm2_blob a = { 2, { 0xaa, 0xbb } }, b = { 2, { 0xcc, 0xdd } };
		rc = lb_tpm2_load(t, 0x80000000, NULL, &a, &b, &h);
		*checked = rc || h == 0x80000001;
		return rc;
	}
	case UNSEAL: {
		struct lb_tpm2_auth au = { 0x03000000, 0, 0, NULL };
		rc = lb_tpm2_unseal(t, 0x80000001, &au, out, sizeof(out), &len);
		*checked = rc || (len == 6 && !memcmp(out, "s3cret", 6));
		return rc;
	}
	case CREATE: {
		static struct lb_tpm2_blob a, b;
		uint8_t pol[32];
		memset(pol, 0x11, 32);
		rc = lb_tpm2_create_sealed(t, 0x80000000, NULL, pol, 32,
					   (const uint8_t *)"abcd", 4, &a, &b);
		*checked = rc || (a.len == 3 && a.b[2] == 3 && b.len == 2 && b.b[1] == 5);
		return rc;
	}
	case BANKS: {
		struct lb_tpm2_pcrsel bk[LB_TPM2_MAX_BANKS];
		size_t n;
		rc = lb_tpm2_get_banks(t, bk, LB_TPM2_MAX_BANKS, &n);
		*checked = rc || (n == 4 && bk[0].alg == LB_TPM2_ALG_SHA1 &&
				  bk[3].alg == LB_TPM2_ALG_SHA512 && bk[1].mask == 0xffffff);
		return rc;
	}
	case GETCAP_PROPS: {
		struct lb_tpm2_prop p[4];
		size_t n;
		rc = lb_tpm2_get_props(t, LB_TPM2_PT_MANUFACTURER, p, 4, &n);
		*checked = rc || (n == 4 && p[0].value == 0x49424d00 && p[3].property == 0x108);
		return rc;
	}
	case NVWRITE:
		return lb_tpm2_nv_write(t, LB_TPM2_RH_OWNER, NULL, 0x01500020, 5,
					(const uint8_t *)"abc", 3);
	case NVUNDEFINE:
		return lb_tpm2_nv_undefine(t, LB_TPM2_RH_OWNER, NULL, 0x01500020);
	case CMDCODE:
		return lb_tpm2_policy_command_code(t, 0x03000000, LB_TPM2_CC_Unseal);
	}
	return -1;
}

/* Replies that must be refused (-EBADMSG) by the parser named. */
enum parser { P_EMPTY, P_EMPTY_S, P_BANKS, P_PCRREAD, P_2B, P_2B_S, P_NVPUB, P_HANDLE,
	      P_SESSION, P_CREATE, P_PROPS };

static const struct {
	const char *name;
	enum parser p;
	const char *rsp;
	int rc;
} bad[] = {
	{ "empty reply", P_EMPTY, "", -EBADMSG },
	{ "short header", P_EMPTY, "80010000000a000000", -EBADMSG },
	{ "size field too big", P_EMPTY, "80010000000b00000000", -EBADMSG },
	{ "size field too small", P_EMPTY, "80010000000900000000", -EBADMSG },
	{ "bytes after the reply", P_EMPTY, "80010000000a0000000000", -EBADMSG },
	{ "size field says more than sent", P_EMPTY, "80010000000c0000000000", -EBADMSG },
	{ "unknown tag", P_EMPTY, "80c40000000a00000000", -EBADMSG },
	{ "error with parameters", P_EMPTY, "80010000000c0000014c0000", -EBADMSG },
	{ "error code above 12 bits", P_EMPTY, "80010000000a00001000", -EBADMSG },
	{ "error code returned", P_EMPTY, "80010000000a00000101", LB_TPM2_RC_FAILURE },
	{ "sessions tag where none sent", P_EMPTY, "80020000000a00000000", -EBADMSG },
	{ "no sessions tag where sent", P_EMPTY_S, "80010000000a00000000", -EBADMSG },
	{ "no session reply", P_EMPTY_S, "80020000000e0000000000000000", -EBADMSG },
	{ "parameterSize past the end", P_EMPTY_S, "80020000001300000000000000ff0000010000", -EBADMSG },
	{ "session reply nonce past end", P_EMPTY_S, "800200000013000000000000000000ff010000", -EBADMSG },
	{ "two session replies", P_EMPTY_S, "800200000018000000000000000000000100000000010000", -EBADMSG },
	{ "parameters left over", P_EMPTY, "80010000000b0000000000", -EBADMSG },
	{ "banks: more than 16", P_BANKS, "80010000001300000000000000000500000011", -EBADMSG },
	{ "banks: sizeofSelect 5", P_BANKS, "80010000001b0000000000000000050000000100040500000000ff", -EBADMSG },
	{ "banks: truncated selection", P_BANKS, "80010000001700000000000000000500000001000403ff", -EBADMSG },
	{ "banks: twice the same", P_BANKS, "80010000001f00000000000000000500000002000b03ffffff000b03ffffff", -EBADMSG },
	{ "banks: wrong capability", P_BANKS, "80010000001900000000000000000600000001000b03ffffff", -EBADMSG },
	{ "banks: moreData 2", P_BANKS, "8001" "00000019" "00000000" "02" "00000005" "00000001" "0004" "03" "ffffff", -EBADMSG },
	{ "pcr_read: PCR not asked for", P_PCRREAD, "800100000060000000000000001400000001000b0311000100000002" "0020" Z32 "0020" Z32, -EBADMSG },
	{ "pcr_read: other bank", P_PCRREAD, "800100000060000000000000001400000001000403110000" "00000002" "0020" Z32 "0020" Z32, -EBADMSG },
	{ "pcr_read: fewer digests", P_PCRREAD, "80010000003e000000000000001400000001000b0311000000000001" "0020" Z32, -EBADMSG },
	{ "pcr_read: digest of sha1 size", P_PCRREAD, "800100000054000000000000001400000001000b0311000000000002" "0014" Z20 "0020" Z32, -EBADMSG },
	{ "pcr_read: 9 digests", P_PCRREAD, "800100000016000000000000001400000000" "00000009", -EBADMSG },
	{ "pcr_read: digest past end", P_PCRREAD, "80010000003e000000000000001400000001000b0301000000000001" "0040" Z32, -EBADMSG },
	{ "2b: longer than the cap", P_2B, "80010000004e000000000042" Z32 Z32 "0000", -EBADMSG },
	{ "2b: past the end", P_2B, "8001000000140000000000100d08c2046dcd835e", -EBADMSG },
	{ "2b: missing", P_2B, "80010000000a00000000", -EBADMSG },
	{ "unseal: 129 bytes", P_2B_S, "80020000009600000000" "00000083" "0081" Z32 Z32 Z32 Z32 "00" "0000010000", -EBADMSG },
	{ "nv public: inner size short", P_NVPUB, "80010000003e00000000000d01500020000b22060016000000080022000b8495372987ee1b58f8543925e43eb3702ae6a6d7dd3dad8eaba5e0341a2e74be", -EBADMSG },
	{ "nv public: policy past inner", P_NVPUB, "80010000003e00000000000e01500020000b22060016004000080022000b8495372987ee1b58f8543925e43eb3702ae6a6d7dd3dad8eaba5e0341a2e74be", -EBADMSG },
	{ "nv public: name too long", P_NVPUB, "80010000003e00000000000e01500020000b22060016000000080050000b8495372987ee1b58f8543925e43eb3702ae6a6d7dd3dad8eaba5e0341a2e74be", -EBADMSG },
	{ "handle: not transient", P_HANDLE, "80020000003b00000000" "40000001" "00000024" "0022000b" Z32 "0000010000", -EBADMSG },
	{ "handle: no handle", P_HANDLE, "80020000000c000000008000", -EBADMSG },
	{ "session: not a session handle", P_SESSION, "8001" "00000020" "00000000" "80000000" "0010" "00112233445566778899aabbccddeeff", -EBADMSG },
	{ "session: nonce over 64", P_SESSION, "8001" "00000058" "00000000" "03000000" "0048" Z32 Z32 "0000000000000000", -EBADMSG },
	{ "create: empty private", P_CREATE, "80020000002500000000" "00000012" "0000" "00020405" "0000" "0000" "8021400000010000" "0000010000", -EBADMSG },
	{ "create: ticket cut", P_CREATE, "80020000002700000000" "00000014" "0003010203" "00020405" "0000" "0000" "80214000000100" "0000010000", -EBADMSG },
	{ "props: count over cap", P_PROPS, "8001000000130000000000000000060000ffff", -EBADMSG },
	{ "props: count past end", P_PROPS, "80010000001b000000000000000006000000020000010549424d00", -EBADMSG },
};

static int parse(enum parser p, const uint8_t *b, size_t n)
{
	static uint8_t val[LB_TPM2_NUM_PCRS][LB_TPM2_MAX_DIGEST];
	struct lb_tpm2_pcrsel bk[LB_TPM2_MAX_BANKS];
	struct lb_tpm2_prop props[64];
	static struct lb_tpm2_blob x, y;
	struct lb_tpm2_nvpub pub;
	uint8_t out[128];
	size_t len;
	uint32_t got, h;
	int more;

	switch (p) {
	case P_EMPTY: return lb_tpm2_parse_empty(b, n, 0);
	case P_EMPTY_S: return lb_tpm2_parse_empty(b, n, 1);
	case P_BANKS: return lb_tpm2_parse_banks(b, n, bk, LB_TPM2_MAX_BANKS, &len);
	case P_PCRREAD: return lb_tpm2_parse_pcr_read(b, n, LB_TPM2_ALG_SHA256, 0x11, &got, val, NULL);
	case P_2B: return lb_tpm2_parse_2b(b, n, 0, out, 64, &len);
	case P_2B_S: return lb_tpm2_parse_2b(b, n, 1, out, 128, &len);
	case P_NVPUB: return lb_tpm2_parse_nv_public(b, n, &pub);
	case P_HANDLE: return lb_tpm2_parse_handle(b, n, 0, &h);
	case P_SESSION: return lb_tpm2_parse_start_session(b, n, &h);
	case P_CREATE: return lb_tpm2_parse_create(b, n, &x, &y);
	case P_PROPS: return lb_tpm2_parse_props(b, n, props, 64, &len, &more);
	}
	return 0;
}

static const struct {
	uint32_t rc;
	const char *s;
} names[] = {
	{ 0x000, "TPM_RC_SUCCESS" },
	{ 0x100, "TPM_RC_INITIALIZE" },
	{ 0x101, "TPM_RC_FAILURE" },
	{ 0x14c, "TPM_RC_NV_DEFINED" },
	{ 0x99d, "TPM_RC_POLICY_FAIL (session 1)" },
	{ 0x98e, "TPM_RC_AUTH_FAIL (session 1)" },
	{ 0x9a2, "TPM_RC_BAD_AUTH (session 1)" },
	{ 0x1c4, "TPM_RC_VALUE (parameter 1)" },
	{ 0x2c4, "TPM_RC_VALUE (parameter 2)" },
	{ 0xfd5, "TPM_RC_SIZE (parameter 15)" },
	{ 0x18b, "TPM_RC_HANDLE (handle 1)" },
	{ 0x284, "TPM_RC_VALUE (handle 2)" },
	{ 0x084, "TPM_RC_VALUE" },
	{ 0x922, "TPM_RC_RETRY (warning)" },
	{ 0x921, "TPM_RC_LOCKOUT (warning)" },
	{ 0x902, "TPM_RC_OBJECT_MEMORY (warning)" },
	{ 0x150, "TPM_RC_BAD_CONTEXT" },
	{ 0x0bf, "TPM_RC 0x0bf (unknown format-one error)" },
	{ 0x00a, "0x00a (a TPM 1.2 response code)" },
	{ 0x500, "0x500 (vendor-defined)" },
	{ 0x17f, "TPM_RC 0x17f (unknown error)" },
	{ 0x97f, "TPM_RC 0x97f (unknown warning)" },
	{ 0x80280400, "0x80280400 (not a TPM 2.0 response code)" },
};

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		TEST(cases[i].name) {
			struct lb_tpm2 *t = malloc(sizeof(*t));
			struct fake f = { { cases[i].rsp }, 0, { "" } };
			int checked = 0, rc;

			lb_tpm2_init(t, fake_xfer, &f);
			rc = run(t, cases[i].op, &checked);
			CHECK_INT(rc, cases[i].rc);
			CHECK_STR(f.cmd[0], cases[i].cmd);
			CHECK(checked);
			free(t);
		}
	}

	TEST("pcr_read loops until every PCR came") {
		static uint8_t val[LB_TPM2_NUM_PCRS][LB_TPM2_MAX_DIGEST];
		struct lb_tpm2 *t = malloc(sizeof(*t));
		/* the TPM returns PCR 0 first, then PCR 4 (same update counter) */
		struct fake f = { {
			"80010000003e000000000000001400000001000b0301000000000001" "0020" "aa" Z31,
			"80010000003e000000000000001400000001000b0310000000000001" "0020" "bb" Z31,
		}, 0, { "" } };
		size_t len;

		lb_tpm2_init(t, fake_xfer, &f);
		CHECK_INT(lb_tpm2_pcr_read(t, LB_TPM2_ALG_SHA256, 0x11, val, &len, NULL), 0);
		CHECK_STR(f.cmd[1], "8001000000140000017e00000001000b03100000");
		CHECK(val[0][0] == 0xaa && val[4][0] == 0xbb && len == 32);
		free(t);
	}

	TEST("pcr_read starts again when a PCR changed between reads") {
		static uint8_t val[LB_TPM2_NUM_PCRS][LB_TPM2_MAX_DIGEST];
		struct lb_tpm2 *t = malloc(sizeof(*t));
		/* PCR 0 at counter 0x14, PCR 4 at 0x15: read again, whole */
		struct fake f = { {
			"80010000003e000000000000001400000001000b0301000000000001" "0020" "aa" Z31,
			"80010000003e000000000000001500000001000b0310000000000001" "0020" "bb" Z31,
			"800100000060000000000000001500000001000b0311000000000002" "0020" "cc" Z31 "0020" "dd" Z31,
		}, 0, { "" } };
		size_t len;
		uint32_t ctr;

		lb_tpm2_init(t, fake_xfer, &f);
		CHECK_INT(lb_tpm2_pcr_read(t, LB_TPM2_ALG_SHA256, 0x11, val, &len, &ctr), 0);
		CHECK_STR(f.cmd[2], "8001000000140000017e00000001000b03110000");
		CHECK(val[0][0] == 0xcc && val[4][0] == 0xdd && ctr == 0x15);
		free(t);
	}

	TEST("pcr_read refuses a reply with no PCR (no endless loop)") {
		static uint8_t val[LB_TPM2_NUM_PCRS][LB_TPM2_MAX_DIGEST];
		struct lb_tpm2 *t = malloc(sizeof(*t));
		struct fake f = { { "80010000001a00000000000000140000000000000000" }, 0, { "" } };
		size_t len;

		lb_tpm2_init(t, fake_xfer, &f);
		CHECK_INT(lb_tpm2_pcr_read(t, LB_TPM2_ALG_SHA256, 0x11, val, &len, NULL), -EBADMSG);
		free(t);
	}

	TEST("transport errors are passed on") {
		struct lb_tpm2 *t = malloc(sizeof(*t));
		struct fake f = { { NULL }, 0, { "" } };

		lb_tpm2_init(t, fake_xfer, &f);
		CHECK_INT(lb_tpm2_startup(t, 0), -EIO);
		CHECK_INT(t->last_cc, LB_TPM2_CC_Startup);
		free(t);
	}

	TEST("bad arguments refused before sending") {
		struct lb_tpm2 *t = malloc(sizeof(*t));
		struct fake f = { { NULL }, 0, { "" } };
		struct lb_tpm2_digest d = { LB_TPM2_ALG_SHA256, 20, { 0 } };
		static uint8_t val[LB_TPM2_NUM_PCRS][LB_TPM2_MAX_DIGEST];
		uint8_t big[200] = { 0 };
		static struct lb_tpm2_blob a, b;
		size_t len;
		uint32_t h;

		lb_tpm2_init(t, fake_xfer, &f);
		CHECK_INT(lb_tpm2_pcr_extend(t, 8, &d, 1), -EINVAL);  /* size wrong */
		d.size = 32;
		CHECK_INT(lb_tpm2_pcr_extend(t, 24, &d, 1), -EINVAL); /* PCR 24 */
		CHECK_INT(lb_tpm2_pcr_read(t, LB_TPM2_ALG_SHA256, 1u << 24, val, &len, NULL), -EINVAL);
		CHECK_INT(lb_tpm2_start_session(t, 1, big, 15, &h), -EINVAL);
		CHECK_INT(lb_tpm2_create_sealed(t, 0x80000000, NULL, big, 32, big, 129, &a, &b), -EINVAL);
		CHECK_INT(lb_tpm2_hash(t, LB_TPM2_ALG_SHA256, big, 1025, big, &len), -EINVAL);
		CHECK_INT(f.i, 0);
		free(t);
	}

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		TEST(bad[i].name) {
			uint8_t b[LB_TPM2_BUF];
			size_t n = unhex(bad[i].rsp, b, sizeof(b));
			/* exact-size copy: reads past the end are ASan errors */
			uint8_t *c = malloc(n ? n : 1);

			memcpy(c, b, n);
			CHECK_INT(parse(bad[i].p, c, n), bad[i].rc);
			free(c);
		}
	}

	TEST("response code names") {
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			char buf[96];
			CHECK_STR(lb_tpm2_rc_str(names[i].rc, buf, sizeof(buf)), names[i].s);
		}
		char small[8];
		lb_tpm2_rc_str(0x99d, small, sizeof(small));
		CHECK_INT(strlen(small), 7);
	}

	TEST("algorithm table") {
		CHECK_INT(lb_tpm2_alg_size(LB_TPM2_ALG_SHA384), 48);
		CHECK_INT(lb_tpm2_alg_size(0x1234), 0);
		CHECK_INT(lb_tpm2_alg_by_name("sha512"), LB_TPM2_ALG_SHA512);
		CHECK_INT(lb_tpm2_alg_by_name("md5"), 0);
		CHECK_STR(lb_tpm2_alg_name(LB_TPM2_ALG_SHA1), "sha1");
		CHECK_STR(lb_tpm2_cc_name(LB_TPM2_CC_PCR_Extend), "PCR_Extend");
	}
	return t_done();
}
