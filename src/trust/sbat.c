/* SBAT: the .sbat section of a PE image against the owner's minimum
 * generations (sbat.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pe.h"
#include "sbat.h"

static int name_byte(uint8_t c)
{
	return c > 0x20 && c < 0x7f && c != ',';
}

/* 1 to 9 decimal digits, exactly the span */
static int parse_gen(const uint8_t *p, size_t n, uint32_t *out)
{
	uint32_t v = 0;

	if (!n || n > 9)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -1;
		v = v * 10 + (uint32_t)(p[i] - '0');
	}
	*out = v;
	return 0;
}

/* one line (no "\n"): at least 6 comma-separated fields */
static int parse_line(const uint8_t *p, size_t n, struct lb_sbat_entry *e)
{
	size_t comma[5], nc = 0;

	for (size_t i = 0; i < n; i++) {
		if (p[i] < 0x20 || p[i] == 0x7f)
			return -1;
		if (p[i] == ',' && nc < 5)
			comma[nc++] = i;
	}
	if (nc < 5)
		return -1;
	if (!comma[0] || comma[0] > LB_SBAT_MAX_NAME)
		return -1;
	for (size_t i = 0; i < comma[0]; i++)
		if (!name_byte(p[i]))
			return -1;
	if (parse_gen(p + comma[0] + 1, comma[1] - comma[0] - 1, &e->gen))
		return -1;
	e->name = (const char *)p;
	e->name_len = comma[0];
	return 0;
}

int lb_sbat_parse(const uint8_t *text, size_t len, struct lb_sbat_entry *out,
		  size_t max, size_t *n)
{
	const uint8_t *nul = memchr(text, 0, len);
	size_t at = 0;

	*n = 0;
	if (nul)
		len = (size_t)(nul - text);
	if (len > LB_SBAT_MAX_SECTION)
		return LB_SBAT_MALFORMED;
	if (max > LB_SBAT_MAX_ENTRIES)
		max = LB_SBAT_MAX_ENTRIES;
	while (at < len) {
		const uint8_t *nl = memchr(text + at, '\n', len - at);
		size_t l = nl ? (size_t)(nl - (text + at)) : len - at;
		size_t next = at + l + (nl ? 1 : 0);

		if (l && text[at + l - 1] == '\r')
			l--;
		if (l) {
			if (*n >= max || parse_line(text + at, l, &out[*n]))
				return LB_SBAT_MALFORMED;
			(*n)++;
		}
		at = next;
	}
	return *n ? 0 : LB_SBAT_MALFORMED;
}

int lb_sbat_check(const uint8_t *img, size_t len, const struct lb_sbat_rule *rules,
		  size_t n_rules, char *err, size_t errsz)
{
	struct lb_sbat_entry ent[LB_SBAT_MAX_ENTRIES];
	const struct lb_pe_section *s;
	struct lb_pe *pe;
	uint64_t off, slen;
	size_t n;
	int rc = 0;

	if (errsz)
		err[0] = 0;
	if (!n_rules)
		return 0;
	pe = malloc(sizeof(*pe));
	if (!pe)
		return -ENOMEM;
	if (lb_pe_parse(img, len, len, pe)) {
		snprintf(err, errsz, "SBAT: not a well-formed PE image");
		rc = LB_SBAT_MALFORMED;
		goto out;
	}
	if (!(s = lb_pe_find(pe, ".sbat")))
		goto out; /* nothing to compare */
	lb_pe_span(s, &off, &slen);
	if (off > len || slen > len - off) {
		snprintf(err, errsz, "SBAT: .sbat outside the file");
		rc = LB_SBAT_MALFORMED;
		goto out;
	}
	if (lb_sbat_parse(img + off, (size_t)slen, ent, LB_SBAT_MAX_ENTRIES, &n)) {
		snprintf(err, errsz, "SBAT: malformed .sbat section");
		rc = LB_SBAT_MALFORMED;
		goto out;
	}
	for (size_t i = 0; i < n && !rc; i++)
		for (size_t j = 0; j < n_rules; j++) {
			if (strlen(rules[j].name) != ent[i].name_len ||
			    memcmp(rules[j].name, ent[i].name, ent[i].name_len) ||
			    ent[i].gen >= rules[j].gen)
				continue;
			snprintf(err, errsz, "SBAT: %s generation %u below the policy's minimum %u",
				 rules[j].name, (unsigned)ent[i].gen, (unsigned)rules[j].gen);
			rc = LB_SBAT_REVOKED;
			break;
		}
out:
	free(pe);
	return rc;
}

int lb_sbat_rule_parse(const char *s, struct lb_sbat_rule *r)
{
	size_t l = strcspn(s, " ,");

	if (!l || l > LB_SBAT_MAX_NAME || !s[l])
		return -EINVAL;
	for (size_t i = 0; i < l; i++)
		if (!name_byte((uint8_t)s[i]))
			return -EINVAL;
	if (parse_gen((const uint8_t *)s + l + 1, strlen(s + l + 1), &r->gen))
		return -EINVAL;
	memcpy(r->name, s, l);
	r->name[l] = 0;
	return 0;
}
