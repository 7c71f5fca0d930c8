/*
 * TPM transports for src/tpm/tpm2.h: the kernel's TPM character devices
 * (/dev/tpmrm0, the resource manager, preferred; /dev/tpm0) and a TCP
 * connection to swtpm's data port (host tests: raw command bytes work
 * unchanged there). Every wait is bounded: a TPM that never answers costs
 * at most the timeout, then -ETIMEDOUT. Negative errno, never logs.
 */
#ifndef LB_TPMDEV_H
#define LB_TPMDEV_H

#include <stddef.h>
#include <stdint.h>

#define LB_TPMDEV_TIMEOUT_MS 10000 /* CreatePrimary on a slow TPM takes seconds */

struct lb_tpmdev {
	int fd;
	int tcp;         /* a stream: read the header, then the rest */
	int timeout_ms;  /* per command */
	int stuck;       /* a command timed out: the device is not reused */
	char path[80];   /* what was opened, for messages */
};

/* Open path, or when path is NULL the first of /dev/tpmrm0, /dev/tpm0 that
 * exists. -ENOENT when there is no TPM device. */
int lb_tpmdev_open(struct lb_tpmdev *d, const char *path, int timeout_ms);
/* Connect to HOST:PORT: a numeric IPv4 address, [IPv6] or localhost (no
 * resolver); the connect is bounded by the timeout too. */
int lb_tpmdev_open_tcp(struct lb_tpmdev *d, const char *hostport, int timeout_ms);
/* lb_tpm2_xfer_fn: ctx is a struct lb_tpmdev. */
int lb_tpmdev_xfer(void *ctx, const uint8_t *cmd, size_t clen, uint8_t *rsp,
		   size_t rcap, size_t *rlen);
void lb_tpmdev_close(struct lb_tpmdev *d);

#endif
