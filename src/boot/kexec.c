/* kexec_file_load of boot entries (bzImage + initrds, or a UKI). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "io.h"
#include "kexec.h"
#include "uptime.h"
#include "uki.h"

#ifndef SYS_kexec_file_load
#define SYS_kexec_file_load 320 /* x86_64 */
#endif
#ifndef SYS_memfd_create
#define SYS_memfd_create 319
#endif
#define LB_MFD_CLOEXEC 1u

const char *lb_entry_device(const struct lb_fsset *set, const struct lb_entry *e)
{
	const struct lb_fs *fs = e->fs && set ? lb_fsset_by_ident(set, e->fs) : NULL;

	if (fs && fs->name)
		return fs->name;
	return e->fs ? e->fs : "?";
}

int lb_kexec_memfd(const char *name)
{
	int fd = (int)syscall(SYS_memfd_create, name, LB_MFD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* memfd writes: ENOSPC there means out of memory */
static int write_all(int fd, const void *buf, size_t len)
{
	int r = lb_write_all(fd, buf, len);

	return r == -ENOSPC ? -ENOMEM : r;
}

/* pad the memfd to a multiple of 4 bytes (initrd concatenation rule) */
static int pad4(int fd, uint64_t *total)
{
	static const uint8_t z[4];
	size_t pad = (size_t)((4 - (*total & 3)) & 3);
	int r;

	if (!pad)
		return 0;
	if ((r = write_all(fd, z, pad)))
		return r;
	*total += pad;
	return 0;
}

/* write a piece of the initrd and pad it */
static int append(int fd, const void *buf, size_t len, uint64_t *total)
{
	int r = write_all(fd, buf, len);

	if (r)
		return r;
	*total += len;
	return pad4(fd, total);
}

/* copy all of in to out; *total counts bytes written */
static int copy_fd(int out, int in, uint64_t *total)
{
	uint8_t *buf = malloc(1 << 16);
	int r = 0;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n = read(in, buf, 1 << 16);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		if (!n)
			break;
		if ((r = write_all(out, buf, (size_t)n)))
			break;
		*total += (uint64_t)n;
	}
	free(buf);
	return r;
}

static const char *err_text(int err)
{
	switch (err) {
	case ENOENT:
		return "no such file (ENOENT)";
	case ENOEXEC:
		return "not a kernel image the running kernel can kexec (ENOEXEC)";
	case EKEYREJECTED:
		return "signature rejected (EKEYREJECTED)";
	case EKEYEXPIRED:
		return "signing key expired (EKEYEXPIRED)";
	case EBADMSG:
		return "bad signature data (EBADMSG)";
	case ENOMEM:
		return "out of memory (ENOMEM)";
	case ENOSYS:
		return "kexec_file_load not supported by this kernel (ENOSYS)";
	case EPERM:
		return "not permitted (EPERM)";
	case EBUSY:
		return "kexec busy (EBUSY)";
	case EISDIR:
		return "is a directory (EISDIR)";
	case EFBIG:
		return "file too large (EFBIG)";
	case EINVAL:
		return "invalid argument (EINVAL)";
	default:
		return strerror(err);
	}
}

static int fail(char *why, size_t whysz, const char *file, int r, const char *what)
{
	snprintf(why, whysz, "%s: %s", file ? file : "?",
		 what ? what : err_text(-r));
	return r;
}

/* The longest command line (without its NUL) the kernel whose setup
 * header is h takes: cmdline_size from boot protocol 2.06 on, else 255
 * (Documentation/arch/x86/boot.rst). -ENOEXEC when h is not a bzImage. */
static long setup_cmdline_size(const uint8_t *h, size_t n)
{
	unsigned version;

	if (n < 0x206 || h[0x1fe] != 0x55 || h[0x1ff] != 0xaa ||
	    memcmp(h + 0x202, "HdrS", 4))
		return -ENOEXEC;
	version = n >= 0x208 ? (unsigned)h[0x206] | (unsigned)h[0x207] << 8 : 0;
	if (version < 0x206 || n < 0x23c)
		return 255;
	return (long)((uint32_t)h[0x238] | (uint32_t)h[0x239] << 8 |
		      (uint32_t)h[0x23a] << 16 | (uint32_t)h[0x23b] << 24);
}

/* bzImage: boot sector signature and the "HdrS" setup header magic; the
 * command line size it takes into *cmdmax */
static int check_bzimage(int fd, long *cmdmax)
{
	uint8_t h[0x23c];
	ssize_t n = pread(fd, h, sizeof(h), 0);

	if (n < 0)
		return -errno;
	*cmdmax = setup_cmdline_size(h, (size_t)n);
	return *cmdmax < 0 ? (int)*cmdmax : 0;
}

static int open_file(const struct lb_fs *fs, const char *path, int *fd)
{
	struct stat st;
	int f = lb_fs_open(fs, path);

	if (f < 0)
		return f;
	if (fstat(f, &st) < 0) {
		int r = -errno;
		close(f);
		return r;
	}
	if (S_ISDIR(st.st_mode)) {
		close(f);
		return -EISDIR;
	}
	if (!S_ISREG(st.st_mode)) {
		close(f);
		return -EINVAL;
	}
	*fd = f;
	return 0;
}

static int read_whole(int fd, uint8_t **buf, size_t *len)
{
	int r = lb_read_fd(fd, LB_KEXEC_MAX_UKI, buf, len);

	if (!r && !*len) {
		free(*buf);
		*buf = NULL;
		return -ENOEXEC;
	}
	return r;
}

/* the command line of a UKI's .cmdline: up to a NUL, trailing space cut */
static char *span_str(const uint8_t *img, const struct lb_span *s)
{
	size_t n = 0;
	char *c;

	while (n < s->len && img[s->off + n])
		n++;
	while (n && (img[s->off + n - 1] == '\n' || img[s->off + n - 1] == ' ' ||
		     img[s->off + n - 1] == '\r' || img[s->off + n - 1] == '\t'))
		n--;
	if (!(c = malloc(n + 1)))
		return NULL;
	memcpy(c, img + s->off, n);
	c[n] = 0;
	return c;
}

int lb_kexec_append_files(int out, const struct lb_fs *fs, char *const *paths,
			  size_t n, uint64_t *total, char *why, size_t whysz)
{
	for (size_t i = 0; i < n; i++) {
		int fd, r;

		if ((r = open_file(fs, paths[i], &fd)))
			return fail(why, whysz, paths[i], r, NULL);
		r = copy_fd(out, fd, total);
		close(fd);
		if (!r)
			r = pad4(out, total);
		if (r)
			return fail(why, whysz, paths[i], r, NULL);
	}
	return 0;
}

static int kexec_file_load(int kfd, int ifd, const char *cmdline, unsigned long flags)
{
	unsigned long len = strlen(cmdline) + 1;

	if (syscall(SYS_kexec_file_load, kfd, ifd, len, cmdline, flags) < 0)
		return -errno;
	return 0;
}

int lb_kexec_load(const struct lb_kexec_req *rq, char *why, size_t whysz)
{
	const struct lb_entry *e = rq->entry;
	const struct lb_fs *fs;
	int kfd = -1, ifd = -1, fd = -1, r;
	unsigned long flags = 0;
	long cmdmax = 0;
	uint8_t *img = NULL;
	size_t imglen = 0;
	char *cmd_alloc = NULL, initrds[1024] = "";
	const char *cmdline;
	uint64_t total = 0;
	size_t ilen = 0;

	if (!rq || !e || !rq->set)
		return fail(why, whysz, "entry", -EINVAL, "no entry");
	if (!e->kernel || !*e->kernel)
		return fail(why, whysz, "entry", -ENOENT, "no kernel path");
	fs = e->fs ? lb_fsset_by_ident(rq->set, e->fs) : NULL;
	if (!fs && !e->fs && rq->set->n == 1)
		fs = &rq->set->v[0];
	if (!fs)
		return fail(why, whysz, e->fs ? e->fs : "(no filesystem)", -ENODEV,
			    "filesystem not found (ENODEV)");
	if ((r = open_file(fs, e->kernel, &fd))) {
		fail(why, whysz, e->kernel, r, NULL);
		goto out;
	}

	if (e->type == LB_ENTRY_UKI) {
		struct lb_uki u;

		if ((r = read_whole(fd, &img, &imglen))) {
			fail(why, whysz, e->kernel, r, r == -ENOEXEC ? "empty file (ENOEXEC)" : NULL);
			goto out;
		}
		if ((r = lb_uki_split(img, imglen, &u))) {
			fail(why, whysz, e->kernel, -ENOEXEC,
			     r == -ENOENT ? "UKI without a .linux section (ENOEXEC)"
					  : "not a PE unified kernel image (ENOEXEC)");
			r = -ENOEXEC;
			goto out;
		}
		cmdmax = setup_cmdline_size(img + u.linux_.off,
					    u.linux_.len < 0x23c ? u.linux_.len : 0x23c);
		if (cmdmax < 0) {
			r = fail(why, whysz, e->kernel, -ENOEXEC,
				 "UKI .linux section is not a bzImage (ENOEXEC)");
			goto out;
		}
		if ((kfd = lb_kexec_memfd("lboot-kernel")) < 0) {
			r = kfd;
			fail(why, whysz, e->kernel, r, NULL);
			goto out;
		}
		if ((r = write_all(kfd, img + u.linux_.off, u.linux_.len))) {
			fail(why, whysz, e->kernel, r, NULL);
			goto out;
		}
		if (u.ucode.len || u.initrd.len || e->n_initrd) {
			if ((ifd = lb_kexec_memfd("lboot-initrd")) < 0) {
				r = ifd;
				fail(why, whysz, e->kernel, r, NULL);
				goto out;
			}
		}
		if (u.ucode.len) {
			if ((r = append(ifd, img + u.ucode.off, u.ucode.len, &total))) {
				fail(why, whysz, e->kernel, r, NULL);
				goto out;
			}
			ilen += (size_t)snprintf(initrds + ilen, sizeof(initrds) - ilen,
						 "%s.ucode", ilen ? "," : "");
		}
		if (u.initrd.len) {
			if ((r = append(ifd, img + u.initrd.off, u.initrd.len, &total))) {
				fail(why, whysz, e->kernel, r, NULL);
				goto out;
			}
			if (ilen < sizeof(initrds))
				ilen += (size_t)snprintf(initrds + ilen, sizeof(initrds) - ilen,
							 "%s.initrd", ilen ? "," : "");
		}
		if (!rq->cmdline && u.cmdline.len &&
		    !(cmd_alloc = span_str(img, &u.cmdline))) {
			r = fail(why, whysz, e->kernel, -ENOMEM, NULL);
			goto out;
		}
		free(img);
		img = NULL;
		close(fd);
		fd = -1;
	} else {
		if ((r = check_bzimage(fd, &cmdmax))) {
			fail(why, whysz, e->kernel, r,
			     r == -ENOEXEC ? "not a bzImage (ENOEXEC)" : NULL);
			goto out;
		}
		kfd = fd;
		fd = -1;
	}

	/* initrds of the entry: one is passed as is, several are concatenated */
	if (e->n_initrd == 1 && ifd < 0) {
		if ((r = open_file(fs, e->initrd[0], &ifd))) {
			fail(why, whysz, e->initrd[0], r, NULL);
			goto out;
		}
		snprintf(initrds, sizeof(initrds), "%s", e->initrd[0]);
	} else if (e->n_initrd) {
		if (ifd < 0 && (ifd = lb_kexec_memfd("lboot-initrd")) < 0) {
			r = ifd;
			fail(why, whysz, e->initrd[0], r, NULL);
			goto out;
		}
		if ((r = lb_kexec_append_files(ifd, fs, e->initrd,
					       e->n_initrd < LB_MAX_INITRDS ? e->n_initrd : LB_MAX_INITRDS,
					       &total, why, whysz)))
			goto out;
		for (size_t i = 0; i < e->n_initrd && i < LB_MAX_INITRDS; i++)
			if (ilen < sizeof(initrds))
				ilen += (size_t)snprintf(initrds + ilen, sizeof(initrds) - ilen,
							 "%s%s", ilen ? "," : "", e->initrd[i]);
	}
	if (ifd < 0)
		flags |= LB_KEXEC_FILE_NO_INITRAMFS;

	cmdline = rq->cmdline ? rq->cmdline : cmd_alloc ? cmd_alloc :
		  e->cmdline ? e->cmdline : "";
	if (strlen(cmdline) > (size_t)cmdmax) {
		char what[128];

		snprintf(what, sizeof(what), "%zu bytes, the kernel takes at most %ld (E2BIG)",
			 strlen(cmdline), cmdmax);
		r = fail(why, whysz, "command line", -E2BIG, what);
		goto out;
	}
	if (!rq->dry_run && (r = kexec_file_load(kfd, ifd, cmdline, flags))) {
		fail(why, whysz, e->kernel, r, NULL);
		goto out;
	}
	if (rq->log) {
		fprintf(rq->log, "lboot: %skexec '%s' kernel=%s initrd=%s cmdline=%s\n",
			rq->dry_run ? "would " : "", e->title ? e->title : "",
			e->kernel, initrds[0] ? initrds : "none", cmdline);
		if (!rq->dry_run) {
			char up[32];
			fprintf(rq->log, "lboot: loaded; handing over at uptime %s s\n",
				lb_uptime(up, sizeof(up)));
		}
		fflush(rq->log);
	}
	r = 0;
out:
	free(img);
	free(cmd_alloc);
	if (fd >= 0)
		close(fd);
	if (kfd >= 0)
		close(kfd);
	if (ifd >= 0)
		close(ifd);
	return r;
}

int lb_reboot(unsigned cmd)
{
	sync();
	if (syscall(SYS_reboot, LB_LINUX_REBOOT_MAGIC1, LB_LINUX_REBOOT_MAGIC2,
		    cmd, NULL) < 0)
		return -errno;
	return 0;
}

int lb_kexec_exec(void)
{
	return lb_reboot(LB_LINUX_REBOOT_CMD_KEXEC);
}
