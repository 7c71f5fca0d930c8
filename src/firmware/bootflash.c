/* The boot flash through MTD, or a flash image file (see bootflash.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "bootflash.h"
#include "io.h"
#include "le.h"

/* <mtd/mtd-abi.h>, which musl-gcc does not have: the two ioctls used */
struct mtd_info_user {
	uint8_t type;
	uint32_t flags;
	uint32_t size;
	uint32_t erasesize;
	uint32_t writesize;
	uint32_t oobsize;
	uint64_t padding;
};
struct erase_info_user {
	uint32_t start;
	uint32_t length;
};
#define MEMGETINFO 0x80204D01u /* _IOR('M', 1, struct mtd_info_user) */
#define MEMERASE   0x40084D02u /* _IOW('M', 2, struct erase_info_user) */
#define MTD_NORFLASH 3
#define MTD_WRITEABLE 0x400
#define MTD_CHAR_MAJOR 90

/* A jump at the x86 reset vector (16 bytes below the end): OVMF has two
 * NOPs before it, coreboot none. */
static int reset_vector(const uint8_t *top16)
{
	int i = 0;

	while (i < 4 && (top16[i] == 0x90 || top16[i] == 0x66))
		i++;
	return top16[i] == 0xE9 || top16[i] == 0xEB;
}

const char *lb_flash_image_kind(const uint8_t *img, size_t len)
{
	if (len < 4096 || (len & 4095))
		return "unknown";
	/* a firmware volume ending at the end: the SEC volume of UEFI */
	for (size_t off = len - 4096;; off -= 4096) {
		const uint8_t *p = img + off;

		if (le32(p + 40) == 0x4856465Fu && le64(p + 32) == len - off)
			return "uefi";
		if (!off || len - off >= (16u << 20))
			break;
	}
	/* coreboot: the CBFS master header's address in the last 4 bytes (as
	 * x86 maps the flash: its end at 4 GiB) */
	{
		uint32_t a = le32(img + len - 4);
		uint64_t base = 0x100000000ull - len;

		if (a >= base && a - base + 32 <= len && !memcmp(img + (a - base), "ORBC", 4))
			return "coreboot";
	}
	return "unknown";
}

static int read_num(const char *dir, const char *attr, unsigned long long *v)
{
	char path[512], buf[64], *end;

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	if (lb_read_attr(path, buf, sizeof(buf)))
		return -EIO;
	errno = 0;
	*v = strtoull(buf, &end, 0);
	return errno || *end || !buf[0] ? -EINVAL : 0;
}

int lb_flash_locate(const char *sysfs, const char *devdir, const char *want,
		  char *path, size_t pathsz, char *why, size_t whysz)
{
	struct dirent **names = NULL;
	int n = scandir(sysfs, &names, NULL, alphasort);
	char seen[256] = "";
	size_t so = 0;
	int found = 0;

	for (int i = 0; i < n; i++) {
		const char *d = names[i]->d_name;
		char dir[300], type[32] = "", name[64] = "", node[400];
		unsigned long long size = 0;
		uint8_t top[16];
		int fd, ok;

		if (found || strncmp(d, "mtd", 3) || !d[3] || strspn(d + 3, "0123456789") != strlen(d + 3))
			goto next;
		snprintf(dir, sizeof(dir), "%s/%s", sysfs, d);
		snprintf(node, sizeof(node), "%s/%s", dir, "type");
		lb_read_attr(node, type, sizeof(type));
		snprintf(node, sizeof(node), "%s/%s", dir, "name");
		lb_read_attr(node, name, sizeof(name));
		if (so < sizeof(seen))
			so += (size_t)snprintf(seen + so, sizeof(seen) - so, "%s%s (%s, %s)",
					       so ? ", " : "", d, name, type);
		if (want && *want && strcmp(want, d) && strcmp(want, name))
			goto next;
		if (strcmp(type, "nor") || read_num(dir, "size", &size) || size < 64 * 1024 ||
		    size > LB_FLASH_MAX)
			goto next;
		snprintf(node, sizeof(node), "%s/%s", devdir, d);
		if ((fd = open(node, O_RDONLY | O_CLOEXEC)) < 0)
			goto next;
		ok = !lb_pread_full(fd, top, sizeof(top), size - 16, NULL) && reset_vector(top);
		close(fd);
		if (!ok)
			goto next;
		if ((size_t)snprintf(path, pathsz, "%s", node) < pathsz)
			found = 1;
next:
		free(names[i]);
	}
	free(names);
	if (found)
		return 0;
	if (n < 0)
		return lb_whyf(why, whysz, -ENODEV, "no MTD devices (%s: %s)", sysfs, strerror(errno));
	return lb_whyf(why, whysz, -ENODEV, "no boot flash%s%s among the MTDs (%s): none is a NOR flash with an x86 reset vector at its end",
		       want && *want ? " named " : "", want && *want ? want : "",
		       seen[0] ? seen : "none");
}

int lb_flash_open(const char *path, int write, struct lb_flash *f, char *why, size_t whysz)
{
	struct stat st;

	memset(f, 0, sizeof(*f));
	f->fd = open(path, (write ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (f->fd < 0)
		return lb_whyf(why, whysz, -errno, "%s: %s", path, strerror(errno));
	snprintf(f->path, sizeof(f->path), "%s", path);
	if (fstat(f->fd, &st))
		goto err;
	if (S_ISCHR(st.st_mode) && major(st.st_rdev) == MTD_CHAR_MAJOR) {
		struct mtd_info_user mi;
		char sys[128];

		if (ioctl(f->fd, MEMGETINFO, &mi))
			goto err;
		if (mi.type != MTD_NORFLASH) {
			lb_flash_close(f);
			return lb_whyf(why, whysz, -ENOTTY, "%s: not a NOR flash (MTD type %u)", path, mi.type);
		}
		f->is_mtd = 1;
		f->size = mi.size;
		f->erasesize = mi.erasesize;
		f->writable = write && (mi.flags & MTD_WRITEABLE);
		snprintf(sys, sizeof(sys), "/sys/dev/char/%u:%u/name", major(st.st_rdev),
			 minor(st.st_rdev));
		if (lb_read_attr(sys, f->name, sizeof(f->name)))
			snprintf(f->name, sizeof(f->name), "%s", path);
	} else if (S_ISREG(st.st_mode)) {
		f->size = (uint64_t)st.st_size;
		f->erasesize = LB_FLASH_FILE_ERASE;
		f->writable = write;
		snprintf(f->name, sizeof(f->name), "%s", path);
	} else {
		lb_flash_close(f);
		return lb_whyf(why, whysz, -ENOTTY, "%s: neither an MTD device nor a file", path);
	}
	if (!f->size || !f->erasesize || f->size % f->erasesize || f->size > LB_FLASH_MAX) {
		uint64_t sz = f->size;

		lb_flash_close(f);
		return lb_whyf(why, whysz, -EINVAL, "%s: a flash of %llu bytes (not a multiple of its erase block, or over %llu MiB)",
			       path, (unsigned long long)sz, LB_FLASH_MAX >> 20);
	}
	/* the contents, read once (what firmware it holds; the update's
	 * decision reads them from here) */
	if ((f->img = malloc(f->size)) && lb_flash_read(f, 0, f->img, f->size)) {
		free(f->img);
		f->img = NULL;
	}
	snprintf(f->kind, sizeof(f->kind), "%s",
		 f->img ? lb_flash_image_kind(f->img, f->size) : "unknown");
	return 0;
err:
	{
		int e = errno;

		lb_flash_close(f);
		return lb_whyf(why, whysz, -e, "%s: %s", path, strerror(e));
	}
}

void lb_flash_close(struct lb_flash *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	free(f->img);
	f->img = NULL;
}

int lb_flash_read(struct lb_flash *f, uint64_t off, void *buf, size_t len)
{
	if (off > f->size || len > f->size - off)
		return -EINVAL;
	return lb_pread_full(f->fd, buf, len, off, NULL);
}

static int in_keep(const struct lb_flash_range *keep, size_t nkeep, uint64_t off, uint64_t len)
{
	for (size_t i = 0; i < nkeep; i++)
		if (off < keep[i].off + keep[i].len && keep[i].off < off + len)
			return 1;
	return 0;
}

static int write_block(struct lb_flash *f, uint64_t off, const uint8_t *p, size_t len)
{
	ssize_t w;

	if (f->is_mtd) {
		struct erase_info_user e = { (uint32_t)off, (uint32_t)len };

		if (ioctl(f->fd, MEMERASE, &e))
			return -errno;
	}
	if (f->failk && !--f->failk)
		return -EIO;
	for (size_t done = 0; done < len; done += (size_t)w) {
		w = pwrite(f->fd, p + done, len - done, (off_t)(off + done));
		if (w < 0 && errno == EINTR) {
			w = 0;
			continue;
		}
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
	}
	return 0;
}

int lb_flash_program(struct lb_flash *f, const uint8_t *img, size_t len,
		     const struct lb_flash_range *keep, size_t nkeep,
		     void (*progress)(void *arg, uint64_t done, uint64_t total), void *arg,
		     struct lb_flash_stats *st, char *why, size_t whysz)
{
	uint32_t eb = f->erasesize;
	uint8_t *cur;
	int rc = 0;

	memset(st, 0, sizeof(*st));
	if (len != f->size)
		return lb_whyf(why, whysz, -EINVAL, "an image of %zu bytes for a flash of %llu",
			       len, (unsigned long long)f->size);
	if (!f->writable)
		return lb_whyf(why, whysz, -EROFS, "%s: the flash is read-only", f->path);
	for (size_t i = 0; i < nkeep; i++)
		if (keep[i].off % eb || keep[i].len % eb || keep[i].off > f->size ||
		    keep[i].len > f->size - keep[i].off)
			return lb_whyf(why, whysz, -EINVAL, "kept range 0x%llx+0x%llx: not whole erase blocks of the flash",
				       (unsigned long long)keep[i].off, (unsigned long long)keep[i].len);
	if (!(cur = malloc(eb)))
		return -ENOMEM;
	for (uint64_t off = 0; off < f->size; off += eb) {
		st->blocks++;
		if (in_keep(keep, nkeep, off, eb)) {
			st->kept++;
		} else if ((rc = lb_flash_read(f, off, cur, eb))) {
			lb_whyf(why, whysz, rc, "reading the block at 0x%llx: %s",
				(unsigned long long)off, strerror(-rc));
			break;
		} else if (memcmp(cur, img + off, eb)) {
			st->differ++;
			if ((rc = write_block(f, off, img + off, eb))) {
				lb_whyf(why, whysz, rc, "writing the block at 0x%llx: %s",
					(unsigned long long)off, strerror(-rc));
				break;
			}
			if ((rc = lb_flash_read(f, off, cur, eb)) || memcmp(cur, img + off, eb)) {
				rc = rc ? rc : -EIO;
				lb_whyf(why, whysz, rc, "the block at 0x%llx reads back different from what was written",
					(unsigned long long)off);
				break;
			}
		}
		if (progress)
			progress(arg, off + eb, f->size);
	}
	free(cur);
	return rc;
}

void lb_flash_progress_stderr(void *arg, uint64_t done, uint64_t total)
{
	struct lb_flash_progress *p = arg;
	unsigned pct = total ? (unsigned)(done * 100 / total) : 100;

	if (pct / 10 != p->last / 10 || done == total) {
		fprintf(stderr, "%s: writing %u%%\n", p->who, pct);
		p->last = pct;
	}
}

int lb_flash_compare(struct lb_flash *f, const uint8_t *img, size_t len,
		     const struct lb_flash_range *keep, size_t nkeep, uint64_t *first)
{
	uint32_t eb = f->erasesize;
	uint8_t *cur;
	int rc = 0;

	if (len != f->size)
		return -EINVAL;
	if (!(cur = malloc(eb)))
		return -ENOMEM;
	for (uint64_t off = 0; off < f->size; off += eb) {
		if (in_keep(keep, nkeep, off, eb))
			continue;
		if ((rc = lb_flash_read(f, off, cur, eb)))
			break;
		if (memcmp(cur, img + off, eb)) {
			size_t i = 0;

			while (cur[i] == img[off + i])
				i++;
			if (first)
				*first = off + i;
			rc = 1;
			break;
		}
	}
	free(cur);
	return rc;
}
