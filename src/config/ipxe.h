/*
 * iPXE scripts: an interpreter for the subset of iPXE's language that real
 * deployments use (netboot.xyz menus, the OpenStack Ironic template, fleet
 * chainloaders), with iPXE's own semantics as the reference (src/core/exec.c,
 * src/image/script.c, src/core/settings.c, src/hci/commands/ of ipxe/ipxe):
 *
 *  - a line is split on whitespace first, then each token has its
 *    ${setting} references expanded (so an expanded value with spaces stays
 *    one argument); "||", "&&" and ";" chain commands; a token starting with
 *    '#' starts a comment; a trailing backslash continues the line;
 *  - ":label" starts a line (the rest of the line is a command); "goto"
 *    jumps to the first line with that label;
 *  - a command that fails ends the script unless "||" catches it;
 *  - images: "kernel" fetches and selects, "initrd"/"imgfetch"/"module"
 *    fetch and register, "imgargs" replaces an image's arguments, "imgfree"
 *    unregisters, "boot"/"chain"/"imgexec" execute: a script runs nested
 *    (its URL becomes the base for relative URLs), anything else is the
 *    kernel to boot with every other registered image as its initrds, in
 *    registration order; an initrd with arguments ("initrd URL /etc/x
 *    mode=0600") is wrapped in a newc cpio entry at that path (iPXE's
 *    src/core/cpio.c: name = first argument, mode= octal, mkdir= count);
 *  - settings are typed ("set n:int32 1", "${mac:hexraw}", "${esc:string}"
 *    after "set esc:hex 1b"); the caller supplies the network and SMBIOS
 *    ones (net0/mac, ip, uuid, serial, ...) through a callback.
 *
 * Library code: libc only, no I/O, never logs; what iPXE would print
 * (echo, "Could not boot: ...") goes to the output callback. Every size is
 * capped; step, byte and sleep budgets end loops ("retry forever" scripts
 * such as Ironic's "|| goto deploy" end with a clear error); chained
 * scripts nest at most LB_IPXE_MAX_DEPTH deep.
 *
 * iPXE behaviours kept on purpose (each checked against real iPXE in
 * tests/host/ipxe-oracle.sh):
 * "iseq a b && cmd" on its own line fails the
 * line and so ends the script when a != b (append "||"); "exit N" in a
 * chained script makes the chain fail when N != 0; "boot" with no image
 * selected prints "No image selected" and succeeds; a chained script that
 * returned stays registered and becomes an initrd unless freed.
 */
#ifndef LB_IPXE_H
#define LB_IPXE_H

#include <stddef.h>

#define LB_IPXE_MAX_SCRIPT  (1u << 20) /* bytes of one script */
#define LB_IPXE_MAX_LINE    8192       /* bytes of one (continued) line */
#define LB_IPXE_MAX_ARGS    256        /* tokens on one line */
#define LB_IPXE_MAX_VALUE   8192       /* bytes of one expanded token/value */
#define LB_IPXE_MAX_EXPAND  1024       /* ${} expansions in one token */
#define LB_IPXE_MAX_VARS    512        /* settings stored by the script */
#define LB_IPXE_MAX_IMAGES  64         /* registered images */
#define LB_IPXE_MAX_ITEMS   256        /* items of one menu */
#define LB_IPXE_MAX_MENUS   16
#define LB_IPXE_MAX_STEPS   10000      /* commands run, all scripts */
#define LB_IPXE_MAX_WORK    (32u << 20) /* bytes of expanded arguments, all
					  commands (bounds a loop of huge
					  lines) */
#define LB_IPXE_MAX_DEPTH   8          /* scripts chained into scripts */
#define LB_IPXE_MAX_SLEEP_MS (10u * 60 * 1000) /* all "sleep"s of a run */

/* Types of settings (iPXE's setting types; names as in "${x:hexraw}"). */
enum lb_ipxe_type {
	LB_IPXE_STRING = 0, LB_IPXE_URISTRING, LB_IPXE_IPV4,
	LB_IPXE_INT8, LB_IPXE_INT16, LB_IPXE_INT32,
	LB_IPXE_UINT8, LB_IPXE_UINT16, LB_IPXE_UINT32,
	LB_IPXE_HEX, LB_IPXE_HEXHYP, LB_IPXE_HEXRAW, LB_IPXE_BASE64,
	LB_IPXE_UUID,
	LB_IPXE_NTYPES
};

struct lb_ipxe_item {
	char *label;    /* NULL for a gap (not selectable) */
	char *text;     /* never NULL */
	int key;        /* shortcut key, 0 = none */
	int is_default;
	int net;        /* label or text holds bytes of a network setting */
};

struct lb_ipxe_menu {
	char *name;     /* NULL for the unnamed menu */
	char *title;
	struct lb_ipxe_item *items;
	size_t n;
};

struct lb_ipxe_host {
	void *ctx;
	/*
	 * A setting the script did not set itself: block is "" for a plain
	 * name ("mac", "ip", "uuid", "serial", "hostname", "next-server"...) or
	 * the block named in "${block/name}" ("net0", "netX", "smbios",
	 * "net0.dhcp"). Write the value as iPXE formats the setting's type
	 * (MAC "52:54:00:12:34:56", IPv4 dotted quad, UUID with dashes,
	 * strings as is) NUL-terminated into buf and return its
	 * enum lb_ipxe_type, or'd with LB_IPXE_LOCAL when the value is the
	 * machine's own (its MAC, SMBIOS), not something the network sent;
	 * -ENOENT when not set. NULL: nothing is set. Every value without
	 * LB_IPXE_LOCAL is the network's: bytes expanded from it are tracked
	 * (lb_ipxe_result.net), a script's signature does not cover them.
	 */
	int (*setting)(void *ctx, const char *block, const char *name,
		       char *buf, size_t size);
	/*
	 * Fetch the image at url (absolute after resolution; timeout_ms from
	 * --timeout, 0 = the caller's default). Return 0 when it was fetched
	 * completely; when it is an iPXE script set *script to a malloc'd
	 * NUL-terminated copy and *len, else leave *script NULL (the caller
	 * keeps the bytes for the boot). Negative errno on failure (the
	 * command fails, "|| goto" sees it). NULL: every fetch succeeds
	 * without bytes and "chain URL" ends the run with LB_IPXE_CHAIN.
	 */
	int (*fetch)(void *ctx, const char *url, unsigned long timeout_ms,
		     char **script, size_t *len);
	/* Show a menu; *chosen = index of a selectable item. def = index the
	 * menu starts on; timeout_ms 0 = none. -ECANCELED when the user left
	 * it. NULL: the default is chosen. */
	int (*choose)(void *ctx, const struct lb_ipxe_menu *m, size_t def,
		      unsigned long timeout_ms, size_t *chosen);
	/* "prompt [--key K] [--timeout MS] text": 0 when the key (any key if
	 * key is 0) was pressed, negative errno on timeout (-ETIMEDOUT) or
	 * another key (-ECANCELED). NULL: no console = -ETIMEDOUT. */
	int (*prompt)(void *ctx, const char *text, unsigned long timeout_ms,
		      int key);
	/* Text iPXE prints (echo, errors), newline included when iPXE adds
	 * one. NULL: discarded. */
	void (*output)(void *ctx, const char *text);
	/* "dhcp", "ifopen", "ifconf", "ifclose", "ntp" with its argument
	 * (interface or server; "" when none): 0 or negative errno.
	 * NULL: they succeed. */
	int (*net)(void *ctx, const char *cmd, const char *arg);
	/* "sleep N" (ms). NULL: no wait. */
	void (*sleep)(void *ctx, unsigned long ms);
	const char *platform;  /* ${platform}: NULL = "efi" */
	const char *buildarch; /* ${buildarch}: NULL = LB_IPXE_BUILDARCH (arch.h) */
};

/* or'd into a setting callback's type: the machine's own value */
#define LB_IPXE_LOCAL 0x100

enum lb_ipxe_action {
	LB_IPXE_EXIT = 0,   /* the script ended or ran "exit" without booting */
	LB_IPXE_BOOT,       /* boot kernel + initrds + cmdline */
	LB_IPXE_CHAIN,      /* fetch `kernel` and run it (no fetch callback) */
	LB_IPXE_REBOOT,
	LB_IPXE_POWEROFF,
};

struct lb_ipxe_initrd {
	char *url;
	char *name;       /* image name (--name or the URL's last segment) */
	char *cpio_name;  /* wrap in a newc cpio entry at this path; NULL: no */
	unsigned mode;    /* file mode for the cpio entry (0644 default) */
	unsigned mkdir;   /* parent directory levels to create (mkdir=) */
	char *cpio_args;  /* the image's arguments as written ("/etc/x mode=0600") */
	int mode_bad;     /* mode= is not octal digits up to 07777 ending at a
			     space or the end (iPXE takes what strtoul makes
			     of it; lboot refuses: lb_ipxe_cpio_check) */
};

#define LB_IPXE_NET_CMDLINE 1 /* the kernel's arguments */
#define LB_IPXE_NET_URL     2 /* the kernel's or an initrd's URL */
#define LB_IPXE_NET_CPIO    4 /* an initrd's cpio path/mode arguments */

struct lb_ipxe_result {
	enum lb_ipxe_action action;
	char *kernel;     /* URL of the kernel (BOOT) or of the image (CHAIN) */
	char *name;       /* its image name */
	char *cmdline;    /* its arguments; NULL when none */
	struct lb_ipxe_initrd *initrd;
	size_t n_initrd;
	unsigned long timeout_ms; /* --timeout of the image command */
	int exit_code;    /* "exit N" */
	char *error;      /* on failure: "URL:LINE: what failed" */
	int net;          /* LB_IPXE_NET_* bits: which parts of the result hold
			   * bytes expanded from a network setting (directly,
			   * through settings the script set from one, or a
			   * relative URL against a base that held one). Only
			   * the literal bytes of a signed script are covered by
			   * its signature; control flow (iseq, goto) that a
			   * setting steers is not tracked: it chooses among the
			   * script's own literal lines. */
	size_t steps;     /* commands run */
};

/*
 * Run the script buf/len fetched from url (the base for relative URLs; may
 * be NULL). Returns 0 with res filled (action), or negative errno with
 * res->error set: -ENOEXEC not a script ("#!ipxe" missing) or an unknown
 * command failed it, -ELOOP step budget or chain depth, -E2BIG a cap,
 * -ENOMEM, or the failing command's error. res must be freed with
 * lb_ipxe_result_free() in both cases.
 */
int lb_ipxe_run(const struct lb_ipxe_host *h, const char *url,
		const char *buf, size_t len, struct lb_ipxe_result *res);
void lb_ipxe_result_free(struct lb_ipxe_result *res);

/* Does buf start like an iPXE script ("#!ipxe" or "#!gpxe" + space)? */
int lb_ipxe_is_script(const char *buf, size_t len);

/* Resolve ref against base as iPXE's resolve_uri does (not quite RFC
 * 3986: only leading "./" and "../" are folded into the base directory,
 * later dot segments are sent as is; "//host" without a scheme is a path);
 * bytes that cannot stand in a URI (space, controls, non-ASCII) are
 * percent-encoded. Returns a malloc'd string or NULL (ENOMEM / too long). */
char *lb_ipxe_resolve(const char *base, const char *ref);

/* Build the newc cpio header(s) iPXE puts before an initrd with a name
 * (as src/core/cpio.c): writes at most `size` bytes to out and returns the
 * total length of headers + names + padding for a file of `len` bytes, or
 * negative errno. */
long lb_ipxe_cpio_header(const struct lb_ipxe_initrd *rd, size_t len,
			 unsigned char *out, size_t size);

/* The most header bytes (mkdir= makes one header per directory level)
 * lboot puts before one file. */
#define LB_IPXE_CPIO_MAX_HEADER (64u << 10)

/* Can rd be handed over wrapped (the boot flow asks before it makes the
 * entry)? 0 (also when there is no wrapping), or -EINVAL (a bad mode=) /
 * -ENAMETOOLONG (a path the header cannot hold: over 4096 bytes, or
 * headers over LB_IPXE_CPIO_MAX_HEADER) with one line in err.
 * The header's size does not depend on the file's length, only its
 * c_filesize field does. */
int lb_ipxe_cpio_check(const struct lb_ipxe_initrd *rd, char *err, size_t errsz);

#endif
