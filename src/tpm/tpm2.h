/*
 * TPM 2.0 commands: marshalling of commands and length-checked unmarshalling
 * of responses (TCG TPM 2.0 Library, Part 2 structures, Part 3 commands).
 * Library code: libc only, never logs.
 *
 * Every function taking a `struct lb_tpm2 *` marshals one command into the
 * context's buffer, hands it to the context's transport (xfer) and parses
 * the reply. Return value:
 *   0    success; output parameters written
 *   < 0  negative errno: -EBADMSG for a reply that is malformed (every size
 *        field is checked against the reply and against our caps; a reply
 *        with bytes left over is malformed too), -EMSGSIZE for a command
 *        that does not fit, -EINVAL for bad arguments, or the transport's
 *        error (-ETIMEDOUT, -EIO, ...)
 *   > 0  the TPM's response code (TPM_RC); lb_tpm2_rc_str() names it.
 */
#ifndef LB_TPM2_H
#define LB_TPM2_H

#include <stddef.h>
#include <stdint.h>

#define LB_TPM2_BUF        4096 /* largest command/response we build or accept */
#define LB_TPM2_MAX_BANKS  8
#define LB_TPM2_MAX_DIGEST 64
#define LB_TPM2_NUM_PCRS   24

/* structure tags */
#define LB_TPM2_ST_NO_SESSIONS 0x8001
#define LB_TPM2_ST_SESSIONS    0x8002

/* algorithms */
#define LB_TPM2_ALG_RSA       0x0001
#define LB_TPM2_ALG_SHA1      0x0004
#define LB_TPM2_ALG_AES       0x0006
#define LB_TPM2_ALG_KEYEDHASH 0x0008
#define LB_TPM2_ALG_SHA256    0x000B
#define LB_TPM2_ALG_SHA384    0x000C
#define LB_TPM2_ALG_SHA512    0x000D
#define LB_TPM2_ALG_NULL      0x0010
#define LB_TPM2_ALG_SM3_256   0x0012
#define LB_TPM2_ALG_ECC       0x0023
#define LB_TPM2_ALG_SHA3_256  0x0027
#define LB_TPM2_ALG_SHA3_384  0x0028
#define LB_TPM2_ALG_SHA3_512  0x0029
#define LB_TPM2_ALG_CFB       0x0043

/* command codes */
#define LB_TPM2_CC_NV_UndefineSpace     0x0122
#define LB_TPM2_CC_HierarchyChangeAuth  0x0129
#define LB_TPM2_CC_NV_DefineSpace       0x012A
#define LB_TPM2_CC_CreatePrimary        0x0131
#define LB_TPM2_CC_NV_Increment         0x0134
#define LB_TPM2_CC_NV_Write             0x0137
#define LB_TPM2_CC_Startup              0x0144
#define LB_TPM2_CC_NV_Read              0x014E
#define LB_TPM2_CC_Create               0x0153
#define LB_TPM2_CC_Load                 0x0157
#define LB_TPM2_CC_Unseal               0x015E
#define LB_TPM2_CC_FlushContext         0x0165
#define LB_TPM2_CC_NV_ReadPublic        0x0169
#define LB_TPM2_CC_PolicyCommandCode    0x016C
#define LB_TPM2_CC_StartAuthSession     0x0176
#define LB_TPM2_CC_GetCapability        0x017A
#define LB_TPM2_CC_GetRandom            0x017B
#define LB_TPM2_CC_Hash                 0x017D
#define LB_TPM2_CC_PCR_Read             0x017E
#define LB_TPM2_CC_PolicyPCR            0x017F
#define LB_TPM2_CC_PCR_Extend           0x0182
#define LB_TPM2_CC_PolicyGetDigest      0x0189

/* permanent handles */
#define LB_TPM2_RH_OWNER    0x40000001u
#define LB_TPM2_RH_NULL     0x40000007u
#define LB_TPM2_RS_PW       0x40000009u
#define LB_TPM2_RH_LOCKOUT  0x4000000Au
#define LB_TPM2_RH_ENDORSEMENT 0x4000000Bu
#define LB_TPM2_RH_PLATFORM 0x4000000Cu

/* startup types, session types, capabilities */
#define LB_TPM2_SU_CLEAR 0
#define LB_TPM2_SU_STATE 1
#define LB_TPM2_SE_HMAC   0
#define LB_TPM2_SE_POLICY 1
#define LB_TPM2_SE_TRIAL  3
#define LB_TPM2_CAP_PCRS           5
#define LB_TPM2_CAP_TPM_PROPERTIES 6
#define LB_TPM2_PT_MANUFACTURER    0x105
#define LB_TPM2_PT_VENDOR_STRING_1 0x106
#define LB_TPM2_PT_FIRMWARE_VERSION_1 0x10B
#define LB_TPM2_PT_FIRMWARE_VERSION_2 0x10C

/* response codes we test for by value */
#define LB_TPM2_RC_SUCCESS     0x000
#define LB_TPM2_RC_INITIALIZE  0x100
#define LB_TPM2_RC_FAILURE     0x101
#define LB_TPM2_RC_NV_DEFINED  0x14C

/* TPMA_NV bits */
#define LB_TPM2_NV_OWNERWRITE 0x00000002u
#define LB_TPM2_NV_AUTHWRITE  0x00000004u
#define LB_TPM2_NV_COUNTER    0x00000010u /* TPM_NT_COUNTER << 4 */
#define LB_TPM2_NV_OWNERREAD  0x00020000u
#define LB_TPM2_NV_AUTHREAD   0x00040000u
#define LB_TPM2_NV_NO_DA      0x02000000u
#define LB_TPM2_NV_WRITTEN    0x20000000u

/* The transport: send clen command bytes, receive one whole response into
 * rsp (rcap bytes), its length in *rlen. Negative errno on failure. */
typedef int (*lb_tpm2_xfer_fn)(void *ctx, const uint8_t *cmd, size_t clen,
			       uint8_t *rsp, size_t rcap, size_t *rlen);

struct lb_tpm2 {
	lb_tpm2_xfer_fn xfer;
	void *ctx;
	uint32_t last_cc;          /* the command of the last call, for messages */
	size_t clen, rlen;
	uint8_t cmd[LB_TPM2_BUF];
	uint8_t rsp[LB_TPM2_BUF];
};

void lb_tpm2_init(struct lb_tpm2 *t, lb_tpm2_xfer_fn xfer, void *ctx);

/* An authorisation for one handle: a password session (handle
 * LB_TPM2_RS_PW, hmac = the password) or a policy session (handle = the
 * session, hmac empty). NULL where an auth is taken = empty password. */
struct lb_tpm2_auth {
	uint32_t handle;
	uint8_t attrs;          /* TPMA_SESSION: 1 = continueSession */
	size_t len;
	const uint8_t *hmac;
};

struct lb_tpm2_digest {
	uint16_t alg;
	uint16_t size;
	uint8_t d[LB_TPM2_MAX_DIGEST];
};

/* A PCR selection per bank: bit n of mask = PCR n (0..23). */
struct lb_tpm2_pcrsel {
	uint16_t alg;
	uint32_t mask;
};

struct lb_tpm2_prop {
	uint32_t property, value;
};

/* A TPM2B we keep (sealed object private and public areas), without the
 * size prefix. */
#define LB_TPM2_BLOB_MAX 1024
struct lb_tpm2_blob {
	size_t len;
	uint8_t b[LB_TPM2_BLOB_MAX];
};

struct lb_tpm2_nvpub {
	uint32_t index;
	uint16_t name_alg;
	uint32_t attrs;
	uint16_t size;
	size_t policy_len;
	uint8_t policy[LB_TPM2_MAX_DIGEST];
};

/* Digest size of a hash algorithm (0 when unknown) and its name
 * ("sha256"; NULL when unknown), and the reverse. */
size_t lb_tpm2_alg_size(uint16_t alg);
const char *lb_tpm2_alg_name(uint16_t alg);
uint16_t lb_tpm2_alg_by_name(const char *name);

/* Name a response code: "TPM_RC_POLICY_FAIL (session 1)",
 * "TPM_RC_VALUE (parameter 2)", "TPM_RC_NV_DEFINED", "TPM_RC_RETRY
 * (warning)", "0x12345678 (vendor)". Always NUL-terminates buf. */
const char *lb_tpm2_rc_str(uint32_t rc, char *buf, size_t n);
/* Name of a command code ("PCR_Extend") or NULL. */
const char *lb_tpm2_cc_name(uint32_t cc);

int lb_tpm2_startup(struct lb_tpm2 *t, uint16_t type);
/* The active PCR banks (TPM_CAP_PCRS): banks with an empty mask are
 * allocated but not active and are left out. */
int lb_tpm2_get_banks(struct lb_tpm2 *t, struct lb_tpm2_pcrsel *banks,
		      size_t max, size_t *n);
/* TPM_CAP_TPM_PROPERTIES from `first`, at most max of them. */
int lb_tpm2_get_props(struct lb_tpm2 *t, uint32_t first, struct lb_tpm2_prop *out,
		      size_t max, size_t *n);
/* Extend PCR pcr with one digest per bank (all in one TPML_DIGEST_VALUES). */
int lb_tpm2_pcr_extend(struct lb_tpm2 *t, uint32_t pcr,
		       const struct lb_tpm2_digest *d, size_t n);
/* Read the PCRs in mask of one bank into val[i] (digest size *size); loops
 * until the TPM has returned every selected PCR (a TPM returns at most 8
 * per PCR_Read), starting again when the PCR update counter moved between
 * reads (-EAGAIN after 3 tries). *counter: the update counter (may be
 * NULL). */
int lb_tpm2_pcr_read(struct lb_tpm2 *t, uint16_t alg, uint32_t mask,
		     uint8_t val[LB_TPM2_NUM_PCRS][LB_TPM2_MAX_DIGEST],
		     size_t *size, uint32_t *counter);
int lb_tpm2_get_random(struct lb_tpm2 *t, uint8_t *buf, size_t n);
/* TPM2_Hash of up to 1024 bytes (the TPM's MAX_DIGEST_BUFFER). */
int lb_tpm2_hash(struct lb_tpm2 *t, uint16_t alg, const void *data, size_t len,
		 uint8_t *out, size_t *outlen);

/* An unsalted, unbound session (POLICY, TRIAL or HMAC) hashing with
 * sha256; nonce: 16..32 bytes from the caller (the TPM's GetRandom). */
int lb_tpm2_start_session(struct lb_tpm2 *t, uint8_t type, const uint8_t *nonce,
			  size_t nlen, uint32_t *session);
int lb_tpm2_policy_pcr(struct lb_tpm2 *t, uint32_t session,
		       const struct lb_tpm2_pcrsel *sel, size_t n);
int lb_tpm2_policy_command_code(struct lb_tpm2 *t, uint32_t session, uint32_t cc);
int lb_tpm2_policy_get_digest(struct lb_tpm2 *t, uint32_t session, uint8_t *out,
			      size_t cap, size_t *len);
int lb_tpm2_flush(struct lb_tpm2 *t, uint32_t handle);

/* A primary storage key (ECC NIST P-256, AES-128-CFB, restricted decrypt:
 * the "SRK" template) under hierarchy (LB_TPM2_RH_OWNER). */
int lb_tpm2_create_primary(struct lb_tpm2 *t, uint32_t hierarchy,
			   const struct lb_tpm2_auth *auth, uint32_t *handle);
/* A sealed data object (KEYEDHASH, no userWithAuth: unsealed only through
 * the policy) under parent. */
int lb_tpm2_create_sealed(struct lb_tpm2 *t, uint32_t parent,
			  const struct lb_tpm2_auth *auth, const uint8_t *policy,
			  size_t plen, const uint8_t *data, size_t dlen,
			  struct lb_tpm2_blob *priv, struct lb_tpm2_blob *pub);
int lb_tpm2_load(struct lb_tpm2 *t, uint32_t parent, const struct lb_tpm2_auth *auth,
		 const struct lb_tpm2_blob *priv, const struct lb_tpm2_blob *pub,
		 uint32_t *handle);
int lb_tpm2_unseal(struct lb_tpm2 *t, uint32_t item, const struct lb_tpm2_auth *auth,
		   uint8_t *out, size_t cap, size_t *len);

int lb_tpm2_nv_define(struct lb_tpm2 *t, uint32_t hierarchy,
		      const struct lb_tpm2_auth *auth, uint32_t index, uint32_t attrs,
		      uint16_t size, const uint8_t *nvauth, size_t nvauth_len);
int lb_tpm2_nv_undefine(struct lb_tpm2 *t, uint32_t hierarchy,
			const struct lb_tpm2_auth *auth, uint32_t index);
/* NV_Write/NV_Read in chunks of at most 512 bytes. authh: the authorising
 * handle (the hierarchy or the index itself). */
int lb_tpm2_nv_write(struct lb_tpm2 *t, uint32_t authh, const struct lb_tpm2_auth *auth,
		     uint32_t index, uint16_t off, const uint8_t *data, size_t len);
int lb_tpm2_nv_read(struct lb_tpm2 *t, uint32_t authh, const struct lb_tpm2_auth *auth,
		    uint32_t index, uint16_t off, uint8_t *out, size_t len);
int lb_tpm2_nv_read_public(struct lb_tpm2 *t, uint32_t index,
			   struct lb_tpm2_nvpub *pub);
int lb_tpm2_nv_increment(struct lb_tpm2 *t, uint32_t authh,
			 const struct lb_tpm2_auth *auth, uint32_t index);
/* Read an NV counter (8 bytes, big-endian). */
int lb_tpm2_nv_read_counter(struct lb_tpm2 *t, uint32_t authh,
			    const struct lb_tpm2_auth *auth, uint32_t index,
			    uint64_t *value);
int lb_tpm2_hierarchy_change_auth(struct lb_tpm2 *t, uint32_t hierarchy,
				  const struct lb_tpm2_auth *auth,
				  const uint8_t *newauth, size_t len);

/*
 * Response parsers, for the fuzzer and the tests: each checks one reply of
 * its command in buf/len (header included) exactly as the functions above
 * do. Same return convention.
 */
int lb_tpm2_parse_banks(const uint8_t *buf, size_t len,
			struct lb_tpm2_pcrsel *banks, size_t max, size_t *n);
int lb_tpm2_parse_props(const uint8_t *buf, size_t len, struct lb_tpm2_prop *out,
			size_t max, size_t *n, int *more);
/* want: the PCRs asked for; *got: those returned (subset of want); */
int lb_tpm2_parse_pcr_read(const uint8_t *buf, size_t len, uint16_t alg,
			   uint32_t want, uint32_t *got,
			   uint8_t val[LB_TPM2_NUM_PCRS][LB_TPM2_MAX_DIGEST],
			   uint32_t *counter);
int lb_tpm2_parse_2b(const uint8_t *buf, size_t len, int sessions,
		     uint8_t *out, size_t cap, size_t *outlen);
int lb_tpm2_parse_create(const uint8_t *buf, size_t len,
			 struct lb_tpm2_blob *priv, struct lb_tpm2_blob *pub);
/* CreatePrimary (primary=1) or Load (primary=0) replies. */
int lb_tpm2_parse_handle(const uint8_t *buf, size_t len, int primary,
			 uint32_t *handle);
int lb_tpm2_parse_start_session(const uint8_t *buf, size_t len, uint32_t *session);
int lb_tpm2_parse_nv_public(const uint8_t *buf, size_t len,
			    struct lb_tpm2_nvpub *pub);
int lb_tpm2_parse_hash(const uint8_t *buf, size_t len, uint8_t *out, size_t cap,
		       size_t *outlen);
/* A reply with no parameters (Startup, PCR_Extend, NV_Write, ...). */
int lb_tpm2_parse_empty(const uint8_t *buf, size_t len, int sessions);

#endif
