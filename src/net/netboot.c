/* Network boot: DHCP, then pxelinux configs, iPXE scripts or a kernel URL. */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "ipxe.h"
#include "kexec.h"
#include "netboot.h"
#include "pxelinux.h"
#include "syslinux.h"

#define SCRIPT_MAX   (1u << 20)   /* an iPXE script or pxelinux config */
#define CHAIN_MAX    8
#define V6_AFTER_V4_MS 5000u      /* DHCPv6 after a v4 lease without boot file */

static void logf_(const struct lb_netboot_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void logf_(const struct lb_netboot_opts *o, const char *fmt, ...)
{
	va_list ap;

	if (!o->log)
		return;
	va_start(ap, fmt);
	vfprintf(o->log, fmt, ap);
	va_end(ap);
	fflush(o->log);
}

/* SERVER and a path in its TFTP root (leading slashes dropped) as a
 * tftp:// URL; a path that already is a URL is taken as it is. */
static int tftp_url(char *url, size_t size, const char *server, const char *path)
{
	if (strstr(path, "://"))
		return (size_t)snprintf(url, size, "%s", path) < size ? 0 : -ENAMETOOLONG;
	while (*path == '/')
		path++;
	return (size_t)snprintf(url, size, "tftp://%s/%s", server, path) < size ?
	       0 : -ENAMETOOLONG;
}

int lb_netboot_bootfile_url(const struct lb_net_lease *l, char *url, size_t size)
{
	if (!l->bootfile[0]) {
		if (size)
			*url = 0;
		return -ENOENT;
	}
	return tftp_url(url, size, l->boot_server, l->bootfile);
}

/* the verdict of a fetched config, folded into *rc / *bad (first failure) */
static void check_cfg(const struct lb_netboot_opts *o, const char *url,
		      const char *buf, size_t len, int *rc, char **bad)
{
	int r;

	if (!o->v || o->v->pol->mode == LB_VERIFY_OFF)
		return;
	r = lb_verify_url_config(o->v, url, (const uint8_t *)buf, len);
	if (r && !*rc) {
		*rc = r;
		free(*bad);
		*bad = strdup(url);
	}
}

static void mark(const struct lb_netboot_opts *o, struct lb_entries *l, size_t from,
		 int rc, const char *bad, const char *first)
{
	if (!o->v || o->v->pol->mode == LB_VERIFY_OFF)
		return;
	for (size_t i = from; i < l->n; i++)
		lb_entry_mark_checked(&l->v[i], rc, rc ? bad : first);
}

/* --- pxelinux --------------------------------------------------------- */

struct pxe_ctx {
	const struct lb_netboot_opts *o;
	const char *server;      /* the TFTP server: paths are in its root */
	int rc;
	char *bad;
};

/* syslinux includes: fetched from the same server, checked like the config */
static int pxe_read(void *ctx, const char *path, char **buf, size_t *len)
{
	struct pxe_ctx *c = ctx;
	char url[LB_URL_MAX];
	int r;

	if ((r = tftp_url(url, sizeof(url), c->server, path)))
		return r;
	r = lb_kexec_fetch_small(url, SCRIPT_MAX, buf, len, NULL, 0);
	if (!r)
		check_cfg(c->o, url, *buf, *len, &c->rc, &c->bad);
	return r;
}

static int is_pxelinux(const struct lb_net_lease *l)
{
	const char *b = strrchr(l->bootfile, '/');

	b = b ? b + 1 : l->bootfile;
	return !fnmatch("pxelinux.0", b, 0) || !fnmatch("lpxelinux.0", b, 0) ||
	       !fnmatch("syslinux.efi", b, 0) || !fnmatch("syslinux64.efi", b, 0) ||
	       l->dhcp.pxe_conffile[0] || l->dhcp.pxe_prefix[0];
}

/* IPAPPEND/SYSAPPEND: the strings pxelinux adds after the label's command
 * line, in bit order (ip=, BOOTIF=, SYSUUID=; syslinux readconfig.c
 * record()). The other bits (CPU, DMI strings) are not expanded. */
static int sysappend(struct lb_entry *e, const struct lb_net_lease *l,
		     const struct lb_pxelinux_client *c)
{
	char add[3][96], *line;
	size_t n = 0;
	int k = 0;

	if (!e->sysappend)
		return 0;
	if (e->sysappend & LB_SYSAPPEND_IP) {
		uint32_t sv = l->next_server ? l->next_server : l->server;

		if (lb_pxelinux_ipappend1((const uint8_t *)&l->addr, (const uint8_t *)&sv,
					  (const uint8_t *)&l->router, (const uint8_t *)&l->mask,
					  add[k], sizeof(add[k])) > 0)
			k++;
	}
	if ((e->sysappend & LB_SYSAPPEND_BOOTIF) && lb_pxelinux_bootif(c, add[k], sizeof(add[k])) > 0)
		k++;
	if ((e->sysappend & LB_SYSAPPEND_SYSUUID) && lb_pxelinux_sysuuid(c, add[k], sizeof(add[k])) > 0)
		k++;
	n = e->cmdline ? strlen(e->cmdline) : 0;
	for (int i = 0; i < k; i++)
		n += 1 + strlen(add[i]);
	if (!k || !(line = malloc(n + 1)))
		return k ? -ENOMEM : 0;
	strcpy(line, e->cmdline ? e->cmdline : "");
	for (int i = 0; i < k; i++) {
		strcat(line, " ");
		strcat(line, add[i]);
	}
	free(e->cmdline);
	e->cmdline = line;
	return 0;
}

/* entry paths (absolute in the TFTP root) into URLs */
static int urlize(char **p, const char *server)
{
	char url[LB_URL_MAX], *u;
	int r;

	if (!*p || lb_is_url(*p))
		return 0;
	if ((r = tftp_url(url, sizeof(url), server, *p)))
		return r;
	if (!(u = strdup(url)))
		return -ENOMEM;
	free(*p);
	*p = u;
	return 0;
}

static int netboot_pxelinux(const struct lb_netboot_opts *o, const struct lb_net_lease *l,
			    struct lb_entries *out, char *err, size_t errsz)
{
	struct lb_pxelinux_client c = { .hwtype = 1 };
	struct lb_pxelinux_paths paths = { 0 };
	struct pxe_ctx ctx = { .o = o };
	char cwd[LB_URL_MAX] = "/", *slash;
	size_t from = out->n;
	int r;

	memcpy(c.mac, l->mac, 6);
	c.mac_len = 6;
	if (l->have_uuid) {
		memcpy(c.uuid, l->uuid, 16);
		c.has_uuid = 1;
	}
	memcpy(c.ip, &l->addr, 4);
	c.has_ip = 1;
	c.config_file = l->dhcp.pxe_conffile[0] ? l->dhcp.pxe_conffile : NULL;
	c.path_prefix = l->dhcp.pxe_prefix[0] ? l->dhcp.pxe_prefix : NULL;
	c.boot_file = l->bootfile;
	if ((r = lb_pxelinux_paths(&c, &paths))) {
		snprintf(err, errsz, "pxelinux: no config paths: %s", strerror(-r));
		return r;
	}
	ctx.server = l->boot_server;
	/* the working directory: the prefix (210, else the boot file's) */
	snprintf(cwd + 1, sizeof(cwd) - 1, "%s",
		 c.path_prefix ? c.path_prefix : l->bootfile);
	if (!c.path_prefix && (slash = strrchr(cwd, '/')))
		slash[slash == cwd ? 1 : 0] = 0;
	r = -ENOENT;
	for (size_t i = 0; i < paths.n; i++) {
		char url[LB_URL_MAX], *buf = NULL, ferr[256] = "";
		size_t len = 0;

		if (tftp_url(url, sizeof(url), ctx.server, paths.v[i]))
			continue;
		r = lb_kexec_fetch_small(url, SCRIPT_MAX, &buf, &len, ferr, sizeof(ferr));
		if (r == -ENOENT) {
			logf_(o, "lboot: net: pxelinux config %s: not there\n", url);
			continue;
		}
		if (r) {
			snprintf(err, errsz, "pxelinux config %s: %s", url, ferr[0] ? ferr : strerror(-r));
			break;
		}
		logf_(o, "lboot: net: pxelinux config %s (%zu bytes)\n", url, len);
		check_cfg(o, url, buf, len, &ctx.rc, &ctx.bad);
		{
			struct lb_syslinux_opts so = { .cwd = cwd, .read = pxe_read, .ctx = &ctx };
			r = lb_syslinux_parse(&so, url, buf, len, out);
		}
		free(buf);
		for (size_t k = from; !r && k < out->n; k++) {
			struct lb_entry *e = &out->v[k];
			r = urlize(&e->kernel, ctx.server);
			for (size_t j = 0; !r && j < e->n_initrd; j++)
				r = urlize(&e->initrd[j], ctx.server);
			if (!r)
				r = sysappend(e, l, &c);
			free(e->fs);
			e->fs = NULL;
		}
		if (!r && out->n == from) {
			snprintf(err, errsz, "pxelinux config %s: no entries", url);
			r = -ENOENT;
		}
		if (!r)
			mark(o, out, from, ctx.rc, ctx.bad, url);
		else if (!err[0])
			snprintf(err, errsz, "pxelinux config %s: %s", url, strerror(-r));
		break;
	}
	if (r == -ENOENT && !err[0])
		snprintf(err, errsz, "pxelinux: none of the %zu config files exists on %s",
			 paths.n, l->boot_server);
	lb_pxelinux_paths_free(&paths);
	free(ctx.bad);
	return r;
}

/* --- iPXE ------------------------------------------------------------- */

struct ipxe_ctx {
	const struct lb_net_lease *l;
	const struct lb_netboot_opts *o;
	int rc;      /* verification of the scripts run (first failure) */
	char *bad;
};

/* iPXE's image commands (kernel, initrd, chain, imgfetch) fetch when they
 * run, so `kernel URL || goto x` and `chain A || chain B` see a missing
 * file, as in iPXE. A script (up to SCRIPT_MAX) is fetched whole, checked
 * like the first one and run in place; anything larger is only found to
 * be there (a server that says its size is refused before its body) and
 * its bytes are dropped: the stage reads them once, into sealed memory,
 * for the boot. */
static int ipxe_fetch(void *ctx, const char *url, unsigned long timeout_ms,
		      char **script, size_t *len)
{
	struct ipxe_ctx *c = ctx;
	char *buf = NULL, ferr[256] = "";
	size_t n = 0;
	int r;

	(void)timeout_ms;
	r = lb_kexec_fetch_small(url, SCRIPT_MAX, &buf, &n, ferr, sizeof(ferr));
	if (r == -EFBIG)
		return 0;
	if (r) {
		/* the command fails (|| sees it); the line says why */
		logf_(c->o, "lboot: net: %s\n", ferr[0] ? ferr : strerror(-r));
		return r;
	}
	if (!lb_ipxe_is_script(buf, n)) {
		free(buf);
		return 0;
	}
	logf_(c->o, "lboot: net: iPXE script %s (%zu bytes)\n", url, n);
	check_cfg(c->o, url, buf, n, &c->rc, &c->bad);
	*script = buf;
	*len = n;
	return 0;
}

static int ipxe_setting(void *ctx, const char *block, const char *name,
			char *buf, size_t size)
{
	const struct ipxe_ctx *c = ctx;
	const struct lb_net_lease *l = c->l;
	char ip[16];

	if (*block && strcmp(block, "net0") && strcmp(block, "netX") &&
	    strcmp(block, "net0.dhcp"))
		return -ENOENT;
	if (!strcmp(name, "mac")) {
		snprintf(buf, size, "%02x:%02x:%02x:%02x:%02x:%02x", l->mac[0], l->mac[1],
			 l->mac[2], l->mac[3], l->mac[4], l->mac[5]);
		return LB_IPXE_HEX | LB_IPXE_LOCAL; /* the NIC's own */
	}
	if (!strcmp(name, "ip") || !strcmp(name, "netmask") || !strcmp(name, "gateway") ||
	    !strcmp(name, "next-server") || !strcmp(name, "dns")) {
		uint32_t a = !strcmp(name, "ip") ? l->addr : !strcmp(name, "netmask") ? l->mask :
			     !strcmp(name, "gateway") ? l->router :
			     !strcmp(name, "dns") ? (l->dhcp.ndns ? l->dhcp.dns[0] : 0) :
			     l->next_server;
		if (!a)
			return -ENOENT;
		snprintf(buf, size, "%s", lb_ipv4_str(a, ip));
		return LB_IPXE_IPV4;
	}
	if (!strcmp(name, "filename") && l->bootfile[0]) {
		snprintf(buf, size, "%s", l->bootfile);
		return LB_IPXE_STRING;
	}
	if (!strcmp(name, "hostname") && l->dhcp.hostname[0]) {
		snprintf(buf, size, "%s", l->dhcp.hostname);
		return LB_IPXE_STRING;
	}
	if (!strcmp(name, "domain") && l->dhcp.domain[0]) {
		snprintf(buf, size, "%s", l->dhcp.domain);
		return LB_IPXE_STRING;
	}
	return -ENOENT;
}

static void ipxe_output(void *ctx, const char *text)
{
	const struct ipxe_ctx *c = ctx;

	logf_(c->o, "lboot: ipxe: %s%s", text,
	      *text && text[strlen(text) - 1] == '\n' ? "" : "\n");
}

/* An iPXE entry whose command line or URLs hold bytes of a setting the
 * network sent (lb_ipxe_result.net): not covered by the script's
 * signature, whatever the mode (verify.c refuses it under enforce). 0 or
 * -ENOMEM. */
static int mark_net(struct lb_entry *e, const char *url, int net)
{
	int cmd = net & LB_IPXE_NET_CMDLINE, urls = net & (LB_IPXE_NET_URL | LB_IPXE_NET_CPIO);

	if (!net)
		return 0;
	free(e->uncovered);
	e->uncovered = NULL;
	if (asprintf(&e->uncovered, "iPXE script %s: %s hold%s bytes of a network setting "
		     "(${next-server}, ${filename}, ${hostname}...), which no signature covers",
		     url, cmd && urls ? "the command line and image URLs" :
		     cmd ? "the command line" : "the image URLs", cmd && !urls ? "s" : "") < 0) {
		e->uncovered = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Run the script at url (buf) and the chains it ends in; an entry on boot. */
static int netboot_ipxe(const struct lb_netboot_opts *o, const struct lb_net_lease *l,
			const char *first_url, char *buf, size_t len,
			struct lb_entries *out, char *err, size_t errsz)
{
	struct ipxe_ctx ic = { .l = l, .o = o };
	struct lb_ipxe_host h = { .ctx = &ic, .setting = ipxe_setting, .output = ipxe_output,
				  .fetch = ipxe_fetch };
	char url[LB_URL_MAX];
	int r = 0, chain_net = 0;

	snprintf(url, sizeof(url), "%s", first_url);
	for (int depth = 0;; depth++) {
		struct lb_ipxe_result res = { 0 };

		check_cfg(o, url, buf, len, &ic.rc, &ic.bad);
		r = lb_ipxe_run(&h, url, buf, len, &res);
		free(buf);
		buf = NULL;
		if (r) {
			snprintf(err, errsz, "iPXE script %s", res.error ? res.error : strerror(-r));
			lb_ipxe_result_free(&res);
			break;
		}
		if (res.action == LB_IPXE_BOOT) {
			struct lb_entry *e = lb_entries_add(out);
			r = -ENOMEM;
			if (e && !lb_setstr(&e->kernel, res.kernel) &&
			    !lb_setstr(&e->title, res.name ? res.name : res.kernel) &&
			    (!res.cmdline || !lb_setstr(&e->cmdline, res.cmdline)) &&
			    asprintf(&e->source, "%s:0", url) >= 0) {
				r = 0;
				for (size_t i = 0; !r && i < res.n_initrd; i++) {
					const struct lb_ipxe_initrd *rd = &res.initrd[i];
					char why[160];

					/* "initrd URL /etc/x.conf mode=0600": the stage
					 * puts the cpio header before the file's bytes */
					if ((r = lb_ipxe_cpio_check(rd, why, sizeof(why)))) {
						snprintf(err, errsz, "iPXE script %s: initrd %s: %s",
							 url, rd->url, why);
						break;
					}
					if ((r = lb_entry_add_initrd(e, rd->url)) || !rd->cpio_name)
						continue;
					struct lb_initrd_cpio *w = &e->initrd_cpio[e->n_initrd - 1];
					if (lb_setstr(&w->path, rd->cpio_name))
						r = -ENOMEM;
					w->mode = rd->mode & 07777;
					w->mkdir = rd->mkdir;
				}
			}
			if (r && e)
				lb_entries_remove(out, out->n - 1);
			if (!r) {
				lb_entries_set_default(out, out->n - 1);
				mark(o, out, out->n - 1, ic.rc, ic.bad, url);
				/* no entry rather than one missing its mark */
				if ((r = mark_net(&out->v[out->n - 1], url,
						  res.net | (chain_net ? LB_IPXE_NET_URL : 0))))
					lb_entries_remove(out, out->n - 1);
			}
			lb_ipxe_result_free(&res);
			break;
		}
		if (res.action != LB_IPXE_CHAIN || depth + 1 >= CHAIN_MAX) {
			snprintf(err, errsz, "iPXE script %s: %s", url,
				 res.action == LB_IPXE_CHAIN ? "too many chains" :
				 res.action == LB_IPXE_EXIT ? "ended without booting" :
				 "asked for a reboot or power off");
			r = res.action == LB_IPXE_CHAIN ? -ELOOP : -ENOENT;
			lb_ipxe_result_free(&res);
			break;
		}
		/* chain: a script to run, or a kernel to boot */
		if (res.net & LB_IPXE_NET_URL)
			chain_net = 1;
		snprintf(url, sizeof(url), "%s", res.kernel);
		lb_ipxe_result_free(&res);
		r = lb_kexec_fetch_small(url, SCRIPT_MAX, &buf, &len, NULL, 0);
		if (r == -EFBIG || (!r && !lb_ipxe_is_script(buf, len))) {
			struct lb_entry *e = lb_entries_add(out);
			free(buf);
			buf = NULL;
			if (!e || lb_setstr(&e->kernel, url) || lb_setstr(&e->title, url)) {
				r = -ENOMEM;
				break;
			}
			lb_entries_set_default(out, out->n - 1);
			mark(o, out, out->n - 1, ic.rc, ic.bad, url);
			if ((r = mark_net(e, url, chain_net ? LB_IPXE_NET_URL : 0)))
				lb_entries_remove(out, out->n - 1);
			break;
		}
		if (r) {
			snprintf(err, errsz, "iPXE chain %s: %s", url, strerror(-r));
			break;
		}
		logf_(o, "lboot: net: iPXE script %s (%zu bytes)\n", url, len);
	}
	free(buf);
	free(ic.bad);
	return r;
}

/*
 * DHCPv4 gave no answer (rv4 < 0, its line in err) or a lease without a
 * boot file: DHCPv6 on the same links within the same bound (5 s after a
 * v4 lease); a boot file
 * URL (RFC 5970 option 59) becomes the lease's boot file, its parameters
 * (option 60) the command line of a kernel URL. 0 with the lease filled,
 * or rv4 (else -ENOENT) with one line for both in err.
 */
static int netboot_v6(const struct lb_netboot_opts *o, const struct lb_net_opts *no,
		      int rv4, struct lb_net_lease *lease, char *err, size_t errsz)
{
	struct lb_net6_lease *l6 = calloc(1, sizeof(*l6));
	struct lb_net_opts n6 = *no;
	char e6[256] = "", v4[256];
	int r;

	if (!l6)
		return -ENOMEM;
	/* with an IPv4 lease in hand (no boot file) the network is there:
	 * a DHCPv6 server would answer the first Solicit, 5 s is plenty */
	if (!rv4 && (!n6.timeout_ms || n6.timeout_ms > V6_AFTER_V4_MS))
		n6.timeout_ms = V6_AFTER_V4_MS;
	snprintf(v4, sizeof(v4), "%s", rv4 ? err : "the DHCPv4 lease names no boot file");
	logf_(o, "lboot: net: %s; trying DHCPv6\n", v4);
	r = lb_net_up6(&n6, l6, e6, sizeof(e6));
	if (!r && !l6->dhcp.bootfile_url[0] && !(o->url && *o->url)) {
		snprintf(e6, sizeof(e6), "the DHCPv6 lease on %s names no boot file URL", l6->ifname);
		r = -ENOENT;
	} else if (!r && strlen(l6->dhcp.bootfile_url) >= sizeof(lease->bootfile)) {
		snprintf(e6, sizeof(e6), "the DHCPv6 boot file URL is longer than %zu bytes",
			 sizeof(lease->bootfile) - 1);
		r = -ENAMETOOLONG;
	}
	if (r) {
		snprintf(err, errsz, "%s; DHCPv6: %s", v4, e6[0] ? e6 : strerror(-r));
		free(l6);
		return rv4 ? rv4 : r;
	}
	if (rv4) {      /* no IPv4 lease: the v6 one alone */
		memset(lease, 0, sizeof(*lease));
		memcpy(lease->ifname, l6->ifname, sizeof(lease->ifname));
		lease->ifindex = l6->ifindex;
		memcpy(lease->mac, l6->mac, 6);
	}
	lease->dhcp6 = 1;
	if (l6->dhcp.bootfile_url[0])   /* else lboot.netboot= names it */
		memcpy(lease->bootfile, l6->dhcp.bootfile_url,
		       strlen(l6->dhcp.bootfile_url) + 1);
	snprintf(lease->dhcp6_param, sizeof(lease->dhcp6_param), "%s", l6->dhcp.bootfile_param);
	memcpy(lease->ntp6, l6->dhcp.ntp, sizeof(lease->ntp6));
	lease->nntp6 = l6->dhcp.nntp;
	err[0] = 0;
	free(l6);
	return 0;
}

int lb_netboot(const struct lb_netboot_opts *o, struct lb_entries *out,
	       struct lb_net_lease *lease, char *err, size_t errsz)
{
	struct lb_net_opts no = {
		.iface = o->iface, .timeout_ms = o->timeout_ms, .log = o->log,
		.vlan = o->vlan,
	};
	char url[LB_URL_MAX], *buf = NULL, param[sizeof(lease->dhcp6_param)] = "";
	size_t len = 0;
	int r;

	err[0] = 0;
	r = lb_net_up(&no, lease, err, errsz);
	if (r == -ETIMEDOUT ||
	    (!r && !lease->bootfile[0] && !(o->url && *o->url))) {
		if ((r = netboot_v6(o, &no, r, lease, err, errsz)))
			return r;
		snprintf(param, sizeof(param), "%s", lease->dhcp6_param);
	}
	if (r)
		return r;
	if (o->url && *o->url) {
		if (strlen(o->url) >= sizeof(lease->bootfile)) {
			snprintf(err, errsz, "lboot.netboot=%s: too long", o->url);
			return -ENAMETOOLONG;
		}
		memcpy(lease->bootfile, o->url, strlen(o->url) + 1);
	}
	if (o->on_lease)
		o->on_lease(o->on_lease_arg, lease);
	if (lb_netboot_bootfile_url(lease, url, sizeof(url))) {
		snprintf(err, errsz, "net %s: the DHCP server names no boot file", lease->ifname);
		return -ENOENT;
	}
	if (is_pxelinux(lease))
		return netboot_pxelinux(o, lease, out, err, errsz);
	/* small enough to be a script? a kernel is fetched once, by the stage */
	r = lb_kexec_fetch_small(url, SCRIPT_MAX, &buf, &len, err, errsz);
	if (!r && lb_ipxe_is_script(buf, len)) {
		logf_(o, "lboot: net: iPXE script %s (%zu bytes)\n", url, len);
		err[0] = 0;
		return netboot_ipxe(o, lease, url, buf, len, out, err, errsz);
	}
	free(buf);
	if (r && r != -EFBIG)
		return r;
	err[0] = 0;
	{
		struct lb_entry *e = lb_entries_add(out);
		const char *b = strrchr(url, '/');

		if (!e || lb_setstr(&e->kernel, url) || lb_setstr(&e->title, b ? b + 1 : url) ||
		    (param[0] && lb_setstr(&e->cmdline, param)) ||
		    asprintf(&e->source, "dhcp%s:%s", param[0] || lease->dhcp6 ? "v6" : "",
			     lease->ifname) < 0)
			return -ENOMEM;
		lb_entries_set_default(out, out->n - 1);
		/* no config file covers this entry: nothing is marked as
		 * checked here (src/trust/verify.c decides: an empty command
		 * line needs no cover, DHCPv6's boot-file parameters are
		 * refused under enforce) */
	}
	return 0;
}
