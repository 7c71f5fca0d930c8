/* PXELINUX config probing order, against the order syslinux documents
 * (doc/pxelinux.txt) and, as a fixture, the order a real pxelinux.0 asked a
 * TFTP server for (tests/files/pxelinux/, see its README). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pxelinux.h"
#include "t.h"

static const struct lb_pxelinux_client doc_client = {
	/* the example of syslinux's doc/pxelinux.txt */
	.hwtype = 1,
	.mac = { 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd }, .mac_len = 6,
	.uuid = { 0xb8, 0x94, 0x59, 0x08, 0xd6, 0xa6, 0x41, 0xa9, 0x61, 0x1d,
		  0x74, 0xa6, 0xab, 0x80, 0xb8, 0x3d }, .has_uuid = 1,
	.ip = { 192, 168, 2, 91 }, .has_ip = 1,
	.boot_file = "/mybootdir/pxelinux.0",
};

static const char *const doc_order[] = {
	"/mybootdir/pxelinux.cfg/b8945908-d6a6-41a9-611d-74a6ab80b83d",
	"/mybootdir/pxelinux.cfg/01-88-99-aa-bb-cc-dd",
	"/mybootdir/pxelinux.cfg/C0A8025B",
	"/mybootdir/pxelinux.cfg/C0A8025",
	"/mybootdir/pxelinux.cfg/C0A802",
	"/mybootdir/pxelinux.cfg/C0A80",
	"/mybootdir/pxelinux.cfg/C0A8",
	"/mybootdir/pxelinux.cfg/C0A",
	"/mybootdir/pxelinux.cfg/C0",
	"/mybootdir/pxelinux.cfg/C",
	"/mybootdir/pxelinux.cfg/default",
	NULL,
};

static void check_paths(const struct lb_pxelinux_paths *p,
			const char *const *want)
{
	size_t n = 0;
	while (want[n])
		n++;
	CHECK_INT(p->n, n);
	for (size_t i = 0; i < n && i < p->n; i++)
		CHECK_STR(p->v[i], want[i]);
}

/* Lines of a fixture file (one path a line), NULL-terminated. */
static char **read_lines(const char *name)
{
	char path[512], line[512];
	snprintf(path, sizeof(path), "%s/pxelinux/%s", t_files(), name);
	FILE *f = fopen(path, "r");
	char **v = calloc(64, sizeof(*v));
	size_t n = 0;
	if (!f)
		return v;
	while (n < 63 && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = 0;
		if (line[0] && line[0] != '#')
			v[n++] = strdup(line);
	}
	fclose(f);
	return v;
}

int main(void)
{
	TEST("documented-order") {
		struct lb_pxelinux_paths p = { 0 };
		CHECK_INT(lb_pxelinux_paths(&doc_client, &p), 0);
		check_paths(&p, doc_order);
		lb_pxelinux_paths_free(&p);
	}
	TEST("no-uuid-no-ip") {
		struct lb_pxelinux_client c = doc_client;
		struct lb_pxelinux_paths p = { 0 };
		c.has_uuid = 0;
		c.has_ip = 0;
		c.boot_file = "pxelinux.0"; /* no directory: the TFTP root */
		static const char *const want[] = {
			"pxelinux.cfg/01-88-99-aa-bb-cc-dd", "pxelinux.cfg/default", NULL };
		CHECK_INT(lb_pxelinux_paths(&c, &p), 0);
		check_paths(&p, want);
		lb_pxelinux_paths_free(&p);
	}
	TEST("option-209-first") {
		struct lb_pxelinux_client c = doc_client;
		struct lb_pxelinux_paths p = { 0 };
		c.config_file = "configs/node7.cfg";
		CHECK_INT(lb_pxelinux_paths(&c, &p), 0);
		CHECK_INT(p.n, 12);
		if (p.n == 12) {
			CHECK_STR(p.v[0], "/mybootdir/configs/node7.cfg");
			check_paths(&(struct lb_pxelinux_paths){ .v = { p.v[1], p.v[2],
				p.v[3], p.v[4], p.v[5], p.v[6], p.v[7], p.v[8], p.v[9],
				p.v[10], p.v[11] }, .n = 11 }, doc_order);
		}
		lb_pxelinux_paths_free(&p);
		c.config_file = "/abs/node7.cfg";
		CHECK_INT(lb_pxelinux_paths(&c, &p), 0);
		CHECK(p.n && !strcmp(p.v[0], "/abs/node7.cfg"));
		lb_pxelinux_paths_free(&p);
		c.config_file = "";
		CHECK_INT(lb_pxelinux_paths(&c, &p), -EINVAL);
	}
	TEST("option-210-prefix") {
		struct lb_pxelinux_client c = doc_client;
		struct lb_pxelinux_paths p = { 0 };
		c.has_uuid = 0;
		c.path_prefix = "http://10.0.0.1/boot/";
		CHECK_INT(lb_pxelinux_paths(&c, &p), 0);
		CHECK_INT(p.n, 10);
		if (p.n == 10) {
			CHECK_STR(p.v[0], "http://10.0.0.1/boot/pxelinux.cfg/01-88-99-aa-bb-cc-dd");
			CHECK_STR(p.v[1], "http://10.0.0.1/boot/pxelinux.cfg/C0A8025B");
			CHECK_STR(p.v[9], "http://10.0.0.1/boot/pxelinux.cfg/default");
		}
		lb_pxelinux_paths_free(&p);
		/* 209 relative to the 210 prefix */
		c.config_file = "node.cfg";
		CHECK_INT(lb_pxelinux_paths(&c, &p), 0);
		CHECK_INT(p.n, 11);
		if (p.n)
			CHECK_STR(p.v[0], "http://10.0.0.1/boot/node.cfg");
		lb_pxelinux_paths_free(&p);
	}
	TEST("uuid-parse") {
		uint8_t u[16];
		static const uint8_t wire[16] = { 0x3c, 0x4b, 0x1e, 0x5b, 0x55, 0xaa,
			0x3e, 0x4d, 0x8c, 0x1b, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc };
		CHECK_INT(lb_pxelinux_uuid_parse("5b1e4b3c-aa55-4d3e-8c1b-123456789abc\n",
						 1, u), 0);
		CHECK(!memcmp(u, wire, 16));
		CHECK_INT(lb_pxelinux_uuid_parse("5B1E4B3C-AA55-4D3E-8C1B-123456789ABC",
						 0, u), 0);
		CHECK(u[0] == 0x5b && u[3] == 0x3c && u[15] == 0xbc);
		CHECK_INT(lb_pxelinux_uuid_parse("5b1e4b3c-aa55-4d3e-8c1b-123456789a", 0, u),
			  -EINVAL);
		CHECK_INT(lb_pxelinux_uuid_parse("5b1e4b3c-aa55-4d3e-8c1b-123456789abcd", 0, u),
			  -EINVAL);
		CHECK_INT(lb_pxelinux_uuid_parse("xb1e4b3c-aa55-4d3e-8c1b-123456789abc", 0, u),
			  -EINVAL);
	}
	TEST("append-strings") {
		char buf[128];
		CHECK_INT(lb_pxelinux_bootif(&doc_client, buf, sizeof(buf)), 27);
		CHECK_STR(buf, "BOOTIF=01-88-99-aa-bb-cc-dd");
		CHECK_INT(lb_pxelinux_bootif(&doc_client, buf, 27), -ENOSPC);
		CHECK(lb_pxelinux_sysuuid(&doc_client, buf, sizeof(buf)) > 0);
		CHECK_STR(buf, "SYSUUID=b8945908-d6a6-41a9-611d-74a6ab80b83d");
		const uint8_t cl[4] = { 10, 0, 2, 15 }, sv[4] = { 10, 0, 2, 2 },
			gw[4] = { 10, 0, 2, 2 }, nm[4] = { 255, 255, 255, 0 };
		CHECK(lb_pxelinux_ipappend1(cl, sv, gw, nm, buf, sizeof(buf)) > 0);
		CHECK_STR(buf, "ip=10.0.2.15:10.0.2.2:10.0.2.2:255.255.255.0");
		struct lb_pxelinux_client none = { 0 };
		CHECK_INT(lb_pxelinux_bootif(&none, buf, sizeof(buf)), -EINVAL);
		CHECK_INT(lb_pxelinux_sysuuid(&none, buf, sizeof(buf)), -ENOENT);
	}
	/* Recorded from Debian's pxelinux.0 (syslinux 6.04) under SeaBIOS with
	 * dnsmasq's TFTP log (tests/files/pxelinux/record.sh): what it asked
	 * for, in order, up to the first file that existed (default, or
	 * node.cfg for the 209 case). */
	static const struct { const char *dir, *o209, *o210; } real[] = {
		{ "plain", NULL, NULL },
		{ "opt209", "node.cfg", NULL },
		{ "opt209-missing", "missing.cfg", NULL },
		{ "opt210", NULL, "alt/" },
	};
	for (size_t k = 0; k < sizeof(real) / sizeof(real[0]); k++) {
		char name[128], f1[160], f2[160];
		snprintf(name, sizeof(name), "real-pxelinux-%s", real[k].dir);
		snprintf(f1, sizeof(f1), "%s/order.txt", real[k].dir);
		snprintf(f2, sizeof(f2), "%s/client.txt", real[k].dir);
		TEST(name) {
			char **want = read_lines(f1), **cl = read_lines(f2);
			struct lb_pxelinux_client c = { .hwtype = 1, .mac_len = 6,
							.has_ip = 1, .has_uuid = 1 };
			unsigned m[6], ip[4];
			size_t nw = 0;
			while (want[nw])
				nw++;
			CHECK(nw > 0 && cl[0] && cl[1] && cl[2] && cl[3]);
			if (nw && cl[0] && cl[1] && cl[2] && cl[3]) {
				CHECK(sscanf(cl[0], "mac %x:%x:%x:%x:%x:%x", &m[0], &m[1],
					     &m[2], &m[3], &m[4], &m[5]) == 6);
				CHECK(sscanf(cl[1], "ip %u.%u.%u.%u", &ip[0], &ip[1],
					     &ip[2], &ip[3]) == 4);
				for (int i = 0; i < 6; i++)
					c.mac[i] = (uint8_t)m[i];
				for (int i = 0; i < 4; i++)
					c.ip[i] = (uint8_t)ip[i];
				/* the firmware sends option 97 in SMBIOS order */
				CHECK_INT(lb_pxelinux_uuid_parse(cl[2] + 10, 1, c.uuid), 0);
				c.boot_file = cl[3] + 5;
				c.config_file = real[k].o209;
				c.path_prefix = real[k].o210;
				struct lb_pxelinux_paths p = { 0 };
				CHECK_INT(lb_pxelinux_paths(&c, &p), 0);
				/* the client stopped at the first file that existed */
				CHECK(p.n >= nw);
				if (!real[k].o209 || strstr(real[k].o209, "missing"))
					CHECK_INT(p.n, nw);
				for (size_t i = 0; i < nw && i < p.n; i++)
					CHECK_STR(p.v[i], want[i]);
				lb_pxelinux_paths_free(&p);
			}
			for (int i = 0; want[i]; i++)
				free(want[i]);
			for (int i = 0; cl[i]; i++)
				free(cl[i]);
			free(want);
			free(cl);
		}
	}
	return t_done();
}
