/* lboot net: bring links up, run DHCPv4, print the lease; list links. */
#include "lboot.h"
#include "arch.h"

LB_APPLET(net, LB_HOST|LB_TARGET,
"usage: lboot net up [OPTIONS]\n"
"       lboot net links [--json]\n"
"       lboot net ntp [--timeout S] SERVER...\n"
"up: bring every Ethernet link up (not loopback, bond/bridge ports, ifb or\n"
"dummy links), wait for carrier, run DHCPv4 on all links with carrier at\n"
"once (PXE client identifiers: option 60 " LB_DHCP_VC_PXE ",\n"
"93, 94, 97 from the DMI UUID), apply the first lease (address/prefix, MTU\n"
"from option 26, default route) and print it; a proxyDHCP server's boot\n"
"file is taken (asked on UDP 4011 when its offer names none). One line per\n"
"step on stderr.\n"
"  --iface PATTERN      only links whose name matches (shell pattern)\n"
"  --timeout S          the whole bring-up (default 30)\n"
"  --carrier-timeout S  wait for carrier (default 5)\n"
"  --http               UEFI HTTP boot identifiers (HTTPClient:Arch:00016)\n"
"  --ipv6               DHCPv6 instead (Solicit/Advertise/Request/Reply from\n"
"                       the link-local address; boot file URL, option 59);\n"
"                       the IA_NA address is applied as /128\n"
"  --hostname NAME      send option 12\n"
"  --request-ip ADDR    ask for ADDR first (INIT-REBOOT), then DISCOVER\n"
"  --no-apply           print the lease, configure nothing\n"
"  --resolv-conf FILE   write the DNS servers and domain to FILE\n"
"  --json               the lease as one JSON object\n"
"  --ntp                then ask the lease's NTP servers (option 42, or 56\n"
"                       with --ipv6) and print the time (not with --json)\n"
"  -q, --quiet          no step lines\n"
"links: name, index, MAC, up, carrier, MTU, type, kind, device path, in\n"
"the order DHCP tries them (device path, then ifindex); --json: an array.\n"
"ntp: ask each SERVER (IP, IP:PORT, [IPv6]:PORT) in turn, as the boot flow\n"
"does before TLS (two requests each, all within --timeout, default 3 s),\n"
"and print the time the first good answer gives; the clock is not set.\n"
"Exit: 0 ok, 1 failure (one line on stderr), 2 usage.\n")

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "json.h"
#include "netif.h"
#include "ntp.h"
#include "tls.h"

static const char *mac_str(const uint8_t *m, size_t n, char *buf, size_t cap)
{
	size_t k = 0;

	buf[0] = 0;
	for (size_t i = 0; i < n && k + 4 <= cap; i++)
		k += (size_t)snprintf(buf + k, cap - k, "%s%02x", i ? ":" : "", m[i]);
	return buf;
}

static int parse_secs(const char *s, unsigned *ms)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v > 3600)
		return -1;
	*ms = (unsigned)(v * 1000 + 0.5);
	return *ms ? 0 : -1;
}

static int links_main(int argc, char **argv)
{
	struct lb_net_link *v = NULL;
	size_t n = 0;
	char err[256], mac[100];
	int json = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			lb_usage("net");
			return 0;
		} else {
			goto usage;
		}
	}
	if (lb_net_links(&v, &n, err, sizeof(err))) {
		lb_err("%s", err);
		return 1;
	}
	if (json)
		printf("[");
	for (size_t i = 0; i < n; i++) {
		const struct lb_nl_link *l = &v[i].nl;
		int dhcp = lb_net_candidate(&v[i], NULL);
		mac_str(l->hwaddr, l->hwaddr_len, mac, sizeof(mac));
		if (json) {
			printf("%s\n  {\"name\": ", i ? "," : "");
			lb_json_str(stdout, l->name);
			printf(", \"index\": %d, \"mac\": \"%s\", \"up\": %s, \"carrier\": %s, "
			       "\"mtu\": %u, \"type\": %u, \"kind\": ", l->index, mac,
			       (l->flags & LB_IFF_UP) ? "true" : "false",
			       lb_nl_link_carrier(l) ? "true" : "false", l->mtu, l->type);
			lb_json_str(stdout, l->kind);
			printf(", \"device\": ");
			lb_json_str(stdout, v[i].devpath);
			printf(", \"master\": %d, \"dhcp\": %s}", l->master, dhcp ? "true" : "false");
		} else {
			printf("%-15s %3d %-17s %-4s %-10s mtu %-5u %s%s%s\n", l->name, l->index,
			       mac[0] ? mac : "-", (l->flags & LB_IFF_UP) ? "up" : "down",
			       lb_nl_link_carrier(l) ? "carrier" : "no-carrier", l->mtu,
			       dhcp ? "dhcp" : "-", l->kind[0] ? " kind " : "", l->kind);
		}
	}
	if (json)
		printf("%s]\n", n ? "\n" : "");
	free(v);
	return 0;
usage:
	lb_usage("net");
	return 2;
}

static void jaddr(const char *key, uint32_t a)
{
	char b[16];

	if (a)
		printf(", \"%s\": \"%s\"", key, lb_ipv4_str(a, b));
	else
		printf(", \"%s\": null", key);
}

static void jstr(const char *key, const char *s)
{
	printf(", \"%s\": ", key);
	lb_json_str(stdout, s);
}

static void print_json(const struct lb_net_lease *r)
{
	const struct lb_dhcp4_lease *d = &r->dhcp;
	char b[16], mac[20];

	printf("{\"interface\": ");
	lb_json_str(stdout, r->ifname);
	printf(", \"mac\": \"%s\"", mac_str(r->mac, 6, mac, sizeof(mac)));
	jaddr("address", r->addr);
	printf(", \"prefix\": %u", r->prefix);
	jaddr("netmask", r->mask);
	jaddr("broadcast", r->broadcast);
	jaddr("router", r->router);
	jaddr("server", r->server);
	jaddr("next_server", r->next_server);
	jstr("boot_server", r->boot_server);
	jstr("boot_file", r->bootfile);
	jstr("file", d->file);
	jstr("sname", d->sname);
	jstr("tftp_server", d->tftp_server);
	jstr("pxe_config_file", d->pxe_conffile);
	jstr("pxe_path_prefix", d->pxe_prefix);
	printf(", \"ipxe_options\": ");
	if (d->have_ipxe_opts) {
		printf("\"");
		for (size_t i = 0; i < d->ipxe_opts_len; i++)
			printf("%02x", d->ipxe_opts[i]);
		printf("\"");
	} else {
		printf("null");
	}
	printf(", \"dns\": [");
	for (unsigned i = 0; i < d->ndns; i++)
		printf("%s\"%s\"", i ? ", " : "", lb_ipv4_str(d->dns[i], b));
	printf("], \"ntp\": [");
	for (unsigned i = 0; i < d->nntp; i++)
		printf("%s\"%s\"", i ? ", " : "", lb_ipv4_str(d->ntp[i], b));
	printf("]");
	jstr("domain", d->domain);
	jstr("hostname", d->hostname);
	jstr("vendor_class", d->vendor_class);
	printf(", \"mtu\": %u, \"lease_time\": %u, \"ms\": %u", r->mtu,
	       d->have_lease ? d->lease_time : 0, r->ms);
	printf("}\n");
}

static void print_text(const struct lb_net_lease *r)
{
	const struct lb_dhcp4_lease *d = &r->dhcp;
	char b[16], mac[20];

	printf("interface    %s (%s)\n", r->ifname, mac_str(r->mac, 6, mac, sizeof(mac)));
	printf("address      %s/%u\n", lb_ipv4_str(r->addr, b), r->prefix);
	if (r->router)
		printf("router       %s\n", lb_ipv4_str(r->router, b));
	printf("server       %s\n", lb_ipv4_str(r->server, b));
	if (r->next_server)
		printf("next-server  %s\n", lb_ipv4_str(r->next_server, b));
	if (r->bootfile[0])
		printf("boot file    %s on %s\n", r->bootfile, r->boot_server);
	if (d->pxe_conffile[0])
		printf("pxe config   %s\n", d->pxe_conffile);
	if (d->pxe_prefix[0])
		printf("pxe prefix   %s\n", d->pxe_prefix);
	for (unsigned i = 0; i < d->ndns; i++)
		printf("dns          %s\n", lb_ipv4_str(d->dns[i], b));
	for (unsigned i = 0; i < d->nntp; i++)
		printf("ntp          %s\n", lb_ipv4_str(d->ntp[i], b));
	if (d->domain[0])
		printf("domain       %s\n", d->domain);
	if (d->hostname[0])
		printf("hostname     %s\n", d->hostname);
	if (r->mtu)
		printf("mtu          %u\n", r->mtu);
	if (d->have_lease)
		printf("lease time   %u s\n", d->lease_time);
}

enum { O_IFACE = 256, O_TIMEOUT, O_CARRIER, O_HTTP, O_HOSTNAME, O_REQIP, O_NOAPPLY,
       O_RESOLV, O_JSON, O_IPV6, O_NTP };

/* ask the servers, print "ntp time ... from SERVER ..."; 0 or 1 */
static int ntp_print(const struct lb_ntp_server *s, size_t n, unsigned timeout_ms)
{
	struct lb_ntp_opts o = { .timeout_ms = timeout_ms,
				 .pivot = lb_tls_build_date(__DATE__) };
	struct lb_ntp_result res;
	struct timespec now;
	char err[384], t[40];

	if (!n) {
		lb_err("ntp: the lease names no NTP server");
		return 1;
	}
	if (lb_ntp_query(s, n, &o, &res, err, sizeof(err))) {
		lb_err("ntp: %s", err);
		return 1;
	}
	lb_ntp_now(&res, &now);
	printf("ntp time     %s (%lld.%09ld) from %s, stratum %u, round trip %u ms\n",
	       lb_ntp_fmt(now.tv_sec, t, sizeof(t)), (long long)now.tv_sec, now.tv_nsec,
	       s[res.server].name, res.stratum, res.rtt_ms);
	return 0;
}

static int ntp_main(int argc, char **argv)
{
	struct lb_ntp_server s[LB_NTP_MAX_SERVERS];
	unsigned timeout_ms = 0;
	size_t n = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			lb_usage("net");
			return 0;
		} else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) {
			if (parse_secs(argv[++i], &timeout_ms))
				goto usage;
		} else if (n < LB_NTP_MAX_SERVERS && !lb_ntp_server_parse(argv[i], &s[n])) {
			n++;
		} else {
			goto usage;
		}
	}
	if (!n)
		goto usage;
	return ntp_print(s, n, timeout_ms);
usage:
	lb_usage("net");
	return 2;
}

static void print6(const struct lb_net6_lease *r, int json)
{
	const struct lb_dhcp6_lease *d = &r->dhcp;
	char a[INET6_ADDRSTRLEN], mac[20];

	mac_str(r->mac, 6, mac, sizeof(mac));
	if (!json) {
		printf("interface    %s (%s)\n", r->ifname, mac);
		if (r->have_addr)
			printf("address      %s/128\n", inet_ntop(AF_INET6, r->addr, a, sizeof(a)));
		printf("server       %s\n", inet_ntop(AF_INET6, r->server, a, sizeof(a)));
		if (d->bootfile_url[0])
			printf("boot file    %s\n", d->bootfile_url);
		if (d->bootfile_param[0])
			printf("boot params  %s\n", d->bootfile_param);
		for (unsigned i = 0; i < d->ndns; i++)
			printf("dns          %s\n", inet_ntop(AF_INET6, d->dns[i], a, sizeof(a)));
		for (unsigned i = 0; i < d->nntp; i++)
			printf("ntp          %s\n", inet_ntop(AF_INET6, d->ntp[i], a, sizeof(a)));
		return;
	}
	printf("{\"interface\": ");
	lb_json_str(stdout, r->ifname);
	printf(", \"mac\": \"%s\", \"address\": ", mac);
	if (r->have_addr)
		printf("\"%s\"", inet_ntop(AF_INET6, r->addr, a, sizeof(a)));
	else
		printf("null");
	printf(", \"server\": \"%s\"", inet_ntop(AF_INET6, r->server, a, sizeof(a)));
	printf(", \"boot_file_url\": ");
	lb_json_str(stdout, d->bootfile_url);
	printf(", \"boot_file_param\": ");
	lb_json_str(stdout, d->bootfile_param);
	printf(", \"dns\": [");
	for (unsigned i = 0; i < d->ndns; i++)
		printf("%s\"%s\"", i ? ", " : "", inet_ntop(AF_INET6, d->dns[i], a, sizeof(a)));
	printf("], \"ntp\": [");
	for (unsigned i = 0; i < d->nntp; i++)
		printf("%s\"%s\"", i ? ", " : "", inet_ntop(AF_INET6, d->ntp[i], a, sizeof(a)));
	printf("], \"preferred\": %u, \"valid\": %u, \"ms\": %u}\n", d->preferred, d->valid,
	       r->ms);
}

static int up_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "iface", required_argument, 0, O_IFACE },
		{ "timeout", required_argument, 0, O_TIMEOUT },
		{ "carrier-timeout", required_argument, 0, O_CARRIER },
		{ "http", no_argument, 0, O_HTTP },
		{ "hostname", required_argument, 0, O_HOSTNAME },
		{ "request-ip", required_argument, 0, O_REQIP },
		{ "no-apply", no_argument, 0, O_NOAPPLY },
		{ "resolv-conf", required_argument, 0, O_RESOLV },
		{ "json", no_argument, 0, O_JSON },
		{ "ipv6", no_argument, 0, O_IPV6 },
		{ "ntp", no_argument, 0, O_NTP },
		{ "quiet", no_argument, 0, 'q' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	struct lb_net_opts o = { 0 };
	struct lb_net_lease *r;
	const char *resolv = NULL;
	char err[320];
	int json = 0, quiet = 0, ipv6 = 0, ntp = 0, c, rc;
	struct lb_ntp_server ns[LB_NTP_MAX_SERVERS];
	size_t nns = 0;

	o.log = stderr;
	optind = 1;
	while ((c = getopt_long(argc, argv, "qh", lo, NULL)) != -1) {
		switch (c) {
		case O_IFACE:
			o.iface = optarg;
			break;
		case O_TIMEOUT:
			if (parse_secs(optarg, &o.timeout_ms))
				goto usage;
			break;
		case O_CARRIER:
			if (parse_secs(optarg, &o.carrier_ms))
				goto usage;
			break;
		case O_HTTP:
			o.http = 1;
			break;
		case O_HOSTNAME:
			o.hostname = optarg;
			break;
		case O_REQIP: {
			struct in_addr in;
			if (inet_pton(AF_INET, optarg, &in) != 1 || !in.s_addr)
				goto usage;
			o.request_ip = in.s_addr;
			break;
		}
		case O_NOAPPLY:
			o.no_apply = 1;
			break;
		case O_RESOLV:
			resolv = optarg;
			break;
		case O_JSON:
			json = 1;
			break;
		case O_IPV6:
			ipv6 = 1;
			break;
		case O_NTP:
			ntp = 1;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			lb_usage("net");
			return 0;
		default:
			goto usage;
		}
	}
	if (optind != argc || (ntp && json))
		goto usage;
	if (quiet)
		o.log = NULL;
	if (ipv6) {
		struct lb_net6_lease *r6;
		if (o.request_ip || resolv)
			goto usage;
		if (!(r6 = calloc(1, sizeof(*r6)))) {
			lb_err("out of memory");
			return 1;
		}
		if (lb_net_up6(&o, r6, err, sizeof(err))) {
			lb_err("%s", err);
			free(r6);
			return 1;
		}
		print6(r6, json);
		for (unsigned i = 0; i < r6->dhcp.nntp && nns < LB_NTP_MAX_SERVERS; i++)
			lb_ntp_server_v6(r6->dhcp.ntp[i], r6->ifindex, &ns[nns++]);
		free(r6);
		return ntp ? ntp_print(ns, nns, 0) : 0;
	}
	if (!(r = calloc(1, sizeof(*r)))) {
		lb_err("out of memory");
		return 1;
	}
	rc = lb_net_up(&o, r, err, sizeof(err));
	if (rc) {
		lb_err("%s", err);
		free(r);
		return 1;
	}
	if (resolv) {
		char buf[2048];
		int n = lb_net_resolv_conf(r, buf, sizeof(buf));
		if (n < 0 || (rc = lb_write_atomic(resolv, buf, (size_t)n, 0644))) {
			lb_err("%s: %s", resolv, strerror(n < 0 ? -n : -rc));
			free(r);
			return 1;
		}
	}
	if (json)
		print_json(r);
	else
		print_text(r);
	for (unsigned i = 0; i < r->dhcp.nntp && nns < LB_NTP_MAX_SERVERS; i++)
		lb_ntp_server_v4(r->dhcp.ntp[i], &ns[nns++]);
	free(r);
	return ntp ? ntp_print(ns, nns, 0) : 0;
usage:
	lb_usage("net");
	return 2;
}

int net_main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "up"))
		return up_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "links"))
		return links_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "ntp"))
		return ntp_main(argc - 1, argv + 1);
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		lb_usage("net");
		return 0;
	}
	lb_usage("net");
	return 2;
}
