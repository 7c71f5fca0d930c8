/*
 * Where firmware updates come from (docs/firmware-update.md): the
 * lboot.update= option, an update file and its signature read from a
 * filesystem or fetched from a URL, whole and capped, for lb_fwupdate()
 * (src/firmware/fwupdate.h), which decides. No logging: errors are one
 * line in why and a negative errno.
 */
#ifndef LB_FWSOURCE_H
#define LB_FWSOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "fs.h"

struct lb_fetch_opts;

/* The name an update file has when nothing names it: the menu offers it
 * on every filesystem (the OS puts it on the ESP). */
#define LB_FWSRC_DEFAULT_PATH "/EFI/lboot/update.lbu"

enum lb_fwsrc_kind {
	LB_FWSRC_NONE = 0,  /* lboot.update= unset */
	LB_FWSRC_FS,        /* fs:/PATH: PATH on each filesystem */
	LB_FWSRC_URL,       /* https://HOST[:PORT]/PATH or http://... */
};

/*
 * lboot.update=: "" (none), fs:/PATH (an absolute path, no ".."
 * component, printable), or an http:// / https:// URL (src/net/http.h's
 * rules) that names a file: a path other than "/", no query, not ending
 * in '/', short enough for URL.minisig. *arg: the PATH (fs:) or the URL.
 * 0, or -EINVAL / -EPROTONOSUPPORT (another scheme) with one line in why.
 */
int lb_fwsrc_parse(const char *opt, enum lb_fwsrc_kind *kind, const char **arg,
		   char *why, size_t whysz);

/* An update file and its detached signature (sig NULL: there was none). */
struct lb_fwsrc_file {
	uint8_t *buf;
	size_t len;
	uint8_t *sig;
	size_t siglen;
};
void lb_fwsrc_file_free(struct lb_fwsrc_file *f);

/*
 * PATH and PATH.minisig on fs: the file at most LB_UPDATE_MAX bytes, the
 * signature LB_SIG_MAX_FILE (none, or unreadable: sig NULL, the decision
 * refuses it). 0; -ENOENT when PATH is not there; else negative errno
 * with one line in why ("larger than any update image", strerror).
 */
int lb_fwsrc_read_fs(const struct lb_fs *fs, const char *path, struct lb_fwsrc_file *f,
		     char *why, size_t whysz);

/*
 * URL and URL.minisig over the network, with base's transport options
 * (TLS trust, timeouts; NULL: lb_fetch's defaults, no https), the file
 * capped at LB_UPDATE_MAX bytes and the signature at LB_SIG_MAX_FILE, both
 * together within total_ms (0: 300 s) on top of lb_fetch's own connect and
 * idle bounds. A signature the server does not have (404) is no signature
 * (sig NULL: the decision refuses it); any other failure of either is
 * negative errno with one line in why naming the URL.
 */
int lb_fwsrc_fetch(const char *url, const struct lb_fetch_opts *base, unsigned total_ms,
		   struct lb_fwsrc_file *f, char *why, size_t whysz);

#endif
