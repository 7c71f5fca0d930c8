/* EFI variables through efivarfs (efivars.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "efivar.h"
#include "efivars.h"

/* <linux/fs.h> and <linux/magic.h>, which musl-gcc does not have */
#define LB_FS_IOC_GETFLAGS 0x80086601u
#define LB_FS_IOC_SETFLAGS 0x40086602u
#define LB_FS_IMMUTABLE_FL 0x00000010
#define LB_EFIVARFS_MAGIC  0xde5e81e4u

static const char *test_dir;

void lb_efivars_set_dir(const char *dir)
{
	test_dir = dir;
}

static const char *dir(void)
{
	return test_dir ? test_dir : LB_EFIVARS_DIR;
}

int lb_efivars_open(void)
{
	struct statfs sf;

	if (test_dir)
		return access(test_dir, W_OK) ? -errno : 0;
	if (access("/sys/firmware/efi", F_OK))
		return -ENOENT;
	if (!statfs(LB_EFIVARS_DIR, &sf) && (uint32_t)sf.f_type == LB_EFIVARFS_MAGIC)
		return 0;
	if (mount("efivarfs", LB_EFIVARS_DIR, "efivarfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  NULL) < 0 && errno != EBUSY)
		return -errno;
	return 0;
}

static int path_of(char *p, size_t n, const char *name, const char *guid)
{
	char f[256];
	int r;

	if ((r = lb_efivar_filename(f, sizeof(f), name, guid)))
		return r;
	if ((size_t)snprintf(p, n, "%s/%s", dir(), f) >= n)
		return -ENAMETOOLONG;
	return 0;
}

int lb_efivar_get(const char *name, const char *guid, uint32_t *attr,
		  uint8_t *val, size_t valsz, size_t *vlen)
{
	uint8_t buf[4 + LB_EFIVAR_MAX + 1];
	const uint8_t *v;
	char p[512];
	ssize_t got;
	size_t n;
	uint32_t a;
	int fd, r;

	if ((r = path_of(p, sizeof(p), name, guid)))
		return r;
	fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	/* efivarfs hands the whole variable to one read */
	do
		got = read(fd, buf, sizeof(buf));
	while (got < 0 && errno == EINTR);
	r = got < 0 ? -errno : 0;
	close(fd);
	if (r)
		return r;
	if ((size_t)got == sizeof(buf))
		return -EFBIG;
	if ((r = lb_efivar_parse(buf, (size_t)got, &a, &v, &n)))
		return r;
	if (n > valsz)
		return -EFBIG;
	memcpy(val, v, n);
	*vlen = n;
	if (attr)
		*attr = a;
	return 0;
}

int lb_efivar_get_str(const char *name, const char *guid, char *out, size_t outsz)
{
	uint8_t v[LB_EFIVAR_MAX];
	size_t n;
	int r;

	if ((r = lb_efivar_get(name, guid, NULL, v, sizeof(v), &n)))
		return r;
	return lb_ucs2_to_utf8(v, n, out, outsz);
}

/* chattr -i; *saved gets the flags (and 1 is returned) when they were read */
static int drop_immutable(const char *p, int *saved)
{
	int fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK), f, ok = 0;

	if (fd < 0)
		return 0;
	if (ioctl(fd, LB_FS_IOC_GETFLAGS, &f) == 0) {
		*saved = f;
		ok = 1;
		if (f & LB_FS_IMMUTABLE_FL) {
			f &= ~LB_FS_IMMUTABLE_FL;
			ioctl(fd, LB_FS_IOC_SETFLAGS, &f);
		}
	}
	close(fd);
	return ok;
}

static void restore_flags(const char *p, int saved)
{
	int fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK), f;

	if (fd < 0)
		return;
	if (ioctl(fd, LB_FS_IOC_GETFLAGS, &f) == 0 && f != saved)
		ioctl(fd, LB_FS_IOC_SETFLAGS, &saved);
	close(fd);
}

int lb_efivar_set(const char *name, const char *guid, uint32_t attr,
		  const void *val, size_t vlen)
{
	uint8_t buf[4 + LB_EFIVAR_MAX];
	char p[512];
	size_t n;
	ssize_t w;
	int fd, r, saved = 0, have;

	if ((r = path_of(p, sizeof(p), name, guid)) ||
	    (r = lb_efivar_build(attr, val, vlen, buf, sizeof(buf), &n)))
		return r;
	have = drop_immutable(p, &saved);
	/* efivarfs replaces the value on write (no O_TRUNC there); a test's
	 * plain directory needs the truncation */
	fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY |
		  (test_dir ? O_TRUNC : 0), 0644);
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	/* one write: efivarfs takes the attributes and the value together */
	do
		w = write(fd, buf, n);
	while (w < 0 && errno == EINTR);
	r = w < 0 ? -errno : (size_t)w != n ? -EIO : 0;
	if (close(fd) < 0 && !r)
		r = -errno;
out:
	if (have)
		restore_flags(p, saved);
	return r;
}

int lb_efivar_set_str(const char *name, const char *guid, uint32_t attr, const char *s)
{
	uint8_t v[LB_EFIVAR_MAX];
	size_t n;
	int r;

	if ((r = lb_utf8_to_ucs2(s, v, sizeof(v), &n)))
		return r;
	return lb_efivar_set(name, guid, attr, v, n);
}

int lb_efivar_del(const char *name, const char *guid)
{
	char p[512];
	int r, saved = 0;

	if ((r = path_of(p, sizeof(p), name, guid)))
		return r;
	drop_immutable(p, &saved);
	if (unlink(p) < 0)
		return errno == ENOENT ? 0 : -errno;
	return 0;
}
