/* PXELINUX config probing: see pxelinux.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pxelinux.h"

#define MAX_PATH_LEN 1024

static int add(struct lb_pxelinux_paths *o, const char *prefix,
	       const char *mid, const char *name)
{
	size_t n = strlen(prefix) + strlen(mid) + strlen(name);
	char *p;

	if (o->n >= LB_PXELINUX_MAX_PATHS)
		return -E2BIG;
	if (n > MAX_PATH_LEN)
		return -ENAMETOOLONG;
	if (!(p = malloc(n + 1)))
		return -ENOMEM;
	snprintf(p, n + 1, "%s%s%s", prefix, mid, name);
	o->v[o->n++] = p;
	return 0;
}

int lb_pxelinux_bootif(const struct lb_pxelinux_client *c, char *buf,
		       size_t size)
{
	size_t need = 7 + 2 + 3 * c->mac_len;
	int n;

	if (!c->mac_len || c->mac_len > LB_PXELINUX_MAX_HWADDR)
		return -EINVAL;
	if (size < need + 1)
		return -ENOSPC;
	n = snprintf(buf, size, "BOOTIF=%02x", c->hwtype);
	for (size_t i = 0; i < c->mac_len; i++)
		n += snprintf(buf + n, size - (size_t)n, "-%02x", c->mac[i]);
	return n;
}

int lb_pxelinux_sysuuid(const struct lb_pxelinux_client *c, char *buf,
			size_t size)
{
	const uint8_t *u = c->uuid;
	int n;

	if (!c->has_uuid)
		return -ENOENT;
	if (size < 8 + 36 + 1)
		return -ENOSPC;
	n = snprintf(buf, size,
		     "SYSUUID=%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		     "%02x%02x%02x%02x%02x%02x",
		     u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		     u[10], u[11], u[12], u[13], u[14], u[15]);
	return n;
}

int lb_pxelinux_ipappend1(const uint8_t cl[4], const uint8_t sv[4],
			  const uint8_t gw[4], const uint8_t nm[4],
			  char *buf, size_t size)
{
	int n = snprintf(buf, size, "ip=%u.%u.%u.%u:%u.%u.%u.%u:%u.%u.%u.%u:"
			 "%u.%u.%u.%u", cl[0], cl[1], cl[2], cl[3], sv[0], sv[1],
			 sv[2], sv[3], gw[0], gw[1], gw[2], gw[3], nm[0], nm[1],
			 nm[2], nm[3]);
	if (n < 0 || (size_t)n >= size)
		return -ENOSPC;
	return n;
}

void lb_pxelinux_paths_free(struct lb_pxelinux_paths *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i]);
	p->n = 0;
}

int lb_pxelinux_paths(const struct lb_pxelinux_client *c,
		      struct lb_pxelinux_paths *out)
{
	char prefix[MAX_PATH_LEN + 1] = "", name[64];
	int rc = 0;

	out->n = 0;
	if (c->path_prefix) {
		if (strlen(c->path_prefix) > MAX_PATH_LEN)
			return -ENAMETOOLONG;
		strcpy(prefix, c->path_prefix);
	} else if (c->boot_file) {
		const char *sl = strrchr(c->boot_file, '/');
		if (sl) {
			size_t n = (size_t)(sl - c->boot_file) + 1;
			if (n > MAX_PATH_LEN)
				return -ENAMETOOLONG;
			memcpy(prefix, c->boot_file, n);
			prefix[n] = 0;
		}
	}
	if (c->config_file) {
		/* tried first; when it is missing pxelinux goes on with the
		 * usual search (measured: syslinux 6.04, see the fixture) */
		if (!*c->config_file)
			return -EINVAL;
		if (c->config_file[0] == '/' || strstr(c->config_file, "://"))
			rc = add(out, "", "", c->config_file);
		else
			rc = add(out, prefix, "", c->config_file);
		if (rc < 0)
			goto done;
	}
	if (c->has_uuid) {
		if ((rc = lb_pxelinux_sysuuid(c, name, sizeof(name))) < 0 ||
		    (rc = add(out, prefix, "pxelinux.cfg/", name + 8)) < 0)
			goto done;
	}
	if (c->mac_len) {
		if ((rc = lb_pxelinux_bootif(c, name, sizeof(name))) < 0 ||
		    (rc = add(out, prefix, "pxelinux.cfg/", name + 7)) < 0)
			goto done;
	}
	if (c->has_ip) {
		snprintf(name, sizeof(name), "%02X%02X%02X%02X", c->ip[0],
			 c->ip[1], c->ip[2], c->ip[3]);
		for (int len = 8; len > 0; len--) {
			name[len] = 0;
			if ((rc = add(out, prefix, "pxelinux.cfg/", name)) < 0)
				goto done;
		}
	}
	rc = add(out, prefix, "pxelinux.cfg/", "default");
done:
	if (rc < 0) {
		lb_pxelinux_paths_free(out);
		return rc;
	}
	return 0;
}

int lb_pxelinux_uuid_parse(const char *s, int smbios_order, uint8_t out[16])
{
	uint8_t u[16];
	size_t n = 0;

	for (; *s && n < 16; s++) {
		int hi, lo;
		if (*s == '-')
			continue;
		hi = (s[0] >= '0' && s[0] <= '9') ? s[0] - '0' :
		     ((s[0] | 0x20) >= 'a' && (s[0] | 0x20) <= 'f') ? (s[0] | 0x20) - 'a' + 10 : -1;
		lo = !s[1] ? -1 : (s[1] >= '0' && s[1] <= '9') ? s[1] - '0' :
		     ((s[1] | 0x20) >= 'a' && (s[1] | 0x20) <= 'f') ? (s[1] | 0x20) - 'a' + 10 : -1;
		if (hi < 0 || lo < 0)
			return -EINVAL;
		u[n++] = (uint8_t)(hi << 4 | lo);
		s++;
	}
	while (*s == '\n' || *s == ' ')
		s++;
	if (n != 16 || *s)
		return -EINVAL;
	if (smbios_order) {
		static const int map[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10,
					     11, 12, 13, 14, 15 };
		for (int i = 0; i < 16; i++)
			out[i] = u[map[i]];
	} else {
		memcpy(out, u, 16);
	}
	return 0;
}
