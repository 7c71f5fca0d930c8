/* SBAT: the .sbat CSV parser on what it must refuse, the check of a PE
 * image against minimum generations (the UKI fixture's systemd-stub .sbat),
 * and the policy's `sbat COMPONENT GENERATION` lines. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io.h"
#include "pe.h"
#include "policy.h"
#include "sbat.h"
#include "t.h"

#define UKI "tests/files/uki/debian.efi"

static int parse(const char *s, size_t *n)
{
	struct lb_sbat_entry e[LB_SBAT_MAX_ENTRIES];

	return lb_sbat_parse((const uint8_t *)s, strlen(s), e, LB_SBAT_MAX_ENTRIES, n);
}

static char root[64];

static void write_policy(const char *text)
{
	char p[128];
	FILE *f;

	snprintf(p, sizeof(p), "%s/etc", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/etc/lboot", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/etc/lboot/policy", root);
	f = fopen(p, "w");
	fputs(text, f);
	fclose(f);
}

int main(void)
{
	struct lb_sbat_entry e[LB_SBAT_MAX_ENTRIES];
	uint8_t *img = NULL;
	size_t len = 0, n;
	char err[200];

	TEST("sbat/parse-well-formed") {
		static const char t[] =
			"sbat,1,SBAT Version,sbat,1,https://github.com/rhboot/shim/blob/main/SBAT.md\r\n"
			"\n"
			"grub.debian,4,Debian,grub2,2.06-13,https://tracker.debian.org/pkg/grub2\n"
			"grub,3,Free Software Foundation,grub,2.06,https://www.gnu.org/software/grub/,extra\n"
			"\0garbage after the NUL padding is not read";
		CHECK_INT(lb_sbat_parse((const uint8_t *)t, sizeof(t) - 1, e, LB_SBAT_MAX_ENTRIES, &n), 0);
		CHECK_INT(n, 3);
		CHECK(e[1].name_len == 11 && !memcmp(e[1].name, "grub.debian", 11));
		CHECK_INT(e[1].gen, 4);
		CHECK_INT(e[2].gen, 3);
		/* no final newline */
		CHECK_INT(parse("grub,3,a,b,c,d", &n), 0);
		CHECK_INT(n, 1);
	}
	TEST("sbat/parse-refuses-malformed") {
		static const char *const bad[] = {
			"",                               /* no entry */
			"\n\r\n\n",                       /* still none */
			"grub,3,a,b,c\n",                 /* 5 fields: the spec has 6 */
			",3,a,b,c,d\n",                   /* no component name */
			"grub,,a,b,c,d\n",                /* no generation */
			"grub,3a,a,b,c,d\n",              /* not a number */
			"grub,-1,a,b,c,d\n",
			"grub,+1,a,b,c,d\n",
			"grub, 1,a,b,c,d\n",
			"grub,1234567890,a,b,c,d\n",      /* 10 digits */
			"gr ub,1,a,b,c,d\n",              /* a space in the name */
			"grub,1,a\tb,b,c,d\n",            /* a control byte */
			"grub,1,a,b,c,d\rx\n",            /* a CR inside a line */
			"grub,1,a,b,c,d\nbroken\n",       /* one good line is not enough */
			"0123456789012345678901234567890123456789012345678901234567890123,1,a,b,c,d\n",
		};
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			if (parse(bad[i], &n) != LB_SBAT_MALFORMED) {
				printf("# accepted bad .sbat %zu\n", i);
				CHECK(0);
			}
		/* a 63-byte name is the longest */
		CHECK_INT(parse("012345678901234567890123456789012345678901234567890123456789012,1,a,b,c,d\n", &n), 0);
		/* caps: entries and bytes */
		char *many = malloc(70 * 16 + 1), *big = malloc(LB_SBAT_MAX_SECTION + 2);
		many[0] = 0;
		for (int i = 0; i < LB_SBAT_MAX_ENTRIES; i++)
			strcat(many, "c,1,a,b,c,d\n");
		CHECK_INT(parse(many, &n), 0);
		CHECK_INT(n, LB_SBAT_MAX_ENTRIES);
		strcat(many, "c,1,a,b,c,d\n");
		CHECK_INT(parse(many, &n), LB_SBAT_MALFORMED);
		CHECK_INT(lb_sbat_parse((const uint8_t *)"c,1,a,b,c,d\nc,1,a,b,c,d\n", 24, e, 1, &n),
			  LB_SBAT_MALFORMED);
		memset(big, 'x', LB_SBAT_MAX_SECTION + 1);
		memcpy(big, "c,1,a,b,c,", 10);
		big[LB_SBAT_MAX_SECTION + 1] = 0;
		CHECK_INT(parse(big, &n), LB_SBAT_MALFORMED);
		big[LB_SBAT_MAX_SECTION] = 0;
		CHECK_INT(parse(big, &n), 0);
		free(many);
		free(big);
	}
	TEST("sbat/rule-parse") {
		struct lb_sbat_rule r;
		CHECK_INT(lb_sbat_rule_parse("grub.debian,4", &r), 0);
		CHECK_STR(r.name, "grub.debian");
		CHECK_INT(r.gen, 4);
		CHECK_INT(lb_sbat_rule_parse("shim 4", &r), 0);
		CHECK_STR(r.name, "shim");
		CHECK_INT(lb_sbat_rule_parse("grub", &r), -EINVAL);
		CHECK_INT(lb_sbat_rule_parse("grub,", &r), -EINVAL);
		CHECK_INT(lb_sbat_rule_parse(",4", &r), -EINVAL);
		CHECK_INT(lb_sbat_rule_parse("grub,4,5", &r), -EINVAL);
		CHECK_INT(lb_sbat_rule_parse("grub,0x4", &r), -EINVAL);
	}
	TEST("sbat/uki-check") {
		if (lb_read_path(UKI, 1 << 26, &img, &len)) {
			SKIP("no %s", UKI);
			continue;
		}
		static const struct lb_sbat_rule ok1[] = { { "systemd", 1 }, { "sbat", 1 },
							  { "grub", 99 }, { "system", 9 } };
		static const struct lb_sbat_rule low[] = { { "grub", 99 }, { "systemd", 2 } };
		static const struct lb_sbat_rule low2[] = { { "systemd.debian", 7 } };
		CHECK_INT(lb_sbat_check(img, len, NULL, 0, err, sizeof(err)), 0);
		CHECK_INT(lb_sbat_check(img, len, ok1, 4, err, sizeof(err)), 0);
		CHECK_INT(lb_sbat_check(img, len, low, 2, err, sizeof(err)), LB_SBAT_REVOKED);
		CHECK_STR(err, "SBAT: systemd generation 1 below the policy's minimum 2");
		CHECK_INT(lb_sbat_check(img, len, low2, 1, err, sizeof(err)), LB_SBAT_REVOKED);

		struct lb_pe *pe = malloc(sizeof(*pe));
		const struct lb_pe_section *s;
		CHECK(pe && !lb_pe_parse(img, len, len, pe) && (s = lb_pe_find(pe, ".sbat")));
		/* a malformed .sbat: refused when any rule exists, ignored without */
		uint8_t keep = img[s->raw_off];
		img[s->raw_off] = ',';
		CHECK_INT(lb_sbat_check(img, len, ok1, 1, err, sizeof(err)), LB_SBAT_MALFORMED);
		CHECK_STR(err, "SBAT: malformed .sbat section");
		CHECK_INT(lb_sbat_check(img, len, NULL, 0, err, sizeof(err)), 0);
		img[s->raw_off] = keep;
		/* an image without .sbat has nothing to compare: it passes */
		size_t hdr = (size_t)(s - pe->sec);
		size_t at = pe->headers_end - (pe->n_sections - hdr) * 40;
		CHECK(!memcmp(img + at, ".sbat", 5));
		img[at + 4] = 'x';
		CHECK_INT(lb_sbat_check(img, len, low, 2, err, sizeof(err)), 0);
		img[at + 4] = 't';
		/* not a PE image */
		CHECK_INT(lb_sbat_check(img + 1, len - 1, low, 2, err, sizeof(err)), LB_SBAT_MALFORMED);
		free(pe);
	}
	TEST("sbat/policy-lines") {
		struct lb_policy *pol = malloc(sizeof(*pol));
		snprintf(root, sizeof(root), "/tmp/lboot-sbat-XXXXXX");
		CHECK(mkdtemp(root) != NULL);
		write_policy("verify enforce\nsbat grub.debian 4\nsbat shim 4\n");
		lb_policy_load(root, pol);
		CHECK_STR(pol->err, "");
		CHECK_INT(pol->n_sbat, 2);
		CHECK_STR(pol->sbat[0].name, "grub.debian");
		CHECK_INT(pol->sbat[1].gen, 4);
		lb_policy_free(pol);
		static const char *const bad[] = {
			"verify warn\nsbat grub\n", "verify warn\nsbat grub x\n",
			"verify warn\nsbat grub,4\n", "verify warn\nsbat grub 4 5\n",
			"verify warn\nsbat grub 4\nsbat grub 5\n",
		};
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			write_policy(bad[i]);
			lb_policy_load(root, pol);
			CHECK(strstr(pol->err, "sbat") != NULL);
			CHECK_INT(pol->mode, LB_VERIFY_ENFORCE);
			lb_policy_free(pol);
		}
		/* a full policy: 256 revoke-pe, 256 revoke-x509, 64 sbat lines
		 * (more than the old 4 KiB file cap) */
		{
			char *big = malloc(64 * 1024), *q = big;
			q += sprintf(q, "verify enforce\n");
			for (int i = 0; i < 256; i++)
				q += sprintf(q, "revoke-pe %064x\nrevoke-x509 %064x\n", i, i);
			for (int i = 0; i < 64; i++)
				q += sprintf(q, "sbat c%d %d\n", i, i + 1);
			write_policy(big);
			lb_policy_load(root, pol);
			CHECK_STR(pol->err, "");
			CHECK_INT(pol->n_revoke_pe, 256);
			CHECK_INT(pol->n_sbat, 64);
			CHECK_INT(pol->sbat[63].gen, 64);
			lb_policy_free(pol);
			strcpy(q, "sbat one-more 1\n");
			write_policy(big);
			lb_policy_load(root, pol);
			CHECK(strstr(pol->err, "too many sbat") != NULL);
			lb_policy_free(pol);
			free(big);
		}
		/* the image check with the policy's rules */
		write_policy("verify enforce\nsbat systemd 2\n");
		lb_policy_load(root, pol);
		if (img)
			CHECK_INT(lb_sbat_check(img, len, pol->sbat, pol->n_sbat, err, sizeof(err)),
				  LB_SBAT_REVOKED);
		lb_policy_free(pol);
		char p[128];
		snprintf(p, sizeof(p), "%s/etc/lboot/policy", root);
		unlink(p);
		snprintf(p, sizeof(p), "%s/etc/lboot", root);
		rmdir(p);
		snprintf(p, sizeof(p), "%s/etc", root);
		rmdir(p);
		rmdir(root);
		free(pol);
	}
	free(img);
	return t_done();
}
