/*
 * PXELINUX config file probing (syslinux core/fs/pxe/pxe.c
 * pxe_load_config and the PXELINUX documentation): which files a client
 * asks its TFTP/HTTP server for, in order, and the BOOTIF=/SYSUUID=/ip=
 * strings that "ipappend"/"sysappend" add to the kernel command line.
 * Pure functions: libc only, negative errno, never log.
 */
#ifndef LB_PXELINUX_H
#define LB_PXELINUX_H

#include <stddef.h>
#include <stdint.h>

#define LB_PXELINUX_MAX_PATHS 16
#define LB_PXELINUX_MAX_HWADDR 16

struct lb_pxelinux_client {
	uint8_t hwtype;        /* ARP hardware type (1 = Ethernet) */
	uint8_t mac[LB_PXELINUX_MAX_HWADDR];
	size_t mac_len;        /* 0: no MAC probe */
	uint8_t uuid[16];      /* DHCP option 97 (type 0) payload */
	int has_uuid;
	uint8_t ip[4];         /* client address (yiaddr) */
	int has_ip;
	const char *config_file; /* DHCP option 209, NULL if absent */
	const char *path_prefix; /* DHCP option 210, NULL if absent */
	const char *boot_file;   /* option 67 / file field: its directory is
				    the prefix when 210 is absent */
};

struct lb_pxelinux_paths {
	char *v[LB_PXELINUX_MAX_PATHS];
	size_t n;
};

/*
 * The config paths pxelinux tries, in order, relative to the TFTP root (or
 * absolute URLs if the prefix is one):
 *   option 209 first when given (PREFIX + 209; as is when it starts with
 *   '/' or holds "://"): the client stops there when it exists, and goes
 *   on with the list below when it does not (syslinux 6.04, measured);
 *   then PREFIX pxelinux.cfg/ + UUID (lowercase, dashed), "01-aa-bb-..."
 *   (hwtype + MAC, lowercase), the IP in upper-case hex shrinking one digit
 *   at a time (C0A80001 ... C), "default".
 * PREFIX = option 210 as given, else boot_file up to its last '/'.
 * Returns 0 or negative errno (-EINVAL bad input, -ENOMEM).
 */
int lb_pxelinux_paths(const struct lb_pxelinux_client *c,
		      struct lb_pxelinux_paths *out);
void lb_pxelinux_paths_free(struct lb_pxelinux_paths *p);

/* "BOOTIF=01-aa-bb-cc-dd-ee-ff" (ipappend 2 / sysappend 2) into buf.
 * Returns length or negative errno (-ENOSPC, -EINVAL without a MAC). */
int lb_pxelinux_bootif(const struct lb_pxelinux_client *c, char *buf,
		       size_t size);
/* "SYSUUID=..." (sysappend 4). -ENOENT without a UUID. */
int lb_pxelinux_sysuuid(const struct lb_pxelinux_client *c, char *buf,
			size_t size);
/* "ip=CLIENT:SERVER:GATEWAY:NETMASK" (ipappend 1), dotted quads. */
int lb_pxelinux_ipappend1(const uint8_t client[4], const uint8_t server[4],
			  const uint8_t gateway[4], const uint8_t netmask[4],
			  char *buf, size_t size);

/*
 * Option 97's 16 bytes from a UUID in text form (36 characters, as
 * /sys/class/dmi/id/product_uuid and QEMU's -uuid show it). With
 * smbios_order the first three fields are stored little-endian, as SMBIOS
 * 2.6+ holds them and as PXE firmware (iPXE, EDK2) sends option 97: with
 * QEMU -uuid 5b1e4b3c-aa55-4d3e-... a real pxelinux asks for
 * pxelinux.cfg/3c4b1e5b-55aa-3e4d-... (measured). Returns 0 or -EINVAL.
 */
int lb_pxelinux_uuid_parse(const char *s, int smbios_order, uint8_t out[16]);

#endif
