/*
 * The signed boot manifest: binds one boot entry's id, kernel digest,
 * initrd digests in order, exact command line, a version (rollback floor)
 * and an expiry, so that individually valid old and new files cannot be
 * mixed. Text, one key per line, canonical (one spelling per content, so
 * the signed bytes have one meaning). Signed with `minisign -S` beside it
 * (MANIFEST.minisig). docs/verified-boot.md describes it for users:
 *
 *   lboot-manifest 1
 *   entry debian-6.1.0-57-amd64
 *   version 7
 *   expires 2027-06-01T00:00:00Z
 *   kernel sha256:<64 lower-case hex>
 *   kernel-authenticode sha256:<64 hex>     (optional; PE kernels)
 *   initrd sha256:<64 hex>                  (0..16 lines, in boot order)
 *   cmdline root=UUID=... ro quiet          (the rest of the line, exactly)
 *
 * Every line ends with "\n"; no "\r", NUL, tab or empty line. The keys
 * come in that order; unknown and duplicate keys are refused, as is
 * anything over the caps.
 */
#ifndef LB_MANIFEST_H
#define LB_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#define LB_MANIFEST_MAGIC       "lboot-manifest 1"
#define LB_MANIFEST_MAX_FILE    16384
#define LB_MANIFEST_MAX_ID      255
#define LB_MANIFEST_MAX_INITRDS 16
#define LB_MANIFEST_MAX_CMDLINE 4096

/* check results (negative errno), named by lb_manifest_reason() */
#define LB_MANIFEST_CHANGED     (-EBADMSG)     /* a file or the cmdline changed after signing */
#define LB_MANIFEST_OTHER_ENTRY (-ESRCH)       /* the manifest is for another entry */
#define LB_MANIFEST_EXPIRED     (-EKEYEXPIRED) /* expires <= now */
#define LB_MANIFEST_ROLLBACK    (-ESTALE)      /* version below the floor */
#define LB_MANIFEST_MALFORMED   (-EINVAL)
#define LB_MANIFEST_TOO_BIG     (-EFBIG)

struct lb_manifest {
	char entry[LB_MANIFEST_MAX_ID + 1];
	uint64_t version;
	int64_t expires;                 /* seconds since 1970 UTC */
	uint8_t kernel[32];              /* SHA-256 of the kernel file */
	int has_authenticode;
	uint8_t kernel_authenticode[32]; /* its Authenticode SHA-256 */
	size_t n_initrds;
	uint8_t initrd[LB_MANIFEST_MAX_INITRDS][32];
	size_t cmdline_len;
	char cmdline[LB_MANIFEST_MAX_CMDLINE + 1];
};

/* What an entry about to boot has: digests of its sealed blobs. */
struct lb_manifest_boot {
	const char *entry;
	const uint8_t *kernel;              /* SHA-256, 32 bytes */
	const uint8_t *kernel_authenticode; /* NULL when not a PE image */
	const uint8_t (*initrd)[32];        /* n_initrds SHA-256s, boot order */
	size_t n_initrds;
	const char *cmdline;
};

/* Parse; on error a one-line reason ("line 3: duplicate key 'kernel'")
 * goes to err (errsz bytes; may be NULL). */
int lb_manifest_parse(const uint8_t *buf, size_t len, struct lb_manifest *m,
		      char *err, size_t errsz);

/* The canonical text of m (malloc'd, NUL-terminated); -EINVAL when m
 * breaks a rule (cmdline with a newline, an id with a space, caps). */
int lb_manifest_format(const struct lb_manifest *m, char **out, size_t *len);

/*
 * Does the entry match the manifest? Checks in order: the entry id
 * (OTHER_ENTRY), version >= floor (ROLLBACK), now < expires (EXPIRED; the
 * caller passes max(clock, build time) as now), then the kernel, the
 * Authenticode digest when the manifest has one, the number and digests
 * of the initrds and the command line (CHANGED). *what (may be NULL) names
 * the item that failed: "entry", "version", "expires", "kernel", "initrd 2",
 * "initrds", "cmdline".
 */
int lb_manifest_check(const struct lb_manifest *m,
		      const struct lb_manifest_boot *b, int64_t now,
		      uint64_t version_floor, const char **what);

const char *lb_manifest_reason(int rc);

/* "YYYY-MM-DDTHH:MM:SSZ" <-> seconds since 1970 (UTC, years 1970..9999).
 * lb_utc_parse also takes "YYYY-MM-DD" (midnight) when date_only_ok. */
int lb_utc_parse(const char *s, size_t len, int date_only_ok, int64_t *t);
void lb_utc_format(int64_t t, char out[21]);

#endif
