/* Loading a boot entry with kexec_file_load(2) and jumping into it. */
#ifndef LB_KEXEC_H
#define LB_KEXEC_H

#include <stdint.h>
#include <stdio.h>

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

struct lb_kexec_req {
	const struct lb_fsset *set;  /* where entry->fs is looked up */
	const struct lb_entry *entry;
	const char *cmdline;         /* replacement command line, NULL = the entry's */
	int dry_run;                 /* open and check everything, load nothing */
	FILE *log;                   /* gets the "lboot: kexec '...'" line */
};

/*
 * Open the entry's kernel and initrds on its filesystem, build the initrd
 * (several concatenated into a memfd, each padded to 4 bytes; for a UKI its
 * .ucode and .initrd sections first) and kexec_file_load() it. On success
 * prints `lboot: kexec 'TITLE' kernel=PATH initrd=PATHS cmdline=CMDLINE`
 * (dry run: `lboot: would kexec ...`) to req->log and returns 0. On failure
 * returns a negative errno and puts "FILE: REASON" into why:
 * -ENODEV (filesystem not found), -ENOENT (missing file), -ENOEXEC (not a
 * bzImage / kernel refused the format), -E2BIG (command line longer than
 * the kernel's setup header allows: "command line: N bytes, the kernel
 * takes at most M (E2BIG)"), -EKEYREJECTED (signature),
 * -ENOMEM, -ENOSYS (kernel without kexec_file_load), others as the kernel
 * returned them.
 */
int lb_kexec_load(const struct lb_kexec_req *req, char *why, size_t whysz);

/* A close-on-exec memfd, or negative errno. */
int lb_kexec_memfd(const char *name);

/* Append the files `paths` of fs to the file `out`, each padded with zeros
 * to a multiple of 4 bytes (*total counts the bytes written; the padding
 * is computed from it). On failure "FILE: REASON" goes into why. */
int lb_kexec_append_files(int out, const struct lb_fs *fs, char *const *paths,
			  size_t n, uint64_t *total, char *why, size_t whysz);

/* sync() and reboot(LINUX_REBOOT_CMD_KEXEC). Returns (negative errno)
 * only on failure. */
int lb_kexec_exec(void);

/* sync() and reboot(cmd) for LB_LINUX_REBOOT_CMD_RESTART / _POWER_OFF. */
int lb_reboot(unsigned cmd);

/* The device a menu shows for an entry: the fs display name, else entry->fs. */
const char *lb_entry_device(const struct lb_fsset *set, const struct lb_entry *e);

#endif
