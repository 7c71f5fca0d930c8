/* efivarfs payloads and UCS-2 strings (efivar.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "efivar.h"

int lb_efivar_parse(const uint8_t *buf, size_t len, uint32_t *attr,
		    const uint8_t **val, size_t *vlen)
{
	if (!buf || len < 4)
		return -EINVAL;
	if (len - 4 > LB_EFIVAR_MAX)
		return -EFBIG;
	*attr = (uint32_t)buf[0] | (uint32_t)buf[1] << 8 | (uint32_t)buf[2] << 16 |
		(uint32_t)buf[3] << 24;
	*val = buf + 4;
	*vlen = len - 4;
	return 0;
}

int lb_efivar_build(uint32_t attr, const void *val, size_t vlen,
		    uint8_t *out, size_t outsz, size_t *outlen)
{
	if (vlen > LB_EFIVAR_MAX)
		return -EFBIG;
	if (outsz < 4 || outsz - 4 < vlen)
		return -ENOSPC;
	out[0] = (uint8_t)attr;
	out[1] = (uint8_t)(attr >> 8);
	out[2] = (uint8_t)(attr >> 16);
	out[3] = (uint8_t)(attr >> 24);
	if (vlen)
		memcpy(out + 4, val, vlen);
	*outlen = 4 + vlen;
	return 0;
}

static int put_utf8(uint32_t c, char *out, size_t outsz, size_t *n)
{
	size_t k = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;

	if (outsz - *n < k + 1) /* room for the NUL too */
		return -ENOSPC;
	switch (k) {
	case 1:
		out[(*n)++] = (char)c;
		break;
	case 2:
		out[(*n)++] = (char)(0xc0 | c >> 6);
		out[(*n)++] = (char)(0x80 | (c & 0x3f));
		break;
	case 3:
		out[(*n)++] = (char)(0xe0 | c >> 12);
		out[(*n)++] = (char)(0x80 | ((c >> 6) & 0x3f));
		out[(*n)++] = (char)(0x80 | (c & 0x3f));
		break;
	default:
		out[(*n)++] = (char)(0xf0 | c >> 18);
		out[(*n)++] = (char)(0x80 | ((c >> 12) & 0x3f));
		out[(*n)++] = (char)(0x80 | ((c >> 6) & 0x3f));
		out[(*n)++] = (char)(0x80 | (c & 0x3f));
		break;
	}
	return 0;
}

int lb_ucs2_to_utf8(const uint8_t *val, size_t vlen, char *out, size_t outsz)
{
	size_t n = 0;
	int r;

	if (!out || !outsz)
		return -ENOSPC;
	if (vlen & 1)
		return -EILSEQ;
	for (size_t i = 0; i + 1 < vlen; i += 2) {
		uint32_t c = (uint32_t)val[i] | (uint32_t)val[i + 1] << 8;

		if (!c)
			break;
		if (c >= 0xdc00 && c <= 0xdfff)
			return -EILSEQ;
		if (c >= 0xd800 && c <= 0xdbff) {
			uint32_t lo;

			if (i + 3 >= vlen)
				return -EILSEQ;
			lo = (uint32_t)val[i + 2] | (uint32_t)val[i + 3] << 8;
			if (lo < 0xdc00 || lo > 0xdfff)
				return -EILSEQ;
			c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
			i += 2;
		}
		if ((r = put_utf8(c, out, outsz, &n)))
			return r;
	}
	out[n] = 0;
	return 0;
}

/* One UTF-8 sequence at s: its code point and length; -EILSEQ. */
static int get_utf8(const unsigned char *s, uint32_t *cp, size_t *len)
{
	uint32_t c = s[0], min;
	size_t k;

	if (c < 0x80) {
		*cp = c;
		*len = 1;
		return 0;
	}
	if ((c & 0xe0) == 0xc0) {
		k = 2;
		c &= 0x1f;
		min = 0x80;
	} else if ((c & 0xf0) == 0xe0) {
		k = 3;
		c &= 0x0f;
		min = 0x800;
	} else if ((c & 0xf8) == 0xf0) {
		k = 4;
		c &= 0x07;
		min = 0x10000;
	} else {
		return -EILSEQ;
	}
	for (size_t i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80) /* also stops at the NUL */
			return -EILSEQ;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return -EILSEQ;
	*cp = c;
	*len = k;
	return 0;
}

int lb_utf8_to_ucs2(const char *s, uint8_t *out, size_t outsz, size_t *outlen)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;

	for (;;) {
		uint32_t c;
		size_t k;
		int r;

		if (!*p) {
			c = 0;
			k = 0;
		} else if ((r = get_utf8(p, &c, &k))) {
			return r;
		}
		if (c > 0xffff)
			return -EILSEQ; /* UCS-2: the BMP only */
		if (outsz - n < 2 || outsz < n)
			return -ENOSPC;
		out[n++] = (uint8_t)c;
		out[n++] = (uint8_t)(c >> 8);
		if (!c)
			break;
		p += k;
	}
	*outlen = n;
	return 0;
}

static int is_guid(const char *g)
{
	static const char form[] = "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";

	if (strlen(g) != sizeof(form) - 1)
		return 0;
	for (size_t i = 0; form[i]; i++) {
		char c = g[i];
		if (form[i] == '-' ? c != '-' :
		    !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
			return 0;
	}
	return 1;
}

int lb_efivar_filename(char *out, size_t outsz, const char *name, const char *guid)
{
	int n;

	if (!name || !*name || strchr(name, '/') || !guid || !is_guid(guid))
		return -EINVAL;
	n = snprintf(out, outsz, "%s-%s", name, guid);
	if (n < 0 || (size_t)n >= outsz)
		return -ENOSPC;
	return 0;
}
