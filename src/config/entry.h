/*
 * The one boot entry model every config parser produces and the boot path
 * consumes. Library code: returns negative errno, never logs, never exits.
 */
#ifndef LB_ENTRY_H
#define LB_ENTRY_H

#include <stddef.h>

#define LB_MAX_INITRDS 16

enum lb_entry_type {
	LB_ENTRY_LINUX = 0, /* kernel + initrds + cmdline */
	LB_ENTRY_UKI,       /* a unified kernel image: `kernel` is the PE file */
};

struct lb_entry {
	enum lb_entry_type type;
	char *title;      /* what the menu shows */
	char *id;         /* stable id: BLS file stem, GRUB --id, syslinux label */
	char *version;    /* BLS version (may be NULL) */
	char *sort_key;   /* BLS sort-key (may be NULL) */
	char *machine_id; /* BLS machine-id (may be NULL) */
	char *kernel;     /* path inside the filesystem `fs` */
	char *initrd[LB_MAX_INITRDS]; /* paths inside `fs`, in order */
	size_t n_initrd;
	/* iPXE's "initrd URL /etc/x.conf mode=0600": initrd i is handed over
	 * wrapped in newc cpio header(s) naming that path (src/config/ipxe.h
	 * lb_ipxe_cpio_header), built by the stage once the file's length is
	 * known; path NULL: the file as is */
	struct lb_initrd_cpio {
		char *path;
		unsigned mode;    /* permission bits, <= 07777 */
		unsigned mkdir;   /* leading directories to create (UINT_MAX: all) */
	} initrd_cpio[LB_MAX_INITRDS];
	char *cmdline;    /* may be NULL (empty) */
	char *devicetree; /* may be NULL */
	char *fs;         /* uuid, label or root name of the filesystem with kernel */
	char *source;     /* "file:line" the entry came from */
	int is_default;   /* exactly one entry in a list has it */
	int hidden;       /* not shown in the menu (still bootable by id) */
	unsigned sysappend; /* syslinux IPAPPEND/SYSAPPEND bits: LB_SYSAPPEND_* */
	/* Verified boot (set only through lb_entry_mark_checked, by the scan
	 * when a policy checks config files on the bytes parsed, and by
	 * netboot for the config files it fetched and checked):
	 * cfg_checked: the config files that define this entry were checked;
	 * cfg_rc: 0 when every one had a valid signature of a trusted key, else
	 * the first failure (sig.h reasons); cfg_file: "PATH on DEVICE" of
	 * that failure, or of the defining file; cfg_cmdline: the command line
	 * as the checked config gave it, at the moment of the check. verify.c
	 * counts a staged command line as covered by the config only when it
	 * is exactly cfg_cmdline: a mark without it, or a command line changed
	 * after it, covers nothing (a producer cannot vouch for a line). */
	int cfg_checked;
	int cfg_rc;
	char *cfg_file;
	char *cfg_cmdline;
	/* "WHERE: WHAT" when a producer used input no signature covers to
	 * build the entry (an iPXE setting from DHCP expanded into the
	 * command line or a URL): verify.c refuses the entry under enforce.
	 * A producer can only restrict this way, never vouch. */
	char *uncovered;
};

/* syslinux IPAPPEND/SYSAPPEND bits (syslinux's doc/syslinux.txt): ip=,
 * BOOTIF=, SYSUUID=; bits above these (CPU=, DMI strings) are kept but
 * not expanded. */
#define LB_SYSAPPEND_IP      0x1u
#define LB_SYSAPPEND_BOOTIF  0x2u
#define LB_SYSAPPEND_SYSUUID 0x4u
#define LB_SYSAPPEND_ALL     0x3ffffu

struct lb_entries {
	struct lb_entry *v;
	size_t n, cap;
	char **msgs;      /* diagnostics: "file:line: reason" */
	size_t n_msgs;
	int timeout;      /* seconds from the config, -1 when it set none */
};

#define LB_ENTRIES_INIT { .timeout = -1 }

/* Allocation helpers; all return NULL / negative errno on failure. */
char *lb_strndup(const char *s, size_t n);
/* Set *dst to a copy of s, freeing what was there. */
int lb_setstr(char **dst, const char *s);

/* Record that the config files defining e were checked: rc 0 (every one
 * validly signed by a trusted key) or the first failure, file the one to
 * name; seals e's command line as it is now (cfg_cmdline). Only for the
 * code that checked the config's bytes (scan.c, netboot.c). 0 or -ENOMEM
 * (then e is marked failed: cfg_rc -ENOMEM, nothing sealed). */
int lb_entry_mark_checked(struct lb_entry *e, int rc, const char *file);

/* Append a zeroed entry and return it (NULL on ENOMEM). */
struct lb_entry *lb_entries_add(struct lb_entries *l);
int lb_entry_add_initrd(struct lb_entry *e, const char *path);
void lb_entry_free(struct lb_entry *e);
/* Add a diagnostic (printf format). */
int lb_entries_msg(struct lb_entries *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Move all entries and messages of src to the end of dst. */
int lb_entries_append(struct lb_entries *dst, struct lb_entries *src);
/* Remove entry i (freeing it). */
void lb_entries_remove(struct lb_entries *l, size_t i);
void lb_entries_free(struct lb_entries *l);
/* Mark entry i default and clear the flag on all others. */
void lb_entries_set_default(struct lb_entries *l, size_t i);

/* Pick entry `sel` (id, title, or 0-based index) as the default; returns 0
 * or -ENOENT. */
int lb_entries_select_default(struct lb_entries *l, const char *sel);
/* Index of the default entry, or -1. */
long lb_entries_default(const struct lb_entries *l);

#endif
