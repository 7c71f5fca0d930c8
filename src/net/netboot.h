/*
 * Network boot in the boot flow: bring the network up (netif.h: links,
 * DHCP), then turn what the DHCP server points at into boot entries whose
 * kernel and initrds are URLs (the stage fetches them straight into sealed
 * memfds, kexec.h):
 *
 *  - a pxelinux boot file (pxelinux.0, lpxelinux.0, syslinux.efi,
 *    syslinux64.efi) or DHCP options 209/210: pxelinux's config probing
 *    (pxelinux.h) over TFTP from the boot server, the first config found
 *    parsed as syslinux does (its includes fetched too);
 *  - an iPXE script (the boot file, fetched, starts with #!ipxe): run by
 *    lb_ipxe_run, chains followed (up to 8), the boot it ends in is the entry;
 *  - anything else is taken as a kernel (bzImage or UKI) at that URL.
 * A boot file that holds "://" is a URL (UEFI HTTP boot, option 67); else
 * it is fetched from the boot server over TFTP.
 *
 * With a verifier whose policy is not off, each config file (the pxelinux
 * config and its includes, every iPXE script of a chain) is checked
 * against URL.minisig / URL.sig on the same server, on the bytes parsed,
 * and the entries carry the result (cfg_checked/cfg_rc/cfg_file) as disk
 * entries do.
 */
#ifndef LB_NETBOOT_H
#define LB_NETBOOT_H

#include <stdio.h>

#include "entry.h"
#include "netif.h"
#include "verify.h"

struct lb_netboot_opts {
	const char *iface;               /* shell pattern, NULL: every link */
	unsigned timeout_ms;             /* network bring-up (DHCP); 0: 30 s */
	FILE *log;                       /* one line per step */
	const struct lb_verifier *v;     /* NULL: configs are not checked */
	unsigned vlan;                   /* lboot.vlan=: 802.1Q id (netif.h), 0: none */
	const char *url;                 /* lboot.netboot=: what to boot instead of
					  * the lease's boot file (a URL, or a file
					  * name on the boot server) */
	/* Called once the lease is known, before anything is fetched (the
	 * caller learns the NTP servers before the first https://). */
	void (*on_lease)(void *arg, const struct lb_net_lease *l);
	void *on_lease_arg;
};

/* 0 with entries appended to out (and the lease), or negative errno with
 * one line in err. */
int lb_netboot(const struct lb_netboot_opts *o, struct lb_entries *out,
	       struct lb_net_lease *lease, char *err, size_t errsz);

/* The URL of the lease's boot file ("" when none): as is when it is one,
 * else tftp://BOOT_SERVER/FILE. */
int lb_netboot_bootfile_url(const struct lb_net_lease *l, char *url, size_t size);

#endif
