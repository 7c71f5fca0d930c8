/* Loading a boot entry with kexec_file_load(2) and jumping into it. */
#ifndef LB_KEXEC_H
#define LB_KEXEC_H

#include <stdint.h>
#include <stdio.h>

#include "blob.h"
#include "entry.h"
#include "fs.h"

/* <linux/kexec.h>, <linux/reboot.h> values (no kernel headers on musl) */
#define LB_KEXEC_FILE_NO_INITRAMFS  0x4
#define LB_LINUX_REBOOT_MAGIC1      0xfee1deadu
#define LB_LINUX_REBOOT_MAGIC2      672274793
#define LB_LINUX_REBOOT_CMD_RESTART   0x01234567u
#define LB_LINUX_REBOOT_CMD_POWER_OFF 0x4321fedcu
#define LB_LINUX_REBOOT_CMD_KEXEC     0x45584543u

/* Largest UKI read into memory; longest command line the menu's editor
 * takes (what the kernel takes is its setup header's cmdline_size). */
#define LB_KEXEC_MAX_UKI     (512u << 20)
#define LB_KEXEC_MAX_CMDLINE 4096

/*
 * An entry read once into memory (docs/verified-boot.md): the kernel file
 * (a bzImage, or the UKI) as one sealed memfd, and for a UKI its .linux
 * section copied out of that memfd; the initrd the kernel receives as one
 * sealed memfd (UKI .ucode and .initrd sections, then the entry's initrds,
 * zero-padded to 4 bytes between pieces, not after the last: the buffer
 * systemd-boot hands over and measures), with each piece's place and digests; the
 * command line. Everything is hashed in the one read (digests chosen by
 * the mask); verification and measurement look only at these bytes, and
 * kexec_file_load gets these memfds: nothing is read again from the disk.
 */
#define LB_STAGE_MAX_PARTS (LB_MAX_INITRDS + 2)

struct lb_stage_part {
	const char *name;        /* the entry's path, or ".ucode" / ".initrd" */
	uint64_t off, len;       /* inside the initrd blob, padding excluded */
	int from_entry;          /* an initrd file of the entry (not a UKI section) */
	struct lb_digests dig;   /* of this piece (entry initrds only) */
};

struct lb_stage {
	const struct lb_fs *fs;        /* where the files were read */
	struct lb_blob file;           /* the kernel file / UKI as read */
	struct lb_blob linux_;         /* UKI: its .linux; else fd -1 */
	struct lb_blob initrd;         /* fd -1 when there is none */
	struct lb_stage_part part[LB_STAGE_MAX_PARTS];
	size_t n_parts;
	int is_uki;
	char *cmdline;                 /* what the kernel gets (malloc'd) */
	int cmdline_edited;            /* given by the caller (menu edit) */
	int cmdline_from_uki;          /* the UKI's .cmdline section */
	long cmdmax;                   /* the kernel's setup header limit */
	char initrds[1024];            /* "PATH,PATH" for messages */
	char neterr[256];              /* a fetch's one-line error */
	char verdict[768];             /* the verifier's evidence for these bytes
					* (trust/verify.c: what covered what, or
					* why it boots unverified); "" when no
					* verifier ran. The log and PCR 8 record it. */
};

/*
 * Read entry e of set into st (digests of the file, the initrd and each
 * initrd piece as digest_mask selects; 0: none). cmdline: a replacement
 * command line (menu edit), NULL for the entry's. On failure returns a
 * negative errno, puts "FILE: REASON" into why and holds nothing:
 * -ENODEV (filesystem not found), -ENOENT (missing file), -ENOEXEC (not
 * a bzImage / not a UKI), -E2BIG (command line longer than the kernel's
 * setup header allows: "command line: N bytes, the kernel takes at most
 * M (E2BIG)"), -EISDIR, -EINVAL (not a regular file), -EFBIG, -ENOMEM.
 */
int lb_kexec_stage(const struct lb_fsset *set, const struct lb_entry *e,
		   const char *cmdline, unsigned digest_mask,
		   struct lb_stage *st, char *why, size_t whysz);
void lb_stage_free(struct lb_stage *st);

/* Network entries: a kernel or initrd path that is a URL (tftp://,
 * http://, https://) is fetched (src/net/netio.h) straight into its blob,
 * with these options (TLS, timeouts; sink and progress are set by the
 * stage). NULL: lb_fetch's defaults, no TLS. The options are not copied. */
struct lb_fetch_opts;
void lb_kexec_set_fetch(const struct lb_fetch_opts *o);
int lb_is_url(const char *s);
/* Fetch url whole into a malloc'd NUL-terminated buffer of at most max
 * bytes (signatures, manifests, scripts), with the options above. */
int lb_kexec_fetch_small(const char *url, size_t max, char **buf, size_t *len,
			 char *err, size_t errsz);

struct lb_kexec_req {
	const struct lb_fsset *set;  /* where entry->fs is looked up */
	const struct lb_entry *entry;
	const char *cmdline;         /* replacement command line, NULL = the entry's */
	int dry_run;                 /* read and check everything, load nothing */
	FILE *log;                   /* gets the "lboot: kexec '...'" line */
	unsigned digest_mask;        /* digests the check needs (hash.h) */
	/* Called between the read and the load, with the bytes that will be
	 * loaded: 0 to go on, or a negative errno and "FILE: REASON" in why
	 * (verification refusals: -EKEYREJECTED). NULL: no check. */
	int (*check)(void *arg, const struct lb_entry *e, struct lb_stage *st,
		     char *why, size_t whysz);
	void *check_arg;
	int mode;                    /* lboot.kexec= (kexecload.h): 0 auto */
};

/*
 * lb_kexec_stage, req->check, then kexec_file_load() of the staged memfds.
 * On success prints `lboot: kexec 'TITLE' kernel=PATH initrd=PATHS
 * cmdline=CMDLINE` (dry run: `lboot: would kexec ...`) to req->log and
 * returns 0. On failure returns what lb_kexec_stage or the check returned,
 * or the kernel's error (-ENOEXEC: the kernel refused the format,
 * -EKEYREJECTED: signature (KEXEC_SIG), -ENOSYS: no kexec_file_load).
 */
int lb_kexec_load(const struct lb_kexec_req *req, char *why, size_t whysz);

/* A close-on-exec memfd, or negative errno. */
int lb_kexec_memfd(const char *name);

/* sync() and reboot(LINUX_REBOOT_CMD_KEXEC). Returns (negative errno)
 * only on failure. */
int lb_kexec_exec(void);

/* sync() and reboot(cmd) for LB_LINUX_REBOOT_CMD_RESTART / _POWER_OFF. */
int lb_reboot(unsigned cmd);

/* The device a menu shows for an entry: the fs display name, else entry->fs,
 * else "network" for an entry whose kernel is a URL. */
/* Per architecture (src/kexec/kimage_ARCH.c): the longest command line
 * (without its NUL) the kernel image h[0..n) takes, or -ENOEXEC when it is
 * not a kernel image this architecture's kexec boots; lb_kimage_name names
 * that format with its article ("a bzImage") for messages. */
long lb_kimage_cmdline_max(const uint8_t *h, size_t n);
extern const char lb_kimage_name[];

/*
 * The kernel kexec_file_load is given, made from the staged (verified,
 * measured) image IMG of N bytes: when this architecture's kernel cannot
 * take IMG as it is (arm64: a gzip'd Image, or an EFI zboot image, which
 * Linux 6.1's arm64 kexec_file_load refuses), the Image decompressed into
 * OUT (a sealed memfd blob) and a description of what was done in NOTE;
 * else OUT->fd stays -1. <0 with WHAT set when IMG cannot be unpacked.
 */
struct lb_blob;
int lb_kimage_unpack(const uint8_t *img, size_t n, struct lb_blob *out,
		     char *note, size_t notesz, char *what, size_t whatsz);

const char *lb_entry_device(const struct lb_fsset *set, const struct lb_entry *e);

#endif
