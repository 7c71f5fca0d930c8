/* Test fixtures shared by unit tests of UKIs (test_uki.c, test_measure.c). */
#ifndef LB_TEST_UKI_FIXTURE_H
#define LB_TEST_UKI_FIXTURE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A multi-profile UKI made from the fixture by rewriting its section table
 * (sections 6-12: .sbat .sdmagic .osrel .cmdline .uname .initrd .linux):
 *   base:      .linux (the kernel), .cmdline (the .sbat bytes)
 *   profile 0: .profile (the .osrel bytes), .cmdline (the real one)
 *   profile 1: .profile (the .sdmagic bytes), .initrd, .linux (.uname's)
 * systemd-stub boots profile 0 by default: the base .linux, profile 0's
 * .cmdline, no initrd. */
static uint8_t *multi_profile(const uint8_t *img, size_t n)
{
	static const struct {
		int from;
		const char *name;
	} tab[7] = {
		{ 12, ".linux" }, { 6, ".cmdline" }, { 8, ".profile" }, { 9, ".cmdline" },
		{ 7, ".profile" }, { 11, ".initrd" }, { 10, ".linux" },
	};
	uint8_t *c = malloc(n);
	size_t t = 0;

	if (!c)
		return NULL;
	memcpy(c, img, n);
	for (size_t i = 0; i + 8 < n && i < 4096 && !t; i++)
		if (!memcmp(img + i, ".text\0\0\0", 8))
			t = i;
	if (!t || t + 13 * 40 > n) {
		free(c);
		return NULL;
	}
	for (int k = 0; k < 7; k++) {
		uint8_t *h = c + t + 40 * (6 + k);

		memcpy(h, img + t + 40 * tab[k].from, 40);
		memset(h, 0, 8);
		memcpy(h, tab[k].name, strlen(tab[k].name));
	}
	return c;
}

#endif
