/* GRUB environment block writes (save_env), as GRUB makes them. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <stdint.h>
#include <unistd.h>

#include "grubenv.h"
#include "io.h"

static const char SIG[] = "# GRUB Environment Block\n";

/* append "name=value\n" escaping '\\' and '\n' as grub-editenv does */
static int put_var(char *out, size_t *n, const char *name, const char *value)
{
	size_t k = *n;

	for (const char *p = name; *p; p++) {
		if (k >= LB_GRUBENV_SIZE)
			return -ENOSPC;
		out[k++] = *p;
	}
	if (k >= LB_GRUBENV_SIZE)
		return -ENOSPC;
	out[k++] = '=';
	for (const char *p = value; *p; p++) {
		if (*p == '\\' || *p == '\n') {
			if (k >= LB_GRUBENV_SIZE)
				return -ENOSPC;
			out[k++] = '\\';
		}
		if (k >= LB_GRUBENV_SIZE)
			return -ENOSPC;
		out[k++] = *p;
	}
	if (k >= LB_GRUBENV_SIZE)
		return -ENOSPC;
	out[k++] = '\n';
	*n = k;
	return 0;
}

int lb_grubenv_update(const char *old, size_t len, const struct lb_grub_save *s,
		      char out[LB_GRUBENV_SIZE])
{
	int done[LB_GRUB_MAX_SAVES] = { 0 }, changed = 0, r;
	size_t i = sizeof(SIG) - 1, n = sizeof(SIG) - 1;

	if (len != LB_GRUBENV_SIZE || memcmp(old, SIG, sizeof(SIG) - 1) ||
	    memchr(old, 0, len))
		return -EINVAL;
	memcpy(out, SIG, sizeof(SIG) - 1);
	while (i < len) {
		size_t start = i, eq = 0, end;
		char name[256];
		size_t k;

		if (old[i] == '#') {
			/* a comment line (grub-editenv's WARNING) is kept; '#'s
			 * without a newline to the end are the padding */
			const char *nl = memchr(old + i, '\n', len - i);
			if (!nl)
				break;
			i = (size_t)(nl - old) + 1;
			if (n + (i - start) > LB_GRUBENV_SIZE)
				return -ENOSPC;
			memcpy(out + n, old + start, i - start);
			n += i - start;
			continue;
		}
		while (i < len && old[i] != '\n') {
			if (old[i] == '\\' && i + 1 < len)
				i++;
			else if (old[i] == '=' && !eq)
				eq = i;
			i++;
		}
		if (i >= len)
			return -EINVAL; /* a line without its newline */
		end = i++;
		if (!eq || eq - start >= sizeof(name)) {
			/* kept as is */
			if (n + (i - start) > LB_GRUBENV_SIZE)
				return -ENOSPC;
			memcpy(out + n, old + start, i - start);
			n += i - start;
			continue;
		}
		memcpy(name, old + start, eq - start);
		name[eq - start] = 0;
		for (k = 0; k < s->n && strcmp(s->name[k], name); k++)
			;
		if (k < s->n && !done[k]) {
			char cur[LB_GRUBENV_SIZE];
			size_t c = 0;
			/* the old value unescaped, to see whether it changes */
			for (size_t p = eq + 1; p < end; p++) {
				if (old[p] == '\\' && p + 1 < end)
					p++;
				cur[c++] = old[p];
			}
			cur[c] = 0;
			changed |= strcmp(cur, s->value[k]) != 0;
			done[k] = 1;
			if ((r = put_var(out, &n, name, s->value[k])))
				return r;
			continue;
		}
		if (n + (i - start) > LB_GRUBENV_SIZE)
			return -ENOSPC;
		memcpy(out + n, old + start, i - start);
		n += i - start;
	}
	for (size_t k = 0; k < s->n; k++) {
		if (done[k])
			continue;
		/* GRUB writes an unset variable as an empty one */
		changed = 1;
		if ((r = put_var(out, &n, s->name[k], s->value[k])))
			return r;
	}
	memset(out + n, '#', LB_GRUBENV_SIZE - n);
	return changed ? 0 : 1;
}

static int refused_fs(const struct lb_fs *fs, const char **why)
{
	const char *t = fs->fstype ? fs->fstype : "";

	if (!strcmp(t, "btrfs") || !strcmp(t, "zfs") || !strcmp(t, "xfs")) {
		*why = "GRUB does not write its environment block on this filesystem";
		return 1;
	}
	if (fs->name && (!strncmp(fs->name, "/dev/md", 7) || !strncmp(fs->name, "/dev/dm-", 8) ||
			 !strncmp(fs->name, "/dev/mapper/", 12))) {
		*why = "GRUB does not write its environment block on RAID or LVM";
		return 1;
	}
	if (strcmp(t, "ext2") && strcmp(t, "ext3") && strcmp(t, "ext4") && strcmp(t, "vfat")) {
		*why = "not a filesystem GRUB writes its environment block on";
		return 1;
	}
	return 0;
}

#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#define GE_RESOLVE_NO_XDEV 0x01
#define GE_RESOLVE_NO_MAGICLINKS 0x02
#define GE_RESOLVE_NO_SYMLINKS 0x04
#define GE_RESOLVE_IN_ROOT 0x10

struct ge_open_how {
	uint64_t flags, mode, resolve;
};

/*
 * path on fs opened for writing, resolved by the kernel inside fs->dir
 * (openat2 RESOLVE_IN_ROOT: `..` and absolute names never leave it), with
 * no symlink anywhere in the path and no mount crossed; then it must be a
 * 1024-byte regular file on the root's device, the same device and inode as
 * `was` (the file the block was read from). Else a negative errno, why set.
 * Without openat2 (kernels before 5.6) nothing is written.
 */
static int open_for_write(const struct lb_fs *fs, const char *path, const struct stat *was,
			  const char **why)
{
	struct ge_open_how how = { 0 };
	struct stat root, a;
	int rfd, fd;

	while (*path == '/')
		path++;
	if (!*path) {
		*why = "no file name";
		return -EINVAL;
	}
	rfd = open(fs->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rfd < 0)
		return -errno;
	if (fstat(rfd, &root) < 0) {
		int e = -errno;
		close(rfd);
		return e;
	}
	how.flags = O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC;
	how.resolve = GE_RESOLVE_IN_ROOT | GE_RESOLVE_NO_SYMLINKS | GE_RESOLVE_NO_MAGICLINKS |
		      GE_RESOLVE_NO_XDEV;
	fd = (int)syscall(SYS_openat2, rfd, path, &how, sizeof(how));
	if (fd < 0) {
		int e = -errno;
		close(rfd);
		if (e == -ENOSYS)
			*why = "the kernel has no openat2 to open it inside the filesystem";
		else if (e == -ELOOP)
			*why = "a symlink in its path (refused for writing)";
		else if (e == -EXDEV)
			*why = "its path crosses a mount";
		return e;
	}
	close(rfd);
	if (fstat(fd, &a) < 0 || !S_ISREG(a.st_mode) || a.st_size != LB_GRUBENV_SIZE ||
	    a.st_dev != root.st_dev || a.st_dev != was->st_dev || a.st_ino != was->st_ino) {
		*why = "not the file that was read (another device, inode or size)";
		close(fd);
		return -EINVAL;
	}
	return fd;
}

int lb_grubenv_apply(const struct lb_grub_save *s, FILE *log)
{
	const struct lb_fs *fs = s->fs;
	const char *dev = fs && fs->name ? fs->name : "?", *why = NULL;
	char *old = NULL, new_[LB_GRUBENV_SIZE];
	size_t len = 0;
	int r, fd = -1, remounted = 0;

	if (!fs || !s->n)
		return 0;
	if ((r = lb_fs_read(fs, s->path, LB_GRUBENV_SIZE + 1, &old, &len))) {
		if (log)
			fprintf(log, "lboot: grubenv %s on %s: cannot read: %s; not saving\n",
				s->path, dev, strerror(-r));
		return r;
	}
	r = lb_grubenv_update(old, len, s, new_);
	free(old);
	if (r == 1)
		return 0; /* nothing changes: no write at all */
	if (r) {
		if (log)
			fprintf(log, "lboot: grubenv %s on %s: %s; not saving\n", s->path, dev,
				r == -ENOSPC ? "the variables do not fit its 1024 bytes" :
				"not a 1024-byte GRUB environment block");
		return r;
	}
	if (refused_fs(fs, &why)) {
		if (log)
			fprintf(log, "lboot: grubenv %s on %s: %s; not saving\n", s->path, dev, why);
		return -EROFS;
	}
	/* read-write for this one write, as GRUB's own in-place write */
	if (mount(NULL, fs->dir, NULL, MS_REMOUNT | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
		r = -errno;
		goto out;
	}
	remounted = 1;
	if ((fd = lb_fs_open(fs, s->path)) < 0) {
		r = fd;
		goto out;
	}
	{
		/* the block read (through lb_fs_open, inside the root) ... */
		struct stat rs;
		int e = fstat(fd, &rs) < 0 ? -errno : 0;

		close(fd);
		fd = -1;
		if (e) {
			r = e;
			goto out;
		}
		/* ... is the very file opened for writing */
		if ((fd = open_for_write(fs, s->path, &rs, &why)) < 0) {
			r = fd;
			goto out;
		}
	}
	if (pwrite(fd, new_, LB_GRUBENV_SIZE, 0) != LB_GRUBENV_SIZE || fsync(fd) < 0) {
		r = -errno ? -errno : -EIO;
		goto out;
	}
	r = 0;
out:
	if (fd >= 0)
		close(fd);
	if (remounted && mount(NULL, fs->dir, NULL,
			       MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0 &&
	    log)
		fprintf(log, "lboot: %s: remounting read-only again: %s\n", dev, strerror(errno));
	if (log) {
		if (r)
			fprintf(log, "lboot: grubenv %s on %s: writing: %s%s%s; not saved\n", s->path, dev,
				why ? why : strerror(-r), why ? ": " : "", why ? strerror(-r) : "");
		else {
			fprintf(log, "lboot: grubenv %s on %s: saved", s->path, dev);
			for (size_t k = 0; k < s->n; k++)
				fprintf(log, " %s=%s", s->name[k], s->value[k]);
			fprintf(log, "\n");
		}
	}
	return r;
}
