/*
 * SBAT (shim's Secure Boot Advanced Targeting, rhboot/shim SBAT.md): a PE
 * image's `.sbat` section is CSV text, one line per component it is built
 * from: component_name,component_generation,vendor_name,
 * vendor_package_name,vendor_version,vendor_url. A vendor raises a
 * component's generation when it fixes a security bug; the owner's minimum
 * generations (the policy's `sbat COMPONENT GENERATION` lines, shim's
 * SbatLevel role) refuse every older image at once, whoever signed it.
 * The section is hostile input: caps on its size and lines, every length
 * checked. Negative errno, one meaning each.
 */
#ifndef LB_SBAT_H
#define LB_SBAT_H

#include <stddef.h>
#include <stdint.h>

#define LB_SBAT_MALFORMED (-EINVAL)      /* .sbat not well-formed CSV as the spec says */
#define LB_SBAT_REVOKED   (-EKEYREVOKED) /* a component's generation below the minimum */

#define LB_SBAT_MAX_SECTION 16384 /* bytes of .sbat text (real ones: < 1 KiB) */
#define LB_SBAT_MAX_ENTRIES 64
#define LB_SBAT_MAX_NAME    63    /* a component name's bytes */
#define LB_SBAT_MAX_GEN     999999999u

/* one line of .sbat (name points into the section) */
struct lb_sbat_entry {
	const char *name;
	size_t name_len;
	uint32_t gen;
};

/* an owner's minimum: images naming `name` need gen >= this */
struct lb_sbat_rule {
	char name[LB_SBAT_MAX_NAME + 1];
	uint32_t gen;
};

/*
 * Parse .sbat text (len bytes; it ends at the first NUL, the section's
 * padding). Lines end in "\n" (a "\r" before it is dropped), empty lines
 * are skipped; each line needs at least the spec's 6 fields (as shim's
 * parse_sbat_section), a non-empty component name of at most 63 printable
 * ASCII bytes without spaces, and a generation of 1 to 9 decimal digits;
 * no control byte anywhere (the vendor fields may hold spaces and UTF-8).
 * At most `max` entries (and
 * LB_SBAT_MAX_ENTRIES). 0 with *n set, or LB_SBAT_MALFORMED (also for no
 * entry at all).
 */
int lb_sbat_parse(const uint8_t *text, size_t len, struct lb_sbat_entry *out,
		  size_t max, size_t *n);

/*
 * Check the PE image's .sbat against the rules (as shim's verify_sbat: an
 * entry whose name equals a rule's, case-sensitive, with a lower
 * generation refuses the image; names without a rule pass). No rules: 0
 * without looking. An image without a .sbat section passes (nothing to
 * compare: most kernels carry none; the section is inside the Authenticode
 * digest, so it cannot be stripped from a signed image). A .sbat that does
 * not parse, or an image whose headers do not, is LB_SBAT_MALFORMED. err
 * gets one line on refusal.
 */
int lb_sbat_check(const uint8_t *img, size_t len, const struct lb_sbat_rule *rules,
		  size_t n_rules, char *err, size_t errsz);

/* "COMPONENT GENERATION" (policy) or "COMPONENT,GENERATION" (command
 * line): a rule. -EINVAL when the name or number is not as above. */
int lb_sbat_rule_parse(const char *s, struct lb_sbat_rule *r);

#endif
