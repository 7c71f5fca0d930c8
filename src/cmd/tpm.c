/* lboot tpm: talk to a TPM 2.0 (device or swtpm over TCP) and read event logs. */
#include "lboot.h"

LB_APPLET(tpm, LB_HOST|LB_TARGET,
"usage: lboot tpm [--tcp HOST:PORT | --device PATH] [--timeout MS] [--json] COMMAND\n"
"Talk to the TPM 2.0 at /dev/tpmrm0 (else /dev/tpm0), a device PATH, or\n"
"swtpm's TCP data port (HOST: numeric address or localhost).\n"
"  info                     manufacturer, firmware, active PCR banks\n"
"  pcrread [SEL]            PCR values; SEL: N,... (all active banks) or\n"
"                           BANK:N,...[+BANK:N,...]; default 0-23 of all banks\n"
"  extend N DIGEST...       extend PCR N in one PCR_Extend; DIGEST: BANK:HEX\n"
"                           or HEX (bank by size); every active bank needed\n"
"  getrandom N              N random bytes from the TPM, in hex\n"
"  eventlog FILE [--replay] the events of a TCG2 crypto-agile log; --replay:\n"
"                           the PCR values it replays to (hashed by the TPM)\n"
"  counter INDEX define|increment|read|undefine\n"
"                           an NV counter (owner hierarchy, empty auth)\n"
"  seal SEL IN OUT          seal file IN (at most 128 bytes) to the PCR\n"
"                           policy SEL (current values); OUT: the object\n"
"  unseal SEL FILE          print the secret sealed in FILE to stdout\n"
"  seal-totp [--pcrs N,...] [--index NV] [--issuer S] [--label S]\n"
"            [--ascii] [--pbm FILE]\n"
"                           a new TOTP secret (TPM GetRandom, 20 bytes) sealed\n"
"                           to the current sha256 PCRs (default 0,2,4,7,9) in\n"
"                           NV index NV (default 0x01500010, replaced when\n"
"                           there); prints the otpauth:// URI and its QR code\n"
"                           (--ascii: # characters; --pbm: also as an image)\n"
"  reseal-totp [--index NV] [--issuer S] [--label S] [--ascii] [--pbm FILE]\n"
"                           after a firmware update: a new secret sealed to\n"
"                           the current values of the PCRs the record in NV\n"
"                           names (trusts the firmware running now; nothing\n"
"                           in NV changes unless the new object was made)\n"
"  totp [--index NV]        unseal it and print the line the menu shows:\n"
"                           \"TOTP 123456 (valid 17 s)\" (exit 1: unseal failed)\n"
"  lock-platform            set a random platform hierarchy auth (then the\n"
"                           OS holds no platform authority)\n"
"  measure [--config F]... [--note S]... [--kernel F [--path P]] [--uki F]\n"
"          [--cmdline S] [--initrd F]... [--separator] [--lock-platform]\n"
"          [--log-out F [--log-base F]] [--acpi [--acpi-table F] [--mem F]\n"
"          [--fw-log F]]\n"
"                           measure a boot as lboot does, in this order: PCR 8\n"
"                           configs and notes, PCR 4 the kernel (Authenticode),\n"
"                           PCR 11 the UKI (systemd-stub), PCR 9 the command\n"
"                           line (UCS-2) and the initrds as one buffer, PCR 8 a\n"
"                           separator (docs/measured-boot.md). --log-out: the\n"
"                           events as a TCG2 log, after the log --log-base;\n"
"                           --acpi: into the ACPI TPM2 log area (/dev/mem)\n"
"--json: info, pcrread, eventlog, getrandom, measure, seal-totp, reseal-totp and\n"
"totp print\n"
"JSON. Exit 0 ok, 1 on failure (TPM response codes named), 2 on bad usage.\n")
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hash.h"
#include "io.h"
#include "measure.h"
#include "qr.h"
#include "tcglog.h"
#include "tpm2.h"
#include "totpseal.h"
#include "tpmdev.h"

struct opts {
	const char *tcp, *device;
	int timeout_ms, json;
};

struct tpm {
	struct lb_tpmdev dev;
	struct lb_tpm2 t;
	int open;
};

static int tpm_open(struct tpm *tp, const struct opts *o)
{
	int rc;

	if (o->tcp)
		rc = lb_tpmdev_open_tcp(&tp->dev, o->tcp, o->timeout_ms);
	else
		rc = lb_tpmdev_open(&tp->dev, o->device, o->timeout_ms);
	if (rc) {
		if (o->tcp)
			lb_err("tcp %s: %s", o->tcp, strerror(-rc));
		else if (rc == -ENOENT && !o->device)
			lb_err("no TPM (/dev/tpmrm0, /dev/tpm0)");
		else
			lb_err("%s: %s", o->device ? o->device : "/dev/tpm0", strerror(-rc));
		return 1;
	}
	lb_tpm2_init(&tp->t, lb_tpmdev_xfer, &tp->dev);
	tp->open = 1;
	return 0;
}

static void tpm_close(struct tpm *tp)
{
	if (tp->open)
		lb_tpmdev_close(&tp->dev);
	tp->open = 0;
}

/* One error line for a failed command: "PCR_Extend: TPM_RC_VALUE (parameter 1)". */
static int fail(struct tpm *tp, int rc, const char *what)
{
	const char *cc = lb_tpm2_cc_name(tp->t.last_cc);
	char buf[96];

	if (rc > 0)
		lb_err("%s: %s: %s", what, cc ? cc : "?", lb_tpm2_rc_str(rc, buf, sizeof(buf)));
	else if (rc == -EBADMSG)
		lb_err("%s: %s: malformed response from the TPM", what, cc ? cc : "?");
	else
		lb_err("%s: %s: %s", what, cc ? cc : "?", strerror(-rc));
	return 1;
}

static void hex(FILE *f, const uint8_t *p, size_t n, int upper)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, upper ? "%02X" : "%02x", p[i]);
}

static int nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if ((c | 32) >= 'a' && (c | 32) <= 'f')
		return (c | 32) - 'a' + 10;
	return -1;
}

static int unhex(const char *s, uint8_t *out, size_t cap, size_t *len)
{
	size_t n = strlen(s);

	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		n -= 2;
	}
	if (!n || n % 2 || n / 2 > cap)
		return -EINVAL;
	for (size_t i = 0; i < n / 2; i++) {
		int hi = nibble(s[2 * i]), lo = nibble(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		out[i] = hi << 4 | lo;
	}
	*len = n / 2;
	return 0;
}

/* "N,N-M,..." into a PCR mask. */
static int parse_pcrs(const char *s, uint32_t *mask)
{
	uint32_t m = 0;
	char *end;

	if (!strcmp(s, "all")) {
		*mask = 0xffffff;
		return 0;
	}
	while (*s) {
		unsigned long a, b;

		if (*s < '0' || *s > '9')
			return -EINVAL;
		a = strtoul(s, &end, 10);
		b = a;
		if (*end == '-') {
			if (end[1] < '0' || end[1] > '9')
				return -EINVAL;
			b = strtoul(end + 1, &end, 10);
		}
		if (a > b || b >= LB_TPM2_NUM_PCRS)
			return -EINVAL;
		for (unsigned long i = a; i <= b; i++)
			m |= 1u << i;
		if (*end == ',')
			end++;
		else if (*end)
			return -EINVAL;
		s = end;
	}
	if (!m)
		return -EINVAL;
	*mask = m;
	return 0;
}

/* SEL: "N,..." (every bank in banks[]) or "BANK:N,...+BANK:N,...". */
static int parse_sel(const char *s, const struct lb_tpm2_pcrsel *banks, size_t nb,
		     struct lb_tpm2_pcrsel *sel, size_t *n)
{
	char buf[256], *save = NULL, *tok;
	size_t k = 0;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	for (tok = strtok_r(buf, "+", &save); tok; tok = strtok_r(NULL, "+", &save)) {
		char *colon = strchr(tok, ':');
		uint32_t mask;

		if (!colon) {
			if (parse_pcrs(tok, &mask) || k)
				return -EINVAL;
			for (size_t i = 0; i < nb; i++)
				sel[i] = (struct lb_tpm2_pcrsel){ banks[i].alg, mask };
			k = nb;
			continue;
		}
		*colon = 0;
		if (k == LB_TPM2_MAX_BANKS || parse_pcrs(colon + 1, &mask))
			return -EINVAL;
		sel[k].alg = lb_tpm2_alg_by_name(tok);
		sel[k].mask = mask;
		if (!sel[k].alg)
			return -EINVAL;
		k++;
	}
	if (!k)
		return -EINVAL;
	*n = k;
	return 0;
}

static int get_banks(struct tpm *tp, struct lb_tpm2_pcrsel *banks, size_t *nb)
{
	int rc = lb_tpm2_get_banks(&tp->t, banks, LB_TPM2_MAX_BANKS, nb);

	if (rc)
		return fail(tp, rc, "active PCR banks");
	if (!*nb) {
		lb_err("the TPM has no active PCR bank");
		return 1;
	}
	return 0;
}

/* Properties as text: 4 bytes big-endian, NULs dropped. */
static void prop_str(char *out, const uint32_t *v, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		for (int s = 24; s >= 0; s -= 8) {
			char c = v[i] >> s;
			if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
				out[k++] = c;
		}
	while (k && out[k - 1] == ' ')
		k--;
	out[k] = 0;
}

static int cmd_info(struct tpm *tp, const struct opts *o)
{
	struct lb_tpm2_pcrsel banks[LB_TPM2_MAX_BANKS];
	struct lb_tpm2_prop props[16];
	uint32_t manu = 0, vendor[4] = { 0 }, fw1 = 0, fw2 = 0;
	char manus[8], vends[20];
	size_t nb, np;
	int rc;

	rc = lb_tpm2_get_props(&tp->t, LB_TPM2_PT_MANUFACTURER, props, 8, &np);
	if (rc)
		return fail(tp, rc, "properties");
	for (size_t i = 0; i < np; i++) {
		uint32_t p = props[i].property, v = props[i].value;

		if (p == LB_TPM2_PT_MANUFACTURER)
			manu = v;
		else if (p >= LB_TPM2_PT_VENDOR_STRING_1 && p < LB_TPM2_PT_VENDOR_STRING_1 + 4)
			vendor[p - LB_TPM2_PT_VENDOR_STRING_1] = v;
		else if (p == LB_TPM2_PT_FIRMWARE_VERSION_1)
			fw1 = v;
		else if (p == LB_TPM2_PT_FIRMWARE_VERSION_2)
			fw2 = v;
	}
	if (get_banks(tp, banks, &nb))
		return 1;
	prop_str(manus, &manu, 1);
	prop_str(vends, vendor, 4);
	if (o->json) {
		printf("{\"manufacturer\":\"%s\",\"vendor\":\"%s\",\"firmware\":\"%08x.%08x\",\"banks\":[",
		       manus, vends, fw1, fw2);
		for (size_t i = 0; i < nb; i++)
			printf("%s\"%s\"", i ? "," : "", lb_tpm2_alg_name(banks[i].alg) ?
			       lb_tpm2_alg_name(banks[i].alg) : "?");
		printf("]}\n");
		return 0;
	}
	printf("manufacturer: %s\nvendor: %s\nfirmware: %08x.%08x\nbanks:",
	       manus, vends, fw1, fw2);
	for (size_t i = 0; i < nb; i++) {
		const char *n = lb_tpm2_alg_name(banks[i].alg);
		if (n)
			printf(" %s", n);
		else
			printf(" 0x%04x", banks[i].alg);
	}
	printf("\n");
	return 0;
}

/* Output like tpm2_pcrread ("  sha256:\n    0 : 0xHEX"), so the two diff. */
static int cmd_pcrread(struct tpm *tp, const struct opts *o, const char *arg)
{
	struct lb_tpm2_pcrsel banks[LB_TPM2_MAX_BANKS], sel[LB_TPM2_MAX_BANKS];
	static uint8_t val[LB_TPM2_NUM_PCRS][LB_TPM2_MAX_DIGEST];
	size_t nb, ns, size;
	int rc;

	if (get_banks(tp, banks, &nb))
		return 1;
	if (parse_sel(arg ? arg : "all", banks, nb, sel, &ns)) {
		lb_err("bad PCR selection: %s", arg);
		return 2;
	}
	for (size_t b = 0; b < ns; b++) {
		size_t k;

		for (k = 0; k < nb && banks[k].alg != sel[b].alg; k++)
			;
		if (k == nb) {
			lb_err("PCR bank %s is not active", lb_tpm2_alg_name(sel[b].alg));
			return 1;
		}
	}
	if (o->json)
		printf("{");
	for (size_t b = 0; b < ns; b++) {
		const char *name = lb_tpm2_alg_name(sel[b].alg);

		rc = lb_tpm2_pcr_read(&tp->t, sel[b].alg, sel[b].mask, val, &size, NULL);
		if (rc) {
			if (o->json)
				printf("}\n");
			return fail(tp, rc, name ? name : "PCR read");
		}
		printf(o->json ? "%s\"%s\":{" : "%s  %s:\n", o->json && b ? "," : "", name);
		for (unsigned i = 0, first = 1; i < LB_TPM2_NUM_PCRS; i++) {
			if (!(sel[b].mask & (1u << i)))
				continue;
			if (o->json) {
				printf("%s\"%u\":\"", first ? "" : ",", i);
				hex(stdout, val[i], size, 0);
				printf("\"");
			} else {
				printf("    %-2u: 0x", i);
				hex(stdout, val[i], size, 1);
				printf("\n");
			}
			first = 0;
		}
		if (o->json)
			printf("}");
	}
	if (o->json)
		printf("}\n");
	return 0;
}

static int cmd_extend(struct tpm *tp, int argc, char **argv)
{
	struct lb_tpm2_pcrsel banks[LB_TPM2_MAX_BANKS];
	struct lb_tpm2_digest d[LB_TPM2_MAX_BANKS];
	size_t nb, nd = 0;
	char *end;
	unsigned long pcr;
	int rc;

	if (argc < 2)
		return lb_usage("tpm"), 2;
	pcr = strtoul(argv[0], &end, 10);
	if (*end || argv[0][0] < '0' || argv[0][0] > '9' || pcr >= LB_TPM2_NUM_PCRS) {
		lb_err("bad PCR index: %s", argv[0]);
		return 2;
	}
	if (get_banks(tp, banks, &nb))
		return 1;
	for (int i = 1; i < argc; i++) {
		char *colon = strchr(argv[i], ':');
		uint16_t alg = 0;
		size_t len;

		if (nd == LB_TPM2_MAX_BANKS) {
			lb_err("too many digests");
			return 2;
		}
		if (colon) {
			*colon = 0;
			alg = lb_tpm2_alg_by_name(argv[i]);
			if (!alg) {
				lb_err("unknown bank: %s", argv[i]);
				return 2;
			}
		}
		if (unhex(colon ? colon + 1 : argv[i], d[nd].d, LB_TPM2_MAX_DIGEST, &len)) {
			lb_err("bad digest: %s", colon ? colon + 1 : argv[i]);
			return 2;
		}
		if (!alg) {
			/* the active bank of that size, when there is one */
			for (size_t b = 0; b < nb; b++) {
				if (lb_tpm2_alg_size(banks[b].alg) != len)
					continue;
				if (alg) {
					lb_err("digest of %zu bytes: say which bank (BANK:HEX)", len);
					return 2;
				}
				alg = banks[b].alg;
			}
			if (!alg) {
				lb_err("no active bank has %zu-byte digests", len);
				return 2;
			}
		}
		if (lb_tpm2_alg_size(alg) != len) {
			lb_err("%s digest must be %zu bytes, not %zu", lb_tpm2_alg_name(alg),
			       lb_tpm2_alg_size(alg), len);
			return 2;
		}
		for (size_t j = 0; j < nd; j++)
			if (d[j].alg == alg) {
				lb_err("two digests for %s", lb_tpm2_alg_name(alg));
				return 2;
			}
		d[nd].alg = alg;
		d[nd].size = len;
		nd++;
	}
	for (size_t b = 0; b < nb; b++) {
		int have = 0;
		for (size_t j = 0; j < nd; j++)
			have |= d[j].alg == banks[b].alg;
		if (!have) {
			const char *n = lb_tpm2_alg_name(banks[b].alg);
			lb_err("no digest for the active bank %s", n ? n : "?");
			return 2;
		}
	}
	rc = lb_tpm2_pcr_extend(&tp->t, pcr, d, nd);
	if (rc)
		return fail(tp, rc, "extend");
	return 0;
}

static int cmd_getrandom(struct tpm *tp, const struct opts *o, const char *arg)
{
	uint8_t buf[1024];
	char *end;
	unsigned long n = strtoul(arg, &end, 10);
	int rc;

	if (*end || arg[0] < '0' || arg[0] > '9' || !n || n > sizeof(buf)) {
		lb_err("bad count (1..1024): %s", arg);
		return 2;
	}
	rc = lb_tpm2_get_random(&tp->t, buf, n);
	if (rc)
		return fail(tp, rc, "random");
	if (o->json)
		printf("\"");
	hex(stdout, buf, n, 0);
	printf(o->json ? "\"\n" : "\n");
	return 0;
}

/* Replay hash engine: the TPM's own TPM2_Hash (no crypto library here). */
static int tpm_hash(void *ctx, uint16_t alg, const uint8_t *data, size_t len,
		    uint8_t *out)
{
	size_t l;
	int rc = lb_tpm2_hash(ctx, alg, data, len, out, &l);

	/* an algorithm we or the TPM do not know (TPM_RC_HASH): that bank is
	 * left out of the replay */
	if (rc == -EINVAL || (rc > 0 && (rc & 0x0bf) == 0x083))
		return -ENOTSUP;
	return rc;
}


static int cmd_eventlog(struct tpm *tp, const struct opts *o, const char *file,
			int replay)
{
	struct lb_tcglog log;
	struct lb_tcglog_event ev;
	static struct lb_tcglog_pcrs pcrs;
	uint8_t *buf = NULL;
	size_t len = 0, off;
	int rc, ret = 1;

	rc = lb_read_stream(file, LB_TCGLOG_MAX_SIZE, &buf, &len);
	if (rc) {
		lb_err("%s: %s", file, strerror(-rc));
		return 1;
	}
	rc = lb_tcglog_open(&log, buf, len);
	if (rc) {
		lb_err("%s: %s", file, rc == -EBADMSG ? "not a well-formed TCG2 crypto-agile event log" :
		       strerror(-rc));
		goto out;
	}
	if (replay) {
		if (tpm_open(tp, o))
			goto out;
		rc = lb_tcglog_replay(&log, tpm_hash, &tp->t, &pcrs);
		if (rc) {
			fail(tp, rc, "replay");
			goto out;
		}
		if (o->json)
			printf("{");
		for (size_t b = 0, nb = 0; b < pcrs.n_bank; b++) {
			const struct lb_tcglog_bank *bk = &pcrs.bank[b];
			const char *name = lb_tpm2_alg_name(bk->alg);

			if (!bk->mask)
				continue;
			if (o->json)
				printf("%s\"%s\":{", nb ? "," : "", name ? name : "?");
			else
				printf("  %s:\n", name ? name : "?");
			for (unsigned i = 0, first = 1; i < LB_TPM2_NUM_PCRS; i++) {
				if (!(bk->mask & (1u << i)))
					continue;
				if (o->json) {
					printf("%s\"%u\":\"", first ? "" : ",", i);
					hex(stdout, bk->pcr[i], bk->size, 0);
					printf("\"");
				} else {
					printf("    %-2u: 0x", i);
					hex(stdout, bk->pcr[i], bk->size, 1);
					printf("\n");
				}
				first = 0;
			}
			if (o->json)
				printf("}");
			nb++;
		}
		if (o->json)
			printf("}\n");
		ret = 0;
		goto out;
	}
	off = log.first;
	if (o->json)
		printf("[");
	for (size_t k = 0; (rc = lb_tcglog_next(&log, &off, &ev)) == 1; k++) {
		const char *tn = lb_tcglog_type_name(ev.type);

		if (o->json) {
			printf("%s{\"pcr\":%u,\"type\":%u,\"digests\":{", k ? "," : "", ev.pcr, ev.type);
			for (size_t i = 0; i < ev.n_dig; i++) {
				const char *an = lb_tpm2_alg_name(ev.dig[i].alg);
				printf("%s\"%s\":\"", i ? "," : "", an ? an : "?");
				hex(stdout, ev.dig[i].d, ev.dig[i].size, 0);
				printf("\"");
			}
			printf("},\"size\":%u}", ev.size);
			continue;
		}
		printf("%zu: PCR %u %s (0x%08x) %u bytes\n", k + 1, ev.pcr, tn ? tn : "?",
		       ev.type, ev.size);
		for (size_t i = 0; i < ev.n_dig; i++) {
			const char *an = lb_tpm2_alg_name(ev.dig[i].alg);
			printf("  %s: ", an ? an : "?");
			hex(stdout, ev.dig[i].d, ev.dig[i].size, 0);
			printf("\n");
		}
	}
	if (o->json)
		printf("]\n");
	ret = rc < 0;
out:
	free(buf);
	return ret;
}

static int parse_index(const char *s, uint32_t *index)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (*end || s[0] < '0' || s[0] > '9' || (v >> 24) != 0x01 || v > 0xffffffffUL)
		return -EINVAL;
	*index = v;
	return 0;
}

static int cmd_counter(struct tpm *tp, const char *idx, const char *op)
{
	uint32_t index;
	uint64_t v;
	int rc;

	if (parse_index(idx, &index)) {
		lb_err("bad NV index (0x01xxxxxx): %s", idx);
		return 2;
	}
	if (!strcmp(op, "define")) {
		rc = lb_tpm2_nv_define(&tp->t, LB_TPM2_RH_OWNER, NULL, index,
				       LB_TPM2_NV_COUNTER | LB_TPM2_NV_OWNERWRITE |
				       LB_TPM2_NV_OWNERREAD | LB_TPM2_NV_AUTHREAD |
				       LB_TPM2_NV_AUTHWRITE | LB_TPM2_NV_NO_DA, 8, NULL, 0);
	} else if (!strcmp(op, "increment")) {
		rc = lb_tpm2_nv_increment(&tp->t, LB_TPM2_RH_OWNER, NULL, index);
	} else if (!strcmp(op, "undefine")) {
		rc = lb_tpm2_nv_undefine(&tp->t, LB_TPM2_RH_OWNER, NULL, index);
	} else if (!strcmp(op, "read")) {
		struct lb_tpm2_nvpub pub;

		rc = lb_tpm2_nv_read_public(&tp->t, index, &pub);
		if (!rc && ((pub.attrs >> 4) & 0xf) != 1) {
			lb_err("0x%08x is not a counter", index);
			return 1;
		}
		if (!rc && !(pub.attrs & LB_TPM2_NV_WRITTEN)) {
			lb_err("counter 0x%08x was never incremented", index);
			return 1;
		}
		if (!rc)
			rc = lb_tpm2_nv_read_counter(&tp->t, LB_TPM2_RH_OWNER, NULL, index, &v);
		if (!rc)
			printf("%llu\n", (unsigned long long)v);
	} else {
		lb_usage("tpm");
		return 2;
	}
	return rc ? fail(tp, rc, "counter") : 0;
}

/* The sealed object file: TPM2B private || TPM2B public (big-endian sizes). */
static int load_sealed(const char *file, struct lb_tpm2_blob *priv,
		       struct lb_tpm2_blob *pub)
{
	uint8_t *b = NULL;
	size_t len, a, c;
	int rc = lb_read_path(file, 2 * (2 + LB_TPM2_BLOB_MAX), &b, &len);

	if (rc)
		return rc;
	rc = -EBADMSG;
	if (len < 4)
		goto out;
	a = (size_t)b[0] << 8 | b[1];
	if (!a || a > LB_TPM2_BLOB_MAX || a > len - 4)
		goto out;
	c = (size_t)b[2 + a] << 8 | b[3 + a];
	if (!c || c > LB_TPM2_BLOB_MAX || c != len - 4 - a)
		goto out;
	priv->len = a;
	memcpy(priv->b, b + 2, a);
	pub->len = c;
	memcpy(pub->b, b + 4 + a, c);
	rc = 0;
out:
	free(b);
	return rc;
}

/* A policy session (or trial) with PolicyPCR(sel) applied. */
static int policy_session(struct tpm *tp, uint8_t type, const struct lb_tpm2_pcrsel *sel,
			  size_t ns, uint32_t *session)
{
	uint8_t nonce[16];
	int rc = lb_tpm2_get_random(&tp->t, nonce, sizeof(nonce));

	if (!rc)
		rc = lb_tpm2_start_session(&tp->t, type, nonce, sizeof(nonce), session);
	if (rc)
		return rc;
	rc = lb_tpm2_policy_pcr(&tp->t, *session, sel, ns);
	if (rc)
		lb_tpm2_flush(&tp->t, *session);
	return rc;
}

static int cmd_seal(struct tpm *tp, const char *selstr, const char *in, const char *out,
		    int unseal)
{
	struct lb_tpm2_pcrsel banks[LB_TPM2_MAX_BANKS], sel[LB_TPM2_MAX_BANKS];
	static struct lb_tpm2_blob priv, pub;
	uint8_t policy[LB_TPM2_MAX_DIGEST], secret[128], *data = NULL;
	size_t nb, ns, plen, dlen = 0;
	uint32_t session = 0, srk = 0, item = 0;
	int rc, ret = 1;

	if (get_banks(tp, banks, &nb))
		return 1;
	if (parse_sel(selstr, banks, nb, sel, &ns)) {
		lb_err("bad PCR selection: %s", selstr);
		return 2;
	}
	if (unseal) {
		rc = load_sealed(in, &priv, &pub);
		if (rc) {
			lb_err("%s: %s", in, rc == -EBADMSG ? "not a sealed object" : strerror(-rc));
			return 1;
		}
	} else {
		rc = lb_read_path(in, sizeof(secret), &data, &dlen);
		if (rc || !dlen) {
			lb_err("%s: %s", in, rc ? strerror(-rc) : "empty");
			free(data);
			return 1;
		}
	}
	rc = lb_tpm2_create_primary(&tp->t, LB_TPM2_RH_OWNER, NULL, &srk);
	if (rc) {
		fail(tp, rc, "storage key");
		srk = 0;
		goto out;
	}
	if (!unseal) {
		rc = policy_session(tp, LB_TPM2_SE_TRIAL, sel, ns, &session);
		if (!rc)
			rc = lb_tpm2_policy_get_digest(&tp->t, session, policy, sizeof(policy), &plen);
		if (rc) {
			fail(tp, rc, "PCR policy");
			goto out;
		}
		rc = lb_tpm2_create_sealed(&tp->t, srk, NULL, policy, plen, data, dlen, &priv, &pub);
		if (rc) {
			fail(tp, rc, "seal");
			goto out;
		}
		{
			uint8_t file[4 + 2 * LB_TPM2_BLOB_MAX];
			size_t n = 0;

			file[n++] = priv.len >> 8;
			file[n++] = priv.len;
			memcpy(file + n, priv.b, priv.len);
			n += priv.len;
			file[n++] = pub.len >> 8;
			file[n++] = pub.len;
			memcpy(file + n, pub.b, pub.len);
			n += pub.len;
			rc = lb_write_atomic(out, file, n, 0600);
			if (rc) {
				lb_err("%s: %s", out, strerror(-rc));
				goto out;
			}
		}
		ret = 0;
		goto out;
	}
	rc = lb_tpm2_load(&tp->t, srk, NULL, &priv, &pub, &item);
	if (rc) {
		item = 0;
		fail(tp, rc, "load sealed object");
		goto out;
	}
	rc = policy_session(tp, LB_TPM2_SE_POLICY, sel, ns, &session);
	if (rc) {
		session = 0;
		fail(tp, rc, "PCR policy");
		goto out;
	}
	{
		struct lb_tpm2_auth auth = { session, 0, 0, NULL };

		rc = lb_tpm2_unseal(&tp->t, item, &auth, secret, sizeof(secret), &dlen);
		if (rc) {
			fail(tp, rc, "unseal");
			goto out;
		}
		session = 0; /* continueSession clear: the TPM flushed it */
	}
	fwrite(secret, 1, dlen, stdout);
	fflush(stdout);
	ret = 0;
out:
	if (session)
		lb_tpm2_flush(&tp->t, session);
	if (item)
		lb_tpm2_flush(&tp->t, item);
	if (srk)
		lb_tpm2_flush(&tp->t, srk);
	memset(secret, 0, sizeof(secret));
	if (data)
		memset(data, 0, dlen);
	free(data);
	return ret;
}

static int cmd_lock_platform(struct tpm *tp)
{
	uint8_t a[32];
	int rc = lb_tpm2_get_random(&tp->t, a, sizeof(a));

	if (!rc)
		rc = lb_tpm2_hierarchy_change_auth(&tp->t, LB_TPM2_RH_PLATFORM, NULL, a, sizeof(a));
	memset(a, 0, sizeof(a));
	return rc ? fail(tp, rc, "lock platform hierarchy") : 0;
}

/* --- TOTP ---------------------------------------------------------------------- */

/* The QR code of text on stdout (unless json), and as a PBM image when pbm
 * is set. */
static int show_qr(const char *text, int ascii, int json, const char *pbm)
{
	static struct lb_qr q;
	static char out[64 * 1024];
	uint8_t *img;
	long n;
	int rc = lb_qr_encode((const uint8_t *)text, strlen(text), LB_QR_ECC_M, -1, &q);

	if (rc == -EMSGSIZE)
		rc = lb_qr_encode((const uint8_t *)text, strlen(text), LB_QR_ECC_L, -1, &q);
	if (rc) {
		lb_err("QR code: %s", rc == -EMSGSIZE ? "text too long" : strerror(-rc));
		return 1;
	}
	n = lb_qr_text(&q, ascii ? LB_QR_TEXT_ASCII : LB_QR_TEXT_UTF8, LB_QR_QUIET, 0,
		       out, sizeof(out));
	if (n < 0 || (size_t)n >= sizeof(out)) {
		lb_err("QR code: does not fit the text buffer");
		return 1;
	}
	if (!json)
		fputs(out, stdout);
	if (!pbm)
		return 0;
	n = lb_qr_pbm(&q, LB_QR_QUIET, 4, NULL, 0);
	if (n < 0 || !(img = malloc((size_t)n)))
		return lb_err("%s: %s", pbm, strerror(ENOMEM)), 1;
	lb_qr_pbm(&q, LB_QR_QUIET, 4, img, (size_t)n);
	rc = lb_write_atomic(pbm, img, (size_t)n, 0644);
	free(img);
	if (rc) {
		lb_err("%s: %s", pbm, strerror(-rc));
		return 1;
	}
	return 0;
}

static int cmd_seal_totp(struct tpm *tp, const struct opts *o, int reseal, int argc,
			 char **argv)
{
	uint32_t mask = LB_TOTPSEAL_PCRS_DEFAULT, index = LB_TOTPSEAL_NV_DEFAULT;
	const char *issuer = "lboot", *label = "owner", *pbm = NULL;
	uint8_t secret[LB_TOTPSEAL_SECRET];
	char uri[512];
	int ascii = 0, rc, first = 1;

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--pcrs") && v && !reseal) {
			if (parse_pcrs(v, &mask)) {
				lb_err("bad PCR list: %s", v);
				return 2;
			}
			i++;
		} else if (!strcmp(a, "--index") && v) {
			if (parse_index(v, &index)) {
				lb_err("bad NV index (0x01xxxxxx): %s", v);
				return 2;
			}
			i++;
		} else if (!strcmp(a, "--issuer") && v) {
			issuer = argv[++i];
		} else if (!strcmp(a, "--label") && v) {
			label = argv[++i];
		} else if (!strcmp(a, "--pbm") && v) {
			pbm = argv[++i];
		} else if (!strcmp(a, "--ascii")) {
			ascii = 1;
		} else {
			lb_err("%s: bad argument: %s", reseal ? "reseal-totp" : "seal-totp", a);
			return lb_usage("tpm"), 2;
		}
	}
	if (!*issuer || !*label || strlen(issuer) > 64 || strlen(label) > 64) {
		lb_err("issuer and label: 1..64 bytes");
		return 2;
	}
	if (tpm_open(tp, o))
		return 1;
	rc = reseal ? lb_totpseal_reseal(&tp->t, index, secret, &mask) :
		      lb_totpseal_seal(&tp->t, index, mask, secret);
	if (rc == -ENOTSUP) {
		lb_err("%s TOTP: the TPM has no active sha256 PCR bank", reseal ? "reseal" : "seal");
		return 1;
	}
	if (reseal && rc == -ENOENT) {
		lb_err("reseal TOTP: no TOTP in NV 0x%08x (lboot tpm seal-totp sets one up)", index);
		return 1;
	}
	if (reseal && rc == -EILSEQ) {
		lb_err("reseal TOTP: NV 0x%08x holds no TOTP record; nothing changed", index);
		return 1;
	}
	if (rc && reseal) {
		/* one line: what failed, and what NV holds now */
		const char *cc = lb_tpm2_cc_name(tp->t.last_cc);
		char buf[96];
		uint32_t m2;

		if (rc > 0)
			lb_tpm2_rc_str((uint32_t)rc, buf, sizeof(buf));
		else
			snprintf(buf, sizeof(buf), "%s", rc == -EBADMSG ?
				 "malformed response from the TPM" : strerror(-rc));
		lb_err("reseal TOTP: %s: %s; %s", cc ? cc : "?", buf,
		       lb_totpseal_info(&tp->t, index, &m2) == -ENOENT ?
		       "NV holds no TOTP now (lboot tpm seal-totp sets one up)" :
		       "the old sealed secret is unchanged");
		return 1;
	}
	if (rc)
		return fail(tp, rc, "seal TOTP");
	rc = lb_totpseal_uri(secret, sizeof(secret), issuer, label, uri, sizeof(uri));
	memset(secret, 0, sizeof(secret));
	if (rc) {
		lb_err("otpauth URI: %s", strerror(-rc));
		return 1;
	}
	if (o->json) {
		printf("{\"index\":\"0x%08x\",%s\"pcrs\":[", index,
		       reseal ? "\"resealed\":true," : "");
		for (unsigned i = 0; i < LB_TPM2_NUM_PCRS; i++)
			if (mask & (1u << i)) {
				printf("%s%u", first ? "" : ",", i);
				first = 0;
			}
		printf("],\"uri\":\"%s\"}\n", uri);
		return pbm ? show_qr(uri, 1, 1, pbm) : 0;
	}
	printf("TOTP %s to sha256 PCRs", reseal ? "resealed" : "sealed");
	for (unsigned i = 0; i < LB_TPM2_NUM_PCRS; i++)
		if (mask & (1u << i)) {
			printf("%s%u", first ? " " : ",", i);
			first = 0;
		}
	printf(" in NV 0x%08x; add it to the authenticator app:\n%s\n", index, uri);
	rc = show_qr(uri, ascii, 0, pbm);
	memset(uri, 0, sizeof(uri));
	return rc;
}

static int cmd_totp(struct tpm *tp, const struct opts *o, int argc, char **argv)
{
	uint32_t index = LB_TOTPSEAL_NV_DEFAULT;
	struct timespec ts;
	char line[160];
	int rc;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--index") && i + 1 < argc && !parse_index(argv[i + 1], &index)) {
			i++;
			continue;
		}
		lb_err("totp: bad argument: %s", argv[i]);
		return lb_usage("tpm"), 2;
	}
	if (tpm_open(tp, o))
		return 1;
	clock_gettime(CLOCK_REALTIME, &ts);
	rc = lb_totpseal_line(&tp->t, index, (int64_t)ts.tv_sec, line, sizeof(line));
	if (rc == -ENOENT) {
		lb_err("no TOTP provisioned in NV 0x%08x (lboot tpm seal-totp)", index);
		return 1;
	}
	if (o->json)
		printf("{\"ok\":%s,\"time\":%lld,\"line\":\"%s\"}\n", rc ? "false" : "true",
		       (long long)ts.tv_sec, line);
	else if (rc)
		lb_err("%s", line);
	else
		printf("%s\n", line);
	return rc ? 1 : 0;
}

/* --- measure ------------------------------------------------------------------- */

#define MEASURE_MAX_FILE (1024u << 20)
#define MEASURE_MAX_ARGS 32

static int measure_fail(const char *what, int rc, const char *err)
{
	char buf[96];

	if (err && *err)
		lb_err("%s: %s", what, err);
	else if (rc > 0)
		lb_err("%s: %s", what, lb_tpm2_rc_str(rc, buf, sizeof(buf)));
	else if (rc == -EBADMSG)
		lb_err("%s: malformed response from the TPM", what);
	else
		lb_err("%s: %s", what, strerror(-rc));
	return 1;
}

/* Stream files into one set of digests: the one buffer they make. */
static int hash_files(char **files, size_t n, unsigned mask, struct lb_digests *d,
		      const char **bad)
{
	struct lb_hash *h = malloc(sizeof(*h));
	uint8_t *buf = malloc(1 << 16);
	int rc = -ENOMEM;

	if (!h || !buf)
		goto out;
	if ((rc = lb_hash_init(h, mask)))
		goto out;
	for (size_t i = 0; i < n; i++) {
		int fd = open(files[i], O_RDONLY | O_CLOEXEC);

		*bad = files[i];
		if (fd < 0) {
			rc = -errno;
			goto out;
		}
		for (;;) {
			ssize_t k = read(fd, buf, 1 << 16);

			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0) {
				rc = -errno;
				close(fd);
				goto out;
			}
			if (!k)
				break;
			lb_hash_update(h, buf, (size_t)k);
		}
		close(fd);
	}
	lb_hash_final(h, d);
	rc = 0;
out:
	free(buf);
	free(h);
	return rc;
}

static void print_events(const struct lb_measure *m)
{
	printf("[");
	for (size_t i = 0; i < m->n_ev; i++) {
		const struct lb_measure_event *ev = &m->ev[i];
		const char *tn = lb_tcglog_type_name(ev->type);
		char hexd[2 * LB_HASH_MAXLEN + 1];

		printf("%s{\"pcr\":%u,\"type\":\"%s\",\"digests\":{", i ? "," : "", ev->pcr,
		       tn ? tn : "?");
		for (size_t b = 0; b < m->n_banks; b++) {
			int h = lb_measure_hash_alg(m->bank_alg[b]);

			lb_hex(ev->d.d[h], lb_hash_len(h), hexd);
			printf("%s\"%s\":\"%s\"", b ? "," : "", lb_hash_name(h), hexd);
		}
		printf("},\"data\":\"");
		hex(stdout, ev->data, ev->size, 0);
		printf("\"}");
	}
	printf("]\n");
}

static int cmd_measure(const struct opts *o, int argc, char **argv)
{
	static struct lb_measure m;
	static char *initrds[MEASURE_MAX_ARGS], *configs[MEASURE_MAX_ARGS],
		*notes[MEASURE_MAX_ARGS];
	size_t ni = 0, nc = 0, nn = 0;
	const char *kernel = NULL, *path = NULL, *uki = NULL, *cmdline = NULL;
	const char *log_out = NULL, *log_base = NULL;
	struct lb_measure_paths ap = { NULL, NULL, NULL };
	int separator = 0, lock = 0, acpi = 0, rc, ret = 1;
	char err[256] = "", devbuf[96];
	const char *dev = NULL;
	uint8_t *buf = NULL, *log = NULL;
	size_t len, llen;

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

#define ARG(name) (!strcmp(a, name) && v && (i++, 1))
		if (ARG("--kernel"))
			kernel = v;
		else if (ARG("--path"))
			path = v;
		else if (ARG("--uki"))
			uki = v;
		else if (ARG("--cmdline"))
			cmdline = v;
		else if (ARG("--log-out"))
			log_out = v;
		else if (ARG("--log-base"))
			log_base = v;
		else if (ARG("--acpi-table"))
			ap.tpm2_table = v;
		else if (ARG("--mem"))
			ap.mem = v;
		else if (ARG("--fw-log"))
			ap.fw_log = v;
		else if (ARG("--initrd") && ni < MEASURE_MAX_ARGS)
			initrds[ni++] = argv[i];
		else if (ARG("--config") && nc < MEASURE_MAX_ARGS)
			configs[nc++] = argv[i];
		else if (ARG("--note") && nn < MEASURE_MAX_ARGS)
			notes[nn++] = argv[i];
		else if (!strcmp(a, "--separator"))
			separator = 1;
		else if (!strcmp(a, "--lock-platform"))
			lock = 1;
		else if (!strcmp(a, "--acpi"))
			acpi = 1;
		else {
			lb_err("measure: bad argument: %s", a);
			return lb_usage("tpm"), 2;
		}
#undef ARG
	}
	if ((path && !kernel) || (log_base && !log_out) ||
	    ((ap.tpm2_table || ap.mem || ap.fw_log) && !acpi))
		return lb_usage("tpm"), 2;
	if (o->tcp) {
		snprintf(devbuf, sizeof(devbuf), "tcp:%s", o->tcp);
		dev = devbuf;
	} else {
		dev = o->device;
	}
	rc = lb_measure_open(&m, dev, err, sizeof(err));
	if (rc)
		return measure_fail("measure", rc, err);
	for (size_t i = 0; i < nc; i++) {
		rc = lb_read_path(configs[i], MEASURE_MAX_FILE, &buf, &len);
		if (rc) {
			lb_err("%s: %s", configs[i], strerror(-rc));
			goto out;
		}
		rc = lb_measure_config(&m, configs[i], buf, len);
		free(buf);
		buf = NULL;
		if (rc) {
			measure_fail(configs[i], rc, NULL);
			goto out;
		}
	}
	for (size_t i = 0; i < nn; i++) {
		if ((rc = lb_measure_string(&m, notes[i]))) {
			measure_fail("note", rc, NULL);
			goto out;
		}
	}
	if (kernel) {
		rc = lb_read_path(kernel, MEASURE_MAX_FILE, &buf, &len);
		if (rc) {
			lb_err("%s: %s", kernel, strerror(-rc));
			goto out;
		}
		rc = lb_measure_kernel_pe(&m, buf, len, path);
		free(buf);
		buf = NULL;
		if (rc < 0) {
			measure_fail(kernel, rc, NULL);
			goto out;
		}
		if (rc == 1 && !o->json)
			printf("%s: not a PE image: measured its plain digest\n", kernel);
	}
	if (uki) {
		size_t ns;

		rc = lb_read_path(uki, MEASURE_MAX_FILE, &buf, &len);
		if (rc) {
			lb_err("%s: %s", uki, strerror(-rc));
			goto out;
		}
		rc = lb_measure_uki(&m, buf, len, &ns);
		free(buf);
		buf = NULL;
		if (rc) {
			lb_err("%s: %s", uki, rc == -ENOENT ? "no .linux section" :
			       rc == -EINVAL ? "not a PE image" : strerror(-rc));
			goto out;
		}
	}
	if (cmdline && (rc = lb_measure_cmdline(&m, cmdline))) {
		measure_fail("command line", rc, NULL);
		goto out;
	}
	if (ni) {
		struct lb_digests d;
		const char *bad = NULL;

		rc = hash_files(initrds, ni, lb_measure_banks(&m), &d, &bad);
		if (rc) {
			lb_err("%s: %s", bad ? bad : "initrd", strerror(-rc));
			goto out;
		}
		if ((rc = lb_measure_initrd(&m, &d))) {
			measure_fail("initrd", rc, NULL);
			goto out;
		}
	}
	if (separator && (rc = lb_measure_separator(&m, LB_MEASURE_PCR_LBOOT))) {
		measure_fail("separator", rc, NULL);
		goto out;
	}
	if (log_out) {
		uint8_t *base = NULL;
		size_t blen = 0;

		if (log_base && (rc = lb_read_stream(log_base, LB_TCGLOG_MAX_SIZE, &base, &blen))) {
			lb_err("%s: %s", log_base, strerror(-rc));
			goto out;
		}
		rc = lb_measure_log_build(&m, base, blen, 0, &log, &llen);
		free(base);
		if (!rc)
			rc = lb_write_atomic(log_out, log, llen, 0644);
		if (rc) {
			lb_err("%s: %s", log_out, rc == -ENOTSUP ?
			       "the base log's banks are not the TPM's active banks" : strerror(-rc));
			goto out;
		}
	}
	if (acpi && (rc = lb_measure_log_acpi(&m, &ap, err, sizeof(err)))) {
		measure_fail("ACPI log", rc, err);
		goto out;
	}
	if (lock && (rc = lb_measure_lock_platform(&m))) {
		measure_fail("lock platform hierarchy", rc, NULL);
		goto out;
	}
	if (o->json)
		print_events(&m);
	else
		printf("measured %zu events\n", m.n_ev);
	ret = 0;
out:
	free(log);
	lb_measure_close(&m);
	return ret;
}

int tpm_main(int argc, char **argv)
{
	struct opts o = { NULL, NULL, LB_TPMDEV_TIMEOUT_MS, 0 };
	static struct tpm tp;
	char *args[8];
	int n = 0, replay = 0, ret;
	const char *cmd;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--tcp") && i + 1 < argc) {
			o.tcp = argv[++i];
		} else if (!strcmp(a, "--device") && i + 1 < argc) {
			o.device = argv[++i];
		} else if (!strcmp(a, "--timeout") && i + 1 < argc) {
			char *end;
			long v = strtol(argv[++i], &end, 10);
			if (*end || v <= 0 || v > 600000) {
				lb_err("bad timeout: %s", argv[i]);
				return 2;
			}
			o.timeout_ms = v;
		} else if (!strcmp(a, "--json")) {
			o.json = 1;
		} else if (!strcmp(a, "--replay")) {
			replay = 1;
		} else if (!n && (!strcmp(a, "seal-totp") || !strcmp(a, "reseal-totp") ||
				   !strcmp(a, "totp"))) {
			if (o.tcp && o.device)
				return lb_usage("tpm"), 2;
			ret = a[0] == 't' ? cmd_totp(&tp, &o, argc - i - 1, argv + i + 1) :
			      cmd_seal_totp(&tp, &o, a[0] == 'r', argc - i - 1, argv + i + 1);
			tpm_close(&tp);
			return ret;
		} else if (!n && !strcmp(a, "measure")) {
			if (o.tcp && o.device)
				return lb_usage("tpm"), 2;
			return cmd_measure(&o, argc - i - 1, argv + i + 1);
		} else if (a[0] == '-' && a[1] && !(a[1] >= '0' && a[1] <= '9')) {
			lb_err("unknown option: %s", a);
			lb_usage("tpm");
			return 2;
		} else if (n < (int)(sizeof(args) / sizeof(args[0]))) {
			args[n++] = argv[i];
		} else {
			lb_usage("tpm");
			return 2;
		}
	}
	if (!n || (o.tcp && o.device)) {
		lb_usage("tpm");
		return 2;
	}
	cmd = args[0];
	if (!strcmp(cmd, "eventlog")) {
		if (n != 2)
			return lb_usage("tpm"), 2;
		ret = cmd_eventlog(&tp, &o, args[1], replay);
		tpm_close(&tp);
		return ret;
	}
	if (replay)
		return lb_usage("tpm"), 2;
	if ((!strcmp(cmd, "info") && n != 1) || (!strcmp(cmd, "pcrread") && n > 2) ||
	    (!strcmp(cmd, "getrandom") && n != 2) || (!strcmp(cmd, "counter") && n != 3) ||
	    (!strcmp(cmd, "seal") && n != 4) || (!strcmp(cmd, "unseal") && n != 3) ||
	    (!strcmp(cmd, "lock-platform") && n != 1) || (!strcmp(cmd, "extend") && n < 3))
		return lb_usage("tpm"), 2;
	if (strcmp(cmd, "info") && strcmp(cmd, "pcrread") && strcmp(cmd, "getrandom") &&
	    strcmp(cmd, "counter") && strcmp(cmd, "seal") && strcmp(cmd, "unseal") &&
	    strcmp(cmd, "lock-platform") && strcmp(cmd, "extend")) {
		lb_err("unknown command: %s", cmd);
		return 2;
	}
	if (tpm_open(&tp, &o))
		return 1;
	if (!strcmp(cmd, "info"))
		ret = cmd_info(&tp, &o);
	else if (!strcmp(cmd, "pcrread"))
		ret = cmd_pcrread(&tp, &o, n > 1 ? args[1] : NULL);
	else if (!strcmp(cmd, "getrandom"))
		ret = cmd_getrandom(&tp, &o, args[1]);
	else if (!strcmp(cmd, "extend"))
		ret = cmd_extend(&tp, n - 1, args + 1);
	else if (!strcmp(cmd, "counter"))
		ret = cmd_counter(&tp, args[1], args[2]);
	else if (!strcmp(cmd, "seal"))
		ret = cmd_seal(&tp, args[1], args[2], args[3], 0);
	else if (!strcmp(cmd, "unseal"))
		ret = cmd_seal(&tp, args[1], args[2], NULL, 1);
	else
		ret = cmd_lock_platform(&tp);
	tpm_close(&tp);
	return ret;
}
