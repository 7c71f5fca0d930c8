/* JSON output helpers shared by the applets' --json modes. */
#include <stdio.h>
#include <string.h>

#include "json.h"

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	unsigned cp, min;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* A JSON string: quotes, backslash and control characters escaped; bytes
 * that are not valid UTF-8 become \u00XX (the byte as a code point). */
void lb_json_str(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	size_t n = strlen((const char *)s);

	fputc('"', f);
	while (n) {
		size_t k = utf8_len(s, n);

		if (k == 1 && *s >= 0x20 && *s != 0x7f) {
			if (*s == '"' || *s == '\\')
				fputc('\\', f);
			fputc(*s, f);
		} else if (k == 1 && *s == '\n') {
			fputs("\\n", f);
		} else if (k == 1 && *s == '\t') {
			fputs("\\t", f);
		} else if (k == 1 && *s == '\r') {
			fputs("\\r", f);
		} else if (k > 1) {
			fwrite(s, 1, k, f);
		} else {
			fprintf(f, "\\u%04x", *s);
			k = 1;
		}
		s += k;
		n -= k;
	}
	fputc('"', f);
}
